{# A jinja2 template: the names it shares with the figures come from figsite/data/shared_names.py (render.py). #}
// Draws every chart on the page from the Vega spec embedded beside it (compiled from Vega-Lite when the site was
// built, so the page does no compiling): no network, works from file://.
// The state of a figure (token, view, stage...) lives in the page address after '#', so a link can open it.
(function () {
  "use strict";

  var darkScheme = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;

  // The signals a reader can set: those bound to an input (the Vega-Lite params of the chart).
  function boundParams(spec) {
    return (spec.signals || []).filter(function (p) { return p.bind; });
  }

  // A figure with one bar per token has a second chart for a column narrower than this (a phone), where its bars
  // lie sideways and every token's label fits: the same params, so the reader's choices carry over.
  var NARROW_PX = 480;
  function wantsNarrow(el) {
    return el.hasAttribute("data-narrow") && el.clientWidth < NARROW_PX;
  }

  // Changes written by the build ([path, value] to set, [path] to delete; figsite.site.drawing.differences), made
  // to a spec.
  function changed(spec, id) {
    JSON.parse(document.getElementById(id).textContent).forEach(function (change) {
      var path = change[0], at = spec;
      for (var i = 0; i < path.length - 1; i++) at = at[path[i]];
      if (change.length > 1) at[path[path.length - 1]] = change[1];
      else delete at[path[path.length - 1]];
    });
    return spec;
  }

  // The chart's spec, the main one or the narrow one, in the reader's colours. The build compiled the main one for
  // the light theme, and wrote down what makes it the narrow one (the data they share are carried once) and what
  // the dark theme's compile changes in each.
  function chartSpec(el, narrow) {
    var id = el.getAttribute("data-spec"), narrowId = el.getAttribute("data-narrow");
    var spec = JSON.parse(document.getElementById(id).textContent);
    if (narrow) changed(spec, narrowId);
    if (!(darkScheme && darkScheme.matches)) return spec;
    return changed(spec, narrow ? narrowId.replace(/^narrow-/, "narrow-dark-") : id.replace(/^spec-/, "dark-"));
  }

  // With several figures on a page, each one's state goes in the address under its own name: "l.token=7".
  var charts = Array.prototype.slice.call(document.querySelectorAll("[data-spec]"));
  function addressKey(el, name) {
    return charts.length > 1 ? el.id.replace(/^chart-/, "") + "." + name : name;
  }

  function readAddress() {
    var state = {};
    location.hash.replace(/^#/, "").split("&").forEach(function (pair) {
      var at = pair.indexOf("=");
      if (at <= 0) return;
      try {
        state[decodeURIComponent(pair.slice(0, at))] = decodeURIComponent(pair.slice(at + 1));
      } catch (e) { /* a broken %-escape: ignore this pair, keep the rest */ }
    });
    return state;
  }

  // A value from the address, made into one the input allows; undefined when it allows no such value.
  function allowed(param, raw) {
    var bind = param.bind;
    if (bind.options) {
      for (var i = 0; i < bind.options.length; i++) {
        if (String(bind.options[i]) === raw) return bind.options[i];
      }
      return undefined;
    }
    if (bind.input === "range") {
      var v = Number(raw);
      if (raw === "" || !isFinite(v) || v < bind.min || v > bind.max) return undefined;
      var step = bind.step || 1;
      return bind.min + Math.round((v - bind.min) / step) * step;
    }
    return undefined;
  }

  function addressPair(key, value) {
    return encodeURIComponent(key) + "=" + encodeURIComponent(String(value));
  }

  function writeAddress() {
    var parts = [], before = readAddress();
    charts.forEach(function (el) {
      if (el.vegaView) {
        el.boundParams.forEach(function (p) { parts.push(addressPair(addressKey(el, p.name), el.vegaView.signal(p.name))); });
        return;
      }
      // A chart not drawn yet keeps what the address says of it, and takes the token chosen in its text's figures.
      var prefix = addressKey(el, ""), tokenKey = addressKey(el, el.getAttribute("data-token-param") || "");
      Object.keys(before).forEach(function (key) {
        if (key.indexOf(prefix) === 0 && !(key === tokenKey && el.pendingToken !== undefined)) {
          parts.push(addressPair(key, before[key]));
        }
      });
      if (el.pendingToken !== undefined) parts.push(addressPair(tokenKey, el.pendingToken));
    });
    history.replaceState(null, "", "#" + parts.join("&"));
  }

  // Figures of one text on one page: choosing a token in one chooses it in the others.
  var TOKEN_PARAMS = {{ names.token_params|tojson }};
  function tokenParam(el) {
    return (el.boundParams || []).filter(function (p) { return TOKEN_PARAMS.indexOf(p.name) >= 0; })[0];
  }
  function follow(source, value) {
    var group = source.closest("[data-text]");
    if (!group) return;
    charts.forEach(function (el) {
      var other = el.closest("[data-text]");
      if (el === source || !other || other.getAttribute("data-text") !== group.getAttribute("data-text")) return;
      if (!el.vegaView) {  // not drawn yet: it opens on this token when it is
        if (el.hasAttribute("data-token-param")) el.pendingToken = value;
        return;
      }
      var param = tokenParam(el);
      if (!param) return;
      var allowedValue = allowed(param, String(value));
      if (allowedValue !== undefined && el.vegaView.signal(param.name) !== allowedValue) {
        el.vegaView.signal(param.name, allowedValue).runAsync();
      }
    });
  }

  // The text as a row of tokens above the chart (on a text page, above every chart of the text): choosing one
  // chooses the token of the charts it steers; it shows the token chosen, however it was chosen. One radio group:
  // the arrow keys (and Home, End) move the choice, as for any radio group.
  var rows = Array.prototype.slice.call(document.querySelectorAll(".token-row"));
  function rowCharts(row) {
    var text = row.getAttribute("data-text");
    return charts.filter(function (el) {
      if (!text) return el.id === row.getAttribute("data-chart");
      var group = el.closest("[data-text]");
      return group !== null && group.getAttribute("data-text") === text;
    });
  }
  function rowTokens(row) {
    return Array.prototype.slice.call(row.querySelectorAll("[data-token]"));
  }
  // Where the row's figures have a reach (data-reach), the tokens after the chosen one are shaded and named out of
  // reach: the chosen token cannot see them.
  var OUT_OF_REACH = ", out of reach";
  function markRow(row, value) {
    var reach = row.hasAttribute("data-reach"), after = false;
    rowTokens(row).forEach(function (token) {
      var chosen = token.getAttribute("data-token") === String(value);
      token.setAttribute("aria-checked", chosen ? "true" : "false");
      token.tabIndex = chosen ? 0 : -1;
      if (reach) {
        var label = token.getAttribute("aria-label").replace(OUT_OF_REACH, "");
        token.toggleAttribute("data-out-of-reach", after);
        token.setAttribute("aria-label", after ? label + OUT_OF_REACH : label);
      }
      if (chosen) {
        after = true;
        inSight(token);
      }
    });
  }
  // A long text's row scrolls within its few lines, and on a phone within its one line, sideways: the chosen token is
  // brought into them (the page stays put).
  function inSight(token) {
    var list = token.parentElement, box = list.getBoundingClientRect(), at = token.getBoundingClientRect();
    if (at.top < box.top || at.bottom > box.bottom) list.scrollTop += at.top - box.top - (box.height - at.height) / 2;
    if (at.left < box.left || at.right > box.right) list.scrollLeft += at.left - box.left - (box.width - at.width) / 2;
    fadeEdges(list);
  }
  // A box that scrolls sideways fades at each edge with more beyond it (site.css), as the reader scrolls it too.
  function fadeEdges(box) {
    var more = box.scrollWidth - box.clientWidth;
    if (!box.fading) {
      box.fading = true;
      box.addEventListener("scroll", function () { fadeEdges(box); }, { passive: true });
    }
    box.toggleAttribute("data-more-left", more > 1 && box.scrollLeft > 1);
    box.toggleAttribute("data-more-right", more > 1 && box.scrollLeft < more - 1);
  }
  function rowsInSight() {
    rows.forEach(function (row) {
      var token = row.querySelector("[aria-checked='true']");
      if (token) inSight(token);
    });
  }
  function showChosen(el, value) {
    rows.forEach(function (row) { if (rowCharts(row).indexOf(el) >= 0) markRow(row, value); });
  }
  function choose(row, value) {
    markRow(row, value);
    rowCharts(row).forEach(function (el) {
      if (!el.vegaView) {  // not drawn yet: it opens on this token when it is
        if (el.hasAttribute("data-token-param")) el.pendingToken = value;
        return;
      }
      var param = tokenParam(el);
      var allowedValue = param ? allowed(param, String(value)) : undefined;
      if (allowedValue !== undefined && el.vegaView.signal(param.name) !== allowedValue) {
        el.vegaView.signal(param.name, allowedValue).runAsync();
      }
    });
    writeAddress();
  }
  var KEY_STEPS = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
  rows.forEach(function (row) {
    row.addEventListener("click", function (event) {
      var token = event.target.closest("[data-token]");
      if (token) choose(row, token.getAttribute("data-token"));
    });
    row.addEventListener("keydown", function (event) {
      var tokens = rowTokens(row), at = tokens.indexOf(document.activeElement);
      if (at < 0) return;
      var next = event.key === "Home" ? 0 : event.key === "End" ? tokens.length - 1
        : event.key in KEY_STEPS ? (at + KEY_STEPS[event.key] + tokens.length) % tokens.length : -1;
      if (next < 0) return;
      event.preventDefault();
      tokens[next].focus();
      choose(row, tokens[next].getAttribute("data-token"));
    });
  });

  function describe(el, view) {
    var target = document.getElementById(el.getAttribute("data-description"));
    if (!target) return;
    try {
      target.textContent = view.signal({{ names.description|tojson }});
    } catch (e) { /* a chart without a description param keeps the words written at build time */ }
  }

  // Long texts (data format 2): each head's shares lie in a file of their own, loaded on demand with
  // <script src> (fetch is blocked on file://). The file calls window[callback](payload).
  var headFiles = {};
  function loadHead(path, callback) {
    if (headFiles[path]) return Promise.resolve(headFiles[path]);
    window[callback] = function (payload) {
      var script = document.currentScript;
      headFiles[script ? script.getAttribute("src") : path] = payload;
    };
    return new Promise(function (resolve, reject) {
      var script = document.createElement("script");
      script.src = path;
      script.onload = function () { resolve(headFiles[path]); };
      script.onerror = function () { reject(new Error("could not load " + path)); };
      document.head.appendChild(script);
    });
  }

  function viewLabel(spec, key) {
    var param = (spec.signals || []).filter(function (p) { return p.name === {{ names.view|tojson }}; })[0];
    var i = param.bind.options.indexOf(key);
    return param.bind.labels ? param.bind.labels[i] : key;
  }

  function followAttention(el, view, spec) {
    var meta = spec.usermeta.{{ names.attention_meta }};
    var names = view.signal({{ names.names|tojson }});
    function refresh() {
      var key = view.signal({{ names.view|tojson }}), query = view.signal({{ names.token|tojson }}) - 1;
      return loadHead(meta.files[key], meta.callback).then(function (payload) {
        if (view.signal({{ names.view|tojson }}) !== key || view.signal({{ names.token|tojson }}) - 1 !== query) return;  // a newer choice won
        var keys = payload.keys[query], shares = payload.shares[query];
        var rows = keys.map(function (k, i) { return { k: k, s: shares[i] * meta.unit }; });
        var kept = rows.reduce(function (sum, row) { return sum + row.s; }, 0);
        var top = rows.slice().sort(function (a, b) { return b.s - a.s; }).slice(0, 5).map(function (row) {
          return names[row.k] + " " + Math.round(row.s * 100) + "%";
        });
        view.change({{ names.shares|tojson }}, view.changeset().remove(function () { return true; }).insert(rows));
        view.signal({{ names.left_out_signal|tojson }}, Math.max(0, 1 - kept));
        view.signal({{ names.description|tojson }}, "Looking from " + names[query] + " (token " + (query + 1) + "), " +
          viewLabel(spec, key) + ": " + (top.length ? "largest shares " + top.join(", ") : {{ ("no share of " ~ names.left_out ~ " or more")|tojson }}) +
          {{ ("; shares below " ~ names.left_out ~ " add up to ")|tojson }} + Math.round((1 - kept) * 100) + "%.");
        return view.runAsync().then(function () { describe(el, view); });
      }).catch(function (error) { console.error(error); });
    }
    view.addSignalListener({{ names.token|tojson }}, refresh);
    view.addSignalListener({{ names.view|tojson }}, refresh);
    return refresh();
  }

  // A figure's files loaded on demand (usermeta.loads, figures.kind `loads`): the file of the `key` param's value
  // fills the dataset `data` when one of the `on` params changes. The page's own data hold the `opening` choice.
  function followLoads(view, spec) {
    var meta = spec.usermeta.{{ names.loads_meta }}, loaded = null;
    function atOpening() {
      return meta.on.every(function (name) { return String(view.signal(name)) === String(meta.opening[name]); });
    }
    function refresh() {
      var key = String(view.signal(meta.key));
      if (key === loaded || (loaded === null && atOpening())) return Promise.resolve();
      return loadHead(meta.files[key], meta.callback).then(function (payload) {
        if (String(view.signal(meta.key)) !== key) return;  // a newer choice won
        loaded = key;
        view.change(meta.data, view.changeset().remove(function () { return true; }).insert(payload.rows));
        return view.runAsync();
      }).catch(function (error) { console.error(error); });
    }
    meta.on.forEach(function (name) { view.addSignalListener(name, refresh); });
    return refresh();
  }

  // Marks a click (or a tap) chooses from: the chart's usermeta lists [{field, param}], and a clicked mark whose
  // datum carries the field sets the param to it, where the param's input allows that value. The signal's own
  // listeners then write the address and follow the other charts, as for a choice made with the input, which is
  // the click's keyboard equivalent.
  function followClicks(el, view, spec) {
    var picks = spec.usermeta && spec.usermeta.{{ names.clicks_meta }};
    if (!picks) return;
    view.addEventListener("click", function (event, item) {
      var datum = item && item.datum, changed = false;
      if (!datum) return;
      picks.forEach(function (pick) {
        var param = el.boundParams.filter(function (p) { return p.name === pick.param; })[0];
        if (!param || datum[pick.field] === undefined || datum[pick.field] === null) return;
        var value = allowed(param, String(datum[pick.field]));
        if (value !== undefined && view.signal(param.name) !== value) {
          view.signal(param.name, value);
          changed = true;
        }
      });
      if (changed) view.runAsync();
    });
  }

  // A tap on a touch screen sends no pointer move, the event that shows a mark's tooltip under a mouse: a tap on a
  // mark shows its tooltip through the view's own tooltip handler (vega-tooltip's, placed at the tap), and the next
  // tap elsewhere hides it. A swipe (a scrolling box) sends no click, so it leaves the tooltip as it is.
  var touchedAt = -Infinity, tapShown = null;  // when the screen was last touched; the view whose tooltip a tap shows
  document.addEventListener("touchend", function () { touchedAt = Date.now(); }, { capture: true, passive: true });
  function byTouch(event) {
    return event.pointerType === "touch" || Date.now() - touchedAt < 1000;
  }
  function tapTooltip(view, event, item, value) {
    var handler = view.tooltip();
    if (handler) handler.call(view, view._handler, event, item, value);
  }
  function tooltipOnTap(view) {
    view.addEventListener("click", function (event, item) {
      var value = item && item.tooltip;
      if (!byTouch(event) || value === undefined || value === null || value === "") return;
      if (tapShown && tapShown !== view) tapTooltip(tapShown, event, null, null);
      tapTooltip(view, event, item, value);
      tapShown = view;
      event.tooltipShown = true;  // read by the page's own listener below, which the same click reaches next
    });
  }
  document.addEventListener("click", function (event) {
    if (!tapShown || event.tooltipShown || !byTouch(event)) return;
    tapTooltip(tapShown, event, null, null);
    tapShown = null;
  });

  // Where a token row steers the chart, the chart's own input for the token would only repeat it: it is hidden (not
  // focusable), and stays in the spec, where the address and the row set it.
  function hideSteeredInput(el) {
    var param = tokenParam(el);
    if (!param || !rows.some(function (row) { return rowCharts(row).indexOf(el) >= 0; })) return;
    Array.prototype.forEach.call(el.querySelectorAll(".vega-bindings [name='" + param.name + "']"), function (input) {
      var bind = input.closest(".vega-bind");
      if (bind) bind.hidden = true;
    });
  }

  // On a phone only the first line of a chart's inputs stays in its bar on top of the screen; the others wait below
  // the bar, above the drawing, and scroll away with the chart. A wider column holds them all in the bar.
  var PHONE = window.matchMedia ? window.matchMedia("(max-width: " + NARROW_PX + "px)") : null;
  function placeInputs(el) {
    var bar = el.querySelector(".control-bar .vega-bindings"), rest = el.querySelector(".more-bindings");
    var binds = el.inputs || [];
    binds.forEach(function (bind) { bar.appendChild(bind); });
    if (!(PHONE && PHONE.matches)) return;
    var shown = binds.filter(function (bind) { return !bind.hidden; });
    var firstLine = shown.length ? shown[0].offsetTop : 0;
    shown.forEach(function (bind) { if (bind.offsetTop > firstLine + 2) rest.appendChild(bind); });
  }
  // The box below the bar for those inputs, written afresh on each drawing.
  function restOfInputs(el) {
    var rest = el.querySelector(".more-bindings");
    if (!rest) {
      rest = document.createElement("div");
      rest.className = "vega-bindings more-bindings";
      el.insertBefore(rest, el.querySelector(".chart-drawing"));
    }
    rest.textContent = "";
    return rest;
  }

  // Where the chart's clickable marks lie for one value of its token (a column of the lens's grid): [left, right] in
  // px from the drawing's left edge, from the view's scenegraph; null where no mark carries that token.
  function tokenColumn(el, view, param, value) {
    var pick = (el.picks || []).filter(function (p) { return p.param === param; })[0];
    if (!pick) return null;
    var left = Infinity, right = -Infinity;
    (function walk(mark, x) {
      (mark.items || []).forEach(function (item) {
        if (mark.marktype === "group") {
          (item.items || []).forEach(function (inner) { walk(inner, x + (item.x || 0)); });
        } else if (item.datum && item.bounds && String(item.datum[pick.field]) === String(value)) {
          left = Math.min(left, x + item.bounds.x1);
          right = Math.max(right, x + item.bounds.x2);
        }
      });
    })(view.scenegraph().root, view.origin()[0]);
    return left <= right ? [left, right] : null;
  }
  // A drawing wider than its box opens with the chosen token's column in view, as little scrolled from its left edge
  // (its title, its axis) as that allows (`nearest`), and follows each choice the reader makes, the column centred.
  function chosenInView(el, nearest) {
    var box = el.querySelector(".chart-wrapper"), param = tokenParam(el), view = el.vegaView;
    var drawing = box && box.querySelector("svg, canvas");
    if (!drawing || !param || !view || box.scrollWidth <= box.clientWidth + 1) return;
    var span = tokenColumn(el, view, param.name, view.signal(param.name));
    if (!span) return;
    var at = drawing.getBoundingClientRect().left - box.getBoundingClientRect().left + box.scrollLeft;
    if (at + span[0] < box.scrollLeft || at + span[1] > box.scrollLeft + box.clientWidth) {
      box.scrollLeft = nearest ? at + span[1] - box.clientWidth + EDGE_ROOM : at + (span[0] + span[1] - box.clientWidth) / 2;
    }
  }

  var EDGE_ROOM = 24;  // px: between the chosen column, opened at the right, and the box's fading edge

  // Said above a drawing wider than its box, where it scrolls: swiped on a touch screen, scrolled with a mouse.
  function scrollHint(el) {
    var hint = el.querySelector(".scroll-hint");
    if (hint) return hint;
    hint = document.createElement("p");
    hint.className = "scroll-hint";
    [["on-mouse", "Scroll sideways"], ["on-touch", "Swipe sideways"]].forEach(function (words) {
      var span = hint.appendChild(document.createElement("span"));
      span.className = words[0];
      span.textContent = words[1];
    });
    hint.appendChild(document.createTextNode(""));
    el.insertBefore(hint, el.querySelector(".chart-drawing"));
    return hint;
  }

  // A drawing wider than its column (a grid on a phone) scrolls sideways in its own box, which the keyboard can
  // then reach and scroll; a hint says so, and the box fades at the edge with more beyond it.
  function scrollBox(el) {
    var box = el.querySelector(".chart-wrapper");
    if (!box) return;
    var wide = box.scrollWidth > box.clientWidth + 1, hint = scrollHint(el), param = tokenParam(el);
    if (wide) box.tabIndex = 0;
    else box.removeAttribute("tabindex");
    hint.hidden = !wide;
    var columns = param && tokenColumn(el, el.vegaView, param.name, el.vegaView.signal(param.name));
    hint.lastChild.textContent = columns ? " to see every position" : " to see the whole chart";
    chosenInView(el, true);
    fadeEdges(box);
  }

  function draw(el) {
    var narrow = wantsNarrow(el);
    el.drawnNarrow = narrow;
    var spec = chartSpec(el, narrow);
    var params = boundParams(spec);
    el.boundParams = params;
    var state = readAddress();
    params.forEach(function (p) {
      var key = addressKey(el, p.name);
      var raw = p.name === el.getAttribute("data-token-param") && el.pendingToken !== undefined ? String(el.pendingToken) : state[key];
      if (raw !== undefined) {
        var value = allowed(p, raw);
        if (value !== undefined) p.value = value;
      }
    });
    el.pendingToken = undefined;
    // The chart's menu saves it as SVG or PNG, drawn in the page: it works offline.
    var actions = { export: true, source: false, compiled: false, editor: false };
    var renderer = (spec.usermeta && spec.usermeta.{{ names.renderer_meta }}) || "svg";
    // The drawing goes in its own box, the inputs into the control bar above it (written afresh on each drawing).
    var drawing = el.querySelector(".chart-drawing"), controls = el.querySelector(".control-bar .vega-bindings");
    controls.textContent = "";
    restOfInputs(el);
    el.picks = (spec.usermeta && spec.usermeta.{{ names.clicks_meta }}) || [];
    return window.vegaEmbed(drawing, spec, { mode: "vega", actions: actions, renderer: renderer, bind: controls,
                                             downloadFileName: el.id.replace(/^chart-/, "figure-") })
      .then(function (result) {
        var view = result.view;
        el.vegaView = view;
        var menu = el.querySelector("details > summary");
        if (menu) menu.setAttribute("aria-label", "Save the chart as SVG or PNG");  // vega-embed leaves it nameless
        describe(el, view);
        followClicks(el, view, spec);
        tooltipOnTap(view);
        el.inputs = Array.prototype.slice.call(controls.querySelectorAll(".vega-bind"));
        hideSteeredInput(el);
        placeInputs(el);
        var following = spec.usermeta && spec.usermeta.{{ names.attention_meta }} ? followAttention(el, view, spec) :
          spec.usermeta && spec.usermeta.{{ names.loads_meta }} ? followLoads(view, spec) : null;
        var chooser = tokenParam(el);
        if (chooser) showChosen(el, view.signal(chooser.name));  // the address may have chosen another token
        params.forEach(function (p) {
          view.addSignalListener(p.name, function (name, value) {
            if (p === tokenParam(el)) {
              follow(el, value);
              showChosen(el, value);
            }
            writeAddress();
            // The description depends on this signal: read it once the view has worked it out again.
            view.runAfter(function () {
              describe(el, view);
              if (p === tokenParam(el)) chosenInView(el);
            });
          });
        });
        return Promise.resolve(following).then(function () {
          scrollBox(el);
          el.setAttribute("data-rendered", "true");
          return view;
        });
      })
      .catch(function (error) {
        el.setAttribute("data-rendered", "error");
        drawing.textContent = "The chart could not be drawn: " + error.message;
        console.error(error);
      });
  }

  // A page of several charts (a text's figures) draws each one as it comes within half a screen of the view. A phone
  // shows one chart at a time: its first screen is drawn at once, not after every chart below it, and a slow CPU
  // is not spent on charts the reader does not reach. Print shows each figure's drawing made at build time.
  function drawWhenNear(els) {
    if (els.length < 2 || !window.IntersectionObserver) {
      els.forEach(draw);
      return;
    }
    var observer = new IntersectionObserver(function (entries) {
      entries.forEach(function (entry) {
        var el = entry.target;
        if (!entry.isIntersecting) {
          el.setAttribute("data-deferred", "");  // read by the tests and bench/browser.py
          return;
        }
        observer.unobserve(el);
        el.removeAttribute("data-deferred");
        draw(el);
      });
    }, { rootMargin: "50% 0px 50% 0px" });
    els.forEach(function (el) { observer.observe(el); });
  }

  rowsInSight();
  drawWhenNear(charts);

  // A link within the page (#token=7&view=5-12) sets the figure without reloading it.
  window.addEventListener("hashchange", function () {
    var state = readAddress();
    charts.forEach(function (el) {
      var view = el.vegaView;
      if (!view) {  // drawn later, from the address as it is then
        el.pendingToken = undefined;
        return;
      }
      boundParams(el.boundParams ? { signals: el.boundParams } : chartSpec(el)).forEach(function (p) {
        var key = addressKey(el, p.name);
        if (key in state) {
          var value = allowed(p, state[key]);
          if (value !== undefined && value !== view.signal(p.name)) view.signal(p.name, value);
        }
      });
      view.runAsync();
    });
  });

  // A chart drawn again (other colours, the other width's chart) reads the reader's choices from the address.
  function redraw(el) {
    el.vegaView.finalize();
    el.removeAttribute("data-rendered");
    draw(el);
  }

  // Light or dark follows the reader's setting, also when it changes while the page is open.
  if (darkScheme && darkScheme.addEventListener) {
    darkScheme.addEventListener("change", function () {
      charts.forEach(function (el) {
        if (el.vegaView) redraw(el);  // a chart not drawn yet is drawn in the colours of the moment it is
      });
    });
  }

  // A column that crosses NARROW_PX (a phone turned, a window resized) draws the other width's chart; a drawing
  // that comes to fit, or no longer fits, its column gains or loses its scrolling box's keyboard stop.
  var resizing = false;
  window.addEventListener("resize", function () {
    if (resizing) return;
    resizing = true;
    window.requestAnimationFrame(function () {
      resizing = false;
      charts.forEach(function (el) {
        if (!el.vegaView || el.getAttribute("data-rendered") !== "true") return;
        if (wantsNarrow(el) !== el.drawnNarrow) redraw(el);
        else {
          placeInputs(el);
          scrollBox(el);
        }
      });
      rowsInSight();
    });
  });

  // What stays on top of the screen as the page scrolls: a text page's row of tokens, with each chart's bar of
  // controls sticking below it (--page-bar), and the bar of the chart in view. Whatever the page scrolls to (a link,
  // the focus moved by the keyboard) is left that much room above it, so that it never lies under a bar.
  var pageRow = document.querySelector(".token-row[data-text]");
  var bars = Array.prototype.slice.call(document.querySelectorAll(".control-bar"));
  function keepClearOfBars() {
    var row = pageRow ? pageRow.offsetHeight : 0;
    var bar = Math.max.apply(null, [0].concat(bars.map(function (b) { return b.offsetHeight; })));
    document.documentElement.style.setProperty("--page-bar", row + "px");
    document.documentElement.style.scrollPaddingTop = (row + bar) + "px";
  }
  if (window.ResizeObserver) {
    var sizes = new ResizeObserver(keepClearOfBars);
    (pageRow ? [pageRow] : []).concat(bars).forEach(function (el) { sizes.observe(el); });
  }
})();

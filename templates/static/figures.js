// Draws every chart on the page from the Vega-Lite spec embedded beside it: no network, works from file://.
// The state of a figure (token, view, stage...) lives in the page address after '#', so a link can open it.
(function () {
  "use strict";

  var themes = JSON.parse(document.getElementById("chart-themes").textContent);
  var darkScheme = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;

  // The params a reader can set: those bound to an input.
  function boundParams(spec) {
    return (spec.params || []).filter(function (p) { return p.bind; });
  }

  function readAddress() {
    var state = {};
    location.hash.replace(/^#/, "").split("&").forEach(function (pair) {
      var at = pair.indexOf("=");
      if (at > 0) state[decodeURIComponent(pair.slice(0, at))] = decodeURIComponent(pair.slice(at + 1));
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

  function writeAddress(view, params) {
    var parts = params.map(function (p) {
      return encodeURIComponent(p.name) + "=" + encodeURIComponent(String(view.signal(p.name)));
    });
    history.replaceState(null, "", "#" + parts.join("&"));
  }

  function describe(el, view) {
    var target = document.getElementById(el.getAttribute("data-description"));
    if (!target) return;
    try {
      target.textContent = view.signal("description");
    } catch (e) { /* a chart without a description param keeps the words written at build time */ }
  }

  function draw(el) {
    var spec = JSON.parse(document.getElementById(el.getAttribute("data-spec")).textContent);
    var params = boundParams(spec);
    var state = readAddress();
    params.forEach(function (p) {
      if (p.name in state) {
        var value = allowed(p, state[p.name]);
        if (value !== undefined) p.value = value;
      }
    });
    var theme = themes[darkScheme && darkScheme.matches ? "dark" : "light"];
    return window.vegaEmbed(el, spec, { actions: false, renderer: "svg", config: theme })
      .then(function (result) {
        var view = result.view;
        el.vegaView = view;
        describe(el, view);
        params.forEach(function (p) {
          view.addSignalListener(p.name, function () {
            writeAddress(view, params);
            describe(el, view);
          });
        });
        el.setAttribute("data-rendered", "true");
        return view;
      })
      .catch(function (error) {
        el.setAttribute("data-rendered", "error");
        el.textContent = "The chart could not be drawn: " + error.message;
        console.error(error);
      });
  }

  var charts = Array.prototype.slice.call(document.querySelectorAll("[data-spec]"));
  charts.forEach(draw);

  // A link within the page (#token=7&view=5-12) sets the figure without reloading it.
  window.addEventListener("hashchange", function () {
    var state = readAddress();
    charts.forEach(function (el) {
      var view = el.vegaView;
      if (!view) return;
      var spec = JSON.parse(document.getElementById(el.getAttribute("data-spec")).textContent);
      boundParams(spec).forEach(function (p) {
        if (p.name in state) {
          var value = allowed(p, state[p.name]);
          if (value !== undefined && value !== view.signal(p.name)) view.signal(p.name, value);
        }
      });
      view.runAsync();
    });
  });

  // Light or dark follows the reader's setting, also when it changes while the page is open.
  if (darkScheme && darkScheme.addEventListener) {
    darkScheme.addEventListener("change", function () {
      charts.forEach(function (el) {
        if (el.vegaView) el.vegaView.finalize();
        el.removeAttribute("data-rendered");
        draw(el);
      });
    });
  }
})();

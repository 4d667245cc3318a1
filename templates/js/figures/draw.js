// Draws every chart on the page from the Vega spec embedded beside it (compiled from Vega-Lite when the site was
// built, so the page does no compiling), at the state the page's address gives it.
import { allowed, readAddress } from "../shared/address.js";
import { describe, draw as drawChart, tokenParam, wantsNarrow } from "../shared/charts.js";
import { ATTENTION_META, CLICKS_META, KEY_WORDS, LOADS_META, RENDERER_META } from "../shared/names.js";
import { chosenInView, pin, scrollBox } from "../shared/scroll.js";
import { followAttention, followLoads } from "./loads.js";
import { clickAgain, focusAgain, focusedInput, inputValue } from "./early.js";
import { followClicks, hideSteeredInput, placeInputs, restOfInputs, tooltipOnTap } from "./inputs.js";
import { addressKey, boundParams, chartSpec, writeChartsAddress } from "./page.js";
import { follow, showChosen } from "./tokens.js";
import { followWithin } from "./within.js";

// The chart's description, in the element its data-description names; and its key, in the element its data-key
// names, where the chart says it in words that follow the reader's choices (a KEY_WORDS param).
function describeChart(el, view) {
  describe(document.getElementById(el.getAttribute("data-description")), view);
  describe(document.getElementById(el.getAttribute("data-key")), view, KEY_WORDS);
}

// Each param opens at the value its input holds (the build's input, which shows what the address gives it and what
// the reader chose before the chart was live, or the live chart's as it was), else at the address's, or at the
// token chosen in the text's other figures: where its input allows that value.
function openAtInputs(el, params) {
  var state = readAddress();
  params.forEach(function (p) {
    var key = addressKey(el, p.name), held = inputValue(el, p.name);
    var raw = p.name === el.getAttribute("data-token-param") && el.pendingToken !== undefined ? String(el.pendingToken)
      : held !== undefined ? held : state[key];
    if (raw !== undefined) {
      var value = allowed(p.bind, raw);
      if (value !== undefined) p.value = value;
    }
  });
  el.pendingToken = undefined;
}

// Each choice the reader makes follows the other charts (a token), goes into the address and the description.
function listenToParams(el, view, params) {
  params.forEach(function (p) {
    view.addSignalListener(p.name, function (name, value) {
      if (p === tokenParam(el)) {
        follow(el, value);
        showChosen(el, value);
      }
      writeChartsAddress();
      // The description depends on this signal: read it once the view has worked it out again.
      view.runAfter(function () {
        describeChart(el, view);
        if (p === tokenParam(el)) chosenInView(el);
        else pin(el);  // a part drawn anew stays in view as the others
      });
    });
  });
}

// What a drawn chart does: its description, clicks, taps, inputs, data loaded on demand, the reader's choices.
function drawn(el, view, spec, params, controls, focused) {
  describeChart(el, view);
  followClicks(el, view, spec);
  tooltipOnTap(view);
  el.inputs = Array.prototype.slice.call(controls.querySelectorAll(".vega-bind"));
  restOfInputs(el);  // the inputs placed below the bar before: the live chart's take their place
  hideSteeredInput(el);
  placeInputs(el);
  followWithin(el, view, spec);
  var following = spec.usermeta && spec.usermeta[ATTENTION_META] ? followAttention(view, spec, function () { describeChart(el, view); }) :
    spec.usermeta && spec.usermeta[LOADS_META] ? followLoads(view, spec) : null;
  var chooser = tokenParam(el);
  if (chooser) showChosen(el, view.signal(chooser.name));  // the address may have chosen another token
  listenToParams(el, view, params);
  focusAgain(el, focused);
  return Promise.resolve(following).then(function () {
    scrollBox(el, true);
    el.setAttribute("data-rendered", "true");
    clickAgain(el);
    return view;
  });
}

export function draw(el) {
  var narrow = wantsNarrow(el, el.hasAttribute("data-narrow"));
  el.drawnNarrow = narrow;
  var spec = chartSpec(el, narrow);
  var params = boundParams(spec);
  el.boundParams = params;
  openAtInputs(el, params);
  var focused = focusedInput(el);
  var renderer = (spec.usermeta && spec.usermeta[RENDERER_META]) || "svg";
  // The drawing goes in its own box, the inputs into the control bar above it (written afresh on each drawing).
  el.picks = (spec.usermeta && spec.usermeta[CLICKS_META]) || [];
  return drawChart(el, spec, { renderer: renderer, fileName: el.id.replace(/^chart-/, "figure-") }, function (view, controls) {
    return drawn(el, view, spec, params, controls, focused);
  });
}

// A page of several charts (a text's figures) draws each one as it comes within half a screen of the view. A phone
// shows one chart at a time: its first screen is drawn at once, not after every chart below it, and a slow CPU
// is not spent on charts the reader does not reach. Print shows each figure's drawing made at build time.
export function drawWhenNear(els) {
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

// A chart drawn again (other colours, the other width's chart) reads the reader's choices from the address.
export function redraw(el) {
  el.vegaView.finalize();
  el.removeAttribute("data-rendered");
  draw(el);
}

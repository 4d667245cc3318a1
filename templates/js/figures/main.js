// The figure pages' script (bundled into templates/generated/assets/figures.js, assets/figures.js of the site, by
// `npm run bundle`): draws every chart on the page from the Vega spec embedded beside it; no network, works from
// file://. The state of a figure (token, view, stage...) lives in the page address after '#', so a link can open it.
import { allowed, readAddress } from "../shared/address.js";
import { wantsNarrow } from "../shared/charts.js";
import { scrollBox } from "../shared/scroll.js";
import { drawWhenNear, redraw } from "./draw.js";
import { followRanges, keepClicks, showAddress } from "./early.js";
import { listenToTaps, placeFirstInputs, placeInputs } from "./inputs.js";
import { listenToNotebookLinks } from "./notebook.js";
import { addressKey, boundParams, chartSpec, charts, darkScheme } from "./page.js";
import { listenToRows, rowsInSight, showAddressInRows } from "./tokens.js";
import { limitFirstInputs } from "./within.js";

// A link within the page (#token=7&view=5-12) sets the figure without reloading it.
function followAddress() {
  var state = readAddress();
  charts.forEach(function (el) {
    var view = el.vegaView;
    if (!view) {  // drawn later, from its inputs: they show the address as it is now
      el.pendingToken = undefined;
      showAddress(el);
      limitFirstInputs(el);
      return;
    }
    boundParams(el.boundParams ? { signals: el.boundParams } : chartSpec(el)).forEach(function (p) {
      var key = addressKey(el, p.name);
      if (key in state) {
        var value = allowed(p.bind, state[key]);
        if (value !== undefined && value !== view.signal(p.name)) view.signal(p.name, value);
      }
    });
    view.runAsync();
  });
  showAddressInRows();
}

// A column that crosses NARROW_PX (a phone turned, a window resized) draws the other width's chart; a drawing
// that comes to fit, or no longer fits, its column gains or loses its scrolling box's keyboard stop.
var resizing = false;
function resized() {
  if (resizing) return;
  resizing = true;
  window.requestAnimationFrame(function () {
    resizing = false;
    charts.forEach(function (el) {
      if (!el.vegaView || el.getAttribute("data-rendered") !== "true") return;
      if (wantsNarrow(el, el.hasAttribute("data-narrow")) !== el.drawnNarrow) redraw(el);
      else {
        placeInputs(el);
        scrollBox(el);
      }
    });
    rowsInSight();
  });
}

// What stays on top of the screen as the page scrolls: a text page's row of tokens, with each chart's bar of
// controls sticking below it (--page-bar), and the bar of the chart in view. Whatever the page scrolls to (a link,
// the focus moved by the keyboard) is left that much room above it, so that it never lies under a bar.
function keepClearOfBars() {
  var pageRow = document.querySelector(".token-row[data-text]");
  var bars = Array.prototype.slice.call(document.querySelectorAll(".control-bar"));
  function keepClear() {
    var row = pageRow ? pageRow.offsetHeight : 0;
    var bar = Math.max.apply(null, [0].concat(bars.map(function (b) { return b.offsetHeight; })));
    document.documentElement.style.setProperty("--page-bar", row + "px");
    document.documentElement.style.scrollPaddingTop = (row + bar) + "px";
  }
  if (window.ResizeObserver) {
    var sizes = new ResizeObserver(keepClear);
    (pageRow ? [pageRow] : []).concat(bars).forEach(function (el) { sizes.observe(el); });
  }
}

// Vega's script (assets/vega.js, named by this script's data-vega), loaded once the page has been painted: its
// evaluation, a tenth of a second on a slow phone, does not hold back the first paint, where the build's drawings
// already show each figure. The charts are drawn once it has run; where it cannot load, the drawings stay.
var VEGA = document.currentScript && document.currentScript.getAttribute("data-vega");
function loadVega(then) {
  var script = document.createElement("script");
  script.src = VEGA;
  script.onload = then;
  script.onerror = function () { console.error("Vega could not be loaded from " + VEGA + ": the drawings stay"); };
  document.body.appendChild(script);
}
function afterFirstPaint(then) {
  window.requestAnimationFrame(function () { setTimeout(then, 0); });  // the frame is painted before the timeout runs
}

// At once, before Vega has loaded: the build's inputs placed and showing the address's state, and what the reader
// does to them, to the rows and to the drawings kept.
listenToRows();
listenToTaps();
listenToNotebookLinks();
charts.forEach(function (el) {
  placeFirstInputs(el);
  showAddress(el);
  limitFirstInputs(el);
  followRanges(el);
  keepClicks(el);
});
showAddressInRows();
rowsInSight();
afterFirstPaint(function () { loadVega(function () { drawWhenNear(charts); }); });
window.addEventListener("hashchange", followAddress);
// Light or dark follows the reader's setting, also when it changes while the page is open.
if (darkScheme && darkScheme.addEventListener) {
  darkScheme.addEventListener("change", function () {
    charts.forEach(function (el) {
      if (el.vegaView) redraw(el);  // a chart not drawn yet is drawn in the colours of the moment it is
    });
  });
}
window.addEventListener("resize", resized);
keepClearOfBars();

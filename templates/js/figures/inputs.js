// A chart's inputs and its marks as inputs: a click (or a tap) on a mark chooses, a tap shows a mark's tooltip, and
// the inputs sit in the chart's bar of controls (on a phone, its first line only).
import { allowed } from "../shared/address.js";
import { tokenParam } from "../shared/charts.js";
import { CLICKS_META, NARROW_PX } from "../shared/names.js";
import { rowCharts, rows } from "./tokens.js";

// Marks a click (or a tap) chooses from: the chart's usermeta lists [{field, param}], and a clicked mark
// whose datum carries the field sets the param to it, where the param's input allows that value. The signal's own
// listeners then write the address and follow the other charts, as for a choice made with the input, which is the
// click's keyboard equivalent.
export function followClicks(el, view, spec) {
  var picks = spec.usermeta && spec.usermeta[CLICKS_META];
  if (!picks) return;
  view.addEventListener("click", function (event, item) {
    var datum = item && item.datum, moved = false;
    if (!datum) return;
    picks.forEach(function (pick) {
      var param = el.boundParams.filter(function (p) { return p.name === pick.param; })[0];
      if (!param || datum[pick.field] === undefined || datum[pick.field] === null) return;
      var value = allowed(param.bind, String(datum[pick.field]));
      if (value !== undefined && view.signal(param.name) !== value) {
        view.signal(param.name, value);
        moved = true;
      }
    });
    // The tap's tooltip is then the new state's (tooltipOnTap, which this click reaches next).
    if (moved) event.redrawn = view.runAsync();
  });
}

// A tap on a touch screen sends no pointer move, the event that shows a mark's tooltip under a mouse: a tap on a
// mark shows its tooltip through the view's own tooltip handler (vega-tooltip's, placed at the tap), and the next
// tap elsewhere hides it. A swipe (a scrolling box) sends no click, so it leaves the tooltip as it is. A tap that
// chooses (followClicks) shows the tooltip of the mark under the finger once the chart is drawn in its new state, or
// none: never the values of the state it left.
var touchedAt = -Infinity, tapShown = null;  // when the screen was last touched; the view whose tooltip a tap shows
function byTouch(event) {
  return event.pointerType === "touch" || Date.now() - touchedAt < 1000;
}
function tapTooltip(view, event, item, value) {
  var handler = view.tooltip();
  if (handler) handler.call(view, view._handler, event, item, value);
}
function hasTip(item) {
  var value = item && item.tooltip;
  return value !== undefined && value !== null && value !== "";
}
// The mark now drawn under the event's point: the canvas's pick, or the SVG element there and the item it draws.
function markAt(view, event) {
  var handler = view._handler;
  if (handler && handler.pickEvent) return handler.pickEvent(event);
  var node = document.elementFromPoint(event.clientX, event.clientY);
  return node && node.__data__ && node.__data__.mark ? node.__data__ : null;
}
export function tooltipOnTap(view) {
  view.addEventListener("click", function (event, item) {
    if (!byTouch(event) || !hasTip(item)) return;
    if (tapShown && tapShown !== view) tapTooltip(tapShown, event, null, null);
    tapShown = view;
    event.tooltipShown = true;  // read by the page's own listener below, which the same click reaches next
    if (!event.redrawn) {
      tapTooltip(view, event, item, item.tooltip);
      return;
    }
    tapTooltip(view, event, null, null);
    event.redrawn.then(function () {
      var now = markAt(view, event);
      if (tapShown === view && hasTip(now)) tapTooltip(view, event, now, now.tooltip);
    });
  });
}
// The page's listeners: when the screen was last touched, and a tap elsewhere hiding the tooltip a tap showed.
export function listenToTaps() {
  document.addEventListener("touchend", function () { touchedAt = Date.now(); }, { capture: true, passive: true });
  document.addEventListener("click", function (event) {
    if (!tapShown || event.tooltipShown || !byTouch(event)) return;
    tapTooltip(tapShown, event, null, null);
    tapShown = null;
  });
}

// Where a token row steers the chart, the chart's own input for the token would only repeat it: it is hidden (not
// focusable), and stays in the spec, where the address and the row set it.
export function hideSteeredInput(el) {
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
export function placeInputs(el) {
  var bar = el.querySelector(".control-bar .vega-bindings"), rest = el.querySelector(".more-bindings");
  var binds = el.inputs || [];
  binds.forEach(function (bind) { bar.appendChild(bind); });
  if (!(PHONE && PHONE.matches)) return;
  var shown = binds.filter(function (bind) { return !bind.hidden; });
  var firstLine = shown.length ? shown[0].offsetTop : 0;
  shown.forEach(function (bind) { if (bind.offsetTop > firstLine + 2) rest.appendChild(bind); });
}

// The box below the bar for those inputs (the page has it, empty), emptied for each drawing.
export function restOfInputs(el) {
  var rest = el.querySelector(".more-bindings");
  rest.textContent = "";
  return rest;
}

// The build's inputs, before the chart is live: placed as the live chart's will be.
export function placeFirstInputs(el) {
  el.inputs = Array.prototype.slice.call(el.querySelectorAll(".control-bar .vega-bind"));
  placeInputs(el);
}

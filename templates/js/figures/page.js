// The figure page's charts, and their state in the page's address (shared/address.js): with several figures on a
// page, each one's state goes in the address under its own name ("l.token=7").
import { readAddress, writeAddress } from "../shared/address.js";
import { changed } from "../shared/charts.js";

export var darkScheme = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;

// Every chart of the page: an element with data-spec, the id of the JSON of its compiled Vega spec.
export var charts = Array.prototype.slice.call(document.querySelectorAll("[data-spec]"));

// The signals a reader can set: those bound to an input (the Vega-Lite params of the chart).
export function boundParams(spec) {
  return (spec.signals || []).filter(function (p) { return p.bind; });
}

// The changes the build wrote into the page's JSON element `id` (shared/charts.js `changed` makes them).
function changesIn(id) {
  return JSON.parse(document.getElementById(id).textContent);
}

// The chart's spec, the main one or the narrow one, in the reader's colours. The build compiled the main one for
// the light theme, and wrote down what makes it the narrow one (the data they share are carried once) and what
// the dark theme's compile changes in each.
export function chartSpec(el, narrow) {
  var id = el.getAttribute("data-spec"), narrowId = el.getAttribute("data-narrow");
  var spec = JSON.parse(document.getElementById(id).textContent);
  if (narrow) changed(spec, changesIn(narrowId));
  if (!(darkScheme && darkScheme.matches)) return spec;
  return changed(spec, changesIn(narrow ? narrowId.replace(/^narrow-/, "narrow-dark-") : id.replace(/^spec-/, "dark-")));
}

// The key of a chart's param in the address: the param's name, after the chart's where the page has several.
export function addressKey(el, name) {
  return charts.length > 1 ? el.id.replace(/^chart-/, "") + "." + name : name;
}

// The address of every chart's state: a drawn chart's params as they are; a chart not drawn yet keeps what the
// address says of it, and takes the token chosen in its text's figures.
export function writeChartsAddress() {
  var pairs = [], before = readAddress();
  charts.forEach(function (el) {
    if (el.vegaView) {
      el.boundParams.forEach(function (p) { pairs.push([addressKey(el, p.name), el.vegaView.signal(p.name)]); });
      return;
    }
    var prefix = addressKey(el, ""), tokenKey = addressKey(el, el.getAttribute("data-token-param") || "");
    Object.keys(before).forEach(function (key) {
      if (key.indexOf(prefix) === 0 && !(key === tokenKey && el.pendingToken !== undefined)) {
        pairs.push([key, before[key]]);
      }
    });
    if (el.pendingToken !== undefined) pairs.push([tokenKey, el.pendingToken]);
  });
  writeAddress(pairs);
}

// A menu offers only what the figure can use. Where a param's value stays at or before another's (find-head's token
// looked back to, at or before the token that looks: no token looks to the right), the chart's usermeta
// [WITHIN_META] says so ({param: the other}), and the build writes it on its select (data-within): the options past
// the other's value are hidden and disabled, and a value past it moves back to it. Before the chart is live on the
// build's inputs, then on the live chart's.
import { readAddress } from "../shared/address.js";
import { WITHIN_META } from "../shared/names.js";
import { inputValue } from "./early.js";
import { addressKey, writeChartsAddress } from "./page.js";

// Hides and disables the options of the chart's select `name` past `most`; whether its value lies past it.
function limitOptions(el, name, most) {
  var past = false;
  Array.prototype.forEach.call(el.querySelectorAll(".vega-bindings select[name='" + name + "']"), function (select) {
    Array.prototype.forEach.call(select.options, function (option) {
      var beyond = Number(option.value) > Number(most);
      option.hidden = beyond;
      option.disabled = beyond;
    });
    past = past || Number(select.value) > Number(most);
  });
  return past;
}

// The build's inputs, before the chart is live: limited by what the other param's input holds (or the token the
// row chose, where the other is the chart's token and it opens on that); a value past it moves back to it.
export function limitFirstInputs(el) {
  var token = el.getAttribute("data-token-param");
  Array.prototype.forEach.call(el.querySelectorAll(".vega-bindings select[data-within]"), function (select) {
    var other = select.getAttribute("data-within");
    var most = other === token && el.pendingToken !== undefined ? String(el.pendingToken) : inputValue(el, other);
    if (most !== undefined && limitOptions(el, select.getAttribute("name"), most)) select.value = most;
  });
}

// The live chart's inputs, limited now and whenever either param changes (a reader's choice, the address); a value
// past the other's moves back to it, once the view has run.
export function followWithin(el, view, spec) {
  var within = (spec.usermeta && spec.usermeta[WITHIN_META]) || {};
  Object.keys(within).forEach(function (name) {
    function keep() {
      var most = view.signal(within[name]);
      limitOptions(el, name, most);
      if (view.signal(name) > most) view.signal(name, most).runAsync();
    }
    keep();
    // A value past the other's that the address gave (moved back before the chart was live): the address follows.
    var key = addressKey(el, name), state = readAddress();
    if (key in state && state[key] !== String(view.signal(name))) writeChartsAddress();
    [name, within[name]].forEach(function (signal) {
      view.addSignalListener(signal, function () { view.runAfter(keep); });
    });
  });
}

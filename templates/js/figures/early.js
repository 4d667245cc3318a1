// Before a chart is live: its box shows the build's drawing and its bar the inputs the build wrote as Vega writes
// them (sitegen/site/inputs.py), so the reader can already act. What they do then is kept: an input set is read
// when the live chart opens (draw.js), an input focused is focused again in the live chart's bar, and a click or a
// tap on the drawing is made again on the live chart, at the same place, once it is drawn there.
import { allowed, readAddress } from "../shared/address.js";
import { addressKey } from "./page.js";

function inputsNamed(el, name) {
  return Array.prototype.filter.call(el.querySelectorAll(".vega-bindings [name]"), function (input) {
    return input.getAttribute("name") === name;
  });
}

// What the chart's input `name` holds now, as text (a radio group: its checked button's value); undefined where
// the chart has no such input or none of its buttons is checked.
export function inputValue(el, name) {
  var inputs = inputsNamed(el, name);
  if (!inputs.length) return undefined;
  if (inputs[0].type === "radio") {
    var checked = inputs.filter(function (input) { return input.checked; })[0];
    return checked ? checked.value : undefined;
  }
  if (inputs[0].type === "checkbox") return String(inputs[0].checked);
  if (inputs[0].tagName === "SELECT" && inputs[0].selectedIndex < 0) return undefined;
  return inputs[0].value;
}

// Sets the input `name` to `raw` where it allows that value (as the address's value is checked for the live chart:
// address.js `allowed`), else leaves it as it is; a range writes its value beside it, as Vega's does.
function setInput(el, name, raw) {
  var inputs = inputsNamed(el, name), first = inputs[0];
  if (!first) return;
  if (first.type === "radio") {
    var match = inputs.filter(function (input) { return input.value === raw; })[0];
    if (match) match.checked = true;
  } else if (first.type === "checkbox") {
    if (raw === "true" || raw === "false") first.checked = raw === "true";
  } else if (first.tagName === "SELECT") {
    if (Array.prototype.some.call(first.options, function (o) { return o.value === raw; })) first.value = raw;
  } else if (first.type === "range") {
    var value = allowed({ input: "range", min: +first.min, max: +first.max, step: +first.step }, raw);
    if (value === undefined) return;
    first.value = String(value);
    if (first.nextElementSibling) first.nextElementSibling.textContent = first.value;
  }
}

// The build's inputs show the state the page's address gives the chart, as the live chart will open.
export function showAddress(el) {
  var state = readAddress();
  Array.prototype.forEach.call(el.querySelectorAll(".vega-bindings [name]"), function (input) {
    var name = input.getAttribute("name"), key = addressKey(el, name);
    if (key in state) setInput(el, name, state[key]);
  });
}

// A range moved before the chart is live writes its value beside it, as Vega's does.
export function followRanges(el) {
  el.addEventListener("input", function (event) {
    var input = event.target;
    if (el.vegaView || input.type !== "range" || !input.nextElementSibling) return;
    input.nextElementSibling.textContent = input.value;
  });
}

// The chart's input that has the focus, {name, value}, or null.
export function focusedInput(el) {
  var input = document.activeElement;
  if (!input || !el.contains(input) || !input.closest(".vega-bindings") || !input.getAttribute("name")) return null;
  return { name: input.getAttribute("name"), value: input.value };
}

// The live chart's input that stands for `focused` takes the focus (a radio group: the same button).
export function focusAgain(el, focused) {
  if (!focused) return;
  var inputs = inputsNamed(el, focused.name);
  var input = inputs.filter(function (i) { return i.type !== "radio" || i.value === focused.value; })[0];
  if (input) input.focus({ preventScroll: true });
}

// A click (or a tap) on the build's drawing, where it fell in the drawing: kept until the live chart is drawn.
export function keepClicks(el) {
  var first = el.querySelector(".first-drawing");
  if (!first) return;
  first.addEventListener("click", function (event) {
    var box = first.getBoundingClientRect();
    el.earlyClick = { x: event.clientX - box.left, y: event.clientY - box.top };
  });
}

// The click kept, made on the live chart at the same place in its box: what the mark there does on a click (Vega
// picks a canvas's mark from the pointer's last move and press, an SVG's from the element under it).
export function clickAgain(el) {
  var click = el.earlyClick;
  el.earlyClick = undefined;
  if (!click) return;
  var box = el.querySelector(".chart-drawing").getBoundingClientRect();
  var x = box.left + click.x, y = box.top + click.y, target = document.elementFromPoint(x, y);
  if (!target || !el.contains(target)) return;
  ["mousemove", "mousedown", "mouseup", "click"].forEach(function (type) {
    target.dispatchEvent(new MouseEvent(type, { bubbles: true, cancelable: true, clientX: x, clientY: y, view: window }));
  });
}


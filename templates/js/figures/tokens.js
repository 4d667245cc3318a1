// Figures of one text on one page: choosing a token in one chooses it in the others. The text as a row of tokens
// above the chart (on a text page, above every chart of the text): choosing one chooses the token of the charts it
// steers; it shows the token chosen, however it was chosen. One radio group: the arrow keys (and Home, End) move the
// choice, as for any radio group.
import { allowed, readAddress } from "../shared/address.js";
import { tokenParam } from "../shared/charts.js";
import { fadeEdges } from "../shared/scroll.js";
import { addressKey, charts, writeChartsAddress } from "./page.js";
import { limitFirstInputs } from "./within.js";

// The book's rows, each steering its chart (data-chart) or its text's (data-text); the row of a reader's own text
// (live/row.js) is the live script's.
export var rows = Array.prototype.slice.call(document.querySelectorAll(".token-row[data-chart], .token-row[data-text]"));

// Sets the chart's token to `value` where its input allows it; a chart not drawn yet opens on it when it is.
function setToken(el, value) {
  if (!el.vegaView) {
    if (el.hasAttribute("data-token-param")) el.pendingToken = value;
    limitFirstInputs(el);
    return;
  }
  var param = tokenParam(el);
  var allowedValue = param ? allowed(param.bind, String(value)) : undefined;
  if (allowedValue !== undefined && el.vegaView.signal(param.name) !== allowedValue) {
    el.vegaView.signal(param.name, allowedValue).runAsync();
  }
}

// The token chosen in `source` is chosen in the other charts of its text.
export function follow(source, value) {
  var group = source.closest("[data-text]");
  if (!group) return;
  charts.forEach(function (el) {
    var other = el.closest("[data-text]");
    if (el === source || !other || other.getAttribute("data-text") !== group.getAttribute("data-text")) return;
    setToken(el, value);
  });
}

export function rowCharts(row) {
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

export function rowsInSight() {
  rows.forEach(function (row) {
    var token = row.querySelector("[aria-checked='true']");
    if (token) inSight(token);
  });
}

export function showChosen(el, value) {
  rows.forEach(function (row) { if (rowCharts(row).indexOf(el) >= 0) markRow(row, value); });
}

// The token the page's address chooses for the row's figures: the first (in the page's order) that the address gives
// one of them and that is one of the row's tokens; undefined where it gives none.
function addressToken(row, state) {
  var tokens = rowTokens(row).map(function (token) { return token.getAttribute("data-token"); });
  var keys = rowCharts(row).filter(function (el) { return el.hasAttribute("data-token-param"); }).map(function (el) {
    return addressKey(el, el.getAttribute("data-token-param"));
  });
  var key = keys.filter(function (k) { return tokens.indexOf(state[k]) >= 0; })[0];
  return key === undefined ? undefined : state[key];
}

// The address's state in every row and in every chart a row steers, drawn or not: a page opened from its address
// shows its token chosen at once, not when the charts below are drawn (on a text page, as the reader scrolls to
// them), and where Vega never loads. The row's charts open on that token, as after a choice in the row.
export function showAddressInRows() {
  var state = readAddress();
  rows.forEach(function (row) {
    var value = addressToken(row, state);
    if (value === undefined) return;
    markRow(row, value);
    rowCharts(row).forEach(function (el) { setToken(el, value); });
  });
}

function choose(row, value) {
  markRow(row, value);
  rowCharts(row).forEach(function (el) { setToken(el, value); });
  writeChartsAddress();
}

var KEY_STEPS = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };

// Each row chooses on a click, and with the keys of a radio group.
export function listenToRows() {
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
}

// The page's address after '#' holds the state of its figures ("token=7&view=5-12"), so that a link opens them as
// they were: read into {key: value} and written from [[key, value], ...]. Shared by the figure pages and the live page.

// {key: value} of an address's part after '#' ("#a=1&b=x%20y"); a pair with a broken %-escape is left out.
export function parseAddress(hash) {
  var state = {};
  hash.replace(/^#/, "").split("&").forEach(function (pair) {
    var at = pair.indexOf("=");
    if (at <= 0) return;
    try {
      state[decodeURIComponent(pair.slice(0, at))] = decodeURIComponent(pair.slice(at + 1));
    } catch (e) { /* a broken %-escape: ignore this pair, keep the rest */ }
  });
  return state;
}

// The part after '#' that holds these [key, value] pairs, in their order ("#a=1&b=x%20y").
export function addressOf(pairs) {
  return "#" + pairs.map(function (pair) {
    return encodeURIComponent(pair[0]) + "=" + encodeURIComponent(String(pair[1]));
  }).join("&");
}

// The state the page's address holds now.
export function readAddress() {
  return parseAddress(location.hash);
}

// Writes these [key, value] pairs as the page's address, in place of the one it had (no new entry in the history).
export function writeAddress(pairs) {
  history.replaceState(null, "", addressOf(pairs));
}

// A value from the address (or a click, or another chart), made into one the input `bind` allows: one of its options,
// or a step of its range (onStep); undefined when it allows no such value.
export function allowed(bind, raw) {
  if (bind.options) {
    for (var i = 0; i < bind.options.length; i++) {
      if (String(bind.options[i]) === String(raw)) return bind.options[i];
    }
    return undefined;
  }
  if (bind.input === "range") {
    var v = Number(raw);
    if (raw === "" || !isFinite(v) || v < bind.min || v > bind.max) return undefined;
    return onStep(bind, v);
  }
  return undefined;
}

// The digits after the point a number is written with: 2 for 0.05, 0 for 3, 7 for 1e-7.
export function decimals(x) {
  var parts = /^-?\d*(?:\.(\d+))?(?:e([+-]\d+))?$/i.exec(String(x));
  if (!parts) return 0;
  return Math.max(0, (parts[1] ? parts[1].length : 0) - (parts[2] ? Number(parts[2]) : 0));
}

// The step of the range `bind` ({min, max, step}) nearest `v`, as the range input itself would hold it: min and a
// whole number of steps, at most max, written with no more digits than its min and step have. Every value a range
// takes from an address, a click or another chart comes through here (and the build's, sitegen/site/inputs.py
// `on_step`), so that it shows as its step writes it: 1.5, never min + 28 steps = 1.5000000000000002, on the slider,
// in the address and in the sentences that say it.
export function onStep(bind, v) {
  var min = Number(bind.min) || 0, step = Number(bind.step) || 1;
  var max = bind.max === undefined ? Infinity : Number(bind.max);
  var steps = Math.max(0, Math.min(Math.round((v - min) / step), Math.floor((max - min) / step + 1e-9)));
  var digits = Math.min(100, Math.max(decimals(min), decimals(step)));
  return Number((min + steps * step).toFixed(digits));
}

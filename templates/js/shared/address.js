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
// or a step of its range; undefined when it allows no such value.
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
    var step = bind.step || 1;
    return bind.min + Math.round((v - bind.min) / step) * step;
  }
  return undefined;
}

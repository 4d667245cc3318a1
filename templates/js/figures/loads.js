// A figure's data loaded on demand, from files of their own loaded with <script src> (fetch is blocked on file://):
// each file calls window[callback](payload).
import { ATTENTION_META, DESCRIPTION, LEFT_OUT, LEFT_OUT_SIGNAL, LOADS_META, NAMES, SHARES, TOKEN, VIEW }
  from "../shared/names.js";

var headFiles = {};
function loadHead(path, callback) {
  if (headFiles[path]) return Promise.resolve(headFiles[path]);
  window[callback] = function (payload) {
    var script = document.currentScript;
    headFiles[script ? script.getAttribute("src") : path] = payload;
  };
  return new Promise(function (resolve, reject) {
    var script = document.createElement("script");
    script.src = path;
    script.onload = function () { resolve(headFiles[path]); };
    script.onerror = function () { reject(new Error("could not load " + path)); };
    document.head.appendChild(script);
  });
}

function viewLabel(spec, key) {
  var param = (spec.signals || []).filter(function (p) { return p.name === VIEW; })[0];
  var i = param.bind.options.indexOf(key);
  return param.bind.labels ? param.bind.labels[i] : key;
}

// The head's shares of the query token (a payload's row), in words: the five largest, and what the rest add up to.
function sharesInWords(names, query, label, rows) {
  var kept = rows.reduce(function (sum, row) { return sum + row.s; }, 0);
  var top = rows.slice().sort(function (a, b) { return b.s - a.s; }).slice(0, 5).map(function (row) {
    return names[row.k] + " " + Math.round(row.s * 100) + "%";
  });
  return "Looking from " + names[query] + " (token " + (query + 1) + "), " + label + ": " +
    (top.length ? "largest shares " + top.join(", ") : "no share of " + LEFT_OUT + " or more") +
    "; shares below " + LEFT_OUT + " add up to " + Math.round((1 - kept) * 100) + "%.";
}

// Long texts (data format 2): each head's shares lie in a file of their own (usermeta[ATTENTION_META]), loaded when the
// reader chooses its head or another token. `described(view)` writes the chart's new description out.
export function followAttention(view, spec, described) {
  var meta = spec.usermeta[ATTENTION_META];
  var names = view.signal(NAMES);
  function refresh() {
    var key = view.signal(VIEW), query = view.signal(TOKEN) - 1;
    return loadHead(meta.files[key], meta.callback).then(function (payload) {
      if (view.signal(VIEW) !== key || view.signal(TOKEN) - 1 !== query) return;  // a newer choice won
      var keys = payload.keys[query], shares = payload.shares[query];
      var rows = keys.map(function (k, i) { return { k: k, s: shares[i] * meta.unit }; });
      var kept = rows.reduce(function (sum, row) { return sum + row.s; }, 0);
      view.change(SHARES, view.changeset().remove(function () { return true; }).insert(rows));
      view.signal(LEFT_OUT_SIGNAL, Math.max(0, 1 - kept));
      view.signal(DESCRIPTION, sharesInWords(names, query, viewLabel(spec, key), rows));
      return view.runAsync().then(function () { described(view); });
    }).catch(function (error) { console.error(error); });
  }
  view.addSignalListener(TOKEN, refresh);
  view.addSignalListener(VIEW, refresh);
  return refresh();
}

// A figure's files loaded on demand (usermeta[LOADS_META], figures.kind `loads`): the file of the `key` param's value
// fills the dataset `data` when one of the `on` params changes. The page's own data hold the `opening` choice.
export function followLoads(view, spec) {
  var meta = spec.usermeta[LOADS_META], loaded = null;
  function atOpening() {
    return meta.on.every(function (name) { return String(view.signal(name)) === String(meta.opening[name]); });
  }
  function refresh() {
    var key = String(view.signal(meta.key));
    if (key === loaded || (loaded === null && atOpening())) return Promise.resolve();
    return loadHead(meta.files[key], meta.callback).then(function (payload) {
      if (String(view.signal(meta.key)) !== key) return;  // a newer choice won
      loaded = key;
      view.change(meta.data, view.changeset().remove(function () { return true; }).insert(payload.rows));
      return view.runAsync();
    }).catch(function (error) { console.error(error); });
  }
  meta.on.forEach(function (name) { view.addSignalListener(name, refresh); });
  return refresh();
}

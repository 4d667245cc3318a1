// A figure's notebook saved where the reader is: the page's link to notebooks/figure-<label>.ipynb saves, in its
// place, the same notebook with its STATE cell holding the chart's choices as they are now (the token, head, layer
// ...), so that the notebook's chart opens there. The page reads the notebook from its script (the link's
// data-notebook: it hands the text to NOTEBOOK_CALLBACK), which loads from file:// too; where it cannot load, the
// link opens the build's own file.
import { allowed, readAddress } from "../shared/address.js";
import { NOTEBOOK_CALLBACK } from "../shared/names.js";
import { addressKey, boundParams, chartSpec } from "./page.js";
import { withState } from "./state_cell.js";

// The chart's choices that differ from those it opens with (its spec's): a drawn chart's params as they are, or else
// what the page's address holds of them.
export function chosen(el) {
  var state = {}, address = readAddress();
  boundParams(chartSpec(el)).forEach(function (p) {
    var key = addressKey(el, p.name);
    var value = el.vegaView ? el.vegaView.signal(p.name) : key in address ? allowed(p.bind, address[key]) : undefined;
    if (value !== undefined && String(value) !== String(p.value)) state[p.name] = value;
  });
  return state;
}

var texts = {};
function notebookText(path) {
  if (texts[path]) return Promise.resolve(texts[path]);
  return new Promise(function (resolve, reject) {
    window[NOTEBOOK_CALLBACK] = function (text) { texts[path] = text; };
    var script = document.createElement("script");
    script.src = path;
    script.onload = function () { return texts[path] ? resolve(texts[path]) : reject(new Error(path)); };
    script.onerror = function () { reject(new Error("could not load " + path)); };
    document.head.appendChild(script);
  });
}

function save(text, name) {
  var url = URL.createObjectURL(new Blob([text], { type: "application/x-ipynb+json" }));
  var a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(function () { URL.revokeObjectURL(url); }, 1000);
}

// Each notebook link of the page saves its notebook as a file (from file:// too, where a browser would show a link's
// file in the tab): the build's own text where the chart is as it opens, else the text with the reader's choices.
export function listenToNotebookLinks() {
  document.querySelectorAll("a[data-notebook]").forEach(function (link) {
    link.addEventListener("click", function (event) {
      var el = document.getElementById(link.getAttribute("data-chart"));
      var state = el ? chosen(el) : {};
      event.preventDefault();
      notebookText(link.getAttribute("data-notebook")).then(function (text) {
        save(Object.keys(state).length ? withState(text, state) : text, link.getAttribute("href").split("/").pop());
      }).catch(function () { window.location.href = link.href; });
    });
  });
}

// A notebook's STATE cell written for the reader's choices (figures.notebook; saved by ./notebook.js): pure, no page.
import { NOTEBOOK_STATE } from "../shared/names.js";

// A value as Python writes it: JSON's strings and numbers are Python's; its true, false and null are not.
export function pythonValue(value) {
  if (value === true) return "True";
  if (value === false) return "False";
  if (value === null || value === undefined) return "None";
  return JSON.stringify(value);
}

// The STATE cell's first line for {name: value} ({"layer": 7}), a Python dict.
export function stateLine(state) {
  return "STATE = {" + Object.keys(state).map(function (name) {
    return JSON.stringify(name) + ": " + pythonValue(state[name]);
  }).join(", ") + "}";
}

// The notebook's text (nbformat's JSON) with its STATE cell's first line written for `state`.
export function withState(text, state) {
  var notebook = JSON.parse(text);
  notebook.cells.forEach(function (cell) {
    var source = Array.isArray(cell.source) ? cell.source.join("") : cell.source;
    if (cell.cell_type === "code" && source.indexOf(NOTEBOOK_STATE) === 0) {
      cell.source = stateLine(state) + source.slice(NOTEBOOK_STATE.length);
    }
  });
  return JSON.stringify(notebook, null, 1) + "\n";
}

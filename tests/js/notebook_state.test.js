// A notebook's STATE cell (templates/js/figures/state_cell.js): the reader's choices written as Python, into the
// cell that starts with the build's STATE line, and nowhere else.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { NOTEBOOK_STATE } from "../../templates/js/shared/names.js";
import { pythonValue, stateLine, withState } from "../../templates/js/figures/state_cell.js";

const NOTEBOOK = JSON.stringify({
  cells: [
    { cell_type: "markdown", source: [NOTEBOOK_STATE + " is not code here\n"], metadata: {} },
    { cell_type: "code", source: [NOTEBOOK_STATE + "\n", "# the choices\n"], metadata: { tags: ["parameters"] } },
    { cell_type: "code", source: "print(STATE)\n", metadata: {} },
  ],
});

describe("a notebook's STATE cell", () => {
  test("writes values as Python does", () => {
    assert.equal(pythonValue(true), "True");
    assert.equal(pythonValue(false), "False");
    assert.equal(pythonValue(null), "None");
    assert.equal(pythonValue(7), "7");
    assert.equal(pythonValue("5-12 \"é\""), "\"5-12 \\\"é\\\"\"");
  });

  test("writes the choices as a dict, in their order", () => {
    assert.equal(stateLine({ token: 7, view: "5-12", all: false }), 'STATE = {"token": 7, "view": "5-12", "all": False}');
    assert.equal(stateLine({}), NOTEBOOK_STATE);
  });

  test("sets the first line of the code cell that starts with the STATE line, and only that", () => {
    const cells = JSON.parse(withState(NOTEBOOK, { token: 3 })).cells;
    assert.equal(cells[1].source, 'STATE = {"token": 3}\n# the choices\n');
    assert.deepEqual(cells[0].source, [NOTEBOOK_STATE + " is not code here\n"]);
    assert.equal(cells[2].source, "print(STATE)\n");
    assert.deepEqual(cells[1].metadata, { tags: ["parameters"] });
  });
});

// The chart helpers the figure pages and the live page share (templates/js/shared/charts.js, scroll.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { changed, tokenParam, wantsNarrow } from "../../templates/js/shared/charts.js";
import { NARROW_PX } from "../../templates/js/shared/names.js";
import { tokenColumn } from "../../templates/js/shared/scroll.js";

test("the build's changes set and delete a spec's values at their paths", () => {
  const spec = { signals: [{ name: "token", value: 1 }], width: 400, usermeta: { loads: {} } };
  assert.equal(changed(spec, [[["signals", 0, "value"], 3], [["width"], 300], [["usermeta", "loads"]]]), spec);
  assert.deepEqual(spec, { signals: [{ name: "token", value: 3 }], width: 300, usermeta: {} });
});

test("a chart draws its narrow spec only where it has one and its column is narrower than NARROW_PX", () => {
  assert.equal(wantsNarrow({ clientWidth: NARROW_PX - 1 }, true), true);
  assert.equal(wantsNarrow({ clientWidth: NARROW_PX }, true), false);
  assert.equal(wantsNarrow({ clientWidth: 100 }, false), false);
});

test("the token param is the first bound param named as a token", () => {
  assert.equal(tokenParam({ boundParams: [{ name: "stage" }, { name: "position" }, { name: "token" }] }).name,
               "position");
  assert.equal(tokenParam({ boundParams: [{ name: "stage" }] }), undefined);
  assert.equal(tokenParam({}), undefined);
});

test("a token's column spans the marks that carry it, groups' offsets added", () => {
  const cell = (q, x1, x2) => ({ datum: { pick_position: q }, bounds: { x1: x1, x2: x2 } });
  const root = { marktype: "group", items: [{ x: 10, items: [
    { marktype: "rect", items: [cell(1, 0, 20), cell(2, 20, 40), cell(2, 20, 40)] },
    { marktype: "group", items: [{ x: 100, items: [{ marktype: "text", items: [cell(2, 25, 30)] }] }] },
  ] }] };
  const view = { scenegraph: () => ({ root: root }), origin: () => [5] };
  const el = { picks: [{ field: "pick_position", param: "position" }] };
  assert.deepEqual(tokenColumn(el, view, "position", 2), [35, 145]);
  assert.deepEqual(tokenColumn(el, view, "position", "1"), [15, 35]);
  assert.equal(tokenColumn(el, view, "position", 3), null);
  assert.equal(tokenColumn(el, view, "token", 1), null);
});

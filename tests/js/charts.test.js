// The chart helpers the figure pages and the live page share (templates/js/shared/charts.js, scroll.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { changed, tokenParam, wantsNarrow } from "../../templates/js/shared/charts.js";
import { BACKDROP, NARROW_PX } from "../../templates/js/shared/names.js";
import { pin, tokenColumn } from "../../templates/js/shared/scroll.js";

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

// A drawing of views as Vega's scenegraph holds them (marks with their items and elements), in a box `room` px wide.
function drawing(marks, room, width) {
  const attributes = {};
  const box = { scrollWidth: width, clientWidth: room, toggleAttribute: (name, on) => { attributes[name] = on; } };
  const view = { scenegraph: () => ({ root: { items: [{ x: 0, items: marks }] } }), origin: () => [3] };
  return { el: { vegaView: view, querySelector: () => box }, attributes: attributes };
}
const mark = (role, name, items) => ({ role: role, name: name, items: items, _svg: { style: {} } });
const group = (x, width, marks) => ({ x: x, bounds: { x1: 0, x2: width }, items: marks });

test("in a drawing wider than its box only a grid scrolls: the views within the box, its title, legend and axis stay", () => {
  const axis = (orient) => mark("axis", undefined, [{ orient: orient }]);
  const [left, top, backdrop, title, cells] = [axis("left"), axis("top"), mark("mark", BACKDROP + "_0_marks", []),
    mark("title", undefined, []), mark("mark", "cells", [])];
  const grid = mark("scope", "concat_0_group", [group(40, 900, [cells, backdrop, left, top, title])]);
  const below = mark("scope", "concat_1_group", [group(0, 250, [])]);
  const past = mark("scope", "concat_2_group", [{ x: 90, bounds: { x1: 60, x2: 345 }, items: [] }]);  // past the box
  const legend = mark("legend", undefined, []);
  const { el, attributes } = drawing([grid, below, past, legend], 340, 940);
  assert.equal(pin(el), 43);  // the grid's left edge, right of its axis: the box's origin and the group's x
  assert.equal(attributes["data-pinned"], true);
  const kept = [left, backdrop, title, below, legend].map((part) => part._svg.style.translate);
  assert.deepEqual(kept, Array(5).fill("var(--scrolled, 0px) 0"));
  assert.deepEqual([cells, top, grid, past].map((part) => part._svg.style.translate), Array(4).fill(undefined));
});

test("a grid without a backdrop keeps its axis with it, and a drawing that fits its box keeps nothing", () => {
  const left = mark("axis", undefined, [{ orient: "left" }]);
  const grid = mark("scope", "concat_0_group", [group(40, 900, [left])]);
  const { el } = drawing([grid], 340, 940);
  assert.equal(pin(el), 0);
  assert.equal(left._svg.style.translate, undefined);
  const fits = drawing([mark("scope", "concat_0_group", [group(0, 300, [])])], 340, 340);
  assert.equal(pin(fits.el), 0);
  assert.equal(fits.attributes["data-pinned"], false);
});

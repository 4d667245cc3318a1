// The shared names module (templates/js/shared/names.js), written by figsite/data/shared_names.py: what the scripts
// import from it is there, of the kind they read it as (tests/unit/test_shared_names.py checks it against Python).
import assert from "node:assert/strict";
import { test } from "node:test";

import * as names from "../../templates/js/shared/names.js";

test("the token params are the three names of the token a figure looks from", () => {
  assert.deepEqual(names.TOKEN_PARAMS, [names.TOKEN, names.POSITION, names.FROM]);
});

test("every name is a word the charts can spell, and the numbers are numbers", () => {
  for (const key of ["TOKEN", "POSITION", "FROM", "DESCRIPTION", "VIEW", "NAMES", "LEFT_OUT_SIGNAL", "SHARES",
                     "ATTENTION_META", "LOADS_META", "RENDERER_META", "CLICKS_META", "PICK"]) {
    assert.match(names[key], /^[a-z_]+$/, key);
  }
  assert.ok(Number.isInteger(names.NARROW_PX) && names.NARROW_PX > 0);
});

test("the share left out is said as the pages say it", () => {
  assert.equal(names.LEFT_OUT, `${names.MIN_SHARE * 100}%`);
});

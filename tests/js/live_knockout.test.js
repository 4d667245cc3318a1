// The knockout figure for the reader's text (templates/js/live/knockout.js): which part each run takes out through
// the graph's keep_ inputs, the runs read at the last position after the last layer only, and each bar's change
// from the intact model.
import assert from 'node:assert/strict';
import {test} from 'node:test';

import {LIVE_DATASETS} from '../../templates/js/shared/names.js';
import {intactOf, keptWithout, knockouts, listedParts} from '../../templates/js/live/knockout.js';

const SHAPE = {nLayer: 3, nHead: 2, stages: 4};
const ROWS = [
  {key: 'attention-2', group: 'attention', x: 2, layer: 2, name: 'layer 2, attention', part_name: "layer 2's attention",
   p: 0, rank: 1, dp: 0, dr: 0},
  {key: 'feed-forward-3', group: 'feed-forward', x: 3, layer: 3, name: 'layer 3, feed-forward step',
   part_name: "layer 3's feed-forward step", p: 0, rank: 1, dp: 0, dr: 0},
  {key: 'head-2-1', group: 'head', x: 1, layer: 2, name: 'layer 2, head 1', part_name: 'head 1 of layer 2', p: 0,
   rank: 1, dp: 0, dr: 0},
];

test("each run takes out its own part alone, everything else kept", () => {
  assert.deepEqual(keptWithout(ROWS[0], SHAPE), {attention: [1, 0, 1], feedForward: [1, 1, 1], heads: [1, 1, 1, 1, 1, 1]});
  assert.deepEqual(keptWithout(ROWS[1], SHAPE), {attention: [1, 1, 1], feedForward: [1, 1, 0], heads: [1, 1, 1, 1, 1, 1]});
  assert.deepEqual(keptWithout(ROWS[2], SHAPE), {attention: [1, 1, 1], feedForward: [1, 1, 1], heads: [1, 1, 0, 1, 1, 1]});
});

test("the chart's parts are read from its spec's runs, in its order", () => {
  assert.deepEqual(listedParts({data: [{name: 'other', values: [1]}, {name: 'runs', values: ROWS}]}), ROWS);
  assert.deepEqual(listedParts({data: []}), []);
});

// A result of 2 tokens following token 7: its p and rank at stage s, position q are 0.1 s + 0.01 q and 10 - s - q.
function fakeResult() {
  const n = 2, p = new Float32Array(SHAPE.stages * n), rank = [];
  for (let s = 0; s < SHAPE.stages; s++) for (let q = 0; q < n; q++) {
    p[s * n + q] = 0.1 * s + 0.01 * q;
    rank.push(10 - s - q);
  }
  return {ids: [5, 6], target: 7, followed: [{id: 7, p: p, rank: rank}]};
}

test('the intact model is the text\'s own run at the last position after the last layer', () => {
  const intact = intactOf(fakeResult(), SHAPE.stages);
  assert.equal(intact.p, Math.fround(0.31));
  assert.equal(intact.rank, 6);
});

test('every listed part is run once, read at the last stage only, its change from the intact model beside it', async () => {
  const asked = [], told = [];
  const infer = async (ids, follow, kept, stages) => {
    asked.push({ids: ids, follow: follow, kept: kept, stages: stages});
    const i = asked.length;  // (1, T, 1): the last position's p and rank
    return {followProbs: new Float32Array([0.9, 0.05 * i]), followRanks: new BigInt64Array([1n, BigInt(i)])};
  };
  const found = await knockouts(infer, fakeResult(), ROWS, SHAPE, (i, total) => told.push([i, total]), () => false);
  assert.deepEqual(told, [[0, 3], [1, 3], [2, 3]]);
  assert.deepEqual(asked.map((a) => a.stages), [[3], [3], [3]]);
  assert.deepEqual(asked.map((a) => a.follow), [[7], [7], [7]]);
  assert.deepEqual(asked[1].kept, keptWithout(ROWS[1], SHAPE));
  assert.equal(found.runs.length, 3);
  found.runs.forEach((run, i) => {
    assert.deepEqual(Object.keys(run), LIVE_DATASETS.runs);
    assert.equal(run.key, ROWS[i].key);
    assert.equal(run.p, Math.fround(0.05 * (i + 1)));
    assert.equal(run.rank, i + 1);
    assert.equal(run.dp, run.p - Math.fround(0.31));
    assert.equal(run.dr, 6 - (i + 1));  // places moved up
  });
});

test('a newer text stops the runs', async () => {
  let runs = 0;
  const infer = async () => {
    runs += 1;
    return {followProbs: new Float32Array([0, 0]), followRanks: new BigInt64Array([1n, 1n])};
  };
  assert.equal(await knockouts(infer, fakeResult(), ROWS, SHAPE, () => {}, () => runs >= 1), null);
  assert.equal(runs, 1);
});

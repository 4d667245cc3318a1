// The live page's datasets (templates/js/live/datasets.js), built from a small fake run of the model: `panels`, `top`
// and `follow`, with the fields figsite/data/live_data.py declares, as the kinds' charts with no text read them.
import assert from 'node:assert/strict';
import {before, test} from 'node:test';

import {LIVE_DATASETS, PER_SHARE, TOP_K} from '../../templates/js/shared/names.js';
import {followRows, panels, result, topIdsAt, topRows} from '../../templates/js/live/datasets.js';
import {IDS, OTHER, SHAPE, TARGET, fakeOutput, fakeTokens, share} from './live_fake.js';

before(() => { globalThis.liveTokens = fakeTokens; });

function fakeResult() {
  return result('a text', IDS, TARGET, [TARGET, OTHER], fakeOutput([TARGET, OTHER]), SHAPE);
}

test('a result names its tokens as the pages write them and keeps each followed token by stage and position', () => {
  const res = fakeResult(), n = IDS.length;
  assert.deepEqual(res.names, ['_w11', '_w12', '=x']);
  assert.deepEqual(res.followed.map((f) => f.id), [TARGET, OTHER]);
  // follow_probs (stages, T, K): the other token's p at stage 1, position 2 lies at ((1 * n) + 2) * 2 + 1.
  const at = (1 * n + 2) * 2 + 1;
  assert.equal(res.followed[1].p[1 * n + 2], Math.fround(0.5 / (1 + at)));
  assert.equal(res.followed[1].rank[1 * n + 2], 1 + at);
  assert.equal(typeof res.followed[0].rank[0], 'number');
});

test("panels hold each head's lower triangle, each layer's average, then the average of all heads", () => {
  const rows = panels(fakeResult(), SHAPE), n = IDS.length, cells = n * (n + 1) / 2;
  assert.deepEqual(rows.map((r) => [r.l, r.h]), [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2], [2, 2]]);
  rows.forEach((r) => assert.equal(r.u.length, cells));
  // The cells run query by query, keys 0 to the query: cell 4 is query 2, key 1.
  const units = (s) => Math.round(s * PER_SHARE);
  assert.equal(rows[4].u[4], units(Math.fround(share(1, 1, 2, 1))));
  assert.equal(rows[2].u[4], units((Math.fround(share(0, 0, 2, 1)) + Math.fround(share(0, 1, 2, 1))) / 2));
  let all = 0;
  for (let l = 0; l < 2; l++) for (let h = 0; h < 2; h++) all += Math.fround(share(l, h, 2, 1));
  assert.equal(rows[6].u[4], units(all / 4));
});

test('top runs by stage, then position, then rank, each with its token as the pages write it', () => {
  const rows = topRows(fakeResult(), SHAPE), n = IDS.length;
  assert.equal(rows.length, SHAPE.stages * n * TOP_K);
  const row = rows[(2 * n + 1) * TOP_K + 3];  // stage 2, position 1, rank 4
  const id = 100 + (2 * n + 1) * TOP_K + 3;
  assert.deepEqual(row, {stage: 2, q: 1, rank: 4, token: '_t' + id, id: id, p: Math.fround(1 / (2 + id - 100))});
  assert.deepEqual(topIdsAt(fakeResult(), 2, 1).slice(0, 4), [id - 3, id - 2, id - 1, id]);
});

test('follow gives one followed token by stage, then position', () => {
  const res = fakeResult(), n = IDS.length;
  const rows = followRows(res, OTHER, SHAPE);
  assert.equal(rows.length, SHAPE.stages * n);
  assert.deepEqual(rows[n + 2], {stage: 1, q: 2, p: res.followed[1].p[n + 2], rank: res.followed[1].rank[n + 2]});
  assert.notDeepEqual(followRows(res, TARGET, SHAPE), rows);
});

test('every row holds the fields figsite/data/live_data.py declares, in their order, and no other', () => {
  const res = fakeResult();
  const made = [[LIVE_DATASETS.panels, panels(res, SHAPE)], [LIVE_DATASETS.top, topRows(res, SHAPE)],
                [LIVE_DATASETS.follow, followRows(res, OTHER, SHAPE)]];
  made.forEach(([fields, rows]) => {
    assert.ok(rows.length > 0);
    rows.forEach((row) => assert.deepEqual(Object.keys(row), fields));
  });
});

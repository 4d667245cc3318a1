// The patching figure for the reader's two texts (templates/js/live/patching.js): what is refused, which runs are
// made (those the build makes: templates/js/../figsite/capture/parts/patchings.py), what each run puts back through
// the graph's patch_ inputs, and the chart's rows, the changed text's own numbers where no run was made.
import assert from 'node:assert/strict';
import {before, test} from 'node:test';

import {LIVE_DATASETS, LIVE_TABLES} from '../../templates/js/shared/names.js';
import {askedPatching, keyOf, patchedRows, patchings, planned} from '../../templates/js/live/patching.js';
import {patchingsCsv} from '../../templates/js/live/downloads.js';
import {fakeTokens} from './live_fake.js';

before(() => { globalThis.liveTokens = fakeTokens; });  // a character a token

const name = (id) => 'c' + id;
const SHAPE = {nLayer: 2, nHead: 2, stages: 3, dModel: 2, dHead: 1};

test('two texts of as many tokens, and two different one-token answers, are asked', () => {
  const asked = askedPatching(['abc', 'axc'], '.', ',', 64, name);
  assert.deepEqual([asked.a.ids, asked.b.ids, asked.target, asked.versus], [[97, 98, 99], [97, 120, 99], 46, 44]);
});

test('texts of other lengths, the same texts, an empty one, and one answer twice are refused, each in a sentence', () => {
  assert.equal(askedPatching(['abc', 'abcd'], 'x', 'y', 64, name).refused,
               'The two texts must be as many tokens long, and the original is 3, the changed text 4 (c97 c98 c99 ' +
               'c100): change a word for one of as many tokens.');
  assert.match(askedPatching(['abc', 'abc'], 'x', 'y', 64, name).refused, /are the same/);
  assert.match(askedPatching(['abc', ' '], 'x', 'y', 64, name).refused, /^Type the changed text too/);
  assert.match(askedPatching(['', 'abc'], 'x', 'y', 64, name).refused, /^The original text: Type a text first/);
  assert.match(askedPatching(['abc', 'axc'], '.', '.', 64, name).refused, /are the same token/);
  assert.match(askedPatching(['abc', 'axc'], '.', ',;', 64, name).refused, /^The token it is measured against: /);
});

// A run's activations for 3 tokens: every number says where it lies; the changed text's differ from `from` on.
function run(from, shift) {
  const n = 3, {nLayer, nHead, stages, dModel, dHead} = SHAPE;
  const fill = (length, at) => Float32Array.from({length: length}, (_, i) => i + (at(i) >= from ? shift : 0));
  return {resid_pre: fill(stages * n * dModel, (i) => Math.floor(i / dModel) % n),
          attn_out: fill(nLayer * n * dModel, (i) => Math.floor(i / dModel) % n),
          mlp_out: fill(nLayer * n * dModel, (i) => Math.floor(i / dModel) % n),
          z: fill(nLayer * n * nHead * dHead, (i) => Math.floor(i / (nHead * dHead)) % n)};
}

test('the runs made are the pieces from the first token that differs on, that reach the last token', () => {
  const runs = planned(run(1, 0), run(1, 0.5), SHAPE, 3, 2);
  const keys = runs.map((r) => keyOf(r.piece, r.row, r.col));
  // Layer 1: every piece at tokens 2 and 3; layer 2, the last: its outputs only at the last token; every head.
  assert.deepEqual(keys, [
    'stream-0-2', 'stream-0-3', 'attention-1-2', 'attention-1-3', 'feed-forward-1-2', 'feed-forward-1-3',
    'head-1-1', 'head-1-2',
    'stream-1-2', 'stream-1-3', 'attention-2-3', 'feed-forward-2-3', 'head-2-1', 'head-2-2']);
  assert.deepEqual(planned(run(1, 0), run(1, 0), SHAPE, 3, 2), []);  // the same runs: nothing to put back
});

test('each run puts back its one piece of the original run, read at the last stage only, the rows of every run', async () => {
  const outs = [0, 1].map((text) => ({
    followScores: new Float32Array(SHAPE.stages * 3 * 2).fill(0).map((_, i) => (i % 2 ? 0 : 2 - 2 * text)),
    followProbs: new Float32Array(SHAPE.stages * 3 * 2).fill(0.5 - 0.4 * text),
    residuals: run(1, text).resid_pre, attentionOutputs: run(1, text).attn_out,
    feedForwardOutputs: run(1, text).mlp_out, mixedValues: run(1, text).z}));
  const asked = [];
  const infer = async (ids, follow, kept, stages, patched) => {
    asked.push({ids: ids, follow: follow, stages: stages, patched: patched});
    return {followScores: new Float32Array([0, 0, 0, 0, 1, 0]), followProbs: new Float32Array([0, 0, 0, 0, 0.3, 0])};
  };
  const ask = {a: {ids: [1, 2, 3]}, b: {ids: [1, 9, 3]}, target: 7, versus: 8};
  const found = await patchings(infer, ask, outs, SHAPE, () => {}, () => false);
  assert.deepEqual([found.original, found.changed], [{diff: 2, p: Math.fround(0.5)}, {diff: 0, p: Math.fround(0.1)}]);
  assert.equal(asked.length, 14);
  asked.forEach((a) => {
    assert.deepEqual([a.ids, a.follow, a.stages], [[1, 9, 3], [7, 8], [2]]);
    const masks = ['residualAt', 'attentionAt', 'feedForwardAt', 'headsAt'].map((m) => Array.from(a.patched[m]));
    assert.equal(masks.flat().reduce((x, y) => x + y), 1);  // one piece put back
    assert.equal(a.patched.residual, outs[0].residuals);  // from the original text's run
  });
  assert.equal(asked[0].patched.residualAt[1], 1);  // stream-0-2: stage 0, token 2
  const rows = found.rows;
  assert.equal(rows.length, 3 * 3 + 2 * 3 * 2 + 2 * 2);
  assert.ok(rows.every((r) => Object.keys(r).join() === LIVE_DATASETS.patched.join()));
  const byKey = Object.fromEntries(rows.map((r) => [r.key, r]));
  assert.deepEqual([byKey['stream-0-2'].diff, byKey['stream-0-2'].p], [1, Math.fround(0.3)]);  // a run made
  assert.deepEqual([byKey['stream-0-1'].diff, byKey['attention-2-2'].diff], [0, 0]);  // the changed text's own
  assert.equal(byKey['stream-2-3'].diff, 2);  // after the last layer at the last token: the original's
  assert.deepEqual(patchedRows(found, SHAPE, 3, 2), rows);
  const lines = patchingsCsv(found, 0).trim().split('\r\n');
  assert.equal(lines[0], LIVE_TABLES.put_back.join(','));
  assert.equal(lines.length, rows.length + 1);
  assert.equal(lines[2], '"resid_pre",0,"",2,"",1,0.5,0.300000012');  // as the other tables write them
});

test('two texts that answer alike are told so, and no run is made', async () => {
  const out = {followScores: new Float32Array([1, 1]), followProbs: new Float32Array([0.2, 0.2])};
  const infer = async () => { throw new Error('no run should be made'); };
  const found = await patchings(infer, {a: {ids: [1]}, b: {ids: [2]}, target: 7, versus: 8}, [out, out], SHAPE,
                                () => {}, () => false);
  assert.equal(found.near, true);
});

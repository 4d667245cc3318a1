// Two texts compared on the compare figure's page (templates/js/live/pair.js): what is refused, the distances between
// their residual streams, the grid's `cells` and the sentence that says where the numbers part.
import assert from 'node:assert/strict';
import {before, test} from 'node:test';

import {LIVE_DATASETS} from '../../templates/js/shared/names.js';
import {askedPair, cellRows, distances, paired, pairSentence, sharedCount} from '../../templates/js/live/pair.js';
import {fakeTokens} from './live_fake.js';

before(() => { globalThis.liveTokens = fakeTokens; });  // a character a token

const name = (id) => 'c' + id;

test('two texts that begin alike are asked, each with its own ids', () => {
  const asked = askedPair('abc', 'abd', ' dog', 64, name);
  assert.deepEqual(asked.a.ids, [97, 98, 99]);
  assert.deepEqual(asked.b.ids, [97, 98, 100]);
});

test('text B is refused when empty, the same as text A, too long, or beginning with another token', () => {
  assert.match(askedPair('abc', '', ' dog', 64, name).refused, /^Type text B too/);
  assert.match(askedPair('abc', '   ', ' dog', 64, name).refused, /^Type text B too/);
  assert.match(askedPair('abc', 'abc', ' dog', 64, name).refused, /are the same/);
  assert.match(askedPair('abc', 'abcdef', ' dog', 4, name).refused, /^Text B: it is 6 tokens long/);
  assert.equal(askedPair('abc', 'xbc', ' dog', 64, name).refused,
               'The two texts begin with different tokens (c97 and c120): let text B begin as text A does.');
  assert.match(askedPair('', 'abc', ' dog', 64, name).refused, /^Text A: Type a text first/);
});

test('the texts share the ids before the first that differs', () => {
  assert.equal(sharedCount([1, 2, 3], [1, 2, 4, 5]), 2);
  assert.equal(sharedCount([1, 2], [1, 2, 4]), 2);
  assert.equal(sharedCount([7], [8]), 0);
});

// Residual streams (stages, T, width) whose numbers say where they lie, text B's moved by `shift` from `from` on.
function stream(stages, n, width, shift, from) {
  const out = new Float32Array(stages * n * width);
  for (let s = 0; s < stages; s++) {
    for (let q = 0; q < n; q++) {
      for (let i = 0; i < width; i++) out[(s * n + q) * width + i] = s + q / 10 + i / 100 + (q >= from ? shift * (s + 1) : 0);
    }
  }
  return out;
}

test('a distance is the length of the difference of the two streams, and exactly 0 before the texts part', () => {
  const stages = 2, width = 4, a = stream(stages, 3, width, 0, 0), b = stream(stages, 4, width, 0.5, 1);
  const d = distances(a, 3, b, 4, stages, 1);
  assert.equal(d.length, stages * 3);  // the positions both have
  for (let s = 0; s < stages; s++) {
    assert.equal(d[s * 3], 0);
    for (let q = 1; q < 3; q++) {
      let sum = 0;
      for (let i = 0; i < width; i++) sum += (a[(s * 3 + q) * width + i] - b[(s * 4 + q) * width + i]) ** 2;
      assert.equal(d[s * 3 + q], Math.sqrt(sum));
      assert.ok(Math.abs(d[s * 3 + q] - 0.5 * (s + 1) * 2) < 1e-6);  // 0.5 (s + 1) in each of 4 numbers
    }
  }
});

test('even a difference before the texts part is not counted: no token looks to the right', () => {
  const a = stream(1, 2, 2, 0, 0), b = stream(1, 2, 2, 1e-7, 0);  // float32 noise of a longer run
  assert.deepEqual(Array.from(distances(a, 2, b, 2, 1, 1)).map((x) => x === 0), [true, false]);
});

function pairResult() {
  const res = {ids: [5, 6, 7], names: ['_the', '_cat', '_sat']};
  res.pair = paired(res, 'the dog sat', [5, 8, 7, 9], ['_the', '_dog', '_sat', '_down'],
                    stream(3, 3, 2, 0, 0), stream(3, 4, 2, 0.25, 1), 3);
  return res;
}

test("the grid's cells run by stage, then position, naming both texts' tokens where they differ", () => {
  const res = pairResult(), rows = cellRows(res, 3, 0);
  assert.equal(rows.length, 9);
  rows.forEach((row) => assert.deepEqual(Object.keys(row), LIVE_DATASETS.cells));
  assert.deepEqual(rows.slice(0, 3).map((r) => [r.stage, r.position, r.name]),
                   [[0, 0, '1: _the'], [0, 1, '2: _cat / _dog'], [0, 2, '3: _sat']]);
  assert.equal(rows[3].distance, 0);
  assert.ok(rows[4].distance > 0 && rows[5].distance > 0);
  assert.equal(cellRows(res, 3, 1)[1].name, '1: _cat / _dog');  // after a start token, counted from 1
});

test('the sentence says up to which token the numbers are the same, and how far apart the first that differs ends', () => {
  const res = pairResult(), last = res.pair.distance[2 * 3 + 1];
  assert.equal(pairSentence(res, 3, 0),
               'Up to token 1 (_the) both texts have exactly the same numbers before and after every layer: no token ' +
               'looks to the right, so later words cannot change them. From token 2 (_cat / _dog) on they differ, ' +
               'from before any layer: the word itself is different there. After layer 2, token 2 is ' +
               Number(last.toPrecision(3)) + " apart (the length of the difference between the two texts' lists of " +
               'numbers; 0: the same).');
});

test('a text that is the other with more words after it is the same at every token both have', () => {
  const res = {ids: [5, 6], names: ['_the', '_cat']};
  res.pair = paired(res, 'the cat sat', [5, 6, 7], ['_the', '_cat', '_sat'], stream(2, 2, 2, 0, 0),
                    stream(2, 3, 2, 0, 0), 2);
  assert.deepEqual(Array.from(res.pair.distance), [0, 0, 0, 0]);
  assert.match(pairSentence(res, 2, 0), /Up to token 2 \(_cat\).*at every token both have, their numbers are the same\.$/);
});

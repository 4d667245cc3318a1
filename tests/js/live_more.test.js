// The model going on from the reader's text (templates/js/live/more.js): its likeliest next token, or one drawn by
// chance among its top 10 with a temperature and a seed that draws the same tokens again.
import assert from 'node:assert/strict';
import {test} from 'node:test';

import {TOP_K} from '../../templates/js/shared/names.js';
import {howMore, nextToken, seeded} from '../../templates/js/live/more.js';

// The top 10 of 2 stages at 3 positions, flat (stages, positions, TOP_K): at the last stage and position, ids
// 100..109 with chances halving from 0.5; elsewhere ids that must never be picked.
function tops() {
  const ids = new Array(2 * 3 * TOP_K).fill(-1), probs = new Float32Array(2 * 3 * TOP_K);
  const at = ((2 - 1) * 3 + 2) * TOP_K;
  for (let k = 0; k < TOP_K; k++) {
    ids[at + k] = 100 + k;
    probs[at + k] = 0.5 / 2 ** k;
  }
  return {ids: ids, probs: probs};
}

test('the likeliest next token is the top one after the last stage at the last position', () => {
  const {ids, probs} = tops();
  assert.equal(nextToken(ids, probs, 2, 3, 1, null), 100);
});

test('a seed gives the same numbers in [0, 1) again, and another seed others', () => {
  const a = seeded(7), b = seeded(7), c = seeded(8);
  const first = [a(), a(), a()];
  assert.deepEqual([b(), b(), b()], first);
  assert.notDeepEqual([c(), c(), c()], first);
  const many = Array.from({length: 1000}, seeded(1));
  assert.ok(many.every((x) => x >= 0 && x < 1));
});

test('drawn by chance, a token comes about as often as its weight p ** (1 / temperature) says', () => {
  const {ids, probs} = tops();
  const random = seeded(3), count = {};
  for (let i = 0; i < 20000; i++) {
    const id = nextToken(ids, probs, 2, 3, 1, random);
    count[id] = (count[id] || 0) + 1;
  }
  const total = Array.from(probs).reduce((a, b) => a + b, 0);
  assert.ok(Math.abs(count[100] / 20000 - 0.5 / total) < 0.02, JSON.stringify(count));
  assert.ok(Math.abs(count[101] / 20000 - 0.25 / total) < 0.02, JSON.stringify(count));
  assert.ok(Object.keys(count).every((id) => id >= 100 && id <= 109));
  // A low temperature makes the likeliest far likelier still.
  const cold = seeded(3);
  const tops100 = Array.from({length: 2000}, () => nextToken(ids, probs, 2, 3, 0.2, cold)).filter((id) => id === 100);
  assert.ok(tops100.length / 2000 > 0.95);
});

test('the form is refused in one sentence naming the field where a value is out of range', () => {
  assert.equal(howMore(0, 10, false, 1, 1).refused, 'The tokens to add: a whole number from 1 to 10.');
  assert.equal(howMore(2.5, 10, false, 1, 1).refused, 'The tokens to add: a whole number from 1 to 10.');
  assert.equal(howMore(7, 6, false, 1, 1).refused, 'The tokens to add: a whole number from 1 to 6.');
  assert.equal(howMore(3, 10, true, 0, 1).refused, 'The temperature: a number from 0.1 to 2.');
  assert.equal(howMore(3, 10, true, 1, -1).refused, 'The seed: a whole number, 0 or more.');
  assert.deepEqual(howMore(3, 10, false, 0, -1), {count: 3, temperature: 1, random: null});  // unused values unread
  const chance = howMore(3, 10, true, 0.5, 9);
  assert.equal(chance.temperature, 0.5);
  assert.equal(chance.random(), seeded(9)());
});

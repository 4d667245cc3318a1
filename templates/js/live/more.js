// A few words more (issue 47, point 5): the model goes on from the reader's text by a few tokens, each its own
// guess after the last stage at the last position (the read-out's TOP_K likeliest there, which the model computes anyway):
// the likeliest each time, or drawn by chance among those with a shown temperature and seed, so that the same
// seed draws the same tokens again. The text then runs as any text does, and the token row marks the model's own.
import {TOP_K} from '../shared/names.js';
import {infer} from './model.js';
import {page} from './page.js';

// Numbers in [0, 1) from a seed (mulberry32): the same seed gives the same numbers, in every browser.
export function seeded(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// The token that comes next: from the TOP_K likeliest after the last stage at the last of `n` positions (topIds
// and topProbs: (stages read out, n, TOP_K), flat), the likeliest (`random` null), else drawn with weights
// p ** (1 / temperature) by one number of `random`.
export function nextToken(topIds, topProbs, stages, n, temperature, random) {
  const at = ((stages - 1) * n + (n - 1)) * TOP_K;
  if (!random) return Number(topIds[at]);
  const weights = [];
  for (let k = 0; k < TOP_K; k++) weights.push(Math.pow(topProbs[at + k], 1 / temperature));
  let left = random() * weights.reduce((a, b) => a + b, 0);
  for (let k = 0; k < TOP_K; k++) {
    left -= weights[k];
    if (left < 0) return Number(topIds[at + k]);
  }
  return Number(topIds[at + TOP_K - 1]);
}

// What the reader asked in the form: how many tokens (1 to `most`, the box's own limit), and how ({random: null} for
// the likeliest, else the temperature and the seed's numbers); or {refused: one sentence}.
export function howMore(count, most, chance, temperature, seed) {
  if (!(count >= 1 && count <= most && Number.isInteger(count))) {
    return {refused: 'The tokens to add: a whole number from 1 to ' + most + '.'};
  }
  if (!chance) return {count: count, temperature: 1, random: null};
  if (!(temperature >= 0.1 && temperature <= 2)) return {refused: 'The temperature: a number from 0.1 to 2.'};
  if (!(seed >= 0 && Number.isInteger(seed))) return {refused: 'The seed: a whole number, 0 or more.'};
  return {count: count, temperature: temperature, random: seeded(seed)};
}

// The ids `ids` goes on to, `how.count` tokens more (fewer where the model's positions run out): one run of the
// model a token, each reading every token so far and reading out the last stage only (all a guess needs: the other
// stages' read-out is most of a run's work).
export async function goOn(ids, how, follow) {
  const out = ids.slice(), last = [page.shape.stages - 1];
  for (let i = 0; i < how.count && out.length < page.maxTokens; i++) {
    const read = await infer(out, follow, undefined, last);
    out.push(nextToken(read.topIds, read.topProbs, 1, out.length, how.temperature, how.random));
  }
  return out;
}

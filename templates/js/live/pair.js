// Two texts compared, on the compare figure's page: text A and text B asked, both read by the model, and how far
// apart their numbers are (the residual stream) at every stage and every position both texts have, as
// figsite/capture/parts/pairs.py measures it: the length of the difference of the two vectors, summed in float64;
// exactly 0 before the first token where the texts differ, since no token looks to the right (the build's own runs
// give exact zeros there too; two runs of different lengths need not in float32).
import {LIVE_DATASETS} from '../shared/names.js';
import {askedText, followedToken, startId} from './asked.js';
import {rowOf} from './datasets.js';

// How many ids the two texts share at their start.
export function sharedCount(a, b) {
  const n = Math.min(a.length, b.length);
  for (let q = 0; q < n; q++) if (a[q] !== b[q]) return q;
  return n;
}

// What the reader asks of two texts: {a, b}, each {ids, own} (asked.js's askedText), a's target the followed token
// where the target box names one, else its first token (the grid follows none; the model reads one); or {refused:
// one sentence}. They must differ, and begin with the same token (after the start token where the model reads one).
export function askedPair(textA, textB, target, maxTokens, name) {
  const a = askedText(textA, maxTokens);
  if (a.refused) return {refused: 'Text A: ' + a.refused};
  if (textB === '' || !/\S/.test(textB)) {
    return {refused: 'Type text B too: the same first words as text A, then others.'};
  }
  const b = askedText(textB, maxTokens);
  if (b.refused) return {refused: 'Text B: ' + b.refused.replace('Your text', 'it')};
  if (textA === textB) return {refused: 'The two texts are the same: change a word or more of text B.'};
  const start = startId() === null ? 0 : 1;
  if (a.ids[start] !== b.ids[start]) {
    return {refused: 'The two texts begin with different tokens (' + name(a.ids[start]) + ' and ' +
                     name(b.ids[start]) + '): let text B begin as text A does.'};
  }
  const followed = followedToken(target);
  return {a: {...a, target: followed.refused ? a.ids[start] : followed.id}, b: b};
}

// distance[stage * n + q], n = the positions both texts have; residualsA and residualsB: (stages, T, d_model), flat.
export function distances(residualsA, nA, residualsB, nB, stages, shared) {
  const n = Math.min(nA, nB), width = residualsA.length / (stages * nA), out = new Float64Array(stages * n);
  for (let s = 0; s < stages; s++) {
    for (let q = shared; q < n; q++) {
      const atA = (s * nA + q) * width, atB = (s * nB + q) * width;
      let sum = 0;
      for (let i = 0; i < width; i++) {
        const d = residualsA[atA + i] - residualsB[atB + i];
        sum += d * d;
      }
      out[s * n + q] = Math.sqrt(sum);
    }
  }
  return out;
}

// The pair a result holds: text B, its ids and names, how many tokens they share, the distances.
export function paired(res, textB, idsB, namesB, residualsA, residualsB, stages) {
  const shared = sharedCount(res.ids, idsB);
  return {text: textB, ids: idsB, names: namesB, shared: shared,
          distance: distances(residualsA, res.ids.length, residualsB, idsB.length, stages, shared)};
}

// A row's token: one where both texts have it, else both ('_tired / _wide').
function both(res, q) {
  const a = res.names[q], b = res.pair.names[q];
  return res.ids[q] === res.pair.ids[q] ? a : a + ' / ' + b;
}

// A token's number as readers count: from 1, the start token 0.
function numberOf(q, start) {
  return q + 1 - start;
}

// `cells` (LIVE_DATASETS): a row per stage and position both texts have, by stage then position.
export function cellRows(res, stages, start) {
  const n = Math.min(res.ids.length, res.pair.ids.length), rows = [];
  for (let s = 0; s < stages; s++) {
    for (let q = 0; q < n; q++) {
      const token = both(res, q);
      rows.push(rowOf(LIVE_DATASETS.cells,
                      [s, q, token, res.pair.distance[s * n + q], numberOf(q, start) + ': ' + token]));
    }
  }
  return rows;
}

// Where the two texts' numbers part, in words, from the data: the chart's description.
export function pairSentence(res, stages, start) {
  const n = Math.min(res.ids.length, res.pair.ids.length), shared = res.pair.shared, words = [];
  if (shared > start) {
    words.push('Up to token ' + numberOf(shared - 1, start) + ' (' + res.names[shared - 1] + ') both texts have ' +
               'exactly the same numbers before and after every layer: no token looks to the right, so later words ' +
               'cannot change them.');
  }
  if (shared < n) {
    const apart = res.pair.distance[(stages - 1) * n + shared], q = numberOf(shared, start);
    words.push('From token ' + q + ' (' + both(res, shared) + ') on they differ, from before any layer: the word ' +
               'itself is different there. After layer ' + (stages - 1) + ', token ' + q + ' is ' +
               Number(apart.toPrecision(3)) + ' apart (the length of the difference between the two texts\' lists ' +
               'of numbers; 0: the same).');
  } else {
    words.push('One text is the other with more words after it: at every token both have, their numbers are the same.');
  }
  return words.join(' ');
}

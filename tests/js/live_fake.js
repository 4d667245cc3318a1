// A small fake run of the live page's model (2 layers, 2 heads, 3 tokens) and a fake tokenizer, for the tests of
// the page's datasets and downloads: every number is made from where it lies, so a test can say what it expects.
import {TOP_K} from '../../templates/js/shared/names.js';

export const SHAPE = {nLayer: 2, nHead: 2, stages: 3};
export const IDS = [11, 12, 13];
export const TARGET = 21, OTHER = 22;

// Token ids' texts: 11 -> ' w11' (a word after a space), 13 -> '=x' (a formula to a spreadsheet), 22 -> 'a"b'.
const TEXTS = {11: ' w11', 12: ' w12', 13: '=x', 21: ' dog', 22: 'a"b'};
export const fakeTokens = {
  encode: (text) => Array.from(text, (c) => c.charCodeAt(0)),
  tokenText: (id) => (id in TEXTS ? TEXTS[id] : ' t' + id),
};

// shares (layers, heads, T, T): query q gives key k (k <= q) a share made of l, h, q and k.
export function share(l, h, q, k) {
  return k <= q ? (1 + 1000 * l + 100 * h + 10 * q + k) / 4096 : 0;
}

// The model's outputs as model.js's infer gives them, following the tokens `follow`.
export function fakeOutput(follow) {
  const n = IDS.length, {nLayer, nHead, stages} = SHAPE, k = follow.length;
  const shares = new Float32Array(nLayer * nHead * n * n);
  for (let l = 0; l < nLayer; l++) {
    for (let h = 0; h < nHead; h++) {
      for (let q = 0; q < n; q++) {
        for (let key = 0; key < n; key++) shares[((l * nHead + h) * n + q) * n + key] = share(l, h, q, key);
      }
    }
  }
  const topIds = new BigInt64Array(stages * n * TOP_K), topProbs = new Float32Array(stages * n * TOP_K);
  for (let i = 0; i < stages * n * TOP_K; i++) {
    topIds[i] = BigInt(100 + i);  // (stage, q, rank) -> 100 + its flat index
    topProbs[i] = 1 / (2 + i);
  }
  const followProbs = new Float32Array(stages * n * k), followRanks = new BigInt64Array(stages * n * k);
  for (let i = 0; i < stages * n * k; i++) {
    followProbs[i] = 0.5 / (1 + i);
    followRanks[i] = BigInt(1 + i);
  }
  return {shares, topIds, topProbs, followProbs, followRanks};
}

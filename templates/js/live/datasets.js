// The numbers of one text, from the model's outputs, and the charts' datasets built from them: `panels`, `top` and
// `follow`, whose fields figsite/data/live_data.py declares (LIVE_DATASETS, from shared/names.js), as the kinds'
// charts with no text in them read them (Kind.textless_chart). `shape` is the model's size:
// {nLayer, nHead, stages} (stages = nLayer + 1: after the embedding, then after each layer).
import {LIVE_DATASETS, PER_SHARE, TOP_K} from '../shared/names.js';
import {tokenName} from './tokens.js';

// A row of a dataset: its `fields` (LIVE_DATASETS', in their order) given the `values`, in the same order.
export function rowOf(fields, values) {
  const row = {};
  fields.forEach((field, i) => { row[field] = values[i]; });
  return row;
}

// The raw numbers of one text (what the downloads hold): the followed tokens' probabilities and ranks per token.
export function result(text, ids, target, follow, out, shape) {
  const n = ids.length, k = follow.length, stages = shape.stages, followed = [];
  follow.forEach((id, j) => {
    const p = new Float32Array(stages * n), rank = new Array(stages * n);
    for (let i = 0; i < stages * n; i++) {
      p[i] = out.followProbs[i * k + j];
      rank[i] = Number(out.followRanks[i * k + j]);
    }
    followed.push({id: id, p: p, rank: rank});
  });
  return {text: text, ids: ids, names: ids.map(tokenName), target: target, shares: out.shares,
          topIds: out.topIds, topProbs: out.topProbs, followed: followed};
}

export function followedOf(res, id) {
  return res.followed.filter((f) => f.id === id)[0];
}

// `panels`: each head's and each layer's average's lower triangle in units, then the average of all heads.
// shares: (layers, heads, T, T), flat.
export function panels(res, shape) {
  const n = res.ids.length, cells = n * (n + 1) / 2, rows = [], all = new Float64Array(cells), shares = res.shares;
  const {nLayer, nHead} = shape;
  for (let l = 0; l < nLayer; l++) {
    const layer = new Float64Array(cells);
    for (let h = 0; h < nHead; h++) {
      const u = new Array(cells), base = (l * nHead + h) * n * n;
      let i = 0;
      for (let q = 0; q < n; q++) {
        for (let key = 0; key <= q; key++, i++) {
          const s = shares[base + q * n + key];
          u[i] = Math.round(s * PER_SHARE);
          layer[i] += s;
        }
      }
      rows.push(rowOf(LIVE_DATASETS.panels, [l, h, u]));
    }
    rows.push(rowOf(LIVE_DATASETS.panels, [l, nHead, Array.from(layer, (s) => Math.round(s / nHead * PER_SHARE))]));
    for (let c = 0; c < cells; c++) all[c] += layer[c];
  }
  rows.push(rowOf(LIVE_DATASETS.panels,
                  [nLayer, nHead, Array.from(all, (s) => Math.round(s / (nLayer * nHead) * PER_SHARE))]));
  return rows;
}

// `top`: by stage, then position, then rank. top_ids, top_probs: (stages, T, TOP_K), flat.
export function topRows(res, shape) {
  const n = res.ids.length, rows = [];
  for (let stage = 0; stage < shape.stages; stage++) {
    for (let q = 0; q < n; q++) {
      for (let r = 0; r < TOP_K; r++) {
        const at = (stage * n + q) * TOP_K + r, id = Number(res.topIds[at]);
        rows.push(rowOf(LIVE_DATASETS.top, [stage, q, r + 1, tokenName(id), id, res.topProbs[at]]));
      }
    }
  }
  return rows;
}

// `follow` of one followed token: by stage, then position.
export function followRows(res, id, shape) {
  const n = res.ids.length, f = followedOf(res, id), rows = [];
  for (let stage = 0; stage < shape.stages; stage++) {
    for (let q = 0; q < n; q++) {
      rows.push(rowOf(LIVE_DATASETS.follow, [stage, q, f.p[stage * n + q], f.rank[stage * n + q]]));
    }
  }
  return rows;
}

// The top tokens' ids at one stage and position (from 0), most likely first.
export function topIdsAt(res, stage, q) {
  const n = res.ids.length, ids = [];
  for (let r = 0; r < TOP_K; r++) ids.push(Number(res.topIds[(stage * n + q) * TOP_K + r]));
  return ids;
}

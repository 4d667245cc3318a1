// The numbers of one text, from the model's outputs, and the charts' datasets built from them: figures/live.py's
// `panels`, `top` and `follow` (its module docstring is the contract). `shape` is the model's size:
// {nLayer, nHead, stages} (stages = nLayer + 1: after the embedding, then after each layer).
import {PER_SHARE, TOP_K} from './constants.js';
import {tokenName} from './tokens.js';

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
      rows.push({l: l, h: h, u: u});
    }
    rows.push({l: l, h: nHead, u: Array.from(layer, (s) => Math.round(s / nHead * PER_SHARE))});
    for (let c = 0; c < cells; c++) all[c] += layer[c];
  }
  rows.push({l: nLayer, h: nHead, u: Array.from(all, (s) => Math.round(s / (nLayer * nHead) * PER_SHARE))});
  return rows;
}

// `top`: by stage, then position, then rank. top_ids, top_probs: (stages, T, TOP_K), flat.
export function topRows(res, shape) {
  const n = res.ids.length, rows = [];
  for (let stage = 0; stage < shape.stages; stage++) {
    for (let q = 0; q < n; q++) {
      for (let r = 0; r < TOP_K; r++) {
        const at = (stage * n + q) * TOP_K + r, id = Number(res.topIds[at]);
        rows.push({stage: stage, q: q, rank: r + 1, token: tokenName(id), id: id, p: res.topProbs[at]});
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
      rows.push({stage: stage, q: q, p: f.p[stage * n + q], rank: f.rank[stage * n + q]});
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

// The downloads of the text drawn last: its raw numbers as JSON, and five CSV tables (every share, the TOP_K
// most likely next tokens at every stage and position, the followed tokens; two compared texts' distances; the
// knockout's runs), their columns as
// figsite/data/live_data.py declares them (LIVE_TABLES). `shape` is the model's size ({nLayer, nHead, stages}).
import {LIVE_TABLES, TOP_K} from '../shared/names.js';
import {f32, tokenName, tokenText} from './tokens.js';

// A CSV cell: text quoted, and a text a spreadsheet would take for a formula led by "'".
export function csvCell(value) {
  let text = String(value);
  if (/^[=+\-@\t\r]/.test(text) && typeof value === 'string') text = "'" + text;
  return /[",\r\n]/.test(text) || typeof value === 'string' ? '"' + text.replace(/"/g, '""') + '"' : text;
}

// The table: its header line as given, then a line per row; each line ends in CRLF.
export function csv(header, rows) {
  const lines = [header];
  rows.forEach((row) => { lines.push(row.map(csvCell).join(',')); });
  return lines.join('\r\n') + '\r\n';
}

// attention[layer][head][query][key], keys 0 to the query.
function attentionOf(res, shape) {
  const n = res.ids.length, attention = [];
  for (let l = 0; l < shape.nLayer; l++) {
    const heads = [];
    for (let h = 0; h < shape.nHead; h++) {
      const rows = [], base = (l * shape.nHead + h) * n * n;
      for (let q = 0; q < n; q++) {
        const row = [];
        for (let k = 0; k <= q; k++) row.push(f32(res.shares[base + q * n + k]));
        rows.push(row);
      }
      heads.push(rows);
    }
    attention.push(heads);
  }
  return attention;
}

// top[stage][position]: [{id, text, p}], most likely first.
function topOf(res, shape) {
  const n = res.ids.length, top = [];
  for (let stage = 0; stage < shape.stages; stage++) {
    const positions = [];
    for (let p = 0; p < n; p++) {
      const cell = [];
      for (let r = 0; r < TOP_K; r++) {
        const at = (stage * n + p) * TOP_K + r, id = Number(res.topIds[at]);
        cell.push({id: id, text: tokenText(id), p: f32(res.topProbs[at])});
      }
      positions.push(cell);
    }
    top.push(positions);
  }
  return top;
}

// Each followed token: its p and rank [stage][position], and the figures that follow it (the read-out, the lens).
function followedOf(res, shape, lens) {
  const n = res.ids.length;
  return res.followed.map((f) => {
    const p = [], rank = [];
    for (let s = 0; s < shape.stages; s++) {
      p.push(Array.from(f.p.subarray(s * n, (s + 1) * n), f32));
      rank.push(f.rank.slice(s * n, (s + 1) * n));
    }
    const figures = [];
    if (f.id === res.target) figures.push('readout');
    if (f.id === lens) figures.push('lens');
    return {id: f.id, text: tokenText(f.id), figures: figures, p: p, rank: rank};
  });
}

// The raw numbers as JSON: layers, heads, stages and positions from 0 (as the build's data files). lens: the token
// the lens follows; graphSha256: the model's graph's.
export function asJson(res, shape, lens, graphSha256) {
  return JSON.stringify({
    format: 'gpt2-live/1',
    about: 'The model run in the page on this text (graph_sha256 names it). Layers, heads, stages and positions ' +
           'count from 0; stage 0 is after the embedding, stage s after layer s. attention[layer][head][query][key]: ' +
           'the share of attention the query gives the key (keys 0 to the query). top[stage][position]: the ' + TOP_K +
           ' most likely next tokens. ' +
           'followed: tokens whose probability and rank (1 = most likely) are given at every stage and position.',
    model: {n_layer: shape.nLayer, n_head: shape.nHead, graph_sha256: graphSha256},
    text: res.text,
    tokens: res.ids.map((id) => ({id: id, text: tokenText(id)})),
    attention: attentionOf(res, shape), top: topOf(res, shape), followed: followedOf(res, shape, lens),
    ...(res.pair ? {compared: comparedOf(res, shape)} : {}),
    ...(res.knockout ? {knockout: knockoutOf(res, res.knockout)} : {}),
    ...(res.patching ? {patching: patchingOf(res, res.patching)} : {})});
}

// The patching's runs (patching.js) as the build's data/parts.json holds them: the changed text, the read position,
// the two tokens, the two texts' {diff, p}, and each grid's {diff: rows, p: rows}, layers, positions and heads from 0.
function patchingOf(res, found) {
  const grids = {};
  found.rows.forEach((r) => {
    const grid = grids[r.piece] = grids[r.piece] || {diff: [], p: []};
    if (!grid.diff[r.row]) {
      grid.diff[r.row] = [];
      grid.p[r.row] = [];
    }
    grid.diff[r.row][r.col] = f32(r.diff);
    grid.p[r.row][r.col] = f32(r.p);
  });
  const named = (id) => ({id: id, text: tokenText(id)});
  return {changed_text: res.pair.text, changed_tokens: res.pair.ids.map(named), position: res.ids.length - 1,
          target: named(found.target), versus: named(found.versus),
          clean: {diff: f32(found.original.diff), p: f32(found.original.p)},
          corrupted: {diff: f32(found.changed.diff), p: f32(found.changed.p)}, grids: grids};
}

// The patching's runs as the book's figure's table (figures.patching.Patching.tables): a row per run, layers,
// positions and heads from 1 (the stream's runs by how many layers came before), how much came back.
export function patchingsCsv(found, start) {
  const span = found.original.diff - found.changed.diff, rows = found.rows.map((r) => {
    const stream = r.piece === 'resid_pre', head = r.piece === 'z';
    return [r.piece, stream ? r.row : '', stream ? '' : r.row + 1, head ? '' : r.col + 1 - start, head ? r.col + 1 : '',
            f32(r.diff), (r.diff - found.changed.diff) / span, f32(r.p)];
  });
  return csv(LIVE_TABLES.put_back.join(','), rows);
}

// The knockout's runs (knockout.js): layers and heads from 0, as the build's data/parts.json.
function knockoutOf(res, found) {
  return {position: res.ids.length - 1, target: {id: res.target, text: tokenText(res.target)},
          intact: {p: f32(found.intact.p), rank: found.intact.rank},
          runs: found.runs.map((r) => ({part: r.group, layer: r.layer - 1, head: r.group === 'head' ? r.x - 1 : null,
                                        p: f32(r.p), rank: r.rank}))};
}

// The knockout's runs as the book's figure's table (figures.knockout.Knockout.tables): the intact model, then each
// part taken out, layers and heads from 1.
export function knockoutsCsv(found) {
  const rows = [['nothing', '', '', f32(found.intact.p), found.intact.rank]];
  found.runs.forEach((r) => { rows.push([r.group, r.layer, r.group === 'head' ? r.x : '', f32(r.p), r.rank]); });
  return csv(LIVE_TABLES.taken_out.join(','), rows);
}

// Two texts compared: text B, its tokens, how many tokens the texts share at their start, and distance[stage][position]
// (the length of the difference of their residual streams, for the positions both have).
function comparedOf(res, shape) {
  const pair = res.pair, n = Math.min(res.ids.length, pair.ids.length), distance = [];
  for (let s = 0; s < shape.stages; s++) distance.push(Array.from(pair.distance.subarray(s * n, (s + 1) * n)));
  return {text: pair.text, tokens: pair.ids.map((id) => ({id: id, text: tokenText(id)})), shared: pair.shared,
          distance: distance};
}

// Two texts compared: a row per stage and position both texts have.
export function distancesCsv(res, stages) {
  const pair = res.pair, n = Math.min(res.ids.length, pair.ids.length), rows = [];
  for (let stage = 0; stage < stages; stage++) {
    for (let q = 0; q < n; q++) rows.push([stage, q + 1, res.names[q], pair.names[q], pair.distance[stage * n + q]]);
  }
  return csv(LIVE_TABLES.distances.join(','), rows);
}

export function sharesCsv(res, shape) {
  const n = res.ids.length, rows = [];
  for (let l = 0; l < shape.nLayer; l++) {
    for (let h = 0; h < shape.nHead; h++) {
      const base = (l * shape.nHead + h) * n * n;
      for (let q = 0; q < n; q++) {
        for (let k = 0; k <= q; k++) {
          rows.push([l + 1, h + 1, q + 1, res.names[q], k + 1, res.names[k], f32(res.shares[base + q * n + k])]);
        }
      }
    }
  }
  return csv(LIVE_TABLES.shares.join(','), rows);
}

export function topCsv(res, shape) {
  const n = res.ids.length, rows = [];
  for (let stage = 0; stage < shape.stages; stage++) {
    for (let q = 0; q < n; q++) {
      for (let r = 0; r < TOP_K; r++) {
        const at = (stage * n + q) * TOP_K + r, id = Number(res.topIds[at]);
        rows.push([stage, q + 1, res.names[q], r + 1, id, tokenName(id), f32(res.topProbs[at])]);
      }
    }
  }
  return csv(LIVE_TABLES.top.join(','), rows);
}

export function followedCsv(res, shape) {
  const n = res.ids.length, rows = [];
  res.followed.forEach((f) => {
    for (let stage = 0; stage < shape.stages; stage++) {
      for (let q = 0; q < n; q++) {
        rows.push([f.id, tokenName(f.id), stage, q + 1, res.names[q], f32(f.p[stage * n + q]), f.rank[stage * n + q]]);
      }
    }
  });
  return csv(LIVE_TABLES.followed.join(','), rows);
}

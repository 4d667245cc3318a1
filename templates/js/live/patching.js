// The patching figure for the reader's two texts: the model reads the changed text (text B) with one piece of the
// original text's run (text A's) put back, through the graph's patch_ inputs (model.js unpatched), and each run's
// score difference, score(target) - score(versus) after the last layer at the last token, and the target's chance
// there fill the chart's grids (figures/patching_textless.py), as the build's activation patching does
// (figsite/capture/parts/patchings.py): the runs it makes are the runs made here, and those it takes as the changed
// text's own (the pieces before the first token where the texts differ, which are the same in both runs, and those
// that cannot reach the last token), are taken so here too.
import {LIVE_DATASETS, LIVE_PATCHED, NEAR, PATCH_CHOICE, PATCH_OPENING, PIECE_KEYS} from '../shared/names.js';
import {askedText, followedToken, startOf} from './asked.js';
import {rowOf} from './datasets.js';
import {unpatched, whole} from './model.js';

const PIECES = Object.keys(PIECE_KEYS);  // the grids, in the chart's order: stream, attention, feed-forward, heads

// What the reader asks of two texts: {a, b} (asked.js askedText's) and the target and versus ids, or {refused: one
// sentence}. As the build's figure asks (figures/patching.py check): texts of as many tokens, not the same; target
// and versus one token each, not the same.
export function askedPatching(texts, target, versus, maxTokens, name) {
  const a = askedText(texts[0], maxTokens);
  if (a.refused) return {refused: 'The original text: ' + a.refused.replace('Your text', 'it')};
  if (!/\S/.test(texts[1])) return {refused: 'Type the changed text too: the original with a word or so changed.'};
  const b = askedText(texts[1], maxTokens);
  if (b.refused) return {refused: 'The changed text: ' + b.refused.replace('Your text', 'it')};
  if (texts[0] === texts[1]) return {refused: 'The two texts are the same: change a word of the original.'};
  if (a.own !== b.own) {
    return {refused: 'The two texts must be as many tokens long, and the original is ' + a.own + ', the changed ' +
                     'text ' + b.own + ' (' + b.ids.slice(startOf(b.ids)).map(name).join(' ') + '): change a word ' +
                     'for one of as many tokens.'};
  }
  const t = followedToken(target), v = followedToken(versus);
  if (t.refused) return {refused: 'The answer to measure: ' + t.refused};
  if (v.refused) return {refused: 'The token it is measured against: ' + v.refused};
  if (t.id === v.id) return {refused: 'The answer and the token it is measured against are the same token.'};
  return {a: a, b: b, target: t.id, versus: v.id};
}

// The run's {diff, p} at the last position of the last stage read out (follow: [target, versus]).
export function answerOf(out) {
  const at = out.followScores.length / 2 - 1;  // the last stage read, the last position
  return {diff: out.followScores[2 * at] - out.followScores[2 * at + 1], p: out.followProbs[2 * at]};
}

// A run's activations as the patches read them: {resid_pre (stages, T, d), attn_out, mlp_out (layers, T, d), z
// (layers, T, heads, d_head)}, flat.
export function activations(out) {
  return {resid_pre: out.residuals, attn_out: out.attentionOutputs, mlp_out: out.feedForwardOutputs,
          z: out.mixedValues};
}

function same(a, b, from, length) {
  for (let i = from; i < from + length; i++) if (a[i] !== b[i]) return false;
  return true;
}

// Whether a piece put back at position q can change the scores at `position`: not after it, and a last layer's
// outputs only at it (no attention after them carries them on). patchings.py's _reaches.
function reaches(piece, layer, q, position, nLayer) {
  return q <= position && (q === position || piece === 'resid_pre' || layer < nLayer - 1);
}

// The runs to make, [{piece, row, col}], layer by layer (patchings.py _plan): each reaching piece whose original
// activation is not the changed text's.
export function planned(clean, corrupted, shape, n, position) {
  const runs = [], d = shape.dModel, dh = shape.dHead, h = shape.nHead;
  for (let layer = 0; layer < shape.nLayer; layer++) {
    PIECES.slice(0, 3).forEach((piece) => {
      for (let q = 0; q < n; q++) {
        if (reaches(piece, layer, q, position, shape.nLayer) &&
            !same(clean[piece], corrupted[piece], (layer * n + q) * d, d)) runs.push({piece: piece, row: layer, col: q});
      }
    });
    for (let head = 0; head < h; head++) {
      let differs = false;
      for (let q = 0; q < n && !differs; q++) {
        differs = !same(clean.z, corrupted.z, ((layer * n + q) * h + head) * dh, dh);
      }
      if (differs) runs.push({piece: 'z', row: layer, col: head});
    }
  }
  return runs;
}

// The patch_ inputs of one run: the original text's activations, a 1 in the mask of its piece.
function patchOf(run, clean, shape, n) {
  const patched = unpatched(shape, n), at = run.piece === 'z' ? run.row * shape.nHead + run.col : run.row * n + run.col;
  Object.assign(patched, {residual: clean.resid_pre, attention: clean.attn_out, feedForward: clean.mlp_out,
                          heads: clean.z});
  const masks = {resid_pre: 'residualAt', attn_out: 'attentionAt', mlp_out: 'feedForwardAt', z: 'headsAt'};
  patched[masks[run.piece]][at] = 1;
  return patched;
}

// The grids' sizes: rows (layers; the stream a stage more) and columns (positions; heads).
function sizes(shape, n) {
  return {resid_pre: [shape.stages, n], attn_out: [shape.nLayer, n], mlp_out: [shape.nLayer, n],
          z: [shape.nLayer, shape.nHead]};
}

// A run's key as the book's chart names it (figures/patching_chart.py cell_key), from 1 as readers count.
export function keyOf(piece, row, col) {
  return PIECE_KEYS[piece] + '-' + (piece === 'resid_pre' ? row : row + 1) + '-' + (col + 1);
}

// Every run's row of `patched` (LIVE_DATASETS), in the order of the chart's grids: the changed text's own numbers
// where no run was made, the original's for the stream after the last layer at the read position.
export function patchedRows(found, shape, n, position) {
  const rows = [], made = {};
  found.made.forEach((m) => { made[keyOf(m.piece, m.row, m.col)] = m.answer; });
  PIECES.forEach((piece) => {
    const [height, width] = sizes(shape, n)[piece];
    for (let row = 0; row < height; row++) {
      for (let col = 0; col < width; col++) {
        const key = keyOf(piece, row, col), last = piece === 'resid_pre' && row === shape.nLayer && col === position;
        const answer = made[key] || (last ? found.original : found.changed);
        rows.push(rowOf(LIVE_DATASETS.patched, [key, piece, row, col, answer.diff, answer.p]));
      }
    }
  });
  return rows;
}

// Every run: `infer(ids, follow, kept, stages, patched)` the model's, `outs` the two texts' own runs (every stage),
// `told(i, total)` before each run, `stale()` true where newer texts came (then null). {original, changed, made:
// [{piece, row, col, answer}], rows}; {near: true, ...} where the two texts answer alike (NEAR), with no runs made.
export async function patchings(infer, ask, outs, shape, told, stale) {
  const n = ask.a.ids.length, position = n - 1, follow = [ask.target, ask.versus];
  const found = {target: ask.target, versus: ask.versus, original: answerOf(outs[0]), changed: answerOf(outs[1]),
                 made: []};
  if (Math.abs(found.original.diff - found.changed.diff) < NEAR) return {...found, near: true};
  const clean = activations(outs[0]), runs = planned(clean, activations(outs[1]), shape, n, position);
  for (let i = 0; i < runs.length; i++) {
    told(i, runs.length);
    const out = await infer(ask.b.ids, follow, whole(shape), [shape.stages - 1], patchOf(runs[i], clean, shape, n));
    if (stale()) return null;
    found.made.push({...runs[i], answer: answerOf(out)});
  }
  return {...found, rows: patchedRows(found, shape, n, position)};
}

// The chart drawn: its "Put back" menu's labels the runs' names it worked out (the dataset of `patched` that holds
// them), and where the reader chose no run (`kept` false), the run it opens on, the stream's strongest, chosen.
export function drawnPatching(el, view, spec, kept) {
  const named = spec.data.filter((d) => d.source === LIVE_PATCHED && (d.transform || []).some((t) => t.as === 'name'))[0];
  const menu = el.querySelector('select[name="' + PATCH_CHOICE + '"]');
  if (named && menu) {
    const names = {};
    view.data(named.name).forEach((row) => { names[row.key] = row.name; });
    Array.prototype.forEach.call(menu.options, (option) => {
      if (option.value in names) option.textContent = names[option.value];
    });
  }
  const opening = view.signal(PATCH_OPENING);
  if (!kept && opening) view.signal(PATCH_CHOICE, opening.key);
}

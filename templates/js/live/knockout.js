// The knockout figure for the reader's text: the model run once without each part the chart lists (its `runs` rows,
// figures/knockout_textless.py: each layer's attention, each layer's feed-forward step, each head of one layer),
// that part's output set to zero at every position through the graph's keep_ inputs, as the build's knockouts do
// (figsite/capture/parts/knockouts.py); each run reads the followed token at the last position after the last layer
// only (read_stages: the last stage), which spares most of a run's work. The intact model is the text's own run.
import {LIVE_DATASETS} from '../shared/names.js';
import {rowOf} from './datasets.js';
import {whole} from './model.js';

// The rows the chart lists (the compiled spec's `runs` data), in its order.
export function listedParts(spec) {
  const data = spec.data.filter((d) => d.name === 'runs')[0];
  return data ? data.values : [];
}

// The parts kept for one row: the whole model with that row's part taken out (its output multiplied by 0).
export function keptWithout(row, shape) {
  const kept = whole(shape);
  if (row.group === 'head') kept.heads[(row.layer - 1) * shape.nHead + row.x - 1] = 0;
  else if (row.group === 'feed-forward') kept.feedForward[row.layer - 1] = 0;
  else kept.attention[row.layer - 1] = 0;  // a layer's whole attention
  return kept;
}

// The followed token's {p, rank} at the last of `n` positions from a run read out at one stage (follow: [target]).
function lastOf(out, n) {
  return {p: out.followProbs[n - 1], rank: Number(out.followRanks[n - 1])};
}

// The intact model's {p, rank} at the last position after the last layer, from the text's own run (every stage).
export function intactOf(res, stages) {
  const n = res.ids.length, followed = res.followed.filter((f) => f.id === res.target)[0];
  return {p: followed.p[(stages - 1) * n + n - 1], rank: followed.rank[(stages - 1) * n + n - 1]};
}

// Every run: `infer(ids, follow, kept, stages)` the model's (model.js), `rows` the chart's parts, `told(i, total)`
// before each run, `stale()` true where a newer text came (then null). {intact, runs: [row with p, rank, dp, dr]}.
export async function knockouts(infer, res, rows, shape, told, stale) {
  const intact = intactOf(res, shape.stages), runs = [], n = res.ids.length;
  for (let i = 0; i < rows.length; i++) {
    told(i, rows.length);
    const out = await infer(res.ids, [res.target], keptWithout(rows[i], shape), [shape.stages - 1]);
    if (stale()) return null;
    const got = lastOf(out, n);
    runs.push(rowOf(LIVE_DATASETS.runs, LIVE_DATASETS.runs.map((field) => (
      field === 'p' ? got.p : field === 'rank' ? got.rank : field === 'dp' ? got.p - intact.p :
      field === 'dr' ? intact.rank - got.rank : rows[i][field]))));
  }
  return {intact: intact, runs: runs};
}

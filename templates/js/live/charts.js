// The figure's chart drawn for a text, with vega-embed: (l) and every head from `panels`, (i) and the lens from `top`
// and `follow`. Its token (the TOKEN param of (l) and every head, the lens's POSITION) is chosen in the chart or in
// the row of tokens above it (row.js), and the address keeps it (&token=N); where a page draws several such charts,
// a token chosen in one is chosen in all. The reader's text is only ever text here: Vega's text marks, never HTML.
import {allowed} from '../shared/address.js';
import {describe, draw as embed, tokenParam} from '../shared/charts.js';
import {CLICKS_META, DESCRIPTION, KEY_WORDS, LIVE_PANELS, LIVE_PATCHED, OWN_FROM, PATCH_CHOICE, TOKEN_PARAMS} from
  '../shared/names.js';
import {chosenInView, scrollBox} from '../shared/scroll.js';
import {writeAddress} from './address.js';
import {startOf} from './asked.js';
import {followRows, panels, topRows} from './datasets.js';
import {followToken, lensToken, offerFollows} from './lens.js';
import {descriptionOf, page} from './page.js';
import {cellRows, pairSentence} from './pair.js';
import {drawnPatching} from './patching.js';
import {markToken} from './row.js';
import {specFor, topMarks, wantsNarrow} from './specs.js';
import {state} from './state.js';
import {tokenName} from './tokens.js';

// A token chosen in one chart is chosen in the others (as figures.js does on a text page); a chart being drawn
// takes it when it is. A chart that has it already is left alone, so the charts' listeners never loop.
export function linkToken(source, value) {
  if (!page.live.result) return;
  state.chosenToken = value;
  markToken(value);
  page.charts.forEach((el) => {
    if (el === source) return;
    const param = tokenParam(el);
    if (!param) return;
    if (!el.vegaView) {
      el.pendingToken = value;
      return;
    }
    const allowedValue = allowed(param.bind, value);
    if (allowedValue !== undefined && el.vegaView.signal(param.name) !== allowedValue) {
      el.vegaView.signal(param.name, allowedValue).runAsync();
    }
  });
  if (state.addressed) writeAddress(state.addressed.text, state.addressed.target);
}

// The reader's choices in a drawn chart (its bound signals), to carry over to its next drawing.
function choices(el) {
  const out = {};
  if (!el.vegaView) return out;
  (el.boundParams || []).forEach((signal) => {
    try {
      out[signal.name] = el.vegaView.signal(signal.name);
    } catch { /* gone */ }
  });
  return out;
}

// A click on a mark chooses what its datum carries (usermeta's clicks); a click on one of the lens's most likely
// tokens that chooses nothing follows that token.
function followClicks(el, view, bound, tops) {
  const picks = el.picks;
  view.addEventListener('click', (event, item) => {
    const datum = item && item.datum;
    let moved = false;
    if (!datum) return;
    picks.forEach((pick) => {
      const signal = bound.filter((s) => s.name === pick.param)[0];
      if (!signal || datum[pick.field] === undefined || datum[pick.field] === null) return;
      const value = allowed(signal.bind, datum[pick.field]);
      if (value !== undefined && view.signal(signal.name) !== value) {
        view.signal(signal.name, value);
        moved = true;
      }
    });
    if (moved) view.runAsync();
    else if (item.mark && tops.indexOf(item.mark.name) >= 0 && typeof datum.id === 'number' && datum.id >= 0) {
      followToken(datum.id);
    }
  });
}

// Each choice: the token linked across the charts, the description and the lens's select said again, the chosen
// column brought into view.
function followChoices(el, view, bound, key) {
  bound.forEach((signal) => {
    const isToken = TOKEN_PARAMS.indexOf(signal.name) >= 0;
    view.addSignalListener(signal.name, (name, value) => {
      if (el.vegaView !== view) return;  // drawn again since
      if (isToken) linkToken(el, value);
      view.runAfter(() => {
        describe(descriptionOf(el), view);
        if (key === 'lens') offerFollows();
        if (isToken) chosenInView(el);
      });
    });
  });
}

// The key above the chart, where the chart writes its own (KEY_WORDS: one that names the token it follows).
function keyOf(el) {
  const id = el.getAttribute('data-key');
  return id ? document.getElementById(id) : null;
}

// The drawn view made the chart's: clicks and choices followed, the token chosen elsewhere taken.
function embedded(el, view, spec, bound, tops) {
  const key = el.getAttribute('data-live-chart');
  el.picks = (spec.usermeta && spec.usermeta[CLICKS_META]) || [];
  followClicks(el, view, bound, tops);
  followChoices(el, view, bound, key);
  describe(descriptionOf(el), view);
  describe(keyOf(el), view, KEY_WORDS);
  scrollBox(el);
  // It opens with its token's column in view, as the book's figure does (as after any choice).
  if (tokenParam(el)) chosenInView(el);
  const pending = el.pendingToken, param = tokenParam(el);  // chosen in another chart while this one was drawn
  el.pendingToken = undefined;
  if (pending !== undefined && param) {
    const value = allowed(param.bind, pending);
    if (value !== undefined && view.signal(param.name) !== value) view.signal(param.name, value);
  }
  if (param) markToken(view.signal(param.name));  // the row shows the token the chart opens on
  if (key === 'patching') drawnPatching(el, view, spec, el.keptChoice);
  el.setAttribute('data-rendered', 'true');
  return view.runAsync();
}

// Draws the chart anew for `given` (givenFor), keeping the reader's choices in it where they still hold.
export function draw(el, given) {
  const kept = choices(el);
  if (el.vegaView) el.vegaView.finalize();
  el.vegaView = null;
  el.removeAttribute('data-rendered');
  el.hidden = false;
  const placeholder = el.parentNode.querySelector('.chart-placeholder');
  if (placeholder) placeholder.hidden = true;
  const spec = specFor(el, given, kept);
  const bound = spec.signals.filter((s) => s.bind);
  el.boundParams = bound;
  el.given = given;
  const key = el.getAttribute('data-live-chart');
  const tops = el.topMarks = key === 'lens' ? topMarks(spec) : [];
  return embed(el, spec, {renderer: 'svg', fileName: 'gpt2-live-' + key},
               (view) => embedded(el, view, spec, bound, tops));
}

// Whether the chart's spec reads `panels` ((l) and every head do; (i) and the lens read `top` and `follow`).
function readsPanels(key) {
  return page.config.charts[key][0].data.some((d) => d.name === LIVE_PANELS);
}

// What each chart is given for a result: its datasets and the params' texts (`params`: {name: value} of the params
// it sets besides, such as the compare grid's description).
function givenFor(res, key, sameText) {
  const followed = key === 'lens' ? lensToken(res) : res.target;
  const datasets = {}, params = {[OWN_FROM]: res.ownFrom === undefined ? res.ids.length : res.ownFrom};
  const selects = {};
  if (key === 'patching') {
    datasets[LIVE_PATCHED] = res.patching.rows;
    selects[PATCH_CHOICE] = res.patching.rows.map((row) => row.key);
    Object.assign(params, {names_b: res.pair.names, versus_name: tokenName(res.patching.versus), start: startOf(res.ids),
                           original_p: res.patching.original.p, original_diff: res.patching.original.diff,
                           changed_p: res.patching.changed.p, changed_diff: res.patching.changed.diff});
  } else if (res.pair) {
    const start = startOf(res.ids);
    datasets.cells = cellRows(res, page.shape.stages, start);
    params[DESCRIPTION] = pairSentence(res, page.shape.stages, start);
  } else if (key === 'knockout') {
    datasets.runs = res.knockout.runs;
    Object.assign(params, {intact_p: res.knockout.intact.p, intact_rank: res.knockout.intact.rank});
  } else if (readsPanels(key)) datasets.panels = res.panelRows || (res.panelRows = panels(res, page.shape));
  else {
    datasets.top = res.topRowsCache || (res.topRowsCache = topRows(res, page.shape));
    datasets.follow = followRows(res, followed, page.shape);
  }
  return {datasets: datasets, params: params, selects: selects, names: res.names, followName: tokenName(followed),
          followed: followed, sameText: sameText};
}

// Draws every chart for the result; window.liveFigures.drawn keeps what each was given.
export function drawAll(res, sameText) {
  const drawn = {};
  const all = page.charts.map((el) => {
    const key = el.getAttribute('data-live-chart'), given = givenFor(res, key, sameText);
    drawn[key] = {datasets: given.datasets, names: given.names, follow_name: given.followName,
                  followed: given.followed};
    return draw(el, given);
  });
  page.live.drawn = drawn;
  return Promise.all(all);
}

// The charts drawn again for the text drawn (the reader's colours changed), or only those whose column crossed
// NARROW_PX (onlyNarrowChanges: a resize); a drawing that comes to fit, or no longer fits, its column is told.
export function redrawAll(onlyNarrowChanges) {
  if (!page.live.result) return;
  page.charts.forEach((el) => {
    if (!el.vegaView || !el.given) return;
    if (onlyNarrowChanges && wantsNarrow(el) === el.drawnNarrow) {
      if (el.getAttribute('data-rendered') === 'true') scrollBox(el);
      return;
    }
    el.given.sameText = true;
    draw(el, el.given).then(() => {
      if (el.getAttribute('data-live-chart') === 'lens') offerFollows();
    });
  });
}

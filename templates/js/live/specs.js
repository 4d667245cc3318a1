// A chart's spec for a text: a copy of the build's compiled Vega spec, in the reader's colours, its datasets and
// params filled in (figsite/data/live_data.py, figures/toolkit/textless.py), each input kept at the reader's choice
// where the new text allows it.
import {allowed} from '../shared/address.js';
import {changed, wantsNarrow as narrowWanted} from '../shared/charts.js';
import {FOLLOW_NAME, HEAD_PICTURES, LIVE_TOP, NAMES, PICK, PICTURE_PALETTE, TOKEN_PARAMS, TOKEN_SELECTS} from
  '../shared/names.js';
import {page} from './page.js';
import {canvasUrl, headPictures} from './pictures.js';

function copy(value) {
  return window.structuredClone ? structuredClone(value) : JSON.parse(JSON.stringify(value));
}

// The names of the marks that draw the chosen cell's most likely tokens in the lens: those whose data come from
// `top` with no transform that a click reads (the table's cells carry pick_ fields). Each is given a pointer.
export function topMarks(spec) {
  const byName = {};
  spec.data.forEach((d) => { byName[d.name] = d; });
  function fromTop(name) {
    for (let d = byName[name]; d; d = byName[d.source]) {
      if ((d.transform || []).some((t) => String(t.as).indexOf(PICK) === 0)) return false;
      if (d.name === LIVE_TOP) return true;
    }
    return false;
  }
  const found = [];
  (function walk(marks) {
    (marks || []).forEach((mark) => {
      if (mark.type !== 'group' && mark.from && mark.from.data && fromTop(mark.from.data) && mark.name) {
        found.push(mark.name);
        mark.encode = mark.encode || {};
        mark.encode.update = mark.encode.update || {};
        mark.encode.update.cursor = {value: 'pointer'};
      }
      walk(mark.marks);
    });
  })(spec.marks);
  return found;
}

// Whether the chart draws its narrow spec: the build gave it one, and its column is narrow.
export function wantsNarrow(el) {
  return narrowWanted(el, ('narrow-' + el.getAttribute('data-live-chart')) in page.config.charts);
}

// A select of the text's tokens, given its options; at the token chosen in the other charts or by the address (a
// token param's), else the reader's choice in this chart, else the spec's opening token.
function tokenSelect(signal, el, given, kept) {
  const linked = TOKEN_PARAMS.indexOf(signal.name) >= 0;
  const n = given.names.length, options = [], labels = [];
  for (let i = 1; i <= n; i++) {
    options.push(i);
    labels.push(i + ': ' + given.names[i - 1]);
  }
  signal.bind.options = options;
  signal.bind.labels = labels;
  const keptValue = linked && el.pendingToken !== undefined ? el.pendingToken :
                    given.sameText && kept ? kept[signal.name] : undefined;
  signal.value = keptValue !== undefined && keptValue >= 1 && keptValue <= n ? keptValue : Math.min(signal.value, n);
}

// A select of the values `given.selects` lists for it (the patching's runs), its labels those values until the chart
// names them (patching.js drawnPatching); at the reader's choice in its last drawing where it is among them
// (el.keptChoice then true), else at the first.
function listSelect(signal, el, given, kept) {
  const options = given.selects[signal.name];
  signal.bind.options = options.slice();
  signal.bind.labels = options.slice();
  const keptValue = given.sameText && kept ? allowed(signal.bind, kept[signal.name]) : undefined;
  el.keptChoice = keptValue !== undefined;
  signal.value = el.keptChoice ? keptValue : options[0];
}

// Every head's picture (pictures.js) where the chart shows them (its HEAD_PICTURES), in its palette's colours: the
// dark page's where the spec is the dark one.
function drawPictures(spec, given) {
  const pictures = spec.signals.filter((s) => s.name === HEAD_PICTURES)[0];
  const palette = spec.signals.filter((s) => s.name === PICTURE_PALETTE)[0];
  if (!pictures || !palette || !given.datasets.panels) return;
  pictures.value = headPictures(given.datasets.panels, given.names.length, page.shape, palette.value,
                                canvasUrl(document));
}

// The chart's spec for this text; `given` its datasets and params' texts (charts.js givenFor), `kept` the reader's
// choices in its last drawing.
export function specFor(el, given, kept) {
  const key = el.getAttribute('data-live-chart'), narrow = wantsNarrow(el);
  const pair = page.config.charts[(narrow ? 'narrow-' : '') + key];
  const spec = copy(pair[0]);
  if (page.darkScheme && page.darkScheme.matches) changed(spec, pair[1]);
  spec.data.forEach((d) => {
    if (d.name in given.datasets) d.values = given.datasets[d.name];
  });
  drawPictures(spec, given);
  spec.signals.forEach((signal) => {
    if (given.params && signal.name in given.params) signal.value = given.params[signal.name];
    else if (signal.name === NAMES) signal.value = given.names;
    else if (signal.name === FOLLOW_NAME) signal.value = given.followName;
    else if (TOKEN_SELECTS.indexOf(signal.name) >= 0 && signal.bind) tokenSelect(signal, el, given, kept);
    else if (given.selects && signal.name in given.selects && signal.bind) listSelect(signal, el, given, kept);
    else if (signal.bind && kept && signal.name in kept) {
      const value = allowed(signal.bind, kept[signal.name]);
      if (value !== undefined) signal.value = value;
    }
  });
  el.pendingToken = undefined;
  el.drawnNarrow = narrow;
  el.toggleAttribute('data-drawn-narrow', narrow);
  return spec;
}

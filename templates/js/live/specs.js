// A chart's spec for a text: a copy of the build's compiled Vega spec, in the reader's colours, its datasets and
// params filled in (figsite/data/live_data.py, figures/toolkit/textless.py), each input kept at the reader's choice
// where the new text allows it.
import {NARROW_PX, PICK, TOKEN_PARAMS} from './constants.js';
import {page} from './page.js';

// Changes written by the build ([path, value] to set, [path] to delete; figsite.site.drawing.differences), made
// to a spec.
export function changed(spec, changes) {
  changes.forEach((change) => {
    const path = change[0];
    let at = spec;
    for (let i = 0; i < path.length - 1; i++) at = at[path[i]];
    if (change.length > 1) at[path[path.length - 1]] = change[1];
    else delete at[path[path.length - 1]];
  });
  return spec;
}

function copy(value) {
  return window.structuredClone ? structuredClone(value) : JSON.parse(JSON.stringify(value));
}

// A value an input allows (figures.js's `allowed`): one of its options, or a step of its range; else undefined.
export function allowed(bind, raw) {
  if (bind.options) {
    for (let i = 0; i < bind.options.length; i++) if (String(bind.options[i]) === String(raw)) return bind.options[i];
    return undefined;
  }
  if (bind.input === 'range') {
    const v = Number(raw);
    if (raw === '' || !isFinite(v) || v < bind.min || v > bind.max) return undefined;
    const step = bind.step || 1;
    return bind.min + Math.round((v - bind.min) / step) * step;
  }
  return undefined;
}

// The names of the marks that draw the chosen cell's top 10 in the lens: those whose data come from `top` with
// no transform that a click reads (the table's cells carry pick_ fields). Each is given a pointer.
export function topMarks(spec) {
  const byName = {};
  spec.data.forEach((d) => { byName[d.name] = d; });
  function fromTop(name) {
    for (let d = byName[name]; d; d = byName[d.source]) {
      if ((d.transform || []).some((t) => String(t.as).indexOf(PICK) === 0)) return false;
      if (d.name === 'top') return true;
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

export function wantsNarrow(el) {
  return ('narrow-' + el.getAttribute('data-live-chart')) in page.config.charts && el.clientWidth < NARROW_PX;
}

// A select of the text's tokens, given its options; at the token chosen in the other charts or by the address,
// else the reader's choice in this chart, else the spec's opening token.
function tokenSelect(signal, el, given, kept) {
  const n = given.names.length, options = [], labels = [];
  for (let i = 1; i <= n; i++) {
    options.push(i);
    labels.push(i + ': ' + given.names[i - 1]);
  }
  signal.bind.options = options;
  signal.bind.labels = labels;
  const keptValue = el.pendingToken !== undefined ? el.pendingToken :
                    given.sameText && kept ? kept[signal.name] : undefined;
  signal.value = keptValue !== undefined && keptValue >= 1 && keptValue <= n ? keptValue : Math.min(signal.value, n);
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
  spec.signals.forEach((signal) => {
    if (signal.name === 'names') signal.value = given.names;
    else if (signal.name === 'follow_name') signal.value = given.followName;
    else if (TOKEN_PARAMS.indexOf(signal.name) >= 0 && signal.bind) tokenSelect(signal, el, given, kept);
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

// A figure's page with the reader's sentence, as the script finds it: the build's configuration (the JSON in
// #live-config, written by templates/_live_config.html), the page's elements, and window.liveFigures, what the tests
// and bench/live.py read.
//
// The configuration: the model's files {"path", "name", "bytes", "sha256"}, the graph's name, n_layer, n_head and
// max_tokens; the charts (key -> [compiled Vega spec, the dark theme's changes], and "narrow-" + key for a column
// under NARROW_PX); the defaults (text, target, max_tokens).
//
// window.liveFigures: {state, result (the raw numbers of the last text drawn), drawn (the datasets and params the
// charts were given), timings, loadedFrom, kept (whether the model's files were all in Cache Storage when the page
// opened: null until known), weights ('exact' or 'light': weights.js)}, and later downloadedBytes, keptNow (whether they are all kept there after the load:
// false where the browser refused) and json(); #live's data-state says the state too (idle, file, loading, ready,
// running, drawn, refused, error).

export const $ = (id) => document.getElementById(id);

// Filled in by openPage; empty until then (the modules' pure functions never read it).
export const page = {
  root: null, config: null, model: null, defaults: null, maxTokens: 0,
  shape: null,  // {nLayer, nHead, stages, dModel, dHead}: the model's size, as the datasets and downloads read it
  live: null,  // window.liveFigures
  el: {},  // the page's elements, by role
  charts: [],  // the elements of the charts ([data-live-chart])
  darkScheme: null,
};

const ELEMENTS = {
  textBox: 'live-text', textBoxB: 'live-text-b', targetBox: 'live-target', versusBox: 'live-versus', form: 'live-form', loadButton: 'live-load-button',
  loadStatus: 'live-load-status', progress: 'live-progress', progressBar: 'live-progress-bar',
  progressWords: 'live-progress-words', messageLine: 'live-message', tokensRow: 'live-tokens',
  downloads: 'live-downloads', countLine: 'live-count', targetSaid: 'live-target-said', followLine: 'live-follow',
  followSelect: 'live-follow-select',
};

// Reads the page; false where it is no live page (no #live or no configuration).
export function openPage() {
  const root = $('live'), configElement = $('live-config');
  if (!root || !configElement) return false;
  const config = JSON.parse(configElement.textContent);
  const model = config.model, defaults = config.defaults || {};
  Object.assign(page, {root: root, config: config, model: model, defaults: defaults,
                       maxTokens: model.max_tokens || defaults.max_tokens,
                       shape: {nLayer: model.n_layer, nHead: model.n_head, stages: model.n_layer + 1,
                               dModel: model.d_model, dHead: model.d_head}});
  page.live = window.liveFigures = {state: 'idle', result: null, drawn: null, timings: {}, loadedFrom: null,
                                    kept: null, weights: 'exact'};
  Object.keys(ELEMENTS).forEach((role) => { page.el[role] = $(ELEMENTS[role]); });
  page.charts = Array.prototype.slice.call(document.querySelectorAll('[data-live-chart]'));
  page.darkScheme = window.matchMedia ? window.matchMedia('(prefers-color-scheme: dark)') : null;
  return true;
}

// The graph's SHA-256: it names the model's cache and goes into the JSON download.
export function graphSha256(model) {
  return model.files.filter((f) => f.name === model.graph)[0].sha256;
}

// The element that says a chart's state in words, under it, for screen readers.
export function descriptionOf(el) {
  return $('live-description-' + el.getAttribute('data-live-chart'));
}

export function setState(state) {
  page.live.state = state;
  page.root.setAttribute('data-state', state);
}

// One sentence under the form, as text; kind: 'info', 'refused' or 'error'.
export function say(words, kind) {
  page.el.messageLine.textContent = words || '';
  page.el.messageLine.setAttribute('data-kind', kind || 'info');
}

// The model as the page's sentences name it (the build's sitegen/site/model_names.py): 'GPT-2', 'the random model',
// 'the model'; capital: at a sentence's start. A random model is never called GPT-2.
export function modelName(capital) {
  return capitalised((page.model && page.model.name) || 'the model', capital);
}

export function capitalised(words, capital) {
  return capital ? words.charAt(0).toUpperCase() + words.slice(1) : words;
}

export function megabytes(bytes) {
  const mb = bytes / 1e6;
  return (mb >= 10 ? mb.toFixed(0) : mb.toFixed(1)) + ' MB';
}

// Where the model's bytes came from, as the load's line says it: downloaded, from this browser's storage, or how much
// from each where both (a damaged or missing kept file fetched again).
export function fromWhere(downloaded, total) {
  if (downloaded === 0) return 'from this browser\'s storage';
  if (downloaded >= total) return 'downloaded';
  return megabytes(downloaded) + ' downloaded, ' + megabytes(total - downloaded) + ' from this browser\'s storage';
}

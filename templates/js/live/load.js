// Loading GPT-2 in the page, when the reader asks (the button, or a text submitted before): the model's files from
// Cache Storage or the network (model.js), then the text in the boxes runs.
import {openModel} from './model.js';
import {fromWhere, megabytes, modelName, page, say, setState} from './page.js';
import {submit} from './run.js';
import {state} from './state.js';
import {sentenceFor} from './trouble.js';

// Said after the load where the browser would not keep the files (a private window, storage full or refused).
export const NOT_KEPT = ' This browser would not keep it (a private window, or its storage full or refused): it ' +
                        'runs from memory now, and the next visit downloads it again.';

function loaded(started) {
  const live = page.live, threads = window.ort.env.wasm.numThreads;
  live.timings.loadMs = performance.now() - started;
  page.el.progress.hidden = true;
  page.el.loadButton.hidden = true;
  const run = document.getElementById('live-run');  // shown once there is a model to run
  if (run) run.hidden = false;
  // The choice made steps aside, so that the text and its figure come nearer the top of the page.
  const weights = document.getElementById('live-weights');
  if (weights) weights.hidden = true;
  page.el.loadStatus.textContent = modelName(true) + ' is loaded in this page (' +
    fromWhere(live.downloadedBytes, page.model.bytes) + ', ' + (live.timings.loadMs / 1000).toFixed(1) + ' s' +
    (threads > 1 ? ', ' + threads + ' threads' : '') + ').' + (live.keptNow ? '' : NOT_KEPT);
  if (!window.crossOriginIsolated) {
    console.info(modelName(true) + ' runs on one thread: for several, the host must send Cross-Origin-Opener-Policy: ' +
                 'same-origin and Cross-Origin-Embedder-Policy: require-corp.');
  }
  setState('ready');
}

export function load() {
  if (state.loading) return state.loading;
  state.loadAsked = true;
  page.el.loadButton.disabled = true;
  const weights = document.getElementById('live-weights');
  if (weights) weights.disabled = true;  // the weights chosen are the ones loading
  setState('loading');
  say('');
  const started = performance.now();
  state.loading = openModel().then((created) => {
    state.session = created;
    loaded(started);
    return submit();
  }, (error) => {
    state.loading = null;
    page.el.loadButton.disabled = false;
    if (weights) weights.disabled = false;
    page.el.progress.hidden = true;
    setState('error');
    say(sentenceFor(error, megabytes(page.model.bytes), modelName()), 'error');
    console.error(error);
  });
  return state.loading;
}

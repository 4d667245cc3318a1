// Loading GPT-2 in the page, when the reader asks (the button, or a text submitted before): the model's files from
// Cache Storage or the network (model.js), then the text in the boxes runs.
import {openModel} from './model.js';
import {page, say, setState} from './page.js';
import {submit} from './run.js';
import {state} from './state.js';

function loaded(started) {
  const live = page.live, threads = window.ort.env.wasm.numThreads;
  live.timings.loadMs = performance.now() - started;
  page.el.progress.hidden = true;
  page.el.loadButton.hidden = true;
  page.el.loadStatus.textContent = 'GPT-2 is loaded in this page (' + (live.loadedFrom === 'cache' ?
    'from this browser\'s storage' : 'downloaded') + ', ' + (live.timings.loadMs / 1000).toFixed(1) + ' s' +
    (threads > 1 ? ', ' + threads + ' threads' : '') + ').';
  setState('ready');
}

export function load() {
  if (state.loading) return state.loading;
  state.loadAsked = true;
  page.el.loadButton.disabled = true;
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
    page.el.progress.hidden = true;
    setState('error');
    say('GPT-2 could not be loaded in this page (' + error.message + '); the button tries again.', 'error');
    console.error(error);
  });
  return state.loading;
}

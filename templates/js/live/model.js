// GPT-2 in the page: onnxruntime-web (WebAssembly, on the reader's own computer: nothing is sent anywhere) runs the
// model exported by figsite/capture/live_export.py. Inputs input_ids int64 (1, T) and follow int64 (K,); outputs
// shares (layers, heads, T, T), top_ids / top_probs (stages, T, TOP_K), follow_probs / follow_ranks (stages, T, K).
import {megabytes, page} from './page.js';
import {state} from './state.js';
import {download, fromCache, keep, openCache} from './store.js';

function showProgress(done, total, words) {
  const {progress, progressBar, progressWords} = page.el;
  progress.hidden = false;
  progressBar.max = total;
  progressBar.value = done;
  progressWords.textContent = words;
}

// Each file of the model, from the cache or downloaded (and then kept), the progress bar counting their bytes:
// {blobs: name -> Blob, downloaded: bytes downloaded}.
async function modelFiles() {
  const store = await openCache(), total = page.model.bytes, blobs = {};
  let done = 0, downloaded = 0, shownMb = -1;
  for (const file of page.model.files) {
    let blob = await fromCache(store, file);
    if (blob) {
      done += file.bytes;
      showProgress(done, total, 'Loading GPT-2 from this browser\'s storage: ' + megabytes(done) + ' of ' +
                                megabytes(total));
    } else {
      blob = await download(file, store, (bytes) => {
        const mb = Math.floor((done + bytes) / 1e6);
        page.el.progressBar.value = done + bytes;
        if (mb !== shownMb) {
          shownMb = mb;
          showProgress(done + bytes, total,
                       'Downloading GPT-2: ' + megabytes(done + bytes) + ' of ' + megabytes(total));
        }
      });
      done += file.bytes;
      downloaded += file.bytes;
      await keep(store, file, blob);
    }
    blobs[file.name] = blob;
  }
  return {blobs: blobs, downloaded: downloaded};
}

// The runtime's session on the model's files; notes in window.liveFigures where they came from.
export async function openModel() {
  const ort = window.ort, model = page.model, live = page.live;
  if (!ort) throw new Error('onnxruntime-web did not load (live/ort/ort.wasm.min.js)');
  ort.env.wasm.wasmPaths = new URL('live/ort/', location.href).href;
  ort.env.wasm.numThreads = window.crossOriginIsolated ? Math.min(4, navigator.hardwareConcurrency || 1) : 1;
  const {blobs, downloaded} = await modelFiles(), total = model.bytes;
  showProgress(total, total, 'Starting GPT-2 in this page…');
  const graph = new Uint8Array(await blobs[model.graph].arrayBuffer());
  const external = model.files.filter((f) => f.name !== model.graph)
                              .map((f) => ({path: f.name, data: blobs[f.name]}));
  const created = await ort.InferenceSession.create(graph, {executionProviders: ['wasm'], externalData: external});
  live.loadedFrom = downloaded === 0 ? 'cache' : downloaded === total ? 'network' : 'both';
  live.downloadedBytes = downloaded;
  return created;
}

// One run at a time: the runtime's session runs one call at once.
let queue = Promise.resolve();
export function inTurn(task) {
  const next = queue.then(task, task);
  queue = next.catch(() => {});
  return next;
}

function int64(values) {
  return BigInt64Array.from(values, (v) => BigInt(v));
}

// The model's outputs for the text's ids, following the tokens `follow`.
export async function infer(ids, follow) {
  const ort = window.ort;
  const out = await state.session.run({
    input_ids: new ort.Tensor('int64', int64(ids), [1, ids.length]),
    follow: new ort.Tensor('int64', int64(follow), [follow.length])});
  return {shares: out.shares.data, topIds: out.top_ids.data, topProbs: out.top_probs.data,
          followProbs: out.follow_probs.data, followRanks: out.follow_ranks.data};
}

// GPT-2 in the page: onnxruntime-web (WebAssembly, on the reader's own computer: nothing is sent anywhere) runs the
// model exported by figsite/capture/live_export.py. Inputs input_ids int64 (1, T), follow int64 (K,) and the parts
// kept, keep_attention / keep_feed_forward float32 (layers,) and keep_heads (layers, heads), 1 kept, 0 taken out,
// and read_stages int64 (R,), the stages read out, and the pieces put back (patch_ inputs: unpatched); outputs
// shares (layers, heads, T, T), top_ids / top_probs (R, T, TOP_K), follow_probs / follow_ranks / follow_scores (R, T,
// K), residuals (stages, T, d_model), attention_outputs / feed_forward_outputs (layers, T, d_model) and mixed_values
// (layers, T, heads, d_head).
import {fetchFile} from './fetching.js';
import {megabytes, modelName, page, say} from './page.js';
import {checkRuntime} from './runtime.js';
import {state} from './state.js';
import {drop, fromCache, keep, openCache} from './store.js';

function showProgress(done, total, words) {
  const {progress, progressBar, progressWords} = page.el;
  progress.hidden = false;
  progressBar.max = total;
  progressBar.value = done;
  progressWords.textContent = words;
}

// What the progress bar says while the model downloads: what has come, of how much, and what remains.
export function downloadWords(got, total) {
  const left = total - got;
  return 'Downloading ' + modelName() + ': ' + megabytes(got) + ' of ' + megabytes(total) +
         (left > 0 ? ', ' + megabytes(left) + ' to go' : '');
}

// What fetching.js needs for one file: this page's fetch, the browser's storage and crypto.subtle, and the words
// and the progress bar it shows (done: the bytes of the files before this one).
function fileIo(file, store, done) {
  let shownMb = -1, told = null;
  const tell = (words) => {
    told = words;
    say(words);
  };
  return {
    url: new URL(file.path, location.href).href, httpCache: store ? 'no-store' : 'default',
    fetch: (url, init) => window.fetch(url, init),
    sleep: (ms) => new Promise((resolve) => { setTimeout(resolve, ms); }),
    subtle: window.crypto && window.crypto.subtle ? window.crypto.subtle : null,
    cached: () => fromCache(store, file), drop: () => drop(store, file), put: (blob) => keep(store, file, blob),
    onBytes: (bytes) => {
      const mb = Math.floor((done + bytes) / 1e6);
      page.el.progressBar.value = done + bytes;
      if (mb === shownMb) return;
      shownMb = mb;
      showProgress(done + bytes, page.model.bytes, downloadWords(done + bytes, page.model.bytes));
    },
    onRetry: (n, tries) => { tell('The download was cut; trying again (' + n + ' of ' + tries + ')…'); },
    onDamaged: () => { tell('A file of ' + modelName() + ' came damaged; fetching it once more…'); },
    name: modelName(),
    // The file came whole after all: the line about its trouble, if nothing replaced it, goes.
    onRecovered: () => { if (told !== null && page.el.messageLine.textContent === told) say(''); },
  };
}

// Each file of the model, from the cache or downloaded (and then kept), checked, the progress bar counting their
// bytes: {blobs: name -> Blob, downloaded: bytes downloaded, kept: whether every file is kept in the browser now}.
async function modelFiles() {
  const store = await openCache(), total = page.model.bytes, blobs = {};
  let done = 0, downloaded = 0, kept = store !== null;
  for (const file of page.model.files) {
    const got = await fetchFile(file, fileIo(file, store, done));
    done += file.bytes;
    if (got.from === 'cache') {
      showProgress(done, total, 'Loading ' + modelName() + ' from this browser\'s storage: ' + megabytes(done) +
                                ' of ' + megabytes(total));
    } else downloaded += file.bytes;
    kept = kept && got.kept;
    blobs[file.name] = got.blob;
  }
  return {blobs: blobs, downloaded: downloaded, kept: kept};
}

// The runtime's session on the model's files; notes in window.liveFigures where they came from.
export async function openModel() {
  const ort = window.ort, model = page.model, live = page.live;
  const runtime = page.config.runtime || [];
  const checked = await checkRuntime(runtime, {
    fetch: (path, init) => window.fetch(new URL(path, location.href).href, init),
    subtle: window.crypto && window.crypto.subtle ? window.crypto.subtle : null});
  if (!ort) throw new Error('onnxruntime-web did not load (live/ort/ort.wasm.min.js)');
  ort.env.wasm.wasmPaths = new URL('live/ort/', location.href).href;
  // The runtime runs the .wasm's checked bytes, not a second copy it would fetch itself.
  runtime.filter((f) => /\.wasm$/.test(f.path)).forEach((f) => { ort.env.wasm.wasmBinary = checked[f.path]; });
  ort.env.wasm.numThreads = window.crossOriginIsolated ? Math.min(4, navigator.hardwareConcurrency || 1) : 1;
  const {blobs, downloaded, kept} = await modelFiles(), total = model.bytes;
  showProgress(total, total, 'Starting ' + modelName() + ' in this page…');
  const graph = new Uint8Array(await blobs[model.graph].arrayBuffer());
  const external = model.files.filter((f) => f.name !== model.graph)
                              .map((f) => ({path: f.name, data: blobs[f.name]}));
  // The light weights' options (live_light.LIGHT_SESSION: their blocks made float32 once, as the session starts).
  const options = {executionProviders: ['wasm'], externalData: external};
  if (model.options) options.extra = model.options;
  const created = await ort.InferenceSession.create(graph, options);
  live.loadedFrom = downloaded === 0 ? 'cache' : downloaded === total ? 'network' : 'both';
  live.downloadedBytes = downloaded;
  live.keptNow = kept;
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

// The whole model: every part kept (what `infer` is given as `kept`: 1 keeps a part, 0 takes it out; heads by
// layer, then head).
export function whole(shape) {
  return {attention: new Array(shape.nLayer).fill(1), feedForward: new Array(shape.nLayer).fill(1),
          heads: new Array(shape.nLayer * shape.nHead).fill(1)};
}

// No piece put back (what `infer` is given as `patched` by default): every mask 0, for a text of n tokens. A run of
// the patching (patching.js) gives the original text's activations as the values and a 1 in the masks where a piece
// of them goes in: the stream of a stage at a position (residual, (stages, T, d_model); residualAt (stages, T)), a
// layer's attention or feed-forward output at a position ((layers, T, d_model); at (layers, T)), a head's mixed
// values at every position ((layers, T, heads, d_head); headsAt (layers, heads)).
export function unpatched(shape, n) {
  const streams = shape.stages * n * shape.dModel, outputs = shape.nLayer * n * shape.dModel;
  return {residual: new Float32Array(streams), residualAt: new Float32Array(shape.stages * n),
          attention: new Float32Array(outputs), attentionAt: new Float32Array(shape.nLayer * n),
          feedForward: new Float32Array(outputs), feedForwardAt: new Float32Array(shape.nLayer * n),
          heads: new Float32Array(shape.nLayer * n * shape.nHead * shape.dHead),
          headsAt: new Float32Array(shape.nLayer * shape.nHead)};
}

// The graph's patch_ inputs for `patched` (unpatched's fields).
function patchInputs(ort, patched, shape, n) {
  const f32 = (values, dims) => new ort.Tensor('float32', values, dims);
  const {nLayer, nHead, stages, dModel, dHead} = shape;
  return {patch_residual: f32(patched.residual, [stages, n, dModel]),
          patch_residual_at: f32(patched.residualAt, [stages, n]),
          patch_attention: f32(patched.attention, [nLayer, n, dModel]),
          patch_attention_at: f32(patched.attentionAt, [nLayer, n]),
          patch_feed_forward: f32(patched.feedForward, [nLayer, n, dModel]),
          patch_feed_forward_at: f32(patched.feedForwardAt, [nLayer, n]),
          patch_heads: f32(patched.heads, [nLayer, n, nHead, dHead]),
          patch_heads_at: f32(patched.headsAt, [nLayer, nHead])};
}

// The model's outputs for the text's ids, following the tokens `follow`, with the parts `kept` keeps (default: all),
// reading out the stages `stages` (default: all, in order), the pieces `patched` puts back (default: none).
export async function infer(ids, follow, kept, stages, patched) {
  const ort = window.ort, shape = page.shape, parts = kept || whole(shape), n = ids.length;
  const read = stages || Array.from({length: shape.stages}, (_, s) => s);
  const out = await state.session.run({
    input_ids: new ort.Tensor('int64', int64(ids), [1, n]),
    follow: new ort.Tensor('int64', int64(follow), [follow.length]),
    keep_attention: new ort.Tensor('float32', Float32Array.from(parts.attention), [shape.nLayer]),
    keep_feed_forward: new ort.Tensor('float32', Float32Array.from(parts.feedForward), [shape.nLayer]),
    keep_heads: new ort.Tensor('float32', Float32Array.from(parts.heads), [shape.nLayer, shape.nHead]),
    read_stages: new ort.Tensor('int64', int64(read), [read.length]),
    ...patchInputs(ort, patched || unpatched(shape, n), shape, n)});
  return {shares: out.shares.data, topIds: out.top_ids.data, topProbs: out.top_probs.data,
          followProbs: out.follow_probs.data, followRanks: out.follow_ranks.data, residuals: out.residuals.data,
          followScores: out.follow_scores.data, attentionOutputs: out.attention_outputs.data,
          feedForwardOutputs: out.feed_forward_outputs.data, mixedValues: out.mixed_values.data};
}

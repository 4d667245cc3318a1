import {capitalised} from './page.js';

// The one sentence the page says when the model could not be loaded, in plain words, with the way out: a failure of
// fetching.js says its own (error.said); a tab refused the memory, or a host sending the runtime's files with the
// wrong type, is told from the browser's message; anything else is quoted. The rest of the page works on.

// What a browser or onnxruntime-web says where the tab's memory is refused: a RangeError ("Array buffer allocation
// failed"), WebAssembly's "Out of memory: Cannot allocate Wasm memory", emscripten's abort, C++'s bad_alloc.
const MEMORY = /allocation failed|out of memory|cannot allocate|Aborted\(OOM\)|bad_alloc|could not grow|failed to grow/i;
// A module script (the runtime's .mjs) refused: Chromium says only that it failed to fetch it (its type wrong, or
// the file missing); others name the MIME type.
const TYPE = /MIME type|dynamically imported module|module script/i;

export const HOST_MUST_SEND = 'the host must send .wasm files as application/wasm and .mjs files as text/javascript';

// A file of the runtime (live/) missing, or its module sent with a type no browser runs (runtime.js, or the browser).
export const UNSTARTED = 'The page\'s runtime could not start from this site\'s host (a file of live/ missing, or sent ' +
                         'with the wrong type): ' + HOST_MUST_SEND + '.';

export function isMemory(error) {
  return Boolean(error) && (error.name === 'RangeError' || MEMORY.test(String(error.message || error)));
}

// The sentence for `error`; size: the model's size in words ("495 MB"); name: the model as the page's sentences name
// it ('GPT-2', 'the random model'; page.js modelName).
export function sentenceFor(error, size, name) {
  const model = name || 'the model';
  if (error && error.said) return error.said;
  if (isMemory(error)) {
    return 'This browser tab was refused the memory ' + model + ' needs (some ' + size + ' and more): close other ' +
           'tabs, or use a computer with more memory, then the button tries again; the rest of the site works as ' +
           'before.';
  }
  const message = String((error && error.message) || error);
  if (TYPE.test(message)) return UNSTARTED;
  return capitalised(model, true) + ' could not be loaded in this page (' + message + '); the button tries again.';
}

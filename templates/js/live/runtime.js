// The runtime's own files (onnxruntime-web's .mjs and .wasm, and the page's scripts) checked against the build's
// SHA-256 before any file of the model is fetched, as the model's are: a copy with other bytes is never run, and the
// page says so in one sentence. The module's type first, from the headers alone: a host that sends the .mjs as a
// type no browser imports is told before the model's hundreds of MB are fetched, not after.
//
// The .wasm the runtime then runs is the checked bytes themselves (ort.env.wasm.wasmBinary). The scripts already
// running (the page's own, and those it loaded when the reader asked: scripts.js) are checked here as they were
// served, from the same address, as the browser's HTTP cache keeps them; so is the .mjs the runtime imports. No
// integrity attribute: from file:// Chromium refuses every script that has one. `io`: fetch(url, init), subtle
// (crypto.subtle or null).
import {LoadError, checkable, hex} from './fetching.js';
import {UNSTARTED} from './trouble.js';

// The types a browser runs a module script of (the WHATWG's JavaScript MIME types that hosts send).
const MODULE_TYPE = /^\s*(text|application)\/(x-)?(javascript|ecmascript)\s*(;|$)/i;

const DAMAGED = 'A file of the page\'s runtime (NAME) came with other bytes than this site was built with, so this ' +
                'page will not run it; the site\'s host may be serving a broken copy.';

// Whether the host sends this file with a type the browser will run it as (only a module's type matters: the
// .wasm runs from its bytes, the scripts are running already).
export function rightType(path, contentType) {
  return !/\.mjs$/.test(path) || MODULE_TYPE.test(contentType || '');
}

// Every file of `files` ({path, bytes, sha256}), checked: path -> its bytes (an ArrayBuffer). Every answer's type is
// checked before any body is read.
export async function checkRuntime(files, io) {
  checkable(io.subtle);
  const answers = [];
  for (const file of files) {
    let response;
    try {
      response = await io.fetch(file.path, {cache: 'default'});
    } catch (e) {
      throw new LoadError('runtime', UNSTARTED, file.path + ': ' + e.message);
    }
    if (!response.ok || !rightType(file.path, response.headers.get('Content-Type'))) {
      throw new LoadError('runtime', UNSTARTED, file.path + ': ' + response.status + ' ' +
                          response.headers.get('Content-Type'));
    }
    answers.push(response);
  }
  const checked = {};
  for (let i = 0; i < files.length; i++) {
    const file = files[i], bytes = await answers[i].arrayBuffer();
    if (bytes.byteLength !== file.bytes || hex(await io.subtle.digest('SHA-256', bytes)) !== file.sha256) {
      throw new LoadError('runtime-damaged', DAMAGED.replace('NAME', file.path));
    }
    checked[file.path] = bytes;
  }
  return checked;
}

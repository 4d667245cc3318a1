// What the live page checks before it runs anything, and the words it says after a load (issue 49, point 5):
// the runtime's own files against the build's SHA-256, the module's type before any bytes are read
// (templates/js/live/runtime.js); a retry's line replaced once the file comes whole (fetching.js's onRecovered);
// where the model's bytes came from (page.js's fromWhere).
import assert from 'node:assert/strict';
import {createHash} from 'node:crypto';
import {test} from 'node:test';

import {fetchFile} from '../../templates/js/live/fetching.js';
import {fromWhere} from '../../templates/js/live/page.js';
import {checkRuntime, rightType} from '../../templates/js/live/runtime.js';
import {HOST_MUST_SEND} from '../../templates/js/live/trouble.js';

const MODULE = new TextEncoder().encode('export default 1;\n');
const WASM = Uint8Array.from({length: 3000}, (_, i) => (i * 13 + 1) % 256);
const SCRIPT = new TextEncoder().encode('window.x = 1;\n');
const sha = (bytes) => createHash('sha256').update(bytes).digest('hex');
const FILES = [['live/ort/a.mjs', MODULE], ['live/ort/a.wasm', WASM], ['live/live.js', SCRIPT]]
  .map(([path, bytes]) => ({path: path, bytes: bytes.length, sha256: sha(bytes)}));
const TYPES = {mjs: 'text/javascript', wasm: 'application/wasm', js: 'text/javascript'};

// A host: `how` {types: extension -> Content-Type, damaged: a path whose byte 0 it flips, missing: a path}; it
// records each request, and each body read.
function host(how = {}) {
  const asked = [], read = [], bytes = {};
  FILES.forEach((f, i) => { bytes[f.path] = [MODULE, WASM, SCRIPT][i]; });
  const fetch = async (path) => {
    asked.push(path);
    if (path === how.missing) return new Response('', {status: 404});
    let body = bytes[path].slice();
    if (path === how.damaged) body[0] ^= 1;
    const type = Object.assign({}, TYPES, how.types || {})[path.split('.').pop()];
    const response = new Response(body, {status: 200, headers: {'Content-Type': type}});
    const arrayBuffer = response.arrayBuffer.bind(response);
    response.arrayBuffer = () => {
      read.push(path);
      return arrayBuffer();
    };
    return response;
  };
  return {fetch, asked, read, subtle: globalThis.crypto.subtle};
}

test('the runtime\'s files as built are given back, checked, byte for byte', async () => {
  const given = host();
  const checked = await checkRuntime(FILES, given);
  assert.deepEqual(new Uint8Array(checked['live/ort/a.wasm']), WASM);
  assert.deepEqual(Object.keys(checked), FILES.map((f) => f.path));
});

test('a runtime file with other bytes is refused in one sentence that names it', async () => {
  for (const file of FILES) {
    const given = host({damaged: file.path});
    await assert.rejects(checkRuntime(FILES, given), (e) => e.kind === 'runtime-damaged' &&
      e.said.includes('(' + file.path + ')') && e.said.endsWith('.') && !e.said.slice(0, -1).includes('. '));
  }
});

test('a module sent with a wrong type is told from the headers, before any bytes are read', async () => {
  const given = host({types: {mjs: 'application/octet-stream'}});
  await assert.rejects(checkRuntime(FILES, given), (e) => e.kind === 'runtime' && e.said.includes(HOST_MUST_SEND));
  assert.deepEqual(given.read, []);
  assert.ok(rightType('x.mjs', 'application/javascript; charset=utf-8') && rightType('x.mjs', 'text/javascript'));
  assert.ok(!rightType('x.mjs', 'text/plain') && !rightType('x.mjs', null) && rightType('x.wasm', 'text/plain'));
  await checkRuntime(FILES, host({types: {wasm: 'application/octet-stream'}}));  // the .wasm runs from its bytes
});

test('a runtime file missing is one sentence, and without crypto.subtle nothing is fetched', async () => {
  await assert.rejects(checkRuntime(FILES, host({missing: 'live/live.js'})), (e) => e.said.includes(HOST_MUST_SEND));
  const given = host();
  await assert.rejects(checkRuntime(FILES, {fetch: given.fetch, subtle: null}), (e) => e.kind === 'unchecked');
  assert.deepEqual(given.asked, []);
});

// A model file over a fake host whose first answer is cut (or damaged), the second whole.
async function troubled(first) {
  const bytes = Uint8Array.from({length: 2000}, (_, i) => i % 251);
  const file = {name: 'm.onnx', bytes: bytes.length, sha256: sha(bytes)};
  const told = [];
  let n = 0;
  const io = {
    url: 'http://host/m.onnx', subtle: globalThis.crypto.subtle, sleep: async () => {},
    fetch: async () => {
      const body = bytes.slice(0, n++ === 0 && first === 'cut' ? 1000 : bytes.length);
      if (n === 1 && first === 'damaged') body[5] ^= 1;
      return new Response(body, {status: 200});
    },
    cached: async () => null, drop: async () => {}, put: async () => true, onBytes: () => {},
    onRetry: () => { told.push('retry'); }, onDamaged: () => { told.push('damaged'); },
    onRecovered: () => { told.push('recovered'); },
  };
  await fetchFile(file, io);
  return told;
}

test('a retry or a fetch again that succeeds is told as recovered, after the line it replaces', async () => {
  assert.deepEqual(await troubled('cut'), ['retry', 'recovered']);
  assert.deepEqual(await troubled('damaged'), ['damaged', 'recovered']);
  assert.deepEqual(await troubled(null), []);
});

test('the load says where the bytes came from, and how much from each where both', () => {
  assert.equal(fromWhere(0, 495e6), 'from this browser\'s storage');
  assert.equal(fromWhere(495e6, 495e6), 'downloaded');
  assert.equal(fromWhere(120e6, 495e6), '120 MB downloaded, 375 MB from this browser\'s storage');
  assert.equal(fromWhere(1.5e6, 2e6), '1.5 MB downloaded, 0.5 MB from this browser\'s storage');
});

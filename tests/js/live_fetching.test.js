// One file of the live page's model fetched (templates/js/live/fetching.js) from a fake server that cuts, resumes or
// not, and damages bytes on purpose, with a fake store; and the sentences of templates/js/live/trouble.js.
import assert from 'node:assert/strict';
import {createHash} from 'node:crypto';
import {test} from 'node:test';

import {BACKOFF_MS, TRIES, download, fetchFile, intact} from '../../templates/js/live/fetching.js';
import {HOST_MUST_SEND, isMemory, sentenceFor} from '../../templates/js/live/trouble.js';

const BYTES = Uint8Array.from({length: 5000}, (_, i) => (i * 7 + 3) % 256);
const FILE = {name: 'model.onnx.data', bytes: BYTES.length, sha256: createHash('sha256').update(BYTES).digest('hex')};

// A body that sends `bytes` in chunks of 1000 and then, where `cutAfter` says, fails as a cut connection does.
function body(bytes, cutAfter) {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (cutAfter !== undefined && at >= cutAfter) {
        controller.error(new TypeError('network error'));
        return;
      }
      if (at >= bytes.length) {
        controller.close();
        return;
      }
      const end = Math.min(bytes.length, at + 1000, cutAfter === undefined ? Infinity : cutAfter);
      controller.enqueue(bytes.slice(at, end));
      at = end;
    },
  });
}

// A server: each answer in turn is {cutAfter, damaged, ranges (takes Range), status}; it records what was asked.
function server(answers) {
  const asked = [];
  const fetch = async (url, init) => {
    const range = init.headers.Range, how = answers[Math.min(asked.length, answers.length - 1)];
    asked.push({range: range || null, cache: init.cache});
    if (how.status) return new Response('', {status: how.status});
    let bytes = BYTES;
    if (how.damaged) {
      bytes = BYTES.slice();
      bytes[100] ^= 1;
    }
    const headers = how.ranges ? {'Accept-Ranges': 'bytes'} : {};
    if (range && how.ranges) {
      const start = Number(/bytes=(\d+)-/.exec(range)[1]);
      headers['Content-Range'] = 'bytes ' + start + '-' + (bytes.length - 1) + '/' + bytes.length;
      return new Response(body(bytes.slice(start), how.cutAfter), {status: 206, headers: headers});
    }
    return new Response(body(bytes, how.cutAfter), {status: 200, headers: headers});
  };
  return {fetch, asked};
}

// The io fetching.js is given, over a fake server and a fake store (kept: the blob in it, or null).
function io(answers, kept, options = {}) {
  const said = [], waits = [], bytes = [], shop = {kept: kept || null, puts: 0, drops: 0};
  const {fetch, asked} = server(answers);
  return {
    said, waits, bytes, shop, asked,
    url: 'http://host/live/model/' + FILE.name, fetch,
    sleep: async (ms) => { waits.push(ms); },
    subtle: 'subtle' in options ? options.subtle : globalThis.crypto.subtle,
    cached: async () => shop.kept,
    drop: async () => { shop.kept = null; shop.drops++; },
    put: async (blob) => {
      shop.puts++;
      if (options.putFails) return false;
      shop.kept = blob;
      return true;
    },
    onBytes: (n) => { bytes.push(n); },
    onRetry: (n, tries) => { said.push('retry ' + n + ' of ' + tries); },
    onDamaged: () => { said.push('damaged'); },
  };
}

async function same(blob) {
  assert.deepEqual(new Uint8Array(await blob.arrayBuffer()), BYTES);
}

test('a whole download is checked and kept', async () => {
  const given = io([{}]);
  const got = await fetchFile(FILE, given);
  await same(got.blob);
  assert.deepEqual([got.from, got.kept, given.shop.puts], ['network', true, 1]);
  assert.deepEqual(given.asked, [{range: null, cache: 'default'}]);
  assert.equal(given.bytes[given.bytes.length - 1], BYTES.length);
});

test('a cut download resumes with a Range request where the server takes them, and says so', async () => {
  const given = io([{ranges: true, cutAfter: 2000}, {ranges: true}]);
  const got = await fetchFile(FILE, given);
  await same(got.blob);
  assert.deepEqual(given.asked.map((a) => a.range), [null, 'bytes=2000-']);
  assert.deepEqual(given.said, ['retry 2 of ' + TRIES]);
  assert.deepEqual(given.waits, [BACKOFF_MS[0]]);
});

test('a cut download starts again where the server takes no ranges', async () => {
  const given = io([{cutAfter: 3000}, {cutAfter: 1000}, {}]);
  const got = await fetchFile(FILE, given);
  await same(got.blob);
  assert.deepEqual(given.asked.map((a) => a.range), [null, null, null]);
  assert.deepEqual(given.said, ['retry 2 of 3', 'retry 3 of 3']);
  assert.deepEqual(given.waits, BACKOFF_MS);
  assert.equal(given.bytes[given.bytes.indexOf(3000) + 1], 1000, 'the count starts again from 0');
});

test('a server that ignores the Range and sends the whole file is read from its start', async () => {
  const answers = [{ranges: true, cutAfter: 2500}, {}];
  const given = io(answers);
  await same((await fetchFile(FILE, given)).blob);
  assert.deepEqual(given.asked.map((a) => a.range), [null, 'bytes=2500-']);
});

test('a download cut every time fails after the last try, in one sentence', async () => {
  const given = io([{cutAfter: 1000}]);
  await assert.rejects(fetchFile(FILE, given), (e) => e.kind === 'cut' && /cut 3 times/.test(e.said) &&
                                                     e.said.split('. ').length === 1);
  assert.equal(given.asked.length, TRIES);
  assert.equal(given.shop.puts, 0);
});

test('a server in trouble is tried again, a file it does not have is not', async () => {
  const given = io([{status: 503}, {}]);
  await same((await fetchFile(FILE, given)).blob);
  const missing = io([{status: 404}]);
  await assert.rejects(fetchFile(FILE, missing), (e) => e.kind === 'status' && /404/.test(e.said));
  assert.equal(missing.asked.length, 1);
});

test('bytes that differ from the build\'s SHA-256 are fetched again once, then refused, and never kept', async () => {
  const once = io([{damaged: true}, {}]);
  await same((await fetchFile(FILE, once)).blob);
  assert.deepEqual(once.said, ['damaged']);
  assert.deepEqual(once.asked.map((a) => a.cache), ['default', 'reload']);
  const always = io([{damaged: true}]);
  await assert.rejects(fetchFile(FILE, always), (e) => e.kind === 'damaged' && e.said.includes(FILE.name));
  assert.equal(always.asked.length, 2);
  assert.equal(always.shop.puts, 0);
});

test('a damaged copy in the store is deleted and the file fetched once; a good one is used as it is', async () => {
  const bad = BYTES.slice();
  bad[0] ^= 0xff;
  const given = io([{}], new Blob([bad]));
  const got = await fetchFile(FILE, given);
  await same(got.blob);
  assert.deepEqual([got.from, given.shop.drops, given.said, given.asked.length], ['network', 1, ['damaged'], 1]);
  const again = io([{damaged: true}], new Blob([bad]));
  await assert.rejects(fetchFile(FILE, again), (e) => e.kind === 'damaged');
  assert.deepEqual([again.shop.drops, again.asked.length, again.shop.puts], [1, 1, 0]);
  const good = io([{}], new Blob([BYTES]));
  const kept = await fetchFile(FILE, good);
  assert.deepEqual([kept.from, kept.kept, good.asked.length], ['cache', true, 0]);
});

test('a store that refuses the file still gives its bytes, not kept', async () => {
  const given = io([{}], null, {putFails: true});
  const got = await fetchFile(FILE, given);
  await same(got.blob);
  assert.deepEqual([got.from, got.kept], ['network', false]);
});

test('without crypto.subtle nothing can be checked, and nothing runs', async () => {
  const given = io([{}], null, {subtle: null});
  await assert.rejects(fetchFile(FILE, given), (e) => e.kind === 'unchecked' && /cannot check/.test(e.said));
  assert.deepEqual(given.asked, []);  // nothing downloaded that could not be run
  await assert.rejects(intact(FILE, new Blob([BYTES]), undefined), (e) => e.kind === 'unchecked');
  assert.equal(await intact(FILE, new Blob([BYTES.slice(1)]), globalThis.crypto.subtle), false);
});

test('download alone gives the bytes of a whole try', async () => {
  const given = io([{ranges: true, cutAfter: 4999}, {ranges: true}]);
  await same(await download(FILE, given, 'no-store'));
});

test('the tab\'s memory refused is told apart, and so is a host sending the wrong type', () => {
  const memory = [new RangeError('Array buffer allocation failed'),
                  new Error('no available backend found. ERR: [wasm] RangeError: WebAssembly.instantiate(): Out of ' +
                            'memory: Cannot allocate Wasm memory for new instance'),
                  new Error("Can't create a session. ERROR_MESSAGE: std::bad_alloc")];
  memory.forEach((e) => {
    assert.ok(isMemory(e), e.message);
    assert.match(sentenceFor(e, '495 MB', 'GPT-2'), /refused the memory GPT-2 needs \(some 495 MB/);
  });
  [new TypeError('Expected a JavaScript module script but the server responded with a MIME type of "text/plain".'),
   new Error('no available backend found. ERR: [wasm] TypeError: Failed to fetch dynamically imported module: ' +
             'http://host/live/ort/ort-wasm-simd-threaded.mjs')].forEach((e) => {
    assert.ok(!isMemory(e));
    assert.ok(sentenceFor(e, '1 MB').includes(HOST_MUST_SEND), e.message);
  });
  assert.equal(sentenceFor({said: 'As said.'}, '1 MB'), 'As said.');
  assert.equal(sentenceFor(new Error('odd'), '1 MB', 'the random model'), 'The random model could not be loaded in ' +
                                                                          'this page (odd); the button tries again.');
  assert.ok(sentenceFor(new Error('odd'), '1 MB').startsWith('The model could not be loaded'));  // no name given
});

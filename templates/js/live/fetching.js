// One file of the model, as the page may run it: from the browser's storage or the network, its bytes checked against
// the build's SHA-256 before anything runs them. A download cut in the middle is tried again (TRIES in all, a short
// wait between), resumed where it stopped (an HTTP Range request) where the server said it can (Accept-Ranges:
// bytes, or a 206), else started again. A copy whose bytes differ (on the wire or kept) is never run: a kept one is
// deleted, the file fetched again once, and then it is refused. A copy that cannot be kept is still returned.
//
// Nothing here reads the page: what it needs comes in `io` (tests/js/live_fetching.test.js gives its own):
//   url, httpCache (fetch's `cache` for a first download), fetch(url, init), sleep(ms), subtle (crypto.subtle, or null where the browser has none),
//   cached() -> Blob or null, drop() (the kept copy deleted), put(blob) -> whether it was kept,
//   onBytes(bytes of this file so far), onRetry(try, TRIES) before each new try, onDamaged() before a fetch again;
//   name: the model as the page's sentences name it ('GPT-2', 'the random model'; page.js modelName).
//   onRecovered() once the file is checked after a retry or a fetch again (the page's line about it is then untrue).

export const TRIES = 3;
export const BACKOFF_MS = [400, 1200];  // the wait before the 2nd and the 3rd try

// A failure with the one sentence the page says for it (`said`); `kind` names it for the tests.
export class LoadError extends Error {
  constructor(kind, said, message) {
    super(message || said);
    this.name = 'LoadError';
    this.kind = kind;
    this.said = said;
  }
}

// A try that stopped before the end of the file: the next one resumes or starts again.
class Cut extends Error {}

function cutShort(response) {
  return response.status >= 500 || response.status === 408 || response.status === 429;
}

// The start of a 206's range (Content-Range: bytes START-END/SIZE), or -1.
function rangeStart(response) {
  const match = /^bytes (\d+)-/.exec(response.headers.get('Content-Range') || '');
  return match ? Number(match[1]) : -1;
}

async function readInto(part, response, onBytes) {
  if (!response.body || !response.body.getReader) {
    const whole = new Uint8Array(await response.arrayBuffer());
    part.chunks.push(whole);
    part.got += whole.byteLength;
    onBytes(part.got);
    return;
  }
  const reader = response.body.getReader();
  for (;;) {
    let step;
    try {
      step = await reader.read();
    } catch (e) {
      throw new Cut(e.message);
    }
    if (step.done) return;
    part.chunks.push(step.value);
    part.got += step.value.byteLength;
    onBytes(part.got);
  }
}

// One try: resumes from part.got where the server takes ranges, else starts from the first byte.
async function oneTry(file, io, part, httpCache) {
  const resume = part.got > 0 && part.ranges;
  if (!resume) Object.assign(part, {chunks: [], got: 0});
  let response;
  try {
    response = await io.fetch(io.url, {cache: httpCache, headers: resume ? {Range: 'bytes=' + part.got + '-'} : {}});
  } catch (e) {
    throw new Cut(e.message);
  }
  if (response.status === 206 && rangeStart(response) === part.got) part.ranges = true;
  else if (response.ok && response.status !== 206) {
    Object.assign(part, {chunks: [], got: 0, ranges: /bytes/i.test(response.headers.get('Accept-Ranges') || '')});
  } else if (response.status === 206 || cutShort(response)) {
    part.ranges = false;  // a range it did not ask for, or a server in trouble: the next try starts again
    throw new Cut('the server answered ' + response.status);
  } else {
    throw new LoadError('status', 'The server did not send a file of ' + nameOf(io) + ' (' + file.name +
                        ': it answered ' + response.status + '); the button tries again.');
  }
  await readInto(part, response, io.onBytes);
  if (part.got < file.bytes) throw new Cut(file.name + ' came incomplete: ' + part.got + ' of ' + file.bytes);
}

// The file from the network, tried TRIES times; a Blob of its bytes (of any length: the check tells).
export async function download(file, io, httpCache) {
  const part = {chunks: [], got: 0, ranges: false};
  for (let n = 1; ; n++) {
    try {
      await oneTry(file, io, part, httpCache);
      return new Blob(part.chunks, {type: 'application/octet-stream'});
    } catch (e) {
      if (!(e instanceof Cut)) throw e;
      if (n === TRIES) {
        throw new LoadError('cut', 'The download of ' + nameOf(io) + ' was cut ' + TRIES + ' times; check the ' +
                            'connection, then the button tries again.', e.message);
      }
      io.onRetry(n + 1, TRIES);
      await io.sleep(BACKOFF_MS[n - 1]);
    }
  }
}

export function hex(buffer) {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, '0')).join('');
}

// The model's name in a sentence, as io gives it.
function nameOf(io) {
  return io.name || 'the model';
}

export function checkable(subtle, name) {
  if (!subtle || !subtle.digest) {
    throw new LoadError('unchecked', 'This browser cannot check the files of ' + (name || 'the model') + ' here (it ' +
                        'does so only on https:// pages or from this computer), so this page does not run them.');
  }
}

// Whether the blob is the build's file: its size and its SHA-256. Without crypto.subtle (a page not served over
// https:// or from this computer) nothing can be checked, and nothing runs.
export async function intact(file, blob, subtle) {
  checkable(subtle);
  if (blob.size !== file.bytes) return false;
  return hex(await subtle.digest('SHA-256', await blob.arrayBuffer())) === file.sha256;
}

const DAMAGED = 'A file of MODEL (NAME) came with other bytes than this site was built with, again when fetched ' +
                'once more, so this page will not run it; the site\'s host may be serving a broken copy.';

// The file checked: {blob, from: 'cache' or 'network', kept: whether it is kept in the browser now}. After a retry or
// a fetch again, io.onRecovered() once it is.
export async function fetchFile(file, io) {
  let troubled = false;
  const told = Object.assign({}, io, {
    onRetry: (n, tries) => { troubled = true; io.onRetry(n, tries); },
    onDamaged: () => { troubled = true; io.onDamaged(); },
  });
  const got = await checkedFile(file, told);
  if (troubled && io.onRecovered) io.onRecovered();
  return got;
}

async function checkedFile(file, io) {
  checkable(io.subtle, io.name);  // before anything is downloaded
  const cached = await io.cached();
  let downloads = 2;
  if (cached) {
    if (await intact(file, cached, io.subtle)) return {blob: cached, from: 'cache', kept: true};
    await io.drop();
    io.onDamaged();
    downloads = 1;  // the kept copy was the first; the network's is the one more
  }
  for (let n = 1; n <= downloads; n++) {
    const blob = await download(file, io, n === 1 && !cached ? io.httpCache || 'default' : 'reload');
    if (await intact(file, blob, io.subtle)) return {blob: blob, from: 'network', kept: await io.put(blob)};
    if (n < downloads) io.onDamaged();
  }
  throw new LoadError('damaged', DAMAGED.replace('MODEL', nameOf(io)).replace('NAME', file.name));
}

// The model's files kept in this browser (Cache Storage): a cache named after the graph's SHA-256, each file under
// its own SHA-256, so that the next visit loads them from there (fetching.js checks each one's bytes). Storage
// refused (a private window, a full disk: caches.open or cache.put throwing) is no failure: the model runs from
// memory, and is not kept.
import {graphSha256, page} from './page.js';

const CACHE_PREFIX = 'gpt2-live-';  // this page's caches: this, then the graph's SHA-256

function cacheKey(file) {
  const url = new URL(file.path, location.href);
  url.search = 'sha256=' + file.sha256;
  return url.href;
}

function cacheName() {
  return CACHE_PREFIX + graphSha256(page.model);
}

// This model's cache (older models' caches removed), or null where the browser has no Cache Storage here (not a
// secure context: http:// on another host than localhost) or refuses it.
export async function openCache() {
  if (!window.caches) return null;
  try {
    const name = cacheName();
    const names = await caches.keys();
    await Promise.all(names.filter((n) => n.indexOf(CACHE_PREFIX) === 0 && n !== name)
                           .map((n) => caches.delete(n)));
    const store = await caches.open(name);
    const wanted = page.model.files.map(cacheKey);
    const kept = await store.keys();
    await Promise.all(kept.filter((r) => wanted.indexOf(r.url) < 0).map((r) => store.delete(r)));
    return store;
  } catch (e) {
    console.warn('The model will not be kept in this browser: ' + e.message);
    return null;
  }
}

// The file as kept in the store, or null where it is not (or not whole).
export async function fromCache(store, file) {
  if (!store) return null;
  try {
    const response = await store.match(cacheKey(file));
    if (!response) return null;
    const blob = await response.blob();
    return blob.size === file.bytes ? blob : null;
  } catch {
    return null;
  }
}

// Keeps the file; whether it was kept.
export async function keep(store, file, blob) {
  if (!store) return false;
  try {
    await store.put(cacheKey(file), new Response(blob, {headers: {'Content-Type': 'application/octet-stream',
                                                                   'Content-Length': String(blob.size)}}));
    return true;
  } catch (e) {
    console.warn('The model could not be kept in this browser (' + e.message + '): the next visit downloads it again.');
    return false;
  }
}

// Deletes the kept copy of a file (its bytes were not the build's).
export async function drop(store, file) {
  if (!store) return;
  try {
    await store.delete(cacheKey(file));
  } catch (e) {
    console.warn('A damaged copy of ' + file.name + ' could not be deleted from this browser: ' + e.message);
  }
}

// Whether every file of the model is kept in this browser (a visit before loaded it), read without opening a cache
// that is not there and without reading the files: each one's entry, of its size where the entry says it (loading
// checks each size again, and downloads what is missing).
export async function allKept() {
  if (!window.caches) return false;
  try {
    const name = cacheName();
    if (!(await caches.has(name))) return false;
    const store = await caches.open(name);
    for (const file of page.model.files) {
      const response = await store.match(cacheKey(file));
      if (!response) return false;
      const length = response.headers.get('Content-Length');
      if (length !== null && Number(length) !== file.bytes) return false;
    }
    return true;
  } catch {
    return false;
  }
}

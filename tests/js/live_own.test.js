// A figure's page with the reader's sentence: live.html hands a text its address brings on to the figures' links
// (templates/js/live/own.js linkWithText), and the tokenizer and the runtime are loaded in order, once, when asked
// (scripts.js loadInOrder).
import assert from 'node:assert/strict';
import {test} from 'node:test';

import {linkWithText} from '../../templates/js/live/own.js';
import {loadInOrder, present} from '../../templates/js/live/scripts.js';

test('a link to a figure carries the text an address brings, with its target and token, in place of #try-own', () => {
  assert.equal(linkWithText('figure-l.html#try-own', '#text=Hello%20world&token=2'),
               'figure-l.html#text=Hello%20world&token=2');
  assert.equal(linkWithText('figure-lens.html#try-own', '#target=%20dog&text=A'), 'figure-lens.html#target=%20dog&text=A');
});

test('without a text in the address the link opens the figure\'s form as it is', () => {
  assert.equal(linkWithText('figure-l.html#try-own', ''), 'figure-l.html#try-own');
  assert.equal(linkWithText('figure-l.html#try-own', '#token=2'), 'figure-l.html#try-own');
  assert.equal(linkWithText('figure-l.html#try-own', '#context=1'), 'figure-l.html#try-own');  // not "text="
});

// A document whose scripts load (or fail, for a path in `broken`) when the test says so (`settle`), in order.
function documentOf(broken) {
  const added = [], waiting = [];
  return {
    added: added,
    head: {appendChild: (script) => {
      added.push(script.src);
      waiting.push(() => { (broken.includes(script.src) ? script.onerror : script.onload)(); });
    }},
    createElement: () => ({}),
    settle: async () => {
      await new Promise((resolve) => { setImmediate(resolve); });  // the promise chain adds what comes next
      while (waiting.length) {
        waiting.shift()();
        await new Promise((resolve) => { setImmediate(resolve); });
      }
    },
  };
}

test('the scripts are added one after the other, each once the one before has run', async () => {
  const doc = documentOf([]);
  const paths = ['live/tokenizer.js', 'live/tokenize.js', 'live/ort/ort.wasm.min.js'];
  const loading = loadInOrder(paths, doc);
  await new Promise((resolve) => { setImmediate(resolve); });
  assert.deepEqual(doc.added, ['live/tokenizer.js']);  // the next waits for it to run
  await doc.settle();
  await loading;
  assert.deepEqual(doc.added, paths);
});

test('a script that fails stops the ones after it and names itself', async () => {
  const doc = documentOf(['live/tokenize.js']);
  const refused = assert.rejects(loadInOrder(['live/tokenizer.js', 'live/tokenize.js', 'live/ort/ort.wasm.min.js'], doc),
                                 /could not load live\/tokenize\.js/);
  await doc.settle();
  await refused;
  assert.deepEqual(doc.added, ['live/tokenizer.js', 'live/tokenize.js']);
});

test('the scripts are there once both the tokenizer and the runtime are', () => {
  assert.equal(present({}), false);
  assert.equal(present({liveTokens: {}}), false);
  assert.equal(present({liveTokens: {}, ort: {}}), true);
});

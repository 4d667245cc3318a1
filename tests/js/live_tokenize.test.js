// The live page's tokenizer as ES modules (templates/js/tokenize/tokenize.js, with Tokenizers.js from node_modules):
// it reads whatever tokenizer.json the global liveTokenizerJson holds, and makes its tokenizer again when that changes.
import assert from 'node:assert/strict';
import {readFileSync} from 'node:fs';
import {afterEach, test} from 'node:test';

import {decode, encode, modelIds, startId, tokenText} from '../../templates/js/tokenize/tokenize.js';

const fixture = (name) => JSON.parse(readFileSync(new URL('fixtures/' + name, import.meta.url), 'utf8'));

afterEach(() => { delete globalThis.liveTokenizerJson; });

test('the tokenizer is the one of the JSON the page holds, made again for another', () => {
  globalThis.liveTokenizerJson = fixture('byte-level.tokenizer.json');
  assert.equal(startId(), null);
  const bytes = encode('The animal');
  globalThis.liveTokenizerJson = fixture('llama-style.tokenizer.json');
  assert.notEqual(startId(), null);
  assert.notDeepEqual(encode('The animal'), bytes);
  assert.equal(modelIds('The animal')[0], startId());
});

test('a run of byte pieces that is a whole character decodes to it', () => {
  globalThis.liveTokenizerJson = fixture('llama-style.tokenizer.json');
  const ids = encode('a€b');
  assert.equal(decode(ids), 'a€b');
  assert.equal(decode([]), '');
  assert.equal(tokenText(startId()), '<s>');
});

test('without the JSON nothing is made up', () => {
  assert.throws(() => encode('a'), /the model's tokenizer is missing/);
});

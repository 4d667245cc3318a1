// The live page's tokenizer (templates/js/tokenize/tokenize.js): '<|endoftext|>' is token 50256 wherever it is
// typed, each piece around it encoded alone, as the build's tokenizer has it.
import assert from 'node:assert/strict';
import {createRequire} from 'node:module';
import {fileURLToPath} from 'node:url';
import {afterEach, test} from 'node:test';

import {END_OF_TEXT_ID, decode, encode, tokenText} from '../../templates/js/tokenize/tokenize.js';

const require = createRequire(import.meta.url);
// The bundle the site ships (live/gpt-tokenizer/r50k_base.js; figsite/site/live_assets.py), as a browser loads it.
const realBpe = require(fileURLToPath(new URL('../../node_modules/gpt-tokenizer/dist/r50k_base.js', import.meta.url)));

afterEach(() => { delete globalThis.GPTTokenizer_r50k_base; });

// A BPE that writes down each piece it is asked to encode, and gives one id per letter.
function recordingBpe() {
  const pieces = [];
  globalThis.GPTTokenizer_r50k_base = {
    encode(piece) {
      pieces.push(piece);
      return Array.from(piece, (c) => c.charCodeAt(0));
    },
  };
  return pieces;
}

test('the text is split on <|endoftext|> and each piece encoded alone', () => {
  const pieces = recordingBpe();
  const ids = encode('ab<|endoftext|>c');
  assert.deepEqual(pieces, ['ab', 'c']);
  assert.deepEqual(ids, [97, 98, END_OF_TEXT_ID, 99]);
});

test('<|endoftext|> at either end, or twice in a row, is one token each and encodes no empty piece', () => {
  const pieces = recordingBpe();
  assert.deepEqual(encode('<|endoftext|>a<|endoftext|><|endoftext|>'), [END_OF_TEXT_ID, 97, END_OF_TEXT_ID,
                                                                         END_OF_TEXT_ID]);
  assert.deepEqual(pieces, ['a']);
});

test("with GPT-2's own BPE, <|endoftext|> in the middle of a text is 50256", () => {
  globalThis.GPTTokenizer_r50k_base = realBpe;
  const alone = encode(' world');
  const ids = encode('Hello<|endoftext|> world');
  assert.deepEqual(ids, [...encode('Hello'), END_OF_TEXT_ID, ...alone]);
  assert.equal(decode(ids), 'Hello<|endoftext|> world');
  assert.equal(tokenText(END_OF_TEXT_ID), '<|endoftext|>');
});

test('a text without <|endoftext|> is what the BPE makes of it', () => {
  globalThis.GPTTokenizer_r50k_base = realBpe;
  const text = 'The dog barked, because it was hungry.';
  assert.deepEqual(encode(text), realBpe.encode(text));
});

test('a missing BPE is said in one sentence', () => {
  assert.throws(() => encode('a'), /load gpt-tokenizer's r50k_base.js before tokenize.js/);
});

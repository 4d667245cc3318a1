// Encodes texts with Tokenizers.js (@huggingface/tokenizers, pinned in package.json), the JavaScript library the
// live page is to read a model's own tokenizer.json with: called by tests/unit/test_tokenizers_js.py, which holds
// its ids and decoded texts to those of the `tokenizers` library that the build runs.
//
//     node tests/js/encode_with_tokenizers.mjs TOKENIZER_JSON TEXTS_JSON  ->  [{ids, text}, ...] on stdout
import {readFileSync} from 'node:fs';

import {Tokenizer} from '@huggingface/tokenizers';

const [tokenizerFile, textsFile] = process.argv.slice(2);
const tokenizer = new Tokenizer(JSON.parse(readFileSync(tokenizerFile, 'utf8')), {});
const texts = JSON.parse(readFileSync(textsFile, 'utf8'));
const out = texts.map((text) => {
  const ids = tokenizer.encode(text).ids;
  return {ids, text: tokenizer.decode(ids, {skip_special_tokens: true, clean_up_tokenization_spaces: false})};
});
process.stdout.write(JSON.stringify(out));

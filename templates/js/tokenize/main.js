// The model's tokenizer for the live page, bundled with Tokenizers.js into the classic script live/tokenize.js. Load
// it after live/tokenizer.js (the model's tokenizer.json, written by the build); both work from file:// too. In the
// site (sitegen/site/live.py):
//   <script src="live/tokenizer.js"></script><script src="live/tokenize.js"></script>
// Sets window.liveTokens = {encode, modelIds, tokenBytes, tokenText, decode, startId, END_OF_TEXT, END_OF_TEXT_ID},
// which the live page's script (live/live.js) reads. The tokenizer is made when first asked (not as the page opens).
import {END_OF_TEXT, decode, encode, endOfTextId, modelIds, startId, tokenBytes, tokenText} from './tokenize.js';

globalThis.liveTokens = {
  encode: encode, modelIds: modelIds, tokenBytes: tokenBytes, tokenText: tokenText, decode: decode, startId: startId,
  END_OF_TEXT: END_OF_TEXT,
  get END_OF_TEXT_ID() { return endOfTextId(); },
};

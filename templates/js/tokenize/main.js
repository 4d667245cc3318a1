// GPT-2's tokenizer for the live page, bundled into the classic script live/tokenize.js. Load it after gpt-tokenizer's
// r50k_base bundle; both work from file:// too. In the site (figsite/site/live_assets.py):
//   <script src="live/gpt-tokenizer/r50k_base.js"></script><script src="live/tokenize.js"></script>
// Sets window.liveTokens = {encode, tokenBytes, tokenText, decode, END_OF_TEXT, END_OF_TEXT_ID}, which the live
// page's script (live/live.js) reads.
import {END_OF_TEXT, END_OF_TEXT_ID, decode, encode, tokenBytes, tokenText} from './tokenize.js';

globalThis.liveTokens = {encode: encode, tokenBytes: tokenBytes, tokenText: tokenText, decode: decode,
                         END_OF_TEXT: END_OF_TEXT, END_OF_TEXT_ID: END_OF_TEXT_ID};

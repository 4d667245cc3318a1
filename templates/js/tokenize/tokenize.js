// The model's own tokenizer in the browser, as the build's figsite/model/tokens.py has it: a text's token ids, the
// start token a Llama puts in front, and each token's text as the data files write it (' animal', '<E2 80>' for the
// bytes of part of a character).
//
// Tokenizers.js (@huggingface/tokenizers, pinned in package.json and bundled in) runs the model's tokenizer.json,
// which the build writes into the site as live/tokenizer.js, a classic script that sets the global
// liveTokenizerJson: a script, not a file fetched, so that the tokenizer is there, ready, before the page's own
// script runs (and from file:// too). main.js beside this sets window.liveTokens; checked against the build's
// tokenizer by tests/browser/test_live_tokenizer.py, and by tests/js/live_tokenize.test.js.
//
// The ids come from Tokenizers.js; a token's bytes and text are worked out here from its piece, as the build does:
// a byte-level piece ('âĢ': GPT-2's printable characters for bytes), a byte-fallback piece ('<0xE2>'), a '▁' for the
// space before a word.
import {ByteFallbackDecoder, Tokenizer} from '@huggingface/tokenizers';

export const END_OF_TEXT = '<|endoftext|>';
const WORD_START = '\u2581';

let made = null;  // {json, tokenizer, startId}: the tokenizer of the JSON it was made from

// Tokenizers.js's tokenizer of the model's tokenizer.json (made once, when first asked).
export function tokenizer() {
  const json = globalThis.liveTokenizerJson;
  if (!json || typeof json !== 'object') {
    throw new Error("the model's tokenizer is missing: load live/tokenizer.js before live/tokenize.js");
  }
  if (made === null || made.json !== json) {
    const built = new Tokenizer(json, {});
    asTheBuildDecodesBytes(built.decoder);
    made = {json: json, tokenizer: built, startId: findStart(built)};
  }
  return made.tokenizer;
}

// Tokenizers.js's byte-fallback decoder turns a run of byte pieces ('<0xE2>') that is no whole text into text with
// U+FFFD where the bytes break; the `tokenizers` library (Rust) gives one U+FFFD for each byte of such a run. The
// build's rule, put in place of Tokenizers.js's in the decoder (alone or in a Sequence).
function asTheBuildDecodesBytes(decoder) {
  if (!decoder) return;
  (decoder.decoders || []).forEach(asTheBuildDecodesBytes);
  if (decoder instanceof ByteFallbackDecoder) decoder.decode_chain = byteFallbackChain;
}

function byteFallbackChain(tokens) {
  const out = [], strict = new TextDecoder('utf-8', {fatal: true, ignoreBOM: true});
  let run = [];
  const flush = () => {
    if (!run.length) return;
    try {
      out.push(strict.decode(Uint8Array.from(run)));
    } catch {
      run.forEach(() => { out.push('\ufffd'); });
    }
    run = [];
  };
  tokens.forEach((token) => {
    const byte = /^<0x([0-9A-Fa-f]{2})>$/.exec(token);
    if (byte) run.push(parseInt(byte[1], 16));
    else flush(), out.push(token);
  });
  flush();
  return out;
}

// The start token the tokenizer's post-processor puts in front of a text (a Llama's <s>), else null: the build's
// tokens._start_id.
function findStart(built) {
  const plain = built.encode('a', {add_special_tokens: false}).ids, marked = built.encode('a').ids;
  const rest = marked.slice(1, 1 + plain.length);
  return marked.length > plain.length && rest.every((id, i) => id === plain[i]) ? marked[0] : null;
}

// The start token's id, or null where the model reads a text as it is (GPT-2).
export function startId() {
  tokenizer();
  return made.startId;
}

// The id of '<|endoftext|>' where the vocabulary has it (GPT-2's 50256), else null.
export function endOfTextId() {
  const id = tokenizer().token_to_id(END_OF_TEXT);
  return id === undefined ? null : id;
}

// The text's own token ids (no start token: modelIds puts it in front), as the build's tokenizer.encode.
export function encode(text) {
  return tokenizer().encode(String(text), {add_special_tokens: false}).ids;
}

// The ids the model reads for a text: the start token in front where the tokenizer has one (the build's token_ids).
export function modelIds(text) {
  const ids = encode(text), start = startId();
  return start === null ? ids : [start].concat(ids);
}

function pieceOf(id) {
  const piece = Number.isInteger(id) ? tokenizer().id_to_token(id) : undefined;
  if (piece === undefined) throw new Error('no token ' + id + " in the model's vocabulary");
  return piece;
}

// GPT-2's byte-level pieces write each of the 256 bytes as a printable character; this maps them back.
function byteOfChar() {
  const chars = new Map();
  let extra = 0;
  for (let byte = 0; byte < 256; byte++) {
    const printable = (byte >= 0x21 && byte <= 0x7e) || (byte >= 0xa1 && byte <= 0xac) || byte >= 0xae;
    chars.set(String.fromCharCode(printable ? byte : 256 + extra++), byte);
  }
  return chars;
}

const BYTE_OF_CHAR = byteOfChar();

// Whether the tokenizer writes every byte as one of GPT-2's printable characters (a ByteLevel decoder, alone or in a
// Sequence: GPT-2's, Pythia's), rather than pieces of text with byte-fallback pieces (a Llama's): tokens._byte_level.
function byteLevel() {
  tokenizer();
  return JSON.stringify(made.json.decoder || null).indexOf('"type":"ByteLevel"') >= 0;
}

// Whether a token is one of the tokenizer's special tokens (<s>, <|endoftext|>).
function special(id) {
  tokenizer();
  return (made.json.added_tokens || []).some((added) => added.id === id && added.special);
}

// The bytes a token stands for (a Uint8Array), from its byte-level piece, its byte-fallback piece or, in a tokenizer
// of text pieces, its text ('▁é' -> ' é' in UTF-8); null for a special token, as the build's piece_bytes.
export function tokenBytes(id) {
  const piece = pieceOf(id), fallback = /^<0x([0-9A-Fa-f]{2})>$/.exec(piece);
  if (fallback) return new Uint8Array([parseInt(fallback[1], 16)]);
  if (!byteLevel()) return special(id) ? null : new TextEncoder().encode(piece.split(WORD_START).join(' '));
  const chars = Array.from(piece);
  if (!chars.every((c) => BYTE_OF_CHAR.has(c))) return null;
  return new Uint8Array(chars.map((c) => BYTE_OF_CHAR.get(c)));
}

// The length of the well-formed UTF-8 character at bytes[i], or of its longest well-formed start (as a
// negative number) where it is cut short or broken: Unicode's "maximal subpart", as Python decodes.
function characterLength(bytes, i) {
  const first = bytes[i];
  let need, low = 0x80, high = 0xbf;
  if (first < 0x80) return 1;
  if (first >= 0xc2 && first <= 0xdf) need = 1;
  else if (first >= 0xe0 && first <= 0xef) {
    need = 2;
    if (first === 0xe0) low = 0xa0;
    if (first === 0xed) high = 0x9f;
  } else if (first >= 0xf0 && first <= 0xf4) {
    need = 3;
    if (first === 0xf0) low = 0x90;
    if (first === 0xf4) high = 0x8f;
  } else return -1;
  for (let k = 1; k <= need; k++) {
    const next = bytes[i + k];
    if (next === undefined || next < low || next > high) return -k;
    low = 0x80, high = 0xbf;
  }
  return need + 1;
}

function hex(byte) {
  return (byte < 16 ? '0' : '') + byte.toString(16).toUpperCase();
}

// Bytes as text; each run of bytes that are no whole character written in hex, '<E2 80>'.
function escaped(bytes) {
  let out = '', run = [], i = 0;
  const whole = new TextDecoder('utf-8', {ignoreBOM: true});
  while (i < bytes.length) {
    const length = characterLength(bytes, i);
    if (length > 0) {
      if (run.length) out += '<' + run.join(' ') + '>', run = [];
      out += whole.decode(bytes.subarray(i, i + length));
      i += length;
    } else {
      for (let k = 0; k < -length; k++) run.push(hex(bytes[i + k]));
      i += -length;
    }
  }
  if (run.length) out += '<' + run.join(' ') + '>';
  return out;
}

// One token decoded alone, as the build writes it (tokens.decoded): ' animal', '<|endoftext|>', '<s>', ' <E6>'. A
// word's token keeps its space where a Llama's decoder drops a text's first; the bytes of part of a character are
// written in hex.
export function tokenText(id) {
  // An id past the tokenizer's vocabulary (a model's padded rows, as Pythia's and Qwen's: scored, never typed) is
  // named as the build names it (figsite.model.tokens.decoded), so that no label is blank.
  if (Number.isInteger(id) && id >= 0 && tokenizer().id_to_token(id) === undefined) return '<unused ' + id + '>';
  const piece = pieceOf(id);
  let text = tokenizer().decode([id], {skip_special_tokens: false, clean_up_tokenization_spaces: false});
  if (piece.charAt(0) === WORD_START && text.charAt(0) !== ' ') text = ' ' + text;
  if (text.indexOf('\ufffd') < 0) return text;
  const bytes = tokenBytes(id);
  return bytes === null ? text : escaped(bytes);
}

// Token ids back to text, as the build's tokenizer.decode: special tokens as their letters, each run of bytes
// that is no whole character as one U+FFFD.
export function decode(ids) {
  ids = Array.from(ids);
  ids.forEach(pieceOf);
  if (!ids.length) return '';
  return tokenizer().decode(ids, {skip_special_tokens: false, clean_up_tokenization_spaces: false});
}

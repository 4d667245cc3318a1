// GPT-2's tokenizer in the browser, as the build's figsite/model/tokens.py has it: a text's token ids, and
// each token's text as the data files write it (' animal', '<E2 80>' for the bytes of part of a character).
//
// Reads gpt-tokenizer's r50k_base bundle (GPT-2's BPE, a plain script that sets the global
// GPTTokenizer_r50k_base) when called. main.js beside this sets window.liveTokens from it; checked against the
// build's tokenizer by tests/browser/test_live_tokenizer.py, and by tests/js/live_tokenize.test.js.
//
// Two things of gpt-tokenizer are not used, on purpose:
// - encode's allowedSpecial finds '<|endoftext|>' only at the start of the text or right after another (its
//   search is a sticky regex), so the text is split on it here and each piece encoded alone: '<|endoftext|>'
//   typed anywhere is token 50256, as the build's tokenizer (an added special token of `tokenizers`) has it;
// - decode streams bytes through one shared TextDecoder, so a token that is part of a character decodes to ''
//   and leaves its bytes for the next call; the bytes are taken token by token here and decoded anew each time.
export const END_OF_TEXT = '<|endoftext|>';
export const END_OF_TEXT_ID = 50256;

function bpe() {
  var found = globalThis.GPTTokenizer_r50k_base;
  if (!found || typeof found.encode !== 'function') {
    throw new Error("GPT-2's tokenizer is missing: load gpt-tokenizer's r50k_base.js before tokenize.js");
  }
  return found;
}

// The text's token ids, as the model reads them (no token added in front).
export function encode(text) {
  var tokenizer = bpe(), ids = [], pieces = String(text).split(END_OF_TEXT);
  for (var i = 0; i < pieces.length; i++) {
    if (i > 0) ids.push(END_OF_TEXT_ID);
    if (pieces[i] === '') continue;
    var found = tokenizer.encode(pieces[i], {disallowedSpecial: new Set()});
    for (var j = 0; j < found.length; j++) ids.push(found[j]);
  }
  return ids;
}

var utf8 = new TextEncoder();

// The bytes a token stands for (a Uint8Array); those of its letters for '<|endoftext|>', as the build's
// piece_bytes has them; null for an id out of range.
export function tokenBytes(id) {
  if (id === END_OF_TEXT_ID) return utf8.encode(END_OF_TEXT);
  var core = bpe().bytePairEncodingCoreProcessor;
  var parts = Array.from(core.decodeNativeGenerator([id]));
  if (parts.length !== 1) return null;
  return typeof parts[0] === 'string' ? utf8.encode(parts[0]) : new Uint8Array(parts[0]);
}

// The length of the well-formed UTF-8 character at bytes[i], or of its longest well-formed start (as a
// negative number) where it is cut short or broken: Unicode's "maximal subpart", as Python decodes.
function characterLength(bytes, i) {
  var first = bytes[i], need, low = 0x80, high = 0xbf;
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
  for (var k = 1; k <= need; k++) {
    var next = bytes[i + k];
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
  var out = '', run = [], i = 0, whole = new TextDecoder('utf-8');
  while (i < bytes.length) {
    var length = characterLength(bytes, i);
    if (length > 0) {
      if (run.length) out += '<' + run.join(' ') + '>', run = [];
      out += whole.decode(bytes.subarray(i, i + length));
      i += length;
    } else {
      for (var k = 0; k < -length; k++) run.push(hex(bytes[i + k]));
      i += -length;
    }
  }
  if (run.length) out += '<' + run.join(' ') + '>';
  return out;
}

// One token decoded alone, as the build writes it: ' animal', '<|endoftext|>', ' <E6>'.
export function tokenText(id) {
  var bytes = tokenBytes(id);
  if (bytes === null) throw new Error('no token ' + id + " in GPT-2's vocabulary");
  return escaped(bytes);
}

// Token ids back to text, as the build's tokenizer.decode: all the tokens' bytes ('<|endoftext|>' as its
// letters) decoded at once, each run of bytes that is no whole character as one U+FFFD.
export function decode(ids) {
  var parts = [], total = 0, i;
  for (i = 0; i < ids.length; i++) {
    var bytes = tokenBytes(ids[i]);
    if (bytes === null) throw new Error('no token ' + ids[i] + " in GPT-2's vocabulary");
    parts.push(bytes), total += bytes.length;
  }
  var all = new Uint8Array(total), at = 0;
  for (i = 0; i < parts.length; i++) all.set(parts[i], at), at += parts[i].length;
  return new TextDecoder('utf-8').decode(all);
}

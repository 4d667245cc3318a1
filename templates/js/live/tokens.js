// The text's tokens as the page writes them, from the tokenizer's glue (window.liveTokens, tokenize.js).

// A token as the pages write it (figures.toolkit.words.shown): a leading space as '_', line breaks and other
// control characters as visible escapes (\n, \v, \x1b, \u2028), so that none prints as nothing.
const ESCAPES = {'\n': '\\n', '\t': '\\t', '\r': '\\r', '\v': '\\v', '\f': '\\f', '\0': '\\0'};

function escapeCharacter(c) {
  const code = c.charCodeAt(0);
  return ESCAPES[c] || (code < 0x100 ? '\\x' + ('0' + code.toString(16)).slice(-2) : '\\u' + code.toString(16));
}

export function shown(token) {
  if (token.charAt(0) === ' ') token = '_' + token.slice(1);
  // eslint-disable-next-line no-control-regex -- control characters are what it finds
  return token.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufffe\uffff]/g, escapeCharacter);
}

const texts = {};  // id -> its text, asked of the tokenizer once

// One token decoded alone (' animal'); '<token N>' where the tokenizer has no such token.
export function tokenText(id) {
  if (!(id in texts)) {
    try {
      texts[id] = globalThis.liveTokens.tokenText(id);
    } catch {
      texts[id] = '<token ' + id + '>';
    }
  }
  return texts[id];
}

export function tokenName(id) {
  return shown(tokenText(id));
}

// A float32 as its shortest exact decimal (9 significant digits always suffice), for the downloads.
export function f32(x) {
  return +x.toPrecision(9);
}

// The live page's tokenizer (templates/generated/live/tokenize.js, a classic script bundling Tokenizers.js), loaded as the page
// loads it: after live/tokenizer.js, which sets the model's tokenizer.json as the global liveTokenizerJson, in a
// fresh global scope. Two small tokenizers made with the `tokenizers` library (tests/js/fixtures/): a byte-level BPE
// as GPT-2's, with <|endoftext|>, and a Llama-style one with a start token and byte-fallback pieces.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import vm from "node:vm";

const BUNDLE = readFileSync(new URL("../../templates/generated/live/tokenize.js", import.meta.url), "utf8");

function pageWith(fixture) {
  const page = vm.createContext({ TextDecoder, TextEncoder });
  if (fixture) {
    page.liveTokenizerJson = JSON.parse(readFileSync(new URL("fixtures/" + fixture, import.meta.url), "utf8"));
  }
  vm.runInContext(BUNDLE, page);
  return page.liveTokens;
}

const gptLike = pageWith("byte-level.tokenizer.json");
const llamaLike = pageWith("llama-style.tokenizer.json");

test("<|endoftext|> typed anywhere in a text is its one token, and the text around it is encoded alone", () => {
  const end = gptLike.END_OF_TEXT_ID;
  assert.ok(Number.isInteger(end));
  const hello = Array.from(gptLike.encode("Hello")), world = Array.from(gptLike.encode(" world"));
  assert.deepEqual(Array.from(gptLike.encode("Hello<|endoftext|> world")), [...hello, end, ...world]);
  assert.deepEqual(Array.from(gptLike.encode("<|endoftext|><|endoftext|>Hello")), [end, end, ...hello]);
});

test("a byte-level tokenizer has no start token: the model reads the text's own ids", () => {
  assert.equal(gptLike.startId(), null);
  assert.deepEqual(Array.from(gptLike.modelIds("The animal")), Array.from(gptLike.encode("The animal")));
  assert.deepEqual(Array.from(gptLike.encode("")), []);
});

test("decoding the ids gives the text back, special tokens as their letters", () => {
  for (const text of ["Ice melts<|endoftext|> é", "日本語 😀 naïve", "def f(x):\n    return x"]) {
    assert.equal(gptLike.decode(gptLike.encode(text)), text);
    assert.equal(llamaLike.decode(llamaLike.encode(text)), text);
  }
});

test("a byte-level piece's bytes are GPT-2's: 'Ġ' is a space, a piece of part of a character is written in hex", () => {
  const [space] = gptLike.encode(" ");
  assert.deepEqual(Array.from(gptLike.tokenBytes(space)), [0x20]);
  const partial = gptLike.encode("😀").filter((id) => gptLike.tokenBytes(id).length < 4);
  assert.ok(partial.length > 0);
  partial.forEach((id) => { assert.match(gptLike.tokenText(id), /^<[0-9A-F]{2}( [0-9A-F]{2})*>$/); });
});

test("a Llama-style tokenizer puts its start token in front for the model, never in the text's own ids", () => {
  const start = llamaLike.startId();
  assert.equal(llamaLike.tokenText(start), "<s>");
  const own = Array.from(llamaLike.encode("The animal")), model = Array.from(llamaLike.modelIds("The animal"));
  assert.ok(!own.includes(start));
  assert.deepEqual(model, [start, ...own]);
});

test("a word's token keeps its space, and a byte-fallback piece is its byte in hex", () => {
  const [first] = llamaLike.encode("The");
  assert.ok(llamaLike.tokenText(first).startsWith(" "));
  const euro = Array.from(llamaLike.encode("€"));  // no piece of its own: three byte pieces, E2 82 AC
  const texts = euro.map((id) => llamaLike.tokenText(id)).filter((t) => t.trim() !== "");
  assert.deepEqual(texts, ["<E2>", "<82>", "<AC>"]);
  assert.deepEqual(euro.slice(-3).map((id) => Array.from(llamaLike.tokenBytes(id))), [[0xe2], [0x82], [0xac]]);
});

test("bytes that are no whole text decode as the tokenizers library has it: one U+FFFD a byte", () => {
  const [e2, x82] = llamaLike.encode("€").slice(-3);
  assert.equal(llamaLike.decode([e2, x82]), "\ufffd\ufffd");
});

test("a token that is no id, or a missing tokenizer, is said in one sentence", () => {
  assert.throws(() => llamaLike.tokenText(-1), /no token -1 in the model's vocabulary/);
  assert.throws(() => llamaLike.tokenBytes(100000), /no token 100000 in the model's vocabulary/);
  assert.throws(() => pageWith(null).encode("a"), /load live\/tokenizer.js before live\/tokenize.js/);
});

test("an id past the tokenizer's vocabulary (a model's padded rows) is named as the build names it", () => {
  for (const page of [gptLike, llamaLike]) {
    assert.equal(page.tokenText(100000), "<unused 100000>");
    assert.throws(() => page.decode([100000]), /no token 100000/);
  }
});

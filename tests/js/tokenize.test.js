// The live page's tokenizer glue (templates/live/tokenize.js, a classic script), loaded as the page loads it: after
// gpt-tokenizer's r50k_base bundle, in a fresh global scope.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import vm from "node:vm";

// The file the site copies (figsite/site/live_assets.py): gpt-tokenizer exports no path to it.
const BPE = new URL("../../node_modules/gpt-tokenizer/dist/r50k_base.js", import.meta.url);
const page = vm.createContext({ TextDecoder, TextEncoder });
vm.runInContext(readFileSync(BPE, "utf8"), page);
vm.runInContext(readFileSync(new URL("../../templates/live/tokenize.js", import.meta.url), "utf8"), page);
const tokens = page.liveTokens;
const END = tokens.END_OF_TEXT_ID;

test("<|endoftext|> typed anywhere in a text is token 50256, and the pieces around it are encoded alone", () => {
  assert.equal(END, 50256);
  const hello = Array.from(tokens.encode("Hello")), world = Array.from(tokens.encode(" world"));
  assert.deepEqual(Array.from(tokens.encode("Hello<|endoftext|> world")), [...hello, END, ...world]);
  assert.deepEqual(Array.from(tokens.encode("<|endoftext|><|endoftext|>Hello")), [END, END, ...hello]);
  assert.deepEqual(Array.from(tokens.encode("Hello<|endoftext|>")), [...hello, END]);
});

test("a text without it is encoded as GPT-2's BPE encodes it", () => {
  assert.deepEqual(Array.from(tokens.encode("Hello world")), [15496, 995]);
  assert.deepEqual(Array.from(tokens.encode("")), []);
});

test("decoding the ids gives the text back, <|endoftext|> as its letters", () => {
  const text = "Ice melts<|endoftext|> é";
  assert.equal(tokens.decode(tokens.encode(text)), text);
});

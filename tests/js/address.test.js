// The address state (templates/js/shared/address.js): what the page writes after '#' reads back as it was written.
import assert from "node:assert/strict";
import { beforeEach, describe, test } from "node:test";

import { addressOf, allowed, decimals, onStep, parseAddress, readAddress, writeAddress } from "../../templates/js/shared/address.js";

// The page's address, as the browser keeps it: history.replaceState sets location.hash.
function fakeAddress(hash) {
  globalThis.location = { hash: hash };
  globalThis.history = { replaceState: function (state, title, url) { globalThis.location.hash = url; } };
}

describe("the address state", () => {
  beforeEach(() => fakeAddress(""));

  test("reads back every pair it writes, escapes included", () => {
    const pairs = [["l.token", 7], ["view", "5-12"], ["text", "a b&c=d #é%"], ["target", ""]];
    writeAddress(pairs);
    assert.equal(globalThis.location.hash, "#l.token=7&view=5-12&text=a%20b%26c%3Dd%20%23%C3%A9%25&target=");
    assert.deepEqual(readAddress(), { "l.token": "7", view: "5-12", text: "a b&c=d #é%", target: "" });
  });

  test("writes the pairs in their order, each value as a string", () => {
    assert.equal(addressOf([["b", 2], ["a", true]]), "#b=2&a=true");
    assert.equal(addressOf([]), "#");
  });

  test("leaves out a pair with a broken escape or no key, and keeps the rest", () => {
    assert.deepEqual(parseAddress("#token=%E0%A4%A&view=all&=3&stage"), { view: "all" });
    assert.deepEqual(parseAddress(""), {});
  });

  test("takes a value the input allows: one of its options, as the option is", () => {
    const bind = { input: "select", options: [1, 2, 3] };
    assert.equal(allowed(bind, "2"), 2);
    assert.equal(allowed(bind, 3), 3);
    assert.equal(allowed(bind, "4"), undefined);
  });

  test("takes a value in a range to its nearest step, and nothing outside it", () => {
    const bind = { input: "range", min: 0, max: 12, step: 2 };
    assert.equal(allowed(bind, "5.2"), 6);
    assert.equal(allowed(bind, "13"), undefined);
    assert.equal(allowed(bind, ""), undefined);
    assert.equal(allowed(bind, "x"), undefined);
    assert.equal(allowed({ input: "checkbox" }, "true"), undefined);
  });

  test("writes a range's value with its step's digits, never a float's tail", () => {
    const bind = { input: "range", min: 0.1, max: 4, step: 0.05 };
    assert.equal(0.1 + 28 * 0.05, 1.5000000000000002);  // what min + steps gives
    assert.equal(String(allowed(bind, "1.5")), "1.5");
    assert.equal(String(allowed(bind, "1.5000000000000002")), "1.5");
    assert.equal(String(allowed(bind, "1.52")), "1.5");
    for (let k = 0; k <= 78; k++) {
      const value = allowed(bind, String(0.1 + k * 0.05));
      assert.equal(String(value), ((10 + 5 * k) / 100).toString(), "step " + k);
    }
  });

  test("takes a value past the last step of a range whose max is off its steps to that last step", () => {
    assert.equal(onStep({ min: 0, max: 11, step: 2 }, 11), 10);
    assert.equal(onStep({ min: 0, max: 1, step: 0.3 }, 1), 0.9);
  });

  test("counts the digits a number is written with", () => {
    assert.deepEqual([0.05, 3, 1e-7, 1.5e-7, 1e21, -0.25].map(decimals), [2, 0, 7, 8, 0, 2]);
  });
});

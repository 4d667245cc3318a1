// The live page's address (templates/js/live/address.js): the text, the target and the chosen token written after
// '#' come back as they were, whatever characters they hold.
import assert from 'node:assert/strict';
import {afterEach, test} from 'node:test';

import {readAddress} from '../../templates/js/shared/address.js';
import {askedBy, liveAddress} from '../../templates/js/live/address.js';

afterEach(() => { delete globalThis.location; });

// What the page reads from an address it wrote.
function readBack(hash) {
  globalThis.location = {hash: hash};
  return askedBy(readAddress());
}

test('a text, its target and its token come back from the address as they were written', () => {
  const text = 'Maya & Léa =1+1 #x?y\n<b>%20 "', target = ' a&b=c%';
  assert.deepEqual(readBack(liveAddress(text, target, 7)), {text: text, target: target, token: 7, gone: null});
});

test('without a chosen token the address names none, and reads back none', () => {
  const hash = liveAddress('a text', ' the', null);
  assert.equal(hash, '#text=a%20text&target=%20the');
  assert.equal(liveAddress('a', 'b', 7), '#text=a&target=b&token=7');
  assert.deepEqual(readBack(hash), {text: 'a text', target: ' the', token: null, gone: null});
});

test('an address without a text asks for nothing; one without a target leaves the target box as it is', () => {
  assert.equal(readBack('#token=3'), null);
  assert.equal(readBack(''), null);
  assert.deepEqual(readBack('#text=abc'), {text: 'abc', target: undefined, token: null, gone: null});
});

test('a token that is no number from 1 is none, and a broken escape loses only its own pair', () => {
  assert.equal(readBack('#text=a&token=0').token, null);
  assert.equal(readBack('#text=a&token=2x').token, null);
  assert.deepEqual(readBack('#text=%E0%A4%A&target=b&token=4'), null);
  assert.deepEqual(readBack('#target=%E0%A4%A&text=b&token=4'), {text: 'b', target: undefined, token: 4, gone: null});
});

test("two texts compared come back, each as it was written, and a text alone brings no text B", () => {
  const a = 'The cat sat & purred', b = 'The cat ran #away?';
  const hash = liveAddress(a, ' the', null, null, b);
  assert.equal(hash, '#text=The%20cat%20sat%20%26%20purred&text_b=The%20cat%20ran%20%23away%3F&target=%20the');
  assert.deepEqual(readBack(hash), {text: a, textB: b, target: ' the', token: null, gone: null});
  assert.equal('textB' in readBack(liveAddress(a, ' the', null)), false);
  assert.equal(readBack('#text=a&text_b=').textB, '');
});

test('where the model went on, its ids and where its own begin come back with the text', () => {
  const hash = liveAddress('Hello world', ' the', 3, {ids: [15496, 995, 13], from: 2});
  assert.equal(hash, '#text=Hello%20world&target=%20the&token=3&ids=15496.995.13&added_from=2');
  assert.deepEqual(readBack(hash).gone, {ids: [15496, 995, 13], from: 2});
});

test('ids that are no whole numbers, or a start of the model\'s own outside them, bring none', () => {
  for (const pairs of ['&ids=1.x.3&added_from=1', '&ids=1.2&added_from=2', '&ids=1.2&added_from=0', '&ids=&added_from=1',
                       '&ids=1.2', '&ids=1..2&added_from=1', '&ids=-1.2&added_from=1']) {
    assert.equal(readBack('#text=a' + pairs).gone, null, pairs);
  }
});

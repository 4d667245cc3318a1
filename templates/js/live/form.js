// The lines under the boxes, said as the reader types: the text's length in tokens ("11 of 64 tokens": the
// tokenizer is enough, no model needed), and which token a word typed without its space is taken for.
import {followedToken, room} from './asked.js';
import {page} from './page.js';

let counting = false;  // a frame is asked for to count the text

export function count() {
  counting = false;
  const countLine = page.el.countLine;
  if (!countLine || !window.liveTokens) return;
  const maxTokens = room(page.maxTokens);  // the text's own tokens: a start token is not counted
  const n = window.liveTokens.encode(page.el.textBox.value).length, over = n > maxTokens;
  countLine.textContent = n + ' of ' + maxTokens + ' tokens' + (over ? ': ' + (n - maxTokens) + ' too many' : '');
  countLine.toggleAttribute('data-over', over);
  countLine.hidden = false;
}

// Counts once in the next frame, however many keys were typed before it.
export function countSoon() {
  if (counting) return;
  counting = true;
  window.requestAnimationFrame(count);
}

export function sayTarget() {
  if (!page.el.targetSaid || !window.liveTokens) return;
  const followed = followedToken(page.el.targetBox.value);
  page.el.targetSaid.textContent = followed.said || '';
}

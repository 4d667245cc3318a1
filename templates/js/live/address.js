// The address (live.html#text=...&target=...&token=N) holds the text and target last run (or kept for the model),
// and the token chosen in the charts: a link brings them back. Read and written by shared/address.js.
import {addressOf, writeAddress as writePairs} from '../shared/address.js';
import {TOKEN} from '../shared/names.js';
import {page} from './page.js';
import {state} from './state.js';

// The pairs the address holds: the text, the target, and the token where one is chosen (under the name of the
// charts' param that chooses it).
function pairsOf(text, target, token) {
  return [['text', text], ['target', target]].concat(token ? [[TOKEN, token]] : []);
}

// The address's part after the page's own: '#text=...&target=...', and '&token=N' where a token is chosen.
export function liveAddress(text, target, token) {
  return addressOf(pairsOf(text, target, token));
}

// What an address's pairs ask for ({text, target, token}: target undefined where it names none, token a number
// from 1 or null), or null where it brings no text.
export function askedBy(fields) {
  if (!('text' in fields)) return null;
  const token = /^[1-9][0-9]*$/.test(fields[TOKEN] || '') ? Number(fields[TOKEN]) : null;
  return {text: fields.text, target: 'target' in fields ? fields.target : undefined, token: token};
}

// Writes the text and target into the address, with the token chosen for that text (or the one the address chose
// for it, before it is drawn).
export function writeAddress(text, target) {
  state.addressed = {text: text, target: target};
  const result = page.live.result, opening = state.opening;
  const token = result && result.text === text ? state.chosenToken :
                opening && opening.text === text ? opening.token : null;
  writePairs(pairsOf(text, target, token));
}

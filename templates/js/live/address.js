// The address (figure-l.html#text=...&target=...&token=N; the compare figure's #text=...&text_b=..., the patching
// figure's ...&text_b=...&target=...&versus=...) holds the text and target last run (or kept for the
// model), and the token chosen in the chart: a link brings them back. Where the model went on from the reader's
// text (more.js), it holds the ids it read too, and where its own began (&ids=1.2.3&added_from=2): a link brings
// back the very tokens, the model's marked, where cutting the words again could give others. Read and written by
// shared/address.js.
import {addressOf, writeAddress as writePairs} from '../shared/address.js';
import {TOKEN} from '../shared/names.js';
import {page} from './page.js';
import {state} from './state.js';

// The pairs the address holds: the text, the target, the token where one is chosen (under the name of the charts'
// param that chooses it), and the model's own tokens where it went on (`gone`: {ids, from}).
function pairsOf(text, target, token, gone, textB, versus) {
  return [['text', text]].concat(typeof textB === 'string' ? [['text_b', textB]] : []).concat([['target', target]])
    .concat(typeof versus === 'string' ? [['versus', versus]] : [])
    .concat(token ? [[TOKEN, token]] : [])
    .concat(gone ? [['ids', gone.ids.join('.')], ['added_from', gone.from]] : []);
}

// The address's part after the page's own: '#text=...&target=...' ('#text=...&text_b=...&target=...' for two
// texts compared; '&versus=...' after the target on the patching figure's), '&token=N' where a token is chosen, and
// '&ids=...&added_from=N' where the model went on (`gone`: {ids, from}).
export function liveAddress(text, target, token, gone, textB, versus) {
  return addressOf(pairsOf(text, target, token, gone, textB, versus));
}

// The model's ids and where its own begin, from an address's pairs, or null where they are not whole numbers in
// order (ids at least one, from within them).
function goneBy(fields) {
  if (!/^[0-9]+(\.[0-9]+)*$/.test(fields.ids || '') || !/^[0-9]+$/.test(fields.added_from || '')) return null;
  const ids = fields.ids.split('.').map(Number), from = Number(fields.added_from);
  return from >= 1 && from < ids.length ? {ids: ids, from: from} : null;
}

// What an address's pairs ask for ({text, textB, versus, target, token, gone}: textB, the second text, and versus,
// the patching's token measured against, only where it names them; target undefined where it names none, token a number from 1 or null, gone {ids, from} or null), or null where it
// brings no text.
export function askedBy(fields) {
  if (!('text' in fields)) return null;
  const token = /^[1-9][0-9]*$/.test(fields[TOKEN] || '') ? Number(fields[TOKEN]) : null;
  return {text: fields.text, ...('text_b' in fields ? {textB: fields.text_b} : {}),
          ...('versus' in fields ? {versus: fields.versus} : {}),
          target: 'target' in fields ? fields.target : undefined, token: token, gone: goneBy(fields)};
}

// Writes the text and target into the address, with the token chosen for that text (or the one the address chose
// for it, before it is drawn).
export function writeAddress(text, target) {
  state.addressed = {text: text, target: target};
  const result = page.live.result, opening = state.opening;
  const token = result && result.text === text ? state.chosenToken :
                opening && opening.text === text ? opening.token : null;
  const gone = state.goneOn && state.goneOn.text === text ? state.goneOn : null;
  const {textBoxB, versusBox} = page.el;
  writePairs(pairsOf(text, target, token, gone, textBoxB ? textBoxB.value : undefined,
                     versusBox ? versusBox.value : undefined));
}

// The address (live.html#text=...&target=...&token=N) holds the text and target last run (or kept for the model),
// and the token chosen in the charts: a link brings them back.
import {page} from './page.js';
import {state} from './state.js';

// The key=value pairs after '#', decoded (as figures.js reads them).
export function readAddress() {
  const fields = {};
  location.hash.replace(/^#/, '').split('&').forEach((pair) => {
    const at = pair.indexOf('=');
    if (at <= 0) return;
    try {
      fields[decodeURIComponent(pair.slice(0, at))] = decodeURIComponent(pair.slice(at + 1));
    } catch { /* a broken %-escape: ignore this pair */ }
  });
  return fields;
}

// The address's part after the page's own: '#text=...&target=...', and '&token=N' where a token is chosen.
export function addressOf(text, target, token) {
  return '#text=' + encodeURIComponent(text) + '&target=' + encodeURIComponent(target) +
         (token ? '&token=' + token : '');
}

// What an address asks for ({text, target, token}: target undefined where it names none, token a number from 1 or
// null), or null where it brings no text.
export function askedBy(fields) {
  if (!('text' in fields)) return null;
  const token = /^[1-9][0-9]*$/.test(fields.token || '') ? Number(fields.token) : null;
  return {text: fields.text, target: 'target' in fields ? fields.target : undefined, token: token};
}

// Writes the text and target into the address, with the token chosen for that text (or the one the address chose
// for it, before it is drawn).
export function writeAddress(text, target) {
  state.addressed = {text: text, target: target};
  const result = page.live.result, opening = state.opening;
  const token = result && result.text === text ? state.chosenToken :
                opening && opening.text === text ? opening.token : null;
  history.replaceState(null, '', addressOf(text, target, token));
}

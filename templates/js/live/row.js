// The row of the tokens drawn (#live-tokens): the tokens of the reader's text, the start token set apart and those
// the model added marked as its own. Where a chart chooses a token (a token param bound to an input), each token is
// a button that chooses it in every chart, as the book's figures' rows do: arrow keys move the choice, the chosen
// one is pressed, and where the figure has a reach (the row's data-reach) the tokens after it are shaded.
import {TOKEN_PARAMS} from '../shared/names.js';
import {$, modelName, page} from './page.js';

const OUT_OF_REACH = ', out of reach';

// Whether a chart of the page chooses a token: then the row does too.
export function rowSteers() {
  return page.charts.some((el) => {
    const pair = page.config.charts[el.getAttribute('data-live-chart')];
    return Boolean(pair) && pair[0].signals.some((s) => TOKEN_PARAMS.indexOf(s.name) >= 0 && s.bind);
  });
}

// The row's label: how many tokens, the start token, the model's own; where the row chooses nothing, the token the
// figure reads (the last), marked as the book's figure marks its own.
function label(n, startName, added, names) {
  const last = names[names.length - 1];
  return 'Drawn for this text, in ' + n + (n === 1 ? ' token' : ' tokens') +
    (startName ? ' after the start token ' + startName : '') +
    (added ? ', the last ' + (added === 1 ? 'one' : added) + ' added by ' + modelName() + ' (slanted, in dashed boxes; slanted in the chart too)'
           : '') + (rowSteers() ? ': choose one' : '; the figure reads the last, ' + last + ', marked:');
}

// One token: a button where the row steers (its value the charts' token param's, from 1), else words.
function tokenElement(name, i, kind, steers) {
  const el = document.createElement(steers ? 'button' : 'span');
  el.className = 'token' + (kind ? ' token-' + kind : '');
  el.textContent = name;
  if (kind === 'model') el.title = 'added by ' + modelName();
  if (kind === 'start') el.setAttribute('data-start', '');
  if (steers) {
    el.type = 'button';
    el.setAttribute('role', 'radio');
    el.setAttribute('data-token', String(i + 1));
    el.setAttribute('aria-checked', 'false');
    el.tabIndex = -1;
  }
  return el;
}

// Fills the row for a result's tokens: `start` 1 where the first is the start token, `from` where the model's own
// begin; `choose(value)` is called with the token a click or an arrow key chooses.
export function fillRow(names, start, from, choose) {
  const row = page.el.tokensRow, steers = rowSteers();
  const box = $('live-token-buttons') || row;
  Array.prototype.slice.call(box.querySelectorAll('.token')).forEach((t) => { t.remove(); });
  $('live-tokens-label').textContent = label(names.length - start, start ? names[0] : '', names.length - from, names);
  row.setAttribute('role', steers ? 'radiogroup' : 'group');
  // A row that chooses nothing is words split by thin rules, as the book's (site.css .text-row), not buttons.
  row.classList.toggle('token-row', steers);
  row.classList.toggle('text-row', !steers);
  names.forEach((name, i) => {
    const kind = i < start ? 'start' : i >= from ? 'model' : '';
    const el = tokenElement(name, i, kind, steers);
    if (!steers && i === names.length - 1) el.classList.add('read');
    if (steers) {
      el.addEventListener('click', () => { choose(i + 1); });
      el.addEventListener('keydown', (event) => {
        const step = {ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1}[event.key];
        if (!step || i + step < 0 || i + step >= names.length) return;
        event.preventDefault();
        choose(i + step + 1);
        const next = box.querySelector('[data-token="' + (i + step + 1) + '"]');
        if (next) next.focus();
      });
    }
    box.appendChild(el);
  });
  row.hidden = false;
}

// Fills the row `id` with a text's tokens as words split by rules (two texts compared: each text's row), its label
// `title` with their count; the start token set apart.
export function fillTextRow(id, title, names, start) {
  const row = $(id), box = row.querySelector('.tokens');
  Array.prototype.slice.call(box.querySelectorAll('.token')).forEach((t) => { t.remove(); });
  const n = names.length - start;
  row.querySelector('.token-row-label').textContent = title + ', in ' + n + (n === 1 ? ' token' : ' tokens') +
    (start ? ' after the start token ' + names[0] : '') + ':';
  row.classList.remove('token-row');
  row.classList.add('text-row');
  names.forEach((name, i) => { box.appendChild(tokenElement(name, i, i < start ? 'start' : '', false)); });
  row.hidden = false;
}

// The row shows `value` (from 1) chosen, and where it has a reach, the tokens after it out of reach.
export function markToken(value) {
  const row = page.el.tokensRow;
  if (!row) return;
  const reach = row.hasAttribute('data-reach');
  Array.prototype.forEach.call(row.querySelectorAll('button.token'), (el) => {
    const n = Number(el.getAttribute('data-token')), chosen = n === value, beyond = reach && n > value;
    el.setAttribute('aria-checked', chosen ? 'true' : 'false');
    el.tabIndex = chosen ? 0 : -1;
    el.toggleAttribute('data-out-of-reach', beyond);
    el.setAttribute('aria-label', (el.hasAttribute('data-start') ? 'the start token' : 'token ' + n) + ': ' +
                    el.textContent + (beyond ? OUT_OF_REACH : ''));
  });
}

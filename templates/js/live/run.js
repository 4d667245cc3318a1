// A text run: the reader's text and target checked, the model run on them, the tokens shown and the charts drawn,
// one sentence saying how it went. Runs are queued (model.js inTurn); a newer text wins over one still waiting.
import {writeAddress} from './address.js';
import {asked, startId} from './asked.js';
import {drawAll} from './charts.js';
import {result} from './datasets.js';
import {sayTarget} from './form.js';
import {offerFollows} from './lens.js';
import {inTurn, infer} from './model.js';
import {$, modelName, page, say, setState} from './page.js';
import {state} from './state.js';

// The tokens drawn: the text's own, counted, after the start token where the model reads one (shown, not counted).
function showTokens(res) {
  const tokensRow = page.el.tokensRow, start = startId() !== null && res.ids[0] === startId() ? 1 : 0;
  Array.prototype.slice.call(tokensRow.querySelectorAll('.token')).forEach((t) => { t.remove(); });
  const n = res.ids.length - start;
  $('live-tokens-label').textContent = 'Drawn for this text, in ' + n + (n === 1 ? ' token' : ' tokens') +
    (start ? ' after the start token ' + res.names[0] + ':' : ':');
  res.names.forEach((name, i) => {
    const span = document.createElement('span');
    span.className = i < start ? 'token token-start' : 'token';
    span.textContent = name;
    tokensRow.appendChild(span);
  });
  tokensRow.hidden = false;
}

// A text or target refused: one sentence, and where the figures of an earlier text stay below, one more.
const STILL = ' The figures below are still for your last text.';
function refuse(words) {
  setState('refused');
  say(words + (page.live.result ? STILL : ''), 'refused');
}

// The token the charts open on for a text: none for a new text, the address's for the text it brought.
function chooseOpening(text, ask) {
  const before = page.live.result, sameText = before !== null && before.text === text;
  if (!sameText) {
    state.lensChoice = null;
    state.chosenToken = null;
  }
  const opening = state.opening;
  if (opening && opening.text === text && opening.token <= ask.ids.length) state.chosenToken = opening.token;
  state.opening = null;
  page.charts.forEach((el) => { el.pendingToken = state.chosenToken !== null ? state.chosenToken : undefined; });
  return sameText;
}

// The model run on the text (its ask checked), the charts drawn; timings in window.liveFigures.timings.last.
async function runText(text, ask, number, started) {
  const live = page.live, sameText = chooseOpening(text, ask);
  const follow = [ask.target];
  if (state.lensChoice !== null && state.lensChoice !== ask.target) follow.push(state.lensChoice);
  const out = await infer(ask.ids, follow);
  const read = performance.now();
  if (number !== state.runs) return;
  const res = result(text, ask.ids, ask.target, follow, out, page.shape);
  live.result = res;
  showTokens(res);
  await drawAll(res, sameText);
  offerFollows();
  page.el.downloads.hidden = false;
  const done = performance.now();
  live.timings.last = {tokens: ask.ids.length, modelMs: read - started, drawMs: done - read, totalMs: done - started};
  state.finished = number;
  if (number !== state.runs) return;
  setState('drawn');
  say(modelName(true) + ' read your ' + ask.own + (ask.own === 1 ? ' token' : ' tokens') + ' in ' +
      ((read - started) / 1000).toFixed(1) + ' s: the figures below are for your text.');
}

function compute(text, target) {
  const ask = asked(text, target, page.maxTokens);
  if (ask.refused) {
    refuse(ask.refused);
    return Promise.resolve();
  }
  const number = ++state.runs;
  setState('running');
  say(modelName(true) + ' is reading your text…');
  const started = performance.now();
  return inTurn(async () => {
    if (number !== state.runs) return;  // a newer text is waiting
    await runText(text, ask, number, started);
  }).catch((error) => {
    setState('error');
    say(modelName(true) + ' could not read this text (' + error.message + ').', 'error');
    console.error(error);
  });
}

// The text in the boxes: refused at once where it must be; else run, or, before the model is loaded, kept for then.
// A text refused (empty, too long, its target not one token) is not written into the address.
export function submit() {
  const text = page.el.textBox.value, target = page.el.targetBox.value, ask = asked(text, target, page.maxTokens);
  sayTarget();
  if (ask.refused) {
    refuse(ask.refused);
    return Promise.resolve();
  }
  writeAddress(text, target);
  if (!state.session) {
    say(state.loading ? modelName(true) + ' is still loading: your text runs as soon as it is ready.'
                      : 'Load ' + modelName() + ' first, with the button above: your text runs as soon as it is ' +
                        'ready.');
    return Promise.resolve();
  }
  return compute(text, target);
}

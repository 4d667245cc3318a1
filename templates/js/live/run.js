// A text run: the reader's text and target checked, the model run on them, the tokens shown and the charts drawn,
// one sentence saying how it went. Runs are queued (model.js inTurn); a newer text wins over one still waiting.
import {writeAddress} from './address.js';
import {asked, startId, startOf} from './asked.js';
import {drawAll, linkToken} from './charts.js';
import {result} from './datasets.js';
import {sayTarget} from './form.js';
import {offerFollows} from './lens.js';
import {inTurn, infer} from './model.js';
import {goOn} from './more.js';
import {showOwn} from './own.js';
import {knockouts, listedParts} from './knockout.js';
import {askedPair, paired} from './pair.js';
import {askedPatching, patchings} from './patching.js';
import {fillRow, fillTextRow} from './row.js';
import {capitalised, modelName, page, say, setState} from './page.js';
import {state} from './state.js';
import {tokenName} from './tokens.js';

// Where the model's own tokens start in the ids of the text `text` (more.js): its length where it added none.
function modelFrom(text, ids) {
  const gone = state.goneOn;
  return gone && gone.text === text && gone.ids.length === ids.length ? gone.from : ids.length;
}

// The tokens drawn (row.js): the text's own, counted, after the start token where the model reads one (shown, not
// counted), and those the model added (more.js), marked as its own; choosing one chooses it in the charts.
// Two texts: each text's row, words split by rules, named as their boxes are ("Text A", "The original text").
function showTokens(res) {
  const start = startOf(res.ids);
  if (res.pair) {
    const named = (id) => document.querySelector('label[for="' + id + '"]').textContent;
    fillTextRow('live-tokens', named('live-text'), res.names, start);
    fillTextRow('live-tokens-b', named('live-text-b'), res.pair.names, start);
    return;
  }
  fillRow(res.names, start, modelFrom(res.text, res.ids), (value) => { linkToken(null, value); });
}

// A text or target refused: one sentence, and where the figures of an earlier text stay below, one more.
// "The figures below" on live.html, "the figure below" on a figure's page.
const below = () => (page.charts.length > 1 ? 'the figures below are' : 'the figure below is');
function refuse(words) {
  setState('refused');
  say(words + (page.live.result ? ' ' + capitalised(below(), true) + ' still for your last text.' : ''), 'refused');
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
  const follow = ask.versus === undefined ? [ask.target] : [ask.target, ask.versus];
  if (state.lensChoice !== null && state.lensChoice !== ask.target) follow.push(state.lensChoice);
  const out = await infer(ask.ids, follow), pairB = ask.pairB;
  const other = pairB ? await infer(pairB.ids, follow) : null;
  if (number !== state.runs) return;
  const res = result(text, ask.ids, ask.target, follow, out, page.shape);
  res.ownFrom = modelFrom(text, ask.ids);  // the charts slant the model's own tokens from there
  if (pairB) {
    res.pair = paired(res, pairB.text, pairB.ids, pairB.ids.map(tokenName), out.residuals, other.residuals,
                      page.shape.stages);
  }
  if (page.config.charts.knockout && !(await withKnockouts(res, number))) return;
  if (page.config.charts.patching && !(await withPatchings(res, ask, [out, other], number))) return;
  const read = performance.now();
  live.result = res;
  showTokens(res);
  showOwn(true);  // on a figure's page, in the book's figure's place (before it is drawn: its width is the column's)
  await drawAll(res, sameText);
  offerFollows();
  page.el.downloads.hidden = false;
  const done = performance.now();
  live.timings.last = {tokens: ask.ids.length, modelMs: read - started, drawMs: done - read, totalMs: done - started};
  state.finished = number;
  if (number !== state.runs) return;
  setState('drawn');
  say(readWords(ask, text, (read - started) / 1000));
}

// The knockout's runs put into the result (knockout.js), the line saying how far they are; false where a newer text
// came meanwhile.
async function withKnockouts(res, number) {
  const rows = listedParts(page.config.charts.knockout[0]);
  res.knockout = await knockouts(infer, res, rows, page.shape, (i, total) => {
    say(modelName(true) + ' is taking each part out in turn: ' + (i + 1) + ' of ' + total + '…');
  }, () => number !== state.runs);
  return res.knockout !== null;
}

// The patching's runs put into the result (patching.js), the line saying how far they are; false where a newer text
// came meanwhile, or where the two texts answer alike (then refused: nothing to bring back).
async function withPatchings(res, ask, outs, number) {
  const two = {a: {ids: ask.ids}, b: {ids: ask.pairB.ids}, target: ask.target, versus: ask.versus};
  res.patching = await patchings(infer, two, outs, page.shape, (i, total) => {
    say(modelName(true) + ' is reading the changed text with each piece of the original put back in turn: ' +
        (i + 1) + ' of ' + total + '…');
  }, () => number !== state.runs);
  if (res.patching && res.patching.near) {
    refuse('Both texts give ' + tokenName(ask.target) + ' nearly the same lead over ' + tokenName(ask.versus) +
           ' (' + res.patching.original.diff.toFixed(3) + ' and ' + res.patching.changed.diff.toFixed(3) +
           '): there is nothing to bring back. Change the changed text, or the two tokens, so that the texts ' +
           'answer differently.');
    return false;
  }
  return res.patching !== null;
}

// What the model read, and in how long: "GPT-2 read your 9 tokens in 0.4 s: the figure below is for your text."
function readWords(ask, text, seconds) {
  const took = ' in ' + seconds.toFixed(1) + ' s: ' + below();
  const drawn = page.live.result;
  if (drawn && drawn.patching) {
    return modelName(true) + ' read your two texts (' + ask.own + ' tokens each) ' + (drawn.patching.made.length + 2) +
           ' times, each once and the changed text once with each piece of the original put back,' + took +
           ' for your texts.';
  }
  if (ask.pairB) return modelName(true) + ' read your two texts (' + ask.own + ' and ' + ask.pairB.own + ' tokens)' +
                        took + ' for your texts.';
  const added = ask.ids.length - modelFrom(text, ask.ids), yours = ask.own - added;
  if (drawn && drawn.knockout) {
    return modelName(true) + ' read your ' + yours + (yours === 1 ? ' token' : ' tokens') + ' ' +
           (drawn.knockout.runs.length + 1) + ' times, once whole and once without each part,' + took +
           ' for your text.';
  }
  return modelName(true) + ' read your ' + yours + (yours === 1 ? ' token' : ' tokens') +
         (added ? ' and the ' + added + ' it added' : '') + took + ' for ' + (added ? 'the whole text.' : 'your text.');
}

// The ids the reader asks for `text`: the tokenizer's, or the model's own where it went on to this text (more.js).
// On the compare figure's page, text B's too (pairB: its text, ids and own tokens), both checked (pair.js).
function askedFor(text, target) {
  const boxB = page.el.textBoxB, versusBox = page.el.versusBox;
  if (versusBox) {
    const both = askedPatching([text, boxB.value], target, versusBox.value, page.maxTokens, tokenName);
    return both.refused ? both : {ids: both.a.ids, own: both.a.own, target: both.target, versus: both.versus,
                                  pairB: {text: boxB.value, ids: both.b.ids, own: both.b.own}};
  }
  if (boxB) {
    const pair = askedPair(text, boxB.value, target, page.maxTokens, tokenName);
    return pair.refused ? pair : {...pair.a, pairB: {text: boxB.value, ...pair.b}};
  }
  const ask = asked(text, target, page.maxTokens), gone = state.goneOn;
  if (ask.refused || !gone || gone.text !== text) return ask;
  const start = startId() === null ? 0 : 1;
  return {ids: gone.ids, own: gone.ids.length - start, target: ask.target};
}

function compute(text, target) {
  const ask = askedFor(text, target);
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

// The text in the box gone on by the model (more.js: `how` what the form asked): the tokens added, the box holding
// the whole text, its address written, and its figures drawn with the model's tokens marked.
export function continueText(how) {
  const text = page.el.textBox.value, target = page.el.targetBox.value, ask = askedFor(text, target);
  if (ask.refused || how.refused) {
    refuse(ask.refused || how.refused);
    return Promise.resolve();
  }
  if (!state.session) {
    say('Load ' + modelName() + ' first, with the button above: then it can go on from your text.');
    return Promise.resolve();
  }
  if (ask.ids.length >= page.maxTokens) {
    refuse('Your text fills the ' + page.maxTokens + ' tokens this page reads: there is no room for more.');
    return Promise.resolve();
  }
  const number = ++state.runs, started = performance.now(), gone = state.goneOn;
  setState('running');
  say(modelName(true) + ' is going on from your text…');
  return inTurn(async () => {
    const ids = await goOn(ask.ids, how, [ask.target]);
    const whole = text + globalThis.liveTokens.decode(ids.slice(ask.ids.length));
    state.goneOn = {text: whole, ids: ids, from: gone && gone.text === text ? gone.from : ask.ids.length};
    page.el.textBox.value = whole;
    page.el.textBox.dispatchEvent(new Event('input'));  // its count of tokens says the longer text's
    writeAddress(whole, target);
    if (number !== state.runs) return;
    await runText(whole, {ids: ids, own: ids.length - (ask.ids.length - ask.own), target: ask.target}, number, started);
  }).catch((error) => {
    setState('error');
    say(modelName(true) + ' could not go on from this text (' + error.message + ').', 'error');
    console.error(error);
  });
}

// The text in the boxes: refused at once where it must be; else run, or, before the model is loaded, kept for then.
// A text refused (empty, too long, its target not one token) is not written into the address.
export function submit() {
  const text = page.el.textBox.value, target = page.el.targetBox.value, ask = askedFor(text, target);
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

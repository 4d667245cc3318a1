// A figure's own sentence (`python build.py --live`): on the page of a figure the model can compute ((l), every
// head, (i), the lens), the reader types a text under "Try your own sentence", GPT-2 runs in the page
// (onnxruntime-web, WebAssembly, on the reader's own computer: nothing is sent anywhere) and the page draws the
// figure for that text in the book's figure's place. On live.html, the index of those figures, it hands a text the
// address brings on to their links. Bundled into one classic script (live/live.js).
//
// The modules: page.js (the configuration, the elements, window.liveFigures), state.js (what the page remembers),
// store.js, fetching.js and model.js (the model's files in Cache Storage, each one downloaded, resumed and checked,
// the runtime), load.js and trouble.js (the load, and the one sentence of a failure), run.js (a text run),
// datasets.js (the charts' datasets from the model's outputs), specs.js, charts.js and lens.js (the charts),
// downloads.js, address.js, asked.js and form.js (what the reader asks), weights.js (the exact or the light
// weights), file.js (opened from file://), scripts.js (the tokenizer and the runtime, loaded when asked on a
// figure's page), own.js (a figure's page: the reader's figure in place of the book's). Drawing,
// scrolling, the address and the names shared with the build are the figure pages' too: ../shared/.
// This one wires the page's events, in the order the page has always set them.
import {readAddress} from '../shared/address.js';
import {askedBy} from './address.js';
import {startOf} from './asked.js';
import {linkToken, redrawAll} from './charts.js';
import {asJson, distancesCsv, followedCsv, knockoutsCsv, patchingsCsv, sharesCsv, topCsv} from './downloads.js';
import {servedOnly} from './file.js';
import {count, countSoon, sayTarget} from './form.js';
import {followToken, lensToken} from './lens.js';
import {load} from './load.js';
import {$, graphSha256, modelName, openPage, page, say, setState} from './page.js';
import {howMore} from './more.js';
import {continueText, submit} from './run.js';
import {state} from './state.js';
import {allKept} from './store.js';
import {carryText, listenToBack} from './own.js';
import {needScripts} from './scripts.js';
import {listenToWeights} from './weights.js';

function listenToForm() {
  const {followSelect, textBox, targetBox, form, loadButton} = page.el;
  if (followSelect) followSelect.addEventListener('change', () => { followToken(Number(followSelect.value)); });
  textBox.addEventListener('input', countSoon);
  targetBox.addEventListener('input', sayTarget);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    submit();
  });
  [textBox, page.el.textBoxB].filter(Boolean).forEach((box) => {
    box.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        submit();
      }
    });
  });
  loadButton.addEventListener('click', () => { load(); });
  const more = $('live-more-button');
  if (more) more.addEventListener('click', () => { continueText(askedMore()); });
  // The temperature and the seed are read only for tokens drawn by chance: usable then only.
  ['live-more-likeliest', 'live-more-chance'].forEach((id) => {
    const radio = $(id);
    if (radio) radio.addEventListener('change', () => {
      const chance = $('live-more-chance').checked;
      $('live-more-temperature').disabled = !chance;
      $('live-more-seed').disabled = !chance;
    });
  });
}

// What the form asks of the model's going on (more.js).
function askedMore() {
  const box = $('live-more-count');
  return howMore(Number(box.value), Number(box.max), $('live-more-chance').checked,
                 Number($('live-more-temperature').value), Number($('live-more-seed').value));
}

function json(res) {
  return asJson(res, page.shape, lensToken(res), graphSha256(page.model));
}

// Each link is given its file as it is clicked (a Blob's address), from the text drawn last.
function offer(id, make, type) {
  const link = $(id);
  if (!link) return;
  link.addEventListener('click', (event) => {
    if (!page.live.result) {
      event.preventDefault();
      return;
    }
    if (link.objectUrl) URL.revokeObjectURL(link.objectUrl);
    link.objectUrl = URL.createObjectURL(new Blob([make(page.live.result)], {type: type}));
    link.href = link.objectUrl;
  });
}

function offerDownloads() {
  offer('live-download-json', json, 'application/json');
  offer('live-download-shares', (res) => sharesCsv(res, page.shape), 'text/csv');
  offer('live-download-top', (res) => topCsv(res, page.shape), 'text/csv');
  offer('live-download-followed', (res) => followedCsv(res, page.shape), 'text/csv');
  offer('live-download-distances', (res) => distancesCsv(res, page.shape.stages), 'text/csv');
  offer('live-download-knockouts', (res) => knockoutsCsv(res.knockout), 'text/csv');
  offer('live-download-patchings', (res) => patchingsCsv(res.patching, startOf(res.ids)), 'text/csv');
  page.live.json = () => (page.live.result ? json(page.live.result) : null);
}

// The charts drawn again in the reader's colours when they change, and at the other width when a column crosses it.
function listenToScreen() {
  const darkScheme = page.darkScheme;
  if (darkScheme && darkScheme.addEventListener) darkScheme.addEventListener('change', () => { redrawAll(false); });
  let resizing = false;
  window.addEventListener('resize', () => {
    if (resizing) return;
    resizing = true;
    window.requestAnimationFrame(() => {
      resizing = false;
      redrawAll(true);
    });
  });
}

// A text in the address (live.html#text=...&target=...) fills the boxes; it runs once the reader loads GPT-2.
// With &token=N the charts open on that token.
function fromAddress() {
  const asks = askedBy(readAddress());
  if (!asks) return false;
  page.el.textBox.value = asks.text;
  if (asks.textB !== undefined && page.el.textBoxB) page.el.textBoxB.value = asks.textB;
  if (asks.target !== undefined) page.el.targetBox.value = asks.target;
  if (asks.versus !== undefined && page.el.versusBox) page.el.versusBox.value = asks.versus;
  // The model's own tokens come back where the ids are the text's (a link edited by hand is cut anew).
  const gone = asks.gone, tokens = window.liveTokens;
  state.goneOn = gone && tokens && tokens.decode(gone.ids) === asks.text ? {text: asks.text, ...gone} : null;
  state.opening = asks.token !== null ? {text: asks.text, token: asks.token} : null;
  if (asks.token !== null && page.live.result && page.live.result.text === asks.text) linkToken(null, asks.token);
  count();
  sayTarget();
  return true;
}

// Said where the address brings a text and the model is not loaded yet.
const brought = () => 'The text this link brings is in the box: load ' + modelName() + ' with the button above to ' +
                      'draw the figure for it.';

function open() {
  if (fromAddress()) say(brought());
  else {
    count();
    sayTarget();
  }
  window.addEventListener('hashchange', () => {
    if (!fromAddress()) return;
    if (state.session) submit();
    else say(brought());
  });
  listenToWeights(sayKept);
  sayKept();
  setState('idle');
}

// A visit before kept the chosen weights in this browser: the button says so, and nothing about a download.
function sayKept() {
  const asked = page.model;
  allKept().then((kept) => {
    if (page.model !== asked) return;  // another choice of weights came since
    page.live.kept = kept;
    if (kept && !state.loadAsked) {
      page.el.loadButton.textContent = 'Start ' + modelName() + ' (already kept in this browser)';
    }
  });
}

function start() {
  listenToForm();
  offerDownloads();
  listenToScreen();
  listenToBack(history, location);
  open();
}

// The scripts the form needs are loaded when the reader opens "Try your own sentence", or at once where the address
// brings a text or asks for the form (#try-own): the panel is opened for it. The button waits for them.
function startWhenAsked() {
  const panel = $('try-own'), button = page.el.loadButton;
  let asked = null;
  const begin = () => {
    if (asked) return;
    button.disabled = true;
    asked = needScripts(page.config.scripts).then(() => {
      button.disabled = false;
      start();
    }, (error) => {
      asked = null;
      button.disabled = false;
      setState('error');
      say('This page could not get ready to run ' + modelName() + ' (' + error.message + '): reload it to try again.',
          'error');
    });
  };
  const fromLink = () => {
    if (!askedBy(readAddress()) && location.hash !== '#' + panel.id) return;
    panel.open = true;
    begin();
  };
  panel.addEventListener('toggle', () => { if (panel.open) begin(); });
  window.addEventListener('hashchange', fromLink);
  fromLink();
}

if (openPage()) {
  if (location.protocol === 'file:') {
    servedOnly();
  } else {
    startWhenAsked();
  }
} else {
  carryText(document, location.hash);  // live.html: the figures that take a sentence
}

// What the live page remembers between the reader's actions: one object, each field changed only by the modules
// named beside it, read by the others. Module-private flags (a frame asked for, the run queue) stay in theirs.

export const state = {
  // load.js: the runtime's session once GPT-2 is loaded; the promise of the loading under way; whether the
  // reader asked for it (the button's words then stay).
  session: null,
  loading: null,
  loadAsked: false,
  // address.js: {text, target} written into the address last.
  addressed: null,
  // main.js (from the address) and run.js (used up): {text, token}, a token the address chose for the first drawing
  // of its text. run.js (a new text) and charts.js (a choice in a chart): the token (from 1) chosen in the charts of
  // the text drawn, null where none is.
  opening: null,
  chosenToken: null,
  // lens.js: the token the reader chose to follow in the lens; null: the read-out's target.
  lensChoice: null,
  // run.js (more.js's tokens): {text, ids, from}, the text the model went on to, the ids it reads (the model's own
  // from `from`); null where it went on from no text.
  goneOn: null,
  // run.js: texts asked for, the last one drawn; lens.js: tokens the lens was asked to follow.
  runs: 0,
  finished: 0,
  follows: 0,
};

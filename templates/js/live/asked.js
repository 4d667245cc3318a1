// What the reader asks: the text's token ids and the token to follow in the read-out, or one sentence that refuses
// them. The tokenizer is window.liveTokens (tokenize.js), the model's own: where it puts a start token in front of
// every text (a Llama's <s>), the model reads it first, and it is never counted as a token of the reader's text.
import {tokenName} from './tokens.js';

// The start token's id, or null where the model has none (GPT-2).
export function startId() {
  return globalThis.liveTokens.startId ? globalThis.liveTokens.startId() : null;
}

// How many of `ids` lead the text as the model's start token: 1 where the first is it, else 0.
export function startOf(ids) {
  return startId() !== null && ids[0] === startId() ? 1 : 0;
}

// How many tokens of the reader's own text the page reads: the model's positions, less one for a start token.
export function room(maxTokens) {
  return maxTokens - (startId() === null ? 0 : 1);
}

// The ids the model reads (the start token first where there is one), how many of them are the text's own, and the
// target's id; or {refused: one sentence}.
export function asked(text, target, maxTokens) {
  const ask = askedText(text, maxTokens);
  if (ask.refused) return ask;
  const followed = followedToken(target);
  if (followed.refused) return followed;
  return {ids: ask.ids, own: ask.own, target: followed.id};
}

// The ids the model reads for a text (the start token first where there is one) and how many are the text's own; or
// {refused: one sentence}.
export function askedText(text, maxTokens) {
  if (text === '') return {refused: 'Type a text first: the box is empty.'};
  if (!/\S/.test(text)) return {refused: 'Your text is only spaces; type a word or more.'};
  const own = globalThis.liveTokens.encode(text), most = room(maxTokens), start = startId();
  if (own.length > most) {
    return {refused: 'Your text is ' + own.length + ' tokens long; this page reads at most ' + most + '.'};
  }
  return {ids: start === null ? own : [start].concat(own), own: own.length};
}

// The token the target box names: {id, said (one line on which token it is, or '')}, or {refused: one sentence}.
// '_' in front stands for a space, as the pages write tokens. A word typed without its space (`dog`) is taken
// for the word after another word (' dog', a token of its own, not 'dog') where that is one token, and the line
// says so; else for the token without the space. Punctuation typed bare (`.`) is the token without the space
// first, as it mostly follows a word with none.
export function followedToken(target) {
  if (target === '') return {refused: 'Type the token to follow in the read-out: its box is empty.'};
  const encode = globalThis.liveTokens.encode;
  let found = encode(target), said = '';
  if (target.charAt(0) === '_' && target.length > 1) {
    const underscored = encode(' ' + target.slice(1));
    if (underscored.length === 1) found = underscored;
  } else if (target.charAt(0) !== ' ') {
    const spaced = encode(' ' + target), word = /^[\p{L}\p{N}]/u.test(target);
    if (spaced.length === 1 && (word || found.length !== 1)) {
      found = spaced;
      said = 'Following ' + tokenName(spaced[0]) + ' (with the space before it, as a word after another word).';
    } else if (found.length === 1) {
      said = 'Following ' + tokenName(found[0]) + ' (the token without a space before it).';
    }
  }
  if (found.length === 1 && found[0] === startId()) {
    return {refused: 'The token to follow cannot be the start token ' + tokenName(found[0]) + ': it stands before ' +
                     'every text, and the model never guesses it.'};
  }
  if (found.length !== 1) {
    return {refused: 'The token to follow must be one token, and "' + target + '" is ' + found.length +
                     ' (' + found.map(tokenName).join(' ') + '): try a shorter or more common word, with the ' +
                     'space before it.'};
  }
  return {id: found[0], said: said};
}

// What the reader asks: the text's token ids and the token to follow in the read-out, or one sentence that refuses
// them. The tokenizer is window.liveTokens (tokenize.js).
import {tokenName} from './tokens.js';

// The text's token ids and the target's id, or {refused: one sentence}.
export function asked(text, target, maxTokens) {
  if (text === '') return {refused: 'Type a text first: the box is empty.'};
  if (!/\S/.test(text)) return {refused: 'Your text is only spaces; type a word or more.'};
  const ids = globalThis.liveTokens.encode(text);
  if (ids.length > maxTokens) {
    return {refused: 'Your text is ' + ids.length + ' tokens long; this page reads at most ' + maxTokens + '.'};
  }
  const followed = followedToken(target);
  if (followed.refused) return followed;
  return {ids: ids, target: followed.id};
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
  if (found.length !== 1) {
    return {refused: 'The token to follow must be one token, and "' + target + '" is ' + found.length +
                     ' (' + found.map(tokenName).join(' ') + '): try a shorter or more common word, with the ' +
                     'space before it.'};
  }
  return {id: found[0], said: said};
}

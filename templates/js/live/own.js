// A figure's page with the reader's own sentence (_own_sentence.html, _own_figure.html): the figure drawn for the
// reader's text takes the place of the book's (the figure says data-own; site.css hides what belongs to the book's
// text: its chart, its token row, its facts, its downloads), and "Back to the book's sentence" shows the book's
// again. live.html, the index of these figures, hands a text its address brings on to their links (carryText).
import {$, page, say} from './page.js';

// The figure the page draws for the reader's text, or null on live.html.
function ownFigure() {
  const el = $('own-figure');
  return el ? {box: el, figure: el.closest('figure')} : null;
}

// Shows the figure for the reader's text (on) or the book's (off).
// Shown anew, it is brought into view (the form above may fill the screen): its line, its tokens, its key.
export function showOwn(on) {
  const own = ownFigure();
  if (!own) return;
  const shownAnew = on && own.box.hidden;
  own.box.hidden = !on;
  if (own.figure) own.figure.toggleAttribute('data-own', on);
  if (shownAnew && own.box.scrollIntoView) own.box.scrollIntoView({block: 'start'});
}

// Whether the page shows the reader's text now.
export function showingOwn() {
  const own = ownFigure();
  return Boolean(own && !own.box.hidden);
}

// "Back to the book's sentence": the book's figure again, its address without the reader's text (a link to the
// page is then the book's figure), the reader's text kept in the box for another try.
export function listenToBack(history, location) {
  const back = $('own-back');
  if (!back) return;
  back.addEventListener('click', () => {
    showOwn(false);
    history.replaceState(null, '', location.pathname + location.search);
    say(page.el.textBoxB
      ? 'The figure shows the book\'s sentences again; your texts are still in their boxes, to run again.'
      : 'The figure shows the book\'s sentence again; your text is still in the box, to run again.');
    const summary = document.querySelector('#try-own > summary');
    if (summary) summary.focus();
  });
}

// A figure's link (figure-l.html#try-own) given the text an address brings ('#text=...&target=...'): the figure's
// page opened on that text; the link as it is where the address brings none.
export function linkWithText(href, hash) {
  if (!/^#(.*&)?text=/.test(hash)) return href;
  return href.replace(/#.*$/, '') + hash;
}

// live.html#text=...: each figure's link carries the text (a link to the page that drew them all, before they
// each took a sentence, still brings its text).
export function carryText(doc, hash) {
  Array.prototype.forEach.call(doc.querySelectorAll('a[data-own-link]'), (link) => {
    link.setAttribute('href', linkWithText(link.getAttribute('href'), hash));
  });
}

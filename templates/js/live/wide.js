// A chart wider than its column (the lens's table on a phone) scrolls sideways in its own box, which the keyboard
// can then reach; a hint above it says so, the box fades at an edge with more beyond it (site.css), and each choice
// of a token brings its column into view. These helpers are figures.js's, written again for now.
import {TOKEN_PARAMS} from './constants.js';
import {$} from './page.js';

// The chart's select of the text's tokens ("token" or "position"), if it has one.
export function tokenParam(el) {
  return (el.boundSignals || []).filter((s) => TOKEN_PARAMS.indexOf(s.name) >= 0)[0];
}

// Where the chart's clickable marks lie for one value of its token (a column of the lens's table): [left, right]
// in px from the drawing's left edge; null where no mark carries that token.
function tokenColumn(el, view, param, value) {
  const pick = (el.picks || []).filter((p) => p.param === param)[0];
  if (!pick) return null;
  let left = Infinity, right = -Infinity;
  (function walk(mark, x) {
    (mark.items || []).forEach((item) => {
      if (mark.marktype === 'group') {
        (item.items || []).forEach((inner) => { walk(inner, x + (item.x || 0)); });
      } else if (item.datum && item.bounds && String(item.datum[pick.field]) === String(value)) {
        left = Math.min(left, x + item.bounds.x1);
        right = Math.max(right, x + item.bounds.x2);
      }
    });
  })(view.scenegraph().root, view.origin()[0]);
  return left <= right ? [left, right] : null;
}

// Scrolls the chart's box to centre the chosen token's column, where it is out of view.
export function chosenInView(el) {
  const box = el.querySelector('.chart-wrapper'), param = tokenParam(el), view = el.vegaView;
  const drawing = box && box.querySelector('svg, canvas');
  if (!drawing || !param || !view || box.scrollWidth <= box.clientWidth + 1) return;
  const span = tokenColumn(el, view, param.name, view.signal(param.name));
  if (!span) return;
  const at = drawing.getBoundingClientRect().left - box.getBoundingClientRect().left + box.scrollLeft;
  if (at + span[0] < box.scrollLeft || at + span[1] > box.scrollLeft + box.clientWidth) {
    box.scrollLeft = at + (span[0] + span[1] - box.clientWidth) / 2;
  }
}

function fadeEdges(box) {
  const more = box.scrollWidth - box.clientWidth;
  if (!box.fading) {
    box.fading = true;
    box.addEventListener('scroll', () => { fadeEdges(box); }, {passive: true});
  }
  box.toggleAttribute('data-more-left', more > 1 && box.scrollLeft > 1);
  box.toggleAttribute('data-more-right', more > 1 && box.scrollLeft < more - 1);
}

function scrollHint(el) {
  let hint = el.querySelector('.scroll-hint');
  if (hint) return hint;
  hint = document.createElement('p');
  hint.className = 'scroll-hint';
  [['on-mouse', 'Scroll sideways'], ['on-touch', 'Swipe sideways']].forEach((words) => {
    const span = hint.appendChild(document.createElement('span'));
    span.className = words[0];
    span.textContent = words[1];
  });
  hint.appendChild(document.createTextNode(''));
  el.insertBefore(hint, el.querySelector('.chart-drawing'));
  return hint;
}

export function scrollBox(el) {
  const box = el.querySelector('.chart-wrapper');
  if (!box || !el.vegaView) return;
  const wide = box.scrollWidth > box.clientWidth + 1, hint = scrollHint(el), param = tokenParam(el);
  if (wide) box.tabIndex = 0;
  else box.removeAttribute('tabindex');
  hint.hidden = !wide;
  const columns = param && tokenColumn(el, el.vegaView, param.name, el.vegaView.signal(param.name));
  hint.lastChild.textContent = columns ? ' to see every position' : ' to see the whole chart';
  fadeEdges(box);
}

// The chart's state in words (its `description` signal), under it for screen readers.
export function describe(el, view) {
  const target = $('live-description-' + el.getAttribute('data-live-chart'));
  try {
    target.textContent = view.signal('description');
  } catch { /* no description */ }
}

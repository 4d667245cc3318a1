// A drawing wider than its column (a grid on a phone) scrolls sideways in its own box, which the keyboard can then
// reach; a hint above it says so, the box fades at an edge with more beyond it (site.css), and the chosen token's
// column is brought into view. Shared by the figure pages and the live page.
import { tokenParam } from "./charts.js";
import { BACKDROP, SCROLL_HINT } from "./names.js";

var EDGE_ROOM = 24;  // px: between the chosen column, opened at the right, and the box's fading edge

// Calls visit(item, x) for each item of a scenegraph's marks below `mark` that is not a group, x the left edge (in
// px) of the group holding it.
export function walk(mark, x, visit) {
  (mark.items || []).forEach(function (item) {
    if (mark.marktype === "group") {
      (item.items || []).forEach(function (inner) { walk(inner, x + (item.x || 0), visit); });
    } else visit(item, x);
  });
}

// Where the chart's clickable marks lie for one value of its token (a column of the lens's grid): [left, right] in
// px from the drawing's left edge, from the view's scenegraph; null where no mark carries that token.
export function tokenColumn(el, view, param, value) {
  var pick = (el.picks || []).filter(function (p) { return p.param === param; })[0];
  if (!pick) return null;
  var left = Infinity, right = -Infinity;
  walk(view.scenegraph().root, view.origin()[0], function (item, x) {
    if (item.datum && item.bounds && String(item.datum[pick.field]) === String(value)) {
      left = Math.min(left, x + item.bounds.x1);
      right = Math.max(right, x + item.bounds.x2);
    }
  });
  return left <= right ? [left, right] : null;
}

// A drawing wider than its box shows the chosen token's column: centred, or (`nearest`, as it opens) as little
// scrolled from its left edge (its title, its axis) as that allows; never under the parts kept in view on its left.
export function chosenInView(el, nearest) {
  var box = el.querySelector(".chart-wrapper"), param = tokenParam(el), view = el.vegaView;
  var drawing = box && box.querySelector("svg, canvas");
  if (!drawing || !param || !view || box.scrollWidth <= box.clientWidth + 1) return;
  var span = tokenColumn(el, view, param.name, view.signal(param.name));
  if (!span) return;
  var at = drawing.getBoundingClientRect().left - box.getBoundingClientRect().left + box.scrollLeft;
  var covered = pin(el);  // px on the box's left that the parts kept in view take
  if (at + span[0] < box.scrollLeft + covered || at + span[1] > box.scrollLeft + box.clientWidth) {
    box.scrollLeft = nearest ? at + span[1] - box.clientWidth + EDGE_ROOM
      : at + (span[0] + span[1] - box.clientWidth - covered) / 2;
  }
}

// A drawing wider than its box scrolls its grid alone: the parts beside and under the grid stay in view, moved along
// as far as the box is scrolled (--scrolled, set as it scrolls: fadeEdges). They are the views that lie within the
// box as it opens (the lens's charts under its table), the legends, and the other views' (the grids', which scroll:
// wider than the box, or reaching past it) own titles and legends; and, where the chart draws a backdrop behind a
// grid's axis on its left (charts.backdrop in the figures' Python), that axis and its backdrop, which the page fills
// with its colour (site.css), so that the cells slide under them. Returns how many px on the box's left they cover
// (0: none): the grid shows its columns right of that.
export function pin(el) {
  var box = el.querySelector(".chart-wrapper"), view = el.vegaView;
  if (!box || !view) return 0;
  var parts = [], covered = 0, root = view.scenegraph().root.items[0];
  if (box.scrollWidth > box.clientWidth + 1) {
    (root.items || []).forEach(function (mark) {
      var group = mark.items && mark.items[0];
      if (mark.role === "legend" || mark.role === "title") parts.push(mark);
      else if (mark.role === "scope" && group && fits(group.bounds, view.origin()[0] + root.x, box)) parts.push(mark);
      else if (mark.role === "scope" && group) {
        var kept = gridParts(group);
        if (kept.axis) covered = Math.max(covered, view.origin()[0] + root.x + group.x);
        parts = parts.concat(kept.parts);
      }
    });
  }
  box.toggleAttribute("data-pinned", parts.length > 0);
  parts.forEach(function (mark) {
    if (mark._svg && !mark._svg.style.translate) mark._svg.style.translate = "var(--scrolled, 0px) 0";
  });
  return covered;
}

// Whether a view's bounds (from `x` px of the drawing's left edge) lie within its box as it opens, unscrolled.
function fits(bounds, x, box) {
  return x + bounds.x1 >= -1 && x + bounds.x2 <= box.clientWidth + 1;
}

// What of a grid's view stays in view: its title and legends; its axis on the left and its backdrop where it has one.
function gridParts(group) {
  var marks = group.items || [], backdrop = marks.filter(function (mark) {
    return String(mark.name).indexOf(BACKDROP) === 0;
  });
  var axis = backdrop.length ? marks.filter(function (mark) {
    return mark.role === "axis" && mark.items[0] && mark.items[0].orient === "left";
  }) : [];
  var own = marks.filter(function (mark) { return mark.role === "title" || mark.role === "legend"; });
  return { parts: own.concat(backdrop, axis), axis: axis.length > 0 };
}

// A box that scrolls sideways fades at each edge with more beyond it (site.css), as the reader scrolls it too. Where
// parts of the drawing are kept in view on its left (pin), the grid slides under them: that edge casts a shadow instead.
export function fadeEdges(box) {
  var more = box.scrollWidth - box.clientWidth;
  if (!box.fading) {
    box.fading = true;
    box.addEventListener("scroll", function () { fadeEdges(box); }, { passive: true });
  }
  box.style.setProperty("--scrolled", box.scrollLeft + "px");
  box.toggleAttribute("data-more-left", more > 1 && box.scrollLeft > 1);
  box.toggleAttribute("data-more-right", more > 1 && box.scrollLeft < more - 1);
}

// Said above a drawing wider than its box, where it scrolls: swiped on a touch screen, scrolled with a mouse. The
// build writes it above a phone's drawing that is wider than a phone (shown by site.css in a narrow column only,
// until the live chart says where it is needed).
export function scrollHint(el) {
  var hint = el.querySelector(".scroll-hint");
  if (hint) {
    hint.classList.remove("first-hint");
    return hint;
  }
  hint = document.createElement("p");
  hint.className = "scroll-hint";
  [["on-mouse", SCROLL_HINT.mouse], ["on-touch", SCROLL_HINT.touch]].forEach(function (words) {
    var span = hint.appendChild(document.createElement("span"));
    span.className = words[0];
    span.textContent = words[1];
  });
  hint.appendChild(document.createTextNode(""));
  el.insertBefore(hint, el.querySelector(".chart-drawing"));
  return hint;
}

// The hint's words after "Scroll sideways": where the chart's marks stand for its tokens, every position.
function sayHint(hint, columns) {
  hint.lastChild.textContent = columns ? SCROLL_HINT.columns : SCROLL_HINT.whole;
}

// A drawn chart's box: a keyboard stop and a hint where the drawing is wider than it, faded edges; with
// `chosenInSight`, the chosen token's column brought into view as the chart opens (chosenInView's `nearest`).
export function scrollBox(el, chosenInSight) {
  var box = el.querySelector(".chart-wrapper");
  if (!box || !el.vegaView) return;
  var wide = box.scrollWidth > box.clientWidth + 1, hint = scrollHint(el), param = tokenParam(el);
  if (wide) box.tabIndex = 0;
  else box.removeAttribute("tabindex");
  hint.hidden = !wide;
  var columns = param && tokenColumn(el, el.vegaView, param.name, el.vegaView.signal(param.name));
  sayHint(hint, columns);
  pin(el);
  if (chosenInSight) chosenInView(el, true);
  fadeEdges(box);
}

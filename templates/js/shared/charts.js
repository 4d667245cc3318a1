// Drawing a chart from its compiled Vega spec, as the figure pages and the live page both do.
//
// A chart's element (el) carries what the shared functions read: el.vegaView (its view, once drawn), el.boundParams
// (the spec's signals bound to an input), el.picks (usermeta.clicks: [{field, param}]); inside it, a
// ".control-bar .vega-bindings" box for its inputs and a ".chart-drawing" box for the drawing.
import { DESCRIPTION, NARROW_PX, TOKEN_PARAMS } from "./names.js";

// Whether the chart draws its narrow spec: it has one (`hasNarrow`) and its column is narrower than NARROW_PX.
export function wantsNarrow(el, hasNarrow) {
  return hasNarrow && el.clientWidth < NARROW_PX;
}

// Changes written by the build ([path, value] to set, [path] to delete; sitegen.site.drawing.differences), made
// to a spec; returns the spec.
export function changed(spec, changes) {
  changes.forEach(function (change) {
    var path = change[0], at = spec;
    for (var i = 0; i < path.length - 1; i++) at = at[path[i]];
    if (change.length > 1) at[path[path.length - 1]] = change[1];
    else delete at[path[path.length - 1]];
  });
  return spec;
}

// The chart's param that chooses its token (one of TOKEN_PARAMS), if it binds one.
export function tokenParam(el) {
  return (el.boundParams || []).filter(function (p) { return TOKEN_PARAMS.indexOf(p.name) >= 0; })[0];
}

// Writes the chart's state in words (its description signal, or the signal `name`) into `target`, read out to
// screen readers.
export function describe(target, view, name) {
  if (!target) return;
  try {
    var words = view.signal(name || DESCRIPTION);
    if (typeof words === "string" && target.textContent !== words) target.textContent = words;
  } catch (e) { /* a chart without the param keeps the words written before */ }
}

// The chart's menu saves it as SVG or PNG, drawn in the page: it works offline.
var ACTIONS = { export: true, source: false, compiled: false, editor: false };

// What every chart is embedded with, for the pages' Content Security Policy (sitegen/site/policy.py): with `ast`,
// Vega parses its expressions and vega-embed runs them through vega-interpreter (which it bundles) instead of
// compiling them with `new Function`; vega-embed's and vega-tooltip's rules come from assets/vega.css instead of a
// <style> they would write into the page (so the menu, which comes with their style, is asked for).
var EMBED = { mode: "vega", actions: ACTIONS, ast: true, defaultStyle: false, forceActionsMenu: true,
              tooltip: { disableDefaultStyle: true } };

// Draws `spec` into the chart with vega-embed: the drawing into its .chart-drawing, its inputs into its control bar
// (emptied first). options: {renderer ("svg" or "canvas"), fileName (of the saved SVG or PNG)}. Once drawn,
// el.vegaView is the view and `drawn(view, controls)` carries on; what it returns is draw's promise's. A chart that
// cannot be drawn says so in place of its drawing (data-rendered="error").
export function draw(el, spec, options, drawn) {
  var drawing = el.querySelector(".chart-drawing"), controls = el.querySelector(".control-bar .vega-bindings");
  // Vega writes the inputs aside; they take the place of those the bar holds (the build's, or the last drawing's) in
  // the same task as `drawn` places them, so that the bar never shows both, nor Vega's before they are placed.
  var inputs = document.createElement("div");
  // The drawing follows its content's size at every change, not at its first drawing only (Vega's autosize resize):
  // a title that wraps to another line, a view that grows with the part chosen, never cut by the drawing's edge.
  var size = spec.autosize;
  spec.autosize = Object.assign({ type: "pad" }, typeof size === "string" ? { type: size } : size, { resize: true });
  return window.vegaEmbed(drawing, spec, Object.assign({ renderer: options.renderer || "svg", bind: inputs,
                                                         downloadFileName: options.fileName }, EMBED))
    .then(function (result) {
      var view = result.view;
      controls.replaceChildren.apply(controls, Array.prototype.slice.call(inputs.childNodes));
      el.vegaView = view;
      var menu = el.querySelector("details > summary");
      if (menu) menu.setAttribute("aria-label", "Save the chart as SVG or PNG");  // vega-embed leaves it nameless
      return drawn(view, controls);
    })
    .catch(function (error) {
      el.setAttribute("data-rendered", "error");
      drawing.textContent = "The chart could not be drawn: " + error.message;
      console.error(error);
    });
}

// Vega and vega-embed, as the classic script every page with charts loads first (templates/generated/vega.js, written by
// `npm run bundle`): it sets window.vega and window.vegaEmbed. The charts are compiled to Vega at build time
// (sitegen.site.drawing), and the pages embed them in mode "vega", so the Vega-Lite compiler is left out: the
// bundle imports ./no-vega-lite.js in its place (tools/bundle.mjs).
import * as vega from "vega";
import embed from "vega-embed";

window.vega = vega;
window.vegaEmbed = embed;

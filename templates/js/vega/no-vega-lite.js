// What the Vega bundle has in place of Vega-Lite (tools/bundle.mjs aliases "vega-lite" to this module): vega-embed
// imports the compiler, but the pages give it only Vega specs (compiled at build time), so it is never called.
export const version = "not bundled";

export function compile() {
  throw new Error("This site draws Vega specs only: its charts are compiled from Vega-Lite at build time");
}

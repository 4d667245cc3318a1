// The numbers and names the live page shares with the build. For now spelled here; they are Python's:
// figsite.data.format.TOP_K, figsite.data.run.PER_SHARE, figsite.data.shared_names (the params and usermeta keys).

export const TOP_K = 10;  // the export's top_ids hold this many per stage and position
export const PER_SHARE = 10000;  // a panel's "u" holds shares in units of 1e-4
export const NARROW_PX = 480;  // as figures.js: a column narrower than this draws a chart's narrow spec
export const TOKEN_PARAMS = ['token', 'position'];  // the selects of the text's tokens (figures/toolkit/textless.py)
export const CLICKS_META = 'clicks';  // a chart's usermeta: what a click on a mark chooses
export const PICK = 'pick_';  // the datum field a clickable mark carries for the param it sets
export const CACHE_PREFIX = 'gpt2-live-';  // the Cache Storage's caches of this page: this, then the graph's SHA-256

// Every head's small picture of who looks at whom for the reader's text, as the book's grid has them (figures/heads.py
// grid_picture draws the book's in Python): one pixel a cell (the chart draws it larger, unsmoothed), a token's row
// and the rows it looks at; a cell's colour the sequential scheme's stops, interpolated piecewise in RGB as Vega does
// (figures/picture.py stops_colour), at its share in `levels` steps; a cell out of reach (after its row's token) in
// `masked`. The palette comes from the chart's spec (PICTURE_PALETTE), so a dark page's is its own.
import {PER_SHARE} from '../shared/names.js';

// '#d4d4d4' -> [212, 212, 212].
export function hexColour(hex) {
  const digits = hex.replace('#', '');
  return [0, 2, 4].map((i) => parseInt(digits.slice(i, i + 2), 16));
}

// The colour of t in [0, 1] on a scheme given as one string of hex stops ('440154...'), as [r, g, b].
export function stopsColour(stops, t) {
  const count = stops.length / 6, x = Math.min(Math.max(t, 0), 1) * (count - 1);
  const i = Math.min(Math.floor(x), count - 2);
  const at = (k) => hexColour(stops.slice(k * 6, k * 6 + 6));
  const a = at(i), b = at(i + 1);
  return a.map((v, c) => Math.round(v + (b[c] - v) * (x - i)));
}

// The RGBA pixels of one square (n x n) from its lower triangle in units (`u`, row by row: panels' u).
export function pictureCells(u, n, palette) {
  const cells = new Uint8ClampedArray(n * n * 4), masked = hexColour(palette.masked), levels = palette.levels;
  const colours = new Map();  // a level's colour, worked out once
  let i = 0;
  for (let q = 0; q < n; q++) {
    for (let k = 0; k < n; k++) {
      let colour = masked;
      if (k <= q) {
        const share = u[i++] / PER_SHARE, level = Math.round(Math.min(Math.max(share, 0), 1) * (levels - 1));
        if (!colours.has(level)) colours.set(level, stopsColour(palette.stops, level / (levels - 1)));
        colour = colours.get(level);
      }
      cells.set([colour[0], colour[1], colour[2], 255], (q * n + k) * 4);
    }
  }
  return cells;
}

// The pictures of every head and layer's average (`rows`: panels'; the average of all heads, after the last layer,
// is no square of the grid), at their place l * (nHead + 1) + h, each made an image's address by `toUrl(cells, n)`.
// `shape`: {nLayer, nHead}.
export function headPictures(rows, n, shape, palette, toUrl) {
  const out = new Array(shape.nLayer * (shape.nHead + 1)).fill('');
  rows.forEach((row) => {
    if (row.l >= shape.nLayer || row.h > shape.nHead || row.u.length !== n * (n + 1) / 2) return;
    out[row.l * (shape.nHead + 1) + row.h] = toUrl(pictureCells(row.u, n, palette), n);
  });
  return out;
}

// A PNG data URL of the pixels, drawn on a canvas of the document.
export function canvasUrl(doc) {
  return (cells, n) => {
    const canvas = doc.createElement('canvas');
    canvas.width = canvas.height = n;
    const context = canvas.getContext('2d');
    context.putImageData(new ImageData(cells, n, n), 0, 0);
    return canvas.toDataURL('image/png');
  };
}

// Every head's picture for the reader's text (templates/js/live/pictures.js): the scheme's stops interpolated as
// figures/picture.py stops_colour does, a share in `levels` steps, the cells after a row's token out of reach.
import assert from 'node:assert/strict';
import {test} from 'node:test';

import {headPictures, hexColour, pictureCells, stopsColour} from '../../templates/js/live/pictures.js';
import {PER_SHARE} from '../../templates/js/shared/names.js';

const STOPS = '000000ff00000000ff';  // black, red, blue: two pieces
const PALETTE = {stops: STOPS, levels: 3, masked: '#d4d4d4'};

test('a colour is the stops interpolated piecewise in RGB, its ends the first and the last stop', () => {
  assert.deepEqual(stopsColour(STOPS, 0), [0, 0, 0]);
  assert.deepEqual(stopsColour(STOPS, 0.25), [128, 0, 0]);  // halfway from black to red, rounded
  assert.deepEqual(stopsColour(STOPS, 0.5), [255, 0, 0]);
  assert.deepEqual(stopsColour(STOPS, 1), [0, 0, 255]);
  assert.deepEqual(stopsColour(STOPS, 7), [0, 0, 255]);  // past the end: the last
  assert.deepEqual(hexColour('#d4d4d4'), [212, 212, 212]);
});

test('a square holds each row\'s shares in levels, and grey after the row\'s own token', () => {
  // 2 tokens: row 1 gives itself everything; row 2 gives 0.2 and 0.8 (levels 0, 1 and 2 of 3: 0, 0.5, 1).
  const u = [PER_SHARE, 0.2 * PER_SHARE, 0.8 * PER_SHARE];
  const cells = Array.from(pictureCells(u, 2, PALETTE));
  assert.deepEqual(cells, [0, 0, 255, 255, 212, 212, 212, 255,   // row 1: share 1 -> blue; out of reach
                           0, 0, 0, 255, 0, 0, 255, 255]);       // row 2: 0.2 -> level 0 (black); 0.8 -> level 2
});

test('the pictures are every head\'s and each layer\'s average, in the grid\'s order, the average of all left out', () => {
  const rows = [];
  for (let l = 0; l < 2; l++) for (let h = 0; h <= 2; h++) rows.push({l: l, h: h, u: [PER_SHARE]});
  rows.push({l: 2, h: 2, u: [PER_SHARE]});  // every head's average, after the last layer
  const made = headPictures(rows, 1, {nLayer: 2, nHead: 2}, PALETTE, (cells, n) => n + ':' + Array.from(cells));
  assert.equal(made.length, 2 * 3);
  assert.ok(made.every((url) => url === '1:0,0,255,255'));
});

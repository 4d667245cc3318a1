// What the live page says while the model downloads (templates/js/live/model.js): what has come, of how much, and
// what remains, the model named as the page names it.
import assert from 'node:assert/strict';
import {test} from 'node:test';

import {downloadWords} from '../../templates/js/live/model.js';
import {page} from '../../templates/js/live/page.js';

test('the progress says what has come, of how much, and what remains', () => {
  page.model = {name: 'the random model'};
  assert.equal(downloadWords(120e6, 495e6), 'Downloading the random model: 120 MB of 495 MB, 375 MB to go');
  assert.equal(downloadWords(77.9e6, 77.9e6), 'Downloading the random model: 78 MB of 78 MB');  // all come
  assert.equal(downloadWords(5e6, 8.5e6), 'Downloading the random model: 5.0 MB of 8.5 MB, 3.5 MB to go');
});

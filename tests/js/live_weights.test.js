// Which weights the live page loads (templates/js/live/weights.js): the light ones first on a phone or where the
// reader saves data, else the exact ones; the light choice brings the light files, bytes, graph and session options
// and keeps everything else of the model.
import assert from 'node:assert/strict';
import {test} from 'node:test';

import {lightFirst, weightsModel} from '../../templates/js/live/weights.js';

// A window as lightFirst reads it: a screen `width` px wide, and the browser's Save-Data.
function windowOf(width, saveData) {
  return {
    matchMedia: (query) => ({matches: width <= Number(/max-width: (\d+)px/.exec(query)[1])}),
    navigator: saveData === undefined ? {} : {connection: {saveData: saveData}},
  };
}

test('a phone, or a browser saving data, gets the light weights first; a desktop the exact ones', () => {
  assert.equal(lightFirst(windowOf(360)), true);
  assert.equal(lightFirst(windowOf(1280)), false);
  assert.equal(lightFirst(windowOf(1280, true)), true);
  assert.equal(lightFirst(windowOf(1280, false)), false);
  assert.equal(lightFirst({navigator: {}}), false);  // a browser without matchMedia
});

const CONFIG = {
  model: {name: 'GPT-2', files: [{name: 'model.onnx'}], bytes: 495, graph: 'model.onnx', n_layer: 12, n_head: 12},
  light: {files: [{name: 'light-model.onnx'}], bytes: 78, graph: 'light-model.onnx', error: '0.3',
          options: {'session.disable_quant_qdq': '1'}},
};

test('the light choice takes the light files, bytes, graph and options, and keeps the name and the shape', () => {
  const light = weightsModel(CONFIG, true);
  assert.deepEqual(light, {name: 'GPT-2', files: [{name: 'light-model.onnx'}], bytes: 78, graph: 'light-model.onnx',
                           n_layer: 12, n_head: 12, options: {'session.disable_quant_qdq': '1'}});
  assert.equal(weightsModel(CONFIG, false), CONFIG.model);
  assert.equal(CONFIG.model.graph, 'model.onnx');  // the exact weights' configuration is left as it was
});

test('a page without light weights loads the exact ones whatever is asked', () => {
  assert.equal(weightsModel({model: CONFIG.model}, true), CONFIG.model);
});

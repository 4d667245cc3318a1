// Which weights the page downloads, as the reader chooses above the button: the exact ones (the numbers the other
// figures show) or the light ones (each weight in 4 bits, about a sixth of the bytes: figsite/capture/live_light.py),
// whose largest difference from the exact ones on the book's texts the page states beside the choice. On a phone, or
// where the reader asks the browser to save data, the light ones are chosen at first.
import {megabytes, modelName, page} from './page.js';

// Whether the light weights come first: a narrow screen (a phone), or the browser's Save-Data.
export function lightFirst(win) {
  const narrow = Boolean(win.matchMedia && win.matchMedia('(max-width: 600px)').matches);
  const connection = win.navigator && win.navigator.connection;
  return narrow || Boolean(connection && connection.saveData);
}

// The model as the page loads it: the exact weights' configuration, or the same with the light weights' files,
// bytes, graph and session options.
export function weightsModel(config, light) {
  if (!light || !config.light) return config.model;
  const {files, bytes, graph, options} = config.light;
  return Object.assign({}, config.model, {files: files, bytes: bytes, graph: graph, options: options});
}

// The button's words for the chosen weights.
export function loadWords(model) {
  return 'Load ' + modelName() + ' in this page: ' + megabytes(model.bytes) + ', once';
}

// Makes `light` the page's choice: its model, the button's words, what window.liveFigures says.
export function chooseWeights(light) {
  page.model = weightsModel(page.config, light);
  page.live.weights = light && page.config.light ? 'light' : 'exact';
  page.el.loadButton.textContent = loadWords(page.model);
  page.el.loadButton.setAttribute('data-bytes', String(page.model.bytes));
  page.el.progressBar.max = page.model.bytes;
}

// The choice's radio buttons: the first choice made (lightFirst), then each change; `changed` after each change.
export function listenToWeights(changed) {
  const exact = document.getElementById('live-weights-exact');
  const light = document.getElementById('live-weights-light');
  if (!exact || !light || !page.config.light) return;
  const first = lightFirst(window);
  light.checked = first;
  exact.checked = !first;
  chooseWeights(first);
  [exact, light].forEach((radio) => {
    radio.addEventListener('change', () => {
      chooseWeights(light.checked);
      changed();
    });
  });
}

// The scripts the page's own needs (the model's tokenizer, Tokenizers.js, onnxruntime-web), loaded in order when the
// reader asks: live.html has them from the start; a figure's page (its "Try your own sentence") fetches them only
// when the reader opens it, so that a reader of the book's figure downloads nothing more. Each one's SHA-256 is
// checked with the runtime's before the model is fetched (runtime.js).

let loading = null;  // the one promise of every script loaded

// Whether the scripts are there: the tokenizer made (window.liveTokens) and the runtime (window.ort).
export function present(scope) {
  return Boolean(scope.liveTokens && scope.ort);
}

// Loads `paths` one after the other (each runs before the next is asked for); resolves once all have run.
export function loadInOrder(paths, doc) {
  return paths.reduce((before, path) => before.then(() => new Promise((resolve, reject) => {
    const script = doc.createElement('script');
    script.src = path;
    script.onload = () => { resolve(); };
    script.onerror = () => { reject(new Error('the page could not load ' + path)); };
    doc.head.appendChild(script);
  })), Promise.resolve());
}

// The scripts, loaded once, whatever asks first (the panel opened, the address, the load button).
export function needScripts(paths) {
  if (present(window)) return Promise.resolve();
  if (!loading) {
    loading = loadInOrder(paths, document).then(() => {
      // Tokenizers.js reads liveTokenizerJson as its script runs: window.liveTokens is made then.
      if (!present(window)) throw new Error('the tokenizer or the runtime did not start');
    }, (error) => {
      loading = null;
      throw error;
    });
  }
  return loading;
}

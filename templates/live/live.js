// The live page (live.html, `python build.py --live`): the reader types a text, GPT-2 runs in the page
// (onnxruntime-web, WebAssembly, on the reader's own computer: nothing is sent anywhere) and the page draws four
// figures for that text: (l), every head, (i) and the lens.
//
// What it reads: the JSON in #live-config, written by the build (templates/live.html): the model's files
// {"path", "name", "bytes", "sha256"}, the charts (key -> [compiled Vega spec, the dark theme's changes], and
// "narrow-" + key for a column under 480 px), the defaults (text, target, max_tokens). The datasets and params it
// fills in are figures/live.py's (its module docstring is the contract): params `names`, `follow_name`, the selects
// `token` and `position`; datasets `panels`, `top`, `follow`.
//
// The model (figsite/capture/live_export.py): inputs input_ids int64 (1, T) and follow int64 (K,); outputs shares
// (layers, heads, T, T), top_ids / top_probs (stages, T, 10), follow_probs / follow_ranks (stages, T, K). Its files are
// fetched once, with the bytes counted for the progress bar, and kept in Cache Storage (a cache named after the
// graph's SHA-256, each file under its own SHA-256), so that the next visit loads them from there.
//
// The reader's text is only ever text here: textContent, input values, Vega's text marks; never HTML.
//
// The charts' token choices are linked, as on the site's text pages: choosing token N in (l) ("token") chooses it in
// every head ("token") and as the lens's "position", and the other way round; the address keeps it (&token=N).
// A chart wider than its column (the lens's table on a phone) scrolls in its own box, with figures.js's hint and
// fading edges (site.css), and follows the reader's choices with the chosen column in view.
//
// Sets window.liveFigures: {state, result (the raw numbers of the last text drawn), drawn (the datasets and params
// the charts were given), timings, loadedFrom, kept (whether the model's files were all in Cache Storage when the
// page opened: null until known)}; #live's data-state says the state too (idle, file, loading, ready, running,
// drawn, refused, error). Read by tests/browser/test_live_page.py.
(function () {
  'use strict';

  var root = document.getElementById('live');
  var configElement = document.getElementById('live-config');
  if (!root || !configElement) return;
  var config = JSON.parse(configElement.textContent);
  var MODEL = config.model, DEFAULTS = config.defaults || {};
  var MAX_TOKENS = MODEL.max_tokens || DEFAULTS.max_tokens;
  var N_LAYER = MODEL.n_layer, N_HEAD = MODEL.n_head, STAGES = N_LAYER + 1;
  var TOP_K = 10;  // figsite.data.format.TOP_K: the export's top_ids hold this many per stage and position
  var PER_SHARE = 10000;  // figsite.data.run.PER_SHARE: a panel's "u" holds shares in units of 1e-4
  var NARROW_PX = 480;  // as figures.js: a column narrower than this draws a chart's narrow spec
  var TOKEN_PARAMS = ['token', 'position'];  // the selects of the text's tokens (figures/live.py)
  var CACHE_PREFIX = 'gpt2-live-';
  var CLICKS_META = 'clicks', PICK = 'pick_';  // figsite.data.shared_names

  var live = window.liveFigures = {state: 'idle', result: null, drawn: null, timings: {}, loadedFrom: null,
                                   kept: null};
  var $ = function (id) { return document.getElementById(id); };
  var textBox = $('live-text'), targetBox = $('live-target'), form = $('live-form');
  var loadButton = $('live-load-button'), loadStatus = $('live-load-status');
  var progress = $('live-progress'), progressBar = $('live-progress-bar'), progressWords = $('live-progress-words');
  var messageLine = $('live-message'), tokensRow = $('live-tokens'), downloads = $('live-downloads');
  var countLine = $('live-count'), targetSaid = $('live-target-said');
  var followLine = $('live-follow'), followSelect = $('live-follow-select');
  var chartElements = Array.prototype.slice.call(document.querySelectorAll('[data-live-chart]'));
  var darkScheme = window.matchMedia ? window.matchMedia('(prefers-color-scheme: dark)') : null;

  function setState(state) {
    live.state = state;
    root.setAttribute('data-state', state);
  }

  // One sentence under the form, as text; kind: 'info', 'refused' or 'error'.
  function say(words, kind) {
    messageLine.textContent = words || '';
    messageLine.setAttribute('data-kind', kind || 'info');
  }

  function megabytes(bytes) {
    var mb = bytes / 1e6;
    return (mb >= 10 ? mb.toFixed(0) : mb.toFixed(1)) + ' MB';
  }

  // A token as the pages write it (figures.toolkit.words.shown): a leading space as '_', line breaks and other
  // control characters as visible escapes (\n, \v, \x1b, \u2028), so that none prints as nothing.
  var ESCAPES = {'\n': '\\n', '\t': '\\t', '\r': '\\r', '\v': '\\v', '\f': '\\f', '\0': '\\0'};
  function escapeCharacter(c) {
    var code = c.charCodeAt(0);
    return ESCAPES[c] || (code < 0x100 ? '\\x' + ('0' + code.toString(16)).slice(-2) : '\\u' + code.toString(16));
  }
  function shown(token) {
    if (token.charAt(0) === ' ') token = '_' + token.slice(1);
    return token.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufffe\uffff]/g, escapeCharacter);
  }

  var texts = {};
  function tokenText(id) {
    if (!(id in texts)) {
      try {
        texts[id] = window.liveTokens.tokenText(id);
      } catch (e) {
        texts[id] = '<token ' + id + '>';
      }
    }
    return texts[id];
  }
  function tokenName(id) {
    return shown(tokenText(id));
  }

  // A float32 as its shortest exact decimal (9 significant digits always suffice), for the downloads.
  function f32(x) {
    return +x.toPrecision(9);
  }

  // ---------------------------------------------------------------------------------------------- file://

  // From file:// a browser lets the page neither fetch the model nor start the runtime: one line says how to serve it.
  if (location.protocol === 'file:') {
    var folder = decodeURIComponent(location.pathname.replace(/[^\/]*$/, ''));
    if (/^\/[A-Za-z]:\//.test(folder)) folder = folder.slice(1);  // file:///C:/... on Windows
    folder = folder.length > 1 ? folder.replace(/\/$/, '') : folder;
    if (/[\s"'$`\\]/.test(folder)) folder = '"' + folder.replace(/(["$`\\])/g, '\\$1') + '"';
    var line = $('live-file');
    var code = function (words) {
      var element = document.createElement('code');
      element.textContent = words;
      return element;
    };
    line.textContent = '';
    line.append('This page runs GPT-2 only when the site is served, not opened as a file: run ',
                code('python -m http.server --directory ' + folder),
                ' and open http://localhost:8000/live.html (or preview the site with ', code('python build.py --serve'), ').');
    line.hidden = false;
    $('live-load').hidden = true;
    form.hidden = true;
    Array.prototype.forEach.call(root.querySelectorAll('.chart-placeholder'), function (p) { p.hidden = true; });
    setState('file');
    return;
  }

  // ---------------------------------------------------------------------------------------------- the address

  function readAddress() {
    var state = {};
    location.hash.replace(/^#/, '').split('&').forEach(function (pair) {
      var at = pair.indexOf('=');
      if (at <= 0) return;
      try {
        state[decodeURIComponent(pair.slice(0, at))] = decodeURIComponent(pair.slice(at + 1));
      } catch (e) { /* a broken %-escape: ignore this pair */ }
    });
    return state;
  }

  // The address holds the text and target last run (or kept for the model), and the token chosen in the charts.
  var addressed = null;  // {text, target} written last
  var opening = null;  // {text, token}: a token the address chose, for the first drawing of its text
  var chosenToken = null;  // the token (from 1) chosen in the charts of the text drawn; null: none chosen

  function writeAddress(text, target) {
    addressed = {text: text, target: target};
    var token = live.result && live.result.text === text ? chosenToken :
                opening && opening.text === text ? opening.token : null;
    history.replaceState(null, '', '#text=' + encodeURIComponent(text) + '&target=' + encodeURIComponent(target) +
                                   (token ? '&token=' + token : ''));
  }

  // ---------------------------------------------------------------------------------------------- what the reader asks

  // The text's token ids and the target's id, or {refused: one sentence}.
  function asked(text, target) {
    if (text === '') return {refused: 'Type a text first: the box is empty.'};
    if (!/\S/.test(text)) return {refused: 'Your text is only spaces; type a word or more.'};
    var ids = window.liveTokens.encode(text);
    if (ids.length > MAX_TOKENS) {
      return {refused: 'Your text is ' + ids.length + ' tokens long; this page reads at most ' + MAX_TOKENS + '.'};
    }
    var followed = followedToken(target);
    if (followed.refused) return followed;
    return {ids: ids, target: followed.id};
  }

  // The token the target box names: {id, said (one line on which token it is, or '')}, or {refused: one sentence}.
  // '_' in front stands for a space, as the pages write tokens. A word typed without its space (`dog`) is taken
  // for the word after another word (' dog', a token of its own, not 'dog') where that is one token, and the line
  // says so; else for the token without the space. Punctuation typed bare (`.`) is the token without the space
  // first, as it mostly follows a word with none.
  function followedToken(target) {
    if (target === '') return {refused: 'Type the token to follow in the read-out: its box is empty.'};
    var encode = window.liveTokens.encode, found = encode(target), said = '';
    if (target.charAt(0) === '_' && target.length > 1) {
      var underscored = encode(' ' + target.slice(1));
      if (underscored.length === 1) found = underscored;
    } else if (target.charAt(0) !== ' ') {
      var spaced = encode(' ' + target), word = /^[\p{L}\p{N}]/u.test(target);
      if (spaced.length === 1 && (word || found.length !== 1)) {
        found = spaced;
        said = 'Following ' + tokenName(spaced[0]) + ' (with the space before it, as a word after another word).';
      } else if (found.length === 1) {
        said = 'Following ' + tokenName(found[0]) + ' (the token without a space before it).';
      }
    }
    if (found.length !== 1) {
      return {refused: 'The token to follow must be one token, and "' + target + '" is ' + found.length +
                       ' (' + found.map(tokenName).join(' ') + '): try a shorter or more common word, with the ' +
                       'space before it.'};
    }
    return {id: found[0], said: said};
  }

  // ---------------------------------------------------------------------------------------------- the model

  var session = null, loading = null, loadAsked = false;

  function cacheKey(file) {
    var url = new URL(file.path, location.href);
    url.search = 'sha256=' + file.sha256;
    return url.href;
  }

  function cacheName() {
    return CACHE_PREFIX + MODEL.files.filter(function (f) { return f.name === MODEL.graph; })[0].sha256;
  }

  // This model's cache (older models' caches removed), or null where the browser has no Cache Storage here (not a
  // secure context: http:// on another host than localhost) or refuses it.
  async function openCache() {
    if (!window.caches) return null;
    try {
      var name = cacheName();
      var names = await caches.keys();
      await Promise.all(names.filter(function (n) { return n.indexOf(CACHE_PREFIX) === 0 && n !== name; })
                             .map(function (n) { return caches.delete(n); }));
      var store = await caches.open(name);
      var wanted = MODEL.files.map(cacheKey);
      var kept = await store.keys();
      await Promise.all(kept.filter(function (r) { return wanted.indexOf(r.url) < 0; })
                            .map(function (r) { return store.delete(r); }));
      return store;
    } catch (e) {
      console.warn('The model will not be kept in this browser: ' + e.message);
      return null;
    }
  }

  async function fromCache(store, file) {
    if (!store) return null;
    try {
      var response = await store.match(cacheKey(file));
      if (!response) return null;
      var blob = await response.blob();
      return blob.size === file.bytes ? blob : null;
    } catch (e) {
      return null;
    }
  }

  // One file, read chunk by chunk to count its bytes; onBytes(bytes so far).
  async function download(file, store, onBytes) {
    var response = await fetch(new URL(file.path, location.href).href, {cache: store ? 'no-store' : 'default'});
    if (!response.ok) throw new Error(file.name + ': the server answered ' + response.status);
    var chunks = [], got = 0;
    if (response.body && response.body.getReader) {
      var reader = response.body.getReader();
      for (;;) {
        var step = await reader.read();
        if (step.done) break;
        chunks.push(step.value);
        got += step.value.byteLength;
        onBytes(got);
      }
    } else {
      var whole = new Uint8Array(await response.arrayBuffer());
      chunks.push(whole);
      got = whole.byteLength;
      onBytes(got);
    }
    if (got !== file.bytes) throw new Error(file.name + ' came incomplete: ' + got + ' of ' + file.bytes + ' bytes');
    return new Blob(chunks, {type: 'application/octet-stream'});
  }

  async function keep(store, file, blob) {
    if (!store) return;
    try {
      await store.put(cacheKey(file), new Response(blob, {headers: {'Content-Type': 'application/octet-stream',
                                                                     'Content-Length': String(blob.size)}}));
    } catch (e) {
      console.warn('The model could not be kept in this browser (' + e.message + '): the next visit downloads it again.');
    }
  }

  // Whether every file of the model is kept in this browser (a visit before loaded it), read without opening a cache
  // that is not there and without reading the files: each one's entry, of its size where the entry says it (loading
  // checks each size again, and downloads what is missing).
  async function allKept() {
    if (!window.caches) return false;
    try {
      var name = cacheName();
      if (!(await caches.has(name))) return false;
      var store = await caches.open(name);
      for (var i = 0; i < MODEL.files.length; i++) {
        var response = await store.match(cacheKey(MODEL.files[i]));
        if (!response) return false;
        var length = response.headers.get('Content-Length');
        if (length !== null && Number(length) !== MODEL.files[i].bytes) return false;
      }
      return true;
    } catch (e) {
      return false;
    }
  }

  function showProgress(done, total, words) {
    progress.hidden = false;
    progressBar.max = total;
    progressBar.value = done;
    progressWords.textContent = words;
  }

  async function openModel() {
    if (!window.ort) throw new Error('onnxruntime-web did not load (live/ort/ort.wasm.min.js)');
    ort.env.wasm.wasmPaths = new URL('live/ort/', location.href).href;
    ort.env.wasm.numThreads = window.crossOriginIsolated ? Math.min(4, navigator.hardwareConcurrency || 1) : 1;
    var store = await openCache();
    var total = MODEL.bytes, done = 0, downloaded = 0, blobs = {}, shownMb = -1;
    for (var i = 0; i < MODEL.files.length; i++) {
      var file = MODEL.files[i];
      var blob = await fromCache(store, file);
      if (blob) {
        done += file.bytes;
        showProgress(done, total, 'Loading GPT-2 from this browser\'s storage: ' + megabytes(done) + ' of ' +
                                  megabytes(total));
      } else {
        blob = await download(file, store, function (bytes) {
          var mb = Math.floor((done + bytes) / 1e6);
          progressBar.value = done + bytes;
          if (mb !== shownMb) {
            shownMb = mb;
            showProgress(done + bytes, total, 'Downloading GPT-2: ' + megabytes(done + bytes) + ' of ' + megabytes(total));
          }
        });
        done += file.bytes;
        downloaded += file.bytes;
        await keep(store, file, blob);
      }
      blobs[file.name] = blob;
    }
    showProgress(total, total, 'Starting GPT-2 in this page…');
    var graph = new Uint8Array(await blobs[MODEL.graph].arrayBuffer());
    var external = MODEL.files.filter(function (f) { return f.name !== MODEL.graph; })
                              .map(function (f) { return {path: f.name, data: blobs[f.name]}; });
    var created = await ort.InferenceSession.create(graph, {executionProviders: ['wasm'], externalData: external});
    live.loadedFrom = downloaded === 0 ? 'cache' : downloaded === total ? 'network' : 'both';
    live.downloadedBytes = downloaded;
    return created;
  }

  function load() {
    if (loading) return loading;
    loadAsked = true;
    loadButton.disabled = true;
    setState('loading');
    say('');
    var started = performance.now();
    loading = openModel().then(function (created) {
      session = created;
      live.timings.loadMs = performance.now() - started;
      progress.hidden = true;
      loadButton.hidden = true;
      loadStatus.textContent = 'GPT-2 is loaded in this page (' + (live.loadedFrom === 'cache' ?
        'from this browser\'s storage' : 'downloaded') + ', ' + (live.timings.loadMs / 1000).toFixed(1) + ' s' +
        (ort.env.wasm.numThreads > 1 ? ', ' + ort.env.wasm.numThreads + ' threads' : '') + ').';
      setState('ready');
      return submit();
    }, function (error) {
      loading = null;
      loadButton.disabled = false;
      progress.hidden = true;
      setState('error');
      say('GPT-2 could not be loaded in this page (' + error.message + '); the button tries again.', 'error');
      console.error(error);
    });
    return loading;
  }

  // One run at a time: the runtime's session runs one call at once.
  var queue = Promise.resolve();
  function inTurn(task) {
    var next = queue.then(task, task);
    queue = next.catch(function () {});
    return next;
  }

  function int64(values) {
    return BigInt64Array.from(values, function (v) { return BigInt(v); });
  }

  async function infer(ids, follow) {
    var out = await session.run({
      input_ids: new ort.Tensor('int64', int64(ids), [1, ids.length]),
      follow: new ort.Tensor('int64', int64(follow), [follow.length])});
    return {shares: out.shares.data, topIds: out.top_ids.data, topProbs: out.top_probs.data,
            followProbs: out.follow_probs.data, followRanks: out.follow_ranks.data};
  }

  // ---------------------------------------------------------------------------------------------- the numbers

  // The raw numbers of one text (what the downloads hold): the followed tokens' probabilities and ranks per token.
  function result(text, ids, target, follow, out) {
    var n = ids.length, k = follow.length, followed = [];
    follow.forEach(function (id, j) {
      var p = new Float32Array(STAGES * n), rank = new Array(STAGES * n);
      for (var i = 0; i < STAGES * n; i++) {
        p[i] = out.followProbs[i * k + j];
        rank[i] = Number(out.followRanks[i * k + j]);
      }
      followed.push({id: id, p: p, rank: rank});
    });
    return {text: text, ids: ids, names: ids.map(tokenName), target: target, shares: out.shares,
            topIds: out.topIds, topProbs: out.topProbs, followed: followed};
  }

  function followedOf(res, id) {
    return res.followed.filter(function (f) { return f.id === id; })[0];
  }

  // figures/live.py's `panels`: each head's and each layer's average's lower triangle in units, then the average of
  // all heads.
  function panels(res) {
    var n = res.ids.length, cells = n * (n + 1) / 2, rows = [], all = new Float64Array(cells), shares = res.shares;
    for (var l = 0; l < N_LAYER; l++) {
      var layer = new Float64Array(cells);
      for (var h = 0; h < N_HEAD; h++) {
        var u = new Array(cells), base = (l * N_HEAD + h) * n * n, i = 0;
        for (var q = 0; q < n; q++) {
          for (var key = 0; key <= q; key++, i++) {
            var s = shares[base + q * n + key];
            u[i] = Math.round(s * PER_SHARE);
            layer[i] += s;
          }
        }
        rows.push({l: l, h: h, u: u});
      }
      rows.push({l: l, h: N_HEAD, u: Array.from(layer, function (s) { return Math.round(s / N_HEAD * PER_SHARE); })});
      for (var c = 0; c < cells; c++) all[c] += layer[c];
    }
    rows.push({l: N_LAYER, h: N_HEAD,
               u: Array.from(all, function (s) { return Math.round(s / (N_LAYER * N_HEAD) * PER_SHARE); })});
    return rows;
  }

  // `top`: by stage, then position, then rank.
  function topRows(res) {
    var n = res.ids.length, rows = [];
    for (var stage = 0; stage < STAGES; stage++) {
      for (var q = 0; q < n; q++) {
        for (var r = 0; r < TOP_K; r++) {
          var at = (stage * n + q) * TOP_K + r, id = Number(res.topIds[at]);
          rows.push({stage: stage, q: q, rank: r + 1, token: tokenName(id), id: id, p: res.topProbs[at]});
        }
      }
    }
    return rows;
  }

  // `follow` of one followed token: by stage, then position.
  function followRows(res, id) {
    var n = res.ids.length, f = followedOf(res, id), rows = [];
    for (var stage = 0; stage < STAGES; stage++) {
      for (var q = 0; q < n; q++) {
        rows.push({stage: stage, q: q, p: f.p[stage * n + q], rank: f.rank[stage * n + q]});
      }
    }
    return rows;
  }

  // ---------------------------------------------------------------------------------------------- the charts

  function changed(spec, changes) {
    changes.forEach(function (change) {
      var path = change[0], at = spec;
      for (var i = 0; i < path.length - 1; i++) at = at[path[i]];
      if (change.length > 1) at[path[path.length - 1]] = change[1];
      else delete at[path[path.length - 1]];
    });
    return spec;
  }

  function copy(value) {
    return window.structuredClone ? structuredClone(value) : JSON.parse(JSON.stringify(value));
  }

  // A value an input allows (figures.js's `allowed`): one of its options, or a step of its range; else undefined.
  function allowed(bind, raw) {
    if (bind.options) {
      for (var i = 0; i < bind.options.length; i++) if (String(bind.options[i]) === String(raw)) return bind.options[i];
      return undefined;
    }
    if (bind.input === 'range') {
      var v = Number(raw);
      if (raw === '' || !isFinite(v) || v < bind.min || v > bind.max) return undefined;
      var step = bind.step || 1;
      return bind.min + Math.round((v - bind.min) / step) * step;
    }
    return undefined;
  }

  // The names of the marks that draw the chosen cell's top 10 in the lens: those whose data come from `top` with
  // no transform that a click reads (the table's cells carry pick_ fields).
  function topMarks(spec) {
    var byName = {};
    spec.data.forEach(function (d) { byName[d.name] = d; });
    function fromTop(name) {
      for (var d = byName[name]; d; d = byName[d.source]) {
        if ((d.transform || []).some(function (t) { return String(t.as).indexOf(PICK) === 0; })) return false;
        if (d.name === 'top') return true;
      }
      return false;
    }
    var found = [];
    (function walk(marks) {
      (marks || []).forEach(function (mark) {
        if (mark.type !== 'group' && mark.from && mark.from.data && fromTop(mark.from.data) && mark.name) {
          found.push(mark.name);
          mark.encode = mark.encode || {};
          mark.encode.update = mark.encode.update || {};
          mark.encode.update.cursor = {value: 'pointer'};
        }
        walk(mark.marks);
      });
    })(spec.marks);
    return found;
  }

  function wantsNarrow(el) {
    return ('narrow-' + el.getAttribute('data-live-chart')) in config.charts && el.clientWidth < NARROW_PX;
  }

  // The chart's spec for this text: a copy of the build's, in the reader's colours, its datasets and params filled in
  // (figures/live.py), each input kept at the reader's choice where the new text allows it.
  function specFor(el, given, kept) {
    var key = el.getAttribute('data-live-chart'), narrow = wantsNarrow(el);
    var pair = config.charts[(narrow ? 'narrow-' : '') + key];
    var spec = copy(pair[0]);
    if (darkScheme && darkScheme.matches) changed(spec, pair[1]);
    spec.data.forEach(function (d) {
      if (d.name in given.datasets) d.values = given.datasets[d.name];
    });
    var n = given.names.length;
    spec.signals.forEach(function (signal) {
      if (signal.name === 'names') signal.value = given.names;
      else if (signal.name === 'follow_name') signal.value = given.followName;
      else if (TOKEN_PARAMS.indexOf(signal.name) >= 0 && signal.bind) {
        var options = [], labels = [];
        for (var i = 1; i <= n; i++) options.push(i), labels.push(i + ': ' + given.names[i - 1]);
        signal.bind.options = options;
        signal.bind.labels = labels;
        // The token chosen in the other charts or by the address, else the reader's choice in this one, else the
        // spec's opening token.
        var keptValue = el.pendingToken !== undefined ? el.pendingToken :
                        given.sameText && kept ? kept[signal.name] : undefined;
        signal.value = keptValue !== undefined && keptValue >= 1 && keptValue <= n ? keptValue : Math.min(signal.value, n);
      } else if (signal.bind && kept && signal.name in kept) {
        var value = allowed(signal.bind, kept[signal.name]);
        if (value !== undefined) signal.value = value;
      }
    });
    el.pendingToken = undefined;
    el.drawnNarrow = narrow;
    el.toggleAttribute('data-drawn-narrow', narrow);
    return spec;
  }

  // ---------------------------------------------------------------------------------------------- linked tokens

  // The chart's select of the text's tokens ("token" or "position"), if it has one.
  function tokenParam(el) {
    return (el.boundSignals || []).filter(function (s) { return TOKEN_PARAMS.indexOf(s.name) >= 0; })[0];
  }

  // A token chosen in one chart is chosen in the others (as figures.js does on a text page); a chart being drawn
  // takes it when it is. A chart that has it already is left alone, so the charts' listeners never loop.
  function linkToken(source, value) {
    if (!live.result) return;
    chosenToken = value;
    chartElements.forEach(function (el) {
      if (el === source) return;
      var param = tokenParam(el);
      if (!param) return;
      if (!el.vegaView) {
        el.pendingToken = value;
        return;
      }
      var allowedValue = allowed(param.bind, value);
      if (allowedValue !== undefined && el.vegaView.signal(param.name) !== allowedValue) {
        el.vegaView.signal(param.name, allowedValue).runAsync();
      }
    });
    if (addressed) writeAddress(addressed.text, addressed.target);
  }

  // ---------------------------------------------------------------------------------------------- a wide chart

  // These few helpers are figures.js's, written again: figures.js exposes nothing, and a build without --live must
  // write the site byte for byte as before the live page, figures.js included.
  // As figures.js: a drawing wider than its column (the lens's table on a phone) scrolls sideways in its own box,
  // which the keyboard can then reach; a hint above it says so, the box fades at an edge with more beyond it
  // (site.css), and each choice of a token brings its column into view.

  // Where the chart's clickable marks lie for one value of its token (a column of the lens's table): [left, right]
  // in px from the drawing's left edge; null where no mark carries that token.
  function tokenColumn(el, view, param, value) {
    var pick = (el.picks || []).filter(function (p) { return p.param === param; })[0];
    if (!pick) return null;
    var left = Infinity, right = -Infinity;
    (function walk(mark, x) {
      (mark.items || []).forEach(function (item) {
        if (mark.marktype === 'group') {
          (item.items || []).forEach(function (inner) { walk(inner, x + (item.x || 0)); });
        } else if (item.datum && item.bounds && String(item.datum[pick.field]) === String(value)) {
          left = Math.min(left, x + item.bounds.x1);
          right = Math.max(right, x + item.bounds.x2);
        }
      });
    })(view.scenegraph().root, view.origin()[0]);
    return left <= right ? [left, right] : null;
  }

  function chosenInView(el) {
    var box = el.querySelector('.chart-wrapper'), param = tokenParam(el), view = el.vegaView;
    var drawing = box && box.querySelector('svg, canvas');
    if (!drawing || !param || !view || box.scrollWidth <= box.clientWidth + 1) return;
    var span = tokenColumn(el, view, param.name, view.signal(param.name));
    if (!span) return;
    var at = drawing.getBoundingClientRect().left - box.getBoundingClientRect().left + box.scrollLeft;
    if (at + span[0] < box.scrollLeft || at + span[1] > box.scrollLeft + box.clientWidth) {
      box.scrollLeft = at + (span[0] + span[1] - box.clientWidth) / 2;
    }
  }

  function fadeEdges(box) {
    var more = box.scrollWidth - box.clientWidth;
    if (!box.fading) {
      box.fading = true;
      box.addEventListener('scroll', function () { fadeEdges(box); }, {passive: true});
    }
    box.toggleAttribute('data-more-left', more > 1 && box.scrollLeft > 1);
    box.toggleAttribute('data-more-right', more > 1 && box.scrollLeft < more - 1);
  }

  function scrollHint(el) {
    var hint = el.querySelector('.scroll-hint');
    if (hint) return hint;
    hint = document.createElement('p');
    hint.className = 'scroll-hint';
    [['on-mouse', 'Scroll sideways'], ['on-touch', 'Swipe sideways']].forEach(function (words) {
      var span = hint.appendChild(document.createElement('span'));
      span.className = words[0];
      span.textContent = words[1];
    });
    hint.appendChild(document.createTextNode(''));
    el.insertBefore(hint, el.querySelector('.chart-drawing'));
    return hint;
  }

  function scrollBox(el) {
    var box = el.querySelector('.chart-wrapper');
    if (!box || !el.vegaView) return;
    var wide = box.scrollWidth > box.clientWidth + 1, hint = scrollHint(el), param = tokenParam(el);
    if (wide) box.tabIndex = 0;
    else box.removeAttribute('tabindex');
    hint.hidden = !wide;
    var columns = param && tokenColumn(el, el.vegaView, param.name, el.vegaView.signal(param.name));
    hint.lastChild.textContent = columns ? ' to see every position' : ' to see the whole chart';
    fadeEdges(box);
  }

  function describe(el, view) {
    var target = $('live-description-' + el.getAttribute('data-live-chart'));
    try {
      target.textContent = view.signal('description');
    } catch (e) { /* no description */ }
  }

  // The reader's choices in a drawn chart (its bound signals), to carry over to its next drawing.
  function choices(el) {
    var out = {};
    if (!el.vegaView) return out;
    (el.boundSignals || []).forEach(function (signal) {
      try {
        out[signal.name] = el.vegaView.signal(signal.name);
      } catch (e) { /* gone */ }
    });
    return out;
  }

  function draw(el, given) {
    var kept = choices(el);
    if (el.vegaView) el.vegaView.finalize();
    el.vegaView = null;
    el.removeAttribute('data-rendered');
    el.hidden = false;
    var placeholder = el.parentNode.querySelector('.chart-placeholder');
    if (placeholder) placeholder.hidden = true;
    var spec = specFor(el, given, kept);
    var bound = spec.signals.filter(function (s) { return s.bind; });
    el.boundSignals = bound;
    el.given = given;
    var key = el.getAttribute('data-live-chart');
    var tops = el.topMarks = key === 'lens' ? topMarks(spec) : [];
    var drawing = el.querySelector('.chart-drawing'), controls = el.querySelector('.control-bar .vega-bindings');
    controls.textContent = '';
    var actions = {export: true, source: false, compiled: false, editor: false};
    return window.vegaEmbed(drawing, spec, {mode: 'vega', actions: actions, renderer: 'svg', bind: controls,
                                            downloadFileName: 'gpt2-live-' + key}).then(function (embedded) {
      var view = embedded.view;
      el.vegaView = view;
      var menu = el.querySelector('details > summary');
      if (menu) menu.setAttribute('aria-label', 'Save the chart as SVG or PNG');
      var picks = el.picks = (spec.usermeta && spec.usermeta[CLICKS_META]) || [];
      view.addEventListener('click', function (event, item) {
        var datum = item && item.datum, moved = false;
        if (!datum) return;
        picks.forEach(function (pick) {
          var signal = bound.filter(function (s) { return s.name === pick.param; })[0];
          if (!signal || datum[pick.field] === undefined || datum[pick.field] === null) return;
          var value = allowed(signal.bind, datum[pick.field]);
          if (value !== undefined && view.signal(signal.name) !== value) {
            view.signal(signal.name, value);
            moved = true;
          }
        });
        if (moved) view.runAsync();
        else if (item.mark && tops.indexOf(item.mark.name) >= 0 && typeof datum.id === 'number' && datum.id >= 0) {
          followToken(datum.id);
        }
      });
      bound.forEach(function (signal) {
        var isToken = TOKEN_PARAMS.indexOf(signal.name) >= 0;
        view.addSignalListener(signal.name, function (name, value) {
          if (el.vegaView !== view) return;  // drawn again since
          if (isToken) linkToken(el, value);
          view.runAfter(function () {
            describe(el, view);
            if (key === 'lens') offerFollows();
            if (isToken) chosenInView(el);
          });
        });
      });
      describe(el, view);
      scrollBox(el);
      // It opens at its left edge, where its title and axis are, unless a token was chosen for this text: then
      // with that token's column in view (as after any choice).
      if (chosenToken !== null) chosenInView(el);
      var pending = el.pendingToken, param = tokenParam(el);  // chosen in another chart while this one was drawn
      el.pendingToken = undefined;
      if (pending !== undefined && param) {
        var value = allowed(param.bind, pending);
        if (value !== undefined && view.signal(param.name) !== value) view.signal(param.name, value);
      }
      el.setAttribute('data-rendered', 'true');
      return view.runAsync();
    }).catch(function (error) {
      el.setAttribute('data-rendered', 'error');
      drawing.textContent = 'The chart could not be drawn: ' + error.message;
      console.error(error);
    });
  }

  // What each chart is given for a result: its datasets and the params' texts.
  function givenFor(res, key, sameText) {
    var followed = key === 'lens' ? lensToken(res) : res.target;
    var datasets = {};
    if (key === 'attention' || key === 'heads') datasets.panels = res.panelRows || (res.panelRows = panels(res));
    else {
      datasets.top = res.topRowsCache || (res.topRowsCache = topRows(res));
      datasets.follow = followRows(res, followed);
    }
    return {datasets: datasets, names: res.names, followName: tokenName(followed), followed: followed,
            sameText: sameText};
  }

  var lensChoice = null;  // the token the reader chose to follow in the lens; null: the read-out's target
  function lensToken(res) {
    return lensChoice !== null && followedOf(res, lensChoice) ? lensChoice : res.target;
  }

  function drawAll(res, sameText) {
    var drawn = {};
    var all = chartElements.map(function (el) {
      var key = el.getAttribute('data-live-chart'), given = givenFor(res, key, sameText);
      drawn[key] = {datasets: given.datasets, names: given.names, follow_name: given.followName,
                    followed: given.followed};
      return draw(el, given);
    });
    live.drawn = drawn;
    return Promise.all(all);
  }

  // ---------------------------------------------------------------------------------------------- the lens's token

  function lensElement() {
    return chartElements.filter(function (el) { return el.getAttribute('data-live-chart') === 'lens'; })[0];
  }

  // The select beside the lens: the followed token, then the chosen cell's top 10.
  function offerFollows() {
    var el = lensElement(), res = live.result;
    if (!el || !el.vegaView || !res || !followSelect) return;
    var view = el.vegaView, n = res.ids.length;
    var stage = view.signal('stage'), q = Math.min(Math.max(view.signal('position'), 1), n) - 1;
    var now = lensToken(res), ids = [now];
    for (var r = 0; r < TOP_K; r++) {
      var id = Number(res.topIds[(stage * n + q) * TOP_K + r]);
      if (ids.indexOf(id) < 0) ids.push(id);
    }
    followSelect.textContent = '';
    ids.forEach(function (id, i) {
      var option = document.createElement('option');
      option.value = String(id);
      option.textContent = i === 0 ? tokenName(id) + ' (followed now)' : tokenName(id);
      followSelect.appendChild(option);
    });
    followSelect.value = String(now);
    followLine.hidden = false;
  }

  if (followSelect) {
    followSelect.addEventListener('change', function () { followToken(Number(followSelect.value)); });
  }

  // Follows another token in the lens: the model runs again with it, and the lens's `follow` and `follow_name` change
  // in place (its other choices stay).
  function followToken(id) {
    var res = live.result;
    if (!res || !session || id === lensToken(res)) return Promise.resolve();
    lensChoice = id;
    var number = ++follows;
    return inTurn(async function () {
      if (number !== follows || live.result !== res) return;
      if (!followedOf(res, id)) {
        setState('running');
        var out = await infer(res.ids, [res.target, id]);
        var fresh = result(res.text, res.ids, res.target, [res.target, id], out);
        res.followed = fresh.followed;
      }
      var el = lensElement();
      if (!el || !el.vegaView) return;
      var rows = followRows(res, id), view = el.vegaView;
      view.change('follow', view.changeset().remove(function () { return true; }).insert(rows));
      view.signal('follow_name', tokenName(id));
      await view.runAsync();
      live.drawn.lens.datasets.follow = rows;
      live.drawn.lens.follow_name = tokenName(id);
      live.drawn.lens.followed = id;
      el.given.datasets.follow = rows;
      el.given.followName = tokenName(id);
      el.given.followed = id;
      describe(el, view);
      offerFollows();
      if (finished === runs) setState('drawn');
    });
  }

  // ---------------------------------------------------------------------------------------------- a text

  var runs = 0, finished = 0, follows = 0;  // texts asked for, the last drawn; tokens the lens was asked to follow

  function showTokens(res) {
    Array.prototype.slice.call(tokensRow.querySelectorAll('.token')).forEach(function (t) { t.remove(); });
    $('live-tokens-label').textContent = 'Drawn for this text, in ' + res.ids.length + (res.ids.length === 1 ? ' token:' : ' tokens:');
    res.names.forEach(function (name) {
      var span = document.createElement('span');
      span.className = 'token';
      span.textContent = name;
      tokensRow.appendChild(span);
    });
    tokensRow.hidden = false;
  }

  // A text or target refused: one sentence, and where the figures of an earlier text stay below, one more.
  var STILL = ' The figures below are still for your last text.';
  function refuse(words) {
    setState('refused');
    say(words + (live.result ? STILL : ''), 'refused');
  }

  function compute(text, target) {
    var ask = asked(text, target);
    if (ask.refused) {
      refuse(ask.refused);
      return Promise.resolve();
    }
    var number = ++runs;
    setState('running');
    say('GPT-2 is reading your text…');
    var started = performance.now();
    return inTurn(async function () {
      if (number !== runs) return;  // a newer text is waiting
      var before = live.result, sameText = before !== null && before.text === text;
      if (!sameText) {
        lensChoice = null;
        chosenToken = null;
      }
      if (opening && opening.text === text && opening.token <= ask.ids.length) chosenToken = opening.token;
      opening = null;
      chartElements.forEach(function (el) { el.pendingToken = chosenToken !== null ? chosenToken : undefined; });
      var follow = [ask.target];
      if (lensChoice !== null && lensChoice !== ask.target) follow.push(lensChoice);
      var out = await infer(ask.ids, follow);
      var read = performance.now();
      if (number !== runs) return;
      var res = result(text, ask.ids, ask.target, follow, out);
      live.result = res;
      showTokens(res);
      await drawAll(res, sameText);
      offerFollows();
      downloads.hidden = false;
      var done = performance.now();
      live.timings.last = {tokens: ask.ids.length, modelMs: read - started, drawMs: done - read, totalMs: done - started};
      finished = number;
      if (number !== runs) return;
      setState('drawn');
      say('GPT-2 read your ' + ask.ids.length + (ask.ids.length === 1 ? ' token' : ' tokens') + ' in ' +
          ((read - started) / 1000).toFixed(1) + ' s: the figures below are for your text.');
    }).catch(function (error) {
      setState('error');
      say('GPT-2 could not read this text (' + error.message + ').', 'error');
      console.error(error);
    });
  }

  // The text in the boxes: refused at once where it must be; else run, or, before the model is loaded, kept for then.
  // A text refused (empty, too long, its target not one token) is not written into the address.
  function submit() {
    var text = textBox.value, target = targetBox.value, ask = asked(text, target);
    sayTarget();
    if (ask.refused) {
      refuse(ask.refused);
      return Promise.resolve();
    }
    writeAddress(text, target);
    if (!session) {
      say(loading ? 'GPT-2 is still loading: your text runs as soon as it is ready.'
                  : 'Load GPT-2 first, with the button above: your text runs as soon as it is ready.');
      return Promise.resolve();
    }
    return compute(text, target);
  }

  // Under the text box, its length in tokens as the reader types ("11 of 64 tokens"): the tokenizer is enough.
  var counting = false;
  function count() {
    counting = false;
    if (!countLine || !window.liveTokens) return;
    var n = window.liveTokens.encode(textBox.value).length, over = n > MAX_TOKENS;
    countLine.textContent = n + ' of ' + MAX_TOKENS + ' tokens' + (over ? ': ' + (n - MAX_TOKENS) + ' too many' : '');
    countLine.toggleAttribute('data-over', over);
    countLine.hidden = false;
  }
  function countSoon() {
    if (counting) return;
    counting = true;
    window.requestAnimationFrame(count);
  }

  // Under the target box, which token a word typed without its space is taken for.
  function sayTarget() {
    if (!targetSaid || !window.liveTokens) return;
    var followed = followedToken(targetBox.value);
    targetSaid.textContent = followed.said || '';
  }

  textBox.addEventListener('input', countSoon);
  targetBox.addEventListener('input', sayTarget);

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    submit();
  });
  textBox.addEventListener('keydown', function (event) {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      submit();
    }
  });
  loadButton.addEventListener('click', function () { load(); });

  // ---------------------------------------------------------------------------------------------- downloads

  function csvCell(value) {
    var text = String(value);
    if (/^[=+\-@\t\r]/.test(text) && typeof value === 'string') text = "'" + text;
    return /[",\r\n]/.test(text) || typeof value === 'string' ? '"' + text.replace(/"/g, '""') + '"' : text;
  }
  function csv(header, rows) {
    var lines = [header.join(',')];
    rows.forEach(function (row) { lines.push(row.map(csvCell).join(',')); });
    return lines.join('\r\n') + '\r\n';
  }

  // The raw numbers as JSON: layers, heads, stages and positions from 0 (as the build's data files).
  function asJson(res) {
    var n = res.ids.length, attention = [], top = [];
    for (var l = 0; l < N_LAYER; l++) {
      var heads = [];
      for (var h = 0; h < N_HEAD; h++) {
        var rows = [], base = (l * N_HEAD + h) * n * n;
        for (var q = 0; q < n; q++) {
          var row = [];
          for (var k = 0; k <= q; k++) row.push(f32(res.shares[base + q * n + k]));
          rows.push(row);
        }
        heads.push(rows);
      }
      attention.push(heads);
    }
    for (var stage = 0; stage < STAGES; stage++) {
      var positions = [];
      for (var p = 0; p < n; p++) {
        var cell = [];
        for (var r = 0; r < TOP_K; r++) {
          var at = (stage * n + p) * TOP_K + r, id = Number(res.topIds[at]);
          cell.push({id: id, text: tokenText(id), p: f32(res.topProbs[at])});
        }
        positions.push(cell);
      }
      top.push(positions);
    }
    var lens = lensToken(res);
    var followed = res.followed.map(function (f) {
      var p = [], rank = [];
      for (var s = 0; s < STAGES; s++) {
        p.push(Array.from(f.p.subarray(s * n, (s + 1) * n), f32));
        rank.push(f.rank.slice(s * n, (s + 1) * n));
      }
      var figures = [];
      if (f.id === res.target) figures.push('readout');
      if (f.id === lens) figures.push('lens');
      return {id: f.id, text: tokenText(f.id), figures: figures, p: p, rank: rank};
    });
    return JSON.stringify({
      format: 'gpt2-live/1',
      about: 'GPT-2 run in the page on this text. Layers, heads, stages and positions count from 0; stage 0 is after ' +
             'the embedding, stage s after layer s. attention[layer][head][query][key]: the share of attention the ' +
             'query gives the key (keys 0 to the query). top[stage][position]: the 10 most likely next tokens. ' +
             'followed: tokens whose probability and rank (1 = most likely) are given at every stage and position.',
      model: {n_layer: N_LAYER, n_head: N_HEAD, graph_sha256: MODEL.files.filter(function (f) {
        return f.name === MODEL.graph; })[0].sha256},
      text: res.text,
      tokens: res.ids.map(function (id) { return {id: id, text: tokenText(id)}; }),
      attention: attention, top: top, followed: followed});
  }

  function sharesCsv(res) {
    var n = res.ids.length, rows = [];
    for (var l = 0; l < N_LAYER; l++) {
      for (var h = 0; h < N_HEAD; h++) {
        var base = (l * N_HEAD + h) * n * n;
        for (var q = 0; q < n; q++) {
          for (var k = 0; k <= q; k++) {
            rows.push([l + 1, h + 1, q + 1, res.names[q], k + 1, res.names[k], f32(res.shares[base + q * n + k])]);
          }
        }
      }
    }
    return csv(['layer', 'head', 'position', 'token', 'looks_at_position', 'looks_at_token', 'share'], rows);
  }

  function topCsv(res) {
    var n = res.ids.length, rows = [];
    for (var stage = 0; stage < STAGES; stage++) {
      for (var q = 0; q < n; q++) {
        for (var r = 0; r < TOP_K; r++) {
          var at = (stage * n + q) * TOP_K + r, id = Number(res.topIds[at]);
          rows.push([stage, q + 1, res.names[q], r + 1, id, tokenName(id), f32(res.topProbs[at])]);
        }
      }
    }
    return csv(['after_layer', 'position', 'token', 'rank', 'next_token_id', 'next_token', 'probability'], rows);
  }

  function followedCsv(res) {
    var n = res.ids.length, rows = [];
    res.followed.forEach(function (f) {
      for (var stage = 0; stage < STAGES; stage++) {
        for (var q = 0; q < n; q++) {
          rows.push([f.id, tokenName(f.id), stage, q + 1, res.names[q], f32(f.p[stage * n + q]), f.rank[stage * n + q]]);
        }
      }
    });
    return csv(['followed_id', 'followed_token', 'after_layer', 'position', 'token', 'probability', 'rank'], rows);
  }

  // Each link is given its file as it is clicked (a Blob's address), from the text drawn last.
  function offer(id, make, type) {
    var link = $(id);
    if (!link) return;
    link.addEventListener('click', function (event) {
      if (!live.result) {
        event.preventDefault();
        return;
      }
      if (link.objectUrl) URL.revokeObjectURL(link.objectUrl);
      link.objectUrl = URL.createObjectURL(new Blob([make(live.result)], {type: type}));
      link.href = link.objectUrl;
    });
  }
  offer('live-download-json', asJson, 'application/json');
  offer('live-download-shares', sharesCsv, 'text/csv');
  offer('live-download-top', topCsv, 'text/csv');
  offer('live-download-followed', followedCsv, 'text/csv');
  live.json = function () { return live.result ? asJson(live.result) : null; };

  // ---------------------------------------------------------------------------------------------- redrawing

  function redrawAll(onlyNarrowChanges) {
    if (!live.result) return;
    chartElements.forEach(function (el) {
      if (!el.vegaView || !el.given) return;
      if (onlyNarrowChanges && wantsNarrow(el) === el.drawnNarrow) {
        if (el.getAttribute('data-rendered') === 'true') scrollBox(el);  // it may have come to fit, or no longer
        return;
      }
      el.given.sameText = true;
      draw(el, el.given).then(function () {
        if (el.getAttribute('data-live-chart') === 'lens') offerFollows();
      });
    });
  }
  if (darkScheme && darkScheme.addEventListener) {
    darkScheme.addEventListener('change', function () { redrawAll(false); });
  }
  var resizing = false;
  window.addEventListener('resize', function () {
    if (resizing) return;
    resizing = true;
    window.requestAnimationFrame(function () {
      resizing = false;
      redrawAll(true);
    });
  });

  // ---------------------------------------------------------------------------------------------- opening

  // A text in the address (live.html#text=...&target=...) fills the boxes; it runs once the reader loads GPT-2.
  // With &token=N the charts open on that token.
  function fromAddress() {
    var state = readAddress();
    if (!('text' in state)) return false;
    textBox.value = state.text;
    if ('target' in state) targetBox.value = state.target;
    var token = /^[1-9][0-9]*$/.test(state.token || '') ? Number(state.token) : null;
    opening = token !== null ? {text: state.text, token: token} : null;
    if (token !== null && live.result && live.result.text === state.text) linkToken(null, token);
    count();
    sayTarget();
    return true;
  }
  if (fromAddress()) say('This link brings a text: load GPT-2 with the button above to see its figures.');
  else {
    count();
    sayTarget();
  }
  window.addEventListener('hashchange', function () {
    if (!fromAddress()) return;
    if (session) submit();
    else say('This link brings a text: load GPT-2 with the button above to see its figures.');
  });

  // A visit before kept the model in this browser: the button says so, and nothing about a download.
  allKept().then(function (kept) {
    live.kept = kept;
    if (kept && !loadAsked) loadButton.textContent = 'Start GPT-2 (already kept in this browser)';
  });
  setState('idle');
})();

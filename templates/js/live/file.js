// From file:// a browser lets the page neither fetch the model nor start the runtime: one line says how to serve it.
import {$, modelName, page, setState} from './page.js';

// The folder to serve, as a shell writes it: file:///C:/... on Windows without its leading '/', quoted where needed.
export function servedFolder(pathname) {
  let folder = decodeURIComponent(pathname.replace(/[^/]*$/, ''));
  if (/^\/[A-Za-z]:\//.test(folder)) folder = folder.slice(1);
  folder = folder.length > 1 ? folder.replace(/\/$/, '') : folder;
  if (/[\s"'$`\\]/.test(folder)) folder = '"' + folder.replace(/(["$`\\])/g, '\\$1') + '"';
  return folder;
}

// The page's own file in the site's folder ('figure-l.html', 'live.html'), as the address names it.
export function pageFile(pathname) {
  return decodeURIComponent(pathname.replace(/^.*\//, '')) || 'index.html';
}

function code(words) {
  const element = document.createElement('code');
  element.textContent = words;
  return element;
}

// Says how to serve the page, and hides what needs the model.
export function servedOnly() {
  const line = $('live-file');
  line.textContent = '';
  line.append('This page runs ' + modelName() + ' only when the site is served, not opened as a file: run ',
              code('python -m http.server --directory ' + servedFolder(location.pathname)),
              ' and open http://localhost:8000/' + pageFile(location.pathname) + ' (or preview the site with ',
              code('python build.py --serve'), ').');
  line.hidden = false;
  $('live-load').hidden = true;
  page.el.form.hidden = true;
  Array.prototype.forEach.call(page.root.querySelectorAll('.chart-placeholder'), (p) => { p.hidden = true; });
  setState('file');
}

"""The pages' Content Security Policy: the second wall behind the escaping.

Every page carries it as a ``<meta http-equiv="Content-Security-Policy">``, first in its head (a static host sends
no headers of ours; `--serve` sends the same policy as a header, read from the page). Everything the site runs,
draws or loads is its own files: scripts only from the site's folder (no inline script, no inline event handler, no
``eval``: Vega runs its expressions through vega-interpreter instead of ``new Function``), styles only from
site.css (no ``<style>``, no ``style=""``), pictures from the site or drawn in the page (``data:`` and ``blob:``: the
chart's menu saves the drawing that way), nothing from the network, no plugins, no ``<base>``, no form sent anywhere.
"""

# Each directive, and why it allows what it allows.
_PAGE = (
    ("default-src", "'none'"),               # whatever is not named below: nothing
    ("script-src", "'self'"),                # the site's own scripts only: no inline script, handler or eval
    ("style-src", "'self'"),                 # site.css only (scripts still set a style property, as CSSOM allows)
    ("img-src", "'self' data: blob:"),       # the drawings and QR codes; data:/blob: for a chart saved as PNG or SVG
    ("object-src", "'none'"),
    ("base-uri", "'none'"),
    ("form-action", "'none'"),
)

# The live page runs GPT-2 in WebAssembly (onnxruntime-web compiles it: 'wasm-unsafe-eval', which allows WebAssembly
# and not JavaScript's eval) and downloads the model's files from the site's own folder (connect-src 'self').
_LIVE = {"script-src": "'self' 'wasm-unsafe-eval'", "connect-src": "'self'", "worker-src": "'self'"}


def _joined(directives) -> str:
    return "; ".join(f"{name} {value}" for name, value in directives)


PAGE_POLICY = _joined(_PAGE)
LIVE_POLICY = _joined(tuple((name, _LIVE.get(name, value)) for name, value in _PAGE)
                      + tuple((name, value) for name, value in _LIVE.items() if name not in dict(_PAGE)))

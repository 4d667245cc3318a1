#!/usr/bin/env bash
# Installs what the build needs; with --live, also what `build.py --live` needs (the ONNX exporter, and the live
# page's libraries from npm, pinned by package-lock.json); with --test, also what the tests need (the live page's
# libraries, the JavaScript tools from npm: esbuild, ESLint, the HTML checker; and Chromium from Debian).
# The build itself needs no Node: the pages' scripts are bundled ahead of time (npm run bundle, README).
# Usage: ./setup.sh          (build only)
#        ./setup.sh --live   (build, and build.py --live)
#        ./setup.sh --test   (build, --live, and tests)
set -euo pipefail
cd "$(dirname "$0")"
PY=${PYTHON:-python}

# A bare "torch" requirement pulls a CUDA build of several GB. Where no torch is installed yet, take
# the CPU build first; pyproject.toml allows any newer torch a user installs themselves.
if ! "$PY" -c "import torch" 2>/dev/null; then
    "$PY" -m pip install --quiet "torch==2.13.0" \
        || "$PY" -m pip install --quiet "torch==2.13.0" --index-url https://download.pytorch.org/whl/cpu
fi

# The live page's libraries (onnxruntime-web, Tokenizers.js) from npm, exactly as package-lock.json pins them;
# --omit=dev leaves out the tools CI alone uses. No install scripts run.
npm_live() {
    command -v npm >/dev/null || { echo "error: --live needs npm (Node.js 18 or newer) for the live page's libraries" >&2; exit 1; }
    npm ci --ignore-scripts --no-audit --no-fund --loglevel=error "$@"
}

if [ "${1:-}" = "--live" ]; then
    "$PY" -m pip install --quiet -e ".[live]"
    npm_live --omit=dev
elif [ "${1:-}" = "--test" ]; then
    "$PY" -m pip install --quiet -e ".[test]"
    npm_live  # all of package.json: the devDependencies too (esbuild, ESLint, vnu-jar)
    # Debian's packages the tests use: Chromium (tests/browser), the zbar library that pyzbar loads to
    # decode the QR codes (tests/unit/test_qr.py), and poppler's pdffonts, pdftotext and pdftoppm, which read the
    # print edition's PDFs (tests/builds/test_print_edition.py). Installed only where missing.
    APT=()
    [ -x /usr/bin/chromium ] || APT+=(chromium)
    "$PY" -c "import pyzbar.pyzbar" 2>/dev/null || APT+=(libzbar0)
    command -v pdffonts >/dev/null && command -v pdftotext >/dev/null && command -v pdftoppm >/dev/null \
        || APT+=(poppler-utils)
    # DejaVu Sans, the print edition's default font, and DejaVu Serif, the font its tests name in a config
    [ -f /usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf ] || APT+=(fonts-dejavu-core)
    if [ ${#APT[@]} -gt 0 ]; then
        SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
        $SUDO apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${APT[@]}" >/dev/null
    fi
else
    "$PY" -m pip install --quiet -e .
fi

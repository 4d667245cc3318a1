#!/usr/bin/env bash
# Installs what the build needs; with --test, also what the tests need (Chromium from Debian too).
# Usage: ./setup.sh          (build only)
#        ./setup.sh --test   (build and tests)
set -euo pipefail
cd "$(dirname "$0")"
PY=${PYTHON:-python}

# A bare "torch" requirement pulls a CUDA build of several GB. Where no torch is installed yet, take
# the CPU build first; pyproject.toml allows any newer torch a user installs themselves.
if ! "$PY" -c "import torch" 2>/dev/null; then
    "$PY" -m pip install --quiet "torch==2.13.0" \
        || "$PY" -m pip install --quiet "torch==2.13.0" --index-url https://download.pytorch.org/whl/cpu
fi

if [ "${1:-}" = "--test" ]; then
    "$PY" -m pip install --quiet -e ".[test]"
    # Debian's packages the tests use: Chromium (tests/browser), and the zbar library that pyzbar loads to
    # decode the QR codes (tests/unit/test_qr.py). Installed only where missing.
    APT=()
    [ -x /usr/bin/chromium ] || APT+=(chromium)
    "$PY" -c "import pyzbar.pyzbar" 2>/dev/null || APT+=(libzbar0)
    if [ ${#APT[@]} -gt 0 ]; then
        SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
        $SUDO apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${APT[@]}" >/dev/null
    fi
else
    "$PY" -m pip install --quiet -e .
fi

"""The models the build runs: one module per family behind one interface (interface.py), and their loading.

The same inputs must give the same bytes. Intel's BLAS may otherwise pick its thread count by the machine's load and
its code path by memory alignment, and a last-bit difference can flip a rounded share. Its settings must be made
before torch loads the library: the package makes them once, here, before any of its modules (the only ones that
load torch, with the capture, which reaches torch through them) is imported.
"""

import os

for _name, _value in {"MKL_DYNAMIC": "FALSE", "OMP_DYNAMIC": "FALSE", "MKL_CBWR": "AUTO,STRICT"}.items():
    os.environ.setdefault(_name, _value)

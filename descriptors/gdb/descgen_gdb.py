"""``source /path/to/descriptors/gdb/descgen_gdb.py`` in cuda-gdb (or gdb): puts the folder
that holds the ``descriptors`` package on ``sys.path`` (and each folder of ``DESCGEN_GDB_PATH``,
':'-separated, before it), then imports :mod:`descriptors.gdb`, which registers the ``descgen``
commands.  descgen needs no other package in the debugger's Python (construct, rich and typer
load only for other commands)."""

import os
import sys

try:
    _root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
except NameError:  # a gdb that runs sourced files without __file__
    _root = None
for _p in [p for p in os.environ.get("DESCGEN_GDB_PATH", "").split(":") if p] + \
        ([_root] if _root else []):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import descriptors.gdb  # noqa: E402,F401  (registers the commands)

"""``source /path/to/descriptors/gdb/descgen_gdb.py`` in cuda-gdb (or gdb): puts the folder
that holds the ``descriptors`` package on ``sys.path`` (and each folder of ``DESCGEN_GDB_PATH``,
':'-separated, before it), then imports :mod:`descriptors.gdb`, which registers the ``descgen``
commands.  descgen needs no other package in the debugger's Python (construct, rich and typer
load only for other commands; without msgspec the value types are dataclasses,
``descriptors.structs``)."""

import os
import sys

# cuda-gdb 13.0 runs a sourced file in __main__'s globals, whose __file__ is not this file (the
# import failed both with and without reading __file__: fixtures/gdb/ext_lineinfo_2.txt); the
# code object names the file (the traceback there shows it)
_here = sys._getframe().f_code.co_filename
_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(_here)))) \
    if _here and os.path.isfile(_here) else None
for _p in [p for p in os.environ.get("DESCGEN_GDB_PATH", "").split(":") if p] + \
        ([_root] if _root else []):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import descriptors.gdb  # noqa: E402,F401  (registers the commands)

"""descgen inside cuda-gdb: ``python import descriptors.gdb`` (or ``source`` the file
``descriptors/gdb/descgen_gdb.py``) registers the commands ``descgen mma``, ``descgen decode``
and ``descgen tmem`` (``help descgen``).  Outside a debugger (no ``gdb`` module) the import
registers nothing; :mod:`descriptors.gdb.commands` holds the commands and takes the debugger's
API as an argument (the tests pass a stand-in that replays recorded values)."""

from __future__ import annotations

from .commands import register

__all__ = ["register", "COMMANDS"]

try:
    import gdb  # type: ignore[import-not-found]  # only inside the debugger
except ImportError:
    COMMANDS: dict = {}
else:
    COMMANDS = register(gdb)

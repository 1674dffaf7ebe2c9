"""cuda-gdb reader: register tables, print commands and the values they print.

* ``register_row(line)`` -- a row of ``info registers``: ``R4   0x8400490   138413200`` (general
  ``R<n>`` and uniform ``UR<n>`` registers, ``$`` prefix allowed) as ``(file, index, digits)``;
* ``command(line)`` -- the command after a ``(cuda-gdb)`` / ``(gdb)`` prompt, or ``None``;
* ``printed(command)`` -- what a ``p``/``print``/``output``/``inspect``/``call`` command prints:
  ``(register, None)`` for ``p $UR5``, ``(None, expression)`` for ``p/x adesc``, else ``None``;
* ``value(line)`` -- the value of a ``$1 = ...`` line.

:mod:`descriptors.tools.dump` pairs an even register with its odd partner on the next line (a 64-bit
descriptor in a register pair) and names a printed value by its expression.
"""

from __future__ import annotations

import re

__all__ = ["register_row", "command", "printed", "value", "disassembly", "REGISTER_ROW",
           "REGISTER_NAME"]

#: A register's name as cuda-gdb writes it (``R12``, ``$UR4``): file and index.
_REGISTER = r"\$?(U?R)(\d{1,3})"
REGISTER_ROW = re.compile(r"\s*" + _REGISTER + r"\s++0x([0-9A-Fa-f]{1,8})(?:\s++-?\d++)?\s*\Z")
PROMPT = re.compile(r"\s*\((?:cuda-)?gdb\)\s*(.*)")
PRINT = re.compile(r"(?:p|print|output|inspect|call)(?:/\w{1,8})?\s++(.+)")
VALUE = re.compile(r"\s*\$\d{1,9}\s*=\s*(.*)")
EXPRESSION = re.compile(r"[A-Za-z_][\w.\->\[\]]{0,127}")
REGISTER_NAME = re.compile(_REGISTER + r"\Z")
DISASSEMBLY = re.compile(r"\s*+(?:=>)?\s*+(0x[0-9A-Fa-f]{1,16})?\s*+(?:<([^>]{0,512})>)?\s*+:?\s*+"
                         r"(\S(?:.*\S)?)\s*+\Z")


def register_row(line: str) -> tuple[str, int, str] | None:
    """``(register file, index, hex digits)`` of a register-table row, or ``None``."""
    m = REGISTER_ROW.match(line)
    return (m.group(1), int(m.group(2)), m.group(3)) if m is not None else None


def command(line: str) -> str | None:
    """The command typed after a gdb prompt, or ``None`` when ``line`` is no prompt."""
    m = PROMPT.match(line)
    return m.group(1) if m is not None else None


def printed(cmd: str) -> tuple[str | None, str | None] | None:
    """``(register, expression)`` a print command names, or ``None``."""
    p = PRINT.match(cmd)
    if p is None:
        return None
    expr = p.group(1).strip()
    r = REGISTER_NAME.match(expr)
    if r is not None:
        return f"{r.group(1)}{r.group(2)}", None
    if EXPRESSION.fullmatch(expr):
        return None, expr
    return None


def value(line: str) -> str | None:
    """The printed value of a ``$N = value`` line, or ``None``."""
    m = VALUE.match(line)
    return m.group(1) if m is not None else None


def disassembly(text: str) -> tuple[int | None, str | None, str] | None:
    """``(address, symbol, instruction)`` of the first ``x/i`` line in ``text`` (the ``=>``
    marker, the address and ``<symbol+offset>`` are optional), or ``None`` when it holds none."""
    for line in text.splitlines():
        m = DISASSEMBLY.match(line)
        if m is not None and m.group(3):
            return (int(m.group(1), 16) if m.group(1) else None), m.group(2), m.group(3)
    return None

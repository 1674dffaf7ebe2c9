"""The spelling of one SASS operand: an immediate (``0x3fc0``, ``-0x1``, ``24``), a predicate
register (``UP0``, ``!PT``), and the operand list of an instruction split at its top-level
commas -- the text level every other module of :mod:`descriptors.readers.sass` reads operands
through."""

from __future__ import annotations

import re
from functools import lru_cache


#: A predicate register operand, the whole text (``UP0``, ``!PT``).
PREDREG = re.compile(r"!?U?P(?:T|\d{1,2})\Z")
_IMM = re.compile(r"(-)?(0x[0-9A-Fa-f]+|\d+)\Z")


def immediate(text: str) -> int | None:
    """An immediate operand (``0x3fc0``, ``-0x1``, ``24``), or ``None``."""
    m = _IMM.match(text)
    if m is None:
        return None
    digits = m.group(2)
    value = int(digits, 16) if digits[:2] == "0x" else int(digits, 10)
    return -value if m.group(1) else value


#: A comma inside square brackets (``[UR4, 0x10]`` would be one operand); searched from the
#: last ``[`` before it (linear: a run of ``[`` is not rescanned from each).
_BRACKET_COMMA = re.compile(r"\[[^\[\]]*,")


def split(rest: str, col0: int) -> list[tuple[str, int]]:
    """The operands of ``rest`` (the text after the opcode), ``(text, 1-based col)``: split at
    the commas outside ``[..]`` and ``(..)``; blank operands dropped.  The text is split at
    every comma first; only a piece with an opening bracket, or inside one, is scanned."""
    out = []
    if "(" not in rest and ("[" not in rest or _BRACKET_COMMA.search(rest) is None):
        pos = 0  # no comma inside brackets (the common case): every comma ends an operand
        for piece in rest.split(","):
            s = piece.strip()
            if s:
                out.append((s, col0 + pos + len(piece) - len(piece.lstrip())))
            pos += len(piece) + 1
        return out
    depth = start = pos = 0  # bracket depth; where the operand and the piece begin
    for piece in rest.split(","):
        if depth or "[" in piece or "(" in piece:
            for ch in piece:
                if ch in "[(":
                    depth += 1
                elif ch in "])":
                    depth = max(0, depth - 1)
        pos += len(piece) + 1
        if depth:
            continue  # a comma inside brackets: the operand goes on
        text = rest[start:pos - 1]
        s = text.strip()
        if s:
            out.append((s, col0 + start + len(text) - len(text.lstrip())))
        start = pos
    return out


# per spelling: the SASS reader's caches pay together (bench_lint.py's cold lint_lines, 10
# production listings, CPU: 0.129 s with them, 0.150 s without; alone, each ~1.0x: bench_caches.py)
@lru_cache(maxsize=4096)
def is_predicate(text: str) -> bool:
    """A predicate register operand (``UP0``, ``!PT``), kept per spelling."""
    return PREDREG.match(text) is not None

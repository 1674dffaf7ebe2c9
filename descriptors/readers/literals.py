"""PTX integer literals (PTX ISA 4.5.1: decimal, hex ``0x``, octal ``0``, binary ``0b``, an
optional ``U`` suffix and a leading minus), read by the PTX reader and the instruction models."""

from __future__ import annotations

import re

__all__ = ["parse_immediate"]

_IMM = re.compile(r"-?(?:0[xX][0-9A-Fa-f]+|0[bB][01]+|0[0-7]*|[1-9]\d*)[uU]?\Z")


def parse_immediate(text: str) -> int | None:
    """The integer a PTX integer literal denotes, or ``None``."""
    t = text.strip()
    if not _IMM.match(t):
        return None
    neg = t.startswith("-")
    t = t.lstrip("-").rstrip("uU")
    if t[:2] in ("0x", "0X"):
        v = int(t[2:], 16)
    elif t[:2] in ("0b", "0B"):
        v = int(t[2:], 2)
    elif len(t) > 1 and t[0] == "0":
        v = int(t, 8)
    else:
        v = int(t)
    return -v if neg else v

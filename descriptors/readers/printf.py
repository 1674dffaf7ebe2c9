"""printf reader: the numbers a printf-style log line (or a value cuda-gdb prints) holds.

``hex_words(line)`` yields every hexadecimal word: ``0x``-prefixed (any length up to 16
digits) or bare words of exactly 8 or 16 digits, ``_`` or ``'`` separators allowed.
``decimal_words(line, every=...)`` yields decimal numbers: all of them (``every=True``: the
text already says what the value is, e.g. ``p $UR5`` printed ``$2 = 138413200``) or only
those written as ``name=123`` / ``name: 123``.  ``name_before(line, start)`` is the identifier
written just before a value.  Each word comes as ``(start, text, value, size)``: its column
(0-based), the digits as written, the integer and its size (64 bits when it has more than 8
hex digits or does not fit 32 bits, else 32).  Every pattern is linear (possessive
quantifiers, bounded look-behind; names are matched on the reversed text before a value).
:mod:`descriptors.dump` scores what these words may be.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

__all__ = ["hex_words", "decimal_words", "name_before", "has_hint_word", "could_hold_hex"]

_REGISTER_MAX = (1 << 32) - 1

TOKEN = re.compile(
    r"(?<![0-9A-Za-z_$.])(?:"
    r"0[xX](?P<hex>[0-9A-Fa-f]++(?:['_][0-9A-Fa-f]++)*+)"
    r"|(?P<bare>[0-9A-Fa-f]{4}(?:['_]?[0-9A-Fa-f]{4}){1,3})"
    r")(?![0-9A-Za-z_'])")
HEX8 = re.compile(r"[0-9A-Fa-f]{8}")
NAMED_DECIMAL = re.compile(r"[=:][ \t]{0,8}(\d{1,20}+)(?![0-9A-Za-z_.'])")
DECIMAL = re.compile(r"(?<![0-9A-Za-z_$.])(\d{1,20}+)(?![0-9A-Za-z_.'])")
#: A name written before a value, matched on the reversed text before it (linear, anchored).
NAME_REVERSED = re.compile(r"[ \t]*+(?:[=:][ \t]*+)?([A-Za-z0-9_.]{1,64}+)")


def could_hold_hex(line: str) -> bool:
    """A cheap gate: whether ``line`` may hold a hex word at all."""
    return "0x" in line or "0X" in line or HEX8.search(line) is not None


def hex_words(line: str) -> Iterator[tuple[int, str, int, int]]:
    """``(start, text, value, size)`` of each hex word of ``line``."""
    for m in TOKEN.finditer(line):
        digits, bare_digits = m.group(1, 2)  # the "hex" and "bare" groups
        bare = digits is None
        if bare:
            digits = bare_digits
        clean = digits.replace("_", "").replace("'", "") if ("_" in digits or "'" in digits) \
            else digits
        n = len(clean)
        if n > 16 or (bare and n != 8 and n != 16):
            continue
        word = int(clean, 16)
        yield m.start(), m.group(), word, 64 if (n > 8 or word > _REGISTER_MAX) else 32


def has_hint_word(line: str) -> bool:
    """Whether the line holds a name that can say what a value is (a cheap gate: substring
    tests on the lower-cased line are several times faster than a case-insensitive regex)."""
    low = line.lower()
    return "desc" in low or "tmem" in low or "taddr" in low or "zcm" in low or "mask" in low \
        or "zero" in low


def decimal_words(line: str, *, every: bool) -> Iterator[tuple[int, str, int, int]]:
    """``(start, text, value, size)`` of the decimal numbers of ``line`` (all of them, or only
    ``name=123`` / ``name: 123``); values of more than 64 bits are skipped."""
    for m in (DECIMAL if every else NAMED_DECIMAL).finditer(line):
        word = int(m.group(1))
        if word >> 64:
            continue
        yield m.start(1), m.group(1), word, 64 if word > _REGISTER_MAX else 32


def name_before(line: str, start: int) -> str | None:
    """The identifier written just before position ``start`` (``adesc=``, ``a_desc:``)."""
    m = NAME_REVERSED.match(line[max(0, start - 80):start][::-1])
    if m is None:
        return None
    name = m.group(1)[::-1]
    return name if name[0].isalpha() or name[0] == "_" else None  # "0x4000_..." is a number

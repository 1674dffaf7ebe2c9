"""printf reader: the numbers a printf-style log line (or a value cuda-gdb prints) holds.

``hex_words(line)`` yields every hexadecimal word: ``0x``-prefixed (any length up to 16
digits) or bare words of exactly 8 or 16 digits, ``_`` or ``'`` separators allowed; a C/C++
integer suffix (``0x08400490u``, ``0x...ull``) may follow a ``0x`` word or a decimal number.
``decimal_words(line, every=...)`` yields decimal numbers: all of them (``every=True``: the
text already says what the value is, e.g. ``p $UR5`` printed ``$2 = 138413200``) or only
those written as ``name=123`` / ``name: 123``; ``named_decimal_words(line)`` the latter with
their names, those that have one.  ``name_before(line, start)`` is the identifier
written just before a value.  Each word comes as ``(start, text, value, size)``: its column
(0-based), the digits as written, the integer and its size (64 bits when it has more than 8
hex digits or does not fit 32 bits, else 32).  ``named_hex_words(line)`` yields the hex words
with the name before each, ``(start, text, value, size, name)``, exactly ``hex_words`` and
``name_before`` but in one pass of one pattern, the words of a distinct ``name=0x...`` read
once (a log repeats them); ``named_hex_matches(line)`` and ``read_named(match)`` are its two
steps, for a caller that keeps what it makes of each distinct match.  Every pattern is linear
(possessive quantifiers, bounded look-behind; names are matched on the reversed text before a
value).
:mod:`descriptors.tools.dump` scores what these words may be.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ..structs import BoundedMemo
from ..words.literals import C_SUFFIX

__all__ = ["hex_words", "named_hex_words", "named_hex_matches", "read_named", "UNKNOWN",
           "decimal_words", "named_decimal_words", "name_before", "has_hint_word",
           "could_hold_hex"]

_REGISTER_MAX = (1 << 32) - 1

#: A C/C++ integer suffix after a ``0x`` word or a decimal number (``0x08400490u``,
#: ``0x...ull``, ``138413200UL``: what ``--format c``/``cpp`` writes), optional.
_SUFFIX = C_SUFFIX + "?+"
#: A hex word: its digits (0x-prefixed: group ``hex{0}``; bare: ``bare{0}``), without the
#: look-behind that no name character or ``$`` precedes it.
#: A ``0x`` word may end with a C/C++ integer suffix (not a bare one: C writes hex with ``0x``).
_WORD = (r"(?:0[xX](?P<hex{0}>[0-9A-Fa-f]++(?:['_][0-9A-Fa-f]++)*+)" + _SUFFIX
         + r"|(?P<bare{0}>[0-9A-Fa-f]{{4}}(?:['_]?[0-9A-Fa-f]{{4}}){{1,3}})"
         r")(?![0-9A-Za-z_'])")
TOKEN = re.compile(r"(?<![0-9A-Za-z_$.])" + _WORD.format(""))
#: :data:`TOKEN`, or a name, its separator and :data:`TOKEN`: the same words in the same order
#: (the word alone is tried first at each position, so a word is never taken for a name; a
#: name starts where no name character precedes it, so it cannot start inside a word; the
#: look-behind both share is tested once).  The name is what :func:`name_before` reads when it
#: holds at most 64 characters and starts at most 80 before the word (the reversed window);
#: otherwise :func:`name_before` decides.
_NAMED = (r"(?:(?<!\$)" + _WORD.format("")
          + r"|(?P<name>[A-Za-z0-9_.]{1,64}+)(?:[ \t]*+[=:])?[ \t]*+(?P<word>(?<![0-9A-Za-z_$.])"
          + _WORD.format("2") + "))")
NAMED_TOKEN = re.compile(r"(?<![0-9A-Za-z_.])" + _NAMED)
#: :data:`NAMED_TOKEN` with the character before the match (no name character) matched, not
#: looked behind at, searched in the line with a space in front (:func:`named_hex_matches`):
#: a pattern that starts with a character set is tried only where the regex engine's scan
#: (in C) finds that character, not at every position -- the same matches, 15-20% faster.
_AFTER_NAMED_TOKEN = re.compile(r"[^0-9A-Za-z_.]" + _NAMED)
#: Characters a name may start with (else it is a number: ``0x4000_...``).
_NAME_FIRST = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
#: The window :func:`name_before` reads.
_NAME_WINDOW = 80
HEX8 = re.compile(r"[0-9A-Fa-f]{8}")
_AFTER_SEPARATOR = r"[ \t]{0,8}(\d{1,20}+)" + _SUFFIX + r"(?![0-9A-Za-z_.'])"
NAMED_DECIMAL = re.compile("[=:]" + _AFTER_SEPARATOR)
#: :data:`NAMED_DECIMAL` in the line with each ``:`` written ``=`` (the same positions): a
#: pattern that starts with one literal character is searched for at C speed, one that
#: starts with a set of two is tried character by character.
_EQUALS_DECIMAL = re.compile("=" + _AFTER_SEPARATOR)
DECIMAL = re.compile(r"(?<![0-9A-Za-z_$.])(\d{1,20}+)" + _SUFFIX + r"(?![0-9A-Za-z_.'])")
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
        read = _digits(bare_digits if bare else digits, bare)
        if read is not None:
            yield m.start(), m.group(), read[0], read[1]


def _digits(digits: str, bare: bool) -> tuple[int, int] | None:
    """(value, size) of a word's digits, or ``None`` when the word is not read (more than 16
    digits; bare and not 8 or 16 digits)."""
    clean = digits.replace("_", "").replace("'", "") if ("_" in digits or "'" in digits) \
        else digits
    n = len(clean)
    if n > 16 or (bare and n != 8 and n != 16):
        return None
    word = int(clean, 16)
    return word, 64 if (n > 8 or word > _REGISTER_MAX) else 32


#: Per distinct match of :func:`named_hex_matches` (the text matched, the character before
#: it included): what :func:`read_named` returns.  Bounded (cleared when full).
_MATCHES: BoundedMemo[str, tuple[int, str, int, int, Any] | None] = BoundedMemo(1 << 14)
#: The name :func:`read_named` gives a word when :func:`name_before` decides it.
UNKNOWN: Any = object()


def named_hex_matches(line: str) -> Iterator[re.Match[str]]:
    """The matches of :data:`NAMED_TOKEN` in ``line``, each with the character before it
    (``line`` is searched with a space in front): ``m.start()`` is where the match starts
    in ``line``.  :func:`read_named` reads each; ``m.group()`` is what it depends on."""
    return _AFTER_NAMED_TOKEN.finditer(" " + line)


def read_named(m: re.Match[str]) -> tuple[int, str, int, int, Any] | None:
    """``(offset, text, value, size, name)`` of a match of :func:`named_hex_matches`: the
    word's offset from ``m.start()``, the word as written, its value and size, and the name
    before it (``None``: none; :data:`UNKNOWN`: the name is not in the match,
    :func:`name_before` decides), or ``None`` when the match is no word (see
    :func:`hex_words`).  Memoised per ``m.group()``."""
    key = m.group()
    try:
        return _MATCHES[key]
    except KeyError:
        pass
    hex_digits, bare_digits, name, hex2, bare2 = m.group("hex", "bare", "name", "hex2", "bare2")
    if name is None:  # the word alone: a name before it (if any) was not matched with it
        offset, bare = 0, hex_digits is None
        read = _digits(bare_digits if bare else hex_digits, bare)
        text = key[1:]
        name = UNKNOWN
    else:
        offset, bare = m.start("word") - m.start() - 1, hex2 is None
        read = _digits(bare2 if bare else hex2, bare)
        text = m.group("word")
        if offset > _NAME_WINDOW:
            name = UNKNOWN
        elif name[0] not in _NAME_FIRST:
            name = None
    return _MATCHES.keep(key, None if read is None else (offset, text, read[0], read[1], name))


def named_hex_words(line: str) -> Iterator[tuple[int, str, int, int, str | None]]:
    """``(start, text, value, size, name)`` of each hex word of ``line``: the words of
    :func:`hex_words` with :func:`name_before` of each."""
    for m in named_hex_matches(line):
        got = read_named(m)
        if got is None:
            continue
        offset, text, word, size, name = got
        start = m.start() + offset
        if name is UNKNOWN:
            name = name_before(line, start)
        yield start, text, word, size, name


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


def named_decimal_words(line: str) -> Iterator[tuple[int, str, int, int, str]]:
    """``(start, text, value, size, name)`` of the ``name=123`` / ``name: 123`` numbers of
    ``line`` that have a name: those of ``decimal_words(line, every=False)`` whose
    :func:`name_before` is not ``None``, with it (the line reversed once, not the text before
    each number)."""
    rev = None
    end = len(line)
    match = NAME_REVERSED.match
    for m in _EQUALS_DECIMAL.finditer(line.replace(":", "=") if ":" in line else line):
        digits = m.group(1)
        word = int(digits)
        if word >> 64:
            continue
        start = m.start(1)
        if rev is None:
            rev = line[::-1]
        # name_before: line[start - 80:start] reversed is rev[end - start:end - start + 80]
        n = match(rev, end - start, end - start + _NAME_WINDOW)
        if n is None:
            continue
        name = n.group(1)[::-1]
        if name[0] in _NAME_FIRST:
            yield start, digits, word, 64 if word > _REGISTER_MAX else 32, name


def name_before(line: str, start: int) -> str | None:
    """The identifier written just before position ``start`` (``adesc=``, ``a_desc:``)."""
    m = NAME_REVERSED.match(line[max(0, start - 80):start][::-1])
    if m is None:
        return None
    name = m.group(1)[::-1]
    return name if name[0].isalpha() or name[0] == "_" else None  # "0x4000_..." is a number

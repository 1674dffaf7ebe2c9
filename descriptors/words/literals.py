"""PTX lexical pieces shared by the readers and the instruction models: the longest line read
(:data:`MAX_LINE`), integer literals (PTX ISA 4.5.1: decimal, hex ``0x``, octal ``0``, binary
``0b``, an optional ``U`` suffix and a leading minus) and an instruction's operand list."""

from __future__ import annotations

import re

__all__ = ["MAX_LINE", "parse_immediate", "split_operands", "REGISTER_BITS", "PAIR_ORDER",
           "register_value",
           "parse_register_pair", "C_SUFFIX", "strip_c_suffix"]

#: Characters of one line of text that are read: the readers and ``descgen dump`` cut a longer
#: line there (the rest is dropped), the instruction models refuse a longer instruction text.
MAX_LINE = 4096

#: Bits of one register: a 64-bit descriptor lives in a register pair.
REGISTER_BITS = 32
#: How ``LO:HI`` is read: the low word first, as SASS names a pair (``UR4`` holds bits 31-0,
#: ``UR5`` bits 63-32) and as cuda-gdb's ``info registers UR4 UR5`` lists them, even register
#: first.
PAIR_ORDER = "LO:HI, the low word first, as cuda-gdb's info registers UR4 UR5 lists UR4:UR5"

#: A C/C++ integer-suffix, as a regex fragment: an unsigned-suffix (``u``/``U``) with or after
#: a long-suffix (``l``/``L``), a long-long-suffix (``ll``/``LL``, never ``lL``) or a
#: size-suffix (``z``/``Z``), in either order (C++ [lex.icon]; C's ``u``, ``l``, ``ll``
#: suffixes are among them): ``0x08400490u``, ``0x4000404000010040ull``, ``138413200UL``,
#: ``1LLU``.  What ``descgen``'s own ``--format c``/``cpp`` constants end with.
C_SUFFIX = r"(?:[uU](?:ll|LL|[lLzZ])?+|(?:ll|LL|[lLzZ])[uU]?+)"
_C_SUFFIX_END = re.compile(C_SUFFIX + r"\Z")


def strip_c_suffix(text: str) -> str:
    """``text`` (an integer literal) without its C/C++ integer suffix (:data:`C_SUFFIX`), when
    it has one after a digit; else ``text`` unchanged.  The suffix letters are no hex digits,
    so ``0x...u`` loses only the suffix."""
    if text[-1:] in _SUFFIX_LAST:
        m = _C_SUFFIX_END.search(text)
        if m is not None and m.start() > 0 and text[m.start() - 1] in _DIGITS:
            return text[:m.start()]
    return text


_SUFFIX_LAST = frozenset("uUlLzZ")
_DIGITS = frozenset("0123456789abcdefABCDEF")

_IMM = re.compile(r"-?(?:0[xX][0-9A-Fa-f]+|0[bB][01]+|0[0-7]*|[1-9]\d*)[uU]?\Z")
_FIRST = frozenset("-0123456789")
_NESTING = re.compile(r"[\[\]{}()]")


def parse_immediate(text: str) -> int | None:
    """The integer a PTX integer literal denotes, or ``None``."""
    t = text.strip()
    if t[:1] not in _FIRST or not _IMM.match(t):  # most operands are registers: cheap test first
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


def split_operands(text: str, base: int) -> tuple[list[tuple[str, int]], str | None]:
    """An instruction's operands split at top-level commas (brackets and braces nest), each with
    its 1-based column (``base`` is the column of ``text``'s first character), and the first
    problem found (an unbalanced bracket, an empty operand; ``None`` when there is none).  The
    operands are read leniently -- empty pieces dropped, a stray closing bracket ignored -- so a
    reader can go on and a checker can refuse the line with the problem."""
    out: list[tuple[str, int]] = []
    problem: str | None = None
    if _NESTING.search(text) is None:  # nothing nests: the commas split it (same result, faster)
        pos = 0
        for piece in text.split(","):
            stripped = piece.strip()
            if stripped:
                out.append((stripped, base + pos + (len(piece) - len(piece.lstrip()))))
            elif problem is None:
                problem = f"empty operand at column {base + pos}"
            pos += len(piece) + 1
        return out, problem
    depth = 0
    start = 0
    for i, ch in enumerate(text + ","):
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            if depth == 0 and problem is None:
                problem = f"unbalanced '{ch}' at column {base + i}"
            depth = max(depth - 1, 0)
        elif ch == "," and depth == 0:
            piece = text[start:i]
            stripped = piece.strip()
            if stripped:
                out.append((stripped, base + start + (len(piece) - len(piece.lstrip()))))
            elif problem is None:
                problem = f"empty operand at column {base + start}"
            start = i + 1
    if depth != 0 and problem is None:
        problem = "unbalanced brackets: a '[' or '{' is not closed (truncated line?)"
    return out, problem


def register_value(value: int, what: str) -> int:
    """The :data:`REGISTER_BITS`-bit word a register holds, from its value as a debugger or a
    user gives it: ``0 .. 2**32 - 1``, or a negative value down to ``-2**31`` (a signed reading,
    two's complement).  Raises :class:`~descriptors.errors.ParameterError` naming ``what`` for
    anything else (never masked)."""
    from ..errors import ParameterError, shorten
    if value.__class__ is not int or \
            not -(1 << (REGISTER_BITS - 1)) <= value < (1 << REGISTER_BITS):
        raise ParameterError(f"{what}: {shorten(value)} is no {REGISTER_BITS}-bit register "
                             f"value (-2**{REGISTER_BITS - 1} .. 2**{REGISTER_BITS}-1)")
    return value & ((1 << REGISTER_BITS) - 1)


def parse_register_pair(text: str) -> int | None:
    """The 64-bit word a register pair holds, from ``LO:HI`` (:data:`PAIR_ORDER`: the low
    word first): two register values, decimal or ``0x`` hex (``_`` and ``'`` separators
    allowed), each 0 .. 2**32-1 or a signed reading down to -2**31 (two's complement, as a
    debugger may print it).  ``None`` when ``text`` has no ``:``.  Raises
    :class:`~descriptors.errors.ParameterError` for a half that is no 32-bit register value."""
    if not isinstance(text, str) or ":" not in text:
        return None
    from ..errors import ParameterError
    from .codec import parse_int
    parts = text.split(":")
    if len(parts) != 2:
        raise ParameterError(f"register pair {text.strip()[:60]!r}: expected two 32-bit "
                             f"values, {PAIR_ORDER}")
    halves = [register_value(parse_int(part.strip(), f"the pair's {what}"),
                             f"the pair's {what} ({PAIR_ORDER})")
              for part, what in zip(parts, ("low word", "high word"))]
    return halves[1] << REGISTER_BITS | halves[0]

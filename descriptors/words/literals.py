"""PTX lexical pieces shared by the readers and the instruction models: the longest line read
(:data:`MAX_LINE`), integer literals (PTX ISA 4.5.1: decimal, hex ``0x``, octal ``0``, binary
``0b``, an optional ``U`` suffix and a leading minus) and an instruction's operand list."""

from __future__ import annotations

import re

__all__ = ["MAX_LINE", "parse_immediate", "split_operands"]

#: Characters of one line of text that are read: the readers and ``descgen dump`` cut a longer
#: line there (the rest is dropped), the instruction models refuse a longer instruction text.
MAX_LINE = 4096

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

"""The SASS line lexer: which lines are instructions (:data:`LINE`, or :data:`LINE_BARE` for
one without its ``;``), each read into an :class:`Ins` (where it is, its guard, opcode and
operands, the immediates it materialises), and the lines that are no instruction
(:func:`other_line`: a function's name, a header line, a label)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from .. import SASS_FUNCTION, Fact
from ..knownbits import KnownBits
from .arch import ARCH
from .opcodes import MATERIALISE, MOVES_ANY, registers_written
from .tokens import immediate, split


#: The pieces of a SASS instruction line every pattern below is built from: a predicate guard
#: (``@!UP0``) and an opcode with its modifiers (``UTCHMMA.2CTA``).
_PRED = r"@!?U?P(?:T|\d{1,2})"
_OPCODE = r"[A-Z][A-Z0-9_]{0,31}(?:\.[A-Za-z0-9_]{1,32}){0,8}"
#: An instruction line with its ``;``: address, guard, opcode, operands (``first``: the first).
LINE = re.compile(r"\s*+(?:/\*(?P<addr>[0-9A-Fa-f]{1,8})\*/)?+\s*+(?P<pred>" + _PRED + r"\s++)?+"
                  r"(?P<op>(?>U?" + _OPCODE + r"))(?=[\s;])(?P<rest>(?P<first>[^,;]*+)[^;]*+);")
#: An instruction without its ``;`` (pasted into a log, or cuda-gdb's ``x/i``: ``HGMMA.64x64x16.F32
#: R24,gdesc[UR4],RZ,!UPT,gsb0``): an upper-case opcode and a first operand that is a register,
#: a predicate, an address or an MMA operand.
LINE_BARE = re.compile(r"\s*+(?:/\*(?P<addr>[0-9A-Fa-f]{1,8})\*/)?+\s*+(?P<pred>" + _PRED +
                       r"\s++)?+(?P<op>(?>U?" + _OPCODE + r"))\s++(?P<rest>(?:U?R\d{1,3}|U?RZ|"
                       r"!?U?P(?:T|\d)|\[|\{|gdesc\[|tmem\[|idesc\[)[^;]*+)\Z")
_LABEL = re.compile(r"\s*(\.L_x_\d+|\.?[A-Za-z_$][\w$.]*)\s*:\s*(?://.*)?\Z")


def span(m: re.Match[str], pred: str | None) -> tuple[int, int]:
    """Where the instruction a :data:`LINE` / :data:`LINE_BARE` match read is written in its
    line: from its guard (``pred``, the match's) or opcode to its ``;`` (not included)."""
    end = m.end()
    if m.string[end - 1:end] == ";":
        end -= 1
    return (m.start("pred") if pred else m.start("op"), end)


def normalised(source: str, span: tuple[int, int]) -> str:
    """The text of ``source`` in ``span``, blanks normalised (one space between words)."""
    return " ".join(source[span[0]:span[1]].split())


class Ins:
    """One instruction line: where (``line``, 1-based ``col`` of the opcode, ``addr``), its
    guard (``pred``), opcode, operands ``(text, col)``, normalised ``text``; the registers it
    writes (``dests``).

    Made only for the lines the data flow or a check looks at (:class:`Function`): the
    operands are split and the text normalised only when asked for (``ops``, ``text``)."""

    __slots__ = ("line", "col", "addr", "pred", "op", "_dests", "_source", "_span",
                 "_rest", "_col0", "_ops", "_text")

    def __init__(self, line: int, col: int, addr: int | None, pred: str | None, op: str,
                 source: str, span: tuple[int, int], rest: str, col0: int,
                 dests: tuple[str, ...] | None = None) -> None:
        self.line, self.col, self.addr, self.op = line, col, addr, op
        self.pred = pred.strip() if pred else None
        self._source, self._span, self._rest, self._col0 = source, span, rest, col0
        self._ops: list[tuple[str, int]] | None = None
        self._text: str | None = None
        self._dests = dests

    @classmethod
    def of(cls, m: re.Match[str], line: int, dests: tuple[str, ...] | None = None) -> Ins:
        """The instruction a :data:`LINE` or :data:`LINE_BARE` match read on ``line``."""
        addr, pred, op, rest = m.group("addr", "pred", "op", "rest")
        return cls(line, m.start("op") + 1, int(addr, 16) if addr else None, pred, op, m.string,
                   span(m, pred), rest, m.start("rest") + 1, dests)

    @property
    def dests(self) -> tuple[str, ...]:
        """The registers it writes (:func:`registers_written`)."""
        if self._dests is None:
            self._dests = tuple(registers_written(self))
        return self._dests

    def facts(self, arch: str | None = None) -> tuple[Fact, ...]:
        """The immediates it materialises (in code for target ``arch``), for ``dump``: every
        constant a move (``MOV``, ``UMOV``, ``MOV32I``, ``IMAD.MOV d, RZ, RZ, s``) writes,
        ``RZ`` too; other opcodes' immediates from 0x10000 up."""
        ds = self.dests
        op = self.op
        base = op.split(".", 1)[0]
        if not (ds and len(ds) == 1 and base in MATERIALISE and (
                base in MOVES_ANY or op.startswith("IMAD.MOV") or _BIG.search(self._rest))):
            return ()
        ops = self.ops
        moved = base in MOVES_ANY or (op.startswith("IMAD.MOV") and len(
            ops) == 4 and ops[1][0] in ("RZ", "URZ") and ops[2][0] in ("RZ", "URZ"))
        out: tuple[Fact, ...] = ()
        for t, c in ops[-1:] if moved else ops[1:]:
            imm = immediate(t) if t[:1] in "-0123456789" else (0 if t in ("RZ", "URZ") and
                                                               moved else None)
            if imm is not None and (imm > 0xFFFF or moved):
                out += (Fact(self.line, c, KnownBits.const(imm, 32), "immediate",
                             self.text, "sass", register=ds[0], arch=arch),)
        return out

    @property
    def ops(self) -> list[tuple[str, int]]:
        """The operands, ``(text, 1-based col)``, split at top-level commas."""
        if self._ops is None:
            self._ops = split(self._rest, self._col0)
        return self._ops

    @property
    def text(self) -> str:
        """The instruction as written from its guard to its ``;``, blanks normalised."""
        if self._text is None:
            self._text = normalised(self._source, self._span)
        return self._text

    def first(self) -> str | None:
        """The first operand's text (``None``: no operand), without splitting the rest when
        the first comma ends it."""
        if self._ops is None:
            piece = self._rest.split(",", 1)[0]
            if "[" not in piece and "(" not in piece:
                piece = piece.strip()
                if piece:
                    return piece
        ops = self.ops
        return ops[0][0] if ops else None


#: Five hex digits in a row: an immediate of 0x10000 or more has them (hex or decimal).
_BIG = re.compile(r"[0-9A-Fa-f]{5}")


def other_line(line: str) -> tuple[str, object] | None:
    """A line that is no instruction: ``("function", name)``, ``("header", line)`` (it names
    the target), ``("label", name)``, or ``None``."""
    stripped = line.strip()
    if not stripped or stripped.startswith("/*"):
        return None
    fm = SASS_FUNCTION.match(line)
    if fm:
        return "function", next(g for g in fm.groups() if g)
    if ARCH.search(line) or ".headerflags" in line:
        return "header", line
    lm = _LABEL.match(line)
    if lm:
        return "label", lm.group(1)
    return None


def line_items(lines: Iterable[str], first_line: int = 1) -> Iterator[tuple[str, object]]:
    """Each line's item, ``(kind, what)``: ``("ins", Ins)`` or an item of :func:`other_line`
    (``"header"`` items carry ``(line number, line)``)."""
    for lineno, line in enumerate(lines, first_line):
        if ";" in line:
            m = LINE.match(line)
        elif line.lstrip()[:3] == "/* ":
            continue  # the second encoding word of a cuobjdump instruction (/* 0x... */)
        else:
            m = LINE_BARE.match(line)
        if m is not None:
            yield "ins", Ins.of(m, lineno)
            continue
        got = other_line(line)
        if got is not None:
            yield (got[0], (lineno, line)) if got[0] == "header" else got

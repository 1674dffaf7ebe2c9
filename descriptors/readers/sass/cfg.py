"""One function of a SASS listing as the data flow sees it: its instructions as the reader
met them (:class:`Function`), the control flow of each branch (:func:`control`: ``BRA``,
``BRX``, ``EXIT``, ``RET``, ``CALL`` ...; the instruction at an address, :class:`Addresses`),
and the views :class:`~descriptors.readers.dataflow.Code` reads (:class:`ByReg`,
:class:`Where`, :class:`Guards`)."""

from __future__ import annotations

import re
from collections import defaultdict

from ..dataflow import EVERY
from ...isa.sass import register_name as _reg_name
from .lex import Ins, normalised, span
from .opcodes import BRANCH
from .tokens import PREDREG, split


_TARGET = re.compile(r"(0x[0-9A-Fa-f]+)|`\(([^)]*)\)")


#: Indirect branches: the target is in a register (``BRX R132 -0x6db0``, ``BRXU UR8 -0x78e0``).
_INDIRECT = frozenset({"BRX", "BRXU", "JMX", "JMXU"})
#: Modifiers of ``BRA`` that make it conditional without a guard.
_CONDITIONAL = frozenset({"DIV", "ANY", "ALL", "CONV", "U"})


def control(m: re.Match[str], addr_index: Addresses | dict[int, int], labels: dict[str, int]
            ) -> tuple[tuple[int, ...], bool, bool]:
    """``(jump targets, falls through, is a call)`` of the instruction a :data:`LINE` or
    :data:`LINE_BARE` match read (its operands split only when there are several)."""
    op, pred, rest = m.group("op", "pred", "rest")
    base = op.split(".", 1)[0]
    if base not in BRANCH:
        return (), True, False
    guarded = bool(pred and pred.strip())
    quals = set(op.split(".")[1:])
    if base in ("EXIT", "RET", "KILL"):
        return (), guarded, False
    if base == "BPT":
        return (), True, False
    if base in _INDIRECT:
        return EVERY, guarded, False
    one = rest.strip()
    texts = [one] if "," not in one else [t for t, _ in split(rest, 1)]
    t = _TARGET.search(" ".join(texts))
    target = None
    if t and t.group(1) is not None:
        target = addr_index.get(int(t.group(1), 16))
    elif t:
        target = labels.get(t.group(2))
    if base == "CALL":
        return (), True, True
    conditional = guarded or bool(quals & _CONDITIONAL) or any(
        PREDREG.match(x) or _reg_name(x) for x in texts)
    if target is None:
        return EVERY, conditional, False  # a target the reader cannot find: anywhere
    return (target,), conditional, False


class Function:
    """The instructions of one function as the reader met them: each line's match
    (:data:`LINE`), line number and what it writes; the instructions of a kind other than
    :data:`PLAIN` (:data:`BRANCH_OP`, :data:`CHECKED_OP`, :data:`MATERIAL`); the writes
    of each register.  An instruction's
    :class:`Ins` -- operands split, text normalised -- is made only when the data flow or a
    check looks at it (most lines of a listing never are)."""

    __slots__ = ("matches", "lines", "dests", "special", "by_reg", "wide", "labels", "made")

    def __init__(self) -> None:
        self.matches: list[re.Match[str]] = []
        self.lines: list[int] = []
        self.dests: list[tuple[str, ...]] = []
        #: ``(index, kind)`` of each instruction whose kind is not :data:`PLAIN`
        self.special: list[tuple[int, int]] = []
        #: the instructions that write each register, in order -- but for those that write
        #: more than two (an LDTM's vector, up to 128 registers), listed in ``wide`` and
        #: looked through only for a register the data flow asks about (:class:`ByReg`)
        self.by_reg: defaultdict[str, list[int]] = defaultdict(list)
        self.wide: list[int] = []
        self.labels: dict[str, int] = {}
        self.made: dict[int, Ins] = {}

    def parts(self) -> tuple[list[re.Match[str]], list[int], list[tuple[str, ...]],
                             list[tuple[int, int]], defaultdict[str, list[int]], list[int]]:
        """The lists :func:`read_sass` fills as it reads: matches, line numbers, what each
        writes, the instructions of a kind other than :data:`PLAIN`, the writes of each
        register, the instructions that write more than two."""
        return self.matches, self.lines, self.dests, self.special, self.by_reg, self.wide

    def __len__(self) -> int:
        return len(self.matches)

    def ins(self, i: int) -> Ins:
        got = self.made.get(i)
        if got is None:
            got = self.made[i] = Ins.of(self.matches[i], self.lines[i], self.dests[i])
        return got


class ByReg:
    """``Code``'s writes of each register (``get(register, default)``): the function's
    :attr:`Function.by_reg` with the instructions of :attr:`Function.wide` that write the
    register merged in, when asked (kept)."""

    __slots__ = ("fn", "got", "wide")

    def __init__(self, fn: Function) -> None:
        self.fn = fn
        self.got: dict[str, list[int]] = {}
        #: the writes of each register by the instructions of ``wide`` (made on first use)
        self.wide: dict[str, list[int]] | None = None

    def get(self, reg: str, default: list[int] | None = None) -> list[int] | None:
        got = self.got.get(reg)
        if got is None:
            fn = self.fn
            own = fn.by_reg.get(reg)
            wide = self.wide
            if wide is None:
                wide = self.wide = {}
                for i in fn.wide:
                    for d in fn.dests[i]:
                        wide.setdefault(d, []).append(i)
            extra = wide.get(reg)
            got = self.got[reg] = sorted((own or []) + extra) if extra else \
                (_UNWRITTEN if own is None else own)
        return default if got is _UNWRITTEN else got


#: :class:`ByReg`'s answer for a register nothing writes (kept, like the others).
_UNWRITTEN: list[int] = []


class Where:
    """``Code.where`` of a function: ``(line, text)`` of instruction ``i``, made when the data
    flow asks (only for the instructions in the slice)."""

    __slots__ = ("fn", "got")

    def __init__(self, fn: Function) -> None:
        self.fn = fn
        self.got: dict[int, tuple[int, str]] = {}

    def __len__(self) -> int:
        return len(self.fn)

    def __getitem__(self, i: int) -> tuple[int, str]:
        got = self.got.get(i)
        if got is None:
            fn = self.fn
            ins = fn.made.get(i)
            if ins is not None:
                got = (ins.line, ins.text)
            else:  # (the text alone: no :class:`Ins` made for it)
                m = fn.matches[i]
                got = (fn.lines[i], normalised(m.string, span(m, m.group("pred"))))
            self.got[i] = got
        return got


class Guards:
    """``Code.guard`` of a function: the guard of instruction ``i`` (``@!UP1``), or ``None``."""

    __slots__ = ("fn",)

    def __init__(self, fn: Function) -> None:
        self.fn = fn

    def __len__(self) -> int:
        return len(self.fn)

    def __getitem__(self, i: int) -> str | None:
        pred = self.fn.matches[i].group("pred")
        return pred.strip() if pred else None


class Addresses:
    """The instruction at an address (``addr_index.get``): listings print one instruction
    every 16 bytes, so the index is tried from the first address and the stride, and a
    full table is built only where that guess misses."""

    __slots__ = ("fn", "table", "base")

    def __init__(self, fn: Function) -> None:
        self.fn = fn
        self.table: dict[int, int] | None = None
        self.base: int | None = None
        a = fn.matches[0].group("addr") if fn.matches else None
        if a:
            self.base = int(a, 16)

    def get(self, addr: int) -> int | None:
        if self.base is not None and self.table is None:
            k, r = divmod(addr - self.base, 16)
            if not r and 0 <= k < len(self.fn.matches):
                a = self.fn.matches[k].group("addr")
                if a and int(a, 16) == addr:
                    return k
        if self.table is None:
            self.table = {}
            for k, m in enumerate(self.fn.matches):
                a = m.group("addr")
                if a:
                    self.table[int(a, 16)] = k
        return self.table.get(addr)

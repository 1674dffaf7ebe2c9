"""The SASS reader's driver: :func:`read_sass` reads a listing line by line into functions
(:class:`~descriptors.readers.sass.cfg.Function`), works out each function's data flow for the
registers its checked instructions read, and yields the instructions and facts in line order."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from time import perf_counter

from .. import MAX_FUNCTION, Fact, Instruction
from ..dataflow import SLOW, Code, solve
from ..knownbits import KnownBits
from ...isa.sites import MmaSite
from .arch import follow_header, listing_target
from .cfg import Addresses, ByReg, Function, Guards, Where, control
from .lex import LINE, LINE_BARE, Ins, other_line
from .opcodes import BRANCH_OP, CHECKED_OP, MATERIAL, opcode_kind, registers_written, written
from .operands import ZERO_SET, site_operands, with_values
from .transfer import step_kept


def _mentions(ins: Ins, pred: str) -> bool:
    return any(t.lstrip("!") == pred for t, _ in ins.ops)


def _read_uses(fn: Function, outcome: list[str]) -> Iterator[tuple[int, tuple[MmaSite | None,
                                                                               list]]]:
    """Each tcgen05 instruction of a function (``UTC*``, ``LDTM``, ``STTM``) with the value
    set of every register its operands read; ``outcome`` gets the data flow's
    :attr:`~descriptors.readers.dataflow.Code.outcome` when it gave up."""
    n = len(fn)
    targets = [i for i, kind in fn.special if kind & CHECKED_OP]
    if not targets:
        return
    jumps: list[tuple[int, ...]] = [()] * n
    falls: list[bool] = [True] * n
    defs: list[tuple[str, ...]] = fn.dests
    branches = [i for i, kind in fn.special if kind & BRANCH_OP]
    addresses = Addresses(fn)
    by_reg = fn.by_reg
    for i in branches:
        js, fall, call = control(fn.matches[i], addresses, fn.labels)
        jumps[i], falls[i] = js, fall
        if call:
            if defs is fn.dests:
                defs = list(defs)
            defs[i] = ("*",)
            by_reg.setdefault("*", []).append(i)
    gdesc: set[str] = set()
    uses: list[tuple[int, str]] = []
    per: dict[int, list] = {}
    sites: dict[int, MmaSite | None] = {}
    for i in targets:
        sites[i], got = site_operands(fn.ins(i))
        per[i] = got
        for _k, _t, role, _off, regs in got:
            for r in regs:
                if r not in ("RZ", "URZ"):
                    uses.append((i, r))
                    if role == "gdesc":
                        gdesc.add(r)
    code = Code(defs, Guards(fn), jumps, falls, Where(fn),
                lambda i, p: _mentions(fn.ins(i), p),
                lambda i, r: step_kept(fn, i, r, gdesc), by_reg=ByReg(fn),  # type: ignore[arg-type]
                branches=branches)
    values = solve(code, uses)
    if code.outcome is not None:
        outcome.append(code.outcome)
    for i in targets:
        yield i, (sites[i], [(k, text, role, off, [values.get((i, r), ZERO_SET)
                                                   if r not in ("RZ", "URZ") else ZERO_SET
                                                   for r in regs])
                             for k, text, role, off, regs in per[i]])


def _analyse(fn: Function, arch: str | None, name: str | None,
             arch_reason: str | None = None, facts: bool = True) -> Iterator[Instruction | Fact]:
    """The facts (``facts``: the immediates, for ``dump``) and instructions of one function,
    in line order (its data flow is worked out first), after a ``budget`` fact where the
    data flow gave up (:data:`~descriptors.readers.dataflow.BUDGET`: its values unknown) and a
    ``slow`` fact (its seconds in ``hints``) where it took :data:`SLOW` seconds or more."""
    start = perf_counter()
    outcome: list[str] = []
    checked = dict(_read_uses(fn, outcome))
    took = perf_counter() - start
    if "budget" in outcome:
        yield Fact(fn.lines[0], 0, KnownBits.unknown(1), "budget", name or "", "sass")
    if took >= SLOW and fn.lines:
        yield Fact(fn.lines[0], 0, KnownBits.unknown(1), "slow", name or "", "sass",
                   (f"{took:.1f}",))
    material = {i for i, kind in fn.special if kind & MATERIAL} if facts else set()
    for i in sorted(set(checked) | material):
        ins = fn.ins(i)
        if i in material:
            yield from ins.facts(arch)
        got = checked.get(i)
        if got is None:
            continue
        site, uses = got
        yield with_values(ins, site, uses, arch, name, arch_reason)


#: What an instruction writes and its kind, by its opcode and first operand as written (the
#: slice of the line from the opcode to the first operand's end): one answer per spelling,
#: kept across listings (bounded).
_WRITTEN: dict[str, tuple[tuple[str, ...], int]] = {}
_WRITTEN_MAX = 1 << 16


def read_sass(lines: Iterable[str], first_line: int = 1, *,
              facts: bool = True) -> Iterator[Instruction | Fact]:
    """Instructions (``UTC*``, ``LDTM``, ``STTM``, the wgmma opcodes) and, with ``facts``,
    facts (immediates) of a SASS listing, function by function (lines numbered from
    ``first_line``).  Each instruction carries the listing's target (``arch``) and why it was
    taken (``arch_reason``; see :func:`listing_target`).

    Every line is matched once; what an instruction writes is worked out once per spelling of
    its opcode and first operand (:func:`~descriptors.readers.sass.opcodes.written`); the rest
    of a line is read only when the data flow or a check needs it.

    (Long: every line of a listing passes through this loop, with the function's lists bound
    in locals; a helper per line would cost a call per line.)"""
    state: dict[str, object] = {}
    arch = reason = None
    fn = Function()
    name: str | None = None
    cache = _WRITTEN
    if len(cache) > _WRITTEN_MAX:
        cache.clear()
    match, bare = LINE.match, LINE_BARE.match
    # the function being read; its lists bound here, for the bookkeeping of each instruction
    # in the loop (the hot path) -- rebound wherever a new function begins
    matches, numbers, dests, special, by_reg, wide = fn.parts()
    # the kinds of instruction listed (``special``): those that materialise constants only
    # when their facts are asked for
    listed = BRANCH_OP | CHECKED_OP | (MATERIAL if facts else 0)
    i = 0  # the next instruction's index in the function (``len(matches)``)
    for lineno, line in enumerate(lines, first_line):
        if ";" in line:
            m = match(line)
            if m is not None:
                # the opcode and first operand as one slice of the line (the hot path: no
                # tuple to build and hash); the opcode ends at a space or ``;``, so the slice
                # says where one ends and the other begins
                key = line[m.start(3):m.end(5)]
                got = cache.get(key)
                if got is None:
                    op, first = m.group(3, 5)
                    got = written(op, first)
                    if got is None:  # (their dests need every operand)
                        got = (tuple(registers_written(Ins.of(m, lineno))), opcode_kind(op))
                    else:
                        cache[key] = got
        elif line.lstrip()[:3] == "/* ":
            continue  # the second encoding word of a cuobjdump instruction (/* 0x... */)
        else:
            m = bare(line)
            if m is not None:
                ins = Ins.of(m, lineno)
                fn.made[i] = ins
                got = (ins.dests, opcode_kind(ins.op))
        if m is not None:
            matches.append(m)
            numbers.append(lineno)
            ds, kind = got
            dests.append(ds)
            if kind & listed:
                special.append((i, kind))
            if len(ds) > 2:
                wide.append(i)  # (an LDTM's vector: looked through only when asked, ByReg)
            else:
                for d in ds:
                    by_reg[d].append(i)
            i += 1
            if i >= MAX_FUNCTION:
                yield from _analyse(fn, arch, name, reason, facts)
                yield Fact(lineno, 0, KnownBits.unknown(1), "split", name or "", "sass")
                fn = Function()
                matches, numbers, dests, special, by_reg, wide = fn.parts()
                i = 0
            continue
        got_other = other_line(line)
        if got_other is None:
            continue
        kind, item = got_other
        if kind == "header":
            follow_header(line, lineno, state)
            target = listing_target(state)
            if target[0] != arch and matches:
                # a fatbin's next member starts with its header lines (``arch = sm_100a``,
                # ``code for sm_100a``) before its first ``Function :``: what was read so far
                # is the previous member's code, on the previous target
                yield from _analyse(fn, arch, name, reason, facts)
                fn = Function()
                matches, numbers, dests, special, by_reg, wide = fn.parts()
                i = 0
            arch, reason = target
        elif kind == "function":
            yield from _analyse(fn, arch, name, reason, facts)
            fn, name = Function(), str(item)
            matches, numbers, dests, special, by_reg, wide = fn.parts()
            i = 0
        elif kind == "label":
            fn.labels[str(item)] = i
    yield from _analyse(fn, arch, name, reason, facts)

"""The operands an MMA or Tensor Memory instruction's site judges, and their values: which
operands the data flow works out (:func:`site_operands`), and the
:class:`~descriptors.readers.Instruction` with each one's value (:func:`with_values`: register
pairs joined, low word first; ``tmem[UR4+0x10]`` offsets added)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import Instruction, Operand
from ..knownbits import KnownBits
from ..values import Alternative, ValueSet, join, meet, single
from ...isa.sass import MEMORY_OPERAND as _MEM
from ...isa.sites import MmaSite, sass_site
from .tokens import immediate
from .transfer import ZERO

if TYPE_CHECKING:
    from .lex import Ins

#: The value of ``RZ`` / ``URZ``.
ZERO_SET = single(ZERO)


def site_operands(ins: Ins) -> tuple[MmaSite | None,
                                     list[tuple[int, str, str, str | None, tuple[str, ...]]]]:
    """What the instruction means (:func:`descriptors.isa.sites.sass_site`) and the operands
    whose values are worked out, as ``(operand index, text, bracket, offset, registers)``:
    those the site judges (the descriptors, the idescE low word, the scale factors' address,
    a ``.ws`` zero-column mask; a Tensor Memory access's address).  A's and the accumulator's
    TMEM addresses are not followed (loop-carried values whose data flow would cost most of
    the reading)."""
    site = sass_site(ins.op, tuple([t for t, _ in ins.ops]))
    if site is None:
        return None, []
    return site, [(o.index, o.text, o.prefix, o.offset, o.registers) for o in site.operands
                  if o.judged]


def _pair_value(lo: ValueSet, hi: ValueSet) -> ValueSet:
    """The 64-bit value of a register pair.  When only one half differs between paths the
    pairs are exact; when both do, which low half goes with which high half is not known, so
    the result is what every combination agrees on -- unless each half is one value written by
    a predicated write and what that write may leave (``@!UP1 UMOV UR8, lo`` and ``@!UP1 UMOV
    UR9, hi``): then every combination is kept, and only the one of both written values is
    judged (:attr:`Operand.judged <descriptors.readers.Operand.judged>`), as for one half."""
    if not lo and not hi:
        return ()
    lo = lo or single(KnownBits.unknown(32))  # a half no path writes: unknown, not "no value"
    hi = hi or single(KnownBits.unknown(32))
    if len(lo) > 1 and len(hi) > 1 and not (_one_written(lo) and _one_written(hi)):
        lo_kb, hi_kb = meet(lo), meet(hi)
        assert lo_kb is not None and hi_kb is not None
        origin = hi[0].origin if len({a.origin for a in hi}) == 1 else None
        assumes = next((a.assumes for a in (*lo, *hi) if a.assumes), None)
        return single(KnownBits.concat(lo_kb, hi_kb), origin, assumes)
    out = []
    for a in lo:
        for b in hi:
            out.append(Alternative(KnownBits.concat(a.bits, b.bits), b.origin or a.origin,
                                   a.assumes or b.assumes, False, a.skipped or b.skipped))
    return join(out)


def _one_written(values: ValueSet) -> bool:
    """One alternative written, the others left where a predicated write did not happen."""
    written = 0
    for a in values:
        written += not a.skipped
    return written == 1 and len(values) > 1


def _operand(text: str, col: int, role: str, off: str | None, sets: list[ValueSet],
             memory: bool) -> Operand:
    vs = sets[0] if len(sets) == 1 else _pair_value(sets[0], sets[1])
    if off is not None and vs:
        o = immediate(off.lstrip("-"))
        if o is None:
            vs = single(KnownBits.unknown(32))
        else:
            o = -o if off.startswith("-") else o
            vs = tuple(Alternative(a.bits + KnownBits.const(o, 32), a.origin, a.assumes,
                                   False, a.skipped) for a in vs)
    if not vs:  # written on no path that reaches here
        width = 64 if len(sets) == 2 else 32
        return Operand(text, col, KnownBits.unknown(width), None, memory)
    kb = meet(vs)
    origin = vs[0].origin if len({a.origin for a in vs}) == 1 else None
    assumes = next((a.assumes for a in vs if a.assumes), None)
    return Operand(text, col, kb, origin, memory, assumes if role == "gdesc" else None,
                   vs if len(vs) > 1 else ())


def with_values(ins: Ins, site: MmaSite | None, uses: list, arch: str | None,
                name: str | None, arch_reason: str | None) -> Instruction:
    """The instruction with the values of the operands its site judges (``uses``: each
    operand's value set per register it reads)."""
    ops: list[Operand] = [Operand(t, c) for t, c in ins.ops]
    for k, text, role, off, sets in uses:
        if k == len(ops):  # a wgmma's B descriptor, named after the gdesc operand
            ops.append(_operand(text, ins.ops[k - 1][1] if k else ins.col, role, off, sets,
                                True))
            continue
        ops[k] = _operand(text, ins.ops[k][1], role, off, sets, _MEM.match(text) is not None)
    return Instruction("sass", ins.line, ins.col, ins.op, tuple(ops), ins.text, arch, name,
                       arch_reason=arch_reason, site=site)

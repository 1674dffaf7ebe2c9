"""One SASS instruction line at a time: its guard, opcode and operands (:func:`instruction`),
its operands with the values a debugger reads from the registers (:func:`read_live`,
:func:`register_word`), and a wgmma's descriptor operands (:func:`wgmma_operands`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from .. import Instruction, Operand
from ...words.literals import register_value
from ..knownbits import KnownBits
from ..values import ValueSet, single
from ...isa.sass import WgmmaDescriptor, wgmma_descriptors
from .lex import line_items
from .operands import ZERO_SET, site_operands, with_values

if TYPE_CHECKING:
    from .lex import Ins


def register_word(name: str, value: int) -> int:
    """The 32-bit word a register holds, from its value as a debugger gives it: ``0 ..
    2**32 - 1``, or a negative value down to ``-2**31`` (a signed reading, two's complement).
    Raises :class:`~descriptors.errors.ParameterError` for anything else (never masked)."""
    return register_value(value, f"${name}")


def read_live(text: str, values: Mapping[str, int | None], *,
              arch: str | None = None) -> Instruction | None:
    """One SASS instruction (a listing line, or cuda-gdb's ``x/i`` dialect without ``;``) with
    the values its registers hold (``values``: register name -> 32-bit value, ``None`` or
    absent for one that could not be read), as a debugger sees them at that instruction:
    the operands its site judges get those values (register pairs joined, low word first;
    ``tmem[UR4+0x10]`` offsets added), each with the origin ``(0, "$UR4")`` -- line 0: no
    listing line, the register's live value.  ``None`` for a line that is no tcgen05 or wgmma
    instruction.  Column numbers count in ``text`` as given (stripped).  Raises
    :class:`~descriptors.errors.ParameterError` for a value no 32-bit register holds
    (:func:`register_word`)."""
    body = text.strip().rstrip(";").strip()
    for kind, item in line_items([f"{body} ;"]):
        if kind != "ins":
            continue
        ins: Ins = item  # type: ignore[assignment]
        site, uses = site_operands(ins)
        if site is None:
            return None

        def live(reg: str) -> ValueSet:
            if reg in ("RZ", "URZ"):
                return ZERO_SET
            v = values.get(reg)
            return () if v is None else single(KnownBits.const(register_word(reg, v), 32),
                                               (0, f"${reg}"))
        return with_values(ins, site, [(k, t, role, off, [live(r) for r in regs])
                                       for k, t, role, off, regs in uses], arch, None, None)
    return None



def instruction(line: str) -> tuple[str | None, str, tuple[str, ...]] | None:
    """``(guard, opcode, operand texts)`` of one SASS instruction line -- a listing's, or
    cuda-gdb's ``x/i`` dialect without spaces or ``;`` (``HGMMA.64x64x16.F32
    R24,gdesc[UR4],RZ,!UPT,gsb0``) -- read as :func:`read_sass` reads it; ``None`` for a
    line that is no instruction."""
    for kind, item in line_items([line]):
        if kind == "ins":
            return item.pred, item.op, tuple(t for t, _c in item.ops)  # type: ignore[union-attr]
    return None


def wgmma_operands(ins: Instruction) -> tuple[tuple[WgmmaDescriptor, Operand], ...]:
    """The descriptors a wgmma instruction that :func:`read_sass` read takes, each with its
    operand: A's is the ``gdesc[URn]`` operand (the pair URn:URn+1, absent when A comes from
    registers), B's the operand the reader appends after the written ones (URn+2:URn+3, text
    ``gdesc[URn].B``).  What ``lint`` judges and ``dump`` names; ``()`` for another opcode."""
    descs = wgmma_descriptors(ins.opcode, [o.text for o in ins.operands])
    if not descs:
        return ()
    gdesc = [o for o in ins.operands if o.text.startswith("gdesc[") and o.value is not None]
    return tuple(zip(descs, gdesc[-len(descs):]))

"""The K-step rule, one place for both readers: how a K loop steps a shared memory descriptor.

A kernel's K loop moves A's and B's descriptors along K by adding the step in 16-byte units to
the start address (``add.s64 %rd34, %rd34, 2`` in PTX; ``UIADD3 UR4, UP0, UPT, UR4, 0x2, URZ``
and ``UIADD3.X UR5, ...`` or ``UIADD3.64`` in SASS).  The readers follow a register so
stepped by keeping the bits above the start address -- leading byte offset, stride byte
offset, the fixed constant, base offset, swizzle -- from its one other definition, assuming
the add does not carry out of the 14-bit start address (PTX ISA 9.7.16.4.1, Table 40: the
start address is ``(addr & 0x3FFFF) >> 4``; a carry would change the leading byte offset,
which no correct kernel does).  The operand says so in ``assumes``
(:data:`K_STEP_ASSUMPTION`).  How each dialect spells the add is the reader's
(:func:`descriptors.readers.ptx.read_ptx`, :func:`descriptors.readers.sass.read_sass`).
"""

from __future__ import annotations

from ..words.layouts import SMEM
from .knownbits import KnownBits

__all__ = ["K_STEP_BITS", "K_STEP_MAX", "K_STEP_ASSUMPTION", "is_k_step", "k_stepped"]

#: Bits a K step may change in a shared memory descriptor: the start address and the unused
#: bits above it, up to the leading byte offset (Table 40, from descriptors.words.layouts).
K_STEP_BITS = SMEM.by_name["leading_byte_offset"].lsb
#: A K step is smaller than the start address field's range (16-byte units).
K_STEP_MAX = SMEM.by_name["start_address"].max + 1
K_STEP_ASSUMPTION = (f"assuming K-step adds do not carry out of the "
                     f"{SMEM.by_name['start_address'].width}-bit start address (Table 40)")
_LOW = (1 << K_STEP_BITS) - 1


def is_k_step(imm: int | None) -> bool:
    """An immediate a K step may add or subtract: 0 < |imm| < :data:`K_STEP_MAX`."""
    return imm is not None and 0 < abs(imm) < K_STEP_MAX


def k_stepped(kb: KnownBits) -> KnownBits:
    """What a descriptor's bits are after any number of K steps: those below
    :data:`K_STEP_BITS` unknown, the rest kept."""
    return KnownBits(kb.width, kb.zero & ~_LOW, kb.one & ~_LOW)

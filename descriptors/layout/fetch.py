"""Which shared-memory bytes a matrix descriptor makes the tensor core read: the operand-fetch
model behind "does this word read this layout".

:func:`read_address` gives the absolute shared-memory byte address an MMA reads for element
``(row, k)`` of an operand whose descriptor is ``word`` -- ``row`` the M (operand A) or N
(operand B) index, ``k`` the K index, both within one MMA's K slice of 32 bytes -- from the
word's fields alone.  The model (PTX ISA 9.7.15.5.1 for wgmma, 9.7.16.3.3 for tcgen05's
canonical layouts; ``e`` the element's bytes in shared memory, ``S`` the swizzle row width):

==============================  ==================================================================
K-major, no swizzle             ``start + (row % 8) * 16 + (row // 8) * SBO + (kb // 16) * LBO +
                                kb % 16``, with ``kb = k * e``: LBO between core matrices along
                                K, SBO between 8-row groups
K-major, swizzled               ``start + (row % 8) * S + (row // 8) * SBO + kb``: LBO is not read
MN-major, no swizzle            ``start + (k % 8) * 16 + (k // 8) * LBO + (mb // 16) * SBO +
                                mb % 16``, with ``mb = row * e``: LBO along K, SBO along M/N
MN-major, swizzled              ``start + (k % 8) * S + (k // 8) * SBO + (mb // S) * LBO +
                                mb % S``: LBO between swizzle atoms along M/N, SBO between 8-deep
                                K groups
==============================  ==================================================================

then, when swizzled with CuTe's ``Swizzle<B, M, S>`` (:data:`descriptors.words.swizzles.
SWIZZLE_MODES`), address bits ``[M, M+B)`` are XOR-ed with
``((address >> (M + S)) - base_offset) mod 2**B``: the pattern is computed on the absolute
address, and the base offset shifts its phase back.

For the **wgmma** descriptor (sm_90a) every term, every swizzle, both majors, every base offset
and each unused bit (ignored) was measured on an H100: 192 words, 235,520 elements read back
exactly as the model says (``fixtures/hopper/hardware``, ``tests/test_fetch_model.py``).  For
tcgen05's ``smem`` descriptor the same model is the PTX text's canonical layouts (9.7.16.3.3),
not measured on hardware (no sm_100 machine): ``measured`` says which.  tcgen05's
``128B_base32B`` swizzle and the absolute leading-dimension mode are not modelled
(:class:`~descriptors.errors.LayoutError`), nor is anything not in the table above.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import LayoutError, ParameterError
from ..words.codec import decode
from ..words.swizzles import SWIZZLE_MODES

__all__ = ["FetchModel", "fetch_model", "read_address"]

#: The descriptors whose fetch model was measured on hardware (see the module docstring).
MEASURED = ("wgmma",)


@dataclass(frozen=True)
class FetchModel:
    """The fields of a descriptor word that decide what is read, in bytes."""

    descriptor: str          # "wgmma" or "smem"
    start: int               # start address, bytes
    lbo: int                 # leading dimension byte offset, bytes
    sbo: int                 # stride dimension byte offset, bytes
    swizzle: str             # none, 128B, 64B, 32B
    base_offset: int

    @property
    def measured(self) -> bool:
        """True when this model was checked against hardware read maps (wgmma on an H100)."""
        return self.descriptor in MEASURED

    def address(self, row: int, k: int, *, element_bytes: int, major: str) -> int:
        """The absolute shared-memory byte address read for element ``(row, k)``."""
        mode = SWIZZLE_MODES[self.swizzle]
        swizzled = mode.repeat_bytes is not None
        S = mode.row_bytes
        if major == "K":
            kb = k * element_bytes
            if not swizzled:
                a = self.start + (row % 8) * 16 + (row // 8) * self.sbo + (kb // 16) * self.lbo \
                    + kb % 16
            else:
                a = self.start + (row % 8) * S + (row // 8) * self.sbo + kb
        elif major == "MN":
            mb = row * element_bytes
            if not swizzled:
                a = self.start + (k % 8) * 16 + (k // 8) * self.lbo + (mb // 16) * self.sbo \
                    + mb % 16
            else:
                a = self.start + (k % 8) * S + (k // 8) * self.sbo + (mb // S) * self.lbo + mb % S
        else:
            raise ParameterError(f"major={major!r}: allowed K or MN")
        if swizzled:
            b, m, s = mode.functor
            phase = ((a >> (m + s)) - self.base_offset) % (1 << b)
            a ^= phase << m
        return a


def fetch_model(word: Any, descriptor: str = "wgmma") -> FetchModel:
    """The :class:`FetchModel` of a ``wgmma`` (sm_90a) or ``smem`` (tcgen05) descriptor word.
    Raises :class:`LayoutError` for what the model does not cover (tcgen05's ``128B_base32B``
    and absolute leading-dimension mode, an invalid swizzle code)."""
    if descriptor not in ("wgmma", "smem"):
        raise ParameterError(f"descriptor={descriptor!r}: the fetch model reads a wgmma or smem word")
    d = decode(descriptor, word)
    v = d.values
    source = "9.7.15.5.1" if descriptor == "wgmma" else "9.7.16.3.3"
    if v["swizzle"] is None:
        raise LayoutError(f"swizzle code {d.fields['swizzle']} is invalid: nothing to model", source)
    if v["swizzle"] == "128B_base32B":
        raise LayoutError("128B swizzling with 32B atomicity is not in the fetch model (its "
                          "pattern was never measured)", source)
    if v.get("lbo_mode", "relative") != "relative":
        raise LayoutError("the absolute leading-dimension address mode is not in the fetch model",
                          "9.7.16.3.1.2")
    return FetchModel(descriptor, v["start_address_bytes"], v["leading_byte_offset_bytes"],
                      v["stride_byte_offset_bytes"], v["swizzle"], v["base_offset"])


def read_address(word: Any, row: int, k: int, *, element_bytes: int, major: str,
                 descriptor: str = "wgmma") -> int:
    """The absolute shared-memory byte address an MMA reads for element ``(row, k)`` of the
    operand ``word`` describes (see the module docstring for the model and what was measured).
    ``element_bytes``: 1, 2 or 4; ``major``: ``K`` or ``MN``."""
    if element_bytes not in (1, 2, 4):
        raise ParameterError(f"element_bytes={element_bytes!r}: allowed 1, 2 or 4")
    return fetch_model(word, descriptor).address(row, k, element_bytes=element_bytes,
                                                 major=major)

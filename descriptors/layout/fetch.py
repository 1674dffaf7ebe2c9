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
exactly as the model says (``fixtures/hopper/hardware``, ``tests/oracles/test_fetch_model.py``).  For
tcgen05's ``smem`` descriptor the same model is the PTX text's canonical layouts (9.7.16.3.3),
not measured on hardware (no sm_100 machine): ``measured`` says which.  tcgen05's
``128B_base32B`` swizzle and the absolute leading-dimension mode are not modelled
(:class:`~descriptors.errors.LayoutError`), nor is anything not in the table above.
"""

from __future__ import annotations

from typing import Any

from ..structs import Struct
from ..errors import LayoutError, ParameterError
from ..words.codec import decode
from ..words.swizzles import SWIZZLE_MODES

__all__ = ["FetchModel", "LayoutCheck", "fetch_model", "read_address", "check_layout"]

#: The descriptors whose fetch model was measured on hardware (see the module docstring).
MEASURED = ("wgmma",)


def _core_matrix_offset(line: int, byte: int, lines_stride: int, bytes_stride: int) -> int:
    """Byte offset, without swizzling, of byte ``byte`` of line ``line``: core matrices of 8
    lines of 16 bytes, ``lines_stride`` bytes between those of the next 8 lines and
    ``bytes_stride`` bytes between those of the next 16 bytes (K-major: lines are rows, SBO and
    LBO; MN-major: lines are K, LBO and SBO; PTX ISA 9.7.15.5.1)."""
    return (line % 8) * 16 + (line // 8) * lines_stride + (byte // 16) * bytes_stride + byte % 16


class FetchModel(Struct, frozen=True):
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
                a = self.start + _core_matrix_offset(row, kb, self.sbo, self.lbo)
            else:
                a = self.start + (row % 8) * S + (row // 8) * self.sbo + kb
        elif major == "MN":
            mb = row * element_bytes
            if not swizzled:
                a = self.start + _core_matrix_offset(k, mb, self.lbo, self.sbo)
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


# ---------------------------------------------------------------------------- word vs layout


class LayoutCheck(Struct, frozen=True):
    """The answer to "does this word read this layout": ``ok``, the elements compared
    (``rows`` x ``k``: one MMA's 32 bytes of K), whether the model was measured on hardware,
    and the first element read from the wrong place (``row``, ``k``, the byte address the
    layout puts it at, the one the word reads), ``None`` when every element matches."""

    ok: bool
    rows: int
    k: int
    measured: bool
    mismatch: tuple[int, int, int, int] | None = None
    notes: tuple[str, ...] = ()

    def message(self) -> str:
        what = f"{self.rows} x {self.k} elements (one MMA's 32 bytes of K)"
        if self.ok:
            return f"the word reads exactly the layout's {what}"
        row, k, want, got = self.mismatch  # type: ignore[misc]
        return (f"element (row {row}, k {k}) is at byte {want:#x} in the layout, but the word "
                f"reads byte {got:#x} (compared {what})")


def check_layout(word: Any, layout: Any, *, major: str | None = None, dtype: str | None = None,
                 descriptor: str = "wgmma", start_address: Any = None,
                 kind: str | None = None) -> LayoutCheck:
    """Does ``word`` make the tensor core read exactly ``layout``'s elements for one MMA (32
    bytes of K)?  ``layout`` is a CuTe print (C++ or DSL; :func:`descriptors.layout.cute.
    parse_layout`) of the operand slice ``(M/N, K)`` (or a partitioned tensor, mode 0 taken);
    the layout's byte address of element ``(row, k)`` -- its pointer or ``start_address``, its
    swizzle on absolute addresses (pointer) or on the offset from its origin (composed) -- is
    compared with :func:`read_address` of the word, row by row.  Raises
    :class:`LayoutError` / :class:`ParameterError` for a layout or word the model does not
    cover (packed 4-bit elements, 128B_base32B, the absolute LBO mode).  ``major`` and
    ``dtype`` may be omitted where the print says them, and a ``major`` the layout contradicts
    is refused (:func:`~descriptors.layout.cute_layout.resolve_major`, ``width_dtype``); the
    notes say what was taken from the print.  Packed sub-byte K-major elements (wgmma ``.b1``)
    are compared a byte at a time.

    (Long: read the print, bring packed elements to bytes, then compare element by element,
    each step refusing with its own reason.)"""
    from .cute import CuteLayout, offsets, parse_layout
    from .cute_layout import byte_functor, mma_slice, print_operand, slice_start

    model = fetch_model(word, descriptor)
    lay = layout if isinstance(layout, CuteLayout) else parse_layout(layout)
    maj, el, inferred = print_operand(lay, major, dtype, kind)
    # packed sub-byte elements of a wgmma word (.b1) are compared a byte at a time: K-major,
    # each byte holds `per` consecutive K elements (tcgen05's packed 4/6-bit types are not in
    # the measured model: refused)
    per = 8 // el.smem_bits if el.smem_bits < 8 else 1
    if not el.kinds and descriptor != "wgmma":
        raise LayoutError(f"{el.name} is an A/B type of wgmma only (no tcgen05.mma kind reads "
                          "it): check a wgmma word (--arch sm_90a)", "9.7.15")
    if el.smem_bits % 8 and (maj != "K" or 8 % el.smem_bits or descriptor != "wgmma"):
        raise LayoutError(f"{el.name} packed {el.smem_bits}-bit elements are not in the fetch "
                          "model", "9.7.16.3.3")
    e = max(el.smem_bits // 8, 1)
    start, notes = slice_start(lay, el, start_address)
    notes = inferred + notes
    ms, md, ks, kd, _steps, slice_notes = mma_slice(lay)
    mn, kk = offsets(ms, md), offsets(ks, kd)
    if per > 1:
        if any(o % per for o in mn) or len(kk) % per or any(
                kk[j] != kk[j - j % per] + j % per or kk[j - j % per] % per
                for j in range(len(kk))):
            raise LayoutError(f"{el.name}: K is not whole bytes of {per} consecutive elements",
                              "9.7.16.3.3")
        mn, kk = [o // per for o in mn], [o // per for o in kk[::per]]
    k_per_mma = 32 // e
    if len(kk) < k_per_mma:
        raise LayoutError(f"the layout has {len(kk)} elements of K: one MMA reads 32 bytes "
                          f"({k_per_mma} {el.name})", "9.7.15.5.1" if descriptor == "wgmma"
                          else "9.7.16.3.3")
    kk = kk[:k_per_mma]
    sw = lay.swizzle
    functor = byte_functor(sw, el, lay.swizzle_on or "offset") if sw is not None else None

    def swizzled(b: int, origin: int) -> int:
        if functor is None or functor[0] == 0:
            return b
        bb, m, s = functor
        rel = b - origin
        return origin + (rel ^ (((rel >> (m + s)) & ((1 << bb) - 1)) << m))

    for i, o_mn in enumerate(mn):
        for j, o_k in enumerate(kk):
            o = o_mn + o_k
            if sw is not None and lay.swizzle_on == "offset":
                # composed: the pattern starts at the layout's origin (start), the composed
                # offset is inside it (as cute_layout_descriptor reads it)
                want = swizzled(start + (lay.offset // per + o) * e, start)
            elif sw is not None and lay.swizzle_on == "address":
                want = swizzled(start + o * e, 0)
            else:  # no swizzle, or the PTX notation (pattern at the start address)
                want = swizzled(start + o * e, start)
            got = model.address(i, j, element_bytes=e, major=maj)
            if got != want:
                return LayoutCheck(False, len(mn), len(kk) * per, model.measured,
                                   (i, j * per, want, got), tuple(notes + slice_notes))
    return LayoutCheck(True, len(mn), len(kk) * per, model.measured, None,
                       tuple(notes + slice_notes))

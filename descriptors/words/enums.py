"""Enumerated field values: explicit codes with a description each, and the per-kind tables.

Names are PTX's (``f16``, ``bf16``, ``tf32``, ``e4m3`` ...); lookups are case-insensitive and
also accept CUTLASS's spelling where it differs (``SWIZZLE_128B``, ``UE8M0``, ``INT8``).
Bit positions live in :mod:`descriptors.words.layouts` only; this module knows codes, not bits.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from functools import cached_property

from ..structs import Struct
__all__ = [
    "Choice", "EnumTable", "Kind", "KINDS", "WGMMA_ONLY_AB", "SWIZZLE", "SWIZZLE_SM90", "LBO_MODE", "MAJOR", "MAX_SHIFT", "TILE_ORDER",
    "kind_named", "kind_of_type", "kind_hint",
]


class Choice(Struct, frozen=True):
    """One named code of an enumerated field."""

    name: str
    value: int
    description: str
    aliases: tuple[str, ...] = ()


class EnumTable(Struct, frozen=True, dict=True):
    """The codes an enumerated field may hold, with their names and descriptions.

    ``name_by_code``: raw code -> name (``name_by_code.get(code)`` is :meth:`name_of` without
    a Python call); it and the lookups by name and by value are built on first use and kept
    (``cached_property``: not fields, so not compared, not shown)."""

    what: str
    source: str
    choices: tuple[Choice, ...]

    @cached_property
    def _by_key(self) -> dict[str, Choice]:
        """Every name and alias, lower-cased -> its choice."""
        return {key.lower(): c for c in self.choices for key in (c.name, *c.aliases)}

    @cached_property
    def _by_value(self) -> dict[int, Choice]:
        return {c.value: c for c in self.choices}

    @cached_property
    def name_by_code(self) -> dict[int, str]:
        """Raw code -> name."""
        return {c.value: c.name for c in self.choices}

    def __iter__(self) -> Iterator[Choice]:
        return iter(self.choices)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._by_key

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.choices)

    @property
    def values(self) -> tuple[int, ...]:
        return tuple(c.value for c in self.choices)

    def lookup(self, name: str) -> Choice | None:
        """The choice called ``name`` (or one of its aliases), case-insensitively; blanks in
        it do not count (``Swizzle<3, 4, 3>``)."""
        if isinstance(name, str):
            return self._by_key.get(name.lower()) or self._by_key.get(
                "".join(name.split()).lower())
        return None

    def by_value(self, value: int) -> Choice | None:
        return self._by_value.get(value)

    def name_of(self, value: int) -> str | None:
        """The name of raw code ``value``, or ``None`` when the table has no such code."""
        return self.name_by_code.get(value)


def _table(what: str, source: str, *choices: tuple[str, int, str] | tuple[str, int, str, tuple[str, ...]]) -> EnumTable:
    return EnumTable(what, source, tuple(Choice(*c) for c in choices))


# ---------------------------------------------------------------- shared memory descriptor
#: CUTLASS's spellings of the swizzle modes both descriptors share: the ``SW128`` of its layout
#: atoms (``Layout_K_SW128_Atom``), the ``B128`` of ``GMMA::LayoutType``, ``INTERLEAVE`` and the
#: ``cute::Swizzle<B,M,S>`` functor of each mode's atom (16-byte units: M = 4, S = 3), also as
#: CuTe prints it (``Sw<3,4,3>``).
_CUTLASS_SWIZZLE = {
    "none": ("INTERLEAVE", "Swizzle<0,4,3>", "Sw<0,4,3>"),
    "128B": ("SW128", "B128", "Swizzle<3,4,3>", "Sw<3,4,3>"),
    "64B": ("SW64", "B64", "Swizzle<2,4,3>", "Sw<2,4,3>"),
    "32B": ("SW32", "B32", "Swizzle<1,4,3>", "Sw<1,4,3>"),
}

SWIZZLE = _table(
    "swizzle mode", "Table 40",
    ("none", 0, "no swizzling (interleaved)", ("SWIZZLE_NONE", "0", *_CUTLASS_SWIZZLE["none"])),
    ("128B_base32B", 1, "128-byte swizzling with 32-byte atomicity",
     ("SWIZZLE_128B_BASE32B", "128B_32B", "128B_base32")),
    ("128B", 2, "128-byte swizzling (16-byte atomicity), repeats every 1024 B",
     ("SWIZZLE_128B", *_CUTLASS_SWIZZLE["128B"])),
    ("64B", 4, "64-byte swizzling, repeats every 512 B", ("SWIZZLE_64B", *_CUTLASS_SWIZZLE["64B"])),
    ("32B", 6, "32-byte swizzling, repeats every 256 B", ("SWIZZLE_32B", *_CUTLASS_SWIZZLE["32B"])),
)

#: The 2-bit swizzle ("layout type") field of the sm_90 wgmma matrix descriptor (PTX ISA
#: 9.7.15.5.1; CUTLASS ``GMMA::LayoutType``): the same modes as Table 40's, other codes.
SWIZZLE_SM90 = _table(
    "wgmma swizzle mode", "PTX ISA 9.7.15.5.1",
    ("none", 0, "no swizzling (interleaved 8 x 16-byte core matrices)",
     ("0", *_CUTLASS_SWIZZLE["none"])),
    ("128B", 1, "128-byte swizzling, repeats every 1024 B",
     ("SWIZZLE_128B", *_CUTLASS_SWIZZLE["128B"])),
    ("64B", 2, "64-byte swizzling, repeats every 512 B", ("SWIZZLE_64B", *_CUTLASS_SWIZZLE["64B"])),
    ("32B", 3, "32-byte swizzling, repeats every 256 B", ("SWIZZLE_32B", *_CUTLASS_SWIZZLE["32B"])),
)

LBO_MODE = _table(
    "leading dimension stride mode", "Table 40",
    ("relative", 0, "leading_byte_offset is a byte offset relative to the start address",
     ("offset", "0")),
    ("absolute", 1, "leading_byte_offset is an absolute shared-memory byte address (sm_103a)",
     ("address", "1")),
)

#: How a shared-memory tile stacks its swizzle atoms: the order CuTe's ``tile_to_shape(atom,
#: shape, order)`` fills the tile in.  CUTLASS's collectives use MN-first (Step<_1,_2,_3>) for
#: K-major operands and K-first (Step<_2,_1,_3>) for MN-major ones (cute/atom/mma_traits_sm100.hpp
#: and the sm100 collective builders); the descriptor's LBO and SBO differ between the two.
TILE_ORDER = _table(
    "tile order", "CuTe tile_to_shape",
    ("mn_first", 0, "atoms stacked along M/N first, then K (CuTe Step<_1,_2>)",
     ("mn-first", "Step<_1,_2>", "Step<_1,_2,_3>", "Step<1,2>", "Step<1,2,3>")),
    ("k_first", 1, "atoms stacked along K first, then M/N (CuTe Step<_2,_1>)",
     ("k-first", "Step<_2,_1>", "Step<_2,_1,_3>", "Step<2,1>", "Step<2,1,3>")),
)

# ---------------------------------------------------------------- instruction descriptor
MAJOR = _table(
    "major-ness (transpose bit)", "Table 42",
    ("K", 0, "K-major (not transposed)", ("k-major", "0")),
    ("MN", 1, "MN-major (transposed)", ("mn-major", "1")),
)

MAX_SHIFT = _table(
    "maximum B-matrix shift for .ws", "Table 42",
    ("0", 0, "no shift"),
    ("8", 1, "maximum shift of 8 columns"),
    ("16", 2, "maximum shift of 16 columns"),
    ("32", 3, "maximum shift of 32 columns"),
)

_F16_AB = _table("A/B type of kind::f16", "Table 42",
                 ("f16", 0, "IEEE half precision", ("half", "half_t", "Float16")),
                 ("bf16", 1, "bfloat16", ("bfloat16", "bfloat16_t")))
_TF32_AB = _table("A/B type of kind::tf32", "Table 42",
                  ("tf32", 2, "TensorFloat-32 (19-bit in 32-bit container)", ("tfloat32_t", "TFloat32")))
_F8F6F4_AB_CHOICES: tuple[tuple[str, int, str, tuple[str, ...]], ...] = (
    ("e4m3", 0, "FP8 E4M3", ("float_e4m3_t", "f8E4M3FN", "f8E4M3", "Float8E4M3FN")),
    ("e5m2", 1, "FP8 E5M2", ("float_e5m2_t", "f8E5M2", "Float8E5M2")),
    ("e2m3", 3, "FP6 E2M3", ("float_e2m3_t", "f6E2M3FN", "Float6E2M3FN")),
    ("e3m2", 4, "FP6 E3M2", ("float_e3m2_t", "f6E3M2FN", "Float6E3M2FN")),
    ("e2m1", 5, "FP4 E2M1", ("float_e2m1_t", "f4E2M1FN", "Float4E2M1FN")),
)
_F8F6F4_AB = _table("A/B type of kind::f8f6f4", "Table 42", *_F8F6F4_AB_CHOICES)
_MXF8F6F4_AB = _table("A/B type of kind::mxf8f6f4", "Table 43", *_F8F6F4_AB_CHOICES)
_I8_AB = _table("A/B type of kind::i8", "Table 42",
                ("u8", 0, "unsigned 8-bit integer", ("uint8", "uint8_t")),
                ("s8", 1, "signed 8-bit integer", ("int8", "int8_t", "i8")))
_MXF4_AB = _table("A/B type of kind::mxf4 / kind::mxf4nvf4", "Table 44",
                  ("e2m1", 1, "FP4 E2M1", ("float_e2m1_t", "f4E2M1FN", "Float4E2M1FN")))

#: A/B types only Hopper's wgmma reads (no tcgen05.mma kind takes them): the single-bit
#: operand of ``wgmma.mma_async ... .b1 .and.popc`` (m64nNk256, K-major only; PTX ISA 9.7.15,
#: CUTLASS ``cute::uint1b_t``).
WGMMA_ONLY_AB = _table("A/B type of wgmma only (sm_90a)", "PTX ISA 9.7.15",
                       ("b1", 0, "single bit (.and.popc)", ("uint1b_t", "bin1_t")))

_D_F32 = _table("D type of kind::tf32", "Table 42", ("f32", 1, "32-bit float accumulator", ("float", "Float32")))
_D_F16_F32 = _table("D type of kind::f16 / kind::f8f6f4", "Table 42",
                    ("f16", 0, "half-precision accumulator", ("half",)),
                    ("f32", 1, "32-bit float accumulator", ("float", "Float32")))
_D_S32 = _table("D type of kind::i8", "Table 42", ("s32", 2, "32-bit integer accumulator", ("int32", "i32")))

_SCALE_UE8M0 = _table("scale-factor type", "Table 43",
                      ("ue8m0", 1, "unsigned E8M0 scale factors (power of two)", ("e8m0", "f8E8M0FNU")))
_SCALE_MXF4 = _table("scale-factor type of kind::mxf4", "Table 44",
                     ("ue8m0", 1, "unsigned E8M0 scale factors (power of two)", ("e8m0", "f8E8M0FNU")))
_SCALE_NVF4 = _table("scale-factor type of kind::mxf4nvf4", "Table 44",
                     ("ue4m3", 0, "unsigned E4M3 scale factors", ("e4m3", "f8E4M3FN")),
                     ("ue8m0", 1, "unsigned E8M0 scale factors (power of two)", ("e8m0", "f8E8M0FNU")))


class Kind(Struct, frozen=True):
    """One ``.kind`` of ``tcgen05.mma``: its layout and the codes its fields take.

    ``k_dense``/``k_sparse`` are the K the kind implies (PTX Table 39); ``k_alt`` is the
    alternative dense K selectable by the descriptor (96 for mxf4/mxf4nvf4, sm_103a).
    ``d_types`` is ``None`` where the layout has no D-type field (D is always f32).
    """

    name: str
    layout: str
    source: str
    description: str
    ab_types: EnumTable
    d_types: EnumTable | None
    scale_types: EnumTable | None
    k_dense: int
    k_sparse: int
    k_alt: int | None = None

    @property
    def block_scaled(self) -> bool:
        return self.scale_types is not None


KINDS: dict[str, Kind] = {k.name: k for k in (
    Kind("tf32", "idesc", "Table 42", "TF32 inputs, f32 accumulate", _TF32_AB, _D_F32, None, 8, 16),
    Kind("f16", "idesc", "Table 42", "f16/bf16 inputs, f16 or f32 accumulate", _F16_AB,
         _D_F16_F32, None, 16, 32),
    Kind("f8f6f4", "idesc", "Table 42", "FP8/FP6/FP4 inputs, f16 or f32 accumulate", _F8F6F4_AB,
         _D_F16_F32, None, 32, 64),
    Kind("i8", "idesc", "Table 42", "8-bit integer inputs, s32 accumulate", _I8_AB, _D_S32,
         None, 32, 64),
    Kind("mxf8f6f4", "idesc_mxf8f6f4", "Table 43",
         "block-scaled FP8/FP6/FP4 inputs with UE8M0 scales, f32 accumulate", _MXF8F6F4_AB,
         None, _SCALE_UE8M0, 32, 64),
    Kind("mxf4", "idesc_mxf4", "Table 44", "block-scaled FP4 inputs with UE8M0 scales, f32 accumulate",
         _MXF4_AB, None, _SCALE_MXF4, 64, 128, 96),
    Kind("mxf4nvf4", "idesc_mxf4", "Table 44",
         "block-scaled FP4 inputs with UE8M0 or UE4M3 scales, f32 accumulate", _MXF4_AB, None,
         _SCALE_NVF4, 64, 128, 96),
)}


def kind_named(name: object) -> Kind | None:
    """The :class:`Kind` called ``name`` (case-insensitive, ``kind::`` prefix allowed)."""
    if not isinstance(name, str):
        return None
    key = name.strip().lower().lstrip(".")
    if key.startswith("kind::"):
        key = key[6:]
    return KINDS.get(key)


def kind_of_type(name: object) -> tuple[Kind, str] | None:
    """For a name given as a kind that is an A/B element type (``bf16``, ``e4m3``, CUTLASS's
    ``INT8`` ...): the first kind of :data:`KINDS` that takes it (a dense one before a
    block-scaled one) and the type's PTX name; else a kind whose name is close (``fp16`` ->
    f16) with no type; ``None`` when nothing is near.  What a "did you mean" says."""
    if not isinstance(name, str) or not name.strip():
        return None
    key = name.strip().lower().lstrip(".")
    for kind in KINDS.values():
        choice = kind.ab_types.lookup(key)
        if choice is not None:
            return kind, choice.name
    import difflib
    close = difflib.get_close_matches(key, list(KINDS), n=1, cutoff=0.4)
    return (KINDS[close[0]], "") if close else None


def kind_hint(value: Any, kind: str = "kind ", a_type: str = "a_type ") -> str:
    """"; did you mean kind f16 (a_type bf16)?" for a kind that is an A/B type or close to a
    kind's name (:func:`kind_of_type`), else ""; ``kind`` and ``a_type`` spell the two
    names (the command line's ``--kind `` and ``--a-type ``)."""
    near = kind_of_type(value)
    if near is None:
        return ""
    which, type_name = near
    return f"; did you mean {kind}{which.name}" + (
        f" ({a_type}{type_name})?" if type_name else "?")

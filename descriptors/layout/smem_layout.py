"""Shared memory layouts and their descriptors: from (major-ness, swizzle, type, tile) to the
word, back from a word to the layout it implies, and through K the way an MMA loop steps.

(Long: the three directions share the canonical layouts of PTX ISA 9.7.16.4 and the checks
of each combination; splitting them would split those tables from their readers.)

Users think in layouts -- "a 128x64 bf16 tile, K-major, 128B swizzle, at 0x400" -- and most
descriptor bugs are wrong LBO/SBO/base offsets.  This module derives those fields from the
canonical layouts of PTX ISA 9.7.16.3.3 and the swizzle atoms of Table 53:

>>> from descriptors.layout.smem_layout import layout_descriptor
>>> lay = layout_descriptor("K", "128B", "bf16", (128, 64))
>>> lay.hex, lay.T, lay.m, lay.k, lay.sbo_bytes
('0x4000404000010000', 8, 16, 4, 1024)
>>> lay.canonical_layout
'Swizzle<3,4,3> o ((8,16),(8,8)):((64,512),(1,8))'
>>> [s.hex for s in lay.k_steps()][:2]
['0x4000404000010000', '0x4000404000010002']

How a tile is laid out.  The tile is ``rows x K`` elements (rows of M for A, of N for B), built
from swizzle atoms (Table 53) stacked over the tile in a *tile order* -- CuTe's
``tile_to_shape(Layout_<major>_<swizzle>_Atom<T>, (rows, K), order)``: M/N first
(``Step<_1,_2>``, the default; CUTLASS's order for K-major operands and the PTX worked
examples') or K first (``Step<_2,_1>``; CUTLASS's order for MN-major operands).  The order
decides which of LBO and SBO spans one atom and which a whole row or column of atoms; the
CUTLASS oracle (tests/oracles/test_cutlass_layout_oracle.py) checks both.  Layouts given as CuTe prints
are read by :mod:`descriptors.layout.cute_layout`.  Element types are normalised
to 128 bits: ``T = 128 / bits`` elements fill one 16-byte chunk, where ``bits`` is the element's
shared-memory container (9.7.16.10.4): 4- and 6-bit types of ``kind::f8f6f4`` /
``kind::mxf8f6f4`` are padded (16 elements per 16-byte chunk, Figures 202-203; CUTLASS
allocates them as ``uint8_t``), ``e2m1`` of ``kind::mxf4`` / ``kind::mxf4nvf4`` is packed two
per byte (32 per chunk, 9.7.16.10.4.6) -- so ``e2m1`` needs its ``kind``.

Conventions where the PTX text leaves a choice (each one is CUTLASS's):

* LBO of a K-major swizzled layout is "not used, assumed to be 1" (9.7.16.3.1.1):
  ``unused_lbo_bytes=16`` writes raw 1 (CUTLASS), ``0`` writes 0 (DeepGEMM).
* A stride whose mode repeats once (m = 1 or k = 1: one 8-row group, one M/N atom, one K
  group) is never followed by the MMA; it is written 0, as CUTLASS's ``make_umma_desc`` does.
* Base offset (Table 41): 0 when the tile starts on its swizzle's repeat boundary, else
  ``(start >> 7) & 7``; a swizzled tile must start on a 128-byte boundary.  ``128B_base32B``
  repeats, like 128B, every 1024 bytes (Table 41 lists only the 16-byte-atomicity modes).

Every error is a :class:`~descriptors.errors.DescgenError`: a layout the PTX text does not
allow raises :class:`LayoutError` (with its ``source``); a K step that would carry out of the
14-bit start address raises :class:`KStepCarryError`; malformed parameters raise
:class:`~descriptors.errors.ParameterError`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..structs import Struct, replace
from ..words.codec import decode, encode, format_word, parse_int
from .cute import format_tuple
from ..words.enums import KINDS, MAJOR, SWIZZLE, TILE_ORDER, WGMMA_ONLY_AB, Kind, kind_named
from ..errors import LayoutError, ParameterError
from ..words.layouts import SMEM
from ..words.swizzles import SWIZZLE_MODES, SwizzleMode

__all__ = [
    "LayoutError", "KStepCarryError", "ElementType", "SwizzleAtom", "SmemLayout", "KStep",
    "DescriptorLayout", "element_type", "swizzle_atom", "layout_descriptor", "explain_descriptor",
    "k_steps", "advance_descriptor", "DTYPES", "CANONICAL_FORMS",
    "CANONICAL_SOURCE", "UNIT_BYTES", "ROW_ALIGN_BYTES", "WINDOW_BYTES", "canonical_dtype",
    "parse_kind", "parse_major", "parse_swizzle", "parse_tile", "check_combination", "fill_form",
    "k_per_mma",
]


class KStepCarryError(LayoutError):
    """Advancing a descriptor through K would carry out of its 14-bit start address field."""


# ---------------------------------------------------------------------------- constants

_START = SMEM.by_name["start_address"]
#: Bytes of one unit of the descriptor's addresses and offsets: matrix-descriptor-encode drops
#: 4 bits (Table 40).
UNIT_BYTES = 16
_CHUNK_BITS = 128         # canonical layouts normalise element types to 128 bits (9.7.16.3.3)
#: The shared-memory window a descriptor address can name: (x & 0x3FFFF) >> 4 (Table 40).
WINDOW_BYTES = (_START.max + 1) * UNIT_BYTES
#: Bytes between the starts of the swizzle pattern's rows: base offset = (pattern start >> 7) & 7
#: (Table 40).
ROW_ALIGN_BYTES = 128


#: The canonical layouts of 9.7.16.3.3 (element units; T = 128 / bits).  The PTX table has no
#: row for 128B_base32B: its form follows from Table 53's 8x4 atom (K rows 128 bytes = 8T
#: apart) and CUTLASS's Layout_MN_SW128_32B_Atom.
CANONICAL_FORMS: dict[tuple[str, str], str] = {
    ("MN", "none"): "((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))",
    ("MN", "32B"): "((T,2,m),(8,k)):((1,T,LBO),(2T,SBO))",
    ("MN", "64B"): "((T,4,m),(8,k)):((1,T,LBO),(4T,SBO))",
    ("MN", "128B"): "((T,8,m),(8,k)):((1,T,LBO),(8T,SBO))",
    ("MN", "128B_base32B"): "((T,8,m),(4,k)):((1,T,LBO),(8T,SBO))",
    ("K", "none"): "((8,m),(T,2k)):((1T,SBO),(1,LBO))",
    ("K", "32B"): "((8,m),(T,2k)):((2T,SBO),(1,T))",
    ("K", "64B"): "((8,m),(T,2k)):((4T,SBO),(1,T))",
    ("K", "128B"): "((8,m),(T,2k)):((8T,SBO),(1,T))",
}

#: The PTX ISA section of the canonical layouts, cited by every layout error about them.
CANONICAL_SOURCE = "9.7.16.3.3"


# ---------------------------------------------------------------------------- element types


class ElementType(Struct, frozen=True):
    """An A/B element type as it sits in shared memory.

    ``bits`` is the value's width, ``smem_bits`` what one element occupies in shared memory
    (its container), ``T`` the elements per 16-byte chunk (128 / smem_bits), ``kinds`` the MMA
    kinds that read this packing, ``packing`` a description with its PTX source.
    """

    name: str
    bits: int
    smem_bits: int
    kinds: tuple[str, ...]
    packing: str

    @property
    def T(self) -> int:  # noqa: N802 - the PTX's name
        return _CHUNK_BITS // self.smem_bits

    def bytes_of(self, elements: int) -> int:
        """Bytes that ``elements`` elements occupy (a whole number by construction of the tile
        checks: elements are counted in 16-byte chunks)."""
        return elements * self.smem_bits // 8


_PADDED = ("f8f6f4", "mxf8f6f4")
#: Every A/B type with its shared-memory packing(s), by PTX name.
DTYPES: dict[str, tuple[ElementType, ...]] = {
    "tf32": (ElementType("tf32", 32, 32, ("tf32",), "32-bit container (19 significant bits)"),),
    "f16": (ElementType("f16", 16, 16, ("f16",), "16-bit"),),
    "bf16": (ElementType("bf16", 16, 16, ("f16",), "16-bit"),),
    "e4m3": (ElementType("e4m3", 8, 8, _PADDED, "8-bit"),),
    "e5m2": (ElementType("e5m2", 8, 8, _PADDED, "8-bit"),),
    "s8": (ElementType("s8", 8, 8, ("i8",), "8-bit"),),
    "u8": (ElementType("u8", 8, 8, ("i8",), "8-bit"),),
    "e2m3": (ElementType("e2m3", 6, 8, _PADDED, "6-bit, padded: 16 elements per 16-byte chunk "
                         "(9.7.16.10.4.4, Figure 203)"),),
    "e3m2": (ElementType("e3m2", 6, 8, _PADDED, "6-bit, padded: 16 elements per 16-byte chunk "
                         "(9.7.16.10.4.4, Figure 203)"),),
    "e2m1": (
        ElementType("e2m1", 4, 8, _PADDED, "4-bit, padded: 16 elements per 16-byte chunk "
                    "(9.7.16.10.4.4, Figure 202)"),
        ElementType("e2m1", 4, 4, ("mxf4", "mxf4nvf4"), "4-bit, packed two per byte with no "
                    "padding: 32 elements per 16-byte chunk (9.7.16.10.4.6)"),
    ),
    # no tcgen05.mma kind: wgmma's .b1 (sm_90a), K-major, K=256 per MMA
    "b1": (ElementType("b1", 1, 1, (), "1-bit, packed eight per byte: 128 elements per 16-byte "
                       "chunk, 1024 per 128-byte swizzled row (wgmma .b1, PTX ISA 9.7.15)"),),
}
#: K of one wgmma of a type no tcgen05.mma kind reads (PTX ISA 9.7.15: .b1 is m64nNk256).
WGMMA_ONLY_K = {"b1": 256}


def canonical_dtype(name: Any) -> str:
    """The PTX name of an A/B element type (CUTLASS's spellings accepted: ``float_e4m3_t``);
    raises :class:`ParameterError` naming the types for anything else."""
    if isinstance(name, str):
        for kind in KINDS.values():
            choice = kind.ab_types.lookup(name.strip())
            if choice is not None:
                return choice.name
        choice = WGMMA_ONLY_AB.lookup(name.strip())
        if choice is not None:
            return choice.name
    raise ParameterError(f"dtype {name!r} is not an A/B element type; types: " + ", ".join(DTYPES))


def parse_kind(name: Any) -> Kind:
    """The MMA kind named ``name`` (PTX ``kind::`` name, Table 39); raises
    :class:`ParameterError` naming the kinds for anything else."""
    kind = kind_named(name)
    if kind is None:
        raise ParameterError(f"unknown kind {name!r}; kinds: " + ", ".join(KINDS))
    return kind


def element_type(dtype: str, kind: str | None = None) -> ElementType:
    """The shared-memory form of ``dtype`` (PTX name; CUTLASS's spellings accepted).  ``kind``
    chooses the packing where kinds differ (``e2m1``) and must be a kind that takes the type."""
    name = canonical_dtype(dtype)
    options = DTYPES[name]
    if kind is not None:
        k = parse_kind(kind)
        for el in options:
            if k.name in el.kinds:
                return el
        takes = sorted({kk for el in options for kk in el.kinds})
        raise ParameterError(f"{name} is not an A/B type of kind::{k.name}; kinds taking {name}: "
                             + ", ".join(takes))
    if len(options) > 1:
        raise ParameterError(
            f"{name} has two shared-memory packings: " + "; ".join(
                f"kind::{'/'.join(el.kinds)} {el.packing}" for el in options)
            + " -- pass kind= to choose")
    return options[0]


def parse_major(value: Any) -> str:
    """``"K"`` or ``"MN"`` from a major-ness as a call or option gives it (any case;
    ``K-major``, ``MN-major``, ``0``, ``1`` too); raises :class:`ParameterError` for anything else."""
    choice = MAJOR.lookup(value) if isinstance(value, str) else None
    if choice is None:
        raise ParameterError(f"major={value!r}: allowed K or MN")
    return choice.name


def _tile_order(value: Any) -> str:
    choice = TILE_ORDER.lookup("".join(value.split())) if isinstance(value, str) else None
    if choice is None:
        raise ParameterError(f"tile_order={value!r}: allowed mn_first (CuTe Step<_1,_2>) or "
                             "k_first (Step<_2,_1>)")
    return choice.name


def parse_swizzle(value: Any) -> SwizzleMode:
    """The :class:`SwizzleMode` of a swizzle name (Table 40: none, 128B_base32B, 128B, 64B, 32B;
    any case, CUTLASS's ``SWIZZLE_128B`` ... too); raises :class:`ParameterError` for anything
    else."""
    choice = SWIZZLE.lookup(value) if isinstance(value, str) else None
    if choice is None:
        raise ParameterError(f"swizzle={value!r}: allowed " + ", ".join(SWIZZLE.names))
    return SWIZZLE_MODES[choice.name]


def check_combination(major: str, mode: SwizzleMode, el: ElementType) -> None:
    """Table 52 (type size x major-ness x swizzle) and Table 53 (which atoms exist): raises
    :class:`LayoutError` naming the table for a combination no canonical layout has."""
    if major not in mode.atoms:
        raise LayoutError(f"{mode.name} swizzling has no K-major swizzle atom (Table 53 lists it "
                          "for M/N-major only; CUTLASS: invalid for Major-K); K-major layouts "
                          "use none, 32B, 64B or 128B", "Table 53")
    if major != "MN":
        return
    if el.bits < 8:
        raise LayoutError(f"{el.name} is a {el.bits}-bit type: 4- and 6-bit operands are only "
                          "K-major (Table 52 has no transposed row for them)", "Table 52")
    if el.smem_bits == 32 and mode.name != "128B_base32B":
        raise LayoutError(f"32-bit ({el.name}) MN-major operands support only 128B swizzling with "
                          f"32B atomicity (128B_base32B), not {mode.name}", "Table 52")
    if el.smem_bits in (8, 16) and mode.name == "128B_base32B":
        raise LayoutError(f"{el.smem_bits}-bit ({el.name}) MN-major operands support every "
                          "swizzle except 128B with 32B atomicity (128B_base32B)", "Table 52")


# ---------------------------------------------------------------------------- swizzle atoms


class SwizzleAtom(Struct, frozen=True):
    """A swizzle atom (Table 53) for one major-ness, swizzle mode and element type.

    ``units`` is Table 53's shape in 128-bit units, (M/N, K); ``elements`` the same in elements
    (the leading dimension multiplied by T).  Physically an atom is ``rows`` rows of
    ``row_bytes`` bytes (rows are M/N rows for K-major, K rows for MN-major), each row made of
    ``chunks`` 16-byte chunks that the swizzle permutes.
    """

    major: str
    swizzle: str
    dtype: str
    T: int
    units: tuple[int, int]
    row_bytes: int
    functor: tuple[int, int, int]
    repeat_bytes: int | None

    @property
    def elements(self) -> tuple[int, int]:
        mn, k = self.units
        return (mn * self.T, k) if self.major == "MN" else (mn, k * self.T)

    @property
    def rows(self) -> int:
        return self.units[1] if self.major == "MN" else self.units[0]

    @property
    def chunks(self) -> int:
        return self.row_bytes // UNIT_BYTES

    @property
    def bytes(self) -> int:
        return self.units[0] * self.units[1] * UNIT_BYTES

    @property
    def swizzle_functor(self) -> str:
        return "Swizzle<{},{},{}>".format(*self.functor)

    @property
    def shape(self) -> str:
        """Table 53's spelling, M/N x K in 128-bit units (``8x8``)."""
        return f"{self.units[0]}x{self.units[1]}"

    def swizzled(self, address: int) -> int:
        """The address CuTe's ``Swizzle<B,M,S>`` maps byte ``address`` to (absolute address bits;
        a pattern starting off its repeat boundary is what the base offset describes)."""
        b, m, s = self.functor
        mask = ((1 << b) - 1) << (m + s)
        return address ^ ((address & mask) >> s)

    def grid(self, pattern_start: int = 0) -> list[list[int]]:
        """``grid[r][p]`` = the logical 16-byte chunk of row ``r`` stored at physical chunk
        position ``p`` of that row, for an atom whose pattern starts at byte ``pattern_start``."""
        out = []
        for r in range(self.rows):
            row_start = pattern_start + r * self.row_bytes
            row = [-1] * self.chunks
            for c in range(self.chunks):
                p = (self.swizzled(row_start + c * UNIT_BYTES) - row_start) // UNIT_BYTES
                row[p] = c
            out.append(row)
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"shape_units": list(self.units), "shape_elements": list(self.elements),
                "rows": self.rows, "row_bytes": self.row_bytes, "bytes": self.bytes,
                "swizzle_functor": self.swizzle_functor, "repeat_bytes": self.repeat_bytes,
                "source": "Table 53"}


def swizzle_atom(major: str, swizzle: str, dtype: str, kind: str | None = None) -> SwizzleAtom:
    """The Table 53 swizzle atom of a major-ness, swizzle mode and element type."""
    maj, mode, el = parse_major(major), parse_swizzle(swizzle), element_type(dtype, kind)
    check_combination(maj, mode, el)
    return _atom(maj, mode, el)


def _atom(major: str, mode: SwizzleMode, el: ElementType) -> SwizzleAtom:
    return SwizzleAtom(major, mode.name, el.name, el.T, mode.atoms[major], mode.row_bytes,
                       mode.functor, mode.repeat_bytes)


# ---------------------------------------------------------------------------- helpers

_TOKEN = re.compile(r"SBO|LBO|(\d*)([Tkm])")


def fill_form(form: str, values: Mapping[str, int | None]) -> str:
    """The canonical form with the numbers of ``values`` (T, m, k, SBO, LBO; element units)
    filled in; a symbol whose value is None stays."""
    def sub(match: re.Match[str]) -> str:
        token = match.group(0)
        if token in ("SBO", "LBO"):
            v = values.get(token)
            return token if v is None else str(v)
        factor, sym = match.group(1), match.group(2)
        v = values.get(sym)
        if v is None:
            return token
        return str(int(factor or 1) * v)
    return _TOKEN.sub(sub, form)


def _lbo_sbo_meaning(major: str, mode: SwizzleMode, T: int) -> tuple[str, str]:
    """What LBO and SBO measure for this major-ness and swizzle (9.7.16.3.1, 9.7.16.3.2)."""
    if major == "K":
        sbo = "from one group of 8 M/N rows to the next"
        if mode.name == "none":
            return ("from one 16-byte K chunk (core matrix column, T elements) to the next", sbo)
        return ("not used for K-major swizzled layouts (assumed 1)", sbo)
    if mode.name == "none":
        return ("from one group of 8 K to the next", "from one 16-byte M/N chunk (T elements) "
                "to the next")
    units = mode.atoms["MN"][0]
    krows = mode.atoms["MN"][1]
    return (f"from one {units}-chunk M/N swizzle atom ({units * T} elements) to the next",
            f"from one group of {krows} K to the next")


def parse_tile(tile: Any) -> tuple[int, int]:
    """(rows, K) in elements from ``"128x64"`` (``x``, ``*`` or ``,`` between) or a pair; raises
    :class:`ParameterError` for anything else or a size that is not positive."""
    if isinstance(tile, str):
        parts = re.split(r"\s*[xX*,]\s*", tile.strip())
        if len(parts) != 2:
            raise ParameterError(f"tile={tile!r}: give ROWSxK, e.g. 128x64")
        tile = parts
    if not isinstance(tile, Sequence) or len(tile) != 2:
        raise ParameterError(f"tile={tile!r}: give (rows, K), rows of M or N by K, in elements")
    rows, k = (parse_int(v, what) for v, what in zip(tile, ("tile rows", "tile K")))
    if rows <= 0 or k <= 0:
        raise ParameterError(f"tile {rows}x{k}: rows and K must be positive")
    return rows, k


def _base_offset(mode: SwizzleMode, start: int) -> int:
    """Table 41 / Table 40: 0 on the repeat boundary, else (pattern start >> 7) & 7."""
    if mode.repeat_bytes is None or start % mode.repeat_bytes == 0:
        return 0
    return (start >> 7) & SMEM.by_name["base_offset"].max


def cute_print(mode: SwizzleMode, el: ElementType, start: int, base_offset: int, shape: str,
               stride: str, offset_elements: int = 0) -> str:
    """A layout (``shape``/``stride`` already printed, element units) as CuTe prints it, with the
    swizzle where the descriptor says its pattern starts: on the shared-memory pointer (CuTe's
    ``Sw<B,M,S>_smem_ptr[bits](addr)``, a pattern on absolute addresses) when the base offset is
    0, else composed with the layout in element units (``Sw<B,M',S> o OFFSET o L``, a pattern
    starting at the layout's origin ``start``; OFFSET elements from it)."""
    body = f"{shape}:{stride}"
    ptr = f"smem_ptr[{el.smem_bits}b]"
    if mode.name == "none":
        return f"{ptr}({start + el.bytes_of(offset_elements):#x}) o {body}"
    b, m, sh = mode.functor
    if base_offset == 0:
        return f"Sw<{b},{m},{sh}>_{ptr}({start + el.bytes_of(offset_elements):#x}) o {body}"
    # byte bit M is element bit M - log2(bytes per element)
    m_el = m - (el.smem_bits.bit_length() - 4)
    return f"Sw<{b},{m_el},{sh}> o {offset_elements if offset_elements else '_0'} o {body}"


# ---------------------------------------------------------------------------- K steps


class KStep(Struct, frozen=True):
    """One descriptor of an MMA loop through K: step ``index`` reads K elements
    ``k_elements`` .. ``k_elements + k_per_step - 1`` of the tile, ``offset_bytes`` past the tile
    start; ``word`` is the tile's descriptor with ``offset_bytes >> 4`` added to the start
    address (what kernels do to the low word); ``layout`` is the slice this step's MMA reads, as
    CuTe prints it (what ``make_umma_desc`` is given)."""

    index: int
    k_elements: int
    offset_bytes: int
    start_address_bytes: int
    word: int
    layout: str = ""

    @property
    def hex(self) -> str:
        return format_word("smem", self.word)

    @property
    def delta(self) -> int:
        """What the step adds to the descriptor word (16-byte units)."""
        return self.offset_bytes // UNIT_BYTES

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "k_elements": self.k_elements,
                "offset_bytes": self.offset_bytes, "start_address_bytes": self.start_address_bytes,
                "delta": self.delta, "word": self.hex, "layout": self.layout}


def advance_descriptor(word: int, offset_bytes: int) -> int:
    """``word`` with ``offset_bytes`` added to its start address the way kernels step through K
    (adding ``offset_bytes >> 4`` to the low word).  Refuses (never masks) an offset that is not
    a non-negative multiple of 16 bytes, and one that would carry out of the 14-bit start
    address field into the bits above it (:class:`KStepCarryError`)."""
    w = SMEM.check_word(parse_int(word, "word") if isinstance(word, str) else word)
    off = parse_int(offset_bytes, "offset_bytes")
    if off < 0 or off % UNIT_BYTES:
        raise ParameterError(f"offset_bytes={off}: a K step advances by a non-negative multiple "
                             f"of {UNIT_BYTES} bytes")
    delta = off // UNIT_BYTES
    start = _START.extract(w)
    if start + delta > _START.max:
        above = next(f for f in SMEM.fields if f.lsb == _START.msb + 1)
        raise KStepCarryError(
            f"adding {off:#x} bytes ({delta} in 16-byte units) to the start address "
            f"{start * UNIT_BYTES:#x} (field {start:#x}{_START.bits}) gives "
            f"{(start + delta) * UNIT_BYTES:#x}, past the {WINDOW_BYTES // 1024} KiB window: the "
            f"14-bit field would carry into bit {above.lsb} ({above.name}) and beyond",
            "Table 40, 9.7.16.4.1")
    return w + (delta << _START.lsb)


def k_per_mma(el: ElementType, kind: str | None, sparse: bool, umma_k: Any) -> tuple[int, str]:
    """(K elements per MMA, description) of ``el`` from the kind (Table 39 via KINDS): ``kind``
    if given, else the kinds that read ``el``'s packing, which must agree; ``umma_k`` is a K to
    check against them (sm_103a's K=96 dense).  Raises :class:`ParameterError` when the kinds
    disagree, the type is none of the kind's, or ``umma_k`` is no K of the MMA."""
    if not el.kinds:
        if kind is not None or sparse:
            raise ParameterError(f"{el.name} is a wgmma (sm_90a) type of no tcgen05.mma kind and "
                                 "no sparse MMA: leave kind= and sparse out")
        k = WGMMA_ONLY_K[el.name]
        if umma_k is not None and parse_int(umma_k, "K (umma_k)") != k:
            raise ParameterError(f"K={umma_k} is not the K of a wgmma of .{el.name}: {k}")
        return k, f"wgmma .{el.name}"
    if kind is not None:
        kinds = [parse_kind(kind)]
        if kinds[0].name not in el.kinds:
            raise ParameterError(f"{el.name} in this packing is not an A/B type of "
                                 f"kind::{kinds[0].name}; kinds: {', '.join(el.kinds)}")
    else:
        kinds = [KINDS[k] for k in el.kinds]
    ks = {(k.k_dense, k.k_sparse, k.k_alt) for k in kinds}
    if len(ks) > 1:
        raise ParameterError(f"the MMA's K for {el.name} depends on the kind: pass kind= one of "
                             + ", ".join(k.name for k in kinds))
    k_dense, k_sparse, k_alt = ks.pop()
    implied = k_sparse if sparse else k_dense
    label = "/".join(f"kind::{k.name}" for k in kinds)
    if umma_k is None:
        return implied, label
    uk = parse_int(umma_k, "K (umma_k)")
    if uk == implied:
        return uk, label
    if uk == k_alt and not sparse:
        return uk, label + f" (K={uk}, sm_103a)"
    alt = f", or {k_alt} dense (sm_103a)" if k_alt else ""
    raise ParameterError(f"K={uk} is not the K of a {'sparse' if sparse else 'dense'} MMA of "
                         f"{label}; Table 39: {implied}{alt}")


# ---------------------------------------------------------------------------- layout -> descriptor


class SmemLayout(Struct, frozen=True):
    """A shared-memory tile and the descriptor that describes it to ``tcgen05.mma``.

    ``word`` and ``fields`` (raw descriptor fields by PTX name); ``T``, ``m``, ``k`` (the
    canonical layout's parameters, 9.7.16.3.3: m repeats along M/N, k along K);
    ``lbo_bytes``/``sbo_bytes`` (the byte values encoded; ``lbo_used``/``sbo_used`` say
    whether an MMA follows them); ``swizzle``, ``base_offset``, ``lbo_mode``;
    ``canonical_form`` (PTX's symbolic layout), ``canonical_layout`` (the same with the numbers
    filled in, element units) and ``tile_layout`` (the whole tile as a CuTe layout print,
    ``(M/N mode, K mode)`` in elements, as :func:`~descriptors.layout.cute_layout.cute_descriptor`
    reads it); ``atom`` (Table 53), ``atoms`` (atom counts along M/N and K), ``tile_order``
    (``mn_first`` or ``k_first``) and the atoms' strides; ``notes``; ``caveats``, the notes
    the word rests on (an assumption the input did not state, under which another reading gives
    another word): a caller printing only the word must still show these.
    """

    major: str
    swizzle: str
    dtype: str
    kind: str | None
    element: ElementType
    tile_rows: int
    tile_k: int
    start_address_bytes: int
    T: int
    m: int
    k: int
    lbo_bytes: int
    sbo_bytes: int
    lbo_used: bool
    sbo_used: bool
    lbo_mode: str
    base_offset: int
    word: int
    fields: dict[str, int]
    canonical_form: str
    canonical_layout: str
    tile_layout: str
    atom: SwizzleAtom
    atoms: tuple[int, int]
    tile_order: str
    mn_atom_stride_bytes: int
    k_atom_stride_bytes: int
    footprint_bytes: int
    lbo_meaning: str
    sbo_meaning: str
    notes: tuple[str, ...] = ()
    caveats: tuple[str, ...] = ()

    @property
    def hex(self) -> str:
        return format_word("smem", self.word)

    @property
    def swizzle_code(self) -> int:
        return self.fields["swizzle"]

    def k_offset_bytes(self, k_elements: int, k_width: int = 1) -> int:
        """Bytes from the tile start to K element ``k_elements`` of row 0, for an MMA reading
        ``k_width`` elements of K from there (refused when they straddle a swizzle row)."""
        el, atom = self.element, self.atom
        if self.major == "K":
            if (k_elements * el.smem_bits) % _CHUNK_BITS:
                raise LayoutError(f"K offset {k_elements} is not on a 16-byte chunk", CANONICAL_SOURCE)
            kb, wb = el.bytes_of(k_elements), el.bytes_of(k_width)
            row = atom.row_bytes
            within = kb % row
            if self.swizzle != "none" and within + wb > row:
                raise LayoutError(
                    f"K elements {k_elements}..{k_elements + k_width - 1} ({wb} bytes from byte "
                    f"{within} of a {row}-byte {self.swizzle} row) straddle the swizzle row: "
                    "contiguous data would overflow it; the absolute leading-dimension address "
                    "mode splits such K (sm_103a, 9.7.16.3.1.2)", "9.7.16.3.1.2")
            return (kb // row) * self.k_atom_stride_bytes + within
        krows = atom.rows
        return (k_elements // krows) * self.k_atom_stride_bytes + (k_elements % krows) * atom.row_bytes

    def slice_layout(self, k_elements: int, k_width: int) -> str:
        """The slice of ``k_width`` K elements from K element ``k_elements`` (all M/N rows) as
        CuTe prints it: the layout one MMA reads, which ``make_umma_desc`` is given."""
        el, atom, mode = self.element, self.atom, SWIZZLE_MODES[self.swizzle]
        el_of = lambda b: b * 8 // el.smem_bits  # noqa: E731
        off = self.k_offset_bytes(k_elements, k_width)
        row = el_of(atom.row_bytes)
        if self.major == "K":
            mn_shape, mn_stride = (8, self.atoms[0]), (row, el_of(self.mn_atom_stride_bytes))
            if self.swizzle == "none":
                k_shape: Any = (el.T, k_width // el.T)
                k_stride: Any = (1, el_of(self.k_atom_stride_bytes))
            else:
                k_shape, k_stride = k_width, 1
        else:
            mn_shape = (atom.elements[0], self.atoms[0])
            mn_stride = (1, el_of(self.mn_atom_stride_bytes))
            g = atom.rows
            if k_width <= g:
                k_shape, k_stride = k_width, row
            else:
                k_shape, k_stride = (g, k_width // g), (row, el_of(self.k_atom_stride_bytes))
        return cute_print(mode, el, self.start_address_bytes, self.base_offset,
                          format_tuple((mn_shape, k_shape)), format_tuple((mn_stride, k_stride)),
                          el_of(off) if self.base_offset else 0) if self.base_offset else \
            cute_print(mode, el, self.start_address_bytes + off, 0,
                       format_tuple((mn_shape, k_shape)), format_tuple((mn_stride, k_stride)))

    def k_steps(self, kind: str | None = None, *, sparse: bool = False, compressed: bool = False,
                umma_k: int | None = None) -> list[KStep]:
        """The descriptors an MMA loop issues through the tile's K; see :func:`k_steps`."""
        return k_steps(self, kind, sparse=sparse, compressed=compressed, umma_k=umma_k)

    def atom_grid(self) -> list[list[int]]:
        """The first swizzle atom of the tile: ``grid[r][p]`` is the logical chunk of row r at
        physical chunk position p."""
        return self.atom.grid(self.start_address_bytes)

    def to_dict(self) -> dict[str, Any]:
        return {
            "descriptor": "smem", "word": self.hex, "fields": dict(self.fields),
            "major": self.major, "swizzle": self.swizzle, "dtype": self.dtype, "kind": self.kind,
            "packing": self.element.packing, "tile": [self.tile_rows, self.tile_k],
            "start_address_bytes": self.start_address_bytes, "T": self.T, "m": self.m,
            "k": self.k, "lbo_bytes": self.lbo_bytes, "sbo_bytes": self.sbo_bytes,
            "lbo_used": self.lbo_used, "sbo_used": self.sbo_used, "lbo_mode": self.lbo_mode,
            "lbo_meaning": self.lbo_meaning, "sbo_meaning": self.sbo_meaning,
            "swizzle_code": self.swizzle_code, "base_offset": self.base_offset,
            "canonical_form": f"{self.atom.swizzle_functor} o {self.canonical_form}",
            "canonical_layout": self.canonical_layout, "tile_layout": self.tile_layout,
            "atom": self.atom.to_dict(), "atoms": list(self.atoms), "tile_order": self.tile_order,
            "mn_atom_stride_bytes": self.mn_atom_stride_bytes,
            "k_atom_stride_bytes": self.k_atom_stride_bytes,
            "footprint_bytes": self.footprint_bytes, "atom_grid": self.atom_grid(),
            "notes": list(self.notes),
        }


def layout_descriptor(major: str, swizzle: str, dtype: str, tile: Any, start_address: Any = 0, *,
                      kind: str | None = None, unused_lbo_bytes: int = 16,
                      lbo_address: Any = None, tile_order: str | None = None) -> SmemLayout:
    """The shared memory descriptor of a ``tile`` = (rows, K) elements (rows of M for A, of N
    for B; ``"128x64"`` also accepted) of ``dtype`` (PTX name), ``major`` (``K`` or ``MN``),
    ``swizzle`` (none, 128B_base32B, 128B, 64B, 32B), starting at byte ``start_address``.

    ``tile_order`` is how the tile stacks its swizzle atoms (CuTe's ``tile_to_shape(atom,
    (rows, K), order)``): ``"mn_first"`` (``Step<_1,_2>``, the default; CUTLASS's order for
    K-major operands) or ``"k_first"`` (``Step<_2,_1>``; CUTLASS's order for MN-major
    operands).  It decides which of LBO/SBO spans one atom and which spans a whole row or
    column of atoms; when it is left out and the two orders give different words, a note says
    so.

    ``kind`` chooses the packing of ``e2m1`` (padded for f8f6f4/mxf8f6f4, packed for
    mxf4/mxf4nvf4) and is kept for :meth:`SmemLayout.k_steps`.  ``unused_lbo_bytes`` is the
    LBO written where the PTX says it is unused (K-major swizzled): 16 (raw 1, CUTLASS; the
    default) or 0 (DeepGEMM).  ``lbo_address`` selects the absolute leading-dimension address
    mode (sm_103a; 9.7.16.3.1.2): the byte address of the second K chunk.

    Raises :class:`LayoutError` for what Tables 52-53, 9.7.16.3.1.2.1 and the canonical layouts
    do not allow, :class:`~descriptors.errors.ParameterError` / ``FieldError`` for malformed or
    unencodable values.

    (Long: the steps of one derivation -- the canonical layout of the major-ness and swizzle,
    the tile order, LBO and SBO, the start address -- each refusing with its own reason.)"""
    maj, mode = parse_major(major), parse_swizzle(swizzle)
    el = element_type(dtype, kind)
    kind_name = parse_kind(kind).name if kind is not None else None
    check_combination(maj, mode, el)
    rows, kk = parse_tile(tile)
    start = parse_int(start_address, "start_address")
    unused = parse_int(unused_lbo_bytes, "unused_lbo_bytes")
    if unused not in (0, UNIT_BYTES):
        raise ParameterError(f"unused_lbo_bytes={unused}: allowed 16 (raw 1, the PTX's 'assumed 1', "
                             "CUTLASS) or 0 (DeepGEMM)")
    order = _tile_order("mn_first" if tile_order is None else tile_order)
    atom = _atom(maj, mode, el)
    T = el.T
    atom_mn, atom_k = atom.elements
    W = mode.row_bytes
    notes: list[str] = []
    src = CANONICAL_SOURCE
    if maj == "K":
        if rows % 8:
            raise LayoutError(f"a K-major tile has 8-row core matrices ((8,m)); {rows} rows is not "
                              "a multiple of 8", src)
        if kk % T:
            raise LayoutError(f"K={kk} {el.name} elements is not a whole number of 16-byte chunks "
                              f"(T={T} elements each)", src)
        k_units = kk // T
        if k_units % 2:
            raise LayoutError(f"a K-major tile is made of 32-byte K slices ((T,2k)); K={kk} "
                              f"{el.name} is {el.bytes_of(kk)} bytes", src)
        if k_units % atom.units[1]:
            raise LayoutError(f"K={kk} {el.name} ({el.bytes_of(kk)} bytes) is not a whole number "
                              f"of {W}-byte {mode.name} swizzle atoms (Table 53: {atom.shape}, "
                              f"{atom_k} {el.name} along K)", "Table 53")
        m, k = rows // 8, k_units // 2
        atoms = (rows // 8, k_units // atom.units[1])
    else:
        if rows % atom_mn:
            raise LayoutError(f"an MN-major {mode.name} tile is made of {atom.units[0]}-chunk "
                              f"({atom_mn} {el.name}) M/N atoms (Table 53: {atom.shape}); {rows} "
                              f"rows is not a multiple of {atom_mn}", "Table 53")
        if kk % atom_k:
            raise LayoutError(f"an MN-major {mode.name} tile is made of {atom_k}-K atoms (Table 53:"
                              f" {atom.shape}); K={kk} is not a multiple of {atom_k}", "Table 53")
        m, k = rows // atom_mn, kk // atom_k
        atoms = (m, k)
    # CuTe tile_to_shape: the first order's atoms are adjacent, the other's a whole row or
    # column of atoms apart.
    if order == "mn_first":
        mn_stride, k_stride = atom.bytes, atoms[0] * atom.bytes
    else:
        mn_stride, k_stride = atoms[1] * atom.bytes, atom.bytes
    footprint = el.bytes_of(rows * kk)
    once = "spans a mode that repeats once ({} = 1): no MMA follows it; written 0 as CUTLASS's " \
           "make_umma_desc does"
    if maj == "K":
        sbo, sbo_used = (mn_stride, True) if m > 1 else (0, False)
        if mode.name == "none":
            lbo, lbo_used = k_stride, True
        else:
            lbo, lbo_used = unused, False
            notes.append(f"LBO is not used for K-major swizzled layouts (assumed 1): {unused} bytes "
                         f"(raw {unused // UNIT_BYTES}) as {'CUTLASS' if unused else 'DeepGEMM'} "
                         "writes it (9.7.16.3.1.1)")
        if not sbo_used:
            notes.append("SBO " + once.format("m"))
        if atoms[1] > 1 and mode.name != "none":
            notes.append(f"the tile spans {atoms[1]} swizzle atoms along K; each is {W} bytes wide "
                         f"and the next along K starts {k_stride} bytes further; one descriptor "
                         "addresses K within one atom")
    elif mode.name == "none":
        sbo, sbo_used = (mn_stride, True) if m > 1 else (0, False)
        lbo, lbo_used = (k_stride, True) if k > 1 else (0, False)
        notes += ["SBO " + once.format("m")] if not sbo_used else []
        notes += ["LBO " + once.format("k")] if not lbo_used else []
    else:
        lbo, lbo_used = (mn_stride, True) if m > 1 else (0, False)
        sbo, sbo_used = (k_stride, True) if k > 1 else (0, False)
        notes += ["LBO " + once.format("m")] if not lbo_used else []
        notes += ["SBO " + once.format("k")] if not sbo_used else []
    if start < 0:
        raise ParameterError(f"start_address={start}: must be non-negative")
    if mode.name != "none" and start % ROW_ALIGN_BYTES:
        raise LayoutError(f"a {mode.name} swizzled tile must start on a 128-byte boundary, not "
                          f"{start:#x}: the base offset records only bits 7-9 of the pattern "
                          "start ((addr >> 7) & 7)", "Table 40, Table 41")
    if start + footprint > WINDOW_BYTES:
        raise LayoutError(f"the {rows}x{kk} {el.name} tile ({footprint:#x} bytes) at {start:#x} ends "
                          f"at {start + footprint:#x}, past the {WINDOW_BYTES // 1024} KiB "
                          "shared-memory window a descriptor can address", "Table 40")
    base = _base_offset(mode, start)
    if mode.repeat_bytes is not None:
        if base:
            notes.append(f"base offset {base}: the {mode.name} pattern starts at {start:#x}, off its "
                         f"{mode.repeat_bytes}-byte repeat boundary ((addr >> 7) & 7, Table 41)")
    lbo_mode = "relative"
    if lbo_address is not None:
        lbo_mode = "absolute"
        lbo = parse_int(lbo_address, "lbo_address")
        lbo_used = True
        _check_absolute(maj, mode.name, base)
        notes = [n for n in notes if not n.startswith("LBO is not used")]
        notes.append(f"absolute leading-dimension address mode: LBO holds the byte address "
                     f"{lbo:#x} of the second K chunk (sm_103a only, 9.7.16.3.1.2)")
    word = encode("smem", start_address=start, leading_byte_offset=lbo, stride_byte_offset=sbo,
                  swizzle=mode.name, base_offset=base, lbo_mode=lbo_mode)
    fields = decode("smem", word).fields
    el_of = lambda b: b * 8 // el.smem_bits  # noqa: E731 - bytes -> elements
    values = {"T": T, "m": m, "k": k, "SBO": el_of(sbo), "LBO": el_of(lbo)}
    form = CANONICAL_FORMS[maj, mode.name]
    canonical = f"{mode.swizzle_functor} o {fill_form(form, values)}"
    if maj == "K":
        tile_shape = ((8, atoms[0]), (atom_k, atoms[1]))
        tile_stride = ((el_of(W), el_of(mn_stride)), (1, el_of(k_stride)))
    else:
        tile_shape = ((atom_mn, atoms[0]), (atom.rows, atoms[1]))
        tile_stride = ((1, el_of(mn_stride)), (el_of(W), el_of(k_stride)))
    tile_layout = cute_print(mode, el, start, base, format_tuple(tile_shape), format_tuple(tile_stride))
    caveats: list[str] = []
    if tile_order is None and atoms[0] > 1 and atoms[1] > 1:
        caveats.append(f"tile order not given: atoms stacked M/N first (Step<_1,_2>); stacked K "
                     f"first (Step<_2,_1>, how CUTLASS tiles MN-major operands) the next atom "
                     f"along M/N would be {atoms[1] * atom.bytes} bytes on and along K "
                     f"{atom.bytes}, a different descriptor: give the tile order (--tile-order, tile_order=)")
        notes += caveats
    lm, sm = _lbo_sbo_meaning(maj, mode, T)
    return SmemLayout(
        major=maj, swizzle=mode.name, dtype=el.name, kind=kind_name, element=el, tile_rows=rows,
        tile_k=kk, start_address_bytes=start, T=T, m=m, k=k, lbo_bytes=lbo, sbo_bytes=sbo,
        lbo_used=lbo_used, sbo_used=sbo_used, lbo_mode=lbo_mode, base_offset=base, word=word,
        fields=fields, canonical_form=form, canonical_layout=canonical, tile_layout=tile_layout,
        atom=atom, atoms=atoms, tile_order=order, mn_atom_stride_bytes=mn_stride,
        k_atom_stride_bytes=k_stride,
        footprint_bytes=footprint, lbo_meaning=lm, sbo_meaning=sm, notes=tuple(notes),
        caveats=tuple(caveats))


def _check_absolute(major: str, swizzle: str, base_offset: int) -> None:
    src = "9.7.16.3.1.2.1"
    if swizzle != "128B":
        raise LayoutError(f"the absolute leading-dimension address mode supports only 128B "
                          f"swizzling with 16B atomicity, not {swizzle}", src)
    if major != "K":
        raise LayoutError("the absolute leading-dimension address mode supports only K-major "
                          "operands (instruction-descriptor transpose bits 0)", src)
    if base_offset:
        raise LayoutError(f"the absolute leading-dimension address mode needs matrix base offset "
                          f"0, not {base_offset} (start the tile on a 1024-byte boundary)", src)


def k_steps(layout: SmemLayout, kind: str | None = None, *, sparse: bool = False,
            compressed: bool = False, umma_k: int | None = None) -> list[KStep]:
    """The descriptors an MMA loop issues as it advances through the K of ``layout``'s tile.

    The K of one MMA comes from the kind (Table 39: tf32 8, f16 16, f8f6f4/i8/mxf8f6f4 32,
    mxf4/mxf4nvf4 64; doubled when ``sparse``; ``umma_k=96`` selects mxf4's dense K=96 on
    sm_103a).  ``kind`` defaults to the layout's, and may be left out when every kind taking
    the type has the same K.  ``compressed`` is for the sparse A operand, stored with half its
    K: each step then advances half the sparse K.

    Step ``i`` starts at K element ``i * K`` of row 0: within a swizzle atom that is ``K``
    elements' bytes further; past the atom, the next atom along K (CuTe ``tile_to_shape``
    places it ``k_atom_stride_bytes`` further).  Each word is the tile's word with
    ``offset >> 4`` added to the low word (:func:`advance_descriptor`; a carry out of the
    14-bit start address is refused).  The tile's K must be a multiple of the MMA's.
    """
    if layout.lbo_mode == "absolute":
        raise LayoutError("K iteration in the absolute leading-dimension address mode is not "
                          "modelled: the second K chunk's address is the LBO field", "9.7.16.3.1.2")
    per_mma, label = k_per_mma(layout.element, kind if kind is not None else layout.kind,
                                sparse, umma_k)
    if compressed and not sparse:
        raise ParameterError("compressed is for the sparse A operand: pass sparse=True too")
    step = per_mma // 2 if compressed else per_mma
    if layout.tile_k % step:
        raise LayoutError(f"the tile's K={layout.tile_k} is not a multiple of the {step} K elements "
                          f"each {label} MMA{' (compressed sparse A)' if compressed else ''} reads",
                          "Table 39")
    out = []
    for i in range(layout.tile_k // step):
        kk = i * step
        off = layout.k_offset_bytes(kk, step)
        word = advance_descriptor(layout.word, off)
        out.append(KStep(i, kk, off, layout.start_address_bytes + off, word,
                         layout.slice_layout(kk, step)))
    return out


# ---------------------------------------------------------------------------- descriptor -> layout


class DescriptorLayout(Struct, frozen=True):
    """The layout a shared memory descriptor word implies for an operand of ``dtype`` and
    ``major``: swizzle atom, canonical layout (T, LBO, SBO filled in; m and k are not stored in
    a descriptor and stay symbolic), what LBO and SBO measure, base offset and notes."""

    word: int
    fields: dict[str, int]
    major: str
    swizzle: str
    dtype: str
    kind: str | None
    element: ElementType
    T: int
    start_address_bytes: int
    lbo_bytes: int
    sbo_bytes: int
    lbo_mode: str
    base_offset: int
    pattern_start_bytes: int
    canonical_form: str
    canonical_layout: str
    atom: SwizzleAtom
    lbo_meaning: str
    sbo_meaning: str
    notes: tuple[str, ...] = ()
    #: the word's name: ``smem`` (tcgen05, Table 40) or ``wgmma`` (sm_90a, 9.7.15.5.1)
    descriptor: str = "smem"

    @property
    def hex(self) -> str:
        return format_word(self.descriptor, self.word)

    def atom_grid(self) -> list[list[int]]:
        return self.atom.grid(self.pattern_start_bytes)

    def to_dict(self) -> dict[str, Any]:
        return {
            "descriptor": self.descriptor, "word": self.hex, "fields": dict(self.fields),
            "major": self.major, "swizzle": self.swizzle, "dtype": self.dtype, "kind": self.kind,
            "packing": self.element.packing, "T": self.T,
            "start_address_bytes": self.start_address_bytes, "lbo_bytes": self.lbo_bytes,
            "sbo_bytes": self.sbo_bytes, "lbo_mode": self.lbo_mode,
            "lbo_meaning": self.lbo_meaning, "sbo_meaning": self.sbo_meaning,
            "base_offset": self.base_offset, "pattern_start_bytes": self.pattern_start_bytes,
            "canonical_form": f"{self.atom.swizzle_functor} o {self.canonical_form}",
            "canonical_layout": self.canonical_layout, "atom": self.atom.to_dict(),
            "atom_grid": self.atom_grid(), "notes": list(self.notes),
        }


def _tile_readings(maj: str, mode: SwizzleMode, el: ElementType, atom: SwizzleAtom, lbo: int, sbo: int,
                   lbo_mode: str) -> list[str]:
    """What dense tiles (CuTe tile_to_shape) the word's strides fit, in each tile order: the
    stride spanning one atom says which atoms are adjacent, the other how many of them a row
    or column of the tile holds."""
    if lbo_mode == "absolute":
        return []
    if maj == "K":
        mn_step = sbo                                     # next 8-row group
        k_step = lbo if mode.name == "none" else None     # next K chunk (swizzled: inside the row)
    elif mode.name == "none":
        mn_step, k_step = sbo, lbo                        # next M/N chunk, next 8 K
    else:
        mn_step, k_step = lbo, sbo                        # next M/N atom, next K group
    out = []
    a_mn, a_k = atom.elements
    if mn_step == atom.bytes and k_step:
        if k_step % atom.bytes == 0:
            n = k_step // atom.bytes
            out.append(f"read as a dense tile stacked M/N first (Step<_1,_2>): {n * a_mn} M/N "
                       f"{el.name} per K block ({n} atoms along M/N)")
    if k_step == atom.bytes and mn_step:
        if mn_step % atom.bytes == 0:
            n = mn_step // atom.bytes
            out.append(f"read as a dense tile stacked K first (Step<_2,_1>): {n * a_k} K "
                       f"{el.name} per M/N block ({n} atoms along K)")
    if maj == "K" and mode.name != "none" and sbo and sbo != atom.bytes and sbo % atom.bytes == 0:
        n = sbo // atom.bytes
        out.append(f"SBO {sbo} bytes spans {n} {atom.bytes}-byte atoms: a tile stacked K first "
                   f"(Step<_2,_1>) {n * a_k} {el.name} wide, or 8-row groups not packed densely")
    elif maj == "K" and sbo and sbo % atom.bytes:
        out.append(f"SBO {sbo} bytes is not a whole number of {atom.bytes}-byte atoms: the 8-row "
                   "groups are not packed densely")
    return out


def explain_descriptor(word: Any, *, major: str, dtype: str, kind: str | None = None,
                       arch: str | None = None) -> DescriptorLayout:
    """The layout ``word`` (a shared memory descriptor) implies for a ``major`` operand of
    ``dtype``.  Refuses (:class:`LayoutError`) a word no layout fits: reserved or fixed bits
    wrong, an invalid swizzle code, a combination Table 52/53 forbids, an absolute-LBO word
    breaking 9.7.16.3.1.2.1.

    ``arch="sm_90a"``: ``word`` is Hopper's wgmma matrix descriptor (PTX ISA 9.7.15.5.1),
    whose fields read as tcgen05's do (the canonical layouts of 9.7.15.5.1; an H100 reads
    every measured word as the fetch model says); unused bits set are a note (an H100 ignores
    them); refused besides: an MN-major operand of another type than f16/bf16 (wgmma
    transposes only those, imm-trans, 9.7.15.5.2)."""
    if arch not in (None, "sm_100a"):
        return _explain_wgmma(word, major=major, dtype=dtype, kind=kind, arch=arch)
    w = parse_int(word, "word") if isinstance(word, str) else word
    d = decode("smem", w)
    if d.unexpected:
        bad = ", ".join(f"{n}{SMEM.by_name[n].bits}={v:#x}" for n, v in d.unexpected.items())
        fixed = ", ".join(f"{f.name}{f.bits} must be {f.default:#0{f.width + 2}b}"
                          for f in SMEM.fields if f.role == "constant")
        raise LayoutError(f"{d.hex} is not a shared memory descriptor: {bad} (reserved bits must be "
                          f"0; {fixed})", "Table 40")
    v = d.values
    if v["swizzle"] is None:
        raise LayoutError(f"{d.hex}: swizzle code {d.fields['swizzle']} is invalid (3, 5 and 7 are); "
                          "no layout has it", "Table 40")
    maj, mode = parse_major(major), parse_swizzle(v["swizzle"])
    el = element_type(dtype, kind)
    check_combination(maj, mode, el)
    start, lbo, sbo = v["start_address_bytes"], v["leading_byte_offset_bytes"], v["stride_byte_offset_bytes"]
    base = v["base_offset"]
    notes: list[str] = []
    if v["lbo_mode"] == "absolute":
        _check_absolute(maj, mode.name, base)
        notes.append(f"absolute leading-dimension address mode (sm_103a): the second K chunk is at "
                     f"byte {lbo:#x} (9.7.16.3.1.2)")
    atom = _atom(maj, mode, el)
    pattern = start
    if mode.repeat_bytes is not None:
        phase = (base << 7) % mode.repeat_bytes
        pattern = start - ((start - phase) % mode.repeat_bytes)
        if start != pattern:
            notes.append(f"the start address {start:#x} lies {start - pattern} bytes into a "
                         f"{mode.name} pattern that starts at {pattern:#x} (base offset {base}); "
                         "as after K steps inside a swizzle atom")
    elif base:
        notes.append(f"base offset {base} is set but the layout is not swizzled: it has no effect")
    el_of = lambda b: b * 8 // el.smem_bits  # noqa: E731
    form = CANONICAL_FORMS[maj, mode.name]
    values: dict[str, int | None] = {"T": el.T, "m": None, "k": None, "SBO": el_of(sbo),
                                     "LBO": None if v["lbo_mode"] == "absolute" else el_of(lbo)}
    canonical = f"{mode.swizzle_functor} o {fill_form(form, values)}"
    lm, sm = _lbo_sbo_meaning(maj, mode, el.T)
    if maj == "K" and mode.name != "none" and v["lbo_mode"] == "relative":
        raw = d.fields["leading_byte_offset"]
        notes.append(f"LBO raw {raw} is ignored (K-major swizzled: assumed 1; CUTLASS writes 1, "
                     "DeepGEMM 0)" + ("" if raw <= 1 else " -- unusual value"))
    notes += _tile_readings(maj, mode, el, atom, lbo, sbo, v["lbo_mode"])
    return DescriptorLayout(
        word=w, fields=dict(d.fields), major=maj, swizzle=mode.name, dtype=el.name,
        kind=parse_kind(kind).name if kind is not None else None, element=el, T=el.T,
        start_address_bytes=start, lbo_bytes=lbo, sbo_bytes=sbo, lbo_mode=v["lbo_mode"],
        base_offset=base, pattern_start_bytes=pattern, canonical_form=form,
        canonical_layout=canonical, atom=atom, lbo_meaning=lm, sbo_meaning=sm, notes=tuple(notes))


def _explain_wgmma(word: Any, *, major: str, dtype: str, kind: str | None,
                   arch: str) -> DescriptorLayout:
    from ..words.codec import wgmma_to_smem
    from ..words.layouts import WGMMA
    if arch != "sm_90a":
        raise LayoutError(f"arch {arch!r}: the layout of a tcgen05 smem word (sm_100a, the "
                          "default) or of sm_90a's wgmma word")
    w = parse_int(word, "word") if isinstance(word, str) else word
    d = decode("wgmma", w)
    maj = parse_major(major)
    el = element_type(dtype, kind)
    if maj == "MN" and el.name not in ("f16", "bf16"):
        raise LayoutError(f"an MN-major {el.name} operand: wgmma reads MN-major (transposed) "
                          "operands of f16 and bf16 only (imm-trans-a/b)", "ISA 9.7.15.5.2")
    notes = []
    if d.unexpected:
        bad = ", ".join(f"{n}{WGMMA.by_name[n].bits}={v:#x}" for n, v in d.unexpected.items())
        notes.append(f"unused bits set: {bad}; an H100 ignores them (measured), the text gives "
                     "them no meaning: write 0 (9.7.15.5.1)")
    same = explain_descriptor(wgmma_to_smem(w), major=major, dtype=dtype, kind=kind)
    return replace(same, word=w, fields=dict(d.fields), descriptor="wgmma",
                   notes=(*notes, *same.notes))

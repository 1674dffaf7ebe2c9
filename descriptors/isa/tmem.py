"""Tensor Memory: addresses, ``tcgen05.ld``/``tcgen05.st`` footprints, allocations, data-path layouts.

(Long: the Tensor Memory tables of PTX ISA 9.7.16 -- shapes, data-path layouts, warp lane
access, allocation -- and the footprint rules that read them, data first.)

A library layer on top of the ``tmem`` codec (:func:`descriptors.words.codec.encode` /
:func:`~descriptors.words.codec.decode`); every bit position comes from :data:`descriptors.TMEM`.

Sources (PTX ISA 9.7.16):

* 9.7.16.1 -- Tensor Memory is 128 lanes x 512 columns of 32-bit cells per CTA (sm_100a/f);
  9.7.16.1.1 -- an address is 32 bits, lane index in bits 31-16, column index in bits 15-0;
  9.7.16.1.2 -- allocation is by columns (unit 32, power of two); a column is allocated in all
  128 lanes.
* 9.7.16.2.3 -- data movement shapes ``lane x size``: ``.32x32b`` touches 32 lanes, ``.16x64b``,
  ``.16x128b``, ``.16x256b`` and ``.16x32bx2`` 16 lanes; per lane ``size * .num`` bits.
* 9.7.16.7.1 -- ``tcgen05.alloc``: ``nCols`` a power of two in [32, 512].
* 9.7.16.8.1 -- access restrictions: warp ``w`` of a warpgroup (warp id % 4) may access lanes
  ``32w .. 32w+31`` only; every warp may access every column.
* 9.7.16.8.2 -- ``.pack::16b`` (ld) packs two 16-bit chunks of adjacent columns into one 32-bit
  register; ``.unpack::16b`` (st) unpacks one register into two adjacent columns.
* 9.7.16.8.3 / 9.7.16.8.4 -- ``tcgen05.ld`` / ``tcgen05.st``: register counts in Table 47 (ld)
  and Table 48 (st); the stand-alone 9.7.16.8 pages number the same tables 49 and 50, and
  every message cites both numbers (:func:`table_source`).  ``.16x32bx2`` makes two ``.16x32b`` accesses, at ``taddr`` and at
  ``taddr + immHalfSplitoff``.  ``.red`` (ld only) needs ``.num >= .x2`` and the shapes
  ``.32x32b`` / ``.16x32bx2``.
* 9.7.16.10.5 -- data path layout organization (Layouts A-G) by M, cta_group, sparsity, .ws.

CUTLASS facts: CUTLASS keeps a sub-word *byte index* in bits 31-30 of a Tensor Memory address
for scale factors (``cute/arch/mma_sm100_desc.hpp``: ``a_sf_id_ = (tmem_sfa_addr & 0xC0000000)
>> 30``), so real dumps can show high bits set; its active mask is ``0x007F01FF`` (7 lane bits,
9 column bits; ``cute/pointer.hpp``, ``tmem_ptr``: "TMEM Address with active mask 0x007F.01FF").

>>> hex(pack(32, 64))
'0x200040'
>>> unpack(0x00200040).lane, unpack(0x00200040).column
(32, 64)
>>> fp = footprint("ld", "32x32b", 8, 0x00200040, warp=1, alloc=128)
>>> fp.registers, fp.lane_range, fp.column_range, fp.ok
(8, (32, 63), (64, 71), True)
>>> datapath_layout(64, cta_group=1, ws=False).layout
'F'
"""

from __future__ import annotations

import re
from typing import Any

from ..structs import Struct, field
from ..words.codec import decode, encode, parse_int
from ..errors import FieldError, ParameterError, shorten
from ..words.layouts import TMEM
from ..rules.targets import ArchRequirement, parse_target
from ..rules.validate import SEVERITIES, TCGEN05_ARCHES, Finding
from ..rules.diagnostics import DIAGNOSTICS, DiagnosticKind

__all__ = [
    "LANES", "COLUMNS", "BYTE_INDEX_LSB", "BYTE_INDEX_WIDTH", "BYTE_INDEX_MASK",
    "CUTLASS_ACTIVE_MASK", "SHAPES", "NUMS", "REGISTER_TABLE", "TABLES", "RED_SHAPES",
    "RED_OPS", "RED_TYPES", "RED_ARCHES", "RED_REQUIREMENT", "ALLOC_MIN", "ALLOC_MAX", "DATAPATH_LAYOUTS",
    "ACCESS_RULES", "Shape", "TmemAddress", "Access", "Footprint", "AllocRange",
    "DataPathLayout", "AccessRule", "pack", "unpack", "unpack_address", "registers",
    "parse_shape", "parse_num",
    "parse_ld_spec", "footprint", "check_alloc", "alloc_range", "datapath_layout",
]

# ====================================================================== geometry and addresses

#: Lanes (rows) of Tensor Memory per CTA on sm_100a/sm_100f (9.7.16.1).
LANES = 128
#: Columns of 32-bit cells per CTA on sm_100a/sm_100f (9.7.16.1).
COLUMNS = 512
#: Bits of a Tensor Memory cell (9.7.16.1: "each cell being 32-bits in size").
CELL_BITS = 32

_LANE = TMEM.by_name["lane"]
_COLUMN = TMEM.by_name["column"]

#: Width of CUTLASS's sub-word byte index, kept in the top bits of the lane field
#: (CUTLASS ``cute/arch/mma_sm100_desc.hpp``: ``a_sf_id_ = (tmem_sfa_addr & 0xC0000000) >> 30``).
BYTE_INDEX_WIDTH = 2
#: Lowest bit of the byte index: the top ``BYTE_INDEX_WIDTH`` bits of the PTX lane field.
BYTE_INDEX_LSB = _LANE.msb - BYTE_INDEX_WIDTH + 1
#: The byte index's bits within the word.
BYTE_INDEX_MASK = ((1 << BYTE_INDEX_WIDTH) - 1) << BYTE_INDEX_LSB
_LANE_LOW_WIDTH = _LANE.width - BYTE_INDEX_WIDTH  # lane bits below the byte index (29-16)
#: CUTLASS's active-bit mask of a Tensor Memory address: the bits that can address a cell of a
#: 128-lane x 512-column Tensor Memory (CUTLASS ``cute/pointer.hpp``, ``tmem_ptr``: 0x007F.01FF).
CUTLASS_ACTIVE_MASK = ((LANES - 1) << _LANE.lsb) | ((COLUMNS - 1) << _COLUMN.lsb)


class TmemAddress(Struct, frozen=True):
    """A decoded Tensor Memory address (9.7.16.1.1: lane bits 31-16, column bits 15-0).

    ``lane_field`` is the raw 16-bit PTX lane field.  CUTLASS keeps a sub-word byte index
    (scale-factor addresses) in the top two bits of that field, bits 31-30: ``byte_index`` is
    those bits and ``lane`` the rest (bits 29-16), the lane every rule of this module uses.
    ``column`` is bits 15-0.
    """

    word: int
    lane: int
    column: int
    byte_index: int
    lane_field: int

    @property
    def in_range(self) -> bool:
        """The cell exists on sm_100: lane < 128 and column < 512 (9.7.16.1)."""
        return self.lane < LANES and self.column < COLUMNS

    @property
    def outside_cutlass_mask(self) -> int:
        """Bits set outside CUTLASS's active mask 0x007F01FF and the byte-index bits."""
        return self.word & ~(CUTLASS_ACTIVE_MASK | BYTE_INDEX_MASK) & 0xFFFFFFFF

    def to_dict(self) -> dict[str, Any]:
        return {"word": f"{self.word:#010x}", "lane": self.lane, "column": self.column,
                "byte_index": self.byte_index, "lane_field": self.lane_field,
                "in_range": self.in_range,
                "outside_cutlass_mask": f"{self.outside_cutlass_mask:#010x}"}


def pack(lane: int, column: int, *, byte_index: int = 0) -> int:
    """The 32-bit Tensor Memory address of (``lane``, ``column``) (9.7.16.1.1), through the codec.

    ``lane`` must be 0..127 and ``column`` 0..511 (sm_100 geometry, 9.7.16.1); ``byte_index``
    (0..3, CUTLASS's sub-word byte index for scale factors) goes to bits 31-30.  Raises
    :class:`FieldError` naming the field for a value out of range (nothing is truncated); use
    ``descriptors.encode("tmem", ..., check=False)`` for raw 16-bit field values.
    """
    lane = parse_int(lane, "lane")
    column = parse_int(column, "column")
    byte_index = parse_int(byte_index, "byte_index")
    if not 0 <= lane < LANES:
        raise _LANE.error(lane, f"lane {lane} is outside Tensor Memory's {LANES} lanes "
                                "(9.7.16.1)", f"0..{LANES - 1}")
    if not 0 <= column < COLUMNS:
        raise _COLUMN.error(column, f"column {column} is outside Tensor Memory's {COLUMNS} "
                                    "columns (9.7.16.1)", f"0..{COLUMNS - 1}")
    if not 0 <= byte_index < 1 << BYTE_INDEX_WIDTH:
        raise FieldError("byte_index", f"[{_LANE.msb}:{BYTE_INDEX_LSB}]", byte_index,
                         f"byte index {byte_index} does not fit {BYTE_INDEX_WIDTH} bits",
                         f"0..{(1 << BYTE_INDEX_WIDTH) - 1}", "9.7.16.1.1 (CUTLASS byte index)")
    return encode("tmem", lane=lane | (byte_index << _LANE_LOW_WIDTH), column=column)


def unpack(word: int | str) -> TmemAddress:
    """Decode a 32-bit Tensor Memory address (an int or a decimal / ``0x`` string) into a
    :class:`TmemAddress`; raises :class:`~descriptors.errors.WordError` /
    :class:`ParameterError` for something that is not a 32-bit word."""
    if isinstance(word, str):
        word = parse_int(word, "tmem address")
    d = decode("tmem", word)
    lane_field = d.fields["lane"]
    return TmemAddress(word=d.word, lane=lane_field & ((1 << _LANE_LOW_WIDTH) - 1),
                       column=d.fields["column"], byte_index=lane_field >> _LANE_LOW_WIDTH,
                       lane_field=lane_field)


# ====================================================================== shapes and Table 47/48


class Shape(Struct, frozen=True):
    """A ``tcgen05.ld``/``.st`` data movement shape (9.7.16.2.3): ``lanes`` rows, ``bits`` per
    lane and repetition, ``accesses`` (2 for ``.16x32bx2``: two ``.16x32b`` accesses) and the
    column of Table 47/48 that gives its register count."""

    name: str
    lanes: int
    bits: int
    accesses: int
    table_column: str
    section: str


#: The five ld/st shapes of 9.7.16.2.3, by name (without the leading dot).
SHAPES: dict[str, Shape] = {s.name: s for s in (
    Shape("32x32b", 32, 32, 1, ".16x32bx2 / .16x64b / .32x32b", "9.7.16.2.3.1.1"),
    Shape("16x64b", 16, 64, 1, ".16x32bx2 / .16x64b / .32x32b", "9.7.16.2.3.1.2"),
    Shape("16x128b", 16, 128, 1, ".16x128b", "9.7.16.2.3.1.3"),
    Shape("16x256b", 16, 256, 1, ".16x256b", "9.7.16.2.3.1.4"),
    Shape("16x32bx2", 16, 32, 2, ".16x32bx2 / .16x64b / .32x32b", "9.7.16.2.3.1.5"),
)}

#: The ``.num`` repeat factors (9.7.16.8.3 / 9.7.16.8.4 syntax).
NUMS: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64, 128)

#: Registers (32-bit, per thread) of the vector operand ``r`` for each ``.num`` (row) and shape
#: column, transcribed from PTX Table 47 (tcgen05.ld) = Table 48 (tcgen05.st); ``None`` is an
#: NA cell (the combination does not exist).  The first column serves .16x32bx2, .16x64b and
#: .32x32b.
REGISTER_TABLE: dict[int, tuple[int | None, int | None, int | None]] = {
    1: (1, 2, 4),
    2: (2, 4, 8),
    4: (4, 8, 16),
    8: (8, 16, 32),
    16: (16, 32, 64),
    32: (32, 64, 128),
    64: (64, 128, None),
    128: (128, None, None),
}
_TABLE_COLUMNS = (".16x32bx2 / .16x64b / .32x32b", ".16x128b", ".16x256b")

#: Where each op's register table is: its number in the PTX ISA 9.7.16 text, and the number the
#: stand-alone 9.7.16.8 pages use for the same table.
TABLES: dict[str, tuple[str, str, str]] = {
    "ld": ("Table 47", "Table 49", "9.7.16.8.3"),
    "st": ("Table 48", "Table 50", "9.7.16.8.4"),
}


def table_source(op: str) -> str:
    """How every message cites the register table of ``op`` (``ld``/``st``): one text for
    ``tmem``, ``explain`` and ``lint`` alike."""
    main, alt, section = TABLES[op]
    return f"{main} ({alt} in the stand-alone 9.7.16.8 page), PTX {section}"


_table_name = table_source


def _op(op: Any) -> str:
    text = str(op).strip().lower().removeprefix("tcgen05.").lstrip(".")
    if text not in TABLES:
        raise ParameterError(f"op {shorten(op)}: allowed 'ld' (tcgen05.ld) or 'st' (tcgen05.st)")
    return text


def parse_shape(shape: Any) -> str:
    """Canonical shape name (``"32x32b"``) from ``"32x32b"`` or ``".32x32b"``; raises
    :class:`ParameterError` naming the five ld/st shapes otherwise."""
    text = str(shape).strip().lower().lstrip(".") if isinstance(shape, str) else None
    if text not in SHAPES:
        raise ParameterError(f"shape {shorten(shape)} is not a tcgen05.ld/st shape; allowed "
                             + ", ".join(f".{s}" for s in SHAPES) + " (PTX 9.7.16.2.3)")
    return text


def parse_num(num: Any) -> int:
    """The ``.num`` repeat factor from ``8``, ``"8"``, ``"x8"`` or ``".x8"``; raises
    :class:`ParameterError` for anything not in .x1 .. .x128."""
    value: int | None = None
    if isinstance(num, bool):
        value = None
    elif isinstance(num, int):
        value = num
    elif isinstance(num, str):
        m = re.fullmatch(r"\.?x?(\d+)", num.strip().lower())
        value = int(m.group(1)) if m else None
    if value not in NUMS:
        raise ParameterError(f".num {shorten(num)} is not a repeat factor; allowed "
                             + ", ".join(f".x{n}" for n in NUMS) + " (PTX 9.7.16.8.3)")
    assert value is not None
    return value


def registers(shape: str, num: Any, op: str = "ld") -> int:
    """32-bit registers per thread of ``tcgen05.<op>.<shape>.<num>`` (Table 47 for ld, 48 for st).

    Raises :class:`ParameterError` for an NA cell, naming the cell and the table.
    """
    op = _op(op)
    name = parse_shape(shape)
    n = parse_num(num)
    col = _TABLE_COLUMNS.index(SHAPES[name].table_column)
    count = REGISTER_TABLE[n][col]
    if count is None:
        raise ParameterError(
            f"tcgen05.{op}.{name}.x{n}: the cell (.x{n}, {_TABLE_COLUMNS[col]}) of "
            f"{_table_name(op)} is NA -- that .num does not exist for .{name}")
    return count


_SPEC = re.compile(r"\.?(?P<shape>\d+x\d+b(?:x2)?)\.(?P<num>x\d+)")


def parse_ld_spec(spec: str) -> tuple[str, int]:
    """``(shape, num)`` from a shape-and-num spec: ``"32x32b.x8"``, ``".32x32b.x8"``,
    ``"16x32bx2.x4"`` -> ``("32x32b", 8)`` ...  Raises :class:`ParameterError` for a malformed
    spec, an unknown shape or num, or an NA cell of Table 47."""
    if not isinstance(spec, str):
        raise ParameterError(f"ld/st spec {shorten(spec)} is not a string like '32x32b.x8'")
    m = _SPEC.fullmatch(spec.strip().lower())
    if m is None:
        raise ParameterError(f"ld/st spec {shorten(spec)}: expected <shape>.x<num>, e.g. 32x32b.x8 or "
                             "16x32bx2.x4; shapes " + ", ".join(SHAPES) + "; num "
                             + ", ".join(f"x{n}" for n in NUMS))
    shape = parse_shape(m.group("shape"))
    num = parse_num(m.group("num"))
    registers(shape, num, "ld")
    return shape, num


# ====================================================================== rules


#: A rule of the ld/st/alloc checks: its declaration in the diagnostic catalogue.
AccessRule = DiagnosticKind

#: Every rule :func:`footprint` and :func:`check_alloc` report, by id (``tmem.ld.*``,
#: ``tmem.st.*`` and ``tmem.alloc``): their declarations in
#: :data:`descriptors.rules.diagnostics.DIAGNOSTICS`, where they are declared once (the
#: ``tmem.alloc`` rule of the Tensor Memory address word is the nCols rule of
#: :func:`check_alloc` too, 9.7.16.7.1).
ACCESS_RULES: dict[str, DiagnosticKind] = {
    i: d for i, d in DIAGNOSTICS.items()
    if i.startswith(("tmem.ld.", "tmem.st.")) or i == "tmem.alloc"}

#: Shapes ``tcgen05.ld.red`` allows (.shape3 = .32x32b, .shape4 = .16x32bx2; 9.7.16.8.3).
RED_SHAPES: tuple[str, ...] = ("32x32b", "16x32bx2")
#: Reduction operations (.redOp; 9.7.16.8.3).
RED_OPS: tuple[str, ...] = ("min", "max")
#: Reduction types (.f32, or .type = .u32/.s32; 9.7.16.8.3).
RED_TYPES: tuple[str, ...] = ("f32", "u32", "s32")
#: Where ``tcgen05.ld.red`` is supported (9.7.16.8.3 Target ISA Notes): sm_101a (renamed
#: sm_110a), the sm_101f (sm_110f) family and the sm_103f family; sm_100a/f lack it.
RED_REQUIREMENT = ArchRequirement(
    "sm_101a (sm_110a), or sm_101f (sm_110f)/sm_103f or higher in the family",
    "PTX 9.7.16.8.3 Target ISA Notes (tcgen05.ld.red)", specific=("sm_110a",),
    families=(110, 103))
#: Architectures of descgen's list that support ``tcgen05.ld.red`` (from RED_REQUIREMENT).
RED_ARCHES: tuple[str, ...] = tuple(a for a in TCGEN05_ARCHES
                                    if RED_REQUIREMENT.supports(parse_target(a)))

#: tcgen05.alloc nCols bounds (9.7.16.7.1).
ALLOC_MIN = 32
ALLOC_MAX = 512


def _finding(severity: str, rule_id: str, op: str, message: str, *, field_name: str | None = None,
             value: Any = None) -> Finding:
    r = ACCESS_RULES[rule_id.replace("{op}", op)]
    bits = TMEM.by_name[field_name].bits if field_name in TMEM.by_name else None
    return Finding(severity, r.id, message, r.source, field_name, bits, value)


# ====================================================================== footprint


class Access(Struct, frozen=True):
    """One access of an ld/st: its base address and the lanes and columns it touches, both as
    inclusive ``(first, last)`` ranges."""

    address: TmemAddress
    lanes: tuple[int, int]
    columns: tuple[int, int]

    def to_dict(self) -> dict[str, Any]:
        return {"address": f"{self.address.word:#010x}", "lanes": list(self.lanes),
                "columns": list(self.columns)}


class Footprint(Struct, frozen=True):
    """What one ``tcgen05.ld``/``tcgen05.st`` touches, and the verdict of the rules.

    ``registers``: 32-bit registers per thread of the vector ``r`` (Table 47/48);
    ``red_registers``: 1 for the ``redval`` operand of ``.red``, else 0; ``lanes`` and
    ``columns_per_access`` per access; ``bits_per_lane`` = shape bits x num (register-side data
    per lane and access); ``accesses`` (two for ``.16x32bx2``); ``lane_range`` /
    ``column_range`` over all accesses (inclusive); ``quadrant`` = warp % 4 and
    ``accessible_lanes`` when ``warp`` is given; ``alloc_columns`` the allocation's column range
    when ``alloc`` is given; ``verdict``: findings, errors first.
    """

    op: str
    shape: str
    num: int
    ptx: str
    table: str
    registers: int
    red_registers: int
    lanes: int
    columns_per_access: int
    bits_per_lane: int
    address: TmemAddress
    accesses: tuple[Access, ...]
    lane_range: tuple[int, int]
    column_range: tuple[int, int]
    warp: int | None = None
    quadrant: int | None = None
    accessible_lanes: tuple[int, int] | None = None
    alloc: int | None = None
    alloc_columns: tuple[int, int] | None = None
    pack: bool = False
    unpack: bool = False
    red: str | None = None
    imm_half_splitoff: int | None = None
    verdict: list[Finding] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when no finding is an error."""
        return not any(f.severity == "error" for f in self.verdict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (addresses as ``0x%08x`` strings, ranges as ``[first, last]``)."""
        return {
            "op": self.op, "shape": self.shape, "num": self.num, "ptx": self.ptx,
            "table": self.table, "registers": self.registers,
            "red_registers": self.red_registers, "lanes": self.lanes,
            "columns_per_access": self.columns_per_access, "bits_per_lane": self.bits_per_lane,
            "address": self.address.to_dict(),
            "accesses": [a.to_dict() for a in self.accesses],
            "lane_range": list(self.lane_range), "column_range": list(self.column_range),
            "warp": self.warp, "quadrant": self.quadrant,
            "accessible_lanes": list(self.accessible_lanes) if self.accessible_lanes else None,
            "alloc": self.alloc,
            "alloc_columns": list(self.alloc_columns) if self.alloc_columns else None,
            "pack": self.pack, "unpack": self.unpack, "red": self.red,
            "imm_half_splitoff": self.imm_half_splitoff, "ok": self.ok,
            "verdict": [f.to_dict() for f in self.verdict],
        }


def _flag(value: Any, what: str) -> bool:
    if isinstance(value, bool):
        return value
    if value in (0, 1) and isinstance(value, int):
        return bool(value)
    raise ParameterError(f"{what}: {shorten(value)} is not a boolean")


def _ptx(op: str, shape: str, num: int, pack16: bool, unpack16: bool, red: str | None,
         red_type: str) -> str:
    if red is not None:
        return f"tcgen05.ld.red.sync.aligned.{shape}.x{num}.{red}.{red_type}"
    q = ".pack::16b" if pack16 else ".unpack::16b" if unpack16 else ""
    return f"tcgen05.{op}.sync.aligned.{shape}.x{num}{q}.b32"


def footprint(op: str, shape: str, num: int | str, address: int | str, *,
              warp: int | None = None, alloc: int | None = None,
              alloc_base: int | str | None = None, pack: bool = False, unpack: bool = False,
              red: str | None = None, red_type: str = "f32",
              imm_half_splitoff: int | None = None, arch: str | None = None) -> Footprint:
    """The footprint of ``tcgen05.<op>.<shape>.<num>`` at Tensor Memory address ``address``.

    ``op`` is ``"ld"`` or ``"st"``; ``shape`` one of ``32x32b``, ``16x64b``, ``16x128b``,
    ``16x256b``, ``16x32bx2`` (leading dot optional); ``num`` 1..128 (or ``"x8"``).

    * Registers per thread: Table 47 (ld) / 48 (st) -- an NA cell raises
      :class:`ParameterError` naming the cell and the table.
    * Lanes: ``address.lane .. + shape lanes - 1`` (9.7.16.2.3).  Columns per access:
      ``shape bits x num / 32`` from the address column; with ``.pack::16b`` (ld) /
      ``.unpack::16b`` (st) each 32-bit register holds two 16-bit chunks of *adjacent columns*
      (9.7.16.8.2), so the register count stays the table's and the columns double.
    * ``.16x32bx2`` needs ``imm_half_splitoff``: the second ``.16x32b`` access starts at
      ``taddr + immHalfSplitoff`` (plain 32-bit address arithmetic, as the text writes it).
    * ``warp``: warp id (only ``warp % 4`` matters); warp w may access lanes 32w..32w+31
      (9.7.16.8.1).  Without it, a note names the one warp of a warpgroup that may issue the
      access, or an error says that no warp can (lanes span two quadrants).
    * ``alloc``: columns allocated (``nCols``).  Assumption (the text does not say where an
      allocation starts): the allocation starts at column 0, or at the column of
      ``alloc_base`` (the address ``tcgen05.alloc`` wrote) when given; it covers all lanes.
    * ``red`` (``"min"``/``"max"``, ld only; ``red_type`` ``f32``/``u32``/``s32``): the text
      requires ``.num >= .x2`` and the shapes ``.32x32b``/``.16x32bx2``; the syntax has no
      ``.pack`` with ``.red``; ``arch`` (optional) is checked against the ``.red`` target notes.

    Malformed questions raise :class:`ParameterError`: unknown op/shape/num, an NA cell,
    ``.pack::16b`` on st, ``.unpack::16b`` on ld, ``.red`` on st, a missing or unexpected
    ``imm_half_splitoff``.  Rule violations come back as findings in ``verdict``.

    (Long: one check per rule of the tcgen05.ld/st tables -- lanes, columns, warp access,
    allocation, packing, reduction -- over one set of parsed qualifiers.)
    """
    op = _op(op)
    shape = parse_shape(shape)
    num = parse_num(num)
    s = SHAPES[shape]
    regs = registers(shape, num, op)
    table = _table_name(op)
    pack16 = _flag(pack, "pack")
    unpack16 = _flag(unpack, "unpack")
    if pack16 and op != "ld":
        raise ParameterError(".pack::16b is a tcgen05.ld qualifier; tcgen05.st has "
                             ".unpack::16b (PTX 9.7.16.8.2)")
    if unpack16 and op != "st":
        raise ParameterError(".unpack::16b is a tcgen05.st qualifier; tcgen05.ld has "
                             ".pack::16b (PTX 9.7.16.8.2)")
    if red is not None:
        if op != "ld":
            raise ParameterError(".red exists for tcgen05.ld only (PTX 9.7.16.8.3); "
                                 "tcgen05.st has no reduction")
        red = str(red).strip().lower().lstrip(".")
        if red not in RED_OPS:
            raise ParameterError(f"red {shorten(red)}: .redOp is one of " + ", ".join(RED_OPS)
                                 + " (PTX 9.7.16.8.3)")
    red_type = str(red_type).strip().lower().lstrip(".")
    if red_type not in RED_TYPES:
        raise ParameterError(f"red_type {shorten(red_type)}: allowed " + ", ".join(RED_TYPES)
                             + " (PTX 9.7.16.8.3)")
    if arch is not None and arch not in TCGEN05_ARCHES:
        raise ParameterError(f"unknown tcgen05 architecture {shorten(arch)}; known: "
                             + ", ".join(TCGEN05_ARCHES))
    if s.accesses == 2:
        if imm_half_splitoff is None:
            raise ParameterError(f".{shape} needs immHalfSplitoff (imm_half_splitoff): the "
                                 "second .16x32b access is at taddr + immHalfSplitoff "
                                 "(PTX 9.7.16.8.3-4)")
        imm = parse_int(imm_half_splitoff, "imm_half_splitoff")
        if imm < 0:
            raise ParameterError(f"imm_half_splitoff {imm} is negative")
    elif imm_half_splitoff is not None:
        raise ParameterError(f"immHalfSplitoff applies to .16x32bx2 only, not .{shape}")
    else:
        imm = None

    base = unpack_address(address)
    cols = s.bits * num // CELL_BITS * (2 if pack16 or unpack16 else 1)
    bases = [base] if imm is None else [base, _offset(base, imm)]
    accesses = tuple(Access(a, (a.lane, a.lane + s.lanes - 1), (a.column, a.column + cols - 1))
                     for a in bases)
    lane_range = (min(a.lanes[0] for a in accesses), max(a.lanes[1] for a in accesses))
    column_range = (min(a.columns[0] for a in accesses), max(a.columns[1] for a in accesses))

    out: list[Finding] = []
    main, alt, section = TABLES[op]
    out.append(Finding("note", f"tmem.{op}.num",
                       f".{shape}.x{num}: {_plural(regs, '32-bit register')} per thread "
                       f"({main}; {alt} in the stand-alone 9.7.16.8 page)",
                       f"{main}, {section}", None, None, regs))
    out += _address_findings(op, base)
    out += _range_findings(op, accesses)
    quadrant, accessible = None, None
    if warp is not None:
        warp = parse_int(warp, "warp")
        if warp < 0:
            raise ParameterError(f"warp {warp} is negative")
        quadrant = warp % 4
        accessible = (32 * quadrant, 32 * quadrant + 31)
    out += _warp_findings(op, accesses, warp, quadrant, accessible)
    alloc_columns = None
    if alloc_base is not None and alloc is None:
        raise ParameterError("alloc_base (the address tcgen05.alloc wrote) needs alloc (nCols)")
    if alloc is not None:
        alloc = parse_int(alloc, "alloc")
        start = 0 if alloc_base is None else unpack_address(alloc_base).column
        alloc_columns = (start, start + alloc - 1)
        out += check_alloc(alloc)
        out += _alloc_findings(op, accesses, alloc, alloc_columns, alloc_base is not None)
    if pack16 or unpack16:
        q = ".pack::16b" if pack16 else ".unpack::16b"
        out.append(_finding("note", "tmem.{op}.pack", op,
                            f"{q}: each register ({regs} per thread) holds two 16-bit "
                            "chunks of "
                            f"adjacent columns, so each access spans {cols} columns per lane "
                            f"instead of {cols // 2}"))
    if imm is not None:
        out += _split_findings(op, accesses, imm)
    red_regs = 0
    if red is not None:
        red_regs = 1
        out += _red_findings(shape, num, pack16, arch)

    order = {sev: i for i, sev in enumerate(SEVERITIES)}
    out.sort(key=lambda f: order[f.severity])
    return Footprint(
        op=op, shape=shape, num=num, ptx=_ptx(op, shape, num, pack16, unpack16, red, red_type),
        table=table, registers=regs, red_registers=red_regs, lanes=s.lanes,
        columns_per_access=cols, bits_per_lane=s.bits * num, address=base, accesses=accesses,
        lane_range=lane_range, column_range=column_range, warp=warp, quadrant=quadrant,
        accessible_lanes=accessible, alloc=alloc, alloc_columns=alloc_columns, pack=pack16,
        unpack=unpack16, red=red, imm_half_splitoff=imm, verdict=out)


def _plural(n: int, what: str) -> str:
    return f"{n} {what}" if n == 1 else f"{n} {what}s"


def unpack_address(address: Any) -> TmemAddress:
    """A :class:`TmemAddress` from a word, a ``0x`` string or a :class:`TmemAddress`."""
    if isinstance(address, TmemAddress):
        return address
    return unpack(parse_int(address, "address"))


def _offset(base: TmemAddress, imm: int) -> TmemAddress:
    word = base.word + imm
    if word > 0xFFFFFFFF:
        raise ParameterError(f"taddr + immHalfSplitoff = {base.word:#x} + {imm} does not fit "
                             "a 32-bit Tensor Memory address")
    return unpack(word)


def _address_findings(op: str, a: TmemAddress) -> list[Finding]:
    out = []
    if a.byte_index:
        out.append(_finding(
            "warning", "tmem.{op}.address", op,
            f"bits {_LANE.msb}-{BYTE_INDEX_LSB} hold {a.byte_index}: CUTLASS keeps a sub-word "
            "byte index there (scale-factor addresses); PTX 9.7.16.1.1 reads them as lane "
            f"bits -- the footprint uses lane bits {BYTE_INDEX_LSB - 1}-{_LANE.lsb} "
            f"(lane {a.lane})", field_name="lane", value=a.lane_field))
    return out


def _span(rng: tuple[int, int]) -> str:
    return f"{rng[0]}-{rng[1]}" if rng[0] != rng[1] else f"{rng[0]}"


def _range_findings(op: str, accesses: tuple[Access, ...]) -> list[Finding]:
    out = []
    for i, a in enumerate(accesses):
        which = f"access {i + 1} " if len(accesses) > 1 else ""
        if a.lanes[1] >= LANES:
            out.append(_finding("error", "tmem.{op}.lanes", op,
                                f"{which}touches lanes {_span(a.lanes)}, beyond Tensor Memory's "
                                f"{LANES} lanes (0-{LANES - 1})", field_name="lane",
                                value=a.address.lane))
        if a.columns[1] >= COLUMNS:
            out.append(_finding("error", "tmem.{op}.columns", op,
                                f"{which}touches columns {_span(a.columns)}, beyond Tensor "
                                f"Memory's {COLUMNS} columns (0-{COLUMNS - 1})",
                                field_name="column", value=a.address.column))
    return out


def _warp_findings(op: str, accesses: tuple[Access, ...], warp: int | None,
                   quadrant: int | None, accessible: tuple[int, int] | None) -> list[Finding]:
    out = []
    lo = min(a.lanes[0] for a in accesses)
    hi = max(a.lanes[1] for a in accesses)
    if warp is None:
        if hi >= LANES:
            return out  # tmem.{op}.lanes already refuses the lanes beyond 127
        if lo // 32 == hi // 32:
            q = lo // 32
            out.append(_finding("note", "tmem.{op}.warp_lanes", op,
                                f"lanes {lo}-{hi} are accessible to warp {q} of a warpgroup "
                                f"only (warp id % 4 == {q}: lanes {32 * q}-{32 * q + 31})",
                                field_name="lane", value=lo))
        else:
            out.append(_finding("error", "tmem.{op}.warp_lanes", op,
                                f"lanes {lo}-{hi} span more than one 32-lane quadrant: no warp "
                                "may access them all (warp w: lanes 32w..32w+31)",
                                field_name="lane", value=lo))
        return out
    assert quadrant is not None and accessible is not None
    if accessible[0] <= lo and hi <= accessible[1]:
        out.append(_finding("note", "tmem.{op}.warp_lanes", op,
                            f"warp {warp} (warp id % 4 = {quadrant}) may access lanes "
                            f"{_span(accessible)}: lanes {_span((lo, hi))} are inside",
                            field_name="lane", value=lo))
    for i, a in enumerate(accesses):
        which = f"access {i + 1} " if len(accesses) > 1 else ""
        if a.lanes[0] < accessible[0] or a.lanes[1] > accessible[1]:
            out.append(_finding("error", "tmem.{op}.warp_lanes", op,
                                f"warp {warp} (warp id % 4 = {quadrant}) may access lanes "
                                f"{_span(accessible)} only; {which}touches lanes "
                                f"{_span(a.lanes)}", field_name="lane", value=a.address.lane))
    return out


def _alloc_findings(op: str, accesses: tuple[Access, ...], alloc: int,
                    alloc_columns: tuple[int, int], based: bool) -> list[Finding]:
    out = []
    where = "" if based else " (assuming the allocation starts at column 0)"
    lo = min(a.columns[0] for a in accesses)
    hi = max(a.columns[1] for a in accesses)
    if alloc_columns[0] <= lo and hi <= alloc_columns[1]:
        out.append(_finding("note", "tmem.{op}.alloc", op,
                            f"columns {_span((lo, hi))} are inside the allocation of {alloc} "
                            f"columns {_span(alloc_columns)}{where}", field_name="column",
                            value=lo))
    for i, a in enumerate(accesses):
        which = f"access {i + 1} " if len(accesses) > 1 else ""
        if a.columns[0] < alloc_columns[0] or a.columns[1] > alloc_columns[1]:
            out.append(_finding("error", "tmem.{op}.alloc", op,
                                f"{which}touches columns {_span(a.columns)}, outside the "
                                f"allocation of {alloc} columns {_span(alloc_columns)}{where}",
                                field_name="column", value=a.address.column))
    return out


def _split_findings(op: str, accesses: tuple[Access, ...], imm: int) -> list[Finding]:
    first, second = accesses
    out = [_finding("note", "tmem.{op}.split", op,
                    f"second .16x32b access at taddr + {imm} = {second.address.word:#010x}: "
                    f"lanes {_span(second.lanes)}, columns {_span(second.columns)}",
                    value=imm)]
    overlap_lanes = first.lanes[0] <= second.lanes[1] and second.lanes[0] <= first.lanes[1]
    overlap_cols = first.columns[0] <= second.columns[1] and second.columns[0] <= first.columns[1]
    if overlap_lanes and overlap_cols:
        out.append(_finding("warning", "tmem.{op}.split", op,
                            f"the two halves overlap (immHalfSplitoff {imm} is smaller than "
                            f"the {first.columns[1] - first.columns[0] + 1} columns of one "
                            "half): both access the same cells", value=imm))
    return out


def _red_findings(shape: str, num: int, pack16: bool, arch: str | None) -> list[Finding]:
    out = []
    if shape not in RED_SHAPES:
        out.append(_finding("error", "tmem.ld.red", "ld",
                            ".red is defined for shapes " + ", ".join(f".{s}" for s in RED_SHAPES)
                            + f" only (.shape3/.shape4), not .{shape}"))
    if num < 2:
        out.append(_finding("error", "tmem.ld.red", "ld",
                            f"with .red, .num must be at least .x2, not .x{num}", value=num))
    if pack16:
        out.append(_finding("error", "tmem.ld.red", "ld",
                            "the .red forms of tcgen05.ld have no .pack::16b qualifier"))
    if arch is None:
        out.append(_finding("note", "tmem.ld.red", "ld",
                            "tcgen05.ld.red needs PTX 8.8 and sm_103f/sm_110f-family targets "
                            "(" + ", ".join(RED_ARCHES) + "); sm_100a/sm_100f lack it"))
    elif arch not in RED_ARCHES:
        out.append(_finding("error", "tmem.ld.red", "ld",
                            f"tcgen05.ld.red is not supported on {arch}; supported: "
                            + ", ".join(RED_ARCHES), value=arch))
    return out


# ====================================================================== allocation


class AllocRange(Struct, frozen=True):
    """The cells of a ``tcgen05.alloc`` of ``ncols`` columns at ``address``: columns
    ``first..last`` (inclusive) in every lane 0..127 (9.7.16.1.2)."""

    address: TmemAddress
    ncols: int
    columns: tuple[int, int]
    lanes: tuple[int, int] = (0, LANES - 1)

    def __contains__(self, column: int) -> bool:
        return self.columns[0] <= column <= self.columns[1]

    def to_dict(self) -> dict[str, Any]:
        return {"address": f"{self.address.word:#010x}", "ncols": self.ncols,
                "columns": list(self.columns), "lanes": list(self.lanes)}


def check_alloc(ncols: int | str) -> list[Finding]:
    """Findings about ``tcgen05.alloc``'s ``nCols`` (9.7.16.7.1: a power of two within
    [32, 512]; 9.7.16.1.2: unit of 32 columns): empty when valid, else one ``tmem.alloc``
    error saying why.  A non-integer raises :class:`ParameterError`."""
    n = parse_int(ncols, "nCols")
    problems = []
    if n < ALLOC_MIN:
        problems.append(f"below the minimum {ALLOC_MIN}")
    if n > ALLOC_MAX:
        problems.append(f"above the maximum {ALLOC_MAX}")
    if n <= 0 or n & (n - 1):
        problems.append("not a power of two")
    if not problems:
        return []
    r = ACCESS_RULES["tmem.alloc"]
    return [Finding("error", r.id, f"nCols {n} is " + " and ".join(problems) + "; allowed "
                    + ", ".join(str(1 << k) for k in range(5, 10)), r.source,
                    None, None, n)]


def alloc_range(address: int | str, ncols: int | str) -> AllocRange:
    """The columns an allocation of ``ncols`` at ``address`` (the address ``tcgen05.alloc``
    wrote) covers: ``column .. column + ncols - 1``, all 128 lanes.  Raises
    :class:`ParameterError` for an invalid ``nCols`` or a range beyond column 511."""
    n = parse_int(ncols, "nCols")
    bad = check_alloc(n)
    if bad:
        raise ParameterError(f"{bad[0].message} ({bad[0].source})")
    a = unpack_address(address)
    last = a.column + n - 1
    if last >= COLUMNS:
        raise ParameterError(f"an allocation of {n} columns at column {a.column} would end at "
                             f"column {last}, beyond Tensor Memory's {COLUMNS} columns")
    return AllocRange(a, n, (a.column, last))


# ====================================================================== data path layouts


class DataPathLayout(Struct, frozen=True):
    """One row of the 9.7.16.10.5 table: the Tensor Memory data path layout an MMA uses.

    ``layout`` (letter A-G), ``organization`` (as the table writes it), ``half_datapath``
    (Layouts C and F use half the data path lanes), ``lane_alignments`` (the table's
    "Tensor Memory Datapath Lane Alignment": (0,) or (0, 16)), ``section`` and ``figures``.
    """

    layout: str
    m: int
    cta_group: int
    sparse: bool
    ws: bool
    organization: str
    half_datapath: bool
    lane_alignments: tuple[int, ...]
    section: str
    figures: tuple[str, str]

    def to_dict(self) -> dict[str, Any]:
        return {"layout": self.layout, "m": self.m, "cta_group": self.cta_group,
                "sparse": self.sparse, "ws": self.ws, "organization": self.organization,
                "half_datapath": self.half_datapath,
                "lane_alignments": list(self.lane_alignments), "section": self.section,
                "figures": list(self.figures)}


#: The 9.7.16.10.5 table, one row per layout: (M, cta_group, sparse, ws) -> layout letter,
#: data path organization, lane alignments, section, figures.  ``None`` in the sparse / ws
#: positions is the table's "Either" (ws with cta_group::2 is "N/A": Table 39 has no .ws
#: variant for cta_group::2).
DATAPATH_LAYOUTS: tuple[tuple[int, int, bool | None, bool | None, str, str, tuple[int, ...],
                              str, tuple[str, str]], ...] = (
    (32, 1, None, True, "G", "1x4", (0,), "9.7.16.10.5.7", ("Figure 217", "Figure 218")),
    (64, 1, None, True, "E", "2x3", (0,), "9.7.16.10.5.5", ("Figure 213", "Figure 214")),
    (64, 1, None, False, "F", "4x1 (1/2 datapath utilized)", (0, 16), "9.7.16.10.5.6",
     ("Figure 215", "Figure 216")),
    (128, 1, None, None, "D", "4x1", (0,), "9.7.16.10.5.4", ("Figure 211", "Figure 212")),
    (128, 2, False, False, "B", "2x2", (0,), "9.7.16.10.5.2", ("Figure 207", "Figure 208")),
    (128, 2, True, False, "C", "4x1 (1/2 datapath utilized)", (0, 16), "9.7.16.10.5.3",
     ("Figure 209", "Figure 210")),
    (256, 2, None, False, "A", "4x1", (0,), "9.7.16.10.5.1", ("Figure 205", "Figure 206")),
)


def _bool(value: Any, what: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in ("true", "false", "1", "0", "yes",
                                                            "no", "sparse", "dense"):
        return value.strip().lower() in ("true", "1", "yes", "sparse")
    raise ParameterError(f"{what}: {shorten(value)} is not a boolean")


def datapath_layout(m: int, *, cta_group: int = 1, sparse: bool = False,
                    ws: bool = False) -> DataPathLayout:
    """The data path layout (9.7.16.10.5, Layouts A-G) of an MMA with ``m`` rows, ``cta_group``
    1 or 2, a sparse or dense A and with or without ``.ws``.

    Raises :class:`ParameterError` for a combination the table does not define (M=32 without
    .ws, M=256 with cta_group::1, M=64 with cta_group::2, .ws with cta_group::2, ...).
    """
    m = parse_int(m, "m")
    cta_group = parse_int(cta_group, "cta_group")
    sparse = _bool(sparse, "sparse")
    ws = _bool(ws, "ws")
    if cta_group not in (1, 2):
        raise ParameterError(f"cta_group={cta_group}: allowed 1 or 2")
    if ws and cta_group == 2:
        raise ParameterError(".ws with cta_group::2 is not defined: Table 39 marks it invalid "
                             "and 9.7.16.10.5 lists .ws as N/A for cta_group::2")
    for row_m, row_cta, row_sparse, row_ws, letter, org, align, section, figures in \
            DATAPATH_LAYOUTS:
        if (row_m, row_cta) == (m, cta_group) and row_sparse in (None, sparse) \
                and row_ws in (None, ws):
            return DataPathLayout(letter, m, cta_group, sparse, ws, org, "1/2" in org, align,
                                  section, figures)
    known = "; ".join(
        f"M={r[0]} cta_group::{r[1]}"
        + ("" if r[2] is None else (" sparse" if r[2] else " dense"))
        + ("" if r[3] is None or r[1] == 2 else (" .ws" if r[3] else " no .ws"))
        + f" -> {r[4]}" for r in DATAPATH_LAYOUTS)
    raise ParameterError(
        f"M={m} cta_group::{cta_group} {'sparse' if sparse else 'dense'} "
        f"{'.ws' if ws else 'no .ws'}: 9.7.16.10.5 defines no data path layout for it; "
        f"defined: {known}")

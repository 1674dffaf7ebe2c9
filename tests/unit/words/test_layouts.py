"""Register layouts: tiling, bit order, PTX field metadata, roles, generated boundary tests.

Every boundary test below is generated from ``layout.fields``; the only hand-written bit
positions are the literal PTX tables in ``PTX_TABLES`` (the "spec says" checks).
"""

from __future__ import annotations

import random
import re

import pytest

import descriptors
from descriptors import (IDESC, IDESC_MXF4, IDESC_MXF8F6F4, LAYOUTS, SMEM, TMEM, ZCM, FieldError,
                         ParameterError)

ALL_LAYOUTS = list(LAYOUTS.values())
LAYOUT_IDS = [lay.name for lay in ALL_LAYOUTS]
FIELD_CASES = [(lay, f) for lay in ALL_LAYOUTS for f in lay.fields]
FIELD_IDS = [f"{lay.name}.{f.name}" for lay, f in FIELD_CASES]
ALIAS_CASES = [(lay, a, t) for lay in ALL_LAYOUTS for a, t in lay.aliases.items()]
ALIAS_IDS = [f"{lay.name}.{a}" for lay, a, _ in ALIAS_CASES]


def default_word(layout) -> int:
    """The word with every field at its default, computed from the field table (not encode)."""
    w = 0
    for f in layout.fields:
        w |= f.default << f.lsb
    return w


# ------------------------------------------------------------------ tiling


def test_every_layout_is_registered():
    assert set(LAYOUTS) == {"smem", "idesc", "idesc_mxf8f6f4", "idesc_mxf4", "zcm", "tmem", "wgmma"}
    assert LAYOUTS["wgmma"].size == 64
    assert [SMEM.size, IDESC.size, IDESC_MXF8F6F4.size, IDESC_MXF4.size, ZCM.size, TMEM.size] == \
        [64, 32, 32, 32, 64, 32]


@pytest.mark.parametrize("layout", ALL_LAYOUTS, ids=LAYOUT_IDS)
def test_fields_tile_the_word_exactly(layout):
    fields = layout.fields
    assert sum(f.width for f in fields) == layout.size
    # contiguous, LSB first, no gap and no overlap
    pos = 0
    for f in fields:
        assert f.lsb == pos, f"{layout.name}.{f.name} starts at {f.lsb}, expected {pos}"
        assert f.width >= 1
        assert f.msb == f.lsb + f.width - 1
        pos += f.width
    assert pos == layout.size
    union = 0
    for f in fields:
        assert f.mask == ((1 << f.width) - 1) << f.lsb
        assert union & f.mask == 0, f"{layout.name}.{f.name} overlaps"
        union |= f.mask
    assert union == (1 << layout.size) - 1 == layout.max_word
    assert len({f.name for f in fields}) == len(fields)
    assert layout.by_name == {f.name: f for f in fields}


@pytest.mark.parametrize("layout", ALL_LAYOUTS, ids=LAYOUT_IDS)
def test_struct_sizeof_matches(layout):
    assert layout.struct.sizeof() * 8 == layout.size
    # Construct sees the fields MSB first (big-endian bit stream).
    assert [sc.name for sc in layout.struct.subcon.subcons] == [f.name for f in reversed(layout.fields)]


# ------------------------------------------------------------------ bit order


@pytest.mark.parametrize(("layout", "field"), FIELD_CASES, ids=FIELD_IDS)
def test_field_at_one_sets_its_lsb(layout, field):
    base = default_word(layout)
    assert layout.encode() == base
    word = layout.encode(**{field.name: 1})
    assert word == (base & ~field.mask) | (1 << field.lsb)
    if field.default == 0:
        assert word ^ base == 1 << field.lsb
    # and the decode of the LSB-only word reads 1 in that field
    assert layout.decode(1 << field.lsb)[field.name] == 1
    assert layout.construct_parse(1 << field.lsb)[field.name] == 1
    assert layout.construct_build({**layout.decode(base), field.name: 1}) == word


@pytest.mark.parametrize(("layout", "field"), FIELD_CASES, ids=FIELD_IDS)
def test_field_alone_at_one_is_exactly_its_lsb(layout, field):
    # every other field (fixed constants included) explicitly 0: the word is exactly 1 << lsb
    zeros = {f.name: 0 for f in layout.fields}
    only = {**zeros, field.name: 1}
    assert layout.encode(**only) == 1 << field.lsb
    assert layout.encode_fields(only) == 1 << field.lsb
    assert layout.construct_build(only) == 1 << field.lsb
    assert layout.construct_parse(1 << field.lsb) == only == layout.decode(1 << field.lsb)
    # the field's top bit is bit msb of the register value
    top = {**zeros, field.name: 1 << (field.width - 1)}
    assert layout.encode(**top) == 1 << field.msb == layout.construct_build(top)


@pytest.mark.parametrize(("layout", "field"), FIELD_CASES, ids=FIELD_IDS)
def test_construct_build_equals_encode_for_partial_fields(layout, field):
    # one field given, the rest defaulted: both routes fill the same defaults
    for value in (0, 1, field.max, field.max >> 1):
        assert layout.construct_build({field.name: value}) == layout.encode(**{field.name: value})


def test_bit_zero_is_lsb_of_register_value():
    assert TMEM.encode(column=1) == 1
    assert TMEM.encode(lane=1) == 0x10000
    assert TMEM.decode(0x00010002) == {"column": 2, "lane": 1}
    assert SMEM.decode(1)["start_address"] == 1
    assert SMEM.decode(1 << 63)["swizzle"] == 4
    # Construct's route reads the same big-endian byte string the same way
    assert SMEM.to_bytes(1) == b"\x00" * 7 + b"\x01"
    assert SMEM.construct_parse(1 << 63)["swizzle"] == 4


def _words(layout):
    rng = random.Random(1234 + layout.size)
    words = [1 << i for i in range(layout.size)]
    words += [0, layout.max_word]
    words += [rng.getrandbits(layout.size) for _ in range(200)]
    return words


@pytest.mark.parametrize("layout", ALL_LAYOUTS, ids=LAYOUT_IDS)
def test_construct_route_agrees(layout):
    for w in _words(layout):
        ours = layout.decode(w)
        assert layout.construct_parse(w) == ours, hex(w)
        assert list(ours) == [f.name for f in layout.fields]
        assert layout.construct_build(ours) == w, hex(w)
        assert layout.encode(**ours) == w, hex(w)
        assert layout.encode_fields(ours) == w, hex(w)
        # extraction by the Field table agrees too
        assert ours == {f.name: f.extract(w) for f in layout.fields}


# ------------------------------------------------------------------ the PTX tables, literally

#: (name, lsb, width) per layout, copied from the PTX tables.
PTX_TABLES = {
    "smem": [  # Table 40
        ("start_address", 0, 14), ("reserved_14", 14, 2), ("leading_byte_offset", 16, 14),
        ("reserved_30", 30, 2), ("stride_byte_offset", 32, 14), ("fixed_constant", 46, 3),
        ("base_offset", 49, 3), ("lbo_mode", 52, 1), ("fixed_zero", 53, 8), ("swizzle", 61, 3)],
    "idesc": [  # Table 42
        ("sparsity_selector", 0, 2), ("sparse", 2, 1), ("saturate", 3, 1), ("d_type", 4, 2),
        ("reserved_6", 6, 1), ("a_type", 7, 3), ("b_type", 10, 3), ("negate_a", 13, 1),
        ("negate_b", 14, 1), ("transpose_a", 15, 1), ("transpose_b", 16, 1), ("n_dim", 17, 6),
        ("reserved_23", 23, 1), ("m_dim", 24, 5), ("reserved_29", 29, 1), ("max_shift", 30, 2)],
    "idesc_mxf8f6f4": [  # Table 43
        ("reserved_0", 0, 2), ("sparse", 2, 1), ("reserved_3", 3, 1), ("b_scale_id", 4, 2),
        ("reserved_6", 6, 1), ("a_type", 7, 3), ("b_type", 10, 3), ("negate_a", 13, 1),
        ("negate_b", 14, 1), ("transpose_a", 15, 1), ("transpose_b", 16, 1), ("n_dim", 17, 6),
        ("scale_type", 23, 1), ("reserved_24", 24, 3), ("m_dim", 27, 2), ("a_scale_id", 29, 2),
        ("reserved_31", 31, 1)],
    "idesc_mxf4": [  # Table 44
        ("reserved_0", 0, 2), ("sparse", 2, 1), ("reserved_3", 3, 1), ("b_scale_id", 4, 2),
        ("reserved_6", 6, 1), ("a_type", 7, 3), ("b_type", 10, 2), ("reserved_12", 12, 1),
        ("negate_a", 13, 1), ("negate_b", 14, 1), ("transpose_a", 15, 1), ("transpose_b", 16, 1),
        ("n_dim", 17, 6), ("scale_type", 23, 1), ("reserved_24", 24, 3), ("m_dim", 27, 2),
        ("a_scale_id", 29, 2), ("k_dim", 31, 1)],
    "zcm": [  # Table 45 (bits 62-63 are not in the table: reserved)
        ("start_count_0", 0, 8), ("start_count_1", 8, 8), ("start_count_2", 16, 8),
        ("start_count_3", 24, 8), ("first_span_0", 32, 1), ("first_span_1", 33, 1),
        ("first_span_2", 34, 1), ("first_span_3", 35, 1), ("reserved_36", 36, 3),
        ("non_zero_mask", 39, 1), ("skip_span", 40, 8), ("use_span", 48, 8),
        ("column_shift", 56, 6), ("reserved_62", 62, 2)],
    "tmem": [("column", 0, 16), ("lane", 16, 16)],  # 9.7.16.1.1
}
SOURCES = {"smem": "Table 40", "idesc": "Table 42", "idesc_mxf8f6f4": "Table 43",
           "idesc_mxf4": "Table 44", "zcm": "Table 45", "tmem": "9.7.16.1.1"}


@pytest.mark.parametrize("name", sorted(PTX_TABLES))
def test_layout_matches_ptx_table(name):
    layout = LAYOUTS[name]
    assert [(f.name, f.lsb, f.width) for f in layout.fields] == PTX_TABLES[name]
    assert layout.source == SOURCES[name]
    assert all(f.source == SOURCES[name] for f in layout.fields)


def test_spec_says():
    # Table 42
    assert (IDESC.by_name["n_dim"].lsb, IDESC.by_name["n_dim"].width) == (17, 6)
    assert IDESC.by_name["n_dim"].bits == "[22:17]"
    assert (IDESC.by_name["m_dim"].lsb, IDESC.by_name["m_dim"].width) == (24, 5)
    assert IDESC.by_name["max_shift"].lsb == 30
    assert IDESC.by_name["max_shift"].msb == 31
    # Table 43
    assert (IDESC_MXF8F6F4.by_name["m_dim"].lsb, IDESC_MXF8F6F4.by_name["m_dim"].width) == (27, 2)
    assert IDESC_MXF8F6F4.by_name["a_scale_id"].lsb == 29
    # Table 44
    assert IDESC_MXF4.by_name["b_type"].width == 2
    assert (IDESC_MXF4.by_name["reserved_12"].lsb, IDESC_MXF4.by_name["reserved_12"].width) == (12, 1)
    assert IDESC_MXF4.by_name["reserved_12"].bits == "[12]"
    assert IDESC_MXF4.by_name["k_dim"].lsb == 31
    # Table 40
    fc = SMEM.by_name["fixed_constant"]
    assert (fc.lsb, fc.width, fc.default) == (46, 3, 1)
    assert SMEM.by_name["swizzle"].lsb == 61
    assert SMEM.by_name["swizzle"].bits == "[63:61]"
    # Table 45
    assert ZCM.by_name["non_zero_mask"].lsb == 39
    assert ZCM.by_name["skip_span"].lsb == 40
    assert ZCM.by_name["use_span"].lsb == 48
    assert (ZCM.by_name["column_shift"].lsb, ZCM.by_name["column_shift"].width) == (56, 6)
    # 9.7.16.1.1
    assert TMEM.by_name["lane"].lsb == 16
    # the empty SMEM word is the fixed constant alone
    assert SMEM.encode() == 1 << 46


# ------------------------------------------------------------------ roles


@pytest.mark.parametrize(("layout", "field"), FIELD_CASES, ids=FIELD_IDS)
def test_roles(layout, field):
    if field.name.startswith("reserved"):
        assert field.role == "reserved"
        assert field.default == 0
    elif field.name in ("fixed_constant", "fixed_zero"):
        assert field.role == "constant"
    else:
        assert field.role == "field"
        assert field.default == 0
    assert field.source == layout.source


def test_constant_defaults():
    assert SMEM.by_name["fixed_constant"].default == 0b001
    assert SMEM.by_name["fixed_zero"].default == 0
    assert [f.name for lay in ALL_LAYOUTS for f in lay.fields if f.role == "constant"] == \
        ["fixed_constant", "fixed_zero"]


# ------------------------------------------------------------------ generated boundaries


@pytest.mark.parametrize(("layout", "field"), FIELD_CASES, ids=FIELD_IDS)
def test_field_zero_and_max_encode(layout, field):
    base = default_word(layout)
    w0 = layout.encode(**{field.name: 0})
    assert w0 == base & ~field.mask
    assert layout.decode(w0)[field.name] == 0
    wmax = layout.encode(**{field.name: field.max})
    assert field.max == (1 << field.width) - 1
    assert wmax == (base & ~field.mask) | field.mask
    assert layout.decode(wmax)[field.name] == field.max
    # every other field keeps its default
    assert {k: v for k, v in layout.decode(wmax).items() if k != field.name} == \
        {f.name: f.default for f in layout.fields if f.name != field.name}
    # the mapping fast path and the public encode_raw agree
    full = {f.name: f.default for f in layout.fields}
    full[field.name] = field.max
    assert layout.encode_fields(full) == wmax


def _assert_field_error(exc_info, layout, field):
    err = exc_info.value
    msg = str(err)
    assert err.field == field.name
    assert err.bits == field.bits
    assert err.source == layout.source
    assert f"'{field.name}'" in msg
    assert field.bits in msg
    assert layout.source in msg
    assert isinstance(err, descriptors.DescgenError)


@pytest.mark.parametrize(("layout", "field"), FIELD_CASES, ids=FIELD_IDS)
@pytest.mark.parametrize("delta", ["max+1", "-1", "huge"])
def test_field_out_of_range_refused(layout, field, delta):
    value = {"max+1": field.max + 1, "-1": -1, "huge": 1 << 200}[delta]
    with pytest.raises(FieldError) as exc_info:
        layout.encode(**{field.name: value})
    _assert_field_error(exc_info, layout, field)
    assert exc_info.value.value == value
    # the mapping fast path refuses too (it must not truncate)
    full = {f.name: f.default for f in layout.fields}
    full[field.name] = value
    with pytest.raises(FieldError) as exc_info:
        layout.encode_fields(full)
    _assert_field_error(exc_info, layout, field)


@pytest.mark.parametrize(("layout", "field"), FIELD_CASES, ids=FIELD_IDS)
@pytest.mark.parametrize("value", [1.5, "3", None, 1.0, [1], b"\x01"], ids=repr)
def test_field_non_int_refused(layout, field, value):
    with pytest.raises(FieldError) as exc_info:
        layout.encode(**{field.name: value})
    _assert_field_error(exc_info, layout, field)


@pytest.mark.parametrize("layout", ALL_LAYOUTS, ids=LAYOUT_IDS)
def test_unknown_field_refused(layout):
    with pytest.raises(ParameterError, match="no_such_field"):
        layout.encode(no_such_field=1)
    with pytest.raises(ParameterError):
        layout.canonical("no_such_field")
    with pytest.raises(ParameterError):
        layout.encode_fields({**layout.decode(0), "no_such_field": 0})


@pytest.mark.parametrize(("layout", "alias", "target"), ALIAS_CASES, ids=ALIAS_IDS)
def test_alias_maps_to_ptx_field(layout, alias, target):
    f = layout.by_name[target]
    assert layout.canonical(alias) == target
    assert layout.encode(**{alias: f.max}) == layout.encode(**{target: f.max})
    assert layout.encode(**{alias: 1}) == layout.encode(**{target: 1})
    with pytest.raises(ParameterError):
        layout.encode(**{alias: 1, target: 1})
    with pytest.raises(FieldError) as exc_info:
        layout.encode(**{alias: f.max + 1})
    assert exc_info.value.field == target


def test_cutlass_alias_examples():
    assert IDESC.encode(c_format=1) == IDESC.encode(d_type=1) == 1 << 4
    assert SMEM.encode(layout_type=2) == SMEM.encode(swizzle=2)
    assert IDESC_MXF4.encode(k_size=1) == IDESC_MXF4.encode(k_dim=1) == 1 << 31
    assert ZCM.encode(nzm=1, shift=2) == ZCM.encode(non_zero_mask=1, column_shift=2)


# ------------------------------------------------------------------ docstrings


@pytest.mark.parametrize("layout", ALL_LAYOUTS, ids=LAYOUT_IDS)
def test_docstring_has_bit_diagram_line_per_field(layout):
    doc = layout.__doc__
    assert doc
    assert layout.source in doc
    assert f"{layout.size}-bit" in doc
    lines = doc.splitlines()
    for f in layout.fields:
        rng = f"{f.msb}-{f.lsb}" if f.width > 1 else f"{f.lsb}"
        pattern = re.compile(rf"^\s*{re.escape(rng)}\s+{re.escape(f.name)}(\s|$)")
        assert sum(bool(pattern.match(line)) for line in lines) == 1, (layout.name, f.name)
    # MSB-first order in the diagram
    order = [line.split()[1] for line in lines if re.match(r"^\s*\d+(-\d+)?\s+\w", line)]
    assert order == [f.name for f in reversed(layout.fields)]

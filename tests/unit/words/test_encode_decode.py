"""Semantic encode/decode: enum tables, scaling, refusals, real-world words, error hygiene.

Enum and boundary cases are generated from ``KINDS`` and the layout tables; the real words are
published values (public kernels, or PTX Table 44 for their direct variants), each built from
its parameters.
"""

from __future__ import annotations

import functools
import math

import pytest

import descriptors
from descriptors import (DESCRIPTORS, KINDS, LAYOUTS, PARAMETERS, SMEM, TMEM, ZCM, DescgenError,
                         FieldError, InvalidDescriptorError, KindRequiredError, ParameterError,
                         WordError)
from descriptors.words.enums import LBO_MODE, MAJOR, MAX_SHIFT, SWIZZLE

#: The packing (descriptors.encode without the rules): these tests are about fields and values.
pack = functools.partial(descriptors.encode, check=False)

KIND_NAMES = list(KINDS)
BLOCK_SCALED = [k for k, v in KINDS.items() if v.block_scaled]
TABLE42 = [k for k, v in KINDS.items() if not v.block_scaled]
M_SHIFT = {"idesc": 4, "idesc_mxf8f6f4": 7, "idesc_mxf4": 7}

#: Every type name any table knows (A/B, D, scale), to find the names a kind must refuse.
ALL_TYPE_NAMES = sorted({c.name for k in KINDS.values()
                         for t in (k.ab_types, k.d_types, k.scale_types) if t is not None
                         for c in t.choices} | {"tf32", "f32", "s32", "e8m0x", "fp8", "int4"})


def layout_of(kind):
    return LAYOUTS[KINDS[kind].layout]


def base_idesc(kind, **extra):
    """A legal idesc configuration for ``kind`` (first A/B choice, M 128, N 256)."""
    k = KINDS[kind]
    p = {"kind": kind, "a_type": k.ab_types.choices[0].name, "b_type": k.ab_types.choices[0].name,
         "m": 256 if k.block_scaled else 128, "n": 256}
    if k.d_types is not None:
        p["d_type"] = k.d_types.choices[-1].name
    p.update(extra)
    return p


def raw(descriptor, word, kind=None):
    return descriptors.decode(descriptor, word, kind=kind).fields


# ------------------------------------------------------------------ enum tables


@pytest.mark.parametrize("kind", KIND_NAMES)
def test_every_ab_type_choice_encodes_to_its_code(kind):
    k = KINDS[kind]
    seen = 0
    for choice in k.ab_types.choices:
        for spelling in (choice.name, choice.name.upper(), *choice.aliases):
            w = pack("idesc", **base_idesc(kind, a_type=spelling, b_type=spelling))
            f = raw("idesc", w, kind)
            assert f["a_type"] == choice.value, spelling
            assert f["b_type"] == choice.value, spelling
            v = descriptors.decode("idesc", w, kind=kind).values
            assert v["a_type"] == v["b_type"] == choice.name
            seen += 1
        # A and B independently
        other = k.ab_types.choices[-1]
        w = pack("idesc", **base_idesc(kind, a_type=choice.name, b_type=other.name))
        assert (raw("idesc", w, kind)["a_type"], raw("idesc", w, kind)["b_type"]) == \
            (choice.value, other.value)
    assert seen >= len(k.ab_types.choices)


@pytest.mark.parametrize("kind", [k for k in KIND_NAMES if KINDS[k].d_types is not None])
def test_every_d_type_choice_encodes_to_its_code(kind):
    for choice in KINDS[kind].d_types.choices:
        for spelling in (choice.name, *choice.aliases):
            w = pack("idesc", **base_idesc(kind, d_type=spelling))
            assert raw("idesc", w, kind)["d_type"] == choice.value
            assert descriptors.decode("idesc", w, kind=kind).values["d_type"] == choice.name


@pytest.mark.parametrize("kind", [k for k in KIND_NAMES if KINDS[k].d_types is None])
def test_d_type_of_block_scaled_is_f32_only(kind):
    w = pack("idesc", **base_idesc(kind))
    assert pack("idesc", **base_idesc(kind, d_type="f32")) == w
    assert descriptors.decode("idesc", w, kind=kind).values["d_type"] == "f32"
    for bad in ("f16", "s32", "bf16"):
        with pytest.raises(ParameterError, match="d_type"):
            pack("idesc", **base_idesc(kind, d_type=bad))


@pytest.mark.parametrize("kind", BLOCK_SCALED)
def test_every_scale_type_choice_encodes_to_its_code(kind):
    for choice in KINDS[kind].scale_types.choices:
        for spelling in (choice.name, choice.name.upper(), *choice.aliases):
            w = pack("idesc", **base_idesc(kind, scale_type=spelling))
            assert raw("idesc", w, kind)["scale_type"] == choice.value
            assert descriptors.decode("idesc", w, kind=kind).values["scale_type"] == choice.name


def _enum_params(kind):
    k = KINDS[kind]
    tables = {"a_type": k.ab_types, "b_type": k.ab_types, "d_type": k.d_types,
              "scale_type": k.scale_types}
    return {p: t for p, t in tables.items() if t is not None}


ENUM_CASES = [(kind, p) for kind in KIND_NAMES for p in _enum_params(kind)]


@pytest.mark.parametrize(("kind", "param"), ENUM_CASES, ids=[f"{k}-{p}" for k, p in ENUM_CASES])
def test_names_outside_each_enum_are_refused(kind, param):
    k = KINDS[kind]
    table = _enum_params(kind)[param]
    outside = [n for n in ALL_TYPE_NAMES if n not in table]
    assert outside
    for name in outside:
        with pytest.raises(FieldError) as exc_info:
            pack("idesc", **base_idesc(kind, **{param: name}))
        assert exc_info.value.field == param
        assert f"'{param}'" in str(exc_info.value)
        assert k.source in str(exc_info.value)
    # raw integer codes are not names either
    for code in range(layout_of(kind).by_name[param].max + 1):
        with pytest.raises(FieldError) as exc_info:
            pack("idesc", **base_idesc(kind, **{param: code}))
        assert exc_info.value.field == param


def test_spec_examples_of_refused_names():
    with pytest.raises(FieldError, match="a_type"):
        pack("idesc", kind="f16", a_type="e4m3", b_type="f16", m=128, n=256)
    for kind in ("mxf8f6f4", "mxf4"):
        with pytest.raises(FieldError) as exc_info:
            pack("idesc", **base_idesc(kind, scale_type="ue4m3"))
        assert exc_info.value.field == "scale_type"
    # ue4m3 is legal for mxf4nvf4 only, code 0
    w = pack("idesc", **base_idesc("mxf4nvf4", scale_type="ue4m3"))
    assert raw("idesc", w, "mxf4nvf4")["scale_type"] == 0


def test_swizzle_names():
    for choice in SWIZZLE.choices:
        for spelling in (choice.name, *choice.aliases):
            w = pack("smem", swizzle=spelling)
            assert raw("smem", w)["swizzle"] == choice.value
            assert descriptors.decode("smem", w).values["swizzle"] == choice.name
    invalid_codes = [c for c in range(SMEM.by_name["swizzle"].max + 1) if c not in SWIZZLE.values]
    assert invalid_codes == [3, 5, 7]
    bad = [str(c) for c in invalid_codes] + ["16B", "256B", "SWIZZLE_16B", "128", "", "none!"]
    bad += list(range(8))  # raw ints are not names
    for name in bad:
        with pytest.raises(FieldError) as exc_info:
            pack("smem", swizzle=name)
        assert exc_info.value.field == "swizzle"


def test_max_shift_choices_and_refusals():
    for choice in MAX_SHIFT.choices:
        for spelling in (choice.name, int(choice.name)):
            w = pack("idesc", **base_idesc("f16", max_shift=spelling))
            assert raw("idesc", w, "f16")["max_shift"] == choice.value
            assert descriptors.decode("idesc", w, kind="f16").values["max_shift"] == int(choice.name)
    legal = {int(c.name) for c in MAX_SHIFT.choices}
    for bad in [v for v in range(65) if v not in legal] + ["4", "64", "x"]:
        with pytest.raises(FieldError) as exc_info:
            pack("idesc", **base_idesc("f16", max_shift=bad))
        assert exc_info.value.field == "max_shift"
    for kind in BLOCK_SCALED:  # no such field
        with pytest.raises(ParameterError, match="max_shift"):
            pack("idesc", **base_idesc(kind, max_shift=8))


def test_major_and_lbo_mode_choices():
    for choice in MAJOR.choices:
        w = pack("idesc", **base_idesc("f16", a_major=choice.name, b_major=choice.name))
        f = raw("idesc", w, "f16")
        assert f["transpose_a"] == f["transpose_b"] == choice.value
    for choice in LBO_MODE.choices:
        assert raw("smem", pack("smem", lbo_mode=choice.name))["lbo_mode"] == choice.value
    with pytest.raises(FieldError):
        pack("idesc", **base_idesc("f16", a_major="X"))


#: (descriptor, parameter, raw field, table) of the enumerated parameters outside the type tables.
OTHER_ENUMS = [("idesc", "a_major", "transpose_a", MAJOR), ("idesc", "b_major", "transpose_b", MAJOR),
               ("smem", "lbo_mode", "lbo_mode", LBO_MODE)]


@pytest.mark.parametrize(("descriptor", "param", "field", "table"), OTHER_ENUMS,
                         ids=[f"{d}-{p}" for d, p, _, _ in OTHER_ENUMS])
def test_values_outside_other_enums_refused(descriptor, param, field, table):
    """Every name a table does not know, and every int above the field's codes, is refused."""
    def call(value):
        if descriptor == "idesc":
            return pack("idesc", **base_idesc("f16", **{param: value}))
        return pack(descriptor, **{param: value})

    lay = descriptors.layout_for(descriptor, "f16" if descriptor == "idesc" else None)
    f = lay.by_name[field]
    for choice in table.choices:  # ints name their choice for these tables
        assert raw(descriptor, call(choice.value), "f16" if descriptor == "idesc" else None)[field] \
            == choice.value
    outside = [v for v in range(-2, f.max + 4) if v not in table.values]
    outside += ["X", "", "2", "row", "column", "k_major!", 1.0, [0]]
    assert -1 in outside and f.max + 1 in outside
    for value in outside:
        with pytest.raises(FieldError) as exc_info:
            call(value)
        assert exc_info.value.field == field
        assert f.bits in str(exc_info.value)


def test_base_offset_range():
    f = SMEM.by_name["base_offset"]
    for v in range(f.max + 1):
        assert raw("smem", pack("smem", base_offset=v))["base_offset"] == v
    for v in (f.max + 1, -1, 1 << 70):
        with pytest.raises(FieldError) as exc_info:
            pack("smem", base_offset=v)
        assert exc_info.value.field == "base_offset"
        assert f.bits in str(exc_info.value)


# ------------------------------------------------------------------ M / N scaling


@pytest.mark.parametrize("kind", KIND_NAMES)
def test_m_n_scaling(kind):
    lay = layout_of(kind)
    shift = M_SHIFT[lay.name]
    step = 1 << shift
    assert shift == (4 if kind in TABLE42 else 7)
    m_max = lay.by_name["m_dim"].max << shift
    assert m_max == (496 if kind in TABLE42 else 384)
    for m in range(step, m_max + 1, step):
        w = pack("idesc", **base_idesc(kind, m=m))
        assert raw("idesc", w, kind)["m_dim"] == m >> shift
        assert w & lay.by_name["m_dim"].mask == (m >> shift) << lay.by_name["m_dim"].lsb
        assert descriptors.decode("idesc", w, kind=kind).values["m"] == m
    for n in range(8, 505, 8):
        w = pack("idesc", **base_idesc(kind, n=n))
        assert raw("idesc", w, kind)["n_dim"] == n >> 3
        assert descriptors.decode("idesc", w, kind=kind).values["n"] == n


@pytest.mark.parametrize("kind", KIND_NAMES)
def test_m_n_refusals(kind):
    bad_m = [100, 512, -16, 8, 1 << 40]
    if kind in BLOCK_SCALED:
        bad_m += [64, 192, 496]
    for m in bad_m:
        with pytest.raises(FieldError) as exc_info:
            pack("idesc", **base_idesc(kind, m=m))
        assert exc_info.value.field == "m_dim"
        assert exc_info.value.bits in str(exc_info.value)
    for n in (260, 512, 4, -8, 1 << 40):
        with pytest.raises(FieldError) as exc_info:
            pack("idesc", **base_idesc(kind, n=n))
        assert exc_info.value.field == "n_dim"
        assert "[22:17]" in str(exc_info.value)


def test_m_512_refused_for_f16():
    with pytest.raises(FieldError, match=r"'m_dim'\[28:24\]"):
        pack("idesc", kind="f16", a_type="f16", b_type="f16", m=512, n=128)
    with pytest.raises(FieldError, match=r"'m_dim'\[28:24\]"):
        pack("idesc", kind="f16", a_type="f16", b_type="f16", m=100, n=128)


# ------------------------------------------------------------------ smem byte fields

BYTE_FIELDS = ["start_address", "leading_byte_offset", "stride_byte_offset"]
BYTE_SPELLINGS = {"start_address": ["start_address", "start_address_bytes"],
                  "leading_byte_offset": ["leading_byte_offset", "lbo", "leading_byte_offset_bytes"],
                  "stride_byte_offset": ["stride_byte_offset", "sbo", "stride_byte_offset_bytes"]}


@pytest.mark.parametrize("field", BYTE_FIELDS)
def test_smem_byte_fields(field):
    f = SMEM.by_name[field]
    for spelling in BYTE_SPELLINGS[field]:
        w = pack("smem", **{spelling: 0x3FFF0})
        assert raw("smem", w)[field] == 0x3FFF == f.max
        assert descriptors.decode("smem", w).values[f"{field}_bytes"] == 0x3FFF0
        assert pack("smem", **{spelling: 16}) == SMEM.encode(**{field: 1})
        assert pack("smem", **{spelling: "0x400"}) == SMEM.encode(**{field: 0x40})
    for bad in (8, 1, 0x3FFF8, 0x40000, 0x40010, 0x7FFF0, -16, -1, 1 << 64):
        with pytest.raises(FieldError) as exc_info:
            pack("smem", **{field: bad})
        assert exc_info.value.field == field
        assert f.bits in str(exc_info.value)
        assert "Table 40" in str(exc_info.value)


# ------------------------------------------------------------------ zcm / tmem


def test_zcm_start_count_lists():
    for n in range(1, 5):
        vals = [5 + i for i in range(n)]
        w = pack("zcm", start_count=vals)
        f = raw("zcm", w)
        assert [f[f"start_count_{i}"] for i in range(4)] == vals + [0] * (4 - n)
        assert descriptors.decode("zcm", w).values["start_count"] == vals + [0] * (4 - n)
        w = pack("zcm", first_span=[1] * n)
        assert [raw("zcm", w)[f"first_span_{i}"] for i in range(4)] == [1] * n + [0] * (4 - n)
    for bad in ([1, 2, 3, 4, 5], [], 3, "1234"):
        with pytest.raises(ParameterError):
            pack("zcm", start_count=bad)
        with pytest.raises(ParameterError):
            pack("zcm", first_span=bad)
    with pytest.raises(FieldError) as exc_info:
        pack("zcm", start_count=[0, 256])
    assert exc_info.value.field == "start_count_1"
    with pytest.raises(FieldError) as exc_info:
        pack("zcm", first_span=[0, 0, 2])
    assert exc_info.value.field == "first_span_2"
    # non_zero_mask defaults to 1 (generate the mask)
    assert raw("zcm", pack("zcm"))["non_zero_mask"] == 1
    for name, f in (("skip_span", ZCM.by_name["skip_span"]), ("use_span", ZCM.by_name["use_span"]),
                    ("column_shift", ZCM.by_name["column_shift"])):
        assert raw("zcm", pack("zcm", **{name: f.max}))[name] == f.max
        with pytest.raises(FieldError) as exc_info:
            pack("zcm", **{name: f.max + 1})
        assert exc_info.value.field == name


def test_tmem_lane_column():
    assert pack("tmem", lane=0xFFFF, column=0xFFFF) == 0xFFFFFFFF
    assert pack("tmem", lane=64, column=128) == 0x00400080
    assert pack("tmem", lane=1) == 0x10000
    for name in ("lane", "column"):
        with pytest.raises(FieldError) as exc_info:
            pack("tmem", **{name: 0x10000})
        assert exc_info.value.field == name
        assert TMEM.by_name[name].bits in str(exc_info.value)
        with pytest.raises(FieldError):
            pack("tmem", **{name: -1})
    assert descriptors.decode("tmem", 0x00400080).values == {"lane": 64, "column": 128}


# ------------------------------------------------------------------ K


@pytest.mark.parametrize("kind", KIND_NAMES)
def test_k(kind):
    k = KINDS[kind]
    lay = layout_of(kind)
    # the implied K is accepted and stores nothing
    w = pack("idesc", **base_idesc(kind))
    assert pack("idesc", **base_idesc(kind, k=k.k_dense)) == w
    assert descriptors.decode("idesc", w, kind=kind).values["k"] == k.k_dense
    ws = pack("idesc", **base_idesc(kind, sparse=True, k=k.k_sparse))
    assert raw("idesc", ws, kind)["sparse"] == 1
    assert descriptors.decode("idesc", ws, kind=kind).values["k"] == k.k_sparse
    with pytest.raises(ParameterError):
        pack("idesc", **base_idesc(kind, k=k.k_sparse))  # dense with sparse K
    if kind in ("mxf4", "mxf4nvf4"):
        assert k.k_alt == 96
        w96 = pack("idesc", **base_idesc(kind, k=96))
        assert w96 == w | (1 << 31)
        assert raw("idesc", w96, kind)["k_dim"] == 1
        assert descriptors.decode("idesc", w96, kind=kind).values["k"] == 96
        with pytest.raises(ParameterError, match="96"):
            pack("idesc", **base_idesc(kind, k=96, sparse=True))
    else:
        assert "k_dim" not in lay.by_name
        with pytest.raises(ParameterError, match="96"):
            pack("idesc", **base_idesc(kind, k=96))


# ------------------------------------------------------------------ decode


def test_decode_idesc_without_kind():
    with pytest.raises(KindRequiredError) as exc_info:
        descriptors.decode("idesc", 0x08400490)
    for name in KINDS:
        assert name in str(exc_info.value)
    assert len(KINDS) == 7
    assert isinstance(exc_info.value, DescgenError)


def test_readings():
    rs = descriptors.readings("idesc", 0x10200010)
    assert len(rs) == 7
    assert [r.kind for r in rs] == list(KINDS)
    assert [r.layout.name for r in rs] == [KINDS[k].layout for k in KINDS]
    assert all(int(r) == 0x10200010 for r in rs)
    assert rs[1].values["a_type"] == "f16" and rs[2].values["a_type"] == "e4m3"
    single = descriptors.readings("smem", 0x4000404000010000)
    assert len(single) == 1 and single[0].values["swizzle"] == "128B"


DECODE_TARGETS = [("smem", None), ("zcm", None), ("tmem", None)] + [("idesc", k) for k in KINDS]
DECODE_IDS = [f"{d}-{k}" if k else d for d, k in DECODE_TARGETS]


def _layout(descriptor, kind):
    return descriptors.layout_for(descriptor, kind)


@pytest.mark.parametrize(("descriptor", "kind"), DECODE_TARGETS, ids=DECODE_IDS)
def test_reserved_and_constant_bits_kept(descriptor, kind):
    lay = _layout(descriptor, kind)
    clean = descriptors.decode(descriptor, lay.encode(), kind=kind)
    assert clean.unexpected == {}
    odd = [f for f in lay.fields if f.role != "field"]
    assert odd or descriptor == "tmem"
    for f in odd:
        bad = (f.default ^ f.max) or f.max
        w = lay.encode(**{f.name: bad})
        d = descriptors.decode(descriptor, w, kind=kind)
        assert d.unexpected == {f.name: bad}
        assert d.fields[f.name] == bad
        assert int(d) == w
        assert descriptors.encode_raw(descriptor, kind=kind, force=True, **d.fields) == w
    # every reserved bit at once
    w = 0
    for f in odd:
        w |= ((f.default ^ f.max) or f.max) << f.lsb
    d = descriptors.decode(descriptor, w, kind=kind)
    assert set(d.unexpected) == {f.name for f in odd}
    assert int(d) == w


ENUM_TARGETS = [(d, k) for d, k in DECODE_TARGETS if d in ("smem", "idesc")]


@pytest.mark.parametrize(("descriptor", "kind"), ENUM_TARGETS,
                         ids=[f"{d}-{k}" if k else d for d, k in ENUM_TARGETS])
def test_unknown_enum_codes_read_as_none(descriptor, kind):
    lay = _layout(descriptor, kind)
    if descriptor == "idesc":
        k = KINDS[kind]
        tables = {"a_type": k.ab_types, "b_type": k.ab_types, "d_type": k.d_types,
                  "scale_type": k.scale_types}
    elif descriptor == "smem":
        tables = {"swizzle": SWIZZLE, "lbo_mode": LBO_MODE}
    checked = 0
    for name, table in tables.items():
        if table is None:
            continue
        f = lay.by_name[name]
        for code in range(f.max + 1):
            d = descriptors.decode(descriptor, lay.encode(**{name: code}), kind=kind)
            assert d.fields[name] == code
            expected = table.name_of(code)
            assert d.values[name] == expected
            if code not in table.values:
                assert d.values[name] is None
                checked += 1
    if descriptor == "smem":
        assert checked == 3
    else:
        assert checked > 0


def test_smem_swizzle_raw_3_reads_none():
    d = descriptors.decode("smem", SMEM.encode(swizzle=3))
    assert d.fields["swizzle"] == 3
    assert d.values["swizzle"] is None
    assert int(d) == SMEM.encode(swizzle=3)


@pytest.mark.parametrize(("descriptor", "kind"), DECODE_TARGETS, ids=DECODE_IDS)
def test_word_errors(descriptor, kind):
    lay = _layout(descriptor, kind)
    assert descriptors.decode(descriptor, lay.max_word, kind=kind).word == lay.max_word
    for bad in (lay.max_word + 1, 1 << 200, -1, -(1 << 70), 1.0, 1.5, math.nan, True, False,
                None, [0], {}, b"\x00", object()):
        with pytest.raises(WordError):
            descriptors.decode(descriptor, bad, kind=kind)
        with pytest.raises(WordError):
            lay.decode(bad)
    for bad in ("zz", "", "0x", "1.5"):
        with pytest.raises(DescgenError):
            descriptors.decode(descriptor, bad, kind=kind)
    # a string word is parsed, and range-checked like an int
    assert descriptors.decode(descriptor, "0x1", kind=kind).word == 1
    with pytest.raises(WordError):
        descriptors.decode(descriptor, hex(lay.max_word + 1), kind=kind)


# ------------------------------------------------------------------ error hygiene


def test_error_hierarchy():
    for cls in (ParameterError, FieldError, WordError, KindRequiredError, descriptors.BatchError):
        assert issubclass(cls, DescgenError)
        assert issubclass(cls, ValueError)


#: Garbage that no parameter may accept.
ALWAYS_BAD = [[[]], {"a": 1}, 1.5, math.nan, math.inf, object(), b"x", 1 << 200, -(1 << 200),
              "garbage", ""]
#: Garbage some parameters may accept (None means "default"); none may leak a foreign exception.
MAYBE = [None, 0, 1, True, False, "0", "1", "0x10", [0], [1, 2, 3, 4, 5], [None], [1.5],
         [1 << 200], ["x"], (), 16, 96, -1, "true", "MN", "128B"]


def _base(descriptor, kind=None):
    return {"idesc": lambda: base_idesc(kind),
            "smem": lambda: {"start_address": 0, "lbo": 16, "sbo": 1024, "swizzle": "128B"},
            "zcm": lambda: {"start_count": [0], "first_span": [0], "non_zero_mask": 1,
                            "skip_span": 2, "use_span": 3, "column_shift": 0},
            "tmem": lambda: {"lane": 0, "column": 0},
            "wgmma": lambda: {"start_address": 0, "lbo": 16, "sbo": 1024, "swizzle": "128B"}
            }[descriptor]()


GARBAGE_CASES = [(d, k, p) for d in DESCRIPTORS for k in (KINDS if d == "idesc" else [None])
                 for p in PARAMETERS[d]]
GARBAGE_IDS = [f"{d}-{k}-{p}" if k else f"{d}-{p}" for d, k, p in GARBAGE_CASES]


@pytest.mark.parametrize(("descriptor", "kind", "param"), GARBAGE_CASES, ids=GARBAGE_IDS)
def test_garbage_parameters_raise_descgen_errors_only(descriptor, kind, param):
    base = _base(descriptor, kind)
    pack(descriptor, **base)  # the base is legal
    bits = descriptors.word_bits(descriptor)
    for value in ALWAYS_BAD:
        with pytest.raises(DescgenError):
            pack(descriptor, **{**base, param: value})
    for value in MAYBE:
        try:
            w = pack(descriptor, **{**base, param: value})
        except DescgenError:
            continue
        assert w.__class__ is int and 0 <= w < 1 << bits


@pytest.mark.parametrize("descriptor", DESCRIPTORS)
def test_unknown_parameter_names(descriptor):
    with pytest.raises(ParameterError, match="no_such_param"):
        pack(descriptor, **_base(descriptor, "f16"), no_such_param=1)


GARBAGE_ANY = [None, [], {}, [1], {"k": 1}, 1.5, math.nan, 1 << 200, -1, "", "bogus", b"smem",
               object(), True, ("idesc",)]


# descriptor and kind are parameters too: garbage gives a DescgenError from every entry point.
DESCRIPTOR_CALLS = {
    "encode": lambda v: pack(v, kind="f16"),
    "decode": lambda v: descriptors.decode(v, 0),
    "decode_with_kind": lambda v: descriptors.decode(v, 0, kind="f16"),
    "readings": lambda v: descriptors.readings(v, 0),
    "encode_raw": lambda v: descriptors.encode_raw(v),
    "layout_for": lambda v: descriptors.layout_for(v),
    "word_bits": lambda v: descriptors.word_bits(v),
    "format_word": lambda v: descriptors.format_word(v, 0),
}
KIND_CALLS = {
    "decode": lambda v: descriptors.decode("idesc", 0, kind=v),
    "encode": lambda v: pack("idesc", **{**base_idesc("f16"), "kind": v}),
    "encode_raw": lambda v: descriptors.encode_raw("idesc", kind=v),
    "layout_for": lambda v: descriptors.layout_for("idesc", v),
    "smem_with_kind": lambda v: descriptors.decode("smem", 0, kind=v) if v is not None
    else descriptors.decode("smem", 0, kind="f16"),
}


def _leaks(call, values):
    """The garbage values for which ``call`` raises something other than a DescgenError."""
    leaks = []
    for value in values:
        try:
            call(value)
        except DescgenError:
            continue
        except Exception as exc:  # noqa: BLE001 - that is what we look for
            leaks.append(f"{value!r}: {type(exc).__name__}: {exc}")
        else:
            leaks.append(f"{value!r}: accepted")
    return leaks


@pytest.mark.parametrize("call", DESCRIPTOR_CALLS)
def test_garbage_descriptor_name(call):
    assert _leaks(DESCRIPTOR_CALLS[call], GARBAGE_ANY) == []


@pytest.mark.parametrize("call", KIND_CALLS)
def test_garbage_kind(call):
    assert _leaks(KIND_CALLS[call], GARBAGE_ANY) == []


@pytest.mark.parametrize(("descriptor", "kind"), DECODE_TARGETS, ids=DECODE_IDS)
def test_encode_raw_garbage(descriptor, kind):
    lay = _layout(descriptor, kind)
    for f in lay.fields:
        for value in ALWAYS_BAD + [None, -1, f.max + 1]:
            with pytest.raises(FieldError) as exc_info:
                descriptors.encode_raw(descriptor, kind=kind, **{f.name: value})
            assert exc_info.value.field == f.name
    with pytest.raises(ParameterError):
        descriptors.encode_raw(descriptor, kind=kind, bogus=0)


# ------------------------------------------------------------------ real-world words

#: (name, descriptor, parameters, word, source) -- real descriptor values of public kernels, and
#: their variants by PTX Table 44.
REAL = [
    ("bf16_f32_128x256", "idesc", dict(kind="f16", a_type="bf16", b_type="bf16", d_type="f32",
                                       m=128, n=256), 0x08400490, "DeepGEMM sm100 bf16 GEMM"),
    ("f16_f32_128x256", "idesc", dict(kind="f16", a_type="f16", b_type="f16", d_type="f32",
                                      m=128, n=256), 0x08400010, "PTX Table 44: the bf16 word with f16 types"),
    ("f16_f32_128x256_neg_a", "idesc", dict(kind="f16", a_type="f16", b_type="f16", d_type="f32",
                                            m=128, n=256, negate_a=True), 0x08402010,
     "PTX Table 44: negate A, bit 13"),
    ("tf32_f32_128x256", "idesc", dict(kind="tf32", a_type="tf32", b_type="tf32", d_type="f32",
                                       m=128, n=256), 0x08400910, "PTX Table 44: kind::tf32, types tf32"),
    ("bf16_f32_256x256_2cta", "idesc", dict(kind="f16", a_type="bf16", b_type="bf16",
                                            d_type="f32", m=256, n=256, cta_group=2),
     0x10400490, "DeepGEMM, ThunderKittens B200 GEMM"),
    ("f16_f32_256x128_2cta", "idesc", dict(kind="f16", a_type="f16", b_type="f16", d_type="f32",
                                           m=256, n=128, cta_group=2), 0x10200010,
     "CUTLASS Blackwell GEMM example"),
    ("e4m3_f32_256x128_2cta", "idesc", dict(kind="f8f6f4", a_type="e4m3", b_type="e4m3",
                                            d_type="f32", m=256, n=128), 0x10200010,
     "PTX Table 44: e4m3 is kind::f8f6f4 format 0, as f16 is kind::f16 format 0"),
    ("mxf8_e4m3_256x256", "idesc", dict(kind="mxf8f6f4", a_type="e4m3", b_type="e4m3",
                                        scale_type="ue8m0", m=256, n=256), 0x10C00000,
     "DeepGEMM FP8 GEMM"),
    ("mxf8_e4m3_256x256_sf1", "idesc", dict(kind="mxf8f6f4", a_type="e4m3", b_type="e4m3",
                                            scale_type="ue8m0", m=256, n=256, a_scale_id=1,
                                            b_scale_id=1), 0x30C00010, "DeepGEMM FP8 GEMM"),
    ("mxf8_e4m3_256x256_sf2", "idesc", dict(kind="mxf8f6f4", a_type="e4m3", b_type="e4m3",
                                            scale_type="ue8m0", m=256, n=256, a_scale_id=2,
                                            b_scale_id=2), 0x50C00020, "DeepGEMM FP8 GEMM"),
    ("mxf8_e4m3_256x256_sf3", "idesc", dict(kind="mxf8f6f4", a_type="e4m3", b_type="e4m3",
                                            scale_type="ue8m0", m=256, n=256, a_scale_id=3,
                                            b_scale_id=3), 0x70C00030, "DeepGEMM FP8 GEMM"),
    ("mxf8_e4m3xe2m1_256x256", "idesc", dict(kind="mxf8f6f4", a_type="e4m3", b_type="e2m1",
                                             scale_type="ue8m0", m=256, n=256), 0x10C01400,
     "PTX Table 44: e2m1 is B format 5"),
    ("nvf4_ue4m3_128x256", "idesc", dict(kind="mxf4nvf4", a_type="e2m1", b_type="e2m1",
                                         scale_type="ue4m3", m=128, n=256), 0x08400480,
     "ThunderKittens NVFP4 GEMM"),
    ("smem_kmajor_sw128_lbo16", "smem", dict(start_address=0, leading_byte_offset=16,
                                             stride_byte_offset=1024, swizzle="128B"),
     0x4000404000010000, "CUTLASS-style K-major SW128 tile"),
    ("smem_kmajor_sw128", "smem", dict(start_address=0, leading_byte_offset=0,
                                       stride_byte_offset=1024, swizzle="128B"),
     0x4000404000000000, "DeepGEMM K-major SW128"),
    ("smem_kmajor_sw128_kstep", "smem", dict(start_address=32, leading_byte_offset=0,
                                             stride_byte_offset=1024, swizzle="128B"),
     0x4000404000000002, "DeepGEMM: one K step of 32 bytes adds 2"),
    ("smem_sf_noswizzle", "smem", dict(stride_byte_offset=128, swizzle="none"),
     0x0000400800000000, "DeepGEMM scale-factor copy descriptor"),
]

_IDESC_DEFAULTS = {"a_major": "K", "b_major": "K", "negate_a": False, "negate_b": False,
                   "sparse": False, "d_type": "f32"}
_SMEM_DEFAULTS = {"start_address": 0, "leading_byte_offset": 0, "stride_byte_offset": 0,
                  "base_offset": 0, "lbo_mode": "relative", "swizzle": "none"}


def expected_values(descriptor, params):
    """The semantic values ``decode`` must give back for ``params`` (context params dropped)."""
    if descriptor == "idesc":
        out = {**_IDESC_DEFAULTS, **{k: v for k, v in params.items() if k != "cta_group"}}
        kind = KINDS[params["kind"]]
        if kind.block_scaled:
            out.setdefault("a_scale_id", 0)
            out.setdefault("b_scale_id", 0)
        else:
            out.setdefault("saturate", False)
            out.setdefault("sparsity_selector", 0)
            out.setdefault("max_shift", 0)
        out.setdefault("k", kind.k_sparse if out["sparse"] else kind.k_dense)
        return out
    if descriptor == "smem":
        p = {**_SMEM_DEFAULTS, **params}
        return {(k + "_bytes" if k in BYTE_FIELDS else k): v for k, v in p.items()}
    return dict(params)


@pytest.mark.parametrize(("name", "descriptor", "params", "word", "source"), REAL,
                         ids=[r[0] for r in REAL])
def test_real_world_words(name, descriptor, params, word, source):
    assert source
    assert pack(descriptor, **params) == word
    kind = params.get("kind")
    d = descriptors.decode(descriptor, word, kind=kind)
    assert d.unexpected == {}
    assert d.values == expected_values(descriptor, params)
    assert int(d) == word
    assert d.hex == descriptors.format_word(descriptor, word)
    # re-encoding the decoded values gives the word again
    again = {k.removesuffix("_bytes"): v for k, v in d.values.items()}
    if descriptor == "idesc" and "k" in again:
        again.pop("k")
    assert pack(descriptor, **again) == word


def test_kstep_adds_two_without_carry():
    base = pack("smem", leading_byte_offset=0, stride_byte_offset=1024, swizzle="128B")
    for step in range(1, 8):
        w = pack("smem", start_address=32 * step, leading_byte_offset=0,
                               stride_byte_offset=1024, swizzle="128B")
        assert w == base + 2 * step
    # the last 16-byte unit fits, one more is refused instead of carrying into bits 14+
    top = pack("smem", start_address=0x3FFF0, stride_byte_offset=1024, swizzle="128B")
    assert top == base + 0x3FFF
    with pytest.raises(FieldError):
        pack("smem", start_address=0x40000, stride_byte_offset=1024, swizzle="128B")


def test_same_word_two_kinds():
    w = 0x10200010
    f16 = descriptors.decode("idesc", w, kind="f16").values
    f8 = descriptors.decode("idesc", w, kind="f8f6f4").values
    assert (f16["a_type"], f16["m"], f16["n"]) == ("f16", 256, 128)
    assert (f8["a_type"], f8["m"], f8["n"]) == ("e4m3", 256, 128)


# ------------------------------------------------------------------ encode checks by default

def test_encode_refuses_a_rule_breaking_word_by_default():
    # N=264 is above Table 39's 256: the CLI refuses it (exit 1), and so does the library
    with pytest.raises(InvalidDescriptorError) as exc:
        descriptors.encode("idesc", kind="f16", a_type="bf16", b_type="bf16", d_type="f32",
                           m=128, n=264)
    assert "[idesc.shape]" in str(exc.value) and "Table 39" in str(exc.value)
    assert [f.rule for f in exc.value.findings if f.severity == "error"] == ["idesc.shape"]
    assert isinstance(exc.value, descriptors.DescgenError)


def test_encode_check_false_is_the_raw_packing():
    word = descriptors.encode("idesc", kind="f16", a_type="bf16", b_type="bf16", d_type="f32",
                              m=128, n=264, check=False)
    assert word == descriptors.words.codec.encode(
        "idesc", kind="f16", a_type="bf16", b_type="bf16", d_type="f32", m=128, n=264)
    assert descriptors.decode("idesc", word, kind="f16").values["n"] == 264


def test_encode_takes_the_context_the_cli_takes():
    p = dict(kind="f16", a_type="bf16", b_type="bf16", d_type="f32", m=256, n=256)
    assert descriptors.encode("idesc", **p) == 0x10400490          # cta_group unknown: a note
    assert descriptors.encode("idesc", **p, cta_group=2) == 0x10400490
    with pytest.raises(InvalidDescriptorError, match=r"idesc\.shape"):
        descriptors.encode("idesc", **p, cta_group=1)
    bs = dict(kind="mxf4nvf4", a_type="e2m1", b_type="e2m1", scale_type="ue8m0", m=128, n=256,
              a_scale_id=2)
    assert descriptors.encode("idesc", **bs, scale_vec="2X")
    with pytest.raises(InvalidDescriptorError, match=r"idesc\.scale_id_4x"):
        descriptors.encode("idesc", **bs, scale_vec="4X")
    assert descriptors.encode("tmem", lane=0, column=128, alloc=256) == 128
    assert descriptors.encode("tmem", lane=0, column=128, alloc=64) == 128  # a warning only
    with pytest.raises(InvalidDescriptorError, match=r"tmem\.column"):
        descriptors.encode("tmem", lane=0, column=600)
    with pytest.raises(InvalidDescriptorError, match="sm_100a"):
        descriptors.encode("idesc", kind="mxf4", a_type="e2m1", b_type="e2m1", m=256, n=256,
                           k=96, cta_group=2)
    assert descriptors.encode("idesc", kind="mxf4", a_type="e2m1", b_type="e2m1", m=256, n=256,
                              k=96, cta_group=2, arch="sm_103a")

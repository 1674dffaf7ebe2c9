"""Property tests (hypothesis): lossless round trips, semantic round trips, and the compiled
fast path against Construct's interpreter.  Strategies come from the enum tables and the
field maxima of the layouts."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import descriptors
from descriptors import KINDS, LAYOUTS, SMEM, ZCM
from descriptors.words.enums import LBO_MODE, MAJOR, MAX_SHIFT, SWIZZLE

#: Examples per property: 150 by default (the suite stays within its time budget on two cores);
#: ``DESCGEN_PROPERTY_EXAMPLES=1000`` for a deeper run.  Derandomized: the same examples each run.
PROPS = settings(max_examples=int(os.environ.get("DESCGEN_PROPERTY_EXAMPLES", "150")),
                 deadline=None, derandomize=True, database=None)

TARGETS = [("smem", None), ("zcm", None), ("tmem", None)] + [("idesc", k) for k in KINDS]
TARGET_IDS = [f"{d}-{k}" if k else d for d, k in TARGETS]
ALL_LAYOUTS = list(LAYOUTS.values())


def reserved_mask(layout):
    m = 0
    for f in layout.fields:
        if f.role != "field":
            m |= f.mask
    return m


def words(layout):
    """Random words, plus random words with reserved / constant bits forced on."""
    anyw = st.integers(0, layout.max_word)
    odd = st.tuples(anyw, st.integers(1, layout.max_word)).map(
        lambda t: t[0] | (t[1] & reserved_mask(layout)))
    edges = st.sampled_from([0, layout.max_word, reserved_mask(layout)])
    return st.one_of(anyw, odd, edges)


# ------------------------------------------------------------------ lossless raw round trip


@pytest.mark.parametrize(("descriptor", "kind"), TARGETS, ids=TARGET_IDS)
def test_decode_then_encode_is_identity(descriptor, kind):
    layout = descriptors.layout_for(descriptor, kind)

    @PROPS
    @given(w=words(layout))
    def prop(w):
        d = descriptors.decode(descriptor, w, kind=kind)
        assert d.word == w
        assert int(d) == w
        assert descriptors.encode_raw(descriptor, kind=kind, force=True, **d.fields) == w
        assert layout.encode(**d.fields) == w
        assert set(d.fields) == {f.name for f in layout.fields}
        # unexpected lists exactly the reserved / constant fields off their value
        assert d.unexpected == {f.name: f.extract(w) for f in layout.fields
                                if f.role != "field" and f.extract(w) != f.default}
        # every word has a reading (unknown codes read as None), keyed like encode's parameters
        keys = set(d.values)
        if descriptor == "idesc":
            assert {"kind", "a_type", "b_type", "d_type", "m", "n", "k"} <= keys
            assert d.values["m"] == d.fields["m_dim"] << (4 if layout.name == "idesc" else 7)
            assert d.values["n"] == d.fields["n_dim"] << 3
        elif descriptor == "smem":
            assert d.values["start_address_bytes"] == d.fields["start_address"] << 4
            assert d.values["swizzle"] == SWIZZLE.name_of(d.fields["swizzle"])
        else:
            assert keys <= set(descriptors.PARAMETERS[descriptor])
        # the raw fields reassemble the word bit for bit
        assert sum(v << layout.by_name[k].lsb for k, v in d.fields.items()) == w

    prop()


# ------------------------------------------------------------------ semantic round trips


def idesc_params(kind_name):
    kind = KINDS[kind_name]
    table42 = not kind.block_scaled
    shift = 4 if table42 else 7
    m_top = 496 if table42 else 384
    ab = st.sampled_from(kind.ab_types.names)
    fixed = {
        "kind": st.just(kind_name),
        "a_type": ab,
        "b_type": ab,
        "m": st.integers(1, m_top >> shift).map(lambda x: x << shift),
        "n": st.integers(1, 63).map(lambda x: x * 8),
        "negate_a": st.booleans(),
        "negate_b": st.booleans(),
        "sparse": st.booleans(),
    }
    mxf4 = kind.layout == "idesc_mxf4"
    majors = st.just("K") if mxf4 else st.sampled_from(MAJOR.names)
    fixed["a_major"] = majors
    fixed["b_major"] = majors
    if kind.d_types is not None:
        fixed["d_type"] = st.sampled_from(kind.d_types.names)
    if table42:
        fixed["saturate"] = st.booleans()
        fixed["sparsity_selector"] = st.integers(0, 3)
        fixed["max_shift"] = st.sampled_from([int(n) for n in MAX_SHIFT.names])
    else:
        fixed["scale_type"] = st.sampled_from(kind.scale_types.names)
        ids = st.sampled_from([0, 2]) if mxf4 else st.integers(0, 3)
        fixed["a_scale_id"] = ids
        fixed["b_scale_id"] = ids
    strategy = st.fixed_dictionaries(fixed)
    if kind.k_alt is not None:
        # dense may ask for the alternative K (k_dim = 1)
        strategy = st.tuples(strategy, st.booleans()).map(
            lambda t: {**t[0], "k": kind.k_alt} if t[1] and not t[0]["sparse"] else t[0])
    return strategy


def expected_idesc(p):
    kind = KINDS[p["kind"]]
    out = dict(p)
    out.setdefault("d_type", "f32")
    out.setdefault("k", kind.k_sparse if p["sparse"] else kind.k_dense)
    return out


@pytest.mark.parametrize("kind", list(KINDS))
def test_idesc_semantic_round_trip(kind):
    layout = LAYOUTS[KINDS[kind].layout]
    shift = 4 if layout.name == "idesc" else 7

    @PROPS
    @given(p=idesc_params(kind))
    def prop(p):
        w = descriptors.encode("idesc", check=False, **p)
        d = descriptors.decode("idesc", w, kind=kind)
        assert d.values == expected_idesc(p)
        assert d.unexpected == {}
        f = d.fields
        assert f["m_dim"] == p["m"] >> shift
        assert f["n_dim"] == p["n"] >> 3
        assert f["a_type"] == KINDS[kind].ab_types.lookup(p["a_type"]).value
        assert f["negate_a"] == p["negate_a"] and f["sparse"] == p["sparse"]
        assert f.get("k_dim", 0) == (1 if p.get("k") == 96 else 0)
        # and back again from the decoded values (K included: the implied K is accepted)
        assert descriptors.encode("idesc", check=False, **d.values) == w

    prop()


smem_bytes = st.integers(0, SMEM.by_name["start_address"].max).map(lambda x: x << 4)


@PROPS
@given(p=st.fixed_dictionaries({
    "start_address": smem_bytes, "leading_byte_offset": smem_bytes,
    "stride_byte_offset": smem_bytes, "swizzle": st.sampled_from(SWIZZLE.names),
    "base_offset": st.integers(0, SMEM.by_name["base_offset"].max),
    "lbo_mode": st.sampled_from(LBO_MODE.names)}))
def test_smem_semantic_round_trip(p):
    w = descriptors.encode("smem", check=False, **p)
    d = descriptors.decode("smem", w)
    expected = {(k + "_bytes" if k.endswith("offset") and k != "base_offset" or
                 k == "start_address" else k): v for k, v in p.items()}
    assert d.values == expected
    assert d.unexpected == {}
    assert d.fields["start_address"] == p["start_address"] >> 4
    assert d.fields["leading_byte_offset"] == p["leading_byte_offset"] >> 4
    assert d.fields["stride_byte_offset"] == p["stride_byte_offset"] >> 4
    assert d.fields["fixed_constant"] == 1
    assert d.fields["swizzle"] == SWIZZLE.lookup(p["swizzle"]).value


def _sub(n_max):
    return st.lists(st.integers(0, n_max), min_size=1, max_size=4)


@PROPS
@given(p=st.fixed_dictionaries({
    "start_count": _sub(ZCM.by_name["start_count_0"].max), "first_span": _sub(1),
    "non_zero_mask": st.integers(0, 1), "skip_span": st.integers(0, ZCM.by_name["skip_span"].max),
    "use_span": st.integers(0, ZCM.by_name["use_span"].max),
    "column_shift": st.integers(0, ZCM.by_name["column_shift"].max)}))
def test_zcm_semantic_round_trip(p):
    w = descriptors.encode("zcm", check=False, **p)
    d = descriptors.decode("zcm", w)
    pad = lambda xs: list(xs) + [0] * (4 - len(xs))  # noqa: E731
    assert d.values == {**p, "start_count": pad(p["start_count"]),
                        "first_span": pad(p["first_span"])}
    assert d.unexpected == {}
    assert descriptors.encode("zcm", check=False, **d.values) == w


@PROPS
@given(lane=st.integers(0, 0xFFFF), column=st.integers(0, 0xFFFF))
def test_tmem_semantic_round_trip(lane, column):
    w = descriptors.encode("tmem", check=False, lane=lane, column=column)
    assert w == (lane << 16) | column
    assert descriptors.decode("tmem", w).values == {"lane": lane, "column": column}


# ------------------------------------------------------------------ fast path vs Construct


def field_dicts(layout):
    return st.fixed_dictionaries({f.name: st.integers(0, f.max) for f in layout.fields})


@pytest.mark.parametrize("layout", ALL_LAYOUTS, ids=[lay.name for lay in ALL_LAYOUTS])
def test_fast_encode_equals_construct(layout):
    @PROPS
    @given(fields=field_dicts(layout))
    def prop(fields):
        ours = layout.encode_fields(fields)
        assert ours == layout.construct_build(fields)
        assert ours == layout.encode(**fields)
        assert ours == int.from_bytes(layout.struct.build(fields), "big")
        assert layout.decode(ours) == fields

    prop()


@pytest.mark.parametrize("layout", ALL_LAYOUTS, ids=[lay.name for lay in ALL_LAYOUTS])
def test_fast_decode_equals_construct(layout):
    @PROPS
    @given(w=words(layout))
    def prop(w):
        ours = layout.decode(w)
        assert ours == layout.construct_parse(w)
        container = layout.struct.parse(w.to_bytes(layout.size // 8, "big"))
        assert ours == {f.name: container[f.name] for f in layout.fields}

    prop()


# ------------------------------------------------------------------ never truncates

#: Scale of the integer-valued semantic parameters: the field stores value >> shift.
_SHIFT = {"m": None, "n": 3, "start_address": 4, "leading_byte_offset": 4, "stride_byte_offset": 4}
_FIELD = {"m": "m_dim", "n": "n_dim"}


def _int_params():
    """(descriptor, kind, parameter, raw field, decoded key, base) for every integer-valued
    semantic parameter, generated from KINDS and PARAMETERS."""
    cases = []
    for k, kind in KINDS.items():
        base = {"kind": k, "a_type": kind.ab_types.names[0], "b_type": kind.ab_types.names[0],
                "m": 256 if kind.block_scaled else 128, "n": 256}
        ids = ("a_scale_id", "b_scale_id") if kind.block_scaled else ("sparsity_selector",)
        for p in ("m", "n", *ids):
            assert p in descriptors.PARAMETERS["idesc"]
            cases.append(("idesc", k, p, _FIELD.get(p, p), p, base))
    for p in ("start_address", "leading_byte_offset", "stride_byte_offset", "base_offset"):
        assert p in descriptors.PARAMETERS["smem"]
        cases.append(("smem", None, p, p, p + "_bytes" if p in _SHIFT else p, {}))
    for d, ps in (("zcm", ("skip_span", "use_span", "column_shift")), ("tmem", ("lane", "column"))):
        for p in ps:
            assert p in descriptors.PARAMETERS[d]
            cases.append((d, None, p, p, p, {}))
    return cases


INT_PARAMS = _int_params()


@pytest.mark.parametrize(("descriptor", "kind", "param", "field", "key", "base"), INT_PARAMS,
                         ids=[f"{d}-{k}-{p}" if k else f"{d}-{p}" for d, k, p, *_ in INT_PARAMS])
def test_integer_parameters_never_truncate(descriptor, kind, param, field, key, base):
    """Any int either encodes and decodes back to itself, or is refused -- and it is refused
    exactly when it does not fit (negative, not a multiple of the field's unit, too large)."""
    layout = descriptors.layout_for(descriptor, kind)
    f = layout.by_name[field]
    shift = _SHIFT.get(param, 0)
    if shift is None:
        shift = 4 if layout.name == "idesc" else 7

    def fits(v):
        return v >= 0 and v % (1 << shift) == 0 and (v >> shift) <= f.max

    @settings(max_examples=200, deadline=None)
    @given(v=st.one_of(st.integers(-(1 << 70), 1 << 70), st.integers(-64, (f.max + 2) << shift),
                       st.integers(0, f.max + 2).map(lambda x: x << shift)))
    def prop(v):
        try:
            w = descriptors.encode(descriptor, check=False, **{**base, param: v})
        except descriptors.FieldError as exc:
            assert not fits(v), f"{param}={v} fits {field}{f.bits} but was refused: {exc}"
            assert exc.field == field
            assert f.bits in str(exc) and layout.source in str(exc)
            return
        assert fits(v), f"{param}={v} does not fit {field}{f.bits} but encoded to {w:#x}"
        assert descriptors.decode(descriptor, w, kind=kind).values[key] == v
        assert f.extract(w) == v >> shift

    prop()

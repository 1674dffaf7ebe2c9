"""The fast paths of the public codec against the slow paths they shortcut (issue 12).

``descriptors.decode`` checks the word at once and extracts fields lazily; ``descriptors.encode``
memoises the word of a parameter set.  Here both are compared over generated inputs -- valid
and invalid, hashable and not, with look-alike values (``128.0``, ``True`` for ``1``) -- with
the uncached route: the same result, or the same exception class and message.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import descriptors
from descriptors import KINDS
from descriptors.words import codec
from descriptors.words.enums import LBO_MODE, MAJOR, SWIZZLE

from helpers import LEGAL_TYPES

FAST = settings(max_examples=250, deadline=None)


def outcome(call):
    """``("ok", value)`` or ``("raise", exception class, message)``."""
    try:
        return ("ok", call())
    except Exception as exc:  # noqa: BLE001 - comparing refusals is the point
        return ("raise", type(exc), str(exc))


# ------------------------------------------------------------------ decode


def slow_decode(descriptor, word, kind):
    """The reference: dispatch through layout_for, check the word, parse with Construct."""
    lay = descriptors.layout_for(descriptor, kind)
    kind = codec._kind(kind).name if kind is not None else None
    word = codec.parse_word(lay, word)
    fields = lay.construct_parse(word)
    return descriptor, kind, lay, word, fields


def view(d):
    return (d.descriptor, d.kind, d.layout, d.word, d.fields)


DESCRIPTOR_ARGS = st.sampled_from(["smem", "idesc", "zcm", "tmem", "SMEM", "bogus", None, 3])
KIND_ARGS = st.one_of(st.none(), st.sampled_from([*KINDS, "F16", "kind::f16", "nope", 7]))
WORD_ARGS = st.one_of(
    st.integers(0, (1 << 64) - 1), st.integers(0, (1 << 32) - 1),
    st.integers(-(1 << 70), 1 << 70), st.booleans(), st.floats(allow_nan=False),
    st.integers(0, 1 << 40).map(hex), st.just("zz"), st.none())


@FAST
@given(descriptor=DESCRIPTOR_ARGS, kind=KIND_ARGS, word=WORD_ARGS)
@example("idesc", "f16", 1 << 40)
@example("tmem", None, 1 << 32)
@example("smem", None, -1)
@example("smem", None, True)
@example("zcm", None, "0x1")
@example("idesc", None, 5)
def test_decode_equals_slow_path(descriptor, kind, word):
    fast = outcome(lambda: descriptors.decode(descriptor, word, kind=kind))
    if fast[0] == "ok":  # refusals come from decode itself, never later from a lazy field
        fast = ("ok", view(fast[1]))
    assert fast == outcome(lambda: slow_decode(descriptor, word, kind))


@FAST
@given(data=st.data())
def test_decoded_lazy_fields_and_values(data):
    descriptor, kind = data.draw(st.sampled_from(
        [("smem", None), ("zcm", None), ("tmem", None)] + [("idesc", k) for k in KINDS]))
    lay = descriptors.layout_for(descriptor, kind)
    word = data.draw(st.integers(0, lay.max_word))
    d = descriptors.decode(descriptor, word, kind=kind)
    ref = lay.construct_parse(word)
    # values first (computes fields on the way), then fields, int and the derived views
    if descriptor == "idesc":
        expected_values = codec._values_idesc(kind, lay, ref)
    else:
        expected_values = getattr(codec, f"_values_{descriptor}")(ref)
    assert d.values == expected_values
    assert d.fields == ref and d.fields is d.fields
    assert int(d) == word
    assert d.unexpected == {f.name: ref[f.name] for f in lay.fields
                            if f.role != "field" and ref[f.name] != f.default}


# ------------------------------------------------------------------ encode

#: Values a parameter may be given: valid names and numbers, and look-alikes that compare equal
#: to valid ones but must be refused (or read differently).
ANY_VALUE = st.one_of(
    st.sampled_from([*SWIZZLE.names, *LBO_MODE.names, *MAJOR.names, "bf16", "f16", "f32", "s8",
                     "e4m3", "e2m1", "ue8m0", "ue4m3", "tf32", "s32", "f16 ", "BF16", "0x400",
                     "1_024", "x"]),
    st.sampled_from([0, 1, 2, 3, 8, 16, 32, 64, 96, 128, 256, 1024, 0x400, 0x3FFF0, -16, 1 << 20]),
    st.sampled_from([True, False, None, 128.0, 1.0, 0.0, 256.0]),
    st.sampled_from([[0, 1], (1, 2), [1, 1, 0, 0], [1], (1,), [True], [1.0], (0.0, 1), [2, True],
                     [[1]], [], [None], ["1"], [1 << 70]]),
)

BASES = {
    "smem": dict(start_address=0x400, leading_byte_offset=16, stride_byte_offset=1024,
                 swizzle="128B"),
    "zcm": dict(start_count=(0, 1, 2, 1), first_span=(1, 1, 0, 0), skip_span=2, use_span=3),
    "tmem": dict(lane=64, column=128),
    **{f"idesc-{k}": dict(kind=k, m=128, n=256, **types) for k, types in LEGAL_TYPES.items()},
}
NAMES = {d: [*codec.PARAMETERS[d], *codec._ALIASES[d]] for d in codec.PARAMETERS}


@st.composite
def encode_calls(draw):
    base = draw(st.sampled_from(sorted(BASES)))
    descriptor = base.split("-")[0]
    params = dict(BASES[base])
    for _ in range(draw(st.integers(0, 3))):
        name = draw(st.sampled_from([*NAMES[descriptor], "bogus"]))
        if draw(st.booleans()) and name in params:
            del params[name]
        else:
            params[name] = draw(ANY_VALUE)
    return descriptor, params


def slow_encode(descriptor, params):
    """The encoder with no memo: below the whole-set memos, its per-parameter memo empty."""
    tables = [*codec._IDESC_STEPS.values(), codec._SMEM_STEPS]
    saved = [table.memo for table in tables]
    for table in tables:
        table.memo = {}
    try:
        return codec._ENCODERS[descriptor](params)
    finally:
        for table, memo in zip(tables, saved):
            table.memo = memo


@FAST
@given(call=encode_calls())
def test_encode_equals_slow_path(call):
    descriptor, params = call
    slow = outcome(lambda: slow_encode(descriptor, params))
    # twice: the first call may fill the memo, the second may be served from it
    assert outcome(lambda: descriptors.encode(descriptor, check=False, **params)) == slow
    assert outcome(lambda: descriptors.encode(descriptor, check=False, **params)) == slow


def test_encode_memo_is_used_and_keyed_by_type():
    params = dict(kind="f16", a_type="bf16", b_type="bf16", d_type="f32", m=128, n=256)
    word = codec.encode("idesc", **params)
    assert word == 0x08400490
    hits = codec._memo.cache_info().hits
    assert codec.encode("idesc", **params) == word
    assert codec._memo.cache_info().hits == hits + 1
    # sets holding other types are checked every time, never kept
    size = codec._memo.cache_info().currsize
    assert codec.encode("zcm", first_span=(0, 1)) == codec.encode(
        "zcm", first_span=[0, 1]) == slow_encode("zcm", {"first_span": [0, 1]}) == 0x8200000000
    assert codec.encode("idesc", **{**params, "m": _Int(128)}) == word
    assert codec._memo.cache_info().currsize == size
    # look-alikes of memoised values run the checks: refused exactly as without the memo
    for name, value in (("m", 128.0), ("negate_a", 1.0)):
        bad = {**params, name: value}
        assert outcome(lambda: codec.encode("idesc", **bad)) == \
            outcome(lambda: slow_encode("idesc", bad))
        assert outcome(lambda: codec.encode("idesc", **bad))[0] == "raise"
    # True and 1 are different keys with their own (equal here) results
    assert codec.encode("idesc", **params, negate_a=True) == \
        codec.encode("idesc", **params, negate_a=1) == 0x08402490
    # a refusal is never memoised: it raises every time
    for _ in range(2):
        assert outcome(lambda: codec.encode("idesc", **{**params, "m": 100}))[0] == "raise"



def test_the_public_encode_is_one_look_up_for_a_set_seen_before():
    """``descriptors.encode`` keeps what it encoded (and checked) for sets of plain values, so
    ``check=False`` costs what the codec's memoised encode does; other sets are never kept."""
    from descriptors.rules import encoding
    params = dict(kind="f16", a_type="bf16", b_type="bf16", d_type="f32", m=128, n=256)
    for check in (False, True):
        assert descriptors.encode("idesc", check=check, **params) == 0x08400490
        hits = encoding._kept.cache_info().hits
        assert descriptors.encode("idesc", check=check, **params) == 0x08400490
        assert encoding._kept.cache_info().hits == hits + 1
    size = encoding._kept.cache_info().currsize
    assert descriptors.encode("idesc", check=False, **{**params, "m": _Int(128)}) == 0x08400490
    assert descriptors.encode("zcm", check=False, first_span=[0, 1]) == 0x8200000000
    assert encoding._kept.cache_info().currsize == size
    with pytest.raises(descriptors.InvalidDescriptorError):  # refusals are never kept
        descriptors.encode("idesc", **{**params, "n": 264})
    with pytest.raises(descriptors.InvalidDescriptorError):
        descriptors.encode("idesc", **{**params, "n": 264})
    assert descriptors.encode("idesc", check=False, **{**params, "n": 264}) == 0x08420490

def test_encode_memo_of_list_parameters_is_keyed_by_element_type():
    """zcm's start_count/first_span come as lists: sets holding them are memoised under keys
    that carry every element's type, so a look-alike element is refused every time."""
    codec._LIST_MEMO.clear()
    word = descriptors.encode("zcm", check=False, start_count=[2], first_span=[1], skip_span=2, use_span=3)
    assert word == slow_encode("zcm", dict(start_count=[2], first_span=[1], skip_span=2,
                                           use_span=3))
    assert len(codec._LIST_MEMO) == 1
    assert descriptors.encode("zcm", check=False, start_count=[2], first_span=[1], skip_span=2,
                              use_span=3) == word
    assert len(codec._LIST_MEMO) == 1
    for look_alike in ([2.0], [True], (2.0,)):
        for _ in range(2):
            with pytest.raises(descriptors.ParameterError, match="not an integer"):
                descriptors.encode("zcm", check=False, start_count=look_alike, first_span=[1], skip_span=2,
                                   use_span=3)
    # a tuple has its own entry, with the same word
    assert descriptors.encode("zcm", check=False, start_count=(2,), first_span=[1], skip_span=2,
                              use_span=3) == word
    assert len(codec._LIST_MEMO) == 2
    # a list changed after the call: the key held a copy
    spans = [1]
    descriptors.encode("zcm", check=False, first_span=spans)
    spans[0] = 5
    with pytest.raises(descriptors.FieldError):
        descriptors.encode("zcm", check=False, first_span=spans)


class _Int(int):
    """An int of another type: checked like an int, but not memoised."""


def test_a_mutable_value_is_never_served_from_the_memo():
    class Lane:  # hashable by identity, its value changes
        value = 1

        def __index__(self):
            return self.value

    lane = Lane()
    first = outcome(lambda: descriptors.encode("tmem", check=False, lane=lane))
    lane.value = 2
    second = outcome(lambda: descriptors.encode("tmem", check=False, lane=lane))
    assert first == ("ok", 1 << 16)  # accepted through __index__, so a memo could keep it
    assert second == outcome(lambda: slow_encode("tmem", {"lane": lane})) == ("ok", 2 << 16)


def test_encode_memo_is_bounded():
    for lane in range(codec.MEMO_SIZE + 10):
        descriptors.encode("tmem", check=False, lane=lane % 65536, column=lane // 65536)
    info = codec._memo.cache_info()
    assert info.maxsize == codec.MEMO_SIZE and info.currsize == codec.MEMO_SIZE
    assert descriptors.encode("tmem", check=False, lane=5) == 5 << 16


# ------------------------------------------------------------------ memos against the reference
#
# ``encode`` runs the checks of idesc and smem through a per-parameter memo (``codec._PARTS``)
# below the whole-set memo; ``Decoded.fields``/``values`` copy from per-word memos.  These compare
# both with the route without memos (``slow_encode``: every check afresh; Construct's parse and
# the ``_values_*`` functions), over the same generated calls, repeated so that memo hits are
# taken.

PROPS = settings(max_examples=int(os.environ.get("DESCGEN_PROPERTY_EXAMPLES", "150")),
                 deadline=None, derandomize=True)


@PROPS
@given(calls=st.lists(encode_calls(), min_size=1, max_size=4))
def test_parameter_memo_equals_no_memo(calls):
    for descriptor, params in calls * 2:  # the second round meets what the first remembered
        want = outcome(lambda: slow_encode(descriptor, params))
        assert outcome(lambda: codec._ENCODERS[descriptor](params)) == want
        assert outcome(lambda: descriptors.encode(descriptor, check=False, **params)) == want


def test_parameter_memo_not_poisoned_by_mutable_values():
    counts = [1, 2, 3, 0]
    first = descriptors.encode("zcm", check=False, start_count=counts)
    counts[0] = 7  # the same list object, changed: the word must follow it
    assert descriptors.encode("zcm", check=False, start_count=counts) == \
        codec._ENCODERS["zcm"]({"start_count": [7, 2, 3, 0]}) != first
    sbo = [1024]  # an unhashable value where an int belongs: refused each time, nothing kept
    for _ in range(2):
        assert outcome(lambda: descriptors.encode("smem", check=False, sbo=sbo)) == \
            outcome(lambda: slow_encode("smem", {"stride_byte_offset": sbo}))
        assert outcome(lambda: descriptors.encode("smem", check=False, sbo=sbo))[0] == "raise"
    assert all(key[1] in codec.PLAIN_TYPES for memo in codec._PARTS.values() for key in memo)


def test_parameter_memo_is_bounded():
    saved = {name: dict(memo) for name, memo in codec._PARTS.items()}
    try:
        for i in range(codec.MEMO_SIZE + 10):
            codec._ENCODERS["smem"]({"start_address": 16 * i})
        assert 0 < len(codec._PARTS["smem"]) <= codec.MEMO_SIZE
        assert codec._ENCODERS["smem"]({"start_address": 32, "base_offset": 3}) == \
            2 | 3 << 49 | 1 << 46
    finally:
        for name, memo in codec._PARTS.items():
            memo.clear()
            memo.update(saved[name])


DECODE_CASES = [("smem", None), ("zcm", None), ("tmem", None)] + [("idesc", k) for k in KINDS]


def reference_view(descriptor, kind, word):
    lay = descriptors.layout_for(descriptor, kind)
    fields = lay.construct_parse(word)
    values = (codec._values_idesc(kind, lay, fields) if descriptor == "idesc"
              else getattr(codec, f"_values_{descriptor}")(fields))
    return fields, values


@PROPS
@given(case=st.sampled_from(DECODE_CASES), words=st.data())
def test_decoded_memos_equal_reference(case, words):
    descriptor, kind = case
    lay = descriptors.layout_for(descriptor, kind)
    word = words.draw(st.one_of(st.integers(0, lay.max_word), st.sampled_from(
        [0, lay.max_word, *(f.mask for f in lay.fields)])))
    fields, values = reference_view(descriptor, kind, word)
    cold = type(descriptors.decode(descriptor, word, kind=kind))
    cold._fmemo.pop(word, None)
    cold._vmemo.pop(word, None)
    seen = []
    for order in ("values", "fields", "values"):  # a miss first, then memo hits, both orders
        d = descriptors.decode(descriptor, word, kind=kind)
        getattr(d, order)
        assert d.fields == fields and d.values == values
        assert int(d) == word and d.to_dict()["fields"] == fields
        assert d.unexpected == {f.name: fields[f.name] for f in lay.fields
                                if f.role != "field" and fields[f.name] != f.default}
        seen.append((d, d.refused))
    assert seen[0][1] == seen[1][1] == seen[2][1]
    # every object owns its dicts (and zcm's lists): editing one leaves the others and the memo
    a, b, c = (d for d, _ in seen)
    assert a.fields is not b.fields is not c.fields and a.values is not b.values is not c.values
    if descriptor == "zcm":
        c.values["start_count"].append(99)
    for d in (a, b, c):
        d.values.clear()
        d.fields.clear()
    assert descriptors.decode(descriptor, word, kind=kind).values == values
    assert descriptors.decode(descriptor, word, kind=kind).fields == fields


def test_values_follow_edited_fields():
    d = descriptors.decode("smem", 0)
    d.fields["swizzle"] = 2
    assert d.values["swizzle"] == "128B" and int(d) == 2 << 61
    assert descriptors.decode("smem", 0).values["swizzle"] == "none"

"""descriptors.decode_many / encode_many: the NumPy and pure-Python paths agree bit for bit with
each other and with the one-word calls, refusals included (issue 12)."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import descriptors
from descriptors import KINDS
from descriptors.words import bulk
from descriptors.errors import DescgenError, ParameterError, WordError

np = pytest.importorskip("numpy")  # in the test extra; the pure path is tested without it too

BULK = settings(max_examples=120, deadline=None)
TARGETS = [("smem", None), ("zcm", None), ("tmem", None)] + [("idesc", k) for k in KINDS]


def outcome(call):
    try:
        return ("ok", call())
    except DescgenError as exc:
        return ("raise", type(exc), str(exc), getattr(exc, "__notes__", None))


def plain(columns):
    return {name: [int(v) for v in col] for name, col in columns.items()}


def with_numpy(enabled, call, monkeypatch):
    monkeypatch.setattr(bulk, "_numpy", np if enabled else None)
    try:
        return call()
    finally:
        monkeypatch.setattr(bulk, "_numpy", bulk._UNSET)


@st.composite
def word_lists(draw):
    descriptor, kind = draw(st.sampled_from(TARGETS))
    top = descriptors.layout_for(descriptor, kind).max_word
    good = st.integers(0, top)
    bad = st.sampled_from([-1, top + 1, 1 << 64, True, 1.0, "0x10", "zz", None])
    words = draw(st.lists(st.one_of(good, good, good, bad) if draw(st.booleans()) else good,
                          max_size=20))
    return descriptor, kind, words


@BULK
@given(case=word_lists())
@example(("tmem", None, [1, 1 << 32]))
@example(("idesc", "f16", [0x08400490, (1 << 32) - 1, 1 << 32]))
@example(("smem", None, [1, (1 << 64) - 1, -1]))
@example(("zcm", None, [True]))
def test_decode_many_numpy_equals_pure_python_equals_decode(case):
    descriptor, kind, words = case
    mp = pytest.MonkeyPatch()
    fast = with_numpy(True, lambda: outcome(
        lambda: plain(descriptors.decode_many(descriptor, words, kind))), mp)
    pure = with_numpy(False, lambda: outcome(
        lambda: descriptors.decode_many(descriptor, words, kind)), mp)
    assert fast == pure
    one = outcome(lambda: [descriptors.decode(descriptor, w, kind=kind).fields for w in words])
    if one[0] == "ok":
        lay = descriptors.layout_for(descriptor, kind)
        assert fast[1] == {f.name: [d[f.name] for d in one[1]] for f in lay.fields}
    else:  # the first bad word raises decode's own error, with its index as a note
        assert fast[:3] == one[:3]
        assert fast[3] and fast[3][-1].startswith("(word #")


@BULK
@given(descriptor_kind=st.sampled_from(TARGETS), dtype=st.sampled_from(
    ["uint64", "uint32", "int64", "int32", "uint8", "float64", "bool"]), data=st.data())
def test_decode_many_arrays(descriptor_kind, dtype, data):
    descriptor, kind = descriptor_kind
    info = np.iinfo(dtype) if dtype not in ("float64", "bool") else None
    lo = info.min if info is not None else 0
    hi = int(info.max) if info is not None else 1
    values = data.draw(st.lists(st.integers(max(lo, -5), hi), min_size=1, max_size=10))
    arr = np.array(values, dtype=dtype)
    got = outcome(lambda: descriptors.decode_many(descriptor, arr, kind))
    want = outcome(lambda: [descriptors.decode(descriptor, w, kind=kind).fields for w in arr])
    if want[0] == "ok":
        assert got[0] == "ok"
        assert all(col.dtype == np.uint64 for col in got[1].values())
        lay = descriptors.layout_for(descriptor, kind)
        assert plain(got[1]) == {f.name: [d[f.name] for d in want[1]] for f in lay.fields}
    else:
        assert got[:3] == want[:3]


def test_decode_many_refusals():
    with pytest.raises(descriptors.KindRequiredError):
        descriptors.decode_many("idesc", [1])
    with pytest.raises(ParameterError, match="unknown descriptor"):
        descriptors.decode_many("nope", [1])
    with pytest.raises(ParameterError, match="words must be a sequence"):
        descriptors.decode_many("tmem", "0x10")
    for bad in (np.zeros((2, 2), dtype=np.uint64), np.array(5)):
        with pytest.raises(ParameterError, match="one-dimensional array"):
            descriptors.decode_many("smem", bad)
    with pytest.raises(WordError, match="does not fit in 32 bits") as exc:
        descriptors.decode_many("tmem", np.array([1, 1 << 40], dtype=np.uint64))
    assert exc.value.__notes__ == ["(word #1 of the 2 given)"]
    empty = descriptors.decode_many("smem", [])
    assert set(empty) == {f.name for f in descriptors.SMEM.fields}
    assert all(len(c) == 0 for c in empty.values())
    # generators and string words are read like decode reads them
    cols = descriptors.decode_many("idesc", (w for w in ["0x08400490"]), "f16")
    assert int(cols["n_dim"][0]) == 32 and int(cols["m_dim"][0]) == 8


def test_encode_many():
    rows = [dict(kind="f16", a_type="bf16", b_type="bf16", m=128, n=n) for n in (8, 256, 8)]
    assert descriptors.encode_many("idesc", rows) == [descriptors.encode("idesc", **r)
                                                     for r in rows]
    assert descriptors.encode_many("idesc", rows)[1] == 0x08400490
    with pytest.raises(descriptors.FieldError, match=r"N=250 is not a non-negative multiple of 8") as exc:
        descriptors.encode_many("idesc", [*rows, {**rows[0], "n": 250}])
    assert exc.value.__notes__ == ["(row #3)"]
    with pytest.raises(ParameterError, match="row #0"):
        descriptors.encode_many("tmem", [[("lane", 1)]])
    with pytest.raises(ParameterError, match="rows must be a sequence"):
        descriptors.encode_many("tmem", {"lane": 1})

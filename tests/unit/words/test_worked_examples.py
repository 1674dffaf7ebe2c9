"""The PTX text's own worked examples (PTX ISA 9.7.16.3.3 and 9.7.16.4.3).

Expected words are computed here by hand from the PTX bit positions (Tables 40 and 45), not
from descgen's layouts, as an independent check.
"""

from __future__ import annotations

import pytest

import descriptors

# ------------------------------------------------------------------ Table 40 by hand


def ptx_smem_word(start=0, lbo=0, sbo=0, base_offset=0, lbo_mode=0, swizzle=0):
    """Table 40: start 0-13, LBO 16-29, SBO 32-45, 0b001 at 46-48, base offset 49-51, LBO mode
    52, zero 53-60, swizzle 61-63; the byte fields are matrix-descriptor-encode(x) =
    (x & 0x3FFFF) >> 4."""
    enc = lambda x: (x & 0x3FFFF) >> 4  # noqa: E731
    return (enc(start) | enc(lbo) << 16 | enc(sbo) << 32 | 0b001 << 46 | base_offset << 49
            | lbo_mode << 52 | swizzle << 61)


SWIZZLE_CODE = {"none": 0, "128B_base32B": 1, "128B": 2, "64B": 4, "32B": 6}  # Table 40
SIZEOF = {"tf32": 4, "bf16": 2}

#: 9.7.16.3.3 examples: (figure, major, swizzle, type, LBO elements, SBO elements, encoded LBO,
#: encoded SBO, exact layout).  LBO/SBO in elements are read off the "Exact layout" strides
#: through the canonical form; ``None`` is the "NA / 1 (assumed)" LBO of swizzled K-major.
CANONICAL = [
    ("Figure 188", "K", "none", "tf32", 64, 32, 16, 8,
     "Swizzle<0,4,3> o ((8,2),(4,4)):((4,32),(1,64))"),
    ("Figure 189", "K", "32B", "tf32", None, 64, 1, 16,
     "Swizzle<1,4,3> o ((8,2),(4,4)):((8,64),(1,4))"),
    ("Figure 190", "MN", "none", "bf16", 128, 64, 16, 8,
     "Swizzle<0,4,3> o ((8,1,2),(8,2)):((1,8,64),(8,128))"),
    ("Figure 191", "MN", "32B", "bf16", 128, 256, 16, 32,
     "Swizzle<1,4,3> o ((8,2,2),(8,2)):((1,8,128),(16,256))"),
    ("Figure 192", "MN", "64B", "bf16", 256, 512, 32, 64,
     "Swizzle<2,4,3> o ((8,4,2),(8,2)):((1,8,256),(32,512))"),
]


def _strides(exact):
    """The stride tuple of an exact CuTe layout string, flattened."""
    text = exact.split(":", 1)[1].replace("(", "").replace(")", "")
    return [int(x) for x in text.split(",")]


@pytest.mark.parametrize("example", CANONICAL, ids=[c[0] for c in CANONICAL])
def test_canonical_layout_lbo_sbo(example):
    fig, major, swizzle, dtype, lbo_el, sbo_el, lbo_enc, sbo_enc, exact = example
    size = SIZEOF[dtype]
    strides = _strides(exact)
    # the element strides given in the table are the ones of the exact layout
    if major == "K":
        assert strides[1] == sbo_el  # ((8,m),(T,2k)):((.,SBO),(1,LBO|T))
        if lbo_el is not None:
            assert strides[3] == lbo_el
    else:
        sbo_pos, lbo_pos = (2, 4) if swizzle == "none" else (4, 2)
        assert strides[sbo_pos] == sbo_el
        assert strides[lbo_pos] == lbo_el
    # Swizzle<B,4,3>: B = 0 none, 1 32B, 2 64B
    assert exact.startswith(f"Swizzle<{ {'none': 0, '32B': 1, '64B': 2}[swizzle] },4,3>")
    lbo_bytes = lbo_el * size if lbo_el is not None else 16  # "1 (assumed)" = 16 bytes
    sbo_bytes = sbo_el * size
    assert lbo_bytes >> 4 == lbo_enc and sbo_bytes >> 4 == sbo_enc  # the PTX "(x) >> 4"
    word = descriptors.encode("smem", leading_byte_offset=lbo_bytes, stride_byte_offset=sbo_bytes,
                              swizzle=swizzle)
    d = descriptors.decode("smem", word)
    assert d.fields["leading_byte_offset"] == lbo_enc
    assert d.fields["stride_byte_offset"] == sbo_enc
    assert d.fields["swizzle"] == SWIZZLE_CODE[swizzle]
    assert d.fields["fixed_constant"] == 0b001
    assert word == ptx_smem_word(lbo=lbo_bytes, sbo=sbo_bytes, swizzle=SWIZZLE_CODE[swizzle])
    assert d.values["leading_byte_offset_bytes"] == lbo_bytes
    assert d.values["stride_byte_offset_bytes"] == sbo_bytes
    assert d.values["swizzle"] == swizzle
    assert d.unexpected == {}


def test_canonical_words_literally():
    # the five words, written out (LBO/SBO raw, swizzle code, fixed constant 1 << 46)
    assert descriptors.encode("smem", lbo=64 * 4, sbo=32 * 4) == 0x0000400800100000
    assert descriptors.encode("smem", lbo=16, sbo=64 * 4, swizzle="32B") == 0xC000401000010000
    assert descriptors.encode("smem", lbo=128 * 2, sbo=64 * 2) == 0x0000400800100000
    assert descriptors.encode("smem", lbo=128 * 2, sbo=256 * 2, swizzle="32B") == 0xC000402000100000
    assert descriptors.encode("smem", lbo=256 * 2, sbo=512 * 2, swizzle="64B") == 0x8000404000200000


# ------------------------------------------------------------------ Table 45 by hand


def ptx_zcm_word(sc, fs, nzm, skip, use, shift):
    """Table 45: sc_i at 8i..8i+7, fs_i at 32+i, non-zero mask 39, skip span 40-47, use span
    48-55, column shift 56-61.  ``sc``/``fs`` are indexed by sub-mask (sc[0] = sc0)."""
    w = 0
    for i, v in enumerate(sc):
        w |= v << (8 * i)
    for i, v in enumerate(fs):
        w |= v << (32 + i)
    return w | nzm << 39 | skip << 40 | use << 48 | shift << 56


def reference_mask(fs, sc, skip, use, nzm, length):
    """A sub-mask, LSB first, under the examples' reading: use span + 1 columns of 0 (B used),
    skip span + 1 columns of 1 (zeros); fs = 1 starts with the skip span; sc leading
    positions dropped."""
    if not nzm:
        return [0] * length
    period = [1] * (skip + 1) + [0] * (use + 1) if fs else [0] * (use + 1) + [1] * (skip + 1)
    bits = (period * (length // len(period) + 3))[sc:]
    return bits[:length]


def shown(mask_text):
    """The low bits of a PTX mask picture '0b … 111 0000 111', LSB first ('0x0': all zero)."""
    if mask_text == "0x0":
        return [0] * 32
    return [int(c) for c in reversed(mask_text.split("…")[1].replace(" ", ""))]


#: 9.7.16.4.3 examples.  The PTX tables list start counts and first spans highest first
#: ({sc3, sc2, sc1, sc0}); ``start_count``/``first_span`` here are sub-mask 0 first.
ZCM_EXAMPLES = [
    ("Example 1 (M=128)", dict(start_count=[0, 0, 0, 0], first_span=[0, 0, 0, 0], non_zero_mask=0,
                               skip_span=4, use_span=3, column_shift=0), 0x0003040000000000,
     {0: "0x0"}),
    ("Example 2 (M=128)", dict(start_count=[0], first_span=[0], non_zero_mask=1, skip_span=2,
                               use_span=3, column_shift=0), 0x0003028000000000,
     {0: "0b … 111 0000 111 0000"}),
    ("Example 3 (M=64)", dict(start_count=[0, 0], first_span=[1, 0], non_zero_mask=1, skip_span=2,
                              use_span=3, column_shift=0), 0x0003028100000000,
     {0: "0b … 111 0000 111 0000 111", 1: "0b … 0000 111 0000 111 0000"}),
    ("Example 4 (M=32)", dict(start_count=[0, 1, 2, 1], first_span=[1, 1, 0, 0], non_zero_mask=1,
                              skip_span=2, use_span=3, column_shift=2), 0x0203028301020100,
     {0: "0b … 0000 111 0000 111", 1: "0b … 0000 111 0000 11",
      2: "0b … 111 0000 111 00", 3: "0b … 111 0000 111 000"}),
]


def _pad(xs):
    return list(xs) + [0] * (4 - len(xs))


@pytest.mark.parametrize(("name", "params", "word", "masks"), ZCM_EXAMPLES,
                         ids=[e[0] for e in ZCM_EXAMPLES])
def test_zero_column_mask_example(name, params, word, masks):
    sc, fs = _pad(params["start_count"]), _pad(params["first_span"])
    by_hand = ptx_zcm_word(sc, fs, params["non_zero_mask"], params["skip_span"],
                           params["use_span"], params["column_shift"])
    assert by_hand == word
    assert descriptors.encode("zcm", **params) == word
    # the same word through the PTX short names (sc0.., fs0.., nzm, shift) as raw fields
    raw_short = {**{f"sc{i}": sc[i] for i in range(4)}, **{f"fs{i}": fs[i] for i in range(4)},
                 "nzm": params["non_zero_mask"], "skip_span": params["skip_span"],
                 "use_span": params["use_span"], "shift": params["column_shift"]}
    assert descriptors.encode_raw("zcm", **raw_short) == word
    d = descriptors.decode("zcm", word)
    expected_fields = {
        **{f"start_count_{i}": sc[i] for i in range(4)},
        **{f"first_span_{i}": fs[i] for i in range(4)},
        "reserved_36": 0, "non_zero_mask": params["non_zero_mask"],
        "skip_span": params["skip_span"], "use_span": params["use_span"],
        "column_shift": params["column_shift"], "reserved_62": 0,
    }
    assert d.fields == expected_fields
    assert d.values == {**params, "start_count": sc, "first_span": fs}
    assert d.unexpected == {}
    # the decoded fields reproduce the PTX's output masks (skip span = zeroed columns)
    for i, text in masks.items():
        want = shown(text)
        got = reference_mask(d.fields[f"first_span_{i}"], d.fields[f"start_count_{i}"],
                             d.fields["skip_span"], d.fields["use_span"],
                             d.fields["non_zero_mask"], len(want))
        assert got == want, (name, i)


def test_zcm_example_4_highest_first_order():
    # PTX: {sc3, sc2, sc1, sc0} = {1, 2, 1, 0} and {fs3, fs2, fs1, fs0} = {0, 0, 1, 1}
    sc3, sc2, sc1, sc0 = 1, 2, 1, 0
    fs3, fs2, fs1, fs0 = 0, 0, 1, 1
    w = descriptors.encode("zcm", start_count=[sc0, sc1, sc2, sc3], first_span=[fs0, fs1, fs2, fs3],
                           non_zero_mask=1, skip_span=2, use_span=3, column_shift=2)
    f = descriptors.decode("zcm", w).fields
    assert (f["start_count_3"], f["start_count_2"], f["start_count_1"], f["start_count_0"]) == \
        (1, 2, 1, 0)
    assert (f["first_span_3"], f["first_span_2"], f["first_span_1"], f["first_span_0"]) == \
        (0, 0, 1, 1)
    assert w & 0xFFFFFFFF == 0x01020100  # sc3 in the top byte of the low word
    assert (w >> 32) & 0xF == 0b0011  # fs1 fs0 set
    assert (w >> 56) & 0x3F == 2

"""CuTe layouts <-> shared memory descriptors (descriptors.cute, descriptors.cute_layout): the
print forms CuTe really produces, the PTX worked examples, refusals with their reasons, the
round trip descriptor -> CuTe layout -> descriptor over every canonical form (property test),
and the CLI (`descgen layout --cute`, `--explain` with its CuTe layout, `--tile-order`).

The CuTe prints below were produced by the nvidia-cutlass 4.2.0.0 headers (host program
compiled with g++: print(atom), print(tile_to_shape(...)), print(tensor), print(composition(
Swizzle<3,3,3>{}, layout)), print of a null smem tensor, of a 4-bit smem tensor and of the
SW128_32B atom), and are kept verbatim.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from descriptors import DescgenError, ParameterError, decode, encode
from descriptors.layout.cute import CuteSyntaxError, offsets, parse_layout
from descriptors.layout.cute_layout import (cute_descriptor, cute_layout_descriptor,
                                     descriptor_cute_layout)
from descriptors.words.swizzles import SWIZZLE_MODES
from descriptors.layout.smem_layout import LayoutError, element_type, layout_descriptor

from helpers import fails, ok  # noqa: E402

#: Verbatim CuTe prints (nvidia-cutlass 4.2.0.0), with what they must parse to.
CUTE_PRINTS = [
    ("Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)",
     (8, 64), (64, 1), (3, 4, 3), "address", 16, None),
    ("Sw<3,4,3> o smem_ptr[16b](unset) o ((_8,_16),(_64,_1)):((_64,_512),(_1,_0))",
     ((8, 16), (64, 1)), ((64, 512), (1, 0)), (3, 4, 3), "address", 16, None),
    ("Sw<3,4,3>_smem_ptr[16b](0x400) o ((_128,_16),_1,_4):((_64,_1),_0,_16)",
     ((128, 16), 1, 4), ((64, 1), 0, 16), (3, 4, 3), "address", 16, 0x400),
    ("Sw<3,4,3>_smem_ptr[16b](0x420) o (_128,_16):(_64,_1)",
     (128, 16), (64, 1), (3, 4, 3), "address", 16, 0x420),
    ("Sw<3,3,3> o _0 o (_8,_64):(_64,_1)", (8, 64), (64, 1), (3, 3, 3), "offset", None, None),
    ("smem_ptr[16b]((nil)) o (_8,_8):(_1,_8)", (8, 8), (1, 8), None, None, 16, 0),
    ("Sw<3,4,3>_smem_ptr[4b](0x400) o ((_8,_16),(_256,_1)):((_256,_2048),(_1,_0))",
     ((8, 16), (256, 1)), ((256, 2048), (1, 0)), (3, 4, 3), "address", 4, 0x400),
    ("Sw<2,5,2> o smem_ptr[32b](unset) o ((_32,_2),(_4,_4)):((_1,_128),(_32,_256))",
     ((32, 2), (4, 4)), ((1, 128), (32, 256)), (2, 5, 2), "address", 32, None),
    ("(128,64):(64,1)", (128, 64), (64, 1), None, None, None, None),
    ("smem_subptr[4b](0x400.0) o (_64,_64):(_64,_1)", (64, 64), (64, 1), None, None, 4, 0x400),
    ("Swizzle<1,4,3> o ((8,2,2),(8,2)):((1,8,128),(16,256))",
     ((8, 2, 2), (8, 2)), ((1, 8, 128), (16, 256)), (1, 4, 3), "bytes", None, None),
]


@pytest.mark.parametrize("text, shape, stride, sw, on, bits, addr", CUTE_PRINTS,
                         ids=[c[0][:40] for c in CUTE_PRINTS])
def test_parses_every_print_form(text, shape, stride, sw, on, bits, addr) -> None:
    lay = parse_layout(text)
    assert (lay.shape, lay.stride) == (shape, stride)
    assert (None if lay.swizzle is None else (lay.swizzle.B, lay.swizzle.M, lay.swizzle.S)) == sw
    assert lay.swizzle_on == on
    assert (None if lay.pointer is None else lay.pointer.bits) == bits
    if addr is not None:
        assert lay.pointer.address == addr
    assert parse_layout(str(lay)) == lay          # its print reads back the same


def test_offsets_are_colexicographic() -> None:
    """CuTe's crd2idx: the first leaf of a mode varies fastest."""
    assert offsets((8, 2), (64, 512)) == [0, 64, 128, 192, 256, 320, 384, 448,
                                          512, 576, 640, 704, 768, 832, 896, 960]
    assert offsets(((2, 2), 3), ((1, 10), 100)) == [0, 1, 10, 11, 100, 101, 110, 111, 200, 201, 210, 211]
    assert offsets(5, 0) == [0] * 5


@pytest.mark.parametrize("text, why", [
    ("", "empty"),
    ("(_128,_16)", "SHAPE:STRIDE"),
    ("(_128,_16):(_64)", "not congruent"),
    ("(_128,(_16,_2)):(_16,_1)", "not congruent"),
    ("(_128,_16):(_64,_1) trailing", "unexpected text"),
    ("(_128,_16:(_64,_1)", r"expected ',' or '\)' at character 10"),
    ("(_0,_16):(_64,_1)", "size 0"),
    ("(_128,_x):(_64,_1)", "expected an integer"),
    ("Sw<3,4> o (_1):(_1)", "cannot read"),
    ("Sw<3,4,3>_gmem o (_1):(_1)", "expected a pointer"),
    ("smem_ptr[16b](0x400) o smem_ptr[16b](0x400) o (_1):(_1)", "names two pointers"),
    ("Sw<3,4,3> o smem_ptr[16b](0x0) o smem_ptr[16b](0x0) o (1):(1)", "at most"),
    ("(" * 40 + "1" + ")" * 40 + ":(1)", "nested"),
    ("(_99999999999999999999,_1):(_1,_1)", "integer"),
    ("x" * 5000, "longer than any layout"),
])
def test_malformed_text_is_one_clear_refusal(text, why) -> None:
    with pytest.raises(CuteSyntaxError, match=why) as info:
        parse_layout(text)
    assert isinstance(info.value, LayoutError) and isinstance(info.value, ParameterError)


@settings(max_examples=300, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet="()_:,0123456789 oSw<>smem_ptr[b]x.-unil", max_size=80))
def test_any_text_parses_or_raises_our_error(text: str) -> None:
    try:
        lay = parse_layout(text)
    except DescgenError:
        return
    try:
        cute_descriptor(lay, dtype="bf16", major="K", swizzle="none")
    except DescgenError:
        pass


# ---------------------------------------------------------------------------- layout -> word


def test_issue_example_and_production_words() -> None:
    # the issue's e4m3 K-major unswizzled slice: rows 16 B apart, 8-row groups 128 B, K chunks 2048 B
    assert cute_descriptor("(_128,(_16,_2)):(_16,(_1,_2048))", dtype="e4m3", major="K",
                           swizzle="none", start_address=0x20c00) == encode(
        "smem", start_address=0x20c00, leading_byte_offset=2048, stride_byte_offset=128, swizzle="none")
    # CUTLASS's sm100 tutorial print (a partitioned tensor): the K-major SW128 production word
    r = cute_layout_descriptor("Sw<3,4,3>_smem_ptr[16b](0x400) o ((_128,_16),_1,_4):((_64,_1),_0,_16)",
                               dtype="bf16", major="K")
    assert r.hex == "0x4000404000010040"
    assert [s.hex for s in r.k_steps] == ["0x4000404000010040", "0x4000404000010042",
                                          "0x4000404000010044", "0x4000404000010046"]
    assert cute_descriptor("Sw<3,4,3> o smem_ptr[16b](unset) o (_128,_16):(_64,_1)", dtype="bf16",
                           major="K", unused_lbo_bytes=0) == 0x4000404000000000   # DeepGEMM
    # K-first MN-major SW128 bf16, as CuTe printed it (tile_to_shape(..., Step<_2,_1>))
    assert cute_descriptor("Sw<3,4,3>_smem_ptr[16b](0x400) o ((_64,_2),_16):((_1,_4096),_64)",
                           dtype="bf16", major="MN") == 0x4000404002000040


@pytest.mark.parametrize("exact, dtype, major, lbo, sbo", [
    ("Swizzle<0,4,3> o ((8,2),(4,4)):((4,32),(1,64))", "tf32", "K", 64 * 4, 32 * 4),
    ("Swizzle<0,4,3> o ((8,1,2),(8,2)):((1,8,64),(8,128))", "bf16", "MN", 128 * 2, 64 * 2),
    ("Swizzle<1,4,3> o ((8,2,2),(8,2)):((1,8,128),(16,256))", "bf16", "MN", 128 * 2, 256 * 2),
    ("Swizzle<2,4,3> o ((8,4,2),(8,2)):((1,8,256),(32,512))", "bf16", "MN", 256 * 2, 512 * 2),
])
def test_ptx_worked_examples_exact_layouts(exact, dtype, major, lbo, sbo) -> None:
    """The "Exact layout"s of 9.7.16.3.3, in the text's notation (byte-address swizzle),
    give the text's LBO and SBO."""
    r = cute_layout_descriptor(exact, dtype=dtype, major=major)
    assert (r.lbo_bytes, r.sbo_bytes) == (lbo, sbo)
    f = decode("smem", r.word).fields
    assert (f["leading_byte_offset"], f["stride_byte_offset"]) == (lbo >> 4, sbo >> 4)


def test_ptx_k32b_example_is_refused_it_aliases() -> None:
    """The text's K-major 32B tf32 exact layout puts 64 contiguous bytes of K in a 32-byte
    swizzled row (two coordinates share an address): no descriptor reads that."""
    with pytest.raises(LayoutError, match=r"layout mode 1 \(K\) spans 64 bytes.*32-byte swizzled row"):
        cute_descriptor("Swizzle<1,4,3> o ((8,2),(4,4)):((8,64),(1,4))", dtype="tf32", major="K")


@pytest.mark.parametrize("layout, kwargs, exc, why", [
    # a stride no canonical form has: rows 48 bytes apart in a K-major SW128 layout
    ("Sw<3,4,3>_smem_ptr[16b](0x400) o (_128,_16):(_24,_1)", {}, LayoutError,
     r"layout mode 0 \(M/N\) stride 24 elements \(48 bytes\) between rows 0 and 1: a K-major "
     r"128B bf16 layout needs 64 \(128 bytes\)"),
    ("Sw<3,4,3>_smem_ptr[16b](0x400) o ((_64,_2),_16):((_1,_4096),_72)", {"major": "MN"}, LayoutError,
     r"layout mode 1 \(K\) stride 72 elements"),
    # M/N not contiguous inside a 16-byte chunk of an MN-major operand
    ("Sw<3,4,3>_smem_ptr[16b](0x400) o ((_2,_64),_16):((_64,_1),_64)", {"major": "MN"}, LayoutError,
     r"layout mode 0 \(M/N\): element 1 is at offset 64, not 1"),
    # K chunks not at one LBO each in an unswizzled K-major layout
    ("smem_ptr[16b](0x400) o ((_8,_2),(_8,_2,_2)):((_8,_64),(_1,_128,_1024))", {"swizzle": None},
     LayoutError, r"puts M/N row 0, K chunk 2 .* at byte 2048; a K-major none descriptor "
                  r"\(LBO 256 B, SBO 128 B.* reads it at byte 512"),
    # the wrong rank
    ("Sw<3,4,3>_smem_ptr[16b](0x400) o _128:_1", {}, LayoutError, r"rank-1 layout"),
    ("Sw<3,4,3>_smem_ptr[16b](0x400) o (_128,_16,_2):(_64,_1,_16)", {}, LayoutError,
     r"mode 0 _128 is not rank 2"),
    # rows not a multiple of 8
    ("Sw<3,4,3>_smem_ptr[16b](0x400) o (_12,_16):(_64,_1)", {}, LayoutError, r"12 rows"),
    # a misaligned start address
    ("smem_ptr[16b](0x408) o (_8,_16):(_8,_64)", {}, LayoutError, r"0x408 is not 16-byte aligned"),
    ("Sw<3,3,3> o _0 o (_128,_16):(_64,_1)", {"start_address": 0x440}, LayoutError,
     r"not on a 128-byte boundary"),
    # a swizzle that is no descriptor mode, and one that contradicts swizzle=
    ("Sw<3,4,3> o _0 o (_128,_16):(_64,_1)", {}, LayoutError, r"is not a descriptor swizzle mode.*smem_ptr\[16b\]"),
    ("Sw<3,4,3>_smem_ptr[16b](0x400) o (_128,_16):(_64,_1)", {"swizzle": "64B"}, LayoutError,
     r"contradicts"),
    # a bare layout with swizzle= off the repeat boundary: where does the pattern start?
    ("(_128,_16):(_64,_1)", {"swizzle": "128B", "start_address": 0x420}, LayoutError,
     r"does not say where the pattern starts"),
    ("(_128,_16):(_64,_1)", {}, ParameterError, r"names no swizzle"),
    # Table 52/53 combinations
    ("Sw<2,5,2>_smem_ptr[16b](0x400) o (_128,_16):(_64,_1)", {}, LayoutError, r"Table 53"),
    ("Sw<3,4,3>_smem_ptr[32b](0x400) o ((_32,_2),_8):((_1,_256),_32)", {"dtype": "tf32", "major": "MN"},
     LayoutError, r"32-bit \(tf32\) MN-major operands support only 128B swizzling with 32B"),
    # a pointer of another width, another memory, a generic address
    ("Sw<3,4,3>_smem_ptr[8b](0x400) o (_128,_16):(_64,_1)", {}, LayoutError, r"8-bit elements"),
    ("Sw<3,4,3>_gmem_ptr[16b](0x400) o (_128,_16):(_64,_1)", {}, LayoutError, r"not shared memory"),
    ("Sw<3,4,3>_smem_ptr[16b](0x7f0000000400) o (_128,_16):(_64,_1)", {}, LayoutError,
     r"not a shared-memory window address"),
    ("Sw<3,4,3>_smem_ptr[16b](0x400) o (_128,_16):(_64,_1)", {"start_address": 0x800},
     ParameterError, r"contradicts the layout's pointer"),
    # a 4-bit pointer's printed address is base + element offset: refuse to guess
    ("Sw<3,4,3>_smem_ptr[4b](0x600) o (_128,_64):(_128,_1)", {"dtype": "e2m1", "kind": "mxf4"},
     ParameterError, r"one byte per element"),
    # negative strides; a slice larger than any MMA operand
    ("smem_ptr[16b](0x4000) o (_8,_16):(-8,_1)", {}, LayoutError, r"negative stride"),
    ("smem_ptr[16b](0x0) o (_1024,_128):(_128,_1)", {}, LayoutError, r"more than one MMA"),
    # LBO/SBO that overflow the 14-bit field
    ("smem_ptr[16b](0x0) o ((_8,_2),(_8,_2)):((_8,_140000),(_1,_64))", {}, LayoutError,
     r"(do not fit|past the)"),
    # sparse pointers are the logical view
    ("Sw<3,4,3> o smem_sparse<2>_ptr[16b](unset) o (_128,_16):(_64,_1)", {}, LayoutError, r"sparse"),
])
def test_refusals_name_what_is_wrong(layout, kwargs, exc, why) -> None:
    params = {"dtype": "bf16", "major": "K"} | kwargs
    with pytest.raises(exc, match=why):
        cute_descriptor(layout, **params)


def test_start_address_semantics() -> None:
    """Where the swizzle pattern starts decides the base offset (Table 41): on the pointer it is
    absolute (base 0 anywhere, as CUTLASS), composed with the layout it starts at the origin."""
    word = cute_descriptor("Sw<3,4,3>_smem_ptr[16b](0x1480) o (_128,_16):(_64,_1)", dtype="bf16", major="K")
    assert decode("smem", word).fields["base_offset"] == 0
    rel = cute_layout_descriptor("Sw<3,3,3> o _0 o (_128,_16):(_64,_1)", dtype="bf16", major="K",
                                 start_address=0x1480)
    assert rel.base_offset == (0x1480 >> 7) & 7 == 1 and rel.pattern == "origin"
    # ...and equals the tile API, whose tile start is its pattern start
    assert rel.word == layout_descriptor("K", "128B", "bf16", (128, 64), 0x1480).word
    # a composed offset moves the start, not the pattern
    off = cute_layout_descriptor("Sw<3,3,3> o 16 o (_128,_16):(_64,_1)", dtype="bf16", major="K",
                                 start_address=0x1480)
    assert off.start_address_bytes == 0x14a0 and off.base_offset == 1
    # on the repeat boundary every notation agrees
    for text in ("Sw<3,4,3>_smem_ptr[16b](0x2000) o (_128,_16):(_64,_1)",
                 "Sw<3,3,3> o _0 o (_128,_16):(_64,_1)", "Swizzle<3,4,3> o (_128,_16):(_64,_1)",
                 "(_128,_16):(_64,_1)"):
        assert cute_descriptor(text, dtype="bf16", major="K", swizzle="128B",
                               start_address=0x2000) == 0x4000404000010200


def test_window_end_is_exact_for_packed_4bit() -> None:
    """A packed 4-bit slice (256 bytes: 8 rows of 16 bytes, a second K chunk 128 bytes on) that
    ends exactly at 256 KiB is accepted; 16 bytes later it reaches past the window."""
    kw = {"dtype": "e2m1", "kind": "mxf4", "major": "K", "swizzle": "none"}
    layout = "(_8,(_32,_2)):(_32,(_1,_256))"
    assert cute_descriptor(layout, **kw, start_address=0x40000 - 256)
    with pytest.raises(LayoutError, match="past the 256 KiB window"):
        cute_descriptor(layout, **kw, start_address=0x40000 - 256 + 16)


def test_packed_4bit_needs_the_byte_address() -> None:
    text = "Sw<3,4,3>_smem_ptr[4b](0x600) o (_128,_64):(_256,_1)"
    r = cute_layout_descriptor(text, dtype="e2m1", kind="mxf4", major="K", start_address=0x500)
    assert r.start_address_bytes == 0x500 and any("ignored" in n for n in r.notes)


# ---------------------------------------------------------------------------- word -> layout -> word

_COMBOS = [(maj, sw, dt, kind) for maj, sw in
           [("K", "none"), ("K", "32B"), ("K", "64B"), ("K", "128B"), ("MN", "none"),
            ("MN", "32B"), ("MN", "64B"), ("MN", "128B"), ("MN", "128B_base32B")]
           for dt, kind in [("tf32", None), ("bf16", None), ("e4m3", "f8f6f4"), ("s8", None),
                            ("e2m1", "f8f6f4"), ("e2m1", "mxf4")]]


def _legal(maj: str, sw: str, dt: str, kind: str | None) -> bool:
    try:
        layout_descriptor(maj, sw, dt, "256x256", kind=kind)
    except LayoutError as exc:
        return "Table 52" not in str(exc) and "Table 53" not in str(exc) and "K-major swizzle" not in str(exc)
    return True


LEGAL = [c for c in _COMBOS if _legal(*c)]


@settings(max_examples=400, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(LEGAL), st.integers(0, 0x3FFF), st.integers(0, 0x3FFF),
       st.integers(0, 0x3FF), st.integers(0, 7), st.booleans(), st.data())
def test_cute_descriptor_of_explain_is_the_word(combo, lbo_raw, sbo_raw, origin_128, k_chunk,
                                                unused_zero, data) -> None:
    """For every canonical form: cute_descriptor(descriptor_cute_layout(word)) == word, over
    LBO, SBO, start addresses, base offsets (patterns starting off the repeat boundary) and
    both spellings of the unused K-major LBO."""
    maj, sw, dt, kind = combo
    mode = SWIZZLE_MODES[sw]
    el = element_type(dt, kind)
    origin = origin_128 * 128
    start = origin
    base = 0
    if mode.repeat_bytes is not None:
        if data.draw(st.booleans()) and origin % mode.repeat_bytes:
            base = (origin >> 7) & 7                     # pattern at the origin, off the boundary
            if maj == "K":                               # a K step inside the swizzled row
                start = origin + 16 * (k_chunk % (mode.row_bytes // 16 - 1))
        elif maj == "K":
            start = origin + 16 * (k_chunk % (mode.row_bytes // 16 - 1))
    lbo = lbo_raw * 16
    if maj == "K" and sw != "none":
        lbo = 0 if unused_zero else 16
    word = encode("smem", start_address=start, leading_byte_offset=lbo,
                  stride_byte_offset=sbo_raw * 16, swizzle=sw, base_offset=base)
    text, at, _ = descriptor_cute_layout(word, major=maj, dtype=dt, kind=kind)
    try:
        got = cute_descriptor(text, dtype=dt, kind=kind, major=maj, start_address=at,
                              unused_lbo_bytes=0 if unused_zero else 16)
    except LayoutError as exc:
        # the only refusal: the layout runs past the 256 KiB window
        assert "window" in str(exc), (hex(word), text, exc)
        return
    assert got == word, (hex(word), text, hex(got), el.name)


# ---------------------------------------------------------------------------- CLI


def test_cli_cute_issue_example() -> None:
    out = ok("layout", "--cute", "(_128,(_16,_2)):(_16,(_1,_2048))", "--dtype", "e4m3",
             "--major", "K", "--swizzle", "none", "--start-address", "0x20c00", "-f", "hex")
    assert out == "0x00004008008020c0\n"
    text = ok("layout", "--cute", "Sw<3,4,3>_smem_ptr[16b](0x400) o ((_128,_16),_1,_4):((_64,_1),_0,_16)",
              "--dtype", "bf16", "--major", "K", "--plain")
    assert text.startswith("shared memory descriptor 0x4000404000010040\n")
    assert "slice 128 x 16 (M/N x K elements) at 0x400, 128B swizzle" in text
    assert "     3      0x60     0x460      +6  0x4000404000010046" in text
    doc = json.loads(ok("layout", "--cute", "Sw<3,4,3>_smem_ptr[16b](0x400) o ((_64,_2),_16):((_1,_4096),_64)",
                        "--dtype", "bf16", "--major", "MN", "-f", "json"))
    assert (doc["word"], doc["lbo_bytes"], doc["sbo_bytes"]) == ("0x4000404002000040", 8192, 1024)


@pytest.mark.parametrize("args, why", [
    (["--cute", "(_128,_16"], "expected a CuTe layout SHAPE:STRIDE"),
    (["--cute", "Sw<3,4,3>_smem_ptr[16b](0x400) o (_128,_16):(_24,_1)"],
     "layout mode 0 (M/N) stride 24 elements"),
    (["--cute", "Sw<3,4,3>_smem_ptr[16b](0x400) o _128:_1"], "rank-1 layout"),
    (["--cute", "Sw<3,4,3>_smem_ptr[16b](0x408) o (_128,_16):(_64,_1)"], "16"),
    (["--cute", "(_128,_16):(_64,_1)", "--tile", "128x64"], "cannot be combined with --cute"),
    (["--cute", "(_128,_16):(_64,_1)", "--explain", "0x1"], "opposite ways"),
])
def test_cli_cute_bad_input_one_line_exit_2(args, why) -> None:
    line = fails("layout", *args, "--dtype", "bf16", "--major", "K")
    assert why in line
    assert len(line) < 600


def test_cli_tile_order() -> None:
    base = ["layout", "--major", "MN", "--swizzle", "128B", "--dtype", "bf16", "--tile", "128x64",
            "-f", "hex", "--k-steps", "--start-address", "0x400"]
    k_first = ok(*base, "--tile-order", "k_first").split()
    assert k_first == ["0x4000404002000040", "0x40004040020000c0", "0x4000404002000140",
                       "0x40004040020001c0"]                      # CUTLASS make_umma_desc
    assert ok(*base, "--tile-order", "Step<_2,_1>").split() == k_first
    assert ok(*base, "--tile-order", "mn_first").split()[0] == "0x4000408000400040"
    assert "tile_order=" in fails(*base, "--tile-order", "diagonal")
    text = ok(*base[:-5], "--tile-order", "k_first", "--show", "--plain")
    assert "stacked K first, Step<_2,_1>; next atom along M/N +8192 bytes, along K +1024 bytes" in text
    assert "2 x 8 swizzle atoms" in text and "0x3c00" in text
    assert "whole tile        Sw<3,4,3>_smem_ptr[16b](0x0) o ((_64,_2),(_8,_8)):((_1,_4096),(_64,_512))" in text
    # the default order says when the other order would give another word
    assert "tile order not given" in ok(*base[:-5])


def test_cli_explain_prints_the_cute_layout_that_reads_back() -> None:
    text = ok("layout", "--explain", "0x4000404002000040", "--major", "MN", "--dtype", "bf16",
              "--plain")
    line = next(ln for ln in text.splitlines() if ln.strip().startswith("cute "))
    layout = line.split("cute", 1)[1].strip()
    assert layout == "Sw<3,4,3>_smem_ptr[16b](0x400) o ((_64,_2),(_8,_2)):((_1,_4096),(_64,_512))"
    assert ok("layout", "--cute", layout, "--dtype", "bf16", "--major", "MN", "-f", "hex") == \
        "0x4000404002000040\n"
    sized = ok("layout", "--explain", "0x4000404002000040", "--major", "MN", "--dtype", "bf16",
               "--tile", "256x32")
    assert "((_64,_4),(_8,_4)):((_1,_4096),(_64,_512))" in sized


# ---------------------------------------------------------------------------- real CUTLASS kernels

FIXTURES = sorted((Path(__file__).resolve().parents[3] / "fixtures" / "cute").glob("*.txt"))


def _facts(path: Path) -> dict[str, Any]:
    """One fixture (fixtures/cute/README.md has the line format) as {operand: facts}."""
    ops: dict[str, dict[str, Any]] = {}
    for line in path.read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        tag, rest = line.split(" ", 1)
        if tag in ("dtype", "major", "layout", "tensor"):
            op, value = rest.split(" ", 1)
            ops.setdefault(op, {"blocks": {}, "slices": {}})[tag] = value
        elif tag == "block":
            op, k, word, text = rest.split(" ", 3)
            ops[op]["blocks"][int(k)] = (int(word, 16), text)
        elif tag == "slice":
            op, k, text = rest.split(" ", 2)
            ops[op]["slices"][int(k)] = text
    return ops


def test_three_real_kernel_fixtures() -> None:
    """fixtures/cute: CuTe's prints of three real CUTLASS 4.2 sm100 kernels (two K-major f16,
    one 2-SM; one MN-major e4m3) with the words CUTLASS computes."""
    assert len(FIXTURES) == 3
    majors = set()
    for path in FIXTURES:
        ops = _facts(path)
        assert set(ops) == {"A", "B"} and "nvidia-cutlass 4.2.0.0" in path.read_text()
        for facts in ops.values():
            majors.add(facts["major"])
            assert len(facts["blocks"]) >= 2 and facts["slices"].keys() == facts["blocks"].keys()
    assert majors == {"K", "MN"}


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_real_kernel_prints_give_cutlass_words(path: Path) -> None:
    """Every form a user can paste -- the per-MMA block, print(tCsA(_,0,k)), the partitioned
    stage-0 tensor and the full multi-stage layout (pointer unset, start given) -- gives the word
    CUTLASS's MMA loop issues, through the library and `descgen layout --cute`."""
    for op, f in _facts(path).items():
        kw = {"dtype": f["dtype"], "major": f["major"]}
        words = [f["blocks"][k][0] for k in sorted(f["blocks"])]
        for k, (word, text) in f["blocks"].items():
            assert cute_descriptor(text, **kw) == word, (op, k, text)
            assert cute_descriptor(f["slices"][k], **kw) == word, (op, k, f["slices"][k])
        assert [s.word for s in cute_layout_descriptor(f["tensor"], **kw).k_steps] == words
        start = {"A": 0x400, "B": 0x8400}[op]
        full = cute_layout_descriptor(f["layout"], **kw, start_address=start)
        assert [s.word for s in full.k_steps] == words
        assert any("stage" in n for n in full.notes)
        hexes = ok("layout", "--cute", f["tensor"], "--dtype", f["dtype"], "--major", f["major"],
                   "-f", "hex").split()
        assert [int(h, 16) for h in hexes] == words

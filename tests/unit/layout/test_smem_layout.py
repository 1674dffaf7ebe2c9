"""Shared memory layouts -> descriptors (descriptors.smem_layout): the PTX worked examples of
9.7.16.3.3, the production SW128 descriptors, Table 52/53 and 9.7.16.3.1.2.1 refusals, base
offsets (Table 41), K iteration and its carry check, the inverse explanation and the swizzle
atoms (Table 53)."""

from __future__ import annotations

import ast
import itertools

import pytest

import descriptors
from descriptors import DescgenError, FieldError, ParameterError, decode, encode_raw
from descriptors.words.codec import encode  # the packing: rule-breaking words on purpose
from descriptors.layout.smem_layout import (CANONICAL_FORMS, DTYPES, KStepCarryError, LayoutError,
                                     SwizzleAtom, advance_descriptor, element_type,
                                     explain_descriptor, k_steps, layout_descriptor, swizzle_atom)
from descriptors.rules.validate import validate, validate_pair


def raw(lay, name: str) -> int:
    return lay.fields[name]


# ---------------------------------------------------------------------------- a CuTe evaluator


def _parse(layout: str) -> tuple[tuple, tuple]:
    """'Sw<..>_smem_ptr[..](..) o (shape):(stride)' (CuTe's print, '_N' static) -> (shape, stride)
    as nested tuples; independent of descriptors.cute, which it checks."""
    body = layout.rsplit(" o ", 1)[-1].replace("_", "")
    shape, stride = body.split(":")
    return ast.literal_eval(shape), ast.literal_eval(stride)


def _mode_offset(shape: tuple, stride: tuple, coord: int) -> int:
    """Offset of a 1-D coordinate of a (flat) mode, colexicographic as CuTe."""
    off = 0
    for s, d in zip(shape, stride):
        off += (coord % s) * d
        coord //= s
    assert coord == 0
    return off


def evaluate(layout: str, mn: int, k: int) -> int:
    """The element offset a 2-mode (M/N, K) layout gives coordinate (mn, k), unswizzled."""
    shape, stride = _parse(layout)
    return _mode_offset(shape[0], stride[0], mn) + _mode_offset(shape[1], stride[1], k)


def offsets(layout: str) -> list[int]:
    """Offsets of every (M/N, K) coordinate, M/N-major order."""
    shape, stride = _parse(layout)
    size = lambda t: eval("*".join(map(str, t)))  # noqa: E731
    rows = [_mode_offset(shape[0], stride[0], i) for i in range(size(shape[0]))]
    cols = [_mode_offset(shape[1], stride[1], j) for j in range(size(shape[1]))]
    return [r + c for r in rows for c in cols]


# ---------------------------------------------------------------------------- PTX 9.7.16.3.3 examples

#: The worked examples of 9.7.16.3.3: (major, swizzle, dtype, tile from the "exact layout"'s
#: shape), T, m, k, LBO and SBO encodings ((x) >> 4; "1 (assumed)" for the unused LBO), and the
#: text's "Exact layout".
PTX_EXAMPLES = [
    (("K", "none", "tf32", (16, 16)), 4, 2, 2, 64 * 4 >> 4, 32 * 4 >> 4,
     "Swizzle<0,4,3> o ((8,2),(4,4)):((4,32),(1,64))"),
    (("K", "32B", "tf32", (16, 16)), 4, 2, 2, 1, 64 * 4 >> 4,
     "Swizzle<1,4,3> o ((8,2),(4,4)):((8,64),(1,4))"),
    (("MN", "none", "bf16", (16, 16)), 8, 2, 2, 128 * 2 >> 4, 64 * 2 >> 4,
     "Swizzle<0,4,3> o ((8,1,2),(8,2)):((1,8,64),(8,128))"),
    (("MN", "32B", "bf16", (32, 16)), 8, 2, 2, 128 * 2 >> 4, 256 * 2 >> 4,
     "Swizzle<1,4,3> o ((8,2,2),(8,2)):((1,8,128),(16,256))"),
    (("MN", "64B", "bf16", (64, 16)), 8, 2, 2, 256 * 2 >> 4, 512 * 2 >> 4,
     "Swizzle<2,4,3> o ((8,4,2),(8,2)):((1,8,256),(32,512))"),
]


@pytest.mark.parametrize("params, T, m, k, lbo_enc, sbo_enc, exact", PTX_EXAMPLES,
                         ids=[f"{p[0][0]}-{p[0][1]}-{p[0][2]}" for p in PTX_EXAMPLES])
def test_ptx_worked_examples(params, T, m, k, lbo_enc, sbo_enc, exact) -> None:
    lay = layout_descriptor(*params)
    assert (lay.T, lay.m, lay.k) == (T, m, k)
    assert raw(lay, "leading_byte_offset") == lbo_enc
    assert raw(lay, "stride_byte_offset") == sbo_enc
    assert (lay.lbo_bytes, lay.sbo_bytes) == (lbo_enc * 16, sbo_enc * 16)
    assert lay.canonical_layout == exact
    assert f"{lay.atom.swizzle_functor} o {lay.canonical_form}".startswith(exact.split(" o ")[0])
    assert raw(lay, "swizzle") == descriptors.words.enums.SWIZZLE.lookup(params[1]).value
    assert lay.word == encode("smem", leading_byte_offset=lay.lbo_bytes,
                              stride_byte_offset=lay.sbo_bytes, swizzle=params[1])


def test_ptx_k32b_example_exact_layout_aliases_our_tile_layout_does_not() -> None:
    """The text's exact layout of its K-major 32B tf32 example, ((8,2),(4,4)):((8,64),(1,4)),
    puts rows 32 bytes apart but 64 contiguous bytes of K in each: it maps two coordinates to
    one address.  descgen's canonical_layout reproduces the text's formula; its tile_layout is
    the real tile (two 32-byte atoms along K, the second 512 bytes on) and is a bijection."""
    lay = layout_descriptor("K", "32B", "tf32", (16, 16))
    spec = offsets(PTX_EXAMPLES[1][-1])
    assert len(set(spec)) < len(spec)
    ours = offsets(lay.tile_layout)
    assert sorted(ours) == list(range(16 * 16))
    assert lay.tile_layout == "Sw<1,4,3>_smem_ptr[32b](0x0) o ((_8,_2),(_8,_2)):((_8,_64),(_1,_128))"
    assert lay.k_atom_stride_bytes == 512 and lay.atoms == (2, 2)


# ---------------------------------------------------------------------------- production values


def test_k_major_sw128_bf16_reproduces_cutlass_and_deepgemm() -> None:
    """0x4000404000010000 (LBO 16, CUTLASS make_umma_desc) / 0x4000404000000000 (LBO 0,
    DeepGEMM); one K step of 32 bytes adds 2 to the low word."""
    cutlass = layout_descriptor("K", "128B", "bf16", (128, 64))
    assert cutlass.word == 0x4000404000010000
    assert (cutlass.T, cutlass.m, cutlass.k, cutlass.sbo_bytes) == (8, 16, 4, 1024)
    assert cutlass.canonical_layout == "Swizzle<3,4,3> o ((8,16),(8,8)):((64,512),(1,8))"
    assert (cutlass.lbo_bytes, cutlass.lbo_used) == (16, False)
    deepgemm = layout_descriptor("K", "128B", "bf16", "128x64", unused_lbo_bytes=0)
    assert deepgemm.word == 0x4000404000000000
    for lay in (cutlass, deepgemm):
        steps = lay.k_steps()
        assert [s.word - lay.word for s in steps] == [0, 2, 4, 6]
        assert [s.offset_bytes for s in steps] == [0, 32, 64, 96]
        assert steps[1].word == lay.word + 2 and steps[1].delta == 2
    at = layout_descriptor("K", "128B", "bf16", (128, 64), 0x400)
    assert at.word == 0x4000404000010040 and at.base_offset == 0


# ---------------------------------------------------------------------------- refusals


@pytest.mark.parametrize("major, swizzle, dtype, kind, source", [
    ("MN", "128B", "tf32", None, "Table 52"),
    ("MN", "64B", "tf32", None, "Table 52"),
    ("MN", "none", "tf32", None, "Table 52"),
    ("MN", "128B_base32B", "bf16", None, "Table 52"),
    ("MN", "128B_base32B", "e4m3", None, "Table 52"),
    ("MN", "128B", "e2m3", None, "Table 52"),
    ("MN", "32B", "e2m1", "mxf4", "Table 52"),
    ("MN", "32B", "e2m1", "f8f6f4", "Table 52"),
    ("K", "128B_base32B", "tf32", None, "Table 53"),
    ("K", "128B_base32B", "bf16", None, "Table 53"),
])
def test_table52_table53_refusals(major, swizzle, dtype, kind, source) -> None:
    with pytest.raises(LayoutError) as exc:
        layout_descriptor(major, swizzle, dtype, (128, 64), kind=kind)
    assert exc.value.source == source and source in str(exc.value)
    assert isinstance(exc.value, DescgenError)
    with pytest.raises(LayoutError):
        swizzle_atom(major, swizzle, dtype, kind)


def test_table52_allowed_combinations_encode() -> None:
    assert layout_descriptor("MN", "128B_base32B", "tf32", (64, 16)).word == 0x2000404000200000
    for dtype in ("f16", "bf16", "e4m3", "e5m2", "s8", "u8"):
        for swz in ("none", "32B", "64B", "128B"):
            layout_descriptor("MN", swz, dtype, (256, 32))
    for dtype, kind in (("tf32", None), ("e2m3", None), ("e3m2", None), ("e2m1", "mxf4"),
                        ("e2m1", "mxf8f6f4")):
        for swz in ("none", "32B", "64B", "128B"):
            layout_descriptor("K", swz, dtype, (128, 256), kind=kind)


@pytest.mark.parametrize("args, kwargs, source", [
    (("K", "128B", "bf16", (12, 64)), {}, "9.7.16.3.3"),           # rows not 8-row groups
    (("K", "none", "tf32", (16, 4)), {}, "9.7.16.3.3"),            # 16 bytes of K: not 32-byte slices
    (("K", "none", "e2m1", (16, 16)), {"kind": "mxf4"}, "9.7.16.3.3"),  # 8 bytes: not a chunk
    (("K", "128B", "bf16", (128, 32)), {}, "Table 53"),            # 64 bytes: half a 128B atom
    (("MN", "128B", "bf16", (32, 16)), {}, "Table 53"),            # 32 < 64-element atom
    (("MN", "64B", "bf16", (64, 12)), {}, "Table 53"),             # K not 8-K groups
    (("MN", "128B_base32B", "tf32", (32, 6)), {}, "Table 53"),     # K not 4-K groups
])
def test_tile_shape_refusals(args, kwargs, source) -> None:
    with pytest.raises(LayoutError) as exc:
        layout_descriptor(*args, **kwargs)
    assert exc.value.source == source


def test_tile_shapes_of_whole_atoms_are_accepted() -> None:
    """Controls for the refusals: whole atoms and 8-row groups, however many."""
    assert layout_descriptor("K", "64B", "bf16", (128, 96)).atoms == (16, 3)   # 3 x 64 bytes
    assert layout_descriptor("K", "none", "tf32", (24, 8)).atoms == (3, 2)     # 32 bytes of K
    assert layout_descriptor("MN", "128B", "bf16", (192, 24)).atoms == (3, 3)
    assert layout_descriptor("MN", "128B_base32B", "tf32", (32, 4)).atoms == (1, 1)


@pytest.mark.parametrize("kwargs, needle", [
    ({"dtype": "f32"}, "not an A/B element type"),
    ({"dtype": "e2m1"}, "pass kind="),
    ({"dtype": "bf16", "kind": "i8"}, "not an A/B type of kind::i8"),
    ({"dtype": "bf16", "kind": "f17"}, "unknown kind"),
    ({"swizzle": "16B"}, "swizzle='16B'"),
    ({"major": "row"}, "major='row'"),
    ({"tile": "128"}, "ROWSxK"),
    ({"tile": (0, 64)}, "positive"),
    ({"tile": ("128", "x")}, "not an integer"),
    ({"unused_lbo_bytes": 32}, "unused_lbo_bytes=32"),
    ({"start_address": -16}, "non-negative"),
])
def test_parameter_errors(kwargs, needle) -> None:
    params = {"major": "K", "swizzle": "128B", "dtype": "bf16", "tile": (128, 64)} | kwargs
    with pytest.raises(ParameterError) as exc:
        layout_descriptor(**params)
    assert needle in str(exc.value)


def test_start_address_refusals() -> None:
    with pytest.raises(LayoutError, match="128-byte boundary"):
        layout_descriptor("K", "128B", "bf16", (128, 64), 0x440)
    with pytest.raises(FieldError, match="16-byte aligned"):
        layout_descriptor("K", "none", "bf16", (128, 64), 0x408)
    with pytest.raises(LayoutError, match="past the 256 KiB"):
        layout_descriptor("K", "128B", "bf16", (128, 64), 0x3F000)   # 16 KiB tile ends at 0x43000
    fits = layout_descriptor("K", "128B", "bf16", (128, 64), 0x3C000)  # ends exactly at 0x40000
    assert fits.footprint_bytes == 0x4000
    assert [s.start_address_bytes for s in fits.k_steps()][-1] == 0x3C060


# ---------------------------------------------------------------------------- absolute LBO mode


def test_absolute_lbo_mode() -> None:
    lay = layout_descriptor("K", "128B", "e2m1", (128, 256), 0x400, kind="mxf4", lbo_address=0x8000)
    assert lay.lbo_mode == "absolute" and raw(lay, "lbo_mode") == 1
    assert raw(lay, "leading_byte_offset") == 0x8000 >> 4 and lay.lbo_bytes == 0x8000
    assert not [f for f in validate("smem", lay.word, arch="sm_103a") if f.severity != "note"]
    with pytest.raises(LayoutError, match="not modelled"):
        lay.k_steps()


@pytest.mark.parametrize("args, start, needle", [
    (("MN", "128B", "bf16", (64, 16)), 0x400, "only K-major"),
    (("K", "64B", "bf16", (128, 32)), 0x400, "only 128B"),
    (("K", "128B", "bf16", (128, 64)), 0x480, "base offset"),
])
def test_absolute_lbo_mode_restrictions(args, start, needle) -> None:
    """9.7.16.3.1.2.1: 128B swizzle (16B atomicity) only, K-major only, base offset 0."""
    with pytest.raises(LayoutError) as exc:
        layout_descriptor(*args, start, lbo_address=0x8000)
    assert exc.value.source == "9.7.16.3.1.2.1" and needle in str(exc.value)
    layout_descriptor(*args, start)  # the same layout is fine in relative mode


# ---------------------------------------------------------------------------- base offset


@pytest.mark.parametrize("major, swizzle, dtype, start, base", [
    ("K", "128B", "bf16", 0x400, 0), ("K", "128B", "bf16", 0x480, 1),
    ("K", "128B", "bf16", 0x780, 7), ("K", "128B", "bf16", 0x2300, 6),
    ("K", "64B", "bf16", 0x200, 0), ("K", "64B", "bf16", 0x280, 5),
    ("K", "32B", "bf16", 0x100, 0), ("K", "32B", "bf16", 0x180, 3),
    ("MN", "32B", "bf16", 0x80, 1), ("MN", "128B_base32B", "tf32", 0x200, 4),
    ("K", "none", "bf16", 0x410, 0), ("MN", "none", "bf16", 0x490, 0),
])
def test_base_offset_table41(major, swizzle, dtype, start, base) -> None:
    rows = 128 if major == "K" else 64
    lay = layout_descriptor(major, swizzle, dtype, (rows, 64), start)
    assert lay.base_offset == base == raw(lay, "base_offset")
    assert lay.start_address_bytes == start == decode("smem", lay.word).values["start_address_bytes"]
    # descgen's own validator agrees: no warning about the base offset
    assert not [f for f in validate("smem", lay.word) if f.rule == "smem.base_offset"]


# ---------------------------------------------------------------------------- single-repeat strides


def test_strides_of_modes_that_repeat_once_are_zero() -> None:
    """As CUTLASS's make_umma_desc: one 8-row group (K-major, m = 1) -> SBO 0; one M/N atom
    (MN-major swizzled, m = 1) -> LBO 0; MN-major no swizzle, one 16-byte M/N chunk -> SBO 0."""
    k8 = layout_descriptor("K", "128B", "u8", (8, 128))
    assert (k8.sbo_bytes, k8.sbo_used, k8.word) == (0, False, 0x4000400000010000)
    assert any("SBO spans a mode that repeats once (m = 1)" in n for n in k8.notes)
    mn1 = layout_descriptor("MN", "128B", "bf16", (64, 32))
    assert (mn1.lbo_bytes, mn1.lbo_used, mn1.sbo_bytes, mn1.word) == (0, False, 1024, 0x4000404000000000)
    none1 = layout_descriptor("MN", "none", "bf16", (8, 16))
    assert (none1.sbo_bytes, none1.lbo_bytes) == (0, 128)
    k_none = layout_descriptor("K", "none", "bf16", (8, 16))
    assert (k_none.sbo_bytes, k_none.lbo_bytes, k_none.word) == (0, 128, 0x400000080000)


# ---------------------------------------------------------------------------- K iteration


def test_k_steps_cross_swizzle_atoms_along_k() -> None:
    """A 128x128 bf16 SW128 tile holds two 128-byte atoms along K; CuTe's tile_to_shape places
    the second 128 rows x 128 bytes = 16384 bytes on (not 128 bytes)."""
    lay = layout_descriptor("K", "128B", "bf16", (128, 128), 0x400)
    steps = lay.k_steps()
    assert [s.offset_bytes for s in steps] == [0, 32, 64, 96, 16384, 16416, 16448, 16480]
    assert steps[4].word == lay.word + 1024
    assert lay.tile_layout == "Sw<3,4,3>_smem_ptr[16b](0x400) o ((_8,_16),(_64,_2)):((_64,_512),(_1,_8192))"


@pytest.mark.parametrize("args, kwargs, step_kwargs, offsets", [
    (("K", "128B", "tf32", (128, 32)), {}, {}, [0, 32, 64, 96]),                # K 8 x 4 B
    (("K", "128B", "e4m3", (128, 128)), {}, {}, [0, 32, 64, 96]),               # K 32 x 1 B
    (("K", "128B", "e2m1", (128, 256)), {"kind": "mxf4"}, {}, [0, 32, 64, 96]),  # K 64 packed
    (("K", "128B", "e2m1", (128, 128)), {"kind": "mxf8f6f4"}, {}, [0, 32, 64, 96]),  # K 32 padded
    (("K", "128B", "bf16", (128, 64)), {}, {"sparse": True}, [0, 64]),          # K 32 sparse
    (("K", "128B", "bf16", (128, 64)), {}, {"sparse": True, "compressed": True}, [0, 32, 64, 96]),
    (("K", "none", "bf16", (16, 64)), {}, {}, [0, 512, 1024, 1536]),            # 2 chunks x LBO 256
    (("MN", "128B", "bf16", (128, 64)), {}, {}, [0, 4096, 8192, 12288]),        # 2 K groups x SBO 2048
    (("MN", "none", "e4m3", (32, 64)), {}, {}, [0, 1024]),                      # 4 K groups x LBO 256
    (("MN", "128B_base32B", "tf32", (64, 16)), {}, {}, [0, 2048]),              # 2 K-4 groups x SBO 1024
    (("K", "none", "e2m1", (8, 192)), {"kind": "mxf4"}, {"umma_k": 96}, [0, 384]),  # 3 chunks x LBO 128
])
def test_k_step_offsets(args, kwargs, step_kwargs, offsets) -> None:
    lay = layout_descriptor(*args, **kwargs)
    steps = lay.k_steps(**step_kwargs)
    assert [s.offset_bytes for s in steps] == offsets
    for s in steps:
        # each step is the tile's word with offset >> 4 added ...
        assert s.word == lay.word + (s.offset_bytes >> 4) == advance_descriptor(lay.word, s.offset_bytes)
        # ... which is the descriptor of the same layout starting there ...
        assert s.word == encode("smem", start_address=s.start_address_bytes,
                                leading_byte_offset=lay.lbo_bytes, stride_byte_offset=lay.sbo_bytes,
                                swizzle=lay.swizzle, base_offset=lay.base_offset)
        # ... and the tile layout puts K element k_elements of row 0 there.
        assert evaluate(lay.tile_layout, 0, s.k_elements) * lay.element.smem_bits == s.offset_bytes * 8


def test_tile_layouts_are_dense_bijections() -> None:
    """For a spread of tiles, the whole-tile layout maps the rows x K coordinates one to one
    onto the tile's elements, and the descriptor strides agree with it."""
    cases = [("K", s, d, (rows, kk), kind) for s in ("none", "32B", "64B", "128B")
             for d, kind in (("tf32", None), ("bf16", None), ("e2m1", "mxf4"))
             for rows, kk in ((8, 256), (24, 256))]
    cases += [("MN", s, d, (mn, kk), None) for s, d in (("none", "bf16"), ("32B", "e4m3"),
                                                        ("64B", "f16"), ("128B", "bf16"),
                                                        ("128B_base32B", "tf32"))
              for mn, kk in ((64, 16), (128, 32))]
    for major, swz, dtype, tile, kind in cases:
        lay = layout_descriptor(major, swz, dtype, tile, kind=kind)
        offs = offsets(lay.tile_layout)
        assert sorted(offs) == list(range(tile[0] * tile[1])), (major, swz, dtype, tile)
        el_bytes = lay.element.smem_bits / 8
        if major == "K" and lay.m > 1:
            assert evaluate(lay.tile_layout, 8, 0) * el_bytes == lay.sbo_bytes
        if major == "K" and swz == "none":
            assert evaluate(lay.tile_layout, 0, lay.T) * el_bytes == lay.lbo_bytes
        if major == "MN" and swz != "none" and lay.m > 1:
            assert evaluate(lay.tile_layout, lay.atom.elements[0], 0) * el_bytes == lay.lbo_bytes
        if major == "MN" and lay.k > 1:
            stride = lay.sbo_bytes if swz != "none" else lay.lbo_bytes
            assert evaluate(lay.tile_layout, 0, lay.atom.elements[1]) * el_bytes == stride


def test_k_step_refusals() -> None:
    lay = layout_descriptor("K", "128B", "e2m1", (128, 768), kind="mxf4")
    with pytest.raises(LayoutError, match="straddle") as exc:   # 48-byte K: 96 + 48 > 128
        lay.k_steps(umma_k=96)
    assert exc.value.source == "9.7.16.3.1.2"
    with pytest.raises(ParameterError, match="Table 39"):
        layout_descriptor("K", "128B", "bf16", (128, 64)).k_steps(umma_k=32)
    with pytest.raises(ParameterError, match="sparse=True"):
        layout_descriptor("K", "128B", "bf16", (128, 64)).k_steps(compressed=True)
    with pytest.raises(LayoutError, match="not a multiple") as exc:
        layout_descriptor("MN", "128B", "bf16", (64, 8)).k_steps()
    assert exc.value.source == "Table 39"
    with pytest.raises(ParameterError, match="not an A/B type of kind::i8"):
        k_steps(layout_descriptor("K", "128B", "bf16", (128, 64)), "i8")
    # e4m3 is read by f8f6f4 and mxf8f6f4, both K=32: no kind needed; explicit kind agrees
    e4 = layout_descriptor("K", "128B", "e4m3", (128, 128))
    assert e4.k_steps() == e4.k_steps("mxf8f6f4") == e4.k_steps("f8f6f4")


def test_advance_refuses_carry_out_of_the_start_address() -> None:
    top = encode("smem", start_address=0x3FFE0, stride_byte_offset=1024, swizzle="128B")
    assert advance_descriptor(top, 16) == top + 1
    with pytest.raises(KStepCarryError) as exc:
        advance_descriptor(top, 32)
    msg = str(exc.value)
    assert "carry into bit 14" in msg and "0x40000" in msg and "Table 40" in msg
    assert isinstance(exc.value, LayoutError)
    with pytest.raises(ParameterError):
        advance_descriptor(top, 8)
    with pytest.raises(ParameterError):
        advance_descriptor(top, -16)


# ---------------------------------------------------------------------------- explanation


def test_explain_production_word() -> None:
    ex = explain_descriptor(0x4000404000010000, major="K", dtype="bf16")
    assert (ex.swizzle, ex.T, ex.lbo_bytes, ex.sbo_bytes, ex.base_offset) == ("128B", 8, 16, 1024, 0)
    assert ex.canonical_form == CANONICAL_FORMS["K", "128B"]
    assert ex.canonical_layout == "Swizzle<3,4,3> o ((8,m),(8,2k)):((64,512),(1,8))"
    assert ex.atom.shape == "8x8" and ex.atom.elements == (8, 64)
    assert "not used" in ex.lbo_meaning and "8 M/N rows" in ex.sbo_meaning
    assert any("ignored" in n for n in ex.notes)
    step = explain_descriptor("0x4000404000010042", major="K", dtype="bf16")
    assert (step.start_address_bytes, step.pattern_start_bytes) == (0x420, 0x400)
    assert any("32 bytes into" in n for n in step.notes)


def test_explain_mn_major_and_base_offset() -> None:
    lay = layout_descriptor("MN", "32B", "bf16", (32, 16), 0x80)
    ex = explain_descriptor(lay.word, major="MN", dtype="bf16")
    assert ex.canonical_layout == "Swizzle<1,4,3> o ((8,2,m),(8,k)):((1,8,128),(16,256))"
    assert (ex.base_offset, ex.pattern_start_bytes) == (1, 0x80)
    assert ex.atom_grid() == lay.atom_grid()
    # SBO = 2 atoms: a dense tile with 2 M/N atoms (M/N first)
    assert any("stacked M/N first (Step<_1,_2>): 32 M/N bf16 per K block (2 atoms along M/N)" in n
               for n in ex.notes), ex.notes


def test_explain_round_trips_layouts() -> None:
    for major, swz, dtype, kind, tile, start in [
        ("K", "none", "tf32", None, (16, 16), 0x100), ("K", "32B", "bf16", None, (64, 32), 0x180),
        ("K", "64B", "s8", None, (128, 128), 0x600), ("K", "128B", "e2m1", "mxf4nvf4", (256, 256), 0),
        ("MN", "none", "bf16", None, (16, 16), 0), ("MN", "64B", "e5m2", None, (256, 64), 0x2200),
        ("MN", "128B_base32B", "tf32", None, (64, 16), 0x800),
    ]:
        lay = layout_descriptor(major, swz, dtype, tile, start, kind=kind)
        ex = explain_descriptor(lay.word, major=major, dtype=dtype, kind=kind)
        assert (ex.swizzle, ex.T, ex.lbo_bytes, ex.sbo_bytes, ex.base_offset, ex.start_address_bytes) == \
            (lay.swizzle, lay.T, lay.lbo_bytes, lay.sbo_bytes, lay.base_offset, lay.start_address_bytes)
        assert ex.canonical_form == lay.canonical_form
        assert ex.canonical_layout.replace(",m)", f",{lay.m})").replace("2k)", f"{2 * lay.k})") \
            .replace(",k)", f",{lay.k})") == lay.canonical_layout
        assert ex.pattern_start_bytes == start
        assert ex.to_dict()["word"] == lay.hex


@pytest.mark.parametrize("word, major, dtype, source", [
    (encode_raw("smem", swizzle=3, fixed_constant=1), "K", "bf16", "Table 40"),
    (encode_raw("smem", swizzle=2, fixed_constant=0, force=True), "K", "bf16", "Table 40"),
    (encode_raw("smem", swizzle=2, fixed_constant=1, reserved_14=1), "K", "bf16", "Table 40"),
    (0x4000404000010000, "MN", "tf32", "Table 52"),
    (encode("smem", swizzle="128B_base32B"), "K", "tf32", "Table 53"),
    (encode("smem", swizzle="128B", lbo_mode="absolute", leading_byte_offset=0x800), "MN", "bf16",
     "9.7.16.3.1.2.1"),
])
def test_explain_refusals(word, major, dtype, source) -> None:
    with pytest.raises(LayoutError) as exc:
        explain_descriptor(word, major=major, dtype=dtype)
    assert exc.value.source == source


# ---------------------------------------------------------------------------- Table 53 atoms


@pytest.mark.parametrize("major, swizzle, shape", [
    ("MN", "128B_base32B", "8x4"), ("MN", "128B", "8x8"), ("K", "128B", "8x8"),
    ("MN", "64B", "4x8"), ("K", "64B", "8x4"), ("MN", "32B", "2x8"), ("K", "32B", "8x2"),
    ("MN", "none", "1x8"), ("K", "none", "8x1"),
])
def test_table53_atom_shapes(major, swizzle, shape) -> None:
    dtype = "tf32" if swizzle == "128B_base32B" else "bf16"
    atom = swizzle_atom(major, swizzle, dtype)
    assert atom.shape == shape
    mn, k = (int(x) for x in shape.split("x"))
    # "multiplied along the leading dimension by 128 / sizeof_bits(Element)"
    assert atom.elements == ((mn * atom.T, k) if major == "MN" else (mn, k * atom.T))
    assert atom.bytes == mn * k * 16


def test_table53_text_example_tf32_mn_128b_is_32x8() -> None:
    """Table 53's text: a 128B MN-major atom is (8*(128/32))x8 = 32x8 for tf32 -- arithmetic on
    the atom (Table 52 itself allows tf32 MN-major only with 128B_base32B)."""
    atom = SwizzleAtom("MN", "128B", "tf32", 4, (8, 8), 128, (3, 4, 3), 1024)
    assert atom.elements == (32, 8)
    assert swizzle_atom("MN", "128B_base32B", "tf32").elements == (32, 4)


def _grid(major, swizzle, dtype, start=0):
    return swizzle_atom(major, swizzle, dtype).grid(start)


def test_atom_grids_are_the_swizzle_patterns() -> None:
    g128 = _grid("K", "128B", "bf16")
    assert all(g128[r][p] == p ^ r for r in range(8) for p in range(8))
    g64 = _grid("K", "64B", "bf16")
    assert all(g64[r][p] == p ^ ((r >> 1) & 3) for r in range(8) for p in range(4))
    g32 = _grid("K", "32B", "bf16")
    assert all(g32[r][p] == p ^ ((r >> 2) & 1) for r in range(8) for p in range(2))
    g32b = _grid("MN", "128B_base32B", "tf32")
    assert len(g32b) == 4
    assert all(g32b[r][p] == ((((p >> 1) ^ r) & 3) << 1 | (p & 1)) for r in range(4) for p in range(8))
    assert _grid("K", "none", "bf16") == [[0]] * 8 == _grid("MN", "none", "bf16")
    # a 32B pattern starting at 0x80 (base offset 1) is half a repeat out of phase
    shifted = _grid("MN", "32B", "bf16", 0x80)
    assert all(shifted[r][p] == p ^ (((r >> 2) + 1) & 1) for r in range(8) for p in range(2))
    for g in (g128, g64, g32, g32b, shifted):
        assert all(sorted(row) == list(range(len(row))) for row in g)


# ---------------------------------------------------------------------------- element types


def test_element_types_and_packing() -> None:
    assert {n: [e.T for e in DTYPES[n]] for n in DTYPES} == {
        "tf32": [4], "f16": [8], "bf16": [8], "e4m3": [16], "e5m2": [16], "s8": [16], "u8": [16],
        "e2m3": [16], "e3m2": [16], "e2m1": [16, 32], "b1": [128]}
    assert element_type("uint1b_t").name == "b1" and element_type("b1").kinds == ()
    assert element_type("e2m1", "mxf4nvf4").T == 32 and element_type("e2m1", "f8f6f4").T == 16
    assert element_type("bfloat16_t").name == "bf16" and element_type("E4M3").name == "e4m3"
    packed = layout_descriptor("K", "128B", "e2m1", (128, 256), kind="mxf4")
    padded = layout_descriptor("K", "128B", "e2m1", (128, 128), kind="mxf8f6f4")
    assert packed.word == padded.word == 0x4000404000010000
    with pytest.raises(LayoutError):   # 256 padded e2m1 = 256 bytes: fine; 64 = half an atom
        layout_descriptor("K", "128B", "e2m1", (128, 64), kind="f8f6f4")


# ---------------------------------------------------------------------------- consistency


def test_words_pass_the_validators() -> None:
    """Every layout of a broad grid encodes to a word descgen's validator accepts, and to a
    pair the Table 52 pair check accepts with a matching instruction descriptor."""
    kinds = {"tf32": "tf32", "bf16": "f16", "f16": "f16", "e4m3": "f8f6f4", "s8": "i8"}
    for major, swz, dtype in itertools.product(("K", "MN"), ("none", "32B", "64B", "128B", "128B_base32B"),
                                               ("tf32", "bf16", "f16", "e4m3", "s8")):
        try:
            lay = layout_descriptor(major, swz, dtype, (128, 128), 0x1000)
        except LayoutError as exc:
            assert exc.source in ("Table 52", "Table 53")
            continue
        assert descriptors.is_valid(validate("smem", lay.word)), (major, swz, dtype)
        kind = kinds[dtype]
        d_type = "s32" if kind == "i8" else "f32"
        idesc = encode("idesc", kind=kind, a_type=dtype, b_type=dtype, d_type=d_type, m=128, n=128,
                       a_major=major, b_major=major)
        findings = validate_pair(idesc, kind=kind, a_desc=lay.word, b_desc=lay.word)
        assert descriptors.is_valid(findings), (major, swz, dtype, findings)


def test_pair_rules_are_validate_pairs_pair_findings() -> None:
    """``pair_rules`` (what lint asks, the words judged apart) gives exactly the ``pair.*``
    findings of ``validate_pair``, in order: over every major-ness, swizzle and type of the
    grid, with absolute and relative LBO mode and LBO values that break and keep the rules."""
    import random
    from descriptors.rules.validate import pair_rules
    from descriptors.words.codec import encode as pack
    rng = random.Random(7)
    kinds = {"tf32": "tf32", "bf16": "f16", "e4m3": "f8f6f4", "s8": "i8"}
    seen: set[str] = set()
    for a_major, b_major, swz, dtype, mode in itertools.product(
            ("K", "MN"), ("K", "MN"), ("none", "32B", "64B", "128B", "128B_base32B"),
            kinds, ("relative", "absolute")):
        kind = kinds[dtype]
        idesc = encode("idesc", kind=kind, a_type=dtype, b_type=dtype,
                       d_type="s32" if kind == "i8" else "f32", m=128, n=128,
                       a_major=a_major, b_major=b_major)
        words = [pack("smem", swizzle=swz, lbo_mode=mode, leading_byte_offset=rng.randrange(64) * 16,
                      stride_byte_offset=1024, start_address=0x1000) for _ in range(2)]
        expect = [f for f in validate_pair(idesc, kind=kind, a_desc=words[0], b_desc=words[1])
                  if f.rule.startswith("pair.")]
        assert pair_rules(idesc, kind=kind, a_desc=words[0], b_desc=words[1]) == expect
        assert pair_rules(idesc, kind=kind, b_desc=words[1]) == \
            [f for f in expect if f.message.startswith("B")]
        seen.update(f.rule for f in expect)
    assert seen >= {"pair.table52", "pair.table53", "pair.lbo_absolute", "pair.lbo_unused"}


def test_no_pair_rule_reads_the_start_address() -> None:
    """``PAIR_UNREAD``: words that differ only in the bits no pair rule reads (the start address,
    stepped by a K loop) have the same pair findings -- over random words of every field:
    encoded instruction descriptors (both major-nesses, a type of each size) and random ones
    read as every kind."""
    import random
    from descriptors.rules.validate import PAIR_UNREAD, pair_rules
    from descriptors.words.enums import KINDS
    from descriptors.words.layouts import SMEM
    rng = random.Random(11)
    assert PAIR_UNREAD == SMEM.by_name["start_address"].mask
    types = {"tf32": "tf32", "bf16": "f16", "e4m3": "f8f6f4"}
    found, kinds_read = 0, set()
    for n in range(6000):
        if n % 2:
            dtype = rng.choice(list(types))
            kind = types[dtype]
            idesc = encode("idesc", kind=kind, a_type=dtype, b_type=dtype, d_type="f32", m=128,
                           n=128, a_major=rng.choice(("K", "MN")),
                           b_major=rng.choice(("K", "MN")))
        else:  # a random word as each kind reads it
            kind, idesc = rng.choice(list(KINDS)), rng.getrandbits(32)
        a, b = rng.getrandbits(64), rng.getrandbits(64)
        try:
            got = pair_rules(idesc, kind=kind, a_desc=a, b_desc=b)
        except DescgenError:
            continue
        assert pair_rules(idesc, kind=kind, a_desc=a & ~PAIR_UNREAD, b_desc=b | PAIR_UNREAD) == got
        found += len(got)
        kinds_read.add(kind)
    assert found > 100  # (the words do break pair rules)
    assert kinds_read == set(KINDS)


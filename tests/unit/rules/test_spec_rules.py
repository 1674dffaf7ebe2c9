"""One violating input per rule the PTX text states (issue 15).

The list below is written from the spec (``shared/spec/ptx-9.7.16-tcgen05.md``), statement by
statement, not from descgen's rule table: each row quotes where the PTX text says it, gives one
input that breaks it, and what descgen must answer -- an error finding of a named rule (a
warning where the text leaves the intent open), or a refusal to encode.  A statement descgen
does not enforce shows up here as a failing row.  (``tests/unit/rules/test_validate_rules.py`` is the
other direction: every rule of the code, legal and illegal.)

Out of scope -- rules about instructions and programs rather than words, which no descriptor
or address can break: ``.cta_group`` equal across a kernel, ``tcgen05.dealloc`` before exit,
``.ashift`` with M=128/256 and without ``collector::a::use/fill``, the same ``taddr`` in every
thread of a warp, ``.scale_vectorsize`` spelled out for ``kind::mxf4nvf4``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from descriptors import FieldError, decode, encode_raw, validate, validate_pair
from descriptors.words.codec import encode  # the packing: rule-breaking words on purpose
from descriptors.isa import tmem as tm

F16 = {"kind": "f16", "a_type": "bf16", "b_type": "bf16", "m": 128, "n": 256}


def idesc(kind: str = "f16", *, arch: str = "sm_100a", cta_group: int | None = 1,
          ws: bool | None = False, scale_vec: str | None = None, raw: dict[str, int] | None = None,
          sp: bool | None = None, **params: Any) -> Callable[[], Any]:
    """validate an instruction descriptor from encode parameters (raw fields overriding)."""
    base = {"f16": F16,
            "tf32": {"kind": "tf32", "a_type": "tf32", "b_type": "tf32", "m": 128, "n": 256},
            "f8f6f4": {"kind": "f8f6f4", "a_type": "e4m3", "b_type": "e4m3", "m": 128, "n": 256},
            "i8": {"kind": "i8", "a_type": "s8", "b_type": "s8", "d_type": "s32", "m": 128,
                   "n": 256},
            "mxf8f6f4": {"kind": "mxf8f6f4", "a_type": "e4m3", "b_type": "e4m3", "m": 128,
                         "n": 256},
            "mxf4": {"kind": "mxf4", "a_type": "e2m1", "b_type": "e2m1", "m": 128, "n": 256},
            "mxf4nvf4": {"kind": "mxf4nvf4", "a_type": "e2m1", "b_type": "e2m1",
                         "scale_type": "ue4m3", "m": 128, "n": 256}}[kind]
    p = {**base, **params}
    word = encode("idesc", **p)
    if raw:
        fields = {**decode("idesc", word, kind=kind).fields, **raw}
        word = encode_raw("idesc", kind=kind, force=True, **fields)
    ctx = {k: v for k, v in (("cta_group", cta_group), ("ws", ws), ("scale_vec", scale_vec),
                             ("sp", sp)) if v is not None}
    return lambda: validate("idesc", word, kind=kind, arch=arch, **ctx)


def smem(*, arch: str = "sm_100a", raw: dict[str, int] | None = None, **params: Any) -> Callable[[], Any]:
    if raw is not None:
        word = encode_raw("smem", force=True, **raw)
        return lambda: validate("smem", word, arch=arch)
    return lambda: validate("smem", arch=arch, **params)


def pair(kind: str, a: dict[str, Any], arch: str = "sm_100a", **idesc_params: Any) -> Callable[[], Any]:
    base = {"f16": F16, "tf32": {"kind": "tf32", "a_type": "tf32", "b_type": "tf32", "m": 128,
                                 "n": 256}}[kind]
    iw = encode("idesc", **{**base, **idesc_params})
    aw = encode("smem", **a)
    return lambda: validate_pair(iw, kind=kind, a_desc=aw, arch=arch, cta_group=1, ws=False)


def zcm(raw: dict[str, int] | None = None, **context: Any) -> Callable[[], Any]:
    word = encode_raw("zcm", force=True, **(raw or {"non_zero_mask": 1}))
    return lambda: validate("zcm", word, **context)


def tmem_addr(lane: int = 0, column: int = 0, **context: Any) -> Callable[[], Any]:
    word = (lane << 16) | column
    return lambda: validate("tmem", word, **context)


def footprint(*args: Any, **kwargs: Any) -> Callable[[], Any]:
    return lambda: tm.footprint(*args, **kwargs).verdict


@dataclass(frozen=True)
class SpecRule:
    where: str        # PTX section or table
    says: str         # the statement, quoted or closely paraphrased
    breaks: Callable[[], Any]
    rule: str | type[Exception]  # the rule id that must report it, or the refusal raised
    severity: str = "error"


RULES = [
    # ------------------------------------------------------------------ Tensor Memory
    SpecRule("9.7.16.1", "Tensor Memory is 128 lanes", tmem_addr(lane=128), "tmem.lane"),
    SpecRule("9.7.16.1", "... x 512 columns", tmem_addr(column=512), "tmem.column"),
    SpecRule("9.7.16.1.2, 9.7.16.7.1", "nCols must be a power of 2 in [32, 512]",
             tmem_addr(alloc=48), "tmem.alloc"),
    SpecRule("9.7.16.8.1", "warp w of a warpgroup accesses lanes 32w..32w+31",
             footprint("ld", "32x32b", 8, 0x00200000, warp=0), "tmem.ld.warp_lanes"),
    SpecRule("9.7.16.8.3", "when .red is specified, .num must be at least .x2",
             footprint("ld", "32x32b", 1, 0, red="min", arch="sm_100a"), "tmem.ld.red"),
    SpecRule("9.7.16.9.3", "the lane of the address operand taddr must be aligned to 32",
             tmem_addr(lane=16, shift=True), "tmem.shift_lane"),
    # ------------------------------------------------------------------ instruction descriptor
    SpecRule("Table 39", "M is 64 or 128 for cta_group::1 dense kind::f16",
             idesc(m=256), "idesc.shape"),
    SpecRule("Table 39", "N in steps of 16 for cta_group::2",
             idesc(m=256, n=24, cta_group=2), "idesc.shape"),
    SpecRule("Table 39", ".ws with cta_group::2 is invalid", idesc(m=64, n=128, cta_group=2,
                                                                    ws=True), "idesc.ws"),
    SpecRule("Table 39", "block-scaled kinds have no .ws form",
             idesc("mxf8f6f4", ws=True), "idesc.ws"),
    SpecRule("9.7.16.10.9.1", ".kind::i8 is supported on sm_100a and sm_110a only",
             idesc("i8", arch="sm_103a"), "idesc.arch"),
    SpecRule("Table 39", "dtype f16 is listed for f16 x f16 inputs only",
             idesc(a_type="bf16", b_type="bf16", d_type="f16"), "idesc.type_combination"),
    SpecRule("Table 42", "A/B types of .kind::f16: f16 (0), bf16 (1)",
             idesc(raw={"a_type": 5}), "idesc.types"),
    SpecRule("Table 42", "saturate is for .kind::i8", idesc(raw={"saturate": 1}),
             "idesc.saturate"),
    SpecRule("Table 49", "negate is not supported for .kind::i8", idesc("i8", negate_a=True),
             "idesc.negate"),
    SpecRule("Table 52", "4/6-bit types are never transposed",
             idesc("f8f6f4", a_type="e2m1", a_major="MN"), "idesc.transpose"),
    SpecRule("Table 49", "transpose is not supported for .kind::mxf4",
             idesc("mxf4", raw={"transpose_a": 1}), "idesc.transpose"),
    SpecRule("Table 50", "8-bit transposed B: N 16..256 step 16 for cta_group::1",
             idesc("f8f6f4", n=40, b_major="MN"), "idesc.transpose_b_8bit_n"),
    SpecRule("9.7.16.10.8.4.5-6", "the sparsity selector must be 0 for .kind::i8",
             idesc("i8", sparse=True, sparsity_selector=1), "idesc.sparsity_selector"),
    SpecRule("9.7.16.10.8.4.5-6", "the sparsity selector must be 0 for .kind::f8f6f4",
             idesc("f8f6f4", sparse=True, sparsity_selector=3), "idesc.sparsity_selector"),
    SpecRule("Table 42", "maximum shift is for .ws only", idesc(max_shift=8),
             "idesc.max_shift"),
    SpecRule("Table 42, 9.7.16.10.9.2", "sparsity flag: 0 dense, 1 sparse (tcgen05.mma.sp)",
             idesc(n=128, sparse=True, sp=False), "idesc.sparse_form"),
    SpecRule("Table 42, 9.7.16.10.9.2", "tcgen05.mma.sp reads a sparse descriptor",
             idesc(sp=True), "idesc.sparse_form"),
    SpecRule("Table 44", "scale type of .kind::mxf4 is UE8M0 (1)",
             idesc("mxf4", raw={"scale_type": 0}), "idesc.scale_type"),
    SpecRule("Table 44", "scale factor IDs of mxf4/mxf4nvf4 are 0 or 2",
             idesc("mxf4", a_scale_id=1), "idesc.scale_id"),
    SpecRule("Table 54", ".kind::mxf8f6f4 takes scale_vec::1X",
             idesc("mxf8f6f4", scale_vec="2X"), "idesc.scale_vec"),
    SpecRule("Table 54", ".kind::mxf4 takes scale_vec::2X", idesc("mxf4", scale_vec="4X"),
             "idesc.scale_vec"),
    SpecRule("Table 55", ".kind::mxf4nvf4 with UE4M3 scales takes scale_vec::4X only",
             idesc("mxf4nvf4", scale_vec="2X"), "idesc.scale_vec"),
    SpecRule("9.7.16.10.7.2.3", "with scale_vec::4X the SFA_ID value must be 0",
             idesc("mxf4nvf4", scale_type="ue8m0", scale_vec="4X", a_scale_id=2),
             "idesc.scale_id_4x"),
    SpecRule("9.7.16.10.7.3.3", "with scale_vec::4X the SFB_ID value must be 0",
             idesc("mxf4nvf4", scale_type="ue8m0", scale_vec="4X", b_scale_id=2),
             "idesc.scale_id_4x"),
    SpecRule("9.7.16.2.1.1", "K = 96 is only supported for sm_103a",
             idesc("mxf4", m=256, k=96, cta_group=2), "idesc.k96"),
    SpecRule("Table 44", "K = 96: dense, M = 256", idesc("mxf4", m=128, k=96, arch="sm_103a",
                                                         cta_group=2), "idesc.k96"),
    SpecRule("Tables 42-44", "reserved bits are 0", idesc(raw={"reserved_6": 1}),
             "idesc.reserved"),
    # ------------------------------------------------------------------ shared memory descriptor
    SpecRule("Table 40", "bits 46-48 are the fixed constant 0b001",
             smem(raw={"fixed_constant": 0}), "smem.reserved"),
    SpecRule("Table 40", "swizzle modes 0, 1, 2, 4, 6 (3, 5, 7 invalid)",
             smem(raw={"fixed_constant": 1, "swizzle": 3}), "smem.swizzle"),
    SpecRule("9.7.16.4.1", "the matrix start address must be 16-byte aligned",
             lambda: encode("smem", start_address=8), FieldError),
    SpecRule("9.7.16.4.1", "the leading dimension byte offset must be 16-byte aligned",
             lambda: encode("smem", leading_byte_offset=24), FieldError),
    SpecRule("9.7.16.4.1", "the stride dimension byte offset must be 16-byte aligned",
             lambda: encode("smem", stride_byte_offset=1000), FieldError),
    SpecRule("Table 40", "addresses are (addr & 0x3FFFF) >> 4: below 256 KiB",
             lambda: encode("smem", start_address=0x40000), FieldError),
    SpecRule("Table 41", "base offset = (pattern start addr >> 7) & 7 off the repeat boundary",
             smem(start_address=0x480, swizzle="128B", base_offset=2), "smem.base_offset",
             "warning"),
    SpecRule("Table 41", "... with base offset 0 the pattern follows the absolute address (what "
             "TMA writes, what CUTLASS's descriptors assume): a note, not a warning",
             smem(start_address=0x34580, swizzle="32B", base_offset=0), "smem.base_offset",
             "note"),
    SpecRule("9.7.16.3.1.1, Table 53", "K-major swizzled: SBO spans 8 rows of the swizzle's "
             "width (1024 B for 128B), LBO is unused (assumed 1, 16 B); the two swapped is the "
             "classic mix-up", smem(swizzle="128B", leading_byte_offset=1024,
                                    stride_byte_offset=16), "smem.lbo_sbo_swapped", "warning"),
    SpecRule("9.7.15.5.1", "wgmma: the same swizzle atoms and LBO/SBO meanings as tcgen05",
             lambda: validate("wgmma", encode("wgmma", swizzle="128B", leading_byte_offset=1024,
                                               stride_byte_offset=16)),
             "wgmma.lbo_sbo_swapped", "warning"),
    SpecRule("9.7.16.3.1.2.1", "absolute LBO mode is sm_103a only",
             smem(lbo_mode="absolute", swizzle="128B"), "smem.lbo_absolute"),
    SpecRule("9.7.16.3.1.2.1", "absolute LBO mode: only 128B swizzle (16B atomicity)",
             smem(lbo_mode="absolute", swizzle="64B", arch="sm_103a"), "smem.lbo_absolute"),
    SpecRule("9.7.16.3.1.2.1", "absolute LBO mode: the matrix base offset must be 0",
             smem(lbo_mode="absolute", swizzle="128B", base_offset=1, arch="sm_103a"),
             "smem.lbo_absolute"),
    SpecRule("9.7.16.3.1.2.1", "absolute LBO mode: K-major only (transpose bits 0)",
             pair("f16", {"lbo_mode": "absolute", "swizzle": "128B"}, arch="sm_103a",
                  a_major="MN"), "pair.lbo_absolute"),
    SpecRule("Table 52", "32-bit transposed operands: only 128B swizzling with 32B atomicity",
             pair("tf32", {"swizzle": "128B"}, a_major="MN"), "pair.table52"),
    SpecRule("Table 52", "8/16-bit transposed: all except 128B with 32B atomicity",
             pair("f16", {"swizzle": "128B_base32B"}, a_major="MN"), "pair.table52"),
    SpecRule("Table 53", "128B swizzling with 32B atomicity has no K-major atom ('-')",
             pair("f16", {"swizzle": "128B_base32B"}), "pair.table53"),
    # ------------------------------------------------------------------ zero-column mask
    SpecRule("Table 45", "column shift at most 16 for M = 32",
             zcm({"non_zero_mask": 1, "column_shift": 20}, m=32), "zcm.column_shift"),
    SpecRule("Table 45", "column shift at most 32", zcm({"non_zero_mask": 1, "column_shift": 40}),
             "zcm.column_shift"),
    SpecRule("9.7.16.4.3", "M is 32, 64 or 128 (the sub-mask count)", zcm(m=256), "zcm.m"),
    SpecRule("Table 39", "tcgen05.mma.ws has N = 64, 128, 256", zcm(m=128, n=96), "zcm.n"),
    SpecRule("Table 45", "reserved bits are 0",
             zcm({"non_zero_mask": 1, **{f.name: 1 for f in decode("zcm", 0).layout.fields
                                         if f.role == "reserved"}}), "zcm.reserved"),
    SpecRule("9.7.16.4.3", "sub-masks M does not use are ignored (set: a mistake)",
             zcm({"non_zero_mask": 1, "start_count_3": 1}, m=128), "zcm.unused_submasks",
             "warning"),
    # ------------------------------------------------------------------ targets
    SpecRule("9.7.16 Target ISA notes", "tcgen05 requires sm_100a (or a later a/f target)",
             smem(arch="sm_90a", swizzle="128B", stride_byte_offset=1024), "smem.target"),
    SpecRule("9.7.16 Target ISA notes", "... and so does its instruction descriptor",
             idesc(arch="sm_90a"), "idesc.target"),
    SpecRule("9.7.16 Target ISA notes", "... its zero-column mask",
             zcm(arch="sm_90a"), "zcm.target"),
    SpecRule("9.7.16 Target ISA notes", "... and Tensor Memory",
             tmem_addr(arch="sm_90a"), "tmem.target"),
    # ------------------------------------------------------------------ wgmma (PTX ISA 9.7.15.5.1,
    # the public PTX ISA: the matrix descriptor of wgmma.mma_async, bits 0-13, 16-29, 32-45,
    # 49-51, 62-63; every other bit unused)
    SpecRule("9.7.15.5.1", "wgmma.mma_async requires sm_90a",
             lambda: validate("wgmma", 0, arch="sm_100a"), "wgmma.target"),
    SpecRule("9.7.15.5.1", "bits 46-48 are unused (tcgen05's fixed constant is not)",
             lambda: validate("wgmma", encode_raw("wgmma", reserved_46=1)), "wgmma.reserved",
             "warning"),
    SpecRule("9.7.15.5.1", "base offset: (start address >> 7) & 7 when the pattern does not "
             "start on its repeat boundary",
             lambda: validate("wgmma", start_address=0x600, swizzle="128B", base_offset=1,
                              stride_byte_offset=1024), "wgmma.base_offset", "warning"),
]


@pytest.mark.parametrize("spec", RULES, ids=[f"{r.where}: {r.says}" for r in RULES])
def test_the_spec_rule_is_enforced(spec: SpecRule):
    if isinstance(spec.rule, type):
        with pytest.raises(spec.rule):
            spec.breaks()
        return
    findings = spec.breaks()
    hits = [f for f in findings if f.rule == spec.rule and f.severity == spec.severity]
    assert hits, [str(f) for f in findings]


def test_every_rule_of_the_code_traces_to_the_spec():
    """Each validator rule names a PTX source, and most are exercised by a row above."""
    from descriptors.rules.validate import RULES as CODE_RULES
    covered = {r.rule for r in RULES if isinstance(r.rule, str)}
    for rule in CODE_RULES.values():
        assert rule.source, rule.id
    missing = set(CODE_RULES) - covered - {"tmem.reserved", "smem.lbo_unused", "pair.lbo_unused",
                                           "zcm.non_zero_mask", "wgmma.lbo_unused"}
    assert not missing, sorted(missing)

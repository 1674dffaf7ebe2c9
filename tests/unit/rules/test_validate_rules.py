"""Table-driven tests of the validator: a legal and an illegal input for EVERY rule of
``descriptors.rules.validate.RULES`` (the table must cover exactly the registered rule ids), plus the
``encode.field`` finding, the real-world fixtures, a never-raises property and the refusals of
malformed questions.

Sources: PTX ISA 9.7.16 Tables 39-45, 49-52, 9.7.16.3.1 (absolute LBO), the tcgen05.mma target
ISA notes, and the CUTLASS headers the README cites.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from helpers import LEGAL_TYPES
from hypothesis import given, settings
from hypothesis import strategies as st

import descriptors
from descriptors import (ARCHES, KINDS, LAYOUTS, RULES, SMEM, TMEM, ZCM, Finding,
                         KindRequiredError, ParameterError, decode, encode_raw, is_valid,
                         validate, validate_pair)
from descriptors.words.bits import BitLayout
from descriptors.words.codec import encode  # the packing: rule-breaking words on purpose

SEVERITIES = ("error", "warning", "note")

#: A legal type combination per kind (Table 39).
BASE = LEGAL_TYPES

Run = tuple[Callable[[], list[Finding]], BitLayout]


def _lay(kind: str) -> BitLayout:
    return LAYOUTS[KINDS[kind].layout]


def _ip(kind: str, **kw: Any) -> dict[str, Any]:
    """encode parameters of a legal 128x256 idesc for ``kind``, updated with ``kw``."""
    return {"kind": kind, **BASE[kind], "m": 128, "n": 256, **kw}


def _ctx(cta_group: int | None, ws: bool | None) -> dict[str, Any]:
    c: dict[str, Any] = {}
    if cta_group is not None:
        c["cta_group"] = cta_group
    if ws is not None:
        c["ws"] = ws
    return c


def I(kind: str, *, arch: str = "sm_100a", cta_group: int | None = 1, ws: bool | None = False,
      **kw: Any) -> Run:
    """Validate an idesc given as encode parameters (default context cta_group::1, no .ws)."""
    params = _ip(kind, **kw)
    return (lambda: validate("idesc", arch=arch, **params, **_ctx(cta_group, ws))), _lay(kind)


def idesc_word(kind: str, params: dict[str, Any] | None = None, **raw: int) -> int:
    """The word of a legal idesc for ``kind`` (``params`` override), with raw fields overridden."""
    p = _ip(kind, **(params or {}))
    p.pop("kind")
    fields = dict(decode("idesc", encode("idesc", kind=kind, **p), kind=kind).fields)
    fields.update(raw)
    return encode_raw("idesc", kind=kind, **fields)


def IW(kind: str, word: int, *, arch: str = "sm_100a", cta_group: int | None = 1,
       ws: bool | None = False) -> Run:
    """Validate an idesc word."""
    return (lambda: validate("idesc", word, kind=kind, arch=arch, **_ctx(cta_group, ws))), _lay(kind)


def IR(kind: str, params: dict[str, Any] | None = None, *, arch: str = "sm_100a",
       cta_group: int | None = 1, ws: bool | None = False, **raw: int) -> Run:
    return IW(kind, idesc_word(kind, params, **raw), arch=arch, cta_group=cta_group, ws=ws)


def S(*, arch: str = "sm_100a", **params: Any) -> Run:
    return (lambda: validate("smem", arch=arch, **params)), SMEM


def SR(*, arch: str = "sm_100a", **raw: int) -> Run:
    word = encode_raw("smem", force=True, **raw)
    return (lambda: validate("smem", word, arch=arch)), SMEM


def W(*, arch: str | None = None, **params: Any) -> Run:
    """The sm_90 wgmma matrix descriptor from encode parameters (its own target by default)."""
    return (lambda: validate("wgmma", arch=arch, **params)), LAYOUTS["wgmma"]


def WR(**raw: int) -> Run:
    word = encode_raw("wgmma", **raw)
    return (lambda: validate("wgmma", word)), LAYOUTS["wgmma"]


def Z(*, m: int | None = None, **params: Any) -> Run:
    ctx = {} if m is None else {"m": m}
    return (lambda: validate("zcm", **params, **ctx)), ZCM


def ZR(*, m: int | None = None, **raw: int) -> Run:
    word = encode_raw("zcm", **raw)
    ctx = {} if m is None else {"m": m}
    return (lambda: validate("zcm", word, **ctx)), ZCM


def T(*, alloc: int | None = None, **params: Any) -> Run:
    ctx = {} if alloc is None else {"alloc": alloc}
    return (lambda: validate("tmem", **params, **ctx)), TMEM


def P(kind: str, *, a: dict[str, Any] | None = None, b: dict[str, Any] | None = None,
      arch: str = "sm_100a", cta_group: int | None = 1, ws: bool | None = False,
      **idesc_params: Any) -> Run:
    """validate_pair of an idesc (encode parameters) with A/B smem descriptors (encode params)."""
    iw = idesc_word(kind, idesc_params)
    aw = encode("smem", **a) if a is not None else None
    bw = encode("smem", **b) if b is not None else None
    return (lambda: validate_pair(iw, kind=kind, a_desc=aw, b_desc=bw, arch=arch,
                                  cta_group=cta_group, ws=ws)), SMEM


@dataclass(frozen=True)
class Case:
    rule: str
    name: str
    run: Run
    #: "ok": no finding of the rule at all; "ok-notes": no error/warning of the rule;
    #: otherwise the severity of the expected finding.
    expect: str
    field: str | None = None
    #: every finding of the rule has exactly ``expect`` severity
    only: bool = False
    #: the whole input is valid (no error finding of any rule)
    clean: bool = False

    @property
    def legal(self) -> bool:
        return self.expect in ("ok", "ok-notes")


def C(rule: str, name: str, run: Run, expect: str = "ok", field: str | None = None, *,
      only: bool = False, clean: bool = False) -> Case:
    return Case(rule, name, run, expect, field, only, clean)


SW = {"swizzle": "128B", "stride_byte_offset": 1024}

# Every reserved / constant field of every idesc layout, set to all-ones on a legal word.
_RESERVED_IDESC = [
    C("idesc.reserved", f"{kind}-{f.name}", IR(kind, **{f.name: f.max}), "error", f.name)
    for kind in ("f16", "mxf8f6f4", "mxf4")
    for f in _lay(kind).fields if f.role == "reserved"
]

CASES: list[Case] = [
    # ------------------------------------------------------------------ reserved bits
    C("idesc.reserved", "legal", I("f16"), clean=True),
    C("idesc.reserved", "legal-mxf4", I("mxf4"), clean=True),
    *_RESERVED_IDESC,
    C("idesc.reserved", "table43-reserved_0-sparse_id2",
      IW("mxf8f6f4", encode_raw("idesc", kind="mxf8f6f4", reserved_0=1, a_type=0, b_type=0,
                                n_dim=32, scale_type=1, m_dim=1)), "error", "reserved_0"),
    C("idesc.reserved", "table43-reserved_31", IR("mxf8f6f4", reserved_31=1), "error", "reserved_31"),
    C("idesc.reserved", "table44-reserved_12", IR("mxf4nvf4", reserved_12=1), "error", "reserved_12"),
    # CUTLASS writes M >> 4 into bits 24-28: M=64 would set bit 26 (reserved in Tables 43/44).
    C("idesc.reserved", "cutlass-m64-bit26", IW("mxf8f6f4", idesc_word("mxf8f6f4") & ~(0x1F << 24)
                                                | (4 << 24)), "error", "reserved_24"),
    C("smem.reserved", "legal", S(**SW), clean=True),
    C("smem.reserved", "reserved_14", SR(reserved_14=1), "error", "reserved_14"),
    C("smem.reserved", "reserved_30", SR(reserved_30=2), "error", "reserved_30"),
    C("smem.reserved", "fixed_constant-0", SR(fixed_constant=0), "error", "fixed_constant"),
    C("smem.reserved", "fixed_constant-0b011", SR(fixed_constant=0b011), "error", "fixed_constant"),
    C("smem.reserved", "fixed_zero-1", SR(fixed_zero=1), "error", "fixed_zero"),
    C("smem.reserved", "fixed_zero-0x80", SR(fixed_zero=0x80), "error", "fixed_zero"),
    C("zcm.reserved", "legal", Z(skip_span=2, use_span=3), clean=True),
    C("zcm.reserved", "reserved_36", ZR(reserved_36=1, non_zero_mask=1), "error", "reserved_36"),
    C("zcm.reserved", "reserved_62", ZR(reserved_62=3, non_zero_mask=1), "error", "reserved_62"),
    C("tmem.reserved", "legal", T(lane=0, column=0), clean=True),
    C("tmem.reserved", "all-ones", (lambda: validate("tmem", 0xFFFFFFFF), TMEM), "ok-notes"),
    # ------------------------------------------------------------------ Table 39 shapes
    C("idesc.shape", "f16-128x256-cta1", I("f16"), clean=True),
    C("idesc.shape", "f16-64x8-cta1", I("f16", m=64, n=8)),
    C("idesc.shape", "f16-256x16-cta2", I("f16", m=256, n=16, cta_group=2), clean=True),
    C("idesc.shape", "f16-m256-cta1", I("f16", m=256, n=64), "error", "m_dim"),
    C("idesc.shape", "f16-m32-no-ws", I("f16", m=32, n=64), "error", "m_dim"),
    C("idesc.shape", "f16-m64-cta2", I("f16", m=64, n=64, cta_group=2), "error", "m_dim"),
    C("idesc.shape", "f16-m192", I("f16", m=192, n=64), "error", "m_dim"),
    C("idesc.shape", "f16-n8-cta2", I("f16", m=128, n=8, cta_group=2), "error", "n_dim"),
    C("idesc.shape", "f16-n0", I("f16", m=128, n=0), "error", "n_dim"),
    C("idesc.shape", "tf32-n264-raw", IR("tf32", n_dim=33), "error", "n_dim"),
    C("idesc.shape", "i8-n24-cta1", I("i8", m=64, n=24)),
    C("idesc.shape", "i8-n32-cta1", I("i8", m=64, n=32)),
    C("idesc.shape", "i8-n48-cta1", I("i8", m=128, n=48)),
    C("idesc.shape", "i8-n40-cta1", I("i8", m=128, n=40), "error", "n_dim"),
    C("idesc.shape", "i8-n56-cta1", I("i8", m=128, n=56), "error", "n_dim"),
    C("idesc.shape", "i8-n96-cta2", I("i8", m=256, n=96, cta_group=2)),
    C("idesc.shape", "i8-n48-cta2", I("i8", m=256, n=48, cta_group=2), "error", "n_dim"),
    C("idesc.shape", "ws-m32-n64", I("f16", m=32, n=64, ws=True), clean=True),
    C("idesc.shape", "ws-m64-n256", I("f8f6f4", m=64, n=256, ws=True)),
    C("idesc.shape", "ws-sparse-n128", I("tf32", m=128, n=128, ws=True, sparse=True)),
    C("idesc.shape", "ws-sparse-n256", I("tf32", m=128, n=256, ws=True, sparse=True), "error", "n_dim"),
    C("idesc.shape", "ws-n192", I("i8", m=128, n=192, ws=True), "error", "n_dim"),
    C("idesc.shape", "ws-n8", I("f16", m=128, n=8, ws=True), "error", "n_dim"),
    C("idesc.shape", "ws-m256", I("f16", m=256, n=128, ws=True), "error", "m_dim"),
    C("idesc.shape", "mxf8-cta1-n8", I("mxf8f6f4", m=128, n=8)),
    C("idesc.shape", "mxf8-cta1-m256", I("mxf8f6f4", m=256, n=64), "error", "m_dim"),
    C("idesc.shape", "mxf8-cta2-sparse-m256", I("mxf8f6f4", m=256, n=64, cta_group=2, sparse=True)),
    C("idesc.shape", "mxf8-cta2-sparse-m128", I("mxf8f6f4", m=128, n=64, cta_group=2, sparse=True),
      "error", "m_dim"),
    C("idesc.shape", "mxf4-cta2-n24", I("mxf4", m=256, n=24, cta_group=2), "error", "n_dim"),
    C("idesc.shape", "mxf4nvf4-m384-raw", IR("mxf4nvf4", m_dim=3), "error", "m_dim"),
    # context unknown: a shape valid in some context is only a note
    C("idesc.shape", "unknown-ctx-m256", I("f16", m=256, n=64, cta_group=None, ws=None), "note",
      "m_dim", only=True),
    C("idesc.shape", "unknown-ctx-m192", I("f16", m=192, n=64, cta_group=None, ws=None), "error",
      "m_dim"),
    # ------------------------------------------------------------------ .ws
    C("idesc.ws", "f16-ws-cta1", I("f16", m=64, n=128, ws=True), clean=True),
    C("idesc.ws", "i8-ws-cta1", I("i8", m=32, n=64, ws=True)),
    C("idesc.ws", "f16-ws-cta2", I("f16", m=128, n=128, ws=True, cta_group=2), "error"),
    C("idesc.ws", "tf32-ws-cta2-sparse", I("tf32", m=128, n=128, ws=True, cta_group=2, sparse=True),
      "error"),
    C("idesc.ws", "mxf8f6f4-ws", I("mxf8f6f4", ws=True), "error"),
    C("idesc.ws", "mxf4-ws", I("mxf4", n=128, ws=True), "error"),
    C("idesc.ws", "mxf4nvf4-ws-cta2", I("mxf4nvf4", m=256, n=128, ws=True, cta_group=2), "error"),
    # ------------------------------------------------------------------ target ISA
    C("idesc.arch", "i8-sm_100a", I("i8", arch="sm_100a"), clean=True),
    C("idesc.arch", "i8-sm_110a", I("i8", arch="sm_110a")),
    C("idesc.arch", "f16-sm_100f", I("f16", arch="sm_100f")),
    C("idesc.arch", "mxf4-sm_103a", I("mxf4", arch="sm_103a")),
    C("idesc.arch", "i8-sm_100f", I("i8", arch="sm_100f"), "error"),
    C("idesc.arch", "i8-sm_103a", I("i8", arch="sm_103a"), "error"),
    C("idesc.arch", "i8-sm_110f", I("i8", arch="sm_110f"), "error"),
    # ------------------------------------------------------------------ type codes
    C("idesc.types", "every-base", I("f8f6f4", a_type="e2m1", b_type="e3m2", d_type="f16")),
    C("idesc.types", "tf32-d-f16-code", IR("tf32", d_type=0), "error", "d_type"),
    C("idesc.types", "tf32-d-s32-code", IR("tf32", d_type=2), "error", "d_type"),
    C("idesc.types", "i8-d-f32-code", IR("i8", d_type=1), "error", "d_type"),
    C("idesc.types", "f16-d-code3", IR("f16", d_type=3), "error", "d_type"),
    C("idesc.types", "f16-a-code2", IR("f16", a_type=2), "error", "a_type"),
    C("idesc.types", "tf32-b-code0", IR("tf32", b_type=0), "error", "b_type"),
    C("idesc.types", "f8f6f4-a-code2", IR("f8f6f4", a_type=2), "error", "a_type"),
    C("idesc.types", "mxf8f6f4-b-code6", IR("mxf8f6f4", b_type=6), "error", "b_type"),
    C("idesc.types", "mxf4-b-code0", IR("mxf4", b_type=0), "error", "b_type"),
    C("idesc.types", "i8-a-code2", IR("i8", a_type=2), "error", "a_type"),
    # ------------------------------------------------------------------ type combinations
    C("idesc.type_combination", "f16-f16-f16", I("f16", a_type="f16", b_type="f16", d_type="f16"),
      clean=True),
    C("idesc.type_combination", "bf16-f32", I("f16")),
    C("idesc.type_combination", "f8f6f4-f16-acc", I("f8f6f4", d_type="f16")),
    C("idesc.type_combination", "f8f6f4-mixed", I("f8f6f4", a_type="e5m2", b_type="e2m1")),
    C("idesc.type_combination", "bf16-f16-acc", I("f16", d_type="f16"), "error", "d_type"),
    C("idesc.type_combination", "mixed-f16-bf16", I("f16", a_type="f16", b_type="bf16"), "error",
      "b_type"),
    C("idesc.type_combination", "mixed-bf16-f16", I("f16", a_type="bf16", b_type="f16"), "error",
      "b_type"),
    # ------------------------------------------------------------------ saturate / negate
    C("idesc.saturate", "i8", I("i8", saturate=True), clean=True),
    C("idesc.saturate", "f16", I("f16", saturate=True), "error", "saturate"),
    C("idesc.saturate", "tf32", I("tf32", saturate=True), "error", "saturate"),
    C("idesc.saturate", "f8f6f4", I("f8f6f4", saturate=True), "error", "saturate"),
    C("idesc.negate", "f16", I("f16", negate_a=True, negate_b=True), clean=True),
    C("idesc.negate", "mxf4", I("mxf4", negate_a=True)),
    C("idesc.negate", "i8-a", I("i8", negate_a=True), "error", "negate_a"),
    C("idesc.negate", "i8-b", I("i8", negate_b=True), "error", "negate_b"),
    # ------------------------------------------------------------------ transpose (Table 49)
    C("idesc.transpose", "f16-mn", I("f16", a_major="MN", b_major="MN"), clean=True),
    C("idesc.transpose", "tf32-mn", I("tf32", a_major="MN")),
    C("idesc.transpose", "i8-mn", I("i8", a_major="MN", b_major="MN")),
    C("idesc.transpose", "f8f6f4-e4m3-mn", I("f8f6f4", a_major="MN")),
    C("idesc.transpose", "mxf8f6f4-e5m2-mn", I("mxf8f6f4", a_type="e5m2", b_major="MN")),
    C("idesc.transpose", "mxf4-a", I("mxf4", a_major="MN"), "error", "transpose_a"),
    C("idesc.transpose", "mxf4nvf4-b", I("mxf4nvf4", b_major="MN"), "error", "transpose_b"),
    C("idesc.transpose", "f8f6f4-e2m1-a", I("f8f6f4", a_type="e2m1", a_major="MN"), "error",
      "transpose_a"),
    C("idesc.transpose", "f8f6f4-e2m3-b", I("f8f6f4", b_type="e2m3", b_major="MN"), "error",
      "transpose_b"),
    C("idesc.transpose", "f8f6f4-e3m2-a", I("f8f6f4", a_type="e3m2", a_major="MN"), "error",
      "transpose_a"),
    C("idesc.transpose", "mxf8f6f4-e2m1-b", I("mxf8f6f4", b_type="e2m1", b_major="MN"), "error",
      "transpose_b"),
    # ------------------------------------------------------------------ Table 50
    C("idesc.transpose_b_8bit_n", "cta1-n16", I("f8f6f4", m=128, n=16, b_major="MN"), clean=True),
    C("idesc.transpose_b_8bit_n", "cta2-n32", I("i8", m=256, n=32, b_major="MN", cta_group=2)),
    C("idesc.transpose_b_8bit_n", "a-only-n8", I("f8f6f4", m=128, n=8, a_major="MN")),
    C("idesc.transpose_b_8bit_n", "16bit-n8", I("f16", m=128, n=8, b_major="MN")),
    C("idesc.transpose_b_8bit_n", "cta1-n8", I("f8f6f4", m=128, n=8, b_major="MN"), "error", "n_dim"),
    C("idesc.transpose_b_8bit_n", "cta1-i8-n24", I("i8", m=128, n=24, b_major="MN"), "error", "n_dim"),
    C("idesc.transpose_b_8bit_n", "cta1-mxf8-n40", I("mxf8f6f4", m=128, n=40, b_major="MN"),
      "error", "n_dim"),
    C("idesc.transpose_b_8bit_n", "cta2-n48", I("f8f6f4", m=256, n=48, b_major="MN", cta_group=2),
      "error", "n_dim"),
    C("idesc.transpose_b_8bit_n", "cta2-u8-n16", I("i8", a_type="u8", b_type="u8", m=256, n=16,
                                                    b_major="MN", cta_group=2), "error", "n_dim"),
    C("idesc.transpose_b_8bit_n", "cta-unknown-n48", I("f8f6f4", m=128, n=48, b_major="MN",
                                                        cta_group=None), "note", "n_dim", only=True),
    # ------------------------------------------------------------------ sparsity selector
    C("idesc.sparsity_selector", "sparse", I("f16", sparse=True, sparsity_selector=2), clean=True),
    C("idesc.sparsity_selector", "dense-0", I("f16")),
    C("idesc.sparsity_selector", "dense-1", I("f16", sparsity_selector=1), "warning",
      "sparsity_selector", only=True),
    # 9.7.16.10.8.4.5-6: the selector must be 0 for kind::i8 and kind::f8f6f4 (issue 15)
    C("idesc.sparsity_selector", "i8-sparse-0", I("i8", sparse=True), clean=True),
    C("idesc.sparsity_selector", "f8f6f4-sparse-0", I("f8f6f4", sparse=True), clean=True),
    *[C("idesc.sparsity_selector", f"{k}-sparse-{sel}", I(k, sparse=True, sparsity_selector=sel),
        "error", "sparsity_selector", only=True)
      for k in ("i8", "f8f6f4") for sel in (1, 2, 3)],
    C("idesc.sparsity_selector", "tf32-sparse-3", I("tf32", sparse=True, sparsity_selector=3),
      clean=True),
    # ------------------------------------------------------------------ max shift
    C("idesc.sparse_form", "sp-sparse", (lambda: validate(
        "idesc", idesc_word("f16", {"n": 128}, sparse=1), kind="f16", cta_group=1, ws=False,
        sp=True), _lay("f16"))),
    C("idesc.sparse_form", "dense-dense", (lambda: validate(
        "idesc", idesc_word("f16"), kind="f16", cta_group=1, ws=False, sp=False), _lay("f16")),
      clean=True),
    C("idesc.sparse_form", "sp-dense", (lambda: validate(
        "idesc", idesc_word("f16"), kind="f16", cta_group=1, ws=False, sp=True), _lay("f16")),
      "error", "sparse"),
    C("idesc.sparse_form", "dense-sparse", (lambda: validate(
        "idesc", idesc_word("f16", {"n": 128}, sparse=1), kind="f16", cta_group=1, ws=False,
        sp=False), _lay("f16")), "error", "sparse"),
    C("idesc.max_shift", "ws", I("f16", m=64, n=128, ws=True, max_shift=32), clean=True),
    C("idesc.max_shift", "no-shift", I("f16", max_shift=0)),
    C("idesc.max_shift", "no-ws", I("f16", max_shift=8), "error", "max_shift"),
    C("idesc.max_shift", "ws-unknown", I("f16", m=64, n=128, ws=None, max_shift=16), "note",
      "max_shift", only=True),
    # ------------------------------------------------------------------ scale type / IDs
    C("idesc.scale_type", "mxf4nvf4-ue4m3", I("mxf4nvf4", scale_type="ue4m3"), clean=True),
    C("idesc.scale_type", "mxf4nvf4-ue8m0", I("mxf4nvf4", scale_type="ue8m0")),
    C("idesc.scale_type", "mxf8f6f4-ue8m0", I("mxf8f6f4")),
    C("idesc.scale_type", "mxf8f6f4-raw0", IR("mxf8f6f4", scale_type=0), "error", "scale_type"),
    C("idesc.scale_type", "mxf4-raw0", IR("mxf4", scale_type=0), "error", "scale_type"),
    C("idesc.scale_id", "mxf8f6f4-1", I("mxf8f6f4", a_scale_id=1, b_scale_id=1), clean=True),
    C("idesc.scale_id", "mxf8f6f4-3", I("mxf8f6f4", a_scale_id=3, b_scale_id=3)),
    C("idesc.scale_id", "mxf4-2", I("mxf4", a_scale_id=2, b_scale_id=2)),
    C("idesc.scale_id", "mxf4-a1", I("mxf4", a_scale_id=1), "error", "a_scale_id"),
    C("idesc.scale_id", "mxf4-b3", I("mxf4", b_scale_id=3), "error", "b_scale_id"),
    C("idesc.scale_id", "mxf4nvf4-a3", I("mxf4nvf4", a_scale_id=3), "error", "a_scale_id"),
    C("idesc.scale_id", "mxf4nvf4-b1", I("mxf4nvf4", b_scale_id=1), "error", "b_scale_id"),
    # K=96 (sm_103a): block32 is scale_vec::3X, IDs 0-3 (9.7.16.10.7.2.4, 9.7.16.10.7.3.4,
    # Figures 234-237, 243-252), though Table 44 says "0 or 2"; the K=96 sections decide
    C("idesc.scale_id", "k96-block32-ids-1-3", I("mxf4", k=96, m=256, n=256, cta_group=2,
                                                arch="sm_103a", a_scale_id=1, b_scale_id=3),
      clean=True),
    C("idesc.scale_id", "k96-mxf4nvf4-ue8m0-id3", I("mxf4nvf4", scale_type="ue8m0", k=96, m=256,
                                                   n=256, cta_group=2, arch="sm_103a",
                                                   scale_vec="block32", a_scale_id=3),
      clean=True),
    # ------------------------------------------------------------------ scale_vec (Tables 54-55)
    C("idesc.scale_vec", "unknown", I("mxf4nvf4")),
    C("idesc.scale_vec", "mxf8f6f4-1X", I("mxf8f6f4", scale_vec="1X"), clean=True),
    C("idesc.scale_vec", "mxf4-2X", I("mxf4", scale_vec="scale_vec::2X"), clean=True),
    C("idesc.scale_vec", "mxf4nvf4-ue8m0-2X", I("mxf4nvf4", scale_type="ue8m0", scale_vec="2X"),
      clean=True),
    C("idesc.scale_vec", "mxf4nvf4-ue8m0-4X", I("mxf4nvf4", scale_type="ue8m0", scale_vec="4X"),
      clean=True),
    C("idesc.scale_vec", "mxf4nvf4-ue4m3-block16", I("mxf4nvf4", scale_vec="block16"), clean=True),
    C("idesc.scale_vec", "mxf8f6f4-2X", I("mxf8f6f4", scale_vec="2X"), "error", only=True),
    C("idesc.scale_vec", "mxf4-4X", I("mxf4", scale_vec="4X"), "error", only=True),
    C("idesc.scale_vec", "mxf4nvf4-1X", I("mxf4nvf4", scale_type="ue8m0", scale_vec="1X"), "error"),
    C("idesc.scale_vec", "mxf4nvf4-ue4m3-2X", I("mxf4nvf4", scale_vec="2X"), "error",
      "scale_type", only=True),
    C("idesc.scale_vec", "f16-1X", I("f16", scale_vec="1X"), "error", only=True),
    # 9.7.16.10.7.2.3: scale factor IDs 0 under scale_vec::4X
    C("idesc.scale_id_4x", "4X-ids-0", I("mxf4nvf4", scale_type="ue8m0", scale_vec="4X"), clean=True),
    C("idesc.scale_id_4x", "2X-ids-2", I("mxf4nvf4", scale_type="ue8m0", scale_vec="2X",
                                         a_scale_id=2, b_scale_id=2), clean=True),
    C("idesc.scale_id_4x", "4X-a2", I("mxf4nvf4", scale_type="ue8m0", scale_vec="4X", a_scale_id=2),
      "error", "a_scale_id", only=True),
    C("idesc.scale_id_4x", "4X-b2", I("mxf4nvf4", scale_type="ue8m0", scale_vec="4X", b_scale_id=2),
      "error", "b_scale_id", only=True),
    C("idesc.scale_id_4x", "ue4m3-implies-4X", I("mxf4nvf4", a_scale_id=2), "error", "a_scale_id"),
    C("idesc.scale_id_4x", "ue8m0-unknown-vec", I("mxf4nvf4", scale_type="ue8m0", b_scale_id=2),
      "note", "b_scale_id", only=True),
    # block16 with K=96 is scale_vec::6X: IDs 0 and 2 (9.7.16.10.7.2.5, 9.7.16.10.7.3.5,
    # Figures 238-239, 253-258), not "0 with scale_vec::4X"
    C("idesc.scale_id_4x", "k96-block16-ids-2", I("mxf4nvf4", k=96, m=256, n=256, cta_group=2,
                                                  arch="sm_103a", scale_vec="block16",
                                                  a_scale_id=2, b_scale_id=2), clean=True),
    C("idesc.scale_id_4x", "k96-ue4m3-implies-6X-ids-2", I("mxf4nvf4", k=96, m=256, n=256,
                                                           cta_group=2, arch="sm_103a",
                                                           a_scale_id=2), clean=True),
    C("idesc.scale_id_4x", "k96-block16-a1", I("mxf4nvf4", k=96, m=256, n=256, cta_group=2,
                                               arch="sm_103a", scale_vec="4X", a_scale_id=1),
      "error", "a_scale_id"),
    # ------------------------------------------------------------------ K = 96
    C("idesc.k96", "mxf4-sm_103a", I("mxf4", k=96, m=256, n=256, cta_group=2, arch="sm_103a"),
      clean=True),
    C("idesc.k96", "mxf4nvf4-sm_103a", I("mxf4nvf4", k=96, m=256, n=16, cta_group=2,
                                         arch="sm_103a"), clean=True),
    C("idesc.k96", "k64", I("mxf4", m=256, n=256, cta_group=2, arch="sm_100a")),
    C("idesc.k96", "sm_100a", I("mxf4", k=96, m=256, n=256, cta_group=2), "error", "k_dim"),
    C("idesc.k96", "sm_103f", I("mxf4", k=96, m=256, n=256, cta_group=2, arch="sm_103f"), "error",
      "k_dim"),
    C("idesc.k96", "m128", I("mxf4nvf4", k=96, m=128, n=256, cta_group=2, arch="sm_103a"),
      "error", "k_dim"),
    C("idesc.k96", "cta1", I("mxf4", k=96, m=256, n=256, cta_group=1, arch="sm_103a"), "error",
      "k_dim"),
    C("idesc.k96", "sparse", IR("mxf4", {"m": 256, "sparse": True}, k_dim=1, cta_group=2,
                                arch="sm_103a"), "error", "k_dim"),
    C("idesc.k96", "cta-unknown", I("mxf4", k=96, m=256, n=256, cta_group=None, arch="sm_103a"),
      "note", "k_dim", only=True),
    # ------------------------------------------------------------------ smem swizzle
    *[C("smem.swizzle", f"code-{c}", SR(swizzle=c, fixed_constant=1), "ok", clean=True)
      for c in (0, 1, 2, 4, 6)],
    *[C("smem.swizzle", f"code-{c}", SR(swizzle=c, fixed_constant=1), "error", "swizzle")
      for c in (3, 5, 7)],
    # ------------------------------------------------------------------ smem base offset (Table 41)
    C("smem.base_offset", "aligned-0", S(**SW), clean=True),
    C("smem.base_offset", "aligned-0x400", S(start_address=0x400, **SW), clean=True),
    C("smem.base_offset", "0x600-base4", S(start_address=0x600, base_offset=4, **SW)),
    C("smem.base_offset", "64B-0x200", S(start_address=0x200, swizzle="64B")),
    C("smem.base_offset", "32B-0x100", S(start_address=0x100, swizzle="32B")),
    C("smem.base_offset", "none-0x600", S(start_address=0x600)),
    C("smem.base_offset", "0x600-base0", S(start_address=0x600, **SW), "note", "base_offset"),
    C("smem.base_offset", "0x600-base1", S(start_address=0x600, base_offset=1, **SW), "warning",
      "base_offset"),
    C("smem.base_offset", "0x400-base3", S(start_address=0x400, base_offset=3, **SW), "warning",
      "base_offset"),
    # DeepGEMM K step (start 32 bytes, base 0): at most a note (see also the dedicated test
    # test_kstep_inside_128B_atom_is_a_note below)
    C("smem.base_offset", "deepgemm-kstep", S(start_address=32, **SW), "ok-notes", clean=True),
    C("smem.base_offset", "deepgemm-kstep-0x420", S(start_address=0x420, **SW), "ok-notes",
      clean=True),
    C("smem.base_offset", "64B-kstep-0x220", S(start_address=0x220, swizzle="64B"), "note",
      "base_offset", only=True, clean=True),
    C("smem.base_offset", "none-base1", S(base_offset=1, swizzle="none"), "warning", "base_offset",
      only=True),
    # ------------------------------------------------------------------ absolute LBO (9.7.16.3.1.2.1)
    C("smem.lbo_absolute", "relative", S(**SW, arch="sm_100a")),
    C("smem.lbo_absolute", "sm_103a-128B", S(lbo_mode="absolute", leading_byte_offset=0x800,
                                             arch="sm_103a", **SW), "ok-notes", clean=True),
    C("smem.lbo_absolute", "sm_100a", S(lbo_mode="absolute", leading_byte_offset=0x800,
                                        arch="sm_100a", **SW), "error", "lbo_mode"),
    C("smem.lbo_absolute", "sm_103f", S(lbo_mode="absolute", leading_byte_offset=0x800,
                                        arch="sm_103f", **SW), "error", "lbo_mode"),
    C("smem.lbo_absolute", "64B", S(lbo_mode="absolute", leading_byte_offset=0x800,
                                    swizzle="64B", arch="sm_103a"), "error", "swizzle"),
    C("smem.lbo_absolute", "128B_base32B", S(lbo_mode="absolute", swizzle="128B_base32B",
                                             arch="sm_103a"), "error", "swizzle"),
    C("smem.lbo_absolute", "none", S(lbo_mode="absolute", arch="sm_103a"), "error", "swizzle"),
    C("smem.lbo_absolute", "base1", S(lbo_mode="absolute", base_offset=1, arch="sm_103a", **SW),
      "error", "base_offset"),
    # ------------------------------------------------------------------ LBO unused (9.7.16.3.1.1)
    C("smem.lbo_unused", "cutlass-lbo16", S(leading_byte_offset=16, **SW), clean=True),
    C("smem.lbo_unused", "deepgemm-lbo0", S(leading_byte_offset=0, **SW)),
    C("smem.lbo_unused", "none-lbo4096", S(leading_byte_offset=4096, stride_byte_offset=128)),
    C("smem.lbo_unused", "lbo64", S(leading_byte_offset=64, **SW), "note", "leading_byte_offset",
      only=True, clean=True),
    # ------------------------------------------------------------------ LBO/SBO swapped
    C("smem.lbo_sbo_swapped", "swapped-128B", S(swizzle="128B", leading_byte_offset=1024,
                                                stride_byte_offset=16), "warning",
      "stride_byte_offset"),
    C("smem.lbo_sbo_swapped", "swapped-64B", S(swizzle="64B", leading_byte_offset=512,
                                               stride_byte_offset=16), "warning",
      "stride_byte_offset"),
    C("smem.lbo_sbo_swapped", "right-128B", S(leading_byte_offset=16, **SW), clean=True),
    C("smem.lbo_sbo_swapped", "mn-major-128B", S(swizzle="128B", leading_byte_offset=1024,
                                                 stride_byte_offset=2048)),
    C("smem.lbo_sbo_swapped", "none-sbo16", S(leading_byte_offset=1024, stride_byte_offset=16)),
    # ------------------------------------------------------------------ the word's target
    C("smem.target", "sm_100a", S(**SW), clean=True),
    C("smem.target", "sm_90a", S(arch="sm_90a", **SW), "error"),
    C("idesc.target", "sm_103a", I("f16", arch="sm_103a"), clean=True),
    C("idesc.target", "sm_90a", I("f16", arch="sm_90a"), "error"),
    C("zcm.target", "sm_100a", Z(column_shift=1, m=128), clean=True),
    C("zcm.target", "sm_90a", (lambda: validate("zcm", 0, arch="sm_90a"), ZCM), "error"),
    C("tmem.target", "sm_110a", (lambda: validate("tmem", 0, arch="sm_110a"), TMEM), clean=True),
    C("tmem.target", "sm_90a", (lambda: validate("tmem", 0, arch="sm_90a"), TMEM), "error"),
    C("wgmma.target", "default-sm_90a", W(**SW), clean=True),
    C("wgmma.target", "sm_100a", W(arch="sm_100a", **SW), "error"),
    # ------------------------------------------------------------------ wgmma (PTX ISA 9.7.15.5.1)
    C("wgmma.reserved", "legal", W(start_address=0x400, leading_byte_offset=16, **SW), clean=True),
    C("wgmma.reserved", "bit46-tcgen05-habit", WR(reserved_46=1, swizzle=1), "warning", "reserved_46"),
    C("wgmma.reserved", "reserved_14", WR(reserved_14=1), "warning", "reserved_14"),
    C("wgmma.reserved", "reserved_30", WR(reserved_30=1), "warning", "reserved_30"),
    C("wgmma.reserved", "reserved_52", WR(reserved_52=0x3FF), "warning", "reserved_52"),
    C("wgmma.base_offset", "aligned-0x400", W(start_address=0x400, **SW), clean=True),
    C("wgmma.base_offset", "0x600-base4", W(start_address=0x600, base_offset=4, **SW)),
    C("wgmma.base_offset", "0x600-base0", W(start_address=0x600, **SW), "note", "base_offset"),
    C("wgmma.base_offset", "0x600-base1", W(start_address=0x600, base_offset=1, **SW), "warning",
      "base_offset"),
    C("wgmma.base_offset", "none-base2", W(base_offset=2, stride_byte_offset=128), "warning",
      "base_offset"),
    C("wgmma.base_offset", "kstep-32", W(start_address=0x420, **SW), "ok-notes", clean=True),
    C("wgmma.lbo_sbo_swapped", "swapped-128B", W(swizzle="128B", leading_byte_offset=1024,
                                                 stride_byte_offset=16), "warning",
      "stride_byte_offset"),
    C("wgmma.lbo_sbo_swapped", "right-128B", W(leading_byte_offset=16, **SW), clean=True),
    C("wgmma.lbo_unused", "lbo16", W(leading_byte_offset=16, **SW), clean=True),
    C("wgmma.lbo_unused", "lbo64", W(leading_byte_offset=64, **SW), "note", "leading_byte_offset",
      only=True, clean=True),
    # ------------------------------------------------------------------ zcm
    C("zcm.column_shift", "17-m64", Z(column_shift=17, m=64), clean=True),
    C("zcm.column_shift", "16-m32", Z(column_shift=16, m=32)),
    C("zcm.column_shift", "32-m128", Z(column_shift=32, m=128)),
    C("zcm.column_shift", "16-m-unknown", Z(column_shift=16)),
    C("zcm.column_shift", "17-m32", Z(column_shift=17, m=32), "error", "column_shift"),
    C("zcm.column_shift", "33-m128", Z(column_shift=33, m=128), "error", "column_shift"),
    C("zcm.column_shift", "33-m-unknown", Z(column_shift=33), "error", "column_shift"),
    C("zcm.column_shift", "63-m64", Z(column_shift=63, m=64), "error", "column_shift"),
    C("zcm.column_shift", "20-m-unknown", Z(column_shift=20), "note", "column_shift", only=True),
    *[C("zcm.m", f"m{m}", Z(m=m), clean=True) for m in (32, 64, 128)],
    C("zcm.m", "m-unknown", Z()),
    C("zcm.m", "m256", Z(m=256), "error"),
    C("zcm.m", "m16", Z(m=16), "error"),
    C("zcm.m", "m96", Z(m=96), "error"),
    # ------------------------------------------------------------------ N of the .ws MMA
    *[C("zcm.n", f"n{n}", Z(m=128, n=n), clean=True) for n in (64, 128, 256)],
    C("zcm.n", "n-unknown", Z(m=128)),
    *[C("zcm.n", f"n{n}", Z(m=128, n=n), "error", only=True) for n in (8, 32, 96, 192, 512)],
    C("zcm.unused_submasks", "m32-all", Z(m=32, start_count=[1, 2, 1, 0], first_span=[1, 1, 0, 0],
                                          skip_span=2, use_span=3, column_shift=2), clean=True),
    C("zcm.unused_submasks", "m64-sc1", Z(m=64, start_count=[0, 3], first_span=[1, 1])),
    C("zcm.unused_submasks", "m-unknown-sc3", Z(start_count=[0, 0, 0, 5])),
    C("zcm.unused_submasks", "m128-sc1", Z(m=128, start_count=[0, 1]), "warning", "start_count_1"),
    C("zcm.unused_submasks", "m128-fs3", Z(m=128, first_span=[0, 0, 0, 1]), "warning",
      "first_span_3"),
    C("zcm.unused_submasks", "m64-fs2", Z(m=64, first_span=[0, 0, 1]), "warning", "first_span_2"),
    C("zcm.unused_submasks", "m64-sc3", Z(m=64, start_count=[0, 0, 0, 1]), "warning",
      "start_count_3"),
    C("zcm.non_zero_mask", "nzm1", Z(non_zero_mask=1, start_count=[1]), clean=True),
    C("zcm.non_zero_mask", "ptx-example1", Z(non_zero_mask=0, skip_span=4, use_span=3)),
    C("zcm.non_zero_mask", "nzm0-sc", Z(non_zero_mask=0, start_count=[1]), "note",
      "non_zero_mask", only=True, clean=True),
    C("zcm.non_zero_mask", "nzm0-fs", Z(non_zero_mask=0, first_span=[0, 1]), "note",
      "non_zero_mask"),
    # ------------------------------------------------------------------ tmem
    C("tmem.lane", "lane127", T(lane=127, column=0), clean=True),
    C("tmem.lane", "lane64", T(lane=64, column=128)),
    C("tmem.lane", "lane128", T(lane=128), "error", "lane"),
    C("tmem.lane", "lane0x3fff", T(lane=0x3FFF), "error", "lane"),
    C("tmem.lane", "cutlass-bits31-30", T(lane=0xC000 | 5, column=3), "note", "lane", only=True,
      clean=True),
    C("tmem.lane", "cutlass-bits30-lane200", T(lane=0x4000 | 200), "error", "lane"),
    C("tmem.column", "col511", T(column=511), clean=True),
    C("tmem.column", "col127-alloc128", T(column=127, alloc=128)),
    C("tmem.column", "col512", T(column=512), "error", "column"),
    C("tmem.column", "col0xffff", T(column=0xFFFF), "error", "column"),
    C("tmem.column", "col256-alloc128", T(column=256, alloc=128), "warning", "column", only=True),
    C("tmem.column", "col32-alloc32", T(column=32, alloc=32), "warning", "column"),
    *[C("tmem.alloc", f"alloc{n}", T(alloc=n), clean=True) for n in (32, 64, 128, 256, 512)],
    C("tmem.alloc", "alloc-unknown", T()),
    # ------------------------------------------------------------------ tcgen05.shift (9.7.16.9.3)
    *[C("tmem.shift_lane", f"lane{lane}", T(lane=lane, shift=True), clean=True)
      for lane in (0, 32, 64, 96)],
    C("tmem.shift_lane", "not-shift", T(lane=16)),
    *[C("tmem.shift_lane", f"lane{lane}", T(lane=lane, shift=True), "error", "lane", only=True)
      for lane in (1, 16, 31, 33, 127)],
    *[C("tmem.alloc", f"alloc{n}", T(alloc=n), "error") for n in (0, 16, 48, 96, 1024, 768)],
    # ------------------------------------------------------------------ pairs (Table 52, 9.7.16.3.1)
    C("pair.table52", "tf32-mn-128B_base32B",
      P("tf32", a_major="MN", b_major="MN", a={"swizzle": "128B_base32B"},
        b={"swizzle": "128B_base32B"}), clean=True),
    C("pair.table52", "bf16-mn-128B", P("f16", a_major="MN", a={"swizzle": "128B"})),
    C("pair.table52", "8bit-mn-128B", P("f8f6f4", a_major="MN", b_major="MN",
                                        a={"swizzle": "128B"}, b={"swizzle": "128B"})),
    C("pair.table52", "i8-mn-64B", P("i8", a_major="MN", a={"swizzle": "64B"})),
    C("pair.table52", "bf16-k-128B_base32B", P("f16", a={"swizzle": "128B_base32B"},
                                               b={"swizzle": "128B_base32B"})),
    # Table 53 has no K-major atom for 128B_base32B ("-"); Table 52's non-transposed row says
    # "All swizzling modes".  Decision (issue 15): Table 53 limits Table 52 -- refuse, as the
    # layout API and CUTLASS ("SWIZZLE_128B_BASE32B is invalid for Major-K") do.
    C("pair.table53", "bf16-k-128B_base32B-a", P("f16", a={"swizzle": "128B_base32B"}),
      "error", "swizzle", only=True),
    C("pair.table53", "tf32-k-128B_base32B-b", P("tf32", b={"swizzle": "128B_base32B"}),
      "error", "swizzle", only=True),
    C("pair.table53", "e2m1-k-128B_base32B", P("mxf4", a={"swizzle": "128B_base32B"}),
      "error", "swizzle", only=True),
    C("pair.table53", "tf32-mn-128B_base32B", P("tf32", a_major="MN", a={"swizzle": "128B_base32B"}),
      clean=True),
    *[C("pair.table53", f"bf16-k-{swz}", P("f16", a={"swizzle": swz}, b={"swizzle": swz}),
        clean=True) for swz in ("none", "32B", "64B", "128B")],
    C("pair.table52", "tf32-k-128B", P("tf32", a={"swizzle": "128B"}, b={"swizzle": "128B"})),
    C("pair.table52", "tf32-mn-128B", P("tf32", a_major="MN", a={"swizzle": "128B"}), "error",
      "swizzle"),
    C("pair.table52", "tf32-mn-b-none", P("tf32", b_major="MN", b={"swizzle": "none"}), "error",
      "swizzle"),
    C("pair.table52", "bf16-mn-128B_base32B", P("f16", b_major="MN",
                                                b={"swizzle": "128B_base32B"}), "error", "swizzle"),
    C("pair.table52", "e4m3-mn-128B_base32B", P("mxf8f6f4", a_major="MN",
                                                a={"swizzle": "128B_base32B"}), "error", "swizzle"),
    C("pair.lbo_absolute", "k-major", P("f16", arch="sm_103a",
                                        a={"lbo_mode": "absolute", **SW})),
    C("pair.lbo_absolute", "mn-major-a", P("f16", a_major="MN", arch="sm_103a",
                                           a={"lbo_mode": "absolute", **SW}), "error", "lbo_mode"),
    C("pair.lbo_absolute", "mn-major-b", P("f8f6f4", b_major="MN", arch="sm_103a",
                                           b={"lbo_mode": "absolute", **SW}), "error", "lbo_mode"),
    C("pair.lbo_unused", "k-lbo16", P("f16", a={"leading_byte_offset": 16, **SW}), clean=True),
    C("pair.lbo_unused", "mn-lbo64", P("f16", a_major="MN", a={"leading_byte_offset": 64, **SW})),
    C("pair.lbo_unused", "k-none-lbo64", P("f16", a={"leading_byte_offset": 64})),
    C("pair.lbo_unused", "k-lbo64", P("f16", a={"leading_byte_offset": 64, **SW}), "note",
      "leading_byte_offset", only=True, clean=True),
    C("pair.lbo_unused", "k-lbo64-b", P("f16", b={"leading_byte_offset": 64, **SW}), "note",
      "leading_byte_offset"),
    # ------------------------------------------------------------------ encode.field (not a RULE)
    C("encode.field", "legal", I("f16", n=256), clean=True),
    C("encode.field", "n520", I("f16", n=520), "error", "n_dim", only=True),
    C("encode.field", "n12", I("f16", n=12), "error", "n_dim"),
    C("encode.field", "m8", I("f16", m=8), "error", "m_dim"),
    C("encode.field", "mxf4-m64", I("mxf4", m=64), "error", "m_dim"),
    C("encode.field", "mxf8-scale-id-4", I("mxf8f6f4", a_scale_id=4), "error", "a_scale_id"),
    C("encode.field", "smem-start-misaligned", S(start_address=0x408, **SW), "error",
      "start_address"),
    C("encode.field", "smem-sbo-256k", S(stride_byte_offset=0x40000), "error",
      "stride_byte_offset"),
    C("encode.field", "zcm-shift64", Z(column_shift=64), "error", "column_shift"),
    C("encode.field", "tmem-lane", T(lane=0x10000), "error", "lane"),
]

#: Rules that can never fire because their layout has nothing for them to check.
VACUOUS = {"tmem.reserved"}


def _ids(cases: list[Case]) -> list[str]:
    return [f"{c.rule}:{c.name}:{c.expect}" for c in cases]


# ------------------------------------------------------------------ coverage of the table


def test_table_covers_exactly_the_rules():
    rules_in_table = {c.rule for c in CASES} - {"encode.field"}
    assert rules_in_table == set(RULES), (
        f"rules without a case: {sorted(set(RULES) - rules_in_table)}; "
        f"cases for unknown rules: {sorted(rules_in_table - set(RULES))}")
    legal = {c.rule for c in CASES if c.legal}
    illegal = {c.rule for c in CASES if not c.legal}
    assert legal >= set(RULES) | {"encode.field"}, sorted(set(RULES) - legal)
    assert illegal | VACUOUS >= set(RULES) | {"encode.field"}, sorted(set(RULES) - illegal - VACUOUS)
    assert not (VACUOUS & illegal)


def test_vacuous_rules_really_have_nothing_to_check():
    # tmem.reserved is registered for the Tensor Memory address, which (PTX 9.7.16.1.1: lane
    # 31-16, column 15-0) has no reserved or constant bits: no word can violate it.
    assert [f.name for f in TMEM.fields if f.role != "field"] == []
    for word in (0, 0xFFFFFFFF, 0xC07F01FF):
        assert not [f for f in validate("tmem", word) if f.rule == "tmem.reserved"]


def test_case_names_unique():
    ids = _ids(CASES)
    assert len(ids) == len(set(ids))


# ------------------------------------------------------------------ the cases


@pytest.mark.parametrize("case", CASES, ids=_ids(CASES))
def test_rule_case(case: Case):
    run, layout = case.run
    findings = run()
    assert isinstance(findings, list)
    for f in findings:
        assert isinstance(f, Finding)
        assert f.severity in SEVERITIES
        assert f.rule in RULES or f.rule == "encode.field"
        if f.field is not None and f.rule != "encode.field" and f.field in layout.by_name:
            assert f.bits == layout.by_name[f.field].bits, f
    mine = [f for f in findings if f.rule == case.rule]
    if case.expect == "ok":
        assert mine == [], "\n".join(map(str, mine))
    elif case.expect == "ok-notes":
        bad = [f for f in mine if f.severity != "note"]
        assert bad == [], "\n".join(map(str, bad))
    else:
        match = [f for f in mine if f.severity == case.expect and f.field == case.field]
        assert match, (f"expected {case.expect} [{case.rule}] on field {case.field}; got\n"
                       + "\n".join(map(str, findings)))
        for f in match:
            assert f.message and f.source
            if case.field is not None:
                assert f.bits == layout.by_name[case.field].bits, f
                assert f.value is not None
            else:
                assert f.bits is None
        if case.only:
            others = [f for f in mine if f.severity != case.expect]
            assert others == [], "\n".join(map(str, others))
        if case.rule == "encode.field" and case.only:
            assert len(findings) == 1
    if case.clean:
        errors = [f for f in findings if f.severity == "error"]
        assert errors == [], "\n".join(map(str, errors))
        assert is_valid(findings)
    elif case.expect == "error":
        assert not is_valid(findings)


def test_encode_field_n520_exact():
    findings = validate("idesc", kind="f16", a_type="bf16", b_type="bf16", d_type="f32", m=128,
                        n=520)
    assert len(findings) == 1
    (f,) = findings
    assert (f.severity, f.rule, f.field) == ("error", "encode.field", "n_dim")
    assert f.bits == descriptors.IDESC.by_name["n_dim"].bits == "[22:17]"
    assert f.value == 520
    assert not is_valid(findings)


def test_reserved_messages_name_cutlass_sparse_id2():
    word = idesc_word("mxf4nvf4", reserved_0=2)
    (f,) = [f for f in validate("idesc", word, kind="mxf4nvf4", cta_group=1, ws=False)
            if f.rule == "idesc.reserved"]
    assert "sparse_id2" in f.message


def test_every_reserved_and_constant_field_is_checked():
    """Each non-field bit range of every layout, violated on its own, gives exactly one
    *.reserved error naming it."""
    targets = [("smem", None, SMEM, encode("smem", **SW)), ("zcm", None, ZCM, 0),
               ("tmem", None, TMEM, 0)]
    targets += [("idesc", k, _lay(k), idesc_word(k)) for k in KINDS]
    checked = 0
    for desc, kind, layout, base in targets:
        for fld in layout.fields:
            if fld.role == "field":
                continue
            for raw in {1, fld.max} - {fld.default}:
                word = (base & ~fld.mask) | (raw << fld.lsb)
                res = [f for f in validate(desc, word, kind=kind) if f.rule == f"{desc}.reserved"]
                assert [(f.severity, f.field, f.bits) for f in res] == \
                    [("error", fld.name, fld.bits)], (desc, kind, fld.name, raw)
                checked += 1
    assert checked >= 20


def test_kstep_inside_128B_atom_is_a_note():
    """A K step inside a 128B swizzle atom (DeepGEMM: start 32 bytes, base offset 0) is legal and
    gets the rule's K-step note, as the same step inside a 64B atom does (0x220 below).

    smem.base_offset computes expected = (start >> 7) & 7, which is 0 whenever the start is less
    than 128 bytes past a 1024-byte boundary, so for 128B / 128B_base32B its ``base == 0 and
    off < 128`` note branch is unreachable: the 128B K step gets no finding at all while the
    64B K step gets the note."""
    for word, swz in ((encode("smem", start_address=0x220, swizzle="64B"), "64B"),
                      (encode("smem", start_address=32, **SW), "128B"),
                      (encode("smem", start_address=0x420, **SW), "128B"),
                      (encode("smem", start_address=32, swizzle="128B_base32B"), "128B_base32B")):
        res = [f for f in validate("smem", word) if f.rule == "smem.base_offset"]
        assert [(f.severity, f.field) for f in res] == [("note", "base_offset")], (swz, hex(word))


# ------------------------------------------------------------------ real-world fixtures

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "real-world.toml"
_CONFIGS = tomllib.loads(FIXTURES.read_text())["configs"]


@pytest.mark.parametrize("cfg", _CONFIGS, ids=[c["name"] for c in _CONFIGS])
def test_real_world_values_validate(cfg):
    params = {k: v for k, v in cfg.items() if k not in ("name", "descriptor", "expect", "source")}
    desc = cfg["descriptor"]
    expect = int(cfg["expect"], 16)
    # from the parameters
    findings = validate(desc, **params)
    errors = [f for f in findings if f.severity == "error"]
    assert errors == [], "\n".join(map(str, errors))
    # and from the published word
    ctx = {k: params[k] for k in ("cta_group", "ws") if k in params}
    kind = params.get("kind")
    findings = validate(desc, expect, kind=kind, **ctx) if kind else validate(desc, expect)
    errors = [f for f in findings if f.severity == "error"]
    assert errors == [], "\n".join(map(str, errors))
    assert not [f for f in findings if f.severity == "warning"], "\n".join(map(str, findings))


# ------------------------------------------------------------------ never raises (property)

_TARGETS = [("smem", None), ("zcm", None), ("tmem", None)] + [("idesc", k) for k in KINDS]


@settings(max_examples=400, deadline=None)
@given(target=st.sampled_from(_TARGETS), data=st.data(), arch=st.sampled_from(ARCHES))
def test_validate_never_raises_on_words(target, data, arch):
    desc, kind = target
    layout = descriptors.layout_for(desc, kind)
    word = data.draw(st.one_of(st.integers(0, layout.max_word),
                               st.sampled_from([0, layout.max_word])), label="word")
    ctx: dict[str, Any] = {}
    if desc == "idesc":
        ctx["cta_group"] = data.draw(st.sampled_from([None, 1, 2]), label="cta_group")
        ctx["ws"] = data.draw(st.sampled_from([None, False, True]), label="ws")
    elif desc == "zcm":
        m = data.draw(st.sampled_from([None, 0, 16, 32, 64, 96, 128, 256]), label="m")
        if m is not None:
            ctx["m"] = m
    elif desc == "tmem":
        alloc = data.draw(st.one_of(st.none(), st.integers(0, 2048)), label="alloc")
        if alloc is not None:
            ctx["alloc"] = alloc
    findings = validate(desc, word, kind=kind, arch=arch, **ctx)
    assert isinstance(findings, list)
    for f in findings:
        assert isinstance(f, Finding)
        assert f.severity in SEVERITIES
        assert f.rule in RULES
        assert f.message and f.source
        if f.field is not None:
            assert f.field in layout.by_name, f
            assert f.bits == layout.by_name[f.field].bits
    order = [SEVERITIES.index(f.severity) for f in findings]
    assert order == sorted(order)
    assert is_valid(findings) == (not any(f.severity == "error" for f in findings))


@settings(max_examples=200, deadline=None)
@given(kind=st.sampled_from(list(KINDS)), data=st.data())
def test_validate_never_raises_on_parameter_sets(kind, data):
    k = KINDS[kind]
    params: dict[str, Any] = {
        "kind": kind,
        "a_type": data.draw(st.sampled_from(k.ab_types.names)),
        "b_type": data.draw(st.sampled_from(k.ab_types.names)),
        "m": data.draw(st.sampled_from([0, 16, 32, 48, 64, 100, 128, 256, 384, 512, 1024])),
        "n": data.draw(st.integers(0, 600)),
        "a_major": data.draw(st.sampled_from(["K", "MN"])),
        "b_major": data.draw(st.sampled_from(["K", "MN"])),
        "sparse": data.draw(st.booleans()),
        "cta_group": data.draw(st.sampled_from([1, 2])),
        "ws": data.draw(st.booleans()),
    }
    if k.d_types is not None:
        params["d_type"] = data.draw(st.sampled_from(k.d_types.names))
    if k.scale_types is not None:
        params["scale_type"] = data.draw(st.sampled_from(k.scale_types.names))
        params["a_scale_id"] = data.draw(st.integers(0, 5))
    findings = validate("idesc", arch=data.draw(st.sampled_from(ARCHES)), **params)
    for f in findings:
        assert f.severity in SEVERITIES
        assert f.rule in RULES or f.rule == "encode.field"


@settings(max_examples=200, deadline=None)
@given(start=st.integers(-16, 0x40010), lbo=st.integers(0, 0x40010), sbo=st.integers(0, 0x40010),
       swizzle=st.sampled_from(["none", "128B_base32B", "128B", "64B", "32B"]),
       base=st.integers(0, 8), mode=st.sampled_from(["relative", "absolute"]),
       arch=st.sampled_from(ARCHES))
def test_validate_never_raises_on_smem_parameter_sets(start, lbo, sbo, swizzle, base, mode, arch):
    findings = validate("smem", start_address=start, leading_byte_offset=lbo,
                        stride_byte_offset=sbo, swizzle=swizzle, base_offset=base, lbo_mode=mode,
                        arch=arch)
    for f in findings:
        assert f.severity in SEVERITIES
        assert f.rule in RULES or f.rule == "encode.field"
    if start % 16 or not 0 <= start < 0x40000 or lbo % 16 or lbo >= 0x40000 or sbo % 16 \
            or sbo >= 0x40000 or base > 7:
        assert [f.rule for f in findings] == ["encode.field"]


# ------------------------------------------------------------------ malformed questions


def test_unknown_arch_raises():
    with pytest.raises(ParameterError):
        validate("tmem", 0, arch="sm_80")
    with pytest.raises(ParameterError):
        validate("idesc", kind="f16", **BASE["f16"], m=128, n=256, arch="sm_100")
    with pytest.raises(ParameterError):
        validate_pair(idesc_word("f16"), kind="f16", arch="sm_120a")


def test_unknown_parameter_raises():
    with pytest.raises(ParameterError):
        validate("idesc", kind="f16", **BASE["f16"], m=128, n=256, bogus=1)
    with pytest.raises(ParameterError):
        validate("smem", swizzle="128B", swizzel="128B")
    with pytest.raises(ParameterError):
        validate("smem", swizzle="128B", ws=True)  # ws is idesc context
    with pytest.raises(ParameterError):
        validate("tmem", lane=0, m=64)


def test_word_and_parameters_raises():
    with pytest.raises(ParameterError):
        validate("idesc", idesc_word("f16"), kind="f16", m=128)
    with pytest.raises(ParameterError):
        validate("smem", encode("smem", **SW), swizzle="128B")
    with pytest.raises(ParameterError):
        validate("zcm", 0, use_span=3)
    with pytest.raises(ParameterError):
        validate("tmem", 0, lane=1)


def test_context_of_another_descriptor_with_a_word_raises():
    """``cta_group``/``ws`` are idesc context.  Given with a parameter set for smem/zcm/tmem
    they are refused (unknown parameter); given with a *word* they must be refused too, not
    silently ignored (validate's docstring: unknown parameter -> ParameterError)."""
    with pytest.raises(ParameterError):
        validate("smem", swizzle="128B", cta_group=2)
    with pytest.raises(ParameterError):
        validate("smem", encode("smem", **SW), ws=True)
    with pytest.raises(ParameterError):
        validate("tmem", 5, cta_group=2)
    with pytest.raises(ParameterError):
        validate("zcm", 0, cta_group=7)


def test_idesc_word_without_kind_raises():
    with pytest.raises(KindRequiredError):
        validate("idesc", 0x08400490)
    with pytest.raises(KindRequiredError):
        validate("idesc", 0x08400490, cta_group=1, ws=False)


def test_bad_cta_group_raises():
    with pytest.raises(ParameterError):
        validate("idesc", 0x08400490, kind="f16", cta_group=3)


def test_is_valid():
    ok = validate("idesc", 0x08400490, kind="f16", cta_group=1, ws=False)
    assert ok == [] and is_valid(ok)
    notes = validate("smem", encode("smem", start_address=0x220, swizzle="64B"))
    assert notes and all(f.severity == "note" for f in notes) and is_valid(notes)
    warns = validate("smem", encode("smem", start_address=0x600, base_offset=1, **SW))
    assert any(f.severity == "warning" for f in warns) and is_valid(warns)
    bad = validate("idesc", 0x08400490, kind="f16", cta_group=2, ws=True)
    assert not is_valid(bad)
    assert is_valid([])


def test_absolute_lbo_needs_both_transpose_bits_zero():
    """PTX 9.7.16.3.1.2.1: "the transpose bits (bits #15 and #16) in Instruction descriptor must
    be 0" -- both, even when only A's descriptor uses absolute mode."""
    idesc = encode("idesc", kind="f16", a_type="bf16", b_type="bf16", m=128, n=128, b_major="MN")
    a_abs = encode("smem", swizzle="128B", sbo=1024, lbo=0x800, lbo_mode="absolute")
    found = [f for f in validate_pair(idesc, kind="f16", a_desc=a_abs, arch="sm_103a")
             if f.rule == "pair.lbo_absolute"]
    assert [(f.severity, f.field) for f in found] == [("error", "lbo_mode")]
    assert "transpose_b" in found[0].message
    k_major = encode("idesc", kind="f16", a_type="bf16", b_type="bf16", m=128, n=128)
    assert not [f for f in validate_pair(k_major, kind="f16", a_desc=a_abs, arch="sm_103a")
                if f.severity == "error"]

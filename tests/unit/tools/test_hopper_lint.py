"""descgen lint on sm_90a PTX and SASS (issue: Hopper wgmma end to end): the compiled kernels of
fixtures/hopper/compiled (CuTe GMMA layout atoms x types x majors, CUTLASS CollectiveBuilder
GEMMs, hand-written inline-PTX wgmma; see its README), the production listings of
fixtures/hopper/production, Triton 3.9.0 matmuls (fixtures/hopper/triton) and the CuTe DSL 4.8.1
Hopper examples (fixtures/hopper/cute-dsl), and planted errors made at test time.

Every ``wgmma.mma_async`` is judged by the instruction model (descriptors.isa.instructions,
which agrees with ptxas on 3,232 forms) and its A/B matrix descriptors as sm_90a wgmma words
(PTX ISA 9.7.15.5.1), their constant fields checked and the run-time ones named.
"""

from __future__ import annotations

import gzip
import re
from collections import Counter
from pathlib import Path

import pytest

from descriptors.tools.lint import lint_lines

HOPPER = Path(__file__).resolve().parents[3] / "fixtures" / "hopper" / "compiled"


def _text(name: str) -> list[str]:
    with gzip.open(HOPPER / name, "rt") as f:
        return f.read().splitlines()


def _lint(lines: list[str]) -> list:
    return list(lint_lines(lines, file="x.ptx"))


@pytest.mark.parametrize("name", ["cute_wgmma.ptx.gz", "cutlass_gemms.ptx.gz", "hand_wgmma.ptx.gz"])
def test_compiled_hopper_kernels_have_no_errors(name: str) -> None:
    found = _lint(_text(name))
    assert [f for f in found if f.severity == "error"] == []
    judged = {f.line for f in found if f.rule == "instruction.legal"
              or f.rule == "wgmma.mma_async.operand"}
    lines = {i for i, line in enumerate(_text(name), 1) if "wgmma.mma_async" in line}
    assert lines and lines <= judged
    warnings = {f.rule for f in found if f.severity == "warning"}
    # the hand-written kernels pass scale-d as an immediate, which ptxas takes and the syntax
    # does not write (PTXAS_VS_TEXT): the model warns; the compilers' kernels give none
    assert warnings == ({"wgmma.mma_async.operand"} if name.startswith("hand") else set())
    checked = [f for f in found if f.operand in ("a_desc", "b_desc")]
    assert checked, "no descriptor operand reached a wgmma"
    arch = next(f for f in found if f.rule == "lint.arch")
    assert "sm_90a" in arch.message


def test_planted_bit46_is_flagged_at_every_wgmma() -> None:
    """CuTe's descriptor constant (0x4000004000000000: 128B, SBO 1024) with tcgen05's bit 46
    set: a wgmma.reserved warning (an H100 ignores the bit, measured) on each descriptor it
    reaches."""
    text = _text("cute_wgmma.ptx.gz")
    const = str(0x4000004000000000)
    assert sum(const in line for line in text) >= 2
    planted = [line.replace(const, str(0x4000004000000000 | 1 << 46)) for line in text]
    hits = [f for f in _lint(planted) if f.rule == "wgmma.reserved"]
    assert hits and all(f.severity == "warning" and "46" in f.message for f in hits)
    assert not [f for f in _lint(text) if f.rule == "wgmma.reserved"]


def test_planted_transpose_of_an_8bit_operand_is_an_error() -> None:
    """imm-trans on e4m3 (9.7.15.5.2: transpose only for .f16/.bf16): the model refuses it."""
    text = _text("cute_wgmma.ptx.gz")
    e4m3 = re.compile(r"(wgmma\.mma_async\.sync\.aligned\.m64n64k32\.f32\.e4m3\.e4m3 .*, p,\s*1, 1);")
    assert sum(bool(e4m3.search(line)) for line in text) == 6
    planted = [e4m3.sub(r"\1, 1, 0;", line) for line in text]
    errors = [f for f in _lint(planted) if f.severity == "error"]
    assert len({f.line for f in errors}) == 6


SASS = sorted(p.name for p in HOPPER.glob("*.sass.gz")) + \
    sorted(f"../production/{p.name}" for p in (HOPPER.parent / "production").glob("*.sass.gz"))


@pytest.mark.parametrize("name", SASS)
def test_hopper_sass_has_no_error_or_warning(name: str) -> None:
    """cuobjdump listings of the compiled kernels and of public wheels (FlashAttention-3,
    cuSPARSELt): every HGMMA/IGMMA/QGMMA/BGMMA's descriptors read through the data flow
    (A URn:URn+1, B URn+2:URn+3) and judged as wgmma words; NVIDIA's working kernels give
    neither an error nor a warning."""
    found = _lint(_text(name))
    assert [f for f in found if f.severity in ("error", "warning")] == []
    assert [f for f in found if f.operand in ("a_desc", "b_desc")], "no descriptor was read"


def test_hopper_sass_planted_bit46_is_flagged() -> None:
    """The constant high word nvcc writes (UMOV URn, 0x40000040: 128B, SBO 1024 B) with bit 46
    (bit 14 of the high word) set: a wgmma.reserved warning at the HGMMAs it reaches."""
    text = _text("hand_wgmma.sass.gz")
    planted = [line.replace(", 0x40000040 ", ", 0x40004040 ") for line in text]
    assert planted != text
    hits = [f for f in _lint(planted) if f.rule == "wgmma.reserved"]
    assert len({f.line for f in hits}) >= 4 and all(f.severity == "warning" for f in hits)
    assert all("reserved_46" in f.message for f in hits)


# ------------------------------------------- Triton 3.9.0 and CuTe DSL 4.8.1 Hopper kernels

TRITON = HOPPER.parent / "triton"
DSL = HOPPER.parent / "cute-dsl" / "ptx"
NEW_PTX = [f"../triton/{p.name}" for p in sorted(TRITON.glob("*.ptx.gz"))] + \
    [f"../cute-dsl/ptx/{p.name}" for p in sorted(DSL.glob("*.ptx.gz"))]
TRITON_SASS = [f"../triton/{p.name}" for p in sorted(TRITON.glob("*.sass.gz"))]
#: the constant high words: Triton's 0x4000004000000000 (128B swizzle, SBO 1024 B, LBO 0) and
#: the DSL's 0x4000004000010000 (LBO 1), or'd with the run-time start address in 64 bits
TRITON_HIGH, DSL_HIGH = 0x4000004000000000, 0x4000004000010000
BIT46 = 1 << 46


def _plant(lines: list[str], old: int, new: int) -> list[str]:
    pattern = re.compile(rf"(?<![\w.]){old}(?![\w.])")
    planted = [pattern.sub(str(new), line) for line in lines]
    assert planted != lines
    return planted


def _warnings_and_errors(lines: list[str]) -> list:
    return [f for f in _lint(lines) if f.severity in ("error", "warning")]


def test_the_new_fixtures_are_there() -> None:
    assert len(NEW_PTX) == 16 and len(TRITON_SASS) == 7


@pytest.mark.parametrize("name", NEW_PTX)
def test_triton_and_cute_dsl_ptx_have_no_error_or_warning(name: str) -> None:
    """Triton's tutorial matmul and a TMA variant (fixtures/hopper/triton, line information
    on: a ``.loc`` before every wgmma, inside its inline-asm block) and the CuTe DSL Hopper
    examples dense_gemm.py and fmha.py (fixtures/hopper/cute-dsl): every wgmma.mma_async is
    judged, every descriptor operand read (both for SS, B for RS: FMHA's P x V), nothing
    flagged."""
    text = _text(name)
    found = _lint(text)
    assert [f for f in found if f.severity in ("error", "warning")] == []
    wgmma = {i for i, line in enumerate(text, 1) if "wgmma.mma_async" in line}
    assert wgmma and wgmma == {f.line for f in found if f.rule == "instruction.legal"
                               and "wgmma" in f.message}
    read = {(f.line, f.operand) for f in found if f.operand in ("a_desc", "b_desc")}
    assert {line for line, op in read if op == "b_desc"} == wgmma
    rs = {i for i in wgmma if re.search(r"\}, \{%r", text[i - 1])}  # A from registers
    assert {line for line, op in read if op == "a_desc"} == wgmma - rs
    assert "sm_90a" in next(f for f in found if f.rule == "lint.arch").message


@pytest.mark.parametrize("name", TRITON_SASS)
def test_triton_sass_has_no_error_or_warning(name: str) -> None:
    """cuobjdump 13.5 listings of the Triton cubins (ptxas 13.4 bundled with Triton): every
    HGMMA/QGMMA's two descriptors read and judged, nothing flagged."""
    text = _text(name)
    found = _lint(text)
    assert [f for f in found if f.severity in ("error", "warning")] == []
    gmma = {i for i, line in enumerate(text, 1) if re.search(r"\b[HQ]GMMA\.", line)}
    assert gmma == {f.line for f in found if f.operand == "a_desc"} \
        == {f.line for f in found if f.operand == "b_desc"}


@pytest.mark.parametrize("name, old, wgmma", [
    ("../triton/matmul_f16_128x128x64_w4_s3.ptx.gz", TRITON_HIGH, 8),
    ("../triton/matmul_tma_e4m3_128x128x128_w4_s4.ptx.gz", TRITON_HIGH, 8),
    ("../cute-dsl/ptx/dense_f16_kk_128x256.ptx.gz", DSL_HIGH, 8),
])
def test_planted_bit46_in_triton_and_dsl_ptx(name: str, old: int, wgmma: int) -> None:
    """Bit 46 (tcgen05's fixed constant, a Blackwell habit) set in the 64-bit constant each
    compiler ors the start address into (Triton: ``cvt.u64.u32`` then ``or.b64``; the DSL:
    ``or.b64``, then ``mov.b64 {lo, hi}`` splits and a 32-bit ``add``/``or`` of the K step):
    one wgmma.reserved warning per descriptor at every wgmma, and nothing else."""
    found = _warnings_and_errors(_plant(_text(name), old, old | BIT46))
    assert {(f.severity, f.rule) for f in found} == {("warning", "wgmma.reserved")}
    assert all("reserved_46[48:46]" in f.message for f in found)
    assert len({f.line for f in found}) == wgmma
    assert sorted(f.operand for f in found) == ["a_desc"] * wgmma + ["b_desc"] * wgmma


def test_planted_bit46_in_the_dsl_fmha_and_its_32_bit_high_word() -> None:
    """The DSL's FMHA builds A and B with the 64-bit constant, and V (MN-major, the P x V B
    operand) with 0x4000004004000000; dense_gemm.py's M-major A takes its high word alone
    (``mov.b32 %r142, 1073741888``: 0x40000040) into ``mov.b64 %rd, {lo, hi}``."""
    fmha = _plant(_plant(_text("../cute-dsl/ptx/fmha_f16_d128_64x128.ptx.gz"), DSL_HIGH,
                         DSL_HIGH | BIT46), 0x4000004004000000, 0x4000004004000000 | BIT46)
    found = _warnings_and_errors(fmha)
    assert {f.rule for f in found} == {"wgmma.reserved"}
    # 32 wgmma: 16 Q x K^T (A and B from shared memory), 16 P x V (A from registers)
    assert Counter(f.operand for f in found) == {"a_desc": 16, "b_desc": 32}
    gemm = _plant(_plant(_text("../cute-dsl/ptx/dense_f16_f16acc_mk_64x256.ptx.gz"), DSL_HIGH,
                         DSL_HIGH | BIT46), 0x40000040, 0x40000040 | BIT46 >> 32)
    found = _warnings_and_errors(gemm)
    assert {f.rule for f in found} == {"wgmma.reserved"}
    assert Counter(f.operand for f in found) == {"a_desc": 8, "b_desc": 8}


_E4M3_SS = re.compile(r"(wgmma\.mma_async\.sync\.aligned\.m64n\d+k32\.f32\.e4m3\.e4m3 .*"
                      r"\}, %rd\d+, %rd\d+, %?p\d*, 1,\s*1);")


@pytest.mark.parametrize("name, count", [
    ("../triton/matmul_e4m3_bk_128x128x128_w8_s3.ptx.gz", 4),
    ("../cute-dsl/ptx/fmha_e4m3_d128_64x128.ptx.gz", 8),
    ("../cute-dsl/ptx/dense_e4m3_64x128.ptx.gz", 8),
])
def test_planted_transpose_of_e4m3_in_triton_and_dsl_ptx(name: str, count: int) -> None:
    """imm-trans-a = 1 (``.tnspA``) and imm-trans-b = 0 appended to an e4m3 wgmma with both
    operands in shared memory (9.7.15.5.2: imm-trans only for .f16/.bf16; ptxas: "Arguments
    mismatch"): an error at each, nowhere else."""
    text = _text(name)
    assert sum(bool(_E4M3_SS.search(line)) for line in text) == count
    found = _warnings_and_errors([_E4M3_SS.sub(r"\1, 1, 0;", line) for line in text])
    assert [(f.severity, f.rule) for f in found] == [("error", "wgmma.mma_async.operands")] * count
    assert all("imm-scale-b (PTX 9.7.15.5.2 syntax)" in f.message for f in found)


@pytest.mark.parametrize("name, gmma", [
    ("../triton/matmul_f16_128x128x64_w4_s3.sass.gz", 8),
    ("../triton/matmul_e4m3_bn_128x128x128_w8_s3.sass.gz", 4),
    ("../triton/matmul_tma_e4m3_128x128x128_w4_s4.sass.gz", 8),
])
def test_planted_bit46_in_triton_sass(name: str, gmma: int) -> None:
    """ptxas loads Triton's constant high word as ``UMOV URn, 0x40000040`` before each
    HGMMA/QGMMA; with bit 46 set (``0x40004040``) each descriptor it reaches is flagged."""
    text = _text(name)
    planted = [line.replace(", 0x40000040 ", ", 0x40004040 ") for line in text]
    assert planted != text
    found = _warnings_and_errors(planted)
    assert {(f.severity, f.rule) for f in found} == {("warning", "wgmma.reserved")}
    assert all("reserved_46" in f.message for f in found)
    assert Counter(f.operand for f in found) == {"a_desc": gmma, "b_desc": gmma}


def test_a_wgmma_finding_names_its_own_operand() -> None:
    """A finding about scale-d points at scale-d (column and value), also when A comes from a
    descriptor (the model's operand list then has a-desc and imm-trans-a): it used to point at
    the B descriptor's register, one operand early."""
    lines = _text("hand_wgmma.ptx.gz")
    found = [f for f in lint_lines(lines, file="x.ptx") if f.line == 151 and f.severity == "warning"]
    assert [(f.rule, f.operand, f.evidence) for f in found] == [
        ("wgmma.mma_async.operand", "scale-d", ("scale-d = 0x1",))]
    assert lines[150][found[0].col - 1:].startswith("1, -1, -1, 1, 1;")


# ------------------------------------------- sgl-kernel FlashMLA: the high word plus a carry

SGL = "../production/sgl_flashmla_sparse.sass.gz"


def test_sgl_flashmla_high_words_through_a_carry_are_checked() -> None:
    """sgl-kernel 0.3.21's FlashMLA sparse attention for sm_90a (fixtures/hopper/production/
    sgl_flashmla.py) steps a descriptor's low word with a 32-bit add and writes its high word
    as the constant plus the carry (``UMOV UR6, 0x40000040`` ... ``UIADD3.X UR21, UR6, URZ,
    URZ, UP0, !UPT``), or an immediate plus the carry, or through ``R2UR``/``IMAD.X`` in R
    registers: under the K-step rule the carry is 0, so every high word is known."""
    from descriptors.readers import Instruction
    from descriptors.readers.sass import read_sass
    text = _text(SGL)
    highs = []
    for ins in read_sass(text):
        if isinstance(ins, Instruction) and "GMMA" in ins.opcode:
            for op in ins.operands:
                if op.text.startswith("gdesc") and op.value is not None:
                    words = [a.bits for a in op.judged] or [op.value]
                    highs.append(all(w.slice(32, 32).is_const for w in words))
    assert len(highs) == 240 and all(highs)
    assert [f for f in _lint(text) if f.severity in ("error", "warning")] == []


def test_sgl_flashmla_planted_bit46_is_flagged_at_every_hgmma() -> None:
    text = _text(SGL)
    planted = [line.replace(", 0x40000040 ", ", 0x40004040 ") for line in text]
    assert sum(a != b for a, b in zip(text, planted)) == 144
    hits = [f for f in _lint(planted) if f.rule == "wgmma.reserved"]
    hgmma = [i for i, line in enumerate(text, 1) if "HGMMA" in line]
    assert len(hgmma) == 124
    assert sorted({f.line for f in hits}) == hgmma
    assert len(hits) == 240 and {f.severity for f in hits} == {"warning"}

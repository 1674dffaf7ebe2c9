"""The PTX reader on what compilers write (CuTe DSL, nvcc): 64-bit immediates kept whole and
sink operands (``mov.b64 {_, %r91}, %rd2``)."""

from __future__ import annotations

import pytest

from descriptors.lint import lint_lines
from descriptors.readers import Instruction
from descriptors.readers.literals import parse_immediate
from descriptors.readers.ptx import mma_operands, read_ptx

HEAD = [".version 8.7", ".target sm_100a", ".address_size 64",
        ".visible .entry k(.param .u64 p0)", "{",
        ".reg .pred %p<8>;", ".reg .b16 %rs<8>;", ".reg .b32 %r<100>;", ".reg .b64 %rd<40>;",
        ".reg .b64 %desc<4>;",
        "ld.param.u64 %rd30, [p0];",
        "ld.shared.u32 %r1, [%rd30];",            # the TMEM address: a run-time value
        "setp.ne.s32 %p1, %r1, 0;", "setp.eq.s32 %p2, %r1, 0;"]
TAIL = ["ret;", "}"]

#: A 128B-swizzle K-major shared memory descriptor (SBO 1024 B, LBO 16 B, version bit 46 set)
#: and the same word with the start address 0x40 (16-byte units: 0x400 bytes).
SMEM = 0x4000404000010000
SMEM_HEX = "0x4000404000010040"
#: kind::f16 instruction descriptors (f16 x f16 -> f32, M=128): N=128, N=128 with A negated,
#: and N=264 (not a shape of Table 39) without and with A negated.
N128, N128_NEG, N264, N264_NEG = 0x08200010, 0x08202010, 0x08420010, 0x08422010
MMA = "tcgen05.mma.cta_group::1.kind::f16 [%r1], {a}, {b}, {i}, %p2;"


def _module(*body: str) -> list[str]:
    return HEAD + list(body) + TAIL


def _instructions(lines: list[str]) -> list[Instruction]:
    return [it for it in read_ptx(lines) if isinstance(it, Instruction)]


def _operand(lines: list[str], text: str, index: int = -1):
    """Operand ``text`` of the ``index``-th yielded instruction."""
    ins = _instructions(lines)[index]
    return next(o for o in ins.operands if o.text == text)


def _lint(lines: list[str]):
    return [f for f in lint_lines(lines, file="k.ptx") if f.severity in ("error", "warning")]


def _line_of(lines: list[str], text: str) -> int:
    return lines.index(text) + 1


# ------------------------------------------------------------------ immediates


def test_64_bit_hex_immediate_is_kept_whole():
    lines = _module(f"mov.b64 %rd5, {SMEM_HEX};", f"mov.b64 %desc1, {SMEM_HEX};",
                    "mov.b32 %r7, 136314896;",
                    MMA.format(a="%rd5", b="%desc1", i="%r7"),
                    MMA.format(a="%desc1", b=SMEM_HEX, i="%r7"))
    first, second = _instructions(lines)
    for ins in (first, second):
        ops = mma_operands(ins)
        assert ops["a_desc"].value.width == ops["b_desc"].value.width == 64
        assert ops["a_desc"].value.is_const and ops["b_desc"].value.is_const
        assert ops["a_desc"].value.value == ops["b_desc"].value.value == 0x4000404000010040
    assert mma_operands(first)["a_desc"].origin == (_line_of(lines, f"mov.b64 %rd5, {SMEM_HEX};"),
                                                    f"mov.b64 %rd5, {SMEM_HEX}")
    # a register not named %rd.. (declared .b64) and an immediate operand: not cut to 32 bits
    assert _lint(lines) == []
    assert not [f for f in lint_lines(lines) if f.rule == "smem.reserved"]


@pytest.mark.parametrize("statement, width, value", [
    ("mov.b64 %rd5, 0x4000404000010040;", 64, 0x4000404000010040),
    ("mov.b64 %rd5, 0x4000404000010040U;", 64, 0x4000404000010040),
    ("mov.u64 %rd5, 0XFFFFFFFFFFFFFFFF;", 64, 0xFFFFFFFFFFFFFFFF),
    ("mov.b64 %rd5, 4611756662049538048;", 64, 0x4000404000010000),
    ("mov.b64 %rd5, -1;", 64, 0xFFFFFFFFFFFFFFFF),
    ("mov.b64 %rd5, -16;", 64, 0xFFFFFFFFFFFFFFF0),
    ("mov.b32 %r5, -1;", 32, 0xFFFFFFFF),
    ("mov.b32 %r5, 0x08200010U;", 32, N128),
    ("mov.b32 %r5, 136314896;", 32, N128),
])
def test_immediates(statement, width, value):
    reg = statement.split()[1].rstrip(",")
    lines = _module(statement, f"tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64 [{reg}];")
    op = _operand(lines, f"[{reg}]")
    assert op.value.width == width and op.value.is_const and op.value.value == value


def test_decimal_64_bit_immediate_keeps_the_upper_fields():
    lines = _module("and.b64 %rd10, %rd30, 16383;",
                    "or.b64 %rd2, %rd10, 4611756662049538048;",
                    "mov.b32 %r7, 136314896;", MMA.format(a="%rd2", b="%rd2", i="%r7"))
    kb = mma_operands(_instructions(lines)[0])["a_desc"].value
    assert kb.pattern() == "0x400040400001?xxx"  # 16383: the low 14 bits at run time
    assert kb.one == 0x4000404000010000
    assert _lint(lines) == []


def test_hex_with_ull_is_no_ptx_immediate():
    assert parse_immediate("0x4000404000010040U") == 0x4000404000010040
    assert parse_immediate("0x4000404000010040ULL") is None  # PTX: an optional U only
    assert parse_immediate("-1") == -1
    assert parse_immediate("-4611756662049538048") == -4611756662049538048


# ------------------------------------------------------------------ sinks


def test_sink_takes_the_high_or_low_half():
    lines = _module(f"mov.b64 %rd2, {SMEM_HEX};",
                    "mov.b64 {_, %r91}, %rd2;", "mov.b64 {%r90, _}, %rd2;",
                    "mov.b64 {%r92, %r93}, %rd2;",
                    "tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64 [%r91];",
                    "tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64 [%r90];",
                    "tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64 [%r92];",
                    "tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64 [%r93];")
    hi, lo, lo2, hi2 = (_operand(lines, t, i) for i, t in
                        enumerate(("[%r91]", "[%r90]", "[%r92]", "[%r93]")))
    assert hi.value.value == hi2.value.value == 0x40004040
    assert lo.value.value == lo2.value.value == 0x00010040
    assert hi.value.is_const and lo.value.is_const
    assert hi.origin[1] == "mov.b64 {_, %r91}, %rd2"


def test_sinks_in_four_element_vectors():
    lines = _module("mov.b64 %rd2, 0x1111222233334444;",
                    "mov.b64 {%rs1, _, %rs3, _}, %rd2;", "mov.b64 {_, _, _, %rs4}, %rd2;",
                    "mov.b64 {_, %rs2, _, _}, %rd2;",
                    "mov.b64 %rd3, {%rs1, %rs2, %rs3, %rs4};",
                    "mov.b64 %rd4, {%rs4, _, %rs1, %rs1};",
                    "tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64 [%rd3];",
                    "tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64 [%rd4];")
    three, four = _operand(lines, "[%rd3]", 0), _operand(lines, "[%rd4]", 1)
    assert three.value.is_const and three.value.value == 0x1111222233334444
    # a sink as a source of a pack is nothing known: those 16 bits are unknown
    assert four.value.pattern() == "0x44444444xxxx1111"


def test_a_sink_is_no_register_written():
    from descriptors.readers.ptx import _parse
    st = _parse("mov.b64 {_, %r91}, %rd2", 1)
    assert st.defs == ("%r91",)
    st = _parse("mov.b64 {%r90, _}, %rd2", 1)
    assert st.defs == ("%r90",)

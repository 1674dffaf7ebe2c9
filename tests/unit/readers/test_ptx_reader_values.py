"""The PTX reader on what compilers write (CuTe DSL, nvcc): 64-bit immediates kept whole, sink
operands (``mov.b64 {_, %r91}, %rd2``), value sets through ``selp`` and the operations after
it, and ``descgen lint`` judging each alternative of an operand (``on some paths:``)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from descriptors.tools.lint import lint_lines
from descriptors.readers import Instruction
from descriptors.words.literals import parse_immediate
from descriptors.readers.ptx import mma_operands, read_ptx
from descriptors.readers.values import MAX_ALTERNATIVES

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


def _some(lines: list[str]):
    """The findings of only some alternatives: notes (a select on a run-time value may never
    take the arm that breaks the rule)."""
    found = [f for f in lint_lines(lines, file="k.ptx") if f.message.startswith("on some paths: ")]
    assert all(f.severity == "note" for f in found)
    return found


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


# ------------------------------------------------------------------ value sets


def test_selp_of_two_constants_gives_two_alternatives():
    selp = f"selp.b32 %r5, {N128}, {N128_NEG}, %p1;"
    lines = _module("mov.b64 %rd5, 0x4000404000010040;", selp,
                    MMA.format(a="%rd5", b="%rd5", i="%r5"))
    op = _operand(lines, "%r5")
    assert [a.bits.value for a in op.alternatives] == [N128, N128_NEG]
    assert all(a.bits.is_const and a.bits.width == 32 for a in op.alternatives)
    assert all(a.origin == (_line_of(lines, selp), selp.rstrip(";")) for a in op.alternatives)
    # value: what both agree on
    assert op.value == op.alternatives[0].bits.meet(op.alternatives[1].bits)
    assert op.value.pattern() == "0x0820?010"
    assert _lint(lines) == []


def test_selp_of_one_value_gives_no_alternatives():
    lines = _module(f"selp.b32 %r5, {N128}, {N128}, %p1;", "mov.b64 %rd5, 0x4000404000010040;",
                    MMA.format(a="%rd5", b="%rd5", i="%r5"))
    op = _operand(lines, "%r5")
    assert op.alternatives == ()
    assert op.value.is_const and op.value.value == N128


def test_selp_then_or_gives_the_ored_words():
    orr = f"or.b32 %r7, %r5, {N128};"
    lines = _module("selp.b32 %r5, 0, 8192, %p1;", orr, "mov.b32 %r8, %r7;",
                    "mov.b64 %rd5, 0x4000404000010040;",
                    MMA.format(a="%rd5", b="%rd5", i="%r7"),
                    MMA.format(a="%rd5", b="%rd5", i="%r8"))
    op = _operand(lines, "%r7", 0)
    assert [a.bits.value for a in op.alternatives] == [N128, N128_NEG]
    assert all(a.bits.is_const for a in op.alternatives)
    assert all(a.origin == (_line_of(lines, orr), orr.rstrip(";")) for a in op.alternatives)
    # a plain copy keeps the origin of each alternative; the operand's origin is the copy
    copied = _operand(lines, "%r8", 1)
    assert [a.bits.value for a in copied.alternatives] == [N128, N128_NEG]
    assert [a.origin for a in copied.alternatives] == [a.origin for a in op.alternatives]
    assert copied.origin[1] == "mov.b32 %r8, %r7"


def test_value_sets_through_the_operations():
    lines = _module("selp.b32 %r5, 1, 2, %p1;",
                    "shl.b32 %r6, %r5, 4;", "shr.u32 %r7, %r6, 1;", "add.s32 %r8, %r7, 100;",
                    "sub.s32 %r9, %r8, 4;", "mul.lo.s32 %r10, %r9, 3;", "xor.b32 %r11, %r10, 1;",
                    "and.b32 %r12, %r11, 255;", "not.b32 %r13, %r12;",
                    "cvt.u64.u32 %rd5, %r12;", "mov.b64 %rd6, {%r12, %r5};",
                    "mov.b64 {%r14, %r15}, %rd6;",
                    *[f"tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64 [{r}];" for r in
                      ("%r6", "%r7", "%r8", "%r9", "%r10", "%r11", "%r12", "%r13", "%rd5", "%rd6",
                       "%r14", "%r15")])
    got = [[a.bits.value for a in ins.operands[0].alternatives] for ins in _instructions(lines)]
    expect = []
    for x in (1, 2):
        v6 = x << 4
        v7 = v6 >> 1
        v8 = v7 + 100
        v9 = v8 - 4
        v10 = v9 * 3
        v11 = v10 ^ 1
        v12 = v11 & 255
        expect.append([v6, v7, v8, v9, v10, v11, v12, ~v12 & 0xFFFFFFFF, v12])
    assert got[:9] == [list(col) for col in zip(*expect)]
    # the pack reads two value sets: every combination (a value set does not know that both
    # come from one select), and the split gives each half's values back
    low, high = [e[6] for e in expect], [1, 2]
    assert got[9] == [lo | hi << 32 for lo in low for hi in high]
    assert got[10:] == [low, high]
    assert all(ins.operands[0].value.width == (64 if "%rd" in ins.text else 32)
               for ins in _instructions(lines))


def test_too_many_combinations_are_merged():
    lines = _module(*[f"selp.b32 %r{10 + i}, {1 << i}, 0, %p1;" for i in range(4)],
                    "or.b32 %r20, %r10, %r11;", "or.b32 %r21, %r20, %r12;",
                    "or.b32 %r22, %r21, %r13;", "or.b32 %r23, %r22, 4096;",
                    "tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64 [%r21];",
                    "tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64 [%r23];")
    eight, merged = _operand(lines, "[%r21]", 0), _operand(lines, "[%r23]", 1)
    assert len(eight.alternatives) == 8 == MAX_ALTERNATIVES
    assert sorted(a.bits.value for a in eight.alternatives) == list(range(8))
    assert merged.alternatives == ()  # 16 combinations: what they agree on
    assert merged.value.pattern() == "0x0000100x"


def test_predicated_and_repeated_writes_have_each_value():
    """A register written by a predicated statement, or more than once, holds what each write
    that reaches the use gives it (the data flow over the function's paths), each with its
    line: a predicated write no earlier write precedes is the one value (a path that skips it
    brings no value)."""
    lines = _module(f"@%p1 mov.b32 %r5, {N128};",
                    f"mov.b32 %r6, {N128};", f"selp.b32 %r6, {N128}, {N128_NEG}, %p1;",
                    f"@%p1 selp.b32 %r7, {N128}, {N128_NEG}, %p2;",
                    "mov.b64 %rd5, 0x4000404000010040;",
                    MMA.format(a="%rd5", b="%rd5", i="%r5"),
                    MMA.format(a="%rd5", b="%rd5", i="%r6"),
                    MMA.format(a="%rd5", b="%rd5", i="%r7"))
    r5 = _operand(lines, "%r5", 0)
    assert r5.value.value == N128 and r5.alternatives == ()
    assert r5.origin == (_line_of(lines, f"@%p1 mov.b32 %r5, {N128};"), f"mov.b32 %r5, {N128}")
    for i, reg in ((1, "%r6"), (2, "%r7")):
        op = _operand(lines, reg, i)
        assert [a.bits.value for a in op.alternatives] == [N128, N128_NEG]
        assert op.value.pattern() == "0x0820?010"


def _mma_of(lines: list[str], reg: str):
    return _operand(lines, reg, 0)


def test_if_else_writes_reach_the_mma_as_two_alternatives():
    """``%r5`` written on both arms of an if/else (``@%p1 bra``, ``bra.uni`` over the other
    arm): the MMA reads either word, each from its own line, and lint judges both."""
    lines = _module(f"mov.b64 %rd2, {SMEM};",
                    "@%p1 bra $L__BB0_2;",
                    f"mov.b32 %r5, {N128};",
                    "bra.uni $L__BB0_3;",
                    f"$L__BB0_2: mov.b32 %r5, {N264};",
                    "$L__BB0_3:",
                    MMA.format(a="%rd2", b="%rd2", i="%r5"))
    op = _mma_of(lines, "%r5")
    assert [(a.bits.value, a.origin) for a in op.alternatives] == [
        (N128, (_line_of(lines, f"mov.b32 %r5, {N128};"), f"mov.b32 %r5, {N128}")),
        (N264, (_line_of(lines, f"$L__BB0_2: mov.b32 %r5, {N264};"), f"mov.b32 %r5, {N264}"))]
    assert op.value.pattern() == "0x08??0010"
    assert _lint(lines) == []  # one arm is legal: the other may never run
    found = _some(lines)
    assert [(f.rule, f.word) for f in found] == [("idesc.shape", f"{N264:#010x}")]
    assert found[0].evidence[0] == f"idesc = {N264:#010x} from line " \
        f"{_line_of(lines, f'$L__BB0_2: mov.b32 %r5, {N264};')}: mov.b32 %r5, {N264}"
    assert not any(f"{N128:#010x}" in e for e in found[0].evidence)


def test_if_else_both_illegal_is_an_error():
    lines = _module(f"mov.b64 %rd2, {SMEM};", "@!%p1 bra $L_else;",
                    f"mov.b32 %r5, {N264};", "bra.uni $L_end;",
                    "$L_else:", f"mov.b32 %r5, {N264_NEG};", "$L_end:",
                    MMA.format(a="%rd2", b="%rd2", i="%r5"))
    found = _lint(lines)
    assert [(f.severity, f.rule, f.word) for f in found] == [("error", "idesc.shape",
                                                             "0x0842?010")]


def test_a_write_in_a_loop_reaches_the_loop_head():
    """The MMA at the head of a loop reads the word written before the loop (first trip) or
    the one the loop body writes (later trips); the descriptor the loop steps by a K step
    keeps the bits above the start address (the K-step rule)."""
    lines = _module(f"mov.b64 %rd2, {SMEM};", f"mov.b32 %r5, {N128};",
                    "$L_loop:",
                    MMA.format(a="%rd2", b="%rd2", i="%r5"),
                    "add.s64 %rd2, %rd2, 2;",
                    f"mov.b32 %r5, {N128_NEG};",
                    "@%p1 bra $L_loop;",
                    MMA.format(a="%rd2", b="%rd2", i="%r5"))
    op = _mma_of(lines, "%r5")
    assert [a.bits.value for a in op.alternatives] == [N128, N128_NEG]
    after = _operand(lines, "%r5", 1)  # after the loop: the body's word only
    assert after.value.value == N128_NEG and after.alternatives == ()
    a = mma_operands(_instructions(lines)[0])["a_desc"]
    assert a.value.pattern() == "0x400040400001xxxx" and a.assumes is not None
    assert _lint(lines) == []


def test_a_descriptor_of_two_paths_stepped_in_a_loop():
    """A descriptor written on two paths and stepped in a loop: each path's word on the
    first trip, and its bits above the start address on the later ones (the K-step rule)."""
    other = SMEM | 1 << 32  # SBO 1040 B
    lines = _module("@%p1 bra $L_b;", f"mov.b64 %rd2, {SMEM};", "bra.uni $L_k;",
                    "$L_b:", f"mov.b64 %rd2, {other};",
                    "$L_k:", "mov.b32 %r5, 136314896;",
                    MMA.format(a="%rd2", b="%rd2", i="%r5"),
                    "add.s64 %rd2, %rd2, 2;", "@%p2 bra $L_k;")
    a = mma_operands(_instructions(lines)[0])["a_desc"]
    assert [x.bits.pattern() for x in a.alternatives] == [
        "0x4000404000010000", "0x4000404100010000", "0x400040400001xxxx", "0x400040410001xxxx"]
    assert [x.assumes is not None for x in a.alternatives] == [False, False, True, True]
    assert a.assumes is not None and "K-step" in a.assumes


def test_a_predicated_pair_of_moves_is_either_word():
    """``@%p1 mov`` then ``@!%p1 mov`` of the same register: one of the two happens, so the
    value before them (an earlier write) is dead; a single predicated write after a plain one
    leaves both, the earlier one marked as the value of the path that skips the write (not
    judged on its own)."""
    pair = _module(f"mov.b64 %rd2, {SMEM};", "mov.b32 %r5, 0;",
                   f"@%p1 mov.b32 %r5, {N128};", f"@!%p1 mov.b32 %r5, {N264};",
                   MMA.format(a="%rd2", b="%rd2", i="%r5"))
    op = _mma_of(pair, "%r5")
    assert [(a.bits.value, a.skipped) for a in op.alternatives] == [(N128, False),
                                                                   (N264, False)]
    assert [(f.rule, f.word) for f in _some(pair)] == [("idesc.shape", f"{N264:#010x}")]
    one = _module(f"mov.b64 %rd2, {SMEM};", f"mov.b32 %r5, {N264};",
                  f"@%p1 mov.b32 %r5, {N128};", MMA.format(a="%rd2", b="%rd2", i="%r5"))
    op = _mma_of(one, "%r5")
    assert [(a.bits.value, a.skipped) for a in op.alternatives] == [(N128, False),
                                                                   (N264, True)]
    assert [a.bits.value for a in op.judged] == [N128]
    # a write of the predicate between the two breaks the pair: the earlier value lives on
    broken = _module(f"mov.b64 %rd2, {SMEM};", "mov.b32 %r5, 0;",
                     f"@%p1 mov.b32 %r5, {N128};", "setp.ne.s32 %p1, %r1, 1;",
                     f"@!%p1 mov.b32 %r5, {N264};", MMA.format(a="%rd2", b="%rd2", i="%r5"))
    assert len(_mma_of(broken, "%r5").alternatives) == 3


def test_a_register_computed_from_one_of_several_values():
    """A register written once from one that is written on two paths (``or`` of the constant
    fields): each path's word."""
    lines = _module(f"mov.b64 %rd2, {SMEM};", "mov.b32 %r4, 0;", "@%p1 bra $L_x;",
                    "mov.b32 %r4, 8192;", "$L_x: or.b32 %r5, %r4, 136314896;",
                    MMA.format(a="%rd2", b="%rd2", i="%r5"))
    op = _mma_of(lines, "%r5")
    assert sorted(a.bits.value for a in op.alternatives) == [N128, N128_NEG]
    assert {a.origin for a in op.alternatives} == {
        (_line_of(lines, "$L_x: or.b32 %r5, %r4, 136314896;"), "or.b32 %r5, %r4, 136314896")}


def test_labels_of_inline_asm_blocks_are_their_own():
    """Inline-asm blocks repeat a label (``LAB_WAIT``): a branch goes to the nearest one; a
    label before a closing brace ends the block."""
    wait = ["{", ".reg .pred P1;", "LAB_WAIT:", "mbarrier.try_wait.parity.shared::cta.b64 "
            "P1, [%r1], %r2;", "@P1 bra DONE;", "bra LAB_WAIT;", "DONE:", "}"]
    lines = _module(f"mov.b64 %rd2, {SMEM};", "mov.b32 %r5, 0;", *wait,
                    f"mov.b32 %r5, {N128};", *wait, MMA.format(a="%rd2", b="%rd2", i="%r5"))
    op = _mma_of(lines, "%r5")
    assert op.value.value == N128 and op.alternatives == ()


@pytest.mark.parametrize("blocks", [1000, 4000])
def test_thousands_of_blocks_are_read(blocks):
    """A function of thousands of labels and branches (each block writing the idesc on one
    arm) is read, every write reaching the MMA merged past the alternatives kept."""
    body = [f"mov.b64 %rd2, {SMEM};", f"mov.b32 %r5, {N128};"]
    for k in range(blocks):
        body += [f"@%p1 bra $L_{k};", f"mov.b32 %r5, {N128 if k % 2 else N128_NEG};",
                 f"$L_{k}:"]
    op = _mma_of(_module(*body, MMA.format(a="%rd2", b="%rd2", i="%r5")), "%r5")
    assert op.value.pattern() == "0x0820?010" and op.alternatives == ()


def test_k_step_rule_keeps_each_alternative():
    """A stepped descriptor (``add.s64 %rd5, %rd5, 2`` in a K loop) defined by a select keeps
    the bits above the start address of each alternative (the K-step rule), and so does a
    register derived from it by one K step."""
    other = SMEM | 1 << 32  # SBO 1040 B
    lines = _module(f"selp.b64 %rd5, {SMEM}, {other}, %p1;", "mov.b32 %r7, 136314896;",
                    "$L_k:", "add.s64 %rd6, %rd5, 32;",
                    MMA.format(a="%rd5", b="%rd6", i="%r7"),
                    "add.s64 %rd5, %rd5, 2;", "@%p2 bra $L_k;")
    ops = mma_operands(_instructions(lines)[0])
    for name in ("a_desc", "b_desc"):
        op = ops[name]
        assert [a.bits.pattern() for a in op.alternatives] == ["0x400040400001xxxx",
                                                                "0x400040410001xxxx"]
        assert all(a.assumes and "K-step" in a.assumes for a in op.alternatives)
        assert op.assumes and "K-step" in op.assumes
        assert op.value.pattern() == "0x4000404?0001xxxx"


# ------------------------------------------------------------------ lint on the alternatives


def _selp_idesc(first: int, second: int) -> list[str]:
    return _module(f"selp.b32 %r5, {first}, {second}, %p1;",
                   "mov.b64 %rd5, 0x4000404000010040;", MMA.format(a="%rd5", b="%rd5", i="%r5"))


def test_lint_two_legal_idescs_is_clean():
    assert _lint(_selp_idesc(N128, N128_NEG)) == []


def test_lint_a_legal_and_an_illegal_idesc():
    lines = _selp_idesc(N128, N264)
    assert _lint(lines) == []  # no error or warning: the arm may never be taken
    found = _some(lines)
    assert [(f.severity, f.rule, f.operand) for f in found] == [("note", "idesc.shape", "idesc")]
    f = found[0]
    assert f.message.startswith("on some paths: tcgen05.mma.cta_group::1.kind::f16: n_dim[22:17]: "
                                "N=264 is not allowed")
    assert f.word == f"{N264:#010x}"
    line = _line_of(lines, f"selp.b32 %r5, {N128}, {N264}, %p1;")
    assert f.evidence[0] == f"idesc = {N264:#010x} from line {line}: " \
                            f"selp.b32 %r5, {N128}, {N264}, %p1"
    assert not any(f"{N128:#010x}" in e for e in f.evidence)  # the legal word is not named


def test_lint_two_illegal_idescs_is_an_error_of_every_path():
    lines = _selp_idesc(N264, N264_NEG)
    found = _lint(lines)
    assert [(f.severity, f.rule) for f in found] == [("error", "idesc.shape")]
    f = found[0]
    assert f.message.startswith("tcgen05.mma.cta_group::1.kind::f16: n_dim[22:17]: N=264")
    line = _line_of(lines, f"selp.b32 %r5, {N264}, {N264_NEG}, %p1;")
    text = f"selp.b32 %r5, {N264}, {N264_NEG}, %p1"
    assert f"idesc = {N264:#010x} from line {line}: {text}" in f.evidence
    assert f"idesc = {N264_NEG:#010x} from line {line}: {text}" in f.evidence
    assert f.word == "0x0842?010"  # what both agree on


def test_lint_smem_alternative_with_the_version_bit_cleared():
    broken = SMEM & ~(1 << 46)
    lines = _module(f"selp.b64 %rd5, {SMEM}, {broken}, %p1;", f"mov.b32 %r7, {N128};",
                    MMA.format(a="%rd5", b="%rd5", i="%r7"))
    assert _lint(lines) == []  # no error or warning: the arm may never be taken
    found = _some(lines)
    assert [(f.rule, f.operand) for f in found] == [("smem.reserved", "a_desc"),
                                                    ("smem.reserved", "b_desc")]
    assert all(f.message.startswith("on some paths: ") for f in found)
    assert all(f.word == f"{broken:#018x}" for f in found)


def test_lint_pair_check_on_each_combination():
    """The pair rules judge each (idesc, a_desc, b_desc) combination: an absolute-LBO
    descriptor (sm_103a) with an idesc whose B is MN-major on one arm of the select breaks
    pair.lbo_absolute on that path only; the evidence names that idesc alternative."""
    b_mn = N128 | 1 << 16  # transpose_b: B is MN-major
    absolute = 0x4000404000010040 | 1 << 52
    selp = f"selp.b32 %r5, {N128}, {b_mn}, %p1;"
    lines = [ln.replace("sm_100a", "sm_103a") for ln in
             _module(selp, f"mov.b64 %rd5, {absolute};", MMA.format(a="%rd5", b="%rd5", i="%r5"))]
    assert _lint(lines) == []  # no error or warning: the arm may never be taken
    found = _some(lines)
    assert [(f.rule, f.operand) for f in found] == [("pair.lbo_absolute", "a_desc"),
                                                    ("pair.lbo_absolute", "b_desc")]
    line = _line_of(lines, selp)
    for f in found:
        assert f.message.startswith("on some paths: tcgen05.mma")
        assert f.evidence[0] == f"idesc = {b_mn:#010x} from line {line}: {selp.rstrip(';')}"
        assert not any(f"{N128:#010x}" in e for e in f.evidence)
    # both arms MN-major: every path
    both = [ln.replace(f"{N128}, {b_mn}", f"{b_mn}, {b_mn | 1 << 13}") for ln in lines]
    assert [(f.rule, f.message.startswith("on some")) for f in _lint(both)] == [
        ("pair.lbo_absolute", False), ("pair.lbo_absolute", False)]


def test_lint_zcm_alternatives():
    """``.ws`` zero-column mask: each alternative is judged (with the idesc's M)."""
    from descriptors.rules.validate import validate
    m64 = 0x04200010  # M=64 N=128
    good = next(w for w in range(0, 1 << 12, 1) if not [
        f for f in validate("zcm", w, arch="sm_100a", m=64) if f.severity == "error"])
    bad = next(w for w in (1 << 63, 1 << 62, 0xFFFFFFFFFFFFFFFF) if [
        f for f in validate("zcm", w, arch="sm_100a", m=64) if f.severity == "error"])
    lines = _module(f"mov.b32 %r5, {m64};", "mov.b64 %rd5, 0x4000404000010040;",
                    f"selp.b64 %rd6, {good}, {bad}, %p1;",
                    "tcgen05.mma.ws.cta_group::1.kind::f16 [%r1], %rd5, %rd5, %r5, %p2, %rd6;")
    assert _lint(lines) == []  # no error or warning: the arm may never be taken
    found = _some(lines)
    assert found and all(f.operand == "zcm" and f.message.startswith("on some paths: zero-column")
                         for f in found)
    assert all(f.word == f"{bad:#018x}" for f in found)


def test_lint_zcm_with_the_m_of_each_idesc_alternative():
    """An idesc that is M=32 on one path and M=128 on the other: the mask is judged with each
    M (a column shift of 20 is too much for M=32 only), the evidence names the idesc."""
    m32 = 0x02200010
    mask = 20 << 56 | 1 << 39  # column shift 20, non-zero mask
    selp = f"selp.b32 %r5, {m32}, {N128}, %p1;"
    lines = _module(selp, "mov.b64 %rd5, 0x4000404000010040;", f"mov.b64 %rd6, {mask};",
                    "tcgen05.mma.ws.cta_group::1.kind::f16 [%r1], %rd5, %rd5, %r5, %p2, %rd6;")
    assert _lint(lines) == []  # no error or warning: the arm may never be taken
    found = _some(lines)
    assert [(f.rule, f.operand) for f in found] == [("zcm.column_shift", "zcm")]
    f = found[0]
    assert f.message.startswith("on some paths: zero-column mask: column_shift[61:56]")
    assert "(M=32 from the instruction descriptor)" in f.message
    assert f.evidence[0] == f"idesc = {m32:#010x} from line {_line_of(lines, selp)}: " \
                            f"{selp.rstrip(';')}"
    assert f.evidence[1].startswith(f"zcm = {mask:#018x} from line")


def test_lint_alloc_column_count_alternatives():
    alloc = "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%rd30], {};"
    selp = "selp.b32 %r5, 32, 33, %p1;"
    lines = _module(selp, alloc.format("%r5"), "selp.b32 %r6, 64, 128, %p1;",
                    alloc.format("%r6"))
    assert _lint(lines) == []  # no error or warning: the arm may never be taken
    found = _some(lines)
    assert [(f.line, f.rule, f.word) for f in found] == [
        (_line_of(lines, alloc.format("%r5")), "tmem.alloc", "33")]
    assert found[0].message.startswith("on some paths: tcgen05.alloc: nCols 33")
    assert found[0].evidence == (f"ncols = 33 from line {_line_of(lines, selp)}: "
                                 f"{selp.rstrip(';')}",)


# ------------------------------------------------------------------ a CuTe DSL style kernel


def _cute(smem_upper: int = 4611756662049538048) -> list[str]:
    """What CuTe DSL writes for a tcgen05.mma: the instruction descriptor built at run time
    (``selp`` of the negate bit, ``or`` with the constant fields) in the upper half of a 64-bit
    ``idescE`` read back with a sink, the shared memory descriptors' start address computed and
    their upper fields or'ed in as one 64-bit constant."""
    return [
        "//", "// Generated by NVIDIA NVVM Compiler (CuTe DSL)", "//",
        ".version 8.7", ".target sm_100a", ".address_size 64", "",
        ".visible .entry kernel_cutlass_gemm_0(", "\t.param .u64 .ptr .align 1 p0,",
        "\t.param .u32 p1", ")", "{",
        "\t.reg .pred \t%p<8>;", "\t.reg .b32 \t%r<128>;", "\t.reg .b64 \t%rd<64>;", "",
        "\tld.param.u64 \t%rd30, [p0];",
        "\tld.param.u32 \t%r60, [p1];",
        "\tsetp.ne.s32 \t%p1, %r60, 0;",
        "\tld.shared.u32 \t%r1, [%rd30];",
        "\tmov.u32 \t%r61, %tid.x;",
        "\tsetp.eq.s32 \t%p2, %r61, 0;",
        # idesc: the negate-A bit chosen at run time, the rest constant, in the upper half
        "\tselp.b32 \t%r70, 8192, 0, %p1;",
        "\tor.b32 \t%r71, %r70, 136314896;",
        "\tmov.b32 \t%r72, 0;",
        "\tmov.b64 \t%rd2, {%r72, %r71};",
        "\tmov.b64 \t{_, %r91}, %rd2;",
        "\tmov.b64 \t{%r90, _}, %rd2;",
        # smem descriptors: (address >> 4) & 0x3FFF, then the constant upper fields
        "\tcvta.to.shared.u64 \t%rd31, %rd30;",
        "\tcvt.u32.u64 \t%r80, %rd31;",
        "\tshr.u32 \t%r81, %r80, 4;",
        "\tand.b32 \t%r82, %r81, 16383;",
        "\tcvt.u64.u32 \t%rd10, %r82;",
        f"\tor.b64 \t%rd3, %rd10, {smem_upper};",
        "\tadd.s32 \t%r83, %r82, 64;",
        "\tand.b32 \t%r84, %r83, 16383;",
        "\tcvt.u64.u32 \t%rd11, %r84;",
        f"\tor.b64 \t%rd4, %rd11, {smem_upper};",
        "\t@%p2 tcgen05.mma.cta_group::1.kind::f16 \t[%r1], %rd3, %rd4, %r91, %p1;",
        "\tret;", "}", ""]


def test_cute_dsl_kernel_is_clean():
    lines = _cute()
    ins = _instructions(lines)
    assert len(ins) == 1
    ops = mma_operands(ins[0])
    idesc = ops["idesc"]
    assert [a.bits.value for a in idesc.alternatives] == [N128_NEG, N128]  # the high half
    assert all(a.origin[1] == "mov.b64 {_, %r91}, %rd2" for a in idesc.alternatives)
    assert ops["a_desc"].value.one == 4611756662049538048
    found = list(lint_lines(lines, file="cute.ptx"))
    assert [f for f in found if f.severity in ("error", "warning")] == []
    # the start address is a run-time value: a note, not a finding
    assert {f.rule for f in found} == {"lint.arch", "lint.runtime"}


def test_cute_dsl_kernel_with_the_version_bit_cleared():
    lines = _cute(4611756662049538048 & ~(1 << 46))
    found = _lint(lines)
    assert [(f.severity, f.rule, f.operand) for f in found] == [
        ("error", "smem.reserved", "a_desc"), ("error", "smem.reserved", "b_desc")]
    assert all(not f.message.startswith("on some paths") for f in found)
    assert all("fixed_constant[48:46]" in f.message for f in found)


def test_cute_dsl_idesc_read_with_a_sink_before_the_fix_would_be_the_low_half():
    """The low half of the idescE is 0: read as the idesc it breaks the shape rules, which is
    what a sink that shifted the register list made lint report."""
    lines = [ln.replace("%r91, %p1;", "%r90, %p1;") for ln in _cute()]
    found = _lint(lines)
    assert found and all(f.operand == "idesc" and f.severity == "error" for f in found)


def test_dump_names_each_idesc_alternative():
    """``descgen dump``: an MMA operand that is one of several wholly known words (no immediate
    of the code made it) is reported once per word, named by the MMA."""
    from descriptors.tools.dump import scan
    lines = _cute()
    mma = next(i for i, ln in enumerate(lines, 1) if "tcgen05.mma" in ln)
    at = [(f.word, f.text, f.best.kind, f.best.evidence) for f in scan("\n".join(lines))
          if f.line == mma]
    feeds = f"it feeds idesc of tcgen05.mma.cta_group::1.kind::f16 at line {mma}"
    assert [(w, t, k) for w, t, k, _ in at] == [(N128_NEG, "%r91 = 0x08202010", "f16"),
                                                (N128, "%r91 = 0x08200010", "f16")]
    assert all(ev[0].startswith(feeds) for *_, ev in at)


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas (CUDA 13) is not on PATH")
def test_the_hand_written_ptx_is_ptx(tmp_path):
    """ptxas assembles the modules these tests read: the CuTe DSL style kernel (sinks, selp,
    64-bit decimal constants) and an MMA with a 64-bit hex immediate descriptor operand."""
    modules = {"cute.ptx": _cute(), "loc.ptx": _with_loc(_cute()),
               "imm.ptx": _module(f"selp.b32 %r5, {N128}, {N128_NEG}, %p1;",
                                  "mov.b64 {_, %r91}, %rd30;", "mov.b64 {%rs1, _, %rs3, _}, %rd30;",
                                  MMA.format(a="%rd30", b=SMEM_HEX, i="%r5"))}
    for name, lines in modules.items():
        path = tmp_path / name
        path.write_text("\n".join(lines) + "\n")
        done = subprocess.run(["ptxas", "-arch=sm_100a", str(path), "-o", str(tmp_path / "o")],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr


# ------------------------------------------------------------------ debugging directives


def _with_loc(lines: list[str]) -> list[str]:
    """``lines`` as a compiler writes them with line information (Triton's default, nvcc
    -lineinfo): a ``.file`` after the header and a ``.loc`` (no semicolon, the PTX ISA's "Debugging Directives" section,
    debugging directives) before every statement of the function, inside an inline-asm block
    too."""
    out: list[str] = []
    for ln in lines:
        if ln.startswith(".address_size"):
            out += [ln, '.file 1 "/src/k.py"']
            continue
        if ln.endswith(";") and not ln.startswith((".reg", ".version", ".target")):
            out.append(".loc 1 9 15")
        out.append(ln)
    return out


def test_a_loc_directive_swallows_no_statement():
    """``.loc`` and ``.file`` end without a semicolon: read as the start of a statement, each
    took the next one with it (a Triton kernel compiled with line information lost every
    instruction that followed one: its MMAs, and the writes that made a register written
    twice look written once)."""
    plain = _module(f"mov.b64 %rd5, {SMEM_HEX};", "mov.b32 %r7, 136314896;",
                    "{", ".reg .pred p;", "setp.ne.b32 p, %r1, 0;",
                    MMA.format(a="%rd5", b="%rd5", i="%r7"), "}")
    located = _with_loc(plain)
    mma = next(i for i, ln in enumerate(located) if ln.startswith("tcgen05.mma"))
    assert located[mma - 1].startswith(".loc") and "{" in located[mma - 5:mma]
    want = [(i.opcode, [(o.text, o.value) for o in i.operands]) for i in _instructions(plain)]
    got = [(i.opcode, [(o.text, o.value) for o in i.operands]) for i in _instructions(located)]
    assert want and got == want
    # a register written twice, the second write after a .loc: unknown, not the first value
    twice = _with_loc(_module(f"mov.b64 %rd5, {SMEM & ~(1 << 46):#x};", "mov.b64 %rd5, %rd30;",
                              "mov.b32 %r7, 136314896;", MMA.format(a="%rd5", b=SMEM_HEX,
                                                                    i="%r7")))
    assert _lint(twice) == []
    assert [f.rule for f in lint_lines(twice) if f.operand == "a_desc"] == ["lint.runtime"]

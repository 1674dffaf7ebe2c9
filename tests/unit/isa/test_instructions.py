"""Instruction models (descriptors.instructions): parser, rules, data derived from tmem."""

from __future__ import annotations

import pytest

from descriptors.isa import tmem
from descriptors.isa.instructions import (MODELS, WMMA_FRAGMENT_REGISTERS, InstructionError,
                                      check_instruction, parse_instruction, parse_registers,
                                      parse_target, resolve, vector_size)
from descriptors.rules.validate import TCGEN05_ARCHES


def errors(line: str, **kw) -> list[str]:
    return [f.rule for f in check_instruction(line, **kw) if f.severity == "error"]


def test_parse_guard_label_comment_columns() -> None:
    p = parse_instruction("  L1: @!%p1 stmatrix.sync.aligned.m8n8.x2.trans.shared::cta.b16 "
                          "[%rd4+32], {%r1, %r2};  // store")
    assert p.mnemonic == "stmatrix" and p.guard == "@!%p1"
    assert [q for q, _ in p.qualifiers] == ["sync", "aligned", "m8n8", "x2", "trans",
                                           "shared::cta", "b16"]
    assert [o for o, _ in p.operands] == ["[%rd4+32]", "{%r1, %r2}"]
    line = "  L1: @!%p1 stmatrix.sync.aligned.m8n8.x2.trans.shared::cta.b16 [%rd4+32], {%r1, %r2};"
    assert line[p.operands[0][1] - 1:].startswith("[%rd4+32]")
    assert line[p.qualifiers[2][1] - 1:].startswith("m8n8")


@pytest.mark.parametrize("text, words", [
    ("frobnicate.sync r1;", "unknown mnemonic"),
    ("ldmatrix.sync.aligned.m8n8.x1.b16 {r0}, [p];", "unknown mnemonic"),
    ("stmatrix.sync.aligned.m8n8.x4", "no operands"),
    ("stmatrix.sync.aligned.m8n8.x4.b16 [p], {r0, r1", "not closed"),
    ("stmatrix.sync.aligned.m8n8.x4.b16 [p], {" + ", ".join(f"r{i}" for i in range(300)) + "};",
     "300 registers"),
    ("\x00\xff\x13junk", "not PTX text"),
    ("stmatrix.sync.aligned.m8n8.x1.b16 [p], {r0}; stmatrix.sync", "more than one statement"),
    ("", "empty"),
    ("x" * 5000, "characters long"),
])
def test_bad_lines_are_one_finding(text: str, words: str) -> None:
    with pytest.raises(InstructionError, match=words):
        parse_instruction(text)
    found = check_instruction(text)
    assert len(found) == 1 and found[0].rule == "instruction.syntax" and words in found[0].message


def test_non_text_is_refused() -> None:
    with pytest.raises(InstructionError):
        parse_instruction(42)
    assert check_instruction(b"\xff\xfe")[0].rule == "instruction.syntax"


def test_two_hundred_registers_is_a_vector_error() -> None:
    line = "tcgen05.ld.sync.aligned.32x32b.x128.b32 {" + ", ".join(
        f"r{i}" for i in range(200)) + "}, [t];"
    [f] = [f for f in check_instruction(line) if f.severity == "error"]
    assert f.rule == "tcgen05.ld.vector" and "200 register(s)" in f.message and "takes 128" in \
        f.message


def test_stmatrix_rules() -> None:
    ok = "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [p], {r0, r1, r2, r3};"
    assert errors(ok) == []
    assert errors("stmatrix.sync.aligned.m16n8.x1.shared.b8 [p], {r0};") == ["stmatrix.trans"]
    assert errors("stmatrix.sync.aligned.m16n8.x1.trans.b16 [p], {r0};") == \
        ["stmatrix.shape_type"]
    assert errors("stmatrix.sync.aligned.m8n8.x2.b16 [p], {r0};") == ["stmatrix.vector"]
    assert set(errors("stmatrix.sync.aligned.m8n8.x3.b16 [p], {r0};")) == {"stmatrix.qualifier"}
    assert errors("stmatrix.sync.aligned.m8n8.x1.x2.b16 [p], {r0};") == ["stmatrix.qualifier"]
    assert errors("stmatrix.aligned.m8n8.x1.b16 [p], {r0};") == ["stmatrix.qualifier"]
    assert errors("stmatrix.sync.aligned.m8n8.x1.b16 [16], {r0};") == ["stmatrix.address"]
    assert errors("stmatrix.sync.aligned.m8n8.x1.b16 [p], r0;") == ["stmatrix.operand"]
    # the .b8/.m16n8 forms need sm_100a-class targets; stmatrix itself sm_90
    assert errors("stmatrix.sync.aligned.m16n8.x1.trans.b8 [p], {r0};", arch="sm_90a") == \
        ["stmatrix.arch"]
    assert errors("stmatrix.sync.aligned.m8n8.x1.b8 [p], {r0};", arch="sm_90a") == \
        ["stmatrix.shape_type", "stmatrix.arch"]
    assert errors(ok, arch="sm_90") == []
    assert errors(ok, arch="sm_89") == ["stmatrix.arch"]
    assert errors("stmatrix.sync.aligned.m16n8.x1.trans.b8 [p], {r0};", arch="sm_120a") == []
    assert errors("stmatrix.sync.aligned.m16n8.x1.trans.b8 [p], {r0};", arch="sm_120") == \
        ["stmatrix.arch"]


def test_stmatrix_alignment_warning_and_ptxas_forms() -> None:
    f = check_instruction("stmatrix.sync.aligned.m8n8.x1.b16 [%rd1+8], {r0};")
    assert [(x.severity, x.rule) for x in f] == [("warning", "stmatrix.alignment")]
    assert "8 mod 16" in f[0].message
    assert check_instruction("stmatrix.sync.aligned.m8n8.x1.b16 [%rd1+32], {r0};") == []
    f = check_instruction("stmatrix.sync.aligned.m8n8.x8.b16 [p], {r0};")
    assert [(x.severity, x.rule) for x in f] == [("warning", "stmatrix.num")]
    f = check_instruction("stmatrix.sync.aligned.x1.m8n8.b16 [p], {r0};")
    assert [(x.severity, x.rule) for x in f] == [("note", "stmatrix.qualifier")]
    assert "stmatrix.sync.aligned.m8n8.x1.b16" in f[0].message


def test_register_types_from_declarations() -> None:
    regs = parse_registers([".reg .b32 %r<4>;", ".reg .b16 %h<2>;", ".reg .b64 %rd<2>, q;",
                            ".reg .f64 d0, d1; // two"])
    assert regs["%r3"] == "b32" and regs["q"] == "b64" and regs["d1"] == "f64"
    assert "%r4" not in regs
    assert errors("stmatrix.sync.aligned.m8n8.x1.b16 [%rd0], {%h0};", registers=regs) == \
        ["stmatrix.register_type"]
    assert errors("stmatrix.sync.aligned.m8n8.x1.b16 [d0], {%r0};", registers=regs) == \
        ["stmatrix.address"]
    assert errors("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r0}, [%rd0];", registers=regs) == \
        ["tcgen05.ld.address"]
    assert errors("wmma.load.c.sync.aligned.row.m8n8k4.f64 {d0, d1}, [%rd0];",
                  registers=regs) == []
    assert errors("wmma.load.c.sync.aligned.row.m8n8k4.f64 {%r0, %r1}, [%rd0];",
                  registers=regs) == ["wmma.load.register_type"]


def test_wmma_rules() -> None:
    assert errors("wmma.load.a.sync.aligned.row.m16n16k16.f16 {r0,r1,r2,r3,r4,r5,r6,r7}, "
                  "[p], 32;") == []
    assert errors("wmma.load.a.sync.aligned.col.m8n8k32.s4 {r0}, [p];") == ["wmma.load.layout"]
    assert errors("wmma.load.b.sync.aligned.row.m8n8k128.b1 {r0}, [p];") == ["wmma.load.layout"]
    assert errors("wmma.load.a.sync.aligned.row.m16n16k16.f32 {r0}, [p];") == ["wmma.load.type"]
    assert errors("wmma.load.a.sync.aligned.row.m16n16k16.bf16 {r0,r1}, [p];") == \
        ["wmma.load.vector"]
    assert errors("wmma.load.sync.aligned.a.row.m16n16k16.f16 {r0,r1,r2,r3,r4,r5,r6,r7}, [p];"
                  ) == ["wmma.load.qualifier"]
    assert errors("wmma.load.a.sync.aligned.row.m16n16k16.f16 {r0,r1,r2,r3,r4,r5,r6,r7}, "
                  "[p], 1, 2;") == ["wmma.load.operands"]
    f = check_instruction("wmma.load.c.sync.aligned.row.m8n8k32.f32 {r0, r1}, [p];")
    assert [(x.severity, x.rule) for x in f] == [("warning", "wmma.load.type")]
    assert errors("wmma.load.a.sync.aligned.row.m16n16k8.tf32 {r0,r1,r2,r3}, [p];",
                  arch="sm_75") == ["wmma.load.arch"]


def test_wmma_fragment_sizes_cover_the_syntax_blocks() -> None:
    m = MODELS["wmma.load"]
    for (matrix, shape, type_), n in WMMA_FRAGMENT_REGISTERS.items():
        q, found = resolve(m, [matrix, "sync", "aligned", "row", shape, type_])
        assert vector_size(m, q) == n
    # PTX's own examples
    assert WMMA_FRAGMENT_REGISTERS[("a", "m32n8k16", "u8")] == 4
    assert WMMA_FRAGMENT_REGISTERS[("a", "m8n8k32", "s4")] == 1
    assert WMMA_FRAGMENT_REGISTERS[("a", "m16n16k16", "bf16")] == 4
    assert WMMA_FRAGMENT_REGISTERS[("c", "m16n16k16", "f32")] == 8


@pytest.mark.parametrize("op", ["ld", "st"])
def test_tcgen05_vector_sizes_come_from_tmem(op: str) -> None:
    m = MODELS[f"tcgen05.{op}"]
    for shape in tmem.SHAPES:
        for num in tmem.NUMS:
            q, _ = resolve(m, ["sync", "aligned", shape, f"x{num}", "b32"])
            try:
                want = tmem.registers(shape, num, op)
            except Exception:
                want = None
            assert vector_size(m, q) == want
            regs = "{" + ", ".join(f"r{i}" for i in range(want or 1)) + "}"
            split = ", 16" if shape == "16x32bx2" else ""
            line = (f"tcgen05.ld.sync.aligned.{shape}.x{num}.b32 {regs}, [t]{split};" if op == "ld"
                    else f"tcgen05.st.sync.aligned.{shape}.x{num}.b32 [t]{split}, {regs};")
            assert (errors(line) == []) == (want is not None), line


def test_tcgen05_red_and_split() -> None:
    red = "tcgen05.ld.red.sync.aligned.16x32bx2.x2.max.abs.f32 {r0, r1}, rv, [t], 16;"
    assert errors(red, arch="sm_103a") == []
    assert errors(red, arch="sm_100a") == ["tcgen05.ld.arch"]
    assert errors("tcgen05.ld.sync.aligned.16x32bx2.x2.b32 {r0, r1}, [t];") == \
        ["tcgen05.ld.operands"]
    assert errors("tcgen05.ld.sync.aligned.16x32bx2.x2.b32 {r0, r1}, [t], n;") == \
        ["tcgen05.ld.operand"]
    assert errors("tcgen05.st.sync.aligned.16x32bx2.x1.unpack::16b.b32 [t], 8, {r0};") == []
    assert errors("tcgen05.st.sync.aligned.32x32b.x1.pack::16b.b32 [t], {r0};") == \
        ["tcgen05.st.qualifier"]
    assert errors("tcgen05.ld.sync.aligned.32x32b.x1.b32.red {r0}, rv, [t];",
                  arch="sm_103a") != []


def test_red_arches_agree_with_tmem() -> None:
    m = MODELS["tcgen05.ld"]
    req = next(r for when, r in m.arch if when)
    assert req is tmem.RED_REQUIREMENT  # declared once, in descriptors.tmem
    # 9.7.16.8.3: sm_101a (= sm_110a), sm_101f (= sm_110f) and sm_103f families; not sm_100a/f
    assert tmem.RED_ARCHES == ("sm_103a", "sm_103f", "sm_110a", "sm_110f")
    assert req.supports(parse_target("sm_101a")) and not req.supports(parse_target("sm_101"))
    base = next(r for when, r in m.arch if not when)
    assert all(base.supports(parse_target(a)) for a in TCGEN05_ARCHES)
    assert not base.supports(parse_target("sm_90a")) and not base.supports(parse_target("sm_120a"))
    with pytest.raises(InstructionError.__mro__[1]):
        parse_target("gfx90a")


def test_value_rules_alignment_stride_taddr() -> None:
    st = "stmatrix.sync.aligned.m8n8.x1.b16 [%rd1+8], {r0};"
    assert [f.severity for f in check_instruction(st)] == ["warning"]
    f = check_instruction(st, constants={"%rd1": 0x400})
    assert [(x.severity, x.rule) for x in f] == [("error", "stmatrix.alignment")]
    assert "0x408" in f[0].message
    assert check_instruction(st, constants={"%rd1": 0x408}) == []
    wl = "wmma.load.a.sync.aligned.row.m16n16k16.f16 {r0,r1,r2,r3,r4,r5,r6,r7}, [p+16]"
    # 9.7.14.4.2's example: p and 2*s multiples of 32 (the fragment is 32 bytes)
    assert [x.rule for x in check_instruction(wl + ";")] == ["wmma.load.alignment"]
    found = errors(wl + ", 8;", constants={"p": 16})
    assert found == ["wmma.load.stride", "wmma.load.stride"]  # below 16, and 16 B % 32
    assert errors(wl + ", 24;", constants={"p": 16}) == ["wmma.load.stride"]  # 48 B % 32
    assert errors(wl + ", s;", constants={"p": 0x1000, "s": 8}) == [
        "wmma.load.alignment", "wmma.load.stride", "wmma.load.stride"]
    assert errors(wl + ", 32;", constants={"p": 16}) == []
    # sub-byte: s4 row-major A of m8n8k32, default stride 32 (elements of 4 bits)
    assert errors("wmma.load.a.sync.aligned.row.m8n8k32.s4 {r0}, [p], 16;") == \
        ["wmma.load.stride"]
    assert errors("wmma.load.a.sync.aligned.row.m8n8k32.s4 {r0}, [p], 40;") == []
    ld = "tcgen05.ld.sync.aligned.32x32b.x8.b32 {r0,r1,r2,r3,r4,r5,r6,r7}, [t];"
    assert errors(ld, constants={"t": 0x00100000}) == ["tcgen05.ld.taddr"]  # lanes 16-47
    assert errors(ld, constants={"t": 0x00200000}) == []
    assert errors(ld, constants={"t": 0x000001FC}) == ["tcgen05.ld.taddr"]  # columns > 511


def test_operands_may_follow_the_opcode_without_a_space() -> None:
    # as nvcc's inline-asm output writes it (CuTe's SM100_TMEM_LOAD)
    p = parse_instruction("tcgen05.ld.sync.aligned.32x32b.x1.b32{%r1243},[%r13];")
    assert [o for o, _ in p.operands] == ["{%r1243}", "[%r13]"]
    assert errors("tcgen05.ld.sync.aligned.32x32b.x1.b32{%r1243},[%r13];") == []

"""descgen lint on stmatrix / wmma.load / tcgen05.ld/st lines: every line of a snippet gets a
verdict from the instruction models; module declarations give register types; constants give
address alignment and strides."""

from __future__ import annotations

import json

from descriptors.tools.lint import lint_lines
from helpers import run

SNIPPET = [
    "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%rd1], {%r1, %r2, %r3, %r4};",
    "stmatrix.sync.aligned.m8n8.x4.shared.b16 [%rd1], {%r1, %r2};",
    "stmatrix.sync.aligned.m16n8.x1.shared.b8 [%rd1], {%r1};",
    "stmatrix.sync.aligned.m8n8.x1.shared.b8 [%rd1], {%r1};",
    "wmma.load.a.sync.aligned.row.m16n16k16.f16 {%r1,%r2,%r3,%r4,%r5,%r6,%r7,%r8}, [%rd2];",
    "wmma.load.b.sync.aligned.row.m8n8k32.s4 {%r1}, [%rd2];",
    "tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r1, %r2}, [%r9];",
    "tcgen05.ld.red.sync.aligned.32x32b.x2.min.f32 {%r1, %r2}, %r3, [%r9];",
    "tcgen05.st.sync.aligned.16x32bx2.x1.b32 [%r9], {%r1};",
    "tcgen05.st.sync.aligned.16x32bx2.x1.b32 [%r9], 16, {%r1};",
]


def _verdicts(lines: list[str], **kw) -> dict[int, list[str]]:
    out: dict[int, list[str]] = {}
    for f in lint_lines(lines, file="s.ptx", **kw):
        if f.rule == "lint.arch":  # the file's target (line 0), tested in test_lint.py
            continue
        out.setdefault(f.line, []).append(f.rule if f.severity != "note" else f"note:{f.rule}")
    return out


def test_every_snippet_line_gets_a_verdict() -> None:
    v = _verdicts(SNIPPET)
    assert v == {
        1: ["note:instruction.legal"],
        2: ["stmatrix.vector"],
        3: ["stmatrix.trans"],
        4: ["stmatrix.shape_type"],
        5: ["note:instruction.legal"],
        6: ["wmma.load.layout"],
        7: ["note:instruction.legal"],
        8: ["tcgen05.ld.arch"],
        9: ["tcgen05.st.operands"],
        10: ["note:instruction.legal"],
    }
    assert _verdicts(SNIPPET[7:8], arch="sm_103a") == {1: ["note:instruction.legal"]}


def test_module_declarations_constants_and_target() -> None:
    module = [".version 9.0", ".target sm_90a", ".address_size 64",
              ".visible .entry k()", "{",
              ".reg .b32 %r<10>;", ".reg .b16 %h<2>;", ".reg .b64 %rd<4>;",
              "mov.u64 %rd1, 1032;",
              "stmatrix.sync.aligned.m8n8.x1.shared.b16 [%rd1], {%r1};",
              "stmatrix.sync.aligned.m8n8.x1.shared.b16 [%rd1+8], {%r1};",
              "stmatrix.sync.aligned.m8n8.x1.shared.b16 [%rd2], {%h1};",
              "stmatrix.sync.aligned.m16n8.x1.trans.shared.b8 [%rd2], {%r1};",
              "mov.u32 %r9, 24;",
              "wmma.load.a.sync.aligned.row.m16n16k16.f16 {%r1,%r2,%r3,%r4,%r5,%r6,%r7,%r8}, "
              "[%rd2], %r9;",
              "}"]
    got = [(f.line, f.rule, f.word) for f in lint_lines(module, file="m.ptx")
           if f.severity == "error"]
    assert got == [(10, "stmatrix.alignment", "0x408"),
                   (12, "stmatrix.register_type", None),
                   (13, "stmatrix.arch", None),
                   (15, "wmma.load.stride", "0x18")]
    # line 11: 1032 + 8 = 1040 is aligned


def test_lint_cli_on_a_snippet(tmp_path) -> None:
    path = tmp_path / "forms.ptx"
    path.write_text("\n".join(SNIPPET) + "\n")
    r = run("lint", str(path), "--format", "json")
    assert r.exit_code == 1
    findings = json.loads(r.stdout)["findings"]
    assert {f["line"] for f in findings} == set(range(len(SNIPPET) + 1))  # 0: lint.arch
    assert sorted({f["line"] for f in findings if f["severity"] == "error"}) == [2, 3, 4, 6, 8, 9]

"""Bad instruction text never raises past the library's errors: check_instruction returns
findings for anything (mutated real forms, arbitrary text), explain answers one line, exit 2,
and lint judges every line without a traceback (hypothesis, derandomized, bounded)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from descriptors.errors import DescgenError
from descriptors.isa.fragments import explain_instruction
from descriptors.isa.instructions import check_instruction
from descriptors.tools.lint import lint_lines
from helpers import run
from test_fuzz import fuzz

SEEDS = [
    "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%rd1+16], {%r1, %r2, %r3, %r4};",
    "stmatrix.sync.aligned.m16n8.x2.trans.shared::cta.b8 [p], {r0, r1};",
    "wmma.load.c.sync.aligned.col.m16n16k16.global.f32 {r0,r1,r2,r3,r4,r5,r6,r7}, [p], 32;",
    "tcgen05.ld.red.sync.aligned.16x32bx2.x2.max.abs.f32 {r0, r1}, rv, [t], 16;",
    "tcgen05.st.sync.aligned.16x128b.x1.unpack::16b.b32 [t], {r0, r1};",
]
ALPHABET = st.sampled_from(list("{}[],;.:+-@%!xrtpb0123456789 \t") + ["::", "\x00", "é"])


@st.composite
def mutated(draw) -> str:
    line = draw(st.sampled_from(SEEDS))
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(line)))
        op = draw(st.sampled_from(["insert", "delete", "cut"]))
        if op == "insert":
            line = line[:i] + draw(ALPHABET) + line[i:]
        elif op == "delete":
            line = line[:i] + line[i + 1:]
        else:
            line = line[:i]
    return line


def _safe(line: str) -> None:
    found = check_instruction(line)
    assert all(f.severity in ("error", "warning", "note") for f in found)
    try:
        explain_instruction(line)
    except DescgenError:
        pass


@fuzz(300)
@given(mutated())
def test_mutated_forms_never_raise(line: str) -> None:
    _safe(line)
    list(lint_lines([line], file="m.ptx"))


@fuzz(200)
@given(st.text(max_size=120))
def test_arbitrary_text_never_raises(line: str) -> None:
    _safe(line)


@pytest.mark.parametrize("line", ["stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [p], {r0,",
                                  "wmma.load.a.sync", "tcgen05.st.sync.aligned.32x32b.x1.b32 [t]",
                                  "@p", "{}", "stmatrix"])
def test_explain_cli_truncated(line: str) -> None:
    r = run("explain", line)
    assert r.exit_code == 2 and r.stderr.startswith("descgen: error: ")
    assert len(r.stderr.splitlines()) == 1 and "Traceback" not in r.stderr

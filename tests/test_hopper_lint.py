"""descgen lint on sm_90a PTX (issue: Hopper wgmma end to end): the compiled kernels of
fixtures/hopper/compiled (CuTe GMMA layout atoms x types x majors, CUTLASS CollectiveBuilder
GEMMs, hand-written inline-PTX wgmma; see its README) and planted errors made at test time.

Every ``wgmma.mma_async`` is judged by the instruction model (descriptors.isa.instructions,
which agrees with ptxas on 3,232 forms) and its A/B matrix descriptors as sm_90a wgmma words
(PTX ISA 9.7.15.5.1), their constant fields checked and the run-time ones named.
"""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest

from descriptors.tools.lint import lint_lines

HOPPER = Path(__file__).resolve().parent.parent / "fixtures" / "hopper" / "compiled"


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

"""Which target lint's arch-gated rules follow, and sm_90a (Hopper): ``--arch sm_90a`` and a
listing or module that names sm_90a judge the wgmma descriptors and instruction models for
sm_90a; a tcgen05 instruction there is an error (ptxas 13.0: "Instruction 'tcgen05.alloc' not
supported on .target 'sm_90a'"), its operands judged for sm_100a."""

from __future__ import annotations

import gzip
from pathlib import Path

from helpers import runner

from cli.main import app
from descriptors.tools.lint import lint_lines

FIX = Path(__file__).resolve().parents[3] / "fixtures"

TCGEN05_IN_SM90 = """\
.version 9.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 p)
{
  .reg .b64 %rd<4>;
  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%rd1], 32;
  ret;
}
"""


def _arch_note(lines: list[str], **kw) -> str:
    return next(f.message for f in lint_lines(lines, **kw) if f.rule == "lint.arch")


def test_a_hopper_listing_is_judged_for_sm_90a():
    lines = gzip.open(FIX / "hopper/compiled/hand_wgmma.sass.gz", "rt").read().splitlines()
    assert _arch_note(lines) == (
        "the wgmma descriptors and the instruction models follow sm_90a: target sm_90a from "
        "'code for sm_90a' (line 2); there is no tcgen05 on sm_90a: a tcgen05 instruction is "
        "an error (tcgen05.arch) and its operands are judged for sm_100a")
    assert not [f for f in lint_lines(lines) if f.severity != "note"]


def test_arch_sm_90a_is_accepted_and_says_so():
    r = runner.invoke(app, ["lint", "-v", "--plain", "--arch", "sm_90a",
                            str(FIX / "hopper/compiled/hand_wgmma.ptx.gz")])
    assert r.exit_code == 0, r.output
    assert "the wgmma descriptors and the instruction models follow sm_90a: given with --arch" \
        in r.output


def test_tcgen05_on_sm_90a_is_an_error():
    findings = list(lint_lines(TCGEN05_IN_SM90.splitlines(), file="k.ptx"))
    errors = [(f.line, f.rule) for f in findings if f.severity == "error"]
    assert errors == [(7, "tcgen05.arch")]
    # a Blackwell listing linted for sm_90a: every tcgen05 instruction, and nothing else new
    lines = (FIX / "lint/bad_reserved.sass").read_text().splitlines()
    base = [f for f in lint_lines(lines) if f.severity == "error"]
    forced = [f for f in lint_lines(lines, arch="sm_90a") if f.severity == "error"]
    arch_errors = [f for f in forced if f.rule == "tcgen05.arch"]
    from descriptors.readers import Instruction, read
    tcgen05 = {i.line for i in read(lines)[1] if isinstance(i, Instruction)}
    assert len(tcgen05) > 3 and {f.line for f in arch_errors} == tcgen05
    assert [f for f in forced if f.rule != "tcgen05.arch"] == base


def test_unknown_arch_is_bad_usage():
    r = runner.invoke(app, ["lint", "--arch", "sm_89", str(FIX / "lint/bad_reserved.sass")])
    assert r.exit_code == 2
    assert "unknown architecture 'sm_89'" in r.output and "sm_90a" in r.output


def test_an_old_format_hopper_elf_is_sm_90a():
    """An old-format ELF's listing names its target only in .headerflags
    (EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90), no EF_CUDA_ACCELERATORS): Hopper, sm_90a -- there is no
    sm_90f -- and its HGMMAs judged as wgmma words."""
    lines = [line for line in gzip.open(FIX / "hopper/production/fa3_bf16_hdim_a.sass.gz", "rt")
             .read().splitlines() if "code for" not in line]
    note = _arch_note(lines)
    assert note.startswith("the wgmma descriptors and the instruction models follow sm_90a: "
                           "target sm_90a from '.headerflags")
    assert "sm_90f" not in note
    assert not [f for f in lint_lines(lines) if f.severity != "note"]

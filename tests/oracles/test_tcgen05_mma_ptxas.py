"""descgen's verdict on every form of fixtures/tcgen05/tcgen05-forms.json.gz -- tcgen05.mma
(.sp, .ws, every kind, .block_scale and .scale_vectorsize, .ashift, collector usage, A from a
descriptor or Tensor Memory, operand variants), tcgen05.cp, tcgen05.commit and
tcgen05.alloc/dealloc/relinquish_alloc_permit -- equals the recorded verdict of ptxas 13.0
(``-arch=sm_100a``): both :func:`check_instruction` on the line (with the fixture's register
declarations) and ``descgen lint`` (:func:`lint_lines`) on modules of the forms (one per
``.cta_group``, as ptxas assembled them).

The default run judges a fixed sample (every 16th form of the qualifier sweep and every
operand / near-miss form); ``pytest -m ptxas_full`` judges all of them (only the committed JSON
is needed).  When ptxas is on PATH a small sample is assembled again.
"""

from __future__ import annotations

import gzip
import json
import re
import shutil
import subprocess
from functools import lru_cache
from pathlib import Path

import pytest

from descriptors.isa.instructions import (PTXAS_VS_TEXT, VALUE_RULES, check_instruction,
                                          parse_registers)
from descriptors.tools.lint import lint_lines

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "tcgen05" / "tcgen05-forms.json.gz"
PTXAS = shutil.which("ptxas")
#: Lint's column-count rule (``tmem.alloc``, 9.7.16.1.2: nCols a power of two in [32, 512])
#: judges a constant tcgen05.dealloc count too, which ptxas does not (it takes any multiple of
#: 32 there); on tcgen05.alloc it is lint's verdict on an immediate nCols.
DEALLOC_VALUE_RULES = VALUE_RULES + ("tmem.alloc",)


@lru_cache(maxsize=1)
def _doc() -> dict:
    return json.loads(gzip.decompress(FIXTURE.read_bytes()))


def _forms() -> list[dict]:
    return _doc()["forms"]


@lru_cache(maxsize=1)
def _registers():
    return parse_registers(_doc()["declarations"].splitlines())


def _sample() -> list[dict]:
    return [f for f in _forms() if f["group"] != "qualifiers" or f["id"] % 16 == 0]


def _rejects(line: str) -> bool:
    return any(f.severity == "error" and f.rule not in VALUE_RULES
               for f in check_instruction(line, registers=_registers(), arch="sm_100a"))


def _cta(line: str) -> str:
    m = re.search(r"cta_group::(\d)", line)
    return m.group(1) if m else "none"


def _module(lines: list[str]) -> list[str]:
    return [".version 9.0", ".target sm_100a", ".address_size 64", ".visible .entry k()", "{",
            *_doc()["declarations"].splitlines(), *lines, "ret;", "}"]


def _lint_rejects(forms: list[dict]) -> set[int]:
    out: set[int] = set()
    groups: dict[str, list[dict]] = {}
    for f in forms:
        groups.setdefault(_cta(f["instruction"]), []).append(f)
    head = len(_module([])) - 2
    for fs in groups.values():
        text = _module([f["instruction"] for f in fs])
        for finding in lint_lines(text, file="forms.ptx", arch="sm_100a"):
            i = finding.line - 1 - head
            if finding.severity != "error" or not 0 <= i < len(fs):
                continue
            dealloc = fs[i]["instruction"].startswith("tcgen05.dealloc")
            if finding.rule not in (DEALLOC_VALUE_RULES if dealloc else VALUE_RULES):
                out.add(fs[i]["id"])
    return out


def _compare(forms: list[dict]) -> None:
    linted = _lint_rejects(forms)
    bad = []
    for f in forms:
        ptxas = f["ptxas"] != "ok"
        ours = _rejects(f["instruction"])
        if ours != ptxas or (f["id"] in linted) != ptxas:
            bad.append(f"#{f['id']} {f['instruction']}  descgen "
                       f"{'rejects' if ours else 'accepts'}, lint "
                       f"{'rejects' if f['id'] in linted else 'accepts'}, ptxas {f['ptxas']}")
    assert not bad, f"{len(bad)} of {len(forms)} disagree:\n" + "\n".join(bad[:30])


def test_fixture_shape() -> None:
    forms = _forms()
    assert len(forms) == 60280
    assert sum(f["ptxas"] == "ok" for f in forms) == 1639
    assert {f["family"] for f in forms} == {"tcgen05.mma", "tcgen05.cp", "tcgen05.commit",
                                            "tcgen05.alloc"}
    assert {f["group"] for f in forms} == {"qualifiers", "operands", "near-miss"}
    assert _doc()["arch"] == "sm_100a"


def test_sample_agrees_with_ptxas() -> None:
    forms = _sample()
    assert {f["ptxas"] == "ok" for f in forms} == {True, False}
    assert len(forms) > 4000
    _compare(forms)


@pytest.mark.ptxas_full
def test_every_form_agrees_with_ptxas() -> None:
    """All 60,280 forms (``pytest -m ptxas_full``)."""
    _compare(_forms())


def test_ptxas_vs_text_is_recorded() -> None:
    said = " ".join(PTXAS_VS_TEXT)
    for needle in ("tcgen05.mma .ashift", "tcgen05.mma scale-input-d",
                   "tcgen05.mma enable-input-d", "tcgen05.mma .scale_vectorsize"):
        assert needle in said, needle
    # what ptxas takes beyond the text is a warning, not an error
    for line in ("tcgen05.mma.cta_group::1.kind::i8 [r0], rd0, rd1, r3, p0, 16;",
                 "tcgen05.mma.cta_group::1.kind::f16 [r0], rd0, rd1, r3, 1;"):
        found = check_instruction(line, registers=_registers())
        assert [f.severity for f in found] == ["warning"], found


@pytest.mark.skipif(PTXAS is None, reason="ptxas (CUDA 13) is not on PATH")
def test_ptxas_still_judges_a_sample(tmp_path: Path) -> None:
    """One form in 500 (and every accepted operand form of one kind) assembled again, one
    module per form."""
    forms = [f for f in _forms() if f["id"] % 500 == 0]
    assert len(forms) > 100
    for f in forms:
        src = tmp_path / "f.ptx"
        src.write_text("\n".join(_module([f["instruction"]])) + "\n", encoding="utf-8")
        r = subprocess.run([PTXAS, "-arch=sm_100a", str(src), "-o", str(tmp_path / "f.o")],
                           capture_output=True, text=True, timeout=120)
        assert (r.returncode == 0) == (f["ptxas"] == "ok"), (f["instruction"], r.stderr)

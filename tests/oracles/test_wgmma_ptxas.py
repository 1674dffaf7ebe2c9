"""descgen's verdict on every ``wgmma.mma_async`` form of fixtures/hopper/wgmma-forms.json.gz
equals the recorded verdict of ptxas 13.0 (``-arch`` = the form's target, sm_90a for all but
the 18 other-target forms): both :func:`check_instruction` on the line (with the registers the
form's module declares) and ``descgen lint`` (:func:`lint_lines`) on modules of the forms.

The fixture holds 3,232 forms (dense and ``.sp``, every type, N, A source, immediates, near
misses, other targets; see fixtures/hopper/README.md).  The default run judges a fixed sample
(every 8th form plus every near miss, immediate, sp-sel and target form); ``pytest -m
ptxas_full`` judges all of them (only the committed JSON is needed, not ptxas).  When ptxas is
on PATH, a small sample is assembled again and must still get the recorded verdict.
"""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path

import pytest

from descriptors.isa.instructions import (PTXAS_VS_TEXT, VALUE_RULES, RegisterDecls,
                                          check_instruction, parse_registers)
from descriptors.tools.lint import lint_lines

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "hopper" / "wgmma-forms.json.gz"


@lru_cache(maxsize=1)
def _forms() -> list[dict]:
    return json.loads(gzip.decompress(FIXTURE.read_bytes()))["forms"]


def _sample() -> list[dict]:
    """Every 8th form of the N sweeps, and every form of the smaller groups."""
    return [f for f in _forms() if f["group"] not in ("dense", "sparse") or f["id"] % 8 == 0]


@lru_cache(maxsize=4)
def _registers(header: str) -> RegisterDecls:
    return parse_registers(header.splitlines())


def _header(form: dict) -> str:
    return form["ptx"].split("wgmma.fence")[0]


def _rejects(form: dict) -> bool:
    found = check_instruction(form["instruction"], registers=_registers(_header(form)),
                              arch=form["target"])
    return any(f.severity == "error" and f.rule not in VALUE_RULES for f in found)


def _lint_rejects(forms: list[dict]) -> set[int]:
    """The ids of the forms ``descgen lint`` gives an error, reading all forms of one target as
    one module (the fixture's module with every form in place of its one wgmma line)."""
    out: set[int] = set()
    by_target: dict[str, list[dict]] = defaultdict(list)
    for f in forms:
        by_target[f["target"]].append(f)
    for fs in by_target.values():
        ptx = fs[0]["ptx"].splitlines()
        at = next(i for i, line in enumerate(ptx) if line.strip().startswith("wgmma.mma_async"))
        lines = ptx[:at] + ["  " + f["instruction"] for f in fs] + ptx[at + 1:]
        for finding in lint_lines(lines, file="forms.ptx"):
            i = finding.line - 1 - at
            if finding.severity == "error" and finding.rule not in VALUE_RULES and \
                    0 <= i < len(fs):
                out.add(fs[i]["id"])
    return out


def _compare(forms: list[dict]) -> None:
    linted = _lint_rejects(forms)
    bad = []
    for f in forms:
        ptxas = f["ptxas"] != "ok"
        ours = _rejects(f)
        if ours != ptxas or (f["id"] in linted) != ptxas:
            bad.append(f"#{f['id']} {f['instruction'][:100]}...  descgen "
                       f"{'rejects' if ours else 'accepts'}, lint "
                       f"{'rejects' if f['id'] in linted else 'accepts'}, ptxas {f['ptxas']}")
    assert not bad, f"{len(bad)} of {len(forms)} disagree:\n" + "\n".join(bad[:20])


def test_fixture_shape() -> None:
    forms = _forms()
    assert len(forms) == 3232
    assert sum(f["ptxas"] == "ok" for f in forms) == 2266
    groups = {f["group"] for f in forms}
    assert groups == {"dense", "sparse", "immediates", "sp-sel", "near-miss", "target"}


def test_sample_agrees_with_ptxas() -> None:
    forms = _sample()
    assert {f["ptxas"] == "ok" for f in forms} == {True, False}
    assert len({f["group"] for f in forms}) == 6
    _compare(forms)


@pytest.mark.ptxas_full
def test_every_form_agrees_with_ptxas() -> None:
    """All 3,232 forms (``pytest -m ptxas_full``)."""
    _compare(_forms())


def test_ptxas_vs_text_is_recorded() -> None:
    """The fixture's forms where ptxas 13.0 accepts what the text does not write are in
    PTXAS_VS_TEXT, and descgen warns about them (not an error)."""
    said = " ".join(PTXAS_VS_TEXT)
    for needle in ("wgmma .sync without .aligned", "wgmma scale-d", "wgmma d registers"):
        assert needle in said, needle
    for f in _forms():
        if f["group"] == "near-miss" and f["ptxas"] == "ok" or \
                f.get("scale_d") in ("0", "1"):
            found = check_instruction(f["instruction"], registers=_registers(_header(f)))
            assert not any(x.severity == "error" for x in found), f["instruction"]
            if ".aligned" not in f["instruction"] or f.get("scale_d") in ("0", "1"):
                assert any(x.severity == "warning" for x in found), f["instruction"]


PTXAS = shutil.which("ptxas")


@pytest.mark.skipif(PTXAS is None, reason="ptxas (CUDA 13) is not on PATH")
def test_ptxas_still_judges_a_sample(tmp_path: Path) -> None:
    """A small sample (one form in 150 and one form per other target) assembled again by the
    ptxas on PATH gets the fixture's verdict -- and the model's."""
    seen: set[str] = set()
    forms = [f for f in _forms() if f["id"] % 150 == 0 or f["group"] == "target"
             and not (f["target"] in seen or seen.add(f["target"]))]  # type: ignore[func-returns-value]

    def assemble(f: dict) -> subprocess.CompletedProcess:
        src = tmp_path / f"f{f['id']}.ptx"
        src.write_text(f["ptx"], encoding="utf-8")
        return subprocess.run([PTXAS, f"-arch={f['target']}", str(src), "-o",
                               str(tmp_path / f"f{f['id']}.o")],
                              capture_output=True, text=True, timeout=120)

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(assemble, forms))
    assert len(forms) > 20 and len(seen) == 4
    for f, r in zip(forms, results):
        assert (r.returncode == 0) == (f["ptxas"] == "ok"), (f["instruction"], r.stderr)
        assert _rejects(f) == (r.returncode != 0), f["instruction"]


#: Forms beyond the fixture, judged by ptxas 13.0 (sm_90a) when this model was written: each
#: with ptxas's verdict (True: assembles).  The module is the fixture's, with the extra
#: declarations below.
EXTRA_DECLS = ("  .reg .u32 %u<300>;\n  .reg .s32 %s<300>;\n  .reg .f16x2 %x<300>;\n"
               "  .reg .u64 %ud<4>;\n  .reg .f64 %fd<4>;\n  .reg .b16 %h<300>;\n")
_D32 = "{" + ", ".join(f"%f{i}" for i in range(32)) + "}"
_F16 = "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 " + _D32
_B1 = ("wgmma.mma_async.sync.aligned.m64n64k256.s32.b1.b1.and.popc "
       + "{" + ", ".join(f"%r{i}" for i in range(32)) + "}, %da, %db, p;")
EXTRA: list[tuple[str, bool]] = [
    (_F16.replace(".sync.aligned", ".aligned.sync") + ", %da, %db, p, 1, 1, 0, 0;", True),
    (_F16.replace(".m64n64k16.f32.f16.f16", ".f32.f16.f16.m64n64k16") + ", %da, %db, p, 1, 1, 0, 0;", True),
    (_F16.replace(".sync", ".sync.sync") + ", %da, %db, p, 1, 1, 0, 0;", True),
    (_F16.replace(".aligned", ".aligned.aligned") + ", %da, %db, p, 1, 1, 0, 0;", False),
    (_F16 + ", %ud0, %ud1, p, 1, 1, 0, 0;", True),
    (_F16 + ", %fd0, %fd1, p, 1, 1, 0, 0;", False),
    (_F16 + ", %da+8, %db, p, 1, 1, 0, 0;", True),
    (_F16 + ", %da, %db, !p, 0x1, -0x1, 0, 1;", True),
    (_F16 + ", %da, %db, 2, 1, 1, 0, 0;", False),
    (_F16 + ", %da, %db, p, %u1, 1, 0, 0;", False),
    (_F16 + ", {%x0, %x1, %x2, %x3}, %db, p, 1, 1, 0;", True),
    (_F16 + ", {%u0, %u1, %u2, %u3}, %db, p, 1, 1, 0;", False),
    (_F16.replace("%f", "%u") + ", %da, %db, p, 1, 1, 0, 0;", False),
    (_B1.replace(".and.popc", ".popc.and"), False),
    (_B1.replace(".s32.b1.b1.and.popc", ".and.s32.b1.b1.popc"), True),
    (_B1.replace(".and.popc", ".xor.popc"), False),
    (_B1.replace("{%a0", "{%a0").replace("%da", "{%f0, %f1, %f2, %f3}"), True),
]


def _extra_module(line: str) -> str:
    ptx = _forms()[0]["ptx"].replace("  .reg .pred p;\n", "  .reg .pred p;\n" + EXTRA_DECLS)
    old = _forms()[0]["instruction"]
    return ptx.replace(old, line)


@pytest.mark.parametrize("line,ok", EXTRA)
def test_extra_forms(line: str, ok: bool) -> None:
    regs = parse_registers(_extra_module(line).splitlines())
    found = check_instruction(line, registers=regs)
    assert (not any(f.severity == "error" for f in found)) == ok, \
        [str(f) for f in found]


@pytest.mark.skipif(PTXAS is None, reason="ptxas (CUDA 13) is not on PATH")
def test_extra_forms_still_judged_so(tmp_path: Path) -> None:
    for i, (line, ok) in enumerate(EXTRA):
        src = tmp_path / f"x{i}.ptx"
        src.write_text(_extra_module(line), encoding="utf-8")
        r = subprocess.run([PTXAS, "-arch=sm_90a", str(src), "-o", str(tmp_path / "x.o")],
                           capture_output=True, text=True, timeout=120)
        assert (r.returncode == 0) == ok, (line, r.stdout + r.stderr)

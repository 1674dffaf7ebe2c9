"""descgen on NVIDIA's production tcgen05 kernels: the unedited ``cuobjdump -sass`` listings of
``fixtures/production`` (cubins of the public ``flashinfer-cubin`` wheel; ``build.py`` there
regenerates them).  Working kernels: lint reports no error and no warning; every MMA's
instruction descriptor is read (the kernels set it with ``UMOV``, predicated ``UMOV`` or a
spill reload) and judged; dump reads each word with the kind of the opcode that uses it; an
illegal word planted in a copy is caught at every MMA it reaches.

The default run lints the manifest's ``default`` sample (every UTC* spelling, every arch) and
dumps and plants errors into some of it; ``-m production_full`` takes all 40 listings and the
rest of the sample.
"""

from __future__ import annotations

import gzip
import json
import re
from functools import lru_cache
from pathlib import Path

import pytest

import descriptors
from descriptors.tools.dump import scan_lines
from descriptors.tools.lint import lint_lines
from descriptors.readers import Instruction
from descriptors.readers.sass import mma_kinds, read_sass

PROD = Path(__file__).resolve().parents[2] / "fixtures" / "production"
MANIFEST = json.loads((PROD / "manifest.json").read_text())["fixtures"]
DEFAULT = [f["file"] for f in MANIFEST if f["default"]]
ALL = [f["file"] for f in MANIFEST]
FULL = [pytest.param(name, marks=pytest.mark.production_full) for name in ALL
        if name not in DEFAULT]


@lru_cache(maxsize=12)
def _lines(name: str) -> tuple[str, ...]:
    with gzip.open(PROD / name, "rt") as fh:
        return tuple(fh.read().splitlines())


@lru_cache(maxsize=12)
def _lint(name: str) -> tuple:
    return tuple(lint_lines(_lines(name), file=name))


@lru_cache(maxsize=12)
def _mmas(lines: tuple[str, ...]) -> list[Instruction]:
    return [i for i in read_sass(lines) if isinstance(i, Instruction)
            and i.opcode.startswith("UTC") and "MMA" in i.opcode]


@pytest.mark.parametrize("name", DEFAULT + FULL)
def test_no_false_alarm(name):
    found = _lint(name)
    assert [str(f) for f in found if f.severity != "note"] == []
    entry = next(f for f in MANIFEST if f["file"] == name)
    # the target and why: 'code for sm_100' without EF_CUDA_ACCELERATORS is sm_100f
    arch = next(f for f in found if f.rule == "lint.arch")
    want = {"code for sm_100": "sm_100f", "code for sm_100a": "sm_100a",
            "code for sm_103a": "sm_103a"}[entry["arch"][0]]
    assert arch.message.startswith(f"arch-gated rules follow {want}: target {want} from "
                                   f"'{entry['arch'][0]}'")


@pytest.mark.parametrize("name", DEFAULT + FULL)
def test_every_mma_idesc_is_judged(name):
    """The kernels give every MMA one constant instruction descriptor on every path: each is
    read whole (at least 95% is the bar; these kernels reach 100%) and judged, never a
    run-time note."""
    mmas = _mmas(_lines(name))
    entry = next(f for f in MANIFEST if f["file"] == name)
    assert len(mmas) == sum(entry["counts"][k] for k in ("UTCHMMA", "UTCQMMA", "UTCOMMA",
                                                        "UTCIMMA"))
    constant = [m for m in mmas if _idesc(m).value.is_const or _single_written(_idesc(m))]
    assert len(constant) >= 0.95 * len(mmas)
    assert len(constant) == len(mmas)
    runtime = [f for f in _lint(name) if f.rule == "lint.runtime" and f.operand == "idesc"]
    assert runtime == []


def _idesc(mma: Instruction):
    return next(o for o in mma.operands if o.text.startswith("idesc["))


def _single_written(op) -> bool:
    written = {a.bits for a in op.alternatives if not a.skipped}
    return len(written) == 1 and next(iter(written)).is_const


@pytest.mark.parametrize("name", DEFAULT[::2] + [pytest.param(n, marks=pytest.mark.production_full)
                                                  for n in DEFAULT[1::2]])
def test_dump_reads_each_idesc_with_the_opcode_s_kind(name):
    lines = _lines(name)
    found = {(f.line, f.word): f for f in scan_lines(list(lines))}
    for mma in _mmas(lines):
        op = _idesc(mma)
        kinds, _ = mma_kinds(mma.opcode, [o.text for o in mma.operands])
        words = {a.bits.value for a in op.alternatives if not a.skipped} or {op.value.value}
        origins = {a.origin[0] for a in op.alternatives if a.origin and not a.skipped} or \
            {op.origin[0]}
        hits = [found[(ln, w)] for ln in origins for w in words if (ln, w) in found]
        assert hits, (mma.line, mma.text)
        for f in hits:
            assert f.best.descriptor == "idesc" and f.best.kind in kinds, (mma.text, f)
            assert any(f"of {mma.opcode} at line" in e for e in f.best.evidence)


def _planted(name: str) -> tuple[list[str], set[int]]:
    """A copy of the listing whose instruction-descriptor immediates have N=264 (n_dim 33,
    which no kind allows), and the lines of the MMAs that read them."""
    lines = list(_lines(name))
    mmas = _mmas(_lines(name))
    changed: dict[int, str] = {}
    for mma in mmas:
        op = _idesc(mma)
        kinds, _ = mma_kinds(mma.opcode, [o.text for o in mma.operands])
        for alt in op.alternatives or [op]:
            origin = getattr(alt, "origin", None)
            if origin is None or origin[0] in changed:
                continue
            text = lines[origin[0] - 1]
            m = re.search(r"(UMOV UR\d+, )(0x[0-9a-f]+)", text)
            if m is None:
                continue
            word = int(m.group(2), 16)
            fields = dict(descriptors.decode("idesc", word, kind=kinds[0]).fields)
            fields["n_dim"] = 33
            bad = descriptors.encode_raw("idesc", kind=kinds[0], force=True, **fields)
            changed[origin[0]] = text.replace(m.group(0), f"{m.group(1)}{bad:#x}")
    for ln, text in changed.items():
        lines[ln - 1] = text
    return lines, {m.line for m in mmas}


@pytest.mark.parametrize("name", DEFAULT[:2] + [pytest.param(n, marks=pytest.mark.production_full)
                                                for n in DEFAULT[2:]])
def test_planted_illegal_idesc_is_caught_at_every_mma(name):
    lines, mma_lines = _planted(name)
    errors = {f.line for f in lint_lines(lines, file=name)
              if f.severity == "error" and f.rule == "idesc.shape" and f.operand == "idesc"}
    assert errors == mma_lines

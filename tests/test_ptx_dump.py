"""descgen dump on PTX: the findings of every PTX fixture pinned (golden file), and the PTX
reader's speed-ups (recurring lines parsed once, memos of declarations and immediates) shown
to change nothing.

``fixtures/lint/ptx-dump.expected.json`` holds, per PTX fixture (the hand-written ones and the
nvcc/Triton modules, gzipped), each finding's line, text, word and best reading with its
evidence, and a SHA-256 of all findings in full (``DumpFinding.to_dict``, every candidate and
its decode): the JSON and text outputs are drawn from exactly that.  After an intended change
regenerate it with ``DESCGEN_UPDATE_GOLDEN=1 python -m pytest tests/test_ptx_dump.py`` and
review the diff.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import random
import sys
from pathlib import Path

import pytest

from descriptors.dump import scan
from descriptors.readers import ptx
from descriptors.readers.ptx import read_ptx

ROOT = Path(__file__).resolve().parent.parent
FIX = ROOT / "fixtures" / "lint"
GOLDEN = FIX / "ptx-dump.expected.json"
PTX = sorted(FIX.glob("*.ptx")) + sorted(FIX.glob("*/*.ptx.gz"))


def _text(path: Path) -> bytes:
    return gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()


def _findings(data: bytes) -> dict:
    found = scan(data)
    full = json.dumps([f.to_dict() for f in found], sort_keys=True)
    return {
        "sha256": hashlib.sha256(full.encode()).hexdigest(),
        "findings": [{"line": f.line, "text": f.text, "word": f.hex, "size": f.size,
                      "descriptor": f.best.descriptor, "kind": f.best.kind,
                      "form": f.best.form, "confidence": f.best.confidence,
                      "evidence": list(f.best.evidence)} for f in found],
    }


def test_ptx_fixtures_are_all_there():
    assert len(PTX) >= 50 and any(p.suffix == ".gz" for p in PTX)


def test_ptx_findings_match_golden_file():
    got = {str(p.relative_to(FIX)): _findings(_text(p)) for p in PTX}
    if os.environ.get("DESCGEN_UPDATE_GOLDEN"):
        GOLDEN.write_text(json.dumps(got, indent=1) + "\n")
    expected = json.loads(GOLDEN.read_text())
    assert got.keys() == expected.keys()
    for name in got:
        assert got[name] == expected[name], name


def _module(seed: int) -> list[str]:
    """A generated nvcc-style module (the benchmark's), about 60 kB."""
    sys.path.insert(0, str(ROOT / "tests"))
    try:
        from bench_dump import _ptx_kernel
    finally:
        sys.path.pop(0)
    rng = random.Random(seed)
    lines = [".version 9.0", ".target sm_100a", ".address_size 64"]
    for block in range(150):
        lines += _ptx_kernel(rng, block % 40)  # kernels recur, as in a real module
    return lines


class _Forgetful(dict):
    """A memo that never finds what was put in it."""

    def get(self, key, default=None):
        return default


@pytest.mark.parametrize("seed", [1, 2])
def test_reader_caches_change_nothing(monkeypatch, seed):
    """The PTX reader parses a recurring line once and memoises declarations and immediates;
    with every cache off (each line parsed, each declaration read afresh) the items are the
    same, on the fixtures and on generated modules -- including lines split, commented and
    joined so that statements span lines."""
    texts = [_text(p).decode().splitlines() for p in PTX[:: 5]] + [_module(seed)]
    mangled = []
    for line in _module(seed + 10)[:400]:
        mangled += [line + " // c", "/* x */ " + line] if ";" in line else [line]
        if line.endswith(";") and "," in line:
            a, b = line.split(",", 1)
            mangled += [a + ",", b]
    texts.append(mangled)
    cached = [list(read_ptx(t)) for t in texts]
    cached_again = [list(read_ptx(t)) for t in texts]  # memos warm from the first pass
    monkeypatch.setattr(ptx, "_LINE_CACHE_CHARS", -1)  # no line is remembered
    monkeypatch.setattr(ptx, "_DECLS", _Forgetful())
    monkeypatch.setattr(ptx, "_CONSTS", _Forgetful())
    plain = [list(read_ptx(t)) for t in texts]
    assert sum(len(p) for p in plain) > 900
    assert cached == plain
    assert cached_again == plain

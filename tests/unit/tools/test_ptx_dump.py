"""descgen dump on PTX: the findings of every PTX fixture pinned (golden file), and the PTX
reader's speed-ups (recurring lines parsed once, memos of declarations and immediates) shown
to change nothing.

``fixtures/lint/ptx-dump.expected.json`` holds, per PTX fixture (the hand-written ones and the
nvcc/Triton modules, gzipped), each finding's line, text, word and best reading with its
evidence, and a SHA-256 of all findings in full (``FoundWord.to_dict``, every candidate and
its decode): the JSON and text outputs are drawn from exactly that.  After an intended change
regenerate it with ``DESCGEN_UPDATE_GOLDEN=1 python -m pytest tests/unit/tools/test_ptx_dump.py`` and
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

from descriptors.tools.dump import scan
from descriptors.readers import ptx
from descriptors.readers.ptx import read_ptx

ROOT = Path(__file__).resolve().parents[3]
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
    sys.path.insert(0, str(ROOT / "tests" / "benchmarks"))
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


def _named_module(kernels: int = 60, seed: int = 3) -> bytes:
    """Kernels whose MMAs (of several kinds, one or two per kernel) read the same few
    descriptor words: every occurrence gets evidence naming its own MMA's line."""
    rng = random.Random(seed)
    lines = [".version 9.0", ".target sm_100a", ".address_size 64", ""]
    for b in range(kernels):
        kind = rng.choice(("f16", "tf32", "f8f6f4"))
        idesc = rng.choice((138413200, 136316048, 142607504))
        mma = f"\ttcgen05.mma.cta_group::1.kind::{kind} \t[%r1{b % 2}], %rd2, %rd3, %r37, %p1;"
        lines += [f".visible .entry k{b}(", "\t.param .u64 p0", ")", "{",
                  "\t.reg .b32 \t%r<64>;", "\t.reg .b64 \t%rd<32>;", "\t.reg .pred \t%p<4>;",
                  f"\tmov.b32 \t%r37, {idesc};", "\tmov.b64 \t%rd10, 4611756662049538112;",
                  "\tor.b64 \t%rd2, %rd10, 64;", "\tmov.b64 \t%rd3, 4611756662049540160;",
                  "\tmov.u32 \t%r2, %tid.x;", "\tsetp.eq.s32 \t%p1, %r2, 0;", mma]
        if rng.random() < 0.5:  # a second MMA reading them: two pieces of evidence
            lines.append(mma)
        lines += ["\tret;", "}", ""]
    return ("\n".join(lines) + "\n").encode()


def test_dump_output_of_words_named_by_mmas_on_many_lines():
    """The rows and JSON of words whose readings differ only in evidence naming the line are
    built from caches (descriptors.render.dump): they must be what each finding says."""
    from typer.testing import CliRunner

    from descriptors.render.dump import _cells, _line
    from cli.main import app

    data = _named_module()
    findings = scan(data)
    named = [f for f in findings if f.best.evidence]
    assert len({f.best.evidence for f in named}) == len(named) > 100  # each names its line
    assert len({(f.word, f.best.kind) for f in named}) < 20  # the same few words
    runner = CliRunner()
    got = runner.invoke(app, ["dump", "-", "--format", "json"], input=data)
    assert got.exit_code == 0
    body = ",".join("\n  " + json.dumps(f.to_dict()) for f in findings)
    assert got.stdout == '{"input": "<stdin>", "findings": [' + body + "\n]}\n"
    got = runner.invoke(app, ["dump", "-", "--plain", "--table-only"], input=data)
    assert got.exit_code == 0
    rows = got.stdout.splitlines()[2:2 + len(findings)]
    assert rows == [_line(_cells(f, f.best.summary)) for f in findings]


def test_evaluated_opcodes_are_those_eval_has_a_case_for():
    """``_Stmt`` asks ``_eval`` only for the opcodes of ``ptx._EVALUATED``: a case added to
    ``_eval`` and not there would never run (its values silently unknown)."""
    import inspect
    import re as _re

    from descriptors.readers import ptx

    source = inspect.getsource(ptx._eval)
    cased = set(_re.findall(r'base == "(\w+)"', source))
    for group in _re.findall(r"base in \(([^)]*)\)", source):
        cased |= set(_re.findall(r'"(\w+)"', group))
    assert cased == ptx._EVALUATED

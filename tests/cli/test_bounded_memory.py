"""Memory of ``lint`` and ``dump`` stays bounded as their findings grow, and ``lint -j N`` never
runs more processes than there are CPUs.  Each measure runs the command in a fresh process
(its peak RSS, ``resource.getrusage``) on N and 4N lines; the bounds (how many findings are
held) are lowered in that process so the inputs stay small and the test fast."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path

import pytest

from descriptors.readers import ptx
from descriptors.tools.lint import Ordered, lint_lines, order

ROOT = Path(__file__).resolve().parents[2]
MMA = "tcgen05.mma.cta_group::1.kind::f16 [%r2], [%r8], %rd3, 272630928, p;\n"

#: Runs descgen (its entry point) in a child process after the statements of argv[1], with
#: argv[2:] as its arguments, and prints the child's peak RSS in kB.
_MEASURE = """
import resource, subprocess, sys
child = "import sys; exec(sys.argv[1]); sys.argv[1:2] = []; from cli.main import main; main()"
subprocess.run([sys.executable, "-c", child, *sys.argv[1:]], stdout=subprocess.DEVNULL,
               stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def _peak_kb(args: list[str], setup: str = "") -> int:
    r = subprocess.run([sys.executable, "-c", _MEASURE, setup, *args], cwd=ROOT, timeout=60,
                       capture_output=True, text=True)
    return int(r.stdout)


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_lint_memory_does_not_grow_with_its_findings(tmp_path, fmt):
    # one error and one note a line; 256 findings kept before a sorted run goes to a file
    small, large = tmp_path / "small.ptx.gz", tmp_path / "large.ptx.gz"
    small.write_bytes(gzip.compress((MMA * 1500).encode()))
    large.write_bytes(gzip.compress((MMA * 6000).encode()))
    setup = "import descriptors.tools.lint as l; l.SPILL_FINDINGS = 256"
    grown = _peak_kb(["lint", "-f", fmt, str(large)], setup) - \
        _peak_kb(["lint", "-f", fmt, str(small)], setup)
    # measured: 2.7 MB; with every finding and the whole output held (before): 8 MB of text,
    # 30 MB of JSON
    assert grown < 5_000, grown


def test_dump_memory_does_not_grow_with_a_log_that_keeps_a_sass_run_open(tmp_path):
    def log(n: int) -> str:
        return "".join(f"        /*{i * 16:04x}*/                   MOV R1, c[0x0][0x28] ;\n"
                       if i % 60 == 0 else f"step {i}: idesc=0x08400490 adesc=0x4000404000010000\n"
                       for i in range(n))
    small, large = tmp_path / "small.log", tmp_path / "large.log"
    small.write_text(log(15_000))
    large.write_text(log(60_000))
    setup = "import descriptors.tools.dump.logs as l; l._QUEUE_MAX = 512"
    grown = _peak_kb(["dump", "--plain", str(large)], setup) - \
        _peak_kb(["dump", "--plain", str(small)], setup)
    # measured: 0.1 MB; with the findings held until the run ended (before): 32 MB
    assert grown < 5_000, grown


def test_spilled_findings_come_out_in_the_order_of_order(tmp_path):
    # a SASS-like order: notes at line 0 last, lines out of order, equal keys in the order made
    findings = list(lint_lines([MMA] * 300, file="x.ptx"))
    shuffled = findings[::-1] + findings[:50]
    for spill in (7, 64, 10_000):
        got = Ordered(shuffled, spill=spill)
        runs = list(got.runs)
        assert list(got) == order(shuffled)
        assert all(not os.path.exists(p) for p in runs)
        assert (len(runs) > 0) == (spill < len(shuffled))


def test_spilled_findings_are_removed_when_the_output_stops():
    got = Ordered(lint_lines([MMA] * 100, file="x.ptx"), spill=16)
    runs = list(got.runs)
    assert len(runs) == 12 and all(os.path.exists(p) for p in runs)
    it = iter(got)
    next(it)
    it.close()
    assert not any(os.path.exists(p) for p in runs)


def test_a_wide_statement_keeps_its_text_cut_and_a_piece_ends_at_its_characters(monkeypatch):
    wide = "mov.b32 %r1, {" + ", ".join(f"%r{i}" for i in range(900)) + "};"
    stmts = [item for kind, _, item in ptx._statements([wide]) if kind == "stmt"]
    (st,) = stmts
    body = wide[:-1]  # (the text of a statement ends before its ';')
    assert len(body) > 6000 and st.size == len(body)
    assert st.text == body[:ptx._TEXT_KEPT] + f" ... ({len(body)} characters)"
    # an instruction the reader yields keeps its text whole
    st_wide = ("tcgen05.st.sync.aligned.32x32b.x128.b32 [%r1], {"
               + ", ".join(f"%r_value_of_column_{i:04}" for i in range(128)) + "}")
    (ins,) = [i for i in ptx.read_ptx([st_wide + ";"]) if getattr(i, "opcode", "")[:7] == "tcgen05"]
    assert len(st_wide) > ptx._TEXT_KEPT and ins.text == st_wide
    monkeypatch.setattr(ptx, "_PIECE_CHARS", 20_000)
    lines = [".visible .entry k()", "{", ".reg .b32 %r<1000>;", *[wide] * 10, MMA, "ret;", "}"]
    splits = [i for i in ptx.read_ptx(lines) if getattr(i, "use", None) == "split"]
    assert [s.line for s in splits] == [7, 11]  # 20,000 characters reached every 4th statement


def _workers_seen(args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cli.main", *args], cwd=ROOT, timeout=60,
                          capture_output=True, text=True)


def test_jobs_are_capped_at_the_cpus_available_and_say_so():
    from cli.lint_cmd import cpus

    files = [str(p) for p in sorted((ROOT / "fixtures" / "lint").glob("bad_*.ptx"))][:6]
    one = _workers_seen(["lint", "-j", "1", *files])
    many = _workers_seen(["lint", "-j", "300", *files])
    assert many.stdout == one.stdout and many.returncode == one.returncode == 1
    assert many.stderr == f"descgen: note: -j 300 lowered to {cpus()}, the CPUs available\n"
    assert one.stderr == ""
    at = _workers_seen(["lint", "-j", str(cpus()), *files])
    assert at.stderr == "" and at.stdout == one.stdout

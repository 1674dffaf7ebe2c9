"""The benchmark scripts under tests/ still run, print every row, and refuse to time a command
that fails (a failing command exits early: its time would be a wrong number, not a slow one).

They run here with tiny settings (``bench_speed.py --quick``, ``bench_codec.py --quick``,
``bench_cli.py --repeat 1``, ``bench_dump.py --sizes 0.02 --repeat 1``): these tests check that the
scripts work, never what they measure (issue #12's numbers come from full runs, quoted in the
README)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from descriptors import LAYOUTS

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests" / "benchmarks"


def _script(name: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, str(TESTS / name), *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def _bench(name: str):
    sys.path.insert(0, str(TESTS))
    try:
        return __import__(name)
    finally:
        sys.path.pop(0)


#: a row of bench_speed: the name, then ns columns, then ratios like ``86.9x``
_RATIO = re.compile(r"\s(\d+\.\d)x$")


def test_bench_speed_prints_every_row_with_a_ratio() -> None:
    done = _script("bench_speed.py", "--quick", "--every-layout")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    names = ["decode('smem', w)", "encode('idesc', f16 ...)", "floor: f('smem', **params)",
             *(f"{label}: encode" for label in _bench("bench_speed").EVERY_LAYOUT),
             "zcm: decode .values, new word", "tmem: decode .values"]
    for name in names:
        row = next((line for line in lines if line.startswith(name + " ")), None)
        assert row is not None, name
        assert _RATIO.search(row) and float(_RATIO.search(row).group(1)) > 0, row
    assert any(line.startswith("smem from a uint64 array") for line in lines) or \
        "NumPy is not installed" in done.stdout
    assert "encode_many, 1,000 smem rows" in done.stdout


def test_bench_speed_side_by_side() -> None:
    done = _script("bench_speed.py", "--quick", "--before", str(ROOT))
    assert done.returncode == 0, done.stderr
    row = next(line for line in done.stdout.splitlines() if line.startswith("decode('smem', w) "))
    assert len(re.findall(r"\d+\.\dx", row)) == 2, row  # before and after


def test_bench_cli_times_every_command() -> None:
    done = _script("bench_cli.py", "--repeat", "1")
    assert done.returncode == 0, done.stderr
    for label, _argv in [('python -c "import typer"', []), *_bench("bench_cli").COMMANDS]:
        row = next((line for line in done.stdout.splitlines() if line.startswith(label)), None)
        assert row is not None and re.search(r"\d+\.\d+x$", row), label


def test_bench_cli_refuses_to_time_a_failing_command(monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    bench_cli = _bench("bench_cli")
    monkeypatch.setattr(bench_cli, "COMMANDS", [("bad word", ["decode", "0x1", "--as", "nope"])])
    monkeypatch.setattr(sys, "argv", ["bench_cli.py", "--repeat", "1"])
    with pytest.raises(SystemExit) as stop:
        bench_cli.main()
    assert "bad word (now) exited 2" in str(stop.value)
    assert "bad word" not in capsys.readouterr().out  # no time printed for it


def test_bench_dump_runs_every_kind() -> None:
    done = _script("bench_dump.py", "--sizes", "0.02", "--kinds", "mixed,printf,sass,ptx",
                   "--repeat", "1")
    # at 20 kB the interpreter's start-up dominates: the targets fail (1), nothing crashed (2)
    assert done.returncode in (0, 1), done.stdout + done.stderr
    for kind in ("mixed", "printf", "sass", "ptx"):
        row = next((line for line in done.stdout.splitlines() if line.startswith(kind)), None)
        assert row is not None, kind
        assert "nan" not in row and "!" not in row, row
    assert "failed" not in done.stdout


def test_bench_dump_counts_a_failing_command() -> None:
    bench_dump = _bench("bench_dump")
    bench_dump.FAILED.clear()
    _seconds, _rss, code = bench_dump._run([sys.executable, "-c", "raise SystemExit(3)"], ROOT)
    assert code == 3
    assert bench_dump.FAILED == [f"{sys.executable} -c raise SystemExit(3)"]
    bench_dump.FAILED.clear()


def test_bench_codec_checks_and_times_every_layout() -> None:
    done = _script("bench_codec.py", "--quick")
    assert done.returncode == 0, done.stderr
    for name in LAYOUTS:
        assert any(line.split()[:1] == [name] for line in done.stdout.splitlines()), name
    assert "minimum ratio: raw encode" in done.stdout


@pytest.mark.parametrize("sample", [[], ["--hopper"]])
def test_bench_lint_prints_every_row(sample: list[str]) -> None:
    """bench_lint on one small listing (Blackwell, or Hopper with --hopper): every row, each
    with its ratio to the regex pass, and the verdict on the goal."""
    done = _script("bench_lint.py", "--quick", *sample)
    assert done.returncode == 0, done.stderr
    for name in ("regex", "lint_lines", "descgen lint", "start-up floor"):
        row = next((line for line in done.stdout.splitlines() if line.startswith(name)), None)
        assert row is not None and re.search(r"\s\d+\.\dx regex$", row), name
    assert "goal: descgen lint within 4.0x of the regex pass:" in done.stdout


def test_bench_caches_takes_each_cache_away() -> None:
    done = _script("bench_caches.py", "--quick")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split()[1:] == ["lint", "sass", "lint", "ptx", "dump", "dump", "log"]
    rows = [line for line in lines[1:] if line.startswith("descriptors.")]
    assert len(rows) == 3 and all(len(re.findall(r"\d+\.\d\dx", r)) == 4 for r in rows), lines

"""Benchmark: ``descgen lint`` on production SASS, against a plain Python regex pass that parses
every instruction line of the same files.

* ``regex`` -- the baseline: each listing decompressed and read line by line, every
  instruction line matched by one regular expression (address, guard, opcode, operands) and its
  operands split on commas (:func:`regex_pass`);
* ``lint`` -- the call users make: ``descgen lint FILE...`` in a fresh process, start-up
  included (``-j 1``), and the library call ``descriptors.tools.lint.lint_lines`` on the same
  lines, cold: in a fresh process each round (what it keeps from one call would help the
  next), its imports not timed.

* ``start-up floor`` -- what any typer CLI pays before reading a line: a fresh ``python -c
  "import typer"`` (the interpreter, site and typer), for scale.

Inputs: the production sample, all 40 listings of ``fixtures/production``; ``--subset``: the
10 of them the tests read by default (the manifest's ``default``; start-up, about 0.1 s, is
then more than the whole regex pass); ``--hopper``: the 13 sm_90a production listings of
``fixtures/hopper/production`` (FlashAttention-3, cuSPARSELt; HGMMA/IGMMA/QGMMA descriptors
through the same data flow).  Best of ``--repeat`` interleaved rounds.  The modules are
byte-compiled first (``compileall``, as an install does), so no round pays for compiling
them.  It prints lines per second and the ratio to the regex pass; the goal is lint within 4x
of it.  Not a test: ``tests/benchmarks/test_benchmarks.py`` runs it with ``--quick`` so it cannot rot.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROD = ROOT / "fixtures" / "production"
HOPPER = ROOT / "fixtures" / "hopper" / "production"
GOAL = 4.0

#: One SASS instruction line: address, guard, opcode with modifiers, operands.
_INSTRUCTION = re.compile(r"\s*/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)\s*([^;]*);")


def regex_pass(paths: list[Path]) -> int:
    """Parse every instruction line of the listings; the number of instructions."""
    count = 0
    for path in paths:
        with gzip.open(path, "rt") as fh:
            for line in fh:
                m = _INSTRUCTION.match(line)
                if m is not None:
                    [t.strip() for t in m.group(4).split(",")]
                    count += 1
    return count


_LIBRARY = """
import gzip, sys, time
from descriptors.readers.binary import text_lines
from descriptors.tools.lint import lint_lines
t = time.perf_counter()
for path in sys.argv[1:]:
    with gzip.open(path, "rb") as fh:
        sum(1 for _ in lint_lines(text_lines(fh), file=path))
print(time.perf_counter() - t)
"""


def library_pass(paths: list[Path]) -> float:
    """The library call, cold: in a fresh process (so nothing it keeps from an earlier round
    helps), the imports not timed; the seconds it took."""
    r = subprocess.run([sys.executable, "-c", _LIBRARY, *map(str, paths)], cwd=ROOT,
                       capture_output=True, text=True, check=True)
    return float(r.stdout.split()[-1])


def cli_pass(paths: list[Path]) -> int:
    r = subprocess.run([sys.executable, "-m", "cli.main", "lint", "-j", "1",
                        *map(str, paths)], cwd=ROOT, capture_output=True, text=True)
    if r.returncode not in (0, 1):
        raise SystemExit(f"descgen lint failed ({r.returncode}): {r.stderr.strip()}")
    return len(r.stdout)


def floor_pass(paths: list[Path]) -> int:
    subprocess.run([sys.executable, "-c", "import typer"], cwd=ROOT, check=True)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--subset", action="store_true",
                    help="the 10 listings the tests read by default, not all 40")
    ap.add_argument("--repeat", type=int, default=3, help="interleaved rounds (best of)")
    ap.add_argument("--quick", action="store_true", help="one small listing, one round")
    ap.add_argument("--hopper", action="store_true",
                    help="the sm_90a production listings (fixtures/hopper/production)")
    args = ap.parse_args()
    if args.hopper:
        found = json.loads((HOPPER / "manifest.json").read_text())["fixtures"]
        chosen = [{"file": f"{name}.sass.gz", "lines": f["lines"]} for name, f in found.items()]
        folder = HOPPER
    else:
        manifest = json.loads((PROD / "manifest.json").read_text())["fixtures"]
        chosen = [f for f in manifest if not args.subset or f["default"]]
        folder = PROD
    if args.quick:
        chosen = sorted(chosen, key=lambda f: f["lines"])[:1]
        args.repeat = 1
    paths = [folder / f["file"] for f in chosen]
    lines = sum(f["lines"] for f in chosen)
    import compileall
    for folder in ("descriptors", "cli"):
        compileall.compile_dir(ROOT / folder, quiet=1)
    best = {"regex": float("inf"), "lint_lines": float("inf"), "descgen lint": float("inf"),
            "start-up floor": float("inf")}
    for _ in range(max(1, args.repeat)):
        for name, fn in (("regex", regex_pass), ("lint_lines", library_pass),
                         ("descgen lint", cli_pass), ("start-up floor", floor_pass)):
            t = time.perf_counter()
            took = fn(paths)
            secs = time.perf_counter() - t
            if name == "lint_lines":
                secs = took  # (timed in its own process)
            best[name] = min(best[name], secs)
    print(f"{len(paths)} listings, {lines:,} lines (best of {args.repeat})")
    base = best["regex"]
    for name, secs in best.items():
        rate = f"{lines / secs:>10,.0f} lines/s" if name != "start-up floor" else " " * 18
        print(f"{name:<14} {secs:8.3f} s  {rate}  {secs / base:6.1f}x regex")
    ratio = best["descgen lint"] / base
    print(f"goal: descgen lint within {GOAL}x of the regex pass: "
          f"{'met' if ratio <= GOAL else 'not met'} ({ratio:.1f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

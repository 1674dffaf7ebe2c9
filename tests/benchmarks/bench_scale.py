"""Benchmark: how ``descgen lint``'s time and memory grow with the size of a listing, for the
shapes that stress the readers (generated SASS, each at N, 2N and 4N):

* ``tiny functions`` -- N functions of a few instructions each, every one with an MMA whose
  descriptors are constants (a listing of many small kernels);
* ``empty functions`` -- N functions of one instruction (100,000 functions in one file at 4N
  with the default N);
* ``one function`` -- one function of N instructions (2 million at 4N with the default N),
  an MMA every 1,000 instructions reading registers written far before it (the reader analyses
  it in pieces of ``MAX_FUNCTION`` instructions);
* ``branches`` -- one function of N blocks, each ending in a branch whose target is outside the
  function (``@P0 BRA 0x10000000``): every block may follow every such branch, the shape that
  made the data flow cubic;
* ``indirect`` -- the same with indirect branches (``@P0 BRX R2``).

Each size runs in a fresh process that reads the listing from a file, line by line (so the
input is not held in memory): the CPU seconds of ``lint_lines`` and the peak resident memory
(``ru_maxrss``) less that of the process before it read a line.  The table gives both at each
size and the growth from N to 4N (linear: 4x).  Not a test: ``test_bench_scale.py`` runs it
with ``--quick`` so it cannot rot; ``tests/unit/readers/test_dataflow_scale.py`` asserts the
branch shape's growth on small N.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_MMA = "UTCHMMA tmem[UR9], gdesc[UR4], tmem[UR6], tmem[UR12], idesc[UR13], UP0 ;"
_SETUP = ("UMOV UR4, 0x40004040 ;", "UMOV UR5, 0x40004040 ;", "UMOV UR13, 0x10400490 ;",
          "UMOV UR12, 0x0 ;", "R2UR UR6, R0 ;", "R2UR UR9, R1 ;")


def _numbered(body: Iterator[str]) -> Iterator[str]:
    """Instruction lines with cuobjdump's address column."""
    for a, text in enumerate(body):
        yield f"        /*{a * 16:04x}*/                   {text}"


def tiny_functions(n: int) -> Iterator[str]:
    yield "\tcode for sm_100a"
    for f in range(n):
        yield f"\t\tFunction : kernel_{f}"
        yield from _numbered(iter((*_SETUP, _MMA, "EXIT ;")))


def empty_functions(n: int) -> Iterator[str]:
    yield "\tcode for sm_100a"
    for f in range(n):
        yield f"\t\tFunction : kernel_{f}"
        yield from _numbered(iter(("EXIT ;",)))


def one_function(n: int) -> Iterator[str]:
    def body() -> Iterator[str]:
        yield from _SETUP
        for i in range(n):
            if i % 1000 == 999:
                yield _MMA
            else:
                yield f"IADD3 R{i % 200 + 2}, R{(i * 7) % 200 + 2}, 0x{i:x}, RZ ;"
        yield "EXIT ;"
    yield "\tcode for sm_100a"
    yield "\t\tFunction : one"
    yield from _numbered(body())


def _branchy(n: int, branch: str) -> Iterator[str]:
    def body() -> Iterator[str]:
        for b in range(n):
            yield f"UMOV UR{4 + b % 8}, 0x{b:x} ;"
            yield f"IADD3 R{b % 16}, R{(b + 1) % 16}, 0x1, RZ ;"
            yield branch
        yield _MMA
        yield "EXIT ;"
    yield "\tcode for sm_100a"
    yield "\t\tFunction : branchy"
    yield from _numbered(body())


def branches(n: int) -> Iterator[str]:
    return _branchy(n, "@P0 BRA 0x10000000 ;")


def indirect(n: int) -> Iterator[str]:
    return _branchy(n, "@P0 BRX R2 -0x10 ;")


#: name, generator, N (full run), N (--quick)
SHAPES: list[tuple[str, Callable[[int], Iterator[str]], int, int]] = [
    ("tiny functions", tiny_functions, 12_500, 250),
    ("empty functions", empty_functions, 25_000, 500),
    ("one function", one_function, 500_000, 5_000),
    ("branches", branches, 4_000, 100),
    ("indirect", indirect, 4_000, 100),
]

_MEASURE = """
import resource, sys, time
from descriptors.tools.lint import lint_lines
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.process_time()
with open(sys.argv[1], encoding="utf-8") as fh:
    found = sum(1 for _ in lint_lines(line.rstrip("\\n") for line in fh))
took = time.process_time() - t
print(took, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base, found)
"""


def measure(lines: Iterator[str], tmp: Path) -> tuple[float, float, int]:
    """``(CPU seconds, peak memory in MB above the start, findings)`` of linting the lines in
    a fresh process."""
    path = tmp / "listing.sass"
    with open(path, "w", encoding="utf-8") as fh:
        for line in lines:
            fh.write(line + "\n")
    r = subprocess.run([sys.executable, "-c", _MEASURE, str(path)], cwd=ROOT,
                       capture_output=True, text=True, check=True)
    secs, kb, found = r.stdout.split()
    return float(secs), int(kb) / 1024, int(found)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="tiny sizes (checks the script runs)")
    ap.add_argument("--shape", action="append", help="only these shapes (by name)")
    ap.add_argument("--n", type=int, help="N for every shape run (instead of each one's own)")
    args = ap.parse_args(argv)
    print(f"{'shape':<16} {'N':>9} {'s (N)':>8} {'s (2N)':>8} {'s (4N)':>8} {'x time':>7}  "
          f"{'MB (N)':>7} {'MB (2N)':>7} {'MB (4N)':>7} {'x mem':>6}")
    with tempfile.TemporaryDirectory() as d:
        for name, gen, full, quick in SHAPES:
            if args.shape and name not in args.shape:
                continue
            n = args.n or (quick if args.quick else full)
            rows = [measure(gen(k * n), Path(d)) for k in (1, 2, 4)]
            (t1, m1, _), (t2, m2, _), (t4, m4, _) = rows
            growth = t4 / t1 if t1 > 0 else float("nan")
            mem = m4 / m1 if m1 > 0 else float("nan")
            print(f"{name:<16} {n:>9,} {t1:>8.2f} {t2:>8.2f} {t4:>8.2f} {growth:>6.1f}x  "
                  f"{m1:>7.1f} {m2:>7.1f} {m4:>7.1f} {mem:>5.1f}x", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

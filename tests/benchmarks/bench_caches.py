"""Benchmark: what each cache of descgen's readers and tools pays, measured by taking it away.

Every ``functools.lru_cache`` of the ``descriptors`` package that the workloads reach is, in
turn, replaced by the function it wraps (in every module that holds it), and the workloads are
timed without it against the package as it is; the memos of the dump's log scan and the printf
reader (:class:`descriptors.structs.BoundedMemo`) are taken away together (``keep`` stores
nothing), and the last row takes every one of them away at once.  Workloads, each in this process after a warm-up, CPU time (``time.process_time``),
best of ``--repeat`` rounds interleaved with the baseline:

* ``lint sass`` -- ``lint_lines`` over the first ``--files`` production SASS listings;
* ``lint ptx`` -- ``lint_lines`` over the PTX fixtures of ``fixtures/lint``;
* ``dump`` -- ``descriptors.tools.dump.scan`` of one production listing and the printf/gdb
  logs of ``fixtures/dumps``;
* ``dump log`` -- ``scan`` of those logs 40 times over, one long log of words met again and
  again (what a kernel's printf in a loop writes).

The caches are cleared before every round, so a round pays for filling them as a first run
does.  It prints, per cache, the slow-down of each workload without it (``1.00x``: the cache
does not pay there); a cache's comment names the row where it pays.  Not a test:
``tests/benchmarks/test_benchmarks.py`` runs it with ``--quick`` so it cannot rot.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import gzip
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import descriptors  # noqa: E402
from descriptors import structs  # noqa: E402


def _lines(path: Path) -> list[str]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", errors="replace") as f:  # type: ignore[operator]
        return f.read().splitlines()


def workloads(files: int) -> dict[str, Callable[[], Any]]:
    from descriptors.tools.dump import scan
    from descriptors.tools.lint import lint_lines

    sass = [_lines(p) for p in sorted((ROOT / "fixtures" / "production").glob("*.sass.gz"))[:files]]
    ptx = [_lines(p) for p in sorted((ROOT / "fixtures" / "lint").glob("*.ptx"))]
    logs = ["\n".join(_lines(p)) for p in sorted((ROOT / "fixtures" / "dumps").glob("*"))
            if p.is_file() and p.suffix in (".txt", ".log")]
    dump_sass = "\n".join(sass[0]) if sass else ""
    return {
        "lint sass": lambda: [list(lint_lines(s)) for s in sass],
        "lint ptx": lambda: [list(lint_lines(p)) for p in ptx],
        "dump": lambda: [scan(t) for t in [dump_sass, *logs]],
        # a long log: the same few words printed over and over, as a kernel's printf in a loop
        "dump log": lambda: scan("\n".join(logs) * 40),
    }


def _modules() -> list[Any]:
    return [m for name, m in list(sys.modules.items())
            if m is not None and (name == "descriptors" or name.startswith("descriptors."))]


def caches() -> dict[str, Any]:
    """Every lru_cache'd function of the loaded package, by ``module.qualname``."""
    found: dict[str, Any] = {}
    for m in _modules():
        for value in vars(m).values():
            if callable(value) and hasattr(value, "cache_info") and hasattr(value, "__wrapped__") \
                    and getattr(value, "__module__", "").startswith("descriptors"):
                found.setdefault(f"{value.__module__}.{value.__qualname__}", value)
    return dict(sorted(found.items()))


def _clear_all() -> None:
    for fn in caches().values():
        fn.cache_clear()


@contextmanager
def without(cached: Any) -> Iterator[None]:
    """``cached`` replaced by the function it wraps wherever a module holds it."""
    held = [(m, k) for m in _modules() for k, v in vars(m).items() if v is cached]
    for m, k in held:
        setattr(m, k, cached.__wrapped__)
    try:
        yield
    finally:
        for m, k in held:
            setattr(m, k, cached)


@contextmanager
def without_all(cached: Any) -> Iterator[None]:
    """Every cache of ``cached`` and every memo taken away at once."""
    with contextlib.ExitStack() as stack:
        for c in cached:
            stack.enter_context(without(c))
        stack.enter_context(without_memos())
        yield


@contextmanager
def without_memos() -> Iterator[None]:
    keep = structs.BoundedMemo.keep
    structs.BoundedMemo.keep = lambda self, key, value: value  # type: ignore[method-assign]
    try:
        yield
    finally:
        structs.BoundedMemo.keep = keep  # type: ignore[method-assign]


def _time(work: Callable[[], Any]) -> float:
    _clear_all()
    gc.collect()
    start = time.process_time()
    work()
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="one file, one round, 3 caches")
    parser.add_argument("--only", default="", help="caches whose name contains this")
    parser.add_argument("--alone", action="store_true",
                        help="each row keeps only its cache and takes every other away (which "
                             "one cache does the work of all)")
    args = parser.parse_args()
    files, repeat = (1, 1) if args.quick else (args.files, args.repeat)
    works = workloads(files)
    for work in works.values():  # imports and first-use tables out of the timing
        work()
    found = {k: v for k, v in caches().items() if args.only in k}
    subjects: list[tuple[str, Callable[[], Any]]] = [(n, (lambda c=c: without(c)))
                                                    for n, c in found.items()]
    if args.alone:
        every = caches()
        subjects = [(f"only {n}", (lambda n=n: without_all([c for m, c in every.items()
                                                              if m != n])))
                    for n in found]
    subjects.append(("BoundedMemo (all)", without_memos))
    subjects.append(("every cache above (all at once)", lambda: without_all(found.values())))
    if args.quick:
        subjects = subjects[:3]
    print(f"{'cache':64} " + " ".join(f"{w:>10}" for w in works))
    for name, take in subjects:
        cells = []
        for wname, work in works.items():
            base, bare = [], []
            for _ in range(repeat):
                base.append(_time(work))
                with take():
                    bare.append(_time(work))
            cells.append(f"{min(bare) / max(min(base), 1e-9):9.2f}x")
        print(f"{name[:64]:64} " + " ".join(cells), flush=True)


if __name__ == "__main__":
    main()

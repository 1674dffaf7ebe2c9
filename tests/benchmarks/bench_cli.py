"""Benchmark (issue 12, item 3): ``descgen`` cold start against ``python -c "import typer"``.

Run as ``python tests/benchmarks/bench_cli.py`` (not collected by pytest).  Each command line runs in a
fresh interpreter, as a script calling ``descgen`` per constant does; the time is the best of
``--repeat`` rounds (each round runs every command once, interleaved), wall clock, output to
/dev/null.  The baseline, ``python -c "import
typer"``, is measured in the same run with the same interpreter, and every ratio is against it.
Bytecode is compiled first and ``PYTHONDONTWRITEBYTECODE`` is cleared for the children, so
neither side pays for compiling sources (an installed package has its ``.pyc`` files).

Every command is run once first and must exit 0 (a failing command is reported and the
benchmark exits 1: its time would say nothing).

``--before DIR`` (a checkout of an older commit) with ``--before-python EXE`` (an interpreter
with that commit's dependencies, e.g. typer 0.29.2) adds a column measured in the same run,
for before/after numbers side by side.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: What users run: the constant commands, decode in each output, check.
COMMANDS: list[tuple[str, list[str]]] = [
    ("idesc (hex)", ["idesc", "--kind", "f16", "-m", "128", "-n", "256", "--a-type", "bf16",
                     "--b-type", "bf16"]),
    ("smem --format cpp", ["smem", "--sbo", "1024", "--swizzle", "128B", "--format", "cpp",
                           "--name", "A_DESC"]),
    ("decode --plain", ["decode", "0x08400490", "--as", "idesc", "--kind", "f16", "--plain"]),
    ("decode --format json", ["decode", "0x4000404000010000", "--as", "smem", "--format",
                              "json"]),
    ("decode (rich table)", ["decode", "0x08400490", "--as", "idesc", "--kind", "f16"]),
    ("check", ["check", "0x08400490", "--as", "idesc", "--kind", "f16"]),
    # Hopper (sm_90a): the wgmma word from a layout, its layout, a CuTe layout checked against
    # a word by the fetch model, a wgmma instruction explained
    ("layout --arch sm_90a", ["layout", "--arch", "sm_90a", "--major", "K", "--swizzle", "128B",
                              "--a-type", "f16", "--tile", "64x64", "--format", "hex"]),
    ("layout --explain (wgmma)", ["layout", "--explain", "0x4000004000010040", "--major", "K",
                                  "--a-type", "f16", "--arch", "sm_90a", "--plain"]),
    ("check --as wgmma --cute", ["check", "0x4000004000010040", "--as", "wgmma", "--cute",
                                 "Sw<3,4,3>_smem_ptr[16b](0x400) o (_64,_64):(_64,_1)",
                                 "--major", "K", "--a-type", "f16"]),
    ("explain wgmma", ["explain", "--plain", "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 "
                       "{f0,f1,f2,f3}, da, db, p, 1, 1, 0, 1;"]),
]


def best_of(cmd: list[str], env: dict[str, str], cwd: Path, repeat: int,
            warm: bool = True) -> float:
    """Best wall time in ms of ``cmd`` over ``repeat`` runs (a warm-up run first)."""
    if warm:
        subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return min(times) * 1e3


def environment(tree: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(tree)
    return env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--before", type=Path, help="an older checkout, measured side by side")
    parser.add_argument("--before-python", default=None,
                        help="interpreter for --before (default: this one)")
    args = parser.parse_args()
    sides = [("now", Path(sys.executable), ROOT)]
    if args.before is not None:
        sides.insert(0, ("before", Path(args.before_python or sys.executable),
                         args.before.resolve()))
    for _, python, tree in sides:
        subprocess.run([str(python), "-m", "compileall", "-q", "descriptors", "cli"], cwd=tree,
                       env=environment(tree), stdout=subprocess.DEVNULL, check=True)
    # every run of every command, round after round (interleaved, so a slow spell of the
    # shared machine falls on all of them alike); the best of the rounds counts
    runs: list[tuple[str, list[str], str, Path]] = []
    for name, python, tree in sides:
        runs.append(('python -c "import typer"', [str(python), "-c", "import typer"], name, tree))
        for label, argv in COMMANDS:
            runs.append((label, [str(python), "-m", "cli.main", *argv], name, tree))
    best: dict[tuple[str, str], float] = {}
    for label, cmd, side, tree in runs:  # warm-up, and every command must succeed
        done = subprocess.run(cmd, env=environment(tree), cwd=tree, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
        if done.returncode:
            # a failing command exits early: its time would say nothing of the command
            sys.exit(f"{label} ({side}) exited {done.returncode}: "
                     f"{done.stderr.strip()[-300:]}")
    for _ in range(args.repeat):
        for label, cmd, side, tree in runs:
            t = best_of(cmd, environment(tree), tree, 1, warm=False)
            best[label, side] = min(best.get((label, side), t), t)
    labels = ['python -c "import typer"', *(label for label, _ in COMMANDS)]
    rows = [(label, [best[label, side] for side, _, _ in sides]) for label in labels]
    baselines = rows[0][1]
    head = "".join(f"{name + ' ms':>11}{'ratio':>8}" for name, _, _ in sides)
    print(f"{'cold start, best of ' + str(args.repeat):30}{head}")
    for label, times in rows:
        cells = "".join(f"{t:11.1f}{t / base:7.2f}x" for t, base in zip(times, baselines))
        print(f"{label:30}{cells}")
    for name, python, tree in sides:
        version = subprocess.run([str(python), "-c", "import typer; print(typer.__version__)"],
                                 capture_output=True, text=True, env=environment(tree)).stdout
        print(f"{name}: {tree} with {python} (typer {version.strip()})")
    print("(ratio = the command's time / python -c 'import typer' with the same interpreter; "
          "target 1.5x)")


if __name__ == "__main__":
    main()

"""Benchmark: the ``descgen dump FILE`` command, against a plain Python regex scan of the file.

Run as ``python tests/benchmarks/bench_dump.py [--sizes 10,100] [--big] [--tree DIR ...] [--kinds ...]``
``[--before-max-mb N] [--before-json-max-mb N] [--repeat N]``
(not collected by pytest).  For each kind of log and each size it generates a realistic file in
a temporary directory, then times, side by side in the same run (``--repeat`` rounds, default
3, each running every command once; the best time of the rounds is kept, as the issue measures
"min of repeats", and the largest peak memory):

* ``regex`` -- the baseline: a plain Python scan of the same file for the same kind of tokens
  (hex and decimal literals), reading it line by line as text (:func:`regex_scan`);
* for every ``--tree`` (default: this checkout), ``python -m cli.main dump FILE`` and
  ``python -m cli.main dump --format json FILE`` run in that tree (``PYTHONPATH`` = the tree),
  output to ``/dev/null``: what users run, interpreter start included.

It prints MB/s, the ratio to the regex scan, the json/text ratio and each command's peak
resident memory (``os.wait4``'s ``ru_maxrss`` of that child).  ``--tree /work/main --tree .``
gives a before/after table from one run.  ``--big`` adds a 1 GB file per kind (disk space is
checked first; every file is deleted afterwards).  Targets (issue #12): text within 5x the
regex scan, json within 1.5x text, peak memory constant in the file size; the exit code is 1
when the last tree misses one of them, 2 when a command failed.

Kinds of log (``--kinds``; ``write_log``):

* ``mixed`` -- cuda-gdb register tables (half of the registers hold random values, so the
  classifier sees many distinct words), ``p/x`` sessions, printf lines, cuobjdump SASS with
  encodings and MMA lines, and plain log noise;
* ``printf`` -- a printf log from every thread of a grid (each thread prints its descriptors,
  its loop counter and a few random values): the case that runs to gigabytes;
* ``sass`` -- a ``cuobjdump -sass`` listing (many functions, MMA loops);
* ``ptx`` -- a PTX module (``nvcc -ptx`` style, many kernels with tcgen05.mma).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]
MB = 1_000_000
TEXT_VS_REGEX = 5.0
JSON_VS_TEXT = 1.5
#: Peak memory may grow by this much from the smallest to the largest file.
RSS_GROWTH_MIB = 32
#: Commands that exited non-zero (their times say nothing): the benchmark exits 2 if any did.
FAILED: list[str] = []

#: The baseline's tokens: hex (with or without 0x) and decimal literals.
TOKENS = re.compile(r"\b(?:0[xX][0-9A-Fa-f]+|[0-9A-Fa-f]{8,16}|\d+)\b")


def regex_scan(path: Path) -> int:
    """Plain Python: read the file line by line as text and find every literal."""
    count = 0
    findall = TOKENS.findall
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            count += len(findall(line))
    return count


# ---------------------------------------------------------------- generators


def _gdb(name: str, value: int) -> str:
    signed = value - (1 << 32) if value >> 31 else value
    return f"{name:<15}{hex(value):<20}{signed}"


def _registers(rng: random.Random) -> list[str]:
    known = {4: 0x0, 5: 0x08400490, 8: 0x40, 9: 0x40004040, 10: 0x840, 11: 0x40004040}
    lines = ["(cuda-gdb) info registers"]
    for i in range(32):
        value = rng.getrandbits(32) if rng.random() < 0.5 else rng.choice((0, 1, 0x80, 0x400))
        lines.append(_gdb(f"R{i}", value))
    for i in range(16):
        lines.append(_gdb(f"UR{i}", known.get(i, rng.getrandbits(rng.choice((8, 16, 32))))))
    return lines


_SASS_BODY = [
    "LDC R1, c[0x0][0x37c] ;", "S2R R0, SR_TID.X ;", "UMOV UR8, 0x40 ;",
    "UMOV UR9, 0x40004040 ;", "UMOV UR10, 0x840 ;", "UMOV UR11, 0x40004040 ;",
    "UMOV UR4, URZ ;", "UMOV UR5, 0x8400490 ;", "R2UR UR6, R2 ;",
    "ELECT P1, URZ, PT ;",
    "@P1 UTCHMMA gdesc[UR8], gdesc[UR10], tmem[UR6], tmem[UR4], idesc[UR5], UPT ;",
    "UIADD3 UR8, UPT, UPT, UR8, 0x2, URZ ;", "IADD3 R4, PT, PT, R4, 0x1, RZ ;",
    "ISETP.NE.AND P0, PT, R4, 0x40, PT ;", "@P0 BRA 0x120 ;",
    "LDG.E.128 R8, desc[UR12][R2.64] ;", "FFMA R9, R8, R10, R9 ;", "EXIT ;",
]


def _sass(rng: random.Random, base: int, header: bool = False) -> list[str]:
    lines = []
    if header:
        lines += ["", f"\tFunction : _Z4gemmILi{base}EEvPKfPf", "\t.headerflags\t@\"EF_CUDA_SM100\""]
    for i, instr in enumerate(_SASS_BODY):
        left = f"        /*{(base + i) * 16 & 0xffff:04x}*/                   {instr}"
        lines.append(f"{left}{' ' * max(78 - len(left), 2)}/* 0x{rng.getrandbits(64):016x} */")
        lines.append(f"{' ' * 78}/* 0x000fe20008000000 */")
    return lines


def _mixed_printf(rng: random.Random, i: int) -> list[str]:
    return [
        f"[gemm] block ({i % 16},{i // 16 % 16},0) thread 0: adesc=0x4000404000000{i % 64:03x} "
        f"bdesc=0x4000404000000840 idesc=0x08400490",
        f"iter {i}: value=0x{rng.getrandbits(32):08x} ptr=0x7fff{rng.getrandbits(32):08x}",
        f"elapsed {rng.random() * 10:.3f} ms, {rng.randrange(1 << 20)} tiles done",
        "(cuda-gdb) p/x adesc",
        f"${i % 100 + 1} = 0x4000404000010040",
    ]


_NOISE = [
    "",
    "==1234== Profiling application: ./gemm",
    "Warning: the kernel took longer than expected; consider a larger tile size",
    "    at gemm.cu:142 in tcgen05_gemm_bf16<__nv_bfloat16>(...)",
    "Compiling with nvcc -arch=sm_100a -O3 -lineinfo",
]


def _mixed(rng: random.Random, block: int) -> list[str]:
    kind = block % 4
    if kind == 0:
        return _registers(rng)
    if kind == 1:
        return _sass(rng, block)
    if kind == 2:
        return _mixed_printf(rng, block)
    return [rng.choice(_NOISE) for _ in range(20)]


def _threads(rng: random.Random, block: int) -> list[str]:
    """One CTA's printf output: 128 threads, each its K-loop step's descriptors."""
    bx, by = block % 148, block // 148 % 64
    k = block % 16
    out = []
    for t in range(128):
        warp, lane = divmod(t, 32)
        a = 0x4000404000010040 + 2 * k
        out.append(f"[block ({bx},{by},0) thread ({t},0,0)] warp {warp} lane {lane} k={k}: "
                   f"adesc=0x{a:016x} bdesc=0x{a + 0x800:016x} idesc=0x08400490 "
                   f"taddr=0x{(warp * 32) << 16:08x} acc={rng.random():.6f}")
        if lane == 0:
            out.append(f"[block ({bx},{by},0) thread ({t},0,0)] smem=0x{rng.getrandbits(18):05x} "
                       f"bar={rng.randrange(1 << 31)} phase {k & 1} elapsed {rng.randrange(10**6)} cycles")
    return out


def _ptx_kernel(rng: random.Random, block: int) -> list[str]:
    idesc = rng.choice((138413200, 136316048, 142607504))
    return [
        f".visible .entry gemm_{block}(",
        "\t.param .u64 gemm_param_0",
        ")",
        "{",
        "\t.reg .b32 \t%r<64>;",
        "\t.reg .b64 \t%rd<32>;",
        "\t.reg .pred \t%p<4>;",
        "\tld.param.u64 \t%rd1, [gemm_param_0];",
        f"\tmov.b32 \t%r37, {idesc};",
        "\tmov.b64 \t%rd10, 4611756662049538112;",
        "\tor.b64 \t%rd2, %rd10, 64;",
        "\tmov.b64 \t%rd11, 4611756662049540160;",
        "\tor.b64 \t%rd3, %rd11, 2112;",
        "\tmov.u32 \t%r2, %tid.x;",
        f"\tadd.s32 \t%r3, %r2, {rng.randrange(1 << 16)};",
        "\tsetp.eq.s32 \t%p1, %r2, 0;",
        "\ttcgen05.mma.cta_group::1.kind::f16 \t[%r10], %rd2, %rd3, %r37, %p1;",
        f"\tst.global.u32 \t[%rd1+{4 * rng.randrange(1024)}], %r3;",
        "\tret;",
        "}",
        "",
    ]


def write_log(path: Path, kind: str, size: int, seed: int = 7) -> int:
    """Write about ``size`` bytes of a ``kind`` log; returns the number of lines."""
    rng = random.Random(seed)
    written = lines = block = 0
    # generate a few hundred distinct blocks, then repeat them (fast for gigabytes, and a
    # real log repeats as much: the same kernel, the same descriptors)
    blocks = []
    with path.open("w", encoding="utf-8") as out:
        if kind == "ptx":
            head = "//\n// Generated by NVIDIA NVVM Compiler\n.version 9.0\n.target sm_100a\n" \
                   ".address_size 64\n\n"
            out.write(head)
            written += len(head)
        while written < size:
            if len(blocks) < 512:
                if kind == "mixed":
                    chunk = _mixed(rng, block)
                elif kind == "printf":
                    chunk = _threads(rng, block)
                elif kind == "sass":
                    chunk = _sass(rng, block, header=block % 8 == 0)
                elif kind == "ptx":
                    chunk = _ptx_kernel(rng, block)
                else:
                    raise ValueError(kind)
                text = "\n".join(chunk) + "\n"
                blocks.append((text, len(chunk)))
            else:
                text, _ = blocks[block % len(blocks)]
            text, n = (text, text.count("\n"))
            out.write(text)
            written += len(text)
            lines += n
            block += 1
    return lines


# ---------------------------------------------------------------- timing


def _run(cmd: list[str], cwd: Path) -> tuple[float, float, int]:
    """(seconds, peak RSS in MiB, exit code) of a command, output to /dev/null."""
    env = dict(os.environ, PYTHONPATH=str(cwd), COLUMNS="160", TERM="dumb")
    with open(os.devnull, "wb") as null:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=null, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
        if proc.stderr:
            proc.stderr.close()
    if proc.returncode:
        print(f"  ! {' '.join(cmd)} in {cwd} exited {proc.returncode}: {err.strip()[-300:]}")
        FAILED.append(" ".join(cmd))
    return elapsed, usage.ru_maxrss / 1024, proc.returncode


def bench(path: Path, trees: list[Path], skip_json_over: float,
          skip_earlier_over: float = float("inf"),
          skip_earlier_json_over: float = float("inf"), repeat: int = 1) -> dict[str, object]:
    """Time the regex scan and each tree's commands on ``path``: ``repeat`` rounds, each
    running everything once (interleaved, so every cell sees the same machine load); times are
    the best of the rounds, peak memory the largest.  Trees before the last skip files over
    ``skip_earlier_over`` bytes (a slow 'before'), every tree skips json over
    ``skip_json_over`` bytes (their cells read nan)."""
    size = path.stat().st_size
    nan = float("nan")
    base = float("inf")
    cells: dict[str, list[tuple[float, float, float, float]]] = {str(t): [] for t in trees}
    for _ in range(repeat):
        start = time.perf_counter()
        regex_scan(path)
        base = min(base, time.perf_counter() - start)
        for tree in trees:
            if tree != trees[-1] and size > skip_earlier_over:
                cells[str(tree)].append((nan, nan, nan, nan))
                continue
            t_text, rss_text, _ = _run([sys.executable, "-m", "cli.main", "dump", str(path)],
                                       tree)
            if size > skip_json_over or (tree != trees[-1] and size > skip_earlier_json_over):
                t_json = rss_json = nan
            else:
                t_json, rss_json, _ = _run([sys.executable, "-m", "cli.main", "dump",
                                            "--format", "json", str(path)], tree)
            cells[str(tree)].append((t_text, rss_text, t_json, rss_json))
    row: dict[str, object] = {"size": size, "regex": base}
    for tree, runs in cells.items():
        t_text, rss_text, t_json, rss_json = zip(*runs)
        row[tree] = (min(t_text), max(rss_text), min(t_json), max(rss_json))
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="10,100", help="file sizes in MB, comma-separated")
    ap.add_argument("--big", action="store_true", help="add a 1 GB file per kind")
    ap.add_argument("--kinds", default="mixed,printf", help="mixed,printf,sass,ptx")
    ap.add_argument("--tree", action="append", type=Path,
                    help="a checkout to run (repeat for before/after); default this one")
    ap.add_argument("--json-max-mb", type=float, default=float("inf"),
                    help="skip --format json above this size")
    ap.add_argument("--before-max-mb", type=float, default=float("inf"),
                    help="trees before the last: skip files above this size")
    ap.add_argument("--before-json-max-mb", type=float, default=float("inf"),
                    help="trees before the last: skip --format json above this size")
    ap.add_argument("--repeat", type=int, default=3,
                    help="rounds per file (best time of the rounds; 1 for a quick look)")
    args = ap.parse_args()
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    trees = [t.resolve() for t in (args.tree or [HERE])]
    sizes = [int(float(s) * MB) for s in args.sizes.split(",") if s]
    if args.big:
        sizes.append(1000 * MB)
    kinds = [k for k in args.kinds.split(",") if k]
    tmp = Path(tempfile.mkdtemp(prefix="bench_dump_"))
    free = shutil.disk_usage(tmp).free
    if max(sizes) * 1.2 > free:
        print(f"not enough disk in {tmp}: {free / MB:.0f} MB free, {max(sizes) / MB:.0f} MB needed")
        return 2
    print(f"{os.cpu_count()} CPU(s), Python {sys.version.split()[0]}; trees: "
          + ", ".join(f"[{i}] {t}" for i, t in enumerate(trees)))
    print(f"{'kind':<7} {'MB':>6} {'regex MB/s':>10} | " + " | ".join(
        f"[{i}] text MB/s  x regex  RSS MiB  json MB/s  json/text  RSS MiB" for i in range(len(trees))))
    ok = True
    rss_seen: dict[str, list[float]] = {}
    try:
        for kind in kinds:
            for size in sizes:
                path = tmp / f"{kind}-{size // MB}MB.log"
                write_log(path, kind, size)
                row = bench(path, trees, args.json_max_mb * MB, args.before_max_mb * MB,
                            args.before_json_max_mb * MB, args.repeat)
                path.unlink()
                mb = row["size"] / MB  # type: ignore[operator]
                base = row["regex"]
                cells = []
                for i, tree in enumerate(trees):
                    t_text, rss_text, t_json, rss_json = row[str(tree)]  # type: ignore[misc]
                    cells.append(f"[{i}] {mb / t_text:9.2f}  {t_text / base:7.2f}  {rss_text:7.0f}  "
                                 f"{mb / t_json:9.2f}  {t_json / t_text:9.2f}  {rss_json:7.0f}")
                    if i == len(trees) - 1:
                        ok &= t_text <= TEXT_VS_REGEX * base
                        ok &= not t_json > JSON_VS_TEXT * t_text
                        rss_seen.setdefault(kind, []).extend(
                            r for r in (rss_text, rss_json) if r == r)
                print(f"{kind:<7} {mb:6.1f} {mb / base:10.2f} | " + " | ".join(cells), flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for kind, rss in rss_seen.items():
        ok &= max(rss) - min(rss) <= RSS_GROWTH_MIB
    print(f"targets (last tree): text <= {TEXT_VS_REGEX}x regex, json <= {JSON_VS_TEXT}x text, "
          f"RSS growth <= {RSS_GROWTH_MIB} MiB: {'PASS' if ok else 'FAIL'}")
    if FAILED:
        print(f"{len(FAILED)} command(s) failed; their times are not measurements")
        return 2
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

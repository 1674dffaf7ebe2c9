"""Benchmark: ``descgen dump``'s scanner on a 1,000,000-line dump, streamed from a file.

Run as ``python tests/bench_dump.py [LINES]`` (not collected by pytest).  The dump mixes every
input style in realistic proportions -- cuda-gdb register tables (half of the registers hold
random values, so the classifier sees many distinct words), ``p/x`` sessions, printf logs with
named descriptors and random hex, cuobjdump SASS with instruction encodings and MMA lines, and
plain log noise -- and is written to a temporary file first, so the time measured is the
scanner reading a byte stream (``descriptors.dump.scan_stream``), as the command does.  It
prints the time, the line rate and the peak resident memory, and exits 1 when the scan takes
longer than the target (5 s for 1,000,000 lines).
"""

from __future__ import annotations

import os
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from descriptors.dump import scan_stream  # noqa: E402

TARGET_SECONDS = 5.0
DEFAULT_LINES = 1_000_000


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


def _sass(rng: random.Random, base: int) -> list[str]:
    body = [
        "LDC R1, c[0x0][0x37c] ;", "S2R R0, SR_TID.X ;", "UMOV UR8, 0x40 ;",
        "UMOV UR9, 0x40004040 ;", "UMOV UR10, 0x840 ;", "UMOV UR11, 0x40004040 ;",
        "UMOV UR4, URZ ;", "UMOV UR5, 0x8400490 ;", "R2UR UR6, R2 ;",
        "@P1 UTCHMMA gdesc[UR8], gdesc[UR10], tmem[UR6], tmem[UR4], idesc[UR5], UPT ;",
        "UIADD3 UR8, UPT, UPT, UR8, 0x2, URZ ;", "IADD3 R4, PT, PT, R4, 0x1, RZ ;",
        "ISETP.NE.AND P0, PT, R4, 0x40, PT ;", "BRA 0x120 ;",
    ]
    lines = []
    for i, instr in enumerate(body):
        left = f"        /*{(base + i) * 16 & 0xffff:04x}*/                   {instr}"
        lines.append(f"{left}{' ' * max(78 - len(left), 2)}/* 0x{rng.getrandbits(64):016x} */")
        lines.append(f"{' ' * 78}/* 0x000fe20008000000 */")
    return lines


def _printf(rng: random.Random, i: int) -> list[str]:
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


def write_dump(path: Path, lines: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    written = 0
    block = 0
    with path.open("w", encoding="utf-8") as out:
        while written < lines:
            kind = block % 4
            if kind == 0:
                chunk = _registers(rng)
            elif kind == 1:
                chunk = _sass(rng, block)
            elif kind == 2:
                chunk = _printf(rng, block)
            else:
                chunk = [rng.choice(_NOISE) for _ in range(20)]
            chunk = chunk[: lines - written]
            out.write("\n".join(chunk) + "\n")
            written += len(chunk)
            block += 1


def main() -> int:
    lines = int(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_LINES
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "dump.txt"
        write_dump(path, lines)
        size = path.stat().st_size
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        start = time.perf_counter()
        count = 0
        with path.open("rb") as stream:
            for _ in scan_stream(stream):
                count += 1
        elapsed = time.perf_counter() - start
        rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    target = TARGET_SECONDS * lines / DEFAULT_LINES
    print(f"scanned {lines:,} lines ({size / 1e6:.1f} MB) in {elapsed:.2f} s "
          f"({lines / elapsed / 1e6:.2f} M lines/s) on {os.cpu_count()} CPU(s); "
          f"{count:,} descriptor words reported")
    print(f"peak RSS {rss_after / 1024:.0f} MiB (before the scan {rss_before / 1024:.0f} MiB)")
    ok = elapsed < target
    print(f"{'PASS' if ok else 'FAIL'}: target {target:.2f} s")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

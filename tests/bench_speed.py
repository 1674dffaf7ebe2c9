"""Benchmark (issue 12): the public codec calls against Construct, the bulk path against NumPy.

Run as ``python tests/bench_speed.py`` (not collected by pytest); ``--tree DIR`` imports
descgen from another checkout (e.g. an older commit, for before/after numbers in one run).
Every ratio is measured in the same run, min of repeats:

* per call, as users call it -- ``descriptors.decode("smem", w)``, ``decode("idesc", w,
  kind="f16")`` (and with ``.values`` read), ``encode("idesc", kind="f16", ...)`` and
  ``encode("smem", ...)`` (a repeated parameter set, and distinct sets each encoded for the
  first time) -- against Construct's own ``layout.struct.parse`` / ``build`` of the same layout;
* ``decode_many`` of 1,000,000 words (a NumPy array and a list of ints) against a NumPy
  shift/mask of the same fields, and the pure-Python path on 100,000 words against a loop of
  ``decode(...).fields``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import timeit
from pathlib import Path

REPEAT = 7
N_CALLS = 2000
N_BULK = 1_000_000
N_PURE = 100_000


def per_call(fn, n: int = N_CALLS) -> float:
    """Best-of-REPEAT ns per call of ``fn`` (no arguments)."""
    return min(timeit.repeat(fn, number=n, repeat=REPEAT)) / n * 1e9


def best(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", default=str(Path(__file__).resolve().parent.parent),
                        help="checkout to import descgen from (default: this one)")
    parser.add_argument("--no-bulk", action="store_true", help="per-call numbers only")
    args = parser.parse_args()
    sys.path.insert(0, args.tree)
    import descriptors
    from descriptors import IDESC, SMEM

    t0 = time.perf_counter()
    print(f"descgen from {descriptors.__file__}")
    smem_p = dict(start_address=0x400, leading_byte_offset=16, stride_byte_offset=1024,
                  swizzle="128B")
    idesc_p = dict(kind="f16", a_type="bf16", b_type="bf16", d_type="f32", m=128, n=256)
    ws = descriptors.encode("smem", **smem_p)
    wi = descriptors.encode("idesc", **idesc_p)
    assert wi == 0x08400490
    bs, bi = ws.to_bytes(8, "big"), wi.to_bytes(4, "big")
    fs, fi = SMEM.decode(ws), IDESC.decode(wi)
    assert SMEM.construct_parse(ws) == fs and int.from_bytes(SMEM.struct.build(fs), "big") == ws
    assert IDESC.construct_parse(wi) == fi and int.from_bytes(IDESC.struct.build(fi), "big") == wi
    sparse, dense = SMEM.struct.parse, IDESC.struct.parse
    sbuild, ibuild = SMEM.struct.build, IDESC.struct.build

    # a parameter set encoded for the first time: the memo (when there is one) emptied first
    memo = getattr(getattr(descriptors, "codec", None), "_MEMO", None)
    if memo is None:
        import descriptors.codec as codec_module
        memo = getattr(codec_module, "_MEMO", {})
    forget = memo.clear

    def smem_first():
        forget()
        return descriptors.encode("smem", **smem_p)

    def idesc_first():
        forget()
        return descriptors.encode("idesc", **idesc_p)

    rows = [
        ("decode('smem', w)", lambda: descriptors.decode("smem", ws), lambda: sparse(bs)),
        ("decode('idesc', w, kind='f16')", lambda: descriptors.decode("idesc", wi, kind="f16"),
         lambda: dense(bi)),
        ("decode('smem', w).fields", lambda: descriptors.decode("smem", ws).fields,
         lambda: sparse(bs)),
        ("decode('smem', w).values", lambda: descriptors.decode("smem", ws).values,
         lambda: sparse(bs)),
        ("decode('idesc', ...).values", lambda: descriptors.decode("idesc", wi, kind="f16").values,
         lambda: dense(bi)),
        ("encode('idesc', f16 ...)", lambda: descriptors.encode("idesc", **idesc_p),
         lambda: ibuild(fi)),
        ("encode('smem', ...)", lambda: descriptors.encode("smem", **smem_p),
         lambda: sbuild(fs)),
        ("encode('idesc') new params", idesc_first, lambda: ibuild(fi)),
        ("encode('smem') new params", smem_first, lambda: sbuild(fs)),
    ]
    print(f"\n{'per call (ns)':<32} {'descgen':>9} {'Construct':>10} {'ratio':>8}")
    for name, ours, theirs in rows:
        o, c = per_call(ours), per_call(theirs)
        print(f"{name:<32} {o:>9.0f} {c:>10.0f} {c / o:>7.1f}x")
    print("(ratio = Construct parse/build of the same layout / descgen's call; 'new params': "
          "the memo emptied before each call)")

    if args.no_bulk or not hasattr(descriptors, "decode_many"):
        print(f"\ntotal {time.perf_counter() - t0:.1f} s")
        return 0

    from descriptors import bulk
    np = bulk.numpy_or_none()
    rng = random.Random(12)
    if np is None:
        print("\nNumPy is not installed: bulk numbers for the pure-Python path only")
    else:
        print(f"\n{'decode_many, 1,000,000 words (s)':<40} {'descgen':>8} {'NumPy':>8} {'ratio':>7}")
        for descriptor, kind, lay in (("smem", None, SMEM), ("idesc", "f16", IDESC)):
            words = [rng.getrandbits(lay.size) for _ in range(N_BULK)]
            arr = np.array(words, dtype=np.uint64)
            spec = [(f.name, np.uint64(f.lsb), np.uint64(f.max)) for f in lay.fields]

            def baseline(a=arr, spec=spec):
                return {name: (a >> lsb) & mask for name, lsb, mask in spec}

            def baseline_list(words=words, spec=spec):
                a = np.array(words, dtype=np.uint64)
                return {name: (a >> lsb) & mask for name, lsb, mask in spec}

            got = descriptors.decode_many(descriptor, arr, kind)
            want = baseline()
            assert all(np.array_equal(got[k], want[k]) for k in want)
            for label, ours, theirs in (
                    (f"{descriptor} from a uint64 array", lambda: descriptors.decode_many(
                        descriptor, arr, kind), baseline),
                    (f"{descriptor} from a list of ints", lambda: descriptors.decode_many(
                        descriptor, words, kind), baseline_list)):
                o, b = best(ours), best(theirs)
                print(f"{label:<40} {o:>8.3f} {b:>8.3f} {o / b:>6.2f}x")
        print("(ratio = descgen / NumPy shift-and-mask of the same fields; lower is better)")

    lay = SMEM
    words = [rng.getrandbits(64) for _ in range(N_PURE)]
    saved = bulk._numpy
    bulk._numpy = None
    try:
        pure = best(lambda: descriptors.decode_many("smem", words))
    finally:
        bulk._numpy = saved
    loop = best(lambda: [descriptors.decode("smem", w).fields for w in words])
    print(f"\npure Python decode_many, {N_PURE:,} smem words: {pure:.3f} s; "
          f"loop of decode().fields {loop:.3f} s ({loop / pure:.1f}x)")
    rows_p = [dict(start_address=16 * (i % 64), leading_byte_offset=16, stride_byte_offset=1024,
                   swizzle="128B") for i in range(N_PURE)]
    enc = best(lambda: descriptors.encode_many("smem", rows_p))
    print(f"encode_many, {N_PURE:,} smem rows (64 distinct): {enc:.3f} s "
          f"({enc / N_PURE * 1e9:.0f} ns a row)")
    print(f"\ntotal {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

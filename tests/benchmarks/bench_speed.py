"""Benchmark (issue 12): the public codec calls against Construct, the bulk path against NumPy.

Run as ``python tests/benchmarks/bench_speed.py`` (not collected by pytest).  ``--tree DIR`` imports
descgen from another checkout; ``--before DIR`` measures that checkout and this one side by
side in one run (two worker processes, one per checkout, each row timed in both alternately, so
both see the same machine load); ``--quick`` runs every row with a few calls (a check that
the script works, as tests/benchmarks/test_benchmarks.py does; its numbers mean nothing).  Every ratio is
measured in the same run, min of repeats:

* per call, as users call it -- ``descriptors.decode("smem", w)``, ``decode("idesc", w,
  kind="f16")`` (and with ``.fields``/``.values`` read), ``encode("idesc", kind="f16", ...)``
  and ``encode("smem", ...)`` with ``**params`` -- against Construct's own
  ``layout.struct.parse`` / ``build`` of the same layout.  Rows:

  - a word decoded before / a parameter set encoded before (what memos serve);
  - ``new word``: a different word every call (20,000 distinct words in turn, more than any
    memo keeps);
  - ``new set``: a parameter set never encoded (the whole-set memo emptied before each call)
    whose values were each seen before (a code generator's thousands of configs);
  - ``cold``: every memo emptied before each call (nothing seen before);
  - ``written out``: the same encode with its parameters as keywords in the call (as a script
    writes them) instead of ``**params``;
  - ``floor``: a Python function that does nothing, called with the same ``**params``: the
    call alone, the most any ``encode`` written in Python could reach on this interpreter.
    ``encode`` is that one Python call, then the C ``functools.lru_cache`` lookup of the whole
    set (typed key built in C); the C wrapper alone cannot be ``encode``, because it raises a
    bare ``TypeError`` for a list parameter (zcm's ``first_span``) instead of encoding it.

* ``--every-layout``: encode (a repeated set), ``decode().values`` (a repeated word) and of a new
  word, for every descriptor and idesc kind (one real parameter set each, ``EVERY_LAYOUT``),
  against Construct's build/parse of the layout each uses.

* ``decode_many`` of 1,000,000 words (a NumPy array and a list of ints) against a NumPy
  shift/mask of the same fields, and the pure-Python path on 100,000 words against a loop of
  ``decode(...).fields``.
"""

from __future__ import annotations

import argparse
import itertools
import random
import subprocess
import sys
import time
import timeit
from pathlib import Path

EVERY = "--every-layout" in sys.argv  # read in the workers too (they get the same argv flag)
#: ``--quick``: every row and path run, a few calls each -- to check the script works (the
#: smoke test), not to measure
QUICK = "--quick" in sys.argv
REPEAT = 1 if QUICK else 7
N_CALLS = 20 if QUICK else 2000
N_BULK = 2_000 if QUICK else 1_000_000
N_PURE = 1_000 if QUICK else 100_000
N_WORDS = 20_000  # distinct words for the "new word" rows: more than any memo keeps


def per_call(fn, n: int = N_CALLS, repeat: int = REPEAT) -> float:
    """Best-of-``repeat`` ns per call of ``fn`` (no arguments)."""
    return min(timeit.repeat(fn, number=n, repeat=repeat)) / n * 1e9


def best(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def make_rows(descriptors):
    """(name, descgen call, Construct call) for every per-call row, for the imported checkout
    (any version: memos it lacks are simply not emptied)."""
    import descriptors.words.codec as codec
    from descriptors import IDESC, SMEM

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
    rng = random.Random(12)
    smem_words = itertools.cycle([rng.getrandbits(64) for _ in range(N_WORDS)])
    idesc_words = itertools.cycle([rng.getrandbits(32) for _ in range(N_WORDS)])
    # the packing (codec.encode, which descriptors.encode(..., check=False) is): these rows
    # time the codec and its memos against Construct, as they always have
    decode, encode = descriptors.decode, codec.encode

    memo = getattr(codec, "_memo", None)  # the lru_cache of whole sets (older trees: a dict)
    forget_whole = memo.cache_clear if memo is not None else getattr(codec, "_MEMO", {}).clear
    parts = list(getattr(codec, "_PARTS", {}).values())

    def forget_sets():
        forget_whole()

    def forget_all():
        forget_whole()
        for part in parts:
            part.clear()

    def floor(descriptor, **params):
        return 0

    def first(forget, descriptor, params):
        def call():
            forget()
            return encode(descriptor, **params)
        return call

    return [
        ("decode('smem', w)", lambda: decode("smem", ws), lambda: sparse(bs)),
        ("decode('idesc', w, kind='f16')", lambda: decode("idesc", wi, kind="f16"),
         lambda: dense(bi)),
        ("decode('smem', w).fields", lambda: decode("smem", ws).fields, lambda: sparse(bs)),
        ("decode('smem', w).values", lambda: decode("smem", ws).values, lambda: sparse(bs)),
        ("decode('idesc', ...).fields", lambda: decode("idesc", wi, kind="f16").fields,
         lambda: dense(bi)),
        ("decode('idesc', ...).values", lambda: decode("idesc", wi, kind="f16").values,
         lambda: dense(bi)),
        ("decode('smem') new word .fields", lambda: decode("smem", next(smem_words)).fields,
         lambda: sparse(bs)),
        ("decode('smem') new word .values", lambda: decode("smem", next(smem_words)).values,
         lambda: sparse(bs)),
        ("decode('idesc') new word .values",
         lambda: decode("idesc", next(idesc_words), kind="f16").values, lambda: dense(bi)),
        ("encode('idesc', f16 ...)", lambda: encode("idesc", **idesc_p), lambda: ibuild(fi)),
        # descriptors.encode: the packing and the rules (a repeated set: both memoised)
        ("descriptors.encode('idesc', f16 ...) checked",
         lambda: descriptors.encode("idesc", **idesc_p), lambda: ibuild(fi)),
        ("encode('smem', ...)", lambda: encode("smem", **smem_p), lambda: sbuild(fs)),
        ("encode('idesc', kind=...) written out",
         lambda: encode("idesc", kind="f16", a_type="bf16", b_type="bf16", d_type="f32", m=128,
                        n=256), lambda: ibuild(fi)),
        ("encode('smem', ...) written out",
         lambda: encode("smem", start_address=0x400, leading_byte_offset=16,
                        stride_byte_offset=1024, swizzle="128B"), lambda: sbuild(fs)),
        ("encode('idesc') new set", first(forget_sets, "idesc", idesc_p), lambda: ibuild(fi)),
        ("encode('smem') new set", first(forget_sets, "smem", smem_p), lambda: sbuild(fs)),
        ("encode('idesc') cold", first(forget_all, "idesc", idesc_p), lambda: ibuild(fi)),
        ("encode('smem') cold", first(forget_all, "smem", smem_p), lambda: sbuild(fs)),
        ("floor: f('idesc', **params)", lambda: floor("idesc", **idesc_p), lambda: ibuild(fi)),
        ("floor: f('smem', **params)", lambda: floor("smem", **smem_p), lambda: sbuild(fs)),
        ("floor: f('idesc', kind=...) written out",
         lambda: floor("idesc", kind="f16", a_type="bf16", b_type="bf16", d_type="f32", m=128,
                       n=256), lambda: ibuild(fi)),
        *(every_layout_rows(descriptors) if EVERY else []),
    ]


#: One real parameter set per descriptor and idesc kind (CUTLASS/DeepGEMM configurations from
#: fixtures/real-world.toml, and i8/mxf4 written here), for the "every layout" rows.
EVERY_LAYOUT = {
    "idesc tf32": dict(kind="tf32", a_type="tf32", b_type="tf32", d_type="f32", m=128, n=128),
    "idesc f16": dict(kind="f16", a_type="bf16", b_type="bf16", d_type="f32", m=128, n=256),
    "idesc f8f6f4": dict(kind="f8f6f4", a_type="e4m3", b_type="e4m3", d_type="f32", m=128,
                         n=256),
    "idesc i8": dict(kind="i8", a_type="s8", b_type="s8", d_type="s32", m=128, n=256),
    "idesc mxf8f6f4": dict(kind="mxf8f6f4", a_type="e4m3", b_type="e4m3", scale_type="ue8m0",
                           m=128, n=256),
    "idesc mxf4": dict(kind="mxf4", a_type="e2m1", b_type="e2m1", scale_type="ue8m0", m=128,
                       n=256),
    "idesc mxf4nvf4": dict(kind="mxf4nvf4", a_type="e2m1", b_type="e2m1", scale_type="ue4m3",
                           m=128, n=256),
    "smem": dict(start_address=0x400, leading_byte_offset=16, stride_byte_offset=1024,
                 swizzle="128B"),
    "zcm": dict(start_count=[2], first_span=[1], skip_span=2, use_span=3),
    "tmem": dict(lane=32, column=64),
}


def every_layout_rows(descriptors) -> list[tuple[str, object, object]]:
    """encode (a repeated set), decode().values (a repeated word) and decode().values of a new
    word, for every descriptor and idesc kind, each against Construct's build/parse of the
    layout it uses."""
    import descriptors.words.codec as codec

    rows = []
    rng = random.Random(5)
    for label, params in EVERY_LAYOUT.items():
        descriptor, kind = (label.split() + [None])[:2]
        lay = descriptors.layout_for(descriptor, kind)
        word = codec.encode(descriptor, **params)
        nbytes = lay.size // 8
        raw = word.to_bytes(nbytes, "big")
        parsed = lay.struct.parse(raw)
        assert int.from_bytes(lay.struct.build(parsed), "big") == word
        build, parse = lay.struct.build, lay.struct.parse
        new = itertools.cycle([rng.getrandbits(lay.size) for _ in range(N_WORDS)]).__next__
        rows += [
            (f"{label}: encode", lambda d=descriptor, p=params: codec.encode(d, **p),
             lambda b=build, f=parsed: b(f)),
            (f"{label}: decode .values",
             lambda d=descriptor, w=word, k=kind: descriptors.decode(d, w, kind=k).values,
             lambda q=parse, r=raw: q(r)),
            (f"{label}: decode .values, new word",
             lambda d=descriptor, n=new, k=kind: descriptors.decode(d, n(), kind=k).values,
             lambda q=parse, r=raw: q(r)),
        ]
    return rows


NOTE = ("(ratio = Construct parse/build of the same layout / descgen's call; 'new word': a "
        "different word each call; 'new set': the whole-set memo emptied before each call, the "
        "values seen before; 'cold': every memo emptied; 'floor': a do-nothing Python function "
        "called with the same **params; 'written out': the parameters as keywords in the call, "
        "as a script writes them)")


def worker(tree: str) -> int:
    """``--worker``: import descgen from ``tree``; for each row index read on stdin, print the
    ns of descgen's call and of Construct's."""
    sys.path.insert(0, tree)
    import descriptors
    rows = make_rows(descriptors)
    print(len(rows), descriptors.__file__, flush=True)
    for line in sys.stdin:
        name, ours, theirs = rows[int(line)]
        print(f"{per_call(ours, repeat=min(3, REPEAT)):.1f} "
              f"{per_call(theirs, n=N_CALLS // 10, repeat=min(3, REPEAT)):.1f}", flush=True)
    return 0


def side_by_side(before: str, after: str, rounds: int = REPEAT) -> None:
    """Each row timed in a worker of each checkout in turn, ``rounds`` times; min of each."""
    flags = [*(["--every-layout"] if EVERY else []), *(["--quick"] if QUICK else [])]
    procs = [subprocess.Popen([sys.executable, __file__, "--worker", tree, *flags],
                              stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True) for tree in (before, after)]
    heads = [p.stdout.readline().split() for p in procs]  # type: ignore[union-attr]
    print(f"before: {heads[0][1]}\nafter:  {heads[1][1]}")
    import descriptors
    names = [name for name, _, _ in make_rows(descriptors)]
    print(f"\n{'per call (ns)':<40} {'before':>8} {'after':>8} {'Construct':>10} "
          f"{'before':>8} {'after':>8}")
    for i, name in enumerate(names):
        ours = [float("inf"), float("inf")]
        theirs = float("inf")
        for _ in range(rounds):
            for j, p in enumerate(procs):
                p.stdin.write(f"{i}\n")  # type: ignore[union-attr]
                p.stdin.flush()  # type: ignore[union-attr]
                o, c = map(float, p.stdout.readline().split())  # type: ignore[union-attr]
                ours[j] = min(ours[j], o)
                theirs = min(theirs, c)
        print(f"{name:<40} {ours[0]:>8.0f} {ours[1]:>8.0f} {theirs:>10.0f} "
              f"{theirs / ours[0]:>7.1f}x {theirs / ours[1]:>7.1f}x")
    for p in procs:
        p.stdin.close()  # type: ignore[union-attr]
        p.wait()
    print(NOTE.replace("descgen's call", "descgen's call, before and after"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = str(Path(__file__).resolve().parents[2])
    parser.add_argument("--tree", default=here,
                        help="checkout to import descgen from (default: this one)")
    parser.add_argument("--before", metavar="DIR",
                        help="measure checkout DIR and --tree side by side (per-call rows only)")
    parser.add_argument("--no-bulk", action="store_true", help="per-call numbers only")
    parser.add_argument("--every-layout", action="store_true",
                        help="add encode/decode rows for every descriptor and idesc kind")
    parser.add_argument("--quick", action="store_true",
                        help="a few calls per row: checks the script runs, measures nothing")
    parser.add_argument("--worker", metavar="DIR", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args.worker)
    sys.path.insert(0, args.tree)
    t0 = time.perf_counter()
    if args.before:
        side_by_side(args.before, args.tree)
        print(f"\ntotal {time.perf_counter() - t0:.1f} s")
        return 0
    import descriptors
    print(f"descgen from {descriptors.__file__}")
    print(f"\n{'per call (ns)':<40} {'descgen':>9} {'Construct':>10} {'ratio':>8}")
    for name, ours, theirs in make_rows(descriptors):
        o, c = per_call(ours), per_call(theirs, n=N_CALLS // 10)
        print(f"{name:<40} {o:>9.0f} {c:>10.0f} {c / o:>7.1f}x")
    print(NOTE)
    from descriptors import SMEM, IDESC

    if args.no_bulk or not hasattr(descriptors, "decode_many"):
        print(f"\ntotal {time.perf_counter() - t0:.1f} s")
        return 0

    from descriptors.words import bulk
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

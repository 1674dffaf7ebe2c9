"""Benchmark: descgen's compiled codecs against Construct's interpreter on the same definition.

Run as ``python tests/benchmarks/bench_codec.py [--quick]`` (not collected by pytest). For every layout it
times, per word: (a) raw encode ``layout.encode_fields(fields)`` vs
``layout.struct.build(fields)``, (b) raw decode ``layout.decode(word)`` vs
``layout.struct.parse(bytes)``; then (c) the public ``descriptors.decode(...).fields`` and semantic
``descriptors.encode(..., check=False)`` (the packing, no rules) for a typical configuration, and (d) a batch decode of 100k random
words. Bit-identity of both routes is asserted on the random words before anything is timed.
"""

from __future__ import annotations

import random
import sys
import time
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import descriptors  # noqa: E402
from descriptors import LAYOUTS  # noqa: E402

#: ``--quick``: a few words each -- checks the script works (tests/benchmarks/test_benchmarks.py), measures
#: nothing
QUICK = "--quick" in sys.argv
N_CHECK = 50 if QUICK else 2000  # random words checked for bit-identity per layout
N_WORDS = 20 if QUICK else 200  # words per timed run
REPEAT = 1 if QUICK else 5
BATCH = 1_000 if QUICK else 100_000

#: A typical configuration per layout, for the public calls (c).
TYPICAL = {
    "smem": ("smem", None, dict(start_address=0x400, leading_byte_offset=16,
                                stride_byte_offset=1024, swizzle="128B")),
    "idesc": ("idesc", "f16", dict(kind="f16", a_type="bf16", b_type="bf16", d_type="f32",
                                   m=128, n=256)),
    "idesc_mxf8f6f4": ("idesc", "mxf8f6f4", dict(kind="mxf8f6f4", a_type="e4m3", b_type="e4m3",
                                                 m=256, n=256, a_scale_id=1, b_scale_id=1)),
    "idesc_mxf4": ("idesc", "mxf4nvf4", dict(kind="mxf4nvf4", scale_type="ue4m3", m=128, n=256)),
    "zcm": ("zcm", None, dict(start_count=[0, 1, 2, 1], first_span=[1, 1, 0, 0], skip_span=2,
                              use_span=3, column_shift=2)),
    "tmem": ("tmem", None, dict(lane=64, column=128)),
    "wgmma": ("wgmma", None, dict(start_address=0x400, leading_byte_offset=16,
                                  stride_byte_offset=1024, swizzle="128B")),
}


def per_call(stmt, n):
    """Best-of-REPEAT time per call in ns of ``stmt`` (a no-arg callable doing n calls)."""
    return min(timeit.repeat(stmt, number=1, repeat=REPEAT)) / n * 1e9


def main() -> int:
    t0 = time.perf_counter()
    rng = random.Random(2025)
    rows = []
    enc_ratios, dec_ratios = [], []
    for name, lay in LAYOUTS.items():
        nbytes = lay.size // 8
        words = [rng.getrandbits(lay.size) for _ in range(N_CHECK)]
        # ---- bit identity of both routes before timing
        for w in words:
            ours = lay.decode(w)
            theirs = lay.struct.parse(w.to_bytes(nbytes, "big"))
            assert ours == {f.name: theirs[f.name] for f in lay.fields}, hex(w)
            assert lay.encode_fields(ours) == w, hex(w)
            assert int.from_bytes(lay.struct.build(ours), "big") == w, hex(w)
        sample = words[:N_WORDS]
        fields = [lay.decode(w) for w in sample]
        data = [w.to_bytes(nbytes, "big") for w in sample]
        enc, build, dec, parse = lay.encode_fields, lay.struct.build, lay.decode, lay.struct.parse

        ours_enc = per_call(lambda: [enc(f) for f in fields], N_WORDS)
        cs_enc = per_call(lambda: [int.from_bytes(build(f), "big") for f in fields], N_WORDS)
        ours_dec = per_call(lambda: [dec(w) for w in sample], N_WORDS)
        cs_dec = per_call(lambda: [parse(b) for b in data], N_WORDS)

        descriptor, kind, params = TYPICAL[name]
        word = descriptors.encode(descriptor, **params)
        assert descriptors.layout_for(descriptor, kind) is lay
        pub_dec = per_call(lambda: [descriptors.decode(descriptor, word, kind=kind).fields
                                    for _ in range(N_WORDS)], N_WORDS)
        pub_enc = per_call(lambda: [descriptors.encode(descriptor, check=False, **params)
                                    for _ in range(N_WORDS)], N_WORDS)

        batch = [rng.getrandbits(lay.size) for _ in range(BATCH)]
        start = time.perf_counter()
        out = [dec(w) for w in batch]
        batch_s = time.perf_counter() - start
        assert len(out) == BATCH and out[-1] == lay.construct_parse(batch[-1])

        enc_ratios.append((cs_enc / ours_enc, name))
        dec_ratios.append((cs_dec / ours_dec, name))
        rows.append((name, ours_enc, cs_enc, ours_dec, cs_dec, pub_dec, pub_enc, batch_s))

    head = (f"{'layout':<15} {'enc ns':>8} {'cs build':>9} {'ratio':>6} {'dec ns':>8} "
            f"{'cs parse':>9} {'ratio':>6} {'pub dec':>8} {'pub enc':>8} {'100k dec s':>10}")
    print(head)
    print("-" * len(head))
    for name, oe, ce, od, cd, pd, pe, bs in rows:
        print(f"{name:<15} {oe:>8.0f} {ce:>9.0f} {ce / oe:>5.1f}x {od:>8.0f} {cd:>9.0f} "
              f"{cd / od:>5.1f}x {pd:>8.0f} {pe:>8.0f} {bs:>10.3f}")
    print("(ns per word; ratio = Construct / ours; pub dec = descriptors.decode(...).fields, "
          "pub enc = semantic descriptors.encode(..., check=False) of a typical config)")
    elapsed = time.perf_counter() - t0
    print(f"total {elapsed:.1f} s")
    assert elapsed < 60, "benchmark must finish in under 60 s"
    e, en = min(enc_ratios)
    d, dn = min(dec_ratios)
    print(f"minimum ratio: raw encode {e:.1f}x ({en}), raw decode {d:.1f}x ({dn})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

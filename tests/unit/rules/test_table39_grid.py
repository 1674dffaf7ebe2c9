"""The whole of PTX Table 39 ("Various combinations of .kind and shapes") against the validator.

The expectation below is transcribed row by row from the PTX text
(PTX ISA 9.7.16.2.1, Table 39) and deliberately does NOT use
``descriptors.rules.validate.SHAPES`` or ``shape_rule``.  For every kind x cta_group x .ws x sparsity
x M x N (8..256 step 8) -- 7168 cells -- the word is encoded with a legal type combination for the kind and
validated; "no error from idesc.shape / idesc.ws" must equal the table's answer.  Block-scaled
layouts store M >> 7, so M = 32 / 64 cannot be encoded for them: those cells are invalid.
"""

from __future__ import annotations


import pytest
from helpers import LEGAL_TYPES

from descriptors import FieldError, validate
from descriptors.words.codec import encode  # the packing: the grid covers illegal shapes too

KINDS = ("tf32", "f16", "f8f6f4", "i8", "mxf8f6f4", "mxf4", "mxf4nvf4")
MS = (32, 64, 128, 256)
NS = tuple(range(8, 257, 8))

#: A legal type combination per kind (Table 39 dtype / atype / btype columns).
TYPES = LEGAL_TYPES

# ---------------------------------------------------------------- N sets as the table writes them
N_STEP8 = frozenset(range(8, 257, 8))        # "N = {8, 16, 24, ... 256} steps of 8"
N_STEP16 = frozenset(range(16, 257, 16))     # "N = {16, 32, ... 256} steps of 16"
N_STEP32 = frozenset(range(32, 257, 32))     # "N = {32, 64, ... 256} steps of 32"
N_I8 = frozenset({8, 16, 24, 32} | set(range(48, 257, 16)))  # "{8,16,24,32,48,...256} steps of 16 after N > 32"
N_WS_DENSE = frozenset({64, 128, 256})       # "N = {64, 128, 256}"
N_WS_SPARSE = frozenset({64, 128})           # "N = {64, 128}"

Row = tuple[str, bool, int, bool]  # (kind, ws, cta_group, sparse)

#: Table 39, one entry per (kind, has .ws, CTA group, sparsity): (allowed M, allowed N).
#: A combination the table marks "Invalid" is simply absent.
TABLE39: dict[Row, tuple[frozenset[int], frozenset[int]]] = {}


def _row(kind: str, ws: bool, cta: int, sparse: bool, ms: set[int], ns: frozenset[int]) -> None:
    key = (kind, ws, cta, sparse)
    assert key not in TABLE39, key
    TABLE39[key] = (frozenset(ms), ns)


# kind::f16 -- No .ws, 1: 64xNxK 128xNxK, N steps of 8 (dense K=16, sparse K=32)
_row("f16", False, 1, False, {64, 128}, N_STEP8)
_row("f16", False, 1, True, {64, 128}, N_STEP8)
# kind::f16 -- No .ws, 2: 128xNxK 256xNxK, N steps of 16
_row("f16", False, 2, False, {128, 256}, N_STEP16)
_row("f16", False, 2, True, {128, 256}, N_STEP16)
# kind::f16 -- .ws, 1: 32xNxK 64xNxK 128xNxK, dense N={64,128,256}, sparse N={64,128}
_row("f16", True, 1, False, {32, 64, 128}, N_WS_DENSE)
_row("f16", True, 1, True, {32, 64, 128}, N_WS_SPARSE)
# kind::f16 -- .ws, 2, Either: Invalid

# kind::tf32 -- identical shape rows (K = 8 / 16)
_row("tf32", False, 1, False, {64, 128}, N_STEP8)
_row("tf32", False, 1, True, {64, 128}, N_STEP8)
_row("tf32", False, 2, False, {128, 256}, N_STEP16)
_row("tf32", False, 2, True, {128, 256}, N_STEP16)
_row("tf32", True, 1, False, {32, 64, 128}, N_WS_DENSE)
_row("tf32", True, 1, True, {32, 64, 128}, N_WS_SPARSE)
# kind::tf32 -- .ws, 2: Invalid

# kind::f8f6f4 (K = 32 / 64)
_row("f8f6f4", False, 1, False, {64, 128}, N_STEP8)
_row("f8f6f4", False, 1, True, {64, 128}, N_STEP8)
_row("f8f6f4", False, 2, False, {128, 256}, N_STEP16)
_row("f8f6f4", False, 2, True, {128, 256}, N_STEP16)
_row("f8f6f4", True, 1, False, {32, 64, 128}, N_WS_DENSE)
_row("f8f6f4", True, 1, True, {32, 64, 128}, N_WS_SPARSE)
# kind::f8f6f4 -- .ws, 2: Invalid

# kind::mxf8f6f4 -- No .ws, 1: 128xNxK, N steps of 8 (dense and sparse)
_row("mxf8f6f4", False, 1, False, {128}, N_STEP8)
_row("mxf8f6f4", False, 1, True, {128}, N_STEP8)
# kind::mxf8f6f4 -- No .ws, 2: dense 128xNxK 256xNxK; sparse 256xNxK; N steps of 16
_row("mxf8f6f4", False, 2, False, {128, 256}, N_STEP16)
_row("mxf8f6f4", False, 2, True, {256}, N_STEP16)
# kind::mxf8f6f4 -- .ws (1 and 2, dense and sparse): Invalid

# kind::i8 -- No .ws, 1: 64xNxK 128xNxK, N = {8, 16, 24, 32, 48, ... 256}
_row("i8", False, 1, False, {64, 128}, N_I8)
_row("i8", False, 1, True, {64, 128}, N_I8)
# kind::i8 -- No .ws, 2: 128xNxK 256xNxK, N steps of 32
_row("i8", False, 2, False, {128, 256}, N_STEP32)
_row("i8", False, 2, True, {128, 256}, N_STEP32)
# kind::i8 -- .ws, 1
_row("i8", True, 1, False, {32, 64, 128}, N_WS_DENSE)
_row("i8", True, 1, True, {32, 64, 128}, N_WS_SPARSE)
# kind::i8 -- .ws, 2: Invalid

# kind::mxf4 and kind::mxf4nvf4 -- No .ws, 1: 128xNxK steps of 8; 2: dense 128/256 (and
# 256xNxK1, K1 = 96, tested below), sparse 256 only, steps of 16; .ws 1 / 2 Either: Invalid
for _k in ("mxf4", "mxf4nvf4"):
    _row(_k, False, 1, False, {128}, N_STEP8)
    _row(_k, False, 1, True, {128}, N_STEP8)
    _row(_k, False, 2, False, {128, 256}, N_STEP16)
    _row(_k, False, 2, True, {256}, N_STEP16)


def table39_allows(kind: str, cta: int, ws: bool, sparse: bool, m: int, n: int) -> bool:
    entry = TABLE39.get((kind, ws, cta, sparse))
    return entry is not None and m in entry[0] and n in entry[1]


SHAPE_RULES = {"idesc.shape", "idesc.ws"}


def _word(kind: str, m: int, n: int, sparse: bool) -> int | None:
    try:
        return encode("idesc", kind=kind, **TYPES[kind], m=m, n=n, sparse=sparse)
    except FieldError:
        return None


def _cells():
    for kind in KINDS:
        for cta in (1, 2):
            for ws in (False, True):
                for sparse in (False, True):
                    for m in MS:
                        for n in NS:
                            yield kind, cta, ws, sparse, m, n


def test_transcription_sanity():
    # 7 kinds: 4 non-block-scaled with 6 valid rows, 3 block-scaled with 4 valid rows
    assert len(TABLE39) == 4 * 6 + 3 * 4
    assert sum(1 for c in _cells()) == 7 * 2 * 2 * 2 * 4 * 32
    # .ws never with cta_group::2 and never for block-scaled kinds
    assert not [k for k in TABLE39 if k[1] and (k[2] == 2 or k[0].startswith("mx"))]


def test_table39_grid():
    mismatches: list[str] = []
    checked = 0
    for kind, cta, ws, sparse, m, n in _cells():
        expected = table39_allows(kind, cta, ws, sparse, m, n)
        word = _word(kind, m, n, sparse)
        if word is None:
            # M not encodable (block-scaled layouts store M >> 7): invalid
            assert kind.startswith("mx") and m in (32, 64), (kind, m, n)
            got, why = False, "encode FieldError"
        else:
            findings = validate("idesc", word, kind=kind, cta_group=cta, ws=ws)
            errs = [f for f in findings if f.severity == "error" and f.rule in SHAPE_RULES]
            got = not errs
            why = "; ".join(f"[{f.rule}] {f.message}" for f in errs) or "no shape/ws error"
            # the type combination is legal: no other error may appear for a valid cell
            if expected:
                other = [f for f in findings if f.severity == "error"]
                if other:
                    mismatches.append(f"kind::{kind} cta_group::{cta} ws={ws} sparse={sparse} "
                                      f"M={m} N={n}: valid cell has errors {other}")
        checked += 1
        if got != expected:
            mismatches.append(
                f"kind::{kind} cta_group::{cta} ws={ws} sparse={sparse} M={m} N={n}: "
                f"Table 39 says {'valid' if expected else 'invalid'}, library "
                f"{'valid' if got else 'invalid'} ({why})")
    assert checked == 7 * 2 * 2 * 2 * 4 * 32 == 7168
    assert not mismatches, f"{len(mismatches)} mismatches; first 20:\n" + "\n".join(mismatches[:20])


# ---------------------------------------------------------------- 256xNxK1, K1 = 96 (mxf4, mxf4nvf4)
# Table 39: cta_group 2, Dense, "128xNxK 256xNxK 256xNxK1", N = {16, 32, ... 256} steps of 16,
# K1 = 96; 9.7.16.2.1.1: K = 96 only on sm_103a.  Sparse rows are "256xNxK, K = 128" only.

K96_RULES = {"idesc.shape", "idesc.ws", "idesc.k96"}


def k96_allows(arch: str, cta: int, ws: bool, sparse: bool, m: int, n: int) -> bool:
    return arch == "sm_103a" and cta == 2 and not ws and not sparse and m == 256 and n in N_STEP16


@pytest.mark.parametrize("kind", ["mxf4", "mxf4nvf4"])
def test_table39_k96_line(kind):
    mismatches: list[str] = []
    for arch in ("sm_100a", "sm_103a"):
        for cta in (1, 2):
            for ws in (False, True):
                for sparse in (False, True):
                    for m in (128, 256):
                        for n in NS:
                            word = encode("idesc", kind=kind, **TYPES[kind], m=m, n=n,
                                          sparse=sparse) | (1 << 31)  # k_dim: K = 96
                            findings = validate("idesc", word, kind=kind, arch=arch,
                                                cta_group=cta, ws=ws)
                            errs = [f for f in findings
                                    if f.severity == "error" and f.rule in K96_RULES]
                            expected = k96_allows(arch, cta, ws, sparse, m, n)
                            if (not errs) != expected:
                                mismatches.append(
                                    f"kind::{kind} K=96 {arch} cta_group::{cta} ws={ws} "
                                    f"sparse={sparse} M={m} N={n}: expected "
                                    f"{'valid' if expected else 'invalid'}, got {errs}")
                            if expected:
                                assert not [f for f in findings if f.severity == "error"]
    assert not mismatches, f"{len(mismatches)} mismatches; first 20:\n" + "\n".join(mismatches[:20])


@pytest.mark.parametrize("kind", ["mxf4", "mxf4nvf4"])
def test_k96_encodes_through_parameters(kind):
    """The parameter route (k=96) gives the same word and verdict as the raw bit."""
    word = encode("idesc", kind=kind, **TYPES[kind], m=256, n=128, k=96)
    assert word == encode("idesc", kind=kind, **TYPES[kind], m=256, n=128) | (1 << 31)
    assert not [f for f in validate("idesc", word, kind=kind, arch="sm_103a", cta_group=2, ws=False)
                if f.severity == "error"]

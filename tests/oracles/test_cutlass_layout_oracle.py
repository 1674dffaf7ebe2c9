"""CUTLASS oracle for shared-memory layouts: descgen's tile API and CuTe-layout reader against
CUTLASS's own ``UMMA::make_umma_desc`` (cute/atom/mma_traits_sm100.hpp), bit for bit.

``tests/oracles/cpp/cutlass_layout_oracle.cpp`` plus a generated ``layout_cases.inc`` is compiled
(host only) against the headers of the PyPI wheel ``nvidia-cutlass==4.2.0.0``.  For each case of
a grid of (major-ness, swizzle atom, element type, tile order, tile, start address) it builds
the tile the way CUTLASS kernels do -- ``tile_to_shape(UMMA::Layout_<major>_<swizzle>_Atom<T>,
(rows, K), Step<_1,_2> | Step<_2,_1>)`` -- splits it into MMA K blocks and prints, for every
block, the descriptor (``MakeTensor<UMMA::smem_desc<Major>>``, i.e. ``make_umma_desc`` plus the
DescriptorIterator's low-word offsets) and the block itself as CuTe prints it.  The tests
compare:

* ``layout_descriptor(..., tile_order=...).k_steps()`` with CUTLASS's words;
* ``cute_descriptor(<CuTe's print of the block>)`` with CUTLASS's word for that block -- the
  strings a kernel prints, fed back;
* ``cute_descriptor`` of descgen's own per-step slice layouts (``KStep.layout``) with the
  words descgen gives for them.

The grid covers both tile orders, every swizzle atom (INTER, SW32, SW64, SW128, SW128_32B),
both majors, tf32/f16/bf16/e4m3/e5m2/s8/e3m2/e2m1 (padded and packed), tiles with one and
several atoms along M/N and K, and start addresses on and off the swizzle repeat boundary.
Element types as CUTLASS stores them: the padded 4/6-bit types of kind::f8f6f4/mxf8f6f4 as
uint8_t, packed e2m1 of kind::mxf4/mxf4nvf4 as float_e2m1_t.

By default a fixed sample of the grid runs (one tile for every combination of major, swizzle and
type, the tile order alternating, so every (major, swizzle) and every type is seen in both
orders: 53 tiles); ``pytest -m oracle_full`` runs all of it (424 tiles, 1,360 K blocks).  The compiled programs are cached in
pytest's cache directory, keyed by a hash of the sources, the include path and the compiler.
The tests are skipped (with the reason) when no C++ compiler, no CUDA include directory or no
CUTLASS wheel headers are found; when they are found, a compile error is a failure.

One documented difference: for a tile that starts off its swizzle's repeat boundary, CUTLASS
writes base offset 0 (its swizzle acts on absolute addresses, so the pattern starts on the
boundary); ``layout_descriptor`` takes the tile start as the pattern start and writes
``(start >> 7) & 7`` (Table 41).  ``cute_descriptor`` follows CuTe's semantics and agrees with
CUTLASS on every block.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from cutlass_env import compiler, cuda_include, cutlass_include

from descriptors import SMEM
from descriptors.layout.cute_layout import cute_descriptor
from descriptors.words.swizzles import SWIZZLE_MODES
from descriptors.layout.smem_layout import layout_descriptor, swizzle_atom

HERE = Path(__file__).resolve().parent
ORACLE_SRC = HERE / "cpp" / "cutlass_layout_oracle.cpp"
TRAITS_HEADER = Path("cute") / "atom" / "mma_traits_sm100.hpp"

# ---------------------------------------------------------------------------- the grid

#: (dtype, kind) -> the C++ type CUTLASS keeps in shared memory.
CPP_TYPE = {
    ("tf32", "tf32"): "tfloat32_t", ("f16", "f16"): "half_t", ("bf16", "f16"): "bfloat16_t",
    ("e4m3", "f8f6f4"): "float_e4m3_t", ("e5m2", "f8f6f4"): "float_e5m2_t",
    ("s8", "i8"): "int8_t", ("e3m2", "mxf8f6f4"): "uint8_t", ("e2m1", "f8f6f4"): "uint8_t",
    ("e2m1", "mxf4nvf4"): "float_e2m1_t",
}
ATOM = {
    ("K", "none"): "Layout_K_INTER_Atom", ("K", "32B"): "Layout_K_SW32_Atom",
    ("K", "64B"): "Layout_K_SW64_Atom", ("K", "128B"): "Layout_K_SW128_Atom",
    ("MN", "none"): "Layout_MN_INTER_Atom", ("MN", "32B"): "Layout_MN_SW32_Atom",
    ("MN", "64B"): "Layout_MN_SW64_Atom", ("MN", "128B"): "Layout_MN_SW128_Atom",
    ("MN", "128B_base32B"): "Layout_MN_SW128_32B_Atom",
}
STEP = {"mn_first": "Step<_1,_2>", "k_first": "Step<_2,_1>"}
K_PER_MMA = {"tf32": 8, "f16": 16, "f8f6f4": 32, "i8": 32, "mxf8f6f4": 32, "mxf4nvf4": 64}

K_MAJOR_TYPES = [("tf32", "tf32"), ("f16", "f16"), ("bf16", "f16"), ("e4m3", "f8f6f4"),
                 ("s8", "i8"), ("e3m2", "mxf8f6f4"), ("e2m1", "f8f6f4"), ("e2m1", "mxf4nvf4")]
MN_MAJOR_TYPES = [("f16", "f16"), ("bf16", "f16"), ("e4m3", "f8f6f4"), ("e5m2", "f8f6f4"),
                  ("s8", "i8")]
SWIZZLES = ("none", "32B", "64B", "128B")
ORDERS = ("mn_first", "k_first")
K_ROWS = (8, 128, 16, 256, 64)               # K-major rows (M/N), cycled
MN_ATOMS = (1, 2, 4, 2)                      # MN-major atoms along M/N, cycled
K_BLOCKS = (1, 2, 3, 2)                      # multiples of lcm(atom K, MMA K), cycled
ON_BOUNDARY = (0, 0x400, 0x2000, 0x8400, 0x1C000, 0x3000)    # multiples of 1024
OFF_BOUNDARY = (0x1480, 0x600, 0x2280, 0x180)                # 128-aligned, off 1024
VARIANTS = 4                                 # tiles per (major, swizzle, type, order)


@dataclass(frozen=True)
class Case:
    id: int
    major: str
    swizzle: str
    dtype: str
    kind: str
    order: str
    rows: int
    k: int
    addr: int
    variant: int

    @property
    def uk(self) -> int:
        return K_PER_MMA[self.kind]

    @property
    def on_boundary(self) -> bool:
        rep = SWIZZLE_MODES[self.swizzle].repeat_bytes
        return rep is None or self.addr % rep == 0

    def cpp(self) -> str:
        t = CPP_TYPE[self.dtype, self.kind]
        return (f"run<{t}, UMMA::Major::{self.major}, UMMA::{ATOM[self.major, self.swizzle]}<{t}>, "
                f"{self.rows}, {self.k}, {self.uk}, {STEP[self.order]}>({self.id}, {self.addr:#x}u);")

    def layout(self):  # noqa: ANN201 - SmemLayout
        return layout_descriptor(self.major, self.swizzle, self.dtype, (self.rows, self.k),
                                 self.addr, kind=self.kind, tile_order=self.order)

    def __str__(self) -> str:
        return (f"#{self.id} {self.major}-major {self.swizzle} {self.dtype} (kind::{self.kind}) "
                f"{self.order} {self.rows}x{self.k} at {self.addr:#x}")


def _grid() -> list[Case]:
    combos = [("K", s, d, k) for d, k in K_MAJOR_TYPES for s in SWIZZLES]
    combos += [("MN", s, d, k) for d, k in MN_MAJOR_TYPES for s in SWIZZLES]
    combos.append(("MN", "128B_base32B", "tf32", "tf32"))
    cases = []
    n = 0
    for i, (major, swz, dtype, kind) in enumerate(combos):
        atom = swizzle_atom(major, swz, dtype, kind)
        atom_mn, atom_k = atom.elements
        base_k = math.lcm(atom_k, K_PER_MMA[kind])
        for order in ORDERS:
            for v in range(VARIANTS):
                j = i + v
                k = base_k * K_BLOCKS[j % len(K_BLOCKS)]
                rows = K_ROWS[j % len(K_ROWS)] if major == "K" else atom_mn * MN_ATOMS[j % len(MN_ATOMS)]
                pool = OFF_BOUNDARY if (v == 2 and swz != "none") else ON_BOUNDARY
                addr = pool[(j + len(order)) % len(pool)]
                cases.append(Case(n, major, swz, dtype, kind, order, rows, k, addr, v))
                n += 1
    return cases


CASES = _grid()
#: The default sample: one tile per (major, swizzle, type), the tile order alternating between
#: combinations (so every (major, swizzle) and every type is seen in both orders), rotating
#: through the variants.  ~0.8 s of compile per tile: the whole grid is behind -m oracle_full.
def _sampled(c: Case) -> bool:
    ci = c.id // (VARIANTS * len(ORDERS))           # the (major, swizzle, type) combination
    return c.order == ORDERS[(ci + ci // len(SWIZZLES)) % 2] and c.variant == (ci // 2) % VARIANTS


SAMPLE = [c for c in CASES if _sampled(c)]


def _cases_inc(cases: list[Case]) -> str:
    lines = ["// Generated by tests/oracles/test_cutlass_layout_oracle.py -- do not edit.",
             "static void cases() {"]
    lines += [f"  {c.cpp()}" for c in cases]
    lines.append("}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------- the oracle


def _build(cache_dir: Path, cmd_prefix: list[str], inc_text: str) -> Path:
    key = hashlib.sha256("\0".join([ORACLE_SRC.read_text(), inc_text, *cmd_prefix]).encode()).hexdigest()[:16]
    exe = cache_dir / f"cutlass_layout_oracle-{key}"
    if exe.is_file() and os.access(exe, os.X_OK):
        return exe
    build = cache_dir / f"build-{key}-{os.getpid()}"
    build.mkdir(parents=True, exist_ok=True)
    (build / "layout_cases.inc").write_text(inc_text)
    out = build / "oracle"
    cmd = [*cmd_prefix, f"-I{build}", str(ORACLE_SRC), "-o", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, (f"compiling the CUTLASS layout oracle failed:\n{' '.join(cmd)}\n"
                                  f"{proc.stderr[-4000:]}")
    os.replace(out, exe)
    shutil.rmtree(build, ignore_errors=True)
    return exe


Oracle = dict[int, list[tuple[int, str]]]


def _run_oracle(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
                cases: list[Case]) -> Oracle:
    inc, why = cutlass_include(TRAITS_HEADER)
    if inc is None:
        pytest.skip(why)
    cxx = compiler()
    if cxx is None:
        pytest.skip("no C++ compiler (CXX, g++, c++ or clang++) on PATH")
    cuda = cuda_include()
    if cuda is None:
        pytest.skip("CUDA include directory not found (CUDA_HOME, CUDA_PATH or /usr/local/cuda)")
    prefix = [*cxx, "-std=c++17", "-O0", "-w", f"-I{inc}", f"-I{cuda}"]
    if (cuda / "cccl").is_dir():
        prefix.append(f"-I{cuda / 'cccl'}")
    cache = getattr(request.config, "cache", None)
    cache_dir = Path(cache.mkdir("cutlass_layout_oracle") if cache is not None
                     else tmp_path_factory.mktemp("cutlass_layout_oracle"))
    # Two translation units compile side by side (the template instantiations dominate).
    halves = [cases[: len(cases) // 2], cases[len(cases) // 2:]]
    with ThreadPoolExecutor(max_workers=2) as pool:
        exes = list(pool.map(lambda part: _build(cache_dir, prefix, _cases_inc(part)), halves))
    out: Oracle = {}
    for exe in exes:
        proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120, check=True)
        for line in proc.stdout.splitlines():
            tag, cid, step, word, printed = line.split(" ", 4)
            assert tag == "D", line
            got = out.setdefault(int(cid), [])
            assert int(step) == len(got), line
            got.append((int(word, 16), printed))
    return out


@pytest.fixture(scope="module")
def oracle(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Oracle:
    return _run_oracle(request, tmp_path_factory, SAMPLE)


@pytest.fixture(scope="module")
def oracle_full(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Oracle:
    return _run_oracle(request, tmp_path_factory, CASES)


# ---------------------------------------------------------------------------- comparisons

_BASE = SMEM.by_name["base_offset"]


def _byte_address(case: Case, printed: str) -> int | None:
    """The block's byte address for a packed 4-bit type, whose CuTe pointer prints base +
    element offset (sizeof(float_e2m1_t) == 1; cute_descriptor refuses to guess it); else None
    (the printed pointer is the byte address)."""
    if CPP_TYPE[case.dtype, case.kind] != "float_e2m1_t":
        return None
    addr = re.search(r"\]\((0x[0-9a-f]+|\(nil\))\)", printed).group(1)  # type: ignore[union-attr]
    shown = 0 if addr == "(nil)" else int(addr, 16)
    return case.addr + (shown - case.addr) // 2


def _compare(cases: list[Case], oracle: Oracle) -> tuple[int, list[str]]:
    """Words compared and the differences, as readable lines."""
    assert set(oracle) == {c.id for c in cases}
    bad: list[str] = []
    compared = 0
    for case in cases:
        theirs = oracle[case.id]
        lay = case.layout()
        steps = lay.k_steps()
        ours = [s.word for s in steps]
        cutlass = [w for w, _ in theirs]
        if case.on_boundary:
            if ours != cutlass:
                bad.append(f"  {case}: layout_descriptor\n      ours    {[hex(w) for w in ours]}\n"
                           f"      cutlass {[hex(w) for w in cutlass]}")
        else:
            # documented difference: the base offset only (Table 41 vs CUTLASS's 0)
            base = lay.base_offset << _BASE.lsb
            if lay.base_offset != (case.addr >> 7) & 7 or [w | base for w in cutlass] != ours:
                bad.append(f"  {case}: layout_descriptor off the repeat boundary\n"
                           f"      ours    {[hex(w) for w in ours]}\n"
                           f"      cutlass {[hex(w) for w in cutlass]}")
        for i, (word, printed) in enumerate(theirs):
            compared += 1
            got = cute_descriptor(printed, dtype=case.dtype, kind=case.kind, major=case.major,
                                  start_address=_byte_address(case, printed))
            if got != word:
                bad.append(f"  {case}: block {i}: cute_descriptor({printed!r}) = {got:#x}, "
                           f"CUTLASS {word:#x}")
        for s in steps:
            got = cute_descriptor(s.layout, dtype=case.dtype, kind=case.kind, major=case.major,
                                  start_address=lay.start_address_bytes if lay.base_offset else s.start_address_bytes)
            if got != s.word:
                bad.append(f"  {case}: step {s.index}: cute_descriptor({s.layout!r}) = {got:#x}, "
                           f"layout_descriptor {s.word:#x}")
    return compared, bad


def test_grid_covers_the_brief() -> None:
    """The grid spans what the docstring claims (else the comparison would prove less than it
    says): both orders for every (major, swizzle, type), every atom, every packing, m = 1 and
    m > 1, one and several atoms along K, several K blocks, addresses on and off the repeat
    boundary; and the default sample covers every (major, swizzle, type, order)."""
    combos = {(c.major, c.swizzle, c.dtype, c.kind) for c in CASES}
    assert {(c.major, c.swizzle) for c in CASES} == set(ATOM)
    assert {(c.dtype, c.kind) for c in CASES} == set(CPP_TYPE)
    assert {(c.major, c.swizzle, c.dtype, c.kind, c.order) for c in CASES} == \
        {(*x, o) for x in combos for o in ORDERS}
    assert {(c.major, c.swizzle, c.dtype, c.kind) for c in SAMPLE} == combos
    assert {(c.major, c.swizzle, c.order) for c in SAMPLE} == \
        {(c.major, c.swizzle, o) for c in CASES for o in ORDERS} - {("MN", "128B_base32B", "mn_first")}
    assert {(c.dtype, c.kind, c.order) for c in SAMPLE} == {(d, k, o) for d, k in CPP_TYPE for o in ORDERS}
    lays = [(c, c.layout()) for c in CASES]
    for order in ORDERS:
        sel = [lay for c, lay in lays if c.order == order]
        assert {lay.m == 1 for lay in sel} == {True, False}
        assert {lay.atoms[0] > 1 and lay.atoms[1] > 1 for lay in sel} == {True, False}
        assert {lay.atoms[1] > 1 for lay in sel if lay.major == "K" and lay.swizzle != "none"} == {True, False}
        assert {lay.T for lay in sel} == {4, 8, 16, 32}
    assert sum(not c.on_boundary for c in SAMPLE) >= 5
    assert {c.variant for c in SAMPLE} == set(range(VARIANTS))
    assert max(len(lay.k_steps()) for _, lay in lays) >= 6
    # the two orders really differ on multi-atom tiles (else testing both proves nothing)
    differ = sum(a.layout().word != layout_descriptor(a.major, a.swizzle, a.dtype, (a.rows, a.k), a.addr,
                                                      kind=a.kind, tile_order="mn_first").word
                 for a in CASES if a.order == "k_first")
    assert differ > len(CASES) // 4


def test_layouts_match_cutlass_both_tile_orders(oracle: Oracle) -> None:
    """Every K block of every sampled tile, both tile orders: layout_descriptor's K steps,
    cute_descriptor of CuTe's print of the block, and cute_descriptor of descgen's own slice
    layout all give CUTLASS's word (base offset: the documented difference only)."""
    compared, bad = _compare(SAMPLE, oracle)
    assert not bad, f"{len(bad)} differences from CUTLASS:\n" + "\n".join(bad[:10])
    assert compared >= 2 * len(SAMPLE)


@pytest.mark.oracle_full
def test_layouts_match_cutlass_full_grid(oracle_full: Oracle) -> None:
    """The same over the whole grid (``pytest -m oracle_full``)."""
    compared, bad = _compare(CASES, oracle_full)
    assert not bad, f"{len(bad)} differences from CUTLASS:\n" + "\n".join(bad[:10])
    assert compared >= 3 * len(CASES)


def test_difference_base_offset_off_the_repeat_boundary(oracle: Oracle) -> None:
    """A swizzled tile off its repeat boundary: layout_descriptor writes (start >> 7) & 7,
    CUTLASS 0, cute_descriptor of CuTe's print 0 (its swizzle is on absolute addresses).
    Every other bit agrees."""
    off = [c for c in SAMPLE if not c.on_boundary]
    assert off
    for case in off:
        lay = case.layout()
        assert lay.base_offset == (case.addr >> 7) & 7 != 0
        for word, printed in oracle[case.id]:
            assert _BASE.extract(word) == 0
            assert cute_descriptor(printed, dtype=case.dtype, kind=case.kind, major=case.major,
                                   start_address=_byte_address(case, printed)) == word


def test_every_cutlass_block_reads_as_its_layout(oracle: Oracle) -> None:
    """The operand-fetch model (descriptors.layout.fetch, measured on an H100 for wgmma) on
    CUTLASS's own pairs: each K block as CuTe prints it and the word make_umma_desc builds for
    it.  check_layout must say the word reads exactly the block, as tcgen05's smem word and as
    the same fields in a wgmma word (smem_to_wgmma: Table 40's swizzle codes 2/4/6 at bits
    61-63 are 9.7.15.5.1's 1/2/3 at 62-63; bit 46 cleared).  Not modelled: 128B_base32B and packed
    4-bit elements.  Planted: the word with SBO doubled reads elsewhere."""
    from descriptors.layout.fetch import check_layout
    from descriptors.words.codec import smem_to_wgmma
    checked = caught = 0
    for case in SAMPLE:
        if case.swizzle == "128B_base32B" or CPP_TYPE[case.dtype, case.kind] == "float_e2m1_t":
            continue
        for word, printed in oracle[case.id]:
            kw = dict(major=case.major, dtype=case.dtype, kind=case.kind)
            assert check_layout(word, printed, descriptor="smem", **kw).ok, (case, printed)
            hopper = smem_to_wgmma(word)
            assert hopper == word & ~(0b111 << 46) & ~(1 << 52)  # the same bits, but bit 46
            assert check_layout(hopper, printed, descriptor="wgmma", **kw).ok, (case, printed)
            sbo = SMEM.by_name["stride_byte_offset"]
            raw = (word >> sbo.lsb) & sbo.max
            if raw and 2 * raw <= sbo.max:
                wrong = (word & ~(sbo.max << sbo.lsb)) | (2 * raw << sbo.lsb)
                res = check_layout(wrong, printed, descriptor="smem", **kw)
                caught += not res.ok
            checked += 1
    assert checked >= 60 and caught >= checked // 2, (checked, caught)

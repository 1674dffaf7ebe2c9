"""CUTLASS oracle for shared-memory layouts: descgen's layout -> descriptor (and its K steps)
against CUTLASS's own ``UMMA::make_umma_desc`` (cute/atom/mma_traits_sm100.hpp), bit for bit.

``tests/oracle/cutlass_layout_oracle.cpp`` plus a generated ``layout_cases.inc`` is compiled
once (one translation unit, host only) against the headers of the PyPI wheel
``nvidia-cutlass==4.2.0.0``.  For each case of a grid of (major-ness, swizzle, element type,
tile, start address) it builds the tile the way CUTLASS kernels do --
``tile_to_shape(UMMA::Layout_<major>_<swizzle>_Atom<T>, (rows, K))`` -- splits it into MMA K
blocks and prints the descriptor of every block (``MakeTensor<UMMA::smem_desc<Major>>``, i.e.
``make_umma_desc`` plus the DescriptorIterator's low-word offsets).  The test compares them
with ``layout_descriptor(...).k_steps()``.

Element types as CUTLASS stores them: tfloat32_t, half_t, bfloat16_t, float_e4m3_t,
float_e5m2_t, int8_t; the padded 4/6-bit types of kind::f8f6f4/mxf8f6f4 as uint8_t (CUTLASS's
shared-memory allocation type for them); packed e2m1 of kind::mxf4/mxf4nvf4 as float_e2m1_t.

One documented difference has its own test: CUTLASS always writes base offset 0 (it assumes the
tile starts on its swizzle's repeat boundary); descgen follows Table 41 and writes
``(start >> 7) & 7`` for a tile that does not.

The compiled program is cached in pytest's cache directory, keyed by a hash of the sources, the
include path and the compiler, so only the first run pays the compile (~10-20 s).  The test is
skipped (with the reason) when no C++ compiler, no CUDA include directory or no CUTLASS wheel
headers are found; when they are found, a compile error is a failure.
"""

from __future__ import annotations

import hashlib
import math
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from cutlass_env import CUTLASS_VERSION, compiler, cuda_include, cutlass_include

from descriptors import SMEM
from descriptors.smem_layout import layout_descriptor, swizzle_atom

HERE = Path(__file__).resolve().parent
ORACLE_SRC = HERE / "oracle" / "cutlass_layout_oracle.cpp"
TRAITS_HEADER = Path("cute") / "atom" / "mma_traits_sm100.hpp"


# ---------------------------------------------------------------------------- environment


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
K_PER_MMA = {"tf32": 8, "f16": 16, "f8f6f4": 32, "i8": 32, "mxf8f6f4": 32, "mxf4nvf4": 64}

K_MAJOR_TYPES = [("tf32", "tf32"), ("bf16", "f16"), ("e4m3", "f8f6f4"), ("s8", "i8"),
                 ("e3m2", "mxf8f6f4"), ("e2m1", "f8f6f4"), ("e2m1", "mxf4nvf4")]
MN_MAJOR_TYPES = [("f16", "f16"), ("e5m2", "f8f6f4")]
SWIZZLES = ("none", "32B", "64B", "128B")
ROWS_K = (8, 64, 128, 256, 16, 32)          # K-major rows, cycled
REPEATS = (1, 2, 4)                         # MN-major m (M/N atoms), cycled
ADDRESSES = (0, 0x400, 0x2000, 0x8400, 0x1C000, 0x3000)


@dataclass(frozen=True)
class Case:
    id: int
    major: str
    swizzle: str
    dtype: str
    kind: str
    rows: int
    k: int
    addr: int

    @property
    def uk(self) -> int:
        return K_PER_MMA[self.kind]

    def cpp(self) -> str:
        t = CPP_TYPE[self.dtype, self.kind]
        return (f"run<{t}, UMMA::Major::{self.major}, UMMA::{ATOM[self.major, self.swizzle]}<{t}>, "
                f"{self.rows}, {self.k}, {self.uk}>({self.id}, {self.addr:#x}u);")

    def ours(self) -> list[int]:
        lay = layout_descriptor(self.major, self.swizzle, self.dtype, (self.rows, self.k),
                                self.addr, kind=self.kind)
        return [s.word for s in lay.k_steps()]

    def __str__(self) -> str:
        return (f"#{self.id} {self.major}-major {self.swizzle} {self.dtype} (kind::{self.kind}) "
                f"{self.rows}x{self.k} at {self.addr:#x}")


def _grid() -> list[Case]:
    combos = [("K", s, d, k) for d, k in K_MAJOR_TYPES for s in SWIZZLES]
    combos += [("MN", s, d, k) for d, k in MN_MAJOR_TYPES for s in SWIZZLES]
    combos.append(("MN", "128B_base32B", "tf32", "tf32"))
    cases = []
    for i, (major, swz, dtype, kind) in enumerate(combos):
        atom = swizzle_atom(major, swz, dtype, kind)
        atom_mn, atom_k = atom.elements
        uk = K_PER_MMA[kind]
        k = math.lcm(atom_k, uk) * (1 + i % 2)          # one or two K blocks of atoms
        rows = ROWS_K[i % len(ROWS_K)] if major == "K" else atom_mn * REPEATS[i % len(REPEATS)]
        addr = ADDRESSES[i % len(ADDRESSES)]
        cases.append(Case(i, major, swz, dtype, kind, rows, k, addr))
    return cases


CASES = _grid()
#: Start address off the 128B repeat boundary: CUTLASS writes base offset 0, PTX Table 41 not.
BASE_OFFSET_CASE = Case(len(CASES), "K", "128B", "bf16", "f16", 128, 64, 0x1480)


def _cases_inc() -> str:
    lines = ["// Generated by tests/test_cutlass_layout_oracle.py -- do not edit.",
             "static void cases() {"]
    lines += [f"  {c.cpp()}" for c in (*CASES, BASE_OFFSET_CASE)]
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
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, (f"compiling the CUTLASS layout oracle failed:\n{' '.join(cmd)}\n"
                                  f"{proc.stderr[-4000:]}")
    os.replace(out, exe)
    shutil.rmtree(build, ignore_errors=True)
    return exe


@pytest.fixture(scope="module")
def oracle(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[int, list[int]]:
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
    cache_dir = cache.mkdir("cutlass_layout_oracle") if cache is not None \
        else tmp_path_factory.mktemp("cutlass_layout_oracle")
    exe = _build(Path(cache_dir), prefix, _cases_inc())
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60, check=True)
    words: dict[int, list[int]] = {}
    for line in proc.stdout.splitlines():
        tag, cid, step, word = line.split()
        assert tag == "D", line
        got = words.setdefault(int(cid), [])
        assert int(step) == len(got), line
        got.append(int(word, 16))
    return words


# ---------------------------------------------------------------------------- tests


def test_grid_covers_the_brief() -> None:
    """The grid spans what the docstring claims: both majors, every swizzle each allows,
    every packing (tf32 .. packed e2m1), m = 1 and m > 1, one and several K atoms, and start
    addresses other than 0 (else the comparison would prove less than it says)."""
    assert {(c.major, c.swizzle) for c in CASES} == set(ATOM)
    assert {(c.dtype, c.kind) for c in CASES} == set(CPP_TYPE)
    lays = [layout_descriptor(c.major, c.swizzle, c.dtype, (c.rows, c.k), c.addr, kind=c.kind)
            for c in CASES]
    assert {lay.m == 1 for lay in lays} == {True, False}
    assert {lay.atoms[1] > 1 for lay in lays if lay.major == "K" and lay.swizzle != "none"} == {True, False}
    assert {lay.T for lay in lays} == {4, 8, 16, 32}
    assert sum(c.addr != 0 for c in CASES) > len(CASES) // 2
    assert all(len(lay.k_steps()) >= 1 for lay in lays) and max(len(lay.k_steps()) for lay in lays) >= 4


def test_layout_descriptors_match_cutlass_make_umma_desc(oracle: dict[int, list[int]]) -> None:
    """Every K step of every grid tile: layout_descriptor(...).k_steps() == CUTLASS's
    make_umma_desc + DescriptorIterator, word for word."""
    assert set(oracle) == {c.id for c in (*CASES, BASE_OFFSET_CASE)}
    bad = []
    compared = 0
    for case in CASES:
        ours, theirs = case.ours(), oracle[case.id]
        compared += len(theirs)
        if ours != theirs:
            bad.append(f"  {case}\n      ours    {[hex(w) for w in ours]}\n      cutlass {[hex(w) for w in theirs]}")
    assert not bad, f"{len(bad)} of {len(CASES)} tiles differ from CUTLASS:\n" + "\n".join(bad[:8])
    assert compared >= 2 * len(CASES)


def test_difference_base_offset_off_the_repeat_boundary(oracle: dict[int, list[int]]) -> None:
    """A 128B tile at 0x1480 (not on a 1024-byte boundary): PTX Table 41 gives base offset
    (0x1480 >> 7) & 7 = 1; CUTLASS's make_umma_desc always writes 0.  Every other bit agrees."""
    case = BASE_OFFSET_CASE
    lay = layout_descriptor(case.major, case.swizzle, case.dtype, (case.rows, case.k), case.addr,
                            kind=case.kind)
    assert lay.base_offset == 1
    base = lay.fields["base_offset"] << SMEM.by_name["base_offset"].lsb
    theirs = oracle[case.id]
    assert [w | base for w in theirs] == case.ours()
    assert all(w & base == 0 for w in theirs)

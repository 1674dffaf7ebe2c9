"""CUTLASS oracle of the sm_90 wgmma matrix descriptor (PTX ISA 9.7.15.5.1), bit for bit.

``tests/oracles/cpp/cutlass_gmma_oracle.cpp`` is compiled once per module against the headers of the
PyPI wheel ``nvidia-cutlass==4.2.0.0`` (``cute/arch/mma_sm90_desc.hpp``): raw field values are
assigned to ``GMMA::GmmaDescriptor``'s bitfields at run time and the words compared with
``descriptors.encode_raw("wgmma", ...)`` and, from byte values, ``encode("wgmma", ...)``; the
swizzle codes with CUTLASS's ``GMMA::LayoutType`` (INTERLEAVE 0, B128 1, B64 2, B32 3).  Skipped
(with the reason) without a C++ compiler, the CUDA headers or the wheel's headers.
"""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest
from cutlass_env import build_oracle

from descriptors import LAYOUTS, decode, encode, encode_raw
from descriptors.words.enums import SWIZZLE_SM90

HERE = Path(__file__).resolve().parent
SRC = HERE / "cpp" / "cutlass_gmma_oracle.cpp"
HEADER = Path("cute") / "arch" / "mma_sm90_desc.hpp"
WGMMA = LAYOUTS["wgmma"]
FIELDS = ("start_address", "leading_byte_offset", "stride_byte_offset", "base_offset", "swizzle")


@pytest.fixture(scope="module")
def oracle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    exe, why = build_oracle(SRC, HEADER, tmp_path_factory.mktemp("gmma_oracle") / "gmma_oracle")
    if exe is None:
        pytest.skip(why)
    return exe


def _cutlass(exe: Path, rows: list[tuple[int, ...]]) -> list[int]:
    out = subprocess.run([str(exe), "stdin"], input="".join(" ".join(map(str, r)) + "\n"
                                                            for r in rows),
                         capture_output=True, text=True, timeout=60, check=True).stdout.split()
    assert len(out) == len(rows)
    return [int(w, 16) for w in out]


def _rows() -> list[tuple[int, ...]]:
    """Every field at 0, 1 and its maximum with the others random, then random words: 2,000+."""
    rng = random.Random(90)
    field = WGMMA.by_name
    rows = []
    for i, name in enumerate(FIELDS):
        for value in (0, 1, field[name].max):
            row = [rng.randint(0, field[n].max) for n in FIELDS]
            row[i] = value
            rows.append(tuple(row))
    rows += [tuple(rng.randint(0, field[n].max) for n in FIELDS) for _ in range(2000)]
    return rows


def test_raw_fields_match_cutlass_bitfields(oracle: Path) -> None:
    rows = _rows()
    ours = [encode_raw("wgmma", **dict(zip(FIELDS, r))) for r in rows]
    assert ours == _cutlass(oracle, rows)
    # and back: every field decodes to what CUTLASS was given, the reserved bits stay 0
    for row, word in zip(rows[:200], ours[:200]):
        d = decode("wgmma", word)
        assert tuple(d.fields[n] for n in FIELDS) == row
        assert all(d.fields[f.name] == 0 for f in WGMMA.fields if f.role == "reserved")


def test_byte_values_match_cutlass(oracle: Path) -> None:
    """encode from bytes (stored >> 4, as cute's make_gmma_desc writes them) == CUTLASS."""
    rng = random.Random(91)
    cases = []
    for _ in range(300):
        start, lbo, sbo = (rng.randrange(0, 1 << 18, 16) for _ in range(3))
        swz = rng.choice(SWIZZLE_SM90.choices)
        base = rng.randint(0, 7)
        cases.append(((start, lbo, sbo, swz.name, base),
                      (start >> 4, lbo >> 4, sbo >> 4, base, swz.value)))
    words = _cutlass(oracle, [raw for _, raw in cases])
    for ((start, lbo, sbo, swz, base), _), word in zip(cases, words):
        assert encode("wgmma", start_address=start, lbo=lbo, sbo=sbo, swizzle=swz,
                      base_offset=base) == word


def test_swizzle_codes_match_cutlass_layout_type(oracle: Path) -> None:
    out = subprocess.run([str(oracle), "static"], capture_output=True, text=True, timeout=60,
                         check=True).stdout.split("\n")
    cutlass = {line.split()[2]: int(line.split()[3]) for line in out if line.startswith("ENUM")}
    assert cutlass == {"INTERLEAVE": 0, "B128": 1, "B64": 2, "B32": 3}
    # CUTLASS's names are aliases of ours, with the same codes
    assert {name: SWIZZLE_SM90.lookup(name).value for name in cutlass} == cutlass

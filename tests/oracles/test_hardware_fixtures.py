"""The stmatrix maps `descgen explain` prints equal the maps observed on an H100 (sm_90):
fixtures/hardware/stmatrix_map.out, made by stmatrix_map.cu (README there).  The wmma.load
maps observed on sm_90 are checked for completeness only (PTX leaves them unspecified)."""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from pathlib import Path

import pytest

from descriptors.isa.fragments import stmatrix_map
from helpers import ok

HW = Path(__file__).resolve().parents[2] / "fixtures" / "hardware"


def _sections(path: Path) -> dict[str, dict[int, list[str]]]:
    out: dict[str, dict[int, list[str]]] = {}
    current = None
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            current = out.setdefault(line[2:], {})
        else:
            key, rest = line.split(":", 1)
            assert current is not None
            current[int(key)] = rest.split()
    return out


OBSERVED = _sections(HW / "stmatrix_map.out")


def test_fixture_is_the_committed_program() -> None:
    for name in ("stmatrix_map", "wmma_load_map"):
        env = (HW / f"{name}.env").read_text().splitlines()
        digest = hashlib.sha256((HW / f"{name}.cu").read_bytes()).hexdigest()
        assert env[0].split()[0] == digest, name
        assert env[1].startswith("NVIDIA H100") and ", 9.0," in env[1]


@pytest.mark.parametrize("form", sorted(OBSERVED))
def test_explain_matches_hardware(form: str) -> None:
    observed = OBSERVED[form]
    num = int(re.search(r"\.x(\d)", form).group(1))
    regs = ", ".join(f"r{i}" for i in range(num))
    line = f"{form} [p], {{{regs}}};"
    data = json.loads(ok("explain", line, "--format", "json"))
    m = stmatrix_map(line)
    assert sorted(observed) == list(range(8 * num))
    for t, cells in observed.items():
        assert len(cells) == 8 and "unwritten" not in cells
        matrix, row = divmod(t, 8)
        assert m.row_addresses[(matrix, row)] == t
        for col, cell in enumerate(cells):
            lane, reg, half = map(int, cell.split("."))
            e = m.at(matrix, row, col)
            assert (e.lane, e.register, e.half) == (lane, reg, half), (form, t, col)
    # the JSON holds the same elements
    elements = {(e["matrix"], e["row"], e["col"]): (e["lane"], e["register"], e["half"])
                for e in data["elements"]}
    assert len(elements) == 64 * num
    for t, cells in observed.items():
        for col, cell in enumerate(cells):
            assert elements[divmod(t, 8) + (col,)] == tuple(map(int, cell.split(".")))


def test_six_forms_observed() -> None:
    assert len(OBSERVED) == 6
    assert sum(len(v) * 8 for v in OBSERVED.values()) == 8 * 8 * (1 + 2 + 4) * 2


def test_wmma_sm90_maps_are_complete() -> None:
    maps = _sections(HW / "wmma_load_map.out")
    assert len(maps) == 8
    for form, lanes in maps.items():
        assert sorted(lanes) == list(range(32))
        seen = Counter(cell for cells in lanes.values() for cell in cells)
        # every element of the 16x16 matrix reaches some thread, equally often
        assert set(seen) == {f"{r}.{c}" for r in range(16) for c in range(16)}, form
        assert len(set(seen.values())) == 1, form

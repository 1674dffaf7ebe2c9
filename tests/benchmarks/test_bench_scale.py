"""``bench_scale.py --quick`` still runs and prints a row with a growth factor for every shape
(what it measures is not checked here: ``tests/unit/readers/test_dataflow_scale.py`` asserts the
branch shape's growth)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_bench_scale_prints_every_shape() -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, str(ROOT / "tests" / "benchmarks" / "bench_scale.py"),
                           "--quick"], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    rows = done.stdout.splitlines()[1:]
    names = ["tiny functions", "empty functions", "one function", "branches", "indirect"]
    assert [r[:16].strip() for r in rows] == names
    for row in rows:
        growth = re.search(r"\s(\d+\.\d)x\s", row)
        assert growth and float(growth.group(1)) > 0, row

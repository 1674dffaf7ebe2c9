"""The value types without msgspec (descriptors.structs): in a Python that has no msgspec, as
cuda-gdb's own, they are dataclasses, and every command gives what it gives with msgspec."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

#: Commands whose output covers the value types: lint (SASS with its data flow, PTX with the
#: instruction models, an error), dump, the word commands, a layout, a diff, explain, and the
#: debugger commands' own call (descriptors.tools.live.judge on a line cuda-gdb prints).
_PROBE = r"""
import contextlib, io, json, sys
if sys.argv[1] == "without":
    sys.modules["msgspec"] = None  # an import of it fails, as in a Python without it
from descriptors import structs
from cli.main import app

def run(*args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        try:
            app(list(args))
        except SystemExit as exc:
            code = exc.code
        else:
            code = 0
    return [code, out.getvalue()]

runs = [
    run("lint", "-v", "-f", "json", "fixtures/production/gemm_e4m3_splitk2.sass.gz"),
    run("lint", "-v", "-f", "json", "fixtures/lint/bad_m256_cta1.sass"),
    run("lint", "-v", "-f", "json", "fixtures/cute-dsl/ptx/dense_bf16_2cta_256x256.ptx.gz"),
    run("lint", "-v", "-f", "json", "fixtures/lint/bad_m256_cta1.ptx"),
    run("dump", "-f", "json", "fixtures/lint/bad_m256_cta1.sass"),
    run("idesc", "--kind", "f16", "-m", "128", "-n", "256", "--a-type", "bf16", "--b-type",
        "bf16", "--format", "json"),
    run("decode", "0x4000404000010040", "--as", "smem", "--format", "json"),
    run("check", "0x10400490", "--as", "idesc", "--kind", "f16", "--plain"),
    run("zcm", "--start-count", "2", "--first-span", "1", "--format", "json"),
    run("tmem", "--lane", "32", "--column", "64", "--format", "json"),
    run("diff", "0x08400490", "0x08200490", "--as", "idesc", "--kind", "f16", "--plain"),
    run("layout", "--major", "K", "--a-type", "bf16", "--swizzle", "128B", "--tile", "128x64",
        "--format", "json"),
    run("explain", "stmatrix.sync.aligned.m8n8.x4.shared.b16 [p], {r0, r1, r2, r3};"),
]
from descriptors.tools.live import judge
regs = {"UR4": 0x10040, "UR5": 0x40004040, "UR6": 0x10040, "UR7": 0x40004040, "UR8": 0,
        "UR14": 0, "UR15": 0x10400490}
mma = judge("UTCHMMA gdesc[UR4],gdesc[UR6],tmem[UR8],tmem[UR14],idesc[UR15],UP0", regs.get,
            device_sm="sm_100")
runs.append(repr(mma))
print(json.dumps({"fast": structs.FAST, "runs": runs}))
"""


def _probe(mode: str) -> dict:
    r = subprocess.run([sys.executable, "-c", _PROBE, mode], cwd=ROOT, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout)


def test_without_msgspec_every_command_gives_the_same_output():
    fast, slow = _probe("with"), _probe("without")
    assert fast["fast"] is True and slow["fast"] is False
    for a, b in zip(fast["runs"], slow["runs"]):
        assert a == b
    codes = [r[0] for r in fast["runs"][:-1]]
    assert codes == [0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0]  # the planted errors are found
    assert "M=256" in fast["runs"][-1] and "idesc.shape" in fast["runs"][-1]


def test_the_stand_in_is_a_frozen_dataclass_with_the_same_behaviour():
    code = r"""
import dataclasses, sys
sys.modules["msgspec"] = None
from descriptors.structs import Struct, asdict, field, replace
class P(Struct, frozen=True):
    a: int
    b: tuple = ()
    c: list = field(default_factory=list)
class Q(Struct, frozen=True):
    a: int
p = P(1)
assert dataclasses.is_dataclass(p) and p == P(1) and p != P(2) and p.c is not P(1).c
assert hash(Q(1)) == hash(Q(1)) and len({Q(1), Q(1), Q(2)}) == 2
assert replace(p, a=2) == P(2) and asdict(p) == {"a": 1, "b": (), "c": []}
assert repr(p) == "P(a=1, b=(), c=[])"
try:
    p.a = 3
except AttributeError:
    print("frozen")
"""
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip() == "frozen"


def test_bounded_memo_keeps_until_full_then_starts_again():
    from descriptors.structs import BoundedMemo

    memo: BoundedMemo[int, str] = BoundedMemo(2)
    assert memo.keep(1, "a") == "a" and memo.keep(2, "b") == "b"
    assert dict(memo) == {1: "a", 2: "b"}
    assert memo.keep(3, "c") == "c"  # full: emptied first, so only the new entry stays
    assert dict(memo) == {3: "c"}

"""The data flow's cost grows linearly with a function whose branches go where the listing does
not say (a target outside the function, an indirect ``BRX``): such branches reach every block
through one unknown successor, not an edge each; past a budget a function is given up with a
``lint.budget`` note, and one whose data flow is slow is named in a ``lint.slow`` note."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from descriptors.readers import dataflow
from descriptors.tools.lint import lint_lines

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
try:
    import bench_scale
finally:
    sys.path.pop(0)


def _work(lines: list[str], monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, str | None]]:
    """``(work, outcome)`` of each data flow solved while linting ``lines``."""
    got: list[tuple[int, str | None]] = []
    solve = dataflow.Solver.solve

    def spy(self: dataflow.Solver, uses):  # type: ignore[no-untyped-def]
        out = solve(self, uses)
        got.append((self.code.work, self.code.outcome))
        return out
    monkeypatch.setattr(dataflow.Solver, "solve", spy)
    list(lint_lines(lines))
    monkeypatch.undo()
    return got


def _seconds(lines: list[str]) -> float:
    best = float("inf")
    for _ in range(5):
        t = time.process_time()
        list(lint_lines(lines))
        best = min(best, time.process_time() - t)
    return best


@pytest.mark.parametrize("shape", [bench_scale.branches, bench_scale.indirect])
def test_unresolved_branches_cost_grows_linearly(shape, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    small, large = list(shape(200)), list(shape(800))
    (w1, o1), = _work(small, monkeypatch)
    (w4, o4), = _work(large, monkeypatch)
    assert o1 is None and o4 is None
    assert 3.0 < w4 / w1 < 4.5, (w1, w4)  # (quadratic edges made it about 16)
    t1, t4 = _seconds(small), _seconds(large)
    assert t4 / t1 < 6, (t1, t4)  # (it was about 50 before: cubic)


def test_unresolved_branches_still_reach_every_block() -> None:
    """Sound: a value that reaches an unresolved branch reaches every block it may enter (here
    every block: none is left for it alone), so the MMA's block is entered with the constant
    written before the branch as well as with the one written after it."""
    from descriptors.readers import read
    lines = ["\tcode for sm_100a", "\t\tFunction : k",
             "        /*0000*/   UMOV UR13, 0x10400490 ;",
             "        /*0010*/   @P0 BRA 0x10000000 ;",
             "        /*0020*/   UMOV UR13, 0x10400491 ;",
             "        /*0030*/   @P1 BRA 0x40 ;",
             "        /*0040*/   UTCHMMA tmem[UR9], gdesc[UR4], tmem[UR6], tmem[UR12], "
             "idesc[UR13], UP0 ;",
             "        /*0050*/   EXIT ;"]
    _, items = read(lines)
    (mma,) = [i for i in items if getattr(i, "opcode", "") == "UTCHMMA"]
    idesc = mma.operands[4]
    assert idesc.text == "idesc[UR13]"
    assert sorted((a.bits.value, a.origin) for a in idesc.alternatives) == [
        (0x10400490, (3, "UMOV UR13, 0x10400490")), (0x10400491, (5, "UMOV UR13, 0x10400491"))]


def test_budget_gives_up_with_a_note(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(dataflow, "BUDGET", 500)
    found = list(lint_lines(list(bench_scale.branches(400))))
    budget = [f for f in found if f.rule == "lint.budget"]
    assert len(budget) == 1 and budget[0].severity == "note" and budget[0].line == 3
    assert "function branchy" in budget[0].message and "not judged" in budget[0].message
    # its values unknown: the MMA's descriptors are taken as computed at run time
    assert [f.rule for f in found if f.rule not in ("lint.budget", "lint.arch")] == \
        ["lint.runtime", "lint.runtime"]


def test_slow_function_is_named_with_its_time(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(dataflow, "SLOW", 0.0)
    from descriptors.readers.sass import read as sass_read
    monkeypatch.setattr(sass_read, "SLOW", 0.0)
    found = [f for f in lint_lines(list(bench_scale.branches(10))) if f.rule == "lint.slow"]
    assert len(found) == 1 and found[0].severity == "note"
    assert found[0].message.startswith("function branchy: its data flow took ")
    assert found[0].message.endswith(" s")


_PTX_LOOP = """.version 9.0
.target sm_100a
.visible .entry loopk()
{
	.reg .pred 	%p<4>;
	.reg .b32 	%r<16>;
	.reg .b64 	%rd<13>;
	mov.b32 	%r6, 272630928;
	mov.b64 	%rd3, 0x4000404000000840;
$L1:
	add.s32 	%r6, %r6, 1;
	@%p1 bra 	$L1;
	{
	.reg .pred p;
	setp.ne.b32 p, 0, 0;
	tcgen05.mma.cta_group::1.kind::f16 [%r2], [%r8], %rd3, %r6, p;
	}
	ret;
}""".splitlines()


def test_ptx_budget_and_slow_notes(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """PTX's data flow (a register stepped in a loop) says so too, and its items stay whole."""
    from descriptors.readers import ptx
    assert [f.rule for f in lint_lines(_PTX_LOOP)] == ["lint.arch", "lint.runtime"]
    monkeypatch.setattr(dataflow, "BUDGET", 3)
    monkeypatch.setattr(ptx, "SLOW", 0.0)
    found = [(f.rule, f.line) for f in lint_lines(_PTX_LOOP)]
    assert found == [("lint.budget", 8), ("lint.slow", 8), ("lint.arch", 0),
                     ("lint.runtime", 16)]

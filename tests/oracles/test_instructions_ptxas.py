"""descgen's verdict on generated stmatrix / wmma.load / tcgen05.ld / tcgen05.st forms equals
ptxas's (CUDA 13, sm_100a; tcgen05.ld also sm_103a, where .red exists): both
``check_instruction`` on each line and ``descgen lint`` (``lint_lines``) on the module of all
lines.

The forms come from :func:`ptxas_judge.generate` (every qualifier combination x vector sizes,
plus register types, operand lists, addresses and qualifier orders).  By default a fixed
sample (every k-th form, about 1500 per instruction, plus the forms where ptxas and the PTX
text disagree; about 7,200 judgements, ~6 s); ``pytest -m ptxas_full`` judges all 44,018 forms
(56,394 judgements with the .red forms again under sm_103a; ~1 min).
"""

from __future__ import annotations

import pytest

import ptxas_judge as J
from descriptors.isa.instructions import VALUE_RULES, check_instruction, parse_instruction
from descriptors.tools.lint import lint_lines

pytestmark = pytest.mark.skipif(J.PTXAS is None, reason="ptxas (CUDA 13) is not on PATH")

#: Forms where ptxas 13.0 and the PTX text disagree (descgen follows ptxas): always judged.
DISAGREEMENTS = [
    "stmatrix.sync.aligned.x1.m8n8.shared.b16 [rd0], {r0};",
    "stmatrix.sync.aligned.m8n8.x1.shared.b8 [rd0], {r0};",
    "stmatrix.sync.aligned.m8n8.x8.shared.b16 [rd0], {r0, r1};",
    "stmatrix.sync.aligned.m8n8.x16.shared.b16 [rd0], r0;",
    "stmatrix.sync.aligned.m8n8.x8.shared.b16 [rd0], {r0, r1, r2, r3, r4, r5, r6, r7};",
    "stmatrix.sync.aligned.m8n8.x1.shared.b16 [rd0], {f0};",
    "stmatrix.sync.aligned.m8n8.x1.shared.b16 [r250], {r0};",
    "stmatrix.sync.aligned.m8n8.x1.shared.b16 [rd0+3], {r0};",
    "stmatrix.sync.aligned.m8n8.x1.shared.b16 [64], {r0};",
    "wmma.load.c.sync.aligned.row.m8n8k32.f32 {r0, r1}, [rd0];",
    "wmma.load.c.sync.aligned.col.m8n8k128.global.f32 {f0, f1}, [rd0], 64;",
    "wmma.load.a.sync.aligned.m16n16k16.row.f16 {r0, r1, r2, r3, r4, r5, r6, r7}, [rd0];",
    "wmma.load.sync.aligned.a.row.m16n16k16.f16 {r0, r1, r2, r3, r4, r5, r6, r7}, [rd0];",
    "wmma.load.a.sync.aligned.row.m16n16k16.f16 {u0, u1, u2, u3, u4, u5, u6, u7}, [rd0];",
    "wmma.load.a.sync.aligned.row.m16n16k16.bf16 {u0, u1, u2, u3}, [rd0];",
    "wmma.load.a.sync.aligned.row.m8n8k32.s4 {f0}, [rd0];",
    "wmma.load.a.sync.aligned.row.m8n8k4.f64 {rd0}, [rd0], u1;",
    "wmma.load.a.sync.aligned.row.m16n16k16.f16 {r0, r1, r2, r3, r4, r5, r6, r7}, [rd0], f1;",
    # value rules ptxas does not check (VALUE_RULES): a stride below the default, a misaligned
    # offset -- both assemble
    "wmma.load.a.sync.aligned.row.m16n16k16.f16 {r0, r1, r2, r3, r4, r5, r6, r7}, [rd0], 8;",
    "wmma.load.a.sync.aligned.row.m16n16k16.f16 {r0, r1, r2, r3, r4, r5, r6, r7}, [rd0+8];",
    "tcgen05.ld.sync.32x32b.x1.b32 {r0}, [r250];",
    "tcgen05.st.sync.32x32b.x1.unpack::16b.b32 [r250], {r0};",
    "tcgen05.ld.aligned.32x32b.x1.b32 {r0}, [r250];",
    "tcgen05.ld.sync.aligned.32x32b.x1.b32 {f0}, [r250];",
    "tcgen05.ld.sync.aligned.32x32b.x1.b32 {r0}, [rd0];",
    "tcgen05.ld.sync.aligned.x2.32x32b.b32 {r0, r1}, [r250];",
    "tcgen05.ld.sync.aligned.red.32x32b.x2.min.f32 {r0, r1}, r251, [r250];",
]


def _rejects(line: str, arch: str = "sm_100a") -> bool:
    """descgen's verdict on what ptxas judges: an error under a rule other than the value rules
    (alignment of addresses, wmma strides, constant taddr), which ptxas does not check."""
    return any(f.severity == "error" and f.rule not in VALUE_RULES
               for f in check_instruction(line, registers=J.REGISTERS, arch=arch))


def _sample(lines: list[str], per: int = 1500) -> list[str]:
    return lines[:: max(1, len(lines) // per)]


def _lint_rejects(lines: list[str], arch: str) -> set[int]:
    """The lines ``descgen lint`` gives an error (other than a value rule), reading them as
    one PTX module with the judge's declarations."""
    offset = J.header(arch).count("\n") + 1
    text = (J.header(arch) + "\n".join(lines) + "\n}\n").splitlines()
    return {f.line - offset for f in lint_lines(text, file="forms.ptx", arch=arch)
            if f.severity == "error" and f.rule not in VALUE_RULES}


def _compare(lines: list[str], arch: str) -> tuple[int, list[str]]:
    """descgen's verdicts -- check_instruction per line, and descgen lint over the module --
    against ptxas's."""
    rejected = J.judge(lines, arch)
    linted = _lint_rejects(lines, arch)
    bad = []
    for i, line in enumerate(lines):
        ours = _rejects(line, arch)
        if ours != (i in rejected) or (i in linted) != (i in rejected):
            bad.append(f"{line}  descgen {'rejects' if ours else 'accepts'}, lint "
                       f"{'rejects' if i in linted else 'accepts'}, ptxas "
                       f"{rejected.get(i, 'accepts')}")
    return len(lines) - len(bad), bad


def _run(forms: dict[str, list[str]]) -> None:
    judged = 0
    for mn, lines in forms.items():
        arches = ["sm_100a", "sm_103a"] if mn == "tcgen05.ld" else ["sm_100a"]
        for arch in arches:
            subset = lines if arch == "sm_100a" else [x for x in lines if ".red" in x]
            agree, bad = _compare(subset, arch)
            judged += len(subset)
            assert not bad, f"{mn} {arch}: {len(bad)} of {len(subset)} disagree:\n" + \
                "\n".join(bad[:20])
            assert agree == len(subset)
    assert judged > 0


def test_sample_agrees_with_ptxas() -> None:
    forms = {mn: _sample(lines) for mn, lines in J.all_forms().items()}
    for line in DISAGREEMENTS:
        forms[parse_instruction(line).mnemonic].append(line)
    # the sample holds accepted and rejected forms of every instruction
    for mn, lines in forms.items():
        verdicts = {_rejects(x) for x in lines}
        assert verdicts == {True, False}, mn
    _run(forms)


@pytest.mark.ptxas_full
def test_every_form_agrees_with_ptxas() -> None:
    """All generated forms (``pytest -m ptxas_full``)."""
    _run(J.all_forms())

"""ptxas as the judge of instruction legality: generated forms and a batch assembler.

:func:`generate` yields PTX instruction lines for a model of :mod:`descriptors.isa.instructions`:
every combination of its qualifier values (each optional group present or absent; the
required ``.sync``/``.aligned`` always present, and dropped one at a time in extra forms) x a
few vector sizes (the model's size and others), plus forms that vary register types, operand
lists and addresses.  :func:`judge` assembles many lines per ptxas call, one line per form in
one kernel, and reads ptxas's ``line N; error`` diagnostics back to the forms; a fatal parse
error stops ptxas, so the lines after it are assembled again; finally all accepted lines are
assembled together and must pass (an error reported only once the parse is clean -- a later
ptxas phase -- is found by bisection).
"""

from __future__ import annotations

import itertools
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from descriptors.isa.instructions import MODELS, InstructionModel, vector_size

PTXAS = shutil.which("ptxas")

#: Register declarations of the test kernel (name -> type) and their PTX text.
DECLS = {"r": ("b32", 300), "rd": ("b64", 8), "fd": ("f64", 8), "h": ("b16", 8),
         "f": ("f32", 8), "u": ("u32", 8), "s": ("s32", 8), "x": ("f16x2", 8), "ud": ("u64", 8)}
DECL_TEXT = "\n".join(f".reg .{t} {n}<{c}>;" for n, (t, c) in DECLS.items())
REGISTERS = {f"{n}{i}": t for n, (t, c) in DECLS.items() for i in range(c)}

_LINE = re.compile(r"forms\.ptx, line (\d+); (error|fatal)")


def header(arch: str) -> str:
    return (f".version 9.0\n.target {arch}\n.address_size 64\n.visible .entry k()\n{{\n"
            f"{DECL_TEXT}\n")


def _vector(n: int, prefix: str = "r") -> str:
    return "{" + ", ".join(f"{prefix}{i}" for i in range(n)) + "}"


def _line(model: InstructionModel, quals: Sequence[str], ops: Sequence[str]) -> str:
    return f"{model.mnemonic}.{'.'.join(quals)} {', '.join(ops)};"


def _operands(model: InstructionModel, q: dict, size: int, vprefix: str = "r",
              stride: str | None = None, addr: str | None = None) -> list[str]:
    ops = []
    for spec in model.operands:
        if not spec.present(q):
            continue
        if spec.kind == "vector":
            ops.append(_vector(size, vprefix))
        elif spec.kind == "address":
            ops.append(addr or ("[r250]" if model.mnemonic.startswith("tcgen05") else "[rd0]"))
        elif spec.kind == "register":
            ops.append("r251")
        elif spec.kind == "immediate":
            ops.append("16")
        elif spec.kind == "reg_or_imm" and stride is not None:
            ops.append(stride)
    return ops


def _sizes(model: InstructionModel, q: dict) -> list[int]:
    n = vector_size(model, q)
    if n is None:
        return [1, 2, 4]
    return sorted({n, 1 if n != 1 else 2, min(2 * n, 128) if n != 128 else 64})


def generate(model: InstructionModel) -> Iterator[str]:
    """Every qualifier combination x vector sizes, then variations (see the module docs)."""
    free = [g for g in model.groups if g.name not in ("sync", "aligned")]
    choices = [list(g.values) if g.required else list(g.values) + [None] for g in free]
    wmma = model.mnemonic == "wmma.load"
    for combo in itertools.product(*choices):
        q = {g.name: v for g, v in zip(free, combo)}
        q.update(sync="sync", aligned="aligned")
        quals = [q[g.name] for g in model.groups if q[g.name] is not None]
        vprefix = "fd" if q.get("type") == "f64" else "r"
        for size in _sizes(model, q):
            for stride in ((None, "r260") if wmma else (None,)):
                yield _line(model, quals, _operands(model, q, size, vprefix, stride))
    # the required groups dropped one at a time, from forms that are otherwise legal
    legal = list(itertools.product(*choices))
    for combo in legal[:: max(1, len(legal) // 40)]:
        q = {g.name: v for g, v in zip(free, combo)}
        q.update(sync="sync", aligned="aligned")
        n = vector_size(model, q) or 1
        vprefix = "fd" if q.get("type") == "f64" else "r"
        for drop in [g.name for g in model.groups if g.required]:
            quals = [q[g.name] for g in model.groups if g.name != drop and q[g.name]]
            yield _line(model, quals, _operands(model, q, n, vprefix))
    # register types, operand lists, addresses, qualifier order on combinations whose vector
    # size is defined (up to ~150 of them, evenly spread)
    sized = []
    for combo in legal:
        q = {g.name: v for g, v in zip(free, combo)}
        q.update(sync="sync", aligned="aligned")
        if vector_size(model, q) is not None:
            sized.append(q)
    for q in sized[:: max(1, len(sized) // 150)]:
        n = vector_size(model, q) or 1
        quals = [q[g.name] for g in model.groups if q[g.name] is not None]
        for prefix in ("f", "u", "s", "x", "h", "rd", "ud", "fd"):
            if n <= 8:
                yield _line(model, quals, _operands(model, q, n, prefix))
        for addr in ("[r250]", "[rd0]", "[rd0+16]", "[rd0+3]", "[64]", "[fd0]"):
            yield _line(model, quals, _operands(model, q, n, addr=addr))
        ops = _operands(model, q, n, "fd" if q.get("type") == "f64" else "r")
        yield _line(model, quals, ops[:-1])
        yield _line(model, quals, ops + ["r261"])
        yield _line(model, quals, [o.strip("{}") if o.startswith("{") else o for o in ops])
        yield _line(model, list(reversed(quals)), ops)
        yield _line(model, quals[2:] + quals[:2], ops)
        if wmma:
            for stride in ("32", "u1", "s1", "x1", "rd1", "f1", "h1"):
                yield _line(model, quals, ops + [stride])


def _assemble(arch: str, lines: Sequence[str], tmp: Path) -> tuple[int, str]:
    src = tmp / "forms.ptx"
    src.write_text(header(arch) + "\n".join(lines) + "\n}\n", encoding="utf-8")
    r = subprocess.run([PTXAS, f"-arch={arch}", str(src), "-o", str(tmp / "forms.cubin")],
                       capture_output=True, text=True, timeout=600)
    return r.returncode, r.stdout + r.stderr


def judge(lines: Sequence[str], arch: str = "sm_100a") -> dict[int, str]:
    """ptxas's verdict per line: index -> first diagnostic for each rejected line (accepted
    lines are absent)."""
    assert PTXAS is not None
    offset = header(arch).count("\n") + 1
    rejected: dict[int, str] = {}
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        start = 0
        while start < len(lines):
            chunk = lines[start:]
            rc, out = _assemble(arch, chunk, tmp)
            fatal = None
            for m in _LINE.finditer(out):
                i = int(m.group(1)) - offset + start
                if 0 <= i < len(lines):
                    msg = out[m.start():].split("\n", 1)[0]
                    rejected.setdefault(i, msg)
                    if m.group(2) == "fatal":
                        fatal = i
            if fatal is None:
                break
            start = fatal + 1
        # everything accepted must assemble together (errors of a later phase)
        pending = [i for i in range(len(lines)) if i not in rejected]
        _settle(arch, lines, pending, rejected, tmp, offset)
    return rejected


def _settle(arch: str, lines: Sequence[str], idx: list[int], rejected: dict[int, str],
            tmp: Path, offset: int) -> None:
    if not idx:
        return
    rc, out = _assemble(arch, [lines[i] for i in idx], tmp)
    if rc == 0:
        return
    found = False
    for m in _LINE.finditer(out):
        j = int(m.group(1)) - offset
        if 0 <= j < len(idx):
            rejected.setdefault(idx[j], out[m.start():].split("\n", 1)[0])
            found = True
    if found:
        _settle(arch, lines, [i for i in idx if i not in rejected], rejected, tmp, offset)
    elif len(idx) == 1:
        rejected[idx[0]] = out.strip().splitlines()[0] if out.strip() else f"rc {rc}"
    else:
        half = len(idx) // 2
        _settle(arch, lines, idx[:half], rejected, tmp, offset)
        _settle(arch, lines, idx[half:], rejected, tmp, offset)


#: Models judged from a committed fixture instead of generated forms (wgmma.mma_async:
#: fixtures/hopper/wgmma-forms.json.gz, tests/oracles/test_wgmma_ptxas.py; tcgen05.mma, cp,
#: commit, alloc, dealloc, relinquish_alloc_permit: fixtures/tcgen05/tcgen05-forms.json.gz,
#: tests/oracles/test_tcgen05_mma_ptxas.py).
FIXTURE_JUDGED = ("wgmma.mma_async", "tcgen05.mma", "tcgen05.cp", "tcgen05.commit",
                  "tcgen05.alloc", "tcgen05.dealloc", "tcgen05.relinquish_alloc_permit")


def all_forms() -> dict[str, list[str]]:
    return {mn: list(dict.fromkeys(generate(m))) for mn, m in MODELS.items()
            if mn not in FIXTURE_JUDGED}

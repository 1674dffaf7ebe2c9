"""SASS reader: ``cuobjdump -sass`` / ``nvdisasm`` listings as known-bits facts.

Data flow followed (per function: ``Function : name``, ``.text.name``): ``MOV``/``UMOV``/
``MOV32I``/``R2UR`` (copies and immediates), ``IMAD`` and its ``.MOV``/``.U32``/``.SHL``/
``.IADD`` forms (``a * b + c``), ``IADD3``/``UIADD3`` (without ``.X``), ``LOP3.LUT``/
``ULOP3.LUT`` (any 3-input truth table), ``SHF``/``USHF`` (funnel shifts ``.L``/``.R``,
``.U32``/``.U64``, ``.HI``) and ``LEA``/``ULEA`` (``(a << s) + b``).  ``RZ``/``URZ`` read 0.
Every other instruction that writes a register makes it unknown (``.64`` writes two registers,
``.128`` four).  A predicated definition (``@P0 UMOV ...``) merges with the value before it.

Paths: the value of a register at a use is its last definition above the use; where a branch
above the use can jump over that definition, the value before it is merged in; where the use
lies in a natural loop (a back edge and every instruction that reaches it without passing its
target), constant definitions in the loop body are merged in (the ``ELECT``/``BRA.U.ANY`` loops ptxas wraps around each ``UTC*`` instruction) and
any other definition there makes the value unknown; a non-constant definition inside a loop
(``UIADD3 UR8, UR8, 0x4``) is unknown at every use.

tcgen05 instructions in SASS (nvcc 13.0, sm_100a, observed by compiling each form; see
``fixtures/lint/COMMANDS.md``):

=====================================  ===================================================
PTX                                    SASS
=====================================  ===================================================
kind::f16, kind::tf32                  ``UTCHMMA``
kind::f8f6f4                           ``UTCQMMA``
kind::mxf8f6f4.block_scale             ``UTCQMMA`` + a ``tmem[URs]`` operand after idesc
                                       (scale A / B TMEM addresses in URs / URs+1)
kind::mxf4.block_scale (scale_vec 2X)  ``UTCOMMA``
kind::mxf4nvf4 .scale_vec::2X/.block32  ``UTCOMMA``
kind::mxf4nvf4 .scale_vec::4X/.block16  ``UTCOMMA.4X``
kind::i8                               ``UTCIMMA``
A from Tensor Memory (``[a-tmem]``)    first operand ``tmem[URa]`` instead of ``gdesc[URa]``
.collector::a::fill                    ``gdesc[URa].A_KEEP``
.ws .collector::b1::lastuse            ``gdesc[URb].B_REUSE.BUFFER1``
tcgen05.cp.cta_group::1.128x256b       ``UTCCP.T.S tmem[URd+0x100], gdesc[URs]``
cta_group::2                           suffix ``.2CTA``
tcgen05.mma.ws                         suffix ``.WS``; the zero-column mask is one more bare
                                       ``URk`` operand (pair URk:URk+1)
tcgen05.mma.sp                         no suffix: the low word of the idescE pair
                                       (``tmem[URk]``) is the sparse metadata TMEM address
                                       (``UMOV URk, 0x0`` for dense forms);
                                       block-scaled sparse forms alike
tcgen05.mma.ws without a zero-column   no zero-column-mask operand
mask operand, or a zero one
tcgen05.alloc                          ``UTCATOMSWS.FIND_AND_SET.ALIGN`` (a retry loop; the
                                       column count becomes a bit mask)
tcgen05.ld                             ``LDTM``
tcgen05.commit                         ``UTCBAR``
=====================================  ===================================================

Two ways in, one grammar of SASS text here: :func:`read_sass` reads a whole listing (each
function's data flow, above; ``descgen lint``), and :func:`line_fact` / :func:`instruction_fact`
read one line at a time, in constant memory, wherever SASS lines turn up (a ``cuobjdump``
listing, or instructions pasted into a cuda-gdb session or a log): the constant moves,
register copies, register writes and MMA descriptor operands of the line, as a fact tuple that
``descgen dump`` (:mod:`descriptors.dump`) follows from line to line.

Operands of ``UTC?MMA``: ``gdesc[URa]`` (A, 64-bit shared memory descriptor in URa:URa+1),
``gdesc[URb]`` (B), ``tmem[URd]`` (D), ``tmem[URk]``, ``idesc[URk+1]`` (the 64-bit idescE
pair: low word sparse metadata address or 0, high word the instruction descriptor), then the
optional scale / zero-column-mask operands and the enable-input-d predicate.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from . import (K_STEP_ASSUMPTION, K_STEP_BITS, K_STEP_MAX, MAX_FUNCTION, Fact, Instruction,
               Operand)
from .knownbits import KnownBits

__all__ = ["read_sass", "line_fact", "instruction_fact", "ADDRESSED", "BARE", "BARE_INSTRUCTION",
           "FUNCTION_START"]

#: The pieces of a SASS instruction line every pattern below is built from: a predicate guard
#: (``@!UP0``) and an opcode with its modifiers (``UTCHMMA.2CTA``).
_PRED = r"@!?U?P(?:T|\d{1,2})"
_OPCODE = r"[A-Z][A-Z0-9_]{0,31}(?:\.[A-Z0-9_]{1,16}){0,8}"
_LINE = re.compile(r"\s*+(?:/\*(?P<addr>[0-9A-Fa-f]{1,8})\*/)?+\s*+(?P<pred>" + _PRED + r"\s++)?+"
                   r"(?P<op>(?>U?" + _OPCODE + r"))(?P<rest>[^;]*+);")
_LABEL = re.compile(r"\s*(\.L_x_\d+|\.?[A-Za-z_$][\w$.]*)\s*:\s*(?://.*)?\Z")
_FUNC = re.compile(r"\s*(?:Function\s*:\s*(\S+)|\.text\.([\w$.]+)\s*:|\.section\s+\.text\.([\w$.]+))")
_ARCH = re.compile(r"(?:code for|\.target|arch\s*=)\s*(sm_\d+[af]?)")
_REG = re.compile(r"(-|~|!)?\|?(U?R)(\d{1,3}|Z)(?:\.(?:reuse|H0|H1|B\d))*\|?\Z")
_PREDREG = re.compile(r"!?U?P(?:T|\d{1,2})\Z")
_IMM = re.compile(r"(-)?(0x[0-9A-Fa-f]+|\d+)\Z")
_MEM = re.compile(r"(gdesc|idesc|tmem|desc)?\[(U?R\d{1,3}|U?RZ)(?:\s*\+\s*(-?0x[0-9A-Fa-f]+|\d+))?\]"
                  r"(?:\.[A-Z0-9_]{1,16}){0,4}\Z")
_TARGET = re.compile(r"(0x[0-9A-Fa-f]+)|`\(([^)]*)\)")


def _immediate(text: str) -> int | None:
    """An immediate operand (``0x3fc0``, ``-0x1``, ``24``), or ``None``."""
    m = _IMM.match(text)
    if m is None:
        return None
    digits = m.group(2)
    value = int(digits, 16) if digits[:2] == "0x" else int(digits, 10)
    return -value if m.group(1) else value


def _split(rest: str, col0: int) -> list[tuple[str, int]]:
    out, depth, start = [], 0, 0
    for i, ch in enumerate(rest + ","):
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth = max(0, depth - 1)
        elif ch == "," and depth == 0:
            piece = rest[start:i]
            s = piece.strip()
            if s:
                out.append((s, col0 + start + len(piece) - len(piece.lstrip())))
            start = i + 1
    return out


class _Ins:
    __slots__ = ("line", "col", "addr", "pred", "op", "ops", "text", "label")

    def __init__(self, line, col, addr, pred, op, ops, text, label=None):
        self.line, self.col, self.addr, self.pred, self.op = line, col, addr, pred, op
        self.ops, self.text, self.label = ops, text, label


def _reg_name(text: str) -> str | None:
    m = _REG.match(text)
    if not m or m.group(1):
        return None
    return m.group(2) + m.group(3)


def _pair(name: str, k: int = 1) -> str | None:
    if name.endswith("Z"):
        return name
    prefix = "UR" if name.startswith("UR") else "R"
    return f"{prefix}{int(name[len(prefix):]) + k}"


#: Opcodes whose first register operand is read, not written.
_NO_DEST = ("UTC", "ST", "BRA", "BAR", "EXIT", "RET", "CALL", "RED", "WARPSYNC", "BSSY", "BSYNC",
            "NOP", "DEPBAR", "ISETP", "UISETP", "PLOP3", "UPLOP3", "ELECT", "FSETP", "NANOSLEEP",
            "MEMBAR", "FENCE", "SYNCS", "ERRBAR", "CCTL", "UVIRTCOUNT", "USETMAXREG", "ACQBULK",
            "UCGABAR")
#: ... except these (they write their first operand).
_DEST_ANYWAY = ("ATOM", "UTCATOMSWS", "VOTE")


def _dests(ins: _Ins) -> list[str]:
    if not ins.ops:
        return []
    if ins.op.startswith(_NO_DEST) and not ins.op.startswith(_DEST_ANYWAY):
        return []
    first = ins.ops[0][0]
    name = _reg_name(first)
    if name is None or name.endswith("Z"):
        return []
    n = 1
    if re.search(r"\.(64|WIDE)\b", ins.op):
        n = 2
    if ".128" in ins.op:
        n = 4
    if ins.op.startswith("LDTM"):
        m = re.search(r"\.x(\d+)", ins.op)
        n = int(m.group(1)) if m else 1
    return [name] + [_pair(name, k) for k in range(1, n)]  # type: ignore[misc]


def _eval(ins: _Ins, get) -> KnownBits | None:  # noqa: C901 - one case per opcode
    op = ins.op
    base = op.split(".")[0]
    srcs = [t for t, _ in ins.ops[1:] if not _PREDREG.match(t)]

    def v(t: str) -> KnownBits:
        imm = _immediate(t)
        if imm is not None:
            return KnownBits.const(imm, 32)
        name = _reg_name(t)
        if name is None:
            return KnownBits.unknown(32)
        return get(name)

    if base in ("MOV", "UMOV", "MOV32I", "R2UR") and srcs:
        return v(srcs[-1])
    if base in ("IMAD", "UIMAD") and len(srcs) == 3 and not re.search(r"\.(WIDE|HI|X)\b", op):
        return v(srcs[0]).mul(v(srcs[1])) + v(srcs[2])
    if base in ("IADD3", "UIADD3") and ".X" not in op.split(".")[1:] and len(srcs) == 3:
        return v(srcs[0]) + v(srcs[1]) + v(srcs[2])
    if base in ("LOP3", "ULOP3") and ".LUT" in op and len(srcs) == 4:
        lut = _immediate(srcs[3])
        if lut is not None:
            return KnownBits.lop3(v(srcs[0]), v(srcs[1]), v(srcs[2]), lut & 0xFF)
        return None
    if base in ("SHF", "USHF") and len(srcs) == 3:
        sh = v(srcs[1])
        if not sh.is_const:
            return None
        n = sh.value & 63
        whole = KnownBits.concat(v(srcs[0]), v(srcs[2]))
        quals = op.split(".")[1:]
        signed = "S32" in quals or "S64" in quals
        if ".L" in "." + ".".join(quals[:1]):
            r = whole.shl(n)
        else:
            r = whole.shr(n, signed=signed)
        return r.slice(32, 32) if "HI" in quals else r.slice(0, 32)
    if base in ("LEA", "ULEA") and len(srcs) == 3 and not re.search(r"\.(HI|X)\b", op):
        sh = v(srcs[2])
        if sh.is_const:
            return v(srcs[0]).shl(sh.value & 31) + v(srcs[1])
        return None
    return None


def _items(lines: Iterable[str]) -> Iterator[tuple[str, object]]:
    for lineno, line in enumerate(lines, 1):
        m = _ARCH.search(line)
        if m and not _LINE.match(line):
            yield "arch", m.group(1)
        fm = _FUNC.match(line)
        if fm:
            yield "function", next(g for g in fm.groups() if g)
            continue
        m = _LINE.match(line) if ";" in line else None
        if m is None:
            lm = _LABEL.match(line)
            if lm:
                yield "label", lm.group(1)
            continue
        rest = m.group("rest")
        col0 = m.start("rest") + 1
        ops = _split(rest, col0)
        addr = int(m.group("addr"), 16) if m.group("addr") else None
        text = " ".join(line[m.start("pred") if m.group("pred") else m.start("op"):m.end() - 1].split())
        yield "ins", _Ins(lineno, m.start("op") + 1, addr, m.group("pred"), m.group("op"), ops, text)


def _natural_loops(fn: list[_Ins], branches: list[tuple[int, int, bool]]) -> list[set[int]]:
    """The instruction indices of each natural loop: for a back edge b -> t (t <= b), t and
    every instruction that reaches b without passing through t (out-of-line retry blocks
    that jump back are loops of their own, not of everything between them)."""
    back = [(b, t) for b, t, _c in branches if t <= b]
    if not back:
        return []
    n = len(fn)
    preds: list[list[int]] = [[] for _ in range(n)]
    targets = {b: (t, c) for b, t, c in branches}
    for i, ins in enumerate(fn):
        uncond = not ins.pred and not any(_PREDREG.match(o) for o, _ in ins.ops)
        if i in targets:
            preds[targets[i][0]].append(i)
            if not targets[i][1] and uncond:
                continue
        elif ins.op.startswith(("EXIT", "RET", "BRA", "JMP", "BRX")) and uncond:
            continue
        if i + 1 < n:
            preds[i + 1].append(i)
    loops = []
    for b, t in back:
        body = {t}
        stack = [b]
        while stack:
            node = stack.pop()
            if node not in body:
                body.add(node)
                stack.extend(preds[node])
        loops.append(body)
    return loops


_K_STEP_LOW = (1 << K_STEP_BITS) - 1   # the start address and the unused bits above it


def _k_step(ins: _Ins) -> tuple[str, str, str] | None:
    """How a K loop steps a shared memory descriptor in SASS, as ``(form, dest, source)``:
    ``lo`` -- ``UIADD3 d, UPn, UPT, d, IMM, URZ`` (the low word plus a step); ``hi`` --
    ``UIADD3.X d, UPT, UPT, URZ, d, URZ, UPn, !UPT`` (the high word plus the low word's carry);
    ``pair`` -- ``UIADD3.64 d, UPT, UPT, s, IMM, URZ`` (a 64-bit descriptor plus a step);
    0 < IMM < 2^14 (16-byte units) and no predicate."""
    if ins.pred or not ins.op.startswith(("UIADD3", "IADD3")):
        return None
    regs = [t for t, _ in ins.ops if not _PREDREG.match(t)]
    if len(regs) != 4:
        return None
    d, a, b, c = regs
    d = _reg_name(d) or ""
    if ins.op.endswith(".X"):
        if a in ("URZ", "RZ") and c in ("URZ", "RZ") and _reg_name(b) == d:
            return "hi", d, d
        return None
    imm = _immediate(b)
    if imm is None or not 0 < imm < K_STEP_MAX or c not in ("URZ", "RZ") or _reg_name(a) is None:
        return None
    if ins.op.endswith(".64"):
        return "pair", d, _reg_name(a) or ""
    if ins.op in ("UIADD3", "IADD3") and _reg_name(a) == d:
        return "lo", d, d
    return None


def _analyse(fn: list[_Ins], labels: dict[str, int], arch: str | None,
             name: str | None) -> Iterator[Instruction | Fact]:
    # pass 1: straight-line values of every definition
    env: dict[str, tuple[KnownBits, tuple[int, str]]] = {}
    #: register -> [(index, value, origin, pure)]; pure: every source is an immediate or RZ
    defs: dict[str, list[tuple[int, KnownBits, tuple[int, str], bool]]] = {}
    snapshots: dict[int, dict[str, tuple[KnownBits, tuple[int, str]] | None]] = {}
    addr_index = {ins.addr: i for i, ins in enumerate(fn) if ins.addr is not None}

    def get(reg: str) -> KnownBits:
        if reg in ("RZ", "URZ"):
            return KnownBits.const(0, 32)
        got = env.get(reg)
        return got[0] if got else KnownBits.unknown(32)

    branches: list[tuple[int, int, bool]] = []  # (index, target index, conditional)
    for i, ins in enumerate(fn):
        if ins.op.startswith(("BRA", "UBRA", "JMP", "BRX")):
            t = _TARGET.search(" ".join(o for o, _ in ins.ops))
            target = None
            if t and t.group(1) is not None:
                target = addr_index.get(int(t.group(1), 16))
            elif t:
                target = labels.get(t.group(2))
            if target is not None:
                branches.append((i, target, bool(ins.pred) or any(
                    _PREDREG.match(o) for o, _ in ins.ops)))
        if ins.op.startswith("UTC"):
            need = {}
            for text, _ in ins.ops:
                m = _MEM.match(text)
                reg = m.group(2) if m else _reg_name(text)
                if reg:
                    for r in (reg, _pair(reg)):
                        if r:
                            need[r] = env.get(r)
            snapshots[i] = need
        ds = _dests(ins)
        if not ds:
            continue
        value = _eval(ins, get) if len(ds) == 1 else None
        pure = value is not None and all(
            _immediate(t) is not None or t in ("RZ", "URZ") or _PREDREG.match(t)
            for t, _ in ins.ops[1:])
        for d in ds:
            kb = value if value is not None else KnownBits.unknown(32)
            if ins.pred and d in env:
                kb = kb.meet(env[d][0])
            elif ins.pred:
                kb = KnownBits.unknown(32)
            env[d] = (kb, (ins.line, ins.text))
            defs.setdefault(d, []).append((i, kb, (ins.line, ins.text), pure and not ins.pred))
        if value is not None:
            for text, col in ins.ops[1:]:
                imm = _immediate(text)
                if imm is not None and imm > 0xFFFF:
                    yield Fact(ins.line, col, KnownBits.const(imm, 32), "immediate", ins.text,
                               "sass")

    loops = _natural_loops(fn, branches)

    assumed: set[tuple[str, int]] = set()   # (register, use index) resting on the K-step rule

    def low_stepped(kb: KnownBits) -> KnownBits:
        return KnownBits(kb.width, kb.zero & ~_K_STEP_LOW, kb.one & ~_K_STEP_LOW)

    def at(reg: str, i: int, k_rule: bool = False) -> tuple[KnownBits, tuple[int, str] | None]:
        """Known bits of ``reg`` where instruction ``i`` reads it; ``k_rule``: a shared memory
        descriptor, to which the K-step rule applies."""
        if reg in ("RZ", "URZ"):
            return KnownBits.const(0, 32), None
        chain = [d for d in defs.get(reg, ()) if d[0] < i]
        if not chain:
            return KnownBits.unknown(32), None
        j, kb, origin, pure = chain[-1]
        step = _k_step(fn[j]) if k_rule else None
        if step is not None and (step[0] != "pair" or reg in (step[1], _pair(step[1]))):
            # a K step: under the rule that it does not carry out of the 14-bit start address
            # (Table 40) the bits above the start address are those before the step
            form, dest, src = step
            if form == "pair":
                before, _ = at(src if reg == dest else _pair(src) or src, j, True)
                value = low_stepped(before) if reg == dest else before
            else:
                before, _ = at(reg, j, True)
                value = low_stepped(before) if form == "lo" else before
            assumed.add((reg, i))
            return value, origin
        if not pure and any(j in body for body in loops):
            return KnownBits.unknown(32), origin  # computed again on every trip of a loop
        for b, t, _cond in branches:
            if b < j < t <= i:  # a branch jumps over the definition
                kb = kb.meet(at(reg, j, k_rule)[0])
                break
        for body in loops:  # a loop around the use brings the definitions in its body
            if i in body:
                for k, kb2, _o, pure2 in defs.get(reg, ()):
                    if k in body and k != j:
                        step = _k_step(fn[k]) if k_rule else None
                        if step is not None and step[0] in ("lo", "hi") and step[1] == reg:
                            if step[0] == "lo":      # the K step keeps the upper bits
                                kb = low_stepped(kb)
                            assumed.add((reg, i))
                            continue
                        if not pure2:
                            return KnownBits.unknown(32), origin
                        kb = kb.meet(kb2)
        return kb, origin

    for i, ins in enumerate(fn):
        if i not in snapshots:
            continue
        ops = []
        for text, col in ins.ops:
            m = _MEM.match(text)
            reg = m.group(2) if m else _reg_name(text)
            if reg is None:
                ops.append(Operand(text, col))
                continue
            assumed.clear()
            role = m.group(1) if m else None
            lo, origin = at(reg, i, role == "gdesc")
            if role == "gdesc" or (m is None and ins.op.startswith("UTC") and "MMA" in ins.op):
                hi, origin_hi = at(_pair(reg) or reg, i, role == "gdesc")
                value = KnownBits.concat(lo, hi)
                origin = origin_hi or origin
            else:
                value = lo
                if m and m.group(3):
                    off = _immediate(m.group(3).lstrip("-"))
                    value = value + KnownBits.const(-off if m.group(3).startswith("-") else off,
                                                    32) if off is not None else \
                        KnownBits.unknown(32)
            ops.append(Operand(text, col, value, origin, memory=m is not None,
                               assumes=K_STEP_ASSUMPTION if assumed and role == "gdesc" else None))
        yield Instruction("sass", ins.line, ins.col, ins.op, tuple(ops), ins.text, arch, name)


def read_sass(lines: Iterable[str]) -> Iterator[Instruction | Fact]:
    """Instructions (``UTC*``) and facts (immediates) of a SASS listing, in order."""
    arch: str | None = None
    fn: list[_Ins] = []
    labels: dict[str, int] = {}
    name: str | None = None
    for kind, item in _items(lines):
        if kind == "arch":
            arch = str(item)
        elif kind == "function":
            yield from _analyse(fn, labels, arch, name)
            fn, labels, name = [], {}, str(item)
        elif kind == "label":
            labels[str(item)] = len(fn)
        else:
            fn.append(item)  # type: ignore[arg-type]
            if len(fn) >= MAX_FUNCTION:
                yield from _analyse(fn, labels, arch, name)
                yield Fact(fn[-1].line, 0, KnownBits.unknown(1), "split", name or "", "sass")
                fn, labels = [], {}
    yield from _analyse(fn, labels, arch, name)


# ---------------------------------------------------------------- one line at a time (dump)

#: An addressed instruction line (``/*0080*/  UMOV UR5, 0x8400490 ;``, the ``;`` optional):
#: predicate, opcode, operands.
ADDRESSED = re.compile(r"\s*/\*[0-9A-Fa-f]{1,8}\*/\s*(?:(" + _PRED + r")\s+)?(" + _OPCODE
                       + r")\s*([^;]*+)")
#: An instruction pasted without its address: an upper-case opcode whose first operand is a
#: register, a predicate, an address or an MMA operand.
BARE = re.compile(r"\s*(?:" + _PRED + r"\s+)?[A-Z][A-Z0-9]{1,15}(?:\.[A-Z0-9_]{1,16}){0,8}\s+"
                  r"(?:(?:U?R\d{1,3}|U?RZ|!?U?P(?:T|\d))\b|[\[{]|(?:gdesc|tmem)\[)")
BARE_INSTRUCTION = re.compile(r"\s*(?:(" + _PRED + r")\s+)?(" + _OPCODE + r")\s*([^;]*+)")
#: Where a new function starts (register values do not carry over).
FUNCTION_START = re.compile(r"\s*(?:Function\s*:|\.text\.|\.section\s)")
_MMA_OPERAND = re.compile(r"\b(gdesc|idesc|tmem)\[(U?R)(\d{1,3})\]")
_REGISTER = re.compile(r"(U?R)(\d{1,3})\Z")
_HEX_IMMEDIATE = re.compile(r"(-?)0x([0-9A-Fa-f]{1,8})\Z")
_MOVES = frozenset({"MOV", "UMOV", "MOV32I"})
_COPIES = frozenset({"MOV", "UMOV", "R2UR", "IMAD.MOV", "IMAD.MOV.U32"})
_WORD = (1 << 32) - 1

#: What one SASS line says about registers (:func:`instruction_fact`):
#: ``("move", dest, value, text)`` -- a 32-bit constant (a hex immediate or ``RZ``/``URZ``)
#: moved into ``dest`` by ``MOV``/``UMOV``/``MOV32I``/``IMAD.MOV`` (``text``: the instruction
#: as written, predicate included);
#: ``("copy", dest, source)`` -- ``dest`` gets ``source``'s value (``MOV``, ``UMOV``,
#: ``R2UR``, ``IMAD.MOV`` of a register);
#: ``("write", names)`` -- these registers get a value the reader does not follow (a name may
#: not be a register at all: harmless);
#: ``("mma", opcode, operands)`` -- a ``UTC*MMA`` reading descriptors from registers:
#: ``(role, register file, index)`` per ``gdesc[URk]`` / ``idesc[URk]`` / ``tmem[URk]``;
#: ``("function",)`` -- a function starts.
SassFact = tuple


def _braced(text: str) -> list[str]:
    return [p.strip() for p in text.strip("{}").split(",")]


def _written(op: str, dest: str) -> list[str]:
    """Registers an instruction writing ``dest`` overwrites (``.64`` two, ``.128`` four)."""
    if dest.startswith("{"):
        return _braced(dest)
    m = _REGISTER.match(dest)
    if m is None:
        return []
    count = 4 if ".128" in op else 2 if ".64" in op else 1
    return [f"{m.group(1)}{int(m.group(2)) + i}" for i in range(count)]


def instruction_fact(pred: str | None, op: str, args: str) -> SassFact:
    """The fact of one instruction (predicate, opcode, operand text; see :data:`SassFact`)."""
    if "/*" in args:  # no ';' before the encoding comment
        args = args.split("/*", 1)[0]
    base = op.split(".", 1)[0]
    if base.startswith("UTC") and "MMA" in base:
        return ("mma", op, _MMA_OPERAND.findall(args))
    is_move = base in _MOVES or op.startswith("IMAD.MOV")
    if not (is_move or base == "R2UR"):
        if args[:1] == "{":
            return ("write", _braced(args[: args.find("}") + 1]))
        dest = args.split(",", 1)[0].strip()
        if ".64" in op or ".128" in op:
            return ("write", _written(op, dest))
        return ("write", [dest])
    parts = [p.strip() for p in args.split(",")]
    dest = parts[0]
    if not _REGISTER.match(dest):
        return ("write", _written(op, dest))
    src = parts[-1]
    if base in _MOVES and len(parts) != 2:
        return ("write", [dest])
    if op.startswith("IMAD.MOV") and (len(parts) != 4 or parts[1] not in ("RZ", "URZ")
                                      or parts[2] not in ("RZ", "URZ")):
        return ("write", [dest])  # IMAD.MOV d, RZ, RZ, s is a move; anything else is not
    imm = _HEX_IMMEDIATE.match(src) if is_move else None
    if imm is not None or src in ("RZ", "URZ"):
        value = 0
        if imm is not None:
            value = int(imm.group(2), 16)
            if imm.group(1):
                value = (-value) & _WORD
        where = f"{pred} {op}" if pred else op
        return ("move", dest, value, f"{where} {dest}, {src}")
    if op in _COPIES or base in _COPIES:
        return ("copy", dest, src)
    return ("write", [dest])


def line_fact(line: str) -> SassFact | None:
    """The fact of one line of text when it is a SASS instruction (addressed, or pasted
    without its address) or a function header; ``None`` for anything else (the second
    encoding word of a ``cuobjdump`` instruction, a comment, other text)."""
    stripped = line.lstrip()
    if stripped.startswith("/*"):
        m = ADDRESSED.match(stripped)
        return instruction_fact(*m.groups()) if m is not None else None
    if FUNCTION_START.match(line):
        return ("function",)
    if BARE.match(line):
        m = BARE_INSTRUCTION.match(line)
        if m is not None:
            return instruction_fact(*m.groups())
    return None

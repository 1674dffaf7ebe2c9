"""What each SASS instruction computes, for the data flow of
:mod:`descriptors.readers.dataflow`: its :class:`~descriptors.readers.dataflow.Step`
(:func:`step`; ``MOV``, ``IMAD``, ``IADD3``, ``LOP3.LUT``, ``SHF``, ``LEA``, ``SEL``, ``PRMT``
... -- an instruction not followed makes what it writes unknown), kept per spelling
(:func:`step_kept`), and the K-step rule for a shared memory descriptor stepped in a K loop
(:func:`_k_step`)."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

from ..dataflow import Step
from ..knownbits import KnownBits
from ..ksteps import K_STEP_ASSUMPTION, is_k_step, k_stepped
from ...isa.sass import next_register as _pair, register_name as _reg_name
from .tokens import immediate, is_predicate

if TYPE_CHECKING:
    from .cfg import Function
    from .lex import Ins


# per spelling: the SASS reader's caches pay together (bench_lint.py's cold lint_lines, 10
# production listings, CPU: 0.129 s with them, 0.150 s without; alone, each ~1.0x: bench_caches.py)
@lru_cache(maxsize=8192)
def _src(t: str) -> str | KnownBits | None:
    """A source operand for the data flow: a register name, a constant, or ``None`` (a value
    the reader does not follow: a constant bank, a negated register, an absolute value
    ``|R4|``, a half or byte of one, ``R5.H1``/``R23.B0`` ...)."""
    imm = immediate(t)
    if imm is not None:
        return KnownBits.const(imm, 32)
    if t in ("RZ", "URZ"):
        return ZERO
    if "|" in t or _SELECTOR.search(t):
        return None
    return _reg_name(t)


#: Modifiers of an ``IMAD`` / ``LEA`` whose result the data flow does not compute (a wide or
#: high half, an extended add).
_WIDE_HI_X = re.compile(r"\.(WIDE|HI|X)\b")
_HI_X = re.compile(r"\.(HI|X)\b")

#: A half or byte selector on a register operand (``R5.H1``, ``R23.reuse.B0``).
_SELECTOR = re.compile(r"\.(?:H[01]|B\d)\b")


ZERO = KnownBits.const(0, 32)


def _prmt(a: KnownBits, sel: int, b: KnownBits) -> KnownBits:
    """``PRMT d, a, sel, b``: byte i of d is byte ``sel`` nibble i (0-7) of ``{b, a}``; a
    nibble with bit 3 set replicates that byte's sign bit (unknown unless known)."""
    whole = KnownBits.concat(a, b)
    zero = one = 0
    for i in range(4):
        nib = (sel >> (4 * i)) & 0xF
        byte = whole.slice(8 * (nib & 7), 8)
        if nib & 8:  # sign replicate
            if byte.one & 0x80:
                byte = KnownBits.const(0xFF, 8)
            elif byte.zero & 0x80:
                byte = KnownBits.const(0, 8)
            else:
                byte = KnownBits.unknown(8)
        zero |= byte.zero << (8 * i)
        one |= byte.one << (8 * i)
    return KnownBits(32, zero, one)


def _shf(op: str, lo: KnownBits, n: int, hi: KnownBits) -> KnownBits:
    whole = KnownBits.concat(lo, hi)
    quals = op.split(".")[1:]
    signed = "S32" in quals or "S64" in quals
    r = whole.shl(n) if quals[:1] == ["L"] else whole.shr(n, signed=signed)
    return r.slice(32, 32) if "HI" in quals else r.slice(0, 32)


def step(ins: Ins, reg: str, gdesc: set[str]) -> Step | None:  # noqa: C901 - one case per opcode
    """The :class:`~descriptors.readers.dataflow.Step` of one instruction (what it computes),
    or ``None`` when the reader does not follow it (its result is unknown).

    (Long: one case per opcode family the data flow follows, each a few lines.)"""
    op = ins.op
    base = op.split(".", 1)[0]
    regs = [t for t, _ in ins.ops if not is_predicate(t)]
    srcs = regs[1:]
    ds = ins.dests
    if not ds or not srcs:
        return None
    if gdesc and reg in gdesc:
        ks = _k_step(ins, regs)
        if ks is not None:
            form, dest, src = ks
            if form == "lo":
                return Step((dest,), lambda a: (k_stepped(a),), "eval", K_STEP_ASSUMPTION)
            if form == "hi":
                imm = immediate(src)
                if imm is not None:  # a constant high word plus the carry
                    return Step((), lambda c=KnownBits.const(imm, 32): (c,), "eval",
                                K_STEP_ASSUMPTION)
                gdesc.add(src)
                return Step((src,), lambda a: (a,), "copy", K_STEP_ASSUMPTION)
            hi = _pair(src) or src
            gdesc.update((src, hi))
            return Step((src, hi), lambda a, b: (k_stepped(a), b), "eval", K_STEP_ASSUMPTION)
    if base in ("MOV", "UMOV", "MOV32I", "R2UR"):
        if len(ds) == 1 and len(srcs) == 1:
            s = _src(srcs[0])
            if s is None:
                return None
            if s.__class__ is str:
                if gdesc and reg in gdesc and _high(reg):  # a copy of a descriptor's high
                    gdesc.add(s)  # type: ignore[arg-type]  # word is one (for its carry)
                return Step((s,), lambda a: (a,), "copy")
            return Step((), lambda c=s: (c,))  # a constant: defined here
        if len(ds) == 2 and len(srcs) == 1 and (name := _reg_name(srcs[0])):
            return Step((name, _pair(name) or name), lambda a, b: (a, b), "copy")
        return None
    if base in ("IMAD", "UIMAD") and len(srcs) == 3 and len(ds) == 1 \
            and not _WIDE_HI_X.search(op):
        a, b, c = (_src(t) for t in srcs)
        if a is None or b is None or c is None:
            return None
        if op.startswith(("IMAD.MOV", "UIMAD.MOV")) and a is ZERO and b is ZERO:
            return Step((c,), lambda x: (x,), "copy") if c.__class__ is str else \
                Step((), lambda k=c: (k,))
        return Step((a, b, c), lambda x, y, z: (x.mul(y) + z,))
    if base in ("IADD3", "UIADD3") and len(srcs) == 3:
        quals = op.split(".")[1:]
        a, b, c = (_src(t) for t in srcs)
        if a is None or b is None or c is None or "X" in quals:
            return None
        if "64" in quals and len(ds) == 2:
            def add64(*v: KnownBits) -> tuple[KnownBits, KnownBits]:
                r = KnownBits.concat(v[0], v[1]) + KnownBits.concat(v[2], v[3]) + \
                    KnownBits.concat(v[4], v[5])
                return r.slice(0, 32), r.slice(32, 32)
            pairs: list[str | KnownBits] = []
            for x in (a, b, c):
                if x.__class__ is str:
                    pairs += [x, _pair(x) or x]  # type: ignore[list-item]
                else:
                    pairs += [x, ZERO if x.is_const and not x.value >> 31 else  # type: ignore[union-attr]
                              KnownBits.const(-1 if x.value >> 31 else 0, 32)]  # type: ignore[union-attr]
            return Step(tuple(pairs), add64)
        if len(ds) != 1:
            return None
        return Step((a, b, c), lambda x, y, z: (x + y + z,))
    if base == "VIADD" and len(srcs) == 2 and len(ds) == 1:
        # VIADD Rd, Ra, b: a 32-bit add (sm_90 on: ``VIADD R6, R4.reuse, 0x10``)
        a, b = _src(srcs[0]), _src(srcs[1])
        if a is None or b is None:
            return None
        return Step((a, b), lambda x, y: (x + y,))
    if base in ("LOP3", "ULOP3") and ".LUT" in op and len(srcs) == 4 and len(ds) == 1:
        lut = immediate(srcs[3])
        a, b, c = (_src(t) for t in srcs[:3])
        if lut is None or a is None or b is None or c is None:
            return None
        return Step((a, b, c), lambda x, y, z, k=lut & 0xFF: (KnownBits.lop3(x, y, z, k),))
    if base in ("SHF", "USHF") and len(srcs) == 3 and len(ds) == 1:
        sh = immediate(srcs[1])
        a, c = _src(srcs[0]), _src(srcs[2])
        if sh is None or a is None or c is None:
            return None
        return Step((a, c), lambda x, z, n=sh & 63: (_shf(op, x, n, z),))
    if base in ("LEA", "ULEA") and len(srcs) == 3 and len(ds) == 1 \
            and not _HI_X.search(op):
        sh = immediate(srcs[2])
        a, b = _src(srcs[0]), _src(srcs[1])
        if sh is None or a is None or b is None:
            return None
        return Step((a, b), lambda x, y, n=sh & 31: (x.shl(n) + y,))
    if base in ("SEL", "USEL") and len(ds) == 1:
        vals = [t for t, _ in ins.ops[1:]]
        if len(vals) != 3:
            return None
        a, b = _src(vals[0]), _src(vals[1])
        if a is None or b is None:
            return None
        p = vals[2]
        if gdesc and reg in gdesc and _high(reg):  # either is the descriptor's high word
            gdesc.update(x for x in (a, b) if x.__class__ is str)  # type: ignore[misc]
        if p in ("PT", "UPT"):
            return Step((a,), lambda x: (x,), "copy")
        if p in ("!PT", "!UPT"):
            return Step((b,), lambda x: (x,), "copy")
        return Step((a, b), None, "select")
    if base in ("PRMT", "UPRMT") and len(srcs) == 3 and len(ds) == 1:
        sel = immediate(srcs[1])
        a, b = _src(srcs[0]), _src(srcs[2])
        if sel is None or a is None or b is None:
            return None
        return Step((a, b), lambda x, y, k=sel: (_prmt(x, k, y),))
    if base == "CS2R" and srcs == ["SRZ"]:
        return Step((), lambda n=len(ds): (ZERO,) * n)
    return None


_HIGH = re.compile(r"U?R\d*[13579]")


def _high(reg: str) -> bool:
    """An odd register: the high word of an aligned pair (``UR5`` of ``UR4:UR5``).  Copies
    and selects into a descriptor's high word make their sources descriptor registers, so
    that the carry of a K step into them is followed (:func:`_k_step`, ``hi``); a low word's
    are not (a copy of the start address stepped in place stays an exact add)."""
    return _HIGH.fullmatch(reg) is not None


#: :func:`step`'s answers by spelling -- opcode, operands as written, whether guarded, whether
#: the register is a descriptor's -- with the registers it made descriptor registers: an
#: instruction's step depends on nothing else, and the same spellings recur (unrolled loops,
#: the kernels of one listing).  Kept across listings (bounded: an entry holds a few hundred
#: bytes; all 40 production listings have 4,535 spellings).
STEPS: dict[tuple[str, str, bool, bool], tuple[Step | None, tuple[str, ...]]] = {}
STEPS_MAX = 1 << 13


def step_kept(fn: Function, i: int, reg: str, gdesc: set[str]) -> Step | None:
    """:func:`step` of instruction ``i`` of ``fn``, worked out once per spelling
    (:data:`STEPS`); ``gdesc`` gains the registers it makes descriptor registers."""
    op, pred, rest = fn.matches[i].group("op", "pred", "rest")
    in_gdesc = reg in gdesc
    key = (op, rest, bool(pred and pred.strip()), in_gdesc)
    got = STEPS.get(key)
    if got is None:
        if len(STEPS) >= STEPS_MAX:
            STEPS.clear()
        scratch = {reg} if in_gdesc else set()
        got = STEPS[key] = (step(fn.ins(i), reg, scratch), tuple(scratch) if in_gdesc else ())
    if got[1]:
        gdesc.update(got[1])
    return got[0]


def _k_step(ins: Ins, regs: list[str] | None = None) -> tuple[str, str, str] | None:
    """How a K loop steps a shared memory descriptor in SASS, as ``(form, dest, source)``:
    ``lo`` -- ``UIADD3 d, UPn, UPT, d, IMM, URZ`` (the low word plus a step); ``hi`` --
    ``UIADD3.X d, UPT, UPT, URZ, s, URZ, UPn, !UPT`` or ``UIADD3.X d, s, URZ, URZ, UPn, !UPT``
    or ``IMAD.X d, RZ, RZ, s, Pn`` (a high word, ``s`` = ``d``, another register or, in
    ``UIADD3.X``, an immediate, plus the low word's carry: taken as 0);
    ``pair`` -- ``UIADD3.64 d, UPT, UPT, s, IMM, URZ`` (a 64-bit descriptor plus a step);
    0 < IMM < 2^14 (16-byte units) and no predicate."""
    if ins.pred or not ins.op.startswith(("UIADD3", "IADD3", "IMAD.X", "UIMAD.X")):
        return None
    if regs is None:  # (the operands other than predicates)
        regs = [t for t, _ in ins.ops if not is_predicate(t)]
    if len(regs) != 4:
        return None
    d, a, b, c = regs
    d = _reg_name(d) or ""
    if ins.op in ("IMAD.X", "UIMAD.X"):  # RZ * RZ + s + carry
        s = _reg_name(c) if a in ("URZ", "RZ") and b in ("URZ", "RZ") else None
        return ("hi", d, s) if s else None
    if ins.op.endswith(".X"):
        if c not in ("URZ", "RZ") or (a in ("URZ", "RZ")) == (b in ("URZ", "RZ")):
            return None
        x = b if a in ("URZ", "RZ") else a
        s = _reg_name(x) or (x if immediate(x) is not None else None)
        return ("hi", d, s) if s else None
    imm = immediate(b)
    if imm is None or imm < 0 or not is_k_step(imm) or c not in ("URZ", "RZ") \
            or _reg_name(a) is None:
        return None
    if ins.op.endswith(".64"):
        return "pair", d, _reg_name(a) or ""
    if ins.op in ("UIADD3", "IADD3") and _reg_name(a) == d:
        return "lo", d, d
    return None

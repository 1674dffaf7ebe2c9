"""Live values: the descriptors of one MMA instruction judged with the values of the registers it
reads, as a debugger sees them at that instruction (:mod:`descriptors.gdb`, ``descgen mma``).

The same facts and rules as ``descgen lint``, on live values:

* tcgen05 (``UTC*MMA``, ``UTCCP``, ``LDTM``/``STTM`` ...): the instruction line and one
  ``UMOV URn, <value>`` per register it names form a two-function-free SASS listing that
  :func:`descriptors.readers.sass.read_sass` reads (the operand roles, register pairs and the
  kinds the opcode serves are the reader's) and :func:`descriptors.tools.lint.check_instruction`
  judges (every rule of ``lint``, with the opcode's context).  The evidence names the register
  (``from $UR4``) where lint names the defining line.
* sm_90a wgmma (``HGMMA``/``IGMMA``/``QGMMA``/``BGMMA``): the descriptors the reader says the
  operand names (:func:`descriptors.readers.sass.wgmma_descriptors`: A in URn:URn+1, B in
  URn+2:URn+3, ``.tnspA``/``.tnspB`` MN-major), each judged by ``validate("wgmma", ...)`` for
  sm_90a, with the operand's major-ness from the opcode.  An all-zero pair is said to be so; at
  an ``HGMMA.64x8x16.F16`` it is the one nvcc's ``-G`` build adds at ``wgmma.commit_group``
  (recorded on an H100, fixtures/gdb), not the program's wgmma.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..structs import Struct
from ..errors import DescgenError, ParameterError
from ..readers import Instruction
from ..readers.sass import SASS_WGMMA, instruction, read_sass, wgmma_descriptors
from ..rules.validate import TCGEN05_ARCHES, validate
from ..words.codec import decode
from ..rules.targets import DEFAULT_ARCH
from .lint import LintFinding, check_instruction, order

__all__ = ["LiveOperand", "LiveMMA", "judge", "target", "registers_named", "LIVE_FILE",
           "G_COMMIT_GROUP"]

#: The file name findings carry (there is no file: the values are the registers').
LIVE_FILE = "<live>"
#: The opcode nvcc 13.0 ``-G`` adds at ``wgmma.commit_group``, its descriptors all zero
#: (recorded on an H100 with cuda-gdb 13.0: fixtures/gdb/session_G_0.txt).
G_COMMIT_GROUP = "HGMMA.64x8x16.F16"

_REG = re.compile(r"\b(U?R)(\d{1,3})\b")
_EVIDENCE = re.compile(r"from line \d+: U?MOV (U?R\d+), 0x[0-9a-fA-F]+ ?;?")


class LiveOperand(Struct, frozen=True):
    """A descriptor operand with its live value: ``name`` (``a_desc``, ``b_desc``, ``idesc``,
    ``zcm``, ``taddr`` ...), the operand as written, the registers read (low first), the word
    (``None``: a register could not be read), the descriptor it is decoded as, the kind (idesc)
    and a one-line reading."""

    name: str
    text: str
    registers: tuple[str, ...]
    word: int | None
    descriptor: str | None
    kind: str | None = None
    summary: str = ""
    major: str | None = None


class LiveMMA(Struct, frozen=True):
    """One instruction judged with live values."""

    instruction: str
    opcode: str
    arch: str
    arch_reason: str
    operands: tuple[LiveOperand, ...]
    findings: tuple[LintFinding, ...]
    notes: tuple[str, ...] = ()

    @property
    def valid(self) -> bool:
        return not any(f.severity == "error" for f in self.findings)


def target(device_sm: str | None, opcode: str) -> tuple[str, str]:
    """The target the rules follow and why, from the device's ``sm_NN`` (cuda-gdb's
    ``sm_type`` has no ``a``: ``sm_90`` on an H100) and the opcode: a wgmma is sm_90a code; a
    tcgen05 instruction is sm_NNNa code (sm_NNNf reads the same for these rules)."""
    if opcode.split(".", 1)[0] in SASS_WGMMA:
        return "sm_90a", (f"{opcode.split('.', 1)[0]} is wgmma, which exists on sm_90a only"
                          + (f" (the device reports {device_sm})" if device_sm else ""))
    if device_sm:
        name = device_sm if device_sm[-1] in "af" else device_sm + "a"
        if name in TCGEN05_ARCHES:
            return name, f"the device reports {device_sm}; tcgen05 code is read as {name}"
        return DEFAULT_ARCH, (f"the device reports {device_sm}, which is no tcgen05 target; "
                              f"assuming {DEFAULT_ARCH}")
    return DEFAULT_ARCH, f"no device reported; assuming {DEFAULT_ARCH}"


def registers_named(text: str) -> tuple[str, ...]:
    """The registers whose values :func:`judge` needs for ``text``: every ``R``/``UR``
    register it names and, for a uniform one, the next three (a ``gdesc[URn]`` of a wgmma reads
    four; a tcgen05 descriptor pair two)."""
    got = instruction(text)
    if got is None:
        return ()
    _pred, _op, ops = got
    out: dict[str, None] = {}
    for t in ops:
        for m in _REG.finditer(t):
            n = int(m.group(2))
            span = 4 if m.group(1) == "UR" else 1
            for k in range(span):
                if n + k < 255 and not (m.group(1) == "UR" and n + k >= 63):
                    out[f"{m.group(1)}{n + k}"] = None
    return tuple(out)


def judge(text: str, read: Callable[[str], int | None], *,
          device_sm: str | None = None) -> LiveMMA:
    """Judge the instruction ``text`` (a listing line or cuda-gdb's ``x/i`` dialect) with the
    register values ``read(name)`` returns (32-bit; ``None`` for one that cannot be read).
    Raises :class:`~descriptors.errors.ParameterError` for a line that is no instruction
    descgen reads."""
    got = instruction(text)
    if got is None:
        raise ParameterError(f"not a SASS instruction: {text!r}")
    _pred, opcode, _ops = got
    arch, reason = target(device_sm, opcode)
    values = {r: read(r) for r in registers_named(text)}
    if opcode.split(".", 1)[0] in SASS_WGMMA:
        return _wgmma(text, opcode, values, arch, reason)
    if not opcode.startswith(("UTC", "LDTM", "STTM")):
        raise ParameterError(f"{opcode} is no MMA or Tensor Memory instruction descgen reads "
                             f"(tcgen05 UTC*, LDTM, STTM; wgmma {', '.join(SASS_WGMMA)})")
    return _tcgen05(text, opcode, values, arch, reason)


# ---------------------------------------------------------------------------- tcgen05

def _tcgen05(text: str, opcode: str, values: dict[str, int | None], arch: str,
             reason: str) -> LiveMMA:
    known = {r: v & 0xFFFFFFFF for r, v in values.items() if v is not None}
    lines = [f"code for {arch}", "        Function : live"]
    lines += [f"        {'UMOV' if r.startswith('UR') else 'MOV'} {r}, {v:#x} ;"
              for r, v in known.items()]
    body = text.strip().rstrip(";").strip()
    lines.append(f"        {body} ;")
    ins = [i for i in read_sass(lines) if isinstance(i, Instruction)]
    if not ins:
        raise ParameterError(f"{opcode}: not an instruction the SASS reader judges")
    one = ins[-1]
    findings = [_live_evidence(f) for f in check_instruction(LIVE_FILE, one, arch)]
    operands = _tcgen05_operands(one, known, findings)
    unread = [r for r, v in values.items() if v is None]
    notes = (f"not read: {', '.join(unread)}",) if unread else ()
    return LiveMMA(body, opcode, arch, reason, operands, tuple(order(findings)), notes)


def _live_evidence(f: LintFinding) -> LintFinding:
    ev = tuple(_EVIDENCE.sub(lambda m: f"from ${m.group(1)}", e) for e in f.evidence)
    return LintFinding(f.file, 0, f.col, f.severity, f.rule, f.message, f.instruction,
                       f.operand, f.word, ev)


def _tcgen05_operands(ins: Instruction, known: dict[str, int],
                      findings: list[LintFinding]) -> tuple[LiveOperand, ...]:
    texts = [o.text for o in ins.operands]
    idesc_at = next((k for k, t in enumerate(texts) if t.startswith("idesc[")), None)
    mma = "MMA" in ins.opcode and ins.opcode.startswith("UTC")
    kinds = _kinds_of(ins, findings)
    out = []
    gdescs = 0
    for k, o in enumerate(ins.operands):
        m = re.match(r"(gdesc|idesc|tmem)?\[?(U?R\d{1,3}|U?RZ)", o.text)
        if m is None:
            continue
        role, reg = m.group(1), m.group(2)
        regs: tuple[str, ...] = (reg,)
        if role == "gdesc" or (mma and role is None and idesc_at is not None and k > idesc_at):
            regs = (reg, _next(reg))
        word = _word(regs, known)
        if o.value is not None and o.value.is_const:
            word = o.value.value  # the reader's value (an offset added: tmem[UR4+0x10])
        if role == "gdesc":
            gdescs += 1
            a_tmem = texts[0].startswith("tmem[")
            name = "s_desc" if ins.opcode.startswith("UTCCP") else \
                ("b_desc" if a_tmem or gdescs > 1 else "a_desc")
            out.append(_operand(name, o.text, regs, word, "smem"))
        elif role == "idesc":
            out.append(_operand("idesc", o.text, regs, word, "idesc", kinds[0] if kinds else None))
        elif role == "tmem":
            name = ("a_tmem" if k == 0 else "d_tmem" if k == 2 else
                    "idescE low (sparse metadata address)" if idesc_at is not None and k == idesc_at - 1
                    else "scale factors' address" if idesc_at is not None and k > idesc_at
                    else "taddr") if mma else "taddr"
            out.append(_operand(name, o.text, regs, word, "tmem"))
        elif mma and idesc_at is not None and k > idesc_at and not reg.endswith("Z"):
            out.append(_operand("zcm", o.text, regs, word, "zcm"))
    return tuple(out)


def _kinds_of(ins: Instruction, findings: list[LintFinding]) -> tuple[str, ...]:
    from ..readers.sass import mma_kinds
    kinds, _ = mma_kinds(ins.opcode, [o.text for o in ins.operands])
    return kinds


def _next(reg: str) -> str:
    if reg.endswith("Z"):
        return reg
    p = "UR" if reg.startswith("UR") else "R"
    return f"{p}{int(reg[len(p):]) + 1}"


def _word(regs: tuple[str, ...], known: dict[str, int]) -> int | None:
    word = 0
    for i, r in enumerate(regs):
        if r.endswith("Z"):
            continue
        if r not in known:
            return None
        word |= known[r] << (32 * i)
    return word


def _operand(name: str, text: str, regs: tuple[str, ...], word: int | None, descriptor: str,
             kind: str | None = None, major: str | None = None) -> LiveOperand:
    return LiveOperand(name, text, regs, word, descriptor, kind,
                       summary(descriptor, word, kind) if word is not None else "not read",
                       major)


def summary(descriptor: str, word: int, kind: str | None = None) -> str:
    """One line: what ``word`` reads as."""
    try:
        d = decode(descriptor, word, kind=kind) if descriptor == "idesc" and kind \
            else decode(descriptor, word)
    except DescgenError as exc:
        return f"not decoded: {exc}"
    v = d.values
    if descriptor in ("smem", "wgmma"):
        return (f"start {v.get('start_address_bytes'):#x}, LBO {v.get('leading_byte_offset_bytes')} B, "
                f"SBO {v.get('stride_byte_offset_bytes')} B, swizzle {v.get('swizzle') or 'none'}, "
                f"base offset {v.get('base_offset')}")
    if descriptor == "idesc" and kind:
        return (f"kind::{kind}: {v.get('a_type')} x {v.get('b_type')} -> {v.get('d_type', 'f32')}, "
                f"M={v.get('m')} N={v.get('n')}" + (", sparse" if v.get("sparse") else ""))
    if descriptor == "tmem":
        return f"lane {v.get('lane')}, column {v.get('column')}"
    return ", ".join(f"{k}={val}" for k, val in v.items() if not isinstance(val, (list, dict)))[:200]


# ---------------------------------------------------------------------------- wgmma (sm_90a)

def _wgmma(text: str, opcode: str, values: dict[str, int | None], arch: str,
           reason: str) -> LiveMMA:
    body = text.strip().rstrip(";").strip()
    got = instruction(body)
    assert got is not None
    descs = wgmma_descriptors(opcode, got[2])
    known = {r: v & 0xFFFFFFFF for r, v in values.items() if v is not None}
    operands, findings, notes = [], [], []
    col = body.find("gdesc[") + 1
    for d in descs:
        word = _word(d.registers, known)
        operands.append(_operand(d.name, d.text, d.registers, word, "wgmma", major=d.major))
        if word is None:
            notes.append(f"{d.name}: {':'.join(d.registers)} could not be read")
            continue
        label = f"{opcode} {'A' if d.name == 'a_desc' else 'B'} ({d.major}-major)"
        ev = (f"{d.name} = {word:#018x} from ${d.registers[0]}:${d.registers[1]}",
              f"decoded: {summary('wgmma', word)}")
        if word == 0:
            findings.append(LintFinding(LIVE_FILE, 0, col, "note", "live.zero", (
                f"{label}: the descriptor is all zero; at {G_COMMIT_GROUP} this is the MMA that "
                "nvcc's -G build adds at wgmma.commit_group (its descriptors are 0), not the "
                "program's wgmma: not a bug in the program" if opcode == G_COMMIT_GROUP else
                f"{label}: the descriptor is all zero (not written yet, or a register that was "
                "reused?)"), body, d.name, f"{word:#018x}", ev))
            continue
        for f in validate("wgmma", word, arch=arch):
            if f.rule == "wgmma.lbo_unused" and d.major == "MN":
                continue  # MN-major: LBO is the stride between swizzle atoms, used
            where = f"{f.field}{f.bits or ''}: " if f.field else ""
            msg = f.message
            if f.rule == "wgmma.lbo_unused":
                msg = msg.replace("if this operand is K-major, ", "K-major (from the opcode): ")
            findings.append(LintFinding(LIVE_FILE, 0, col, f.severity, f.rule,
                                        f"{label}: {where}{msg} ({f.source})", body, d.name,
                                        f"{word:#018x}", ev))
    if not descs:
        notes.append(f"{opcode}: no gdesc[..] operand")
    return LiveMMA(body, opcode, arch, reason, tuple(operands), tuple(order(findings)),
                   tuple(notes))

"""Live values: the descriptors of one MMA instruction judged with the values of the registers it
reads, as a debugger sees them at that instruction (:mod:`descriptors.gdb`, ``descgen mma``).

The same facts and rules as ``descgen lint``, on live values:

* tcgen05 (``UTC*MMA``, ``UTCCP``, ``LDTM``/``STTM`` ...): the instruction and the register
  values are read by :func:`descriptors.readers.sass.read_live` (the instruction's site,
  :class:`~descriptors.isa.sites.MmaSite`, says which operand is which word, its register
  pairs and the kinds the opcode serves, as for ``lint`` and ``dump``) and
  :func:`descriptors.tools.lint.check_instruction` judges it (every rule of ``lint``, with the
  opcode's context).  The evidence names the register (``from $UR4``) where lint names the
  defining line.
* sm_90a wgmma (``HGMMA``/``IGMMA``/``QGMMA``/``BGMMA``): the descriptors of the site (A in
  URn:URn+1, B in URn+2:URn+3, ``.tnspA``/``.tnspB`` MN-major), each judged by
  ``validate("wgmma", ...)`` for
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
from ..isa.sites import sass_site
from ..readers.sass import SASS_WGMMA, instruction, read_live, register_word
from ..rules.validate import TCGEN05_ARCHES, validate
from ..words.codec import decode
from ..rules.targets import DEFAULT_ARCH
from .lint import LintFinding, check_instruction, located, order

__all__ = ["LiveOperand", "LiveMMA", "judge", "target", "registers_named", "LIVE_FILE",
           "G_COMMIT_GROUP"]

#: The file name findings carry (there is no file: the values are the registers').
LIVE_FILE = "<live>"
#: The opcode nvcc 13.0 ``-G`` adds at ``wgmma.commit_group``, its descriptors all zero
#: (recorded on an H100 with cuda-gdb 13.0: fixtures/gdb/session_G_0.txt).
G_COMMIT_GROUP = "HGMMA.64x8x16.F16"

_REG = re.compile(r"\b(U?R)(\d{1,3})\b")


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
    descgen reads, or a value no 32-bit register holds (a negative one down to ``-2**31`` is
    read as two's complement: :func:`~descriptors.readers.sass.register_word`)."""
    got = instruction(text)
    if got is None:
        raise ParameterError(f"not a SASS instruction: {text!r}")
    _pred, opcode, _ops = got
    arch, reason = target(device_sm, opcode)
    values = {r: None if (v := read(r)) is None else register_word(r, v)
              for r in registers_named(text)}
    if opcode.split(".", 1)[0] in SASS_WGMMA:
        return _wgmma(text, opcode, values, arch, reason)
    if not opcode.startswith(("UTC", "LDTM", "STTM")):
        raise ParameterError(f"{opcode} is no MMA or Tensor Memory instruction descgen reads "
                             f"(tcgen05 UTC*, LDTM, STTM; wgmma {', '.join(SASS_WGMMA)})")
    return _tcgen05(text, opcode, values, arch, reason)


# ---------------------------------------------------------------------------- tcgen05

def _tcgen05(text: str, opcode: str, values: dict[str, int | None], arch: str,
             reason: str) -> LiveMMA:
    body = text.strip().rstrip(";").strip()
    one = read_live(body, values, arch=arch)
    if one is None or one.site is None:
        raise ParameterError(f"{opcode}: not an instruction the SASS reader judges")
    findings = check_instruction(LIVE_FILE, one, arch)
    operands = _tcgen05_operands(one, {r: v for r, v in values.items() if v is not None})
    unread = [r for r, v in values.items() if v is None]
    notes = (f"not read: {', '.join(unread)}",) if unread else ()
    return LiveMMA(body, opcode, arch, reason, operands, tuple(order(findings)), notes)


#: What the roles of a tcgen05 instruction's site are called here where not by the role.
_NAMES = {"sp_meta": "idescE low (sparse metadata address)",
          "scale_tmem": "scale factors' address"}


def _tcgen05_operands(ins: Instruction, known: dict[str, int]) -> tuple[LiveOperand, ...]:
    """Every operand of the instruction's site that holds a word, with the word its registers
    hold (the reader's value where it added an offset: ``tmem[UR4+0x10]``)."""
    site = ins.site
    assert site is not None
    out = []
    for so in site.operands:
        if so.family is None or not so.registers:
            continue
        o = ins.operands[so.index]
        word = _word(so.registers, known)
        if o.value is not None and o.value.is_const:
            word = o.value.value
        kind = site.kinds[0] if site.kinds and so.role == "idesc" else None
        out.append(_operand(_NAMES.get(so.role, so.role), o.text, so.registers, word,
                            so.family, kind))
    return tuple(out)


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
    site = sass_site(opcode, got[2])
    descs = site.judged if site is not None else ()
    gdesc = next((x for x in got[2] if x.startswith("gdesc[")), "")
    known = {r: v for r, v in values.items() if v is not None}
    operands, findings, notes = [], [], []
    col = body.find("gdesc[") + 1
    for d in descs:
        name, major = d.role, d.major
        word = _word(d.registers, known)
        operands.append(_operand(name, gdesc, d.registers, word, "wgmma", major=major))
        if word is None:
            notes.append(f"{name}: {':'.join(d.registers)} could not be read")
            continue
        label = f"{opcode} {'A' if name == 'a_desc' else 'B'} ({major}-major)"
        ev = (f"{name} = {word:#018x} from ${d.registers[0]}:${d.registers[1]}",
              f"decoded: {summary('wgmma', word)}")
        if word == 0:
            findings.append(located(LIVE_FILE, 0, col, "note", "live.zero", (
                f"{label}: the descriptor is all zero; at {G_COMMIT_GROUP} this is the MMA that "
                "nvcc's -G build adds at wgmma.commit_group (its descriptors are 0), not the "
                "program's wgmma: not a bug in the program" if opcode == G_COMMIT_GROUP else
                f"{label}: the descriptor is all zero (not written yet, or a register that was "
                "reused?)"), body, name, f"{word:#018x}", ev))
            continue
        for f in validate("wgmma", word, arch=arch):
            if f.rule == "wgmma.lbo_unused" and major == "MN":
                continue  # MN-major: LBO is the stride between swizzle atoms, used
            where = f"{f.field}{f.bits or ''}: " if f.field else ""
            msg = f.message
            if f.rule == "wgmma.lbo_unused":
                msg = msg.replace("if this operand is K-major, ", "K-major (from the opcode): ")
            findings.append(located(LIVE_FILE, 0, col, f.severity, f.rule,
                                    f"{label}: {where}{msg} ({f.source})", body, name,
                                    f"{word:#018x}", ev))
    if not descs:
        notes.append(f"{opcode}: no gdesc[..] operand")
    return LiveMMA(body, opcode, arch, reason, tuple(operands), tuple(order(findings)),
                   tuple(notes))

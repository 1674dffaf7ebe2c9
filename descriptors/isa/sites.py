"""What one tensor-core instruction means: which operand is which word, and the context its
words are judged in -- the one place that says it, for PTX and SASS alike.

An :class:`MmaSite` is made from an instruction's opcode and operand texts alone
(:func:`site`), so every consumer asks the same question and gets the same answer: the SASS
and PTX readers (which registers to follow), ``descgen lint`` (which word is A, B, the
instruction descriptor, the zero-column mask, and under which kinds, ``cta_group``, ``.ws``,
``.sp`` and ``scale_vec`` they are judged), ``descgen dump`` (which family a word that reaches
an operand belongs to) and the live path of ``descgen mma`` / cuda-gdb (which registers hold
which word).

Roles of operands (``SiteOperand.role``) and the word family each is read as:

==============  =========  ==================================================================
role            family     operand
==============  =========  ==================================================================
``a_desc``      smem       A's shared memory descriptor (Table 40); wgmma: ``wgmma``
``b_desc``      smem       B's shared memory descriptor; wgmma: ``wgmma`` (9.7.15.5.1)
``idesc``       idesc      the instruction descriptor (Tables 42-44)
``sp_meta``     tmem       the sparse metadata's Tensor Memory address (PTX ``[sp-meta-tmem]``
                           of ``.sp``; SASS: the idescE pair's low word, ``tmem[URk]`` before
                           ``idesc[URk+1]``, which nvcc sets to 0 for a dense MMA)
``scale_tmem``  tmem       a block-scaled MMA's scale factors' address (PTX
                           ``[scale-A-tmem]``/``[scale-B-tmem]``; SASS one ``tmem[URs]``
                           after ``idesc[..]``, A's in URs and B's in URs+1)
``zcm``         zcm        the zero-column mask descriptor of ``.ws`` (Table 45)
``a_tmem``      tmem       A in Tensor Memory (``[a-tmem]``; not judged)
``d_tmem``      tmem       the accumulator's Tensor Memory address (not judged)
``s_desc``      smem       ``tcgen05.cp``'s source shared memory descriptor
``taddr``       tmem       a Tensor Memory address (``tcgen05.ld/st/cp/shift/alloc``)
``operand``     --         any other operand a SASS tcgen05 instruction reads
==============  =========  ==================================================================

PTX operand order (PTX ISA 9.7.16.10.9): ``[d-tmem], a-desc|[a-tmem], b-desc,
{[sp-meta-tmem],} idesc, ...``, then ``[scale-A-tmem], [scale-B-tmem]`` for
``.block_scale`` and ``enable-input-d {, zero-column-mask-desc}`` for ``.ws``; wgmma
(9.7.15.5.2): ``d, a-desc|a, b-desc, ...``.  SASS operand order and opcodes:
:mod:`descriptors.isa.sass` (observed with nvcc 13.0).
"""

from __future__ import annotations

import re

from ..structs import Struct
from ..words.enums import KINDS
from .sass import (MEMORY_OPERAND, SASS_SCALE_VEC, SASS_WGMMA, cta_group, is_4x, mma_kinds,
                   next_register, register_name, wgmma_descriptors, wgmma_shape)

__all__ = ["SiteOperand", "MmaSite", "IdescContext", "site", "sass_site", "ptx_site", "ptx_cta_group", "ROLES"]

#: The roles an operand can have (the module's table), in the order a reader lists them.
ROLES = ("a_desc", "b_desc", "idesc", "sp_meta", "scale_tmem", "zcm", "a_tmem", "d_tmem",
         "s_desc", "taddr", "operand")


class SiteOperand(Struct, frozen=True):
    """One operand of an instruction with its meaning.

    ``role`` (:data:`ROLES`); ``index`` into the instruction's operands as written (a SASS
    wgmma's B descriptor, which ``gdesc[URn]`` names without an operand of its own, is
    ``len(operands)``: the readers append it); ``text`` as written (``gdesc[UR4].B`` for that
    B); ``family``: the word it holds (``smem``, ``idesc``, ``zcm``, ``tmem``, ``wgmma``;
    ``None``: no word); ``registers``: in SASS the 32-bit registers it reads, low word first
    (a 64-bit descriptor is a pair); ``prefix``: the name of a SASS memory operand's bracket
    (``gdesc``, ``idesc``, ``tmem``, ``desc``; empty for a bare register or ``[..]``);
    ``offset``: a SASS address offset as written (``0x10`` of ``tmem[UR4+0x10]``);
    ``judged``: whether the readers work out its value and ``lint``/``dump`` read it;
    ``major``: a wgmma operand's major-ness (``K``, ``MN``: ``.tnspA``/``.tnspB``)."""

    role: str
    index: int
    text: str
    family: str | None = None
    registers: tuple[str, ...] = ()
    prefix: str = ""
    offset: str | None = None
    judged: bool = True
    major: str | None = None


class MmaSite(Struct, frozen=True):
    """What one MMA or Tensor Memory instruction means (PTX ``tcgen05.*``/``wgmma.mma_async``,
    SASS ``UTC*``/``LDTM``/``STTM``/``HGMMA``...).

    ``dialect`` (``ptx``/``sass``) and ``opcode`` as written; ``family``: ``tcgen05`` or
    ``wgmma``; ``operands``: the operands that have a role (:class:`SiteOperand`).  For an MMA
    (``mma``): ``kinds``, the ``.kind`` values it may be (PTX names one; a SASS opcode serves
    several, ``UTCHMMA`` kind::f16 or kind::tf32: :data:`~descriptors.isa.sass.SASS_MMA`;
    empty for a kind no table has), ``block_scale``, ``cta_group`` (PTX ``.cta_group::N``,
    ``None`` where not written; SASS ``.2CTA``), ``ws``, ``sp`` (SASS shows no ``.sp``:
    ``None``), ``scale_vec`` (PTX ``.scale_vec::NX``/``.block16``/``.block32``; SASS the
    opcode's, :data:`~descriptors.isa.sass.SASS_SCALE_VEC`, ``4X`` with ``.4X``/``.BLOCK16``)
    and ``a_tmem`` (A read from Tensor Memory)."""

    dialect: str
    opcode: str
    family: str
    operands: tuple[SiteOperand, ...] = ()
    mma: bool = False
    kinds: tuple[str, ...] = ()
    block_scale: bool = False
    cta_group: int | None = None
    ws: bool = False
    sp: bool | None = None
    scale_vec: str | None = None
    a_tmem: bool = False

    def operand(self, role: str) -> SiteOperand | None:
        """The first operand of ``role``, ``None`` when there is none."""
        return next((o for o in self.operands if o.role == role), None)

    @property
    def judged(self) -> tuple[SiteOperand, ...]:
        """The operands whose words the readers work out and ``lint``/``dump`` read."""
        return tuple(o for o in self.operands if o.judged)

    @property
    def label(self) -> str:
        """How a finding names the instruction: PTX its opcode (which names the kind); SASS
        the opcode and what it stands for, ``UTCHMMA (kind::f16 or kind::tf32,
        cta_group::1)``."""
        if self.dialect == "ptx":
            return self.opcode
        return (f"{self.opcode} (" + " or ".join(f"kind::{k}" for k in self.kinds)
                + f", cta_group::{self.cta_group}{', .ws' if self.ws else ''})")


class IdescContext(Struct, frozen=True):
    """What an instruction descriptor is judged under at an MMA: the ``kinds`` the MMA may be
    and its ``cta_group`` and ``.ws`` (M=256 under cta_group::1 is no valid reading, Table
    39); ``None``: not known (a kind given by name, ``descgen dump --kind``).  Hashable:
    readings of one word are kept per context."""

    kinds: tuple[str, ...]
    cta_group: int | None = None
    ws: bool | None = None


def site(dialect: str, opcode: str, operands: tuple[str, ...]) -> MmaSite | None:
    """The meaning of one instruction from its ``opcode`` and operand texts (``dialect``
    ``ptx`` or ``sass``): :func:`ptx_site` or :func:`sass_site`; ``None`` for an instruction
    that is no tensor-core MMA or Tensor Memory instruction."""
    return ptx_site(opcode, operands) if dialect == "ptx" else sass_site(opcode, operands)


# ---------------------------------------------------------------------------- PTX

_PTX_KIND = re.compile(r"\.kind::(\w+)")
_PTX_CTA = re.compile(r"\.cta_group::([12])")
_PTX_SCALE_VEC = re.compile(r"\.(scale_vec::\dX|block16|block32)\b")


def ptx_cta_group(opcode: str) -> int | None:
    """The ``.cta_group::N`` a PTX tcgen05 opcode names, ``None`` where it names none."""
    c = _PTX_CTA.search(opcode)
    return int(c.group(1)) if c else None


def ptx_site(opcode: str, operands: tuple[str, ...]) -> MmaSite | None:
    """A PTX ``tcgen05.mma*``, ``tcgen05.cp`` or ``wgmma.mma_async`` (the module's operand
    order); ``None`` for another instruction.  Kept per spelling (an unrolled K loop repeats a few)."""
    if opcode.startswith("wgmma.mma_async"):
        descs = [(k, t) for k, t in enumerate(operands) if not t.startswith("{")]
        from_registers = sum(t.startswith("{") for t in operands) > 1
        roles = ("b_desc",) if from_registers else ("a_desc", "b_desc")
        return MmaSite("ptx", opcode, "wgmma", tuple(
            SiteOperand(r, k, t, "wgmma") for r, (k, t) in zip(roles, descs)), mma=True)
    if opcode.startswith("tcgen05.cp"):  # [taddr], s-desc (9.7.16.9.2)
        return MmaSite("ptx", opcode, "tcgen05", tuple(
            SiteOperand(r, k, t, f, judged=j) for (r, f, j), (k, t) in
            zip((("taddr", "tmem", False), ("s_desc", "smem", True)), enumerate(operands))),
            cta_group=ptx_cta_group(opcode))
    if not opcode.startswith("tcgen05.mma"):
        return None
    head = opcode.split(".kind")[0]
    sp, ws, block_scale = ".sp" in head, ".ws" in head, ".block_scale" in opcode
    k, v = _PTX_KIND.search(opcode), _PTX_SCALE_VEC.search(opcode)
    ops: list[SiteOperand] = []

    def add(role: str, k: int, family: str, judged: bool = False) -> None:
        if k < len(operands):
            ops.append(SiteOperand(role, k, operands[k], family, judged=judged))
    add("d_tmem", 0, "tmem")
    a_tmem = len(operands) > 1 and operands[1].startswith("[")
    add("a_tmem" if a_tmem else "a_desc", 1, "tmem" if a_tmem else "smem", not a_tmem)
    add("b_desc", 2, "smem", True)
    i = 4 if sp else 3
    if sp:
        add("sp_meta", 3, "tmem")
    add("idesc", i, "idesc", True)
    if block_scale:
        add("scale_tmem", i + 1, "tmem")
        add("scale_tmem", i + 2, "tmem")
    if ws:
        add("zcm", i + 2, "zcm", True)
    kinds = (k.group(1),) if k and k.group(1) in KINDS else ()
    return MmaSite("ptx", opcode, "tcgen05", tuple(ops), True, kinds, block_scale,
                   ptx_cta_group(opcode), ws, sp, v.group(1) if v else None, a_tmem)


# ---------------------------------------------------------------------------- SASS

def _sass_operand(role: str, k: int, text: str, family: str | None, mma: bool,
                  judged: bool = True) -> SiteOperand | None:
    """A SASS operand's registers, bracket and offset: ``gdesc[URa]`` reads the pair
    URa:URa+1, a bare register of an MMA (the zero-column mask) a pair too, anything else one
    register; ``None`` for an operand that names no register (a predicate, an immediate)."""
    m = MEMORY_OPERAND.match(text)
    if m:
        prefix, reg, off = m.group(1) or "", m.group(2) or "URZ", m.group(3) or m.group(4)
    else:
        reg = register_name(text)
        prefix, off = "", None
        if reg is None:
            return None
    if reg in ("RZ", "URZ"):
        regs: tuple[str, ...] = (reg,)
    elif prefix == "gdesc" or (not m and mma):
        regs = (reg, next_register(reg))
    else:
        regs = (reg,)
    return SiteOperand(role, k, text, family, regs, prefix, off, judged)


def sass_site(opcode: str, operands: tuple[str, ...]) -> MmaSite | None:
    """A SASS tcgen05 instruction (``UTC*``, ``LDTM``, ``STTM``) or wgmma (``HGMMA``,
    ``IGMMA``, ``QGMMA``, ``BGMMA``), from the opcode tables of :mod:`descriptors.isa.sass`;
    ``None`` for another opcode.  Kept per spelling (a listing repeats a few hundred)."""
    base = opcode.split(".", 1)[0]
    if base in SASS_WGMMA:
        at = next((k for k, t in enumerate(operands) if t.startswith("gdesc[")), None)
        judged = wgmma_shape(opcode) is not None  # a shape no wgmma has: not judged
        ops = tuple(SiteOperand(d.name, at if d.name == "a_desc" else len(operands),  # type: ignore[arg-type]
                                d.text if d.name == "a_desc" else f"{d.text}.B", "wgmma",
                                d.registers, "gdesc", judged=judged, major=d.major)
                    for d in wgmma_descriptors(opcode, operands))
        return MmaSite("sass", opcode, "wgmma", ops, mma=True)
    if not opcode.startswith(("UTC", "LDTM", "STTM")):
        return None
    parts = opcode.split(".")
    mma = opcode.startswith("UTC") and "MMA" in opcode
    cp = opcode.startswith("UTCCP")
    out: list[SiteOperand | None] = []
    if mma or cp:
        idesc_at = next((k for k, t in enumerate(operands) if t.startswith("idesc[")), None)
        a_tmem = mma and bool(operands) and operands[0].startswith("tmem[")
        gdescs = 0
        for k, t in enumerate(operands):
            after = idesc_at is not None and k > idesc_at
            if t.startswith("gdesc["):
                gdescs += 1
                role = "s_desc" if cp else ("b_desc" if a_tmem or gdescs > 1 else "a_desc")
                out.append(_sass_operand(role, k, t, "smem", mma))
            elif t.startswith("idesc["):
                out.append(_sass_operand("idesc", k, t, "idesc", mma))
            elif t.startswith("tmem["):
                if idesc_at is not None and k == idesc_at - 1:
                    out.append(_sass_operand("sp_meta", k, t, "tmem", mma))
                elif mma and after:
                    out.append(_sass_operand("scale_tmem", k, t, "tmem", mma))
                else:
                    role = "taddr" if cp else "a_tmem" if k == 0 else "d_tmem"
                    out.append(_sass_operand(role, k, t, "tmem", mma, judged=False))
            elif mma and after and register_name(t) is not None:
                ws = "WS" in parts
                out.append(_sass_operand("zcm" if ws else "operand", k, t, "zcm" if ws else None,
                                         mma))
    elif opcode.startswith(("LDTM", "STTM")):
        out = [_sass_operand("taddr", k, t, "tmem", False) for k, t in enumerate(operands)
               if t.startswith("tmem[")]
    elif not opcode.startswith("UTCBAR"):  # no rule reads the mbarrier address or the mask
        out = [_sass_operand("taddr" if t.startswith("tmem[") else "operand", k, t,
                             "tmem" if t.startswith("tmem[") else None, False)
               for k, t in enumerate(operands)]
    ops = tuple(o for o in out if o is not None)
    if not mma:
        return MmaSite("sass", opcode, "tcgen05", ops, cta_group=cta_group(opcode))
    kinds, block_scaled = mma_kinds(opcode, operands)
    scale_vec = None
    if block_scaled:  # observed: UTCQMMA 1X; UTCOMMA 2X (.scale_vec::2X, .block32), .4X 4X
        scale_vec = "4X" if is_4x(opcode) else SASS_SCALE_VEC.get(parts[0])
    return MmaSite("sass", opcode, "tcgen05", ops, True, kinds, block_scaled,
                   2 if "2CTA" in parts else 1, "WS" in parts, None, scale_vec,
                   bool(operands) and operands[0].startswith("tmem["))

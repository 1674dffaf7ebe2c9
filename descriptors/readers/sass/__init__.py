"""SASS reader: ``cuobjdump -sass`` / ``nvdisasm`` listings (header lines and all), SASS pasted
into a log, cuda-gdb's ``x/i`` (no ``;``), as known-bits facts.

(Long: one pipeline over one representation of a listing -- the line lexer, what each opcode
writes and computes, the control flow and the driver share ``_Ins`` and ``_Function`` and their
caches.  The opcode tables are :mod:`descriptors.isa.sass`, the meaning of an instruction
:mod:`descriptors.isa.sites`, the solver :mod:`descriptors.readers.dataflow`.)

Each function (``Function : name``, ``.text.name``) is analysed as a whole by the path-sensitive
data flow of :mod:`descriptors.readers.dataflow`: basic blocks from the branches (``BRA``,
``BRX``, ``EXIT``, ``RET``, ``CALL`` ...), reaching definitions (a later write kills an earlier
one; a predicated write merges with what it may not overwrite; "not yet written" is no value),
and value sets, worked out only for the registers the descriptor operands depend on (a
backward slice).  Followed: ``MOV``/``UMOV``/``MOV32I``/``R2UR``/``IMAD.MOV`` (copies and
immediates), ``IMAD`` (``a * b + c``), ``IADD3``/``UIADD3`` and ``UIADD3.64`` (without ``.X``), ``VIADD``,
``LOP3.LUT``/``ULOP3.LUT`` (any truth table), ``SHF``/``USHF``, ``LEA``/``ULEA``,
``SEL``/``USEL`` (either value: a value set), ``PRMT``/``UPRMT`` (byte permutes) and
``CS2R R, SRZ``.  ``RZ``/``URZ`` read 0.  Every other instruction that writes a register
makes it unknown (``.64`` writes two registers, ``.128`` four, ``LDTM.xN`` N, and the groups
of :data:`_WIDE_DESTS`: ``CS2R``, ``FMUL2``, ``LDSM``, the wgmma accumulators ...; a register
written after a predicate, ``R2UR P1, UR14, R30``, :data:`_PREDICATE_FIRST`).  A shared
memory descriptor stepped in a K loop keeps its fields above the start address under the
K-step rule (see :func:`_k_step`); the operand says so in ``assumes``.

The listing's target is read from its header lines (:func:`_arch`): ``code for sm_100a``,
``.target``, ``arch =``, and ``.headerflags`` (a bare ``sm_100`` without
``EF_CUDA_ACCELERATORS`` is a family-portable ``sm_100f`` build); each instruction carries it
and why (``arch_reason``).

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
kind::mxf4nvf4 .scale_vec::4X/.block16  ``UTCOMMA.4X`` (sm_103a: ``UTCOMMA.BLOCK16``)
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
tcgen05.ld / tcgen05.st                ``LDTM`` / ``STTM``, the form in the opcode
                                       (:data:`SASS_TMEM_SHAPES`; ``LDTM.STAT`` = ld.red)
tcgen05.commit                         ``UTCBAR`` (``.MULTICAST``: multicast::cluster)
tcgen05.shift                          ``UTCSHIFT.DOWN``
tcgen05.dealloc                        ``UTCATOMSWS.AND`` (no ``.2CTA`` either way)
=====================================  ===================================================

Operands of ``UTC?MMA``: ``gdesc[URa]`` (A, 64-bit shared memory descriptor in URa:URa+1),
``gdesc[URb]`` (B), ``tmem[URd]`` (D), ``tmem[URk]``, ``idesc[URk+1]`` (the 64-bit idescE
pair: low word sparse metadata address or 0, high word the instruction descriptor), then the
optional scale / zero-column-mask operands and the enable-input-d predicate.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import lru_cache

from .. import MAX_FUNCTION, SASS_FUNCTION, Fact, Instruction, Operand
from ...errors import DescgenError, ParameterError, shorten
from ..dataflow import EVERY, Code, Step, solve
from ..knownbits import KnownBits
from ..values import Alternative, ValueSet, join, meet, single
from ...isa.sites import MmaSite, sass_site
from ..ksteps import K_STEP_ASSUMPTION, is_k_step, k_stepped
from ...isa.sass import (MEMORY_OPERAND as _MEM, SASS_4X, SASS_4X_SUFFIXES,
                        SASS_CTA_GROUP, SASS_MMA, SASS_SCALE_VEC, SASS_TMEM_REDUCTIONS,
                        SASS_TMEM_SHAPES, SASS_WGMMA, TmemAccess, WgmmaDescriptor, cta_group,
                        is_4x, mma_kinds, next_register as _pair, register_name as _reg_name,
                        tmem_access, wgmma_descriptors)

__all__ = ["read_sass", "SASS_MMA", "SASS_SCALE_VEC", "SASS_4X", "SASS_4X_SUFFIXES", "mma_kinds",
           "is_4x", "SASS_TMEM_SHAPES", "SASS_TMEM_REDUCTIONS", "SASS_CTA_GROUP", "TmemAccess",
           "tmem_access", "cta_group", "instruction", "SASS_WGMMA", "WgmmaDescriptor",
           "wgmma_descriptors", "wgmma_operands", "read_live", "register_word"]


#: The pieces of a SASS instruction line every pattern below is built from: a predicate guard
#: (``@!UP0``) and an opcode with its modifiers (``UTCHMMA.2CTA``).
_PRED = r"@!?U?P(?:T|\d{1,2})"
_OPCODE = r"[A-Z][A-Z0-9_]{0,31}(?:\.[A-Za-z0-9_]{1,32}){0,8}"
_LINE = re.compile(r"\s*+(?:/\*(?P<addr>[0-9A-Fa-f]{1,8})\*/)?+\s*+(?P<pred>" + _PRED + r"\s++)?+"
                   r"(?P<op>(?>U?" + _OPCODE + r"))(?=[\s;])(?P<rest>(?P<first>[^,;]*+)[^;]*+);")
#: An instruction without its ``;`` (pasted into a log, or cuda-gdb's ``x/i``: ``HGMMA.64x64x16.F32
#: R24,gdesc[UR4],RZ,!UPT,gsb0``): an upper-case opcode and a first operand that is a register,
#: a predicate, an address or an MMA operand.
_LINE_BARE = re.compile(r"\s*+(?:/\*(?P<addr>[0-9A-Fa-f]{1,8})\*/)?+\s*+(?P<pred>" + _PRED +
                        r"\s++)?+(?P<op>(?>U?" + _OPCODE + r"))\s++(?P<rest>(?:U?R\d{1,3}|U?RZ|"
                        r"!?U?P(?:T|\d)|\[|\{|gdesc\[|tmem\[|idesc\[)[^;]*+)\Z")
_LABEL = re.compile(r"\s*(\.L_x_\d+|\.?[A-Za-z_$][\w$.]*)\s*:\s*(?://.*)?\Z")
_ARCH = re.compile(r"(?:code for|\.target|arch\s*=)\s*(sm_\d+[af]?)")
_PREDREG = re.compile(r"!?U?P(?:T|\d{1,2})\Z")
_IMM = re.compile(r"(-)?(0x[0-9A-Fa-f]+|\d+)\Z")
_TARGET = re.compile(r"(0x[0-9A-Fa-f]+)|`\(([^)]*)\)")


def _immediate(text: str) -> int | None:
    """An immediate operand (``0x3fc0``, ``-0x1``, ``24``), or ``None``."""
    m = _IMM.match(text)
    if m is None:
        return None
    digits = m.group(2)
    value = int(digits, 16) if digits[:2] == "0x" else int(digits, 10)
    return -value if m.group(1) else value


#: A comma inside square brackets (``[UR4, 0x10]`` would be one operand).
_BRACKET_COMMA = re.compile(r"\[[^\]]*,")


def _split(rest: str, col0: int) -> list[tuple[str, int]]:
    """The operands of ``rest`` (the text after the opcode), ``(text, 1-based col)``: split at
    the commas outside ``[..]`` and ``(..)``; blank operands dropped.  The text is split at
    every comma first; only a piece with an opening bracket, or inside one, is scanned."""
    out = []
    if "(" not in rest and ("[" not in rest or _BRACKET_COMMA.search(rest) is None):
        pos = 0  # no comma inside brackets (the common case): every comma ends an operand
        for piece in rest.split(","):
            s = piece.strip()
            if s:
                out.append((s, col0 + pos + len(piece) - len(piece.lstrip())))
            pos += len(piece) + 1
        return out
    depth = start = pos = 0  # bracket depth; where the operand and the piece begin
    for piece in rest.split(","):
        if depth or "[" in piece or "(" in piece:
            for ch in piece:
                if ch in "[(":
                    depth += 1
                elif ch in "])":
                    depth = max(0, depth - 1)
        pos += len(piece) + 1
        if depth:
            continue  # a comma inside brackets: the operand goes on
        text = rest[start:pos - 1]
        s = text.strip()
        if s:
            out.append((s, col0 + start + len(text) - len(text.lstrip())))
        start = pos
    return out


def _span(m: re.Match[str], pred: str | None) -> tuple[int, int]:
    """Where the instruction a :data:`_LINE` / :data:`_LINE_BARE` match read is written in its
    line: from its guard (``pred``, the match's) or opcode to its ``;`` (not included)."""
    end = m.end()
    if m.string[end - 1:end] == ";":
        end -= 1
    return (m.start("pred") if pred else m.start("op"), end)


def _normalised(source: str, span: tuple[int, int]) -> str:
    """The text of ``source`` in ``span``, blanks normalised (one space between words)."""
    return " ".join(source[span[0]:span[1]].split())


class _Ins:
    """One instruction line: where (``line``, 1-based ``col`` of the opcode, ``addr``), its
    guard (``pred``), opcode, operands ``(text, col)``, normalised ``text``; the registers it
    writes (``dests``).

    Made only for the lines the data flow or a check looks at (:class:`_Function`): the
    operands are split and the text normalised only when asked for (``ops``, ``text``)."""

    __slots__ = ("line", "col", "addr", "pred", "op", "_dests", "_source", "_span",
                 "_rest", "_col0", "_ops", "_text")

    def __init__(self, line: int, col: int, addr: int | None, pred: str | None, op: str,
                 source: str, span: tuple[int, int], rest: str, col0: int,
                 dests: tuple[str, ...] | None = None) -> None:
        self.line, self.col, self.addr, self.op = line, col, addr, op
        self.pred = pred.strip() if pred else None
        self._source, self._span, self._rest, self._col0 = source, span, rest, col0
        self._ops: list[tuple[str, int]] | None = None
        self._text: str | None = None
        self._dests = dests

    @classmethod
    def of(cls, m: re.Match[str], line: int, dests: tuple[str, ...] | None = None) -> _Ins:
        """The instruction a :data:`_LINE` or :data:`_LINE_BARE` match read on ``line``."""
        addr, pred, op, rest = m.group("addr", "pred", "op", "rest")
        return cls(line, m.start("op") + 1, int(addr, 16) if addr else None, pred, op, m.string,
                   _span(m, pred), rest, m.start("rest") + 1, dests)

    @property
    def dests(self) -> tuple[str, ...]:
        """The registers it writes (:func:`_dests`)."""
        if self._dests is None:
            self._dests = tuple(_dests(self))
        return self._dests

    def facts(self, arch: str | None = None) -> tuple[Fact, ...]:
        """The immediates it materialises (in code for target ``arch``), for ``dump``: every
        constant a move (``MOV``, ``UMOV``, ``MOV32I``, ``IMAD.MOV d, RZ, RZ, s``) writes,
        ``RZ`` too; other opcodes' immediates from 0x10000 up."""
        ds = self.dests
        op = self.op
        base = op.split(".", 1)[0]
        if not (ds and len(ds) == 1 and base in _MATERIALISE and (
                base in _MOVES_ANY or op.startswith("IMAD.MOV") or _BIG.search(self._rest))):
            return ()
        ops = self.ops
        moved = base in _MOVES_ANY or (op.startswith("IMAD.MOV") and len(
            ops) == 4 and ops[1][0] in ("RZ", "URZ") and ops[2][0] in ("RZ", "URZ"))
        out: tuple[Fact, ...] = ()
        for t, c in ops[-1:] if moved else ops[1:]:
            imm = _immediate(t) if t[:1] in "-0123456789" else (0 if t in ("RZ", "URZ") and
                                                                moved else None)
            if imm is not None and (imm > 0xFFFF or moved):
                out += (Fact(self.line, c, KnownBits.const(imm, 32), "immediate",
                             self.text, "sass", register=ds[0], arch=arch),)
        return out

    @property
    def ops(self) -> list[tuple[str, int]]:
        """The operands, ``(text, 1-based col)``, split at top-level commas."""
        if self._ops is None:
            self._ops = _split(self._rest, self._col0)
        return self._ops

    @property
    def text(self) -> str:
        """The instruction as written from its guard to its ``;``, blanks normalised."""
        if self._text is None:
            self._text = _normalised(self._source, self._span)
        return self._text

    def first(self) -> str | None:
        """The first operand's text (``None``: no operand), without splitting the rest when
        the first comma ends it."""
        if self._ops is None:
            piece = self._rest.split(",", 1)[0]
            if "[" not in piece and "(" not in piece:
                piece = piece.strip()
                if piece:
                    return piece
        ops = self.ops
        return ops[0][0] if ops else None


#: Five hex digits in a row: an immediate of 0x10000 or more has them (hex or decimal).
_BIG = re.compile(r"[0-9A-Fa-f]{5}")


#: Opcodes that move a constant into a register: every immediate they move is a fact (a
#: small one may be a Tensor Memory address an MMA reads); other opcodes' immediates are facts
#: from 0x10000 up.
_MOVES_ANY = frozenset({"MOV", "UMOV", "MOV32I"})
#: Opcodes whose immediates are constants the code materialises (reported by ``dump``).
_MATERIALISE = frozenset({"MOV", "UMOV", "MOV32I", "IMAD", "UIMAD", "IADD3", "UIADD3", "LOP3",
                          "ULOP3", "SHF", "USHF", "LEA", "ULEA", "SEL", "USEL"})


@lru_cache(maxsize=4096)
def _is_predicate(text: str) -> bool:
    """A predicate register operand (``UP0``, ``!PT``), kept per spelling."""
    return _PREDREG.match(text) is not None


#: Opcodes whose first register operand is read, not written.
_NO_DEST = ("UTC", "ST", "BRA", "BRX", "JMX", "BAR", "EXIT", "RET", "CALL", "RED", "WARPSYNC",
            "BSSY", "BSYNC", "NOP", "DEPBAR", "ISETP", "UISETP", "PLOP3", "UPLOP3", "FSETP",
            "NANOSLEEP", "MEMBAR", "FENCE", "SYNCS", "ERRBAR", "CCTL", "UVIRTCOUNT",
            "USETMAXREG", "ACQBULK", "UCGABAR")
#: ... except these (they write their first operand: ``REDUX UR12, R3``, a warp's reduction
#: into a uniform register, is no ``RED``).
_DEST_ANYWAY = ("ATOM", "UTCATOMSWS", "VOTE", "REDUX")
#: Opcodes that may write a predicate first, then a register: the register is the first operand
#: that is no predicate (``UTCATOMSWS.FIND_AND_SET.ALIGN UP0, UR4, UR4`` writes the allocated
#: column index into UR4; ``ELECT P0, UR4, PT``; ``SHFL.IDX PT, R5, R4, ...``; ``R2UR P1, UR14,
#: R30`` and ``R2UR.OR P1, UR13, R4`` -- the predicate says whether the value was uniform --
#: write UR14 / UR13; ``LOP3.LUT P0, R0, R0, 0xff, RZ, 0xc0, !PT`` and ``ULOP3.LUT UP0, UR14,
#: UR13, 0x3, URZ, 0xc0, !UPT`` write R0 / UR14; ``ATOMG.E.ADD.STRONG.GPU PT, R10, ...`` the
#: old value into R10: all in the production listings of fixtures/production).
_PREDICATE_FIRST = ("UTCATOMSWS", "ELECT", "SHFL", "R2UR", "LOP3", "ULOP3", "ATOM")


def _dests(ins: _Ins) -> list[str]:
    """The registers an instruction writes (:func:`_opcode_facts`): from its first operand,
    or from its first operand that is no predicate (:data:`_PREDICATE_FIRST`)."""
    predicate_first, nothing, _kind_, count = _opcode_facts(ins.op)
    if nothing:
        return []
    first = ins.first()
    if first is None:
        return []
    if predicate_first:
        first = next((t for t, _ in ins.ops if not _is_predicate(t)), "")
    return list(_written_to(first, count))


def _written(op: str, first: str) -> tuple[tuple[str, ...], int] | None:
    """``(dests, kind)`` of an instruction from its opcode and first operand (:func:`_dests`
    without the line: the same answer), or ``None`` for an opcode whose destination is not
    its first operand (a predicate first, :data:`_PREDICATE_FIRST`)."""
    predicate_first, nothing, kind, count = _opcode_facts(op)
    if predicate_first and _is_predicate(first.strip()):
        return None
    if nothing:
        return (), kind
    return _written_to(first.strip(), count), kind


@lru_cache(maxsize=4096)
def _opcode_facts(op: str) -> tuple[bool, bool, int, int]:
    """What :func:`_written` needs of an opcode, kept per spelling: whether it may write a
    predicate first (:data:`_PREDICATE_FIRST`), whether it writes no register
    (:data:`_NO_DEST`), its kind (:func:`_kind`) and how many registers it writes
    (:func:`_dest_count`)."""
    return (op.startswith(_PREDICATE_FIRST),
            op.startswith(_NO_DEST) and not op.startswith(_DEST_ANYWAY), _kind(op),
            _dest_count(op))


@lru_cache(maxsize=8192)
def _written_to(first: str, count: int) -> tuple[str, ...]:
    name = _reg_name(first) if first else None
    if name is None or name.endswith("Z"):
        return ()
    return (name, *(_pair(name, k) for k in range(1, count)))  # type: ignore[misc]


#: Registers an opcode writes from its first destination on, where that is more than one and
#: its spelling says so without a ``.64``/``.WIDE``/``.128`` suffix: base opcode -> a function
#: of the modifiers (the opcode split at ``.``).  Where the count is not certain it errs high:
#: a register taken as written holds an unknown value, one missed keeps a value it no longer
#: holds.
_WIDE_DESTS: dict[str, Callable[[list[str]], int]] = {
    # CS2R Rd, SRZ: a 64-bit move (Rd, Rd+1); CS2R.32: one register
    "CS2R": lambda q: 1 if "32" in q else 2,
    # sm_100's paired FP32 arithmetic on .F32x2 register pairs
    "FADD2": lambda q: 2, "FMUL2": lambda q: 2, "FFMA2": lambda q: 2,
    # FP64 arithmetic: a register pair
    "DADD": lambda q: 2, "DMUL": lambda q: 2, "DFMA": lambda q: 2, "DMNMX": lambda q: 2,
    # ldmatrix: .x1/.x2/.x4 (``LDSM.16.M88.4``), two registers a matrix for the 16x16 ones
    # (``LDSM.U4x16P64TO8.MT1616``)
    "LDSM": lambda q: (int(q[-1]) if q and q[-1] in ("2", "4") else 1)
    * (2 if any("1616" in m for m in q) else 1),
    # mma.sync: the accumulator fragment (4 registers for every f32/s32 shape, 2 for f16)
    "HMMA": lambda q: 2 if q[-1:] == ["F16"] else 4, "IMMA": lambda q: 4,
    "QMMA": lambda q: 4, "OMMA": lambda q: 4, "DMMA": lambda q: 4,
    # wgmma: the accumulator, 64xN per warpgroup: N/2 registers a thread (f32/s32), N/4 (f16)
    "HGMMA": lambda q: _wgmma_accumulators(q), "IGMMA": lambda q: _wgmma_accumulators(q),
    "QGMMA": lambda q: _wgmma_accumulators(q), "BGMMA": lambda q: _wgmma_accumulators(q),
}


def _wgmma_accumulators(quals: list[str]) -> int:
    """Registers a ``HGMMA.64xNxK.<D type>...`` writes a thread (128 if the shape is not read)."""
    shape = next((m for m in quals if re.fullmatch(r"64x\d+x\d+", m)), None)
    if shape is None:
        return 128
    n = int(shape.split("x")[1])
    after = quals[quals.index(shape) + 1:]
    return n // 4 if after[:1] == ["F16"] else n // 2


#: Conversions whose destination type (their first type modifier) may be 64 bits wide.
_CONVERSIONS = frozenset({"F2F", "I2F", "F2I", "I2I", "FRND"})


@lru_cache(maxsize=4096)
def _dest_count(op: str) -> int:
    """Registers an opcode writes from its first destination on: 2 for ``.64``/``.WIDE``, 4
    for ``.128``, an ``LDTM``'s vector (:func:`_ldtm_registers`), the opcodes of
    :data:`_WIDE_DESTS`, a conversion to a 64-bit type; else 1 (one answer per opcode
    spelling, kept)."""
    n = 1
    if re.search(r"\.(64|WIDE)\b", op):
        n = 2
    if ".128" in op:
        n = 4
    base, *quals = op.split(".")
    wide = _WIDE_DESTS.get(base)
    if wide is not None:
        n = max(n, wide(quals))
    elif base in _CONVERSIONS:
        first_type = next((m for m in quals if re.fullmatch(r"[FSU](?:8|16|32|64)", m)), "")
        if first_type.endswith("64"):
            n = 2
    if op.startswith("LDTM"):
        n = _ldtm_registers(op)
    return n


def _ldtm_registers(opcode: str) -> int:
    """Registers an ``LDTM`` writes from its first destination on (Table 47; 128 -- every
    register it could name -- for a form :func:`tmem_access` does not know)."""
    from ...isa.tmem import registers
    acc = tmem_access(opcode)
    if acc is None:
        return 128
    try:
        return registers(acc.shape, acc.num, "ld")  # each .16x32bx2 half: the whole vector
    except DescgenError:
        return 128


@lru_cache(maxsize=8192)
def _src(t: str) -> str | KnownBits | None:
    """A source operand for the data flow: a register name, a constant, or ``None`` (a value
    the reader does not follow: a constant bank, a negated register, an absolute value
    ``|R4|``, a half or byte of one, ``R5.H1``/``R23.B0`` ...)."""
    imm = _immediate(t)
    if imm is not None:
        return KnownBits.const(imm, 32)
    if t in ("RZ", "URZ"):
        return _ZERO
    if "|" in t or _SELECTOR.search(t):
        return None
    return _reg_name(t)


#: Modifiers of an ``IMAD`` / ``LEA`` whose result the data flow does not compute (a wide or
#: high half, an extended add).
_WIDE_HI_X = re.compile(r"\.(WIDE|HI|X)\b")
_HI_X = re.compile(r"\.(HI|X)\b")

#: A half or byte selector on a register operand (``R5.H1``, ``R23.reuse.B0``).
_SELECTOR = re.compile(r"\.(?:H[01]|B\d)\b")


_ZERO = KnownBits.const(0, 32)


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


def _step(ins: _Ins, reg: str, gdesc: set[str]) -> Step | None:  # noqa: C901 - one case per opcode
    """The :class:`~descriptors.readers.dataflow.Step` of one instruction (what it computes),
    or ``None`` when the reader does not follow it (its result is unknown).

    (Long: one case per opcode family the data flow follows, each a few lines.)"""
    op = ins.op
    base = op.split(".", 1)[0]
    regs = [t for t, _ in ins.ops if not _is_predicate(t)]
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
                return Step((dest,), lambda a: (a,), "copy", K_STEP_ASSUMPTION)
            hi = _pair(src) or src
            gdesc.update((src, hi))
            return Step((src, hi), lambda a, b: (k_stepped(a), b), "eval", K_STEP_ASSUMPTION)
    if base in ("MOV", "UMOV", "MOV32I", "R2UR"):
        if len(ds) == 1 and len(srcs) == 1:
            s = _src(srcs[0])
            if s is None:
                return None
            if s.__class__ is str:
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
        if op.startswith(("IMAD.MOV", "UIMAD.MOV")) and a is _ZERO and b is _ZERO:
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
                    pairs += [x, _ZERO if x.is_const and not x.value >> 31 else  # type: ignore[union-attr]
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
        lut = _immediate(srcs[3])
        a, b, c = (_src(t) for t in srcs[:3])
        if lut is None or a is None or b is None or c is None:
            return None
        return Step((a, b, c), lambda x, y, z, k=lut & 0xFF: (KnownBits.lop3(x, y, z, k),))
    if base in ("SHF", "USHF") and len(srcs) == 3 and len(ds) == 1:
        sh = _immediate(srcs[1])
        a, c = _src(srcs[0]), _src(srcs[2])
        if sh is None or a is None or c is None:
            return None
        return Step((a, c), lambda x, z, n=sh & 63: (_shf(op, x, n, z),))
    if base in ("LEA", "ULEA") and len(srcs) == 3 and len(ds) == 1 \
            and not _HI_X.search(op):
        sh = _immediate(srcs[2])
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
        if p in ("PT", "UPT"):
            return Step((a,), lambda x: (x,), "copy")
        if p in ("!PT", "!UPT"):
            return Step((b,), lambda x: (x,), "copy")
        return Step((a, b), None, "select")
    if base in ("PRMT", "UPRMT") and len(srcs) == 3 and len(ds) == 1:
        sel = _immediate(srcs[1])
        a, b = _src(srcs[0]), _src(srcs[2])
        if sel is None or a is None or b is None:
            return None
        return Step((a, b), lambda x, y, k=sel: (_prmt(x, k, y),))
    if base == "CS2R" and srcs == ["SRZ"]:
        return Step((), lambda n=len(ds): (_ZERO,) * n)
    return None


#: :func:`_step`'s answers by spelling -- opcode, operands as written, whether guarded, whether
#: the register is a descriptor's -- with the registers it made descriptor registers: an
#: instruction's step depends on nothing else, and the same spellings recur (unrolled loops,
#: the kernels of one listing).  Kept across listings (bounded: an entry holds a few hundred
#: bytes; all 40 production listings have 4,535 spellings).
_STEPS: dict[tuple[str, str, bool, bool], tuple[Step | None, tuple[str, ...]]] = {}
_STEPS_MAX = 1 << 13


def _step_kept(fn: _Function, i: int, reg: str, gdesc: set[str]) -> Step | None:
    """:func:`_step` of instruction ``i`` of ``fn``, worked out once per spelling
    (:data:`_STEPS`); ``gdesc`` gains the registers it makes descriptor registers."""
    op, pred, rest = fn.matches[i].group("op", "pred", "rest")
    in_gdesc = reg in gdesc
    key = (op, rest, bool(pred and pred.strip()), in_gdesc)
    got = _STEPS.get(key)
    if got is None:
        if len(_STEPS) >= _STEPS_MAX:
            _STEPS.clear()
        scratch = {reg} if in_gdesc else set()
        got = _STEPS[key] = (_step(fn.ins(i), reg, scratch), tuple(scratch) if in_gdesc else ())
    if got[1]:
        gdesc.update(got[1])
    return got[0]


def _k_step(ins: _Ins, regs: list[str] | None = None) -> tuple[str, str, str] | None:
    """How a K loop steps a shared memory descriptor in SASS, as ``(form, dest, source)``:
    ``lo`` -- ``UIADD3 d, UPn, UPT, d, IMM, URZ`` (the low word plus a step); ``hi`` --
    ``UIADD3.X d, UPT, UPT, URZ, d, URZ, UPn, !UPT`` (the high word plus the low word's carry);
    ``pair`` -- ``UIADD3.64 d, UPT, UPT, s, IMM, URZ`` (a 64-bit descriptor plus a step);
    0 < IMM < 2^14 (16-byte units) and no predicate."""
    if ins.pred or not ins.op.startswith(("UIADD3", "IADD3")):
        return None
    if regs is None:  # (the operands other than predicates)
        regs = [t for t, _ in ins.ops if not _is_predicate(t)]
    if len(regs) != 4:
        return None
    d, a, b, c = regs
    d = _reg_name(d) or ""
    if ins.op.endswith(".X"):
        if a in ("URZ", "RZ") and c in ("URZ", "RZ") and _reg_name(b) == d:
            return "hi", d, d
        return None
    imm = _immediate(b)
    if imm is None or imm < 0 or not is_k_step(imm) or c not in ("URZ", "RZ") \
            or _reg_name(a) is None:
        return None
    if ins.op.endswith(".64"):
        return "pair", d, _reg_name(a) or ""
    if ins.op in ("UIADD3", "IADD3") and _reg_name(a) == d:
        return "lo", d, d
    return None


#: Branches: opcode bases that may jump to a target written in the operands.
_BRANCH = ("BRA", "UBRA", "JMP", "BRX", "BRXU", "JMX", "JMXU", "CALL", "RET", "EXIT", "BPT",
           "KILL")
#: Indirect branches: the target is in a register (``BRX R132 -0x6db0``, ``BRXU UR8 -0x78e0``).
_INDIRECT = frozenset({"BRX", "BRXU", "JMX", "JMXU"})
#: Modifiers of ``BRA`` that make it conditional without a guard.
_CONDITIONAL = frozenset({"DIV", "ANY", "ALL", "CONV", "U"})


def _control(m: re.Match[str], addr_index: _Addresses | dict[int, int], labels: dict[str, int]
             ) -> tuple[tuple[int, ...], bool, bool]:
    """``(jump targets, falls through, is a call)`` of the instruction a :data:`_LINE` or
    :data:`_LINE_BARE` match read (its operands split only when there are several)."""
    op, pred, rest = m.group("op", "pred", "rest")
    base = op.split(".", 1)[0]
    if base not in _BRANCH:
        return (), True, False
    guarded = bool(pred and pred.strip())
    quals = set(op.split(".")[1:])
    if base in ("EXIT", "RET", "KILL"):
        return (), guarded, False
    if base == "BPT":
        return (), True, False
    if base in _INDIRECT:
        return EVERY, guarded, False
    one = rest.strip()
    texts = [one] if "," not in one else [t for t, _ in _split(rest, 1)]
    t = _TARGET.search(" ".join(texts))
    target = None
    if t and t.group(1) is not None:
        target = addr_index.get(int(t.group(1), 16))
    elif t:
        target = labels.get(t.group(2))
    if base == "CALL":
        return (), True, True
    conditional = guarded or bool(quals & _CONDITIONAL) or any(
        _PREDREG.match(x) or _reg_name(x) for x in texts)
    if target is None:
        return EVERY, conditional, False  # a target the reader cannot find: anywhere
    return (target,), conditional, False


def _mentions(ins: _Ins, pred: str) -> bool:
    return any(t.lstrip("!") == pred for t, _ in ins.ops)


def _uses(ins: _Ins) -> tuple[MmaSite | None, list[tuple[int, str, str, str | None, tuple[str, ...]]]]:
    """What the instruction means (:func:`descriptors.isa.sites.sass_site`) and the operands
    whose values are worked out, as ``(operand index, text, bracket, offset, registers)``:
    those the site judges (the descriptors, the idescE low word, the scale factors' address,
    a ``.ws`` zero-column mask; a Tensor Memory access's address).  A's and the accumulator's
    TMEM addresses are not followed (loop-carried values whose data flow would cost most of
    the reading)."""
    site = sass_site(ins.op, tuple([t for t, _ in ins.ops]))
    if site is None:
        return None, []
    return site, [(o.index, o.text, o.prefix, o.offset, o.registers) for o in site.operands
                  if o.judged]


class _Function:
    """The instructions of one function as the reader met them: each line's match
    (:data:`_LINE`), line number and what it writes; the instructions of a kind other than
    :data:`_PLAIN` (:data:`_BRANCH_OP`, :data:`_CHECKED_OP`, :data:`_MATERIAL`); the writes
    of each register.  An instruction's
    :class:`_Ins` -- operands split, text normalised -- is made only when the data flow or a
    check looks at it (most lines of a listing never are)."""

    __slots__ = ("matches", "lines", "dests", "special", "by_reg", "wide", "labels", "_ins")

    def __init__(self) -> None:
        self.matches: list[re.Match[str]] = []
        self.lines: list[int] = []
        self.dests: list[tuple[str, ...]] = []
        #: ``(index, kind)`` of each instruction whose kind is not :data:`_PLAIN`
        self.special: list[tuple[int, int]] = []
        #: the instructions that write each register, in order -- but for those that write
        #: more than two (an LDTM's vector, up to 128 registers), listed in ``wide`` and
        #: looked through only for a register the data flow asks about (:class:`_ByReg`)
        self.by_reg: defaultdict[str, list[int]] = defaultdict(list)
        self.wide: list[int] = []
        self.labels: dict[str, int] = {}
        self._ins: dict[int, _Ins] = {}

    def parts(self) -> tuple[list[re.Match[str]], list[int], list[tuple[str, ...]],
                             list[tuple[int, int]], defaultdict[str, list[int]], list[int]]:
        """The lists :func:`read_sass` fills as it reads: matches, line numbers, what each
        writes, the instructions of a kind other than :data:`_PLAIN`, the writes of each
        register, the instructions that write more than two."""
        return self.matches, self.lines, self.dests, self.special, self.by_reg, self.wide

    def __len__(self) -> int:
        return len(self.matches)

    def ins(self, i: int) -> _Ins:
        got = self._ins.get(i)
        if got is None:
            got = self._ins[i] = _Ins.of(self.matches[i], self.lines[i], self.dests[i])
        return got


class _ByReg:
    """``Code``'s writes of each register (``get(register, default)``): the function's
    :attr:`_Function.by_reg` with the instructions of :attr:`_Function.wide` that write the
    register merged in, when asked (kept)."""

    __slots__ = ("fn", "got", "wide")

    def __init__(self, fn: _Function) -> None:
        self.fn = fn
        self.got: dict[str, list[int]] = {}
        #: the writes of each register by the instructions of ``wide`` (made on first use)
        self.wide: dict[str, list[int]] | None = None

    def get(self, reg: str, default: list[int] | None = None) -> list[int] | None:
        got = self.got.get(reg)
        if got is None:
            fn = self.fn
            own = fn.by_reg.get(reg)
            wide = self.wide
            if wide is None:
                wide = self.wide = {}
                for i in fn.wide:
                    for d in fn.dests[i]:
                        wide.setdefault(d, []).append(i)
            extra = wide.get(reg)
            got = self.got[reg] = sorted((own or []) + extra) if extra else \
                (_UNWRITTEN if own is None else own)
        return default if got is _UNWRITTEN else got


#: :class:`_ByReg`'s answer for a register nothing writes (kept, like the others).
_UNWRITTEN: list[int] = []


class _Where:
    """``Code.where`` of a function: ``(line, text)`` of instruction ``i``, made when the data
    flow asks (only for the instructions in the slice)."""

    __slots__ = ("fn", "got")

    def __init__(self, fn: _Function) -> None:
        self.fn = fn
        self.got: dict[int, tuple[int, str]] = {}

    def __len__(self) -> int:
        return len(self.fn)

    def __getitem__(self, i: int) -> tuple[int, str]:
        got = self.got.get(i)
        if got is None:
            fn = self.fn
            ins = fn._ins.get(i)
            if ins is not None:
                got = (ins.line, ins.text)
            else:  # (the text alone: no :class:`_Ins` made for it)
                m = fn.matches[i]
                got = (fn.lines[i], _normalised(m.string, _span(m, m.group("pred"))))
            self.got[i] = got
        return got


class _Guards:
    """``Code.guard`` of a function: the guard of instruction ``i`` (``@!UP1``), or ``None``."""

    __slots__ = ("fn",)

    def __init__(self, fn: _Function) -> None:
        self.fn = fn

    def __len__(self) -> int:
        return len(self.fn)

    def __getitem__(self, i: int) -> str | None:
        pred = self.fn.matches[i].group("pred")
        return pred.strip() if pred else None


class _Addresses:
    """The instruction at an address (``addr_index.get``): listings print one instruction
    every 16 bytes, so the index is tried from the first address and the stride, and a
    full table is built only where that guess misses."""

    __slots__ = ("fn", "table", "base")

    def __init__(self, fn: _Function) -> None:
        self.fn = fn
        self.table: dict[int, int] | None = None
        self.base: int | None = None
        a = fn.matches[0].group("addr") if fn.matches else None
        if a:
            self.base = int(a, 16)

    def get(self, addr: int) -> int | None:
        if self.base is not None and self.table is None:
            k, r = divmod(addr - self.base, 16)
            if not r and 0 <= k < len(self.fn.matches):
                a = self.fn.matches[k].group("addr")
                if a and int(a, 16) == addr:
                    return k
        if self.table is None:
            self.table = {}
            for k, m in enumerate(self.fn.matches):
                a = m.group("addr")
                if a:
                    self.table[int(a, 16)] = k
        return self.table.get(addr)


def _read_uses(fn: _Function) -> Iterator[tuple[int, tuple[MmaSite | None, list]]]:
    """Each tcgen05 instruction of a function (``UTC*``, ``LDTM``, ``STTM``) with the value
    set of every register its operands read."""
    n = len(fn)
    targets = [i for i, kind in fn.special if kind & _CHECKED_OP]
    if not targets:
        return
    jumps: list[tuple[int, ...]] = [()] * n
    falls: list[bool] = [True] * n
    defs: list[tuple[str, ...]] = fn.dests
    branches = [i for i, kind in fn.special if kind & _BRANCH_OP]
    addresses = _Addresses(fn)
    by_reg = fn.by_reg
    for i in branches:
        js, fall, call = _control(fn.matches[i], addresses, fn.labels)
        jumps[i], falls[i] = js, fall
        if call:
            if defs is fn.dests:
                defs = list(defs)
            defs[i] = ("*",)
            by_reg.setdefault("*", []).append(i)
    gdesc: set[str] = set()
    uses: list[tuple[int, str]] = []
    per: dict[int, list] = {}
    sites: dict[int, MmaSite | None] = {}
    for i in targets:
        sites[i], got = _uses(fn.ins(i))
        per[i] = got
        for _k, _t, role, _off, regs in got:
            for r in regs:
                if r not in ("RZ", "URZ"):
                    uses.append((i, r))
                    if role == "gdesc":
                        gdesc.add(r)
    code = Code(defs, _Guards(fn), jumps, falls, _Where(fn),
                lambda i, p: _mentions(fn.ins(i), p),
                lambda i, reg: _step_kept(fn, i, reg, gdesc), by_reg=_ByReg(fn),  # type: ignore[arg-type]
                branches=branches)
    values = solve(code, uses)
    for i in targets:
        yield i, (sites[i], [(k, text, role, off, [values.get((i, r), _ZERO_SET)
                                                   if r not in ("RZ", "URZ") else _ZERO_SET
                                                   for r in regs])
                             for k, text, role, off, regs in per[i]])


_ZERO_SET = single(_ZERO)
#: Opcodes yielded as instructions.
_CHECKED = ("UTC", "LDTM", "STTM", "HGMMA", "IGMMA", "QGMMA", "BGMMA")


def _pair_value(lo: ValueSet, hi: ValueSet) -> ValueSet:
    """The 64-bit value of a register pair.  When only one half differs between paths the
    pairs are exact; when both do, which low half goes with which high half is not known, so
    the result is what every combination agrees on."""
    if not lo and not hi:
        return ()
    lo = lo or single(KnownBits.unknown(32))  # a half no path writes: unknown, not "no value"
    hi = hi or single(KnownBits.unknown(32))
    if len(lo) > 1 and len(hi) > 1:
        lo_kb, hi_kb = meet(lo), meet(hi)
        assert lo_kb is not None and hi_kb is not None
        origin = hi[0].origin if len({a.origin for a in hi}) == 1 else None
        assumes = next((a.assumes for a in (*lo, *hi) if a.assumes), None)
        return single(KnownBits.concat(lo_kb, hi_kb), origin, assumes)
    out = []
    for a in lo:
        for b in hi:
            out.append(Alternative(KnownBits.concat(a.bits, b.bits), b.origin or a.origin,
                                   a.assumes or b.assumes, False, a.skipped or b.skipped))
    return join(out)


def _operand(text: str, col: int, role: str, off: str | None, sets: list[ValueSet],
             memory: bool) -> Operand:
    vs = sets[0] if len(sets) == 1 else _pair_value(sets[0], sets[1])
    if off is not None and vs:
        o = _immediate(off.lstrip("-"))
        if o is None:
            vs = single(KnownBits.unknown(32))
        else:
            o = -o if off.startswith("-") else o
            vs = tuple(Alternative(a.bits + KnownBits.const(o, 32), a.origin, a.assumes,
                                   False, a.skipped) for a in vs)
    if not vs:  # written on no path that reaches here
        width = 64 if len(sets) == 2 else 32
        return Operand(text, col, KnownBits.unknown(width), None, memory)
    kb = meet(vs)
    origin = vs[0].origin if len({a.origin for a in vs}) == 1 else None
    assumes = next((a.assumes for a in vs if a.assumes), None)
    return Operand(text, col, kb, origin, memory, assumes if role == "gdesc" else None,
                   vs if len(vs) > 1 else ())


def _analyse(fn: _Function, arch: str | None, name: str | None,
             arch_reason: str | None = None, facts: bool = True) -> Iterator[Instruction | Fact]:
    """The facts (``facts``: the immediates, for ``dump``) and instructions of one function,
    in line order (its data flow is worked out first)."""
    checked = dict(_read_uses(fn))
    material = {i for i, kind in fn.special if kind & _MATERIAL} if facts else set()
    for i in sorted(set(checked) | material):
        ins = fn.ins(i)
        if i in material:
            yield from ins.facts(arch)
        got = checked.get(i)
        if got is None:
            continue
        site, uses = got
        yield _instruction(ins, site, uses, arch, name, arch_reason)


def _instruction(ins: _Ins, site: MmaSite | None, uses: list, arch: str | None,
                 name: str | None, arch_reason: str | None) -> Instruction:
    """The instruction with the values of the operands its site judges (``uses``: each
    operand's value set per register it reads)."""
    ops: list[Operand] = [Operand(t, c) for t, c in ins.ops]
    for k, text, role, off, sets in uses:
        if k == len(ops):  # a wgmma's B descriptor, named after the gdesc operand
            ops.append(_operand(text, ins.ops[k - 1][1] if k else ins.col, role, off, sets,
                                True))
            continue
        ops[k] = _operand(text, ins.ops[k][1], role, off, sets, _MEM.match(text) is not None)
    return Instruction("sass", ins.line, ins.col, ins.op, tuple(ops), ins.text, arch, name,
                       arch_reason=arch_reason, site=site)


def _arch_of(line: str, lineno: int, state: dict[str, object]) -> None:
    """Follow the header lines that name the target: ``code for sm_100a`` (cuobjdump),
    ``.target sm_100a``, ``arch = sm_100a`` (a fatbin's member), and ``.headerflags`` (whose
    ``EF_CUDA_ACCELERATORS`` flag marks an arch-specific ``a`` build; ``EF_CUDA_SM100`` names
    the number where no other line does, as in nvdisasm's listing)."""
    m = _ARCH.search(line)
    if m:
        name = m.group(1)
        if name == state.get("name") and "code for" in str(state.get("text", "")):
            return  # the ``.target`` line under ``code for`` repeats it
        state["name"], state["line"], state["text"] = name, lineno, " ".join(line.split())
        state["flags"] = None
        return
    if ".headerflags" in line:
        state["flags"] = line
        if state.get("name") is None:
            sm = re.search(r"EF_CUDA_SM(\d+)", line)
            if sm:
                state["name"], state["line"] = f"sm_{sm.group(1)}", lineno
                state["text"] = " ".join(line.split())


def _arch(state: dict[str, object]) -> tuple[str | None, str | None]:
    """The target and why: a name with ``a`` or ``f`` is taken as written; a bare ``sm_100``
    is an arch-specific build when ``.headerflags`` carries ``EF_CUDA_ACCELERATORS``, else a
    family-portable one (``sm_100f``: tcgen05 code cannot be built for plain ``sm_100``); a
    bare ``sm_90`` is sm_90a (no family target; wgmma needs sm_90a)."""
    name = state.get("name")
    if name is None:
        return None, None
    where = f"'{state['text']}' (line {state['line']})"
    name = str(name)
    if name[-1] in "af":
        return name, f"target {name} from {where}"
    flags = state.get("flags")
    if flags is not None and "EF_CUDA_ACCELERATORS" in str(flags):
        return name + "a", (f"target {name}a from {where} with EF_CUDA_ACCELERATORS in "
                            f".headerflags (an arch-specific build)")
    if name == "sm_90":
        # an old-format ELF (cuobjdump prints EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90), no flag for
        # the 'a'); Hopper has no family target, and its wgmma code exists for sm_90a only
        return "sm_90a", (f"target sm_90a from {where}: sm_90 has no family-portable 'f' "
                          "target (those begin with sm_100) and wgmma code is built for sm_90a "
                          "only; older ELFs carry no EF_CUDA_ACCELERATORS flag")
    return name + "f", (f"target {name}f from {where}: no arch-specific 'a' (no "
                        f"EF_CUDA_ACCELERATORS flag), so a family-portable build; tcgen05 "
                        f"code is built for sm_NNNa or sm_NNNf only")


#: What an instruction is to the reader (:class:`_Function`), by opcode: nothing special, a
#: branch (:func:`_control`), one of the instructions checked (:data:`_CHECKED`), one whose
#: immediates are facts for ``dump`` (:data:`_MATERIALISE`).
_PLAIN, _BRANCH_OP, _CHECKED_OP, _MATERIAL = 0, 1, 2, 4


@lru_cache(maxsize=4096)
def _kind(op: str) -> int:
    base = op.split(".", 1)[0]
    return ((_BRANCH_OP if base in _BRANCH else 0) | (_CHECKED_OP if op.startswith(_CHECKED)
                                                       else 0) |
            (_MATERIAL if base in _MATERIALISE else 0))


def _other(line: str) -> tuple[str, object] | None:
    """A line that is no instruction: ``("function", name)``, ``("header", line)`` (it names
    the target), ``("label", name)``, or ``None``."""
    stripped = line.strip()
    if not stripped or stripped.startswith("/*"):
        return None
    fm = SASS_FUNCTION.match(line)
    if fm:
        return "function", next(g for g in fm.groups() if g)
    if _ARCH.search(line) or ".headerflags" in line:
        return "header", line
    lm = _LABEL.match(line)
    if lm:
        return "label", lm.group(1)
    return None


def _items(lines: Iterable[str], first_line: int = 1) -> Iterator[tuple[str, object]]:
    """Each line's item, ``(kind, what)``: ``("ins", _Ins)`` or an item of :func:`_other`
    (``"header"`` items carry ``(line number, line)``)."""
    for lineno, line in enumerate(lines, first_line):
        if ";" in line:
            m = _LINE.match(line)
        elif line.lstrip()[:3] == "/* ":
            continue  # the second encoding word of a cuobjdump instruction (/* 0x... */)
        else:
            m = _LINE_BARE.match(line)
        if m is not None:
            yield "ins", _Ins.of(m, lineno)
            continue
        got = _other(line)
        if got is not None:
            yield (got[0], (lineno, line)) if got[0] == "header" else got


#: What an instruction writes and its kind, by its opcode and first operand as written (the
#: slice of the line from the opcode to the first operand's end): one answer per spelling,
#: kept across listings (bounded).
_WRITTEN: dict[str, tuple[tuple[str, ...], int]] = {}
_WRITTEN_MAX = 1 << 16


def read_sass(lines: Iterable[str], first_line: int = 1, *,
              facts: bool = True) -> Iterator[Instruction | Fact]:
    """Instructions (``UTC*``, ``LDTM``, ``STTM``, the wgmma opcodes) and, with ``facts``,
    facts (immediates) of a SASS listing, function by function (lines numbered from
    ``first_line``).  Each instruction carries the listing's target (``arch``) and why it was
    taken (``arch_reason``; see :func:`_arch`).

    Every line is matched once; what an instruction writes is worked out once per spelling of
    its opcode and first operand (:func:`_dests`); the rest of a line is read only when the
    data flow or a check needs it.

    (Long: every line of a listing passes through this loop, with the function's lists bound
    in locals; a helper per line would cost a call per line.)"""
    state: dict[str, object] = {}
    arch = reason = None
    fn = _Function()
    name: str | None = None
    cache = _WRITTEN
    if len(cache) > _WRITTEN_MAX:
        cache.clear()
    match, bare = _LINE.match, _LINE_BARE.match
    # the function being read; its lists bound here, for the bookkeeping of each instruction
    # in the loop (the hot path) -- rebound wherever a new function begins
    matches, numbers, dests, special, by_reg, wide = fn.parts()
    # the kinds of instruction listed (``special``): those that materialise constants only
    # when their facts are asked for
    listed = _BRANCH_OP | _CHECKED_OP | (_MATERIAL if facts else 0)
    i = 0  # the next instruction's index in the function (``len(matches)``)
    for lineno, line in enumerate(lines, first_line):
        if ";" in line:
            m = match(line)
            if m is not None:
                # the opcode and first operand as one slice of the line (the hot path: no
                # tuple to build and hash); the opcode ends at a space or ``;``, so the slice
                # says where one ends and the other begins
                key = line[m.start(3):m.end(5)]
                got = cache.get(key)
                if got is None:
                    op, first = m.group(3, 5)
                    got = _written(op, first)
                    if got is None:  # (their dests need every operand)
                        got = (tuple(_dests(_Ins.of(m, lineno))), _kind(op))
                    else:
                        cache[key] = got
        elif line.lstrip()[:3] == "/* ":
            continue  # the second encoding word of a cuobjdump instruction (/* 0x... */)
        else:
            m = bare(line)
            if m is not None:
                ins = _Ins.of(m, lineno)
                fn._ins[i] = ins
                got = (ins.dests, _kind(ins.op))
        if m is not None:
            matches.append(m)
            numbers.append(lineno)
            ds, kind = got
            dests.append(ds)
            if kind & listed:
                special.append((i, kind))
            if len(ds) > 2:
                wide.append(i)  # (an LDTM's vector: looked through only when asked, _ByReg)
            else:
                for d in ds:
                    by_reg[d].append(i)
            i += 1
            if i >= MAX_FUNCTION:
                yield from _analyse(fn, arch, name, reason, facts)
                yield Fact(lineno, 0, KnownBits.unknown(1), "split", name or "", "sass")
                fn = _Function()
                matches, numbers, dests, special, by_reg, wide = fn.parts()
                i = 0
            continue
        got_other = _other(line)
        if got_other is None:
            continue
        kind, item = got_other
        if kind == "header":
            _arch_of(line, lineno, state)
            target = _arch(state)
            if target[0] != arch and matches:
                # a fatbin's next member starts with its header lines (``arch = sm_100a``,
                # ``code for sm_100a``) before its first ``Function :``: what was read so far
                # is the previous member's code, on the previous target
                yield from _analyse(fn, arch, name, reason, facts)
                fn = _Function()
                matches, numbers, dests, special, by_reg, wide = fn.parts()
                i = 0
            arch, reason = target
        elif kind == "function":
            yield from _analyse(fn, arch, name, reason, facts)
            fn, name = _Function(), str(item)
            matches, numbers, dests, special, by_reg, wide = fn.parts()
            i = 0
        elif kind == "label":
            fn.labels[str(item)] = i
    yield from _analyse(fn, arch, name, reason, facts)


# ---------------------------------------------------------------------------- one line, live values

def register_word(name: str, value: int) -> int:
    """The 32-bit word a register holds, from its value as a debugger gives it: ``0 ..
    2**32 - 1``, or a negative value down to ``-2**31`` (a signed reading, two's complement).
    Raises :class:`~descriptors.errors.ParameterError` for anything else (never masked)."""
    if value.__class__ is not int or not -(1 << 31) <= value < (1 << 32):
        raise ParameterError(f"${name}: {shorten(value)} is no 32-bit register value "
                             f"(-2**31 .. 2**32-1)")
    return value & 0xFFFFFFFF


def read_live(text: str, values: Mapping[str, int | None], *,
              arch: str | None = None) -> Instruction | None:
    """One SASS instruction (a listing line, or cuda-gdb's ``x/i`` dialect without ``;``) with
    the values its registers hold (``values``: register name -> 32-bit value, ``None`` or
    absent for one that could not be read), as a debugger sees them at that instruction:
    the operands its site judges get those values (register pairs joined, low word first;
    ``tmem[UR4+0x10]`` offsets added), each with the origin ``(0, "$UR4")`` -- line 0: no
    listing line, the register's live value.  ``None`` for a line that is no tcgen05 or wgmma
    instruction.  Column numbers count in ``text`` as given (stripped).  Raises
    :class:`~descriptors.errors.ParameterError` for a value no 32-bit register holds
    (:func:`register_word`)."""
    body = text.strip().rstrip(";").strip()
    for kind, item in _items([f"{body} ;"]):
        if kind != "ins":
            continue
        ins: _Ins = item  # type: ignore[assignment]
        site, uses = _uses(ins)
        if site is None:
            return None

        def live(reg: str) -> ValueSet:
            if reg in ("RZ", "URZ"):
                return _ZERO_SET
            v = values.get(reg)
            return () if v is None else single(KnownBits.const(register_word(reg, v), 32),
                                               (0, f"${reg}"))
        return _instruction(ins, site, [(k, t, role, off, [live(r) for r in regs])
                                        for k, t, role, off, regs in uses], arch, None, None)
    return None


# ---------------------------------------------------------------------------- one line; wgmma

def instruction(line: str) -> tuple[str | None, str, tuple[str, ...]] | None:
    """``(guard, opcode, operand texts)`` of one SASS instruction line -- a listing's, or
    cuda-gdb's ``x/i`` dialect without spaces or ``;`` (``HGMMA.64x64x16.F32
    R24,gdesc[UR4],RZ,!UPT,gsb0``) -- read as :func:`read_sass` reads it; ``None`` for a
    line that is no instruction."""
    for kind, item in _items([line]):
        if kind == "ins":
            return item.pred, item.op, tuple(t for t, _c in item.ops)  # type: ignore[union-attr]
    return None



def wgmma_operands(ins: Instruction) -> tuple[tuple[WgmmaDescriptor, Operand], ...]:
    """The descriptors a wgmma instruction that :func:`read_sass` read takes, each with its
    operand: A's is the ``gdesc[URn]`` operand (the pair URn:URn+1, absent when A comes from
    registers), B's the operand the reader appends after the written ones (URn+2:URn+3, text
    ``gdesc[URn].B``).  What ``lint`` judges and ``dump`` names; ``()`` for another opcode."""
    descs = wgmma_descriptors(ins.opcode, [o.text for o in ins.operands])
    if not descs:
        return ()
    gdesc = [o for o in ins.operands if o.text.startswith("gdesc[") and o.value is not None]
    return tuple(zip(descs, gdesc[-len(descs):]))

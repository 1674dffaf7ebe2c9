"""What a SASS opcode is to the reader: its kind (a branch, an instruction checked, one whose
immediates are facts for ``dump``: :func:`opcode_kind`) and the registers an instruction
writes (:func:`registers_written`, :func:`written`): from its first operand, or its first
operand that is no predicate, as many as its spelling says (``.64`` two, ``.128`` four,
``LDTM.xN`` N, the groups of :data:`_WIDE_DESTS`)."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING

from ...errors import DescgenError
from ...isa.sass import (next_register as _pair, register_name as _reg_name, tmem_access,
                         wgmma_shape)
from .tokens import is_predicate

if TYPE_CHECKING:
    from .lex import Ins


#: Opcodes that move a constant into a register: every immediate they move is a fact (a
#: small one may be a Tensor Memory address an MMA reads); other opcodes' immediates are facts
#: from 0x10000 up.
MOVES_ANY = frozenset({"MOV", "UMOV", "MOV32I"})
#: Opcodes whose immediates are constants the code materialises (reported by ``dump``).
MATERIALISE = frozenset({"MOV", "UMOV", "MOV32I", "IMAD", "UIMAD", "IADD3", "UIADD3", "LOP3",
                         "ULOP3", "SHF", "USHF", "LEA", "ULEA", "SEL", "USEL"})


#: Branches: opcode bases that may jump to a target written in the operands.
BRANCH = ("BRA", "UBRA", "JMP", "BRX", "BRXU", "JMX", "JMXU", "CALL", "RET", "EXIT", "BPT",
          "KILL")


#: Opcodes yielded as instructions.
CHECKED = ("UTC", "LDTM", "STTM", "HGMMA", "IGMMA", "QGMMA", "BGMMA")


#: What an instruction is to the reader (:class:`Function`), by opcode: nothing special, a
#: branch (:func:`control`), one of the instructions checked (:data:`CHECKED`), one whose
#: immediates are facts for ``dump`` (:data:`MATERIALISE`).
PLAIN, BRANCH_OP, CHECKED_OP, MATERIAL = 0, 1, 2, 4


# per spelling: the SASS reader's caches pay together (bench_lint.py's cold lint_lines, 10
# production listings, CPU: 0.129 s with them, 0.150 s without; alone, each ~1.0x: bench_caches.py)
@lru_cache(maxsize=4096)
def opcode_kind(op: str) -> int:
    """The kind of an opcode: :data:`PLAIN`, or the sum of the kinds it is (kept per spelling)."""
    base = op.split(".", 1)[0]
    return ((BRANCH_OP if base in BRANCH else 0) | (CHECKED_OP if op.startswith(CHECKED) else 0)
            | (MATERIAL if base in MATERIALISE else 0))


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


def registers_written(ins: Ins) -> list[str]:
    """The registers an instruction writes (:func:`_opcode_facts`): from its first operand,
    or from its first operand that is no predicate (:data:`_PREDICATE_FIRST`)."""
    predicate_first, nothing, _kind_, count = _opcode_facts(ins.op)
    if nothing:
        return []
    first = ins.first()
    if first is None:
        return []
    if predicate_first:
        first = next((t for t, _ in ins.ops if not is_predicate(t)), "")
    return list(_written_to(first, count))


def written(op: str, first: str) -> tuple[tuple[str, ...], int] | None:
    """``(dests, kind)`` of an instruction from its opcode and first operand
    (:func:`registers_written` without the line: the same answer), or ``None`` for an opcode
    whose destination is not its first operand (a predicate first, :data:`_PREDICATE_FIRST`)."""
    predicate_first, nothing, kind, count = _opcode_facts(op)
    if predicate_first and is_predicate(first.strip()):
        return None
    if nothing:
        return (), kind
    return _written_to(first.strip(), count), kind


# per spelling: the SASS reader's caches pay together (bench_lint.py's cold lint_lines, 10
# production listings, CPU: 0.129 s with them, 0.150 s without; alone, each ~1.0x: bench_caches.py)
@lru_cache(maxsize=4096)
def _opcode_facts(op: str) -> tuple[bool, bool, int, int]:
    """What :func:`written` needs of an opcode, kept per spelling: whether it may write a
    predicate first (:data:`_PREDICATE_FIRST`), whether it writes no register
    (:data:`_NO_DEST`), its kind (:func:`opcode_kind`) and how many registers it writes
    (:func:`_dest_count`)."""
    return (op.startswith(_PREDICATE_FIRST),
            op.startswith(_NO_DEST) and not op.startswith(_DEST_ANYWAY), opcode_kind(op),
            _dest_count(op))


# per spelling: the SASS reader's caches pay together (bench_lint.py's cold lint_lines, 10
# production listings, CPU: 0.129 s with them, 0.150 s without; alone, each ~1.0x: bench_caches.py)
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
    "HGMMA": lambda q: _wgmma_accumulators("HGMMA", q),
    "IGMMA": lambda q: _wgmma_accumulators("IGMMA", q),
    "QGMMA": lambda q: _wgmma_accumulators("QGMMA", q),
    "BGMMA": lambda q: _wgmma_accumulators("BGMMA", q),
}


def _wgmma_accumulators(base: str, quals: list[str]) -> int:
    """Registers a ``HGMMA.64xNxK.<D type>...`` writes a thread: 128 -- every register a
    wgmma could name -- if the shape is not read or is no wgmma's
    (:func:`~descriptors.isa.sass.wgmma_shape`: ``HGMMA.64x20000000x16`` is not enumerated)."""
    mnk = wgmma_shape(".".join([base, *quals]))
    if mnk is None:
        return 128
    at = next(k for k, q in enumerate(quals) if _SHAPE.fullmatch(q))
    return mnk[1] // 4 if quals[at + 1:at + 2] == ["F16"] else mnk[1] // 2


_SHAPE = re.compile(r"[0-9]+x[0-9]+x[0-9]+")


#: Conversions whose destination type (their first type modifier) may be 64 bits wide.
_CONVERSIONS = frozenset({"F2F", "I2F", "F2I", "I2I", "FRND"})


# per spelling: the SASS reader's caches pay together (bench_lint.py's cold lint_lines, 10
# production listings, CPU: 0.129 s with them, 0.150 s without; alone, each ~1.0x: bench_caches.py)
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

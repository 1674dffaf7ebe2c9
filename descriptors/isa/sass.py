"""What SASS says of the tensor-core instructions: the opcodes nvcc 13.0 compiles each
``tcgen05`` and ``wgmma`` form to, what their suffixes and operands mean, and the operand
syntax (registers, register pairs, memory operands) those meanings are read from.

These are facts about the instruction set as compiled code shows it, observed by compiling
every form with nvcc 13.0 for sm_100a / sm_103a / sm_90a and reading the listings
(``cuobjdump -sass``, ``nvdisasm``); the SASS reader (:mod:`descriptors.readers.sass`) lexes
listings with them and :mod:`descriptors.isa.sites` says from them what one instruction means.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..structs import Struct

__all__ = ["REGISTER", "MEMORY_OPERAND", "register_name", "next_register",
           "SASS_MMA", "SASS_SCALE_VEC", "SASS_4X", "SASS_4X_SUFFIXES", "is_4x", "mma_kinds",
           "SASS_TMEM_SHAPES", "SASS_TMEM_REDUCTIONS", "SASS_CTA_GROUP", "TmemAccess",
           "tmem_access", "cta_group", "SASS_WGMMA", "SASS_WGMMA_ATYPES", "wgmma_shape",
           "WgmmaDescriptor", "wgmma_descriptors"]

#: A register operand: ``UR4``, ``R12.reuse``, ``-R3``, ``|R4|``, ``RZ`` (groups: a sign or
#: negation, ``R``/``UR``, the number or ``Z``).
REGISTER = re.compile(r"(-|~|!)?\|?(U?R)([0-9]{1,3}|Z)(?:\.(?:reuse|H0|H1|B[0-9]))*\|?\Z")
#: A memory operand: ``tmem[UR4]``, ``tmem[UR4+0x10]``, ``gdesc[UR6].A_KEEP``, or an immediate
#: address, ``tmem[0x1fe]`` (ptxas folds a constant Tensor Memory address; read as URZ + it).
#: Groups: the bracket's name (``gdesc``, ``idesc``, ``tmem``, ``desc`` or none), the register,
#: its offset, the immediate address.
MEMORY_OPERAND = re.compile(r"(gdesc|idesc|tmem|desc)?\[(?:(U?R[0-9]{1,3}|U?RZ)(?:\s*\+\s*(-?0x[0-9A-Fa-f]+|[0-9]+))?"
                            r"|(0x[0-9A-Fa-f]+))\]"
                            r"(?:\.[A-Za-z0-9_]{1,32}){0,4}\Z")


def register_name(text: str) -> str | None:
    """The register an operand names (``UR4`` of ``UR4.reuse``), ``None`` for another operand
    or a negated one; kept per spelling (a listing repeats a few thousand spellings)."""
    m = REGISTER.match(text)
    if not m or m.group(1):
        return None
    return m.group(2) + m.group(3)


def next_register(name: str, k: int = 1) -> str:
    """The register ``k`` after ``name`` (``UR4`` -> ``UR5``: the high word of a 64-bit pair,
    low word first); ``RZ``/``URZ`` stay themselves (a zero pair)."""
    if name.endswith("Z"):
        return name
    prefix = "UR" if name.startswith("UR") else "R"
    return f"{prefix}{int(name[len(prefix):]) + k}"


#: SASS MMA opcode -> candidate kinds (observed with nvcc 13.0 for sm_100a; the table above).
#: Block-scaled kinds carry a scale ``tmem[..]`` operand.
SASS_MMA: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # opcode: (kinds without block scaling, kinds with block scaling)
    "UTCHMMA": (("f16", "tf32"), ()),
    "UTCQMMA": (("f8f6f4",), ("mxf8f6f4",)),
    "UTCOMMA": ((), ("mxf4", "mxf4nvf4")),
    "UTCIMMA": (("i8",), ()),
}
#: Scale vector size of a block-scaled SASS MMA without the ``.4X`` suffix (observed).
SASS_SCALE_VEC = {"UTCQMMA": "1X", "UTCOMMA": "2X"}
#: SASS suffix ``.4X`` (scale_vec::4X) exists only for kind::mxf4nvf4.
SASS_4X = ("mxf4nvf4",)




#: The suffixes of scale_vec::4X (block16): ``.4X`` for sm_100a, ``.BLOCK16`` for sm_103a (the
#: same encoding, spelled by target; fixtures/sass-forms).
SASS_4X_SUFFIXES = frozenset({"4X", "BLOCK16"})


def is_4x(opcode: str) -> bool:
    """A block-scaled SASS MMA with scale_vec::4X (``UTCOMMA.4X``, ``UTCOMMA.2CTA.BLOCK16``)."""
    return not SASS_4X_SUFFIXES.isdisjoint(opcode.split(".")[1:])


#: ``LDTM``/``STTM`` shape suffix -> (tcgen05.ld/st ``.shape``, which half of ``.16x32bx2``):
#: no suffix is ``.32x32b``; ``.16x32bx2`` compiles to two instructions, threads 0-15 at
#: ``taddr`` and threads 16-31 at ``taddr + immHalfSplitoff`` (``tmem[URn+0x10]`` for 16).
#: Every form of 9.7.16.8.3-4 compiled by nvcc 13.0 for sm_100a/sm_103a (fixtures/sass-forms).
SASS_TMEM_SHAPES: dict[str, tuple[str, int | None]] = {
    "": ("32x32b", None),
    "16dp64bit": ("16x64b", None),
    "16dp128bit": ("16x128b", None),
    "16dp256bit": ("16x256b", None),
    "16dp32bit_t0_t15": ("16x32bx2", 0),
    "16dp32bit_t16_t31": ("16x32bx2", 1),
}
#: ``LDTM.STAT`` (tcgen05.ld.red) reduction suffix -> ``.redOp`` (and ``.abs``); the type suffix
#: ``.S32``/``.F32`` (none: ``.u32``) and ``.NAN`` follow it (fixtures/sass-forms).
SASS_TMEM_REDUCTIONS: dict[str, tuple[str, bool]] = {
    "MIN": ("min", False), "MAX": ("max", False), "MINABS": ("min", True), "MAXABS": ("max", True),
}
#: Opcodes whose ``.2CTA`` suffix shows ``.cta_group::2`` (absent: ``::1``).  ``UTCATOMSWS.AND``
#: (tcgen05.dealloc) and ``UVIRTCOUNT`` (relinquish_alloc_permit) read the same for both, so
#: they say nothing (fixtures/sass-forms).
SASS_CTA_GROUP = ("UTCHMMA", "UTCQMMA", "UTCOMMA", "UTCIMMA", "UTCBAR", "UTCCP", "UTCSHIFT",
                  "UTCATOMSWS.FIND_AND_SET", "UTCATOMSWS.2CTA.FIND_AND_SET")


class TmemAccess(Struct, frozen=True):
    """What an ``LDTM``/``STTM`` opcode says of its tcgen05.ld/st (9.7.16.8.3-4)."""

    op: str                  # "ld" or "st"
    shape: str               # PTX .shape: 32x32b, 16x64b, 16x128b, 16x256b, 16x32bx2
    num: int                 # .num (x1 .. x128)
    pack: bool               # ld .pack::16b (``.PACK16BIT``) / st .unpack::16b (``.EXPAND16BIT``)
    half: int | None         # .16x32bx2: 0 = threads 0-15, 1 = threads 16-31
    red: str | None = None   # tcgen05.ld.red .redOp (``LDTM.STAT``)
    red_type: str = "u32"
    abs: bool = False
    nan: bool = False

    @property
    def ptx(self) -> str:
        """The PTX form, e.g. ``tcgen05.ld.sync.aligned.16x64b.x4.pack::16b.b32``."""
        red = ".red" if self.red else ""
        pack = (".pack::16b" if self.op == "ld" else ".unpack::16b") if self.pack else ""
        tail = (f".{self.red}{'.abs' if self.abs else ''}{'.NaN' if self.nan else ''}"
                f".{self.red_type}") if self.red else f"{pack}.b32"
        return f"tcgen05.{self.op}{red}.sync.aligned.{self.shape}.x{self.num}{tail}"


#: ``.xN`` -> N for each ``.num`` (PTX 9.7.16.8.3), filled from the Tensor Memory facts.
_TMEM_NUMS: dict[str, int] = {}


def tmem_access(opcode: str) -> TmemAccess | None:
    """The tcgen05.ld/st an ``LDTM``/``STTM`` opcode is (:data:`SASS_TMEM_SHAPES`,
    :data:`SASS_TMEM_REDUCTIONS`, ``.xN`` a ``.num`` of :data:`descriptors.isa.tmem.NUMS`);
    ``None`` for another opcode or a suffix not seen in compiled code (not guessed:
    ``LDTM.x99999999`` too).  Kept per spelling (the answer is immutable)."""
    if not _TMEM_NUMS:
        from .tmem import NUMS
        _TMEM_NUMS.update((str(n), n) for n in NUMS)
    parts = opcode.split(".")
    if parts[0] not in ("LDTM", "STTM"):
        return None
    op = "ld" if parts[0] == "LDTM" else "st"
    shape, half = SASS_TMEM_SHAPES[""]
    num, pack, red, red_type, abs_, nan = 1, False, None, "u32", False, False
    for p in parts[1:]:
        if p in SASS_TMEM_SHAPES:
            shape, half = SASS_TMEM_SHAPES[p]
        elif p[:1] == "x" and p[1:] in _TMEM_NUMS:
            num = _TMEM_NUMS[p[1:]]
        elif p == ("PACK16BIT" if op == "ld" else "EXPAND16BIT"):
            pack = True
        elif p == "STAT" and op == "ld":
            red = red or "?"
        elif p in SASS_TMEM_REDUCTIONS and red:
            red, abs_ = SASS_TMEM_REDUCTIONS[p]
        elif p in ("S32", "F32") and red:
            red_type = p.lower()
        elif p == "NAN" and red:
            nan = True
        else:
            return None
    if red == "?":
        return None
    return TmemAccess(op, shape, num, pack, half, red, red_type, abs_, nan)


def cta_group(opcode: str) -> int | None:
    """The ``.cta_group`` a SASS tcgen05 opcode shows (:data:`SASS_CTA_GROUP`): 2 with
    ``.2CTA``, else 1; ``None`` for an opcode that does not show it."""
    if not opcode.startswith(SASS_CTA_GROUP):
        return None
    return 2 if ".2CTA" in opcode else 1


def mma_kinds(opcode: str, operands: Iterable[str]) -> tuple[tuple[str, ...], bool]:
    """The kinds a SASS MMA may be (from :data:`SASS_MMA`) and whether it is block-scaled: a
    ``tmem[..]`` operand after ``idesc[..]`` is the scale factors' address; ``.4X`` is
    kind::mxf4nvf4 only.  ``((), False)`` for an opcode that is no MMA."""
    parts = opcode.split(".")
    entry = SASS_MMA.get(parts[0])
    if entry is None:
        return (), False
    after_idesc = block_scale = False
    for text in operands:
        if text.startswith("idesc["):
            after_idesc = True
        elif after_idesc and text.startswith("tmem["):
            block_scale = True
    block_scale = block_scale and bool(entry[1])
    kinds = entry[1] if block_scale or not entry[0] else entry[0]
    if is_4x(opcode) and any(k in SASS_4X for k in kinds):
        kinds = tuple(k for k in kinds if k in SASS_4X)
    return kinds, bool(entry[1]) and (block_scale or not entry[0])


#: sm_90a warpgroup MMAs (``wgmma.mma_async``) in SASS -> the PTX input types they serve.
#: Observed with nvcc 13.0 and cuda-gdb 13.0 on an H100 (fixtures/gdb): ``gdesc[URn]`` names
#: four uniform registers, A's descriptor in URn:URn+1 (low:high) and B's in URn+2:URn+3; with
#: A from registers (``R24,R56,gdesc[UR4].tnspB``) URn:URn+1 are not read (0 in the
#: recordings); ``.tnspA``/``.tnspB`` on the operand mark an MN-major (transposed) A/B.
#: Each opcode's PTX ``.atype`` values; its type suffix names one (``HGMMA.64x64x8.F32.TF32``,
#: ``QGMMA.64x32x32.F16.E5M2.E4M3``), none the first (``HGMMA.64x64x16.F32``: .f16).
SASS_WGMMA_ATYPES: dict[str, tuple[str, ...]] = {
    "HGMMA": ("f16", "bf16", "tf32"), "IGMMA": ("s8", "u8"), "QGMMA": ("e4m3", "e5m2"),
    "BGMMA": ("b1",)}
SASS_WGMMA = {op: " or ".join(filter(None, (", ".join(t[:-1]), t[-1])))
              for op, t in SASS_WGMMA_ATYPES.items()}
#: The shape suffix of a SASS wgmma, ``64x128x16`` (M, N, K; at most 4 digits each: the
#: largest is 256).
_WGMMA_SHAPE = re.compile(r"([0-9]{1,4})x([0-9]{1,4})x([0-9]{1,4})")


def wgmma_shape(opcode: str) -> tuple[int, int, int] | None:
    """(M, N, K) of a SASS wgmma opcode (``HGMMA.64x128x16.F32`` -> (64, 128, 16)) when
    ``wgmma.mma_async`` has that shape for the opcode's ``.atype``
    (:data:`SASS_WGMMA_ATYPES`; ``.SP``: the sparse K) -- PTX ISA 9.7.15.5.2 and 9.7.15.6;
    ``None`` for another opcode, one with no shape suffix and one whose shape no wgmma has
    (``HGMMA.64x20000000x16``: not judged, never enumerated).  Kept per spelling."""
    from .instructions.wgmma import is_wgmma_shape
    base, *quals = opcode.split(".")
    atypes = SASS_WGMMA_ATYPES.get(base)
    if atypes is None:
        return None
    m = next((m for q in quals if (m := _WGMMA_SHAPE.fullmatch(q))), None)
    if m is None:
        return None
    shape = (int(m.group(1)), int(m.group(2)), int(m.group(3)))
    atype = next((t for t in atypes if t.upper() in quals), atypes[0])
    return shape if is_wgmma_shape(atype, *shape, sparse="SP" in quals) else None


class WgmmaDescriptor(Struct, frozen=True):
    """One descriptor a SASS wgmma reads: ``name`` (``a_desc``/``b_desc``), the operand as
    written, its register pair ``(low, high)`` and the operand's major-ness (``K``/``MN``)."""

    name: str
    text: str
    registers: tuple[str, str]
    major: str


def wgmma_descriptors(opcode: str, operands: Iterable[str]) -> tuple[WgmmaDescriptor, ...]:
    """The descriptors a ``HGMMA``/``IGMMA``/``QGMMA``/``BGMMA`` reads (:data:`SASS_WGMMA`);
    ``()`` for another opcode or one without a ``gdesc[..]`` operand."""
    if opcode.split(".", 1)[0] not in SASS_WGMMA:
        return ()
    texts = list(operands)
    at = next((k for k, t in enumerate(texts) if t.startswith("gdesc[")), None)
    m = MEMORY_OPERAND.match(texts[at].split("]", 1)[0] + "]") if at is not None else None
    if m is None or not m.group(2) or m.group(2).endswith("Z"):
        return ()
    base = m.group(2)
    quals = set(texts[at].split("]", 1)[1].split(".")[1:])  # type: ignore[index]
    a_in_registers = at >= 2 and register_name(texts[at - 1]) is not None
    out = []
    if not a_in_registers:
        out.append(WgmmaDescriptor("a_desc", texts[at], (base, next_register(base, 1) or base),  # type: ignore[index]
                                   "MN" if "tnspA" in quals else "K"))
    out.append(WgmmaDescriptor("b_desc", texts[at], (next_register(base, 2) or base, next_register(base, 3) or base),  # type: ignore[index]
                               "MN" if "tnspB" in quals else "K"))
    return tuple(out)

"""The models of ``tcgen05.mma`` (PTX 9.7.16.10.9: ``.sp``, ``.ws``, ``.ws.sp``), ``tcgen05.cp``
(9.7.16.9.2), ``tcgen05.commit`` (9.7.16.12.1) and ``tcgen05.alloc`` / ``tcgen05.dealloc`` /
``tcgen05.relinquish_alloc_permit`` (9.7.16.7.1).

The kinds and whether they are block-scaled come from :data:`descriptors.words.enums.KINDS`;
the rest is the syntax of the sections above, narrowed or widened where ptxas 13.0
(``-arch=sm_100a``) decides otherwise (``origin="ptxas"``; judged on every form of
``fixtures/tcgen05/tcgen05-forms.json.gz``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...rules.targets import ArchRequirement
from ...words.enums import KINDS
from .models import INT32, Constraint, Group, InstructionModel, OperandSpec

_MMA = "9.7.16.10.9.1"
_SRC = f"PTX {_MMA}"
_SRC_SP = "PTX 9.7.16.10.9.2"
_SRC_WS = "PTX 9.7.16.10.9.3"
_CP = "9.7.16.9.2"
_COMMIT = "9.7.16.12.1"
_ALLOC = "9.7.16.7.1"
_DESC64: tuple[str, ...] = ("b64", "u64", "s64")
_CTA = ("cta_group::1", "cta_group::2")

#: tcgen05's targets (the Target ISA Notes of every tcgen05 section).
TCGEN05_ARCH = ArchRequirement("sm_100a, sm_101a (sm_110a), or sm_100f/sm_110f or higher in the "
                               "family", "PTX 9.7.16 Target ISA Notes",
                               specific=("sm_100a", "sm_110a"), families=(100, 110))

#: ``.kind::*`` in Table 39's order, and the block-scaled ones (:data:`KINDS`).
MMA_KINDS: tuple[str, ...] = tuple(f"kind::{k}" for k in KINDS)
_PLAIN = tuple(f"kind::{k.name}" for k in KINDS.values() if not k.block_scaled)
_SCALED = tuple(f"kind::{k.name}" for k in KINDS.values() if k.block_scaled)
#: ``.scale_vectorsize`` values each block-scaled kind takes (ptxas 13.0; ``None``: absent, the
#: kind's default).  9.7.16.10.7.1 lists the same pairs.
SCALE_VECTORS: dict[str, tuple[str | None, ...]] = {
    "kind::mxf8f6f4": (None, "scale_vec::1X", "block32"),
    "kind::mxf4": (None, "scale_vec::2X", "block32"),
    "kind::mxf4nvf4": ("scale_vec::2X", "scale_vec::4X", "block16", "block32"),
}
_VECS = ("scale_vec::1X", "scale_vec::2X", "scale_vec::4X", "block16", "block32")
_OPS = ("fill", "use", "lastuse", "discard")
_COLLECT_A = tuple(f"collector::a::{o}" for o in _OPS)
_COLLECT_B = tuple(f"collector::b{n}::{o}" for n in range(4) for o in _OPS)


def _lanes(q: Mapping[str, str | None]) -> int | None:
    """disable-output-lane: one 32-bit mask per warp of the CTA(s): 4 (cta_group::1) or 8."""
    return {"cta_group::1": 4, "cta_group::2": 8}.get(q.get("cta_group") or "")


def _mma_facts(operands: list[str]) -> dict[str, str | None]:
    """``a_src``: A from Tensor Memory (``[a-tmem]``) or a descriptor; ``dol``: a
    disable-output-lane vector is given."""
    return {"a_src": "tmem" if len(operands) > 1 and operands[1].startswith("[") else "desc",
            "dol": "yes" if any(o.startswith("{") for o in operands) else None}


def _mma_constraints() -> tuple[Constraint, ...]:
    out = [
        Constraint("tcgen05.mma.ws", {"ws": ("ws",)}, {"cta_group": ("cta_group::1",)},
                   "tcgen05.mma.ws is cta_group::1 only", _SRC_WS),
        Constraint("tcgen05.mma.ws", {"ws": ("ws",)}, {"kind": _PLAIN},
                   "tcgen05.mma.ws has no block-scaled kind (.kind::f16, ::tf32, ::f8f6f4, ::i8)",
                   _SRC_WS),
        Constraint("tcgen05.mma.ws", {"ws": ("ws",)}, {"ashift": (None,)},
                   ".ashift belongs to tcgen05.mma without .ws", _SRC_WS),
        Constraint("tcgen05.mma.collector", {"ws": ("ws",)}, {"collector_usage": (None,) + _COLLECT_B},
                   "tcgen05.mma.ws fills the B collector buffers: .collector::b0..b3::op", _SRC_WS),
        Constraint("tcgen05.mma.collector", {"ws": (None,)}, {"collector_usage": (None,) + _COLLECT_A},
                   "tcgen05.mma without .ws has the A collector buffer only: .collector::a::op",
                   _SRC),
        Constraint("tcgen05.mma.block_scale", {"kind": _PLAIN},
                   {"block_scale": (None,), "scale_vectorsize": (None,)},
                   ".block_scale and .scale_vectorsize belong to .kind::mxf8f6f4, ::mxf4, ::mxf4nvf4",
                   _SRC),
        Constraint("tcgen05.mma.block_scale", {"kind": _SCALED}, {"block_scale": ("block_scale",)},
                   "a block-scaled kind needs .block_scale", _SRC),
        Constraint("tcgen05.mma.ashift", {"ashift": ("ashift",)}, {"kind": _PLAIN},
                   ".ashift has no block-scaled form", _SRC),
        Constraint("tcgen05.mma.ashift", {"ashift": ("ashift",)}, {"a_src": ("tmem",)},
                   ".ashift shifts A in Tensor Memory: A must be [a-tmem]", _SRC),
        Constraint("tcgen05.mma.ashift", {"ashift": ("ashift",)},
                   {"collector_usage": (None, "collector::a::lastuse", "collector::a::discard")},
                   ".ashift combines with .collector::a::lastuse or ::discard only (ptxas 13.0 "
                   "refuses ::fill and ::use; the text allows any)", _SRC, origin="ptxas"),
    ]
    for kind, vecs in SCALE_VECTORS.items():
        given = " ".join(f".{v}" for v in vecs if v)
        need = "" if None in vecs else " (required)"
        out.append(Constraint("tcgen05.mma.scale_vec", {"kind": (kind,)},
                              {"scale_vectorsize": vecs},
                              f".{kind} takes .scale_vectorsize {given}{need} (ptxas 13.0; "
                              "9.7.16.10.7.1)", "PTX 9.7.16.10.7.1", origin="ptxas"))
    return tuple(out)


_NOT_WS_BS = {"ws": (None,), "block_scale": (None,)}


def _mma_operands() -> tuple[OperandSpec, ...]:
    quirk = ("ptxas 13.0 assembles a trailing immediate or predicate after enable-input-d "
             "for .kind::i8, which the text does not write")
    return (
        OperandSpec("d-tmem", "address", f"{_SRC} (D in Tensor Memory, 32-bit address)"),
        OperandSpec("a-desc", "reg_or_imm", f"{_SRC} (A: shared memory descriptor, 64-bit; "
                    "ptxas 13.0 also takes an immediate)", bits=(64,), types=_DESC64,
                    when={"a_src": ("desc",)}, offset=True),
        OperandSpec("a-tmem", "address", f"{_SRC} (A in Tensor Memory)",
                    when={"a_src": ("tmem",)}),
        OperandSpec("b-desc", "reg_or_imm", f"{_SRC} (B: shared memory descriptor, 64-bit; "
                    "ptxas 13.0 also takes an immediate)", bits=(64,), types=_DESC64,
                    offset=True),
        OperandSpec("sp-meta-tmem", "address", f"{_SRC_SP} (sparsity metadata in Tensor Memory)",
                    when={"sp": ("sp",)}),
        OperandSpec("idesc", "reg_or_imm", f"{_SRC} (instruction descriptor, 32-bit; ptxas "
                    "13.0 also takes an immediate)", types=INT32),
        OperandSpec("scale-A-tmem", "address", f"{_SRC} (A scale factors in Tensor Memory)",
                    when={"block_scale": ("block_scale",)}),
        OperandSpec("scale-B-tmem", "address", f"{_SRC} (B scale factors in Tensor Memory)",
                    when={"block_scale": ("block_scale",)}),
        OperandSpec("disable-output-lane", "vector", f"{_SRC} (disable-output-lane: one 32-bit "
                    "lane mask per warp, 4 for cta_group::1, 8 for cta_group::2)",
                    when={"dol": ("yes",), **_NOT_WS_BS}),
        OperandSpec("enable-input-d", "predicate", f"{_SRC} (enable-input-d: D = A*B+D when "
                    "true, D = A*B when false)", types=("pred",)),
        OperandSpec("scale-input-d", "immediate", f"{_SRC} (scale-input-d: D = A*B + D * "
                    "2^-scale-input-d, 0..15, .kind::f16 and ::tf32 only)", optional=True,
                    values=tuple(range(16)),
                    when={"kind": ("kind::f16", "kind::tf32"), **_NOT_WS_BS}),
        OperandSpec("trailing", "lenient", quirk, optional=True, types=("pred",),
                    when={"kind": ("kind::i8",), "sp": (None,), **_NOT_WS_BS}),
        OperandSpec("trailing", "lenient", quirk, optional=True, types=("pred",),
                    when={"kind": ("kind::i8",), "sp": ("sp",), "dol": (None,), **_NOT_WS_BS}),
        OperandSpec("zero-column-mask-desc", "reg_or_imm", f"{_SRC_WS} (zero-column mask "
                    "descriptor, 64-bit; ptxas 13.0 also takes an immediate)", optional=True,
                    types=_DESC64, when={"ws": ("ws",)}),
    )


TCGEN05_MMA = InstructionModel(
    mnemonic="tcgen05.mma",
    section=_MMA,
    groups=(
        Group("ws", ("ws",), False, _SRC_WS, leading=True),
        Group("sp", ("sp",), False, _SRC_SP),
        Group("cta_group", _CTA, True, _SRC),
        Group("kind", MMA_KINDS, True, _SRC),
        Group("block_scale", ("block_scale",), False, _SRC),
        Group("scale_vectorsize", _VECS, False, _SRC),
        Group("ashift", ("ashift",), False, _SRC),
        Group("collector_usage", _COLLECT_A + _COLLECT_B, False, _SRC),
    ),
    constraints=_mma_constraints(),
    operands=_mma_operands(),
    vector=_lanes,
    vector_source=f"{_SRC} (disable-output-lane: 4 registers for cta_group::1, 8 for "
                  "cta_group::2)",
    register_types=lambda q: INT32 + ("f32", "f16x2"),
    arch=(({}, TCGEN05_ARCH),),
    operand_facts=_mma_facts,
    legal_note=False,
)


def _no_vector(source: str) -> dict[str, Any]:
    """What the models without a register vector share: 32-bit integer registers, the tcgen05
    targets, no per-line "legal form" note; ``source`` is the PTX section of the (absent)
    vector."""
    return {"vector": lambda q: None, "vector_source": source,
            "register_types": lambda q: INT32, "arch": (({}, TCGEN05_ARCH),),
            "legal_note": False}


_CP_SRC = f"PTX {_CP}"
_CP_SHAPES = ("128x256b", "4x256b", "128x128b", "64x128b", "32x128b")
_WARPX2 = ("warpx2::02_13", "warpx2::01_23")

TCGEN05_CP = InstructionModel(
    mnemonic="tcgen05.cp",
    section=_CP,
    groups=(
        Group("cta_group", _CTA, True, _CP_SRC),
        Group("shape", _CP_SHAPES, True, "PTX 9.7.16.2.3"),
        Group("multicast", _WARPX2 + ("warpx4",), False, _CP_SRC),
        Group("dst_fmt", ("b8x16",), False, "PTX 9.7.16.9.1"),
        Group("src_fmt", ("b6x16_p32", "b4x16_p64"), False, "PTX 9.7.16.9.1", after="dst_fmt"),
    ),
    constraints=(
        Constraint("tcgen05.cp.multicast", {"shape": ("64x128b",)}, {"multicast": _WARPX2},
                   ".64x128b needs .warpx2::02_13 or .warpx2::01_23", _CP_SRC),
        Constraint("tcgen05.cp.multicast", {"shape": ("32x128b",)}, {"multicast": ("warpx4",)},
                   ".32x128b needs .warpx4", _CP_SRC),
        Constraint("tcgen05.cp.multicast", {"shape": ("128x256b", "4x256b", "128x128b")},
                   {"multicast": (None,)},
                   ".multicast belongs to .64x128b (.warpx2::*) and .32x128b (.warpx4)", _CP_SRC),
        Constraint("tcgen05.cp.format", {"dst_fmt": ("b8x16",)},
                   {"src_fmt": ("b6x16_p32", "b4x16_p64")},
                   "decompression names both formats: .b8x16.b6x16_p32 or .b8x16.b4x16_p64",
                   "PTX 9.7.16.9.1"),
        Constraint("tcgen05.cp.format", {"src_fmt": ("b6x16_p32", "b4x16_p64")},
                   {"dst_fmt": ("b8x16",)},
                   "decompression names both formats: .b8x16.b6x16_p32 or .b8x16.b4x16_p64",
                   "PTX 9.7.16.9.1"),
    ),
    operands=(
        OperandSpec("taddr", "address", f"{_CP_SRC} (destination in Tensor Memory)"),
        OperandSpec("s-desc", "reg_or_imm", f"{_CP_SRC} (source: shared memory descriptor, "
                    "64-bit; ptxas 13.0 also takes an immediate)", bits=(64,), types=_DESC64,
                    offset=True),
    ),
    **_no_vector(_CP_SRC),
)

_COMMIT_SRC = f"PTX {_COMMIT}"
TCGEN05_COMMIT = InstructionModel(
    mnemonic="tcgen05.commit",
    section=_COMMIT,
    groups=(
        Group("cta_group", _CTA, True, _COMMIT_SRC),
        Group("completion_mechanism", ("mbarrier::arrive::one",), True, _COMMIT_SRC),
        Group("state_space", ("shared::cluster",), False, _COMMIT_SRC),
        Group("multicast", ("multicast::cluster",), False, _COMMIT_SRC),
        Group("type", ("b64",), True, _COMMIT_SRC),
    ),
    constraints=(),
    operands=(
        OperandSpec("mbar", "address", f"{_COMMIT_SRC} (the mbarrier object)", bits=(32, 64)),
        OperandSpec("ctaMask", "register", f"{_COMMIT_SRC} (16-bit mask of destination CTAs, "
                    ".multicast::cluster only)", bits=(16,), types=("b16", "u16", "s16"),
                    when={"multicast": ("multicast::cluster",)}),
    ),
    **_no_vector(_COMMIT_SRC),
)

_ALLOC_SRC = f"PTX {_ALLOC}"


def _alloc_columns() -> tuple[int, ...]:
    from ..tmem import ALLOC_MAX, ALLOC_MIN
    return tuple(1 << b for b in range(ALLOC_MIN.bit_length() - 1, ALLOC_MAX.bit_length()))


#: nCols of tcgen05.alloc: a power of two in [ALLOC_MIN, ALLOC_MAX] = [32, 512] (9.7.16.1.2,
#: 9.7.16.7.1; ptxas checks an immediate).
ALLOC_COLUMNS: tuple[int, ...] = _alloc_columns()


def _alloc_model(op: str) -> InstructionModel:
    groups = [Group("cta_group", _CTA, True, _ALLOC_SRC),
              Group("sync", ("sync",), True, _ALLOC_SRC),
              Group("aligned", ("aligned",), True, _ALLOC_SRC)]
    operands: tuple[OperandSpec, ...] = ()
    if op == "alloc":
        groups += [Group("state_space", ("shared::cta",), False, _ALLOC_SRC),
                   Group("type", ("b32",), True, _ALLOC_SRC)]
        operands = (
            OperandSpec("dst", "address", f"{_ALLOC_SRC} (shared memory word receiving the "
                        "Tensor Memory address)", bits=(32, 64)),
            OperandSpec("nCols", "reg_or_imm", f"{_ALLOC_SRC} (columns: a power of two, 32..512)",
                        types=INT32, values=ALLOC_COLUMNS))
    elif op == "dealloc":
        groups += [Group("type", ("b32",), True, _ALLOC_SRC)]
        operands = (
            OperandSpec("taddr", "reg_or_imm", f"{_ALLOC_SRC} (Tensor Memory address of the "
                        "allocation, 32-bit)", types=INT32),
            OperandSpec("nCols", "reg_or_imm", f"{_ALLOC_SRC} (columns: ptxas 13.0 checks "
                        "only that an immediate is a multiple of 32)", types=INT32,
                        values=range(0, 1 << 32, ALLOC_COLUMNS[0])))  # type: ignore[arg-type]
    return InstructionModel(
        mnemonic=f"tcgen05.{op}", section=_ALLOC, groups=tuple(groups), constraints=(),
        operands=operands, **_no_vector(_ALLOC_SRC))


TCGEN05_ALLOC = _alloc_model("alloc")
TCGEN05_DEALLOC = _alloc_model("dealloc")
TCGEN05_RELINQUISH = _alloc_model("relinquish_alloc_permit")

"""The model of ``stmatrix`` (PTX 9.7.14.5.16), as data."""

from __future__ import annotations

from ...rules.targets import ArchRequirement
from .models import REG32, Constraint, Group, InstructionModel, OperandSpec

_ST = "PTX 9.7.14.5.16"
#: Registers of the stmatrix vector per ``.num`` (9.7.14.5.16: "1, 2, or 4 32-bit registers as
#: per the value of .num"; ptxas also takes .x8/.x16 with one register, see PTXAS_VS_TEXT).
STMATRIX_REGISTERS: dict[str, int | tuple[int, ...]] = {"x1": 1, "x2": 2, "x4": 4,
                                                        "x8": (1, 2, 4), "x16": (1, 2, 4)}
_STMATRIX_TEXT_NUMS = ("x1", "x2", "x4")
_BLACKWELL_PLUS = ArchRequirement(
    "sm_100a, sm_101a (sm_110a), sm_120a, or sm_100f/sm_110f/sm_120f or higher in the family",
    f"{_ST} Target ISA Notes", specific=("sm_100a", "sm_110a", "sm_120a"),
    families=(100, 110, 120))

STMATRIX = InstructionModel(
    mnemonic="stmatrix",
    section="9.7.14.5.16",
    groups=(
        Group("sync", ("sync",), True, _ST),
        Group("aligned", ("aligned",), True, _ST),
        Group("shape", ("m8n8", "m16n8"), True, _ST),
        Group("num", ("x1", "x2", "x4", "x8", "x16"), True, _ST),
        Group("trans", ("trans",), False, _ST),
        Group("ss", ("shared", "shared::cta"), False, _ST),
        Group("type", ("b16", "b8"), True, _ST),
    ),
    constraints=(
        Constraint("stmatrix.num", {}, {"num": _STMATRIX_TEXT_NUMS},
                   ".num is .x1, .x2 or .x4 in the PTX syntax; ptxas 13.0 nevertheless "
                   "assembles .x8/.x16 (with a vector of 1, 2 or 4 registers)", _ST, "ptxas", "warning"),
        Constraint("stmatrix.shape_type", {"shape": ("m16n8",)}, {"type": ("b8",)},
                   ".m16n8 shape is valid only for .b8 type", _ST),
        Constraint("stmatrix.shape_type", {"shape": ("m8n8",)}, {"type": ("b16",)},
                   ".m8n8 takes .b16 only (the text is silent; ptxas: 'Incorrect instruction "
                   "type specified for stmatrix with shape .m8n8')", _ST, "ptxas"),
        Constraint("stmatrix.trans", {"shape": ("m16n8",)}, {"trans": ("trans",)},
                   "for 16x8 matrices, .trans is mandatory", _ST),
    ),
    operands=(
        OperandSpec("p", "address", f"{_ST} (Addresses as Operands)", bits=(32, 64)),
        OperandSpec("r", "vector", _ST, bare_when={"num": ("x8", "x16")}),
    ),
    vector=lambda q: STMATRIX_REGISTERS.get(q.get("num") or ""),
    vector_source=f"{_ST}: 1, 2 or 4 32-bit registers as per .num",
    register_types=lambda q: REG32,
    alignment=lambda q: 16,
    alignment_source=f"{_ST}: a group of four threads stores 16 bytes; the matrix addresses "
                     "must be naturally aligned accordingly",
    arch=(
        ({}, ArchRequirement("sm_90 or higher", f"{_ST} Target ISA Notes", min_number=90)),
        ({"shape": ("m16n8",)}, _BLACKWELL_PLUS),
        ({"type": ("b8",)}, _BLACKWELL_PLUS),
    ),
)

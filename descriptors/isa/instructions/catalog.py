"""The modelled instructions by mnemonic, and where ptxas and the PTX text disagree."""

from __future__ import annotations

from ...errors import shorten
from .models import InstructionError, InstructionModel
from .stmatrix import STMATRIX
from .tcgen05 import TCGEN05_LD, TCGEN05_ST
from .wgmma import WGMMA_MMA_ASYNC
from .wmma import WMMA_LOAD

#: The models by mnemonic.
MODELS: dict[str, InstructionModel] = {m.mnemonic: m for m in (STMATRIX, WMMA_LOAD, TCGEN05_LD,
                                                                TCGEN05_ST, WGMMA_MMA_ASYNC)}

#: Where ptxas 13.0 and the PTX text disagree (descgen follows ptxas); see the package docs.
PTXAS_VS_TEXT: tuple[str, ...] = (
    "qualifier order: any order assembles (wmma.load .a/.b/.c first, tcgen05.ld .red second)",
    "stmatrix .m8n8 with .b8: the text is silent, ptxas rejects it",
    "stmatrix .x8/.x16: not in the syntax, ptxas assembles them with 1, 2 or 4 registers",
    "tcgen05.ld/st without .aligned: mandatory in the text, ptxas assembles it",
    "wmma.load.c .m8n8k32/.m8n8k128 .f32: not in the syntax, ptxas assembles it",
    "register types: stmatrix/tcgen05 take any 32-bit type; wmma.load per WMMA_REGISTER_TYPES",
    "wgmma .sync without .aligned: the syntax writes .sync.aligned, ptxas assembles .sync alone",
    "wgmma scale-d: a predicate in the syntax, ptxas also takes the immediates 0 and 1",
    "wgmma d registers: .f32 accumulators in .b32 registers assemble too (WGMMA_D_TYPES); "
    "A from registers per WGMMA_A_TYPES",
    "wgmma qualifier order: any order assembles (the types keep theirs), but .popc must "
    "follow .and; .sync and .satfinite may be repeated",
    "wgmma a-desc/b-desc: ptxas also reads reg+imm (%da+8)",
)


def model_for(mnemonic: str) -> InstructionModel:
    """The model of ``mnemonic``; raises :class:`InstructionError` naming the known ones."""
    if mnemonic not in MODELS:
        raise InstructionError(f"unknown mnemonic {shorten(mnemonic)}: descgen models "
                               + ", ".join(MODELS))
    return MODELS[mnemonic]

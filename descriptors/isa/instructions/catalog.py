"""The modelled instructions by mnemonic, and where ptxas and the PTX text disagree."""

from __future__ import annotations

from ...errors import shorten
from .models import InstructionError, InstructionModel
from .stmatrix import STMATRIX
from .tcgen05 import TCGEN05_LD, TCGEN05_ST
from .tcgen05_mma import (TCGEN05_ALLOC, TCGEN05_COMMIT, TCGEN05_CP, TCGEN05_DEALLOC,
                          TCGEN05_MMA, TCGEN05_RELINQUISH)
from .wgmma import WGMMA_MMA_ASYNC
from .wmma import WMMA_LOAD

#: The models by mnemonic.
MODELS: dict[str, InstructionModel] = {m.mnemonic: m for m in (
    STMATRIX, WMMA_LOAD, TCGEN05_LD, TCGEN05_ST, WGMMA_MMA_ASYNC, TCGEN05_MMA, TCGEN05_CP,
    TCGEN05_COMMIT, TCGEN05_ALLOC, TCGEN05_DEALLOC, TCGEN05_RELINQUISH)}

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
    "tcgen05.mma .ashift: the text allows any .collector::a::op, ptxas only ::lastuse and "
    "::discard (and A from Tensor Memory)",
    "tcgen05.mma scale-input-d: ptxas refuses it for .kind::f8f6f4 (as the text says) but "
    "assembles a trailing immediate or predicate for .kind::i8 (warning)",
    "tcgen05.mma enable-input-d: a predicate in the syntax, ptxas also takes any immediate "
    "(warning); zero-column-mask-desc (.ws): a 64-bit register, ptxas also takes an immediate",
    "tcgen05.mma .scale_vectorsize: mxf8f6f4 .scale_vec::1X/.block32, mxf4 "
    ".scale_vec::2X/.block32 (both optional), mxf4nvf4 .scale_vec::2X/4X/.block16/.block32 "
    "(required)",
    "tcgen05.mma/cp/commit/alloc qualifier order: any order assembles, but .ws must follow "
    "mma and a decompression's .b8x16 come before its source format",
)


def model_for(mnemonic: str) -> InstructionModel:
    """The model of ``mnemonic``; raises :class:`InstructionError` naming the known ones."""
    if mnemonic not in MODELS:
        raise InstructionError(f"unknown mnemonic {shorten(mnemonic)}: descgen models "
                               + ", ".join(MODELS))
    return MODELS[mnemonic]

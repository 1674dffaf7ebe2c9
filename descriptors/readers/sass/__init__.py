"""SASS reader: ``cuobjdump -sass`` / ``nvdisasm`` listings (header lines and all), SASS pasted
into a log, cuda-gdb's ``x/i`` (no ``;``), as known-bits facts.

The reader, one module a job: :mod:`~descriptors.readers.sass.tokens` (an operand's spelling),
:mod:`~descriptors.readers.sass.arch` (the target from the header lines),
:mod:`~descriptors.readers.sass.opcodes` (what an opcode writes, its kind),
:mod:`~descriptors.readers.sass.lex` (the line lexer), :mod:`~descriptors.readers.sass.transfer`
(what an instruction computes), :mod:`~descriptors.readers.sass.cfg` (a function and its
control flow), :mod:`~descriptors.readers.sass.operands` (the judged operands and their
values), :mod:`~descriptors.readers.sass.read` (the driver, :func:`read_sass`),
:mod:`~descriptors.readers.sass.line` (one line: :func:`instruction`, :func:`read_live`,
:func:`wgmma_operands`).  The opcode tables are :mod:`descriptors.isa.sass`, the meaning of an
instruction :mod:`descriptors.isa.sites`, the solver :mod:`descriptors.readers.dataflow`.

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
of :mod:`~descriptors.readers.sass.opcodes`: ``CS2R``, ``FMUL2``, ``LDSM``, the wgmma
accumulators ...; a register written after a predicate, ``R2UR P1, UR14, R30``).  A shared
memory descriptor stepped in a K loop keeps its fields above the start address under the
K-step rule (:mod:`~descriptors.readers.sass.transfer`); the operand says so in ``assumes``.

The listing's target is read from its header lines (:mod:`~descriptors.readers.sass.arch`):
``code for sm_100a``, ``.target``, ``arch =``, and ``.headerflags`` (a bare ``sm_100`` without
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

from ...isa.sass import (SASS_4X, SASS_4X_SUFFIXES, SASS_CTA_GROUP, SASS_MMA, SASS_SCALE_VEC,
                         SASS_TMEM_REDUCTIONS, SASS_TMEM_SHAPES, SASS_WGMMA, TmemAccess,
                         WgmmaDescriptor, cta_group, is_4x, mma_kinds, tmem_access,
                         wgmma_descriptors)
from .line import instruction, read_live, register_word, wgmma_operands
from .read import read_sass

__all__ = ["read_sass", "SASS_MMA", "SASS_SCALE_VEC", "SASS_4X", "SASS_4X_SUFFIXES", "mma_kinds",
           "is_4x", "SASS_TMEM_SHAPES", "SASS_TMEM_REDUCTIONS", "SASS_CTA_GROUP", "TmemAccess",
           "tmem_access", "cta_group", "instruction", "SASS_WGMMA", "WgmmaDescriptor",
           "wgmma_descriptors", "wgmma_operands", "read_live", "register_word"]

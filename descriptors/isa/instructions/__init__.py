"""Instruction models of the matrix instructions, declared once as data.

One :class:`InstructionModel` per PTX section -- ``stmatrix`` (9.7.14.5.16), ``wmma.load``
(9.7.14.4.3), ``tcgen05.ld`` (9.7.16.8.3), ``tcgen05.st`` (9.7.16.8.4) and
``wgmma.mma_async`` (9.7.15.5.2, sparse ``.sp`` 9.7.15.6) -- holds:

* the qualifier groups (:class:`Group`: the values of ``.shape``, ``.num`` ..., required or
  optional, the section that lists them);
* which combinations are legal (:class:`Constraint`: "when these qualifiers, only these");
* the operand list per combination (:class:`OperandSpec`, present under conditions);
* the register vector size per combination (stmatrix: ``.num``; wmma.load:
  :data:`WMMA_FRAGMENT_REGISTERS`; tcgen05.ld/st: :func:`descriptors.isa.tmem.registers`, Tables
  49/50 -- derived, not copied) and the register types the vector takes;
* target-architecture requirements (:class:`~descriptors.rules.targets.ArchRequirement`;
  tcgen05.ld.red's is ``descriptors.isa.tmem.RED_REQUIREMENT``);
* value rules (:data:`VALUE_RULES`): address alignment (stmatrix rows 16 bytes, 9.7.14.5.16;
  wmma.load the fragment size, 9.7.14.4.2), wmma strides (9.7.14.4.2) and a constant tcgen05
  ``taddr``'s footprint -- checked when the values are known (``constants``).

:func:`check_instruction` takes one PTX instruction line (text) and returns findings
(:class:`~descriptors.rules.validate.Finding`: severity, rule id, message, source); every rule cites
its PTX section or table.  Lines are parsed by :func:`parse_instruction`, a small parser for one
statement (label, predicate guard, qualifiers, operands; comments and ``;`` stripped);
:func:`check_parsed` consumes the :class:`ParsedInstruction`.  ``descgen lint``
(:mod:`descriptors.tools.lint`) runs the same check on every modelled line its PTX reader yields,
with the function's ``.reg`` declarations and the constants its data flow finds.

``tcgen05.mma`` (9.7.16.10.9; ``.sp``, ``.ws``, every kind, ``.block_scale`` with
``.scale_vectorsize``, ``.ashift``, collector usage, A from a descriptor or ``[a-tmem]``),
``tcgen05.cp`` (9.7.16.9.2), ``tcgen05.commit`` (9.7.16.12.1) and ``tcgen05.alloc`` /
``dealloc`` / ``relinquish_alloc_permit`` (9.7.16.7.1) are modelled in :mod:`.tcgen05_mma`
and judged against ptxas 13.0 on the 60,280 forms of ``fixtures/tcgen05/tcgen05-forms.json.gz``
(``tests/oracles/test_tcgen05_mma_ptxas.py``); :mod:`.forms` explains a legal line of them
(``descgen explain``).

The package's modules, one job each: :mod:`.models` (the model types), one module of data per
instruction family (:mod:`.stmatrix`, :mod:`.wmma`, :mod:`.tcgen05`, :mod:`.wgmma`,
:mod:`.tcgen05_mma`),
:mod:`.catalog` (:data:`MODELS`, :data:`PTXAS_VS_TEXT`), :mod:`.parse` (the statement and
``.reg`` parsers) and :mod:`.check` (the checker).  Every public name is importable from the
package itself.

What decides legality: ptxas (CUDA 13.0, ``-arch=sm_100a``; sm_103a for ``.red``) is the
judge; ``tests/oracles/test_instructions_ptxas.py`` assembles generated forms (a fixed sample by
default, all 44,018 with ``-m ptxas_full``) and requires the same verdict from
:func:`check_instruction` and from ``descgen lint`` -- on every rule but the value rules,
which ptxas does not check.
Where ptxas and the PTX text disagree, descgen follows ptxas and says so
(:data:`PTXAS_VS_TEXT`, and ``origin="ptxas"`` on the constraints concerned):

* qualifier order: the syntax writes one order; ptxas accepts the qualifiers in any order
  (``stmatrix.sync.aligned.x1.m8n8...``, ``wmma.load.a.sync.aligned.m16n16k16.row...``),
  except that wmma.load's ``.a``/``.b``/``.c`` must come first and tcgen05.ld's ``.red``
  right after ``ld`` (they are part of the opcode).  descgen accepts the same and adds a note
  naming the canonical order.
* stmatrix ``.m8n8`` takes ``.b16`` only: the text says ``.m16n8`` is valid only for ``.b8``
  and is silent about ``.m8n8.b8``; ptxas rejects it ("Incorrect instruction type").
* stmatrix ``.x8`` and ``.x16``: not in the syntax (``.num = {.x1, .x2, .x4}``), yet ptxas 13.0
  assembles them with a vector of 1, 2 or 4 registers, even with a bare register (it rejects
  8 or 16 registers: "Illegal vector size").  descgen reports a warning, not an error.
* tcgen05.ld/st without ``.aligned``: the text calls it mandatory; ptxas assembles the form
  (it does require ``.sync``).  descgen warns.
* wmma.load ``.c`` with ``.f32`` for ``.m8n8k32``/``.m8n8k128``: the syntax gives ``.s32``
  only; ptxas assembles ``.f32`` too (two registers).  descgen warns.
* register types: the text says "32-bit registers"; ptxas takes .b32, .u32, .s32, .f32 and
  .f16x2 in the vectors of stmatrix and tcgen05.ld/st.  wmma.load is stricter and irregular
  (:data:`WMMA_REGISTER_TYPES`: .f16 fragments .b32/.f16x2, .bf16 and .tf32 .b32 only, .f32
  .b32/.f32, .f64 .f64/.b64, 8-bit and .s32 integer types, sub-byte and single-bit any
  32-bit type); its ``stride`` is a 32-bit integer register or an immediate.
* addresses: ``[reg]``, ``[reg+imm]`` (``[reg-imm]`` is a ptxas syntax error; write
  ``[reg+-imm]``); an immediate address is refused for all four instructions ("Immediate
  addresses allowed only for .local state space"); stmatrix and wmma.load take a 32- or
  64-bit integer register, tcgen05.ld/st's ``taddr`` a 32-bit one.

Alignment of constant addresses (rows of stmatrix 16-byte aligned, 9.7.14.5.16) is not
something ptxas checks (``[%rd0+3]`` assembles); descgen warns when an offset makes the
address misaligned for an aligned base.

wgmma.mma_async (sm_90a only) is built from :data:`WGMMA_FAMILIES`, one entry per syntax
block: the A/B types, the accumulator types, K (doubled by ``.sp``), the N the text lists
(8..256 step 8; for s8/u8 and b1 8, 16, 24, then 32..256 step 16), the immediates after
scale-d and the sparsity selector values.  Its shape, type, ``.satfinite``, ``.sp`` and
``.and.popc`` constraints are derived from that table; the register counts by rule (d: M x N
/ 128 elements per thread in 32-bit registers, i.e. N/2, or N/4 for ``.f16``; A from
registers: M x K / 128 elements, K/2 for ``.sp``, i.e. four registers).  The three type
qualifiers ``.dtype.atype.btype`` share names: a value fills the first of its groups still
empty (:func:`resolve`).  Whether A comes from registers or a descriptor is read from the
operand (:attr:`InstructionModel.operand_facts`, ``a_src``), and decides whether imm-trans-a
is present.  Judge: ptxas 13.0 ``-arch=sm_90a`` on the 3,232 committed forms of
``fixtures/hopper/wgmma-forms.json.gz`` (``tests/oracles/test_wgmma_ptxas.py``: all agree, a sample by
default, every form with ``-m ptxas_full``), plus forms assembled while writing the model
(register types, qualifier order).  Where ptxas and the text differ (the last entries of
:data:`PTXAS_VS_TEXT`):

* ``.sync`` without ``.aligned`` assembles (warning); ``.sync`` and ``.satfinite`` may be
  repeated (warning; ``.aligned``, ``.sp`` or the shape twice are refused).
* qualifiers in any order, except that ``.popc`` must follow ``.and``.
* scale-d: the syntax's predicate (``p``, ``!p``), and also the immediates 0 and 1 (warning);
  a 32-bit register is refused.
* register types: d takes .f32/.b32 (``.f32`` accumulator), .f16x2/.b32 (``.f16``), .b32/.u32/
  .s32 (``.s32``); A from registers .b32/.f16x2 for the floating-point types, any 32-bit type
  for s8/u8/b1 (:data:`WGMMA_D_TYPES`, :data:`WGMMA_A_TYPES`); descriptors .b64/.u64/.s64,
  also written ``%da+8``; sp-meta any 32-bit type; sp-sel and the immediates are immediates.
* the sparsity selector: 0 or 1 for f16/bf16/tf32, 0 for e4m3/e5m2/s8/u8, never a register
  (ptxas 13.0, the fixture's sp-sel forms).  imm-trans-a/b on other types, and imm-trans-a
  with A from registers, are an operand-count error ("Arguments mismatch").
"""

from ...rules.targets import ArchRequirement, Target, parse_target
from .models import (INT32, REG32, REG32_DEFAULT, REG64, Constraint, Group, InstructionError,
                     InstructionModel, OperandSpec, Qualifiers)
from .stmatrix import STMATRIX, STMATRIX_REGISTERS
from .wmma import (WMMA_FRAGMENT_REGISTERS, WMMA_FRAGMENTS, WMMA_INT_REGISTERS, WMMA_LOAD,
                   WMMA_PTXAS_ONLY, WMMA_REGISTER_TYPES, WmmaFamily)
from .tcgen05 import TCGEN05_LD, TCGEN05_ST
from .tcgen05_mma import (ALLOC_COLUMNS, MMA_KINDS, SCALE_VECTORS, TCGEN05_ALLOC, TCGEN05_COMMIT,
                          TCGEN05_CP, TCGEN05_DEALLOC, TCGEN05_MMA, TCGEN05_RELINQUISH)
from .wgmma import (WGMMA_A_TYPES, WGMMA_D_TYPES, WGMMA_FAMILIES, WGMMA_FLOAT_N, WGMMA_INT_N,
                    WGMMA_MMA_ASYNC, WgmmaFamily)
from .catalog import MODELS, PTXAS_VS_TEXT, model_for
from .parse import (MAX_LINE, MAX_VECTOR, ParsedInstruction, RegisterDecls, parse_instruction,
                    parse_registers)
from .check import (MODEL_ARCH, VALUE_RULES, check_instruction, check_parsed, legal_form,
                    present_operands, resolve, vector_size, vector_sizes)

__all__ = [
    "InstructionError", "Group", "Constraint", "OperandSpec", "ArchRequirement",
    "InstructionModel", "ParsedInstruction", "Qualifiers", "MODELS", "WMMA_FRAGMENTS",
    "WGMMA_FAMILIES", "WGMMA_D_TYPES", "WGMMA_A_TYPES", "WgmmaFamily", "MODEL_ARCH",
    "WMMA_FRAGMENT_REGISTERS", "PTXAS_VS_TEXT", "MAX_LINE", "MAX_VECTOR", "parse_instruction",
    "parse_registers", "RegisterDecls", "check_instruction", "check_parsed", "legal_form",
    "model_for", "resolve", "vector_size", "vector_sizes", "VALUE_RULES", "Target", "parse_target", "TCGEN05_MMA",
    "TCGEN05_CP", "TCGEN05_COMMIT", "TCGEN05_ALLOC", "TCGEN05_DEALLOC", "TCGEN05_RELINQUISH",
    "MMA_KINDS", "SCALE_VECTORS", "ALLOC_COLUMNS",
]


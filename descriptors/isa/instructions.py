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

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cached_property
from typing import Any

from ..structs import Struct, field
from ..errors import ParameterError, shorten, shorten_text
from ..words.literals import MAX_LINE, parse_immediate, split_operands
from ..rules.targets import ArchRequirement, Target, parse_target
from ..rules.validate import SEVERITIES, Finding

__all__ = [
    "InstructionError", "Group", "Constraint", "OperandSpec", "ArchRequirement",
    "InstructionModel", "ParsedInstruction", "Qualifiers", "MODELS", "WMMA_FRAGMENTS",
    "WGMMA_FAMILIES", "WGMMA_D_TYPES", "WGMMA_A_TYPES", "WgmmaFamily", "MODEL_ARCH",
    "WMMA_FRAGMENT_REGISTERS", "PTXAS_VS_TEXT", "MAX_LINE", "MAX_VECTOR", "parse_instruction",
    "parse_registers", "RegisterDecls", "check_instruction", "check_parsed", "model_for", "resolve",
    "vector_size", "vector_sizes", "VALUE_RULES", "Target", "parse_target",
]

#: Longest register vector read; PTX's longest is 128 (tcgen05 .x128).
MAX_VECTOR = 256


class InstructionError(ParameterError):
    """An instruction line that cannot be read: empty, truncated, an unknown mnemonic, junk."""


# ====================================================================== model data types

#: 32-bit register types ptxas accepts where the text says "32-bit register".
REG32_DEFAULT: tuple[str, ...] = ("b32", "u32", "s32", "f32", "f16x2")


class Group(Struct, frozen=True):
    """A qualifier group: ``name`` (PTX's, e.g. ``shape``), its ``values`` (without the dot),
    whether the syntax ``required`` it, and the ``source`` section listing it."""

    name: str
    values: tuple[str, ...]
    required: bool
    source: str
    leading: bool = False  # must come first, right after the mnemonic (wmma.load's .a/.b/.c)
    missing: str = "error"  # severity when a required group is missing ("warning": ptxas
    # accepts the form without it, see PTXAS_VS_TEXT)
    repeat: str = "error"  # severity when the group is given twice ("warning": ptxas accepts
    # the repetition, wgmma's .sync and .satfinite)
    after: str | None = None  # a group this one must follow when both are given (wgmma's
    # .popc after .and)


class Constraint(Struct, frozen=True):
    """"When the qualifiers match ``when``, group g must take one of ``then[g]``".

    Both map a group name to a tuple of values; ``None`` in a tuple stands for "absent".
    ``origin`` is ``"text"`` (the PTX text says it) or ``"ptxas"`` (the text is silent or
    disagrees, and ptxas decides; :data:`PTXAS_VS_TEXT`).  ``severity`` is ``"error"`` unless
    ptxas accepts what the text forbids (then ``"warning"``).
    """

    id: str
    when: Mapping[str, tuple[str | None, ...]]
    then: Mapping[str, tuple[str | None, ...]]
    message: str
    source: str
    origin: str = "text"
    severity: str = "error"

    def applies(self, q: Mapping[str, str | None]) -> bool:
        return all(q.get(g) in vals for g, vals in self.when.items())

    def broken(self, q: Mapping[str, str | None]) -> list[str]:
        """The groups whose value ``then`` does not allow."""
        return [g for g, vals in self.then.items() if q.get(g) not in vals]


class OperandSpec(Struct, frozen=True):
    """One operand: ``name`` (PTX's), ``kind`` (``vector``, ``address``, ``register``,
    ``immediate``, ``reg_or_imm``, ``predicate``: a ``.pred`` register, ``!`` allowed, or an
    immediate in ``values``), ``bits`` (register width where it matters), present when
    ``when`` matches (empty: always; it may name the operand facts of
    :attr:`InstructionModel.operand_facts`), ``optional`` (may be left out)."""

    name: str
    kind: str
    source: str
    bits: tuple[int, ...] = (32,)
    when: Mapping[str, tuple[str | None, ...]] = field(default_factory=dict)
    optional: bool = False
    types: tuple[str, ...] = REG32_DEFAULT
    bare_when: Mapping[str, tuple[str | None, ...]] | None = None  # a vector that ptxas also
    # takes as a bare register under these qualifiers (stmatrix .x8/.x16)
    size: Callable[[Mapping[str, str | None]], int | None] | None = None  # this vector's own
    # register count (default: the model's ``vector``)
    reg_types: Callable[[Mapping[str, str | None]], tuple[str, ...]] | None = None  # this
    # vector's element types (default: the model's ``register_types``)
    values: tuple[int, ...] | None = None  # the values an immediate (or the immediate form of
    # a ``predicate``) may take
    offset: bool = False  # a ``register`` that ptxas also takes as ``reg+imm``

    def present(self, q: Mapping[str, str | None]) -> bool:
        return all(q.get(g) in vals for g, vals in self.when.items())


Qualifiers = dict[str, "str | None"]


class InstructionModel(Struct, frozen=True, dict=True):  # (dict: cached_property)
    """Everything descgen knows about one instruction, as data.

    ``mnemonic`` (``stmatrix``, ``wmma.load``, ``tcgen05.ld``, ``tcgen05.st``), ``section``,
    ``groups`` in the syntax's order, ``constraints``, ``operands`` in order, ``vector`` (a
    function of the qualifiers giving the register count, or ``None`` when undefined),
    ``register_types`` (the vector's allowed register types per qualifiers), ``arch`` (list of
    (when, requirement) pairs; every matching requirement must hold) and ``vector_source``.
    """

    mnemonic: str
    section: str
    groups: tuple[Group, ...]
    constraints: tuple[Constraint, ...]
    operands: tuple[OperandSpec, ...]
    vector: Callable[[Mapping[str, str | None]], int | tuple[int, ...] | None]
    vector_source: str
    register_types: Callable[[Mapping[str, str | None]], tuple[str, ...]]
    arch: tuple[tuple[Mapping[str, tuple[str | None, ...]], ArchRequirement], ...]
    alignment: Callable[[Mapping[str, str | None]], int | None] = lambda q: None
    alignment_source: str = ""
    stride: Callable[[Mapping[str, str | None]], tuple[int, int, int] | None] = lambda q: None
    default_arch: str = "sm_100a"  # the target check_instruction judges for by default
    operand_facts: Callable[[list[str]], dict[str, str]] | None = None  # pseudo-qualifiers
    # read from the operand texts (wgmma: ``a_src`` = ``desc`` or ``reg``)

    @cached_property
    def by_value(self) -> dict[str, Group]:
        return {v: g for g in self.groups for v in g.values}

    @cached_property
    def groups_by_value(self) -> dict[str, tuple[Group, ...]]:
        """Every group listing a value, in syntax order (wgmma's ``.dtype.atype.btype`` share
        type names: a value fills the first of its groups still empty)."""
        out: dict[str, tuple[Group, ...]] = {}
        for g in self.groups:
            for v in g.values:
                out[v] = out.get(v, ()) + (g,)
        return out

    def group(self, name: str) -> Group:
        return next(g for g in self.groups if g.name == name)


# ====================================================================== register types

#: The same, by its short name.
REG32: tuple[str, ...] = REG32_DEFAULT
#: 32-bit integer register types (wmma.load's stride).
INT32: tuple[str, ...] = ("b32", "u32", "s32")
#: 64-bit register types.
REG64: tuple[str, ...] = ("b64", "u64", "s64", "f64")
_REG_BITS = {t: int(t[1:]) for t in ("b8", "b16", "b32", "b64", "u8", "u16", "u32", "u64",
                                      "s8", "s16", "s32", "s64", "f16", "f32", "f64")}
_REG_BITS.update({"f16x2": 32, "pred": 1})

# ====================================================================== stmatrix (9.7.14.5.16)

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

# ====================================================================== wmma.load (9.7.14.4.3)

_WL = "PTX 9.7.14.4.3"
_WFRAG = "PTX 9.7.14.4.1 (Matrix Fragments for WMMA; confirmed by ptxas 13.0)"


class WmmaFamily(Struct, frozen=True):
    """One syntax block of 9.7.14.4.3: its shapes, the types of a/b/c, the layouts a and b
    allow, the fragment registers per (matrix, shape, type), the register type and the
    target requirement."""

    name: str
    shapes: tuple[str, ...]
    types: Mapping[str, tuple[str, ...]]
    layouts: Mapping[str, tuple[str, ...]]
    min_sm: int
    registers: Mapping[tuple[str, str, str], int]
    element_bits: Mapping[str, int]


_ROWCOL = ("row", "col")
#: The six syntax blocks of 9.7.14.4.3 with their fragment sizes (registers per thread, PTX
#: 9.7.14.4.1 "Matrix Fragments for WMMA": e.g. f16 a of m16n16k16 is eight .f16x2 registers).
WMMA_FRAGMENTS: tuple[WmmaFamily, ...] = (
    WmmaFamily("f16 and integer", ("m16n16k16", "m8n32k16", "m32n8k16"),
               {"a": ("f16", "s8", "u8"), "b": ("f16", "s8", "u8"), "c": ("f16", "f32", "s32")},
               {"a": _ROWCOL, "b": _ROWCOL, "c": _ROWCOL}, 70,
               {**{(m, s, "f16"): 8 for m in "ab" for s in ("m16n16k16", "m8n32k16", "m32n8k16")},
                **{("c", s, "f16"): 4 for s in ("m16n16k16", "m8n32k16", "m32n8k16")},
                **{("c", s, t): 8 for s in ("m16n16k16", "m8n32k16", "m32n8k16")
                   for t in ("f32", "s32")},
                **{("a", "m16n16k16", t): 2 for t in ("s8", "u8")},
                **{("b", "m16n16k16", t): 2 for t in ("s8", "u8")},
                **{("a", "m8n32k16", t): 1 for t in ("s8", "u8")},
                **{("b", "m8n32k16", t): 4 for t in ("s8", "u8")},
                **{("a", "m32n8k16", t): 4 for t in ("s8", "u8")},
                **{("b", "m32n8k16", t): 1 for t in ("s8", "u8")}},
               {"f16": 16, "s8": 8, "u8": 8, "f32": 32, "s32": 32}),
    WmmaFamily("bf16", ("m16n16k16", "m8n32k16", "m32n8k16"),
               {"a": ("bf16",), "b": ("bf16",), "c": ("f32",)},
               {"a": _ROWCOL, "b": _ROWCOL, "c": _ROWCOL}, 80,
               {("a", "m16n16k16", "bf16"): 4, ("b", "m16n16k16", "bf16"): 4,
                ("a", "m8n32k16", "bf16"): 2, ("b", "m8n32k16", "bf16"): 8,
                ("a", "m32n8k16", "bf16"): 8, ("b", "m32n8k16", "bf16"): 2,
                **{("c", s, "f32"): 8 for s in ("m16n16k16", "m8n32k16", "m32n8k16")}},
               {"bf16": 16, "f32": 32}),
    WmmaFamily("tf32", ("m16n16k8",), {"a": ("tf32",), "b": ("tf32",), "c": ("f32",)},
               {"a": _ROWCOL, "b": _ROWCOL, "c": _ROWCOL}, 80,
               {("a", "m16n16k8", "tf32"): 4, ("b", "m16n16k8", "tf32"): 4,
                ("c", "m16n16k8", "f32"): 8},
               {"tf32": 32, "f32": 32}),
    WmmaFamily("f64", ("m8n8k4",), {"a": ("f64",), "b": ("f64",), "c": ("f64",)},
               {"a": _ROWCOL, "b": _ROWCOL, "c": _ROWCOL}, 80,
               {("a", "m8n8k4", "f64"): 1, ("b", "m8n8k4", "f64"): 1, ("c", "m8n8k4", "f64"): 2},
               {"f64": 64}),
    WmmaFamily("sub-byte", ("m8n8k32",), {"a": ("s4", "u4"), "b": ("s4", "u4"), "c": ("s32",)},
               {"a": ("row",), "b": ("col",), "c": _ROWCOL}, 75,
               {("a", "m8n8k32", "s4"): 1, ("a", "m8n8k32", "u4"): 1,
                ("b", "m8n8k32", "s4"): 1, ("b", "m8n8k32", "u4"): 1,
                ("c", "m8n8k32", "s32"): 2},
               {"s4": 4, "u4": 4, "s32": 32}),
    WmmaFamily("single-bit", ("m8n8k128",), {"a": ("b1",), "b": ("b1",), "c": ("s32",)},
               {"a": ("row",), "b": ("col",), "c": _ROWCOL}, 75,
               {("a", "m8n8k128", "b1"): 1, ("b", "m8n8k128", "b1"): 1,
                ("c", "m8n8k128", "s32"): 2},
               {"b1": 1, "s32": 32}),
)

#: Forms outside the syntax blocks that ptxas 13.0 assembles: an ``.f32`` C fragment of the
#: sub-byte and single-bit shapes (two registers, like ``.s32``).  descgen warns about them.
WMMA_PTXAS_ONLY: dict[tuple[str, str, str], int] = {("c", "m8n8k32", "f32"): 2,
                                                   ("c", "m8n8k128", "f32"): 2}

#: (matrix, shape, type) -> registers per thread of the fragment, from :data:`WMMA_FRAGMENTS`
#: and :data:`WMMA_PTXAS_ONLY`.
WMMA_FRAGMENT_REGISTERS: dict[tuple[str, str, str], int] = {
    **{k: v for fam in WMMA_FRAGMENTS for k, v in fam.registers.items()}, **WMMA_PTXAS_ONLY}


#: Register types of the fragment vector by ``.type``, as ptxas 13.0 accepts them (the text's
#: fragment section speaks of .f16x2 / .f32 / .f64 / .b32 registers; ptxas is irregular:
#: .bf16 and .tf32 fragments take .b32 only, sub-byte and single-bit any 32-bit type).
WMMA_REGISTER_TYPES: dict[str, tuple[str, ...]] = {
    "f16": ("b32", "f16x2"), "bf16": ("b32",), "tf32": ("b32",), "f32": ("b32", "f32"),
    "f64": ("b64", "f64"), "s8": INT32, "u8": INT32, "s32": INT32,
    "s4": REG32, "u4": REG32, "b1": REG32}
WMMA_INT_REGISTERS: tuple[str, ...] = INT32


def _wmma_family(matrix: str, shape: str, type_: str) -> WmmaFamily | None:
    return next((f for f in WMMA_FRAGMENTS if shape in f.shapes and
                 type_ in f.types.get(matrix, ())), None)


def _unique(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(values))


_WMMA_SHAPES = _unique(s for f in WMMA_FRAGMENTS for s in f.shapes)
_WMMA_TYPES = _unique(t for f in WMMA_FRAGMENTS for m in "abc" for t in f.types[m])


def _wmma_constraints() -> tuple[Constraint, ...]:
    """Derived from :data:`WMMA_FRAGMENTS`: per (matrix, shape), the types and layouts."""
    out = []
    for matrix in "abc":
        for shape in _WMMA_SHAPES:
            fams = [f for f in WMMA_FRAGMENTS if shape in f.shapes]
            types = _unique(t for f in fams for t in f.types[matrix])
            extra = tuple(t for (m, s, t) in WMMA_PTXAS_ONLY if (m, s) == (matrix, shape))
            out.append(Constraint("wmma.load.type", {"matrix": (matrix,), "shape": (shape,)},
                                  {"type": types + extra},
                                  f".{matrix} with .{shape} takes ." + ", .".join(types),
                                  _WL))
            if extra:
                out.append(Constraint(
                    "wmma.load.type", {"matrix": (matrix,), "shape": (shape,)},
                    {"type": types}, f".{matrix} with .{shape} takes ." + ", .".join(types)
                    + " in the PTX syntax; ptxas 13.0 also assembles ." + ", .".join(extra),
                    _WL, "ptxas", "warning"))
            for f in fams:
                if f.layouts[matrix] != _ROWCOL:
                    out.append(Constraint(
                        "wmma.load.layout",
                        {"matrix": (matrix,), "shape": (shape,), "type": f.types[matrix]},
                        {"layout": f.layouts[matrix]},
                        f"{f.name} loads of .{matrix} take .{f.layouts[matrix][0]} layout only",
                        _WL))
    return tuple(out)


def _wmma_registers(q: Mapping[str, str | None]) -> int | None:
    return WMMA_FRAGMENT_REGISTERS.get((q.get("matrix") or "", q.get("shape") or "",
                                        q.get("type") or ""))


_WSTORE = "PTX 9.7.14.4.2 (Matrix Storage for WMMA)"


def _wmma_fragment_bytes(q: Mapping[str, str | None]) -> int | None:
    """9.7.14.4.2: each row (column) must start aligned to the fragment's size in bytes."""
    n = _wmma_registers(q)
    if n is None:
        return None
    return n * (8 if q.get("type") == "f64" else 4)


def _wmma_stride(q: Mapping[str, str | None]) -> tuple[int, int, int] | None:
    """(default stride in elements, element bits, fragment bytes) -- 9.7.14.4.2: the default
    stride is the leading dimension (row-major MxK: K; column-major: M), a smaller one is
    undefined behaviour, and ``stride x element bytes`` must be a multiple of the fragment
    size."""
    frag = _wmma_fragment_bytes(q)
    shape, matrix, type_ = q.get("shape") or "", q.get("matrix"), q.get("type") or ""
    if frag is None:
        return None
    m, n, k = (int(x) for x in shape[1:].replace("n", " ").replace("k", " ").split())
    rows, cols = {"a": (m, k), "b": (k, n), "c": (m, n)}[matrix or "c"]
    fam = next((f for f in WMMA_FRAGMENTS if shape in f.shapes and type_ in f.element_bits),
               None)
    bits = fam.element_bits[type_] if fam else 32
    return (cols if q.get("layout") == "row" else rows), bits, frag


WMMA_LOAD = InstructionModel(
    mnemonic="wmma.load",
    section="9.7.14.4.3",
    groups=(
        Group("matrix", ("a", "b", "c"), True, _WL, leading=True),
        Group("sync", ("sync",), True, _WL),
        Group("aligned", ("aligned",), True, _WL),
        Group("layout", ("row", "col"), True, _WL),
        Group("shape", _WMMA_SHAPES, True, _WL),
        Group("ss", ("global", "shared", "shared::cta"), False, _WL),
        Group("type", _WMMA_TYPES, True, _WL),
    ),
    constraints=_wmma_constraints(),
    operands=(
        OperandSpec("r", "vector", _WL),
        OperandSpec("p", "address", f"{_WL} (Addresses as Operands)", bits=(32, 64)),
        OperandSpec("stride", "reg_or_imm", f"{_WL}: stride is an optional 32-bit integer",
                    optional=True, types=INT32),
    ),
    vector=_wmma_registers,
    vector_source=_WFRAG,
    alignment=_wmma_fragment_bytes,
    alignment_source=f"{_WSTORE}: the start of each row (column) is aligned to the fragment "
                     "size in bytes",
    stride=_wmma_stride,
    register_types=lambda q: WMMA_REGISTER_TYPES.get(q.get("type") or "", WMMA_INT_REGISTERS),
    arch=tuple(
        ({"shape": (s,), "type": f.types[m], "matrix": (m,)},
         ArchRequirement(f"sm_{f.min_sm} or higher ({f.name} wmma)",
                         f"{_WL} Target ISA Notes", min_number=f.min_sm))
        for f in WMMA_FRAGMENTS for s in f.shapes for m in "abc"),
)

# ====================================================================== tcgen05.ld / st


def _tcgen05_model(op: str) -> InstructionModel:
    """tcgen05.ld (9.7.16.8.3) or tcgen05.st (9.7.16.8.4); shapes, nums, register counts, the
    .red shapes/ops/types and arches come from :mod:`descriptors.isa.tmem`."""
    from . import tmem

    section = tmem.TABLES[op][2]
    src = f"PTX {section}"
    table = tmem.table_source(op)
    nums = tuple(f"x{n}" for n in tmem.NUMS)
    shapes = tuple(tmem.SHAPES)
    split = tuple(s for s in shapes if tmem.SHAPES[s].accesses == 2)

    def regs(q: Mapping[str, str | None]) -> int | None:
        shape, num = q.get("shape"), q.get("num")
        if shape not in tmem.SHAPES or num not in nums:
            return None
        try:
            return tmem.registers(shape, num, op)
        except ParameterError:
            return None

    na = tuple(Constraint(f"tcgen05.{op}.num", {"shape": (s,)},
                          {"num": tuple(n for n in nums if regs({"shape": s, "num": n}))},
                          f".{s} has no .num beyond "
                          f".x{max(n for n in tmem.NUMS if regs({'shape': s, 'num': f'x{n}'}))}"
                          f" (NA cells of {table.split(' (')[0]})", table)
                   for s in shapes if any(regs({"shape": s, "num": n}) is None for n in nums))
    groups = [Group("sync", ("sync",), True, src),
              Group("aligned", ("aligned",), True, src, missing="warning"),
              Group("shape", shapes, True, src), Group("num", nums, True, src)]
    constraints = list(na)
    operands: list[OperandSpec]
    arch: list[tuple[Mapping[str, tuple[str | None, ...]], ArchRequirement]] = [
        ({}, ArchRequirement("sm_100a, sm_101a (sm_110a), or sm_100f/sm_110f or higher in the "
                             "family", f"{src} Target ISA Notes",
                             specific=("sm_100a", "sm_110a"), families=(100, 110)))]
    if op == "ld":
        red_types = tuple(t for t in tmem.RED_TYPES)
        groups[:0] = [Group("red", ("red",), False, src, leading=True)]
        groups += [Group("pack", ("pack::16b",), False, src),
                   Group("redOp", tmem.RED_OPS, False, src),
                   Group("abs", ("abs",), False, src), Group("NaN", ("NaN",), False, src),
                   Group("type", ("b32",) + red_types, True, src)]
        constraints += [
            Constraint("tcgen05.ld.type", {"red": (None,)}, {"type": ("b32",)},
                       "tcgen05.ld without .red loads .b32", src),
            Constraint("tcgen05.ld.red", {"red": (None,)},
                       {"redOp": (None,), "abs": (None,), "NaN": (None,)},
                       ".min/.max, .abs and .NaN belong to tcgen05.ld.red", src),
            Constraint("tcgen05.ld.red", {"red": ("red",)}, {"redOp": tmem.RED_OPS},
                       "tcgen05.ld.red needs .redOp (.min or .max)", src),
            Constraint("tcgen05.ld.red", {"red": ("red",)}, {"type": red_types},
                       "tcgen05.ld.red's type is .f32, .u32 or .s32", src),
            Constraint("tcgen05.ld.red", {"red": ("red",)}, {"shape": tmem.RED_SHAPES},
                       ".red is defined for .shape3 = .32x32b and .shape4 = .16x32bx2 only",
                       src),
            Constraint("tcgen05.ld.red", {"red": ("red",)},
                       {"num": tuple(n for n in nums if n != "x1")},
                       "when .red is specified, .num must be at least .x2", src),
            Constraint("tcgen05.ld.red", {"red": ("red",)}, {"pack": (None,)},
                       "the .red forms have no .pack::16b", src),
            Constraint("tcgen05.ld.red", {"abs": ("abs",)}, {"type": ("f32",)},
                       ".abs is for the floating-point (.f32) reduction only", src),
            Constraint("tcgen05.ld.red", {"NaN": ("NaN",)}, {"type": ("f32",)},
                       ".NaN is for the floating-point (.f32) reduction only", src),
        ]
        operands = [OperandSpec("r", "vector", src),
                    OperandSpec("redval", "register", src, when={"red": ("red",)}),
                    OperandSpec("taddr", "address", src, bits=(32,)),
                    OperandSpec("immHalfSplitoff", "immediate", src, when={"shape": split})]
        arch.append(({"red": ("red",)}, tmem.RED_REQUIREMENT))
    else:
        groups += [Group("unpack", ("unpack::16b",), False, src),
                   Group("type", ("b32",), True, src)]
        operands = [OperandSpec("taddr", "address", src, bits=(32,)),
                    OperandSpec("immHalfSplitoff", "immediate", src, when={"shape": split}),
                    OperandSpec("r", "vector", src)]
    return InstructionModel(
        mnemonic=f"tcgen05.{op}", section=section, groups=tuple(groups),
        constraints=tuple(constraints), operands=tuple(operands), vector=regs,
        vector_source=table, register_types=lambda q: REG32, arch=tuple(arch))


TCGEN05_LD = _tcgen05_model("ld")
TCGEN05_ST = _tcgen05_model("st")

# ====================================================================== wgmma.mma_async

_WG = "PTX 9.7.15.5.2"
_WGSP = "PTX 9.7.15.6"
_WGFRAG = "PTX 9.7.15.5.1"


class WgmmaFamily(Struct, frozen=True):
    """One syntax block of 9.7.15.5.2: the A and B types, the accumulator types, K (dense;
    ``.sp`` doubles it, 9.7.15.6), the N the text lists, the immediates after scale-d
    (``trans``: imm-scale-a/b and imm-trans-a/b; ``scale``: imm-scale-a/b; ``none``), whether
    ``.satfinite`` and ``.sp`` exist, and the sparsity selector values (9.7.15.6.1)."""

    name: str
    atypes: tuple[str, ...]
    btypes: tuple[str, ...]
    dtypes: tuple[str, ...]
    k: int
    ns: tuple[int, ...]
    immediates: str
    satfinite: bool = False
    sparse: bool = True
    sp_sel: tuple[int, ...] = (0,)
    bits: int = 16


#: N of the floating-point shapes (8 .. 256 step 8) and of the integer and single-bit ones
#: (8, 16, 24, then 32 .. 256 step 16), as 9.7.15.5.2 lists them (ptxas 13.0 agrees exactly).
WGMMA_FLOAT_N: tuple[int, ...] = tuple(range(8, 257, 8))
WGMMA_INT_N: tuple[int, ...] = (8, 16, 24) + tuple(range(32, 257, 16))
_FP8 = ("e4m3", "e5m2")
_I8 = ("s8", "u8")
#: The type families of wgmma.mma_async (9.7.15.5.2 syntax blocks; sparse: 9.7.15.6).
WGMMA_FAMILIES: tuple[WgmmaFamily, ...] = (
    WgmmaFamily("f16", ("f16",), ("f16",), ("f16", "f32"), 16, WGMMA_FLOAT_N, "trans",
                sp_sel=(0, 1)),
    WgmmaFamily("bf16", ("bf16",), ("bf16",), ("f32",), 16, WGMMA_FLOAT_N, "trans",
                sp_sel=(0, 1)),
    WgmmaFamily("tf32", ("tf32",), ("tf32",), ("f32",), 8, WGMMA_FLOAT_N, "scale",
                sp_sel=(0, 1), bits=32),
    WgmmaFamily("fp8", _FP8, _FP8, ("f16", "f32"), 32, WGMMA_FLOAT_N, "scale", bits=8),
    WgmmaFamily("integer", _I8, _I8, ("s32",), 32, WGMMA_INT_N, "none", satfinite=True, bits=8),
    WgmmaFamily("single-bit", ("b1",), ("b1",), ("s32",), 256, WGMMA_INT_N, "none",
                sparse=False, bits=1),
)
_WG_M = 64
#: Bits of each accumulator type (the d registers hold N/2 .f32/.s32 or N/4 .f16x2 values).
_WG_DBITS = {"f16": 16, "f32": 32, "s32": 32}


def _wg_family(q: Mapping[str, str | None]) -> WgmmaFamily | None:
    return next((f for f in WGMMA_FAMILIES if q.get("atype") in f.atypes), None)


def _wg_mnk(shape: str | None) -> tuple[int, int, int] | None:
    m = re.fullmatch(r"m(\d+)n(\d+)k(\d+)", shape or "")
    return None if m is None else (int(m.group(1)), int(m.group(2)), int(m.group(3)))


def _wg_shapes(f: WgmmaFamily, sparse: bool) -> tuple[str, ...]:
    k = f.k * (2 if sparse else 1)
    return tuple(f"m{_WG_M}n{n}k{k}" for n in f.ns)


def _wg_d_registers(q: Mapping[str, str | None]) -> int | None:
    """d: the M x N accumulator spread over the warpgroup's 128 threads, M*N/128 elements per
    thread, packed into 32-bit registers (9.7.15.5.1: N/2 for .f32/.s32, N/4 for .f16)."""
    mnk, bits = _wg_mnk(q.get("shape")), _WG_DBITS.get(q.get("dtype") or "")
    if mnk is None or bits is None:
        return None
    return mnk[0] * mnk[1] // 128 * bits // 32


def _wg_a_registers(q: Mapping[str, str | None]) -> int | None:
    """A from registers: the M x K matrix over 128 threads (.sp: packed to M x K/2,
    9.7.15.6), in 32-bit registers -- four for every type."""
    mnk, f = _wg_mnk(q.get("shape")), _wg_family(q)
    if mnk is None or f is None:
        return None
    k = mnk[2] // (2 if q.get("sp") else 1)
    return mnk[0] * k // 128 * f.bits // 32


#: Register types ptxas 13.0 takes for the d vector (the text: .f32/.s32 registers, or .f16x2
#: packed in 32-bit registers).
WGMMA_D_TYPES: dict[str, tuple[str, ...]] = {"f32": ("b32", "f32"), "f16": ("b32", "f16x2"),
                                             "s32": INT32}
#: ... and for A from registers: .b32 or .f16x2 for the floating-point types, any 32-bit type
#: for the integer and single-bit ones.
WGMMA_A_TYPES: dict[str, tuple[str, ...]] = {
    **{t: ("b32", "f16x2") for f in WGMMA_FAMILIES[:4] for t in f.atypes},
    **{t: REG32 for f in WGMMA_FAMILIES[4:] for t in f.atypes}}
_DESC64: tuple[str, ...] = ("b64", "u64", "s64")


def _wgmma_constraints() -> tuple[Constraint, ...]:
    """Derived from :data:`WGMMA_FAMILIES`: per A type, B and accumulator types, shapes
    (dense and .sp), .satfinite, .sp, the single-bit operation."""
    out: list[Constraint] = []
    for f in WGMMA_FAMILIES:
        src = f"{_WG} ({f.name} syntax)"
        a = {"atype": f.atypes}
        out.append(Constraint("wgmma.type", a, {"btype": f.btypes},
                              f"{f.name} wgmma takes .btype ." + "/.".join(f.btypes)
                              + " with .atype ." + "/.".join(f.atypes), src))
        out.append(Constraint("wgmma.type", a, {"dtype": f.dtypes},
                              f"{f.name} wgmma accumulates in ." + "/.".join(f.dtypes), src))
        for sparse in ((False, True) if f.sparse else (False,)):
            sh = _wg_shapes(f, sparse)
            out.append(Constraint(
                "wgmma.shape", {**a, "sp": ("sp",) if sparse else (None,)}, {"shape": sh},
                f"{'sparse ' if sparse else ''}{f.name} wgmma is m64nNk{sh[0].split('k')[1]}, "
                f"N = {f.ns[0]}, {f.ns[1]}, ..., {f.ns[-1]}"
                + ("" if f.ns == WGMMA_FLOAT_N else " (8, 16, 24, then steps of 16)"),
                _WGSP if sparse else src))
        if not f.satfinite:
            out.append(Constraint("wgmma.satfinite", a, {"satfinite": (None,)},
                                  ".satfinite belongs to the integer (.s8/.u8) wgmma", _WG))
        if not f.sparse:
            out.append(Constraint("wgmma.sp", a, {"sp": (None,)},
                                  f"there is no sparse {f.name} wgmma ({_WGSP} lists none)",
                                  _WGSP))
        if f.name == "single-bit":
            out.append(Constraint("wgmma.op", a, {"op": ("and",), "popc": ("popc",)},
                                  "single-bit wgmma is .and.popc (.op = {.and})", src))
        else:
            out.append(Constraint("wgmma.op", a, {"op": (None,), "popc": (None,)},
                                  ".and/.popc belong to the single-bit (.b1) wgmma", src))
    return tuple(out)


def _wg_atypes(kind: str) -> tuple[str, ...]:
    return tuple(t for f in WGMMA_FAMILIES if f.immediates in kind.split("|") for t in f.atypes)


def _wgmma_operands() -> tuple[OperandSpec, ...]:
    sp_sel = []
    for values in dict.fromkeys(f.sp_sel for f in WGMMA_FAMILIES if f.sparse):
        types = tuple(t for f in WGMMA_FAMILIES if f.sparse and f.sp_sel == values
                      for t in f.atypes)
        sp_sel.append(OperandSpec("sp-sel", "immediate", f"{_WGSP}.1 (sparsity selector)",
                                  when={"sp": ("sp",), "atype": types}, values=values))
    return (
        OperandSpec("d", "vector", f"{_WGFRAG} (register fragment of D)", size=_wg_d_registers,
                    reg_types=lambda q: WGMMA_D_TYPES.get(q.get("dtype") or "", REG32)),
        OperandSpec("a", "vector", f"{_WGFRAG} (register fragment of A)", size=_wg_a_registers,
                    when={"a_src": ("reg",)},
                    reg_types=lambda q: WGMMA_A_TYPES.get(q.get("atype") or "", REG32)),
        OperandSpec("a-desc", "register", f"{_WG} (matrix descriptor, 64-bit)", bits=(64,),
                    when={"a_src": ("desc",)}, types=_DESC64, offset=True),
        OperandSpec("b-desc", "register", f"{_WG} (matrix descriptor, 64-bit)", bits=(64,),
                    types=_DESC64, offset=True),
        OperandSpec("sp-meta", "register", f"{_WGSP}.1 (sparsity metadata, 32-bit)",
                    when={"sp": ("sp",)}),
        *sp_sel,
        OperandSpec("scale-d", "predicate", f"{_WG} (scale-d: D = A*B+D when true)",
                    types=("pred",), values=(0, 1)),
        OperandSpec("imm-scale-a", "immediate", f"{_WG} (imm-scale-a: -1 negates A)",
                    when={"atype": _wg_atypes("trans|scale")}, values=(-1, 1)),
        OperandSpec("imm-scale-b", "immediate", f"{_WG} (imm-scale-b: -1 negates B)",
                    when={"atype": _wg_atypes("trans|scale")}, values=(-1, 1)),
        OperandSpec("imm-trans-a", "immediate", f"{_WG} (imm-trans-a: .f16/.bf16, A from a "
                    "descriptor only)", when={"atype": _wg_atypes("trans"),
                                             "a_src": ("desc",)}, values=(0, 1)),
        OperandSpec("imm-trans-b", "immediate", f"{_WG} (imm-trans-b: .f16/.bf16 only)",
                    when={"atype": _wg_atypes("trans")}, values=(0, 1)),
    )


def _wg_facts(operands: list[str]) -> dict[str, str]:
    """``a_src``: A from registers (a brace-enclosed vector) or from a descriptor."""
    return {"a_src": "reg" if len(operands) > 1 and operands[1].startswith("{") else "desc"}


_WG_TYPES = _unique(t for f in WGMMA_FAMILIES for t in f.atypes)
_WG_SHAPES = _unique(f"m{_WG_M}n{n}k{k}" for k in (8, 16, 32, 64, 256) for n in WGMMA_FLOAT_N)

WGMMA_MMA_ASYNC = InstructionModel(
    mnemonic="wgmma.mma_async",
    section="9.7.15.5.2",
    groups=(
        Group("sp", ("sp",), False, _WGSP),
        Group("sync", ("sync",), True, _WG, repeat="warning"),
        Group("aligned", ("aligned",), True, _WG, missing="warning"),
        Group("shape", _WG_SHAPES, True, _WG),
        Group("satfinite", ("satfinite",), False, _WG, repeat="warning"),
        Group("dtype", tuple(_WG_DBITS), True, _WG),
        Group("atype", _WG_TYPES, True, _WG),
        Group("btype", _WG_TYPES, True, _WG),
        Group("op", ("and", "or", "xor"), False, _WG),
        Group("popc", ("popc",), False, _WG, after="op"),
    ),
    constraints=_wgmma_constraints(),
    operands=_wgmma_operands(),
    vector=_wg_d_registers,
    vector_source=f"{_WGFRAG} (register fragments: M*N/128 accumulator elements and M*K/128 A "
                  "elements per thread, packed in 32-bit registers)",
    register_types=lambda q: WGMMA_D_TYPES.get(q.get("dtype") or "", REG32),
    arch=(({}, ArchRequirement("sm_90a", f"{_WG} Target ISA Notes (sm_90a only; ptxas 13.0 "
                               "refuses sm_90, sm_100a, sm_120a)", specific=("sm_90a",))),),
    default_arch="sm_90a",
    operand_facts=_wg_facts,
)

#: The models by mnemonic.
MODELS: dict[str, InstructionModel] = {m.mnemonic: m for m in (STMATRIX, WMMA_LOAD, TCGEN05_LD,
                                                                TCGEN05_ST, WGMMA_MMA_ASYNC)}

#: Where ptxas 13.0 and the PTX text disagree (descgen follows ptxas); see the module docs.
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

# ====================================================================== parser


class ParsedInstruction(Struct, frozen=True):
    """One instruction statement: ``mnemonic`` (a key of :data:`MODELS`), ``qualifiers`` as
    written (without dots) with their 1-based columns, ``operands`` (text, column), the
    ``text`` read (guard and label removed) and the guard (``@p``/``@!p``) if any."""

    text: str
    mnemonic: str
    qualifiers: tuple[tuple[str, int], ...]
    operands: tuple[tuple[str, int], ...]
    guard: str | None = None
    col: int = 1


_GUARD = re.compile(r"@!?%?[A-Za-z_$][\w$]*\s+")
_LABEL = re.compile(r"[A-Za-z_$%][\w$]*\s*:(?!:)\s*")
_OPCODE = re.compile(r"[a-z][a-z0-9_]*(?:\.[A-Za-z0-9_]+(?:::[A-Za-z0-9_]+)*)*")


def _split_operands(text: str, base: int) -> list[tuple[str, int]]:
    out, problem = split_operands(text, base)
    if problem is not None:
        raise InstructionError(problem)
    return out


def parse_instruction(text: Any) -> ParsedInstruction:
    """Read one PTX instruction statement (``stmatrix``, ``wmma.load``, ``tcgen05.ld``/``st``).

    Accepts a leading guard (``@%p1``), a label (``L1:``), a trailing ``;`` and a ``//``
    comment.  Raises :class:`InstructionError` (one line, never a traceback) for text that is
    not a string, empty, longer than :data:`MAX_LINE`, holds control characters or non-ASCII
    bytes outside a comment, has no ``;`` after operands when followed by more text, an
    unknown mnemonic, unbalanced brackets, or a vector longer than :data:`MAX_VECTOR`.
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    if not isinstance(text, str):
        raise InstructionError(f"an instruction is text, not {type(text).__name__}")
    if len(text) > MAX_LINE:
        raise InstructionError(f"the instruction is {len(text)} characters long; at most "
                               f"{MAX_LINE} are read")
    line = text.split("//", 1)[0]
    bad = next((i for i, ch in enumerate(line) if not (" " <= ch <= "~" or ch in "\t\r\n")),
               None)
    if bad is not None:
        raise InstructionError(f"column {bad + 1}: character {line[bad]!r} is not PTX text")
    stripped = line.strip()
    if not stripped:
        raise InstructionError("no instruction: the line is empty")
    col = len(line) - len(line.lstrip()) + 1
    body = stripped
    if ";" in body:
        body, rest = body.split(";", 1)
        if rest.strip():
            raise InstructionError("more than one statement on the line (text after ';'); "
                                   "give one instruction")
    guard = None
    m = _LABEL.match(body)
    if m:
        col += m.end()
        body = body[m.end():]
    m = _GUARD.match(body)
    if m:
        guard = m.group(0).strip()
        col += m.end()
        body = body[m.end():]
    m = _OPCODE.match(body)
    if m is None:
        raise InstructionError(f"no instruction mnemonic at the start of {shorten(body)}")
    opcode = m.group(0)
    mnemonic = next((k for k in sorted(MODELS, key=len, reverse=True)
                     if opcode == k or opcode.startswith(k + ".")), None)
    if mnemonic is None:
        raise InstructionError(f"unknown mnemonic {shorten_text('.'.join(opcode.split('.')[:2]))}"
                               ": descgen models " + ", ".join(MODELS))
    after = body[m.end():]
    if after and not after[0].isspace() and after[0] not in "{[":  # ptxas: b32{%r1},[%r2]
        raise InstructionError(f"column {col + m.end()}: unexpected {after[0]!r} in the "
                               f"opcode {shorten_text(body)}")
    quals: list[tuple[str, int]] = []
    pos = col + len(mnemonic) + 1
    for q in opcode[len(mnemonic) + 1:].split(".") if opcode != mnemonic else []:
        quals.append((q, pos))
        pos += len(q) + 1
    rest = after.strip()
    if not rest:
        raise InstructionError(f"{mnemonic}: no operands (truncated line?)")
    base = col + m.end() + len(after) - len(after.lstrip())
    operands = _split_operands(rest, base)
    for op, c in operands:
        if op.startswith("{") and op.count(",") + 1 > MAX_VECTOR:
            raise InstructionError(f"column {c}: a vector of {op.count(',') + 1} registers; PTX "
                                   f"vectors here hold at most 128 (read up to {MAX_VECTOR})")
    return ParsedInstruction(" ".join(stripped.split()), mnemonic, tuple(quals),
                             tuple(operands), guard, col)


_DECL = re.compile(r"\.reg\s+\.(\w+)\s+(.+?)(?:;|\Z)")
_DECL_ITEM = re.compile(r"(%?[A-Za-z_$][\w$]*)(?:<(\d+)>)?")
_NUMBERED = re.compile(r"(.*?)(0|[1-9]\d*)\Z")


class RegisterDecls(Mapping[str, str]):
    """Declared register types, name -> type (``"b32"``), without expanding
    ``%r<100000>``: a parameterised declaration answers for ``%r0 .. %r99999`` lazily.
    Later declarations win.  Iteration lists the plain names only."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.ranges: dict[str, tuple[int, str]] = {}

    def add(self, text: str) -> None:
        """Read the declarations in ``text`` (``.reg .b32 %r<10>, %q;``); other text is
        ignored."""
        for m in _DECL.finditer(text.split("//", 1)[0]):
            rtype = m.group(1)
            for item in m.group(2).split(","):
                d = _DECL_ITEM.fullmatch(item.strip())
                if d is None:
                    continue
                if d.group(2) is None:
                    self.names[d.group(1)] = rtype
                else:
                    self.ranges[d.group(1)] = (int(d.group(2)), rtype)

    def __getitem__(self, name: str) -> str:
        if name in self.names:
            return self.names[name]
        m = _NUMBERED.match(name)
        if m and m.group(1) in self.ranges:
            count, rtype = self.ranges[m.group(1)]
            if int(m.group(2)) < count:
                return rtype
        raise KeyError(name)

    def __contains__(self, name: object) -> bool:
        try:
            self[name]  # type: ignore[index]
        except (KeyError, TypeError):
            return False
        return True

    def __iter__(self):  # type: ignore[override]
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)


def parse_registers(lines: Iterable[str]) -> RegisterDecls:
    """Register declarations of a PTX module (``.reg .b32 %r<10>;`` declares ``%r0..%r9``;
    ``.reg .f64 fd, x;``) as a mapping name -> type; other lines are ignored."""
    out = RegisterDecls()
    for line in lines:
        out.add(line)
    return out


# ====================================================================== checker


def model_for(mnemonic: str) -> InstructionModel:
    """The model of ``mnemonic``; raises :class:`InstructionError` naming the known ones."""
    if mnemonic not in MODELS:
        raise InstructionError(f"unknown mnemonic {shorten(mnemonic)}: descgen models "
                               + ", ".join(MODELS))
    return MODELS[mnemonic]


def _finding(severity: str, rule: str, message: str, source: str, field_name: str | None = None,
             value: Any = None) -> Finding:
    return Finding(severity, rule, message, source, field_name, None, value)


def _choices(values: tuple[str, ...]) -> str:
    """``.a .b .c``; a long list (wgmma's 160 shapes) as its first and last values."""
    if len(values) <= 12:
        return " ".join(f".{v}" for v in values)
    return " ".join(f".{v}" for v in values[:3]) + f" ... .{values[-1]} ({len(values)} values)"


def resolve(model: InstructionModel, quals: Iterable[tuple[str, int]] | Iterable[str]
            ) -> tuple[Qualifiers, list[Finding]]:
    """Qualifiers by group (``None`` = absent) and the findings about the qualifier list:
    unknown qualifiers, a group given twice, required groups missing, order notes.  A value
    several groups list (wgmma's ``.dtype.atype.btype``) fills the first of them still empty."""
    by_value = model.groups_by_value
    index = {g.name: i for i, g in enumerate(model.groups)}
    q: Qualifiers = {g.name: None for g in model.groups}
    out: list[Finding] = []
    mn = model.mnemonic
    order: list[int] = []
    for item in quals:
        name = item[0] if isinstance(item, tuple) else item
        gs = by_value.get(name)
        if gs is None:
            near = [v for v in by_value if v.lower() == name.lower()]
            hint = f" (did you mean .{near[0]}?)" if near else ""
            listed = "; ".join(f".{g.name}: {_choices(g.values)}" for g in model.groups
                               if len(g.values) > 12)
            short = " ".join(dict.fromkeys(f".{v}" for g in model.groups
                                           if len(g.values) <= 12 for v in g.values))
            out.append(_finding("error", f"{mn}.qualifier", f"unknown qualifier .{shorten_text(name)}"
                                f" for {mn}{hint}; its qualifiers are " + short
                                + (f"; {listed}" if listed else ""), f"PTX {model.section}",
                                "qualifier", name))
            continue
        g = next((x for x in gs if q[x.name] is None), gs[-1])
        if q[g.name] is not None:
            if g.repeat != "error" and q[g.name] == name:
                out.append(_finding(g.repeat, f"{mn}.qualifier", f".{name} given twice (ptxas "
                                    "13.0 accepts the repetition)", g.source, g.name, name))
                continue
            out.append(_finding("error", f"{mn}.qualifier", f".{g.name} given twice (.{q[g.name]}"
                                f" and .{name})", g.source, g.name, name))
            continue
        q[g.name] = name
        order.append(index[g.name])
    for g in model.groups:
        if g.required and q[g.name] is None:
            extra = "" if g.missing == "error" else " (ptxas 13.0 assembles the form without it)"
            out.append(_finding(g.missing, f"{mn}.qualifier", f"missing .{g.name} (one of "
                                f"{_choices(g.values)}){extra}", g.source, g.name))
        if g.leading and q[g.name] is not None and order and order[0] != index[g.name]:
            out.append(_finding("error", f"{mn}.qualifier", f".{q[g.name]} must come right after "
                                f"{mn} ({mn}.{q[g.name]} is the opcode)", g.source, g.name,
                                q[g.name]))
        if g.after is not None and q[g.name] is not None and q[g.after] is not None and \
                order.index(index[g.name]) < order.index(index[g.after]):
            out.append(_finding("error", f"{mn}.qualifier", f".{q[g.name]} must follow "
                                f".{q[g.after]} (ptxas 13.0 refuses the other order)", g.source,
                                g.name, q[g.name]))
    if order != sorted(order) and not any(f.severity == "error" for f in out):
        canon = ".".join([mn] + [q[g.name] for g in model.groups if q[g.name]])  # type: ignore[misc]
        out.append(_finding("note", f"{mn}.qualifier", "qualifiers out of the syntax's order "
                            f"(ptxas 13.0 accepts any order); canonical: {canon}",
                            f"PTX {model.section} syntax"))
    return q, out


def vector_size(model: InstructionModel, q: Mapping[str, str | None]) -> int | None:
    """Registers of the vector operand for these qualifiers; ``None`` when undefined or when
    several sizes are accepted (:func:`vector_sizes`)."""
    n = model.vector(q)
    return n if isinstance(n, int) else None


def vector_sizes(model: InstructionModel, q: Mapping[str, str | None]) -> tuple[int, ...]:
    """Every vector size accepted for these qualifiers (empty when undefined)."""
    n = model.vector(q)
    return () if n is None else (n,) if isinstance(n, int) else n


_REGNAME = re.compile(r"%?[A-Za-z_$][\w$]*\Z")
_ADDR = re.compile(r"\[\s*(?P<base>%?[A-Za-z_$][\w$]*|-?\w+)\s*(?:\+\s*(?P<off>-?\w+)\s*)?\]\Z")


def _reg_check(mn: str, name: str, text: str, col: int, registers: Mapping[str, str] | None,
               allowed: tuple[str, ...], source: str, what: str) -> list[Finding]:
    if not _REGNAME.match(text):
        return [_finding("error", f"{mn}.operand", f"{what} {shorten_text(text)} (column {col}) "
                         "is not a register", source, name, text)]
    if registers is None or text not in registers:
        return []
    rtype = registers[text]
    if rtype not in allowed:
        return [_finding("error", f"{mn}.register_type", f"{what} {text} is .{rtype}; "
                         f"{mn} takes ." + "/.".join(allowed) + " registers here", source, name,
                         rtype)]
    return []


#: Rules about operand *values* (addresses, strides) that ptxas cannot judge: a form breaking
#: them assembles.  The ptxas test compares verdicts on every other rule.
VALUE_RULES: tuple[str, ...] = ("stmatrix.alignment", "wmma.load.alignment", "wmma.load.stride",
                                "tcgen05.ld.taddr", "tcgen05.st.taddr")


def present_operands(model: InstructionModel, q: Mapping[str, str | None],
                     texts: Sequence[str]) -> list[OperandSpec]:
    """The operands an instruction of ``model`` with resolved qualifiers ``q`` takes, in
    order, given its operand texts: what the operands themselves say (wgmma's A from a
    descriptor or from registers, :attr:`InstructionModel.operand_facts`) decides too."""
    if model.operand_facts is not None:
        q = {**q, **model.operand_facts(list(texts))}
    return [s for s in model.operands if s.present(q)]


def check_parsed(p: ParsedInstruction, *, registers: Mapping[str, str] | None = None,
                 arch: str | None = None, constants: Mapping[str, int] | None = None
                 ) -> list[Finding]:
    """Findings for a parsed instruction (errors first); see :func:`check_instruction`."""
    model = model_for(p.mnemonic)
    mn = model.mnemonic
    q, out = resolve(model, p.qualifiers)
    qual_errors = any(f.severity == "error" for f in out)
    if not qual_errors:
        for c in model.constraints:
            if c.applies(q):
                for g in c.broken(q):
                    given = q.get(g)
                    out.append(_finding(c.severity, c.id, f"{c.message} (given: "
                                        f"{'.' + given if given else 'none'})", c.source, g,
                                        given))
    # operands
    ops = list(p.operands)
    specs = present_operands(model, q, [t for t, _ in ops])
    if model.operand_facts is not None:
        q = {**q, **model.operand_facts([t for t, _ in ops])}
    required = [s for s in specs if not s.optional]
    if len(ops) < len(required) or len(ops) > len(specs):
        want = ", ".join(s.name + ("?" if s.optional else "") for s in specs)
        out.append(_finding("error", f"{mn}.operands", f"{len(ops)} operand(s) given; this form "
                            f"takes {want}", f"PTX {model.section} syntax", "operands", len(ops)))
    else:
        expected = vector_sizes(model, q)
        for spec, (text, col) in zip(specs, ops):
            size = expected
            if spec.size is not None:
                n = None if qual_errors else spec.size(q)
                size = () if n is None else (n,)
            out += _operand_findings(model, q, spec, text, col, size, registers,
                                     skip_size=qual_errors, constants=constants or {})
        if not qual_errors and mn.startswith("tcgen05"):
            out += _taddr_findings(model, q, specs, ops, constants or {})
    # arch
    if arch is not None:
        target = parse_target(arch)
        seen: list[ArchRequirement] = []
        for when, req in model.arch:
            if req in seen or not all(q.get(g) in vals for g, vals in when.items()):
                continue
            seen.append(req)
            if not req.supports(target):
                out.append(_finding("error", f"{mn}.arch", f"not supported on {target.name}; "
                                    f"needs {req.text}", req.source, "arch", target.name))
    order = {sev: i for i, sev in enumerate(SEVERITIES)}
    out.sort(key=lambda f: order[f.severity])
    return out


def _operand_findings(model: InstructionModel, q: Mapping[str, str | None], spec: OperandSpec,
                      text: str, col: int, expected: tuple[int, ...],
                      registers: Mapping[str, str] | None, skip_size: bool,
                      constants: Mapping[str, int]) -> list[Finding]:
    mn = model.mnemonic
    if spec.kind == "vector":
        if spec.bare_when is not None and all(q.get(g) in v for g, v in spec.bare_when.items()) \
                and _REGNAME.match(text):
            return [_finding("warning", f"{mn}.vector", f"operand {spec.name} is a bare register; "
                             "the syntax wants a brace-enclosed vector (ptxas 13.0 assembles "
                             "this form)", spec.source, spec.name, text)] + _reg_check(
                mn, spec.name, text, col, registers, model.register_types(q),
                model.vector_source, "vector element")
        if not (text.startswith("{") and text.endswith("}")):
            return [_finding("error", f"{mn}.operand", f"operand {spec.name} (column {col}) must "
                             "be a brace-enclosed vector {r0, ...}", spec.source, spec.name, text)]
        regs = [r.strip() for r in text[1:-1].split(",")]
        if any(not r for r in regs):
            return [_finding("error", f"{mn}.operand", f"operand {spec.name} (column {col}) has an "
                             "empty element", spec.source, spec.name, text)]
        out = []
        if expected and not skip_size and len(regs) not in expected:
            form = ".".join([mn] + [v for g in model.groups if (v := q.get(g.name))])
            out.append(_finding("error", f"{mn}.vector", f"the vector has {len(regs)} "
                                f"register(s); {form} takes " + " or ".join(map(str, expected)),
                                model.vector_source, spec.name, len(regs)))
        allowed = (spec.reg_types or model.register_types)(q)
        for r in regs:
            found = _reg_check(mn, spec.name, r, col, registers, allowed, model.vector_source,
                               "vector element")
            if found:
                out += found
                break
        return out
    if spec.kind == "address":
        m = _ADDR.match(text)
        if m is None:
            return [_finding("error", f"{mn}.address", f"operand {spec.name} (column {col}) must be "
                             "an address [reg], [reg+imm] or [var]", spec.source, spec.name, text)]
        base, off = m.group("base"), m.group("off")
        out = []
        if parse_immediate(base) is not None:
            out.append(_finding("error", f"{mn}.address", f"an immediate address [{base}] "
                                "(ptxas: immediate addresses are allowed for .local only)",
                                spec.source, spec.name, base))
            return out
        offset = 0
        if off is not None:
            v = parse_immediate(off)
            if v is None:
                return [_finding("error", f"{mn}.address", f"offset {shorten_text(off)} in "
                                 f"{spec.name} is not an integer", spec.source, spec.name, off)]
            offset = v
        if registers is not None and base in registers:
            rtype = registers[base]
            bits = _REG_BITS.get(rtype)
            if bits not in spec.bits or rtype[0] not in "bus":
                out.append(_finding("error", f"{mn}.address", f"address register {base} is ."
                                    f"{rtype}; {spec.name} takes a "
                                    + " or ".join(f"{b}-bit" for b in spec.bits)
                                    + " integer (.b/.u/.s) register",
                                    spec.source, spec.name, rtype))
        align = None if skip_size else model.alignment(q)
        if align:
            out += _alignment_findings(model, spec, base, offset, align, constants)
        return out
    if spec.kind == "immediate":
        v = parse_immediate(text)
        if v is None:
            return [_finding("error", f"{mn}.operand", f"{spec.name} (column {col}) must be an "
                             f"immediate integer, not {shorten_text(text)}", spec.source,
                             spec.name, text)]
        return _value_findings(mn, spec, v)
    if spec.kind == "predicate":
        v = parse_immediate(text)
        if v is not None:
            if spec.values is not None and v not in spec.values:
                return _value_findings(mn, spec, v)
            return [_finding("warning", f"{mn}.operand", f"{spec.name} is the immediate {v}; "
                             "the syntax gives a predicate (ptxas 13.0 takes 0 or 1 too)",
                             spec.source, spec.name, v)]
        reg = text[1:].strip() if text.startswith("!") else text
        return _reg_check(mn, spec.name, reg, col, registers, spec.types, spec.source,
                          spec.name)
    if spec.kind == "register":
        if spec.offset and "+" in text:  # ptxas reads reg+imm here too
            reg, _, off = text.partition("+")
            if parse_immediate(off) is not None:
                text = reg.strip()
        return _reg_check(mn, spec.name, text, col, registers, spec.types, spec.source,
                          spec.name)
    if spec.kind == "reg_or_imm":
        value = parse_immediate(text)
        if value is None and text in constants:
            value = constants[text]
        if value is not None:
            return [] if skip_size else _stride_findings(model, q, spec, value)
        return _reg_check(mn, spec.name, text, col, registers, spec.types, spec.source,
                          spec.name)
    raise AssertionError(spec.kind)  # pragma: no cover - every kind is handled above


def _value_findings(mn: str, spec: OperandSpec, value: int) -> list[Finding]:
    if spec.values is None or value in spec.values:
        return []
    allowed = " or ".join(str(v) for v in spec.values)
    return [_finding("error", f"{mn}.immediate", f"{spec.name} is {value}; it must be {allowed}",
                     spec.source, spec.name, value)]


def _alignment_findings(model: InstructionModel, spec: OperandSpec, base: str, offset: int,
                        align: int, constants: Mapping[str, int]) -> list[Finding]:
    mn = model.mnemonic
    rule = f"{mn}.alignment"
    if base in constants:
        address = constants[base] + offset
        if address % align:
            return [_finding("error", rule, f"address {address:#x} ({base} = "
                             f"{constants[base]:#x}{f' + {offset}' if offset else ''}) is not "
                             f"{align}-byte aligned", model.alignment_source, spec.name, address)]
        return []
    if offset % align:
        return [_finding("warning", rule, f"offset {offset} is not a multiple of {align}: the "
                         f"address is {align}-byte aligned only if {base} is "
                         f"{(-offset) % align} mod {align}", model.alignment_source, spec.name,
                         offset)]
    return []


def _stride_findings(model: InstructionModel, q: Mapping[str, str | None], spec: OperandSpec,
                     stride: int) -> list[Finding]:
    info = model.stride(q)
    if info is None:
        return []
    default, bits, frag = info
    rule = f"{model.mnemonic}.stride"
    out = []
    if stride < default:
        out.append(_finding("error", rule, f"stride {stride} is below the default {default} "
                            "(the leading dimension): undefined behaviour",
                            f"{_WSTORE}; {_WL}", spec.name, stride))
    if (stride * bits) % (8 * frag):
        out.append(_finding("error", rule, f"stride {stride} x {bits} bits = "
                            f"{stride * bits / 8:g} bytes is not a multiple of the fragment "
                            f"size, {frag} bytes", _WSTORE, spec.name, stride))
    return out


def _taddr_findings(model: InstructionModel, q: Mapping[str, str | None],
                    specs: list[OperandSpec], ops: list[tuple[str, int]],
                    constants: Mapping[str, int]) -> list[Finding]:
    """A constant ``taddr``: :func:`descriptors.isa.tmem.footprint`'s errors and warnings."""
    from . import tmem
    values: dict[str, str] = {spec.name: text for spec, (text, _) in zip(specs, ops)}
    m = _ADDR.match(values.get("taddr", ""))
    if m is None or m.group("base") not in constants:
        return []
    address = constants[m.group("base")] + (parse_immediate(m.group("off") or "0") or 0)
    imm = parse_immediate(values["immHalfSplitoff"]) if "immHalfSplitoff" in values else None
    if "immHalfSplitoff" in values and imm is None:
        return []
    op = model.mnemonic.split(".")[1]
    try:
        fp = tmem.footprint(op, q["shape"], q["num"], address, pack=bool(q.get("pack")),
                            unpack=bool(q.get("unpack")), imm_half_splitoff=imm)
    except ParameterError as exc:
        return [_finding("error", f"{model.mnemonic}.taddr", str(exc), model.vector_source,
                         "taddr", address)]
    return [_finding(f.severity, f"{model.mnemonic}.taddr", f"[{f.rule}] {f.message}",
                     f.source, "taddr", address)
            for f in fp.verdict if f.severity in ("error", "warning")]


#: ``check_instruction``'s default ``arch``: the model's own target (:attr:`InstructionModel
#: .default_arch`: sm_100a; sm_90a for wgmma.mma_async).
MODEL_ARCH = "model"


def check_instruction(text: Any, *, registers: Mapping[str, str] | None = None,
                      arch: str | None = MODEL_ARCH,
                      constants: Mapping[str, int] | None = None) -> list[Finding]:
    """Findings for one PTX instruction line: qualifier legality, vector size and register
    types (when ``registers`` maps names to declared types, see :func:`parse_registers`),
    operand list, address form and alignment, target architecture (``arch``; ``None`` skips;
    by default the model's own target, sm_100a -- sm_90a for wgmma.mma_async).
    ``constants`` maps register names to values known at compile time (a module reader's
    data flow): a constant address is then checked for alignment (an error, not a warning), a
    constant wmma stride against 9.7.14.4.2, and a constant tcgen05 ``taddr`` by
    :func:`descriptors.isa.tmem.footprint`.

    A line that cannot be read comes back as one ``instruction.syntax`` error (the message of
    :class:`InstructionError`), so a snippet file gets a verdict per line.  Severity ``error``
    means ptxas 13.0 refuses the line (the tests hold descgen to that).
    """
    try:
        p = parse_instruction(text)
    except InstructionError as exc:
        return [_finding("error", "instruction.syntax", str(exc), "PTX 9.7 (instruction syntax)")]
    if arch == MODEL_ARCH:
        arch = model_for(p.mnemonic).default_arch
    return check_parsed(p, registers=registers, arch=arch, constants=constants)

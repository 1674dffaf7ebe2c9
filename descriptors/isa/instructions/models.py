"""The model types of :mod:`descriptors.isa.instructions`: qualifier groups, constraints,
operands, the model of one instruction, and the register-type vocabulary they share."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from functools import cached_property

from ...structs import Struct, field
from ...errors import ParameterError
from ...rules.targets import ArchRequirement


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
    immediate in ``values``; ``lenient``: an immediate or a register of ``types`` that ptxas
    takes where the text writes nothing, a warning), ``bits`` (register width where it matters), present when
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
    operand_facts: Callable[[list[str]], dict[str, str | None]] | None = None  # pseudo-
    # qualifiers read from the operand texts (wgmma: ``a_src`` = ``desc`` or ``reg``)
    legal_note: bool = True  # ``descgen lint`` notes a legal line (``instruction.legal``);
    # tcgen05.mma/cp/commit/alloc lines have their descriptor checks' findings instead

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


def unique(values: Iterable[str]) -> tuple[str, ...]:
    """The values in the order first seen, each once."""
    return tuple(dict.fromkeys(values))

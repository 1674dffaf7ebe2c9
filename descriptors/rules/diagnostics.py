"""The diagnostic catalogue: every rule id descgen can report, each declared once.

What descgen reports is one type, :class:`Diagnostic` (a word's finding, ``validate``'s
``Finding``; a ``descgen lint`` finding at its line and column; a line of the cuda-gdb
commands), written by one formatter per output (:meth:`Diagnostic.__str__` for text,
:meth:`Diagnostic.to_dict` for JSON).  Each names its rule by id, ``<prefix>.<name>``.
:data:`DIAGNOSTICS` maps every such id to its declaration, a :class:`DiagnosticKind` (as
clang's diagnostic kinds): the default :class:`Severity`, the other severities
some caller reports it with (``overrides``), the public source of the rule (a PTX ISA section
or table, or the descgen tool whose own judgement it is), a one-line summary and, for some,
help.  ``descgen rules`` prints it.

Where the declarations come from:

* the descriptor word rules (``idesc.*``, ``smem.*``, ``zcm.*``, ``tmem.*`` of the Tensor
  Memory address word, ``wgmma.*`` of the sm_90a matrix descriptor, ``pair.*``: PTX ISA
  Tables 39-53, 9.7.15.5.1, 9.7.16) are the validators of :mod:`descriptors.rules.validate`;
  each ``@rule`` there declares its entry here as it registers (derived from the same
  arguments, never copied);
* everything else is declared below, as data: ``encode.field``; the ``tcgen05.ld``/``st``
  access rules of :func:`descriptors.isa.tmem.footprint` (``tmem.ld.*``, ``tmem.st.*``,
  9.7.16.8); the rules of the instruction models of :mod:`descriptors.isa.instructions`
  (``stmatrix.*`` 9.7.14.5.16, ``wmma.load.*`` 9.7.14.4.3, ``tcgen05.ld.*`` 9.7.16.8.3,
  ``tcgen05.st.*`` 9.7.16.8.4, ``wgmma.mma_async.*`` and ``wgmma.*`` 9.7.15.5.2,
  ``instruction.*``); what only ``descgen lint`` judges (``tcgen05.cta_group``,
  ``tcgen05.arch``, ``lint.*``); the cuda-gdb commands' own (``live.zero``,
  ``tmem.warp_lanes``).

Severity overrides: an id reports its default severity unless its declaration lists another
in ``overrides`` (``idesc.sparse_form`` is an error of the word, a warning or a note of a SASS
listing's idescE low word).  One override holds for every id: ``descgen lint`` reports a
finding that only some of an operand's possible values break as a ``note``, its message
starting :data:`SOME_PATHS` (whether each value can happen is not known).

``tests/unit/rules/test_diagnostics_catalogue.py`` holds the catalogue to the code: every id the sources
pass to an emitter, and every id ``lint`` and ``dump`` report over the fixtures, is declared,
with a severity the declaration allows; every declaration is used.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from ..structs import Struct

__all__ = ["Severity", "Diagnostic", "DiagnosticKind", "DIAGNOSTICS", "SOME_PATHS", "declare", "diagnostic"]


class Severity(StrEnum):
    """How bad a finding is, most severe first.  A ``str``: ``Severity.ERROR == "error"``, and
    text and JSON output carry the plain value."""

    #: The PTX text forbids it (or ptxas refuses it): the word or line is invalid.
    ERROR = "error"
    #: Allowed, but likely not what was meant (or the text forbids what ptxas accepts).
    WARNING = "warning"
    #: Information: what was assumed, what could not be judged, what holds on some paths.
    NOTE = "note"


class DiagnosticKind(Struct, frozen=True):
    """One declared rule: ``id`` (``<prefix>.<name>``), default ``severity``, ``source`` (the
    PTX ISA section or table the rule comes from, or the descgen tool whose judgement it is),
    ``summary`` (one line), ``help`` (what to do about it, or ``None``) and ``overrides`` (the
    other severities some caller reports it with)."""

    id: str
    severity: Severity
    source: str
    summary: str
    help: str | None = None
    overrides: tuple[Severity, ...] = ()

    @property
    def severities(self) -> tuple[Severity, ...]:
        """Every severity the rule is reported with: the default first."""
        return (self.severity, *self.overrides)

    def allows(self, severity: str, message: str = "") -> bool:
        """Whether a finding of this rule may have ``severity``: one of :attr:`severities`, or
        a note whose ``message`` starts with :data:`SOME_PATHS`."""
        return severity in self.severities or (severity == Severity.NOTE
                                               and message.startswith(SOME_PATHS))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (``descgen rules --format json``; schema ``rules``)."""
        return {"id": self.id, "severity": str(self.severity),
                "overrides": [str(s) for s in self.overrides], "source": self.source,
                "summary": self.summary, "help": self.help}


class Diagnostic(Struct, frozen=True):
    """One thing descgen reports: ``severity`` (a :class:`Severity` value), ``rule`` (an id of
    :data:`DIAGNOSTICS`), ``message`` and

    * about a word (``validate``, ``check``, the instruction and Tensor Memory models):
      ``source`` (the PTX ISA section or table), ``field`` with its ``bits`` (``[22:17]``) and
      ``value``;
    * about a line of a listing (``descgen lint``): ``file``, ``line`` and ``col`` (1-based;
      ``col`` of the operand; ``line`` 0 for a note about the whole file), ``instruction``
      (its text), ``operand`` (``idesc``, ``a_desc``, ``b_desc``, ``zcm``, ``s_desc``,
      ``taddr``, ``ncols``, ``registers``), ``word`` (hex, ``x``/``?`` for unknown nibbles)
      and ``evidence`` (the defining line, the decode).

    One formatter per output: ``str()`` for text, :meth:`to_dict` for JSON; each writes a
    located diagnostic (``file`` set) in the compiler's shape and a word's in the validator's.
    """

    severity: str
    rule: str
    message: str
    source: str | None = None
    field: str | None = None
    bits: str | None = None
    value: Any = None
    file: str | None = None
    line: int = 0
    col: int = 0
    instruction: str | None = None
    operand: str | None = None
    word: str | None = None
    evidence: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: ``file``, ``line``, ``col``, ``severity``, ``rule``, ``message``,
        ``instruction``, ``operand``, ``word``, ``evidence`` for a located diagnostic (schema
        ``lint``); ``severity``, ``rule``, ``message``, ``source``, ``field``, ``bits``,
        ``value`` for a word's (schema ``check``)."""
        if self.file is not None:
            return {"file": self.file, "line": self.line, "col": self.col,
                    "severity": self.severity, "rule": self.rule, "message": self.message,
                    "instruction": self.instruction, "operand": self.operand,
                    "word": self.word, "evidence": list(self.evidence)}
        return {"severity": self.severity, "rule": self.rule, "message": self.message,
                "source": self.source, "field": self.field, "bits": self.bits,
                "value": self.value}

    def __str__(self) -> str:
        """The text line: ``file:line:col: error: [rule] message`` (``file: ...`` for a note
        about the whole file), or ``error: [rule] field[bits]: message (source)``."""
        if self.file is not None:
            where = f"{self.file}:{self.line}:{self.col}" if self.line else self.file
            return f"{where}: {self.severity}: [{self.rule}] {self.message}"
        where = f" {self.field}{self.bits or ''}" if self.field else ""
        return f"{self.severity}: [{self.rule}]{where}: {self.message} ({self.source})"


#: What ``descgen lint`` writes before the message of a finding that only some of an operand's
#: possible values (``selp`` arms, paths meeting in SASS) break; it is then a note.
SOME_PATHS = "on some paths: "

#: Every rule id descgen can report, with its declaration.
DIAGNOSTICS: dict[str, DiagnosticKind] = {}


def diagnostic(rule_id: str, severity: str, source: str, summary: str, *,
               overrides: tuple[str, ...] = (), help: str | None = None) -> DiagnosticKind:
    """A :class:`DiagnosticKind` from plain strings; raises ``ValueError`` for a severity that is
    not one of :class:`Severity`, or an override that repeats the default."""
    default = Severity(severity)
    others = tuple(Severity(s) for s in overrides)
    if default in others or len(set(others)) != len(others):
        raise ValueError(f"{rule_id}: overrides {overrides} repeat a severity")
    return DiagnosticKind(rule_id, default, source, summary, help, others)


def declare(*diagnostics: DiagnosticKind) -> None:
    """Add declarations to :data:`DIAGNOSTICS`; raises ``ValueError`` for an id declared
    twice."""
    for d in diagnostics:
        if d.id in DIAGNOSTICS:
            raise ValueError(f"diagnostic {d.id} declared twice")
        DIAGNOSTICS[d.id] = d


def _declare(rule_id: str, severity: str, source: str, summary: str, *,
             overrides: tuple[str, ...] = (), help: str | None = None) -> None:
    declare(diagnostic(rule_id, severity, source, summary, overrides=overrides, help=help))


# ---------------------------------------------------------------------------- encoding

_declare("encode.field", "error", "Tables 40, 42-45, 9.7.15.5.1, 9.7.16.1.1",
         "every parameter of a word to encode fits its field (width, defined values)",
         help="the message names the field and what it takes")


# ---------------------------------------------------------------------------- tcgen05.ld / st

for _op in ("ld", "st"):
    _declare(f"tmem.{_op}.num", "note", "Table 47/48, 9.7.16.8.3-4",
             "registers per thread of .shape x .num: a note; lint: an error where the "
             "vector's size differs or the table has no such cell",
             overrides=("error",))
    _declare(f"tmem.{_op}.address", "warning", "9.7.16.1.1",
             "the base address uses lane bits 29-16 and column bits 15-0; CUTLASS byte-index "
             "bits 31-30 are reported")
    _declare(f"tmem.{_op}.lanes", "error", "9.7.16.1, 9.7.16.2.3",
             "every lane touched is below 128")
    _declare(f"tmem.{_op}.columns", "error", "9.7.16.1, 9.7.16.2.3",
             "every column touched is below 512")
    _declare(f"tmem.{_op}.warp_lanes", "error", "9.7.16.8.1",
             "warp w (warp id % 4) accesses lanes 32w..32w+31 only", overrides=("note",))
    _declare(f"tmem.{_op}.alloc", "error", "9.7.16.1.2, 9.7.16.7.1",
             "every column touched lies inside the allocation", overrides=("note",))
    _declare(f"tmem.{_op}.split", "note", "9.7.16.8.3-4",
             ".16x32bx2: second access at taddr + immHalfSplitoff", overrides=("warning",))
    _declare(f"tmem.{_op}.pack", "note", "9.7.16.8.2-4",
             ".pack::16b / .unpack::16b: each register covers two adjacent columns")
_declare("tmem.ld.red", "error", "9.7.16.8.3",
         ".red: .num >= .x2, shapes .32x32b/.16x32bx2, no .pack, sm_103f/sm_110f families",
         overrides=("note",))


# ---------------------------------------------------------------------------- instruction models

#: The rules every instruction model has (the model's mnemonic before the name), by name: the
#: summary.
_MODEL_RULES = {
    "qualifier": "the qualifiers are the syntax's: known, each group once, the required ones "
                 "present, in an order ptxas 13.0 accepts",
    "operands": "as many operands as the form takes",
    "operand": "each operand has the syntax's form (register, {vector}, immediate, predicate)",
    "register_type": "each register is declared with a type the instruction takes there",
    "vector": "the register vector has the size the qualifiers give",
    "address": "an address operand is [reg], [reg+imm] or [var], the register an integer of "
               "the width the operand takes",
    "immediate": "an immediate operand takes one of the values the syntax lists",
    "alignment": "a constant address is aligned as the instruction requires",
    "stride": "a constant stride is at least the leading dimension, and stride x element "
              "size a multiple of the fragment size (9.7.14.4.2)",
    "taddr": "a constant taddr obeys the access rules of tcgen05.ld/st (lanes, columns, "
             "split; the tmem.ld/st rule in the message)",
    "arch": "the form exists on the target (the section's Target ISA Notes)",
}
#: Help of the value rules: ptxas does not see the values.
_VALUE_HELP = ("a rule about an operand's value, known from the data flow: ptxas cannot judge "
               "it, and a form breaking it assembles")


def _model(mnemonic: str, section: str, **rules: str) -> None:
    """The rules of one instruction model: ``name="default,override,..."``."""
    for name, severities in rules.items():
        default, *others = severities.split(",")
        _declare(f"{mnemonic}.{name}", default, section, _MODEL_RULES[name],
                 overrides=tuple(others),
                 help=_VALUE_HELP if name in ("alignment", "stride", "taddr") else None)


_declare("instruction.syntax", "error", "9.7",
         "the line reads as one instruction: label, guard, mnemonic, qualifiers, operands")

_model("stmatrix", "9.7.14.5.16", qualifier="error,note", operands="error", operand="error",
       register_type="error", vector="error,warning", address="error",
       alignment="error,warning", arch="error")
_declare("stmatrix.num", "warning", "9.7.14.5.16",
         ".num is .x1, .x2 or .x4 (ptxas 13.0 also assembles .x8/.x16: a warning)")
_declare("stmatrix.shape_type", "error", "9.7.14.5.16",
         ".m16n8 takes .b8 only, .m8n8 .b16 only (ptxas)")
_declare("stmatrix.trans", "error", "9.7.14.5.16", ".m16n8 needs .trans")

_model("wmma.load", "9.7.14.4.3", qualifier="error,note", operands="error", operand="error",
       register_type="error", vector="error", address="error", alignment="error,warning",
       stride="error", arch="error")
_declare("wmma.load.type", "error", "9.7.14.4.3",
         "the element type is one the matrix (.a/.b/.c) and shape take (ptxas-only types: a "
         "warning)", overrides=("warning",))
_declare("wmma.load.layout", "error", "9.7.14.4.3",
         "the layout is one the matrix, shape and type take (.row or .col only for some)")

for _op, _section in (("ld", "9.7.16.8.3"), ("st", "9.7.16.8.4")):
    _model(f"tcgen05.{_op}", _section, qualifier="error,warning,note", operands="error",
           operand="error", register_type="error", vector="error", address="error",
           taddr="error,warning", arch="error")
    _declare(f"tcgen05.{_op}.num", "error", f"Table {47 if _op == 'ld' else 48}, {_section}",
             ".num is one the shape has (not an NA cell of the table)")
_declare("tcgen05.ld.type", "error", "9.7.16.8.3", "tcgen05.ld without .red loads .b32")
_declare("tcgen05.ld.red", "error", "9.7.16.8.3",
         ".red: .min/.max, type .f32/.u32/.s32, .32x32b or .16x32bx2, .num >= .x2, no "
         ".pack::16b; .abs and .NaN with .f32 only")

_model("wgmma.mma_async", "9.7.15.5.2", qualifier="error,warning,note", operands="error",
       operand="error,warning", register_type="error", vector="error", immediate="error",
       arch="error")
_declare("wgmma.type", "error", "9.7.15.5.2",
         ".btype and .dtype are ones the .atype's syntax (f16, bf16, tf32, fp8, integer, "
         "single-bit) lists")
_declare("wgmma.shape", "error", "9.7.15.5.2, 9.7.15.6",
         "the shape is m64nNkK with the K and N the type family (dense or .sp) takes")
_declare("wgmma.satfinite", "error", "9.7.15.5.2", ".satfinite for the integer wgmma only")
_declare("wgmma.sp", "error", "9.7.15.6", ".sp for the families that have a sparse wgmma")
_declare("wgmma.op", "error", "9.7.15.5.2", ".and.popc for the single-bit (.b1) wgmma only")

_model("tcgen05.mma", "9.7.16.10.9.1", qualifier="error,note", operands="error",
       operand="error,warning", register_type="error", vector="error", address="error",
       immediate="error", arch="error")
_declare("tcgen05.mma.ws", "error", "9.7.16.10.9.3",
         ".ws: cta_group::1, no block-scaled kind, no .ashift")
_declare("tcgen05.mma.collector", "error", "9.7.16.10.9",
         ".collector::a::op without .ws, .collector::b0..b3::op with .ws")
_declare("tcgen05.mma.block_scale", "error", "9.7.16.10.9.1",
         ".block_scale (and .scale_vectorsize) with the block-scaled kinds only, and required "
         "by them")
_declare("tcgen05.mma.scale_vec", "error", "9.7.16.10.7.1",
         ".scale_vectorsize is one the kind takes (ptxas 13.0)")
_declare("tcgen05.mma.ashift", "error", "9.7.16.10.9.1",
         ".ashift: no block-scaled kind, A from Tensor Memory, collector ::lastuse or "
         "::discard only (ptxas 13.0)")
_model("tcgen05.cp", "9.7.16.9.2", qualifier="error,note", operands="error", operand="error",
       register_type="error", address="error", arch="error")
_declare("tcgen05.cp.multicast", "error", "9.7.16.9.2",
         ".64x128b takes .warpx2::02_13/01_23, .32x128b .warpx4, the other shapes none")
_declare("tcgen05.cp.format", "error", "9.7.16.9.1",
         "decompression names .b8x16 and a source format (.b6x16_p32 or .b4x16_p64)")
_model("tcgen05.commit", "9.7.16.12.1", qualifier="error,note", operands="error",
       operand="error", register_type="error", address="error", arch="error")
_model("tcgen05.alloc", "9.7.16.7.1", qualifier="error,note", operands="error",
       operand="error", register_type="error", address="error", immediate="error",
       arch="error")
_model("tcgen05.dealloc", "9.7.16.7.1", qualifier="error,note", operands="error",
       operand="error", register_type="error", immediate="error", arch="error")
_model("tcgen05.relinquish_alloc_permit", "9.7.16.7.1", qualifier="error,note",
       operands="error", operand="error", register_type="error", arch="error")


# ---------------------------------------------------------------------------- descgen lint

_LINT = "descgen lint"

_declare("instruction.legal", "note", _LINT,
         "a modelled line with no error or warning: a legal form (ptxas 13.0 agrees with the "
         "models on every generated form)")
_declare("tcgen05.cta_group", "error", "9.7.16.12.1",
         "all tcgen05 instructions of a kernel use the same .cta_group")
_declare("tcgen05.arch", "error", "9.7.16",
         "tcgen05 instructions exist on sm_100a/sm_100f and later targets only",
         help="lint for the target the code is built for (--arch)")
_declare("lint.arch", "note", _LINT,
         "which target the arch-gated rules follow, and why (--arch, the input's target, or "
         "the default)")
_declare("lint.runtime", "note", _LINT,
         "a descriptor (or column count) computed at run time, wholly or partly: its "
         "run-time fields are not checked",
         help="judge the value live (descgen mma in cuda-gdb), or dump it where it is known")
_declare("lint.kind", "note", _LINT,
         "a SASS MMA opcode serves several kinds and the word is valid under only some")
_declare("lint.split", "note", _LINT,
         "a function longer than the reader's piece size is analysed in pieces: values "
         "carried over a boundary are unknown")
_declare("lint.budget", "note", _LINT,
         "a function whose data flow is past the reader's work budget (crafted or "
         "degenerate control flow): the values its registers hold are unknown, so its "
         "descriptors are judged as computed at run time")
_declare("lint.slow", "note", _LINT,
         "a function whose data flow took seconds: its name and the time, for a report")
_declare("lint.unjudged", "note", _LINT,
         "an instruction whose values the library refuses (malformed input), or a SASS "
         "suffix not seen in compiled code: not judged")
_declare("lint.nothing", "note", _LINT,
         "no instruction lint judges was found in the input (neither PTX nor SASS, or no "
         "tcgen05, wgmma or modelled instruction)")


# ---------------------------------------------------------------------------- cuda-gdb

_declare("live.zero", "note", "descgen mma (cuda-gdb)",
         "a wgmma matrix descriptor read live is all zero: not written yet, or the MMA nvcc -G "
         "adds at wgmma.commit_group")
_declare("tmem.warp_lanes", "note", "9.7.16.8.1",
         "descgen tmem (cuda-gdb): whether the focused warp may access the address's lane "
         "with tcgen05.ld/st (warp w: lanes 32w..32w+31)", overrides=("warning",))


# The descriptor word rules declare themselves as they register (``rule`` of validate), so
# the catalogue is whole whichever of the two modules is imported first.
from . import validate as _validate  # noqa: E402,F401

"""``descgen lint``: judge the descriptors in compiled tcgen05 code against the instruction that
uses them.

(Long: one short check per instruction family -- MMA, alloc, ld/st, cp, shift, wgmma -- over one
emitter, one way of judging several paths and one store of kept findings, which they share.)

:func:`lint_lines` reads a PTX module, bare PTX instruction lines or a SASS listing
(:mod:`descriptors.readers`, recognised by content), follows constant values as known bits, and
for every instruction checks its descriptor operands **for that instruction**:

* ``tcgen05.mma`` (dense, ``.sp``, ``.ws``, ``.block_scale``, ``cta_group::1/2``) -- the
  instruction descriptor with the instruction's kind, ``cta_group``, ``.ws`` and ``.sp``
  (:func:`descriptors.rules.validate.validate`: Table 39 shapes, types per kind, reserved bits, max
  shift, sparsity, ``.scale_vec``, target arch); the A/B shared memory descriptors' constant fields; when the
  words are known, the pair rules (:func:`~descriptors.rules.validate.pair_rules`); the
  zero-column mask of ``.ws`` with the idesc's M.  In SASS the opcode gives the context
  (:data:`SASS_MMA`; ``UTCHMMA`` is kind::f16 or kind::tf32, so the word is judged under both
  and an error is reported only when every candidate kind breaks a rule).  SASS has no ``.sp``
  suffix: a sparsity bit that disagrees with the idescE low word (0 for dense forms, the
  sparse metadata address for ``.sp``, as nvcc writes them) is a warning, not an error.
* ``tcgen05.alloc`` / ``tcgen05.dealloc`` -- a constant column count
  (:func:`descriptors.isa.tmem.check_alloc`).
* ``tcgen05.cp`` -- its shared memory descriptor (PTX and SASS ``UTCCP``).
* ``tcgen05.shift`` -- a constant ``taddr`` (lane aligned to 32, 9.7.16.9.3).
* ``tcgen05.ld`` / ``tcgen05.st`` -- in PTX the register vector against Tables 47/48; when
  the Tensor Memory address is constant, the access rules of
  :func:`descriptors.isa.tmem.footprint` (lanes, columns, ``.pack``/``.unpack``, ``.red``).
  SASS ``LDTM``/``STTM`` name their form in the opcode
  (:func:`descriptors.readers.sass.tmem_access`); each half of ``.16x32bx2`` is judged alone.
* every function: one ``.cta_group`` for all its tcgen05 instructions (9.7.16.12.1).
* ``stmatrix``, ``wmma.load``, ``tcgen05.ld`` / ``tcgen05.st`` (PTX) -- the instruction models
  of :mod:`descriptors.isa.instructions` (the rules ptxas agrees with on every generated form):
  qualifiers, operand list, vector size, register types (from the function's ``.reg``
  declarations), ``immHalfSplitoff``/``stride``, the target (the module's ``.target``, any
  ``sm_NN``, or ``--arch``); with constant operands, address alignment (stmatrix 16 bytes,
  wmma.load the fragment size) and wmma strides.  A line with no error or warning gets an
  ``instruction.legal`` note, so each line of a snippet of candidate forms has its verdict.

Known bits: a finding is reported only when it does not depend on the run-time bits: the
field it names is wholly constant, and the same finding (rule, field, message) comes out with
the unknown bits all 0 and with them all 1.  A descriptor computed entirely at run time
is a note (``lint.runtime``), never a guess.

Several values: where the reader gives an operand several possible values (``alternatives``:
one per ``selp`` arm or combination of them, each with the line that made it), every check
judges each alternative (every combination, for checks of several operands, up to
:data:`~descriptors.readers.values.MAX_ALTERNATIVES`; past that, what they all agree on).  A
finding of every alternative is reported as for one value, its evidence naming each; a finding
of only some is a note, its message prefixed ``on some paths:`` and its evidence naming the
alternatives that break the rule: whether each alternative can happen is not known (a select
on a kernel parameter -- CuTe DSL chooses the negate bits so for every kind, kind::i8 too --
or SASS paths that meet where control flow does).

One rule goes beyond the instructions themselves: a K step must not carry out of the 14-bit
start address (Table 40; ``advance_descriptor`` refuses such a step).  So in PTX a 64-bit
register defined once and otherwise only stepped by ``add``/``sub`` of an immediate below 2^14
(``add.s64 %rd34, %rd34, 8`` in a K loop), and a register derived from it by one such step,
keep the known bits above bit 15; so, in SASS, do shared memory descriptor (``gdesc``)
registers stepped by ``UIADD3 d, d, IMM`` (low word), ``UIADD3.X d, URZ, d`` (the high word
plus the low word's carry) and ``UIADD3.64 d, s, IMM``.  Their operands carry ``assumes`` and
the finding's evidence says so; no other operand gets the rule.

Each :class:`LintFinding` has the location (line and 1-based column of the operand), severity,
rule id (the validators' ids, plus ``lint.runtime`` for a run-time value, ``lint.kind`` for a
SASS word valid under only some candidate kinds, ``lint.unjudged`` for an instruction whose
values the library refuses (malformed input), ``lint.split`` for a function analysed in
pieces, ``lint.nothing`` for an input without tcgen05 instructions), message, instruction
text, operand name and the word (hex; ``x``/``?`` for unknown nibbles, see
:meth:`KnownBits.pattern <descriptors.readers.knownbits.KnownBits.pattern>`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import lru_cache
from itertools import product
from typing import Any, TypeVar

from ..structs import replace
from ..words.codec import decode
from ..words.enums import KINDS
from ..errors import DescgenError
from ..readers import Fact, Instruction, Operand, read
from ..readers.knownbits import KnownBits
from ..words.literals import parse_immediate
# SASS MMA opcode -> candidate kinds: a fact of the SASS text (isa.sass), re-exported
from ..isa.sass import SASS_MMA, cta_group, tmem_access, wgmma_shape
from ..isa.sites import MmaSite, ptx_cta_group
from ..readers.values import MAX_ALTERNATIVES, Alternative
from ..isa.tmem import ALLOC_MIN, check_alloc
from ..rules.diagnostics import Diagnostic
from ..rules.validate import SEVERITIES, Finding, pair_rules, validate
from ..rules.validate import ARCHES, TCGEN05_ARCHES
from ..rules.targets import DEFAULT_ARCH

__all__ = ["LintFinding", "located", "lint_lines", "check_instruction", "order", "Ordered", "SASS_MMA", "DEFAULT_ARCH"]

#: One diagnostic of ``descgen lint``: a :class:`~descriptors.rules.diagnostics.Diagnostic` at
#: its ``file``, ``line`` and ``col``, with the ``instruction``, ``operand``, ``word`` and
#: ``evidence`` (:func:`located`).
LintFinding = Diagnostic


def located(file: str, line: int, col: int, severity: str, rule: str, message: str,
            instruction: str, operand: str | None = None, word: str | None = None,
            evidence: tuple[str, ...] = ()) -> Diagnostic:
    """A diagnostic at ``file:line:col`` (``line`` 0: about the whole file), about
    ``instruction``'s ``operand`` (its ``word`` in hex; ``evidence``: the lines that show
    it)."""
    return Diagnostic(severity, rule, message, file=file, line=line, col=col,
                      instruction=instruction, operand=operand, word=word, evidence=evidence)


#: What the instruction says about its descriptors: its site (:class:`MmaSite`), its
#: ``kinds`` narrowed to those the instruction descriptor's type fields allow
#: (:func:`_narrow_kinds`).
_Context = MmaSite


def _scale_vec(ctx: _Context, kind: str) -> dict[str, str]:
    """The ``scale_vec`` context for a block-scaled kind (none for the others)."""
    return {"scale_vec": ctx.scale_vec} if ctx.scale_vec and KINDS[kind].block_scaled else {}


# ---------------------------------------------------------------------------- certain findings

def _validated(descriptor: str, word: int, **context: Any) -> tuple[Finding, ...]:
    """:func:`~descriptors.rules.validate.validate` of one word in one context.  Not kept: the
    MMAs of an unrolled loop that name the same words are judged once already, by the memo of
    each check (:func:`_kept`); a cache here measured no gain (tests/benchmarks/bench_caches.py,
    ``lint sass`` 0.96x-1.05x without it)."""
    return tuple(validate(descriptor, word, **context))


def _pair_rules(idesc: int, kind: str, a_desc: int | None,
                b_desc: int | None) -> tuple[Finding, ...]:
    """:func:`~descriptors.rules.validate.pair_rules` (the words are judged on their own
    apart); not kept, as :func:`_validated` is not."""
    return tuple(pair_rules(idesc, kind=kind, a_desc=a_desc, b_desc=b_desc))


def _field_known(layout_fields, name: str | None, kb: KnownBits) -> bool:
    if name is None:
        return True
    f = layout_fields.get(name)
    if f is None:
        return True
    mask = ((1 << f.width) - 1) << f.lsb
    return kb.known & mask == mask


def _certain(check, words: dict[str, KnownBits]) -> list[Finding]:
    """Findings of ``check(**words)`` that hold for every value of the unknown bits (the same
    finding with the unknown bits all 0 and all 1)."""
    if all(kb.is_const for kb in words.values()):  # no unknown bit: one run says it all
        return list(check(**{k: kb.value for k, kb in words.items()}))
    runs = []
    for fill in (0, -1):
        runs.append(check(**{k: kb.fill(fill) for k, kb in words.items()}))
    keep = []
    other = {(f.severity, f.rule, f.field, f.message) for f in runs[1]}
    for f in runs[0]:
        if (f.severity, f.rule, f.field, f.message) in other:
            keep.append(f)
    return keep


# ---------------------------------------------------------------------------- the checks

class _Emitter:
    def __init__(self, file: str, ins: Instruction) -> None:
        self.file, self.ins = file, ins
        self.out: list[Diagnostic] = []

    def add(self, sev: str, rule: str, message: str, op: Operand | None, name: str | None,
            word: str | None, evidence: tuple[str, ...] = ()) -> None:
        ev = list(evidence)
        if op is not None and (op.origin is not None or word is not None):
            ev.insert(0, _where(name, op, word))
        self.out.append(located(self.file, self.ins.line, op.col if op else self.ins.col,
                                 sev, rule, message, self.ins.text, name, word, tuple(ev)))


class _Recorder:
    """An emitter that keeps each call as data (the operand as its position in ``ops``), for
    :func:`_kept`."""

    def __init__(self, ins: Instruction, ops: tuple[Operand | None, ...]) -> None:
        self.ins, self.ops = ins, ops
        self.calls: list[tuple] = []
        #: a finding about an operand other than ``ops``: the calls hold only for this
        #: instruction (not kept)
        self.own: list[Operand] = []

    def add(self, sev: str, rule: str, message: str, op: Operand | None, name: str | None,
            word: str | None, evidence: tuple[str, ...] = ()) -> None:
        k = None if op is None else next((i for i, o in enumerate(self.ops) if o is op), None)
        if op is not None and k is None:
            k = -1 - len(self.own)
            self.own.append(op)
        self.calls.append((sev, rule, message, k, name, word, tuple(evidence)))


#: What a check found for one key (the words it read and its context), as the calls it made to
#: its emitter: the MMAs of an unrolled loop read the same words, each one judged once.
_KEPT: dict[tuple, tuple[tuple[tuple, ...], Any]] = {}


def _kept(em: _Emitter, key: tuple, check: Callable[..., _R], *ops: Operand | None) -> _R:
    """``check(em, *ops)``, whose findings and result depend on nothing but ``key``: worked out
    once per key, then its findings replayed on each instruction's own operands (their
    lines, columns and origins)."""
    got = _KEPT.get(key)
    own: list[Operand] = []
    if got is None:
        rec = _Recorder(em.ins, ops)
        result = check(rec, *ops)
        got = (tuple(rec.calls), result)
        own = rec.own
        if not own:
            if len(_KEPT) >= 4096:
                _KEPT.clear()
            _KEPT[key] = got
    calls, result = got
    for sev, rule, message, k, name, word, evidence in calls:
        op = None if k is None else ops[k] if k >= 0 else own[-1 - k]
        em.add(sev, rule, message, op, name, word, evidence)
    return result


def _value(op: Operand | None) -> KnownBits | None:
    return None if op is None else op.value


def _where(name: str | None, op: Operand, word: str | None) -> str:
    """Evidence: the operand's word and the line that made it (``idesc = 0x.. from line N:
    ...``)."""
    if op.origin is None:
        return f"{name} = {word}"
    if not op.origin[0]:  # no line: a live register's value (descriptors.readers.sass.read_live)
        return f"{name} = {word} from {op.origin[1]}"
    return (f"{name} = {word} from line {op.origin[0]}: {op.origin[1]}"
            + (f" ({op.assumes})" if op.assumes else ""))


# ---------------------------------------------------------------------------- several values

_R = TypeVar("_R")
_Named = Sequence[tuple[str | None, Operand | None]]


def _paths(ops: _Named) -> list[tuple[Operand | None, ...]]:
    """The operands once per path: a tuple per combination of their alternatives, each operand
    then holding one alternative's bits, origin and assumption (an operand with no
    alternatives, or ``None``, stays as it is).  Past :data:`MAX_ALTERNATIVES` combinations, or
    where more than one operand has alternatives (the readers do not say which alternative of
    one goes with which of another: a combination may be of no path), one tuple of the
    operands as they are (their ``value``: what the alternatives agree on), so nothing is
    reported that only an impossible combination breaks."""
    count = 1
    varying = 0
    for _, op in ops:
        if op is not None and op.alternatives:
            count *= len(_judged(op))
            varying += 1
    if count == 1 and varying:  # one alternative written: the value the instruction reads
        return [tuple(op if op is None or not op.alternatives else _taking(op, _judged(op)[0])
                      for _, op in ops)]
    if count == 1 or count > MAX_ALTERNATIVES or varying > 1:
        return [tuple(op for _, op in ops)]
    choices = [[op] if op is None or not op.alternatives else
               [_taking(op, a) for a in _judged(op)]
               for _, op in ops]
    return list(product(*choices))


def _judged(op: Operand) -> tuple[Alternative, ...]:
    """The alternatives of an operand that are judged (:attr:`Operand.judged
    <descriptors.readers.Operand.judged>`)."""
    return op.judged


_GUARDED = ("assuming the predicated writes of its value happened, as the instruction reading it "
            "is guarded alike")


def _taking(op: Operand, a: Alternative) -> Operand:
    """``op`` holding one alternative."""
    assumes = a.assumes or op.assumes
    if any(x.skipped for x in op.alternatives) and not a.skipped:
        assumes = f"{assumes}; {_GUARDED}" if assumes else _GUARDED
    return replace(op, value=a.bits, origin=a.origin or op.origin, assumes=assumes,
                   alternatives=())


def _judge(em: _Emitter, ops: _Named, check: Callable[..., _R]) -> list[_R]:
    """``check(emitter, *operands)`` once per path of ``ops`` (:func:`_paths`; each is
    ``(name, operand)``), its results in order.  With one path the findings go to ``em`` as
    they are; with several, a finding (severity, rule, operand, message) of every path is
    reported once, a finding of some paths once with ``on some paths:`` before its message,
    and the evidence names the paths' alternatives."""
    paths = _paths(ops)
    if len(paths) == 1:
        return [check(em, *paths[0])]
    runs = []
    for path in paths:
        sub = _Emitter(em.file, em.ins)
        runs.append((path, sub, check(sub, *path)))
    hits: dict[tuple[str, str, str | None, str], list[tuple[int, LintFinding]]] = {}
    for i, (_, sub, _) in enumerate(runs):
        for f in sub.out:
            hits.setdefault((f.severity, f.rule, f.operand, f.message), []).append((i, f))
    names = [name for name, _ in ops]
    for (severity, rule, operand, message), found in hits.items():
        every = len({i for i, _ in found}) == len(paths)
        evidence: dict[str, None] = {}
        for i, f in found:
            for name, plain, o in zip(names, (op for _, op in ops), runs[i][0]):
                # the alternative this path takes of another operand than the finding's
                if o is not plain and o is not None and o.value is not None and \
                        name != operand and o.col != f.col:
                    evidence[_where(name, o, o.value.pattern())] = None
            evidence.update(dict.fromkeys(f.evidence))
        words = list(dict.fromkeys(f.word for _, f in found if f.word is not None))
        at = names.index(operand) if operand in names else None
        values = [runs[i][0][at] for i, _ in found] if at is not None else []
        # a finding of only some alternatives is a note: whether each can happen is not known
        # (SASS: paths meet where control flow does, and a register reused across a loop looks
        # the same; PTX: a select on a kernel parameter, as CuTe DSL chooses the negate bits
        # for every kind, kind::i8 too, whose host code never sets them)
        if not every and severity != "note":
            severity = "note"
        em.out.append(replace(found[0][1], severity=severity, word=_one_word(words, [
            o.value if o is not None else None for o in values]),
            message=message if every else f"on some paths: {message}",
            evidence=tuple(evidence)))
    return [r for _, _, r in runs]


def _one_word(words: list[str], values: Sequence[KnownBits | None]) -> str | None:
    """The word of a finding of several paths: theirs when they agree; else, for hex words,
    what the paths' ``values`` agree on (``x``/``?`` for the rest), other words joined by
    ``or``."""
    if len(words) <= 1:
        return words[0] if words else None
    if words[0].startswith("0x") and values and None not in values:
        kb = values[0]
        for other in values[1:]:
            kb = kb.meet(other.resize(kb.width))  # type: ignore[union-attr]
        return kb.resize(4 * (len(words[0]) - 2)).pattern()  # type: ignore[union-attr]
    return " or ".join(words)


def _fmt(f: Finding) -> str:
    where = f"{f.field}{f.bits or ''}: " if f.field else ""
    return f"{where}{f.message} ({f.source})"


def _summary(descriptor: str, word: int, kind: str | None) -> str:
    try:
        d = decode(descriptor, word, kind=kind)
    except DescgenError:
        return ""
    v = d.values
    if descriptor == "idesc":
        def name(f: str) -> str:  # a code the kind has no type for: the code, not None
            return str(v[f]) if v.get(f) is not None else f"code {d.fields.get(f)} (no type)"
        ab = f"{name('a_type')} x {name('b_type')}"
        dt = name("d_type") if "d_type" in d.fields else "f32"
        return f"decoded as kind::{kind}: {ab} -> {dt}, M={v.get('m')} N={v.get('n')}" + \
            (", sparse" if v.get("sparse") else "")
    if descriptor == "smem":
        return (f"decoded: swizzle {v.get('swizzle')}, LBO {v.get('leading_byte_offset_bytes')} B, "
                f"SBO {v.get('stride_byte_offset_bytes')} B, start {v.get('start_address_bytes'):#x}")
    return ""


def _check_mma(em: _Emitter, ins: Instruction, ctx: _Context, arch: str) -> None:
    def by_role(role: str) -> Operand | None:
        o = ctx.operand(role)
        return ins.operands[o.index] if o is not None and o.index < len(ins.operands) else None
    a, b, idesc, low = by_role("a_desc"), by_role("b_desc"), by_role("idesc"), None
    zcm = by_role("zcm") if ctx.ws else None
    if ins.dialect == "sass":
        # .sp has no SASS suffix: ctx.sp stays unknown; the idescE low word only hints at it
        # (nvcc writes 0 for dense forms and the metadata address for .sp), see _check_idesc
        low = by_role("sp_meta")
        if zcm is not None and zcm.value is None:
            zcm = None
    if len(ctx.kinds) > 1 and idesc is not None and idesc.value is not None \
            and idesc.value.width == 32 and not idesc.value.is_unknown:
        ctx = _narrow_kinds(ctx, idesc.value, arch)  # the kinds every alternative's types allow
    m_of: dict[KnownBits | None, int | None] = {}  # the idesc's M, by the alternative's bits
    # what the checks below read besides the words (their findings are kept by it: _kept)
    context = (ctx.kinds, ctx.cta_group, ctx.ws, ctx.sp, ctx.block_scale, ctx.scale_vec,
               ctx.label, ins.dialect, arch)
    low_bits = _value(low)

    def idesc_check(sub: _Emitter, op: Operand | None) -> int | None:
        m = m_of[_value(op)] = _kept(sub, ("idesc", context, _value(op), low_bits),
                                     lambda e, o: _check_idesc(e, ctx, o, arch, low), op)
        return m

    def pair_check(sub: _Emitter, i: Operand | None, x: Operand | None,
                   y: Operand | None) -> None:
        _kept(sub, ("pair", context, _value(i), _value(x), _value(y)),
              lambda e, *ops: _check_pair(e, ctx, *ops, arch), i, x, y)

    ms = set(_judge(em, [("idesc", idesc)], idesc_check))
    for name, op in (("a_desc", a), ("b_desc", b)):
        _judge(em, [(name, op)], lambda sub, o, name=name: _smem(sub, o, name, arch))
    _judge(em, [("idesc", idesc), ("a_desc", a), ("b_desc", b)], pair_check)
    if zcm is not None and zcm.value is not None:
        if len(ms) == 1:  # one M whatever the idesc's alternative
            _judge(em, [("zcm", zcm)], lambda sub, z: _check_zcm(sub, z, next(iter(ms)), arch))
        else:  # the mask of each alternative with the M of each idesc alternative
            _judge(em, [("idesc", idesc), ("zcm", zcm)],
                   lambda sub, i, z: _check_zcm(sub, z, m_of.get(i.value if i else None), arch))


#: Rules whose breach means the word is not of that kind at all (its type codes or scale type
#: are not defined for it), used to tell the kinds one SASS opcode serves apart.
_KIND_RULES = frozenset({"idesc.types", "idesc.scale_type"})


def _narrow_kinds(ctx: _Context, kb: KnownBits, arch: str) -> _Context:
    """The site with the candidate kinds of a SASS opcode that the word's own type fields
    allow: ``UTCHMMA`` is kind::f16 when A/B are f16 or bf16 (codes 0, 1) and kind::tf32 when
    they are tf32 (code 2), Table 42.  A kind is dropped only when the word certainly breaks
    one of :data:`_KIND_RULES` for it and another kind remains; the label then names the
    kind."""
    keep = _kinds_allowed(ctx.kinds, ctx.cta_group, ctx.ws, ctx.sp, ctx.scale_vec, kb, arch)
    if keep and len(keep) < len(ctx.kinds):
        return replace(ctx, kinds=tuple(keep))
    return ctx


# kept per word and context: bench_caches.py's ``lint sass`` row, 1.05x without it
@lru_cache(maxsize=1024)
def _kinds_allowed(kinds: tuple[str, ...], cta_group: int | None, ws: bool, sp: bool | None,
                   scale_vec: str | None, kb: KnownBits, arch: str) -> tuple[str, ...]:
    """The kinds of ``kinds`` the word does not certainly break one of :data:`_KIND_RULES`
    for (:func:`_narrow_kinds`)."""
    keep = []
    for kind in kinds:
        extra = {"scale_vec": scale_vec} if scale_vec and KINDS[kind].block_scaled else {}

        def check(idesc: int, kind: str = kind) -> Sequence[Finding]:
            return _validated("idesc", idesc, kind=kind, arch=arch, cta_group=cta_group,
                              ws=ws, sp=sp, **extra)
        try:
            broken = any(f.rule in _KIND_RULES and f.severity == "error"
                         for f in _certain(check, {"idesc": kb}))
        except DescgenError:
            broken = False
        if not broken:
            keep.append(kind)
    return tuple(keep)


def _check_idesc(em: _Emitter, ctx: _Context, op: Operand | None, arch: str,
                 low: Operand | None) -> int | None:
    if op is None or op.value is None or not ctx.kinds or op.value.width != 32:
        return None  # (a 64-bit register where a 32-bit descriptor belongs: malformed input)
    kb = op.value
    word = kb.pattern()
    if kb.is_unknown:
        em.add("note", "lint.runtime", "instruction descriptor is computed at run time; not checked",
               op, "idesc", word)
        return None
    per_kind: dict[str, list[Finding]] = {}
    for kind in ctx.kinds:
        lay = {f.name: f for f in _layout(kind).fields}

        def check(idesc: int, kind: str = kind) -> Sequence[Finding]:
            return _validated("idesc", idesc, kind=kind, arch=arch, cta_group=ctx.cta_group,
                            ws=ctx.ws, sp=ctx.sp, **_scale_vec(ctx, kind))
        per_kind[kind] = [f for f in _certain(check, {"idesc": kb})
                          if _field_known(lay, f.field, kb)]
    if not kb.is_const:
        em.add("note", "lint.runtime", "instruction descriptor is partly computed at run time; "
               "only its constant fields are checked", op, "idesc", word)
    valid = [k for k, fs in per_kind.items() if not any(f.severity == "error" for f in fs)]
    prefix = ctx.label
    if valid:
        kind = valid[0]
        for f in per_kind[kind]:
            if f.severity == "warning":
                em.add("warning", f.rule, f"{prefix}: {_fmt(f)}", op, "idesc", word)
        if len(ctx.kinds) > 1 and len(valid) < len(ctx.kinds):
            em.add("note", "lint.kind", f"{prefix}: the word is valid as "
                   + " or ".join(f"kind::{k}" for k in valid) + " only", op, "idesc", word)
    else:
        # every candidate kind breaks a rule: report the reading(s) with the fewest errors
        errors = {k: [f for f in fs if f.severity == "error"] for k, fs in per_kind.items()}
        fewest = min(len(e) for e in errors.values())
        best = [k for k, e in errors.items() if len(e) == fewest]
        seen: dict[tuple[str, str], list[str]] = {}
        for kind in best:
            for f in errors[kind]:
                seen.setdefault((f.rule, _fmt(f)), []).append(kind)
        others = tuple(f"as kind::{k} it breaks " + ", ".join(sorted({f.rule for f in e}))
                       for k, e in errors.items() if k not in best)
        for (rule, msg), kinds in seen.items():
            who = "" if len(ctx.kinds) == 1 else \
                ("as " + " or ".join(f"kind::{k}" for k in kinds) + ": ")
            ev = tuple(s for s in (_summary("idesc", kb.fill(0), k) for k in kinds) if s) \
                if kb.is_const else ()
            em.add("error", rule, f"{prefix}: {who}{msg}", op, "idesc", word, ev + others)
    if em.ins.dialect == "sass" and low is not None and low.value is not None:
        _sass_sparse_hint(em, ctx, op, kb, low.value, prefix, word)
    if not valid or not kb.is_const:
        return None  # the zero-column mask is judged with M only from a valid descriptor
    try:
        m = decode("idesc", kb.fill(0), kind=valid[0]).values["m"]
    except DescgenError:
        m = None
    return m


def _sass_sparse_hint(em: _Emitter, ctx: _Context, op: Operand, kb: KnownBits, low: KnownBits,
                      prefix: str, word: str) -> None:
    """SASS has no .sp suffix: nvcc writes 0 into the idescE low word of a dense MMA and the
    sparse metadata TMEM address for .sp.  A sparsity bit that disagrees with a constant low
    word is a warning (the word alone cannot prove which form the instruction is); with a
    low word computed at run time, which production kernels have for dense MMAs, a note."""
    f = _layout(ctx.kinds[0]).by_name["sparse"]
    if not kb.known >> f.lsb & 1:
        return
    sparse = bool(kb.one >> f.lsb & 1)
    zero_low = low.is_const and low.value == 0
    if sparse and zero_low:
        em.add("warning", "idesc.sparse_form", f"{prefix}: the sparsity bit is set but the "
               "idescE low word (the sparse metadata TMEM address) is 0, which is what nvcc "
               "writes for a dense tcgen05.mma (Table 42)", op, "idesc", word)
    elif not sparse and not zero_low:
        # a run-time low word is common in dense production kernels (the register is reused):
        # only a constant non-zero one is evidence enough for a warning
        em.add("warning" if low.is_const else "note", "idesc.sparse_form",
               f"{prefix}: the sparsity bit is 0 but the "
               f"idescE low word is {'a run-time value' if not low.is_const else hex(low.value)}"
               ", as nvcc writes the sparse metadata TMEM address for tcgen05.mma.sp "
               "(dense forms get 0) (Table 42)", op, "idesc", word)


def _layout(kind: str):
    from ..words.layouts import LAYOUTS
    return LAYOUTS[KINDS[kind].layout]


def _smem(em: _Emitter, op: Operand | None, name: str, arch: str,
          descriptor: str = "smem") -> None:
    """:func:`_check_smem`, its findings kept by the word (:func:`_kept`)."""
    _kept(em, ("smem", _value(op), name, arch, descriptor),
          lambda e, o: _check_smem(e, o, name, arch, descriptor), op)


def _check_smem(em: _Emitter, op: Operand | None, name: str, arch: str,
                descriptor: str = "smem") -> None:
    """A shared memory descriptor operand: tcgen05's ``smem`` word, or (``descriptor="wgmma"``)
    the sm_90a wgmma matrix descriptor; its known fields judged, the unknown ones named."""
    if op is None or op.value is None:
        return
    kb = op.value
    if kb.width < 64:
        kb = kb.resize(64)
    word = kb.pattern()
    label = {"a_desc": "A", "b_desc": "B"}.get(name, "source")
    if kb.is_unknown:
        em.add("note", "lint.runtime", f"{label} shared memory descriptor is computed at run "
               "time; not checked", op, name, word)
        return
    from ..words.layouts import LAYOUTS
    fields = LAYOUTS[descriptor].fields
    lay = {f.name: f for f in fields}
    fs = [f for f in _certain(lambda w: _validated(descriptor, w, arch=arch), {"w": kb})
          if _field_known(lay, f.field, kb)]
    if not kb.is_const:
        unknown = [f.name for f in fields if not _field_known(lay, f.name, kb)]
        em.add("note", "lint.runtime", f"{label} shared memory descriptor: "
               + ", ".join(unknown) + " computed at run time; the constant fields are checked",
               op, name, word)
    for f in fs:
        if f.severity in ("error", "warning"):
            em.add(f.severity, f.rule, f"{label} descriptor: {_fmt(f)}", op, name, word)


def _check_pair(em: _Emitter, ctx: _Context, idesc: Operand | None, a: Operand | None,
                b: Operand | None, arch: str) -> None:
    if idesc is None or idesc.value is None or not idesc.value.is_const:
        return
    words: dict[str, KnownBits] = {"idesc": idesc.value}
    for name, op in (("a_desc", a), ("b_desc", b)):
        if op is not None and op.value is not None and not op.value.is_unknown:
            words[name] = op.value if op.value.width == 64 else op.value.resize(64)
    if len(words) == 1:
        return
    results = []
    for kind in ctx.kinds:
        def check(kind: str = kind, **w: int) -> list[Finding]:
            return list(_pair_rules(w["idesc"], kind, w.get("a_desc"), w.get("b_desc")))
        try:
            results.append(_certain(check, words))
        except DescgenError:
            return
    common = [f for f in results[0] if all(f in r for r in results[1:])]
    for f in common:
        if f.severity in ("error", "warning"):
            op = a if f.message.startswith("A") else b
            em.add(f.severity, f.rule, f"{ctx.label}: {_fmt(f)}", op,
                   "a_desc" if op is a else "b_desc", op.value.pattern() if op and op.value else None)


def _check_zcm(em: _Emitter, op: Operand, m: int | None, arch: str) -> None:
    kb = op.value
    assert kb is not None
    if kb.width < 64:
        kb = kb.resize(64)
    word = kb.pattern()
    if kb.is_unknown:
        em.add("note", "lint.runtime", "zero-column mask descriptor is computed at run time; "
               "not checked", op, "zcm", word)
        return
    from ..words.layouts import ZCM
    lay = {f.name: f for f in ZCM.fields}
    params = {"m": m} if m is not None else {}
    fs = [f for f in _certain(lambda w: _validated("zcm", w, arch=arch, **params), {"w": kb})
          if _field_known(lay, f.field, kb)]
    for f in fs:
        if f.severity in ("error", "warning"):
            em.add(f.severity, f.rule, f"zero-column mask: {_fmt(f)}"
                   + (f" (M={m} from the instruction descriptor)" if m is not None else ""),
                   op, "zcm", word)


def _check_alloc(em: _Emitter, ins: Instruction) -> None:
    """``tcgen05.alloc``/``dealloc``: the column count (PTX operand 2)."""
    _check_ncols(em, ins.operands[1] if len(ins.operands) > 1 else None,
                 f"{ins.opcode.split('.')[0]}.{ins.opcode.split('.')[1]}", 1)


#: Columns one unit of ``UTCATOMSWS.FIND_AND_SET.ALIGN``'s count stands for: nvcc 13.0 writes
#: tcgen05.alloc's nCols in allocation units (128 columns: ``UMOV UR4, 0x4``; fixtures/sass-forms),
#: the 32-column unit of 9.7.16.1.2.
_SASS_ALLOC_UNIT = ALLOC_MIN


def _check_sass_alloc(em: _Emitter, ins: Instruction) -> None:
    """``UTCATOMSWS[.2CTA].FIND_AND_SET.ALIGN UPp, URd, URs`` (tcgen05.alloc): the column
    count in URs, in units of 32 columns, judged as nCols (9.7.16.7.1)."""
    _check_ncols(em, ins.operands[-1] if len(ins.operands) >= 3 else None,
                 f"{ins.opcode} (tcgen05.alloc, nCols in units of {_SASS_ALLOC_UNIT})",
                 _SASS_ALLOC_UNIT)


def _check_ncols(em: _Emitter, op: Operand | None, label: str, unit: int) -> None:
    """A column count (``unit`` columns per unit of the operand) against
    :func:`descriptors.isa.tmem.check_alloc`; a run-time count is a note."""
    if op is None or op.value is None:
        return
    if not op.value.is_const:
        em.add("note", "lint.runtime", "column count is computed at run time; not checked", op,
               "ncols", op.value.pattern())
        return
    ncols = op.value.value * unit
    for f in check_alloc(ncols):
        em.add(f.severity, f.rule, f"{label}: {f.message} ({f.source})", op, "ncols", str(ncols))


_LDST = re.compile(r"tcgen05\.(ld|st)\b.*?\.(\d+x\d+b(?:x2)?)\.x(\d+)")


def _check_ldst(em: _Emitter, ins: Instruction, arch: str) -> None:
    """tcgen05.ld/st: the register vector against Tables 47/48, and the access's footprint
    (:func:`descriptors.isa.tmem.footprint`) when the Tensor Memory address is constant."""
    from ..errors import ParameterError
    from ..isa.tmem import registers
    m = _LDST.match(ins.opcode)
    if m is None:
        return
    op, shape, num = m.group(1), m.group(2), int(m.group(3))
    ops = list(ins.operands)
    vec = next((o for o in ops if o.text.startswith("{")), None)
    addr = next((o for o in ops if o.memory), None)
    imm = None
    if shape.endswith("x2") and addr is not None:
        rest = [o for o in ops if o is not addr and o is not vec]
        imm = rest[0].value.value if rest and rest[0].value is not None and rest[0].value.is_const \
            else None
    try:
        regs = registers(shape, num, op)
    except ParameterError as exc:
        em.add("error", f"tmem.{op}.num", f"{ins.opcode}: {exc}", None, None, None)
        return
    if vec is not None:
        n = len([r for r in vec.text.strip("{}").split(",") if r.strip()])
        if n != regs:
            em.add("error", f"tmem.{op}.num", f"{ins.opcode}: the vector has {n} registers; "
                   f".{shape}.x{num} moves {regs} per thread (Table {47 if op == 'ld' else 48})",
                   vec, "registers", str(n))
    if shape.endswith("x2") and imm is None:
        return
    red = (re.search(r"\.(min|max)\b", ins.opcode) or [None, None])[1] \
        if ".red" in ins.opcode else None
    red_type = (re.search(r"\.([us]32|f32)$", ins.opcode) or [None, "f32"])[1]
    _check_footprint(em, ins.opcode, addr, op, shape, num, pack=".pack::16b" in ins.opcode,
                     unpack=".unpack::16b" in ins.opcode, red=red, red_type=red_type,
                     imm=imm, arch=arch)


def _check_footprint(em: _Emitter, what: str, addr: Operand | None, op: str, shape: str,
                     num: int, half: bool = False, **access: Any) -> None:
    """:func:`_footprint`, its findings kept by the access and the address (:func:`_kept`)."""
    _kept(em, ("footprint", what, _value(addr), op, shape, num, half, *sorted(access.items())),
          lambda e, a: _footprint(e, what, a, op, shape, num, half, **access), addr)


def _footprint(em: _Emitter, what: str, addr: Operand | None, op: str, shape: str,
               num: int, half: bool = False, **access: Any) -> None:
    """The access rules of :func:`descriptors.isa.tmem.footprint` for a constant Tensor
    Memory address (lanes, columns, the warp's lane quarter, ``.pack``, ``.red``).  ``half``:
    one half of a ``.16x32bx2`` access alone (SASS), given as both halves at the same address
    (``immHalfSplitoff`` 0) with the pairing rule left out: that one is not visible here."""
    from ..errors import ParameterError
    from ..isa.tmem import footprint
    if addr is None or addr.value is None or not addr.value.is_const:
        return
    imm, arch = access.pop("imm"), access.pop("arch")
    try:
        fp = footprint(op, shape, num, addr.value.value, imm_half_splitoff=imm, arch=arch,
                       **access)
    except ParameterError as exc:
        em.add("error", f"tmem.{op}.num", f"{what}: {exc}", addr, "taddr", addr.value.pattern())
        return
    for f in fp.verdict:
        if f.severity in ("error", "warning") and not (half and f.rule.endswith(".split")):
            em.add(f.severity, f.rule, f"tcgen05.{op}: {f.message} ({f.source})", addr, "taddr",
                   addr.value.pattern())


def _check_sass_ldst(em: _Emitter, ins: Instruction, arch: str) -> None:
    """``LDTM``/``STTM``: the tcgen05.ld/st the opcode says
    (:func:`descriptors.readers.sass.tmem_access`), judged by its footprint when the Tensor
    Memory address is constant.  Each half of ``.16x32bx2`` is its own instruction at its own
    address (``tmem[URn+0x10]``): judged as a ``.16x32b`` access there.  The register vector
    is not in the listing (one register is printed)."""
    acc = tmem_access(ins.opcode)
    if acc is None:
        em.add("note", "lint.unjudged", f"{ins.opcode}: a suffix not seen in compiled code; "
               "not judged", None, None, None)
        return
    addr = next((o for o in ins.operands if o.memory), None)
    _check_footprint(em, f"{ins.opcode} ({acc.ptx})", addr, acc.op, acc.shape, acc.num,
                     pack=acc.pack and acc.op == "ld", unpack=acc.pack and acc.op == "st",
                     red=acc.red, red_type=acc.red_type if acc.red else "f32",
                     half=acc.half is not None, imm=0 if acc.half is not None else None,
                     arch=arch)


def _check_shift(em: _Emitter, ins: Instruction, arch: str) -> None:
    """tcgen05.shift: a constant ``taddr`` is a valid TMEM address with its lane aligned to 32
    (validate("tmem", ..., shift=True))."""
    addr = next((o for o in ins.operands if o.memory), None)
    if addr is None or addr.value is None or not addr.value.is_const:
        return
    for f in _validated("tmem", addr.value.value, arch=arch, shift=True):
        if f.severity in ("error", "warning"):
            em.add(f.severity, f.rule, f"tcgen05.shift: {_fmt(f)}", addr, "taddr",
                   addr.value.pattern())


def _check_wgmma(em: _Emitter, ins: Instruction) -> None:
    """``wgmma.mma_async`` (PTX) and ``HGMMA``/``IGMMA``/``QGMMA``/``BGMMA`` (SASS): its A
    (when not from registers) and B matrix descriptors (:attr:`Instruction.site`; SASS
    ``gdesc[URn]``: A in URn:URn+1, B in URn+2:URn+3) as sm_90a wgmma words (PTX ISA
    9.7.15.5.1).  A PTX instruction itself is the model's (:mod:`descriptors.isa.instructions`);
    a SASS one whose shape no wgmma has (:func:`~descriptors.isa.sass.wgmma_shape`) is not
    judged."""
    if ins.dialect == "sass" and wgmma_shape(ins.opcode) is None:
        em.add("note", "lint.unjudged", f"{ins.opcode}: a shape no wgmma has (PTX ISA "
               "9.7.15.5.2, 9.7.15.6); not judged", None, None, None)
        return
    for name, op in _judged_operands(ins):
        if op.value is not None and (ins.dialect == "sass" or op.value.width == 64):
            _judge(em, [(name, op)],
                   lambda sub, o, name=name: _smem(sub, o, name, "sm_90a", "wgmma"))


def _judged_operands(ins: Instruction) -> list[tuple[str, Operand]]:
    """``(role, operand)`` of each operand the instruction's site judges."""
    s = ins.site
    return [] if s is None else [(o.role, ins.operands[o.index]) for o in s.judged
                                 if o.index < len(ins.operands)]


def _check_cp(em: _Emitter, ins: Instruction, arch: str) -> None:
    """``tcgen05.cp`` / ``UTCCP``: its source shared memory descriptor (a 64-bit register in
    PTX; SASS ``gdesc[URs]``)."""
    for name, o in _judged_operands(ins):
        if name == "s_desc" and o.value is not None and (
                ins.dialect == "sass" or not o.memory and o.value.width == 64):
            _judge(em, [("s_desc", o)], lambda sub, op: _smem(sub, op, "s_desc", arch))


#: Rules of the instruction models that :func:`_check_ldst` already reports for tcgen05.ld/st
#: under the footprint's own rule ids (the same Tables 49/50 from descriptors.tmem).
_LDST_OWNED = ("vector", "num", "taddr")
#: ... and, per mnemonic, every rule of a model another check reports (tcgen05.alloc's
#: immediate nCols: :func:`_check_alloc`'s ``tmem.alloc``, the same 9.7.16.1.2 bounds).
_OWNED: dict[str, tuple[str, ...]] = {"tcgen05.ld": _LDST_OWNED, "tcgen05.st": _LDST_OWNED,
                                      "tcgen05.alloc": ("immediate",)}


def _check_model(em: _Emitter, ins: Instruction, arch: str) -> None:
    """stmatrix, wmma.load, tcgen05.ld/st: the instruction model
    (:func:`descriptors.isa.instructions.check_parsed`) -- qualifiers, operands, vector size and
    register types (from the module's ``.reg`` declarations), target, and with constant
    operands address alignment and wmma strides."""
    from ..isa.instructions import (InstructionError, check_parsed, model_for, parse_instruction,
                                    present_operands, resolve)
    try:
        p = parse_instruction(ins.text)
    except InstructionError as exc:
        em.add("error", "instruction.syntax", str(exc), None, None, None)
        return
    model = model_for(p.mnemonic)
    q, _ = resolve(model, p.qualifiers)
    specs = present_operands(model, q, [t for t, _ in p.operands])
    by_name = dict(zip((s.name for s in specs), ins.operands))
    constants: dict[str, int] = {}
    for (text, _), o in zip(p.operands, ins.operands):
        if o.value is None or not o.value.is_const:
            continue
        if o.memory:
            inner = text.strip("[]").strip()
            base, _, off = inner.partition("+")
            offset = parse_immediate(off) if off.strip() else 0
            if offset is not None:
                constants[base.strip()] = o.value.value - offset
        else:
            constants[text] = o.value.value
    owned = _OWNED.get(p.mnemonic, ())
    findings = [f for f in check_parsed(p, registers=dict(ins.registers), arch=arch,
                                        constants=constants)
                if f.rule.rsplit(".", 1)[-1] not in owned]
    for f in findings:
        op = by_name.get(f.field or "")
        word = None
        if op is not None and op.value is not None and op.value.is_const:
            word = f"{op.value.value:#x}"
        em.add(f.severity, f.rule, f"{p.mnemonic}: {_fmt(f)}", op, f.field, word)


def _judge_operands(em: _Emitter, ins: Instruction,
                    check: Callable[[_Emitter, Instruction], None]) -> None:
    """``check(emitter, instruction)`` for a check that reads the instruction's operands itself:
    once per path of all of them (:func:`_judge`)."""
    if not any(o.alternatives for o in ins.operands):
        check(em, ins)
        return
    _judge(em, [(o.text, o) for o in ins.operands],
           lambda sub, *ops: check(sub, replace(ins, operands=ops)))


def check_instruction(file: str, ins: Instruction, arch: str,
                      model_arch: str | None = None) -> list[LintFinding]:
    """The findings of one instruction.  ``model_arch`` is the target the instruction models
    judge stmatrix / wmma.load / tcgen05.ld/st for (any ``sm_NN[a|f]``, e.g. an sm_90a
    module's own target); ``arch`` by default.  A modelled instruction with no error or
    warning gets an ``instruction.legal`` note, so every line of a snippet has a verdict."""
    em = _Emitter(file, ins)
    op = ins.opcode
    mn = None
    if ins.dialect == "ptx":  # SASS has no modelled instruction (nor loads the models)
        from ..isa.instructions import MODELS
        mn = next((m for m in MODELS if op.startswith(m + ".")), None)
    modelled = mn is not None
    if modelled:
        _judge_operands(em, ins, lambda sub, i: _check_model(sub, i, model_arch or arch))
    if ins.dialect == "ptx":
        if op.startswith("tcgen05.mma"):
            if ins.site is not None and ins.site.kinds:
                _check_mma(em, ins, ins.site, arch)
        elif op.startswith(("tcgen05.alloc", "tcgen05.dealloc")):
            _judge_operands(em, ins, _check_alloc)
        elif op.startswith("tcgen05.cp"):
            _check_cp(em, ins, arch)
        elif op.startswith(("tcgen05.ld", "tcgen05.st")):
            _judge_operands(em, ins, lambda sub, i: _check_ldst(sub, i, arch))
        elif op.startswith("tcgen05.shift"):
            _judge_operands(em, ins, lambda sub, i: _check_shift(sub, i, arch))
        elif op.startswith("wgmma.mma_async"):
            _check_wgmma(em, ins)
    else:
        if ins.site is not None and ins.site.kinds and ins.site.family == "tcgen05":
            _check_mma(em, ins, ins.site, arch)
        elif op.startswith("UTCCP"):
            _check_cp(em, ins, arch)
        elif op.startswith("UTCATOMSWS") and "FIND_AND_SET" in op:
            _judge_operands(em, ins, _check_sass_alloc)
        elif op.startswith(("LDTM", "STTM")):
            _judge_operands(em, ins, lambda sub, i: _check_sass_ldst(sub, i, arch))
        elif ins.site is not None and ins.site.family == "wgmma":
            _check_wgmma(em, ins)
        elif op.startswith("UTCSHIFT"):
            _judge_operands(em, ins, lambda sub, i: _check_shift(sub, i, arch))
    if modelled and MODELS[mn].legal_note and \
            not any(f.severity in ("error", "warning") for f in em.out):
        em.add("note", "instruction.legal", f"{mn}: a legal form (ptxas 13.0 agrees with the "
               "instruction model on every generated form)", None, None, None)
    return em.out


class _CtaGroups:
    """"All tcgen05 instructions within a kernel must specify the same value for the
    .cta_group qualifier" (PTX ISA 9.7.16.12.1; ptxas refuses such a function: "uses single
    CTA(.cta_group::1) and CTA pair granularity(.cta_group::2) and that is not allowed").  The
    first instruction of a function that shows its cta_group sets it (PTX ``.cta_group::N``;
    SASS ``.2CTA``, :func:`descriptors.readers.sass.cta_group`); each later one that differs is
    an error."""

    def __init__(self, file: str) -> None:
        self.file = file
        #: each function's cta_group, with the opcode and line that set it (not the
        #: instruction: a listing of many functions keeps one small tuple each)
        self.first: dict[str | None, tuple[int, str, int]] = {}

    def check(self, ins: Instruction) -> LintFinding | None:
        group = ptx_cta_group(ins.opcode) if ins.dialect == "ptx" else cta_group(ins.opcode)
        if group is None:
            return None
        first = self.first.setdefault(ins.function, (group, ins.opcode, ins.line))
        if first[0] == group:
            return None
        return located(self.file, ins.line, ins.col, "error", "tcgen05.cta_group",
                           f"{ins.opcode}: cta_group::{group}, but {first[1]} on line "
                           f"{first[2]} of the same function uses cta_group::{first[0]}: "
                           "all tcgen05 instructions within a kernel must specify the same "
                           ".cta_group (PTX ISA 9.7.16.12.1; ptxas refuses the function)",
                           ins.text)


def _function_note(file: str, item: Fact) -> Diagnostic | None:
    """The note of what a reader says of a whole function (a :class:`Fact`'s ``use``)."""
    name, at = f"function {item.text or '(unnamed)'}", item.line
    if item.use == "split":
        return located(file, at, 0, "note", "lint.split", f"{name} is longer than the reader's "
                       "piece size: analysed in pieces; values carried over the boundary are "
                       "unknown, a loop over it is not seen before it", "")
    if item.use == "budget":
        return located(file, at, 0, "note", "lint.budget", f"{name}: its data flow is past the "
                       "reader's budget: the registers it reads are taken as unknown, so its "
                       "run-time values are not judged", "")
    if item.use == "slow":
        return located(file, at, 0, "note", "lint.slow",
                       f"{name}: its data flow took {item.hints[0]} s", "")
    return None


def lint_lines(lines: Iterable[str], *, file: str = "<stdin>", arch: str | None = None,
               facts: list[Fact] | None = None) -> Iterator[LintFinding]:
    """Findings for one input, in line order.  ``arch`` overrides the input's target (PTX
    ``.target``, SASS ``code for sm_..``; :data:`DEFAULT_ARCH` when it names none).  Raises
    :class:`~descriptors.errors.ParameterError` for an unknown ``arch``."""
    if arch is not None and arch not in ARCHES:
        from ..errors import ParameterError
        raise ParameterError(f"unknown architecture {arch!r}; known: " + ", ".join(ARCHES))
    dialect, items = read(lines, facts=facts is not None)
    seen = False
    told = False
    groups = _CtaGroups(file)
    for item in items:
        if isinstance(item, Fact):
            note = _function_note(file, item)
            if note is not None:
                yield note
                continue
            if facts is not None:
                facts.append(item)
            continue
        seen = True
        target = arch or (item.arch if item.arch in ARCHES else None) or DEFAULT_ARCH
        # the target of the tcgen05 rules: there is no tcgen05 on sm_90a
        rules = target if target in TCGEN05_ARCHES else DEFAULT_ARCH
        if not told:  # which target the arch-gated rules follow, and why
            told = True
            why = ("given with --arch" if arch else item.arch_reason
                   or (f"target {item.arch} from the input" if item.arch in ARCHES else None)
                   or (f"the input names {item.arch}, which is no tcgen05 target; assuming "
                       f"{DEFAULT_ARCH}" if item.arch else
                       f"the input names no target; assuming {DEFAULT_ARCH} (--arch to choose)"))
            message = f"arch-gated rules follow {target}: {why}" if target == rules else (
                f"the wgmma descriptors and the instruction models follow {target}: {why}; "
                f"there is no tcgen05 on {target}: a tcgen05 instruction is an error "
                f"(tcgen05.arch) and its operands are judged for {rules}")
            yield located(file, 0, 0, "note", "lint.arch", message, "")
        clash = groups.check(item)
        if clash is not None:
            yield clash
        no_tcgen05 = target != rules and _is_tcgen05(item)
        if no_tcgen05:
            yield located(file, item.line, item.col, "error", "tcgen05.arch",
                          f"{item.opcode}: there is no tcgen05 on {target}: tcgen05 "
                          "instructions need sm_100a or sm_100f and later targets (PTX ISA "
                          "9.7.16; ptxas refuses them for sm_90a)", item.text)
        try:
            # the target of the instruction models (PTX only)
            model = (arch or _target_name(item.arch) or DEFAULT_ARCH) \
                if item.dialect == "ptx" else None
            found = check_instruction(file, item, rules, model)
            # tcgen05.arch said it once for the line: not again by the model's own arch rule
            yield from (f for f in found if not (f.rule.startswith("tcgen05.")
                                                and f.rule.endswith(".arch"))) if no_tcgen05 \
                else found
        except DescgenError as exc:  # a value the library refuses: say so, judge the rest
            yield located(file, item.line, item.col, "note", "lint.unjudged",
                              f"{item.opcode}: not judged: {exc}", item.text)
    if not seen:
        yield located(file, 0, 0, "note", "lint.nothing", NOTHING_TO_CHECK + " "
                          f"({'read as ' + dialect if dialect else 'neither PTX nor SASS'})", "")


#: Why an input gives nothing to check (the ``lint.nothing`` note, and ``descgen lint``'s one
#: line on stderr for it).
NOTHING_TO_CHECK = "nothing to check: no tcgen05 or wgmma instruction found"


def _is_tcgen05(ins: Instruction) -> bool:
    """A tcgen05 instruction: PTX ``tcgen05.*``, SASS ``UTC*``, ``LDTM``, ``STTM``."""
    if ins.dialect == "ptx":
        return ins.opcode.startswith("tcgen05.")
    return ins.opcode.startswith(("UTC", "LDTM", "STTM"))


def _target_name(name: str | None) -> str | None:
    """``name`` when it is a target the instruction models read (``sm_90a``, ``sm_120f``)."""
    from ..isa.instructions import parse_target
    if not name:
        return None
    try:
        parse_target(name)
    except DescgenError:
        return None
    return name


_RANK = {s: i for i, s in enumerate(SEVERITIES)}


def _order_key(f: LintFinding) -> tuple[int, int, int]:
    return (f.line, _RANK.get(f.severity, 3), f.col)


def order(findings: list[LintFinding]) -> list[LintFinding]:
    """``findings`` in the order the output shows them: by line, then severity (errors
    first), then column; findings equal in all three keep the order they were made in."""
    return sorted(findings, key=_order_key)


#: How many findings :class:`Ordered` keeps in memory; beyond it, sorted runs of this many go
#: to temporary files (a finding is about 1-2 kB in memory, 0.3 kB pickled).
SPILL_FINDINGS = 20_000


class Ordered:
    """The findings of one input in :func:`order`'s order, with bounded memory: up to
    ``spill`` findings are kept and sorted in memory; past that each ``spill`` of them is
    sorted and written to a temporary file (pickled), and iterating merges the files and the
    rest (:func:`heapq.merge`, stable: exactly :func:`order` of them all).  Iterate once; the
    files are removed when the iteration ends or stops, or by :meth:`discard`.  Picklable (a
    ``-j`` worker hands its findings over this way: the files, not the findings).

    ``nothing``: the input had no tcgen05 instruction (its ``lint.nothing`` note is among
    the findings)."""

    def __init__(self, findings: Iterable[LintFinding], spill: int | None = None) -> None:
        spill = spill or SPILL_FINDINGS
        self.runs: list[str] = []
        self.nothing = False
        kept: list[LintFinding] = []
        try:
            for f in findings:
                kept.append(f)
                if len(kept) >= spill:
                    self.nothing = self.nothing or any(f.rule == "lint.nothing" for f in kept)
                    self.runs.append(_spill(order(kept)))
                    kept = []
        except BaseException:
            self.discard()
            raise
        self.nothing = self.nothing or any(f.rule == "lint.nothing" for f in kept)
        self.kept = order(kept)

    def __iter__(self) -> Iterator[LintFinding]:
        if not self.runs:
            yield from self.kept
            return
        import heapq
        try:
            yield from heapq.merge(*map(_unspill, self.runs), self.kept, key=_order_key)
        finally:
            self.discard()

    def discard(self) -> None:
        """Remove the temporary files (nothing to iterate afterwards)."""
        import os
        runs, self.runs, self.kept = self.runs, [], []
        for path in runs:
            try:
                os.unlink(path)
            except OSError:
                pass


def _spill(findings: list[LintFinding]) -> str:
    import os
    import pickle
    import tempfile
    fd, path = tempfile.mkstemp(prefix="descgen-lint-", suffix=".pickle")
    with os.fdopen(fd, "wb") as out:
        for start in range(0, len(findings), 512):
            pickle.dump(findings[start:start + 512], out, pickle.HIGHEST_PROTOCOL)
    return path


def _unspill(path: str) -> Iterator[LintFinding]:
    import pickle
    with open(path, "rb") as data:
        while True:
            try:
                batch = pickle.load(data)
            except EOFError:
                return
            yield from batch

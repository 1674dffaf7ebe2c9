"""Validation: every rule the PTX text states about a descriptor, each a named rule.

(Long: the rule registry -- one declared rule per statement of the PTX tables, a table of data.)

``validate(descriptor, word=None, *, kind=None, arch="sm_100a", **params)`` returns a list of
:class:`Finding` (severity ``error`` / ``warning`` / ``note``, rule id, field, bit range, value,
message, PTX source).  A well-formed question never raises: a parameter set whose values do not
fit their fields comes back as an ``encode.field`` error finding.  Malformed questions (an
unknown parameter, an unknown architecture, an instruction-descriptor word without its kind)
raise :class:`~descriptors.errors.DescgenError`.

Context that a word does not store -- ``cta_group``, ``ws`` and ``scale_vec`` for an
instruction descriptor, ``m`` and ``n`` for a zero-column mask, ``alloc`` (allocated columns)
and ``shift`` (the address of a ``tcgen05.shift``) for a TMEM address -- is passed as
a parameter; where it is not given, a rule accepts what some context would allow and says so
in a note.  ``validate_pair`` checks an instruction descriptor with its A/B shared memory
descriptors (Table 52).  Every rule is listed in :data:`RULES`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any

from ..structs import Struct
from ..words.codec import DESCRIPTOR_ALIASES, Decoded, decode, encode, parse_bool, parse_int
from ..words.enums import KINDS, MAJOR, SWIZZLE, Kind
from ..errors import FieldError, ParameterError, shorten
from ..words.layouts import SMEM, TMEM
from .diagnostics import Diagnostic, Severity, declare, diagnostic

__all__ = ["Finding", "Rule", "RULES", "ARCHES", "TCGEN05_ARCHES", "WORD_ARCHES", "validate",
           "validate_pair", "pair_rules", "is_valid",
           "shape_rule", "SHAPES", "CONTEXT_PARAMETERS"]

#: The targets of the tcgen05 words (PTX ISA 9.7.16, Target ISA Notes).
TCGEN05_ARCHES = ("sm_100a", "sm_100f", "sm_103a", "sm_103f", "sm_110a", "sm_110f")
#: Target architectures descgen knows: sm_90a (wgmma, PTX ISA 9.7.15) and the tcgen05 ones.
ARCHES = ("sm_90a", *TCGEN05_ARCHES)
#: Where each word exists; the first is the target a word is judged for when none is given.
WORD_ARCHES: dict[str, tuple[str, ...]] = {
    **{d: TCGEN05_ARCHES for d in ("smem", "idesc", "zcm", "tmem")},
    "wgmma": ("sm_90a",),
}

#: The severities, most severe first (:class:`~descriptors.rules.diagnostics.Severity`).
SEVERITIES = tuple(s.value for s in Severity)


#: One result of validation: a :class:`~descriptors.rules.diagnostics.Diagnostic` about a word
#: (``severity``, ``rule``, ``message``, ``source``, ``field``, ``bits``, ``value``).
Finding = Diagnostic


class Rule(Struct, frozen=True):
    """One word rule: its id, the word it judges (``pair``: an instruction descriptor with a
    shared memory descriptor), the PTX source, a summary, the check, and the severities it
    reports (the default first; :data:`descriptors.rules.diagnostics.DIAGNOSTICS` declares
    the same)."""

    id: str
    descriptor: str
    source: str
    summary: str
    check: Callable[[_Ctx], Iterator[Finding]]
    severities: tuple[str, ...] = ("error",)


#: Every rule by id.
RULES: dict[str, Rule] = {}


class _Ctx(Struct):
    d: Decoded
    arch: str
    cta_group: int | None = None
    ws: bool | None = None
    sp: bool | None = None
    m: int | None = None
    alloc: int | None = None
    n: int | None = None
    scale_vec: str | None = None
    shift: bool | None = None
    rule: Rule | None = None

    def find(self, severity: str, message: str, field: str | None = None,
             value: Any = None, source: str | None = None) -> Finding:
        assert self.rule is not None
        assert severity in self.rule.severities, \
            f"{self.rule.id} reports {severity}; it declares {', '.join(self.rule.severities)}"
        bits = self.d.layout.by_name[field].bits if field in self.d.layout.by_name else None
        if value is None and field in self.d.fields:
            value = self.d.fields[field]
        return Finding(severity, self.rule.id, message, source or self.rule.source, field, bits,
                       value)

    def error(self, message: str, field: str | None = None, value: Any = None) -> Finding:
        return self.find("error", message, field, value)

    def warning(self, message: str, field: str | None = None, value: Any = None) -> Finding:
        return self.find("warning", message, field, value)

    def note(self, message: str, field: str | None = None, value: Any = None) -> Finding:
        return self.find("note", message, field, value)

    @property
    def kind(self) -> Kind:
        return KINDS[self.d.kind or ""]

    def contexts(self) -> list[tuple[int, bool]]:
        """(cta_group, ws) pairs compatible with what is known."""
        ctas = [self.cta_group] if self.cta_group is not None else [1, 2]
        wss = [self.ws] if self.ws is not None else [False, True]
        return [(c, w) for c in ctas for w in wss]


def rule(rule_id: str, descriptor: str, source: str, summary: str, severity: str = "error",
         overrides: tuple[str, ...] = ()
         ) -> Callable[[Callable[[_Ctx], Iterator[Finding]]], Callable[[_Ctx], Iterator[Finding]]]:
    """Register a word rule in :data:`RULES` and declare it in the diagnostic catalogue
    (:data:`descriptors.rules.diagnostics.DIAGNOSTICS`): ``severity`` is what it reports when
    broken, ``overrides`` the other severities it reports (a note where the context is not
    known, a warning for what the hardware ignores ...).  Raises ``ValueError`` for an id
    registered twice."""
    declared = diagnostic(rule_id, severity, source, summary, overrides=overrides)

    def register(fn: Callable[[_Ctx], Iterator[Finding]]) -> Callable[[_Ctx], Iterator[Finding]]:
        if rule_id in RULES:
            raise ValueError(f"rule {rule_id} registered twice")
        declare(declared)
        RULES[rule_id] = Rule(rule_id, descriptor, source, summary, fn,
                              tuple(s.value for s in declared.severities))
        return fn
    return register


# ====================================================================== every layout

#: Words whose unused bits the hardware is measured to ignore: set, they are a warning (the
#: text gives them no meaning), not an error.  The wgmma matrix descriptor: an H100 reads the
#: same elements with any of bits 14-15, 30-31, 46-48, 52, 56, 60, 61 set (recorded read maps,
#: fixtures/hopper/hardware) -- bit 46 set is a tcgen05 smem descriptor, whose swizzle codes
#: read the same on sm_90 (Table 40's 2, 4, 6 at bits 61-63 are 9.7.15.5.1's 1, 2, 3 at 62-63).
_IGNORED_UNUSED_BITS = ("wgmma",)


def _reserved(ctx: _Ctx) -> Iterator[Finding]:
    for f in ctx.d.layout.fields:
        raw = ctx.d.fields[f.name]
        if f.role == "reserved" and raw:
            extra = f" ({f.doc.split('(', 1)[1]}" if "CUTLASS" in f.doc or "tcgen05" in f.doc \
                else ""
            if ctx.d.descriptor in _IGNORED_UNUSED_BITS:
                yield ctx.find("warning", f"unused bits are set (raw {raw}){extra}; an H100 "
                               "ignores them (measured), but the text gives them no meaning: "
                               "write 0", f.name, source=ctx.d.layout.source)
                continue
            yield ctx.find("error", f"reserved bits are set (raw {raw}); they must be 0{extra}",
                           f.name, source=ctx.d.layout.source)
        elif f.role == "constant" and raw != f.default:
            yield ctx.find("error", f"fixed constant must be {f.default:#0{f.width + 2}b}, is "
                           f"{raw:#0{f.width + 2}b}", f.name, source=ctx.d.layout.source)


def _word_arch(ctx: _Ctx) -> Iterator[Finding]:
    arches = WORD_ARCHES[ctx.d.descriptor]
    if ctx.arch not in arches:
        what = "the wgmma matrix descriptor (wgmma.mma_async)" if ctx.d.descriptor == "wgmma" \
            else f"the tcgen05 {ctx.d.descriptor} word"
        yield ctx.error(f"{what} does not exist on {ctx.arch}: its targets are "
                        + ", ".join(arches))


for _d, _src in (("idesc", "Tables 42-44"), ("smem", "Table 40"), ("zcm", "Table 45"),
                 ("tmem", "9.7.16.1.1"), ("wgmma", "9.7.15.5.1")):
    rule(f"{_d}.reserved", _d, _src, "reserved bits are zero and fixed constants hold their value",
         overrides=("warning",) if _d in _IGNORED_UNUSED_BITS else ())(_reserved)
    rule(f"{_d}.target", _d, "9.7.15 / 9.7.16 Target ISA Notes",
         "the word exists on the target (wgmma: sm_90a; tcgen05: sm_100a and later)")(_word_arch)


# ====================================================================== instruction descriptor

_N8 = tuple(range(8, 257, 8))
_N16 = tuple(range(16, 257, 16))
_N32 = tuple(range(32, 257, 32))
_N_I8 = (8, 16, 24, 32, *range(48, 257, 16))
_WS_M = (32, 64, 128)

_Shape = tuple[tuple[int, ...], tuple[int, ...]]


def _shape_table(n_cta1: tuple[int, ...], n_cta2: tuple[int, ...]) -> dict[tuple[bool, int, bool], _Shape | None]:
    """Table 39 for the kinds with 64/128 (cta_group::1) and 128/256 (cta_group::2) M."""
    return {
        (False, 1, False): ((64, 128), n_cta1), (False, 1, True): ((64, 128), n_cta1),
        (False, 2, False): ((128, 256), n_cta2), (False, 2, True): ((128, 256), n_cta2),
        (True, 1, False): (_WS_M, (64, 128, 256)), (True, 1, True): (_WS_M, (64, 128)),
        (True, 2, False): None, (True, 2, True): None,
    }


_BLOCK_SCALED: dict[tuple[bool, int, bool], _Shape | None] = {
    (False, 1, False): ((128,), _N8), (False, 1, True): ((128,), _N8),
    (False, 2, False): ((128, 256), _N16), (False, 2, True): ((256,), _N16),
    (True, 1, False): None, (True, 1, True): None, (True, 2, False): None, (True, 2, True): None,
}

#: PTX Table 39: (kind) -> (ws, cta_group, sparse) -> (allowed M, allowed N), None if invalid.
SHAPES: dict[str, dict[tuple[bool, int, bool], _Shape | None]] = {
    "f16": _shape_table(_N8, _N16), "tf32": _shape_table(_N8, _N16),
    "f8f6f4": _shape_table(_N8, _N16), "i8": _shape_table(_N_I8, _N32),
    "mxf8f6f4": _BLOCK_SCALED, "mxf4": _BLOCK_SCALED, "mxf4nvf4": _BLOCK_SCALED,
}


def _ns(ns: tuple[int, ...]) -> str:
    if ns == _N8:
        return "8..256 in steps of 8"
    if ns == _N16:
        return "16..256 in steps of 16"
    if ns == _N32:
        return "32..256 in steps of 32"
    if ns == _N_I8:
        return "8, 16, 24, 32, then 48..256 in steps of 16"
    return ", ".join(map(str, ns))


def _ctx_name(cta: int, ws: bool, sparse: bool) -> str:
    return f"cta_group::{cta}{' .ws' if ws else ''} {'sparse' if sparse else 'dense'}"


def shape_rule(kind: str, m: int, n: int, *, cta_group: int, ws: bool, sparse: bool) -> str | None:
    """``None`` when Table 39 allows M x N for the context, else the reason it does not."""
    entry = SHAPES[kind][(ws, cta_group, sparse)]
    if entry is None:
        return f"kind::{kind} has no {_ctx_name(cta_group, ws, sparse)} form"
    ms, ns = entry
    if m not in ms:
        return f"M={m} is not allowed for kind::{kind} {_ctx_name(cta_group, ws, sparse)}; " \
               f"M is {' or '.join(map(str, ms))}"
    if n not in ns:
        return f"N={n} is not allowed for kind::{kind} {_ctx_name(cta_group, ws, sparse)} M={m}; " \
               f"N is {_ns(ns)}"
    return None


@rule("idesc.shape", "idesc", "Table 39", "M and N are a shape Table 39 lists for the kind, "
      "cta_group, .ws and sparsity", overrides=("note",))
def _idesc_shape(ctx: _Ctx) -> Iterator[Finding]:
    v = ctx.d.values
    m, n, sparse, kind = v["m"], v["n"], v["sparse"], ctx.kind.name
    results = {(c, w): shape_rule(kind, m, n, cta_group=c, ws=w, sparse=sparse)
               for c, w in ctx.contexts()}
    ok = [c for c, why in results.items() if why is None]
    if ok:
        if len(results) > 1 and len(ok) < len(results):
            forms = ", ".join(_ctx_name(c, w, sparse) for c, w in ok)
            yield ctx.note(f"M={m} N={n} is a Table 39 shape for {forms}", "m_dim", m)
        return
    meaningful = {c: why for c, why in results.items() if SHAPES[kind][(c[1], c[0], sparse)] is not None}
    if not meaningful:
        return  # no valid form at all for this context: idesc.ws reports it
    why = next(iter(meaningful.values()))
    field = "m_dim" if f"M={m} is not" in why else "n_dim"
    # the forms the context rules out (a cta_group or .ws given) that would take the shape
    others = [_ctx_name(c, w, sparse) for c in (1, 2) for w in (False, True)
              if (c, w) not in results and SHAPES[kind][(w, c, sparse)] is not None
              and shape_rule(kind, m, n, cta_group=c, ws=w, sparse=sparse) is None]
    needs = f"M={m} N={n} needs {' or '.join(others)}"
    if len(meaningful) > 1 and others:
        tried = " or ".join(_ctx_name(c, w, sparse) for c, w in meaningful)
        why = f"{needs}: no {tried} form of Table 39 allows it for kind::{kind}; e.g. {why}"
    elif len(meaningful) > 1:
        why = f"no cta_group/.ws form of Table 39 allows M={m} N={n} for kind::{kind} " \
              f"({'sparse' if sparse else 'dense'}); e.g. {why}"
    elif others:
        why += f"; {needs}"
    yield ctx.error(why, field, m if field == "m_dim" else n)


@rule("idesc.ws", "idesc", "Table 39", ".ws only with cta_group::1 and never for block-scaled kinds")
def _idesc_ws(ctx: _Ctx) -> Iterator[Finding]:
    if ctx.ws:
        if ctx.kind.block_scaled:
            yield ctx.error(f"kind::{ctx.kind.name} has no tcgen05.mma.ws form", value=True)
        elif ctx.cta_group == 2:
            yield ctx.error("tcgen05.mma.ws supports cta_group::1 only", value=2)


@rule("idesc.arch", "idesc", "9.7.16.10.9.1 Target ISA notes", "the kind exists on the target")
def _idesc_arch(ctx: _Ctx) -> Iterator[Finding]:
    if ctx.kind.name == "i8" and ctx.arch not in ("sm_100a", "sm_110a"):
        yield ctx.error(f"kind::i8 is supported on sm_100a and sm_110a only, not {ctx.arch}",
                        value=ctx.arch)


@rule("idesc.types", "idesc", "Table 42-44", "A, B and D type codes are defined for the kind")
def _idesc_types(ctx: _Ctx) -> Iterator[Finding]:
    kind, v = ctx.kind, ctx.d.values
    for ab in ("a_type", "b_type"):
        if v[ab] is None:
            yield ctx.error(f"code {ctx.d.fields[ab]} is not a type of kind::{kind.name}; allowed "
                            + ", ".join(f"{c.name}={c.value}" for c in kind.ab_types), ab)
    if kind.d_types is not None and v["d_type"] is None:
        yield ctx.error(f"code {ctx.d.fields['d_type']} is not a D type of kind::{kind.name}; "
                        "allowed " + ", ".join(f"{c.name}={c.value}" for c in kind.d_types), "d_type")


@rule("idesc.type_combination", "idesc", "Table 39",
      "D/A/B combinations: f16 accumulate only for f16 inputs; one A/B type for kind::f16")
def _idesc_combo(ctx: _Ctx) -> Iterator[Finding]:
    v = ctx.d.values
    if ctx.kind.name == "f16" and v["d_type"] == "f16" and (v["a_type"], v["b_type"]) != ("f16", "f16") \
            and None not in (v["a_type"], v["b_type"]):
        yield ctx.error(f"D type f16 is listed only for f16 x f16 inputs, not "
                        f"{v['a_type']} x {v['b_type']}", "d_type")
    if ctx.kind.name == "f16" and None not in (v["a_type"], v["b_type"]) and v["a_type"] != v["b_type"]:
        yield ctx.error(f"A and B types differ ({v['a_type']} x {v['b_type']}); Table 39 lists "
                        "one atype/btype for kind::f16", "b_type")


@rule("idesc.saturate", "idesc", "Table 42", "saturate only for kind::i8")
def _idesc_saturate(ctx: _Ctx) -> Iterator[Finding]:
    if "saturate" in ctx.d.fields and ctx.d.fields["saturate"] and ctx.kind.name != "i8":
        yield ctx.error(f"saturate is defined for kind::i8 only, not kind::{ctx.kind.name}",
                        "saturate")


@rule("idesc.negate", "idesc", "Table 49", "negate A/B is not supported for kind::i8")
def _idesc_negate(ctx: _Ctx) -> Iterator[Finding]:
    if ctx.kind.name == "i8":
        for f in ("negate_a", "negate_b"):
            if ctx.d.fields[f]:
                yield ctx.error("kind::i8 does not support negation", f)


_SUB_BYTE = {"e2m3", "e3m2", "e2m1"}
_EIGHT_BIT = {"e4m3", "e5m2", "s8", "u8"}


@rule("idesc.transpose", "idesc", "Table 49, Table 52",
      "transpose (MN-major) not for mxf4/mxf4nvf4 nor 4/6-bit types")
def _idesc_transpose(ctx: _Ctx) -> Iterator[Finding]:
    for ab, t in (("a_type", "transpose_a"), ("b_type", "transpose_b")):
        if not ctx.d.fields[t]:
            continue
        if ctx.kind.name in ("mxf4", "mxf4nvf4"):
            yield ctx.error(f"kind::{ctx.kind.name} does not support transpose (MN-major)", t)
        elif ctx.d.values[ab] in _SUB_BYTE:
            yield ctx.error(f"{ctx.d.values[ab]} is a 4/6-bit type: it is never transposed "
                            "(MN-major)", t)


@rule("idesc.transpose_b_8bit_n", "idesc", "Table 50",
      "8-bit transposed B: N in 16..256 step 16 (cta_group::1), 32..256 step 32 (cta_group::2)",
      overrides=("note",))
def _idesc_t8(ctx: _Ctx) -> Iterator[Finding]:
    if not ctx.d.fields["transpose_b"] or ctx.d.values["b_type"] not in _EIGHT_BIT:
        return
    n = ctx.d.values["n"]
    allowed = {1: _N16, 2: _N32}
    ctas = [ctx.cta_group] if ctx.cta_group is not None else [1, 2]
    ok = [c for c in ctas if n in allowed[c]]
    if not ok:
        yield ctx.error(f"N={n} with 8-bit transposed B: N is " + "; ".join(
            f"{_ns(allowed[c])} for cta_group::{c}" for c in ctas), "n_dim", n)
    elif len(ok) < len(ctas):
        yield ctx.note(f"N={n} with 8-bit transposed B is valid only for cta_group::{ok[0]}",
                       "n_dim", n)


#: Kinds whose sparsity selector must be 0 (9.7.16.10.8.4.5, 9.7.16.10.8.4.6): their sparsity
#: metadata uses all columns.
SELECTOR_ZERO_KINDS = ("i8", "f8f6f4")


@rule("idesc.sparsity_selector", "idesc", "Table 42, 9.7.16.10.8.4.5-6",
      "sparsity selector only when sparse; 0 for kind::i8 and kind::f8f6f4", overrides=("warning",))
def _idesc_selector(ctx: _Ctx) -> Iterator[Finding]:
    f = ctx.d.fields
    if not f.get("sparsity_selector"):
        return
    if not f["sparse"]:
        yield ctx.warning("sparsity selector is set on a dense MMA (it applies only when sparse)",
                          "sparsity_selector")
    elif ctx.kind.name in SELECTOR_ZERO_KINDS:
        yield ctx.find("error", f"the sparsity selector must be 0 for kind::{ctx.kind.name} "
                       f"(the metadata uses all columns), not {f['sparsity_selector']}",
                       "sparsity_selector", source="9.7.16.10.8.4.5-6")


@rule("idesc.sparse_form", "idesc", "Table 42, 9.7.16.10.9.2",
      "the sparsity bit matches the instruction: set for tcgen05.mma.sp, clear otherwise",
      overrides=("warning", "note"))
def _idesc_sparse_form(ctx: _Ctx) -> Iterator[Finding]:
    sparse = bool(ctx.d.fields["sparse"])
    if ctx.sp is True and not sparse:
        yield ctx.error("tcgen05.mma.sp needs the sparsity bit set (it is 0: a dense descriptor)",
                        "sparse")
    elif ctx.sp is False and sparse:
        yield ctx.error("the sparsity bit is set but the tcgen05.mma has no .sp (a dense MMA)",
                        "sparse")


@rule("idesc.max_shift", "idesc", "Table 42", "maximum shift only for tcgen05.mma.ws",
      overrides=("note",))
def _idesc_max_shift(ctx: _Ctx) -> Iterator[Finding]:
    raw = ctx.d.fields.get("max_shift", 0)
    if not raw:
        return
    if ctx.ws is False:
        yield ctx.error("maximum shift is meaningful only for tcgen05.mma.ws", "max_shift")
    elif ctx.ws is None:
        yield ctx.note("maximum shift is meaningful only for tcgen05.mma.ws", "max_shift")


@rule("idesc.scale_type", "idesc", "Tables 43-44", "scale type defined for the block-scaled kind")
def _idesc_scale_type(ctx: _Ctx) -> Iterator[Finding]:
    kind = ctx.kind
    if kind.scale_types is not None and ctx.d.values["scale_type"] is None:
        yield ctx.error(f"scale type code {ctx.d.fields['scale_type']} is not defined for "
                        f"kind::{kind.name}; allowed " + ", ".join(
                            f"{c.name}={c.value}" for c in kind.scale_types), "scale_type")


#: Table 54/55: the .scale_vec::NX sizes each block-scaled kind allows, and those a scale type
#: narrows them to (kind::mxf4nvf4 with UE4M3 scales: 4X only).
SCALE_VECS: dict[str, tuple[str, ...]] = {"mxf8f6f4": ("1X",), "mxf4": ("2X",),
                                          "mxf4nvf4": ("2X", "4X")}
SCALE_VEC_BY_TYPE: dict[tuple[str, str], tuple[str, ...]] = {("mxf4nvf4", "ue4m3"): ("4X",)}


def _scale_vec_name(value: Any, kind: str | None) -> str:
    """``"1X"``, ``"2X"`` or ``"4X"`` from ``1X``, ``scale_vec::4X``, ``.scale_vec::2X``, an int
    1/2/4, or the aliases ``block16`` (4X) and ``block32`` (1X for mxf8f6f4, else 2X)."""
    text = str(value).strip().lower().lstrip(".") if isinstance(value, (str, int)) and \
        not isinstance(value, bool) else None
    if text is not None:
        text = text.removeprefix("scale_vec::").removeprefix("scale_vec")
        if text in ("1", "2", "4"):
            text += "x"
        if text in ("1x", "2x", "4x"):
            return text.upper()
        if text == "block16":
            return "4X"
        if text == "block32":
            return "1X" if kind == "mxf8f6f4" else "2X"
    raise ParameterError(f"scale_vec={shorten(value)}: allowed 1X, 2X, 4X (or scale_vec::NX, "
                         "block16, block32)")


@rule("idesc.scale_vec", "idesc", "Tables 54-55, 9.7.16.10.7.1",
      "the .scale_vec size is one the block-scaled kind and scale type allow")
def _idesc_scale_vec(ctx: _Ctx) -> Iterator[Finding]:
    if ctx.scale_vec is None:
        return
    kind = ctx.kind.name
    if kind not in SCALE_VECS:
        yield ctx.error(f"scale_vec::{ctx.scale_vec} is a qualifier of the block-scaled kinds "
                        f"(mxf8f6f4, mxf4, mxf4nvf4), not kind::{kind}", value=ctx.scale_vec)
        return
    allowed = SCALE_VECS[kind]
    scale_type = ctx.d.values.get("scale_type")
    narrowed = SCALE_VEC_BY_TYPE.get((kind, scale_type or ""))
    if ctx.scale_vec not in allowed:
        yield ctx.error(f"kind::{kind} allows scale_vec::{' or scale_vec::'.join(allowed)}, not "
                        f"scale_vec::{ctx.scale_vec}", value=ctx.scale_vec)
    elif narrowed is not None and ctx.scale_vec not in narrowed:
        yield ctx.error(f"kind::{kind} with {scale_type} scale factors allows "
                        f"scale_vec::{' or scale_vec::'.join(narrowed)} only, not "
                        f"scale_vec::{ctx.scale_vec}", "scale_type", value=ctx.scale_vec)


#: The scale factor IDs each scale-factor layout allows, by (scale_vec, K=96), with the text
#: that says so: the layout sections of PTX ISA 9.7.16.10.7.2 (A) and 9.7.16.10.7.3 (B) and their
#: figures.  Audit of every figure of 9.7.16.10.7 against Tables 43-44:
#:
#: * 1X / block32, K=32/64 (mxf8f6f4): IDs 0-3 -- 9.7.16.10.7.2.1 and 9.7.16.10.7.3.1
#:   (Figures 231, 240) and Table 43 ("0-3") agree.
#: * 2X / block32, K=64/128 (mxf4, mxf4nvf4): IDs 0 and 2 -- 9.7.16.10.7.2.2 and 9.7.16.10.7.3.2
#:   (Figures 232, 241) and Table 44 ("0 or 2") agree.
#: * 4X / block16, K=64/128 (mxf4nvf4): ID 0 only -- 9.7.16.10.7.2.3 and 9.7.16.10.7.3.3 ("must be
#:   0", Figures 233, 242) are narrower than Table 44's "0 or 2"; the sections decide.
#: * block32 with K=96 ("semantically equivalent to scale_vec::3X", mxf4 and mxf4nvf4 with
#:   UE8M0): IDs 0-3 -- 9.7.16.10.7.2.4 (Figures 234-237: SFA_ID 00, 01, 10, 11) and
#:   9.7.16.10.7.3.4 (Figures 243-246 for N<=128, 247-252 for N>128); Table 44 says "0 or 2".
#:   The K=96 sections are specific to K=96 and decide.
#: * block16 with K=96 ("semantically equivalent to scale_vec::6X", mxf4nvf4): IDs 0 and 2 --
#:   9.7.16.10.7.2.5 (Figures 238-239: SFA_ID 00, 10) and 9.7.16.10.7.3.5 (Figures 253-254,
#:   255-258); here 9.7.16.10.7.2.3's "must be 0" (a K=64/128 section) does not apply.
#:
#: Where a table and a layout section disagree, the section (and its figures) decides: it is the
#: more specific text, naming the K it holds for.  ``scale_vec::2X``/``4X`` of a K=96 MMA are read
#: as block32/block16 there (Table 54: the ``.blockN`` forms at K=96).
SCALE_IDS: dict[tuple[str, bool], tuple[tuple[int, ...], str]] = {
    ("1X", False): ((0, 1, 2, 3), "Table 43"),
    ("2X", False): ((0, 2), "Tables 43-44"),
    ("4X", False): ((0,), "9.7.16.10.7.2.3, 9.7.16.10.7.3.3"),
    ("2X", True): ((0, 1, 2, 3), "9.7.16.10.7.2.4, 9.7.16.10.7.3.4, Figures 234-237, 243-252"),
    ("4X", True): ((0, 2), "9.7.16.10.7.2.5, 9.7.16.10.7.3.5, Figures 238-239, 253-258"),
}


def _vec_label(vec: str, k96: bool) -> str:
    if not k96:
        return f"scale_vec::{vec}"
    return {"2X": "block32 (scale_vec::3X) at K=96", "4X": "block16 (scale_vec::6X) at K=96"}[vec]


def _ids_text(ids: tuple[int, ...]) -> str:
    """``0``, ``0 or 2``, ``0-3``."""
    return " or ".join(map(str, ids)) if len(ids) <= 2 else f"{ids[0]}-{ids[-1]}"


@rule("idesc.scale_id", "idesc", "Tables 43-44",
      "scale-factor IDs one of the kind's scale-factor layouts allows (0-3; 0 or 2 for mxf4 and "
      "mxf4nvf4, 0-3 with K=96)")
def _idesc_scale_id(ctx: _Ctx) -> Iterator[Finding]:
    kind = ctx.kind.name
    if kind not in SCALE_VECS:
        return
    k96 = bool(ctx.d.fields.get("k_dim"))
    allowed = sorted({i for vec in SCALE_VECS[kind] for i in SCALE_IDS[(vec, k96)][0]})
    if allowed == [0, 1, 2, 3]:
        return
    for f in ("a_scale_id", "b_scale_id"):
        if ctx.d.fields[f] not in allowed:
            yield ctx.find("error", f"kind::{kind} allows scale factor ID "
                           f"{_ids_text(tuple(allowed))}, not {ctx.d.fields[f]}", f,
                           source=SCALE_IDS[("2X", k96)][1])


@rule("idesc.scale_id_4x", "idesc", "9.7.16.10.7.2.3, 9.7.16.10.7.3.3, 9.7.16.10.7.2.5, 9.7.16.10.7.3.5",
      "with scale_vec::4X (block16) the scale factor IDs are 0, or 0 or 2 at K=96",
      overrides=("note",))
def _idesc_scale_id_4x(ctx: _Ctx) -> Iterator[Finding]:
    kind = ctx.kind.name
    if kind not in SCALE_VECS:
        return
    implied = SCALE_VEC_BY_TYPE.get((kind, ctx.d.values.get("scale_type") or ""))
    four = ctx.scale_vec == "4X" or (ctx.scale_vec is None and implied == ("4X",))
    maybe = ctx.scale_vec is None and "4X" in SCALE_VECS[kind] and not four
    k96 = bool(ctx.d.fields.get("k_dim"))
    allowed, source = SCALE_IDS[("4X", k96)]
    label = _vec_label("4X", k96)
    for f in ("a_scale_id", "b_scale_id"):
        raw = ctx.d.fields[f]
        if raw in allowed:
            continue
        if four:
            why = "" if ctx.scale_vec else \
                f" ({ctx.d.values['scale_type']} scales mean scale_vec::4X, Table 55)"
            yield ctx.find("error", f"the scale factor ID must be {_ids_text(allowed)} with "
                           f"{label}{why}, not {raw}", f, source=source)
        elif maybe:
            yield ctx.find("note", f"scale factor ID {raw} is invalid with {label} (valid with "
                           f"{_vec_label('2X', k96)})", f, source=source)


@rule("idesc.k96", "idesc", "Table 44, 9.7.16.2.1.1",
      "K=96 only on sm_103a, cta_group::2, M=256, dense", overrides=("note",))
def _idesc_k96(ctx: _Ctx) -> Iterator[Finding]:
    if not ctx.d.fields.get("k_dim"):
        return
    v = ctx.d.values
    if ctx.arch != "sm_103a":
        yield ctx.error(f"K=96 is supported on sm_103a only, not {ctx.arch}", "k_dim")
    if v["sparse"]:
        yield ctx.error("K=96 is dense only", "k_dim")
    if v["m"] != 256:
        yield ctx.error(f"K=96 needs M=256, not M={v['m']}", "k_dim")
    if ctx.cta_group == 1:
        yield ctx.error("K=96 needs cta_group::2", "k_dim")
    elif ctx.cta_group is None:
        yield ctx.note("K=96 needs cta_group::2", "k_dim")


# ====================================================================== shared memory descriptor

#: Table 41: where the repeating pattern of each swizzle starts (bytes).
_REPEAT = {"128B": 1024, "128B_base32B": 1024, "64B": 512, "32B": 256}


@rule("smem.swizzle", "smem", "Table 40", "swizzle mode 0, 1, 2, 4 or 6 (3, 5, 7 invalid)")
def _smem_swizzle(ctx: _Ctx) -> Iterator[Finding]:
    if ctx.d.values["swizzle"] is None:
        yield ctx.error(f"swizzle code {ctx.d.fields['swizzle']} is invalid; allowed "
                        + ", ".join(f"{c.value} {c.name}" for c in SWIZZLE), "swizzle")


@rule("smem.base_offset", "smem", "Table 41",
      "a nonzero base offset matches the start address and the swizzle repeat (a warning: "
      "intent unknowable); base offset 0 reads by absolute address (a note off the repeat)",
      severity="warning", overrides=("note",))
def _smem_base_offset(ctx: _Ctx) -> Iterator[Finding]:
    v = ctx.d.values
    swz, start, base = v["swizzle"], v["start_address_bytes"], v["base_offset"]
    if swz is None:
        return
    if swz == "none":
        if base:
            yield ctx.warning("base offset is set but the layout is not swizzled", "base_offset")
        return
    repeat = _REPEAT[swz]
    off = start % repeat
    if off and off < 128 and base == 0:
        yield ctx.note(f"start address {start:#x} is {off} bytes past a {repeat}-byte {swz} "
                       f"repeat boundary, as when stepping through K inside a swizzle atom; base "
                       f"offset 0 assumes the pattern starts at {start - off:#x}", "base_offset")
        return
    if off and base == 0:
        # Base offset 0 swizzles by absolute address: what TMA does when it writes the tile,
        # and what CUTLASS's descriptors (which always write 0) and the H100 read maps show.
        yield ctx.note(f"start address {start:#x} is {off} bytes past a {repeat}-byte {swz} "
                       f"repeat boundary; base offset 0 reads the pattern by absolute address "
                       f"(phase {(start >> 7) & 7} at the start), as a tile TMA wrote there is "
                       f"laid out; a tile swizzled from its own start needs "
                       f"{(start >> 7) & 7}", "base_offset")
        return
    expected = 0 if off == 0 else (start >> 7) & 7
    if base == expected:
        return
    yield ctx.warning(f"base offset {base} but a {swz} pattern starting at the start address "
                      f"{start:#x} needs {expected} ((addr >> 7) & 7, 0 on a {repeat}-byte "
                      "boundary); correct only if the pattern starts elsewhere", "base_offset")


@rule("smem.lbo_absolute", "smem", "9.7.16.3.1.2.1, 9.7.16.4.1.1",
      "absolute LBO mode: sm_103a, 128B swizzle (16B atomicity), base offset 0, K-major",
      overrides=("note",))
def _smem_absolute(ctx: _Ctx) -> Iterator[Finding]:
    v = ctx.d.values
    if v["lbo_mode"] != "absolute":
        return
    if ctx.arch != "sm_103a":
        yield ctx.error(f"absolute leading-dimension address mode is supported on sm_103a only, "
                        f"not {ctx.arch}", "lbo_mode")
    if v["swizzle"] != "128B":
        yield ctx.error(f"absolute address mode needs 128B swizzle with 16B atomicity, not "
                        f"{v['swizzle'] or ctx.d.fields['swizzle']}", "swizzle")
    if v["base_offset"]:
        yield ctx.error("absolute address mode needs base offset 0", "base_offset")
    yield ctx.note("absolute address mode is K-major only (instruction descriptor transpose "
                   "bits 0); check the pair", "lbo_mode")


@rule("smem.lbo_unused", "smem", "9.7.16.3.1.1",
      "LBO is unused for swizzled K-major layouts (assumed 1; 0 or 1 accepted)", severity="note")
def _smem_lbo_unused(ctx: _Ctx) -> Iterator[Finding]:
    v = ctx.d.values
    raw = ctx.d.fields["leading_byte_offset"]
    if v["swizzle"] not in (None, "none") and v.get("lbo_mode", "relative") == "relative" and raw > 1:
        yield ctx.note(f"if this operand is K-major, LBO is ignored for swizzled layouts (assumed "
                       f"1; production code writes 0 or 1); here raw {raw}", "leading_byte_offset")


#: Row width (bytes) of each swizzle's atom (Table 53): 8 rows of it are one swizzle atom, the
#: SBO of a K-major swizzled operand with one atom per 8 rows.
_SWIZZLE_ROW = {"128B": 128, "128B_base32B": 128, "64B": 64, "32B": 32}


@rule("smem.lbo_sbo_swapped", "smem", "9.7.16.3.1.1, Table 53",
      "SBO 16 bytes in a swizzled layout (no 8-row groups are 16 bytes apart): LBO and SBO "
      "swapped when LBO is one 8-row swizzle atom", severity="warning")
def _smem_swapped(ctx: _Ctx) -> Iterator[Finding]:
    v, f = ctx.d.values, ctx.d.fields
    row = _SWIZZLE_ROW.get(v["swizzle"] or "")
    if row is None or v.get("lbo_mode", "relative") != "relative" \
            or f["stride_byte_offset"] != 1:
        return
    if v["leading_byte_offset_bytes"] == 8 * row:
        yield ctx.warning(f"LBO {8 * row} bytes and SBO 16 bytes look swapped: {8 * row} bytes "
                          f"(8 rows of {row} bytes) is the SBO of a K-major {v['swizzle']} "
                          "operand, 16 bytes (raw 1) the value written to its unused LBO; no "
                          "swizzled layout has its 8-row groups 16 bytes apart",
                          "stride_byte_offset")
    else:
        yield ctx.warning(f"SBO 16 bytes: no swizzled layout has its 8-row groups 16 bytes "
                          f"apart (8 rows of a {v['swizzle']} layout are {8 * row} bytes)",
                          "stride_byte_offset")


# ====================================================================== wgmma matrix descriptor (sm_90a)

rule("wgmma.base_offset", "wgmma", "9.7.15.5.1",
     "a nonzero base offset matches the start address and the swizzle repeat (a warning: "
     "intent unknowable); base offset 0 reads by absolute address (a note off the repeat)",
     severity="warning", overrides=("note",))(_smem_base_offset)
rule("wgmma.lbo_sbo_swapped", "wgmma", "9.7.15.5.1",
     "LBO and SBO swapped: LBO = one 8-row swizzle atom (a K-major SBO), SBO = 16 bytes",
     severity="warning")(
         _smem_swapped)
rule("wgmma.lbo_unused", "wgmma", "9.7.15.5.1",
     "LBO is unused for swizzled K-major layouts (assumed 1; 0 or 1 accepted)",
     severity="note")(_smem_lbo_unused)


# ====================================================================== zero-column mask

def _submasks(m: int | None) -> int | None:
    return {128: 1, 64: 2, 32: 4}.get(m) if m is not None else None


@rule("zcm.column_shift", "zcm", "Table 45", "column shift at most 16 for M=32, 32 otherwise",
      overrides=("note",))
def _zcm_shift(ctx: _Ctx) -> Iterator[Finding]:
    shift = ctx.d.fields["column_shift"]
    limit = 16 if ctx.m == 32 else 32
    if shift > limit:
        yield ctx.error(f"column shift {shift} exceeds {limit}"
                        + (" (M=32)" if ctx.m == 32 else ""), "column_shift")
    elif ctx.m is None and shift > 16:
        yield ctx.note(f"column shift {shift} is above 16: invalid if M=32", "column_shift")


@rule("zcm.m", "zcm", "9.7.16.4.3", "M is 32, 64 or 128 (the sub-mask count)")
def _zcm_m(ctx: _Ctx) -> Iterator[Finding]:
    if ctx.m is not None and ctx.m not in (32, 64, 128):
        yield ctx.error(f"M={ctx.m}: the zero-column mask is defined for M = 32, 64, 128", value=ctx.m)


#: N of tcgen05.mma.ws, the only MMA with a zero-column mask (Table 39, cta_group::1 .ws).
ZCM_N = (64, 128, 256)


@rule("zcm.n", "zcm", "Table 39", "N is an N of tcgen05.mma.ws: 64, 128 or 256 (sparse: 64, 128)")
def _zcm_n(ctx: _Ctx) -> Iterator[Finding]:
    if ctx.n is not None and ctx.n not in ZCM_N:
        yield ctx.error(f"N={ctx.n}: tcgen05.mma.ws (the MMA that takes a zero-column mask) has "
                        f"N = {', '.join(map(str, ZCM_N))} (sparse: 64, 128)", value=ctx.n)


@rule("zcm.unused_submasks", "zcm", "9.7.16.4.3",
      "start counts and first spans of sub-masks that M does not use are zero", severity="warning")
def _zcm_unused(ctx: _Ctx) -> Iterator[Finding]:
    k = _submasks(ctx.m)
    if k is None:
        return
    for i in range(k, 4):
        for name in (f"start_count_{i}", f"first_span_{i}"):
            if ctx.d.fields[name]:
                yield ctx.warning(f"M={ctx.m} uses sub-masks 0..{k - 1}; {name} is ignored", name)


@rule("zcm.non_zero_mask", "zcm", "Table 45", "with non-zero mask 0 the other fields are ignored",
      severity="note")
def _zcm_nzm(ctx: _Ctx) -> Iterator[Finding]:
    f = ctx.d.fields
    if not f["non_zero_mask"] and any(f[n] for n in f if n.startswith(("start_count", "first_span"))):
        yield ctx.note("non-zero mask is 0: the mask is all zeros (every B column used) and the "
                       "start counts / first spans are ignored", "non_zero_mask")


# ====================================================================== tensor memory

#: Tensor Memory size on sm_100 (PTX 9.7.16.1): 128 lanes x 512 columns of 32-bit cells.
TMEM_LANES, TMEM_COLUMNS = 128, 512
_LANES, _COLUMNS = TMEM_LANES, TMEM_COLUMNS


#: CUTLASS keeps a sub-word byte index in the top two bits of the lane field
#: (CUTLASS ``cute/arch/mma_sm100_desc.hpp``: ``a_sf_id_ = (tmem_sfa_addr & 0xC0000000) >> 30``).
_LANE = TMEM.by_name["lane"]
_BYTE_INDEX_SHIFT = _LANE.width - 2
_BYTE_INDEX_BITS = f"{_LANE.msb}-{_LANE.msb - 1}"


@rule("tmem.lane", "tmem", "9.7.16.1", "lane < 128 (sm_100)", overrides=("note",))
def _tmem_lane(ctx: _Ctx) -> Iterator[Finding]:
    lane = ctx.d.fields["lane"]
    index = lane >> _BYTE_INDEX_SHIFT
    low = lane & ((1 << _BYTE_INDEX_SHIFT) - 1)
    if index:
        yield ctx.note(f"bits {_BYTE_INDEX_BITS} hold {index}: CUTLASS keeps a sub-word byte index "
                       f"there (scale-factor addresses); the lane is the bits below", "lane")
    if low >= _LANES:
        yield ctx.error(f"lane {low} is outside Tensor Memory's {_LANES} lanes", "lane", low)


@rule("tmem.column", "tmem", "9.7.16.1", "column < 512 (sm_100)", overrides=("warning",))
def _tmem_column(ctx: _Ctx) -> Iterator[Finding]:
    col = ctx.d.fields["column"]
    if col >= _COLUMNS:
        yield ctx.error(f"column {col} is outside Tensor Memory's {_COLUMNS} columns", "column")
    elif ctx.alloc is not None and col >= ctx.alloc:
        yield ctx.warning(f"column {col} is outside an allocation of {ctx.alloc} columns "
                          "(if the allocation starts at column 0)", "column")


@rule("tmem.alloc", "tmem", "9.7.16.1.2, 9.7.16.7.1",
      "allocations are a power of two columns in 32..512")
def _tmem_alloc(ctx: _Ctx) -> Iterator[Finding]:
    n = ctx.alloc
    if n is not None and not (32 <= n <= 512 and n & (n - 1) == 0):
        yield ctx.error(f"allocation of {n} columns: nCols must be a power of two in 32..512",
                        value=n)


#: tcgen05.shift: "The lane of the address operand taddr must be aligned to 32" (9.7.16.9.3).
SHIFT_LANE_ALIGN = 32


@rule("tmem.shift_lane", "tmem", "9.7.16.9.3",
      "the taddr of tcgen05.shift has its lane aligned to 32")
def _tmem_shift(ctx: _Ctx) -> Iterator[Finding]:
    if not ctx.shift:
        return
    lane = ctx.d.fields["lane"] & ((1 << _BYTE_INDEX_SHIFT) - 1)
    if lane % SHIFT_LANE_ALIGN:
        yield ctx.error(f"lane {lane} of the tcgen05.shift address is not aligned to "
                        f"{SHIFT_LANE_ALIGN}", "lane", lane)


# ====================================================================== entry points

#: The parameters of each descriptor's rules that its word does not store: the instruction's
#: context (``cta_group``, ``.ws``, ``.sp``, ``.scale_vec``; the M and N of the MMA of a
#: zero-column mask; the allocated columns and ``tcgen05.shift`` of a Tensor Memory address).
CONTEXT_PARAMETERS = {"idesc": ("cta_group", "ws", "sp", "scale_vec"), "smem": (),
                      "zcm": ("m", "n"), "tmem": ("alloc", "shift")}


def _arch(arch: str) -> str:
    if arch not in ARCHES:
        raise ParameterError(f"unknown architecture {shorten(arch)}; known: " + ", ".join(ARCHES))
    return arch


def _int_or_none(value: Any, what: str) -> int | None:
    return None if value is None else parse_int(value, what)


def _bool_or_none(value: Any, what: str) -> bool | None:
    return None if value is None else parse_bool(value, what)


def validate(descriptor: str, word: int | None = None, *, kind: str | None = None,
             arch: str | None = None, **params: Any) -> list[Finding]:
    """Check a word, or the parameters ``encode`` takes, against every rule of the descriptor.

    Context parameters (not stored in the word): ``cta_group``, ``ws``, ``sp`` (True: the
    instruction is ``tcgen05.mma.sp``) and ``scale_vec``
    (``"1X"``, ``"2X"``, ``"4X"``, or ``scale_vec::NX`` / ``block16`` / ``block32``: the
    ``.scale_vectorsize`` of a block-scaled MMA, Tables 54-55) for an idesc; ``m`` and ``n``
    (the M and N of the tcgen05.mma.ws) for a zcm; ``alloc`` (allocated columns) and ``shift``
    (True: the address is the ``taddr`` of ``tcgen05.shift``, 9.7.16.9.3) for a tmem address.
    Returns findings, errors first; an empty list or only notes/warnings means valid
    (:func:`is_valid`).  Raises :class:`ParameterError` for a malformed question (unknown
    parameter or architecture, both a word and parameters).
    """
    if descriptor.__class__ is str and descriptor in DESCRIPTOR_ALIASES:
        descriptor = DESCRIPTOR_ALIASES[descriptor]
    return _validate(descriptor, word, kind, arch, params)


def _validate(descriptor: str, word: int | None, kind: str | None, arch: str | None,
              params: dict[str, Any]) -> list[Finding]:
    arch = _arch(arch if arch is not None else WORD_ARCHES.get(descriptor, ("sm_100a",))[0])
    context = {k: params.pop(k) for k in CONTEXT_PARAMETERS.get(descriptor, ()) if k in params}
    if word is None:
        if descriptor == "idesc":  # encode checks the context parameters cta_group, ws too
            params.update({k: context[k] for k in ("cta_group", "ws") if k in context})
        try:
            word = encode(descriptor, kind=kind, **params) if descriptor == "idesc" else \
                encode(descriptor, **params)
        except FieldError as exc:
            return [Finding("error", "encode.field", exc.problem, exc.source, exc.field,
                            exc.bits, exc.value)]
    elif params:
        raise ParameterError(f"validate takes a word or encode parameters, not both (got "
                             f"{', '.join(sorted(params))}; context parameters of {descriptor}: "
                             f"{', '.join(CONTEXT_PARAMETERS.get(descriptor, ())) or 'none'})")
    decoded = decode(descriptor, word, kind=kind)
    ctx = _Ctx(decoded, arch,
               cta_group=_int_or_none(context.get("cta_group"), "cta_group"),
               ws=_bool_or_none(context.get("ws"), "ws"),
               sp=_bool_or_none(context.get("sp"), "sp"),
               m=_int_or_none(context.get("m"), "m"),
               alloc=_int_or_none(context.get("alloc"), "alloc"),
               n=_int_or_none(context.get("n"), "n"),
               scale_vec=None if context.get("scale_vec") is None else
               _scale_vec_name(context["scale_vec"], decoded.kind),
               shift=_bool_or_none(context.get("shift"), "shift"))
    if ctx.cta_group not in (None, 1, 2):
        raise ParameterError(f"cta_group={ctx.cta_group}: allowed 1 or 2")
    return _run(ctx, descriptor)


def _run(ctx: _Ctx, descriptor: str) -> list[Finding]:
    findings: list[Finding] = []
    for r in _rules_of(descriptor, len(RULES)):
        ctx.rule = r
        findings.extend(r.check(ctx))
    return sorted(findings, key=_severity_rank)


# a derived table (one tuple per word and rule count), not a memo of verdicts: every validate()
# call would filter RULES again (bench_caches.py: up to 1.17x on lint ptx without it)
@lru_cache(maxsize=None)
def _rules_of(descriptor: str, count: int) -> tuple[Rule, ...]:
    """The rules of one word (not the pair rules), in order; ``count`` -- how many rules are
    declared -- keys the answer, so a rule declared later is not missed."""
    return tuple(r for r in RULES.values()
                 if r.descriptor == descriptor and not r.id.startswith("pair."))


def _severity_rank(f: Finding) -> int:
    return SEVERITIES.index(f.severity)


def is_valid(findings: list[Finding]) -> bool:
    """True when no finding is an error."""
    return not any(f.severity == "error" for f in findings)


# ====================================================================== pairs (Table 52)

def _type_bits(type_name: str | None) -> int | None:
    return {"tf32": 32, "f16": 16, "bf16": 16, "e4m3": 8, "e5m2": 8, "s8": 8, "u8": 8,
            "e2m3": 6, "e3m2": 6, "e2m1": 4}.get(type_name or "")


def validate_pair(idesc: int, *, kind: str, a_desc: int | None = None, b_desc: int | None = None,
                  arch: str = "sm_100a", cta_group: int | None = None,
                  ws: bool | None = None, scale_vec: str | None = None,
                  sp: bool | None = None) -> list[Finding]:
    """Check an instruction descriptor with the shared memory descriptors of A and/or B: each on
    its own, then the major-ness / type size / swizzle combinations of Table 52 and the
    absolute-LBO and unused-LBO rules that need the major-ness, and Table 53 (no K-major atom
    for 128B swizzling with 32B atomicity).  ``cta_group``, ``ws``, ``sp`` and ``scale_vec`` are the
    instruction's context, as for :func:`validate`."""
    findings = validate("idesc", idesc, kind=kind, arch=arch, cta_group=cta_group, ws=ws,
                        scale_vec=scale_vec, sp=sp)
    d = decode("idesc", idesc, kind=kind)
    for operand, word in (("a", a_desc), ("b", b_desc)):
        if word is None:
            continue
        findings += [_tag(f, operand) for f in validate("smem", word, arch=arch)]
        s = decode("smem", word)
        findings += list(_pair_checks(d, s, operand))
    order = {s: i for i, s in enumerate(SEVERITIES)}
    return sorted(findings, key=lambda f: order[f.severity])


#: The bits of a shared memory descriptor that no pair rule reads (:func:`_pair_checks` reads the
#: swizzle, the LBO mode and the LBO): its start address, which a K loop steps from one MMA
#: to the next.  Words that differ only there have the same :func:`pair_rules` findings (a
#: test checks it), so a caller may ask once for all of them.
PAIR_UNREAD = SMEM.by_name["start_address"].mask


def pair_rules(idesc: int, *, kind: str, a_desc: int | None = None,
               b_desc: int | None = None) -> list[Finding]:
    """Only the pair rules of :func:`validate_pair` (``pair.*``: Table 52, Table 53, the
    absolute-LBO and unused-LBO rules), without judging each word on its own again: what a
    caller that has judged the words already asks.  The same findings, in the same order, as
    those of :func:`validate_pair` whose rule starts with ``pair.``.  Raises what
    :func:`~descriptors.words.codec.decode` raises for a word it cannot read as ``kind``."""
    d = decode("idesc", idesc, kind=kind)
    findings: list[Finding] = []
    for operand, word in (("a", a_desc), ("b", b_desc)):
        if word is not None:
            findings += _pair_checks(d, decode("smem", word), operand)
    order = {s: i for i, s in enumerate(SEVERITIES)}
    return sorted(findings, key=lambda f: order[f.severity])


def _table53_atoms(swizzle: str) -> Any:
    """The major-nesses Table 53 has a swizzle atom for."""
    from ..words.swizzles import SWIZZLE_MODES
    return SWIZZLE_MODES[swizzle].atoms


def _tag(f: Finding, operand: str) -> Finding:
    return Finding(f.severity, f.rule, f"{operand.upper()} descriptor: {f.message}", f.source,
                   f.field, f.bits, f.value)


def _pair_checks(d: Decoded, s: Decoded, operand: str) -> Iterator[Finding]:
    type_name = d.values[f"{operand}_type"]
    bits = _type_bits(type_name)
    mn = d.fields[f"transpose_{operand}"] == MAJOR.lookup("MN").value  # type: ignore[union-attr]
    swz = s.values["swizzle"]
    field = "swizzle"
    op = operand.upper()

    def find(sev: str, rule_id: str, msg: str, f: str = field) -> Finding:
        return Finding(sev, rule_id, f"{op}: {msg}", RULES[rule_id].source, f,
                       s.layout.by_name[f].bits, s.fields[f])

    major = "MN" if mn else "K"
    if swz is not None and major not in _table53_atoms(swz):
        yield find("error", "pair.table53",
                   f"{swz} has no {major}-major swizzle atom: Table 53 lists 128B swizzling with "
                   f"32B atomicity for M/N-major only ('-' for K). Table 52's non-transposed row "
                   f"says 'All swizzling modes', but without an atom the layout the hardware "
                   f"reads is undefined, so descgen refuses it (as CUTLASS does: "
                   f"'SWIZZLE_128B_BASE32B is invalid for Major-K')")
    if mn and bits is not None and swz is not None:
        if bits == 32 and swz != "128B_base32B":
            yield find("error", "pair.table52", f"32-bit ({type_name}) MN-major operands need "
                                                f"128B swizzle with 32B atomicity, not {swz}")
        elif bits in (8, 16) and swz == "128B_base32B":
            yield find("error", "pair.table52", f"{bits}-bit ({type_name}) MN-major operands "
                                                "cannot use 128B swizzle with 32B atomicity")
    if s.values["lbo_mode"] == "absolute" and (d.fields["transpose_a"] or d.fields["transpose_b"]):
        which = " and ".join(t for t in ("transpose_a", "transpose_b") if d.fields[t])
        yield find("error", "pair.lbo_absolute", "absolute LBO mode is K-major only: the "
                   f"instruction descriptor's transpose bits must both be 0 ({which} set)",
                   "lbo_mode")
    raw = s.fields["leading_byte_offset"]
    if not mn and swz not in (None, "none") and s.values["lbo_mode"] == "relative" and raw > 1:
        yield find("note", "pair.lbo_unused", f"K-major swizzled: LBO is ignored (raw {raw}; "
                   "0 or 1 expected)", "leading_byte_offset")


rule("pair.table52", "pair", "Table 52, 9.7.16.10.1",
     "type size x major-ness x swizzle: tf32 transposed only with 128B_base32B; 8/16-bit "
     "transposed never with 128B_base32B; 4/6-bit never transposed")(lambda ctx: iter(()))
rule("pair.table53", "pair", "Table 53, Table 52",
     "a swizzle atom exists for the operand's major-ness: 128B swizzling with 32B atomicity is "
     "M/N-major only (Table 53 has no K-major atom; Table 52's 'all swizzling modes' for "
     "non-transposed operands is read as limited by it)")(lambda ctx: iter(()))
rule("pair.lbo_absolute", "pair", "9.7.16.3.1.2.1",
     "absolute LBO mode only with both instruction-descriptor transpose bits 0 (K-major)")(lambda ctx: iter(()))
rule("pair.lbo_unused", "pair", "9.7.16.3.1.1",
     "LBO unused for swizzled K-major operands", severity="note")(lambda ctx: iter(()))

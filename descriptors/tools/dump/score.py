"""How a word found in text is read: every family its size allows, scored by the structure
its layout requires, the rules it breaks and the evidence the text gives (the table and
adjustments of :mod:`descriptors.tools.dump`), and the found word's result types
(:class:`Candidate`, :class:`FoundWord`).

(Long: the confidence table, the layout-derived structure it tests and the readings built
from them are one calculation, each part read against the others.)"""


from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from ...words.bits import Field, BitLayout
from ...words.codec import Decoded, decode
from ...words.enums import KINDS, kind_named
from ...errors import ParameterError, shorten
from ...words.layouts import IDESC, LAYOUTS, SMEM, TMEM, WGMMA, ZCM
from ...words.literals import REGISTER_BITS
from ..printer import to_json
from ...rules.targets import DEFAULT_ARCH
from ...isa.sites import IdescContext
from ...rules.validate import TMEM_COLUMNS as _TMEM_COLUMNS
from ...rules.validate import TMEM_LANES as _TMEM_LANES
from ...rules.validate import ARCHES, SHAPES, WORD_ARCHES, Finding, is_valid, validate


#: Lines a SASS immediate waits for an MMA instruction that says what it is.
WINDOW = 4096
#: Confidence from which a word is reported without evidence in the text.
DEFAULT_MIN_CONFIDENCE = 0.5
#: Descriptor families, in the order ties are broken.
FAMILIES = ("smem", "idesc", "zcm", "tmem", "wgmma")


def families_on(arch: str | None) -> tuple[str, ...]:
    """The families whose words exist on ``arch`` (``None``: :data:`DEFAULT_ARCH`), in
    :data:`FAMILIES` order: tcgen05's smem, idesc, zcm and tmem on sm_100a and later, the wgmma
    matrix descriptor alone on sm_90a (:data:`~descriptors.rules.validate.WORD_ARCHES`)."""
    target = arch or DEFAULT_ARCH
    return tuple(f for f in FAMILIES if target in WORD_ARCHES[f])


def on_arch(family: str | None, arch: str | None) -> str | None:
    """``family`` as the target reads it: a shared memory descriptor (``smem``: a name such as
    ``adesc``, ``--as smem``) is sm_90a's wgmma matrix descriptor, as ``--arch sm_90a`` reads
    ``smem`` in every command; every other family is itself."""
    if family == "smem" and "smem" not in families_on(arch) and "wgmma" in families_on(arch):
        return "wgmma"
    return family

#: A general or uniform register holds REGISTER_BITS (32, :mod:`descriptors.words.literals`);
#: a 64-bit value lives in an aligned pair.
_REGISTER_MAX = (1 << REGISTER_BITS) - 1

# ---------------------------------------------------------------- confidence constants
_BASE_SMEM = 0.55
_BASE_SMEM_UPPER = 0.35
_BASE_IDESC = 0.50
_BASE_IDESCE_ZERO = 0.70
_BASE_IDESCE_TMEM = 0.60
_BASE_ZCM = 0.35
_BASE_ZCM_ALL_ZERO = 0.10
_BASE_TMEM = 0.20
_BASE_WGMMA = 0.55
_BASE_WGMMA_UPPER = 0.35
_BASE_BROKEN = 0.10
_SWIZZLED = 0.20
_SHORT_STRIDE = 0.10
_LONG_STRIDE = -0.25
_SHORT_STRIDE_MAX = 32 * 1024
_LONG_STRIDE_MIN = 64 * 1024
_NO_STRIDE = -0.20
_PER_ERROR = -0.15
_STRONG_NAME = 0.30
_WEAK_NAME = 0.15
MMA_OPERAND = 0.35
_FORCED = 0.30
_HIGH, _MEDIUM = 0.75, 0.50


def _level(confidence: float) -> str:
    return "high" if confidence >= _HIGH else "medium" if confidence >= _MEDIUM else "low"


# ---------------------------------------------------------------- layout-derived structure


def _fixed(layout: BitLayout, fields: Iterable[Field] | None = None) -> tuple[int, int]:
    """(mask, value) of the layout's reserved and constant fields: the bits a word of this
    layout must hold whatever it describes."""
    mask = value = 0
    for f in (layout.fields if fields is None else fields):
        if f.role != "field":
            mask |= f.mask
            value |= f.default << f.lsb
    return mask, value


_SMEM_FIXED = _fixed(SMEM)
_SMEM_UPPER_FIELDS = tuple(f for f in SMEM.fields if f.lsb >= REGISTER_BITS)
_SMEM_UPPER_FIXED = tuple(x >> REGISTER_BITS for x in _fixed(SMEM, _SMEM_UPPER_FIELDS))
#: The wgmma matrix descriptor's unused bits (all 0), of the word and of its upper half.
_WGMMA_FIXED = _fixed(WGMMA)
_WGMMA_UPPER_FIELDS = tuple(f for f in WGMMA.fields if f.lsb >= REGISTER_BITS)
_WGMMA_UPPER_FIXED = tuple(x >> REGISTER_BITS for x in _fixed(WGMMA, _WGMMA_UPPER_FIELDS))
_ZCM_FIXED = _fixed(ZCM)
#: Per instruction-descriptor layout: (reserved mask, value).
_IDESC_CHECK = {name: _fixed(lay) for name, lay in LAYOUTS.items() if name.startswith("idesc")}
_IDESC_WORD_BITS = IDESC.size  # the instruction descriptor sits in the upper half of idescE
_TMEM_LANE, _TMEM_COLUMN = TMEM.by_name["lane"], TMEM.by_name["column"]


#: The tmem.lane rule reads the lane below its top two bits (CUTLASS's byte index there).
_TMEM_LANES_SPAN = 1 << (_TMEM_LANE.width - 2)
_COL_LSB, _COL_MAX = _TMEM_COLUMN.lsb, _TMEM_COLUMN.max
_LANE_LSB, _LANE_LOW = _TMEM_LANE.lsb, _TMEM_LANES_SPAN - 1


def _tmem_possible(word: int) -> bool:
    """Cheap necessary condition of a valid TMEM address (column and lane in range; the lane's
    top bits may hold CUTLASS's sub-word index), checked before the validators run."""
    return ((word >> _COL_LSB) & _COL_MAX) < _TMEM_COLUMNS and \
        ((word >> _LANE_LSB) & _LANE_LOW) < _TMEM_LANES


def _describe_fixed(fields: Iterable[Field]) -> str:
    parts = []
    for f in fields:
        if f.role == "constant" and f.default:
            parts.append(f"{f.name}{f.bits} = {f.default:#0{f.width + 2}b}")
    zero = [f"{f.name}{f.bits}" for f in fields if f.role != "field" and not f.default]
    if zero:
        parts.append(", ".join(zero) + " = 0")
    return "; ".join(parts)


_SMEM_STRUCTURE = _describe_fixed(SMEM.fields)
_SMEM_UPPER_STRUCTURE = _describe_fixed(_SMEM_UPPER_FIELDS)
_WGMMA_STRUCTURE = _describe_fixed(WGMMA.fields)
_WGMMA_UPPER_STRUCTURE = _describe_fixed(_WGMMA_UPPER_FIELDS)
#: What the upper half of a 64-bit family is the upper half of.
_HALF_OF = {"smem": "a shared memory descriptor", "wgmma": "a wgmma matrix descriptor"}


# ---------------------------------------------------------------- results


@dataclass(frozen=True)
class Candidate:
    """One reading of a found word: which descriptor it may be, how sure, and why.

    ``form`` is ``"word"`` (the word is the descriptor), ``"idescE"`` (an instruction
    descriptor in the upper half of a 64-bit value whose lower half is 0 or a TMEM address) or
    ``"upper"`` (a 32-bit register holding the upper half of a shared memory descriptor, or of
    sm_90a's wgmma matrix descriptor).
    ``word`` is the descriptor word that was decoded (``decoded``) and validated
    (``findings``); ``evidence`` lists what in the text raised the confidence.
    """

    descriptor: str
    kind: str | None
    form: str
    word: int
    confidence: float
    reason: str
    findings: tuple[Finding, ...]
    decoded: Decoded = field(compare=False, repr=False)
    evidence: tuple[str, ...] = ()
    structural: bool = True

    @property
    def level(self) -> str:
        """``high``, ``medium`` or ``low``."""
        return _level(self.confidence)

    @property
    def valid(self) -> bool:
        return is_valid(list(self.findings))

    @property
    def errors(self) -> int:
        return sum(f.severity == "error" for f in self.findings)

    @property
    def warnings(self) -> int:
        return sum(f.severity == "warning" for f in self.findings)

    @property
    def verdict(self) -> str:
        """``valid``; ``N warning(s)`` for a valid reading that breaks a recommendation (the
        warnings ``descgen lint`` and ``check`` print: swapped LBO/SBO, set reserved bits);
        ``INVALID (N error(s))``."""
        if not self.valid:
            return f"INVALID ({self.errors} error{'s' * (self.errors != 1)})"
        n = self.warnings
        return f"{n} warning{'s' * (n != 1)}" if n else "valid"

    @property
    def summary(self) -> str:
        """One line: the family, the kind and the values that matter."""
        text = _summary(self.decoded)
        if self.form == "idescE":
            return f"idesc (idescE upper half) {text}"
        if self.form == "upper":
            return f"{self.descriptor} (upper half) {text}"
        return f"{self.descriptor} {text}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "descriptor": self.descriptor, "kind": self.kind, "form": self.form,
            "word": self.decoded.hex, "confidence": self.confidence, "level": self.level,
            "valid": self.valid, "reason": self.reason, "evidence": list(self.evidence),
            "summary": self.summary, "decoded": to_json(self.decoded, self.findings),
        }


@dataclass(frozen=True)
class FoundWord:
    """A word found in a dump and its readings, best first.

    ``line`` (1-based; for a register pair, the line of the odd register), ``source``
    (``registers``, ``print``, ``printf`` or ``sass``), ``register`` (``R4``, ``UR4:UR5`` for a
    pair, or ``None``), ``name`` (the variable or label the text gives the value), ``text`` (the
    word as written), ``word`` and ``size`` (32 or 64 bits).
    """

    line: int
    source: str
    register: str | None
    name: str | None
    text: str
    word: int
    size: int
    candidates: tuple[Candidate, ...]

    @property
    def best(self) -> Candidate | None:
        return self.candidates[0] if self.candidates else None

    @property
    def ambiguous(self) -> tuple[Candidate, ...]:
        """The other readings exactly as likely as the best one, as an instruction descriptor of
        another kind (f16 f16 x f16 and f8f6f4 e4m3 x e4m3 share words): nothing in the input
        decides between them (``kind=``, or the instruction that uses the word, would), so the
        best reading is one of equals.  Empty when the best reading stands alone."""
        best = self.best
        if best is None or best.descriptor != "idesc":
            return ()
        return tuple(c for c in self.candidates[1:] if c.descriptor == "idesc"
                     and c.kind != best.kind and c.confidence == best.confidence)

    @property
    def hex(self) -> str:
        return f"{self.word:#0{self.size // 4 + 2}x}"

    @property
    def where(self) -> str:
        parts = [p for p in (self.register, self.name) if p]
        return " ".join(parts) if parts else self.source

    def to_dict(self) -> dict[str, Any]:
        best = self.best
        return {
            "line": self.line, "source": self.source, "register": self.register,
            "name": self.name, "text": self.text, "word": self.hex, "size": self.size,
            "best": best.to_dict() if best else None,
            "candidates": [c.to_dict() for c in self.candidates],
        }


_new = object.__new__
_set = object.__setattr__


def finding_of(fields: dict[str, Any]) -> FoundWord:
    """The :class:`FoundWord` of ``fields`` (its eight fields by name), built in one step:
    the frozen dataclass's ``__init__`` sets each field through ``object.__setattr__`` (3 us;
    a printf log has a finding every few dozen bytes)."""
    f = _new(FoundWord)
    _set(f, "__dict__", fields)
    return f


def make_finding(line: int, source: str, register: str | None, name: str | None, text: str,
             word: int, size: int, candidates: tuple[Candidate, ...]) -> FoundWord:
    """``FoundWord(line, source, ...)``, the same object built in one step
    (:func:`finding_of`)."""
    return finding_of({"line": line, "source": source, "register": register, "name": name,
                       "text": text, "word": word, "size": size, "candidates": candidates})


def _summary(d: Decoded) -> str:
    v = d.values
    if d.descriptor == "idesc":
        types = f"{v['a_type'] or '?'} x {v['b_type'] or '?'} -> {v['d_type'] or '?'}"
        extra = []
        if v["sparse"]:
            extra.append("sparse")
        if v["negate_a"] or v["negate_b"]:
            extra.append("negate " + "".join(x for x, on in (("A", v["negate_a"]), ("B", v["negate_b"])) if on))
        majors = [f"{x} MN-major" for x, key in (("A", "a_major"), ("B", "b_major")) if v[key] == "MN"]
        extra += majors
        if "scale_type" in v:
            extra.append(f"scales {v['scale_type'] or '?'} ids {v['a_scale_id']}/{v['b_scale_id']}")
        if v.get("max_shift"):
            extra.append(f"max shift {v['max_shift']}")
        tail = (", " + ", ".join(extra)) if extra else ""
        return f"kind::{d.kind} {types} M={v['m']} N={v['n']} K={v['k']}{tail}"
    if d.descriptor == "smem" or d.descriptor == "wgmma":
        text = (f"swizzle {v['swizzle'] or 'invalid'}, start {v['start_address_bytes']:#x}, "
                f"LBO {v['leading_byte_offset_bytes']} B, SBO {v['stride_byte_offset_bytes']} B")
        if v["base_offset"]:
            text += f", base offset {v['base_offset']}"
        if v.get("lbo_mode", "relative") != "relative":  # (wgmma has no LBO mode)
            text += f", LBO {v['lbo_mode']}"
        return text
    if d.descriptor == "zcm":
        if not v["non_zero_mask"]:
            return "all-zero mask (every B column used)"
        return (f"use {v['use_span'] + 1}, skip {v['skip_span'] + 1}, shift {v['column_shift']}, "
                f"start counts {v['start_count']}, first spans {v['first_span']}")
    return f"lane {v['lane']}, column {v['column']}"


# ---------------------------------------------------------------- classification


@dataclass(frozen=True)
class _Base(Candidate):
    """A reading before the text's evidence is counted: a :class:`Candidate` with its base
    confidence and the ``order`` ties between readings of one family are broken in."""

    order: tuple[Any, ...] = ()


_FORMS_32 = (("idesc", "word"), ("tmem", "word"), ("smem", "upper"), ("wgmma", "upper"))
_FORMS_64 = (("smem", "word"), ("zcm", "word"), ("idesc", "idescE"), ("wgmma", "word"))
_FORMS_64_NARROW = (*_FORMS_64, ("idesc", "word"), ("tmem", "word"))


def _forms(size: int, word: int, narrow: bool) -> tuple[tuple[str, str], ...]:
    """(family, form) pairs a word of ``size`` bits can be read as, whatever the target
    (:func:`_structural` reads those of the target's families)."""
    if size == 32:
        return _FORMS_32
    return _FORMS_64_NARROW if narrow and word <= _REGISTER_MAX else _FORMS_64


def _penalised(base: float, findings: list[Finding]) -> float:
    return base + _PER_ERROR * sum(f.severity == "error" for f in findings)


def _kind_order(d: Decoded) -> tuple[int, int]:
    """Tie-break among equally valid kinds: f32/s32 accumulation first, then table order."""
    return (d.values.get("d_type") == "f16", list(KINDS).index(d.kind or ""))


def _raw_codes(k: str) -> tuple[tuple[Field, frozenset[int]], ...]:
    """Per kind, the raw values each type and shape field may hold in a valid word: the type
    codes of the kind's tables and the M/N codes of some Table 39 shape (derived by decoding
    every raw value, so the M >> 4 / M >> 7 and N >> 3 scales come from the codec)."""
    kind = KINDS[k]
    lay = LAYOUTS[kind.layout]
    shapes = [s for s in SHAPES[k].values() if s is not None]
    ms = {m for s in shapes for m in s[0]}
    ns = {n for s in shapes for n in s[1]}
    f = lay.by_name
    m_ok = frozenset(r for r in range(f["m_dim"].max + 1)
                     if decode("idesc", lay.encode(m_dim=r), kind=k).values["m"] in ms)
    n_ok = frozenset(r for r in range(f["n_dim"].max + 1)
                     if decode("idesc", lay.encode(n_dim=r), kind=k).values["n"] in ns)
    out = [(f["m_dim"], m_ok), (f["n_dim"], n_ok),
           (f["a_type"], frozenset(kind.ab_types.values)),
           (f["b_type"], frozenset(kind.ab_types.values))]
    if kind.d_types is not None:
        out.append((f["d_type"], frozenset(kind.d_types.values)))
    return tuple(out)


#: Per instruction-descriptor layout: reserved mask and value, then per kind the (lsb, max,
#: allowed raw values) of its type and shape fields.
_IDESC_GROUPS = tuple(
    (*_IDESC_CHECK[lay], tuple((k, tuple((f.lsb, f.max, ok) for f, ok in _raw_codes(k)))
                               for k in KINDS if KINDS[k].layout == lay))
    for lay in dict.fromkeys(KINDS[k].layout for k in KINDS))


def _context(context: IdescContext | None) -> dict[str, Any]:
    """validate()'s context parameters from an :class:`~descriptors.isa.sites.IdescContext`
    (none where nothing is known)."""
    if context is None:
        return {}
    return {"cta_group": context.cta_group, "ws": context.ws}


def _idesc_kinds(word: int, context: IdescContext | None) -> list[str]:
    """Kinds whose reading could be valid: reserved bits clear, type codes defined, M and N a
    Table 39 shape of the kind.  The cheap test that spares running the validators on words
    that cannot be instruction descriptors; the validators decide."""
    out = []
    for mask, value, kinds in _IDESC_GROUPS:
        if word & mask != value:
            continue
        for k, codes in kinds:
            if context is not None and k not in context.kinds:
                continue  # (an IdescContext: the kinds an MMA serves)
            for lsb, top, ok in codes:
                if (word >> lsb) & top not in ok:
                    break
            else:
                out.append(k)
    return out


def _valid_idesc(word: int, context: IdescContext | None,
                 arch: str | None) -> list[tuple[Decoded, list[Finding]]]:
    out = []
    params = _context(context)
    for k in _idesc_kinds(word, context):
        findings = validate("idesc", word, kind=k, arch=arch, **params)
        if is_valid(findings):
            out.append((decode("idesc", word, kind=k), findings))
    out.sort(key=lambda item: _kind_order(item[0]))
    return out


def _also(readings: list[tuple[Decoded, list[Finding]]], this: Decoded) -> str:
    others = [f"kind::{d.kind}" for d, _ in readings if d.kind != this.kind]
    return (f"; also valid as {', '.join(others)} (the word does not name its kind: the kind "
            f"option or the instruction decides)") if others else ""


def _smem_plausibility(d: Decoded) -> tuple[float, list[str]]:
    v = d.values
    score, why = 0.0, []
    if v["swizzle"] not in (None, "none"):
        score += _SWIZZLED
        why.append(f"swizzle {v['swizzle']} (+{_SWIZZLED:.2f})")
    sbo = v["stride_byte_offset_bytes"]
    if 0 < sbo <= _SHORT_STRIDE_MAX:
        score += _SHORT_STRIDE
        why.append(f"SBO {sbo} B (+{_SHORT_STRIDE:.2f})")
    elif sbo >= _LONG_STRIDE_MIN:
        score += _LONG_STRIDE
        why.append(f"SBO {sbo // 1024} KiB is typical of a pointer, not a descriptor "
                   f"({_LONG_STRIDE:+.2f})")
    return score, why


def _wgmma_plausibility(d: Decoded) -> tuple[float, list[str]]:
    """:func:`_smem_plausibility`, and a word with no stride (SBO 0) loses
    :data:`_NO_STRIDE`: the wgmma word has no fixed constant (tcgen05's 0b001 at bits 46-48),
    so small integers and sign masks (``0x80000000``) fit its structure."""
    score, why = _smem_plausibility(d)
    if not d.values["stride_byte_offset_bytes"]:
        score += _NO_STRIDE
        why.append(f"no stride (SBO 0): what small integers and sign masks look like, and a "
                   f"wgmma word has no fixed constant to tell them apart ({_NO_STRIDE:+.2f})")
    return score, why


_LOWER_HALF_UNSEEN = "; the lower half (start address, LBO) is not in this word and reads as 0"
#: The matrix descriptors' readings by (family, form), a whole word or the upper half of one:
#: the fixed bits (mask, value), the base confidence, the plausibility and the reason.
_MATRIX_READINGS: dict[tuple[str, str], tuple[tuple[int, int], float,
                                              Callable[[Decoded], tuple[float, list[str]]], str]] = {
    ("smem", "word"): (_SMEM_FIXED, _BASE_SMEM, _smem_plausibility,
                       "shared memory descriptor layout: " + _SMEM_STRUCTURE),
    ("smem", "upper"): (_SMEM_UPPER_FIXED, _BASE_SMEM_UPPER, _smem_plausibility,
                        "upper half of a shared memory descriptor: " + _SMEM_UPPER_STRUCTURE
                        + _LOWER_HALF_UNSEEN),
    ("wgmma", "word"): (_WGMMA_FIXED, _BASE_WGMMA, _wgmma_plausibility,
                        "wgmma matrix descriptor layout (PTX ISA 9.7.15.5.1): " + _WGMMA_STRUCTURE),
    ("wgmma", "upper"): (_WGMMA_UPPER_FIXED, _BASE_WGMMA_UPPER, _wgmma_plausibility,
                         "upper half of a wgmma matrix descriptor (PTX ISA 9.7.15.5.1): "
                         + _WGMMA_UPPER_STRUCTURE + _LOWER_HALF_UNSEEN),
}


def _structural(word: int, size: int, as_: str | None, context: IdescContext | None,
                arch: str | None,
                narrow: bool) -> list[_Base]:
    """Readings whose layout structure holds, with their base confidence: of the families of
    the target (:func:`families_on`), or of ``as_`` alone.

    (Long: one case per family and form -- the fixed bits, the decode, the base confidence and
    its reason -- read best side by side; the matrix words' are rows of _MATRIX_READINGS.)"""
    out: list[_Base] = []
    wanted = (as_,) if as_ is not None else families_on(arch)
    for family, form in _forms(size, word, narrow):
        if family not in wanted:
            continue
        if (family, form) in _MATRIX_READINGS:
            (mask, value), base, plausibility, reason = _MATRIX_READINGS[family, form]
            if word & mask != value:
                continue
            full = word << REGISTER_BITS if form == "upper" else word
            d = decode(family, full)
            findings = validate(family, full, arch=arch)
            bonus, why = plausibility(d)
            out.append(_Base(family, None, form, full, _penalised(base + bonus, findings),
                             "; ".join([reason, *why]), tuple(findings), d))
        elif family == "zcm":
            mask, value = _ZCM_FIXED
            if word & mask != value:
                continue
            d = decode("zcm", word)
            findings = validate("zcm", word, arch=arch)
            nzm = d.fields["non_zero_mask"]
            base = _BASE_ZCM if nzm else _BASE_ZCM_ALL_ZERO
            reason = ("zero-column mask layout: reserved bits clear, "
                      + ("non-zero mask set" if nzm else "non-zero mask clear (an all-zero mask)"))
            out.append(_Base("zcm", None, form, word, _penalised(base, findings), reason,
                             tuple(findings), d))
        elif family == "tmem":
            if not _tmem_possible(word):
                continue
            findings = validate("tmem", word, arch=arch)
            if not is_valid(findings):
                continue
            d = decode("tmem", word)
            reason = (f"a valid Tensor Memory address (lane {d.fields['lane']}, column "
                      f"{d.fields['column']}); most small integers are")
            out.append(_Base("tmem", None, form, word, _BASE_TMEM, reason, tuple(findings), d))
        elif form == "idescE":
            hi, lo = word >> _IDESC_WORD_BITS, word & _REGISTER_MAX
            if lo:
                if not _tmem_possible(lo) or not _idesc_kinds(hi, context):
                    continue
                lo_findings = validate("tmem", lo, arch=arch)
                if not is_valid(lo_findings):
                    continue
                t = decode("tmem", lo)
                low = f"lower 32 bits the TMEM address lane {t.fields['lane']} column {t.fields['column']}"
                base = _BASE_IDESCE_TMEM
            else:
                low, base = "lower 32 bits 0", _BASE_IDESCE_ZERO
            readings = _valid_idesc(hi, context, arch)
            for d, findings in readings:
                reason = (f"upper 32 bits a valid kind::{d.kind} instruction descriptor, {low}: "
                          f"the 64-bit idescE form of SASS and CUTLASS{_also(readings, d)}")
                out.append(_Base("idesc", d.kind, form, hi, base, reason, tuple(findings), d,
                                 order=_kind_order(d)))
        else:  # idesc word
            readings = _valid_idesc(word, context, arch)
            upper0 = " (a 64-bit value whose upper half is 0)" if size == 64 else ""
            for d, findings in readings:
                reason = (f"a valid kind::{d.kind} instruction descriptor ({d.layout.source})"
                          f"{upper0}{_also(readings, d)}")
                out.append(_Base("idesc", d.kind, form, word, _BASE_IDESC, reason,
                                 tuple(findings), d, order=_kind_order(d)))
    return out


def _broken(family: str, form: str, word: int, context: IdescContext | None,
            arch: str | None) -> _Base | None:
    """The reading of ``word`` as ``family`` when its structure does not hold (named by the
    text or forced): the reading breaking the fewest rules, with its errors."""
    if family == "idesc":
        hi = word >> _IDESC_WORD_BITS if form == "idescE" else word
        options = []
        for k in (context.kinds if context else KINDS):
            findings = validate("idesc", hi, kind=k, arch=arch, **_context(context))
            d = decode("idesc", hi, kind=k)
            errors = sum(f.severity == "error" for f in findings)
            options.append((errors, _kind_order(d), d, findings))
        errors, _, d, findings = min(options, key=lambda o: (o[0], o[1]))
        first = next((f for f in findings if f.severity == "error"), None)
        where = "upper 32 bits: " if form == "idescE" else ""
        reason = (f"{where}no kind's reading is valid; kind::{d.kind} breaks the fewest rules "
                  f"({errors})" + (f", e.g. {first.message}" if first else ""))
        return _Base("idesc", d.kind, form, hi, _BASE_BROKEN, reason, tuple(findings), d,
                     structural=False, order=_kind_order(d))
    full = word << REGISTER_BITS if form == "upper" else word
    d = decode(family, full)
    findings = validate(family, full, arch=arch)
    errors = [f for f in findings if f.severity == "error"]
    what = f"upper half of {_HALF_OF[family]}" if form == "upper" else family
    if errors or family != "wgmma":
        reason = (f"read as {what} although it breaks {len(errors)} rule(s)"
                  + (f", e.g. {errors[0].field or errors[0].rule}: {errors[0].message}"
                     if errors else ""))
    else:  # unused bits set: a warning, not a broken rule (an H100 ignores them)
        warning = next((f for f in findings if f.severity == "warning"), None)
        reason = (f"read as {what} although its unused bits are not all 0"
                  + (f": {warning.field or warning.rule}: {warning.message}" if warning else ""))
    return _Base(family, None, form, full, _BASE_BROKEN, reason, tuple(findings), d,
                 structural=False)


_NON_ZERO_MASK = ZCM.by_name["non_zero_mask"]


def _wgmma_possible(word: int, size: int, min_confidence: float) -> bool:
    """:func:`may_report` for the wgmma matrix descriptor (a 64-bit word, or a 32-bit upper
    half)."""
    if size == 32:
        (mask, value), base, full = _WGMMA_UPPER_FIXED, _BASE_WGMMA_UPPER, word << REGISTER_BITS
    else:
        (mask, value), base, full = _WGMMA_FIXED, _BASE_WGMMA, word
    if word & mask != value or base + _SWIZZLED + _SHORT_STRIDE < min_confidence:
        return False
    return base + _wgmma_plausibility(decode("wgmma", full))[0] >= min_confidence


def may_report(word: int, size: int, narrow: bool, min_confidence: float,
              arch: str | None = None) -> bool:
    """Whether some reading of ``word`` can reach ``min_confidence`` without evidence in the
    text: the masks, code tables and the optimistic bonuses of :func:`_structural`, without the
    validators, so that the many words of a dump that are not descriptors are rejected in a few
    operations (and never fill the caches).  ``arch`` picks the families (:func:`families_on`)."""
    if arch is not None:
        fams = families_on(arch)
        if "wgmma" in fams and _wgmma_possible(word, size, min_confidence):
            return True
        if "smem" not in fams:
            return False
    if size == 32 or (narrow and word <= _REGISTER_MAX):
        if size == 32:
            mask, value = _SMEM_UPPER_FIXED
            if word & mask == value and _BASE_SMEM_UPPER + _SWIZZLED + _SHORT_STRIDE >= min_confidence:
                bonus, _ = _smem_plausibility(decode("smem", word << REGISTER_BITS))
                if _BASE_SMEM_UPPER + bonus >= min_confidence:
                    return True
        if _BASE_TMEM >= min_confidence and _tmem_possible(word):
            return True
        if _BASE_IDESC >= min_confidence and _idesc_kinds(word, None):
            return True
        if size == 32:
            return False
    mask, value = _SMEM_FIXED
    if word & mask == value and _BASE_SMEM + _SWIZZLED + _SHORT_STRIDE >= min_confidence:
        bonus, _ = _smem_plausibility(decode("smem", word))
        if _BASE_SMEM + bonus >= min_confidence:
            return True
    mask, value = _ZCM_FIXED
    if word & mask == value:
        base = _BASE_ZCM if _NON_ZERO_MASK.extract(word) else _BASE_ZCM_ALL_ZERO
        if base >= min_confidence:
            return True
    lo = word & _REGISTER_MAX
    return max(_BASE_IDESCE_ZERO, _BASE_IDESCE_TMEM) >= min_confidence \
        and (not lo or _tmem_possible(lo)) and bool(_idesc_kinds(word >> _IDESC_WORD_BITS, None))


# the scorer's memos of a word's readings stand in for one another: bench_caches.py's "dump log"
# (a long printf log) is 1.9x slower without all three, 1.24-1.35x with any one alone
@lru_cache(maxsize=1 << 14)
def _bases(word: int, size: int, as_: str | None, context: IdescContext | None, arch: str | None,
           narrow: bool) -> tuple[_Base, ...]:
    return tuple(_structural(word, size, as_, context, arch, narrow))


#: A piece of evidence from the text: (family, bonus, strong, why).
Hint = tuple[str, float, bool, str]


def check_options(as_: str | None, kind: str | None,
                  arch: str | None) -> tuple[str | None, IdescContext | None]:
    """``as_`` and the idesc context of a ``kind`` named by the user (``None``: every kind);
    raises :class:`ParameterError` for an unknown family, kind or arch, or a kind with a family
    other than ``idesc``."""
    if as_ is not None and (not isinstance(as_, str) or as_ not in FAMILIES):
        raise ParameterError(f"unknown descriptor {shorten(as_)}; descriptors: "
                             + ", ".join(FAMILIES))
    if kind is not None:
        k = kind_named(kind)
        if k is None:
            raise ParameterError(f"unknown kind {shorten(kind)}; kinds: " + ", ".join(KINDS))
        if as_ not in (None, "idesc"):
            raise ParameterError(f"kind applies to idesc only, not {as_}")
    if arch is not None and (not isinstance(arch, str) or arch not in ARCHES):
        raise ParameterError(f"unknown architecture {shorten(arch)}; known: " + ", ".join(ARCHES))
    return as_, None if kind is None else IdescContext((k.name,))


def classify(word: int, size: int = 32, *, hints: Iterable[Hint] = (), as_: str | None = None,
             kind: str | None = None, arch: str | None = DEFAULT_ARCH,
             narrow: bool = True) -> list[Candidate]:
    """Every plausible reading of ``word`` (a ``size``-bit value found in a dump), best first.

    ``hints`` are evidence from the text, ``(family, bonus, strong, why)``; ``as_`` restricts
    the readings to one family and raises its confidence, ``kind`` fixes the instruction
    descriptor's kind.  ``arch`` is the target: its families are read (sm_90a: the wgmma
    matrix descriptor, which ``smem`` then names; ``None``: :data:`DEFAULT_ARCH`'s, a word of
    another target judged on its own).  ``narrow`` lets a 64-bit value whose upper half is 0 be
    read as a 32-bit descriptor too.  Raises :class:`ParameterError` for an unknown family,
    kind or arch."""
    as_, context = check_options(as_, kind, arch)
    if size not in (32, 64) or word.__class__ is not int or not 0 <= word < (1 << size):
        raise ParameterError(f"word must be an integer of {size} bits (size is 32 or 64)")
    return list(candidates_for(word, size, tuple(hints), as_, context, arch, narrow))


def evidence_signature(hints: Iterable[tuple[Any, ...]]) -> tuple[tuple[str, float, bool], ...]:
    """The kinds of evidence of ``hints`` (family, bonus, strong), each once, sorted: what
    :func:`scored_readings` scores on (the sentences do not change a score)."""
    return tuple(sorted({(h[0], h[1], h[2]) for h in hints}))


def is_reported(cands: Sequence[Candidate], hints: Iterable[tuple[Any, ...]],
              min_confidence: float, forced: bool = False) -> bool:
    """Whether a word with these readings (best first) is reported: its best reading is at
    least ``min_confidence`` sure, or a strong piece of evidence names that reading's
    family -- or, with ``forced`` (the readings are of the one family ``as_`` asks for), any
    strong piece of evidence names the word: a word the text names is reported with its
    reading as the family asked for (``adesc`` under ``--as wgmma``), whatever family the
    name would pick."""
    if not cands:
        return False
    best = cands[0]
    return best.confidence >= min_confidence or any(
        h[2] and (forced or h[0] == best.descriptor) for h in hints)


# the scorer's memos of a word's readings stand in for one another: bench_caches.py's "dump log"
# (a long printf log) is 1.9x slower without all three, 1.24-1.35x with any one alone
@lru_cache(maxsize=1 << 12)
def candidates_for(word: int, size: int, hints: tuple[Hint, ...], as_: str | None,
                   context: IdescContext | None, arch: str | None,
                   narrow: bool) -> tuple[Candidate, ...]:
    """The readings of a word with the evidence of the text applied, best first.  Scoring is
    cached on the kinds of evidence; the sentences saying where it came from (which line, which
    name) are attached afterwards, so that repeated words hit the cache."""
    as_ = on_arch(as_, arch)
    scored = scored_readings(word, size, evidence_signature(hints), as_, context, arch, narrow)
    if not hints and as_ is None:
        return scored
    return with_evidence(scored, hints, as_)


def evidence_plan(scored: tuple[Candidate, ...], families: tuple[tuple[str, float], ...],
                   as_: str | None) -> tuple[tuple[tuple[tuple[int, str], ...], str | None]
                                         | None, ...]:
    """Which evidence each reading of ``scored`` gets from hints of these (family, bonus),
    in order: per reading None (no evidence) or ((hint index, the bonus as written), ...)
    and the ``as_`` sentence -- each kind of evidence counts once per reading.  Depends on
    the hints' families and bonuses only, not on their sentences."""
    plan = []
    forced = None if as_ is None else f"read as {as_} on request ({_FORCED:+.2f})"
    for c in scored:
        picks = []
        seen = set()
        for i, (family, bonus) in enumerate(families):
            if family == c.descriptor and bonus not in seen:
                seen.add(bonus)
                picks.append((i, f" ({bonus:+.2f})"))
        plan.append((tuple(picks), forced) if picks or forced else None)
    return tuple(plan)


def with_evidence(scored: tuple[Candidate, ...], hints: tuple[Hint, ...], as_: str | None,
                   plan: Any = None) -> tuple[Candidate, ...]:
    """``scored`` (the readings of :func:`scored_readings`, no evidence) with the sentences of
    ``hints`` and ``as_`` attached as :func:`evidence_plan` says (``plan``, when given, is
    its result for these hints); a reading no evidence names is ``scored``'s own object
    (readings are immutable)."""
    if plan is None:
        plan = evidence_plan(scored, tuple([(h[0], h[1]) for h in hints]), as_)
    out = []
    for c, picks in zip(scored, plan):
        if picks is None:
            out.append(c)
            continue
        evidence = [hints[i][3] + bonus for i, bonus in picks[0]]
        if picks[1] is not None:
            evidence.append(picks[1])
        # Candidate(...) built in one step (see make_finding)
        e = _new(Candidate)
        d = dict(c.__dict__)
        d["evidence"] = tuple(evidence)
        _set(e, "__dict__", d)
        out.append(e)
    return tuple(out)


# the scorer's memos of a word's readings stand in for one another: bench_caches.py's "dump log"
# (a long printf log) is 1.9x slower without all three, 1.24-1.35x with any one alone
@lru_cache(maxsize=1 << 14)
def scored_readings(word: int, size: int, signature: tuple[tuple[str, float, bool], ...],
                    as_: str | None, context: IdescContext | None, arch: str | None,
                    narrow: bool) -> tuple[Candidate, ...]:
    bases = list(_bases(word, size, as_, context, arch, narrow))
    forms = _forms(size, word, narrow)
    named = {family for family, _bonus, strong in signature if strong}
    if as_ is not None:
        named = {as_}
    for family in named:
        if any(b.descriptor == family for b in bases):
            continue
        if as_ is None and family not in families_on(arch):
            # a word of another target that the text names (an HGMMA operand in a listing
            # that names no target): its structural readings, judged on ``arch``
            own = _bases(word, size, family, context, arch, narrow)
            if own:
                bases += own
                continue
        for fam, form in forms:
            if fam == family:
                if family == "idesc" and form == "word" and size == 64:
                    continue  # a named 64-bit idesc is read as idescE
                broken = _broken(family, form, word, context, arch)
                if broken is not None:
                    bases.append(broken)
                break
    out = []
    for b in bases:
        # each kind of evidence counts once (two MMAs reading a register are one fact)
        confidence = b.confidence + sum({bonus for family, bonus, _ in signature
                                         if family == b.descriptor})
        if as_ is not None:
            confidence += _FORCED
        confidence = round(min(0.99, max(0.01, confidence)), 2)
        out.append(Candidate(b.descriptor, b.kind, b.form, b.word, confidence, b.reason,
                             b.findings, b.decoded, (), b.structural))
    order = {f: i for i, f in enumerate(FAMILIES)}
    rank = {b.descriptor + (b.kind or ""): b.order for b in bases}
    out.sort(key=lambda c: (-c.confidence, not c.structural, order[c.descriptor],
                            rank.get(c.descriptor + (c.kind or ""), ())))
    return tuple(out)


# ---------------------------------------------------------------- hints from names

_STRONG_NAMES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("wgmma", ("wgmma", "gmmadesc")),  # before smem's: "gmmadesc" holds "adesc"
    ("idesc", ("idesc", "instrdesc", "instdesc", "instructiondesc")),
    ("tmem", ("taddr", "tmem")),
    ("zcm", ("zcm", "zerocol", "zcol", "colmask", "zeromask")),
    ("smem", ("adesc", "bdesc", "desca", "descb", "smemdesc", "sdesc", "gdesc", "matrixdesc",
              "matdesc")),
)
_WEAK_NAMES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("zcm",), "mask"),
    (("smem", "idesc", "zcm"), "desc"),
)


def strong_name(name: str) -> bool:
    """Whether ``name`` says which descriptor its value is."""
    hints = name_hints(name)
    return bool(hints) and hints[0][2]


def name_hints(name: str, arch: str | None = None) -> tuple[Hint, ...]:
    """The evidence a name gives its value, on target ``arch`` (sm_90a: a shared memory
    descriptor's name, ``adesc``, names the wgmma matrix descriptor, :func:`on_arch`)."""
    key = "".join(ch for ch in name.lower() if ch.isalnum())
    for family, needles in _STRONG_NAMES:
        if any(n in key for n in needles):
            return ((on_arch(family, arch), _STRONG_NAME, True, f"the text names it {name!r}"),)
    for fams, needle in _WEAK_NAMES:
        if needle in key:
            return tuple((on_arch(f, arch), _WEAK_NAME, False, f"the text calls it {name!r}")
                         for f in fams)
    return ()

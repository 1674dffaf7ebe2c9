"""Find and explain tensor-core descriptors -- tcgen05's, and sm_90a's wgmma matrix descriptor --
in what a debugger, a printf, a PTX module or a SASS listing shows.

``scan(text)`` reads text (``str`` or ``bytes``) and returns one :class:`DumpFinding` per word
that reads as a descriptor; ``scan_lines(lines)`` does the same as a streaming generator in
constant memory, and ``scan_stream(binary_file)`` reads a byte stream line by line.  Four input
styles are recognised:

* cuda-gdb register tables (``info registers``: ``R4             0x8400490           138413200``)
  for general (``R<n>``) and uniform (``UR<n>``) registers.  A 64-bit descriptor lives in an
  aligned register pair (even register = low word), so an even register followed on the next
  line by its odd partner is also read as one 64-bit word;
* cuda-gdb ``print`` results (``(cuda-gdb) p/x adesc`` then ``$1 = 0x4000404000010040``): the
  printed expression names the value;
* printf-style lines: ``desc=0x...``, ``a_desc: 0x...``, ``idesc 08400490``, bare hex words of
  8 or 16 digits with or without ``0x``, ``_`` or ``'`` separators allowed;
* PTX modules and snippets (a ``.version``/``.target``/``.entry`` directive or a ``tcgen05.``
  instruction in the first 64 lines): read by :mod:`descriptors.readers.ptx`, which follows
  the data flow; the immediates the code materialises (nvcc writes descriptors as decimal
  immediates: ``mov.b32 %r37, 138413200;``, ``or.b64 %rd2, %rd10, 4611756662049538048;``) and
  the constant operands of ``tcgen05.mma`` and ``wgmma.mma_async`` are classified, an
  immediate that reaches an MMA operand named by it (family, and the instruction's kind for
  an instruction descriptor; a-desc/b-desc of ``wgmma.mma_async``: a wgmma word);
* SASS listings (cuobjdump ``-sass`` / nvdisasm lines such as
  ``/*0080*/  UMOV UR5, 0x8400490 ;  /* 0x0840049000057882 */``): immediates moved into
  registers (``UMOV``, ``MOV``, ``MOV32I``, ``IMAD.MOV``), followed through register copies
  until the register is overwritten; a ``UTCHMMA``/``UTCQMMA``/``UTCOMMA``/``UTCIMMA`` line
  that reads a register as ``gdesc[URk]`` (shared memory descriptor in the pair URk:URk+1),
  ``idesc[URk]`` or ``tmem[URk]`` says what the value is, and so does a Hopper
  ``HGMMA``/``IGMMA``/``QGMMA``/``BGMMA`` line's ``gdesc[URk]``: A's wgmma word in URk:URk+1
  (unless A comes from registers), B's in URk+2:URk+3 (``gdesc[URk] (A)``, ``(B)``).

The line recognisers live in :mod:`descriptors.readers` (``gdb``, ``printf``, ``sass`` whose
:func:`~descriptors.readers.sass.read_sass` reads a listing into facts and instructions -- a constant
moved into a register, a copy, registers overwritten, an MMA's descriptor operands -- and
``ptx`` whose data flow also feeds ``descgen lint``); this module keeps the state across lines
(register pairs, printed expressions, SASS registers awaiting their MMA) and the scoring.

Each word is classified against every family its size allows on the target, using the layouts
of :mod:`descriptors.words.layouts` (the fixed-constant and reserved fields, never hand-written
bit positions) and the validators of :mod:`descriptors.rules.validate`.  The target is ``arch``
(``--arch``), else the one the code names (SASS ``code for sm_90a``, PTX ``.target``: the
readers' ``arch`` of each fact and instruction, so a fatbin's members keep theirs), else
:data:`DEFAULT_ARCH`.  On sm_90a the words are wgmma matrix descriptors (PTX ISA 9.7.15.5.1)
and nothing else -- Hopper has no tcgen05 smem, idesc, zero-column mask or TMEM address --
and a shared memory descriptor named by the text or ``as_="smem"`` is that word; on the
tcgen05 targets the wgmma word is read only where the text names it (an ``HGMMA`` operand, a
name such as ``wgmma_desc``) or ``as_="wgmma"`` asks, judged on sm_90a when no target is named
(its only target) and on the named one otherwise (``wgmma.target`` then says it is no word of
that target):

======================  =============================================================  =====
reading                 structure required                                              base
======================  =============================================================  =====
``smem``   (64-bit)     every constant field holds its value, reserved fields are 0     0.55
``smem``   upper half   the same for the fields of the upper 32 bits (a register of     0.35
(32-bit)                the pair; the lower half, start address and LBO, is elsewhere)
``idesc``  (32-bit)     some kind's reading breaks no rule (reserved bits 0, Table 39   0.50
                        shape, defined type codes ...); one candidate per valid kind
``idesc``  idescE       upper 32 bits a valid instruction descriptor, lower 32 bits 0   0.70
(64-bit)                (0.60 when the lower half is a valid TMEM address instead)
``zcm``    (64-bit)     reserved bits 0 (0.35 with the non-zero-mask bit set, else      0.35
                        0.10: an all-zero mask is what most small values look like)
``tmem``   (32-bit)     lane < 128 and column < 512 -- true of most small integers      0.20
``wgmma``  (64-bit)     sm_90a only: the layout's unused fields are 0 (it has no        0.55
                        fixed constant)
``wgmma``  upper half   the same for the fields of the upper 32 bits (SBO, base         0.35
(32-bit)                offset, swizzle: the half nvcc materialises as a constant,
                        ``UMOV UR7, 0x40000040``; start address and LBO are computed)
======================  =============================================================  =====

Adjustments: a shared memory descriptor gains 0.20 for a swizzled layout and 0.10 for a stride
(SBO) of at most 32 KiB, and loses 0.25 for an SBO of 64 KiB or more (what a pointer whose bits
happen to fit the layout looks like); a wgmma word takes the same adjustments and loses 0.20
more for no stride at all (SBO 0: what small integers and sign masks such as ``0x80000000``
look like, which fit a layout without a fixed constant); a structurally matching word loses
0.15 per rule it breaks.  Evidence in the text raises the family it names: a specific name
(``adesc``, ``b_desc``, ``idesc``, ``taddr``, ``tmem_addr``, ``zcm``, ``wgmma_desc`` ...; on
sm_90a a shared memory descriptor's name means the wgmma word) +0.30, a generic one
(``desc``, ``mask``) +0.15, an MMA operand the value feeds (SASS ``UTC*MMA``, ``HGMMA`` ...;
PTX ``tcgen05.mma``, ``wgmma.mma_async``) +0.35, ``as_=`` (``--as``) +0.30.  A family named by
specific evidence or ``as_`` is read even when its structure does not hold (base 0.10): that
is how a broken descriptor (``adesc`` with the 0b001 constant missing) is shown with its
errors, and a wgmma word with an unused bit set with its ``wgmma.reserved`` warning.
Confidence is clamped to 0.01..0.99 and labelled ``high`` (>= 0.75), ``medium`` (>= 0.50) or
``low``.  A word is reported when its best reading reaches
``min_confidence`` (0.50 by default) or specific evidence names that reading; everything else
is skipped silently.

Nothing in the input makes the scanner raise: bytes are decoded as UTF-8 with replacement
characters, only the first :data:`MAX_LINE` characters of a line are scanned (the rest of a
longer line is read and dropped), and every pattern is linear (possessive quantifiers, bounded
look-behind, names matched on the reversed text before a value).

Speed and memory: one precompiled prefilter drops lines that cannot hold anything; the line's
first character picks the parser; a word is queued only when a reading could reach the
reporting threshold (:func:`_possible`: the layouts' masks and code tables, no validators) or
the text names it, and distinct words are validated once (LRU caches); a printf-style word is
read with the name before it by one pattern, and what a distinct match of it (``name=word``)
is reported as is worked out once per context (bounded memos, :meth:`_Scanner.tokens`).  A
word whose evidence is complete when it is read (printf, cuda-gdb) is queued as its finding at
once.  Findings come out in line order as soon as they are final: a SASS immediate waits while
a register still holds it (a later MMA may read it), at most :data:`WINDOW` lines, so memory
stays bounded.
"""

from __future__ import annotations

import heapq
import io
import re
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import islice
from typing import IO, Any

from ..words.bits import Field, Layout
from ..words.codec import Decoded, decode
from ..words.enums import KINDS, kind_named
from ..errors import ParameterError, shorten
from ..words.layouts import IDESC, LAYOUTS, SMEM, TMEM, WGMMA, ZCM
from .printer import to_json
from ..readers import SASS_FUNCTION, SASS_INSTRUCTION, TextLines, gdb, printf
from ..rules.targets import DEFAULT_ARCH
from ..words.literals import MAX_LINE
from ..isa.sites import IdescContext
from ..rules.validate import TMEM_COLUMNS as _TMEM_COLUMNS
from ..rules.validate import TMEM_LANES as _TMEM_LANES
from ..rules.validate import ARCHES, SHAPES, WORD_ARCHES, Finding, is_valid, validate

__all__ = [
    "Candidate", "DumpFinding", "scan", "scan_lines", "scan_stream", "iter_lines", "classify",
    "MAX_LINE", "WINDOW", "DEFAULT_MIN_CONFIDENCE", "FAMILIES", "DEFAULT_ARCH",
]

#: Lines a SASS immediate waits for an MMA instruction that says what it is.
WINDOW = 4096
_MEMO_SIZE = 1 << 16
#: Distinct (word, evidence) readings a scan keeps for words met again (as the LRU caches),
#: and distinct printf (name, word) findings.
_READINGS_SIZE = 1 << 12
#: Contexts (register, printed expression, source) of hex words whose matches a scan keeps.
_CONTEXTS = 64
#: Confidence from which a word is reported without evidence in the text.
DEFAULT_MIN_CONFIDENCE = 0.5
#: Descriptor families, in the order ties are broken.
FAMILIES = ("smem", "idesc", "zcm", "tmem", "wgmma")


@lru_cache(maxsize=None)
def _families(arch: str | None) -> tuple[str, ...]:
    """The families whose words exist on ``arch`` (``None``: :data:`DEFAULT_ARCH`), in
    :data:`FAMILIES` order: tcgen05's smem, idesc, zcm and tmem on sm_100a and later, the wgmma
    matrix descriptor alone on sm_90a (:data:`~descriptors.rules.validate.WORD_ARCHES`)."""
    target = arch or DEFAULT_ARCH
    return tuple(f for f in FAMILIES if target in WORD_ARCHES[f])


@lru_cache(maxsize=None)
def _on_arch(family: str | None, arch: str | None) -> str | None:
    """``family`` as the target reads it: a shared memory descriptor (``smem``: a name such as
    ``adesc``, ``--as smem``) is sm_90a's wgmma matrix descriptor, as ``--arch sm_90a`` reads
    ``smem`` in every command; every other family is itself."""
    if family == "smem" and "smem" not in _families(arch) and "wgmma" in _families(arch):
        return "wgmma"
    return family

#: A general or uniform register holds 32 bits; a 64-bit value lives in an aligned pair.
REGISTER_BITS = 32
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
_MMA_OPERAND = 0.35
_FORCED = 0.30
_HIGH, _MEDIUM = 0.75, 0.50


def _level(confidence: float) -> str:
    return "high" if confidence >= _HIGH else "medium" if confidence >= _MEDIUM else "low"


# ---------------------------------------------------------------- layout-derived structure


def _fixed(layout: Layout, fields: Iterable[Field] | None = None) -> tuple[int, int]:
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
    def verdict(self) -> str:
        return "valid" if self.valid else f"INVALID ({self.errors} error{'s' * (self.errors != 1)})"

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
class DumpFinding:
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


def _finding(line: int, source: str, register: str | None, name: str | None, text: str,
             word: int, size: int, candidates: tuple[Candidate, ...]) -> DumpFinding:
    """``DumpFinding(line, source, ...)``, the same object built in one step: the frozen
    dataclass's ``__init__`` sets each of its eight fields through ``object.__setattr__``
    (3 us; a printf log has a finding every few dozen bytes)."""
    f = _new(DumpFinding)
    _set(f, "__dict__", {"line": line, "source": source, "register": register, "name": name,
                         "text": text, "word": word, "size": size, "candidates": candidates})
    return f


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
class _Base:
    descriptor: str
    kind: str | None
    form: str
    word: int
    confidence: float
    reason: str
    findings: tuple[Finding, ...]
    decoded: Decoded
    structural: bool
    order: tuple[Any, ...]


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


def _context(kind: Any) -> dict[str, Any]:
    """validate()'s context parameters from an :class:`~descriptors.isa.sites.IdescContext`
    (none for a kind given by name)."""
    if kind.__class__ is IdescContext:
        return {"cta_group": kind.cta_group, "ws": kind.ws}
    return {}


def _idesc_kinds(word: int, kind: str | None) -> list[str]:
    """Kinds whose reading could be valid: reserved bits clear, type codes defined, M and N a
    Table 39 shape of the kind.  The cheap test that spares running the validators on words
    that cannot be instruction descriptors; the validators decide."""
    out = []
    for mask, value, kinds in _IDESC_GROUPS:
        if word & mask != value:
            continue
        for k, codes in kinds:
            if kind is not None and (k != kind if kind.__class__ is str else k not in kind.kinds):
                continue  # (an IdescContext: the kinds an MMA serves)
            for lsb, top, ok in codes:
                if (word >> lsb) & top not in ok:
                    break
            else:
                out.append(k)
    return out


def _valid_idesc(word: int, kind: str | None,
                 arch: str | None) -> list[tuple[Decoded, list[Finding]]]:
    out = []
    context = _context(kind)
    for k in _idesc_kinds(word, kind):
        findings = validate("idesc", word, kind=k, arch=arch, **context)
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


def _structural(word: int, size: int, as_: str | None, kind: str | None, arch: str | None,
                narrow: bool) -> list[_Base]:
    """Readings whose layout structure holds, with their base confidence: of the families of
    the target (:func:`_families`), or of ``as_`` alone.

    (Long: one case per family and form, each a few lines of the same shape -- the fixed bits,
    the decode, the base confidence and its reason -- read best side by side.)"""
    out: list[_Base] = []
    wanted = (as_,) if as_ is not None else _families(arch)
    for family, form in _forms(size, word, narrow):
        if family not in wanted:
            continue
        if family == "wgmma":
            upper = form == "upper"
            mask, value = _WGMMA_UPPER_FIXED if upper else _WGMMA_FIXED
            if word & mask != value:
                continue
            full = word << REGISTER_BITS if upper else word
            d = decode("wgmma", full)
            findings = validate("wgmma", full, arch=arch)
            bonus, why = _wgmma_plausibility(d)
            if upper:
                base = _BASE_WGMMA_UPPER
                reason = ("upper half of a wgmma matrix descriptor (PTX ISA 9.7.15.5.1): "
                          + _WGMMA_UPPER_STRUCTURE + "; the lower half (start address, LBO) is "
                          "not in this word and reads as 0")
            else:
                base = _BASE_WGMMA
                reason = "wgmma matrix descriptor layout (PTX ISA 9.7.15.5.1): " + _WGMMA_STRUCTURE
            out.append(_Base("wgmma", None, form, full, _penalised(base + bonus, findings),
                             "; ".join([reason, *why]), tuple(findings), d, True, ()))
        elif family == "smem" and form == "word":
            mask, value = _SMEM_FIXED
            if word & mask != value:
                continue
            d = decode("smem", word)
            findings = validate("smem", word, arch=arch)
            bonus, why = _smem_plausibility(d)
            reason = "shared memory descriptor layout: " + _SMEM_STRUCTURE
            out.append(_Base("smem", None, form, word,
                             _penalised(_BASE_SMEM + bonus, findings),
                             "; ".join([reason, *why]), tuple(findings), d, True, ()))
        elif family == "smem":
            mask, value = _SMEM_UPPER_FIXED
            if word & mask != value:
                continue
            full = word << REGISTER_BITS
            d = decode("smem", full)
            findings = validate("smem", full, arch=arch)
            bonus, why = _smem_plausibility(d)
            reason = ("upper half of a shared memory descriptor: " + _SMEM_UPPER_STRUCTURE
                      + "; the lower half (start address, LBO) is not in this word and reads as 0")
            out.append(_Base("smem", None, form, full,
                             _penalised(_BASE_SMEM_UPPER + bonus, findings),
                             "; ".join([reason, *why]), tuple(findings), d, True, ()))
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
                             tuple(findings), d, True, ()))
        elif family == "tmem":
            if not _tmem_possible(word):
                continue
            findings = validate("tmem", word, arch=arch)
            if not is_valid(findings):
                continue
            d = decode("tmem", word)
            reason = (f"a valid Tensor Memory address (lane {d.fields['lane']}, column "
                      f"{d.fields['column']}); most small integers are")
            out.append(_Base("tmem", None, form, word, _BASE_TMEM, reason, tuple(findings), d,
                             True, ()))
        elif form == "idescE":
            hi, lo = word >> _IDESC_WORD_BITS, word & _REGISTER_MAX
            if lo:
                if not _tmem_possible(lo) or not _idesc_kinds(hi, kind):
                    continue
                lo_findings = validate("tmem", lo, arch=arch)
                if not is_valid(lo_findings):
                    continue
                t = decode("tmem", lo)
                low = f"lower 32 bits the TMEM address lane {t.fields['lane']} column {t.fields['column']}"
                base = _BASE_IDESCE_TMEM
            else:
                low, base = "lower 32 bits 0", _BASE_IDESCE_ZERO
            readings = _valid_idesc(hi, kind, arch)
            for d, findings in readings:
                reason = (f"upper 32 bits a valid kind::{d.kind} instruction descriptor, {low}: "
                          f"the 64-bit idescE form of SASS and CUTLASS{_also(readings, d)}")
                out.append(_Base("idesc", d.kind, form, hi, base, reason, tuple(findings), d,
                                 True, _kind_order(d)))
        else:  # idesc word
            readings = _valid_idesc(word, kind, arch)
            upper0 = " (a 64-bit value whose upper half is 0)" if size == 64 else ""
            for d, findings in readings:
                reason = (f"a valid kind::{d.kind} instruction descriptor ({d.layout.source})"
                          f"{upper0}{_also(readings, d)}")
                out.append(_Base("idesc", d.kind, form, word, _BASE_IDESC, reason,
                                 tuple(findings), d, True, _kind_order(d)))
    return out


def _broken(family: str, form: str, word: int, kind: str | None,
            arch: str | None) -> _Base | None:
    """The reading of ``word`` as ``family`` when its structure does not hold (named by the
    text or forced): the reading breaking the fewest rules, with its errors."""
    if family == "idesc":
        hi = word >> _IDESC_WORD_BITS if form == "idescE" else word
        options = []
        for k in ([kind] if kind.__class__ is str else kind.kinds if kind else KINDS):
            findings = validate("idesc", hi, kind=k, arch=arch, **_context(kind))
            d = decode("idesc", hi, kind=k)
            errors = sum(f.severity == "error" for f in findings)
            options.append((errors, _kind_order(d), d, findings))
        errors, _, d, findings = min(options, key=lambda o: (o[0], o[1]))
        first = next((f for f in findings if f.severity == "error"), None)
        where = "upper 32 bits: " if form == "idescE" else ""
        reason = (f"{where}no kind's reading is valid; kind::{d.kind} breaks the fewest rules "
                  f"({errors})" + (f", e.g. {first.message}" if first else ""))
        return _Base("idesc", d.kind, form, hi, _BASE_BROKEN, reason, tuple(findings), d,
                     False, _kind_order(d))
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
    return _Base(family, None, form, full, _BASE_BROKEN, reason, tuple(findings), d, False, ())


_NON_ZERO_MASK = ZCM.by_name["non_zero_mask"]


def _wgmma_possible(word: int, size: int, min_confidence: float) -> bool:
    """:func:`_possible` for the wgmma matrix descriptor (a 64-bit word, or a 32-bit upper
    half)."""
    if size == 32:
        (mask, value), base, full = _WGMMA_UPPER_FIXED, _BASE_WGMMA_UPPER, word << REGISTER_BITS
    else:
        (mask, value), base, full = _WGMMA_FIXED, _BASE_WGMMA, word
    if word & mask != value or base + _SWIZZLED + _SHORT_STRIDE < min_confidence:
        return False
    return base + _wgmma_plausibility(decode("wgmma", full))[0] >= min_confidence


def _possible(word: int, size: int, narrow: bool, min_confidence: float,
              arch: str | None = None) -> bool:
    """Whether some reading of ``word`` can reach ``min_confidence`` without evidence in the
    text: the masks, code tables and the optimistic bonuses of :func:`_structural`, without the
    validators, so that the many words of a dump that are not descriptors are rejected in a few
    operations (and never fill the caches).  ``arch`` picks the families (:func:`_families`)."""
    if arch is not None:
        fams = _families(arch)
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


@lru_cache(maxsize=1 << 14)
def _bases(word: int, size: int, as_: str | None, kind: str | None, arch: str | None,
           narrow: bool) -> tuple[_Base, ...]:
    return tuple(_structural(word, size, as_, kind, arch, narrow))


@lru_cache(maxsize=1 << 12)
def _broken_cached(family: str, form: str, word: int, kind: str | None,
                   arch: str | None) -> _Base | None:
    return _broken(family, form, word, kind, arch)


#: A piece of evidence from the text: (family, bonus, strong, why).
Hint = tuple[str, float, bool, str]


def _check_options(as_: str | None, kind: str | None,
                   arch: str | None) -> tuple[str | None, str | None]:
    if as_ is not None and (not isinstance(as_, str) or as_ not in FAMILIES):
        raise ParameterError(f"unknown descriptor {shorten(as_)}; descriptors: "
                             + ", ".join(FAMILIES))
    if kind is not None:
        k = kind_named(kind)
        if k is None:
            raise ParameterError(f"unknown kind {shorten(kind)}; kinds: " + ", ".join(KINDS))
        if as_ not in (None, "idesc"):
            raise ParameterError(f"kind applies to idesc only, not {as_}")
        kind = k.name
    if arch is not None and (not isinstance(arch, str) or arch not in ARCHES):
        raise ParameterError(f"unknown architecture {shorten(arch)}; known: " + ", ".join(ARCHES))
    return as_, kind


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
    as_, kind = _check_options(as_, kind, arch)
    if size not in (32, 64) or word.__class__ is not int or not 0 <= word < (1 << size):
        raise ParameterError(f"word must be an integer of {size} bits (size is 32 or 64)")
    return list(_candidates(word, size, tuple(hints), as_, kind, arch, narrow))


def _signature(hints: Iterable[tuple[Any, ...]]) -> tuple[tuple[str, float, bool], ...]:
    """The kinds of evidence of ``hints`` (family, bonus, strong), each once, sorted: what
    :func:`_scored` scores on (the sentences do not change a score)."""
    return tuple(sorted({(h[0], h[1], h[2]) for h in hints}))


def _reported(cands: Sequence[Candidate], hints: Iterable[tuple[Any, ...]],
              min_confidence: float) -> bool:
    """Whether a word with these readings (best first) is reported: its best reading is at
    least ``min_confidence`` sure, or a strong piece of evidence names that reading's
    family."""
    if not cands:
        return False
    best = cands[0]
    return best.confidence >= min_confidence or any(
        h[2] and h[0] == best.descriptor for h in hints)


@lru_cache(maxsize=1 << 12)
def _candidates(word: int, size: int, hints: tuple[Hint, ...], as_: str | None,
                kind: str | None, arch: str | None, narrow: bool) -> tuple[Candidate, ...]:
    """The readings of a word with the evidence of the text applied, best first.  Scoring is
    cached on the kinds of evidence; the sentences saying where it came from (which line, which
    name) are attached afterwards, so that repeated words hit the cache."""
    as_ = _on_arch(as_, arch)
    scored = _scored(word, size, _signature(hints), as_, kind, arch, narrow)
    if not hints and as_ is None:
        return scored
    return _with_evidence(scored, hints, as_)


def _evidence_plan(scored: tuple[Candidate, ...], families: tuple[tuple[str, float], ...],
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


def _with_evidence(scored: tuple[Candidate, ...], hints: tuple[Hint, ...], as_: str | None,
                   plan: Any = None) -> tuple[Candidate, ...]:
    """``scored`` (the readings of :func:`_scored`, no evidence) with the sentences of
    ``hints`` and ``as_`` attached as :func:`_evidence_plan` says (``plan``, when given, is
    its result for these hints); a reading no evidence names is ``scored``'s own object
    (readings are immutable)."""
    if plan is None:
        plan = _evidence_plan(scored, tuple([(h[0], h[1]) for h in hints]), as_)
    out = []
    for c, picks in zip(scored, plan):
        if picks is None:
            out.append(c)
            continue
        evidence = [hints[i][3] + bonus for i, bonus in picks[0]]
        if picks[1] is not None:
            evidence.append(picks[1])
        # Candidate(...) built in one step (see _finding)
        e = _new(Candidate)
        d = dict(c.__dict__)
        d["evidence"] = tuple(evidence)
        _set(e, "__dict__", d)
        out.append(e)
    return tuple(out)


@lru_cache(maxsize=1 << 14)
def _scored(word: int, size: int, signature: tuple[tuple[str, float, bool], ...],
            as_: str | None, kind: str | None, arch: str | None,
            narrow: bool) -> tuple[Candidate, ...]:
    bases = list(_bases(word, size, as_, kind, arch, narrow))
    forms = _forms(size, word, narrow)
    named = {family for family, _bonus, strong in signature if strong}
    if as_ is not None:
        named = {as_}
    for family in named:
        if any(b.descriptor == family for b in bases):
            continue
        if as_ is None and family not in _families(arch):
            # a word of another target that the text names (an HGMMA operand in a listing
            # that names no target): its structural readings, judged on ``arch``
            own = _bases(word, size, family, kind, arch, narrow)
            if own:
                bases += own
                continue
        for fam, form in forms:
            if fam == family:
                if family == "idesc" and form == "word" and size == 64:
                    continue  # a named 64-bit idesc is read as idescE
                broken = _broken_cached(family, form, word, kind, arch)
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


def _strong(name: str) -> bool:
    """Whether ``name`` says which descriptor its value is."""
    hints = _name_hints(name)
    return bool(hints) and hints[0][2]


@lru_cache(maxsize=4096)
def _name_hints(name: str, arch: str | None = None) -> tuple[Hint, ...]:
    """The evidence a name gives its value, on target ``arch`` (sm_90a: a shared memory
    descriptor's name, ``adesc``, names the wgmma matrix descriptor, :func:`_on_arch`)."""
    key = "".join(ch for ch in name.lower() if ch.isalnum())
    for family, needles in _STRONG_NAMES:
        if any(n in key for n in needles):
            return ((_on_arch(family, arch), _STRONG_NAME, True, f"the text names it {name!r}"),)
    for fams, needle in _WEAK_NAMES:
        if needle in key:
            return tuple((_on_arch(f, arch), _WEAK_NAME, False, f"the text calls it {name!r}")
                         for f in fams)
    return ()


# ---------------------------------------------------------------- line patterns

#: The single prefilter every line goes through: a line without a digit, a cuda-gdb prompt or
#: a function header holds nothing to find (the pattern starts with literals and a character
#: set only, so the regex engine skips through a line in C).
_PREFILTER = re.compile(r"[0-9]|\((?:cuda-)?gdb\)|Function|\.text\.")
#: SASS lines in a log (addressed, pasted bare, function headers) are kept as runs and each run
#: is read by :mod:`descriptors.readers.sass`, as a whole listing is (:meth:`_Scanner.sass_line`).


# ---------------------------------------------------------------- the scanner


class _Entry:
    """A word found in the text, waiting to be classified and emitted in line order."""

    __slots__ = ("line", "source", "register", "name", "text", "word", "size", "hints",
                 "ready", "dead", "emitted", "narrow", "result", "refs")

    def __init__(self, line: int, source: str, register: str | None, name: str | None,
                 text: str, word: int, size: int, hints: tuple[Hint, ...] = (),
                 ready: bool = True, narrow: bool = True) -> None:
        self.line = line
        self.source = source
        self.register = register
        self.name = name
        self.text = text
        self.word = word
        self.size = size
        self.hints: tuple[Hint, ...] = hints
        self.ready = ready
        self.dead = False
        self.emitted = False
        self.narrow = narrow
        self.result: DumpFinding | None | bool = False  # False: not classified yet
        self.refs = 0  # SASS registers holding this value


class _Scanner:
    def __init__(self, as_: str | None, kind: str | None, arch: str | None, min_confidence: float,
                 window: int) -> None:
        self.as_, self.kind, self.arch = as_, kind, arch
        self.min_confidence = min_confidence
        self.window = window
        #: _Entry (a word whose evidence may still grow) or DumpFinding (final), in line order
        self.queue: deque[Any] = deque()
        #: _Entry objects in the queue: none, and every queued finding is due at once
        self.entries = 0
        #: the run of SASS lines (line number, text) read so far, read together at its end
        self.segment: list[tuple[int, str]] = []
        #: cuda-gdb register table: (line, file, index, digits, value) of an even register
        #: awaiting its odd partner on the next line
        self.pending: tuple[int, str, int, str, int] | None = None
        self.memo: dict[int, bool] = {}
        #: (name before a hex word, the word, (register, default name, source)) -> the
        #: fields of its finding (line 0), or None: not reported (:meth:`hex_fields`)
        self.words: dict[tuple[Any, ...], dict[str, Any] | None] = {}
        #: (register, default name, source) -> the text of a match of a hex word and its
        #: name (printf.named_hex_matches) -> :meth:`hex_match` of it: a log repeats its
        #: ``name=word``, read and classified once per context
        self.matches: dict[tuple[str | None, str | None, str], dict[str, Any]] = {}
        #: (word, size, hints, narrow) -> the finding's readings, or None: not reported
        self.readings: dict[tuple[Any, ...], tuple[Candidate, ...] | None] = {}
        self.expr: tuple[str | None, str | None] | None = None  # (register, name) printed next

    # ------------------------------------------------------------ emission
    def finish_entry(self, e: _Entry) -> DumpFinding | None:
        if e.result is not False:
            return e.result  # type: ignore[return-value]
        e.result = found = self.classify_entry(e)
        return found

    def classify_entry(self, e: _Entry) -> DumpFinding | None:
        cands = self.readings_of(e.word, e.size, e.hints, e.narrow)
        if cands is None:
            return None
        return _finding(e.line, e.source, e.register, e.name, e.text, e.word, e.size, cands)

    def readings_of(self, word: int, size: int, hints: tuple[Hint, ...],
                    narrow: bool = True) -> tuple[Candidate, ...] | None:
        """The readings of a word with this evidence when it is reported, else None
        (memoised: a dump repeats its words)."""
        key = (word, size, hints, narrow)
        readings = self.readings
        try:
            return readings[key]
        except KeyError:
            pass
        if len(readings) >= _READINGS_SIZE:
            readings.clear()
        cands: tuple[Candidate, ...] | None = None
        if hints or self.possible(word, size, narrow):
            cands = _candidates(word, size, hints, self.as_, self.kind, self.arch, narrow)
            if not _reported(cands, hints, self.min_confidence):
                cands = None
        readings[key] = cands
        return cands

    def found(self, lineno: int, source: str, register: str | None, name: str | None,
              text: str, word: int, size: int, hints: tuple[Hint, ...] = ()) -> None:
        """Queue a word whose evidence is all known (nothing later adds to it): classified
        now, queued as its finding, or dropped when it is not reported."""
        cands = self.readings_of(word, size, hints)
        if cands is not None:
            self.queue.append(_finding(lineno, source, register, name, text, word, size, cands))

    def close(self) -> Iterator[DumpFinding]:
        self.flush_pending()
        self.flush_segment()
        while self.queue:
            e = self.queue.popleft()
            if e.__class__ is DumpFinding:
                yield e  # type: ignore[misc]
                continue
            self.entries -= 1
            e.emitted = True
            if not e.dead:
                found = self.finish_entry(e)
                if found is not None:
                    yield found

    # ------------------------------------------------------------ cuda-gdb register tables
    def flush_pending(self) -> None:
        """The even register read last has no partner: queue it on its own."""
        pending = self.pending
        if pending is not None:
            self.pending = None
            self.register_entry(*pending)

    def possible(self, word: int, size: int, narrow: bool = True) -> bool:
        """:func:`_possible`, memoised for the values a dump repeats (0, 1, addresses ...)."""
        if self.as_ is not None:
            return True
        key = (word << 2) | (size == 64) << 1 | narrow
        memo = self.memo
        hit = memo.get(key)
        if hit is None:
            if len(memo) >= _MEMO_SIZE:
                memo.clear()
            hit = memo[key] = _possible(word, size, narrow, self.min_confidence, self.arch)
        return hit

    def register_entry(self, lineno: int, reg_file: str, index: int, digits: str,
                       value: int) -> None:
        if self.possible(value, 32):
            self.found(lineno, "registers", f"{reg_file}{index}", None, f"0x{digits}", value, 32)

    def register_line(self, lineno: int, reg_file: str, index: int, digits: str) -> None:
        """One line of a cuda-gdb register table.  An even register waits (outside the queue,
        so line order holds) for its odd partner on the next line; the pair is read as one
        64-bit word, and replaces its halves when it reads as a descriptor."""
        value = int(digits, 16)
        pending = self.pending
        self.pending = None
        if pending is not None:
            if pending[1] == reg_file and pending[2] + 1 == index:
                low_line, _, low_index, low_digits, low = pending
                word = (value << REGISTER_BITS) | low
                if self.possible(word, 64, False):
                    lo_name, hi_name = f"{reg_file}{low_index}", f"{reg_file}{index}"
                    pair = _Entry(lineno, "registers", f"{lo_name}:{hi_name}", None,
                                  f"{lo_name}=0x{low_digits} {hi_name}=0x{digits}", word, 64,
                                  narrow=False)
                    if self.finish_entry(pair) is not None:
                        self.queue.append(pair)
                        self.entries += 1
                        return
                self.register_entry(low_line, reg_file, low_index, low_digits, low)
                self.register_entry(lineno, reg_file, index, digits, value)
                return
            self.register_entry(*pending)
        if index % 2 == 0:
            self.pending = (lineno, reg_file, index, digits, value)
        else:
            self.register_entry(lineno, reg_file, index, digits, value)

    # ------------------------------------------------------------ printf-style tokens
    def tokens(self, lineno: int, line: str, source: str, default_name: str | None = None,
               register: str | None = None) -> None:
        """Hex words of a printf-style line (or of a cuda-gdb value, named by the printed
        expression), and decimal values where the text says what they are."""
        spans = []
        if printf.could_hold_hex(line):
            context = (register, default_name, source)
            matches = self.matches.get(context)
            if matches is None:
                if len(self.matches) >= _CONTEXTS:
                    self.matches.clear()
                matches = self.matches[context] = {}
            append = self.queue.append
            for m in printf.named_hex_matches(line):
                key = m.group()
                got = matches.get(key)
                if got is None:
                    if len(matches) >= _READINGS_SIZE:
                        matches.clear()
                    got = matches[key] = self.hex_match(m, context)
                offset, fields, unnamed = got
                if offset is None:
                    continue  # no word
                start = m.start() + offset
                spans.append(start)
                if unnamed is not None:  # the name is read from the line
                    fields = self.hex_fields(printf.name_before(line, start), *unnamed, context)
                if fields is not None:
                    fields = fields.copy()
                    fields["line"] = lineno
                    finding = _new(DumpFinding)
                    _set(finding, "__dict__", fields)
                    append(finding)
        # decimal values only where the text says what they are: a value named by the printed
        # expression or a register (`p $UR5` prints `$2 = 138413200`), or `name=123` / `name: 123`
        # with a name that carries a hint
        if register is not None or (default_name is not None and _strong(default_name)):
            for start, text, word, size in printf.decimal_words(line, every=True):
                if start in spans:
                    continue  # the digits of a hex word ("idesc 08400480")
                name = printf.name_before(line, start) or default_name
                if register is None and (name is None or not _strong(name)):
                    continue
                self.found(lineno, source, register, name, text, word, size,
                           _name_hints(name, self.arch) if name else ())
        elif ("=" in line or ":" in line) and printf.has_hint_word(line):
            for start, text, word, size, name in printf.named_decimal_words(line):
                if start not in spans and _strong(name):
                    self.found(lineno, source, None, name, text, word, size,
                               _name_hints(name, self.arch))

    def hex_match(self, m: re.Match[str], context: tuple[str | None, str | None, str]
                  ) -> tuple[int | None, dict[str, Any] | None, tuple[str, int, int] | None]:
        """What a match of :func:`printf.named_hex_matches` gives in ``context`` (register,
        default name, source), by :meth:`tokens`' memo of it: ``(offset of the word from the
        match's start, the fields of its finding or None: not reported, None)``; ``(offset,
        None, (text, word, size))`` when the name before the word is not in the match (the
        line decides it); ``(None, None, None)`` when the match is no word."""
        got = printf.read_named(m)
        if got is None:
            return None, None, None
        offset, text, word, size, name = got
        if name is printf.UNKNOWN:
            return offset, None, (text, word, size)
        return offset, self.hex_fields(name, text, word, size, context), None

    def hex_fields(self, name: str | None, text: str, word: int, size: int,
                   context: tuple[str | None, str | None, str]) -> dict[str, Any] | None:
        """The fields of the finding (line 0) of a hex word written after ``name`` in
        ``context`` (register, default name, source), or None: not reported.  Memoised: a
        log repeats the same names and words."""
        key = (name, text, context)
        words = self.words
        fields = words.get(key, False)
        if fields is False:
            if len(words) >= _READINGS_SIZE:
                words.clear()
            register, default_name, source = context
            reg, name, cands = self.hex_word(name, word, size, register, default_name)
            fields = words[key] = None if cands is None else vars(
                _finding(0, source, reg, name, text, word, size, cands))
        return fields  # type: ignore[return-value]

    def hex_word(self, name: str | None, word: int, size: int, register: str | None,
                 default_name: str | None) -> tuple[str | None, str | None,
                                                     tuple[Candidate, ...] | None]:
        """(register, name, readings or None: not reported) of a hex word of a printf-style
        line written after ``name`` (a register name names the register)."""
        if name is not None and gdb.REGISTER_NAME.match(name):
            register, name, hints = register or name.lstrip("$"), None, ()
        else:
            hints = _name_hints(name, self.arch) if name else ()
        if name is None:
            name = default_name
            hints = _name_hints(name, self.arch) if name else ()
        return register, name, self.readings_of(word, size, hints)

    # ------------------------------------------------------------ SASS
    def sass_line(self, lineno: int, line: str) -> None:
        """A SASS line in a log (an instruction, addressed or pasted, or a function header):
        kept with the SASS lines right before it, which are read together by the SASS reader
        (:func:`_scan_code`, as a listing is) when the run of SASS lines ends."""
        seg = self.segment
        if seg and (lineno - seg[-1][0] > _SEGMENT_GAP or len(seg) >= _SEGMENT_MAX):
            self.flush_segment()
        seg.append((lineno, line))

    def flush_segment(self) -> None:
        """Read the run of SASS lines kept so far and queue its findings (final), in line
        order with what other lines of the log queued meanwhile (:func:`_scan_text` holds the
        queue while a run is open)."""
        seg = self.segment
        if not seg:
            return
        self.segment = []
        first = seg[0][0]
        lines = [""] * (seg[-1][0] - first + 1)
        for lineno, line in seg:
            lines[lineno - first] = line
        found = list(_scan_code(lines, "sass", self.as_, self.kind, self.arch,
                                self.min_confidence, self.window, first))
        if found:  # in line order among what the log's other lines queued meanwhile
            merged = list(heapq.merge(self.queue, found, key=_line_of))
            self.queue.clear()
            self.queue.extend(merged)

    # ------------------------------------------------------------ one line
    def feed(self, lineno: int, line: str) -> None:
        first = line[:1]
        if first == " " or first == "\t":
            stripped = line.lstrip()
            first = stripped[:1]
        else:
            stripped = line
        if first == "/" and stripped.startswith("/*"):
            if self.pending is not None:
                self.flush_pending()
            if stripped[2:3] not in _HEX_DIGITS:
                return  # the second word of a cuobjdump instruction (/* 0x... */), a comment
            self.sass_line(lineno, line)  # an addressed instruction (or a comment)
            return
        if first == "R" or first == "U" or first == "$":
            row = gdb.register_row(line)
            if row is not None:
                self.expr = None
                self.register_line(lineno, *row)
                return
        if self.pending is not None:
            self.flush_pending()
        if first == "(":
            cmd = gdb.command(line)
            if cmd is not None:
                self.gdb_command(cmd)
                return
        elif first == "$":
            value = gdb.value(line)
            if value is not None:
                register, name = self.expr if self.expr else (None, None)
                self.expr = None
                if value.startswith("{"):  # a struct or array: its fields name the values
                    register = name = None
                self.tokens(lineno, value, "print", name, register)
                return
        self.expr = None
        if first in _FUNCTION_FIRST and SASS_FUNCTION.match(line):
            self.sass_line(lineno, line)
            return
        if ("A" <= first <= "Z" or first == "@") and SASS_INSTRUCTION.match(line):
            self.sass_line(lineno, line)
            return
        self.tokens(lineno, line, "printf")

    def gdb_command(self, command: str) -> None:
        self.expr = gdb.printed(command)


_FUNCTION_FIRST = frozenset("F.")
#: Lines of a log between two SASS lines that still keep them one run, and the longest run.
_SEGMENT_GAP = 64
_SEGMENT_MAX = 1 << 16


def _line_of(item: Any) -> int:
    return item.line
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


def scan_lines(lines: Iterable[str | bytes], *, as_: str | None = None, kind: str | None = None,
               arch: str | None = None, min_confidence: float = DEFAULT_MIN_CONFIDENCE,
               window: int = WINDOW) -> Iterator[DumpFinding]:
    """Scan lines (``str``, or ``bytes`` decoded as UTF-8 with replacement) and yield a
    :class:`DumpFinding` per word that reads as a descriptor, in line order, as a stream.

    Memory stays bounded: a SASS immediate waits at most ``window`` lines for an MMA
    instruction that reads it.  ``as_`` restricts the readings to one family (and raises its
    confidence), ``kind`` fixes the instruction descriptor's kind, ``min_confidence`` is the
    reporting threshold for words the text does not name.  ``arch`` is the target the words
    are read for (sm_90a: wgmma matrix descriptors; the tcgen05 targets: tcgen05's words);
    ``None``: the target the code names (SASS ``code for sm_90a``, PTX ``.target``; each
    function its own), else :data:`DEFAULT_ARCH`.  Raises :class:`ParameterError` for a bad
    option (``as_`` a word ``arch`` does not have, too), before the first line is read."""
    as_, kind = _check_options(as_, kind, arch)
    if arch is not None and as_ is not None and _on_arch(as_, arch) not in _families(arch):
        raise ParameterError(f"as {as_}: the {as_} word does not exist on {arch} (its "
                             f"descriptors: {', '.join(_families(arch))}); with no arch given, "
                             f"a word of another target is judged on its own target")
    if isinstance(lines, (str, bytes)) or not isinstance(lines, Iterable):
        raise ParameterError(f"scan_lines takes an iterable of lines (str or bytes), not "
                             f"{shorten(lines)}; scan() takes one text")
    if isinstance(min_confidence, bool) or not isinstance(min_confidence, (int, float)) \
            or not 0.0 <= min_confidence <= 1.0:  # NaN fails both comparisons
        raise ParameterError(f"min_confidence must be a number in 0..1, not "
                             f"{shorten(min_confidence)}")
    if window.__class__ is not int or window < 1:
        raise ParameterError(f"window must be a positive integer of lines, not {shorten(window)}")
    return _scan(lines, as_, kind, arch, min_confidence, window,
                 lines.__class__ is TextLines)




def _decoded_lines(lines: Iterable[str | bytes]) -> Iterator[str]:
    for lineno, line in enumerate(lines, 1):
        if line.__class__ is not str:
            if not isinstance(line, (bytes, bytearray, memoryview)):
                raise ParameterError(f"line {lineno}: lines are str or bytes, not "
                                     f"{shorten(line)}")
            line = bytes(line).decode("utf-8", "replace")
        yield line[:MAX_LINE].rstrip("\r\n")  # type: ignore[union-attr]


def _scan(lines: Iterable[str | bytes], as_: str | None, kind: str | None, arch: str | None,
          min_confidence: float, window: int, decoded: bool = False) -> Iterator[DumpFinding]:
    from itertools import chain, islice

    from ..readers import SNIFF_LINES, sniff
    it = iter(lines)
    head = list(islice(it, SNIFF_LINES))
    dialect = sniff(list(_decoded_lines(head)))  # the readers' one sniffer decides
    if dialect is not None:
        if decoded:  # decoded and cut already (text_lines): taken as they are
            text: Iterable[str] = TextLines(head, it)
        else:
            text = _decoded_lines(chain(head, it))
        return _scan_code(text, dialect, as_, kind, arch, min_confidence, window)
    return _scan_text(chain(head, it), as_, kind, arch, min_confidence, window)


#: Readings of words no text names kept by one PTX scan (they depend on the word only).
_PTX_PLAIN_MEMO = 1 << 14


def _scan_code(lines: Iterable[str], dialect: str, as_: str | None, kind: str | None,
               arch: str | None, min_confidence: float, window: int, first_line: int = 1
               ) -> Iterator[DumpFinding]:
    """PTX or SASS, through the reader of the dialect (:mod:`descriptors.readers.ptx`,
    :mod:`descriptors.readers.sass`, the same facts ``descgen lint`` judges): the immediates
    the code materialises (``mov.b32 %r37, 138413200;``, ``UMOV UR5, 0x8400490``) and the
    constant operands of every MMA.  An immediate that reaches an MMA operand (the line that
    defined the operand's value, on any path) is named by it: the family, and for an
    instruction descriptor the kinds the instruction serves (PTX ``.kind::``; a SASS opcode's
    kinds, :data:`descriptors.readers.sass.SASS_MMA`).  A SASS shared memory descriptor is a
    register pair: a constant pair is one 64-bit word at the MMA (its upper half's immediate
    is not reported again); a pair known in part names the immediate of its upper half.  An
    operand no immediate made is reported when it is known: each of its alternatives that is
    (``selp`` ... ``or``: every word).  Hopper's MMAs (SASS ``HGMMA``/``IGMMA``/``QGMMA``/
    ``BGMMA``, PTX ``wgmma.mma_async``) name their A and B descriptors alike, as wgmma words.
    Each word is read for ``arch``, or (``None``) for the target its code names (the
    reader's ``arch`` of each fact and instruction), else :data:`DEFAULT_ARCH`'s families."""
    from ..readers import Fact
    from ..readers.ptx import read_ptx
    from ..readers.sass import read_sass

    items = read_ptx(lines) if dialect == "ptx" else read_sass(lines, first_line)
    words = _CodeWords(dialect, as_, kind, arch, min_confidence)
    for item in items:
        line = item.line
        if words.pending and words.pending[0].line < line - window:
            yield from words.due(line - window)  # waited the window out: no later MMA names it
        if item.__class__ is Fact:
            if item.use == "immediate":
                v = item.value  # type: ignore[union-attr]
                words.add(line, item.text, v.one, 64 if v.width == 64 else 32, [], None, None,
                          item.register, words.target(item.arch))  # type: ignore[union-attr]
        elif item.site is not None and item.site.mma:  # type: ignore[union-attr]
            words.mma(item)
    yield from words.due(1 << 62)  # the end: every word is due


class _Word:
    """A word the code holds, waiting for an MMA that names it: ``line`` and ``text`` where it
    is; ``word`` (``None``: a SASS half taken into its 64-bit pair) and ``size`` in bits;
    the evidence naming it (``hints``); the idesc context the MMA gives (``kind``: an
    :class:`~descriptors.isa.sites.IdescContext`); ``value``, the known bits of an MMA operand
    (their pattern is added to the text when the word is reported; ``None`` for an
    immediate); the ``register`` it is written to; ``arch``, the target it is read for."""

    __slots__ = ("line", "text", "word", "size", "hints", "kind", "value", "register", "arch")

    def __init__(self, line: int, text: str, word: int | None, size: int, hints: list[Hint],
                 kind: Any, value: Any, register: str | None, arch: str | None) -> None:
        self.line, self.text, self.word, self.size, self.hints = line, text, word, size, hints
        self.kind, self.value, self.register, self.arch = kind, value, register, arch


class _CodeWords:
    """The words of one PTX or SASS input (:func:`_scan_code`): each waits (``pending``, and
    by its line in ``by_line``) until no later MMA within the window can name it, then is
    classified; the readings of words met again are kept (``plain``: no evidence; ``named``:
    by the kinds of evidence)."""

    def __init__(self, dialect: str, as_: str | None, kind: str | None, arch: str | None,
                 min_confidence: float) -> None:
        self.dialect, self.as_, self.kind, self.arch = dialect, as_, kind, arch
        self.min_confidence = min_confidence
        self.pending: deque[_Word] = deque()
        self.by_line: dict[int, list[_Word]] = {}
        self.plain: dict[tuple[Any, ...], tuple[Candidate, ...] | None] = {}
        self.named: dict[tuple[Any, ...], tuple[Any, ...]] = {}

    def target(self, named_arch: str | None) -> str | None:
        """The target a word of code for ``named_arch`` (the reader's) is read for."""
        if self.arch is not None:
            return self.arch
        return named_arch if named_arch in _KNOWN_ARCHES else None

    def add(self, line: int, text: str, word: int, size: int, hints: list[Hint], k: Any,
            value: Any, register: str | None, here: str | None) -> None:
        e = _Word(line, text, word, size, hints, k, value, register, here)
        self.pending.append(e)
        group = self.by_line.get(line)
        if group is None:
            self.by_line[line] = [e]
        else:
            group.append(e)

    def due(self, limit: int) -> Iterator[DumpFinding]:
        """Emit the words no later line can name (defined before ``limit``)."""
        pending, by_line = self.pending, self.by_line
        while pending and pending[0].line < limit:
            e = pending.popleft()
            group = by_line.get(e.line)
            if group is not None and e in group:
                group.remove(e)
                if not group:
                    del by_line[e.line]
            if e.word is None:
                continue  # a SASS half taken into its 64-bit pair
            found = self.classify(e)
            if found is not None:
                yield found

    def readings(self, word: int, size: int, k: Any, here: str | None
                 ) -> tuple[Candidate, ...] | None:
        """The readings of a word no text names, None when none is reported."""
        if self.as_ is None and not _possible(word, size, True, self.min_confidence, here):
            return None
        cands = _candidates(word, size, (), self.as_, self.kind or k, here, True)
        return cands if _reported(cands, (), self.min_confidence) else None

    def classify(self, e: _Word) -> DumpFinding | None:
        word, size, hints, k, here = e.word, e.size, e.hints, e.kind, e.arch
        assert word is not None
        if not hints:
            key = (word, size, k, here)
            cands = self.plain.get(key, False)
            if cands is False:
                if len(self.plain) >= _PTX_PLAIN_MEMO:
                    self.plain.clear()
                cands = self.plain[key] = self.readings(word, size, k, here)
            if cands is None:
                return None
        else:
            # the evidence names the line: the readings and which evidence each gets are
            # kept by the kinds of evidence, the sentences attached per occurrence
            kinds = tuple([h[:3] for h in hints])
            key = (word, size, kinds, k, here)
            as_ = self.as_
            forced = as_ if as_ is None else _on_arch(as_, here)
            got = self.named.get(key)
            if got is None:
                if len(self.named) >= _PTX_PLAIN_MEMO:
                    self.named.clear()
                scored = _scored(word, size, _signature(kinds), forced, self.kind or k, here,
                                 True)
                if not _reported(scored, kinds, self.min_confidence):
                    got = self.named[key] = ()
                else:
                    got = self.named[key] = (scored, _evidence_plan(
                        scored, tuple([h[:2] for h in kinds]), forced))
            if not got:
                return None
            cands = _with_evidence(got[0], tuple(hints), forced, got[1])
        text = e.text if e.value is None else f"{e.text} = {e.value.pattern()}"
        return _finding(e.line, self.dialect, e.register, None, text, word, size, tuple(cands))

    # ------------------------------------------------------------------ evidence of MMAs

    def mma(self, item: Any) -> None:
        """The evidence an MMA gives the words that reach the operands its site judges."""
        if self.dialect == "ptx":
            self.ptx_mma(item)
        elif item.site.family == "wgmma":
            self.sass_wgmma(item)
        else:
            self.sass_mma(item)

    def named_by(self, e: _Word, hint: Hint, k: Any) -> None:
        if hint not in e.hints:
            e.hints.append(hint)
            e.kind = k or e.kind

    def ptx_mma(self, item: Any) -> None:
        """A PTX MMA (``tcgen05.mma``, ``wgmma.mma_async``): every line that made a value of
        an operand is named by it; an operand no immediate made is reported when its word,
        or each of its alternatives, is wholly known."""
        site, line, by_line = item.site, item.line, self.by_line
        here = self.target(item.arch)
        at = f" of {item.opcode} at line {line}"
        # (a PTX tcgen05.mma names its .cta_group: read as cta_group::1 where not)
        context = IdescContext(site.kinds, site.cta_group or 1, site.ws) if site.kinds else None
        for so in site.judged:
            role, family, op = so.role, so.family, item.operands[so.index]
            hint: Hint = (family, _MMA_OPERAND, True, "it feeds " + role + at)
            k = context if family == "idesc" else None
            targets = list(by_line.get(op.origin[0], ())) if op.origin else []
            alternatives = op.judged
            if alternatives:  # several values: the lines that made each too
                for w in dict.fromkeys([a.origin for a in alternatives]):
                    if w is not None and w != op.origin:
                        targets += by_line.get(w[0], ())
            for e in targets:
                self.named_by(e, hint, k)
            if targets:
                continue
            # no immediate made it: the operand's word(s), when wholly known
            for kb in [a.bits for a in alternatives] if alternatives else [op.value]:
                if kb is not None and kb.is_const:
                    self.add(line, op.text, kb.value, 64 if kb.width == 64 else 32, [hint], k,
                             kb, None, here)

    def sass_mma(self, item: Any) -> None:
        """A SASS tcgen05 MMA: the descriptors and zero-column mask (register pairs), the
        instruction descriptor, the Tensor Memory addresses it reads."""
        site, line = item.site, item.line
        here = self.target(item.arch)
        at = f" of {item.opcode} at line {line}"
        context = IdescContext(site.kinds, site.cta_group, site.ws) if site.kinds else None
        for so in site.judged:
            op = item.operands[so.index]
            family, text = so.family, op.text
            if op.value is None or family is None or family == "zcm" and op.value.width != 64:
                continue
            if family in ("smem", "zcm"):
                self.pair(op, text, ":".join(so.registers), family, at, line, here)
                continue
            hint: Hint = (family, _MMA_OPERAND, True, f"it feeds {text}{at}")
            k = context if family == "idesc" else None
            targets = self.made(op)
            for e in targets:
                self.named_by(e, hint, k)
            if not targets and op.value.is_const:
                self.add(line, text, op.value.value, 32, [hint], k, op.value, None, here)

    def sass_wgmma(self, item: Any) -> None:
        """A SASS ``HGMMA``/``IGMMA``/``QGMMA``/``BGMMA``: its descriptors (A in URn:URn+1
        unless A comes from registers, B in URn+2:URn+3), as wgmma words named ``gdesc[URn]
        (A)`` and ``gdesc[URn] (B)``."""
        at = f" of {item.opcode} at line {item.line}"
        here = self.target(item.arch)
        for so in item.site.judged:
            op = item.operands[so.index]
            text = f"{op.text.split(']', 1)[0]}] ({'A' if so.role == 'a_desc' else 'B'})"
            self.pair(op, text, ":".join(so.registers), "wgmma", at, item.line, here)

    def made(self, op: Any) -> list[_Word]:
        """The waiting words of the lines that made the values of an MMA operand: those of
        the alternatives lint judges (not those only a skipped predicated write leaves), or
        of its one value."""
        lines = sorted({a.origin[0] for a in op.judged if a.origin}) if op.alternatives \
            else ([op.origin[0]] if op.origin else [])
        return [e for ln in lines for e in self.by_line.get(ln, ()) if e.word is not None]

    def pair(self, op: Any, text: str, pair: str, family: str, at: str, line: int,
             here: str | None) -> None:
        """A 64-bit descriptor an MMA reads from the register pair ``pair``: a constant pair
        is one word at the MMA (the immediates of its halves are not reported again), a pair
        known in part names the immediate of its upper half."""
        targets = self.made(op)
        if op.value.is_const:
            for e in targets:  # the upper half's immediate: now part of the pair
                e.word = None
            self.add(line, text, op.value.value, 64,
                     [(family, _MMA_OPERAND, True, f"it feeds {text}{at}")], None, op.value,
                     pair, here)
            return
        hint: Hint = (family, _MMA_OPERAND, True, f"it feeds the upper register of {text}{at}")
        for e in targets:
            if e.size == 32 and hint not in e.hints:
                e.hints.append(hint)


#: The targets a word can be read for (:data:`~descriptors.rules.validate.ARCHES`).
_KNOWN_ARCHES = frozenset(ARCHES)


def _scan_text(lines: Iterable[str | bytes], as_: str | None, kind: str | None,
               arch: str | None,
               min_confidence: float, window: int) -> Iterator[DumpFinding]:
    scanner = _Scanner(as_, kind, arch, min_confidence, window)
    prefilter = _PREFILTER.search
    queue = scanner.queue
    popleft = queue.popleft
    feed = scanner.feed
    finish = scanner.finish_entry
    register_match = gdb.REGISTER_ROW.match
    register_line = scanner.register_line
    lineno = 0
    for line in lines:
        lineno += 1
        if line.__class__ is not str:
            if not isinstance(line, (bytes, bytearray, memoryview)):
                raise ParameterError(f"line {lineno}: lines are str or bytes, not "
                                     f"{shorten(line)}")
            line = bytes(line).decode("utf-8", "replace")
        if len(line) > MAX_LINE:
            line = line[:MAX_LINE]
        if prefilter(line) is None:
            if scanner.pending is not None:
                scanner.flush_pending()
            scanner.expr = None
        else:
            line = line.rstrip("\r\n")
            first = line[:1]
            # the commonest lines first: a cuda-gdb register table row, a cuobjdump encoding word
            m = register_match(line) if first == "R" or first == "U" else None
            if m is not None:
                scanner.expr = None
                register_line(lineno, m.group(1), int(m.group(2)), m.group(3))
            elif first == " " and line.endswith(" */") and line.lstrip().startswith("/* 0x"):
                if scanner.pending is not None:
                    scanner.flush_pending()
            else:
                feed(lineno, line)
        segment = scanner.segment
        if segment:  # a run of SASS lines: the queue waits until it is read
            if lineno - segment[-1][0] <= _SEGMENT_GAP:
                continue
            scanner.flush_segment()
        if not queue:
            continue
        if not scanner.entries:  # findings only (final when queued): all due
            yield from queue
            queue.clear()
            continue
        limit = lineno - window
        while queue:
            entry = queue[0]
            if entry.__class__ is DumpFinding:  # final when queued
                popleft()
                yield entry  # type: ignore[misc]
                continue
            if not entry.ready and entry.line >= limit:
                break
            popleft()
            scanner.entries -= 1
            entry.emitted = True
            if not entry.dead:
                found = finish(entry)
                if found is not None:
                    yield found
    yield from scanner.close()


def iter_lines(stream: IO[bytes], max_line: int = MAX_LINE, chunk: int = 1 << 20) -> Iterator[str]:
    """Lines of a binary stream, decoded as UTF-8 with replacement, without their line end; at
    most ``max_line`` characters of each (the rest of a longer line is dropped, never held in
    memory): :func:`descriptors.readers.binary.text_lines`, the one line reader of every
    command, which reads a block of its own size at a time (``chunk`` is accepted for
    compatibility and not used)."""
    from ..readers.binary import text_lines
    lines = text_lines(stream)
    if max_line >= MAX_LINE:
        return lines
    return (line[:max_line] for line in lines)


def _text_lines(text: str) -> Iterator[str]:
    start = 0
    find = text.find
    while True:
        end = find("\n", start)
        if end < 0:
            if start < len(text):
                yield text[start:]
            return
        yield text[start:end]
        start = end + 1


def scan_stream(stream: IO[bytes], name: str | None = None, **options: Any
                ) -> Iterator[DumpFinding]:
    """:func:`scan_lines` over a binary stream (a file opened ``"rb"``, ``sys.stdin.buffer``).
    With ``name`` (the input's, for the message), binary data -- NUL bytes in the first line,
    neither text nor a CUDA binary nor gzip (:func:`~descriptors.readers.binary.open_input`
    reads those) -- is refused with :class:`~descriptors.errors.InputError` at once, as
    ``lint`` refuses it."""
    if not callable(getattr(stream, "read", None)):
        raise ParameterError(f"scan_stream takes a binary stream, not {shorten(stream)}")
    from ..readers.binary import text_lines
    lines = text_lines(stream, name)
    head = list(islice(lines, 1))  # (the first block read: binary data refused here)
    return scan_lines(TextLines(head, lines), **options)


def scan(text: str | bytes, **options: Any) -> list[DumpFinding]:
    """Every descriptor word found in ``text`` (``str`` or ``bytes``), in line order.

    Options as :func:`scan_lines` (``as_``, ``kind``, ``arch``, ``min_confidence``)."""
    if isinstance(text, (bytes, bytearray, memoryview)):
        return list(scan_stream(io.BytesIO(bytes(text)), **options))
    if not isinstance(text, str):
        raise ParameterError(f"scan takes text (str or bytes), not {type(text).__name__}")
    return list(scan_lines(_text_lines(text), **options))

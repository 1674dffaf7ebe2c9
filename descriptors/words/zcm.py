"""Zero-column masks of ``tcgen05.mma.ws``: the masks a descriptor generates, and descriptors
synthesised from the mask a user wants (PTX 9.7.16.4.3, Table 45).

Semantics (the examples of PTX 9.7.16.4.3, which rule where the span descriptions of Table 45
disagree with them): the mask has N bits, bit j for output
column j; 0 = B column used, 1 = zeros.  M decides the sub-masks: M=128 one of N bits, M=64 two
of N/2, M=32 four of N/4; sub-mask i covers columns [i*N/k, (i+1)*N/k).  Each sub-mask is a
window of one periodic pattern: ``use_span + 1`` zeros (B used) and ``skip_span + 1`` ones
(zeroed).  First span ``fs_i`` = 0 starts the pattern with the use span, 1 with the skip span;
start count ``sc_i`` drops that many leading positions.  ``non_zero_mask`` = 0 makes the whole
mask zero.  With column shift s, output column j reads B column j + s.

:func:`generate` computes the masks; :func:`synthesise` finds a descriptor for a wanted mask or
raises :class:`NoDescriptorError` saying why none exists.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ..structs import Struct, field
from .codec import Decoded, decode, encode, parse_int
from ..errors import DescgenError, ParameterError, shorten
from .layouts import ZCM

__all__ = ["ZcmMask", "NoDescriptorError", "SUBMASKS", "MAX_N", "WS_N", "generate", "synthesise",
           "mask_from_columns", "conv_padding_mask", "pattern"]

#: M -> number of sub-masks (PTX 9.7.16.4.3).
SUBMASKS = {128: 1, 64: 2, 32: 4}

#: Longest span the 8-bit span fields encode (span - 1 is stored).
_MAX_SPAN = ZCM.by_name["use_span"].max + 1
_MAX_START = ZCM.by_name["start_count_0"].max


class NoDescriptorError(DescgenError, ValueError):
    """No zero-column mask descriptor generates the wanted mask; the message says why."""


#: Largest N of any MMA (PTX Table 39); the .ws forms that take a zero-column mask have
#: N = 64, 128 or 256 (:data:`WS_N`).
MAX_N = 256
#: N of tcgen05.mma.ws (Table 39, cta_group::1 .ws: dense 64/128/256, sparse 64/128).
WS_N = (64, 128, 256)


def _n(n: Any) -> int:
    ni = parse_int(n, "n")
    if not 0 < ni <= MAX_N:
        raise ParameterError(f"N={shorten(ni)} is outside 1..{MAX_N}: no MMA has such an N "
                             f"(Table 39; tcgen05.mma.ws takes N = {', '.join(map(str, WS_N))})")
    return ni


def _shape(m: Any, n: Any) -> tuple[int, int, int]:
    mi, ni = parse_int(m, "m"), _n(n)
    if mi not in SUBMASKS:
        raise ParameterError(f"M={mi}: the zero-column mask is defined for M = 32, 64, 128 "
                             "(PTX 9.7.16.4.3)")
    k = SUBMASKS[mi]
    if ni <= 0 or ni % k:
        raise ParameterError(f"N={ni} must be a positive multiple of {k} for M={mi} "
                             f"({k} sub-masks of N/{k} columns)")
    return mi, ni, k


def pattern(use: int, skip: int, first_skip: bool, start: int, length: int) -> int:
    """``length`` bits (bit 0 first) of the periodic pattern of ``use`` zeros and ``skip`` ones,
    starting with the skip span when ``first_skip``, after dropping ``start`` positions."""
    period = use + skip
    lead, lead_bit = (skip, 1) if first_skip else (use, 0)
    out = 0
    for j in range(length):
        ph = (start + j) % period
        bit = lead_bit if ph < lead else 1 - lead_bit
        out |= bit << j
    return out


class ZcmMask(Struct, frozen=True):
    """The masks a zero-column mask descriptor generates for an M x N MMA."""

    word: int
    m: int
    n: int
    submasks: tuple[int, ...]  # sub-mask i, bit j = column i*N/k + j
    mask: int  # the full N-bit mask, bit j = output column j (1 = zeroed)
    column_shift: int

    @property
    def width(self) -> int:
        return self.n // len(self.submasks)

    def zero_columns(self) -> list[int]:
        return [j for j in range(self.n) if self.mask >> j & 1]

    def b_column(self, j: int) -> int | None:
        """The B column output column ``j`` reads, or ``None`` where it is zeroed."""
        return None if self.mask >> j & 1 else j + self.column_shift

    def bits(self, value: int | None = None, length: int | None = None) -> str:
        """Column 0 first, as a string of 0/1 (Python's ``b`` format is MSB first; reversed)."""
        v = self.mask if value is None else value
        n = self.n if length is None else length
        return format(v, f"0{n}b")[::-1]

    def to_dict(self) -> dict[str, Any]:
        return {"word": f"{self.word:#018x}", "m": self.m, "n": self.n,
                "column_shift": self.column_shift,
                "mask": f"{self.mask:#x}",
                "mask_bits_column0_first": self.bits(),
                "submasks": [self.bits(s, self.width) for s in self.submasks],
                "zero_columns": self.zero_columns(),
                "b_columns": [self.b_column(j) for j in range(self.n)]}


def generate(word: int | Decoded, m: Any, n: Any) -> ZcmMask:
    """The sub-masks and full N-bit mask ``word`` generates for an M x N MMA, exactly as the
    hardware does (PTX 9.7.16.4.3).  Raises :class:`ParameterError` for an M other than 32, 64,
    128 or an N that does not split into the sub-masks."""
    d = word if isinstance(word, Decoded) else decode("zcm", word)
    mi, ni, k = _shape(m, n)
    f = d.fields
    width = ni // k
    subs: list[int] = []
    for i in range(k):
        if not f["non_zero_mask"]:
            subs.append(0)
            continue
        subs.append(pattern(f["use_span"] + 1, f["skip_span"] + 1, bool(f[f"first_span_{i}"]),
                            f[f"start_count_{i}"], width))
    full = 0
    for i, s in enumerate(subs):
        full |= s << (i * width)
    return ZcmMask(d.word, mi, ni, tuple(subs), full, f["column_shift"])


# ------------------------------------------------------------------ wanted masks


def mask_from_columns(n: Any, zero_columns: Iterable[Any]) -> int:
    """An N-bit mask with bit j set for every zeroed column j.  Items are column numbers, ``range``
    objects or ``"a-b"`` strings (inclusive)."""
    ni = _n(n)
    if isinstance(zero_columns, (str, bytes)) or not isinstance(zero_columns, Iterable):
        raise ParameterError(f"zero_columns takes a list of columns, ranges or 'a-b' strings, "
                             f"not {shorten(zero_columns)}")
    mask = 0
    for item in zero_columns:
        if isinstance(item, range):
            cols: Iterable[int] = item
        elif isinstance(item, str) and "-" in item.strip()[1:]:
            a, b = item.strip().split("-", 1)
            lo, hi = parse_int(a, "column range"), parse_int(b, "column range")
            if hi < lo:
                raise ParameterError(f"column range {shorten(item)} runs backwards")
            cols = range(lo, hi + 1)
        else:
            cols = [parse_int(item, "column")]
        for c in cols:
            if not 0 <= c < ni:
                raise ParameterError(f"column {c} is outside 0..{ni - 1} (N={ni})")
            mask |= 1 << c
    return mask


def conv_padding_mask(n: Any, q: Any, left: Any, right: Any, start: Any = 0) -> int:
    """The mask of the convolution case: N output columns walk a row of width Q (pixel
    ``(start + j) % Q``); the first ``left`` and last ``right`` pixels of each row are padding
    (zeroed)."""
    ni, qi = _n(n), parse_int(q, "q")
    li, ri, si = parse_int(left, "left"), parse_int(right, "right"), parse_int(start, "start")
    if qi <= 0 or li < 0 or ri < 0 or li + ri >= qi or si < 0:
        raise ParameterError(f"conv padding needs Q > left + right >= 0 and start >= 0 "
                             f"(Q={qi}, left={li}, right={ri}, start={si})")
    mask = 0
    for j in range(ni):
        p = (si + j) % qi
        if p < li or p >= qi - ri:
            mask |= 1 << j
    return mask


def _runs(bits: int, length: int) -> list[tuple[int, int]]:
    """(bit, run length) from bit 0 up."""
    runs: list[tuple[int, int]] = []
    for j in range(length):
        b = bits >> j & 1
        if runs and runs[-1][0] == b:
            runs[-1] = (b, runs[-1][1] + 1)
        else:
            runs.append((b, 1))
    return runs


class _Spans(Struct):
    exact: dict[int, tuple[int, int]] = field(default_factory=dict)  # bit -> (span, sub-mask)
    least: dict[int, int] = field(default_factory=lambda: {0: 1, 1: 1})


def synthesise(mask: Any, m: Any, n: Any, *, column_shift: Any = 0) -> int:
    """A zero-column mask descriptor word that generates ``mask`` (bit j = output column j,
    1 = zeroed) for an M x N MMA, or :class:`NoDescriptorError` explaining why none exists
    (spans longer than 256, a pattern that is not periodic, sub-masks that need different
    spans, ...).  ``generate(synthesise(x, m, n), m, n).mask == x`` for every mask it accepts."""
    mi, ni, k = _shape(m, n)
    want = parse_int(mask, "mask")
    if want < 0 or want >> ni:
        raise ParameterError(f"mask {want:#x} has bits above column {ni - 1} (N={ni})")
    shift = parse_int(column_shift, "column_shift")
    limit = 16 if mi == 32 else 32
    if not 0 <= shift <= limit:
        raise NoDescriptorError(f"column shift {shift}: at most {limit} for M={mi} (Table 45)")
    if want == 0:
        return encode("zcm", non_zero_mask=0, column_shift=shift)
    width = ni // k
    segs = [(want >> (i * width)) & ((1 << width) - 1) for i in range(k)]
    spans = _Spans()
    name = {0: "use", 1: "skip"}
    what = {0: "used", 1: "zeroed"}
    for i, seg in enumerate(segs):
        runs = _runs(seg, width)
        for pos, (b, r) in enumerate(runs):
            interior = 0 < pos < len(runs) - 1
            if r > _MAX_SPAN:
                raise NoDescriptorError(
                    f"sub-mask {i} has {r} consecutive {what[b]} columns; the {name[b]} span "
                    f"holds at most {_MAX_SPAN} (8-bit field, Table 45)")
            if interior:
                if b in spans.exact and spans.exact[b][0] != r:
                    other, where = spans.exact[b]
                    raise NoDescriptorError(
                        f"not periodic: runs of {what[b]} columns have different lengths ({other} "
                        f"in sub-mask {where}, {r} in sub-mask {i}); one {name[b]} span serves "
                        "every sub-mask")
                spans.exact[b] = (r, i)
            else:
                spans.least[b] = max(spans.least[b], r)
    span = {}
    for b in (0, 1):
        if b in spans.exact:
            if spans.least[b] > spans.exact[b][0]:
                raise NoDescriptorError(
                    f"not periodic: an edge run of {spans.least[b]} {what[b]} columns is longer "
                    f"than the interior runs of {spans.exact[b][0]}")
            span[b] = spans.exact[b][0]
        else:
            span[b] = spans.least[b]
    use, skip = span[0], span[1]
    start_count, first_span = [], []
    for i, seg in enumerate(segs):
        first_bit, first_len = _runs(seg, width)[0]
        # phase in the use-first pattern [use zeros, skip ones] where the segment starts
        ph = (use - first_len) if first_bit == 0 else (use + skip - first_len)
        if ph < use:
            fs, sc = 0, ph
        else:
            fs, sc = 1, ph - use
        if sc > _MAX_START:  # cannot happen: sc < span <= 256
            raise NoDescriptorError(f"sub-mask {i} needs start count {sc} > {_MAX_START}")
        if pattern(use, skip, bool(fs), sc, width) != seg:
            raise NoDescriptorError(
                f"sub-mask {i} is not a window of one periodic pattern of {use} used and {skip} "
                "zeroed columns")
        start_count.append(sc)
        first_span.append(fs)
    return encode("zcm", start_count=start_count, first_span=first_span, non_zero_mask=1,
                  skip_span=skip - 1, use_span=use - 1, column_shift=shift)


def submask_ranges(m: int, n: int) -> Sequence[range]:
    """Columns covered by each sub-mask."""
    _, ni, k = _shape(m, n)
    w = ni // k
    return [range(i * w, (i + 1) * w) for i in range(k)]

"""What a decoded word's report holds, as data: the JSON form (:func:`to_json`), the bit-diagram
rows (:func:`diagram_rows`) and the order of an instruction descriptor's readings
(:func:`rank_readings`).  The renderers -- the rich table, the plain text -- are
:mod:`descriptors.render.printer`.

Field positions come from the layout (the Construct definitions); bit strings from Python's ``b`` format.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ..words.bits import Field
from ..words.codec import Decoded
from ..errors import ParameterError, shorten
from .explain import explain
from ..rules.validate import Finding, is_valid

__all__ = ["to_json", "diagram_rows", "rank_readings", "binary", "check_arguments"]

_ROW = 32  # bits per diagram row



def binary(value: int, width: int) -> str:
    """``value`` as ``width`` binary digits, MSB first (Python's own ``b`` format)."""
    return format(value, f"0{width}b")


def _segments(decoded: Decoded, lo: int, hi: int) -> list[tuple[Field, str]]:
    """(field, bit string) for the part of each field inside bits [lo, hi], MSB first."""
    word = decoded.word
    out = []
    for f in reversed(decoded.layout.fields):
        a, b = max(f.lsb, lo), min(f.msb, hi)
        if a > b:
            continue
        out.append((f, binary((word >> a) & ((1 << (b - a + 1)) - 1), b - a + 1)))
    return out


def diagram_rows(decoded: Decoded) -> list[tuple[int, int, list[tuple[Field, str]]]]:
    """The word in rows of 32 bits, MSB row first: (msb, lsb, segments)."""
    size = decoded.layout.size
    return [(hi, hi - _ROW + 1, _segments(decoded, hi - _ROW + 1, hi))
            for hi in range(size - 1, -1, -_ROW)]


def check_arguments(decoded: Any, findings: Any) -> list[Finding]:
    """``findings`` as a list, once ``decoded`` is a :class:`Decoded` and ``findings`` a sequence
    of :class:`Finding`; anything else raises a :class:`ParameterError` (instead of an
    AttributeError deep inside)."""
    if not isinstance(decoded, Decoded):
        raise ParameterError(f"the printer takes a Decoded (from descriptors.decode), not "
                             f"{shorten(decoded)}")
    if isinstance(findings, (str, bytes)) or not isinstance(findings, Iterable):
        raise ParameterError(f"findings must be a list of Finding, not {shorten(findings)}")
    out = list(findings)
    for f in out:
        if not isinstance(f, Finding):
            raise ParameterError(f"findings must be Finding objects (from validate), not "
                                 f"{shorten(f)}")
    return out


def to_json(decoded: Decoded, findings: Sequence[Finding] = ()) -> dict[str, Any]:
    """Word, layout, kind, raw ``fields``, ``meanings``, ``values``, ``findings``, ``valid``."""
    findings = check_arguments(decoded, findings)
    doc = decoded.to_dict()
    doc["layout"] = decoded.layout.name
    doc["meanings"] = {r.name: r.meaning for r in explain(decoded)}
    doc["findings"] = [f.to_dict() for f in findings]
    doc["valid"] = is_valid(findings)
    return doc


def rank_readings(readings: Sequence[tuple[Decoded, list[Finding]]]) -> list[tuple[Decoded, list[Finding]]]:
    """Readings ordered by how many rules they break (errors, then warnings), stable."""
    def key(item: tuple[Decoded, list[Finding]]) -> tuple[int, int]:
        fs = item[1]
        return (sum(f.severity == "error" for f in fs), sum(f.severity == "warning" for f in fs))
    return sorted(readings, key=key)

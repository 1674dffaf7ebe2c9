"""Two words of one descriptor side by side: only the fields that differ, and what each breaks.

When a kernel works in one configuration and not in another, the descriptors are compared by
hand, byte by byte.  :func:`diff_words` decodes both words with the same layout (the kind of an
instruction descriptor is needed: the word does not name it) and returns a :class:`WordDiff`:
the fields whose raw values differ (bits, raw values and meanings of both), the mask of the
changed bits, a bit diagram with those bits marked, and each word's rule findings.  ``descgen
diff`` prints it (exit 0 equal, 1 different, 2 bad input, as ``cmp`` and ``diff`` do).
"""

from __future__ import annotations

from typing import Any

from ..structs import Struct
from ..errors import ParameterError
from ..rules.validate import Finding, is_valid, validate
from ..words.codec import Decoded, decode, format_word, parse_int
from .explain import explain
from .output import json_value

__all__ = ["FieldChange", "WordDiff", "diff_words"]


class FieldChange(Struct, frozen=True):
    """One field whose raw value differs: name, bit range (``[28:24]``), raw values and
    meanings of the first and the second word."""

    name: str
    bits: str
    raw_a: int
    raw_b: int
    meaning_a: str
    meaning_b: str

    def to_dict(self) -> dict[str, Any]:
        return {"field": self.name, "bits": self.bits, "a": {"raw": self.raw_a,
                "meaning": self.meaning_a}, "b": {"raw": self.raw_b, "meaning": self.meaning_b}}


class WordDiff(Struct, frozen=True):
    """The comparison of two words of one descriptor (:func:`diff_words`)."""

    a: Decoded
    b: Decoded
    changes: tuple[FieldChange, ...]
    findings_a: tuple[Finding, ...]
    findings_b: tuple[Finding, ...]

    @property
    def equal(self) -> bool:
        return int(self.a) == int(self.b)

    @property
    def changed_bits(self) -> int:
        """The mask of the bits that differ (``a ^ b``)."""
        return int(self.a) ^ int(self.b)

    def diagram(self) -> list[str]:
        """Both words in binary, MSB first, in rows of 32 bits, with ``^`` under each changed
        bit."""
        size = self.a.layout.size
        lines = []
        for hi in range(size - 1, -1, -32):
            lo = hi - 31
            label = f"[{hi}:{lo}]"
            row_a = "".join("1" if int(self.a) >> i & 1 else "0" for i in range(hi, lo - 1, -1))
            row_b = "".join("1" if int(self.b) >> i & 1 else "0" for i in range(hi, lo - 1, -1))
            marks = "".join("^" if self.changed_bits >> i & 1 else " "
                            for i in range(hi, lo - 1, -1))
            lines += [f"{label:>8}  a {row_a}", f"{'':>8}  b {row_b}",
                      f"{'':>8}    {marks}".rstrip()]
        return lines

    def to_dict(self) -> dict[str, Any]:
        def words(d: Decoded, fs: tuple[Finding, ...]) -> dict[str, Any]:
            return {"word": d.hex, "valid": is_valid(fs),
                    "findings": [{**f.to_dict(), "value": json_value(f.value)} for f in fs]}
        return {"descriptor": self.a.descriptor, "kind": self.a.kind, "equal": self.equal,
                "changed_bits": format_word(self.a.descriptor, self.changed_bits),
                "changes": [c.to_dict() for c in self.changes],
                "a": words(self.a, self.findings_a), "b": words(self.b, self.findings_b)}


def diff_words(descriptor: str, a: int | str, b: int | str, *, kind: str | None = None,
               arch: str | None = None, **context: Any) -> WordDiff:
    """Compare words ``a`` and ``b`` of ``descriptor`` (integers, or decimal / ``0x`` text):
    both decoded with one layout (``kind`` for an idesc), the fields whose raw values differ,
    and each word's findings from :func:`descriptors.validate` (with ``arch``, by default the word's own target, and the context
    parameters ``validate`` takes: ``cta_group``, ``ws``, ``scale_vec``, ...).

    Raises what ``decode``/``validate`` raise for a bad word, descriptor, kind or context
    (:class:`~descriptors.errors.DescgenError`)."""
    if not isinstance(descriptor, str):
        raise ParameterError(f"descriptor must be a name, not {descriptor!r}")
    wa, wb = parse_int(a, "first word"), parse_int(b, "second word")
    da, db = decode(descriptor, wa, kind=kind), decode(descriptor, wb, kind=kind)
    fa = tuple(validate(descriptor, wa, kind=kind, arch=arch, **context))
    fb = tuple(validate(descriptor, wb, kind=kind, arch=arch, **context))
    rows_b = {r.name: r for r in explain(db)}
    changes = tuple(FieldChange(r.name, r.bits, r.raw, rows_b[r.name].raw, r.meaning,
                                rows_b[r.name].meaning)
                    for r in explain(da) if r.raw != rows_b[r.name].raw)
    return WordDiff(da, db, changes, fa, fb)

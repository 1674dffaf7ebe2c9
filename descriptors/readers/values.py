"""Value sets: what a register may hold where an instruction reads it, one alternative per
path or select arm.

A value computed along one path is one :class:`Alternative` (its known bits, the instruction
that defined it, and the assumption it rests on, if any).  Where paths meet (a branch, a
predicated write, ``selp``/``SEL``/``USEL``), the alternatives are kept side by side, up to
:data:`MAX_ALTERNATIVES`; past that they are merged into one whose known bits are what every
alternative agrees on (:meth:`KnownBits.meet <descriptors.readers.knownbits.KnownBits.meet>`),
so a loop that steps a register converges instead of growing without end.  A value set with no
alternative is a register not yet written on any path ("no value", not "unknown": a register
whose only reaching definition is one constant holds that constant).

Each operation on value sets applies the operation to every combination of its operands'
alternatives (:func:`combine`); when there are more combinations than
:data:`MAX_ALTERNATIVES`, each operand is merged first, so the result is one alternative and
never claims more than is certain.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from itertools import chain, product

from ..structs import Struct
from .knownbits import KnownBits

__all__ = ["Alternative", "ValueSet", "MAX_ALTERNATIVES", "join", "combine", "meet", "single",
           "constants", "skipped", "interned"]

#: Alternatives a value set keeps before they are merged into one.
MAX_ALTERNATIVES = 8


class Alternative(Struct, frozen=True, gc=False):
    """One value an operand may hold: ``bits`` (its known bits), ``origin`` (``(line,
    text)`` of the instruction that produced it; ``None`` for an immediate operand or a merged
    value) and ``assumes`` (what the known bits rely on beyond the instructions themselves,
    e.g. the K-step rule; ``None`` when nothing)."""

    bits: KnownBits
    origin: tuple[int, str] | None = None
    assumes: str | None = None
    #: several alternatives merged into this one (:func:`join`): whatever joins it later is
    #: merged in too
    merged: bool = False
    #: the value only where a predicated write before the use did not happen (its guard was
    #: false): compilers guard an MMA and the writes of its operands alike, so such a value
    #: is often of no path that reaches the MMA, and is not judged on its own
    skipped: bool = False


#: A value set: the alternatives, in the order they were met (empty: not yet written).
ValueSet = tuple[Alternative, ...]


#: Alternatives made by :func:`combine`, :func:`join` and :func:`skipped`, one object per
#: value (bounded): equal alternatives are the same object, so joins compare by identity.
_INTERN: dict[Alternative, Alternative] = {}


def interned(a: Alternative) -> Alternative:
    """The one object equal to ``a`` in the table of alternatives (bounded: emptied when full),
    ``a`` itself the first time: equal alternatives are then one object."""
    got = _INTERN.get(a)
    if got is None:
        if len(_INTERN) >= 1 << 16:
            _INTERN.clear()
        got = _INTERN[a] = a
    return got


#: Value sets made by :func:`join` and :func:`single`, one object per set (bounded), keyed by
#: their interned alternatives' identities: equal sets are the same object.
_SETS: dict[tuple[int, ...], ValueSet] = {}


def _interned_set(values: ValueSet) -> ValueSet:
    key = tuple(map(id, values))
    got = _SETS.get(key)
    if got is None:
        if len(_SETS) >= 1 << 16:
            _SETS.clear()
        got = _SETS[key] = values  # (the tuple keeps its alternatives, and so their ids, alive)
    return got


def meet(values: Sequence[Alternative]) -> KnownBits | None:
    """The known bits every alternative agrees on (``None`` for an empty set)."""
    if not values:
        return None
    kb = values[0].bits
    for alt in values[1:]:
        kb = kb.meet(alt.bits)
    return kb


def _collapse(values: Sequence[Alternative]) -> ValueSet:
    kb = meet(values)
    assert kb is not None
    origins = {alt.origin for alt in values}
    assumes = next((alt.assumes for alt in values if alt.assumes), None)
    return (interned(Alternative(kb, origins.pop() if len(origins) == 1 else None, assumes,
                                  True, all(a.skipped for a in values))),)


def join(*sets: Iterable[Alternative]) -> ValueSet:
    """The union of value sets (duplicates dropped, order kept), merged into one alternative
    when it holds more than :data:`MAX_ALTERNATIVES`.  A set already merged into one
    alternative whose bits are not all known stays merged: what is joined to it is merged in
    too, so repeated joins (a loop) converge.  The alternatives a skipped predicated write
    left (``skipped``) are limited apart from those written, so a written constant is never
    merged into what an unrelated earlier value leaves."""
    values = tuple(dict.fromkeys(chain.from_iterable(sets)))
    skips = 0
    for a in values:
        if a.skipped:
            skips += 1
    if skips and skips != len(values):
        # the values written and those left by a skipped predicated write, each kept apart
        return _interned_set(_limit(tuple(a for a in values if not a.skipped)) +
                             _limit(tuple(a for a in values if a.skipped)))
    return _interned_set(_limit(values))


def _limit(values: tuple[Alternative, ...]) -> ValueSet:
    if len(values) > MAX_ALTERNATIVES or (len(values) > 1 and any(a.merged for a in values)):
        return _collapse(values)
    return values


def single(bits: KnownBits, origin: tuple[int, str] | None = None,
           assumes: str | None = None) -> ValueSet:
    """A value set of one alternative."""
    return _interned_set((interned(Alternative(bits, origin, assumes)),))


def combine(fn: Callable[..., KnownBits | None], sources: Sequence[ValueSet],
            origin: tuple[int, str] | None, width: int,
            copy: bool = False, item: int | None = None) -> ValueSet:
    """``fn`` applied to every combination of the alternatives of ``sources`` (each a value
    set; an empty one -- not yet written -- makes the result empty too).  ``fn`` returns the
    result's known bits, or ``None`` when it cannot tell anything (the result is then unknown,
    ``width`` bits).  Each result alternative has ``origin``, or, for a ``copy`` (one source,
    passed on unchanged), the source alternative's origin; an assumption of any source carries
    over.  With ``item``, ``fn`` returns a sequence (or ``None``) and the result's known bits
    are its ``item``-th entry (``None`` when it has none)."""
    single_values = True
    for s in sources:
        n = len(s)
        if not n:
            return ()
        if n != 1:
            single_values = False
    combos: Iterable[tuple[Alternative, ...]]
    if single_values:  # the common case: one value each, one combination
        combos = (tuple([s[0] for s in sources]),)
    else:
        count = 1
        for s in sources:
            count *= len(s)
        if count > MAX_ALTERNATIVES:
            sources = [_collapse(s) if len(s) > 1 else s for s in sources]
        combos = product(*sources)
    out: list[Alternative] = []
    for combo in combos:
        bits = []
        assumes = None
        skip = False
        for alt in combo:  # (one pass: the bits, the first assumption, any skipped)
            bits.append(alt.bits)
            if alt.assumes and assumes is None:
                assumes = alt.assumes
            if alt.skipped:
                skip = True
        kb = fn(*bits)
        if item is not None:
            kb = kb[item] if kb and len(kb) > item else None  # type: ignore[index,arg-type]
        if kb is None:
            kb = KnownBits.unknown(width)
        where = combo[0].origin if copy and len(combo) == 1 and combo[0].origin else origin
        out.append(interned(Alternative(kb, where, assumes, False, skip)))
    if len(out) == 1:
        return _interned_set((out[0],))  # what join gives for one alternative
    return join(out)


def constants(values: Sequence[Alternative]) -> bool:
    """Every alternative is a constant (and there is at least one)."""
    return bool(values) and all(alt.bits.is_const for alt in values)


def skipped(values: Sequence[Alternative]) -> ValueSet:
    """The value set where each alternative holds only if a predicated write did not happen."""
    return tuple(a if a.skipped else interned(Alternative(a.bits, a.origin, a.assumes,
                                                            a.merged, True)) for a in values)

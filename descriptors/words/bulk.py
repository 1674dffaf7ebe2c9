"""Bulk encode and decode: many words per call, for generators and register dumps.

``decode_many(descriptor, words, kind=None)`` returns the raw value of every field (PTX names,
reserved and constant fields included) as one column per field.  With NumPy installed
(``pip install 'descgen[fast]'``) the columns are ``numpy.uint64`` arrays computed with one
vectorised shift and mask per field, the shifts and masks derived from the layout's Construct
definition (:mod:`descriptors.words.layouts`); without it they are lists of ints computed the same
way in pure Python.  Both give the same values bit for bit.

``encode_many(descriptor, rows)`` encodes a sequence of parameter mappings (``encode``'s
keyword parameters) into a list of ints (``iter_encode``: one at a time; ``descgen batch``
encodes its entries this way, one run of entries of the same descriptor at a time).  It is the
packing of ``descriptors.encode(..., check=False)``: fields and values are checked (once per
distinct parameter set, the codec's memo), the rules of the PTX text are not (``validate``
them; ``descgen batch`` does), so NumPy brings nothing there.

Refusals are :func:`descriptors.decode`'s and :func:`descriptors.encode`'s own exceptions (same
class and message) for the first bad word or row, with a note naming its index.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from .bits import BitLayout
from .codec import encode, layout_for, parse_word
from ..errors import DescgenError, ParameterError
from ..errors import shorten as _short

__all__ = ["decode_many", "encode_many", "iter_encode", "numpy_or_none"]

_UNSET: Any = object()
_numpy: Any = _UNSET


def numpy_or_none() -> Any:
    """The ``numpy`` module when it is installed, else ``None`` (imported on first use only)."""
    global _numpy
    if _numpy is _UNSET:
        try:
            import numpy
        except ImportError:
            numpy = None
        _numpy = numpy
    return _numpy


def _sequence(words: Any, np: Any) -> Any:
    if np is not None and isinstance(words, np.ndarray):
        if words.ndim != 1:
            raise ParameterError(f"words must be a one-dimensional array, not {words.ndim}-D "
                                 f"(shape {words.shape})")
        return words
    if isinstance(words, (str, bytes, bytearray, Mapping)) or not isinstance(words, Iterable):
        raise ParameterError(f"words must be a sequence of descriptor words, not {_short(words)}")
    return words if isinstance(words, (list, tuple)) else list(words)


def _checked(lay: BitLayout, words: Any) -> list[int]:
    """Every word as an int of the layout's size, checked as :func:`decode` checks it."""
    top = lay.max_word
    try:
        return [w if w.__class__ is int and 0 <= w <= top else parse_word(lay, w) for w in words]
    except DescgenError:
        pass
    for i, w in enumerate(words):  # find the first bad word again, to say which one it is
        try:
            parse_word(lay, w)
        except DescgenError as exc:
            exc.add_note(f"(word #{i} of the {len(words)} given)")
            raise
    raise AssertionError("unreachable")  # pragma: no cover


def _np_words(lay: BitLayout, words: Any, np: Any) -> Any:
    """The words as a ``uint64`` array when a cheap vectorised check shows they are plain
    non-negative integers of the layout's size; ``None`` when the word-by-word check must
    decide (it raises :func:`decode`'s error for a bad word)."""
    if isinstance(words, np.ndarray):
        if words.ndim != 1 or words.dtype.kind not in "ui":
            return None
        a = words
    else:
        if not all(w.__class__ is int for w in words):
            return None
        try:
            a = np.array(words, dtype=np.uint64)
        except (OverflowError, ValueError, TypeError):
            return None
        if a.ndim != 1:
            return None
    if a.size:
        if a.dtype.kind == "i" and int(a.min()) < 0:
            return None
        if int(a.max()) > lay.max_word:
            return None
    return a.astype(np.uint64, copy=False)


def _columns_np(lay: BitLayout, words: Any, np: Any) -> dict[str, Any]:
    a = _np_words(lay, words, np)
    if a is None:
        a = np.array(_checked(lay, words), dtype=np.uint64)
    out: dict[str, Any] = {}
    for f in lay.fields:
        col = a >> np.uint64(f.lsb) if f.lsb else a
        out[f.name] = col if f.msb == lay.size - 1 else col & np.uint64(f.max)
    return out


def _columns_py(lay: BitLayout, words: Any) -> dict[str, list[int]]:
    ws = _checked(lay, words)
    return {f.name: [(w >> f.lsb) & f.max for w in ws] if f.lsb else [w & f.max for w in ws]
            for f in lay.fields}


def decode_many(descriptor: str, words: Iterable[Any], kind: str | None = None) -> dict[str, Any]:
    """Raw field values of many words of one descriptor: ``{field name: column}``, fields LSB
    first as in the layout (PTX Table 40 smem, 42/43/44 idesc by ``kind``, 45 zcm, 9.7.16.1.1
    tmem), reserved and constant fields included.

    ``words``: a sequence or iterable of words (ints, or ``0x`` strings as :func:`decode` takes
    them) or a 1-D NumPy integer array.  Columns are ``numpy.uint64`` arrays when NumPy is
    installed, lists of ints otherwise -- the same values.  An idesc needs ``kind``.

    Raises what :func:`descriptors.decode` raises: :class:`KindRequiredError`,
    :class:`ParameterError` (unknown descriptor or kind, ``words`` not a sequence) and
    :class:`WordError` for the first word that is not an integer of the descriptor's size
    (with a note giving its index).
    """
    lay = layout_for(descriptor, kind)
    np = numpy_or_none()
    ws = _sequence(words, np)
    if np is not None:
        return _columns_np(lay, ws, np)
    return _columns_py(lay, ws)


def encode_many(descriptor: str, rows: Iterable[Mapping[str, Any]]) -> list[int]:
    """Encode many parameter sets of one descriptor: ``[encode(descriptor, **row) for row in
    rows]`` with ``check=False`` (the packing, not the rules), each distinct parameter set
    checked once (the codec's memo).

    Raises what :func:`descriptors.encode` raises (:class:`FieldError`,
    :class:`ParameterError`) for the first row it refuses, with a note giving its index;
    :class:`ParameterError` when a row is not a mapping of parameter names."""
    return list(iter_encode(descriptor, rows))


def iter_encode(descriptor: str, rows: Iterable[Mapping[str, Any]]) -> Iterator[int]:
    """:func:`encode_many`, one word at a time: a refused row raises when its word is asked for,
    after the words of the rows before it (``descgen batch`` reports the entries in file order
    this way)."""
    if isinstance(rows, (str, bytes, bytearray, Mapping)) or not isinstance(rows, Iterable):
        raise ParameterError(f"rows must be a sequence of parameter mappings, not {_short(rows)}")
    return _encoded(descriptor, rows)


def _encoded(descriptor: str, rows: Iterable[Mapping[str, Any]]) -> Iterator[int]:
    for i, row in enumerate(rows):
        if not isinstance(row, Mapping) or not all(isinstance(k, str) for k in row):
            raise ParameterError(f"row #{i}: a row is a mapping of parameter names to values, "
                                 f"not {_short(row)}")
        try:
            word = encode(descriptor, **row)
        except DescgenError as exc:
            exc.add_note(f"(row #{i})")
            raise
        yield word

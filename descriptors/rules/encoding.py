"""The public :func:`encode`: the codec's packing, then the rules the command line applies.

``descriptors.words.codec.encode`` packs semantic parameters into a word and refuses only what
does not fit a field; it sits below the rules and knows none of them.  ``descriptors.encode``
is this module's :func:`encode`: it packs, then validates the word as ``descgen idesc`` (and
``smem``, ``zcm``, ``tmem``) do, and raises :class:`InvalidDescriptorError` with the rule's
message when one is broken -- a code generator calling it in a loop gets no illegal word by
accident.  ``check=False`` gives the raw packing.
"""

from __future__ import annotations

import functools
from typing import Any

from ..errors import InvalidDescriptorError
from ..words import codec
from .validate import CONTEXT_PARAMETERS, WORD_ARCHES, Finding, is_valid, validate

__all__ = ["encode"]

#: Context each descriptor's rules take that the codec does not (``cta_group`` and ``ws`` the
#: codec takes too: it checks them, and keeps them out of the word).
_RULES_ONLY = {d: tuple(k for k in names if k not in codec.PARAMETERS[d])
               for d, names in CONTEXT_PARAMETERS.items()}


def encode(descriptor: str, /, *, check: bool = True, arch: str | None = None,
           **params: Any) -> int:
    """Build a descriptor word from semantic parameters, and check it against the rules of the
    PTX text as the command line does.

    ``params`` are those of :func:`descriptors.words.codec.encode` (listed there and in
    :data:`descriptors.PARAMETERS`), plus the context the word does not store: ``cta_group``,
    ``ws``, ``sp``, ``scale_vec`` (idesc), ``m``, ``n`` (zcm: the MMA's M and N), ``alloc``,
    ``shift`` (tmem).  Context not given is not assumed: a rule that needs it accepts what some
    context allows (``m=256`` without ``cta_group`` is accepted; with ``cta_group=1`` it is
    refused).  ``arch`` is the target of the arch-gated rules (K=96 needs sm_103a); by default
    the word's own (sm_100a; sm_90a for ``wgmma``, :data:`~descriptors.rules.validate.WORD_ARCHES`).

    Raises :class:`InvalidDescriptorError` (``.findings`` holds every finding) when the word
    breaks a rule -- an error finding of :func:`descriptors.validate`; warnings and notes do
    not raise (``validate`` returns them).  ``check=False`` returns the raw packing without
    the rules (context parameters other than ``cta_group``/``ws`` are then refused).  A value
    that does not fit its field raises :class:`FieldError` either way, and a malformed
    parameter :class:`ParameterError`.

    The word is a plain ``int`` (every function of the library takes it as it is, at full
    speed); :func:`~descriptors.words.codec.format_word` gives it as the library shows words,
    ``0x%08x`` or ``0x%016x`` (``descriptors.format_word("idesc", word)``: ``'0x08400490'``).
    """
    try:
        return _kept(descriptor, check, arch, **params)
    except _Unkept as done:  # encoded (and checked), but not of types a memo may keep
        return done.word
    except TypeError:  # an unhashable parameter (a list)
        pass
    return _encode(descriptor, check, arch, params)  # outside the handler: nothing chained


class _Unkept(Exception):
    """Carries a word out of :func:`_kept` without keeping it (``lru_cache`` keeps every value
    returned, never an exception)."""

    def __init__(self, word: int) -> None:
        self.word = word


@functools.lru_cache(maxsize=codec.MEMO_SIZE, typed=True)
def _kept(descriptor: Any, check: Any, arch: Any, /, **params: Any) -> int:
    """Words of parameter sets already encoded (and checked), keyed by every argument and its
    exact type; only sets of plain str/int/bool/None values are kept (any other raises
    :class:`_Unkept` with its word), refusals raise and are never kept.  One look-up for both
    ``check`` values: ``encode(..., check=False)`` costs what the codec's own memoised encode
    does, no second packing of the keyword arguments (tests/benchmarks/bench_speed.py's
    ``descriptors.encode ... check=False`` and ``checked`` rows)."""
    word = _encode(descriptor, check, arch, dict(params))
    if descriptor.__class__ is str and (arch is None or arch.__class__ is str) \
            and check.__class__ is bool and codec.PLAIN_TYPES.issuperset(map(type, params.values())):
        return word
    raise _Unkept(word)


def _encode(descriptor: Any, check: Any, arch: Any, params: dict[str, Any]) -> int:
    if descriptor.__class__ is str and descriptor in codec.DESCRIPTOR_ALIASES:
        descriptor = codec.DESCRIPTOR_ALIASES[descriptor]
    if not check:
        return codec.encode(descriptor, **params)
    if arch is None:
        arch = WORD_ARCHES.get(descriptor, ("sm_100a",))[0] if descriptor.__class__ is str \
            else "sm_100a"
    return _check(descriptor, arch, params)


def _check(descriptor: Any, arch: Any, params: dict[str, Any]) -> int:
    context = {k: params.pop(k) for k in _RULES_ONLY.get(descriptor, ()) if k in params}
    word = codec.encode(descriptor, **params)
    kind = params.get("kind") if descriptor == "idesc" else None
    for k in ("cta_group", "ws"):
        if descriptor == "idesc" and k in params:
            context[k] = params[k]
    findings = validate(descriptor, word, kind=kind, arch=arch, **context)
    if not is_valid(findings):
        raise InvalidDescriptorError(_message(descriptor, word, findings), findings)
    return word


def _message(descriptor: str, word: int, findings: list[Finding]) -> str:
    errors = [f for f in findings if f.severity == "error"]
    first = errors[0]
    where = f" {first.field}{first.bits or ''}" if first.field else ""
    more = f" (and {len(errors) - 1} more error(s): .findings)" if len(errors) > 1 else ""
    return (f"{descriptor} {codec.format_word(descriptor, word)} breaks a rule of the PTX text: "
            f"[{first.rule}]{where}: {first.message} ({first.source}){more}; check=False gives "
            f"the raw packing")

"""Target architectures and the "Target ISA Notes" of an instruction, as data.

:class:`Target` reads ``sm_<number>[a|f]``; :class:`ArchRequirement` says where a form is
supported: from a minimum (``sm_90 or higher``) or from arch-specific targets (``sm_100a``) and
family-specific ones (``sm_100f or higher in the same family``).  ``sm_101`` counts as
``sm_110`` (renamed in PTX ISA 9.0).  Used by :mod:`descriptors.isa.instructions` and
:mod:`descriptors.isa.tmem`.
"""

from __future__ import annotations

import re
from typing import Any

from ..structs import Struct
from ..errors import ParameterError, shorten

__all__ = ["Target", "ArchRequirement", "parse_target", "resolve_arch", "DEFAULT_ARCH"]

#: The target a word or a listing is judged for when neither the caller nor the input names one
#: (``descgen lint``/``dump`` and their library calls): the first tcgen05 target.
DEFAULT_ARCH = "sm_100a"


class Target(Struct, frozen=True):
    """A target architecture ``sm_<number><suffix>``: suffix ``""``, ``"a"`` (arch-specific) or
    ``"f"`` (family-specific).  ``sm_101`` counts as ``sm_110`` (renamed in PTX ISA 9.0)."""

    name: str
    number: int
    suffix: str

    @property
    def family(self) -> int:
        return self.number // 10


_TARGET = re.compile(r"sm_(\d{2,3})([af]?)")


def parse_target(name: Any) -> Target:
    """A :class:`Target` from ``"sm_100a"``, ``"sm_90"`` ...; raises :class:`ParameterError`."""
    m = _TARGET.fullmatch(str(name).strip().lower()) if isinstance(name, str) else None
    if m is None:
        raise ParameterError(f"target {shorten(name)}: expected sm_<number>[a|f], e.g. sm_100a")
    number = int(m.group(1))
    number = 110 if number == 101 else number
    return Target(str(name).strip().lower(), number, m.group(2))


def resolve_arch(name: Any, known: tuple[str, ...]) -> tuple[str, str | None]:
    """The target of ``known`` that ``name`` means, and a note saying what was assumed (``None``
    when ``name`` is one of them, in any case).

    nvcc's ``-arch=sm_100`` and cuda-gdb name a GPU without a suffix; there is no tcgen05 (nor
    wgmma) on such a target (PTX ISA 9.7.16 and 9.7.15 Target ISA Notes: ``sm_100a``,
    ``sm_100f`` and later; ``sm_90a``), so ``sm_<N>`` is read as ``sm_<N>a``, the target of
    every feature of that GPU, when ``known`` has it.  Raises :class:`ParameterError` for
    any other name, with the known targets (and the one meant, when a suffix is what is
    wrong)."""
    text = name.strip().lower() if isinstance(name, str) else None
    if text in known:
        return text, None
    target = None
    if text is not None:
        try:
            target = parse_target(text)
        except ParameterError:
            pass
    if target is not None and target.suffix == "":
        specific = f"sm_{target.number}a"
        if specific in known:
            family = f"sm_{target.number}f"
            what = "wgmma" if target.number < 100 else "tcgen05"
            renamed = f" (sm_{target.number} since PTX ISA 9.0)" if text != \
                f"sm_{target.number}" else ""
            return specific, (
                f"--arch {text} read as {specific}{renamed}: there is no {what} on a target "
                f"without a suffix (PTX ISA target rules), and {specific} has every feature of "
                f"that GPU" + (f"; give {family} for the family-portable target"
                               if family in known else ""))
    raise ParameterError(f"unknown architecture {shorten(name)}; known: " + ", ".join(known))


class ArchRequirement(Struct, frozen=True):
    """Where a form is supported (the "Target ISA Notes" of its section).

    ``min_number``: every ``sm_N`` with N >= it (any suffix).  Otherwise ``specific``: the
    arch-specific targets (``sm_100a`` ...) and ``families``: ``sm_Xf or higher in the same
    family`` for each X -- a target with suffix ``a`` or ``f`` of family X//10 and number >= X.
    """

    text: str
    source: str
    min_number: int | None = None
    specific: tuple[str, ...] = ()
    families: tuple[int, ...] = ()

    def supports(self, target: Target) -> bool:
        if self.min_number is not None:
            return target.number >= self.min_number
        if target.suffix == "a" and any(parse_target(s).number == target.number
                                        for s in self.specific):
            return True
        return target.suffix in ("a", "f") and any(
            target.family == x // 10 and target.number >= x for x in self.families)

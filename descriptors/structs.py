"""The base of descgen's immutable value types (``KnownBits``, ``Instruction``, ``Finding``,
the layout, enum, target, Tensor Memory and instruction-model types ...).

With msgspec installed (a dependency of the package) each is a :class:`msgspec.Struct`:
defining one costs microseconds where a dataclass costs about a millisecond (some 27 of them
load on every ``descgen lint``), and building, hashing and comparing them runs in C.  In a
Python without msgspec -- the one cuda-gdb embeds, where descgen's debugger commands need no
compiled package (``descriptors/gdb``), or one whose msgspec was built for another Python
version -- the same classes are dataclasses: the same fields, constructors, defaults,
equality, hashing, immutability (``frozen``) and ``repr``.  The modules take :class:`Struct`,
:func:`field`, :func:`replace` and :func:`asdict` from here, never from either library, so
the two cannot drift apart; ``tests/unit/words/test_structs.py`` checks that a Python without msgspec
gives the same results.

``FAST``: whether msgspec is in use.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

try:
    import msgspec
    import msgspec.structs
except ImportError:  # no msgspec here (cuda-gdb's Python): the dataclass stand-in below
    msgspec = None  # type: ignore[assignment]

__all__ = ["Struct", "field", "replace", "asdict", "FAST", "BoundedMemo"]

#: msgspec is in use (else the dataclass stand-in).
FAST = msgspec is not None

if msgspec is not None:
    Struct = msgspec.Struct
    field = msgspec.field
    replace = msgspec.structs.replace
    #: The fields as a dict (one level: a field holding a value type keeps it).
    asdict = msgspec.structs.asdict
else:
    import dataclasses

    class Struct:  # type: ignore[no-redef]
        """The stand-in for :class:`msgspec.Struct`: each subclass is made a dataclass,
        ``frozen`` as asked.  msgspec's ``gc`` (whether the garbage collector tracks the
        instances) and ``dict`` (an instance ``__dict__``, for ``cached_property``) mean
        nothing here: a dataclass instance always has both."""

        def __init_subclass__(cls, *, frozen: bool = False, gc: bool = True, dict: bool = False,
                              **kwargs: Any) -> None:
            super().__init_subclass__(**kwargs)
            dataclasses.dataclass(frozen=frozen)(cls)

    def field(*, default_factory: Callable[[], Any]) -> Any:  # type: ignore[no-redef]
        """A field whose default each instance makes anew (``msgspec.field``)."""
        return dataclasses.field(default_factory=default_factory)

    def replace(obj: Any, /, **changes: Any) -> Any:  # type: ignore[no-redef]
        """A copy of ``obj`` with ``changes`` (``msgspec.structs.replace``)."""
        return dataclasses.replace(obj, **changes)

    def asdict(obj: Any) -> dict[str, Any]:  # type: ignore[no-redef]
        """The fields as a dict, one level (``msgspec.structs.asdict``)."""
        return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}


_K = TypeVar("_K")
_V = TypeVar("_V")


class BoundedMemo(dict[_K, _V]):
    """A memo of what a scan meets again and again (the words and names of a dump), bounded:
    :meth:`keep` empties it once it holds ``size`` entries, so that a long input cannot grow it
    without end.  Reads are a plain dict's (``memo[key]``, ``memo.get(key)``)."""

    __slots__ = ("size",)

    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def keep(self, key: _K, value: _V) -> _V:
        """Store ``value`` under ``key`` (first emptying a full memo) and return it."""
        if len(self) >= self.size:
            self.clear()
        self[key] = value
        return value

"""Exception classes of descgen: one root, and the one place that rewraps library errors.

Every error the library raises derives from :class:`DescgenError`.  Errors about one field of
one word are :class:`FieldError`; their message reads like a register-description tool's::

    field 'n_dim'[22:17]: 64 exceeds max 63 (PTX Table 42)

Construct's own exceptions never escape: :func:`rewrap` converts them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

__all__ = [
    "DescgenError",
    "ParameterError",
    "FieldError",
    "WordError",
    "KindRequiredError",
    "BatchError",
    "InvalidDescriptorError",
    "LayoutError",
    "InputError",
    "ToolNotFoundError",
    "rewrap",
    "shorten",
    "shorten_text",
]


class DescgenError(Exception):
    """Root of every error raised by descgen."""


class ParameterError(DescgenError, ValueError):
    """A parameter is unknown, missing, of the wrong type or names an unknown choice."""


class FieldError(DescgenError, ValueError):
    """A value does not fit the field that would hold it; nothing is truncated.

    Attributes: ``field`` (PTX field name), ``bits`` (``"[22:17]"``), ``value`` (as given),
    ``allowed`` (what the field accepts), ``source`` (PTX table).
    """

    def __init__(self, field: str, bits: str, value: Any, problem: str, allowed: str,
                 source: str) -> None:
        self.field = field
        self.bits = bits
        self.value = value
        self.problem = problem
        self.allowed = allowed
        self.source = source
        super().__init__(f"field '{field}'{bits}: {problem} (PTX {source})")


class WordError(DescgenError, ValueError):
    """A word to decode is not an integer of the descriptor's size."""


class KindRequiredError(DescgenError, ValueError):
    """An instruction-descriptor word was decoded without saying which MMA kind it is for."""


class BatchError(DescgenError, ValueError):
    """A batch file cannot be read, or one of its configurations is wrong."""


class LayoutError(DescgenError, ValueError):
    """A shared-memory layout no descriptor expresses, or one the PTX text does not allow;
    ``source`` names the rule (a PTX table or section), or is None for layout text that does
    not parse."""

    def __init__(self, message: str, source: str | None = None) -> None:
        self.source = source
        super().__init__(message if source is None else f"{message} (PTX {source})")


class InputError(DescgenError):
    """An input that cannot be read as code: a file that cannot be opened, binary data that is
    neither text nor a CUDA binary, a binary ``cuobjdump`` refuses or finds no SASS (or PTX)
    in, a corrupt gzip stream, text with no PTX or SASS in it.  The message names the input."""


class ToolNotFoundError(InputError):
    """An external tool that reading an input needs (``cuobjdump``, for a CUDA binary) is not
    installed or cannot be run; the message says how to install it."""


class InvalidDescriptorError(DescgenError):
    """A descriptor encodes, but breaks rules of the PTX text; ``findings`` lists them."""

    def __init__(self, message: str, findings: list[Any]) -> None:
        self.findings = findings
        super().__init__(message)


#: Longest piece of an input echoed in a message.
_ECHO = 80


def shorten(value: Any) -> str:
    """``repr(value)``, cut to a readable length (errors never echo a huge input in full)."""
    if isinstance(value, int) and value.bit_length() > 200:
        return f"<integer of {value.bit_length()} bits>"
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a hostile __repr__ must not hide the real error
        text = f"<{type(value).__name__}>"
    return shorten_text(text)


def shorten_text(text: str) -> str:
    """``text`` cut to a readable length, without quotes."""
    if len(text) <= _ECHO:
        return text
    return f"{text[:_ECHO - 20]}...{text[-12:]} ({len(text)} characters)"


@contextlib.contextmanager
def rewrap(what: str) -> Iterator[None]:
    """Convert Construct's exceptions raised inside the block into :class:`DescgenError`."""
    import construct  # only a Construct call needs it, and it has loaded construct already

    try:
        yield
    except construct.ConstructError as exc:
        raise DescgenError(f"{what}: {exc}") from exc

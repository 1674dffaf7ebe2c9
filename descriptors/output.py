"""Rendering of descriptor words as constants: hex, C/C++, Python and JSON.

Shared by the single-descriptor commands and ``descgen batch`` so both print the same text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from .codec import format_word, word_bits
from .errors import ParameterError

__all__ = ["FORMATS", "DEFAULT_NAMES", "describe_params", "check_identifier", "render_word"]

#: Output formats of one word.
FORMATS = ("hex", "c", "python", "json")

#: Constant names used when the caller gives none.
DEFAULT_NAMES = {"idesc": "IDESC", "smem": "SMEM_DESC", "zcm": "ZCM_DESC", "tmem": "TMEM_ADDR"}

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def check_identifier(name: str) -> str:
    """``name`` if it is a valid C and Python identifier, else :class:`ParameterError`."""
    if not isinstance(name, str) or not _IDENTIFIER.match(name):
        raise ParameterError(f"constant name {name!r} is not a valid C/Python identifier "
                             "([A-Za-z_][A-Za-z0-9_]*)")
    return name


def _param_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(_param_text(v) for v in value)
    return str(value)


def describe_params(params: Mapping[str, Any]) -> str:
    """``key=value`` pairs of the given parameters, for a comment next to the constant."""
    return " ".join(f"{k}={_param_text(v)}" for k, v in params.items())


def c_type(descriptor: str) -> str:
    return "uint64_t" if word_bits(descriptor) == 64 else "uint32_t"


def c_literal(descriptor: str, word: int) -> str:
    return format_word(descriptor, word) + ("ull" if word_bits(descriptor) == 64 else "u")


def render_word(descriptor: str, word: int, fmt: str, *, name: str | None = None,
                params: Mapping[str, Any] | None = None) -> str:
    """One word as ``hex`` (``0x%08x``/``0x%016x``), ``c`` (a ``constexpr`` line with the inputs
    as comment), ``python`` (an assignment) or ``json`` (``{"descriptor", "word", "params"}``)."""
    params = dict(params or {})
    if fmt == "hex":
        return format_word(descriptor, word)
    if fmt == "json":
        return json.dumps({"descriptor": descriptor, "word": format_word(descriptor, word),
                           "params": params})
    const = check_identifier(name or DEFAULT_NAMES[descriptor])
    comment = describe_params(params)
    if fmt == "c":
        line = f"constexpr {c_type(descriptor)} {const} = {c_literal(descriptor, word)};"
        return f"{line}  // {descriptor}: {comment}" if comment else line
    if fmt == "python":
        line = f"{const} = {format_word(descriptor, word)}"
        return f"{line}  # {descriptor}: {comment}" if comment else line
    raise ParameterError(f"unknown format {fmt!r}; formats: " + ", ".join(FORMATS))

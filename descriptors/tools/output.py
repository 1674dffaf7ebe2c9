"""Rendering of descriptor words as constants: hex, C/C++, Python and JSON.

Shared by the single-descriptor commands and ``descgen batch`` so both print the same text.
"""

from __future__ import annotations

import json
import keyword
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..words.codec import decode, format_word, parse_int, word_bits
from ..errors import DescgenError, ParameterError, shorten

__all__ = ["FORMATS", "NAMED_FORMATS", "DEFAULT_NAMES", "CPP_KEYWORDS", "describe_params", "check_identifier",
           "comment_text", "docstring_text", "render_word", "word_json", "json_value",
           "JSON_SCHEMAS", "json_schema"]

#: The JSON Schema (draft 2020-12) of each ``--format json`` output, shipped as package data
#: in ``descriptors/schemas/<name>.schema.json``: ``word`` (idesc, smem, zcm, tmem), ``zcm-show``,
#: ``tmem-footprint`` (--ld/--st), ``tmem-datapath``, ``decode``, ``check``, ``batch``,
#: ``layout``, ``dump``, ``lint``, ``explain``, ``diff``, ``rules``.
JSON_SCHEMAS = ("word", "zcm-show", "tmem-footprint", "tmem-datapath", "decode", "check",
                "batch", "layout", "dump", "lint", "explain", "diff", "rules")


def json_schema(name: str) -> dict[str, Any]:
    """The JSON Schema of one output (a name of :data:`JSON_SCHEMAS`), as a dict.  Raises
    :class:`ParameterError` for another name."""
    from importlib.resources import files

    if name not in JSON_SCHEMAS:
        raise ParameterError(f"no JSON schema {shorten(name)}; schemas: " + ", ".join(JSON_SCHEMAS))
    return json.loads(files("descriptors").joinpath("schemas", f"{name}.schema.json")
                      .read_text(encoding="utf-8"))

#: Output formats of one word.  ``c`` and ``cpp`` are one format (a C++ ``constexpr`` line, also
#: C23): both spellings are accepted, as ``descgen batch`` takes both.
FORMATS = ("hex", "c", "cpp", "python", "json")

#: The formats in which a constant has a name (``--name``); with the others a name cannot apply.
NAMED_FORMATS = ("c", "cpp", "python")

#: Constant names used when the caller gives none.
DEFAULT_NAMES = {"idesc": "IDESC", "smem": "SMEM_DESC", "zcm": "ZCM_DESC", "tmem": "TMEM_ADDR",
                 "wgmma": "GMMA_DESC"}

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")

#: C++23 keywords and alternative tokens, plus the C keywords a C compiler would trip on
#: (``restrict``, ``typeof``): none of them can name a constant.
CPP_KEYWORDS = frozenset("""
    alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t
    char16_t char32_t class compl concept const consteval constexpr constinit const_cast
    continue co_await co_return co_yield decltype default delete do double dynamic_cast else
    enum explicit export extern false float for friend goto if inline int long mutable
    namespace new noexcept not not_eq nullptr operator or or_eq private protected public
    register reinterpret_cast requires return short signed sizeof static static_assert
    static_cast struct switch template this thread_local throw true try typedef typeid typename
    union unsigned using virtual void volatile wchar_t while xor xor_eq
    restrict typeof typeof_unqual
""".split())

#: Macros GCC predefines in its default GNU modes (``g++ -dM -E``): a constant of that name
#: would not compile.
GNU_MACROS = frozenset(("linux", "unix", "i386"))

#: Names the generated header's ``#include <cstdint>`` declares (types and macros).
_CSTDINT = re.compile(
    r"(?:u?int(?:8|16|32|64|ptr|max)_t|u?int_(?:least|fast)(?:8|16|32|64)_t"
    r"|U?INT(?:8|16|32|64|PTR|MAX)_(?:C|MIN|MAX|WIDTH)|U?INT_(?:LEAST|FAST)(?:8|16|32|64)_(?:MIN|MAX|WIDTH)"
    r"|(?:SIZE|PTRDIFF|SIG_ATOMIC|WCHAR|WINT)_(?:MIN|MAX|WIDTH)|std|NULL)\Z")


def check_identifier(name: Any) -> str:
    """``name`` if it can name a constant in the generated C/C++ and Python, else
    :class:`ParameterError` saying why: empty, not an identifier (``[A-Za-z_][A-Za-z0-9_]*``),
    a Python keyword, a C++ keyword, a macro GCC predefines (``linux``, ``unix``), a reserved
    identifier (``_`` + capital, ``__`` anywhere, or a leading ``_``: the C++ standard reserves
    them), or a name ``<cstdint>`` declares."""
    if not isinstance(name, str):
        raise ParameterError(f"constant name must be text, not {shorten(name)}")
    if not name:
        raise ParameterError("constant name is empty; give a C/Python identifier")
    if not _IDENTIFIER.match(name):
        raise ParameterError(f"constant name {shorten(name)} is not a valid C/Python identifier "
                             "([A-Za-z_][A-Za-z0-9_]*)")
    if keyword.iskeyword(name):
        raise ParameterError(f"constant name {shorten(name)} is a Python keyword")
    if name in CPP_KEYWORDS:
        raise ParameterError(f"constant name {shorten(name)} is a C++ keyword")
    if name == "main":
        raise ParameterError("constant name 'main' is reserved in C++ (a global variable may "
                             "not be called main)")
    if name in GNU_MACROS:
        raise ParameterError(f"constant name {name!r} is a macro GCC predefines (g++ -dM -E)")
    if name.startswith("_") or "__" in name:
        raise ParameterError(f"constant name {shorten(name)} is a reserved identifier in C++ (a leading "
                             "underscore or a double underscore)")
    if _CSTDINT.match(name):
        raise ParameterError(f"constant name {shorten(name)} is declared by <cstdint>, which the "
                             "generated header includes")
    return name


_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _printable(text: str) -> str:
    """Every character that is not printable (newlines, NUL, other controls, line separators,
    lone surrogates) written as an escape: ``\\n``, ``\\x00``, ``\\u2028``."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else _ESCAPES.get(ch) or (
        f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}" if ord(ch) < 0x10000
        else f"\\U{ord(ch):08x}") for ch in text)


def comment_text(text: str) -> str:
    """``text`` made safe for a one-line ``//`` or ``#`` comment: what is not printable is
    escaped (``\\n``, ``\\x00``, ``\\u2028``), and a line end that would splice the next C++
    line into the comment (a trailing backslash, or the trigraph ``??/``) ends in ``\\x5c`` /
    ``\\x2f`` instead."""
    out = _printable(text).rstrip()
    if out.endswith("\\"):
        out = out[:-1] + "\\x5c"
    elif out.endswith("??/"):
        out = out[:-1] + "\\x2f"
    return out


def docstring_text(text: str) -> str:
    """``text`` made safe inside a ``\"\"\"`` docstring: backslashes and quotes escaped and
    what is not printable written as an escape."""
    return _printable(text.replace("\\", "\\\\").replace('"', '\\"'))


def _param_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(_param_text(v) for v in value)
    return str(value)


def describe_params(params: Mapping[str, Any]) -> str:
    """``key=value`` pairs of the given parameters, for a comment next to the constant (made
    safe for a one-line comment by :func:`comment_text`)."""
    return comment_text(" ".join(f"{k}={_param_text(v)}" for k, v in params.items()))


def c_type(descriptor: str) -> str:
    return "uint64_t" if word_bits(descriptor) == 64 else "uint32_t"


def c_literal(descriptor: str, word: int) -> str:
    return format_word(descriptor, word) + ("ull" if word_bits(descriptor) == 64 else "u")


def json_value(value: Any) -> Any:
    """A value as JSON gives it: integer text (decimal or 0x hex, as the options take it) as a
    number, a list element-wise; names (``bf16``, ``128B``), booleans and the rest unchanged."""
    if isinstance(value, (list, tuple)):
        return [json_value(v) for v in value]
    if isinstance(value, str):
        try:
            return parse_int(value, "parameter")
        except DescgenError:
            return value
    return value


def word_json(descriptor: str, word: int, *, params: Mapping[str, Any] | None = None,
              findings: Sequence[Any] = ()) -> dict[str, Any]:
    """The JSON document of one word (``descgen idesc/smem/zcm/tmem --format json``, schema
    ``descriptors/schemas/word.schema.json``): ``descriptor``; ``word`` (hex text: a 64-bit word
    is wider than the integers many JSON readers keep exactly); ``fields``, the raw value of
    every field by PTX name (reserved fields included; integers); ``params``, the parameters it
    was made from; ``findings``, the validation findings (``severity``, ``rule``, ``message``,
    ``source``, ``field``, ``bits``, ``value``); ``valid`` (no error among them)."""
    kind = (params or {}).get("kind")
    fields = decode(descriptor, word, kind=kind if descriptor == "idesc" else None).to_dict()["fields"]
    found = [{**f.to_dict(), "value": json_value(f.value)} for f in findings]
    return {"descriptor": descriptor, "word": format_word(descriptor, word), "fields": fields,
            "params": dict(params or {}), "findings": found,
            "valid": not any(f.severity == "error" for f in findings)}


def render_word(descriptor: str, word: int, fmt: str, *, name: str | None = None,
                params: Mapping[str, Any] | None = None, findings: Sequence[Any] = ()) -> str:
    """One word as ``hex`` (``0x%08x``/``0x%016x``), ``c`` or ``cpp`` (the same: a ``constexpr``
    line with the inputs as comment), ``python`` (an assignment) or ``json`` (one line,
    :func:`word_json`: ``{"descriptor", "word", "fields", "params", "findings", "valid"}``;
    ``findings`` are the :class:`~descriptors.rules.validate.Finding` objects to include).  ``name``
    names the constant of ``c``/``cpp``/``python`` (default :data:`DEFAULT_NAMES`); the other
    formats have no name.  Raises :class:`ParameterError` for an unknown format or a name that
    cannot be an identifier."""
    params = dict(params or {})
    if fmt == "hex":
        return format_word(descriptor, word)
    if fmt == "json":
        return json.dumps(word_json(descriptor, word, params=params, findings=findings), indent=2)
    const = check_identifier(DEFAULT_NAMES[descriptor] if name is None else name)
    comment = describe_params(params)
    if fmt in ("c", "cpp"):
        line = f"constexpr {c_type(descriptor)} {const} = {c_literal(descriptor, word)};"
        return f"{line}  // {descriptor}: {comment}" if comment else line
    if fmt == "python":
        line = f"{const} = {format_word(descriptor, word)}"
        return f"{line}  # {descriptor}: {comment}" if comment else line
    raise ParameterError(f"unknown format {shorten(fmt)}; formats: " + ", ".join(FORMATS))

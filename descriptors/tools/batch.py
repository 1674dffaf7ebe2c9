"""Batch files: many named descriptor configurations in, all constants out.

A batch file is TOML (``tomllib``) or JSON: a list ``configs`` (JSON may also be a bare list)
of tables ``{"name": ..., "descriptor": ..., <encode parameters>}``, with two optional keys:
``expect`` (the word the configuration must produce -- a mismatch is an error) and ``source``
(where the value comes from; emitted as a comment).  Unknown keys are errors.

>>> from descriptors.tools.batch import parse_batch, encode_batch, render
>>> results = encode_batch(parse_batch([{"name": "T", "descriptor": "tmem", "lane": 1}]))
>>> render(results, "json")
'[\\n  {\\n    "name": "T",\\n    "descriptor": "tmem",\\n    "word": "0x00010000"\\n  }\\n]'
"""

from __future__ import annotations

import itertools
import json
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..structs import Struct, field
from .. import __version__
from ..words.codec import DESCRIPTORS, MAX_DIGITS, format_word, parse_int
from ..errors import BatchError, DescgenError, InvalidDescriptorError, shorten, shorten_text
from ..rules.targets import resolve_arch
from ..rules.validate import ARCHES, WORD_ARCHES
from .output import (c_literal, c_type, check_identifier, comment_text, describe_params,
                     docstring_text)

__all__ = ["BatchConfig", "BatchResult", "BatchProblem", "BATCH_FORMATS", "HEX_COLUMNS", "load_batch", "read_batch", "parse_batch",
           "encode_batch", "render"]

#: Output formats of a batch.  ``c`` and ``cpp`` are one format (a C++ header; the constants
#: are also C23), as with the single-word commands.
BATCH_FORMATS = ("hex", "c", "cpp", "python", "json")

#: Column titles of the ``hex`` listing.
HEX_COLUMNS = ("name", "word", "descriptor")

_META_KEYS = ("name", "descriptor", "expect", "source", "arch")
#: Context keys a configuration may give for validation (not stored in the word).
_CONTEXT_KEYS = {"idesc": ("scale_vec",), "zcm": ("m", "n"), "tmem": ("alloc", "shift")}


class BatchConfig(Struct, frozen=True):
    """One named configuration of a batch file."""

    name: str
    descriptor: str
    params: dict[str, Any] = field(default_factory=dict)
    expect: int | None = None
    source: str | None = None
    index: int = 0
    arch: str = "sm_100a"
    context: dict[str, Any] = field(default_factory=dict)
    #: what was assumed reading the entry (``arch = "sm_100"`` read as sm_100a)
    notes: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return f"config {self.name!r} (#{self.index + 1})"


class BatchResult(Struct, frozen=True):
    config: BatchConfig
    word: int
    findings: list[Any] = field(default_factory=list)


class BatchProblem(Struct, frozen=True):
    """One bad configuration, as :func:`parse_batch` and :func:`encode_batch` collect them when
    given a ``problems`` list: its ``index`` (0-based; ``#index+1`` in ``message``), its
    ``name`` (``None`` where it has none), ``message`` (one line, naming both), ``broken``
    (True: it breaks a rule of the PTX text or encodes to another word than its ``expect``;
    False: it cannot be read or encoded) and the rule's ``findings``."""

    index: int
    name: str | None
    message: str
    broken: bool = False
    findings: tuple[Any, ...] = ()


def _collect(problems: list[BatchProblem] | None, exc: DescgenError, index: int,
             name: str | None, broken: bool = False) -> None:
    """Add ``exc`` to ``problems``, or raise it where the caller collects none."""
    if problems is None:
        raise exc from None
    problems.append(BatchProblem(index, name, str(exc), broken,
                                 tuple(getattr(exc, "findings", ()) or ())))


def _config(entry: Any, index: int, seen: set[str]) -> BatchConfig:
    where = f"config #{index + 1}"
    if not isinstance(entry, dict):
        raise BatchError(f"{where}: must be a table/object, not {type(entry).__name__}")
    name = entry.get("name")
    if name is None:
        raise BatchError(f"{where}: missing 'name'")
    try:
        check_identifier(name)
    except DescgenError as exc:
        raise BatchError(f"{where}: {exc}") from None
    where = f"config {shorten(name)} (#{index + 1})"
    if name in seen:
        raise BatchError(f"{where}: name {shorten(name)} is used twice")
    seen.add(name)
    descriptor = entry.get("descriptor")
    if descriptor not in DESCRIPTORS:
        raise BatchError(f"{where}: 'descriptor' must be one of {', '.join(DESCRIPTORS)}, "
                         f"not {shorten(descriptor)}")
    expect = entry.get("expect")
    if expect is not None:
        try:
            expect = parse_int(expect, "expect")
        except DescgenError as exc:
            raise BatchError(f"{where}: {exc}") from None
    source = entry.get("source")
    if source is not None and not isinstance(source, str):
        raise BatchError(f"{where}: 'source' must be text")
    arch = entry.get("arch", WORD_ARCHES[descriptor][0])  # the word's own target by default
    if not isinstance(arch, str):
        raise BatchError(f"{where}: 'arch' must be text")
    try:  # nvcc's and cuda-gdb's spellings (sm_100) as --arch reads them
        arch, assumed = resolve_arch(arch, ARCHES)
    except DescgenError as exc:
        raise BatchError(f"{where}: {exc}") from None
    context_keys = _CONTEXT_KEYS.get(descriptor, ())
    context = {k: v for k, v in entry.items() if k in context_keys}
    params = {k: v for k, v in entry.items() if k not in _META_KEYS and k not in context_keys}
    return BatchConfig(name, descriptor, params, expect, source, index, arch, context,
                       (f"{where}: {assumed.replace('--arch ', 'arch ', 1)}",) if assumed else ())


def parse_batch(document: Any, *, problems: list[BatchProblem] | None = None
                ) -> list[BatchConfig]:
    """Configurations from a parsed document: ``{"configs": [...]}`` or a bare list.  Raises
    :class:`BatchError` for the first bad configuration; given a ``problems`` list, each bad
    one is added to it instead (:class:`BatchProblem`) and left out of the result (a document
    that is no list of configurations still raises)."""
    if isinstance(document, dict):
        extra = sorted(set(document) - {"configs"})
        if extra:
            raise BatchError(f"unknown top-level key(s) {', '.join(map(repr, extra))}; "
                             "a batch file holds a list 'configs'")
        document = document.get("configs")
    if not isinstance(document, list):
        raise BatchError("a batch file holds a list 'configs' of configurations")
    if not document:
        raise BatchError("the batch file has no configurations")
    seen: set[str] = set()
    configs = []
    for i, entry in enumerate(document):
        try:
            configs.append(_config(entry, i, seen))
        except BatchError as exc:
            name = entry.get("name") if isinstance(entry, dict) else None
            _collect(problems, exc, i, name if isinstance(name, str) else None)
    return configs


#: Deepest nesting a batch document may have (configs > table > list value is 3 levels).
MAX_DEPTH = 32
#: Longest number a batch file may spell; longer ones are kept as text for a clear refusal.
_MAX_NUMBER = MAX_DIGITS


def _json_int(text: str) -> int | str:
    return int(text) if len(text) <= _MAX_NUMBER else text


def _depth_ok(text: str, toml: bool) -> bool:
    """Whether the brackets of ``text`` (outside strings and comments) nest at most
    :data:`MAX_DEPTH` deep: a cheap pre-check so that the parsers never recurse deeply."""
    depth = 0
    quote = ""
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if quote:
            if ch == "\\" and quote == '"':
                i += 1
            elif ch == quote:
                quote = ""
        elif ch == '"' or (toml and ch == "'"):
            quote = ch
        elif toml and ch == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return False
        elif ch in "]}":
            depth -= 1
        i += 1
    return True


def load_batch(path: str | Path, *, problems: list[BatchProblem] | None = None
               ) -> list[BatchConfig]:
    """Read a ``.toml`` or ``.json`` batch file (UTF-8, a byte-order mark allowed).  Raises
    :class:`BatchError` naming the file and what is wrong: unreadable, empty, another format,
    malformed, nested deeper than :data:`MAX_DEPTH`, or a configuration that is wrong (given a
    ``problems`` list, the wrong configurations go there: :func:`parse_batch`)."""
    p = Path(path)
    shown = shorten(str(p))
    suffix = p.suffix.lower()
    if suffix not in (".toml", ".json"):
        name = suffix[1:].upper()
        what = (f"{'an' if name[:1] in 'AEIOU' else 'a'} {name} file" if name
                else "a file without a suffix")
        raise BatchError(f"{shown}: {what}; batch files are TOML (.toml) or JSON (.json)")
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise BatchError(f"cannot read {shown}: {exc.strerror or exc}") from None
    return read_batch(data, suffix=suffix, name=shown, problems=problems)


def read_batch(data: bytes, *, suffix: str | None = None, name: str = "stdin",
               problems: list[BatchProblem] | None = None) -> list[BatchConfig]:
    """The configurations of a batch file's bytes (what ``descgen batch -`` reads from stdin):
    ``suffix`` ``.toml`` or ``.json``; ``None`` takes JSON when the text starts (blanks aside) with
    ``{`` or with ``[`` then ``{`` or ``]`` (an object, a list of objects), and TOML otherwise (a
    TOML batch file starts with a comment, a key or a table header such as ``[[configs]]``).  ``name`` names the input in errors.  Raises
    :class:`BatchError` as :func:`load_batch` does."""
    shown = name
    if suffix is None:
        head = "".join(data[:4096].decode("utf-8-sig", errors="replace").split())[:2]
        suffix = ".json" if head[:1] == "{" or head in ("[{", "[]") else ".toml"
    fmt = suffix[1:].upper()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise BatchError(f"{shown}: not UTF-8 text (byte {exc.start})") from None
    if not text.strip():
        raise BatchError(f"{shown}: the file is empty; a batch file holds a list 'configs'")
    if not _depth_ok(text, suffix == ".toml"):
        raise BatchError(f"{shown}: nested deeper than {MAX_DEPTH} levels; a batch file is a "
                         "list of flat configurations")
    try:
        if suffix == ".json":
            document = json.loads(text, parse_int=_json_int)
        else:
            document = tomllib.loads(text)
    except RecursionError:
        raise BatchError(f"{shown}: nested too deeply") from None
    except ValueError as exc:  # JSONDecodeError, TOMLDecodeError, int digit limit
        message = str(exc)
        if "int_max_str_digits" in message or "integer string conversion" in message:
            message = (f"a number has more than 4300 digits; no descriptor value needs "
                       f"more than {_MAX_NUMBER} characters")
        raise BatchError(f"{shown}: not valid {fmt}: {shorten_text(message)}") from None
    return parse_batch(document, problems=problems)


def encode_batch(configs: Sequence[BatchConfig], *, force: bool = False,
                 problems: list[BatchProblem] | None = None) -> list[BatchResult]:
    """Encode and validate every configuration, each run of configurations of one descriptor
    through :func:`descriptors.words.bulk.iter_encode`.  :class:`BatchError` names the first one (in
    order) that cannot be encoded or whose word differs from its ``expect``;
    :class:`InvalidDescriptorError` the first that breaks a rule of the PTX text, unless
    ``force``.  Given a ``problems`` list, every such configuration is added to it instead
    (:class:`BatchProblem`) and left out of the result.  Each result carries its findings."""
    from ..words.bulk import iter_encode

    results = []
    for descriptor, run in itertools.groupby(configs, key=lambda c: c.descriptor):
        run = list(run)
        words = iter_encode(descriptor, [cfg.params for cfg in run])
        for i, cfg in enumerate(run):
            try:
                word = next(words)
            except DescgenError as exc:
                _collect(problems, BatchError(f"{cfg.label}: {exc}"), cfg.index, cfg.name)
                # the refusal ended that run's encoding: the rest of the run goes on afresh
                words = iter_encode(descriptor, [c.params for c in run[i + 1:]])
                continue
            try:
                results.append(_checked(cfg, word, force))
            except _Mismatch as exc:
                _collect(problems, exc, cfg.index, cfg.name, broken=True)
            except InvalidDescriptorError as exc:
                _collect(problems, exc, cfg.index, cfg.name, broken=True)
            except BatchError as exc:
                _collect(problems, exc, cfg.index, cfg.name)
    return results


class _Mismatch(BatchError):
    """A configuration encodes to another word than its ``expect``."""


def _checked(cfg: BatchConfig, word: int, force: bool) -> BatchResult:
    """One encoded configuration against its ``expect`` and the PTX rules."""
    from ..rules.validate import is_valid, validate

    if cfg.expect is not None and word != cfg.expect:
        raise _Mismatch(f"{cfg.label}: encodes to {format_word(cfg.descriptor, word)}, "
                         f"expected {format_word(cfg.descriptor, cfg.expect)}")
    ctx = dict(cfg.context)
    if cfg.descriptor == "idesc":
        ctx.update({k: cfg.params[k] for k in ("cta_group", "ws") if k in cfg.params})
    try:
        findings = validate(cfg.descriptor, word, kind=cfg.params.get("kind"), arch=cfg.arch,
                            **ctx)
    except DescgenError as exc:
        raise BatchError(f"{cfg.label}: {exc}") from None
    if not is_valid(findings) and not force:
        ids = list(dict.fromkeys(f.rule for f in findings if f.severity == "error"))
        raise InvalidDescriptorError(f"{cfg.label} breaks {len(ids)} rule{'s' if len(ids) != 1 else ''} "
                                     f"of the PTX text ({', '.join(ids)})", findings)
    return BatchResult(cfg, word, findings)


def _comment(cfg: BatchConfig) -> str:
    return comment_text(f"{cfg.descriptor}: {describe_params(cfg.params)}")


def render(results: Sequence[BatchResult], fmt: str = "hex", *, origin: str | None = None) -> str:
    """All constants as ``hex`` (an aligned listing under a header line of the column titles
    :data:`HEX_COLUMNS`), ``c`` or ``cpp`` (the same: a C++ header), ``python`` (a module) or
    ``json`` (a list of ``{"name", "descriptor", "word"}``, schema
    ``descriptors/schemas/batch.schema.json``).  Raises :class:`BatchError` for another format."""
    what = f" from {origin}" if origin else ""  # escaped per format below
    if fmt == "json":
        return json.dumps([{"name": r.config.name, "descriptor": r.config.descriptor,
                            "word": format_word(r.config.descriptor, r.word)} for r in results],
                          indent=2)
    if fmt == "hex":
        width = max(len(HEX_COLUMNS[0]), *(len(r.config.name) for r in results))
        rows = [HEX_COLUMNS] + [(r.config.name, format_word(r.config.descriptor, r.word),
                                 r.config.descriptor) for r in results]
        return "\n".join(f"{a:<{width}}  {b:<18}  {c}" for a, b, c in rows)
    if fmt in ("c", "cpp"):
        lines = [f"// Descriptor constants generated by descgen {__version__}{comment_text(what)}. "
                 "Do not edit.",
                 "#pragma once", "", "#include <cstdint>", ""]
        for r in results:
            cfg = r.config
            if cfg.source:
                lines.append(f"// {comment_text(cfg.source)}")
            lines.append(f"constexpr {c_type(cfg.descriptor)} {cfg.name} = "
                         f"{c_literal(cfg.descriptor, r.word)};  // {_comment(cfg)}")
        return "\n".join(lines)
    if fmt == "python":
        lines = [f'"""Descriptor constants generated by descgen {__version__}{docstring_text(what)}. '
                 'Do not edit."""', ""]
        for r in results:
            cfg = r.config
            if cfg.source:
                lines.append(f"# {comment_text(cfg.source)}")
            lines.append(f"{cfg.name} = {format_word(cfg.descriptor, r.word)}  # {_comment(cfg)}")
        return "\n".join(lines)
    raise BatchError(f"unknown batch format {shorten(fmt)}; formats: " + ", ".join(BATCH_FORMATS))

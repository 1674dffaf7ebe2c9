"""Batch files: many named descriptor configurations in, all constants out.

A batch file is TOML (``tomllib``) or JSON: a list ``configs`` (JSON may also be a bare list)
of tables ``{"name": ..., "descriptor": ..., <encode parameters>}``, with two optional keys:
``expect`` (the word the configuration must produce -- a mismatch is an error) and ``source``
(where the value comes from; emitted as a comment).  Unknown keys are errors.

>>> from descriptors.batch import parse_batch, encode_batch, render
>>> results = encode_batch(parse_batch([{"name": "T", "descriptor": "tmem", "lane": 1}]))
>>> render(results, "json")
'[\\n  {\\n    "name": "T",\\n    "descriptor": "tmem",\\n    "word": "0x00010000"\\n  }\\n]'
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import __version__
from .codec import DESCRIPTORS, encode, format_word, parse_int
from .errors import BatchError, DescgenError, InvalidDescriptorError
from .output import c_literal, c_type, check_identifier, describe_params

__all__ = ["BatchConfig", "BatchResult", "BATCH_FORMATS", "load_batch", "parse_batch",
           "encode_batch", "render"]

#: Output formats of a batch.
BATCH_FORMATS = ("hex", "cpp", "python", "json")

_META_KEYS = ("name", "descriptor", "expect", "source", "arch")
#: Context keys a configuration may give for validation (not stored in the word).
_CONTEXT_KEYS = {"zcm": ("m",), "tmem": ("alloc",)}


@dataclass(frozen=True)
class BatchConfig:
    """One named configuration of a batch file."""

    name: str
    descriptor: str
    params: dict[str, Any] = field(default_factory=dict)
    expect: int | None = None
    source: str | None = None
    index: int = 0
    arch: str = "sm_100a"
    context: dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return f"config {self.name!r} (#{self.index + 1})"


@dataclass(frozen=True)
class BatchResult:
    config: BatchConfig
    word: int
    findings: list[Any] = field(default_factory=list)


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
    where = f"config {name!r} (#{index + 1})"
    if name in seen:
        raise BatchError(f"{where}: name {name!r} is used twice")
    seen.add(name)
    descriptor = entry.get("descriptor")
    if descriptor not in DESCRIPTORS:
        raise BatchError(f"{where}: 'descriptor' must be one of {', '.join(DESCRIPTORS)}, "
                         f"not {descriptor!r}")
    expect = entry.get("expect")
    if expect is not None:
        try:
            expect = parse_int(expect, "expect")
        except DescgenError as exc:
            raise BatchError(f"{where}: {exc}") from None
    source = entry.get("source")
    if source is not None and not isinstance(source, str):
        raise BatchError(f"{where}: 'source' must be text")
    arch = entry.get("arch", "sm_100a")
    if not isinstance(arch, str):
        raise BatchError(f"{where}: 'arch' must be text")
    context_keys = _CONTEXT_KEYS.get(descriptor, ())
    context = {k: v for k, v in entry.items() if k in context_keys}
    params = {k: v for k, v in entry.items() if k not in _META_KEYS and k not in context_keys}
    return BatchConfig(name, descriptor, params, expect, source, index, arch, context)


def parse_batch(document: Any) -> list[BatchConfig]:
    """Configurations from a parsed document: ``{"configs": [...]}`` or a bare list."""
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
    return [_config(entry, i, seen) for i, entry in enumerate(document)]


def load_batch(path: str | Path) -> list[BatchConfig]:
    """Read a ``.toml`` or ``.json`` batch file.  Raises :class:`BatchError`."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise BatchError(f"cannot read {str(p)!r}: {exc.strerror or exc}") from None
    try:
        if p.suffix.lower() == ".json":
            document = json.loads(data)
        elif p.suffix.lower() == ".toml":
            document = tomllib.loads(data.decode("utf-8"))
        else:
            raise BatchError(f"{str(p)!r}: batch files end in .toml or .json")
    except (ValueError, UnicodeDecodeError) as exc:  # JSONDecodeError, TOMLDecodeError
        raise BatchError(f"{str(p)!r}: not valid {p.suffix[1:].upper()}: {exc}") from None
    return parse_batch(document)


def encode_batch(configs: Sequence[BatchConfig], *, force: bool = False) -> list[BatchResult]:
    """Encode and validate every configuration.  :class:`BatchError` names the first one that
    cannot be encoded or whose word differs from its ``expect``;
    :class:`InvalidDescriptorError` the first that breaks a rule of the PTX text, unless
    ``force``.  Each result carries its findings."""
    from .validate import is_valid, validate

    results = []
    for cfg in configs:
        try:
            word = encode(cfg.descriptor, **cfg.params)
        except DescgenError as exc:
            raise BatchError(f"{cfg.label}: {exc}") from None
        if cfg.expect is not None and word != cfg.expect:
            raise BatchError(f"{cfg.label}: encodes to {format_word(cfg.descriptor, word)}, "
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
            raise InvalidDescriptorError(f"{cfg.label} breaks the PTX rules above", findings)
        results.append(BatchResult(cfg, word, findings))
    return results


def _comment(cfg: BatchConfig) -> str:
    return f"{cfg.descriptor}: {describe_params(cfg.params)}"


def render(results: Sequence[BatchResult], fmt: str = "hex", *, origin: str | None = None) -> str:
    """All constants as ``hex`` (an aligned listing), ``cpp`` (a C++ header), ``python``
    (a module) or ``json`` (a list of ``{"name", "descriptor", "word"}``)."""
    what = f" from {origin}" if origin else ""
    if fmt == "json":
        return json.dumps([{"name": r.config.name, "descriptor": r.config.descriptor,
                            "word": format_word(r.config.descriptor, r.word)} for r in results],
                          indent=2)
    if fmt == "hex":
        width = max(len(r.config.name) for r in results)
        return "\n".join(f"{r.config.name:<{width}}  {format_word(r.config.descriptor, r.word):<18}"
                         f"  {r.config.descriptor}" for r in results)
    if fmt == "cpp":
        lines = [f"// Descriptor constants generated by descgen {__version__}{what}. Do not edit.",
                 "#pragma once", "", "#include <cstdint>", ""]
        for r in results:
            cfg = r.config
            if cfg.source:
                lines.append(f"// {cfg.source}")
            lines.append(f"constexpr {c_type(cfg.descriptor)} {cfg.name} = "
                         f"{c_literal(cfg.descriptor, r.word)};  // {_comment(cfg)}")
        return "\n".join(lines)
    if fmt == "python":
        lines = [f'"""Descriptor constants generated by descgen {__version__}{what}. Do not edit."""',
                 ""]
        for r in results:
            cfg = r.config
            if cfg.source:
                lines.append(f"# {cfg.source}")
            lines.append(f"{cfg.name} = {format_word(cfg.descriptor, r.word)}  # {_comment(cfg)}")
        return "\n".join(lines)
    raise BatchError(f"unknown batch format {fmt!r}; formats: " + ", ".join(BATCH_FORMATS))

"""``descgen decode`` and ``descgen check``: read a word back, judge a word or a parameter set.

JSON: ``decode`` gives :func:`descriptors.tools.printer.to_json` (or, for an idesc without --kind,
``{"descriptor", "kind": null, "word", "readings"}``; schema ``decode``); ``check`` gives
``{"valid", "findings"}`` (schema ``check``).
"""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any

import typer

import descriptors
from descriptors.errors import shorten
from descriptors.tools.printer import rank_readings, to_json
from descriptors.rules.validate import is_valid, validate, validate_pair

from .main import EXIT_INVALID
from .common import (AsOpt, DecodeFormat, Descriptor, KindOpt, ReportOutput, WordContext,
                     option_groups, show_decoded, show_output, word_for_arch)


@option_groups
def decode_cmd(
    word: Annotated[str, typer.Argument(help="The word: decimal or 0x hex (_ and ' separators allowed).")],
    as_: Annotated[Descriptor | None, typer.Option("--as", help="Which descriptor the word is; "
                   "when not given, --kind means idesc, --arch sm_90a wgmma, else the one "
                   "descriptor whose layout the word fits (a note on stderr says which).")] = None,
    kind: KindOpt = None,
    context: WordContext = WordContext(),
    show: Annotated[bool, typer.Option("--show", "-v", help="An idesc without --kind: print "
                    "every kind's reading in full (fields, bit diagram, findings), not one "
                    "line each.")] = False,
    out: ReportOutput = ReportOutput(),
) -> None:
    """Decode a word: every field (bits, raw value, meaning), a bit diagram and the findings;
    an idesc without --kind: one line per kind's reading (--show: each in full)."""
    value = descriptors.parse_int(word, "word")
    descriptor, arch = word_for_arch(_as_given(as_, value, kind, context.arch, "decode"),
                                     context.arch, "decode")
    ctx = context.options(descriptor)
    if descriptor == "idesc" and kind is None:
        readings = rank_readings([(r, validate("idesc", value, kind=r.kind, arch=arch, **ctx))
                                  for r in descriptors.readings("idesc", value)])
        if out.fmt is DecodeFormat.json:
            typer.echo(json.dumps({"descriptor": descriptor, "kind": None,
                                   "word": readings[0][0].hex,
                                   "readings": [to_json(d, f) for d, f in readings]}, indent=2))
            return
        if not show:
            from descriptors.render.printer import readings_summary
            typer.echo(readings_summary(readings))
            return
        typer.echo(f"An instruction-descriptor word does not identify its kind; every kind's "
                   f"reading of {readings[0][0].hex} follows, fewest broken rules first "
                   "(pass --kind to choose one).")
        for d, f in readings:
            typer.echo("")
            show_decoded(d, f, out.plain_, out.no_color)
        return
    decoded = descriptors.decode(descriptor, value, kind=kind)
    findings = validate(descriptor, value, kind=kind, arch=arch, **ctx)
    if out.fmt is DecodeFormat.json:
        typer.echo(json.dumps(to_json(decoded, findings), indent=2))
    else:
        show_decoded(decoded, findings, out.plain_, out.no_color)


# (Long: typer takes each option as a parameter, and check has three ways in -- a word, a
# parameter set, an idesc with its A/B words; the verdicts are the library's.)
@option_groups
def check_cmd(
    word: Annotated[str | None, typer.Argument(help="A word to check; --as names its descriptor (else inferred, as decode does).")] = None,
    as_: AsOpt = None,
    kind: KindOpt = None,
    param: Annotated[list[str] | None, typer.Option("--param", "-p", help="Check a parameter set "
                     "instead of a word: KEY=VALUE, repeated (the names encode takes).")] = None,
    idesc: Annotated[str | None, typer.Option("--idesc", help="Instruction descriptor of a pair check (with --kind).")] = None,
    a_desc: Annotated[str | None, typer.Option("--a-desc", help="Shared memory descriptor of A (pair check).")] = None,
    b_desc: Annotated[str | None, typer.Option("--b-desc", help="Shared memory descriptor of B (pair check).")] = None,
    context: WordContext = WordContext(),
    cute: Annotated[str | None, typer.Option("--cute", help="Does WORD read this layout? A CuTe "
                    "print (C++ or DSL) of one operand slice (M/N, K): exit 0 when the word reads "
                    "exactly its elements for one MMA (32 bytes of K), else 1 and the first "
                    "element read from the wrong place.")] = None,
    major: Annotated[str | None, typer.Option("--major", help="With --cute: K or MN.")] = None,
    dtype: Annotated[str | None, typer.Option("--a-type", "--b-type", "--dtype", help="With "
                     "--cute: the element type (PTX name; a DSL print names it).")] = None,
    start_address: Annotated[str | None, typer.Option("--start-address", help="With --cute: the "
                             "slice's byte address when the print has none.")] = None,
    out: ReportOutput = ReportOutput(),
) -> None:
    """Validate a word, a parameter set or an idesc with its A/B descriptors; exit 1 on errors.
    With --cute: does the word read that layout (the operand-fetch model)?"""
    arch = context.arch
    if cute is not None:
        _check_layout(word, as_, arch, cute, major, dtype, start_address, kind, out.fmt)
        return
    if major is not None or dtype is not None or start_address is not None:
        raise descriptors.ParameterError("--major, --a-type/--b-type and --start-address go with "
                                         "--cute")
    if idesc is not None:
        if kind is None:
            raise descriptors.ParameterError("a pair check needs --kind for --idesc")
        if word is not None or param:
            raise descriptors.ParameterError("a pair check takes --idesc/--a-desc/--b-desc only")
        context.options("idesc")  # refuses the others
        findings = validate_pair(
            descriptors.parse_int(idesc, "--idesc"), kind=kind, arch=arch or "sm_100a",
            a_desc=None if a_desc is None else descriptors.parse_int(a_desc, "--a-desc"),
            b_desc=None if b_desc is None else descriptors.parse_int(b_desc, "--b-desc"),
            cta_group=None if context.cta_group is None else descriptors.parse_int(
                context.cta_group, "--cta-group"),
            ws=context.ws, scale_vec=context.scale_vec)
    else:
        named = as_.value if as_ else None
        if named is None and (kind is not None or arch != "sm_90a"):
            if (word is None or param) and kind is None:
                raise descriptors.ParameterError("say which descriptor with --as (or give "
                                                 "--idesc)")
            value = 0 if word is None or param else descriptors.parse_int(word, "word")
            named = _as_given(None, value, kind, arch, "check")
        descriptor, arch = word_for_arch(named, arch)
        ctx = context.options(descriptor)
        if param:
            if word is not None:
                raise descriptors.ParameterError("give a word or --param values, not both")
            params = _params(param)
            kind = _merge_param(params, "kind", kind, "--kind")
            for key, option in (("descriptor", "--as"), ("arch", "--arch"), ("word", "WORD")):
                if key in params:
                    raise descriptors.ParameterError(f"--param {key}=... is not an encode "
                                                     f"parameter; give it as {option}")
            for key in list(ctx):
                if key in params:
                    raise descriptors.ParameterError(
                        f"{key} given twice: as --param {key}=... and as "
                        f"--{key.replace('_', '-')}")
            findings = validate(descriptor, kind=kind, arch=arch, **params, **ctx)
        elif word is None:
            raise descriptors.ParameterError("give a WORD, --param KEY=VALUE, or --idesc")
        else:
            findings = validate(descriptor, descriptors.parse_int(word, "word"), kind=kind,
                                arch=arch, **ctx)
    from descriptors.render import printer
    if out.fmt is DecodeFormat.json:
        typer.echo(json.dumps(printer.check_json(findings), indent=2))
    else:
        show_output(lambda: printer.render_findings(findings),
                    lambda: printer.plain_findings(findings), out.plain_, out.no_color)
    if not is_valid(findings):
        raise typer.Exit(EXIT_INVALID)


def _check_layout(word: str | None, as_: Any, arch: str | None, cute: str, major: str | None,
                  dtype: str | None, start_address: str | None, kind: str | None,
                  fmt: DecodeFormat) -> None:
    """``check WORD --cute LAYOUT``: :func:`descriptors.layout.fetch.check_layout`."""
    from descriptors.layout.fetch import check_layout
    if word is None:
        raise descriptors.ParameterError("check --cute needs WORD (a shared memory descriptor)")
    # --cute reads a shared memory descriptor: smem, which sm_90a reads as wgmma
    descriptor, arch = word_for_arch(as_.value if as_ else "smem", arch)
    if descriptor not in ("smem", "wgmma"):
        raise descriptors.ParameterError(f"--cute checks a shared memory descriptor (--as smem or "
                                         f"wgmma), not {descriptor}")
    value = descriptors.parse_int(word, "word")
    result = check_layout(value, cute, major=major, dtype=dtype, descriptor=descriptor,
                          start_address=start_address, kind=kind)
    model = ("the fetch model measured on an H100" if result.measured else
             "the PTX text's canonical layouts (not measured on hardware)")
    if fmt is DecodeFormat.json:
        typer.echo(json.dumps({"reads_layout": result.ok, "descriptor": descriptor,
                               "rows": result.rows, "k": result.k, "measured": result.measured,
                               "mismatch": None if result.mismatch is None else dict(zip(
                                   ("row", "k", "layout_byte", "word_byte"), result.mismatch)),
                               "message": result.message(), "notes": list(result.notes)},
                              indent=2))
    else:
        from descriptors.layout.cute_layout import INFERRED_NOTES
        for note in result.notes:
            if note.startswith(INFERRED_NOTES):
                sys.stderr.write(f"descgen: note: {note}\n")
        typer.echo(("yes: " if result.ok else "no: ") + result.message() + f" ({model})")
    if not result.ok:
        raise typer.Exit(EXIT_INVALID)


_LIST_PARAMS = ("start_count", "first_span")


def _as_given(as_: Any, value: int, kind: str | None, arch: str | None,
              command: str) -> str | None:
    """The descriptor ``--as`` names, or, not given, the one the other options or the word
    decide, said in a ``descgen: note:`` line on stderr: ``--kind`` means idesc; ``--arch
    sm_90a`` means wgmma (``None`` is returned: :func:`word_for_arch` says so); else the one
    family whose layout the word fits (:func:`descriptors.tools.dump.score.classify`: its
    structural readings of a whole word, one family at least
    :data:`~descriptors.tools.dump.score.DEFAULT_MIN_CONFIDENCE` sure, or the only one that
    fits).  Raises :class:`ParameterError` naming the candidates and ``--as`` when the word
    does not decide."""
    if as_ is not None:
        return as_.value
    if kind is not None:
        sys.stderr.write("descgen: note: read as --as idesc (--kind names an MMA kind)\n")
        return "idesc"
    if arch == "sm_90a":
        return None
    from descriptors.tools.dump.score import DEFAULT_MIN_CONFIDENCE, classify
    target = arch or "sm_100a"
    size = 64
    if value >= 1 << size:
        h = hex(value)
        raise descriptors.ParameterError(f"word {h if len(h) <= 40 else h[:37] + '...'} is "
                                         f"wider than {size} bits: no descriptor is")
    best: dict[str, Any] = {}
    for c in classify(value, size, arch=target):
        if c.form == "word" and c.structural:
            best.setdefault(c.descriptor, c)
    sure = [f for f, c in best.items() if c.confidence >= DEFAULT_MIN_CONFIDENCE]
    hex_ = f"{value:#x}"
    if len(sure) == 1 or len(best) == 1:
        family = sure[0] if len(sure) == 1 else next(iter(best))
        why = _fits(family, best[family])
        if family == "idesc":
            kinds = [c.kind for c in classify(value, size, arch=target)
                     if c.descriptor == "idesc" and c.form == "word" and c.structural]
            why = "a valid instruction descriptor as " + ", ".join(f"kind::{k}" for k in kinds)
        sys.stderr.write(f"descgen: note: read {descriptors.format_word(family, value)} as "
                         f"--as {family}: {why}\n")
        return family
    see = f" (see 'descgen {command} --help')"
    if best:
        names = sorted(best, key=list(best).index)
        raise descriptors.ParameterError(
            f"{hex_} fits more than one descriptor's layout: "
            + "; ".join(f"{f} ({_fits(f, best[f])})" for f in names)
            + " -- say which with " + " or ".join(f"--as {f}" for f in names) + see)
    other = [c.descriptor for c in classify(value, 64, arch="sm_90a")
             if c.form == "word" and c.structural and target != "sm_90a"]
    raise descriptors.ParameterError(
        f"{hex_} fits no {target} descriptor's layout ({_smem_constant()} is not set, so it is "
        f"no shared memory descriptor); "
        + ("it fits sm_90a's wgmma matrix descriptor: give --arch sm_90a, or " if other else
           "give ")
        + "--as " + "|".join(descriptors.DESCRIPTORS) + " to read it anyway" + see)


def _smem_constant() -> str:
    """tcgen05's fixed constant of the shared memory descriptor, as ``name[bits] = 0b...``."""
    from descriptors.words.layouts import SMEM
    return ", ".join(f"{f.name}{f.bits} = {f.default:#0{f.width + 2}b}" for f in SMEM.fields
                     if f.role == "constant" and f.default)


def _fits(family: str, reading: Any) -> str:
    """Why a word fits ``family`` (``reading``: its best :class:`Candidate`), briefly."""
    if family == "smem":
        return f"its {_smem_constant()} (tcgen05's shared memory descriptor)"
    if family == "idesc":
        return f"a valid instruction descriptor as kind::{reading.kind}"
    return reading.reason.split(";")[0]


def _merge_param(params: dict[str, Any], key: str, option_value: str | None,
                 option: str) -> str | None:
    """A value that may come as ``--param KEY=...`` or as its own option (not both, unless
    they agree)."""
    if key not in params:
        return option_value
    value = params.pop(key)
    if option_value is not None and option_value != value:
        raise descriptors.ParameterError(f"{key} given twice: --param {key}={value} and "
                                         f"{option} {option_value}")
    return value


def _params(items: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not key:
            raise descriptors.ParameterError(f"--param takes KEY=VALUE, not {shorten(item)}")
        out[key] = [v.strip() for v in value.split(",")] if key in _LIST_PARAMS else value.strip()
    return out


def register(app: typer.Typer) -> None:
    """Add these commands to ``app``."""
    app.command("decode")(decode_cmd)
    app.command("check")(check_cmd)

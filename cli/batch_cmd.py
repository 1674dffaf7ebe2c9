"""``descgen batch``: every configuration of a TOML or JSON file, emitted at once."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from descriptors.tools.batch import (BATCH_FORMATS, BatchProblem, encode_batch, load_batch,
                                     read_batch, render)

from .common import ForceOpt, NoColorOpt, PlainOpt, format_option

BatchFormat, BatchFormatOpt = format_option("BatchFormat", BATCH_FORMATS, {
    "hex": "a table of name, word, descriptor (--plain: aligned text under a title line)",
    "c": "a C++ header of constexpr constants, also C23",
    "python": "a Python module",
    "json": "a list of {name, descriptor, word}"})


def batch_cmd(
    file: Annotated[Path, typer.Argument(help="TOML or JSON file with a list 'configs'; - reads stdin (JSON if it starts with { or [{, else TOML).")],
    fmt: BatchFormatOpt = BatchFormat.hex,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write to this file instead of stdout (the hex listing as plain text).", show_default="stdout")] = None,
    force: ForceOpt = False,
    plain_: PlainOpt = False,
    no_color: NoColorOpt = False,
) -> None:
    """Encode and validate every configuration of a batch file; emit all constants at once.
    Every bad configuration is reported (its number and name), and then nothing is emitted:
    exit 1 when each breaks a rule or misses its expect, 2 when one cannot be read or encoded."""
    stdin = str(file) == "-"
    problems: list[BatchProblem] = []
    configs = read_batch(sys.stdin.buffer.read(), problems=problems) if stdin else \
        load_batch(file, problems=problems)
    origin = "stdin" if stdin else file.name
    for c in configs:
        for note in c.notes:
            sys.stderr.write(f"descgen: note: {note}\n")
    results = encode_batch(configs, force=force, problems=problems)
    if problems:
        _report(problems, len(configs) + sum(p.index not in {c.index for c in configs}
                                             for p in problems))
    for r in results:
        for f in r.findings:
            if f.severity == "warning" or (force and f.severity == "error"):
                prefix = "warning: (forced) " if f.severity == "error" else ""
                sys.stderr.write(f"descgen: {prefix}{r.config.label}: {' '.join(str(f).split())}\n")
    if fmt is BatchFormat.hex and output is None and not plain_:
        from descriptors.render.batch import table
        from descriptors.render.console import print_rich

        print_rich(table(results, origin), no_color)
        return
    text = render(results, fmt.value, origin=origin)
    if output is None:
        typer.echo(text)
    else:
        output.write_text(text + "\n", encoding="utf-8")


def _report(problems: list[BatchProblem], total: int) -> None:
    """Every bad configuration on stderr, in file order: the rules it breaks (one line each)
    and one ``descgen: error:`` line naming it; with more than one, a last line counting them.
    Exits 2 when one cannot be read or encoded, else 1 (rules broken, expects missed)."""
    from .main import EXIT_INVALID, EXIT_USAGE
    problems = sorted(problems, key=lambda p: p.index)
    forcible = any(p.findings for p in problems)
    for p in problems:
        for f in p.findings:
            if f.severity == "error":
                sys.stderr.write(f"descgen: {' '.join(str(f).split())}\n")
        hint = " (use --force to emit it anyway)" if p.findings and len(problems) == 1 else ""
        sys.stderr.write(f"descgen: error: {' '.join(p.message.split())}{hint}\n")
    if len(problems) > 1:
        sys.stderr.write(f"descgen: error: {len(problems)} of {total} configurations are bad; "
                         "nothing emitted" + (" (--force emits those that only break rules)"
                                              if forcible else "") + "\n")
    raise typer.Exit(EXIT_USAGE if any(not p.broken for p in problems) else EXIT_INVALID)


def register(app: typer.Typer) -> None:
    """Add these commands to ``app``."""
    app.command("batch")(batch_cmd)

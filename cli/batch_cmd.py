"""``descgen batch``: every configuration of a TOML or JSON file, emitted at once."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from descriptors import format_word
from descriptors.tools.batch import (BATCH_FORMATS, HEX_COLUMNS, encode_batch, load_batch,
                                     read_batch, render)

from .common import ForceOpt, NoColorOpt, PlainOpt, format_option, rich_console

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
    """Encode and validate every configuration of a batch file; emit all constants at once."""
    stdin = str(file) == "-"
    configs = read_batch(sys.stdin.buffer.read()) if stdin else load_batch(file)
    origin = "stdin" if stdin else file.name
    results = encode_batch(configs, force=force)
    for r in results:
        for f in r.findings:
            if f.severity == "warning" or (force and f.severity == "error"):
                prefix = "warning: (forced) " if f.severity == "error" else ""
                sys.stderr.write(f"descgen: {prefix}{r.config.label}: {' '.join(str(f).split())}\n")
    if fmt is BatchFormat.hex and output is None and not plain_:
        from rich.table import Table

        table = Table(title=f"{len(results)} descriptor constant(s) from {origin}",
                      title_justify="left")
        for title in HEX_COLUMNS:
            table.add_column(title)
        for r in results:
            table.add_row(r.config.name, format_word(r.config.descriptor, r.word),
                          r.config.descriptor)
        rich_console(no_color).print(table)
        return
    text = render(results, fmt.value, origin=origin)
    if output is None:
        typer.echo(text)
    else:
        output.write_text(text + "\n", encoding="utf-8")


def register(app: typer.Typer) -> None:
    """Add these commands to ``app``."""
    app.command("batch")(batch_cmd)

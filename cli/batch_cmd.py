"""``descgen batch``: every configuration of a TOML or JSON file, emitted at once."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from descriptors.batch import BATCH_FORMATS, encode_batch, load_batch, render

from .common import ForceOpt, NoColorOpt, _choices

#: ``c`` is accepted for ``cpp`` (one vocabulary with the single-word commands).
BatchFormat = _choices("BatchFormat", ("hex", "c", *BATCH_FORMATS[1:]))


def batch_cmd(
    file: Annotated[Path, typer.Argument(help="TOML or JSON file with a list 'configs'.")],
    fmt: Annotated[BatchFormat, typer.Option("--format", "-f", help="hex listing, c or cpp (the same: a C++ header), Python module or JSON.")] = BatchFormat.hex,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write to this file instead of stdout.")] = None,
    force: ForceOpt = False,
    no_color: NoColorOpt = False,
) -> None:
    """Encode and validate every configuration of a batch file; emit all constants at once."""
    results = encode_batch(load_batch(file), force=force)
    for r in results:
        for f in r.findings:
            if f.severity == "warning" or (force and f.severity == "error"):
                prefix = "warning: (forced) " if f.severity == "error" else ""
                sys.stderr.write(f"descgen: {prefix}{r.config.label}: {' '.join(str(f).split())}\n")
    text = render(results, "cpp" if fmt.value == "c" else fmt.value, origin=file.name)
    if output is None:
        typer.echo(text)
    else:
        output.write_text(text + "\n", encoding="utf-8")


def register(app: typer.Typer) -> None:
    """Add these commands to ``app``."""
    app.command("batch")(batch_cmd)

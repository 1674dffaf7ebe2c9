"""``descgen diff``: two words of one descriptor, only the fields that differ.

A thin layer over :func:`descriptors.tools.diff.diff_words`.  Exit 0 when the words are equal,
1 when they differ, 2 on bad input (as ``cmp`` and ``diff`` do).  JSON: schema ``diff``.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer

from descriptors.render.printer import plain_diff
from descriptors.tools.diff import diff_words

from .common import (DecodeFormat, Descriptor, KindOpt, ReportOutput, WordContext, option_groups,
                     parse_word, word_for_arch)
from .main import EXIT_INVALID, EXIT_OK


@option_groups
def diff_cmd(
    a: Annotated[str, typer.Argument(help="The first word: decimal or 0x hex, or a register "
                 "pair LO:HI, low word first.")],
    b: Annotated[str, typer.Argument(help="The second word: decimal or 0x hex, or a register "
                 "pair LO:HI, low word first.")],
    as_: Annotated[Descriptor | None, typer.Option("--as", help="Which descriptor both words are (required, except with --arch sm_90a: wgmma; smem with --arch sm_90a: wgmma).")] = None,
    kind: KindOpt = None,
    context: WordContext = WordContext(),
    out: ReportOutput = ReportOutput(),
) -> None:
    """Compare two words of one descriptor: the fields that differ (bits, raw values and
    meanings of both), the changed bits marked in a bit diagram, and each word's findings.
    Exit 0 equal, 1 different, 2 bad input.  An instruction descriptor needs --kind (the
    word does not name it).  The text output is plain text (--plain and --no-color change
    nothing)."""
    descriptor, arch = word_for_arch(as_.value if as_ else None, context.arch, "diff")
    if descriptor == "idesc" and kind is None:
        from descriptors.errors import KindRequiredError
        raise KindRequiredError("an instruction descriptor does not name its kind: give --kind "
                                "(tf32, f16, f8f6f4, i8, mxf8f6f4, mxf4, mxf4nvf4)")
    ctx = context.options(descriptor)
    a, b = (hex(parse_word(w)) if ":" in w else w for w in (a, b))  # a pair: one 64-bit word
    d = diff_words(descriptor, a, b, kind=kind, arch=arch, **ctx)
    if out.fmt is DecodeFormat.json:
        typer.echo(json.dumps(d.to_dict(), indent=2))
    else:
        typer.echo("\n".join(plain_diff(d)))
    raise typer.Exit(EXIT_OK if d.equal else EXIT_INVALID)


def register(app: typer.Typer) -> None:
    """Add this command to ``app``."""
    app.command("diff")(diff_cmd)

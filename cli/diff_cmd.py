"""``descgen diff``: two words of one descriptor, only the fields that differ.

A thin layer over :func:`descriptors.tools.diff.diff_words`.  Exit 0 when the words are equal,
1 when they differ, 2 on bad input (as ``cmp`` and ``diff`` do).  JSON: schema ``diff``.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer

from descriptors.tools.diff import WordDiff, diff_words
from descriptors.tools.printer import finding_line, verdict_line

from .common import (AllocOpt, CtaOpt, DecodeFormat, DecodeFormatOpt, Descriptor,
                     KindOpt, MOpt, NOpt, NoColorOpt, PlainOpt, ScaleVecOpt, ShiftOpt, WordArchOpt,
                     WsOpt, context_options, word_for_arch)
from .main import EXIT_INVALID, EXIT_OK


def diff_cmd(
    a: Annotated[str, typer.Argument(help="The first word: decimal or 0x hex.")],
    b: Annotated[str, typer.Argument(help="The second word: decimal or 0x hex.")],
    as_: Annotated[Descriptor | None, typer.Option("--as", help="Which descriptor both words are (required, except with --arch sm_90a: wgmma; smem with --arch sm_90a: wgmma).")] = None,
    kind: KindOpt = None,
    arch: WordArchOpt = None,
    cta_group: CtaOpt = None,
    ws: WsOpt = None,
    m: MOpt = None,
    alloc: AllocOpt = None,
    n: NOpt = None,
    scale_vec: ScaleVecOpt = None,
    shift: ShiftOpt = False,
    fmt: DecodeFormatOpt = DecodeFormat.text,
    plain_: PlainOpt = False,
    no_color: NoColorOpt = False,
) -> None:
    """Compare two words of one descriptor: the fields that differ (bits, raw values and
    meanings of both), the changed bits marked in a bit diagram, and each word's findings.
    Exit 0 equal, 1 different, 2 bad input.  An instruction descriptor needs --kind (the
    word does not name it).  The text output is plain text (--plain and --no-color change
    nothing)."""
    descriptor, arch = word_for_arch(as_.value if as_ else None, arch, "diff")
    if descriptor == "idesc" and kind is None:
        from descriptors.errors import KindRequiredError
        raise KindRequiredError("an instruction descriptor does not name its kind: give --kind "
                                "(tf32, f16, f8f6f4, i8, mxf8f6f4, mxf4, mxf4nvf4)")
    ctx = context_options(descriptor, cta_group, ws, m, alloc, n, scale_vec, shift)
    d = diff_words(descriptor, a, b, kind=kind, arch=arch, **ctx)
    if fmt is DecodeFormat.json:
        typer.echo(json.dumps(d.to_dict(), indent=2))
    else:
        typer.echo("\n".join(_text(d)))
    raise typer.Exit(EXIT_OK if d.equal else EXIT_INVALID)


def _text(d: WordDiff) -> list[str]:
    what = d.a.descriptor + (f" kind::{d.a.kind}" if d.a.kind else "")
    if d.equal:
        lines = [f"{what}: {d.a.hex} and {d.b.hex} are equal"]
    else:
        count = len(d.changes)
        lines = [f"{what}: {d.a.hex} and {d.b.hex} differ in {count} field"
                 f"{'s' if count != 1 else ''} (changed bits {d.to_dict()['changed_bits']})"]
        wn = max(len(c.name + c.bits) for c in d.changes)
        for c in d.changes:
            lines.append(f"  {(c.name + c.bits):<{wn}}  a {c.raw_a:>5}  {c.meaning_a}")
            lines.append(f"  {'':<{wn}}  b {c.raw_b:>5}  {c.meaning_b}")
        lines.append("bit diagram (^ marks a changed bit):")
        lines += d.diagram()
    pairs = [("both", d.a, d.findings_a)] if d.equal else \
        [("a", d.a, d.findings_a), ("b", d.b, d.findings_b)]
    for label, dec, fs in pairs:
        lines.append(f"{label} {dec.hex}: {verdict_line(fs)}")
        lines += [f"  {finding_line(f)}" for f in fs]
    return lines


def register(app: typer.Typer) -> None:
    """Add this command to ``app``."""
    app.command("diff")(diff_cmd)

"""descgen rules command (registered on the main app by cli.main).

``descgen rules [PREFIX]`` lists the diagnostic catalogue
(:data:`descriptors.rules.diagnostics.DIAGNOSTICS`): every rule id descgen can report, with
its severity, its public source (a PTX ISA section or table, or the descgen tool that judges
it) and a one-line summary, sorted by id; ``PREFIX`` keeps the ids that start with it
(``descgen rules wgmma.``).  ``--format json`` prints a JSON array (schema ``rules``).  A
prefix no id starts with is one line on stderr, exit code 2.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer

from .common import REPORT_FORMATS, NoColorOpt, PlainOpt, format_option

RulesFormat, RulesFormatOpt = format_option("RulesFormat", REPORT_FORMATS, {
    "text": "one line per id: id, severities (the default first), summary (source); help "
            "indented below",
    "json": "[{id, severity, overrides, source, summary, help}]"})


def rules_cmd(
    prefix: Annotated[str | None, typer.Argument(help="Only the ids that start with this, e.g. wgmma. or lint.")] = None,
    fmt: RulesFormatOpt = RulesFormat.text,
    plain_: PlainOpt = False,
    no_color: NoColorOpt = False,
) -> None:
    """Every rule id descgen can report: its severity (the default first, then the others some
    check reports it with), its source (PTX ISA section or table, or the descgen tool) and what
    it checks.  The text output is plain text (--plain and --no-color change nothing)."""
    from descriptors.errors import ParameterError, shorten
    from descriptors.rules.diagnostics import DIAGNOSTICS

    chosen = [DIAGNOSTICS[i] for i in sorted(DIAGNOSTICS) if i.startswith(prefix or "")]
    if not chosen:
        starts = sorted({i.split(".", 1)[0] + "." for i in DIAGNOSTICS})
        raise ParameterError(f"no rule id starts with {shorten(prefix)}; the ids start with "
                             + ", ".join(starts))
    if fmt is RulesFormat.json:
        typer.echo(json.dumps([d.to_dict() for d in chosen], indent=2))
        return
    wid = max(len(d.id) for d in chosen)
    wsev = max(len(",".join(d.severities)) for d in chosen)
    lines = []
    for d in chosen:
        lines.append(f"{d.id:<{wid}}  {','.join(d.severities):<{wsev}}  {d.summary} "
                     f"({d.source})")
        if d.help:
            lines.append(f"{'':<{wid}}  help: {d.help}")
    typer.echo("\n".join(lines))


def register(app: typer.Typer) -> None:
    """Add this command to ``app``."""
    app.command("rules")(rules_cmd)

"""descgen dump command (registered on the main app by cli.main).

``descgen dump [FILE|-]`` finds the descriptor words in a cuda-gdb register dump, a printf log
or a SASS listing (:mod:`descriptors.dump`), prints a summary table (one row per word: line,
register or name, value, best reading, confidence, verdict) and then the full decode of each
word's best reading (rich, ``--plain`` text, or ``--format json``).  Bad input (a missing file,
an unknown kind) is one line on stderr and exit code 2; a scan that finds nothing exits 0.
"""

from __future__ import annotations

import json
import sys
from enum import Enum
from typing import IO, Annotated, Any

import typer
from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from descriptors import DescgenError
from descriptors.dump import DEFAULT_MIN_CONFIDENCE, DumpFinding, scan_stream
from descriptors.printer import plain, render
from descriptors.validate import ARCHES


class DumpFormat(str, Enum):
    text = "text"
    json = "json"


class DumpAs(str, Enum):
    idesc = "idesc"
    smem = "smem"
    zcm = "zcm"
    tmem = "tmem"


_COLUMNS = ("line", "where", "value", "reading", "confidence", "verdict")


def _row(f: DumpFinding) -> tuple[str, ...]:
    best = f.best
    assert best is not None
    return (str(f.line), f.where, f.hex, best.summary, f"{best.level} {best.confidence:.2f}",
            best.verdict)


def _plain_table(findings: list[DumpFinding]) -> str:
    rows = [_COLUMNS, *(_row(f) for f in findings)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(_COLUMNS))]
    right = {0}
    lines = []
    for r in rows:
        cells = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def _rich_table(findings: list[DumpFinding], title: str) -> Table:
    table = Table(title=title, title_justify="left", show_edge=False, pad_edge=False)
    for name in _COLUMNS:
        table.add_column(name, justify="right" if name == "line" else "left",
                         no_wrap=name in ("value", "where"))
    for f in findings:
        best = f.best
        assert best is not None
        cells = _row(f)
        style = "bold green" if best.valid else "bold red"
        table.add_row(*cells[:5], Text(cells[5], style=style))
    return table


def _heading(f: DumpFinding) -> list[str]:
    best = f.best
    assert best is not None
    lines = [f"line {f.line}  {f.where}  {f.hex}  ({f.source}: {f.text})",
             f"  best reading: {best.summary} -- {best.level} confidence {best.confidence:.2f}",
             f"  why: {best.reason}"]
    if best.evidence:
        lines.append("  evidence: " + "; ".join(best.evidence))
    others = f.candidates[1:]
    if others:
        lines.append("  other readings: " + "; ".join(
            f"{c.summary} ({c.level} {c.confidence:.2f}, {c.verdict})" for c in others))
    return lines


def _console(no_color: bool) -> Console:
    extra: dict[str, Any] = {"color_system": None} if no_color else {}
    console = Console(highlight=False, soft_wrap=False, **extra)
    if not console.is_terminal:
        console = Console(highlight=False, soft_wrap=False, width=160, **extra)
    return console


def _open(file: str | None) -> tuple[IO[bytes], str, bool]:
    """(binary stream, display name, close it afterwards)."""
    if file is None or file == "-":
        stream = getattr(sys.stdin, "buffer", None)
        if stream is None:
            raise DescgenError("stdin cannot be read as bytes")
        if file is None and sys.stdin.isatty():
            raise DescgenError("no input: give a FILE, or - and pipe the dump into stdin")
        return stream, "<stdin>", False
    try:
        return open(file, "rb"), file, True  # noqa: SIM115 - closed by the caller
    except OSError as exc:
        raise DescgenError(f"cannot read {file}: {exc.strerror or exc}") from None


def dump_cmd(
    file: Annotated[str | None, typer.Argument(
        help="Text to scan (register dump, printf log, SASS listing); - or nothing for stdin.",
        show_default=False, metavar="FILE|-")] = None,
    as_: Annotated[DumpAs | None, typer.Option(
        "--as", help="Read every word as this descriptor (and trust it more).")] = None,
    kind: Annotated[str | None, typer.Option(
        "--kind", help="MMA kind of the instruction descriptors: tf32, f16, f8f6f4, i8, "
                       "mxf8f6f4, mxf4, mxf4nvf4.")] = None,
    arch: Annotated[str, typer.Option("--arch", help="Target architecture: " + ", ".join(ARCHES) + ".")] = "sm_100a",
    min_confidence: Annotated[float, typer.Option(
        "--min-confidence", min=0.0, max=1.0,
        help="Report words whose best reading reaches this confidence (words the text names "
             "are always reported).")] = DEFAULT_MIN_CONFIDENCE,
    fmt: Annotated[DumpFormat, typer.Option("--format", "-f", help="text or json.")] = DumpFormat.text,
    plain_: Annotated[bool, typer.Option("--plain", help="Plain-text table and dumps (stable; no colour).")] = False,
    table_only: Annotated[bool, typer.Option("--table-only", help="Only the summary table, no decodes.")] = False,
    no_color: Annotated[bool, typer.Option("--no-color", help="No colour in the terminal.")] = False,
) -> None:
    """Find the descriptors in a register dump, printf log or SASS listing and explain them."""
    options = dict(as_=as_.value if as_ is not None else None, kind=kind, arch=arch,
                   min_confidence=min_confidence)
    stream, name, close = _open(file)
    try:
        found = scan_stream(stream, **options)  # checks the options before reading
        if fmt is DumpFormat.json:
            _json(found, name)
            return
        findings = list(found)
    finally:
        if close:
            stream.close()
    if not findings:
        typer.echo(f"no descriptor words found in {name}")
        return
    title = f"{len(findings)} descriptor word{'s' * (len(findings) != 1)} found in {name}"
    if plain_:
        out = [title, _plain_table(findings)]
        if not table_only:
            for f in findings:
                best = f.best
                assert best is not None
                out += ["", *_heading(f), "", plain(best.decoded, best.findings)]
        typer.echo("\n".join(out))
        return
    console = _console(no_color)
    console.print(_rich_table(findings, title))
    if table_only:
        return
    for f in findings:
        best = f.best
        assert best is not None
        console.print("")
        console.rule(Text(f"line {f.line}  {f.where}  {f.hex}", style="bold"), align="left")
        console.print(Group(*(Text(line) for line in _heading(f)[1:]), Text(""),
                            render(best.decoded, best.findings)))


def _json(found: Any, name: str) -> None:
    """Stream a JSON document: the findings are written as they are found."""
    write = sys.stdout.write
    write('{"input": ' + json.dumps(name) + ', "findings": [')
    first = True
    for f in found:
        write(("\n  " if first else ",\n  ") + json.dumps(f.to_dict()))
        first = False
    write("\n]}\n" if not first else "]}\n")
    sys.stdout.flush()


def register(app: typer.Typer) -> None:
    """Add this module's commands to `app`."""
    app.command("dump")(dump_cmd)

"""descgen lint command (registered on the main app by cli.main).

``descgen lint FILE... [-]`` checks the tcgen05 descriptors in compiled code (PTX modules,
bare PTX lines, SASS listings) against the instruction that uses them
(:mod:`descriptors.lint`) and prints compiler-style diagnostics,
``file:line:col: error: [rule] message``, each followed by its evidence (the instruction, the
operand's value and the line that defined it, the decoded word) -- rich in a terminal, plain
text when piped or with ``--plain``; ``--format json`` gives ``{"findings": [...]}``.  Notes
(run-time values, ...) are shown with ``--verbose`` (always in JSON).  Exit status: 0 no
error, 1 an error, 2 bad usage or an unreadable input (one line on stderr).
"""

from __future__ import annotations

import json
import sys
from typing import IO, Annotated, Any

import typer
from rich.console import Console
from rich.text import Text

from descriptors import DescgenError

from .common import REPORT_FORMATS, format_option
from .inputs import open_input
from descriptors.lint import LintFinding, lint_lines, order
from descriptors.readers import MAX_LINE
from descriptors.validate import ARCHES

#: Bytes read from the start of an input to tell text from binary data.
_SNIFF = 8192


LintFormat, LintFormatOpt = format_option("LintFormat", REPORT_FORMATS, {
    "text": "compiler-style diagnostics with their evidence (--plain: no colour)",
    "json": "{findings}"})


def _lines(stream: IO[bytes], name: str):
    """Decoded lines of a byte stream in constant memory: each line is read at most
    4 * MAX_LINE bytes at a time and the rest of a longer line is dropped.  Refuses binary
    data (NUL bytes at the start)."""
    first = True
    limit = MAX_LINE * 4
    while True:
        raw = stream.readline(limit)
        if not raw:
            return
        if first:
            first = False
            if b"\x00" in raw[:_SNIFF]:
                raise DescgenError(f"{name}: binary data, not PTX or SASS text (for a cubin, "
                                   "lint the output of cuobjdump -sass)")
        if not raw.endswith(b"\n"):
            while True:  # drop the rest of an over-long line
                more = stream.readline(limit)
                if not more or more.endswith(b"\n"):
                    break
        yield raw.decode("utf-8", "replace").rstrip("\r\n")[:MAX_LINE]


_STYLE = {"error": "bold red", "warning": "bold magenta", "note": "bold cyan"}


def _evidence(f: LintFinding) -> list[str]:
    out = [f"    {f.instruction}"] if f.instruction else []
    return out + [f"    {e}" for e in f.evidence]


def lint_cmd(
    files: Annotated[list[str], typer.Argument(
        help="PTX (.ptx, bare instruction lines) or SASS listings (cuobjdump -sass, nvdisasm); "
             "- for stdin.", show_default=False, metavar="FILE...|-")],
    arch: Annotated[str | None, typer.Option(
        "--arch", help="Target architecture (" + ", ".join(ARCHES) + "); default: the PTX "
                       ".target / the listing's sm_, else sm_100a.")] = None,
    fmt: LintFormatOpt = LintFormat.text,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Show notes too.")] = False,
    plain_: Annotated[bool, typer.Option("--plain", help="Plain text, no colour.")] = False,
    no_color: Annotated[bool, typer.Option("--no-color", help="No colour (NO_COLOR is honoured "
                                           "too; colour is only ever used on a terminal).")] = False,
) -> None:
    """Check the descriptors in compiled tcgen05 code (PTX, SASS) against their instructions."""
    if arch is not None and arch not in ARCHES:
        raise DescgenError(f"unknown architecture {arch!r}; known: " + ", ".join(ARCHES))
    findings: list[LintFinding] = []
    for file in files:
        stream, name, close = open_input(file)
        try:
            findings += order(list(lint_lines(_lines(stream, name), file=name, arch=arch)))
        finally:
            if close:
                stream.close()
    errors = sum(f.severity == "error" for f in findings)
    if fmt is LintFormat.json:
        sys.stdout.write(json.dumps({"findings": [f.to_dict() for f in findings]}, indent=2) + "\n")
    else:
        _text(findings, verbose, plain_, no_color)
    raise typer.Exit(1 if errors else 0)


def _text(findings: list[LintFinding], verbose: bool, plain_: bool, no_color: bool = False) -> None:
    shown = [f for f in findings if verbose or f.severity != "note"]
    counts = {s: sum(f.severity == s for f in findings) for s in ("error", "warning", "note")}
    summary = ", ".join(f"{n} {s}{'s' * (n != 1)}" for s, n in counts.items())
    if counts["note"] and not verbose:
        summary += " (--verbose shows the notes)"
    console = Console(highlight=False, soft_wrap=True,
                      **({"color_system": None} if no_color else {}))
    if plain_ or not console.is_terminal:
        out = []
        for f in shown:
            out.append(f.header())
            out += _evidence(f)
        out.append(summary)
        sys.stdout.write("\n".join(out) + "\n")
        return
    for f in shown:
        head = Text(f"{f.file}:{f.line}:{f.col}: ", style="bold")
        head.append(f"{f.severity}:", style=_STYLE.get(f.severity, ""))
        head.append(f" [{f.rule}] ", style="dim")
        head.append(f.message, style="bold")
        console.print(head)
        for line in _evidence(f):
            console.print(Text(line, style="dim" if line.startswith("    ") and line.strip()
                               != f.instruction else ""))
    console.print(summary)


def register(app: typer.Typer) -> None:
    """Add this module's commands to `app`."""
    app.command("lint")(lint_cmd)


__all__: list[Any] = ["register", "lint_cmd"]

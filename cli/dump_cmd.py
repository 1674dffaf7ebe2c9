"""descgen dump command (registered on the main app by cli.main).

``descgen dump [FILE...|-]`` finds the descriptor words in a cuda-gdb register dump, a printf
log, a SASS listing or a CUDA binary (listed by ``cuobjdump -sass``; any input may be gzipped:
:mod:`descriptors.readers.binary`) with :mod:`descriptors.tools.dump` and prints as it reads: one
table row per word (line, register or name, value, confidence, verdict, best reading), the full
decode of each distinct word at its first occurrence only, and at the end where each distinct
word occurs (rich, ``--plain`` text, or ``--format json``: ``{input, findings}``, and for
several files ``{"inputs": [{input, findings}, ...]}``; ``--unique``: one row per distinct
word, its count and first line), drawn by
:mod:`descriptors.render.dump`.  Several files are reported one after the other, then the
total.  Memory stays flat (the index of the words is bounded).  A file of
:data:`PROGRESS_MIN_BYTES` or more shows a progress bar on stderr while stderr is a terminal
(never for standard input, a pipe, or a redirected stderr).  Bad usage (an unknown kind) is
one line on stderr and exit code 2; so is a bad input (a missing file, a binary cuobjdump
refuses or finds no SASS in), and the other files are still read; a scan that finds nothing
exits 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from enum import Enum
from typing import IO, TYPE_CHECKING, Annotated, Any

import typer

from .common import REPORT_FORMATS, arch_option, format_option, kind_option
from .inputs import opened, report
from descriptors.tools.dump import DEFAULT_MIN_CONFIDENCE, FoundWord, scan_lines, scan_stream
from descriptors.errors import InputError
from descriptors.render import dump as view
from descriptors.rules.validate import ARCHES

if TYPE_CHECKING:
    from contextlib import AbstractContextManager


DumpFormat, DumpFormatOpt = format_option("DumpFormat", REPORT_FORMATS, {
    "text": "a streamed table of the words, each decoded once (--plain: plain text)",
    "json": "{input, findings}, streamed"})


class DumpAs(str, Enum):
    idesc = "idesc"
    smem = "smem"
    zcm = "zcm"
    tmem = "tmem"
    wgmma = "wgmma"


def dump_cmd(
    files: Annotated[list[str] | None, typer.Argument(
        help="Text to scan (register dump, printf log, SASS listing) or a CUDA binary (cubin, "
             "object, executable, library, fatbin: read through cuobjdump -sass), each maybe "
             "gzipped; - or nothing for stdin.",
        show_default=False, metavar="FILE...|-")] = None,
    as_: Annotated[DumpAs | None, typer.Option(
        "--as", help="Read every word as this descriptor (and trust it more); wgmma: sm_90a's "
                     "matrix descriptor (PTX ISA 9.7.15.5.1).")] = None,
    kind: Annotated[str | None, typer.Option(
        "--kind", callback=kind_option, help="MMA kind of the instruction descriptors: tf32, f16, f8f6f4, i8, "
                       "mxf8f6f4, mxf4, mxf4nvf4.")] = None,
    arch: Annotated[str | None, typer.Option(
        "--arch", callback=arch_option, help="Target architecture: " + ", ".join(ARCHES) + " (sm_90a: the words are "
                       "wgmma matrix descriptors; an smem name or --as smem reads as wgmma).",
        show_default="the input's target, else sm_100a")] = None,
    min_confidence: Annotated[float, typer.Option(
        "--min-confidence", min=0.0, max=1.0,
        help="Report words whose best reading reaches this confidence (words the text names "
             "are always reported).")] = DEFAULT_MIN_CONFIDENCE,
    fmt: DumpFormatOpt = DumpFormat.text,
    plain_: Annotated[bool, typer.Option("--plain", help="Plain-text table and dumps (stable; no colour).")] = False,
    table_only: Annotated[bool, typer.Option("--table-only", help="Only the summary table, no decodes.")] = False,
    unique: Annotated[bool, typer.Option("--unique", "-u", help="One row per distinct word: how "
                      "often it occurs, its first line, verdict and reading (text only; no "
                      "decodes).")] = False,
    no_color: Annotated[bool, typer.Option("--no-color", help="No colour in the terminal.")] = False,
) -> None:
    """Find the descriptors in a register dump, printf log, SASS listing or CUDA binary and
    explain them.  Code for sm_90a (its 'code for' or .target line) is read as Hopper's: its
    words are wgmma matrix descriptors, named by the HGMMA/IGMMA/QGMMA/BGMMA or
    wgmma.mma_async they feed.

    Text output streams: one table row per word as it is found; after the first occurrence of
    each distinct word (and reading) its full decode; later occurrences point back to it; at
    the end, where each distinct word occurs and the counts.  Several files: one report each,
    in order, then the total; a bad one is one line on stderr (exit 2) and the others are still
    read.  A file of 4 MiB or more shows a progress bar on stderr while stderr is a terminal."""
    options = dict(as_=as_.value if as_ is not None else None, kind=kind, arch=arch,
                   min_confidence=min_confidence)
    scan_lines((), **options)  # checks the options before any input is opened
    if unique and fmt is DumpFormat.json:
        from descriptors.errors import ParameterError
        raise ParameterError("--unique is a text view (the JSON findings carry every word: "
                             "count them by \"word\")")
    names: list[str | None] = list(files) if files else [None]
    out = view.Report(as_json=fmt is DumpFormat.json, many=len(names) > 1, plain_=plain_,
                      table_only=table_only, no_color=no_color, unique=unique)
    bad = 0
    for file in names:
        try:
            with opened(file, what="dump") as inp:
                late: list[InputError] = []
                with _progress(inp.stream, inp.name, inp.regular, no_color=no_color) as reading:
                    out.add(_until_bad(scan_stream(reading, inp.name, **options), late), inp.name)
                if late:  # cuobjdump or gzip failed after part of the input was read
                    raise late[0]
        except InputError as exc:
            bad += 1
            report(exc)
    out.close(len(names), bad)
    if bad:
        raise typer.Exit(2)


def _until_bad(found: Iterable[FoundWord], late: list[InputError]) -> Iterator[FoundWord]:
    """``found`` until the input turns out bad part way (the error kept in ``late``, raised
    once the report of what was read is complete: a JSON document stays whole)."""
    try:
        yield from found
    except InputError as exc:
        late.append(exc)


#: Files from this size on get a progress bar (on stderr, when it is a terminal).
PROGRESS_MIN_BYTES = 4 * 1024 * 1024


def _progress(stream: IO[bytes], name: str, is_file: bool, *, no_color: bool = False,
              console: Any = None) -> AbstractContextManager[IO[bytes]]:
    """The stream to scan: ``stream``, or for a file of :data:`PROGRESS_MIN_BYTES` or more
    while stderr is a terminal, ``stream`` read through a progress bar on stderr
    (:func:`descriptors.render.console.progress`; ``console``: the rich console it is drawn
    on)."""
    from descriptors.render.console import progress

    return progress(stream, name, is_file, min_bytes=PROGRESS_MIN_BYTES, no_color=no_color,
                    console=console)


#: ``descgen dump --format json`` of one input (:func:`descriptors.render.dump.write_json`).
_json = view.write_json


def register(app: typer.Typer) -> None:
    """Add this module's commands to `app`."""
    app.command("dump")(dump_cmd)

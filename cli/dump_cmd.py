"""descgen dump command (registered on the main app by cli.main).

``descgen dump [FILE...|-]`` finds the descriptor words in a cuda-gdb register dump, a printf
log, a SASS listing or a CUDA binary (listed by ``cuobjdump -sass``; any input may be gzipped:
:mod:`descriptors.readers.binary`) with :mod:`descriptors.tools.dump` and prints as it reads: one
table row per word (line, register or name, value, confidence, verdict, best reading), the full
decode of each distinct word at its first occurrence only, and at the end where each distinct
word occurs (rich, ``--plain`` text, or ``--format json``: ``{input, findings}``, and for
several files ``{"inputs": [{input, findings}, ...]}``).  Several files are reported one after
the other, then the total.  Memory stays flat: the index remembers at most :data:`KEEP_WORDS`
distinct words and :data:`KEEP_LOCATIONS` places of each.  A file of
:data:`PROGRESS_MIN_BYTES` or more shows a progress bar on stderr while stderr is a terminal
(never for standard input, a pipe, or a redirected stderr).  Bad usage (an unknown kind) is
one line on stderr and exit code 2; so is a bad input (a missing file, a binary cuobjdump
refuses or finds no SASS in), and the other files are still read; a scan that finds nothing
exits 0.
"""

from __future__ import annotations

import json
import json.encoder
import os
import stat
import string
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from enum import Enum
from typing import IO, Annotated, Any

import typer
from rich.console import Console, Group
from rich.text import Text

from .common import REPORT_FORMATS, format_option
from .common import rich_console as _common_console
from .inputs import opened, report
from descriptors.tools.dump import DEFAULT_MIN_CONFIDENCE, DumpFinding, scan_lines, scan_stream
from descriptors.errors import InputError
from descriptors.tools.printer import plain, render, to_json
from descriptors.rules.validate import ARCHES


DumpFormat, DumpFormatOpt = format_option("DumpFormat", REPORT_FORMATS, {
    "text": "a streamed table of the words, each decoded once (--plain: plain text)",
    "json": "{input, findings}, streamed"})


class DumpAs(str, Enum):
    idesc = "idesc"
    smem = "smem"
    zcm = "zcm"
    tmem = "tmem"
    wgmma = "wgmma"


_COLUMNS = ("line", "where", "value", "confidence", "verdict", "reading")
#: Fixed widths of the streamed table (the reading, last, takes what it needs).
_WIDTHS = (6, 14, 18, 11, 18)

#: Locations remembered per distinct word, and distinct words remembered, for the index at
#: the end: memory stays flat however long the input.  A word forgotten (beyond the limit) and
#: met again is decoded again.
KEEP_LOCATIONS = 8
KEEP_WORDS = 4096


def _cells(f: DumpFinding, reading: str) -> tuple[str, ...]:
    best = f.best
    assert best is not None
    return (str(f.line), f.where, f.hex, f"{best.level} {best.confidence:.2f}", best.verdict,
            reading)


def _line(cells: tuple[str, ...]) -> str:
    parts = [cells[0].rjust(_WIDTHS[0])]
    parts += [c.ljust(w) for c, w in zip(cells[1:5], _WIDTHS[1:])]
    parts.append(cells[5])
    return "  ".join(parts).rstrip()


def _key(f: DumpFinding) -> tuple[Any, ...]:
    """What makes two findings the same decode: the word and its best reading."""
    best = f.best
    assert best is not None
    return (f.size, f.word, best.descriptor, best.kind, best.form, best.word)


class _Seen:
    __slots__ = ("line", "summary", "count", "places")

    def __init__(self, f: DumpFinding) -> None:
        best = f.best
        assert best is not None
        self.line = f.line
        self.summary = f"{f.hex}  {_reading(f)}"
        self.count = 0
        self.places: list[str] = []

    def add(self, f: DumpFinding) -> None:
        self.count += 1
        if len(self.places) < KEEP_LOCATIONS:
            self.places.append(f"{f.line} ({f.where})")

    def index_line(self) -> str:
        more = self.count - len(self.places)
        return (f"{self.summary}: {self.count}x, line " + ", ".join(self.places)
                + (f" and {more} more" if more else ""))


def _heading(f: DumpFinding) -> list[str]:
    best = f.best
    assert best is not None
    tied = f.ambiguous
    lines = [f"line {f.line}  {f.where}  {f.hex}  ({f.source}: {f.text})"]
    if tied:  # readings of equal confidence: none is the best
        lines.append(f"  ambiguous: {' | or '.join(c.summary for c in (best, *tied))} -- "
                     f"{best.level} confidence {best.confidence:.2f} each (--kind chooses)")
    else:
        lines.append(f"  best reading: {best.summary} -- {best.level} confidence "
                     f"{best.confidence:.2f}")
    lines.append(f"  why: {best.reason}")
    if best.evidence:
        lines.append("  evidence: " + "; ".join(best.evidence))
    others = [c for c in f.candidates[1:] if c not in tied]
    if others:
        lines.append("  other readings: " + "; ".join(
            f"{c.summary} ({c.level} {c.confidence:.2f}, {c.verdict})" for c in others))
    return lines


def _console(no_color: bool) -> Console:
    return _common_console(no_color, piped_width=160)


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
        "--kind", help="MMA kind of the instruction descriptors: tf32, f16, f8f6f4, i8, "
                       "mxf8f6f4, mxf4, mxf4nvf4.")] = None,
    arch: Annotated[str | None, typer.Option(
        "--arch", help="Target architecture: " + ", ".join(ARCHES) + " (sm_90a: the words are "
                       "wgmma matrix descriptors; a smem name or --as smem reads as wgmma).",
        show_default="the input's target, else sm_100a")] = None,
    min_confidence: Annotated[float, typer.Option(
        "--min-confidence", min=0.0, max=1.0,
        help="Report words whose best reading reaches this confidence (words the text names "
             "are always reported).")] = DEFAULT_MIN_CONFIDENCE,
    fmt: DumpFormatOpt = DumpFormat.text,
    plain_: Annotated[bool, typer.Option("--plain", help="Plain-text table and dumps (stable; no colour).")] = False,
    table_only: Annotated[bool, typer.Option("--table-only", help="Only the summary table, no decodes.")] = False,
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
    names: list[str | None] = list(files) if files else [None]
    many = len(names) > 1
    bad = total = done = 0
    for file in names:
        try:
            with opened(file, what="dump") as inp:
                late: list[InputError] = []
                with _progress(inp.stream, inp.name, inp.regular, no_color=no_color) as reading:
                    found = _until_bad(scan_stream(reading, inp.name, **options), late)
                    if fmt is DumpFormat.json:
                        if many:
                            sys.stdout.write('{"inputs": [\n' if not done else ",\n")
                        _json(found, inp.name, end="" if many else "\n")
                    else:
                        if done:
                            sys.stdout.write("\n")
                        total += _text(found, inp.name, plain_=plain_, table_only=table_only,
                                       no_color=no_color)
                done += 1
                if late:  # cuobjdump or gzip failed after part of the input was read
                    raise late[0]
        except InputError as exc:
            bad += 1
            report(exc)
    if many and done:
        if fmt is DumpFormat.json:
            sys.stdout.write("\n]}\n")
        else:
            sys.stdout.write(f"{total} descriptor word{'s' * (total != 1)} found in "
                             f"{len(names)} files" + (f" ({bad} not read)" if bad else "") + "\n")
    sys.stdout.flush()
    if bad:
        raise typer.Exit(2)


def _until_bad(found: Iterable[DumpFinding], late: list[InputError]) -> Iterator[DumpFinding]:
    """``found`` until the input turns out bad part way (the error kept in ``late``, raised
    once the report of what was read is complete: a JSON document stays whole)."""
    try:
        yield from found
    except InputError as exc:
        late.append(exc)


#: Files from this size on get a progress bar (on stderr, when it is a terminal).
PROGRESS_MIN_BYTES = 4 * 1024 * 1024


@contextmanager
def _progress(stream: IO[bytes], name: str, is_file: bool, *, no_color: bool = False,
              console: Console | None = None) -> Iterator[IO[bytes]]:
    """The stream to scan: ``stream`` itself, or, for a regular file of at least
    :data:`PROGRESS_MIN_BYTES` while stderr is a terminal, ``stream`` wrapped by a
    ``rich.progress`` bar on stderr (bytes read of the file's size; removed when done).  Never
    for standard input or a pipe (no size to measure against), never when stderr is redirected.
    ``console`` is the console the bar is drawn on (default: stderr)."""
    size = 0
    if is_file:
        try:
            st = os.fstat(stream.fileno())
            size = st.st_size if stat.S_ISREG(st.st_mode) else 0
        except (OSError, ValueError, AttributeError):
            size = 0
    if size < PROGRESS_MIN_BYTES:
        yield stream
        return
    if console is None:
        console = Console(stderr=True, **({"color_system": None} if no_color else {}))
    if not console.is_terminal:
        yield stream
        return
    # imported here: a bar is drawn only on a terminal, and rich.progress takes 15-20 ms
    from rich.progress import (BarColumn, DownloadColumn, Progress, TextColumn,
                               TimeRemainingColumn, TransferSpeedColumn)

    columns = (TextColumn("[progress.description]{task.description}"), BarColumn(),
               DownloadColumn(), TransferSpeedColumn(), TimeRemainingColumn())
    # the report goes through the bar's console only when it shares the terminal
    to_terminal = sys.stdout.isatty()
    with Progress(*columns, console=console, transient=True, redirect_stdout=to_terminal,
                  redirect_stderr=False) as bar:
        yield bar.wrap_file(stream, total=size, description=f"dump {name}")


#: Rows (or JSON findings) gathered before one write to stdout.
_BATCH = 512
#: Readings whose row text / JSON is kept for reuse (a dump repeats the same words).
_KEEP_FORMATTED = 2048


def _readings_key(f: DumpFinding) -> tuple[Any, Any]:
    """(key, the objects the key names by id: first and last checked) of everything that a
    finding's readings give the output: the readings themselves (the scanner's caches hand the
    same tuple out for the same word and evidence)."""
    cands = f.candidates
    return id(cands), (cands,)


def _row_key(f: DumpFinding) -> tuple[Any, Any]:
    """(key, objects the key names by id) of what a finding's table row prints of its
    readings (:func:`_row_parts`): the best reading's decode (summary), rule findings
    (verdict), confidence and index key, and the word -- not the evidence, which in a PTX
    module names the line of the MMA, so that the same word fed to MMAs on many lines has
    one row."""
    best = f.candidates[0]
    decoded, findings = best.decoded, best.findings
    return ((id(decoded), id(findings), best.confidence, best.descriptor, best.kind, best.form,
             best.word, f.word, f.size), (decoded, findings))


class _Formatted:
    """What the output of a finding keeps of its readings: findings with the same ``key``
    (:func:`_readings_key`: the same readings; :func:`_row_key`: the same row) give the same
    text, so it is built once.  Bounded: cleared when :data:`_KEEP_FORMATTED` are held.
    ``again`` says whether the last :meth:`get` found the text already built (the words a
    log repeats)."""

    __slots__ = ("cache", "again", "key")

    def __init__(self, key: Any = _readings_key) -> None:
        self.cache: dict[Any, tuple[Any, Any]] = {}
        self.again = False
        self.key = key

    def get(self, f: DumpFinding, make: Any) -> Any:
        key, held = self.key(f)
        hit = self.cache.get(key)
        self.again = hit is not None and hit[0][0] is held[0] and hit[0][-1] is held[-1]
        if self.again:
            return hit[1]  # type: ignore[index]
        if len(self.cache) >= _KEEP_FORMATTED:
            self.cache.clear()
        value = make(f)
        self.cache[key] = (held, value)  # holding the objects keeps their ids unique
        return value


def _row_parts(f: DumpFinding) -> tuple[tuple[Any, ...], str, str, bool]:
    """(index key, the row from the value column to the reading, the reading, valid) of a
    finding: all fixed by the word and its readings."""
    best = f.best
    assert best is not None
    summary = _reading(f)
    head = "  " + f.hex.ljust(_WIDTHS[2]) + "  " + \
        f"{best.level} {best.confidence:.2f}".ljust(_WIDTHS[3]) + "  " + \
        best.verdict.ljust(_WIDTHS[4]) + "  "
    return _key(f), head, summary, best.valid


def _reading(f: DumpFinding) -> str:
    """The reading a row and the index show: the best one, or, where readings of other kinds
    are as likely (:attr:`DumpFinding.ambiguous`), all of them, said to be ambiguous."""
    best = f.best
    assert best is not None
    tied = f.ambiguous
    if not tied:
        return best.summary
    return "ambiguous: " + best.summary + "".join(
        " | or " + c.summary.removeprefix("idesc ") for c in tied)


def _text(found: Iterable[DumpFinding], name: str, *, plain_: bool, table_only: bool,
          no_color: bool) -> int:
    """The streamed text report (see :func:`dump_cmd`); returns the number of words found."""
    console = None if plain_ else _console(no_color)
    write = sys.stdout.write
    # rows are coloured only in a colour terminal (where a human reads them); elsewhere they
    # are written directly, in batches -- a 10 MB log has hundreds of thousands of rows
    fast_rows = console is None or not console.is_terminal or console.color_system is None
    batch: list[str] = []

    def flush() -> None:
        if batch:
            write("".join(batch))
            batch.clear()

    def out(text: str = "", style: str | None = None) -> None:
        flush()
        if console is None:
            write(text + "\n")
        else:
            console.print(Text(text, style=style or ""), soft_wrap=True)

    formatted = _Formatted(_row_key)
    seen: dict[tuple[Any, ...], _Seen] = {}
    total = 0
    w_line, w_where = _WIDTHS[0], _WIDTHS[1]
    wheres: dict[tuple[str | None, ...], str] = {}  # (register, name, source) -> padded cell
    #: (readings, register, name, source) -> (readings, index entry, row after the line
    #: number, valid): the row of a word met again, once its first occurrence is written;
    #: ``same`` has the same rows by what they print (:func:`_row_key`, register, name,
    #: source), for readings met again as other objects (PTX: evidence naming the line)
    again: dict[tuple[Any, ...], tuple[Any, _Seen, str, bool]] = {}
    same: dict[tuple[Any, ...], tuple[Any, _Seen, str, bool]] = {}
    places = KEEP_LOCATIONS
    for f in found:
        cands = f.candidates
        hit = again.get((id(cands), f.register, f.name, f.source))
        if hit is None or hit[0] is not cands:
            row_key, held = _row_key(f)
            hit = same.get((row_key, f.register, f.name, f.source))
            if hit is not None and (hit[0][0] is not held[0] or hit[0][1] is not held[1]):
                hit = None
        if hit is not None:
            entry, tail = hit[1], hit[2]
            total += 1
            entry.count += 1
            if len(entry.places) < places:
                entry.places.append(f"{f.line} ({f.where})")
            if fast_rows:
                batch.append(str(f.line).rjust(w_line) + "  " + tail)
                if len(batch) >= _BATCH:
                    flush()
            else:
                console.print(Text(str(f.line).rjust(w_line) + "  " + tail[:-1],
                                   style="green" if hit[3] else "red"), soft_wrap=True)
            continue
        if total == 0:
            out(f"descriptor words in {name}, as they are found"
                + ("" if table_only else " (each distinct word is decoded at its first "
                   "occurrence)") + ":", "bold")
            out(_line(_COLUMNS), "bold")
        total += 1
        key, head, summary, valid = formatted.get(f, _row_parts)
        entry = seen.get(key)
        first = entry is None
        if first:
            entry = _Seen(f)
            if len(seen) < KEEP_WORDS:
                seen[key] = entry
        assert entry is not None
        entry.add(f)
        reading = summary if first or table_only else \
            f"{summary} (decoded at line {entry.line})"
        where = wheres.get((f.register, f.name, f.source))
        if where is None:
            if len(wheres) >= _KEEP_FORMATTED:
                wheres.clear()
            where = wheres[f.register, f.name, f.source] = f.where.ljust(w_where)
        row = (str(f.line).rjust(w_line) + "  " + where + head + reading).rstrip()
        if fast_rows:
            batch.append(row + "\n")
            if len(batch) >= _BATCH:
                flush()
        else:
            console.print(Text(row, style="green" if valid else "red"), soft_wrap=True)
        if first and not table_only:
            flush()
            _decode_block(f, console, out)
        if formatted.again and seen.get(key) is entry:
            # met again: the rows of its next occurrences, all but the line number
            if len(again) >= _KEEP_FORMATTED:
                again.clear()
            later = summary if table_only else f"{summary} (decoded at line {entry.line})"
            tail = (where + head + later).rstrip() + "\n"
            again[id(cands), f.register, f.name, f.source] = (cands, entry, tail, valid)
            if len(same) >= _KEEP_FORMATTED:
                same.clear()
            row_key, held = _row_key(f)
            same[row_key, f.register, f.name, f.source] = (held, entry, tail, valid)
    flush()
    if total == 0:
        out(f"no descriptor words found in {name}")
        return 0
    if not table_only:
        out()
        out("where each distinct word occurs:", "bold")
        for entry in seen.values():
            out("  " + entry.index_line())
        if len(seen) >= KEEP_WORDS:
            out(f"  (the first {KEEP_WORDS} distinct words are listed)")
    distinct = f", {len(seen)}{'+' if len(seen) >= KEEP_WORDS else ''} distinct"
    out(f"{total} descriptor word{'s' * (total != 1)} found in {name}{distinct}", "bold")
    if console is None:
        sys.stdout.flush()
    return total


def _decode_block(f: DumpFinding, console: Console | None, out: Any) -> None:
    best = f.best
    assert best is not None
    heading = _heading(f)
    if console is None:
        out("")
        for line in heading:
            out("    " + line)
        out("")
        out("\n".join("    " + line if line else line
                       for line in plain(best.decoded, best.findings).splitlines()))
        out("")
        return
    console.print("")
    console.rule(Text(heading[0], style="bold"), align="left")
    console.print(Group(*(Text(line) for line in heading[1:]), Text(""),
                        render(best.decoded, best.findings)))
    console.print("")


_string = json.encoder.encode_basestring_ascii  # what json.dumps writes for a str


def _json_text(value: str | None) -> str:
    return "null" if value is None else _string(value)


class _CandidateJson:
    """JSON text of readings, exactly ``json.dumps(candidate.to_dict())``: the decode part
    (``to_json(decoded, findings)``, the bulk) is serialised once per decoded word and rule
    findings -- the scanner shares those objects between the readings of a word, whatever
    evidence each occurrence adds -- the text around the evidence once per reading without
    its evidence, and the evidence (in a PTX module it names the line of the MMA) per
    reading.  Bounded: cleared when :data:`_KEEP_FORMATTED` are held."""

    def __init__(self) -> None:
        self.decoded: dict[tuple[int, int], tuple[Any, Any, str]] = {}
        #: (decoded, findings, descriptor, kind, form, confidence, reason) -> (decoded,
        #: findings, the text before the evidence, the text after it)
        self.around: dict[tuple[Any, ...], tuple[Any, Any, str, str]] = {}

    def decode(self, c: Any) -> str:
        key = (id(c.decoded), id(c.findings))
        hit = self.decoded.get(key)
        if hit is None or hit[0] is not c.decoded or hit[1] is not c.findings:
            if len(self.decoded) >= _KEEP_FORMATTED:
                self.decoded.clear()
            hit = (c.decoded, c.findings, json.dumps(to_json(c.decoded, c.findings)))
            self.decoded[key] = hit  # holding the objects keeps their ids unique
        return hit[2]

    def candidate(self, c: Any) -> str:
        hit = self.around_of(c)
        return hit[2] + self.evidence(c) + hit[3]

    @staticmethod
    def evidence(c: Any) -> str:
        """``json.dumps(list(c.evidence))``."""
        evidence = c.evidence
        return "[" + ", ".join([_string(e) for e in evidence]) + "]" if evidence else "[]"

    def around_of(self, c: Any) -> tuple[Any, Any, str, str]:
        """(decoded, findings, the JSON text of reading ``c`` before its evidence, after it)."""
        decoded, findings = c.decoded, c.findings
        key = (id(decoded), id(findings), c.descriptor, c.kind, c.form, c.confidence, c.reason)
        hit = self.around.get(key)
        if hit is None or hit[0] is not decoded or hit[1] is not findings:
            if len(self.around) >= _KEEP_FORMATTED:
                self.around.clear()
            # json.dumps of the dict is '{' + ', '.join('"key": value') + '}'
            before = json.dumps({
                "descriptor": c.descriptor, "kind": c.kind, "form": c.form,
                "word": decoded.hex, "confidence": c.confidence, "level": c.level,
                "valid": c.valid, "reason": c.reason})
            after = json.dumps({"summary": c.summary})
            hit = (decoded, findings, before[:-1] + ', "evidence": ',
                   ", " + after[1:-1] + ', "decoded": ' + self.decode(c) + "}")
            self.around[key] = hit  # holding the objects keeps their ids unique
        return hit

    def __call__(self, f: DumpFinding) -> tuple[str, str]:
        """JSON text of a finding's best reading and of all its readings."""
        texts = [self.candidate(c) for c in f.candidates]
        return (texts[0] if texts else "null"), "[" + ", ".join(texts) + "]"


_ASCII = string.printable


def _ascii_writer() -> tuple[Any, Any]:
    """(write, convert) for a document of ASCII text: standard output's binary buffer and
    ``str.encode`` where writing those bytes is what writing the text would do (an encoding
    that writes ASCII as ASCII, no newline translation) -- the encoding then runs once per
    distinct piece, not per write -- else standard output itself and ``str``."""
    out = sys.stdout
    buffer = getattr(out, "buffer", None)
    encoding = getattr(out, "encoding", None)
    if buffer is not None and encoding and os.linesep == "\n":
        try:
            same = _ASCII.encode(encoding) == _ASCII.encode("ascii")
        except (LookupError, UnicodeError):
            same = False
        if same:
            out.flush()
            return buffer.write, lambda text: text.encode("ascii")
    return out.write, str


def _json(found: Any, name: str, end: str = "\n") -> None:
    """Stream a JSON document: the findings are written as they are found, each exactly
    ``json.dumps(finding.to_dict())``; a finding's text but its line number and its readings'
    evidence is built once per word, readings and source, as pieces around the evidence
    (readings of a PTX word differ only in the MMA line their evidence names), the readings'
    decodes once per word (:class:`_CandidateJson`), and the whole text after the line number
    once for a readings object met again.  The document is ASCII (``json.dumps`` escapes the
    rest)."""
    write, convert = _ascii_writer()
    write(convert('{"input": ' + json.dumps(name) + ', "findings": ['))
    formatted = _Formatted()
    readings = _CandidateJson()
    text = _json_text
    batch: list[Any] = []
    first = row = convert('\n  {"line": %d, ')
    later = convert(',\n  {"line": %d, ')
    nothing = convert("")
    #: (readings, source, register, name, text, word, size) -> (readings, the finding's JSON
    #: after its line number): a log repeats the same words, written the same way
    tails: dict[tuple[Any, ...], tuple[Any, Any]] = {}
    #: (the readings' texts around their evidence (by id), source, register, name, text, word,
    #: size) -> (those texts, the finding's JSON after its line number but the readings'
    #: evidence, in pieces): the same word with other evidence (a PTX MMA's line)
    templates: dict[tuple[Any, ...], tuple[Any, tuple[Any, ...]]] = {}
    around, evidence = readings.around_of, readings.evidence
    empty = convert("[]")
    rows = 0
    recent: dict[int, Any] = {}  # readings met, by id
    for f in found:
        c = f.candidates
        key = (id(c), f.source, f.register, f.name, f.text, f.word, f.size)
        hit = tails.get(key)
        if hit is not None and hit[0] is c:
            batch.append(row % f.line + hit[1])
        elif not c:
            best, cands = formatted.get(f, readings)
            batch.append(row % f.line + convert(
                f'"source": {text(f.source)}, "register": {text(f.register)}, "name": '
                f'{text(f.name)}, "text": {text(f.text)}, "word": {text(f.hex)}, "size": '
                f'{f.size}, "best": {best}, "candidates": {cands}}}'))
        else:
            texts = tuple([around(x) for x in c])
            tkey = (tuple([id(t) for t in texts]), f.source, f.register, f.name, f.text, f.word,
                    f.size)
            template = templates.get(tkey)
            met = template is not None and template[0][0] is texts[0]
            if not met:
                if len(templates) >= _KEEP_FORMATTED:
                    templates.clear()
                # json.dumps(f.to_dict()) after the line number: the best reading, then all
                # readings, each its text before the evidence, the evidence, the text after
                pieces = [f'"source": {text(f.source)}, "register": {text(f.register)}, '
                          f'"name": {text(f.name)}, "text": {text(f.text)}, "word": '
                          f'{text(f.hex)}, "size": {f.size}, "best": ' + texts[0][2],
                          texts[0][3] + ', "candidates": [' + texts[0][2]]
                for before, after in zip(texts, texts[1:]):
                    pieces.append(before[3] + ", " + after[2])
                pieces.append(texts[-1][3] + "]}")
                template = templates[tkey] = (texts, tuple([convert(p) for p in pieces]))
            parts = template[1]
            evs = [convert(evidence(x)) if x.evidence else empty for x in c]
            # the best reading's evidence, then every reading's
            pieces = [parts[0], evs[0]]
            for part, ev in zip(parts[1:], evs):
                pieces.append(part)
                pieces.append(ev)
            pieces.append(parts[-1])
            if met:
                if recent.get(id(c)) is c:  # the same readings met again: kept as one text
                    if len(tails) >= _KEEP_FORMATTED:
                        tails.clear()
                    tails[key] = (c, nothing.join(pieces))
                else:  # (PTX: readings whose evidence names the line are met once)
                    if len(recent) >= _KEEP_FORMATTED:
                        recent.clear()
                    recent[id(c)] = c  # holding c keeps its id unique
            batch.append(row % f.line)
            batch += pieces
        row = later
        rows += 1
        if rows >= _BATCH:
            write(nothing.join(batch))
            batch.clear()
            rows = 0
    write(nothing.join(batch))
    write(convert(("\n]}" if row is not first else "]}") + end))
    sys.stdout.flush()


def register(app: typer.Typer) -> None:
    """Add this module's commands to `app`."""
    app.command("dump")(dump_cmd)

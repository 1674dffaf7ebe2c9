"""``descgen dump``'s output: the streamed report of the descriptor words found in an input
(:mod:`descriptors.tools.dump`), as text or as one JSON document.

Text (:func:`write_text`): one table row per word as it is found, the full decode of each
distinct word at its first occurrence (later occurrences point back to it), and at the end
where each distinct word occurs and the counts -- rich in a colour terminal, else plain text
written in batches.  Memory stays flat: the index remembers at most :data:`KEEP_WORDS`
distinct words and :data:`KEEP_LOCATIONS` places of each.

JSON (:func:`write_json`): ``{"input": ..., "findings": [...]}``, each finding on its own line
and exactly ``json.dumps(finding.to_dict())`` -- made by msgspec from the document types
:class:`FindingDoc` and :class:`ReadingDoc`, streamed as the findings arrive.  (In a Python
without msgspec, where :mod:`descriptors.structs` makes the document types dataclasses,
``json.dumps`` writes the same documents.)

Distinct words (:func:`write_unique`, ``--unique``): one row per distinct word with its count
and first line, once the input is read.

:class:`Report` puts the reports of several inputs one after the other.
"""

from __future__ import annotations

import json
import os
import re
import string
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..structs import FAST, Struct
from ..tools.dump import FoundWord
from .printer import plain, render

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["Report", "write_text", "write_unique", "write_json", "FindingDoc", "ReadingDoc", "json_text",
           "KEEP_WORDS", "KEEP_LOCATIONS"]


_COLUMNS = ("line", "where", "value", "confidence", "verdict", "reading")


#: Fixed widths of the streamed table (the reading, last, takes what it needs).
_WIDTHS = (6, 14, 18, 11, 18)


#: Locations remembered per distinct word, and distinct words remembered, for the index at
#: the end: memory stays flat however long the input.  A word forgotten (beyond the limit) and
#: met again is decoded again.
KEEP_LOCATIONS = 8
KEEP_WORDS = 4096


def _cells(f: FoundWord, reading: str) -> tuple[str, ...]:
    best = f.best
    assert best is not None
    return (str(f.line), f.where, f.hex, f"{best.level} {best.confidence:.2f}", best.verdict,
            reading)


def _line(cells: tuple[str, ...]) -> str:
    parts = [cells[0].rjust(_WIDTHS[0])]
    parts += [c.ljust(w) for c, w in zip(cells[1:5], _WIDTHS[1:])]
    parts.append(cells[5])
    return "  ".join(parts).rstrip()


def _key(f: FoundWord) -> tuple[Any, ...]:
    """What makes two findings the same decode: the word and its best reading."""
    best = f.best
    assert best is not None
    return (f.size, f.word, best.descriptor, best.kind, best.form, best.word)


class _Seen:
    __slots__ = ("line", "summary", "count", "places", "reading")

    def __init__(self, f: FoundWord) -> None:
        best = f.best
        assert best is not None
        self.line = f.line
        self.summary = f"{f.hex}  {_reading(f)}"
        self.count = 0
        self.places: list[str] = []

    def add(self, f: FoundWord) -> None:
        self.count += 1
        if len(self.places) < KEEP_LOCATIONS:
            self.places.append(f"{f.line} ({f.where})")

    def index_line(self) -> str:
        more = self.count - len(self.places)
        return (f"{self.summary}: {self.count}x, line " + ", ".join(self.places)
                + (f" and {more} more" if more else ""))


def _heading(f: FoundWord) -> list[str]:
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


#: Rows (or JSON findings) gathered before one write to stdout.
_BATCH = 512


#: Readings whose row text / JSON is kept for reuse (a dump repeats the same words).
_KEEP_FORMATTED = 2048


def _row_key(f: FoundWord) -> tuple[Any, Any]:
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
    (:func:`_row_key`: the same row) give the same text, so it is built once.  Bounded:
    cleared when :data:`_KEEP_FORMATTED` are held.  ``again`` says whether the last :meth:`get` found the text already built (the words a
    log repeats)."""

    __slots__ = ("cache", "again", "key")

    def __init__(self, key: Any) -> None:
        self.cache: dict[Any, tuple[Any, Any]] = {}
        self.again = False
        self.key = key

    def get(self, f: FoundWord, make: Any) -> Any:
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


def _row_parts(f: FoundWord) -> tuple[tuple[Any, ...], str, str, bool]:
    """(index key, the row from the value column to the reading, the reading, valid) of a
    finding: all fixed by the word and its readings."""
    best = f.best
    assert best is not None
    summary = _reading(f)
    head = "  " + f.hex.ljust(_WIDTHS[2]) + "  " + \
        f"{best.level} {best.confidence:.2f}".ljust(_WIDTHS[3]) + "  " + \
        best.verdict.ljust(_WIDTHS[4]) + "  "
    return _key(f), head, summary, best.valid


def _reading(f: FoundWord) -> str:
    """The reading a row and the index show: the best one, or, where readings of other kinds
    are as likely (:attr:`FoundWord.ambiguous`), all of them, said to be ambiguous."""
    best = f.best
    assert best is not None
    tied = f.ambiguous
    if not tied:
        return best.summary
    return "ambiguous: " + best.summary + "".join(
        " | or " + c.summary.removeprefix("idesc ") for c in tied)


def write_text(found: Iterable[FoundWord], name: str, *, plain_: bool, table_only: bool,
               no_color: bool) -> int:
    """The streamed text report of the findings of input ``name`` on standard output (see the
    module's description): plain text with ``plain_``, else rich (colour in a terminal unless
    ``no_color``); only the table with ``table_only``.  Returns the number of words found.

    (Long: the streaming loop keeps its row caches and the rich or plain choice in locals;
    every finding passes through it.)"""
    console = None if plain_ else _console(no_color)
    if console is not None:
        from rich.text import Text
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
    return _total(out, len(seen), total, name, console)


def _total(out: Any, distinct: int, total: int, name: str, console: Any) -> int:
    """The last line of the text output (how many words, how many distinct), flushed."""
    more = "+" if distinct >= KEEP_WORDS else ""
    out(f"{total} descriptor word{'s' * (total != 1)} found in {name}, {distinct}{more} distinct",
        "bold")
    if console is None:
        sys.stdout.flush()
    return total


#: Columns of ``dump --unique``: one row per distinct word.
_UNIQUE_COLUMNS = ("count", "first line", "value", "confidence", "verdict", "reading")


def write_unique(found: Iterable[FoundWord], name: str, *, plain_: bool = False,
                 no_color: bool = False) -> int:
    """``descgen dump --unique``: once the input is read, one row per distinct word (as the
    index at the end of :func:`write_text` counts them: the word and its best reading) with
    how often it occurs, the line of its first occurrence (and its register or name), its
    confidence, verdict and reading; then the counts.  Rows come in the order the words were
    first met; at most :data:`KEEP_WORDS` distinct words are listed.  Returns the number of
    words found."""
    console = None if plain_ else _console(no_color)
    seen: dict[tuple[Any, ...], tuple[_Seen, str, bool]] = {}
    total = 0
    for f in found:
        total += 1
        key = _key(f)
        hit = seen.get(key)
        if hit is None:
            if len(seen) >= KEEP_WORDS:
                continue
            _key_, head, _summary, valid = _row_parts(f)
            hit = seen[key] = (_Seen(f), head, valid)
            hit[0].places.append(f"{f.line} ({f.where})")
            hit[0].reading = _summary
        hit[0].count += 1

    def out(text: str, style: str | None = None) -> None:
        if console is None:
            sys.stdout.write(text + "\n")
        else:
            from rich.text import Text
            console.print(Text(text, style=style or ""), soft_wrap=True)

    if not total:
        out(f"no descriptor words found in {name}")
        return 0
    out(f"distinct descriptor words in {name}, in the order first found:", "bold")
    first_width = max(len(_UNIQUE_COLUMNS[1]), *(len(e.places[0]) for e, _h, _v in seen.values()))
    head_cells = [c.ljust(w) for c, w in zip(_UNIQUE_COLUMNS[2:5], _WIDTHS[2:5])]
    out("  ".join([_UNIQUE_COLUMNS[0].rjust(_WIDTHS[0]), _UNIQUE_COLUMNS[1].ljust(first_width),
                   *head_cells, _UNIQUE_COLUMNS[5]]), "bold")
    for entry, head, valid in seen.values():
        row = (f"{entry.count}x".rjust(_WIDTHS[0]) + "  " + entry.places[0].ljust(first_width)
               + head + entry.reading).rstrip()
        out(row, "green" if valid else "red")
    if len(seen) >= KEEP_WORDS:
        out(f"  (the first {KEEP_WORDS} distinct words are listed)")
    return _total(out, len(seen), total, name, console)


def _console(no_color: bool) -> Any:
    from .console import console

    return console(no_color, piped_width=160)


def _decode_block(f: FoundWord, console: Console | None, out: Any) -> None:
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
    from rich.console import Group
    from rich.text import Text

    console.print("")
    console.rule(Text(heading[0], style="bold"), align="left")
    console.print(Group(*(Text(line) for line in heading[1:]), Text(""),
                        render(best.decoded, best.findings)))
    console.print("")


# ---------------------------------------------------------------- JSON

class ReadingDoc(Struct):
    """One reading of a found word as JSON gives it: the keys, in order, of
    :meth:`descriptors.tools.dump.Candidate.to_dict`."""

    descriptor: str
    kind: str | None
    form: str
    word: str
    confidence: float
    level: str
    valid: bool
    reason: str
    evidence: Any
    summary: str
    decoded: Any


class FindingDoc(Struct):
    """A found word as JSON gives it: the keys, in order, of
    :meth:`descriptors.tools.dump.FoundWord.to_dict`."""

    line: Any
    source: str
    register: str | None
    name: str | None
    text: str
    word: str
    size: int
    best: ReadingDoc | None
    candidates: list[ReadingDoc]


class InputDoc(Struct):
    """The report of one input: its name and its findings."""

    input: str
    findings: Any


if FAST:
    import msgspec

    _encode = msgspec.json.Encoder().encode
    _format = msgspec.json.format
_NOT_ASCII = re.compile("[^\x00-\x7e]")


def _escape(m: re.Match[str]) -> str:
    """A character as ``json.dumps`` escapes it (``\\uXXXX``, a surrogate pair above U+FFFF)."""
    c = ord(m.group())
    if c > 0xFFFF:
        c -= 0x10000
        return "\\u%04x\\u%04x" % (0xD800 | c >> 10, 0xDC00 | c & 0x3FF)
    return "\\u%04x" % c


def _ascii(text: bytes) -> bytes:
    """msgspec's UTF-8 JSON ``text`` with every character outside printable ASCII escaped, as
    ``json.dumps`` writes it (``ensure_ascii``; DEL included).  Outside strings the text is
    ASCII, so every such character is inside one."""
    if text.isascii() and b"\x7f" not in text:
        return text
    return _NOT_ASCII.sub(_escape, text.decode()).encode()


def json_text(value: Any) -> bytes:
    """``json.dumps(value)``, as ASCII bytes, made by msgspec: the compact encoding
    (:class:`msgspec.json.Encoder`) laid out with ``", "`` and ``": "`` between items
    (:func:`msgspec.json.format` with indent 0) and escaped to ASCII.  The same text for the
    values a dump holds -- strings, integers of up to 64 bits, booleans, None, lists, dicts,
    the document types above, and floats whose ``repr`` has no exponent (a confidence, 0.01 to
    0.99).  A string that is no valid Unicode, which msgspec refuses (a lone surrogate: a file
    name whose bytes are not UTF-8), is escaped by ``json.dumps`` itself."""
    if not FAST:
        return json.dumps(_builtins(value)).encode("ascii")
    try:
        text = _encode(value)
    except UnicodeEncodeError:
        return json.dumps(_builtins(value)).encode("ascii")
    return _ascii(_format(text, indent=0))


def _builtins(value: Any) -> Any:
    """``value`` with its document types turned into dicts (their keys in order), for
    ``json.dumps``."""
    if FAST:
        return msgspec.to_builtins(value)
    import dataclasses

    return dataclasses.asdict(value) if dataclasses.is_dataclass(value) else value


def _strings(items: tuple[str, ...]) -> bytes:
    """:func:`json_text` of a list of strings (a reading's evidence): the layout pass only
    where there is a separator to lay out."""
    if not items:
        return b"[]"
    try:
        text = _encode(items)
    except UnicodeEncodeError:
        return json_text(list(items))
    return _ascii(_format(text, indent=0) if len(items) > 1 else text)


def _template(doc: FindingDoc) -> list[bytes] | None:
    """The text of ``doc``, which holds :data:`_HOLE` where values are left open, cut at the
    holes; None where msgspec cannot encode it (:func:`json_text`), or is not there."""
    if not FAST:
        return None
    try:
        text = _encode(doc)
    except UnicodeEncodeError:
        return None
    return _ascii(_format(text, indent=0)).split(_HOLE_TEXT)


#: Stands for a value left open in a template (:class:`_Findings`): a JSON string findings do
#: not hold; one that does (its text counted each time a template is made) is written without.
_HOLE_TEXT = b'"\\u0000descgen-hole"'
_HOLE = msgspec.Raw(_HOLE_TEXT) if FAST else None


class _Findings:
    """The JSON text of findings, each exactly :func:`json_text` of its :class:`FindingDoc`.

    A log repeats the same words at the same places (register, name, text), and a PTX
    module's readings of a word differ only in their evidence, which names the line of the
    MMA; so the text of a finding is made from a *template*: the document of the first finding
    at that place encoded once, with the line number and each reading's evidence left open,
    then filled in for each finding.  A template is kept per place (source, register, name,
    text, word, size) and used while the readings but their evidence are equal to its own; the
    filled text is kept too, for the next finding there with equal readings.  Every key is
    a value (compared by ``==``); at most :data:`_KEEP_FORMATTED` places are kept."""

    __slots__ = ("places", "decodes")

    def __init__(self) -> None:
        #: place -> (the readings' values but evidence, the template's pieces, the readings
        #: last filled in, the text after the line number)
        self.places: dict[tuple[Any, ...], tuple[list[Any], list[bytes], Any, list[bytes]]] = {}
        #: (decoded, findings) -> to_json(decoded, findings): the decode of a reading
        self.decodes: dict[tuple[Any, Any], dict[str, Any]] = {}

    def _decoded(self, c: Any) -> dict[str, Any]:
        key = (c.decoded, c.findings)
        doc = self.decodes.get(key)
        if doc is None:
            from ..tools.printer import to_json
            if len(self.decodes) >= _KEEP_FORMATTED:
                self.decodes.clear()
            doc = self.decodes[key] = to_json(c.decoded, c.findings)
        return doc

    def document(self, f: FoundWord, line: Any, evidence: Any) -> FindingDoc:
        """The document of ``f`` with ``line`` as its line and ``evidence(reading)`` as each
        reading's evidence."""
        readings = [ReadingDoc(c.descriptor, c.kind, c.form, c.decoded.hex, c.confidence,
                               c.level, c.valid, c.reason, evidence(c), c.summary,
                               self._decoded(c)) for c in f.candidates]
        return FindingDoc(line, f.source, f.register, f.name, f.text, f.hex, f.size,
                          readings[0] if readings else None, readings)

    def add(self, f: FoundWord, out: list[bytes]) -> None:
        """Append the JSON text of ``f`` to ``out`` (in pieces)."""
        cands = f.candidates
        place = (f.source, f.register, f.name, f.text, f.word, f.size)
        entry = self.places.get(place)
        if entry is not None and entry[2] == cands:  # the same readings as last time
            out.append(entry[1][0])
            out.append(b"%d" % f.line)
            out += entry[3]
            return
        shape = [(c.descriptor, c.kind, c.form, c.confidence, c.reason, c.decoded, c.findings)
                 for c in cands]
        if entry is not None and entry[0] == shape:
            pieces = entry[1]
        else:
            # left open: the line, then the evidence of the best reading and of every reading
            pieces = _template(self.document(f, _HOLE, lambda c: _HOLE))
            if pieces is None or len(pieces) != 2 + len(cands) + (1 if cands else 0):
                # (the finding holds a hole's text, or a string msgspec refuses)
                self.places.pop(place, None)
                out.append(json_text(self.document(f, f.line, lambda c: list(c.evidence))))
                return
            if len(self.places) >= _KEEP_FORMATTED:
                self.places.clear()
        tail = [pieces[1]]
        if cands:
            evidence = [_strings(c.evidence) for c in cands]
            tail.append(evidence[0])
            for piece, text in zip(pieces[2:], evidence):
                tail.append(piece)
                tail.append(text)
            tail.append(pieces[-1])
        self.places[place] = (shape, pieces, cands, tail)
        out.append(pieces[0])
        out.append(b"%d" % f.line)
        out += tail


_ASCII = string.printable


def _ascii_writer() -> Any:
    """How to write ASCII bytes to standard output: its binary buffer where writing them is
    what writing the text would do (an encoding that writes ASCII as ASCII, no newline
    translation), else standard output itself, as text."""
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
            return buffer.write
    return lambda data: out.write(data.decode("ascii"))


def write_json(found: Iterable[FoundWord], name: str, end: str = "\n") -> None:
    """Stream the JSON document of input ``name`` to standard output: ``{"input": name,
    "findings": [...]}``, each finding on its own line as it is found, exactly
    ``json.dumps(finding.to_dict())`` (:class:`_Findings`); ``end`` follows the document.  The
    document is ASCII (``json.dumps`` escapes the rest)."""
    write = _ascii_writer()
    # the document around its findings (the last value): '{"input": ..., "findings": ' '}'
    head, tail = json_text(InputDoc(name, [])).rsplit(b"[]", 1)
    findings = _Findings()
    batch: list[bytes] = [head, b"["]
    first = sep = b"\n  "
    rows = 0
    for f in found:
        batch.append(sep)
        findings.add(f, batch)
        sep = b",\n  "
        rows += 1
        if rows >= _BATCH:
            write(b"".join(batch))
            batch.clear()
            rows = 0
    batch.append(b"]" if sep is first else b"\n]")
    batch.append(tail + end.encode())
    write(b"".join(batch))
    sys.stdout.flush()


# ---------------------------------------------------------------- several inputs

class Report:
    """The reports of the inputs of one ``descgen dump``, in order (:meth:`add` each, then
    :meth:`close`): JSON documents (``as_json``), several of them as ``{"inputs": [...]}``; or
    text reports, several of them separated by a blank line and followed by the total."""

    def __init__(self, *, as_json: bool, many: bool, plain_: bool = False,
                 table_only: bool = False, no_color: bool = False,
                 unique: bool = False) -> None:
        self.json, self.many, self.unique = as_json, many, unique
        self.options = {"plain_": plain_, "table_only": table_only, "no_color": no_color}
        self.done = 0
        self.total = 0

    def add(self, found: Iterable[FoundWord], name: str) -> None:
        """The report of input ``name`` (its findings, streamed)."""
        if self.json:
            if self.many:
                sys.stdout.write('{"inputs": [\n' if not self.done else ",\n")
            write_json(found, name, end="" if self.many else "\n")
        else:
            if self.done:
                sys.stdout.write("\n")
            if self.unique:
                self.total += write_unique(found, name, plain_=self.options["plain_"],
                                           no_color=self.options["no_color"])
            else:
                self.total += write_text(found, name, **self.options)
        self.done += 1

    def close(self, inputs: int, bad: int) -> None:
        """The end: of ``inputs`` inputs given, ``bad`` could not be read."""
        if self.many and self.done:
            if self.json:
                sys.stdout.write("\n]}\n")
            else:
                total = self.total
                sys.stdout.write(f"{total} descriptor word{'s' * (total != 1)} found in "
                                 f"{inputs} files" + (f" ({bad} not read)" if bad else "") + "\n")
        sys.stdout.flush()

"""Text logs: cuda-gdb register tables and ``print`` results, printf-style lines, and SASS
lines pasted into a log (read as listings by :mod:`descriptors.tools.dump.code`): the state
kept across lines (register pairs, printed expressions) and the queue that yields findings in
line order."""


from __future__ import annotations

import heapq
import re
from dataclasses import replace
from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any

from ...errors import ParameterError, shorten
from ...structs import BoundedMemo
from ...readers import SASS_FUNCTION, SASS_INSTRUCTION, gdb, printf
from ...words.literals import MAX_LINE
from ...isa.sites import IdescContext
from .score import (REGISTER_BITS, Candidate, FoundWord, Hint, candidates_for, finding_of,
                    is_reported, make_finding, may_report, name_hints, strong_name)
from .code import scan_code


_MEMO_SIZE = 1 << 16
_REGISTER_MAX = (1 << REGISTER_BITS) - 1
#: Distinct (word, evidence) readings a scan keeps for words met again (as the LRU caches),
#: and distinct printf (name, word) findings.
_READINGS_SIZE = 1 << 12
#: Contexts (register, printed expression, source) of hex words whose matches a scan keeps.
_CONTEXTS = 64


# ---------------------------------------------------------------- line patterns

#: The single prefilter every line goes through: a line without a digit, a cuda-gdb prompt or
#: a function header holds nothing to find (the pattern starts with literals and a character
#: set only, so the regex engine skips through a line in C).
_PREFILTER = re.compile(r"[0-9]|\((?:cuda-)?gdb\)|Function|\.text\.")
#: SASS lines in a log (addressed, pasted bare, function headers) are kept as runs and each run
#: is read by :mod:`descriptors.readers.sass`, as a whole listing is (:meth:`_Scanner.sass_line`).


# ---------------------------------------------------------------- the scanner


class _Scanner:
    def __init__(self, as_: str | None, context: IdescContext | None, arch: str | None,
                 min_confidence: float, window: int) -> None:
        self.as_, self.context, self.arch = as_, context, arch
        self.min_confidence = min_confidence
        self.window = window
        #: the findings, in line order: final when queued, so all due at once
        self.queue: deque[FoundWord] = deque()
        #: the run of SASS lines (line number, text) read so far, read together at its end
        self.segment: list[tuple[int, str]] = []
        #: cuda-gdb register table: (line, file, index, digits, value) of an even register
        #: awaiting its odd partner on the next line
        self.pending: tuple[int, str, int, str, int] | None = None
        self.memo: BoundedMemo[Any, bool] = BoundedMemo(_MEMO_SIZE)
        #: (name before a hex word, the word, (register, default name, source)) -> the
        #: fields of its finding (line 0), or None: not reported (:meth:`hex_fields`)
        self.words: BoundedMemo[tuple[Any, ...], dict[str, Any] | None] = BoundedMemo(
            _READINGS_SIZE)
        #: (register, default name, source) -> the text of a match of a hex word and its
        #: name (printf.named_hex_matches) -> :meth:`hex_match` of it: a log repeats its
        #: ``name=word``, read and classified once per context
        self.matches: BoundedMemo[tuple[str | None, str | None, str],
                                  BoundedMemo[str, Any]] = BoundedMemo(_CONTEXTS)
        #: (word, size, hints, narrow) -> the finding's readings, or None: not reported
        self.readings: BoundedMemo[tuple[Any, ...], tuple[Candidate, ...] | None] = BoundedMemo(
            _READINGS_SIZE)
        self.expr: tuple[str | None, str | None] | None = None  # (register, name) printed next

    # ------------------------------------------------------------ emission
    def readings_of(self, word: int, size: int, hints: tuple[Hint, ...],
                    narrow: bool = True) -> tuple[Candidate, ...] | None:
        """The readings of a word with this evidence when it is reported, else None
        (memoised: a dump repeats its words)."""
        key = (word, size, hints, narrow)
        try:
            return self.readings[key]
        except KeyError:
            pass
        cands: tuple[Candidate, ...] | None = None
        if hints or self.possible(word, size, narrow):
            cands = candidates_for(word, size, hints, self.as_, self.context, self.arch, narrow)
            if not is_reported(cands, hints, self.min_confidence, self.as_ is not None):
                cands = None
        return self.readings.keep(key, cands)

    def found(self, lineno: int, source: str, register: str | None, name: str | None,
              text: str, word: int, size: int, hints: tuple[Hint, ...] = (),
              narrow: bool = True) -> bool:
        """Queue a word whose evidence is all known (nothing later adds to it): classified
        now, queued as its finding (True), or dropped when it is not reported (False)."""
        cands = self.readings_of(word, size, hints, narrow)
        if cands is None:
            return False
        self.queue.append(make_finding(lineno, source, register, name, text, word, size, cands))
        return True

    def close(self) -> Iterator[FoundWord]:
        self.flush_pending()
        self.flush_segment()
        yield from self.queue
        self.queue.clear()

    # ------------------------------------------------------------ cuda-gdb register tables
    def flush_pending(self) -> None:
        """The even register read last has no partner: queue it on its own."""
        pending = self.pending
        if pending is not None:
            self.pending = None
            self.register_entry(*pending)

    def possible(self, word: int, size: int, narrow: bool = True) -> bool:
        """:func:`may_report`, memoised for the values a dump repeats (0, 1, addresses ...)."""
        if self.as_ is not None:
            return True
        key = (word << 2) | (size == 64) << 1 | narrow
        memo = self.memo
        hit = memo.get(key)
        if hit is None:
            hit = memo.keep(key, may_report(word, size, narrow, self.min_confidence, self.arch))
        return hit

    def register_entry(self, lineno: int, reg_file: str, index: int, digits: str,
                       value: int) -> None:
        if self.possible(value, 32):
            self.found(lineno, "registers", f"{reg_file}{index}", None, f"0x{digits}", value, 32)

    def register_line(self, lineno: int, reg_file: str, index: int, digits: str) -> None:
        """One line of a cuda-gdb register table.  An even register waits (outside the queue,
        so line order holds) for its odd partner on the next line; the pair is read as one
        64-bit word, and replaces its halves when it reads as a descriptor."""
        value = int(digits, 16)
        pending = self.pending
        self.pending = None
        if pending is not None:
            if pending[1] == reg_file and pending[2] + 1 == index:
                low_line, _, low_index, low_digits, low = pending
                word = (value << REGISTER_BITS) | low
                if self.possible(word, 64, False):
                    lo_name, hi_name = f"{reg_file}{low_index}", f"{reg_file}{index}"
                    if self.found(lineno, "registers", f"{lo_name}:{hi_name}", None,
                                  f"{lo_name}=0x{low_digits} {hi_name}=0x{digits}", word, 64,
                                  narrow=False):
                        return
                self.register_entry(low_line, reg_file, low_index, low_digits, low)
                self.register_entry(lineno, reg_file, index, digits, value)
                return
            self.register_entry(*pending)
        if index % 2 == 0:
            self.pending = (lineno, reg_file, index, digits, value)
        else:
            self.register_entry(lineno, reg_file, index, digits, value)

    # ------------------------------------------------------------ printf-style tokens
    def tokens(self, lineno: int, line: str, source: str, default_name: str | None = None,
               register: str | None = None) -> None:
        """Hex words of a printf-style line (or of a cuda-gdb value, named by the printed
        expression), and decimal values where the text says what they are."""
        spans = []
        bare_hex = False
        if printf.could_hold_hex(line):
            context = (register, default_name, source)
            matches = self.matches.get(context)
            if matches is None:
                matches = self.matches.keep(context, BoundedMemo(_READINGS_SIZE))
            append = self.queue.append
            for m in printf.named_hex_matches(line):
                if not bare_hex and (m.group("bare") or m.group("bare2")):
                    bare_hex = True  # the line prints bare hex (%x, %llx)
                key = m.group()
                got = matches.get(key)
                if got is None:
                    got = matches.keep(key, self.hex_match(m, context))
                offset, fields, unnamed = got
                if offset is None:
                    continue  # no word
                start = m.start() + offset
                spans.append(start)
                if unnamed is not None:  # the name is read from the line
                    fields = self.hex_fields(printf.name_before(line, start), *unnamed, context)
                if fields is not None:
                    fields = fields.copy()
                    fields["line"] = lineno
                    append(finding_of(fields))
        # decimal values only where the text says what they are: a value named by the printed
        # expression or a register (`p $UR5` prints `$2 = 138413200`), or `name=123` / `name: 123`
        # with a name that carries a hint
        if register is not None or (default_name is not None and strong_name(default_name)):
            for start, text, word, size in printf.decimal_words(line, every=True):
                if start in spans:
                    continue  # the digits of a hex word ("idesc 08400480")
                name = printf.name_before(line, start) or default_name
                if register is None and (name is None or not strong_name(name)):
                    continue
                self.found(lineno, source, register, name, text, word, size,
                           name_hints(name, self.arch) if name else ())
        elif ("=" in line or ":" in line) and printf.has_hint_word(line):
            for start, text, word, size, name in printf.named_decimal_words(line):
                if start not in spans and strong_name(name):
                    hints = name_hints(name, self.arch)
                    if line[start + len(text):start + len(text) + 1] in _C_SUFFIX_FIRST \
                            or not self.hex_digits(lineno, source, name, text, word, size,
                                                   hints, bare_hex):
                        self.found(lineno, source, None, name, text, word, size, hints)

    def hex_digits(self, lineno: int, source: str, name: str, text: str, word: int, size: int,
                   hints: tuple[Hint, ...], bare_hex: bool) -> bool:
        """Digits written after a name that read as decimal (``idesc=8400490``) may be a
        ``%x`` print without ``0x``: their hex reading is queued instead of the decimal one
        (True) when it is a valid descriptor and the decimal one is not, or the line's other
        values are bare hex (``bare_hex``: ``adesc=4000404000010040 ... idesc=8400490``, a
        ``%llx``/``%x`` log) -- its confidence :data:`_HEX_GUESS` lower and its ``why`` saying
        so; else False (the decimal reading stands)."""
        if len(text) > _HEX_DIGITS_MAX or len(text) < 2:
            return False
        hword = int(text, 16)
        hsize = 64 if len(text) > 8 or hword > _REGISTER_MAX else 32
        cands = self.readings_of(hword, hsize, hints)
        if cands is None or not cands[0].valid:
            return False
        dec = self.readings_of(word, size, hints)
        dec_valid = dec is not None and dec[0].valid
        if dec_valid and not bare_hex:
            return False
        why = (f"the digits {text} read as hex (a %x print without 0x): "
               + ("the line's other values are bare hex" if dec_valid else
                  f"as decimal ({word:#x}) they are "
                  + ("no descriptor" if dec is None else
                     f"{dec[0].verdict} as {dec[0].descriptor}"))
               + f" ({-_HEX_GUESS:+.2f})")
        self.queue.append(make_finding(lineno, source, None, name, text, hword, hsize, tuple(
            replace(c, confidence=round(max(0.01, c.confidence - _HEX_GUESS), 2),
                    reason=f"{why}; {c.reason}") for c in cands)))
        return True

    def hex_match(self, m: re.Match[str], context: tuple[str | None, str | None, str]
                  ) -> tuple[int | None, dict[str, Any] | None, tuple[str, int, int] | None]:
        """What a match of :func:`printf.named_hex_matches` gives in ``context`` (register,
        default name, source), by :meth:`tokens`' memo of it: ``(offset of the word from the
        match's start, the fields of its finding or None: not reported, None)``; ``(offset,
        None, (text, word, size))`` when the name before the word is not in the match (the
        line decides it); ``(None, None, None)`` when the match is no word."""
        got = printf.read_named(m)
        if got is None:
            return None, None, None
        offset, text, word, size, name = got
        if name is printf.UNKNOWN:
            return offset, None, (text, word, size)
        return offset, self.hex_fields(name, text, word, size, context), None

    def hex_fields(self, name: str | None, text: str, word: int, size: int,
                   context: tuple[str | None, str | None, str]) -> dict[str, Any] | None:
        """The fields of the finding (line 0) of a hex word written after ``name`` in
        ``context`` (register, default name, source), or None: not reported.  Memoised: a
        log repeats the same names and words."""
        key = (name, text, context)
        words = self.words
        fields = words.get(key, False)
        if fields is False:
            register, default_name, source = context
            reg, name, cands = self.hex_word(name, word, size, register, default_name)
            fields = words.keep(key, None if cands is None else vars(
                make_finding(0, source, reg, name, text, word, size, cands)))
        return fields  # type: ignore[return-value]

    def hex_word(self, name: str | None, word: int, size: int, register: str | None,
                 default_name: str | None) -> tuple[str | None, str | None,
                                                     tuple[Candidate, ...] | None]:
        """(register, name, readings or None: not reported) of a hex word of a printf-style
        line written after ``name`` (a register name names the register)."""
        if name is not None and gdb.REGISTER_NAME.match(name):
            register, name, hints = register or name.lstrip("$"), None, ()
        else:
            hints = name_hints(name, self.arch) if name else ()
        if name is None:
            name = default_name
            hints = name_hints(name, self.arch) if name else ()
        return register, name, self.readings_of(word, size, hints)

    # ------------------------------------------------------------ SASS
    def sass_line(self, lineno: int, line: str) -> None:
        """A SASS line in a log (an instruction, addressed or pasted, or a function header):
        kept with the SASS lines right before it, which are read together by the SASS reader
        (:func:`scan_code`, as a listing is) when the run of SASS lines ends."""
        seg = self.segment
        if seg and (lineno - seg[-1][0] > _SEGMENT_GAP or len(seg) >= _SEGMENT_MAX):
            self.flush_segment()
        seg.append((lineno, line))

    def flush_segment(self) -> None:
        """Read the run of SASS lines kept so far and queue its findings (final), in line
        order with what other lines of the log queued meanwhile (:func:`scan_text` holds the
        queue while a run is open)."""
        seg = self.segment
        if not seg:
            return
        self.segment = []
        first = seg[0][0]
        lines = [""] * (seg[-1][0] - first + 1)
        for lineno, line in seg:
            lines[lineno - first] = line
        found = list(scan_code(lines, "sass", self.as_, self.context, self.arch,
                                self.min_confidence, self.window, first))
        if found:  # in line order among what the log's other lines queued meanwhile
            merged = list(heapq.merge(self.queue, found, key=_line_of))
            self.queue.clear()
            self.queue.extend(merged)

    # ------------------------------------------------------------ one line
    def feed(self, lineno: int, line: str) -> None:
        first = line[:1]
        if first == " " or first == "\t":
            stripped = line.lstrip()
            first = stripped[:1]
        else:
            stripped = line
        if first == "/" and stripped.startswith("/*"):
            if self.pending is not None:
                self.flush_pending()
            if stripped[2:3] not in _HEX_DIGITS:
                return  # the second word of a cuobjdump instruction (/* 0x... */), a comment
            self.sass_line(lineno, line)  # an addressed instruction (or a comment)
            return
        if first == "R" or first == "U" or first == "$":
            row = gdb.register_row(line)
            if row is not None:
                self.expr = None
                self.register_line(lineno, *row)
                return
        if self.pending is not None:
            self.flush_pending()
        if first == "(":
            cmd = gdb.command(line)
            if cmd is not None:
                self.gdb_command(cmd)
                return
        elif first == "$":
            value = gdb.value(line)
            if value is not None:
                register, name = self.expr if self.expr else (None, None)
                self.expr = None
                if value.startswith("{"):  # a struct or array: its fields name the values
                    register = name = None
                self.tokens(lineno, value, "print", name, register)
                return
        self.expr = None
        if first in _FUNCTION_FIRST and SASS_FUNCTION.match(line):
            self.sass_line(lineno, line)
            return
        if ("A" <= first <= "Z" or first == "@") and SASS_INSTRUCTION.match(line):
            self.sass_line(lineno, line)
            return
        self.tokens(lineno, line, "printf")

    def gdb_command(self, command: str) -> None:
        self.expr = gdb.printed(command)


_FUNCTION_FIRST = frozenset("F.")
#: A C/C++ suffix after decimal digits (``8400490u``): a C literal, decimal, never hex.
_C_SUFFIX_FIRST = frozenset("uUlLzZ")
#: Confidence a hex reading of decimal-looking digits loses (:meth:`_Scanner.hex_digits`),
#: and the most digits read so (a 64-bit word).
_HEX_GUESS = 0.10
_HEX_DIGITS_MAX = 16
#: Lines of a log between two SASS lines that still keep them one run, and the longest run.
_SEGMENT_GAP = 64
_SEGMENT_MAX = 1 << 16
#: Findings held while a run of SASS lines is open: past this many the run is read as it is
#: (its later lines start the next run), so memory stays bounded on a log that interleaves.
_QUEUE_MAX = 1 << 14


def _line_of(item: Any) -> int:
    return item.line
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")




def scan_text(lines: Iterable[str | bytes], as_: str | None, context: IdescContext | None,
              arch: str | None, min_confidence: float, window: int) -> Iterator[FoundWord]:
    scanner = _Scanner(as_, context, arch, min_confidence, window)
    prefilter = _PREFILTER.search
    queue = scanner.queue
    feed = scanner.feed
    register_match = gdb.REGISTER_ROW.match
    register_line = scanner.register_line
    lineno = 0
    for line in lines:
        lineno += 1
        if line.__class__ is not str:
            if not isinstance(line, (bytes, bytearray, memoryview)):
                raise ParameterError(f"line {lineno}: lines are str or bytes, not "
                                     f"{shorten(line)}")
            line = bytes(line).decode("utf-8", "replace")
        if len(line) > MAX_LINE:
            line = line[:MAX_LINE]
        if prefilter(line) is None:
            if scanner.pending is not None:
                scanner.flush_pending()
            scanner.expr = None
        else:
            line = line.rstrip("\r\n")
            first = line[:1]
            # the commonest lines first: a cuda-gdb register table row, a cuobjdump encoding word
            m = register_match(line) if first == "R" or first == "U" else None
            if m is not None:
                scanner.expr = None
                register_line(lineno, m.group(1), int(m.group(2)), m.group(3))
            elif first == " " and line.endswith(" */") and line.lstrip().startswith("/* 0x"):
                if scanner.pending is not None:
                    scanner.flush_pending()
            else:
                feed(lineno, line)
        segment = scanner.segment
        if segment:  # a run of SASS lines: the queue waits until it is read (or holds too much)
            if lineno - segment[-1][0] <= _SEGMENT_GAP and len(queue) < _QUEUE_MAX:
                continue
            scanner.flush_segment()
        if queue:  # findings are final when queued: all due
            yield from queue
            queue.clear()
    yield from scanner.close()

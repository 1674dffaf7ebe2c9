"""Readers: text that tools print (PTX, SASS listings ...) turned into facts about values.

One reader per source, each a generator over lines, constant memory:

* :mod:`descriptors.readers.ptx` -- PTX modules (``nvcc -ptx``, ``cuobjdump -ptx``, Triton's
  and CuTe DSL's dumped ``.ptx``) and bare PTX instruction lines;
* :mod:`descriptors.readers.sass` -- SASS listings (``cuobjdump -sass``, ``nvdisasm``);
* :mod:`descriptors.readers.gdb` -- cuda-gdb register tables, print commands and values;
* :mod:`descriptors.readers.printf` -- the hex and named decimal words of a printf-style line.

The PTX and SASS readers follow data flow (below); the gdb and printf readers are line
recognisers that :mod:`descriptors.tools.dump` drives (register pairs, printed expressions).

The PTX and SASS readers follow constant values through the data flow compilers emit, as
known bits (:class:`~descriptors.readers.knownbits.KnownBits`), and yield one :class:`Instruction` per
tcgen05 instruction (PTX ``tcgen05.*``, SASS ``UTC*``) with the known bits of every operand and
the instruction that defined it, plus one :class:`Fact` per constant the code materialises (a
PTX immediate, a SASS ``MOV``-family immediate): where it is, its value and how it is used.
``descgen lint`` (:mod:`descriptors.tools.lint`) judges the instructions; :func:`read` picks the
reader by content (both, each on its part, for the SASS and PTX members ``cuobjdump -ptx -sass``
lists in one output: :func:`sections`).

Input is never trusted: bytes are decoded as UTF-8 with replacement characters (UTF-16 with
a byte-order mark is decoded, :func:`descriptors.readers.binary.text_lines`), LF, CRLF and CR
line ends read alike, a line longer than :data:`MAX_LINE` characters is cut there (the
instruction on it is then skipped if it has no ``;``), unknown instructions are skipped and
only make the registers they write unknown, and a function longer than :data:`MAX_FUNCTION`
instructions is analysed in pieces, so memory stays bounded: values carried into a piece are
unknown, but a loop whose back edge crosses a piece boundary is not seen by the earlier piece
(the reader then says so in a ``lint.split`` note).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from itertools import chain

from ..structs import Struct
from ..isa.sites import MmaSite
from ..words.literals import MAX_LINE
from .knownbits import KnownBits
from .ksteps import K_STEP_ASSUMPTION, K_STEP_BITS, K_STEP_MAX
from .values import Alternative

__all__ = ["KnownBits", "Alternative", "Operand", "Instruction", "Fact", "MAX_LINE", "MAX_FUNCTION", "sniff",
           "read", "sections", "listing_line", "iter_text_lines", "TextLines", "SNIFF_LINES", "SASS_INSTRUCTION",
           "SASS_FUNCTION", "K_STEP_BITS", "K_STEP_MAX", "K_STEP_ASSUMPTION"]

#: Instructions of one function analysed together (memory bound).
MAX_FUNCTION = 50_000

class Operand(Struct, frozen=True):
    """One operand of an instruction as written (``text``, 1-based ``col``), its known bits
    (``None`` for what is not a value: a predicate, a label) and where the value was defined
    (``origin``: ``(line, text)`` of the defining instruction, ``None`` for an immediate);
    ``assumes`` says what the known bits rely on beyond the instructions themselves (the
    K-step rule of :func:`descriptors.readers.ptx.read_ptx`), None when nothing."""

    text: str
    col: int
    value: KnownBits | None = None
    origin: tuple[int, str] | None = None
    memory: bool = False  # written [..] (an address operand)
    assumes: str | None = None
    #: the values the operand may hold when paths or a select give it more than one
    #: (:mod:`descriptors.readers.values`), each with its own origin; ``value`` is then what
    #: they all agree on.  Empty when there is one value (``value``, ``origin``).
    alternatives: tuple[Alternative, ...] = ()

    @property
    def judged(self) -> tuple[Alternative, ...]:
        """The alternatives that are judged (by ``lint``) and followed back to their lines (by
        ``dump``): those a write on the way gives the operand, when there are any.  One that
        holds only where a predicated write did not happen (``@UP2 UMOV UR17, 0x40004040``
        guarded like the MMA itself) is not judged on its own: compilers guard an MMA and the
        writes of its operands alike."""
        written = tuple(a for a in self.alternatives if not a.skipped)
        return written or self.alternatives


class Instruction(Struct, frozen=True):
    """A tcgen05 (or, in PTX, stmatrix / wmma.load) instruction of a PTX module or SASS listing,
    with its operands resolved and the declared types of the registers it names."""

    dialect: str  # "ptx" or "sass"
    line: int
    col: int
    opcode: str
    operands: tuple[Operand, ...]
    text: str
    arch: str | None = None
    function: str | None = None
    registers: tuple[tuple[str, str], ...] = ()  # declared types of the registers it names
    #: why ``arch`` was taken (the header line that names it), ``None`` when nothing names it
    arch_reason: str | None = None
    #: what the instruction means (:class:`~descriptors.isa.sites.MmaSite`: which operand is
    #: which word, the kinds, cta_group, .ws ...), ``None`` for one that is no tensor-core MMA
    #: or Tensor Memory instruction (stmatrix, wmma.load)
    site: MmaSite | None = None


class Fact(Struct, frozen=True):
    """A value seen in the text: where (line, col), its known bits, how it is used (``use``:
    ``immediate`` for a constant the code materialises, else the consuming instruction's
    operand, e.g. ``idesc``), and the instruction text."""

    line: int
    col: int
    value: KnownBits
    use: str
    text: str
    dialect: str
    hints: tuple[str, ...] = ()
    #: the register the value is written to (``UR5``, ``%r37``), when one is
    register: str | None = None
    #: the target of the code the value is in, as :attr:`Instruction.arch` (PTX ``.target``,
    #: SASS ``code for sm_90a``), ``None`` when nothing names it
    arch: str | None = None


class TextLines(chain):
    """Lines already decoded, without line ends and cut at :data:`MAX_LINE` characters (what
    :func:`descriptors.readers.binary.text_lines` gives): :func:`read` takes them as they are
    instead of looking at each line again.  Made with ``TextLines.from_iterable(blocks)``,
    each block a list of such lines."""

    __slots__ = ()


def iter_text_lines(stream: Iterable[bytes] | Iterable[str]) -> Iterator[str]:
    """Lines of a byte or text stream, decoded (UTF-8, replacement characters), without line
    ends, each cut at :data:`MAX_LINE` characters."""
    for raw in stream:
        if isinstance(raw, bytes):
            raw = raw[:MAX_LINE * 4].decode("utf-8", "replace")
        yield raw.rstrip("\r\n")[:MAX_LINE]


#: Lines only a SASS listing has: an instruction's address (``/*0080*/``) and the header
#: lines ``cuobjdump -sass`` and ``nvdisasm`` (12.x, 13.x) print before and between functions
#: (``Fatbin elf code:``, ``arch = sm_100a``, ``code for sm_100a``, ``Function : name``,
#: ``.headerflags @"..."``, ``.elftype``, ``.section .text.name``, ``.sectioninfo``,
#: ``//--------------------- .text.name``, ``.text.name:``).  ``.target`` is printed by both
#: cuobjdump and PTX, so it decides nothing on its own.
_SASS_ONLY = re.compile(r"\s*+(?:/\*[0-9a-fA-F]{4,}\*/|Function\s*:|code for sm_|Fatbin (?:elf|ptx) code|"
                        r"arch\s*=\s*sm_|\.headerflags\b|\.elftype\b|\.sectioninfo\b|"
                        r"\.sectionflags\b|\.section\s+\.(?:text|nv)\.|//-+ \.(?:text|nv)\.|"
                        r"\.text\.[\w$.]+:)")
#: A SASS instruction without its address (pasted into a log, or cuda-gdb's ``x/i``): an
#: upper-case opcode whose first operand is a register, a predicate, an address or an MMA
#: operand.  The one definition the sniffer and ``dump``'s reading of logs share.
SASS_INSTRUCTION = re.compile(r"\s*+(?:@!?U?P(?:T|\d{1,2})\s+)?[A-Z][A-Z0-9]{1,15}"
                              r"(?:\.[A-Za-z0-9_]{1,32}){0,8}\s+(?:(?:U?R\d{1,3}|U?RZ|!?U?P(?:T|\d))\b|"
                              r"[\[{]|(?:gdesc|tmem|idesc)\[)")
#: Where a SASS function starts (``Function : name``, ``.text.name:``, ``.section
#: .text.name``), with its name: register values do not carry over.
SASS_FUNCTION = re.compile(r"\s*+(?:Function\s*:\s*(\S+)|\.text\.([\w$.]+)\s*:|"
                           r"\.section\s+\.text\.([\w$.]+))")
#: Lines only PTX has: module directives, register declarations, lower-case instructions on
#: ``%`` registers.
_PTX_ONLY = re.compile(r"\s*+(?:\.version\s+\d|\.address_size\b|\.visible\b|\.entry\b|\.func\b|"
                       r"\.reg\s+\.|\.shared\s+\.|\.param\s+\.|"
                       r"(?:@!?%\w+\s+)?(?:tcgen05|stmatrix|wmma|mov|or|and|ld|st|add|shl|shr|cvt|"
                       r"selp|setp|bra|mul|sub|xor|cvta|mad)\.[a-z])")
#: Lines only a log has: a debugger prompt or value (``(cuda-gdb) p/x $UR4``, ``$1 = 0x...``), a
#: register table row (``UR4  0x8400490  138413200``), a printf line naming a value
#: (``idesc=0x08400490``, ``[block (0,0,0) thread (0,0,0)] ...``).
_LOG_ONLY = re.compile(r"\s*+(?:\((?:cuda-)?gdb\)|\$\d+\s*=|U?R\d{1,3}\s+0x[0-9a-fA-F]+\s|\[block\b)")
#: ... or a name given a value of 8 hex digits anywhere before the first ``;`` (searched in
#: that part of the line: one linear scan, where a lazy ``[^;]*?`` prefix in :data:`_LOG_ONLY`
#: would retry the name at every position, about 0.2 ms a line).
_LOG_NAMED = re.compile(r"\b[A-Za-z_]\w*\s*[=:]\s*(?:0x)?[0-9a-fA-F]{8}")


def _log_line(line: str) -> bool:
    """A line only a log has (:data:`_LOG_ONLY`, :data:`_LOG_NAMED`).  The patterns take their
    leading blanks possessively: a listing's encoding lines (``/* 0x000fe4... */`` after a
    hundred blanks) are not retried at every blank; a line without ``=`` or ``:`` before its
    ``;`` names no value."""
    if _LOG_ONLY.match(line):
        return True
    end = line.find(";")
    if end < 0:
        end = len(line)
    if line.find("=", 0, end) < 0 and line.find(":", 0, end) < 0:
        return False
    return _LOG_NAMED.search(line, 0, end) is not None


#: A value a log or printf line may show: 8 or more hex digits, or a name given a decimal
#: number of 6 digits or more (``idesc 138413200``).
_VALUE = re.compile(r"[0-9a-fA-F]{8}|\b[A-Za-z_]\w*\s*+[=:]?\s*+\d{6}")


def listing_line(line: str) -> bool:
    """Whether ``line`` shows code or a log: a line :func:`sniff` counts (SASS, PTX, a
    debugger's or a printf log's), a ``.target`` line, or one holding a value ``dump`` may
    read (8 hex digits or more, a named decimal number).  What a stream that is no file must
    show early (:data:`descriptors.readers.binary.MAX_STREAM_PREAMBLE`)."""
    return bool(_log_line(line) or _SASS_ONLY.match(line) or _PTX_ONLY.match(line)
                or SASS_INSTRUCTION.match(line) or line.lstrip().startswith(".target")
                or _VALUE.search(line))


#: Lines looked at to decide the dialect.
SNIFF_LINES = 200


def sniff(lines: Iterable[str]) -> str | None:
    """``"ptx"``, ``"sass"`` or ``None`` (neither: a log, printf output, a source file): the
    dialect of the first :data:`SNIFF_LINES` lines.  The one place that decides it, for every
    command.  A line only a SASS listing has (an instruction address or a header line
    cuobjdump or nvdisasm prints) counts for SASS, a PTX directive, declaration or lower-case
    instruction for PTX; a SASS instruction without an address counts for SASS.  The larger
    count wins; a ``.target`` line alone is PTX.  Where lines only a log has (a debugger's
    prompt or value, a register table, printf lines naming values) are a tenth of the code
    lines or more, it is a log: ``None``.  Instruction-like lines alone (no PTX directive, no
    SASS address or header) that are under a tenth of the text's lines are prose or source
    quoting code (a Python docstring naming ``mov.b64``): ``None``."""
    ptx = sass = log = text = 0
    target = strong = False
    for i, line in enumerate(lines):
        if i >= SNIFF_LINES:
            break
        if line.strip():
            text += 1
        if _log_line(line):
            log += 1
        elif _SASS_ONLY.match(line):
            sass += 2
            strong = True
        elif _PTX_ONLY.match(line):
            ptx += 1
            strong = strong or line.lstrip().startswith(".")
        elif SASS_INSTRUCTION.match(line):
            sass += 1
        elif line.lstrip().startswith(".target"):
            target = True
    if ptx == sass == 0:
        return "ptx" if target else None
    if not (strong or target) and (ptx + sass) * 10 < text:
        return None  # a few code-like lines in other text
    if log >= 3 and log * 10 >= ptx + sass:
        return None  # a log with code in it: dump reads its runs of SASS lines as listings
    return "sass" if sass > ptx else "ptx"


def _cut_lines(lines: Iterable[str] | Iterable[bytes]) -> Iterator[str]:
    """:func:`iter_text_lines` of ``lines``, a str line cut at :data:`MAX_LINE` characters
    before its line end is taken off; str lines a batch at a time (the common case costs a
    few operations per batch, not per line)."""
    from itertools import chain
    return chain.from_iterable(_cut_batches(lines))


def _cut_batches(lines: Iterable[str] | Iterable[bytes]) -> Iterator[list[str]]:
    from itertools import islice
    it = iter(lines)
    while True:
        batch = list(islice(it, 512))
        if not batch:
            return
        if set(map(type, batch)) == {str}:
            if max(map(len, batch)) > MAX_LINE:
                batch = [line[:MAX_LINE] for line in batch]  # type: ignore[index]
            joined = "".join(batch)  # type: ignore[arg-type]
            if "\n" in joined or "\r" in joined:
                batch = [line.rstrip("\r\n") for line in batch]  # type: ignore[union-attr]
            yield batch  # type: ignore[misc]
        else:
            yield [line[:MAX_LINE].rstrip("\r\n") if line.__class__ is str  # type: ignore[union-attr]
                   else next(iter_text_lines((line,))) for line in batch]


def read(lines: Iterable[str] | Iterable[bytes], *, facts: bool = True
         ) -> tuple[str | None, Iterator[Instruction | Fact]]:
    """Pick the reader by content; returns (dialect, the reader's item stream).  Lines (str, or
    bytes decoded as UTF-8 with replacement) are cut at :data:`MAX_LINE` characters.
    ``facts=False``: a SASS listing's immediates (:class:`Fact`, which ``dump`` reports) are
    not gathered, only its instructions."""
    from itertools import chain, islice

    it = lines if lines.__class__ is TextLines else _cut_lines(lines)
    head = list(islice(it, SNIFF_LINES))
    dialect = sniff(head)
    rest = chain(head, it)
    if dialect is None:
        from .ptx import read_ptx
        return dialect, read_ptx(rest)
    return dialect, chain.from_iterable(_read_section(part, first, part_dialect, facts)
                                        for part_dialect, first, part in sections(rest, dialect, head))


def _read_section(lines: Iterator[str], first_line: int, dialect: str, facts: bool
                  ) -> Iterator[Instruction | Fact]:
    from itertools import chain, repeat
    if dialect == "sass":
        from .sass import read_sass
        return read_sass(lines, first_line, facts=facts)
    from .ptx import read_ptx  # (numbers its lines from 1: the lines before are blank to it)
    return read_ptx(lines if first_line == 1 else chain(repeat("", first_line - 1), lines))


#: The header ``cuobjdump`` prints before each member of a fatbin (``cuobjdump -ptx -sass``
#: lists both kinds in one output): ``Fatbin elf code:`` before SASS, ``Fatbin ptx code:``
#: before PTX.
_MEMBER = re.compile(r"\s*+Fatbin (elf|ptx) code:")


def sections(lines: Iterable[str], dialect: str, head: list[str] | None = None
             ) -> Iterator[tuple[str, int, Iterator[str]]]:
    """The parts of a listing in one dialect each: ``(dialect, first line number, lines)``,
    starting in ``dialect`` (what :func:`sniff` says) and switching where ``cuobjdump`` heads a
    member of the other kind (``Fatbin ptx code:`` in SASS, ``Fatbin elf code:`` in PTX: the
    output of ``cuobjdump -ptx -sass``), so both are read, each by its reader.  Each part's
    lines are to be read to their end before the next part is asked for.  ``head``: the first
    lines (those :func:`sniff` saw); when none of them is such a header (cuobjdump prints one
    first), the listing is one part, passed on as it is.  (Else lines are looked at a batch at
    a time: a join and a search per batch.)"""
    from itertools import chain, islice

    it = iter(lines)
    if head is not None and not any(_MEMBER.match(line) for line in head if "Fatbin" in line):
        yield dialect, 1, it
        return
    state: dict = {"next": None, "line": 1}

    def batches(current: str, pending: list[str]) -> Iterator[list[str]]:
        other = "Fatbin ptx code:" if current == "sass" else "Fatbin elf code:"
        line = state["line"]
        batch = pending
        while True:
            if not batch:
                batch = list(islice(it, 1024))
                if not batch:
                    state["next"] = None
                    return
            if other in "\n".join(batch):  # (a part starts with its own kind's header)
                for i, text in enumerate(batch):
                    if other in text and _MEMBER.match(text):
                        state["next"], state["line"] = batch[i:], line + i
                        yield batch[:i]
                        return
            line += len(batch)
            yield batch
            batch = []

    current, pending = dialect, []
    while True:
        yield current, state["line"], chain.from_iterable(batches(current, pending))
        pending = state["next"]
        if pending is None:
            return
        state["next"] = None
        current = "ptx" if current == "sass" else "sass"

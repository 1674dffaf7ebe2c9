"""Find and explain tensor-core descriptors -- tcgen05's, and sm_90a's wgmma matrix descriptor --
in what a debugger, a printf, a PTX module or a SASS listing shows.

``scan(text)`` reads text (``str`` or ``bytes``) and returns one :class:`FoundWord` per word
that reads as a descriptor; ``scan_lines(lines)`` does the same as a streaming generator in
constant memory, and ``scan_stream(binary_file)`` reads a byte stream line by line.  Four input
styles are recognised:

* cuda-gdb register tables (``info registers``: ``R4             0x8400490           138413200``)
  for general (``R<n>``) and uniform (``UR<n>``) registers.  A 64-bit descriptor lives in an
  aligned register pair (even register = low word), so an even register followed on the next
  line by its odd partner is also read as one 64-bit word;
* cuda-gdb ``print`` results (``(cuda-gdb) p/x adesc`` then ``$1 = 0x4000404000010040``): the
  printed expression names the value;
* printf-style lines: ``desc=0x...``, ``a_desc: 0x...``, ``idesc 08400490``, bare hex words of
  8 or 16 digits with or without ``0x``, ``_`` or ``'`` separators allowed;
* PTX modules and snippets (a ``.version``/``.target``/``.entry`` directive or a ``tcgen05.``
  instruction in the first 64 lines): read by :mod:`descriptors.readers.ptx`, which follows
  the data flow; the immediates the code materialises (nvcc writes descriptors as decimal
  immediates: ``mov.b32 %r37, 138413200;``, ``or.b64 %rd2, %rd10, 4611756662049538048;``) and
  the constant operands of ``tcgen05.mma`` and ``wgmma.mma_async`` are classified, an
  immediate that reaches an MMA operand named by it (family, and the instruction's kind for
  an instruction descriptor; a-desc/b-desc of ``wgmma.mma_async``: a wgmma word);
* SASS listings (cuobjdump ``-sass`` / nvdisasm lines such as
  ``/*0080*/  UMOV UR5, 0x8400490 ;  /* 0x0840049000057882 */``): immediates moved into
  registers (``UMOV``, ``MOV``, ``MOV32I``, ``IMAD.MOV``), followed through register copies
  until the register is overwritten; a ``UTCHMMA``/``UTCQMMA``/``UTCOMMA``/``UTCIMMA`` line
  that reads a register as ``gdesc[URk]`` (shared memory descriptor in the pair URk:URk+1),
  ``idesc[URk]`` or ``tmem[URk]`` says what the value is, and so does a Hopper
  ``HGMMA``/``IGMMA``/``QGMMA``/``BGMMA`` line's ``gdesc[URk]``: A's wgmma word in URk:URk+1
  (unless A comes from registers), B's in URk+2:URk+3 (``gdesc[URk] (A)``, ``(B)``).

The line recognisers live in :mod:`descriptors.readers` (``gdb``, ``printf``, ``sass`` whose
:func:`~descriptors.readers.sass.read_sass` reads a listing into facts and instructions -- a constant
moved into a register, a copy, registers overwritten, an MMA's descriptor operands -- and
``ptx`` whose data flow also feeds ``descgen lint``); this package keeps the state across lines
(register pairs, printed expressions, SASS registers awaiting their MMA) and the scoring.

The package has one module per job: :mod:`~descriptors.tools.dump.score` reads a word (every
family its size allows, scored) and holds the result types; :mod:`~descriptors.tools.dump.logs`
scans text logs (cuda-gdb, printf, SASS pasted into a log); :mod:`~descriptors.tools.dump.code`
scans PTX and SASS, naming words by the MMAs that read them (their sites,
:class:`~descriptors.isa.sites.MmaSite`); this module picks the scanner and streams the input.

Each word is classified against every family its size allows on the target, using the layouts
of :mod:`descriptors.words.layouts` (the fixed-constant and reserved fields, never hand-written
bit positions) and the validators of :mod:`descriptors.rules.validate`.  The target is ``arch``
(``--arch``), else the one the code names (SASS ``code for sm_90a``, PTX ``.target``: the
readers' ``arch`` of each fact and instruction, so a fatbin's members keep theirs), else
:data:`DEFAULT_ARCH`.  On sm_90a the words are wgmma matrix descriptors (PTX ISA 9.7.15.5.1)
and nothing else -- Hopper has no tcgen05 smem, idesc, zero-column mask or TMEM address --
and a shared memory descriptor named by the text or ``as_="smem"`` is that word; on the
tcgen05 targets the wgmma word is read only where the text names it (an ``HGMMA`` operand, a
name such as ``wgmma_desc``) or ``as_="wgmma"`` asks, judged on sm_90a when no target is named
(its only target) and on the named one otherwise (``wgmma.target`` then says it is no word of
that target):

======================  =============================================================  =====
reading                 structure required                                              base
======================  =============================================================  =====
``smem``   (64-bit)     every constant field holds its value, reserved fields are 0     0.55
``smem``   upper half   the same for the fields of the upper 32 bits (a register of     0.35
(32-bit)                the pair; the lower half, start address and LBO, is elsewhere)
``idesc``  (32-bit)     some kind's reading breaks no rule (reserved bits 0, Table 39   0.50
                        shape, defined type codes ...); one candidate per valid kind
``idesc``  idescE       upper 32 bits a valid instruction descriptor, lower 32 bits 0   0.70
(64-bit)                (0.60 when the lower half is a valid TMEM address instead)
``zcm``    (64-bit)     reserved bits 0 (0.35 with the non-zero-mask bit set, else      0.35
                        0.10: an all-zero mask is what most small values look like)
``tmem``   (32-bit)     lane < 128 and column < 512 -- true of most small integers      0.20
``wgmma``  (64-bit)     sm_90a only: the layout's unused fields are 0 (it has no        0.55
                        fixed constant)
``wgmma``  upper half   the same for the fields of the upper 32 bits (SBO, base         0.35
(32-bit)                offset, swizzle: the half nvcc materialises as a constant,
                        ``UMOV UR7, 0x40000040``; start address and LBO are computed)
======================  =============================================================  =====

Adjustments: a shared memory descriptor gains 0.20 for a swizzled layout and 0.10 for a stride
(SBO) of at most 32 KiB, and loses 0.25 for an SBO of 64 KiB or more (what a pointer whose bits
happen to fit the layout looks like); a wgmma word takes the same adjustments and loses 0.20
more for no stride at all (SBO 0: what small integers and sign masks such as ``0x80000000``
look like, which fit a layout without a fixed constant); a structurally matching word loses
0.15 per rule it breaks.  Evidence in the text raises the family it names: a specific name
(``adesc``, ``b_desc``, ``idesc``, ``taddr``, ``tmem_addr``, ``zcm``, ``wgmma_desc`` ...; on
sm_90a a shared memory descriptor's name means the wgmma word) +0.30, a generic one
(``desc``, ``mask``) +0.15, an MMA operand the value feeds (SASS ``UTC*MMA``, ``HGMMA`` ...;
PTX ``tcgen05.mma``, ``wgmma.mma_async``) +0.35, ``as_=`` (``--as``) +0.30.  A family named by
specific evidence or ``as_`` is read even when its structure does not hold (base 0.10): that
is how a broken descriptor (``adesc`` with the 0b001 constant missing) is shown with its
errors, and a wgmma word with an unused bit set with its ``wgmma.reserved`` warning.
Confidence is clamped to 0.01..0.99 and labelled ``high`` (>= 0.75), ``medium`` (>= 0.50) or
``low``.  A word is reported when its best reading reaches
``min_confidence`` (0.50 by default) or specific evidence names that reading; everything else
is skipped silently.

Nothing in the input makes the scanner raise: bytes are decoded as UTF-8 with replacement
characters, only the first :data:`MAX_LINE` characters of a line are scanned (the rest of a
longer line is read and dropped), and every pattern is linear (possessive quantifiers, bounded
look-behind, names matched on the reversed text before a value).

Speed and memory: one precompiled prefilter drops lines that cannot hold anything; the line's
first character picks the parser; a word is queued only when a reading could reach the
reporting threshold (:func:`~descriptors.tools.dump.score.may_report`: the layouts' masks and code tables, no validators) or
the text names it, and distinct words are validated once (LRU caches); a printf-style word is
read with the name before it by one pattern, and what a distinct match of it (``name=word``)
is reported as is worked out once per context (bounded memos, in :mod:`~descriptors.tools.dump.logs`).  A
word whose evidence is complete when it is read (printf, cuda-gdb) is queued as its finding at
once.  Findings come out in line order as soon as they are final: a SASS immediate waits while
a register still holds it (a later MMA may read it), at most :data:`WINDOW` lines, so memory
stays bounded.
"""


from __future__ import annotations

import io
from collections.abc import Iterable, Iterator
from itertools import islice
from typing import IO, Any

from ...errors import ParameterError, shorten
from ...readers import TextLines
from ...rules.targets import DEFAULT_ARCH
from ...words.literals import MAX_LINE
from ...isa.sites import IdescContext
from .score import (DEFAULT_MIN_CONFIDENCE, FAMILIES, WINDOW, Candidate, FoundWord, check_options,
                    classify, families_on, on_arch)
from .logs import scan_text
from .code import scan_code

#: The name :class:`FoundWord` had in 0.1.0 (it is a word found in a dump, not a diagnostic).
DumpFinding = FoundWord

__all__ = [
    "Candidate", "FoundWord", "DumpFinding", "scan", "scan_lines", "scan_stream", "iter_lines", "classify",
    "MAX_LINE", "WINDOW", "DEFAULT_MIN_CONFIDENCE", "FAMILIES", "DEFAULT_ARCH",
]

def scan_lines(lines: Iterable[str | bytes], *, as_: str | None = None, kind: str | None = None,
               arch: str | None = None, min_confidence: float = DEFAULT_MIN_CONFIDENCE,
               window: int = WINDOW) -> Iterator[FoundWord]:
    """Scan lines (``str``, or ``bytes`` decoded as UTF-8 with replacement) and yield a
    :class:`FoundWord` per word that reads as a descriptor, in line order, as a stream.

    Memory stays bounded: a SASS immediate waits at most ``window`` lines for an MMA
    instruction that reads it.  ``as_`` restricts the readings to one family (and raises its
    confidence), ``kind`` fixes the instruction descriptor's kind, ``min_confidence`` is the
    reporting threshold for words the text does not name.  ``arch`` is the target the words
    are read for (sm_90a: wgmma matrix descriptors; the tcgen05 targets: tcgen05's words);
    ``None``: the target the code names (SASS ``code for sm_90a``, PTX ``.target``; each
    function its own), else :data:`DEFAULT_ARCH`.  Raises :class:`ParameterError` for a bad
    option (``as_`` a word ``arch`` does not have, too), before the first line is read."""
    as_, context = check_options(as_, kind, arch)
    if arch is not None and as_ is not None and on_arch(as_, arch) not in families_on(arch):
        raise ParameterError(f"as {as_}: the {as_} word does not exist on {arch} (its "
                             f"descriptors: {', '.join(families_on(arch))}); with no arch given, "
                             f"a word of another target is judged on its own target")
    if isinstance(lines, (str, bytes)) or not isinstance(lines, Iterable):
        raise ParameterError(f"scan_lines takes an iterable of lines (str or bytes), not "
                             f"{shorten(lines)}; scan() takes one text")
    if isinstance(min_confidence, bool) or not isinstance(min_confidence, (int, float)) \
            or not 0.0 <= min_confidence <= 1.0:  # NaN fails both comparisons
        raise ParameterError(f"min_confidence must be a number in 0..1, not "
                             f"{shorten(min_confidence)}")
    if window.__class__ is not int or window < 1:
        raise ParameterError(f"window must be a positive integer of lines, not {shorten(window)}")
    return _scan(lines, as_, context, arch, min_confidence, window,
                 lines.__class__ is TextLines)




def _decoded_lines(lines: Iterable[str | bytes]) -> Iterator[str]:
    for lineno, line in enumerate(lines, 1):
        if line.__class__ is not str:
            if not isinstance(line, (bytes, bytearray, memoryview)):
                raise ParameterError(f"line {lineno}: lines are str or bytes, not "
                                     f"{shorten(line)}")
            line = bytes(line).decode("utf-8", "replace")
        yield line[:MAX_LINE].rstrip("\r\n")  # type: ignore[union-attr]


def _scan(lines: Iterable[str | bytes], as_: str | None, context: IdescContext | None,
          arch: str | None, min_confidence: float, window: int, decoded: bool = False) -> Iterator[FoundWord]:
    from itertools import chain, islice

    from ...readers import SNIFF_LINES, sections, sniff
    it = iter(lines)
    head = list(islice(it, SNIFF_LINES))
    decoded_head = list(_decoded_lines(head))
    dialect = sniff(decoded_head)  # the readers' one sniffer decides
    if dialect is not None:
        if decoded:  # decoded and cut already (text_lines): taken as they are
            text: Iterable[str] = TextLines(head, it)
        else:
            text = _decoded_lines(chain(head, it))
        return chain.from_iterable(_scan_section(part, first, d, as_, context, arch, min_confidence,
                                                 window) for d, first, part in sections(text, dialect, decoded_head))
    return scan_text(chain(head, it), as_, context, arch, min_confidence, window)


def _scan_section(lines: Iterator[str], first_line: int, dialect: str, as_: str | None,
                  context: IdescContext | None, arch: str | None, min_confidence: float,
                  window: int) -> Iterator[FoundWord]:
    """:func:`scan_code` of one part of a listing (:func:`~descriptors.readers.sections`: the
    SASS and the PTX of ``cuobjdump -ptx -sass`` each read by its reader)."""
    from itertools import chain, repeat
    if dialect == "ptx" and first_line > 1:  # (the PTX reader numbers its lines from 1)
        lines = chain(repeat("", first_line - 1), lines)
    return scan_code(lines, dialect, as_, context, arch, min_confidence, window, first_line)




def iter_lines(stream: IO[bytes], max_line: int = MAX_LINE, chunk: int = 1 << 20) -> Iterator[str]:
    """Lines of a binary stream, decoded as UTF-8 with replacement, without their line end; at
    most ``max_line`` characters of each (the rest of a longer line is dropped, never held in
    memory): :func:`descriptors.readers.binary.text_lines`, the one line reader of every
    command, which reads a block of its own size at a time (``chunk`` is accepted for
    compatibility and not used)."""
    from ...readers.binary import text_lines
    lines = text_lines(stream)
    if max_line >= MAX_LINE:
        return lines
    return (line[:max_line] for line in lines)


def _text_lines(text: str) -> Iterator[str]:
    start = 0
    find = text.find
    while True:
        end = find("\n", start)
        if end < 0:
            if start < len(text):
                yield text[start:]
            return
        yield text[start:end]
        start = end + 1


def scan_stream(stream: IO[bytes], name: str | None = None, **options: Any
                ) -> Iterator[FoundWord]:
    """:func:`scan_lines` over a binary stream (a file opened ``"rb"``, ``sys.stdin.buffer``).
    With ``name`` (the input's, for the message), binary data -- NUL bytes in the first 64 KiB
    (:func:`~descriptors.readers.binary.text_lines`), neither text nor a CUDA binary nor gzip (:func:`~descriptors.readers.binary.open_input`
    reads those) -- is refused with :class:`~descriptors.errors.InputError` at once, as
    ``lint`` refuses it."""
    if not callable(getattr(stream, "read", None)):
        raise ParameterError(f"scan_stream takes a binary stream, not {shorten(stream)}")
    from ...readers.binary import text_lines
    lines = text_lines(stream, name)
    head = list(islice(lines, 1))  # (the first block read: binary data refused here)
    return scan_lines(TextLines(head, lines), **options)


def scan(text: str | bytes, **options: Any) -> list[FoundWord]:
    """Every descriptor word found in ``text`` (``str`` or ``bytes``), in line order.  Line
    ends may be LF, CRLF or CR; a byte-order mark at the start and NULs at the end are dropped.

    Options as :func:`scan_lines` (``as_``, ``kind``, ``arch``, ``min_confidence``)."""
    if isinstance(text, (bytes, bytearray, memoryview)):
        return list(scan_stream(io.BytesIO(bytes(text)), **options))
    if not isinstance(text, str):
        raise ParameterError(f"scan takes text (str or bytes), not {type(text).__name__}")
    if "\r" in text:  # CR, CRLF and LF line ends alike, as text_lines reads bytes
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return list(scan_lines(_text_lines(text.removeprefix("\ufeff").rstrip("\x00")), **options))

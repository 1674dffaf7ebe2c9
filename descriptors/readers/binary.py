"""CUDA binaries and compressed files as the text the readers take.

The readers (:mod:`descriptors.readers`, :mod:`descriptors.tools.dump`) read text: PTX, SASS listings,
logs.  This module turns what people have into that text, recognised by content, never by the
file name:

* a CUDA binary -- an ELF file (``.cubin``, ``.o``, an executable, a ``.so``) or a fatbin
  (``nvcc -fatbin``) -- is listed by ``cuobjdump -sass`` (``cuobjdump -ptx`` for the PTX it
  embeds), streamed from cuobjdump's pipe as it prints, never held whole;
* a gzip file (``\\x1f\\x8b``) is decompressed on the fly; a gzipped binary (or one piped in)
  is copied into a temporary file first (cuobjdump reads files), at most
  :data:`MAX_BINARY_BYTES`;
* anything else is passed through as it is: :func:`text_lines` reads it (binary data is
  refused on its first 64 KiB; a stream that is no regular file must show code or a log within
  :data:`MAX_STREAM_PREAMBLE` bytes).

cuobjdump is the first of: ``$DESCGEN_CUOBJDUMP``, ``cuobjdump`` on ``PATH``, the
``nvidia-cuda-cuobjdump`` wheel (``pip install 'descgen[binaries]'``, which installs the
``nvdisasm`` its ``-sass`` runs too) -- :func:`find_cuobjdump`.

Every failure is an :class:`~descriptors.errors.InputError` whose message is one line naming the
input: a file that cannot be opened, a binary cuobjdump refuses (its own message), a binary with
no SASS (no PTX) in it, a corrupt gzip stream; :class:`~descriptors.errors.ToolNotFoundError`
(an ``InputError``) when cuobjdump is missing.

Example::

    from descriptors.tools.lint import lint_lines
    from descriptors.readers.binary import sass_lines

    with sass_lines("kernel.cubin") as lines:      # cuobjdump -sass kernel.cubin, streamed
        findings = list(lint_lines(lines, file="kernel.cubin"))

:func:`open_input` gives the byte stream of any input (text, gzip, binary) for the readers that
take streams (:func:`descriptors.tools.dump.scan_stream`).  Leaving either context manager early
stops cuobjdump and removes the temporary files.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import stat
import subprocess
import zlib
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import IO

from ..structs import Struct
from ..errors import InputError, ToolNotFoundError, shorten_text
from ..words.literals import MAX_LINE
from . import TextLines

__all__ = ["ELF_MAGIC", "FATBIN_MAGIC", "GZIP_MAGIC", "CUOBJDUMP_ENV", "INSTALL_HINT", "Input",
           "MAX_BINARY_BYTES", "MAX_STREAM_PREAMBLE", "detect", "find_cuobjdump", "open_input",
           "sass_lines", "text_lines"]

#: The first bytes of an ELF file (a cubin, an object file, an executable, a shared library).
ELF_MAGIC = b"\x7fELF"
#: The first bytes of a fatbin (``nvcc -fatbin``): the magic 0xBA55ED50, little-endian.
FATBIN_MAGIC = b"\x50\xed\x55\xba"
#: The first bytes of a gzip stream.
GZIP_MAGIC = b"\x1f\x8b"
#: Environment variable naming the cuobjdump to run (a path, or a name looked up on PATH).
CUOBJDUMP_ENV = "DESCGEN_CUOBJDUMP"
#: How to install cuobjdump (and the nvdisasm it runs for -sass).
INSTALL_HINT = "pip install 'descgen[binaries]'"

_HEAD = 8  # bytes looked at to tell the kinds apart
_CHUNK = 1 << 16
#: cuobjdump output read ahead (held) for its verdict before the first byte is handed on: a
#: binary it refuses, or one without SASS, fails before any of its listing is read.
_PREFETCH = 1 << 20
#: Most bytes of a CUDA binary copied to a temporary file for cuobjdump (one from a pipe or
#: standard input, or a gzipped one): 4 GiB, four times the largest CUDA binaries shipped
#: (cuBLASLt's ``libcublasLt.so``, PyTorch's ``libtorch_cuda.so``: around 1 GiB), so a small
#: crafted gzip cannot fill the disk.  A binary given as a file is read in place, with
#: no copy and no limit.
MAX_BINARY_BYTES = 4 << 30
#: What every listing of code has, per mode: a SASS function header, a PTX module's version.
_MARKERS = {"-sass": b"Function : ", "-ptx": b".version"}


def detect(head: bytes) -> str | None:
    """What the first bytes of an input say it is: ``"elf"``, ``"fatbin"``, ``"gzip"``, or
    ``None`` (text, or other data)."""
    if head.startswith(ELF_MAGIC):
        return "elf"
    if head.startswith(FATBIN_MAGIC):
        return "fatbin"
    if head.startswith(GZIP_MAGIC):
        return "gzip"
    return None


def _executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def _wheel_cuobjdump() -> str | None:
    """The cuobjdump of the ``nvidia-cuda-cuobjdump`` wheel (``site-packages/nvidia/cu13/bin``),
    or None."""
    from importlib.metadata import PackageNotFoundError, files

    try:
        for f in files("nvidia-cuda-cuobjdump") or ():
            if f.name in ("cuobjdump", "cuobjdump.exe") and f.parent.name == "bin":
                found = Path(str(f.locate()))
                if _executable(found):
                    return str(found)
    except PackageNotFoundError:
        pass
    import importlib.util

    try:
        spec = importlib.util.find_spec("nvidia")
    except (ImportError, ValueError):
        spec = None
    for root in (spec.submodule_search_locations or ()) if spec is not None else ():
        for cand in sorted(Path(root).glob("cu*/bin/cuobjdump*"), reverse=True):
            if cand.stem == "cuobjdump" and _executable(cand):
                return str(cand)
    return None


def find_cuobjdump() -> str:
    """The cuobjdump to run: ``$DESCGEN_CUOBJDUMP`` (it must be one), else ``cuobjdump`` on
    ``PATH``, else the ``nvidia-cuda-cuobjdump`` wheel's.  Raises
    :class:`~descriptors.errors.ToolNotFoundError` naming :data:`INSTALL_HINT`."""
    given = os.environ.get(CUOBJDUMP_ENV)
    if given:
        found = shutil.which(given)
        if found is None:
            raise ToolNotFoundError(
                f"cuobjdump not found: {CUOBJDUMP_ENV}={shorten_text(given)} is not an "
                f"executable (unset it to use PATH, or {INSTALL_HINT})")
        return found
    found = shutil.which("cuobjdump") or _wheel_cuobjdump()
    if found is None:
        raise ToolNotFoundError(
            f"cuobjdump not found (needed to read CUDA binaries): {INSTALL_HINT}, or put the "
            f"CUDA toolkit's bin on PATH, or set {CUOBJDUMP_ENV}")
    return found


class _Source(io.RawIOBase):
    """A raw stream over ``read(n) -> bytes`` (b"" at the end), for :class:`io.BufferedReader`;
    read errors (a corrupt gzip stream, an I/O error) become one :class:`InputError`."""

    def __init__(self, read: Callable[[int], bytes], name: str) -> None:
        super().__init__()
        self._read = read
        self._name = name

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        data = _guarded(self._read, len(buffer), self._name)
        n = len(data)
        buffer[:n] = data
        return n


def _guarded(read: Callable[[int], bytes], n: int, name: str) -> bytes:
    try:
        return read(n)
    except InputError:
        raise
    except (OSError, EOFError, zlib.error) as exc:
        reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        raise InputError(f"{name}: cannot read: {reason}") from None


def _chain(head: bytes, read: Callable[[int], bytes]) -> Callable[[int], bytes]:
    """``read`` with ``head`` (bytes already read from it) put back in front."""
    pending = [head] if head else []

    def chained(n: int) -> bytes:
        if pending:
            data = pending.pop()
            if len(data) > n:
                pending.append(data[n:])
                data = data[:n]
            return data
        return read(n)

    return chained


class _Stream(io.BufferedReader):
    """A buffered stream of an input; ``descgen_unbounded``: it is no regular file (a pipe, a
    FIFO, a character device, or gzip read from one), so :func:`text_lines` bounds what it
    may feed before it shows code or a log (:data:`MAX_STREAM_PREAMBLE`)."""

    descgen_unbounded = False


def _buffered(read: Callable[[int], bytes], name: str, unbounded: bool = False) -> IO[bytes]:
    stream = _Stream(_Source(read, name), buffer_size=_CHUNK)
    stream.descgen_unbounded = unbounded
    return stream  # type: ignore[return-value]


def _read_head(read: Callable[[int], bytes], name: str) -> bytes:
    head = b""
    while len(head) < _HEAD:
        more = _guarded(read, _HEAD - len(head), name)
        if not more:
            break
        head += more
    return head


class _Listing:
    """A running ``cuobjdump -sass|-ptx FILE``: its stdout read in chunks as it prints (the
    first ones held until the listing shows code, the process has ended or
    :data:`_PREFETCH` bytes came), its stderr in a temporary file (no pipe to fill).  At the
    end of the output the exit status is checked: a failure, or a listing without code, is an
    :class:`InputError` with cuobjdump's own message."""

    def __init__(self, tool: str, path: str, name: str, mode: str) -> None:
        self.name = name
        self.path = path
        self.mode = mode
        self.marker = _MARKERS[mode]
        self.found = False
        self.tail = b""
        self.ahead: deque[bytes] = deque()
        self.eof = False
        self.checked = False
        import tempfile  # (only for a binary: text inputs never load it)

        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115 - closed in close()
        try:
            self.proc = subprocess.Popen([tool, mode, os.path.abspath(path)],
                                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                         stderr=self.stderr)
        except OSError as exc:
            self.stderr.close()
            raise ToolNotFoundError(f"cannot run cuobjdump ({shorten_text(tool)}): "
                                    f"{exc.strerror or exc}; {INSTALL_HINT}") from None

    def _watch(self, data: bytes) -> None:
        if not self.found:
            seen = self.tail + data
            self.found = self.marker in seen
            self.tail = seen[-(len(self.marker) - 1):]

    def _next(self, n: int) -> bytes:
        assert self.proc.stdout is not None
        data = self.proc.stdout.read1(n)
        if data:
            self._watch(data)
        else:
            self.eof = True
            self.check()
        return data

    def prefetch(self) -> None:
        held = 0
        while not self.found and not self.eof and held < _PREFETCH:
            data = self._next(_CHUNK)
            if data:
                self.ahead.append(data)
                held += len(data)

    def read(self, n: int) -> bytes:
        if self.ahead:
            data = self.ahead.popleft()
            if len(data) > n:
                self.ahead.appendleft(data[n:])
                data = data[:n]
            return data
        if self.eof:
            return b""
        return self._next(n)

    def _message(self) -> str:
        self.stderr.seek(0)
        text = self.stderr.read(1 << 16).decode("utf-8", "replace").replace(self.path, self.name)
        lines = [" ".join(line.split()) for line in text.splitlines() if line.strip()]
        worst = [line for line in lines if "fatal" in line or "error" in line.lower()]
        message = (worst or lines or ["(no message)"])[-1]
        if "nvdisasm" in message:
            message += f" ({INSTALL_HINT} installs it)"
        return shorten_text(message) if len(message) > 300 else message

    def check(self) -> None:
        """At the end of the output: the exit status and whether code was listed."""
        if self.checked:
            return
        self.checked = True
        rc = self.proc.wait()
        if rc != 0:
            status = f"exit {rc}" if rc > 0 else f"killed by signal {-rc}"
            raise InputError(f"{self.name}: cuobjdump {self.mode} failed ({status}): "
                             f"{self._message()}")
        if not self.found:
            if self.mode == "-ptx":
                raise InputError(f"{self.name}: no PTX found (cuobjdump -ptx printed none: "
                                 f"the binary embeds no PTX)")
            raise InputError(f"{self.name}: no SASS found (cuobjdump -sass listed no function)")

    def close(self) -> None:
        if self.proc.poll() is None:  # left early: stop it
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self.stderr.close()


class Input(Struct, frozen=True):
    """An opened input: ``stream`` (bytes of text: the file, its decompressed text, or
    cuobjdump's listing of it), ``name`` (as messages show it), ``kind`` (``"text"``, or
    ``"binary"`` for a listing of a CUDA binary), ``compressed`` (it was gzip), ``regular``
    (``stream`` is the file itself, a regular file: its size is the size to read)."""

    stream: IO[bytes]
    name: str
    kind: str
    compressed: bool = False
    regular: bool = False


def _copy(read: Callable[[int], bytes], name: str, stack: ExitStack) -> str:
    """The rest of a stream in a temporary file (removed when ``stack`` closes); its path."""
    import tempfile

    folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="descgen-"))
    path = os.path.join(folder, "input")
    copied = 0
    with open(path, "wb") as out:
        while True:
            data = _guarded(read, 1 << 20, name)
            if not data:
                break
            copied += len(data)
            if copied > MAX_BINARY_BYTES:
                raise InputError(
                    f"{name}: CUDA binary larger than {_size(MAX_BINARY_BYTES)} once decompressed "
                    f"or read from a pipe (the most copied for cuobjdump: four times the largest "
                    f"CUDA libraries shipped); give the binary itself as a file")
            out.write(data)
    return path


def _size(n: int) -> str:
    """``n`` bytes in the largest binary unit that divides it (``4 GiB``, ``64 KiB``)."""
    for unit in ("GiB", "MiB", "KiB"):
        step = {"GiB": 30, "MiB": 20, "KiB": 10}[unit]
        if n >= 1 << step and n % (1 << step) == 0:
            return f"{n >> step} {unit}"
    return f"{n} bytes"


def _listing(path: str, name: str, ptx: bool, cuobjdump: str | None, stack: ExitStack) -> IO[bytes]:
    listing = _Listing(cuobjdump or find_cuobjdump(), path, name, "-ptx" if ptx else "-sass")
    stack.callback(listing.close)
    listing.prefetch()
    return _buffered(listing.read, name)


@contextmanager
def open_input(source: str | os.PathLike[str] | IO[bytes], *, name: str | None = None,
               ptx: bool = False, cuobjdump: str | None = None) -> Iterator[Input]:
    """Open an input for the readers: ``source`` is a path or a binary stream (standard input:
    ``sys.stdin.buffer``); ``name`` is what messages call it (default: the path, or the
    stream's name).  Yields an :class:`Input` whose ``stream`` has the text: a text file as it
    is, a gzip file decompressed, a CUDA binary (ELF or fatbin, gzipped or not) as
    ``cuobjdump -sass`` lists it (``-ptx`` with ``ptx=True``; ``cuobjdump`` overrides
    :func:`find_cuobjdump`).  ``ptx`` does nothing for text.  On leaving, the files are
    closed, cuobjdump is stopped if it still runs and temporary files are removed.

    Raises :class:`~descriptors.errors.InputError` (one line, naming the input) when the input
    cannot be opened or read, cuobjdump refuses it or lists no code; the stream raises it too
    when the failure shows only later (a gzip stream corrupt further on, cuobjdump failing
    after printing part of a listing)."""
    with ExitStack() as stack:
        path: str | None = None
        if isinstance(source, (str, os.PathLike)):
            path = os.fspath(source)
            label = name if name is not None else path
            try:
                raw: IO[bytes] = stack.enter_context(open(path, "rb"))  # noqa: SIM115
            except OSError as exc:
                raise InputError(f"cannot read {label}: {exc.strerror or exc}") from None
        else:
            raw = source
            label = name if name is not None else str(getattr(source, "name", "<stream>"))
        head = _read_head(raw.read, label)
        try:  # a regular file: read again from the start (else: the head put back in front)
            seekable = (path is not None and raw.seekable()
                        and stat.S_ISREG(os.fstat(raw.fileno()).st_mode))
        except (OSError, ValueError, AttributeError):
            seekable = False
        try:  # standard input redirected from a file is bounded by its size too
            unbounded = not stat.S_ISREG(os.fstat(raw.fileno()).st_mode)
        except (OSError, ValueError, AttributeError):
            unbounded = not seekable
        if seekable:
            raw.seek(0)
            read = raw.read
        else:
            read = _chain(head, raw.read)
        kind = detect(head)
        if kind in ("elf", "fatbin"):
            file = path if seekable else _copy(read, label, stack)
            assert file is not None
            yield Input(_listing(file, label, ptx, cuobjdump, stack), label, "binary")
            return
        if kind == "gzip":
            import gzip

            gz = stack.enter_context(gzip.GzipFile(fileobj=_buffered(read, label), mode="rb"))
            inner = _read_head(gz.read, label)
            if detect(inner) in ("elf", "fatbin"):
                file = _copy(_chain(inner, gz.read), label, stack)
                yield Input(_listing(file, label, ptx, cuobjdump, stack), label, "binary",
                            compressed=True)
                return
            yield Input(_buffered(_chain(inner, gz.read), label, unbounded), label, "text",
                        compressed=True)
            return
        if seekable:
            yield Input(raw, label, "text", regular=True)
            return
        yield Input(_buffered(read, label, unbounded), label, "text")


#: Bytes :func:`text_lines` reads at a time; also the least of real data (or all of it, when
#: less) the binary check looks at: a pipe's first read may be a few bytes.
_BLOCK = 1 << 16
#: NUL bytes at the very end of an input (what a tool writing a fixed-size buffer leaves) are
#: dropped, up to this many held back at a time; NULs anywhere else in the first block make
#: the input binary data.
_NUL_TAIL = 1 << 12
#: The byte-order marks of the encodings a listing may come in besides UTF-8 (PowerShell's
#: ``>`` writes UTF-16LE with its mark).  UTF-16 with a mark is decoded; without one it is
#: refused, naming the encoding.
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_UTF8_BOM = b"\xef\xbb\xbf"
#: Share of the first block's characters that may be undecodable bytes or control characters
#: (other than tab, line ends, form feed and ESC of colour codes) for the input to be text.
_NOT_TEXT_SHARE = 0.25
_CONTROL = re.compile("[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f\ufffd]")
#: Bytes a stream that is not a regular file (a pipe, standard input, a FIFO, a character
#: device such as /dev/urandom) may feed before one line shows code or a log (what
#: :func:`descriptors.readers.listing_line` recognises): there is no size to bound it, and a
#: real listing or log shows one in its first lines.  Checked only where :func:`open_input`
#: marks the stream (not for a regular file, whose size bounds it).
MAX_STREAM_PREAMBLE = 16 << 20


def text_lines(stream: IO[bytes], name: str | None = None) -> Iterator[str]:
    """Decoded lines of a byte stream (UTF-8, replacement characters; UTF-16 with a
    byte-order mark), without line ends (LF, CRLF and CR alike; a UTF-8 byte-order mark and
    NUL bytes at the very end dropped), each cut at MAX_LINE characters, in constant memory:
    the stream is read a block at a time and decoded and split a block at a time; of a line
    longer than 4 * MAX_LINE bytes the rest is dropped unread into memory.  With ``name``,
    binary data (a NUL byte in the first 64 KiB of data other than at its end, or mostly
    undecodable bytes and control characters there) is refused with :class:`InputError`
    (when the first line is read); so is a stream from :func:`open_input` that is no regular
    file and feeds :data:`MAX_STREAM_PREAMBLE` bytes without a line of code or log."""
    return TextLines.from_iterable(_text_blocks(stream, name))


def _binary_check(block: bytes, name: str) -> None:
    """Refuse ``block`` (the first block of data, its trailing NULs dropped) unless it is
    text."""
    if b"\x00" in block:
        nuls = block.count(b"\x00")
        odd = block[1::2].count(b"\x00") if block[0:1] != b"\x00" else block[0::2].count(b"\x00")
        if len(block) >= 16 and odd >= 0.9 * nuls >= 0.3 * len(block):
            raise InputError(f"{name}: UTF-16 text without a byte-order mark (convert it to "
                             "UTF-8, e.g. iconv -f UTF-16LE -t UTF-8)")
        raise InputError(f"{name}: binary data, not text (nor a CUDA binary or gzip file)")
    if len(block) >= 256:
        text = block.decode("utf-8", "replace")
        if len(_CONTROL.findall(text)) > _NOT_TEXT_SHARE * len(text):
            raise InputError(f"{name}: binary data, not text (nor a CUDA binary or gzip "
                             "file): most of its first bytes are no UTF-8 text")


def _utf16(first: bytes) -> bool:
    """Whether ``first`` (the first block) is UTF-16 text: a byte-order mark, then mostly
    ASCII characters (a NUL high byte in at least half the code units; a listing's text is
    ASCII), not data that happens to start with the mark's bytes."""
    if not first.startswith(_UTF16_BOMS) or len(first) < 4:
        return False
    high = first[3::2] if first.startswith(b"\xff\xfe") else first[2::2]
    return high.count(0) * 2 >= len(high)


def _data_blocks(stream: IO[bytes], name: str | None) -> Iterator[bytes]:
    """The data of ``stream`` in blocks of :data:`_BLOCK` bytes or so, as :func:`text_lines`
    splits it: UTF-16 (with a byte-order mark) re-encoded as UTF-8, a UTF-8 byte-order mark
    dropped, every line end one LF (a CRLF split between two reads too), NUL bytes at the end
    dropped; the data of the first :data:`_BLOCK` bytes checked (:func:`_binary_check`, each
    read as it comes: a pipe fed by a running program is not kept waiting) when ``name`` is
    given."""
    read = getattr(stream, "read1", None) or stream.read
    first = b""
    # enough to tell a byte-order mark, and UTF-16 without one from binary data
    while len(first) < 4 or b"\x00" in first and len(first) < 256:
        more = read(_BLOCK - len(first))
        if not more:
            break
        first += more
    if _utf16(first):
        import codecs

        decoder = codecs.getincrementaldecoder("utf-16")("replace")
        raw_read = read

        def read(n: int) -> bytes:  # noqa: F811 - the stream, re-encoded
            while True:
                data = raw_read(n)
                text = decoder.decode(data, final=not data)
                if text or not data:
                    return text.encode("utf-8")

        first = decoder.decode(first, final=False).encode("utf-8")
    if first.startswith(_UTF8_BOM):
        first = first[len(_UTF8_BOM):]
    preamble = MAX_STREAM_PREAMBLE if getattr(stream, "descgen_unbounded", False) else None
    # the bytes of data still to check: the first _BLOCK of real data, not a pipe's first read
    block, carry, nuls, unchecked = first, b"", b"", 0 if name is None else _BLOCK
    while True:
        at_end = not block
        data = carry + nuls + block
        carry = nuls = b""
        if data.endswith(b"\r") and not at_end:  # maybe the CR of a CRLF: wait for the LF
            data, carry = data[:-1], b"\r"
        if data.endswith(b"\x00"):
            kept = data.rstrip(b"\x00")
            if at_end or len(data) - len(kept) <= _NUL_TAIL:
                data, nuls = kept, (b"" if at_end else data[len(kept):])
        if b"\r" in data:
            data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        if unchecked > 0 and (data or at_end):
            unchecked = 0 if at_end else unchecked - len(data)
            _binary_check(data, name)  # type: ignore[arg-type]
        if preamble is not None and data:
            preamble = _preamble(data, preamble, name)
        if data:
            yield data
        if at_end:
            return
        block = read(_BLOCK)


def _preamble(data: bytes, left: int, name: str | None) -> int | None:
    """What is left of :data:`MAX_STREAM_PREAMBLE` after ``data``, or None once a line of
    ``data`` shows code or a log; raises :class:`InputError` when it runs out."""
    from . import listing_line

    if any(map(listing_line, data.decode("utf-8", "replace").split("\n"))):
        return None
    left -= len(data)
    if left <= 0:
        raise InputError(f"{name or 'input'}: no PTX, SASS or log line in its first "
                         f"{_size(MAX_STREAM_PREAMBLE)}; a stream that is no regular file "
                         "is read only while it shows one (save it to a file to read it whole)")
    return left


def _text_blocks(stream: IO[bytes], name: str | None) -> Iterator[list[str]]:
    """The lines of :func:`text_lines`, a block's worth at a time."""
    limit = MAX_LINE * 4
    blocks = _data_blocks(stream, name)
    tail = b""          # the start of a line whose end is not read yet
    dropping = False    # inside the dropped rest of an over-long line
    while True:
        block = next(blocks, b"")
        if not block:
            if tail and not dropping:
                yield _decoded(tail)
            return
        end = block.rfind(b"\n")
        if end < 0:  # no line ends in this block
            if not dropping:
                tail += block
                if len(tail) > limit:
                    yield _decoded(tail[:limit])
                    tail, dropping = b"", True
            continue
        whole, rest = block[:end], block[end + 1:]
        if dropping:
            cut = whole.find(b"\n")
            whole = b"" if cut < 0 else whole[cut + 1:]
            dropping = False
            if cut < 0:  # the over-long line ends at this block's last line end
                tail = rest if len(rest) <= limit else b""
                if len(rest) > limit:
                    yield _decoded(rest[:limit])
                    dropping = True
                continue
        elif tail:
            whole = tail + whole
        yield _decoded(whole)
        tail = b""
        if len(rest) > limit:
            yield _decoded(rest[:limit])
            dropping = True
        else:
            tail = rest


def _decoded(data: bytes) -> list[str]:
    """The lines of ``data`` (whole lines, without the last line end), decoded and cut."""
    text = data.decode("utf-8", "replace")
    lines = text.split("\n")
    if "\r" in text:
        lines = [line.rstrip("\r\n") for line in lines]
    if max(map(len, lines)) > MAX_LINE:
        lines = [line[:MAX_LINE] for line in lines]
    return lines


@contextmanager
def sass_lines(path: str | os.PathLike[str], *, ptx: bool = False,
               cuobjdump: str | None = None) -> Iterator[Iterator[str]]:
    """The lines of ``cuobjdump -sass PATH`` (``-ptx`` with ``ptx=True``) as ``str`` without
    their line ends, cut at :data:`~descriptors.readers.MAX_LINE` characters, streamed as
    cuobjdump prints them -- ready for :func:`descriptors.tools.lint.lint_lines` or
    :func:`descriptors.tools.dump.scan_lines`.  ``path`` may be gzipped; a text file (a listing
    already) gives its own lines.  A context manager: leaving it stops cuobjdump::

        with sass_lines("kernel.cubin") as lines:
            for line in lines:
                ...

    Raises :class:`~descriptors.errors.InputError` as :func:`open_input` does (on entering, or
    from the iterator when cuobjdump fails late); :class:`~descriptors.errors.ToolNotFoundError`
    when there is no cuobjdump (:func:`find_cuobjdump`)."""
    with open_input(path, ptx=ptx, cuobjdump=cuobjdump) as opened:
        yield text_lines(opened.stream)

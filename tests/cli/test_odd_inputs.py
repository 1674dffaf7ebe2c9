"""Odd inputs read alike or are refused in one line, never read until killed.

* line ends (LF, CRLF, CR, mixed), a UTF-8 byte-order mark, NULs at the end and UTF-16 with a
  byte-order mark give ``lint`` and ``dump`` the same report as the plain file, read from a
  file, a ``.gz`` and standard input;
* inputs that are no regular file (a pipe, a FIFO, a character device) are checked for binary
  data on their first block of data, not on a pipe's first few bytes, and may feed only
  :data:`~descriptors.readers.binary.MAX_STREAM_PREAMBLE` bytes before they show code or a log;
* a CUDA binary copied for cuobjdump (gzipped, or from a pipe) is capped at
  :data:`~descriptors.readers.binary.MAX_BINARY_BYTES`;
* ``cuobjdump -ptx -sass`` output (``fixtures/binaries/bad_m256_cta1.ptx-sass.txt``): the SASS
  and the PTX are both read, each by its reader.
"""

from __future__ import annotations

import gzip
import io
import os
import random
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from helpers import runner

from cli.main import app
from descriptors.readers import binary
from descriptors.readers.binary import text_lines

ROOT = Path(__file__).resolve().parents[2]
SASS = ROOT / "fixtures" / "lint" / "bad_m256_cta1.sass"  # lint: 1 error (idesc.shape)
PTX = ROOT / "fixtures" / "lint" / "bad_m256_cta1.ptx"
BOTH = ROOT / "fixtures" / "binaries" / "bad_m256_cta1.ptx-sass.txt"


def _invoke(*args: str, input: bytes | None = None):
    return runner.invoke(app, list(args), input=input)


def _one_error(result) -> str:
    assert result.exit_code == 2, (result.stdout, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("descgen: error: "), result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    return lines[0]


#: How each variant writes the LF text.
VARIANTS = {
    "crlf": lambda d: d.replace(b"\n", b"\r\n"),
    "cr": lambda d: d.replace(b"\n", b"\r"),
    "mixed": lambda d: b"".join(line + (b"\n", b"\r", b"\r\n")[i % 3]  # (CR then an empty LF line would be a CRLF)
                                for i, line in enumerate(d.split(b"\n")[:-1])),
    "utf8-bom": lambda d: b"\xef\xbb\xbf" + d,
    "trailing-nul": lambda d: d + b"\x00",
    "trailing-nuls-no-lf": lambda d: d.rstrip(b"\n") + b"\x00" * 100,
    "utf16le-bom": lambda d: b"\xff\xfe" + d.decode().encode("utf-16-le"),
    "utf16be-bom-crlf": lambda d: b"\xfe\xff" + d.replace(b"\n", b"\r\n").decode().encode("utf-16-be"),
}


def _reports(path: Path, data: bytes, tmp_path: Path, command: str) -> dict[str, tuple[int, str]]:
    """``command``'s exit code and stdout for ``data`` from a file, a .gz and stdin, the
    input's name written as ``IN``."""
    plain = tmp_path / path.name
    plain.write_bytes(data)
    packed = tmp_path / (path.name + ".gz")
    packed.write_bytes(gzip.compress(data))
    out = {}
    for how, name, args, given in (("file", str(plain), [str(plain)], None),
                                   ("gz", str(packed), [str(packed)], None),
                                   ("stdin", "<stdin>", ["-"], data)):
        result = _invoke(command, "--plain", *args, input=given)
        assert result.stderr == "", (how, result.stderr)
        out[how] = (result.exit_code, result.stdout.replace(name, "IN"))
    return out


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("source", [SASS, PTX], ids=["sass", "ptx"])
def test_line_ends_bom_and_nuls_read_alike(variant, source, tmp_path):
    data = source.read_bytes()
    assert b"\r" not in data and data.endswith(b"\n")
    for command in ("lint", "dump"):
        (tmp_path / command / "lf").mkdir(parents=True)
        (tmp_path / command / variant).mkdir()
        expected = _reports(source, data, tmp_path / command / "lf", command)
        got = _reports(source, VARIANTS[variant](data), tmp_path / command / variant, command)
        assert got == expected, (command, variant)
        if command == "lint":  # the error is found: not read as one long line
            assert expected["stdin"][0] == 1 and "1 error," in expected["stdin"][1]
        else:
            assert "0x10400490" in expected["stdin"][1]


def test_crlf_split_between_reads_is_one_line_end():
    """A CR at the end of one read and its LF at the start of the next make one line end; a
    CR alone ends a line too, wherever the reads fall."""

    class Chunks(io.RawIOBase):
        def __init__(self, parts):
            self.parts = list(parts)

        def readable(self):
            return True

        def read(self, n=-1):
            return self.parts.pop(0) if self.parts else b""

    block = binary._BLOCK
    first = b"a" * (block - 1) + b"\r"
    lines = list(text_lines(Chunks([first, b"\nb\rc\r", b"\nd"]), "x"))
    assert lines == ["a" * min(block - 1, binary.MAX_LINE), "b", "c", "d"]
    assert list(text_lines(Chunks([b"x\r"]), "x")) == ["x"]
    assert list(text_lines(Chunks([b"x\r", b"\r\n", b"y"]), "x")) == ["x", "", "y"]


def test_utf16_without_a_byte_order_mark_is_named():
    data = SASS.read_bytes().decode().encode("utf-16-le")
    message = _one_error(_invoke("lint", "-", input=data))
    assert "UTF-16 text without a byte-order mark" in message and "iconv" in message


# ------------------------------------------------------------------ inputs that are no file

def _text_then_nuls(size: int) -> bytes:
    return b"abcdefgh" + b"\x00" * size


def _random(size: int, nul: bool = True) -> bytes:
    data = random.Random(5).randbytes(size)
    return data if nul else data.replace(b"\x00", b"\x01")


@pytest.mark.parametrize("command", ["lint", "dump"])
@pytest.mark.parametrize("data", [
    _text_then_nuls(1 << 20),      # a pipe's first 8 bytes are text: the block is not
    _random(1 << 20),               # /dev/urandom
    _random(1 << 20, nul=False),    # random bytes without a NUL: mostly not UTF-8
    gzip.compress(_random(1 << 18)),
], ids=["text-then-nuls", "random", "random-no-nul", "gzip-random"])
def test_binary_data_on_stdin_is_refused(command, data):
    message = _one_error(_invoke(command, "-", input=data))
    assert message == "descgen: error: <stdin>: binary data, not text (nor a CUDA binary or " \
        "gzip file)" + ("" if b"\x00" in data or data.startswith(b"\x1f\x8b") else
                        ": most of its first bytes are no UTF-8 text")


def _piped(args: list[str], line: bytes, limit: int, **caps: int) -> tuple[int, str, int]:
    """``descgen ARGS`` in a subprocess (the module's ``caps`` set first) whose standard input
    is a pipe fed ``line`` over and over, ``limit`` bytes at most (so a failing test ends);
    its exit code, stderr and the bytes fed before it stopped reading."""
    code = ("import sys; from descriptors.readers import binary; "
            + "".join(f"binary.{k} = {v}; " for k, v in caps.items())
            + "from cli.main import main; sys.argv[0] = 'descgen'; main()")
    proc = subprocess.Popen([sys.executable, "-c", code, *args], cwd=ROOT, stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    given = 0

    def writer():
        nonlocal given
        chunk = line * (65536 // len(line) + 1)
        try:
            while given < limit:
                proc.stdin.write(chunk)
                given += len(chunk)
            proc.stdin.close()
        except (BrokenPipeError, OSError, ValueError):
            pass

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    killer = threading.Timer(20, proc.kill)  # (communicate() would close stdin at once)
    killer.start()
    try:
        err = proc.stderr.read()
        proc.wait()
    finally:
        killer.cancel()
        proc.kill()
    thread.join(5)
    return proc.returncode, err.decode(), given


@pytest.mark.parametrize("command", ["lint", "dump"])
def test_a_stream_must_show_code_or_a_log_early(command):
    rc, err, given = _piped([command, "-"], b"no code here, just words\n", 64 << 20,
                            MAX_STREAM_PREAMBLE=1 << 18)
    assert (rc, err) == (2, "descgen: error: <stdin>: no PTX, SASS or log line in its first 256 "
                            "KiB; a stream that is no regular file is read only while it shows "
                            "one (save it to a file to read it whole)\n")
    assert given < 8 << 20  # stopped at the cap (and the pipe's buffer), not at the end


@pytest.mark.parametrize("command", ["lint", "dump"])
def test_a_stream_that_shows_code_is_read_whole(command, monkeypatch):
    monkeypatch.setattr(binary, "MAX_STREAM_PREAMBLE", 1 << 10)
    data = SASS.read_bytes() + b"no code here, just words\n" * 1000  # beyond the cap
    result = _invoke(command, "-", input=data)
    assert result.stderr == "" and result.exit_code == (1 if command == "lint" else 0)


def test_a_regular_file_is_not_capped(monkeypatch, tmp_path):
    monkeypatch.setattr(binary, "MAX_STREAM_PREAMBLE", 1 << 16)
    words = tmp_path / "words.txt"
    words.write_bytes(b"no code here, just words\n" * 20_000)
    assert "no PTX or SASS found (text" in _one_error(_invoke("lint", str(words)))
    result = _invoke("dump", str(words))
    assert (result.exit_code, result.stderr) == (0, "")


def _cli(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cli.main", *args], cwd=ROOT, capture_output=True,
                          timeout=20, **kwargs)


@pytest.mark.parametrize("command", ["lint", "dump"])
def test_a_fifo_of_random_bytes_is_refused(command, tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)

    def writer():
        try:
            with open(fifo, "wb") as out:
                for _ in range(64):  # 16 MiB at most
                    out.write(_random(1 << 18))
        except BrokenPipeError:
            pass

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    done = _cli(command, str(fifo))
    thread.join(5)
    assert done.returncode == 2
    assert done.stderr.decode() == f"descgen: error: {fifo}: binary data, not text (nor a CUDA " \
        "binary or gzip file)\n"


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_a_character_device_is_refused():
    done = _cli("lint", "/dev/zero")  # endless: refused on its first block
    assert (done.returncode, done.stderr.decode()) == (
        2, "descgen: error: /dev/zero: binary data, not text (nor a CUDA binary or gzip file)\n")


# ------------------------------------------------------------------ binaries copied for cuobjdump

def test_a_gzipped_binary_beyond_the_cap_is_refused(monkeypatch, tmp_path):
    monkeypatch.setattr(binary, "MAX_BINARY_BYTES", 1 << 20)
    bomb = tmp_path / "kernel.cubin.gz"
    with gzip.open(bomb, "wb", compresslevel=1) as out:  # an ELF header, then 2 MiB of zeros
        out.write(b"\x7fELF\x02\x01\x01" + b"\x00" * 57)
        for _ in range(32):
            out.write(b"\x00" * (1 << 16))
    assert bomb.stat().st_size < 16 << 10
    for args, given, name in (([str(bomb)], None, str(bomb)),
                              (["-"], bomb.read_bytes(), "<stdin>")):
        for command in ("lint", "dump"):
            message = _one_error(_invoke(command, *args, input=given))
            assert message == (f"descgen: error: {name}: CUDA binary larger than 1 MiB once "
                               "decompressed or read from a pipe (the most copied for "
                               "cuobjdump: four times the largest CUDA libraries shipped); "
                               "give the binary itself as a file")
    assert binary._size(4 << 30) == "4 GiB" and binary._size(1000) == "1000 bytes"


def test_an_elf_from_a_pipe_beyond_the_cap_is_refused():
    rc, err, given = _piped(["lint", "-"], b"\x7fELF" + b"\x00" * 60, 64 << 20,
                            MAX_BINARY_BYTES=1 << 20)
    assert (rc, err) == (2, "descgen: error: <stdin>: CUDA binary larger than 1 MiB once "
                            "decompressed or read from a pipe (the most copied for cuobjdump: "
                            "four times the largest CUDA libraries shipped); give the binary "
                            "itself as a file\n")
    assert given < 8 << 20


# ------------------------------------------------------------------ PTX and SASS in one listing

def test_ptx_and_sass_of_one_fatbin_are_both_read():
    """``cuobjdump -ptx -sass``: the SASS member (lines 1-321) and the PTX member (from line
    322, ``Fatbin ptx code:``) each read by its reader, line numbers those of the file."""
    lines = BOTH.read_text().splitlines()
    assert lines[321] == "Fatbin ptx code:" and lines[0:2] == ["", "Fatbin elf code:"]
    result = _invoke("lint", "--plain", str(BOTH))
    assert result.exit_code == 1
    errors = [line for line in result.stdout.splitlines() if ": error: " in line]
    assert [e.split(": error: ")[0] for e in errors] == [f"{BOTH}:160:91", f"{BOTH}:389:55"]
    assert "UTCHMMA" in errors[0] and "tcgen05.mma.cta_group::1.kind::f16" in errors[1]
    assert "tcgen05.mma" in lines[388] and "UTCHMMA" in lines[159]
    result = _invoke("dump", "--plain", "--table-only", str(BOTH))
    rows = [line.split() for line in result.stdout.splitlines() if line[:6].strip().isdigit()]
    assert [(r[0], r[1], r[2]) for r in rows] == [
        ("146", "UR14", "0x00000000"), ("148", "UR15", "0x10400490"),
        ("160", "UR4:UR5", "0x4000404000000040"), ("160", "UR6:UR7", "0x4000404000000440"),
        ("380", "ptx", "0x4000404000000000"), ("383", "ptx", "0x4000404000000000"),
        ("384", "ptx", "0x10400490")]


def test_sections_of_a_listing():
    """:func:`descriptors.readers.sections`: a part per member, numbered as in the file, in
    whichever order the members come; a listing with no cuobjdump member header in its head
    is one part, the lines passed on as they are."""
    from descriptors.readers import sections
    lines = BOTH.read_text().split("\n")
    parts = [(d, first, list(part)) for d, first, part in sections(lines * 2, "sass", lines)]
    assert [(d, first, len(part)) for d, first, part in parts] == [
        ("sass", 1, 321), ("ptx", 322, 100), ("sass", 422, 320), ("ptx", 742, 99)]
    assert [part[0] for _, _, part in parts] == ["", "Fatbin ptx code:", "Fatbin elf code:",
                                                 "Fatbin ptx code:"]
    assert sum(map(len, (part for _, _, part in parts))) == 2 * len(lines)
    swapped = lines[321:] + lines[:321]
    assert [(d, first, len(list(part))) for d, first, part
            in sections(swapped, "ptx", swapped[:200])] == [("ptx", 1, 100), ("sass", 101, 320)]
    plain = SASS.read_text().split("\n")
    (only,) = list(sections(iter(plain), "sass", plain[:200]))
    assert only[:2] == ("sass", 1) and list(only[2]) == plain


def test_a_pipe_fed_by_a_running_program_is_not_kept_waiting():
    """The binary check reads each block of the first 64 KiB as it comes: a log line written to
    a pipe that stays open is read at once, not after 64 KiB or the end of the stream."""
    import os
    import threading

    from descriptors.readers.binary import text_lines

    r, w = os.pipe()
    os.write(w, b"idesc = 0x08400490\n")
    got: list[str] = []
    with os.fdopen(r, "rb") as stream:
        reader = threading.Thread(target=lambda: got.append(next(iter(text_lines(stream,
                                                                                 "<pipe>")))))
        reader.start()
        reader.join(5)
        try:
            assert got == ["idesc = 0x08400490"]
        finally:
            os.close(w)
            reader.join(5)


def test_source_that_quotes_an_instruction_is_not_read_as_ptx():
    """A Python file whose docstring names ``mov.b64 {lo, hi}`` is no PTX: refused (exit 2,
    one line) like any other source file, not linted as PTX with nothing found."""
    from helpers import fails
    message = fails("lint", "fixtures/lint/triton/make.py")
    assert "no PTX or SASS found" in message
    # a few PTX instructions pasted alone are still PTX
    from descriptors.readers import sniff
    assert sniff(["mov.b32 %r1, 138413200;", "tcgen05.mma.cta_group::1.kind::f16 [%r2], "
                  "%rd1, %rd2, %r1, 1;"]) == "ptx"

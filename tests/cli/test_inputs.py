"""What ``descgen lint`` and ``descgen dump`` read: CUDA binaries through cuobjdump, gzip, several
files, standard input, and inputs with no code in them.

* the committed cubin (``fixtures/binaries``, built from ``fixtures/lint/src/mma.cu`` by
  ``fixtures/binaries/build.sh``) gives the same lint and dump as its committed SASS listing,
  gzipped or not, from a file or stdin (skipped when cuobjdump is not installed);
* a fatbin with PTX: ``lint --ptx`` reads the PTX; a cubin has none (exit 2);
* several files in one call: order, the totals, exit codes, a bad file among good ones;
  ``lint -j 2`` prints exactly what ``-j 1`` prints;
* bad inputs, each one line on stderr and exit 2, never a traceback: a ``.cu`` file (no PTX or
  SASS), an ELF that is not a CUDA binary, no cuobjdump (the install hint), a corrupt gzip,
  cuobjdump failing part way (a fake cuobjdump), a binary without SASS;
* :func:`descriptors.readers.binary.sass_lines` streams cuobjdump and stops it when left early.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import shutil
import stat
import subprocess
import sys
import time
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from helpers import run, runner

from cli.main import app
from descriptors.errors import InputError, ToolNotFoundError
from descriptors.readers import binary
from descriptors.readers.binary import detect, find_cuobjdump, open_input, sass_lines

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / "fixtures" / "binaries"
LINT = ROOT / "fixtures" / "lint"
CUBIN = BIN / "bad_m256_cta1.cubin"
SASS = BIN / "bad_m256_cta1.sass"  # cuobjdump -sass of CUBIN, committed
FATBIN = BIN / "bad_m256_cta1.fatbin"
HINT = "pip install 'descgen[binaries]'"


@cache
def _cuobjdump_problem() -> str | None:
    """Why the real cuobjdump cannot list the cubin here, or None."""
    try:
        with sass_lines(CUBIN) as lines:
            for _ in lines:
                pass
    except InputError as exc:
        return str(exc)
    return None


needs_cuobjdump = pytest.mark.skipif(_cuobjdump_problem() is not None,
                                     reason=f"cuobjdump cannot run: {_cuobjdump_problem()} "
                                            f"({HINT})")


def _same(result, name: Path, as_: Path) -> str:
    """stdout with the input's name written as another's (to compare two reports)."""
    return result.stdout.replace(str(name), str(as_))


def _gz(tmp_path: Path, src: Path) -> Path:
    out = tmp_path / (src.name + ".gz")
    out.write_bytes(gzip.compress(src.read_bytes()))
    return out


def _one_error(result, code: int = 2) -> str:
    """The single stderr line of a bad input, checked: exit code, one line, no traceback."""
    assert result.exit_code == code, (result.stdout, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("descgen: error: ")
    assert "Traceback" not in result.stdout + result.stderr
    return lines[0]


# ------------------------------------------------------------------ detection, the library

def test_detect_by_content():
    assert detect(CUBIN.read_bytes()[:8]) == "elf"
    assert detect(FATBIN.read_bytes()[:8]) == "fatbin"
    assert detect(gzip.compress(b"x")[:8]) == "gzip"
    assert detect(SASS.read_bytes()[:8]) is None
    assert detect(b"") is None


def test_text_passes_through(tmp_path):
    with open_input(SASS) as inp:
        assert (inp.kind, inp.compressed, inp.regular) == ("text", False, True)
        assert inp.stream.read() == SASS.read_bytes()
    with open_input(_gz(tmp_path, SASS)) as inp:
        assert (inp.kind, inp.compressed) == ("text", True)
        assert inp.stream.read() == SASS.read_bytes()
    # a file named .cubin holding text is text: the content decides, not the name
    named = tmp_path / "listing.cubin"
    shutil.copy(SASS, named)
    with sass_lines(named) as lines:
        assert list(lines) == SASS.read_text().splitlines()


@needs_cuobjdump
def test_sass_lines_is_the_listing(tmp_path):
    expected = SASS.read_text().splitlines()
    with sass_lines(CUBIN) as lines:
        assert list(lines) == expected
    with sass_lines(_gz(tmp_path, CUBIN)) as lines:  # decompressed to a temporary file first
        assert list(lines) == expected
    with open(CUBIN, "rb") as stream, open_input(stream, name="<stdin>") as inp:  # a pipe
        assert inp.kind == "binary"
        assert inp.stream.read().decode().splitlines() == expected


def _fake(tmp_path: Path, body: str) -> str:
    """A fake cuobjdump: a shell script (its arguments: the mode and the file)."""
    script = tmp_path / "fake-cuobjdump"
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script)


def _elf(tmp_path: Path) -> Path:
    path = tmp_path / "kernel.o"
    path.write_bytes(b"\x7fELF" + bytes(64))
    return path


@pytest.mark.skipif(sys.platform == "win32", reason="a shell script as the fake cuobjdump")
def test_leaving_early_stops_cuobjdump(tmp_path):
    pid_file = tmp_path / "pid"
    tool = _fake(tmp_path, f'echo $$ > "{pid_file}"\n'
                 'exec yes "  /*0000*/   UTCHMMA gdesc[UR4], gdesc[UR6], tmem[UR8] ; Function : k"\n')
    with sass_lines(_elf(tmp_path), cuobjdump=tool) as lines:
        first = next(lines)
        assert "UTCHMMA" in first
    pid = int(pid_file.read_text())
    with pytest.raises(ProcessLookupError):  # killed and reaped
        os.kill(pid, 0)


@pytest.mark.skipif(sys.platform == "win32", reason="a shell script as the fake cuobjdump")
def test_cuobjdump_failures_are_input_errors(tmp_path):
    elf = _elf(tmp_path)
    late = _fake(tmp_path, 'echo "  Function : k"; echo "  /*0000*/ NOP ;"\n'
                 'echo "cuobjdump fatal   : something broke in $2" >&2; exit 3\n')
    with pytest.raises(InputError, match=r"kernel\.o: cuobjdump -sass failed \(exit 3\): "
                                         r"cuobjdump fatal : something broke in .*kernel\.o$"):
        with sass_lines(elf, cuobjdump=late) as lines:
            assert list(lines)[:1] == ["  Function : k"]  # the listing, then the failure
    empty = _fake(tmp_path, 'printf "\\nFatbin elf code:\\n================\\narch = sm_100a\\n"\n')
    with pytest.raises(InputError, match=r"kernel\.o: no SASS found \(cuobjdump -sass listed no "
                                         r"function\)"):
        with sass_lines(elf, cuobjdump=empty):
            pass
    with pytest.raises(InputError, match="no PTX found"):
        with sass_lines(elf, ptx=True, cuobjdump=empty):
            pass


def test_find_cuobjdump(monkeypatch, tmp_path):
    monkeypatch.setenv("DESCGEN_CUOBJDUMP", "/nonexistent/cuobjdump")
    with pytest.raises(ToolNotFoundError, match=r"DESCGEN_CUOBJDUMP=/nonexistent/cuobjdump .*"
                                                r"pip install 'descgen\[binaries\]'"):
        find_cuobjdump()
    monkeypatch.delenv("DESCGEN_CUOBJDUMP")
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(binary, "_wheel_cuobjdump", lambda: None)
    with pytest.raises(ToolNotFoundError, match=r"cuobjdump not found .*pip install "
                                                r"'descgen\[binaries\]'"):
        find_cuobjdump()
    tool = Path(_fake(tmp_path, "exit 0\n"))
    tool.rename(tmp_path / "cuobjdump")
    assert find_cuobjdump() == str(tmp_path / "cuobjdump")  # PATH before the wheel
    monkeypatch.setenv("DESCGEN_CUOBJDUMP", str(tmp_path / "cuobjdump"))
    assert find_cuobjdump() == str(tmp_path / "cuobjdump")


def test_the_wheel_is_found_when_installed():
    try:
        from importlib.metadata import version
        version("nvidia-cuda-cuobjdump")
    except Exception:  # noqa: BLE001
        pytest.skip("the nvidia-cuda-cuobjdump wheel is not installed")
    found = binary._wheel_cuobjdump()
    assert found is not None and Path(found).name == "cuobjdump"
    assert Path(found).parent.name == "bin"


# ------------------------------------------------------------------ lint and dump on a cubin

@needs_cuobjdump
def test_lint_cubin_is_lint_of_its_listing():
    listing = run("lint", "--plain", "-v", str(SASS))
    assert listing.exit_code == 1 and "error: [idesc.shape]" in listing.stdout
    cubin = run("lint", "--plain", "-v", str(CUBIN))
    assert (cubin.exit_code, cubin.stderr) == (1, "")
    assert _same(cubin, CUBIN, SASS) == listing.stdout
    as_json = json.loads(run("lint", "-f", "json", str(CUBIN)).stdout)["findings"]
    assert [dict(f, file=str(SASS)) for f in as_json] == \
        json.loads(run("lint", "-f", "json", str(SASS)).stdout)["findings"]


@needs_cuobjdump
def test_dump_cubin_is_dump_of_its_listing():
    # equality only: what dump finds in a cuobjdump listing depends on the SASS reader/sniffer
    # fix made elsewhere (header lines such as "code for sm_100a" / ".target sm_100a" make
    # dump read a real listing as PTX and find nothing today); whatever it finds, the cubin
    # and its listing must give the same report
    for args in (["--plain"], ["--plain", "--table-only"], ["-f", "json"]):
        listing = run("dump", *args, str(SASS))
        cubin = run("dump", *args, str(CUBIN))
        assert (cubin.exit_code, cubin.stderr) == (listing.exit_code, "") == (0, "")
        assert _same(cubin, CUBIN, SASS) == listing.stdout


@needs_cuobjdump
def test_dump_cubin_finds_the_idesc():
    """The cubin's listing, header lines and all, read as SASS: the planted M=256 idesc of
    the UTCHMMA, read as kind::f16 (its bf16 types)."""
    out = run("dump", "--plain", "--table-only", str(CUBIN))
    row = next(r for r in out.stdout.splitlines() if "0x10400490" in r)
    assert "idesc kind::f16 bf16 x bf16 -> f32 M=256 N=256" in row


@needs_cuobjdump
def test_gzipped_cubin(tmp_path):
    gz = _gz(tmp_path, CUBIN)
    for command in (["lint", "--plain"], ["dump", "--plain"]):
        listing = run(*command, str(SASS))  # = the cubin's (tests above)
        packed = run(*command, str(gz))
        assert (packed.exit_code, packed.stderr) == (listing.exit_code, "")
        assert _same(packed, gz, SASS) == listing.stdout


def test_gzipped_listing(tmp_path):
    gz = _gz(tmp_path, SASS)
    for command in (["lint", "--plain", "-v"], ["dump", "--plain"], ["lint", "-f", "json"]):
        plain = run(*command, str(SASS))
        packed = run(*command, str(gz))
        assert (packed.exit_code, packed.stderr) == (plain.exit_code, "")
        assert _same(packed, gz, SASS) == plain.stdout
    assert run("lint", str(gz)).exit_code == 1


def test_corrupt_gzip(tmp_path):
    data = gzip.compress(SASS.read_bytes())
    bad = tmp_path / "cut.sass.gz"
    bad.write_bytes(data[: len(data) // 2])
    message = _one_error(run("lint", str(bad)))
    assert f"{bad}: cannot read" in message
    message = _one_error(run("dump", "--plain", str(bad)))  # the report so far, then the error
    assert f"{bad}: cannot read" in message


@needs_cuobjdump
def test_fatbin_and_ptx_option():
    sass = run("lint", "--plain", str(FATBIN))
    assert sass.exit_code == 1 and "UTCHMMA" in sass.stdout and "[idesc.shape]" in sass.stdout
    ptx = run("lint", "--plain", "--ptx", str(FATBIN))
    assert ptx.exit_code == 1
    assert "error: [idesc.shape] tcgen05.mma.cta_group::1.kind::f16" in ptx.stdout
    message = _one_error(run("lint", "--ptx", str(CUBIN)))
    assert message == (f"descgen: error: {CUBIN}: no PTX found (cuobjdump -ptx printed none: "
                       f"the binary embeds no PTX)")
    # --ptx changes nothing for text
    assert run("lint", "--ptx", "--plain", str(SASS)).stdout == \
        run("lint", "--plain", str(SASS)).stdout


@needs_cuobjdump
def test_stdin_binary_and_gzip():
    expected = run("lint", "--plain", str(SASS)).stdout.replace(str(SASS), "<stdin>")
    for data in (CUBIN.read_bytes(), gzip.compress(CUBIN.read_bytes()),
                 gzip.compress(SASS.read_bytes())):
        r = runner.invoke(app, ["lint", "--plain", "-"], input=data)
        assert (r.exit_code, r.stderr) == (1, "")
        assert r.stdout == expected
    dump = runner.invoke(app, ["dump", "--plain"], input=CUBIN.read_bytes())  # no FILE: stdin
    assert (dump.exit_code, dump.stderr) == (0, "")
    assert dump.stdout == run("dump", "--plain", str(SASS)).stdout.replace(str(SASS), "<stdin>")


def test_stdin_text():
    data = gzip.compress((LINT / "bad_reserved.sass").read_bytes())
    r = runner.invoke(app, ["lint", "--plain", "-"], input=data)
    assert r.exit_code == 1 and "<stdin>:" in r.stdout and "[idesc.reserved]" in r.stdout
    r = runner.invoke(app, ["dump", "--plain", "-"], input=data)
    assert r.exit_code == 0 and "<stdin>" in r.stdout


# ------------------------------------------------------------------ bad inputs

def test_cuda_source_is_not_code():
    src = LINT / "src" / "mma.cu"
    message = _one_error(run("lint", str(src)))
    assert message.startswith(f"descgen: error: {src}: no PTX or SASS found (")
    assert run("lint", str(src)).stdout == ""
    for text in (b"", b"hello\nworld\n"):
        r = runner.invoke(app, ["lint", "-"], input=text)
        assert "<stdin>: no PTX or SASS found" in _one_error(r)
    # dump reads logs: text without code is valid input there
    r = run("dump", "--plain", str(src))
    assert (r.exit_code, r.stderr) == (0, "")
    assert r.stdout == f"no descriptor words found in {src}\n"


@needs_cuobjdump
def test_elf_that_is_not_cuda(tmp_path):
    host = tmp_path / "true"
    shutil.copy(shutil.which("true") or "/bin/true", host)
    for command in ("lint", "dump"):
        message = _one_error(run(command, str(host)))
        assert message.startswith(f"descgen: error: {host}: cuobjdump -sass failed (exit ")
        assert "does not contain device code" in message


def test_missing_cuobjdump(monkeypatch, tmp_path):
    monkeypatch.setenv("DESCGEN_CUOBJDUMP", "/nonexistent")
    for command in ("lint", "dump"):
        message = _one_error(run(command, str(CUBIN)))
        assert HINT in message and "/nonexistent" in message
    monkeypatch.delenv("DESCGEN_CUOBJDUMP")
    monkeypatch.setenv("PATH", "")
    monkeypatch.setattr(binary, "_wheel_cuobjdump", lambda: None)
    message = _one_error(run("lint", str(CUBIN)))
    assert message == (f"descgen: error: cuobjdump not found (needed to read CUDA binaries): "
                       f"{HINT}, or put the CUDA toolkit's bin on PATH, or set DESCGEN_CUOBJDUMP")
    # text needs no cuobjdump
    assert run("lint", str(SASS)).exit_code == 1


def test_missing_cuobjdump_in_a_fresh_process(tmp_path):
    """The installed command, not CliRunner: one line on stderr, exit 2."""
    env = dict(os.environ, DESCGEN_CUOBJDUMP="/nonexistent", PATH="")
    r = subprocess.run([sys.executable, "-m", "cli.main", "lint", str(CUBIN)], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and HINT in r.stderr and "Traceback" not in r.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="a shell script as the fake cuobjdump")
def test_cuobjdump_failing_part_way(monkeypatch, tmp_path):
    elf = _elf(tmp_path)
    head = "".join(f'echo "{line}"\n' for line in SASS.read_text().splitlines()[:40]
                   if '"' not in line and "$" not in line and "`" not in line)
    # failing within the first MiB, which dump reads before it prints anything; or after 2 MiB
    for more, read in ((0, False), (70_000, True)):
        body = head + f'yes "        /*0000*/ NOP ;" | head -n {more}\n'
        monkeypatch.setenv("DESCGEN_CUOBJDUMP", _fake(tmp_path, body + 'echo "cuobjdump fatal   '
                                                      ': broken pipe in nvdisasm" >&2; exit 1\n'))
        message = _one_error(run("lint", str(elf)))
        assert f"{elf}: cuobjdump -sass failed (exit 1)" in message and HINT in message
        r = run("dump", "-f", "json", str(elf), str(SASS))
        message = _one_error(r)
        assert "cuobjdump -sass failed" in message
        doc = json.loads(r.stdout)  # the document stays whole
        assert [d["input"] for d in doc["inputs"]] == [str(elf)] * read + [str(SASS)]
        r = run("dump", "--plain", str(elf))
        assert "cuobjdump -sass failed" in _one_error(r)
        assert (f"no descriptor words found in {elf}" in r.stdout) == read  # its report, then


# ------------------------------------------------------------------ several files

def test_lint_several_files(tmp_path):
    a, b = LINT / "bad_reserved.ptx", LINT / "bad_zcm_shift.sass"
    clean = LINT / "f16_cta1.sass"
    r = run("lint", "--plain", str(a), str(clean), str(b))
    assert (r.exit_code, r.stderr) == (1, "")
    headers = [line for line in r.stdout.splitlines() if ": error: " in line]
    assert [h.split(":")[0] for h in headers] == [str(a), str(b)]  # in the order given
    assert r.stdout.splitlines()[-1].startswith("2 errors, 0 warnings, ")
    assert r.stdout.splitlines()[-1].endswith(" in 3 files (--verbose shows the notes)")
    # each file is its own: the same as linting them one by one
    alone = [run("lint", "--plain", "-v", str(p)).stdout.splitlines()[:-1] for p in (a, clean, b)]
    together = run("lint", "--plain", "-v", str(a), str(clean), str(b)).stdout.splitlines()[:-1]
    assert together == alone[0] + alone[1] + alone[2]
    # a bad file among them: one line on stderr, the others still linted, exit 2
    src = LINT / "src" / "mma.cu"
    r = run("lint", "--plain", str(a), str(src), "/nonexistent.sass", str(b))
    assert r.exit_code == 2
    assert r.stderr.splitlines() == [
        f"descgen: error: {src}: no PTX or SASS found (text; for CUDA source, lint its "
        f"nvcc -ptx output, a SASS listing or the compiled binary)",
        "descgen: error: cannot read /nonexistent.sass: No such file or directory"]
    assert r.stdout.splitlines()[-1].startswith("2 errors, ")
    assert r.stdout.splitlines()[-1].endswith(
        " in 4 files (2 not read) (--verbose shows the notes)")
    # clean files only: exit 0; a bad one: 2 even without an error finding
    assert run("lint", str(clean), str(LINT / "f16_cta1.ptx")).exit_code == 0
    assert run("lint", str(clean), str(src)).exit_code == 2
    doc = json.loads(run("lint", "-f", "json", str(a), str(src), str(b)).stdout)
    assert sorted({f["file"] for f in doc["findings"]}) == sorted([str(a), str(b)])


def test_lint_stdin_among_files():
    data = (LINT / "bad_reserved.sass").read_bytes()
    r = runner.invoke(app, ["lint", "--plain", str(LINT / "bad_reserved.ptx"), "-"], input=data)
    assert r.exit_code == 1
    files = [line.split(":")[0] for line in r.stdout.splitlines() if ": error: " in line]
    assert files == [str(LINT / "bad_reserved.ptx"), "<stdin>"]


def test_dump_several_files():
    a, b = ROOT / "fixtures" / "dumps" / "cuobjdump-sass.txt", LINT / "bad_reserved.ptx"
    one = [run("dump", "--plain", str(p)).stdout for p in (a, b)]
    r = run("dump", "--plain", str(a), str(b))
    assert (r.exit_code, r.stderr) == (0, "")
    count = sum(int(text.splitlines()[-1].split()[0]) for text in one)
    assert r.stdout == one[0] + "\n" + one[1] + f"{count} descriptor words found in 2 files\n"
    bad = run("dump", "--plain", str(a), "/nonexistent.log", str(b))
    assert bad.exit_code == 2
    assert bad.stderr == "descgen: error: cannot read /nonexistent.log: No such file or directory\n"
    assert bad.stdout == (one[0] + "\n" + one[1]
                          + f"{count} descriptor words found in 3 files (1 not read)\n")
    doc = json.loads(run("dump", "-f", "json", str(a), str(b)).stdout)
    assert doc == {"inputs": [json.loads(run("dump", "-f", "json", str(p)).stdout)
                              for p in (a, b)]}
    # one file: the document as before
    assert set(json.loads(run("dump", "-f", "json", str(a)).stdout)) == {"input", "findings"}


@pytest.mark.parametrize("fmt", ["json", pytest.param("text", marks=pytest.mark.nvcc_all)])
def test_lint_jobs_output_is_identical(fmt, tmp_path):
    files = [str(LINT / n) for n in ("bad_reserved.ptx", "f16_cta1.sass", "bad_zcm_shift.sass",
                                     "src/mma.cu", "bad_m256_cta1.ptx", "kstep64_clean.sass")]
    files.insert(3, str(_gz(tmp_path, LINT / "bad_tf32_f16acc.sass")))
    if _cuobjdump_problem() is None:
        files.append(str(CUBIN))
    args = ["lint", "-f", fmt, "-v", *files]
    one = run(*args, "-j", "1")
    assert one.exit_code == 2  # mma.cu
    for jobs in ("2", "0"):
        many = run(*args, "-j", jobs)
        assert (many.exit_code, many.stdout, many.stderr) == (one.exit_code, one.stdout, one.stderr)
    assert run("lint", "-j", "-1", files[0]).exit_code == 2  # a usage error


def test_lint_jobs_in_a_fresh_process():
    """-j with the real console entry (processes started outside pytest)."""
    files = [str(LINT / n) for n in ("bad_reserved.ptx", "f16_cta1.sass", "bad_zcm_shift.sass")]
    outs = []
    for jobs in ("1", "2"):
        r = subprocess.run([sys.executable, "-m", "cli.main", "lint", "--plain", "-j", jobs,
                            *files], cwd=ROOT, capture_output=True, text=True, timeout=120)
        outs.append((r.returncode, r.stdout, r.stderr))
    assert outs[0] == outs[1] and outs[0][0] == 1


# ------------------------------------------------------------------ the fixture rebuilds

@pytest.mark.nvcc_all
@needs_cuobjdump
def test_cubin_rebuilds(tmp_path):
    """build.sh's cubin command, rerun: its listing is the committed one."""
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("nvcc not on PATH")
    work = tmp_path / "binaries"
    shutil.copytree(BIN, work)
    (tmp_path / "lint" / "src").mkdir(parents=True)
    shutil.copy(LINT / "src" / "mma.cu", tmp_path / "lint" / "src" / "mma.cu")
    for f in ("bad_m256_cta1.cubin", "bad_m256_cta1.sass", "bad_m256_cta1.fatbin"):
        (work / f).unlink()
    started = time.monotonic()
    subprocess.run(["sh", "build.sh"], cwd=work, check=True, capture_output=True, timeout=300,
                   env=dict(os.environ, CUOBJDUMP=find_cuobjdump()))
    assert (work / "bad_m256_cta1.sass").read_text() == SASS.read_text()
    assert time.monotonic() - started < 300


# ------------------------------------------------------------------ text_lines, block by block

def _lines_one_by_one(data: bytes, limit_chars: int) -> list[str]:
    """What text_lines gives, worked out line by line (readline's definition, after every line
    end, CR and CRLF too, is made one LF)."""
    out = []
    for raw in io.BytesIO(data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")).readlines():
        out.append(raw[:limit_chars * 4].decode("utf-8", "replace").rstrip("\r\n")[:limit_chars])
    return out


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([b"a", b"\n", b"\r\n", b"\r", b"\xc3\xa9", b"\xff", b";",
                                 b"UTCHMMA", b"x" * 9]), max_size=60),
       st.integers(min_value=1, max_value=13))
def test_text_lines_block_by_block_is_line_by_line(pieces, block):
    """Read a block at a time (any block size, lines across blocks, over-long lines, CRLF,
    invalid UTF-8), text_lines gives the lines a line-by-line reader gives."""
    from unittest import mock
    from descriptors.readers import binary
    data = b"".join(pieces)
    with mock.patch.object(binary, "_BLOCK", block), mock.patch.object(binary, "MAX_LINE", 5):
        assert list(binary.text_lines(io.BytesIO(data))) == _lines_one_by_one(data, 5)

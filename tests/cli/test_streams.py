"""descgen's standard streams as a real process sees them: a closed standard output (``>&-``)
discards the output and keeps the exit code, a pipe whose reader went away (``| head -c1``)
ends the command quietly with exit code 141, a closed standard error is tolerated, and an
output encoding that cannot write a character (``PYTHONIOENCODING=ascii``) escapes it.  Never
a traceback.  Every command that writes, run as ``python -m cli.main``, under a time limit."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXIT_PIPE = 141
LIMIT = 20  # seconds: each command takes well under one

#: One command line of every command that writes, and its usual exit code.
COMMANDS = [
    (["idesc", "--kind", "f16", "--a-type", "bf16", "--b-type", "bf16", "-m", "128", "-n", "256"], 0),
    (["idesc", "--kind", "f16", "-m", "128", "-n", "256", "--a-type", "bf16", "--b-type", "bf16",
      "--format", "text"], 0),
    (["smem", "--swizzle", "128B", "--lbo", "16", "--sbo", "1024", "-f", "json"], 0),
    (["zcm", "--skip-span", "2", "--use-span", "3", "-m", "64", "-n", "64", "--show"], 0),
    (["tmem", "--ld", "32x32b.x8"], 0),
    (["decode", "0x08400490", "--as", "idesc", "--kind", "f16"], 0),
    (["decode", "0x08400490", "--as", "idesc", "--kind", "f16", "--plain"], 0),
    (["check", "0x08400491", "--as", "idesc", "--kind", "mxf8f6f4", "-f", "json"], 1),
    (["diff", "0x08400490", "0x10400490", "--as", "idesc", "--kind", "f16"], 1),
    (["batch", "fixtures/real-world.toml"], 0),
    (["batch", "fixtures/real-world.toml", "--format", "cpp"], 0),
    (["layout", "--major", "K", "--swizzle", "128B", "--a-type", "bf16", "--tile", "128x64",
      "--k-steps", "--kind", "f16"], 0),
    (["explain", "stmatrix.sync.aligned.m8n8.x1.shared.b16 [p], {r0};"], 0),
    (["rules"], 0),
    (["dump", "fixtures/dumps/printf.log"], 0),
    (["dump", "fixtures/dumps/printf.log", "--plain"], 0),
    (["dump", "fixtures/dumps/printf.log", "-f", "json"], 0),
    (["lint", "fixtures/lint/bad_atmem_m256.ptx"], 1),
    (["lint", "fixtures/lint/bad_atmem_m256.ptx", "-f", "json"], 1),
    (["--help"], 0),
]
IDS = [" ".join(c[:3]) + (" " + c[-1] if c[-1] in ("json", "--plain", "cpp", "text") else "")
       for c, _ in COMMANDS]


def _run(args: list[str], **kw) -> subprocess.CompletedProcess:
    kw.setdefault("stdout", subprocess.PIPE)
    kw.setdefault("stderr", subprocess.PIPE)
    env = {**os.environ, "NO_COLOR": "1", **kw.pop("env", {})}
    return subprocess.run([sys.executable, "-m", "cli.main", *args], cwd=ROOT, timeout=LIMIT,
                          env=env, **kw)


@pytest.mark.parametrize("args, code", COMMANDS, ids=IDS)
def test_a_closed_stdout_discards_the_output_and_keeps_the_exit_code(args, code):
    # fd 1 closed in the child before Python starts: Python leaves sys.stdout None
    r = _run(args, stdout=None, preexec_fn=lambda: os.close(1))
    assert (r.returncode, r.stderr) == (code, b"")


@pytest.mark.parametrize("args, code", COMMANDS, ids=IDS)
def test_a_pipe_without_reader_ends_quietly_with_141(args, code):
    # the reader is gone before the first write: every write meets a broken pipe
    read, write = os.pipe()
    os.close(read)
    try:
        r = _run(args, stdout=write)
    finally:
        os.close(write)
    assert (r.returncode, r.stderr) == (EXIT_PIPE, b"")


@pytest.mark.parametrize("args, code", COMMANDS, ids=IDS)
def test_a_closed_stderr_is_tolerated(args, code):
    r = _run(args, stderr=None, preexec_fn=lambda: os.close(2))
    assert r.returncode == code and r.stdout


def _lines(n: int) -> bytes:
    # an erroneous MMA line (M=256 for kind::f16 cta_group::1): one error each
    return b"".join(b"tcgen05.mma.cta_group::1.kind::f16 [%r2], [%r8], %rd3, 272630928, p;\n"
                    for _ in range(n))


@pytest.mark.parametrize("command", [["lint", "-"], ["lint", "-", "-f", "json"],
                                     ["dump", "-"], ["dump", "-", "--plain"],
                                     ["dump", "-", "-f", "json"]], ids=" ".join)
def test_a_reader_that_stops_after_one_byte_ends_the_command_quietly(command, tmp_path):
    # `descgen ... | head -c1`: the output is far longer than the pipe holds
    data = tmp_path / "in.ptx"
    data.write_bytes(_lines(3000))
    with data.open("rb") as stdin:
        p = subprocess.Popen([sys.executable, "-m", "cli.main", *command], cwd=ROOT,
                             stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env={**os.environ, "NO_COLOR": "1"})
        try:
            assert p.stdout.read(1)
            p.stdout.close()
            err = p.stderr.read()
            assert p.wait(timeout=LIMIT) == EXIT_PIPE
        finally:
            p.kill()
            p.wait()
    assert err == b""


def test_an_ascii_output_escapes_what_it_cannot_write(tmp_path):
    # a non-ASCII operand in an erroneous line: the findings are printed, the character
    # escaped, no internal error
    src = tmp_path / "u.ptx"
    src.write_text("tcgen05.mma.cta_group::1.kind::f16 [%r2], [%r8], %rd3, 272630928, p; // é\n"
                   "tcgen05.mma.cta_group::1.kind::f16 [%r2], [%rµ], %rd3, 272630928, p;\n",
                   encoding="utf-8")
    utf8 = _run(["lint", str(src)], env={"PYTHONIOENCODING": "utf-8"})
    ascii_ = _run(["lint", str(src)], env={"PYTHONIOENCODING": "ascii"})
    assert ascii_.stderr == b"" and ascii_.returncode == utf8.returncode == 1
    assert "µ".encode() in utf8.stdout
    assert ascii_.stdout == utf8.stdout.decode().encode("ascii", "backslashreplace")
    for fmt in (["-f", "json"], ["-v"]):
        r = _run(["lint", str(src), *fmt], env={"PYTHONIOENCODING": "ascii"})
        assert r.stderr == b"" and r.returncode == 1 and b"error" in r.stdout

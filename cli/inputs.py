"""Opening what a command reads: a file, or ``-`` (or nothing, where a command allows it) for
standard input, always as bytes (the readers decode and cut lines themselves).  Text, gzip and
CUDA binaries are told apart by content (:func:`descriptors.readers.binary.open_input`: a
binary is read through ``cuobjdump -sass``, or ``-ptx``).

A command that reads several files reports a bad one (:class:`~descriptors.errors.InputError`)
as one line on stderr (:func:`report`) and goes on with the others; its exit code is then 2.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

from descriptors import DescgenError
from descriptors.errors import InputError
from descriptors.readers.binary import Input, open_input

#: Longest message printed for one bad input (cut in the middle beyond it).
_MAX_MESSAGE = 600


def _stdin(file: str | None, what: str):
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        raise DescgenError("stdin cannot be read as bytes")
    if file is None and sys.stdin.isatty():
        raise DescgenError(f"no input: give a FILE, or - and pipe the {what} into stdin")
    return stream


@contextmanager
def opened(file: str | None, *, what: str = "input", ptx: bool = False) -> Iterator[Input]:
    """The :class:`~descriptors.readers.binary.Input` of ``file``; ``None`` or ``-`` is
    standard input, refused (a :class:`~descriptors.DescgenError`: bad usage) when it is a
    terminal and no ``-`` was given (nothing piped in).  Raises
    :class:`~descriptors.errors.InputError` when the input cannot be read."""
    if file is None or file == "-":
        with open_input(_stdin(file, what), name="<stdin>", ptx=ptx) as inp:
            yield inp
        return
    with open_input(file, ptx=ptx) as inp:
        yield inp


def one_line(message: str) -> str:
    """``message`` as one line, cut to a readable length."""
    text = " ".join(str(message).split())
    if len(text) > _MAX_MESSAGE:  # never echo a huge input in full
        text = f"{text[:_MAX_MESSAGE - 40]} ... ({len(text)} characters, cut)"
    return text


def report(exc: InputError | str) -> None:
    """A bad input as one line on stderr, as every command error is written."""
    sys.stdout.flush()
    sys.stderr.write(f"descgen: error: {one_line(str(exc))}\n")
    sys.stderr.flush()

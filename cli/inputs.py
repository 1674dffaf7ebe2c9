"""Opening the text a command reads: a file, or ``-`` (or nothing, where a command allows it)
for standard input, always as bytes (the readers decode and cut lines themselves)."""

from __future__ import annotations

import sys
from typing import IO

from descriptors import DescgenError


def open_input(file: str | None, *, what: str = "input") -> tuple[IO[bytes], str, bool]:
    """(binary stream, display name, close it afterwards) for ``file``; ``None`` or ``-`` is
    standard input, refused when it is a terminal and no ``-`` was given (nothing piped in).
    Raises :class:`~descriptors.DescgenError` when the file cannot be opened."""
    if file is None or file == "-":
        stream = getattr(sys.stdin, "buffer", None)
        if stream is None:
            raise DescgenError("stdin cannot be read as bytes")
        if file is None and sys.stdin.isatty():
            raise DescgenError(f"no input: give a FILE, or - and pipe the {what} into stdin")
        return stream, "<stdin>", False
    try:
        return open(file, "rb"), file, True  # noqa: SIM115 - closed by the caller
    except OSError as exc:
        raise DescgenError(f"cannot read {file}: {exc.strerror or exc}") from None

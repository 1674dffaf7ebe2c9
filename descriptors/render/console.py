"""The rich consoles every command prints its tables and pictures on, SVG pictures, and
``descgen dump``'s progress bar.

rich loads inside these functions: a command that prints plain text or JSON never imports it.
"""

from __future__ import annotations

import io
import os
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["console", "new_console", "print_rich", "picture_console", "save_svg", "piped", "progress"]


def _raise_broken_pipe() -> None:
    raise BrokenPipeError(32, "Broken pipe")


def new_console(**options: Any) -> Console:
    """A rich ``Console(**options)`` whose write to a closed pipe raises
    :class:`BrokenPipeError`, as every other write does (rich's own handling ends the process
    with exit code 1 itself; the command decides how it ends)."""
    from rich.console import Console

    out = Console(**options)
    out.on_broken_pipe = _raise_broken_pipe  # type: ignore[method-assign]
    return out


def console(no_color: bool, piped_width: int = 140) -> Console:
    """The console a command prints rich output on: colour in a terminal; no colour when piped
    or with ``no_color``, and then a page ``piped_width`` columns wide."""
    extra: dict[str, Any] = {"color_system": None} if no_color else {}
    out = new_console(highlight=False, soft_wrap=False, **extra)
    if not out.is_terminal:
        out = new_console(highlight=False, soft_wrap=False, width=piped_width, **extra)
    return out


def print_rich(renderable: Any, no_color: bool, piped_width: int = 140) -> None:
    """``renderable`` printed on :func:`console`."""
    console(no_color, piped_width).print(renderable)


def picture_console(no_color: bool, width: int = 160) -> Console:
    """The console a picture is drawn on: ``width`` columns, terminal or not (a picture is
    cut, never wrapped); no colour with ``no_color``."""
    return new_console(highlight=False, soft_wrap=False, width=width,
                   **({"color_system": None} if no_color else {}))


def save_svg(renderable: Any, path: str, title: str, width: int = 160) -> None:
    """``renderable`` drawn ``width`` columns wide into the SVG file ``path`` (rich's
    ``save_svg``), with ``title`` in the window bar."""
    from rich.console import Console

    out = Console(record=True, file=io.StringIO(), width=width, highlight=False)
    out.print(renderable)
    out.save_svg(path, title=title)


def piped() -> bool:
    """Standard output is no terminal and no environment variable tells rich to treat it as
    one (``FORCE_COLOR``, ``TTY_COMPATIBLE``, ``TTY_INTERACTIVE``): plain text, without
    loading rich (about 40 ms of a run's start)."""
    if any(os.environ.get(v) for v in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE")):
        return False
    isatty = getattr(sys.stdout, "isatty", None)
    try:
        return isatty is None or not isatty()
    except ValueError:
        return True


@contextmanager
def progress(stream: IO[bytes], name: str, is_file: bool, *, min_bytes: int,
             no_color: bool = False, console: Console | None = None) -> Iterator[IO[bytes]]:
    """The stream to scan: ``stream`` itself, or, for a regular file of at least ``min_bytes``
    while stderr is a terminal, ``stream`` wrapped by a ``rich.progress`` bar on stderr (bytes
    read of the file's size; removed when done).  Never for standard input or a pipe (no size
    to measure against), never when stderr is redirected.  ``console`` is the console the bar
    is drawn on (default: stderr)."""
    size = 0
    if is_file:
        try:
            st = os.fstat(stream.fileno())
            size = st.st_size if stat.S_ISREG(st.st_mode) else 0
        except (OSError, ValueError, AttributeError):
            size = 0
    if size < min_bytes:
        yield stream
        return
    if console is None:
        console = new_console(stderr=True, **({"color_system": None} if no_color else {}))
    if not console.is_terminal:
        yield stream
        return
    # imported here: a bar is drawn only on a terminal, and rich.progress takes 15-20 ms
    from rich.progress import (BarColumn, DownloadColumn, Progress, TextColumn,
                               TimeRemainingColumn, TransferSpeedColumn)

    columns = (TextColumn("[progress.description]{task.description}"), BarColumn(),
               DownloadColumn(), TransferSpeedColumn(), TimeRemainingColumn())
    # the report goes through the bar's console only when it shares the terminal
    to_terminal = sys.stdout.isatty()
    with Progress(*columns, console=console, transient=True, redirect_stdout=to_terminal,
                  redirect_stderr=False) as bar:
        yield bar.wrap_file(stream, total=size, description=f"dump {name}")

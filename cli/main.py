"""The ``descgen`` command: a thin typer layer over the :mod:`descriptors` library.

The library raises; this module formats.  Every error -- a click usage error or a
:class:`~descriptors.DescgenError` -- becomes one line on stderr, ``descgen: error: ...``,
with exit code 2 (bad usage or input).  Exit code 1 is kept for descriptors that fail
validation; 0 otherwise.  The standard streams are made safe first (:func:`_standard_streams`):
a closed one discards what is written to it, a character its encoding cannot write is escaped;
a pipe whose reader went away ends the command quietly with :data:`EXIT_PIPE`.

Commands load on demand: this module imports typer and the exception classes only, and
:data:`COMMANDS` says which module defines each command (its ``register(app)`` adds it), so
``descgen idesc`` loads the codec and the validator and never rich, the dump scanner or the
layout solver.
"""

from __future__ import annotations

import gc

# The cyclic garbage collector is paused while the modules load (typer's, then a command's:
# :func:`_command`), and what they made is then moved out of its reach (``gc.freeze``):
# importing makes tens of thousands of long-lived objects and no garbage, and each automatic
# collection would walk them all again.  It pays: the commands of tests/bench_cli.py take 4-7%
# more CPU time without the pause and the freeze (either alone gains nothing: objects kept
# young by the pause are walked by the first collection after it), median of 25 interleaved
# rounds.
_collecting = gc.isenabled()
gc.disable()

import importlib  # noqa: E402
import sys  # noqa: E402
from functools import cache  # noqa: E402
from typing import Annotated, Any  # noqa: E402

import typer  # noqa: E402
from typer.core import TyperGroup  # noqa: E402

import descriptors  # noqa: E402
from descriptors.errors import DescgenError, InvalidDescriptorError, shorten  # noqa: E402

try:  # typer >= 0.24 vendors click
    from typer._click import exceptions as _click_exc
except ImportError:  # pragma: no cover - older typer with click as a dependency
    from click import exceptions as _click_exc  # type: ignore[no-redef]
finally:
    gc.freeze()
    if _collecting:
        gc.enable()

EXIT_OK, EXIT_INVALID, EXIT_USAGE = 0, 1, 2
#: Longest error message printed (a message quoting a huge input is cut).
_MAX_MESSAGE = 600


def _fail(message: str, code: int = EXIT_USAGE) -> None:
    """Print ``message`` as one line on stderr and exit with ``code``."""
    text = " ".join(str(message).split())
    if len(text) > _MAX_MESSAGE:  # never echo a huge input in full
        text = f"{text[:_MAX_MESSAGE - 40]} ... ({len(text)} characters, cut)"
    try:
        sys.stderr.write(f"descgen: error: {text}\n")
        sys.stderr.flush()
    except (OSError, ValueError):  # stderr closed or gone: the exit code says it
        pass
    sys.exit(code)


#: The exit code when standard output is a pipe whose reader went away (``descgen ... |
#: head``): 128 + SIGPIPE, the code a shell reports for ``cat`` or ``yes`` in the same place.
EXIT_PIPE = 141


def _stdout_gone() -> None:
    """End quietly with :data:`EXIT_PIPE` after a write to a closed pipe: what is still
    buffered for standard output goes to the null device (it has nowhere to go, and the flush
    at exit must not fail again)."""
    import os
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError, AttributeError):  # not a real stream (a test's): nothing to do
        pass
    sys.exit(EXIT_PIPE)


def _standard_streams() -> None:
    """Standard output and error made safe to write before anything runs: a stream that was
    closed when descgen started (``>&-``, ``2>&-``; Python leaves it ``None``) becomes the
    null device, for this process and the ones it starts (output to a closed stream is
    discarded, the exit code still tells the result); a character the stream's encoding cannot
    write (``PYTHONIOENCODING=ascii``) is written as a backslash escape instead of failing."""
    import io
    import os
    for fd, name in ((1, "stdout"), (2, "stderr")):
        stream = getattr(sys, name)
        if stream is None:
            try:
                null = os.open(os.devnull, os.O_WRONLY)
                if null != fd:
                    os.dup2(null, fd)
                    os.close(null)
                stream = io.TextIOWrapper(io.FileIO(fd, "w", closefd=False), encoding="utf-8",
                                          line_buffering=fd == 2, write_through=fd == 2)
            except OSError:  # pragma: no cover - no null device
                continue
            setattr(sys, name, stream)
        elif getattr(stream, "errors", None) == "strict":
            try:
                stream.reconfigure(errors="backslashreplace")
            except (AttributeError, ValueError, OSError):  # not a TextIOWrapper: leave it
                pass


#: Every command, in the order ``descgen --help`` lists them, and the module that defines it.
COMMANDS: dict[str, str] = {
    "idesc": "cli.word_cmds", "smem": "cli.word_cmds", "zcm": "cli.word_cmds",
    "tmem": "cli.word_cmds", "decode": "cli.decode_cmd", "check": "cli.decode_cmd",
    "diff": "cli.diff_cmd",
    "batch": "cli.batch_cmd", "layout": "cli.layout_cmd", "dump": "cli.dump_cmd",
    "lint": "cli.lint_cmd", "explain": "cli.explain_cmd", "rules": "cli.rules_cmd",
}


@cache
def _command(name: str) -> Any:
    """One command's click object, built by typer from its module's ``register(app)`` (only
    that command is built: typer's per-option work is most of a command's start-up).

    Built once per process (``cache``): a command line asks for one command once, but a caller
    that runs the app many times in one process (click's ``CliRunner``, :func:`all_commands`)
    would build it again each time, 1.5-4.5 ms a command; tests/test_cli.py,
    test_cli_conventions.py and test_fuzz.py take 1.3-1.5x the CPU time without the cache."""
    collecting = gc.isenabled()
    gc.disable()  # (as for this module's imports, above)
    try:
        sub = typer.Typer(pretty_exceptions_enable=False, rich_markup_mode=None)
        importlib.import_module(COMMANDS[name]).register(sub)
        sub.registered_commands = [c for c in sub.registered_commands if c.name == name]
        return typer.main.get_group(sub).commands[name]
    finally:
        gc.freeze()
        if collecting:
            gc.enable()


def all_commands() -> dict[str, Any]:
    """Every command's click object by name, in :data:`COMMANDS` order (loads every module)."""
    return {name: _command(name) for name in COMMANDS}


class _PipeGone(Exception):
    """A write to standard output met a closed pipe (carried past click, which would end
    the process with exit code 1 itself)."""


class _OneLineErrors(TyperGroup):
    """Loads each command on first use (:data:`COMMANDS`) and runs it without click's
    standalone handling, so every error is one line."""

    def make_context(self, *args: Any, **kwargs: Any) -> Any:
        try:  # --help and --version print here
            return super().make_context(*args, **kwargs)
        except BrokenPipeError as exc:
            raise _PipeGone from exc

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except BrokenPipeError as exc:
            raise _PipeGone from exc

    def list_commands(self, ctx: Any) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        return _command(cmd_name) if cmd_name in COMMANDS else None

    def main(self, args: Any = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, **extra: Any) -> Any:
        try:
            rv = super().main(args=args, prog_name=prog_name or "descgen",
                              complete_var=complete_var, standalone_mode=False, **extra)
        except _click_exc.NoArgsIsHelpError as exc:
            sys.stderr.write(exc.format_message() if hasattr(exc, "format_message") else str(exc))
            sys.exit(EXIT_USAGE)
        except _click_exc.UsageError as exc:
            hint = ""
            if exc.ctx is not None:
                hint = f" (see '{exc.ctx.command_path} --help')"
            _fail(exc.format_message() + hint, EXIT_USAGE)
        except _click_exc.ClickException as exc:
            _fail(exc.format_message(), exc.exit_code)
        except typer.Abort:
            _fail("aborted", 130)
        except InvalidDescriptorError as exc:
            for f in exc.findings:
                if f.severity == "error":
                    sys.stderr.write(f"descgen: {' '.join(str(f).split())}\n")
            hint = getattr(exc, "force_hint", None)  # the commands that take --force say it
            sys.stderr.write(f"descgen: error: {exc}{f' ({hint})' if hint else ''}\n")
            sys.stderr.flush()
            sys.exit(EXIT_INVALID)
        except DescgenError as exc:
            _fail(str(exc), EXIT_USAGE)
        except (BrokenPipeError, _PipeGone):  # the reader of the output went away (``| head``)
            _stdout_gone()
        except OSError as exc:  # e.g. an unwritable --output or a full disk
            _fail(str(exc), EXIT_USAGE)
        except RecursionError:
            _fail("the input is nested too deeply", EXIT_USAGE)
        except Exception as exc:  # noqa: BLE001 - the last line of defence: never a traceback
            _fail(f"internal error ({type(exc).__name__}: {shorten(exc)}); this is a bug in "
                  f"descgen {descriptors.__version__}, please report it with the command line",
                  EXIT_USAGE)
        if standalone_mode:
            sys.exit(rv if isinstance(rv, int) else EXIT_OK)
        return rv


app = typer.Typer(
    cls=_OneLineErrors,
    name="descgen",
    help="Bit-exact encoder and decoder for NVIDIA Blackwell tcgen05 descriptors (PTX ISA 9.7.16).",
    add_completion=True,  # typer's --install-completion / --show-completion (bash, zsh, fish)
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    """``--version``: the package version, as the batch header prints it."""
    if value:
        typer.echo(f"descgen {descriptors.__version__}")
        raise typer.Exit(EXIT_OK)


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print the descgen version and exit.")] = False,
) -> None:
    """Bit-exact encoder and decoder for NVIDIA Blackwell tcgen05 descriptors (PTX ISA 9.7.16)."""


def main() -> None:
    """Console-script entry point: runs the app, then ends the process without the
    interpreter's finalization (:func:`_exit`)."""
    _standard_streams()
    try:
        app()
    except SystemExit as exc:
        _exit(exc.code)
    _exit(EXIT_OK)


def _exit(code: object) -> None:
    """End the process with ``code`` as ``SystemExit`` would, without the interpreter's
    finalization: freeing every object a run made one by one (every module, every cache) costs
    more than the system freeing the memory at once.  It pays at start-up: the commands of
    tests/bench_cli.py take 2-8% more CPU time with a normal exit (median of 25 interleaved
    rounds); a long ``lint`` or ``dump`` gains nothing measurable.  Every command has closed
    its files and stopped its processes by now (their ``with`` blocks); the standard streams
    are flushed here."""
    import os
    if code is None:
        status = EXIT_OK
    elif isinstance(code, int):
        status = code
    else:  # SystemExit("message"): printed, status 1
        sys.stderr.write(f"{code}\n")
        status = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:  # the reader went away: quietly, as a pipe's writer ends
            status = EXIT_PIPE if stream is sys.stdout else status
        except (OSError, ValueError, AttributeError) as exc:  # e.g. a full disk
            if stream is sys.stdout:
                try:
                    sys.stderr.write(f"descgen: error: cannot write the output: {exc}\n")
                    sys.stderr.flush()
                except (OSError, ValueError):
                    pass
                status = status or EXIT_USAGE
    os._exit(status)


if __name__ == "__main__":
    main()

"""descgen lint command (registered on the main app by cli.main).

``descgen lint FILE... [-]`` checks the tcgen05 descriptors in compiled code (PTX modules,
bare PTX lines, SASS listings, CUDA binaries through ``cuobjdump -sass``, any of them gzipped)
against the instruction that uses them (:mod:`descriptors.tools.lint`) and prints compiler-style
diagnostics, ``file:line:col: error: [rule] message``, each followed by its evidence (the
instruction, the operand's value and the line that defined it, the decoded word) -- rich in a
terminal, plain text when piped or with ``--plain``; ``--format json`` gives
``{"findings": [...]}``.  Notes (run-time values, ...) are shown with ``--verbose`` (always in
JSON).  Each file is read on its own (its dialect, its target); a bad one (unreadable, no PTX
or SASS in it, a binary cuobjdump refuses) is one line on stderr and the others are still
linted; ``-j N`` lints them in N processes, with the same output.  Exit status: 0 no error, 1
an error, 2 bad usage or a bad input.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import islice
from typing import Annotated, Any

import typer

from descriptors.errors import DescgenError, InputError

from .common import REPORT_FORMATS, arch_option, format_option
from .inputs import opened, report
from descriptors.tools.lint import NOTHING_TO_CHECK, LintFinding, Ordered, lint_lines
from descriptors.readers import SNIFF_LINES, TextLines, sniff
from descriptors.readers.binary import Input, text_lines
from descriptors.rules.validate import ARCHES



LintFormat, LintFormatOpt = format_option("LintFormat", REPORT_FORMATS, {
    "text": "compiler-style diagnostics with their evidence (--plain: no colour)",
    "json": "{findings}"})

#: What ``descgen dump`` calls the source of a word it finds, as a kind of input.
_LOG_KINDS = {"printf": "a printf log", "registers": "a register dump",
              "print": "a debugger session"}


def _no_code(inp: Input, head: list[str]) -> InputError:
    if not any(line.strip() for line in head):
        why = "empty"
    elif inp.kind == "binary":
        why = "the cuobjdump listing has neither"
    elif (log := _log_kind(head)) is not None:
        return InputError(f"{inp.name}: no PTX or SASS here; this looks like {log}: try "
                          f"descgen dump {inp.name if inp.name != '<stdin>' else '-'}")
    else:
        why = ("text; for CUDA source, lint its nvcc -ptx output, a SASS listing or the "
               "compiled binary")
    return InputError(f"{inp.name}: no PTX or SASS found ({why})")


def _log_kind(head: list[str]) -> str | None:
    """What the lines read as when ``descgen dump`` finds descriptor words in them (a printf
    log, a register dump, a debugger session; joined by " / "), else None."""
    from descriptors.tools.dump import scan_lines
    try:
        sources = dict.fromkeys(w.source for w in scan_lines(head))
    except DescgenError:  # pragma: no cover - dump refuses what lint read: no advice then
        return None
    kinds = [_LOG_KINDS[s] for s in sources if s in _LOG_KINDS]
    return " / ".join(kinds) if kinds else None


def _lint_input(inp: Input, arch: str | None) -> Ordered:
    lines = text_lines(inp.stream, inp.name)
    head = list(islice(lines, SNIFF_LINES))
    findings = Ordered(lint_lines(TextLines(head, lines), file=inp.name, arch=arch))
    # nothing read as code: no tcgen05 instruction, and the lines the readers look at to tell
    # the dialect (the same head) are neither PTX nor SASS
    if findings.nothing and sniff(head) is None:
        findings.discard()
        raise _no_code(inp, head)
    return findings


def lint_file(file: str, arch: str | None = None, ptx: bool = False
              ) -> tuple[Ordered | list[LintFinding], str | None]:
    """The findings of one input, in order (:class:`~descriptors.tools.lint.Ordered`: memory
    bounded, iterate once), and None; or no findings and the one-line message that says why
    the input is bad.  (What each worker of ``-j`` runs.)"""
    try:
        with opened(file, what="PTX or SASS", ptx=ptx) as inp, _collector_paused():
            return _lint_input(inp, arch), None
    except InputError as exc:
        return [], str(exc)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector paused while one input is linted.  The reader keeps every
    instruction of a function until its data flow is solved (a production listing: tens of
    thousands of objects at a time), and each automatic collection walks them all again:
    about a tenth of a lint of the default production sample.  Linting makes no reference
    cycles (``tests/unit/readers/test_dataflow.py`` checks the reader and data flow; everything they made
    is freed by reference counting), so pausing it keeps nothing alive longer."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def cpus() -> int:
    """The CPUs this process may run on (its affinity; all of the machine's where that is
    not known)."""
    count = getattr(os, "process_cpu_count", None)  # Python 3.13
    if count is not None:
        return count() or 1
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _results(files: list[str], arch: str | None, ptx: bool, jobs: int
             ) -> Iterator[tuple[list[LintFinding], str | None]]:
    """:func:`lint_file` of every file, in the order given; with ``jobs`` > 1 the files are
    linted in that many processes (standard input in this one), the results still in order."""
    workers = min(capped_jobs(jobs), sum(f != "-" for f in files))
    if workers <= 1 or len(files) == 1:
        for file in files:
            yield lint_file(file, arch, ptx)
        return
    from concurrent.futures import ProcessPoolExecutor

    pool = ProcessPoolExecutor(max_workers=workers)
    futures = []
    try:
        futures = [None if f == "-" else pool.submit(lint_file, f, arch, ptx) for f in files]
        for i, (file, future) in enumerate(zip(files, futures)):
            futures[i] = None  # handed over: its files are the consumer's to remove
            yield lint_file(file, arch, ptx) if future is None else future.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        for future in futures:  # stopped early (a closed pipe): the spilled findings go
            if future is not None and future.done() and not future.cancelled() \
                    and future.exception() is None:
                found = future.result()[0]
                if isinstance(found, Ordered):
                    found.discard()


def capped_jobs(jobs: int) -> int:
    """How many processes ``-j jobs`` runs: ``jobs``, at most one per CPU available
    (:func:`cpus`; 0 is one per CPU).  Lowering it is said in one line on stderr."""
    available = cpus()
    if jobs > available:
        sys.stderr.write(f"descgen: note: -j {jobs} lowered to {available}, the CPUs "
                         f"available\n")
        return available
    return jobs if jobs > 0 else available


def lint_cmd(
    files: Annotated[list[str], typer.Argument(
        help="PTX (.ptx, bare instruction lines), SASS listings (cuobjdump -sass, nvdisasm) or "
             "CUDA binaries (cubin, object, executable, library, fatbin: read through "
             "cuobjdump -sass), each maybe gzipped, told apart by content; - for stdin.",
        show_default=False, metavar="FILE...|-")],
    arch: Annotated[str | None, typer.Option(
        "--arch", callback=arch_option, help="Target architecture (" + ", ".join(ARCHES)
        + "; sm_100 and the like: the a target); default: the PTX .target / the listing's "
          "sm_, else sm_100a.")] = None,
    fmt: LintFormatOpt = LintFormat.text,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Show notes too.")] = False,
    plain_: Annotated[bool, typer.Option("--plain", help="Plain text, no colour.")] = False,
    no_color: Annotated[bool, typer.Option("--no-color", help="No colour (NO_COLOR is honoured "
                                           "too; colour is only ever used on a terminal).")] = False,
    ptx: Annotated[bool, typer.Option("--ptx", help="For a CUDA binary, lint the PTX it embeds "
                                      "(cuobjdump -ptx) instead of its SASS; text inputs are "
                                      "read as they are.")] = False,
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=0, help="Lint the files in N "
                                      "processes (0: one per CPU); the output is the same as "
                                      "with -j 1.")] = 1,
) -> None:
    """Check the descriptors in compiled tcgen05 code (PTX, SASS, CUDA binaries) against their
    instructions."""
    from descriptors.render import lint as view
    out = None  # begun with the first input read: when none is, nothing is printed
    bad = 0
    for file, (found, error) in zip(files, _results(files, arch, ptx, jobs)):
        if error is not None:
            bad += 1
            report(error)
            continue
        if getattr(found, "nothing", False) and not verbose and fmt is LintFormat.text:
            sys.stdout.flush()
            sys.stderr.write(f"descgen: note: {'stdin' if file == '-' else file}: "
                             f"{NOTHING_TO_CHECK}\n")
        if out is None:
            out = view.Writer(as_json=fmt is LintFormat.json, verbose=verbose, plain_=plain_,
                              no_color=no_color)
        try:
            out.add(found)
        finally:  # its temporary files, also when the output stops part way
            if isinstance(found, Ordered):
                found.discard()
    if out is None:  # nothing read: the errors on stderr say it all
        raise typer.Exit(2)
    where = ""
    if len(files) > 1:
        where = f" in {len(files)} files" + (f" ({bad} not read)" if bad else "")
    out.close(where)
    raise typer.Exit(2 if bad else 1 if out.counts["error"] else 0)


def register(app: typer.Typer) -> None:
    """Add this module's commands to `app`."""
    app.command("lint")(lint_cmd)


__all__: list[Any] = ["register", "lint_cmd", "lint_file"]

"""``descgen lint``'s output: compiler-style diagnostics (``file:line:col: error: [rule]
message``), each followed by its evidence (the instruction, the operand's value and the line
that defined it, the decoded word) and a summary line -- rich in a terminal, plain text when
piped or with ``--plain`` -- and the ``{"findings": [...]}`` JSON document.

Text written to a pipe is plain without loading rich (:func:`descriptors.render.console.piped`).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from typing import Any

from ..rules.diagnostics import Diagnostic
from .console import piped

__all__ = ["Writer", "write_text", "write_json"]

_STYLE = {"error": "bold red", "warning": "bold magenta", "note": "bold cyan"}


def _evidence(f: Diagnostic) -> list[str]:
    out = [f"    {f.instruction}"] if f.instruction else []
    return out + [f"    {e}" for e in f.evidence]


#: Characters of text gathered before one write to standard output.
_BATCH = 1 << 15


class Writer:
    """The output of one ``descgen lint``, streamed: :meth:`add` the findings of each input
    as they come (in order), then :meth:`close`.  Memory stays bounded by one batch of text,
    whatever the number of findings.

    Text (``as_json`` false): the diagnostics and their evidence (notes only with
    ``verbose``), then the counts of errors, warnings and notes; plain text with ``plain_``
    or off a terminal, else rich (colour unless ``no_color``).  JSON: ``{"findings": [...]}``
    (every finding, notes included), byte for byte ``json.dumps(document, indent=2)``."""

    def __init__(self, *, as_json: bool, verbose: bool = False, plain_: bool = False,
                 no_color: bool = False) -> None:
        self.json, self.verbose = as_json, verbose
        self.counts = {"error": 0, "warning": 0, "note": 0}
        self.batch: list[str] = []
        self.size = 0
        self.console: Any = None
        self.first = True
        if not as_json and not (plain_ or piped()):
            console = _rich_console(no_color)
            self.console = console if console.is_terminal else None

    def _write(self, text: str) -> None:
        self.batch.append(text)
        self.size += len(text)
        if self.size >= _BATCH:
            self.flush()

    def flush(self) -> None:
        """Write what is gathered."""
        if self.batch:
            sys.stdout.write("".join(self.batch))
            self.batch.clear()
            self.size = 0

    def add(self, findings: Iterable[Diagnostic]) -> None:
        """Write ``findings`` (one input's, in order) as they come."""
        counts, write = self.counts, self._write
        for f in findings:
            if f.severity in counts:
                counts[f.severity] += 1
            if self.json:
                body = json.dumps(f.to_dict(), indent=2).replace("\n", "\n    ")
                write(('{\n  "findings": [\n    ' if self.first else ",\n    ") + body)
                self.first = False
            elif self.verbose or f.severity != "note":
                if self.console is not None:
                    self._rich(f)
                else:
                    write("\n".join([str(f), *_evidence(f)]) + "\n")

    def close(self, where: str = "") -> None:
        """The end of the output: the summary line (``where``: how many files, e.g.
        `` in 3 files``), or the end of the JSON document."""
        if self.json:
            self._write('{\n  "findings": []\n}\n' if self.first else "\n  ]\n}\n")
        else:
            counts = self.counts
            summary = ", ".join(f"{n} {s}{'s' * (n != 1)}" for s, n in counts.items()) + where
            if counts["note"] and not self.verbose:
                summary += " (--verbose shows the notes)"
            if self.console is not None:
                self.console.print(summary)
            else:
                self._write(summary + "\n")
        self.flush()
        sys.stdout.flush()

    def _rich(self, f: Diagnostic) -> None:
        from rich.text import Text

        console = self.console
        head = Text(f"{f.file}:{f.line}:{f.col}: ", style="bold")
        head.append(f"{f.severity}:", style=_STYLE.get(f.severity, ""))
        head.append(f" [{f.rule}] ", style="dim")
        head.append(f.message, style="bold")
        console.print(head)
        for line in _evidence(f):
            console.print(Text(line, style="dim" if line.startswith("    ") and line.strip()
                               != f.instruction else ""))


def write_json(findings: Iterable[Diagnostic]) -> None:
    """``--format json``: ``{"findings": [...]}`` (every finding, notes included), indented
    by 2, on standard output, streamed (:class:`Writer`)."""
    out = Writer(as_json=True)
    out.add(findings)
    out.close()


def write_text(findings: Iterable[Diagnostic], verbose: bool, plain_: bool,
               no_color: bool = False, where: str = "") -> None:
    """The diagnostics and their evidence (notes only with ``verbose``), then the counts of
    errors, warnings and notes (``where``: how many files, e.g. `` in 3 files``), on standard
    output, streamed (:class:`Writer`): plain text with ``plain_`` or off a terminal, else rich
    (colour unless ``no_color``)."""
    out = Writer(as_json=False, verbose=verbose, plain_=plain_, no_color=no_color)
    out.add(findings)
    out.close(where)


def _rich_console(no_color: bool) -> Any:
    from .console import new_console

    return new_console(highlight=False, soft_wrap=True, **({"color_system": None} if no_color else {}))

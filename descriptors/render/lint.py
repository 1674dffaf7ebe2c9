"""``descgen lint``'s output: compiler-style diagnostics (``file:line:col: error: [rule]
message``), each followed by its evidence (the instruction, the operand's value and the line
that defined it, the decoded word) and a summary line -- rich in a terminal, plain text when
piped or with ``--plain`` -- and the ``{"findings": [...]}`` JSON document.

Text written to a pipe is plain without loading rich (:func:`descriptors.render.console.piped`).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

from ..rules.diagnostics import Diagnostic
from .console import piped

__all__ = ["write_text", "write_json"]

_STYLE = {"error": "bold red", "warning": "bold magenta", "note": "bold cyan"}


def _evidence(f: Diagnostic) -> list[str]:
    out = [f"    {f.instruction}"] if f.instruction else []
    return out + [f"    {e}" for e in f.evidence]


def write_json(findings: Sequence[Diagnostic]) -> None:
    """``--format json``: ``{"findings": [...]}`` (every finding, notes included), indented
    by 2, on standard output."""
    sys.stdout.write(json.dumps({"findings": [f.to_dict() for f in findings]}, indent=2) + "\n")


def write_text(findings: Sequence[Diagnostic], verbose: bool, plain_: bool,
               no_color: bool = False, where: str = "") -> None:
    """The diagnostics and their evidence (notes only with ``verbose``), then the counts of
    errors, warnings and notes (``where``: how many files, e.g. `` in 3 files``), on standard
    output: plain text with ``plain_`` or off a terminal, else rich (colour unless
    ``no_color``)."""
    shown = [f for f in findings if verbose or f.severity != "note"]
    counts = {s: sum(f.severity == s for f in findings) for s in ("error", "warning", "note")}
    summary = ", ".join(f"{n} {s}{'s' * (n != 1)}" for s, n in counts.items()) + where
    if counts["note"] and not verbose:
        summary += " (--verbose shows the notes)"
    console = None if plain_ or piped() else _rich_console(no_color)
    if console is None or not console.is_terminal:
        out = []
        for f in shown:
            out.append(str(f))
            out += _evidence(f)
        out.append(summary)
        sys.stdout.write("\n".join(out) + "\n")
        return
    from rich.text import Text

    for f in shown:
        head = Text(f"{f.file}:{f.line}:{f.col}: ", style="bold")
        head.append(f"{f.severity}:", style=_STYLE.get(f.severity, ""))
        head.append(f" [{f.rule}] ", style="dim")
        head.append(f.message, style="bold")
        console.print(head)
        for line in _evidence(f):
            console.print(Text(line, style="dim" if line.startswith("    ") and line.strip()
                               != f.instruction else ""))
    console.print(summary)


def _rich_console(no_color: bool) -> Any:
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True, **({"color_system": None} if no_color else {}))

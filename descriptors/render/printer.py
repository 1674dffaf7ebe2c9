"""The pretty-printer: a decoded word and what comes with it, for people -- the rich table, the
bit diagram and the findings of a word (``descgen decode``, the word commands' ``--format
text``), findings alone (``descgen check``), zero-column masks (``zcm --show``), data-path
layouts (``tmem --datapath``), tcgen05.ld/st footprints (``tmem --ld/--st``), property tables
and word diffs (``descgen diff``).

* :func:`render` -- rich renderables for a terminal: a table (field, bits, raw, meaning; set
  reserved bits highlighted), a bit diagram of the word (one segment per field, coloured) and
  the validation findings under it.
* :func:`plain` -- the same content as plain text (no colour, stable layout): the ``--plain``
  dump mode used by golden-file tests.
* :func:`to_json` -- for machines (:mod:`descriptors.tools.printer`): word, layout, kind, raw
  fields, meanings, values, findings.

rich loads inside the functions that build rich renderables, so the plain and JSON outputs
(and ``descgen`` writing to a pipe with --plain) never import it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..words.codec import Decoded
from ..tools.explain import FieldReading, explain
from ..tools.printer import binary, check_arguments, diagram_rows, rank_readings, to_json
from ..rules.validate import Finding, is_valid

if TYPE_CHECKING:
    from rich.console import RenderableType

__all__ = ["render", "plain", "to_json", "diagram_rows", "rank_readings", "render_datapath",
           "plain_datapath", "render_findings", "plain_findings", "check_json", "render_footprint",
           "plain_footprint", "render_properties", "render_mask", "plain_mask", "plain_diff",
           "finding_line", "verdict_line", "readings_summary"]

_PALETTE = ("cyan", "magenta", "green", "yellow", "blue", "bright_cyan", "bright_magenta",
            "bright_green", "bright_yellow", "bright_blue")
_SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "note": "dim"}


def _field_numbers(decoded: Decoded) -> dict[str, int]:
    return {f.name: i + 1 for i, f in enumerate(reversed(decoded.layout.fields))}


def _diagram_plain(decoded: Decoded) -> list[str]:
    numbers = _field_numbers(decoded)
    lines = []
    for hi, lo, segs in diagram_rows(decoded):
        label = f"[{hi}:{lo}]"
        widths = [max(len(s), len(str(numbers[f.name]))) for f, s in segs]
        bits = " ".join(f"{s:<{w}}" for (_, s), w in zip(segs, widths))
        marks = " ".join(f"{numbers[f.name]:<{w}}" for (f, _), w in zip(segs, widths))
        lines.append(f"  {label:>8}  {bits}".rstrip())
        lines.append(f"  {'':>8}  {marks}".rstrip())
    return lines


def _legend(decoded: Decoded) -> str:
    return "  ".join(f"{n}={name}" for name, n in _field_numbers(decoded).items())


def _header(decoded: Decoded) -> str:
    lay = decoded.layout
    kind = f"  kind::{decoded.kind}" if decoded.kind else ""
    return f"{decoded.descriptor} {decoded.hex}{kind}  ({lay.title}; {lay.size}-bit; PTX {lay.source})"


def finding_line(f: Finding) -> str:
    """One finding as a line: ``severity: [rule] field[bits]: message (source)``."""
    where = f"{f.field}{f.bits or ''}: " if f.field else ""
    return f"{f.severity}: [{f.rule}] {where}{f.message} ({f.source})"


def verdict_line(findings: Sequence[Finding]) -> str:
    """The verdict on a word's findings: ``valid: 0 error(s), 1 warning(s), 2 note(s)``, or
    ``INVALID: ...`` when one is an error."""
    counts = {s: sum(f.severity == s for f in findings) for s in ("error", "warning", "note")}
    head = "valid" if is_valid(findings) else "INVALID"
    return f"{head}: {counts['error']} error(s), {counts['warning']} warning(s), {counts['note']} note(s)"


def readings_summary(readings: Sequence[tuple[Decoded, Sequence[Finding]]]) -> str:
    """An instruction-descriptor word of no stated kind (``descgen decode`` without
    ``--kind``): a header line, then one line per reading (``readings``, best first: each
    kind's :class:`Decoded` and findings) -- the kind, the A x B -> D types, M, N and K, then
    ``valid`` (with its warnings counted) or the first broken rule."""
    rows = []
    for d, findings in readings:
        v = d.values
        types = f"{v['a_type'] or '?'} x {v['b_type'] or '?'} -> {v['d_type'] or '?'}"
        errors = [f for f in findings if f.severity == "error"]
        warnings = sum(f.severity == "warning" for f in findings)
        if errors:
            where = f"{errors[0].field}{errors[0].bits or ''}: " if errors[0].field else ""
            verdict = f"INVALID: [{errors[0].rule}] {where}{errors[0].message}"
            if len(errors) > 1:
                verdict += f" (+{len(errors) - 1} more error{'s' * (len(errors) > 2)})"
        else:
            verdict = "valid" + (f" ({warnings} warning{'s' * (warnings != 1)})" if warnings
                                 else "")
        rows.append((f"kind::{d.kind}", types, f"M={v['m']}", f"N={v['n']}", f"K={v['k']}",
                     verdict))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    word = readings[0][0].hex
    lines = [f"idesc {word}: the word does not say its kind; each kind's reading, fewest broken "
             "rules first (--kind picks one; --show prints each in full):"]
    lines += ["  " + "  ".join(c.ljust(w) for c, w in zip(r[:5], widths)) + "  " + r[5]
              for r in rows]
    return "\n".join(lines)


def plain(decoded: Decoded, findings: Sequence[Finding] = ()) -> str:
    """Plain-text dump: header, one row per field (MSB first), bit diagram, findings."""
    findings = check_arguments(decoded, findings)
    rows = explain(decoded)
    wn = max(len(r.name) for r in rows)
    wb = max(len(r.bits) for r in rows)
    wr = max(len(str(r.raw)) for r in rows)
    lines = [_header(decoded)]
    for r in rows:
        mark = "!" if r.unexpected else " "
        lines.append(f" {mark} {r.bits:>{wb}}  {r.name:<{wn}}  {r.raw:>{wr}}  {r.meaning}".rstrip())
    lines.append("")
    lines.append("  bit diagram (field numbers below, MSB first):")
    lines.extend(_diagram_plain(decoded))
    lines.append("  " + _legend(decoded))
    lines.append("")
    lines.append(verdict_line(findings))
    lines.extend("  " + finding_line(f) for f in findings)
    return "\n".join(lines)


def _style(r: FieldReading, i: int) -> str:
    if r.unexpected:
        return "bold white on red"
    if r.field.role != "field":
        return "dim"
    return _PALETTE[i % len(_PALETTE)]


def render(decoded: Decoded, findings: Sequence[Finding] = ()) -> RenderableType:
    """Rich renderables: title, field table, coloured bit diagram, findings."""
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    findings = check_arguments(decoded, findings)
    rows = explain(decoded)
    styles = {r.name: _style(r, i) for i, r in enumerate(rows)}
    table = Table(title=_header(decoded), title_justify="left", show_edge=False, pad_edge=False)
    table.add_column("bits", justify="right", style="bold")
    table.add_column("field")
    table.add_column("raw", justify="right")
    table.add_column("meaning")
    for r in rows:
        st = styles[r.name]
        table.add_row(r.bits, Text(r.name, style=st), str(r.raw),
                      Text(r.meaning, style="bold red" if r.unexpected else ""))
    numbers = _field_numbers(decoded)
    diagram = Text()
    for hi, lo, segs in diagram_rows(decoded):
        widths = [max(len(s), len(str(numbers[f.name]))) for f, s in segs]
        diagram.append(f"{f'[{hi}:{lo}]':>8}  ")
        for j, ((f, s), w) in enumerate(zip(segs, widths)):
            diagram.append(s, style=styles[f.name])
            diagram.append(" " * (w - len(s)) + (" " if j < len(segs) - 1 else "\n"))
        diagram.append(" " * 10)
        for j, ((f, s), w) in enumerate(zip(segs, widths)):
            diagram.append(f"{numbers[f.name]:<{w}}", style=styles[f.name])
            diagram.append(" " if j < len(segs) - 1 else "\n")
    legend = Text()
    for name, n in numbers.items():
        legend.append(f"{n}={name}", style=styles[name])
        legend.append("  ")
    verdict = Text(verdict_line(findings), style="bold green" if is_valid(findings) else "bold red")
    found = [Text(finding_line(f), style=_SEVERITY_STYLE[f.severity]) for f in findings]
    return Group(table, Text(""), diagram, legend, Text(""), verdict, *found)


# ---------------------------------------------------------------- zero-column masks

def _ranges(columns: Sequence[int]) -> str:
    out: list[str] = []
    for c in columns:
        if out and "-" not in out[-1].split(",")[-1] and int(out[-1]) == c - 1:
            out[-1] = f"{out[-1]}-{c}"
        elif out and "-" in out[-1] and int(out[-1].split("-")[1]) == c - 1:
            out[-1] = f"{out[-1].split('-')[0]}-{c}"
        else:
            out.append(str(c))
    return ", ".join(out) if out else "none"


def plain_mask(z: Any) -> str:
    """Plain text of a :class:`descriptors.words.zcm.ZcmMask`: masks as bit strings (column 0
    first and as a 0b literal), sub-masks, zeroed columns and the B columns read."""
    k = len(z.submasks)
    lines = [f"zcm {z.word:#018x}  M={z.m} N={z.n}: {k} sub-mask(s) of {z.width} columns, "
             f"column shift {z.column_shift}"]
    groups = [z.bits(s, z.width) for s in z.submasks]
    lines.append(f"  mask, column 0 first (1 = zeroed): {'|'.join(groups)}")
    lines.append(f"  mask as an integer:  {z.mask:#0{z.n // 4 + 2}x}")
    for i, s in enumerate(z.submasks):
        lo = i * z.width
        lines.append(f"  sub-mask {i} (columns {lo}-{lo + z.width - 1}): "
                     f"0b{binary(s, z.width)}")
    zero = z.zero_columns()
    lines.append(f"  zeroed columns: {_ranges(zero)}")
    used = [j for j in range(z.n) if not z.mask >> j & 1]
    lines.append(f"  used output columns {_ranges(used)} read B columns "
                 f"{_ranges([j + z.column_shift for j in used])}")
    return "\n".join(lines)


def render_mask(z: Any) -> RenderableType:
    """A rich strip of N cells: zeroed (red) and used (green) columns, sub-mask boundaries."""
    from rich.console import Group
    from rich.text import Text

    strip = Text()
    for i, s in enumerate(z.submasks):
        if i:
            strip.append("|", style="bold")
        for j in range(z.width):
            strip.append("█" if s >> j & 1 else "·", style="red" if s >> j & 1 else "green")
    legend = Text("█ zeroed column   · B column used   | sub-mask boundary; column 0 at the left",
                  style="dim")
    return Group(Text(plain_mask(z)), Text(""), strip, legend)


def render_datapath(layout: Any) -> RenderableType:
    """A data-path layout (:class:`descriptors.isa.tmem.DataPathLayout`, PTX 9.7.16.10.5) as a rich
    table: what the MMA is, the organisation and the lanes it starts at, where the PTX text
    draws it.  Booleans read yes/no and lists as text (never Python reprs)."""
    from rich.table import Table

    table = Table(title=f"data-path layout {layout.layout}", show_header=False,
                  title_justify="left")
    table.add_column("property", style="bold")
    table.add_column("value")
    for key, value in _datapath_rows(layout):
        table.add_row(key, value)
    return table


def _datapath_rows(layout: Any) -> list[tuple[str, str]]:
    """(property, value) rows of a data-path layout: booleans as yes/no, lists as text."""
    return [("M", str(layout.m)), ("cta_group", str(layout.cta_group)),
            ("sparse", "yes" if layout.sparse else "no"), ("ws", "yes" if layout.ws else "no"),
            ("organization", layout.organization),
            ("half data path", "yes" if layout.half_datapath else "no"),
            ("lane alignments", ", ".join(map(str, layout.lane_alignments))),
            ("PTX section", layout.section), ("figures", ", ".join(layout.figures))]


def plain_datapath(layout: Any) -> str:
    """``tmem --datapath --plain``: the rows of :func:`render_datapath` as ``key: value``
    lines under the title."""
    return "\n".join([f"data-path layout {layout.layout}"]
                     + [f"  {k}: {v}" for k, v in _datapath_rows(layout)])


# ---------------------------------------------------------------- findings (descgen check)

def plain_findings(findings: Sequence[Finding]) -> str:
    """Plain text of a list of findings: one line each (``severity: [rule] field[bits]: message
    (source)``) and the verdict line (``valid: 0 error(s), ...`` or ``INVALID: ...``)."""
    return "\n".join([str(f) for f in findings] + [verdict_line(findings)])


def check_json(findings: Sequence[Finding]) -> dict[str, Any]:
    """``descgen check --format json``: ``{"valid", "findings"}``, each finding's ``value`` as
    JSON gives it (integer text as a number, :func:`descriptors.tools.output.json_value`)."""
    from ..tools.output import json_value

    return {"valid": is_valid(findings),
            "findings": [{**f.to_dict(), "value": json_value(f.value)} for f in findings]}


def render_findings(findings: Sequence[Finding]) -> RenderableType:
    """Findings as a rich table (severity, rule, field and bits, message, source) and the
    verdict line under it."""
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    parts: list[Any] = []
    if findings:
        table = Table(show_lines=False)
        for title in ("severity", "rule", "field", "message", "source"):
            table.add_column(title, overflow="fold")
        for f in findings:
            table.add_row(Text(f.severity, style=_SEVERITY_STYLE[f.severity]), f.rule,
                          f"{f.field}{f.bits or ''}" if f.field else "", f.message, f.source)
        parts.append(table)
    parts.append(Text(verdict_line(findings), style="bold green" if is_valid(findings) else "bold red"))
    return Group(*parts)


# ---------------------------------------------------------------- tcgen05.ld/st footprints

def _register_text(fp: Any) -> str:
    return str(fp.registers) + (f" (+{fp.red_registers} for the reduction)" if fp.red_registers else "")


def plain_footprint(fp: Any) -> str:
    """Plain text of a :class:`descriptors.isa.tmem.Footprint` (``descgen tmem --ld/--st``): the
    instruction, registers per thread, one line per access (address, lanes, columns), the
    non-error findings and ``valid``/``INVALID`` (errors are reported on stderr)."""
    lines = [fp.ptx, f"registers per thread: {_register_text(fp)}"]
    for i, a in enumerate(fp.accesses, 1):
        lines.append(f"access {i}: address {a.address.word:#010x}  lanes {a.lanes[0]}-{a.lanes[1]}"
                     f"  columns {a.columns[0]}-{a.columns[1]}")
    lines += [str(f) for f in fp.verdict if f.severity != "error"]
    lines.append("valid" if fp.ok else "INVALID")
    return "\n".join(lines)


def render_footprint(fp: Any, findings: Sequence[Finding] | None = None,
                     caption: str | None = None, verdict: bool = True) -> RenderableType:
    """A footprint as rich tables: the instruction and its register count, one row per access
    (address, lanes, columns; ``caption`` above it), then ``findings`` (default: the non-error
    findings of the verdict) and, with ``verdict``, ``valid``/``INVALID``."""
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    title = Text(f"{fp.ptx}: {_register_text(fp)} register(s) per thread", style="bold")
    table = Table()
    for column, justify in (("access", "right"), ("address", "left"), ("lanes", "left"),
                            ("columns", "left")):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for i, a in enumerate(fp.accesses, 1):
        table.add_row(str(i), f"{a.address.word:#010x}", f"{a.lanes[0]}-{a.lanes[1]}",
                      f"{a.columns[0]}-{a.columns[1]}")
    shown = [f for f in fp.verdict if f.severity != "error"] if findings is None else findings
    found = [Text(finding_line(f), style=_SEVERITY_STYLE[f.severity]) for f in shown]
    head = [title] if caption is None else [title, Text(caption)]
    if not verdict:
        return Group(*head, table, *found)
    ok = Text("valid" if fp.ok else "INVALID", style="bold green" if fp.ok else "bold red")
    return Group(*head, table, *found, ok)


def render_properties(title: str, rows: Sequence[tuple[str, str]],
                      notes: Sequence[str] = ()) -> RenderableType:
    """A titled two-column rich table of (property, value) rows, then dim ``notes`` lines."""
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    table = Table(title=Text(title), title_justify="left", show_header=False)
    table.add_column("property", style="bold")
    table.add_column("value")
    for key, value in rows:  # Text: a value such as [p] is not rich markup
        table.add_row(Text(key), Text(value))
    return Group(table, *(Text(f"note: {n}", style="dim") for n in notes))


# ---------------------------------------------------------------- word diffs (descgen diff)

def plain_diff(d: Any) -> list[str]:
    """The lines of ``descgen diff``'s text (a :class:`descriptors.tools.diff.WordDiff`): the
    fields that differ with both raw values and meanings, the bit diagram with the changed bits
    marked, and each word's verdict and findings."""
    what = d.a.descriptor + (f" kind::{d.a.kind}" if d.a.kind else "")
    if d.equal:
        lines = [f"{what}: {d.a.hex} and {d.b.hex} are equal"]
    else:
        count = len(d.changes)
        lines = [f"{what}: {d.a.hex} and {d.b.hex} differ in {count} field"
                 f"{'s' if count != 1 else ''} (changed bits {d.to_dict()['changed_bits']})"]
        wn = max(len(c.name + c.bits) for c in d.changes)
        for c in d.changes:
            lines.append(f"  {(c.name + c.bits):<{wn}}  a {c.raw_a:>5}  {c.meaning_a}")
            lines.append(f"  {'':<{wn}}  b {c.raw_b:>5}  {c.meaning_b}")
        lines.append("bit diagram (^ marks a changed bit):")
        lines += d.diagram()
    pairs = [("both", d.a, d.findings_a)] if d.equal else \
        [("a", d.a, d.findings_a), ("b", d.b, d.findings_b)]
    for label, dec, fs in pairs:
        lines.append(f"{label} {dec.hex}: {verdict_line(fs)}")
        lines += [f"  {finding_line(f)}" for f in fs]
    return lines

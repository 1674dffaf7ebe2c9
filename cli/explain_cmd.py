"""descgen explain command (registered on the main app by cli.main).

``descgen explain 'stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [p], {r0,r1,r2,r3};'`` prints
the fragment map of one instruction (:mod:`descriptors.isa.fragments`): for stmatrix which thread
gives which row address and which thread/register/half (or byte) holds each element; for
tcgen05.ld/st the lanes and columns it touches; for wmma.load what PTX specifies (vector size,
element type, packing) and that the thread layout is not specified; for wgmma.mma_async what
the line computes, the register counts and what each operand is.  ``--svg FILE`` writes the
picture, ``--format json`` the data.  A line that does not read, or an illegal form, is one
line on stderr with exit code 2.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Annotated, Any

import typer

from descriptors import parse_int

from descriptors.isa.fragments import StmatrixMap, WgmmaForm, WmmaFragment, explain_instruction
from descriptors.tools.printer import render_footprint, render_properties

from .common import REPORT_FORMATS, NoColorOpt, PlainOpt, format_option, rich_console


ExplainFormat, ExplainFormatOpt = format_option("ExplainFormat", REPORT_FORMATS, {
    "text": "the fragment map as tables (--plain: plain text)",
    "json": "{instruction, ...}: the map, fragment or footprint"})


#: Colours of the lanes' groups of four (one matrix row each in Figure 107).
_COLOURS = ("red", "green", "blue", "magenta", "cyan", "yellow", "bright_red", "bright_green")


def _stmatrix_picture(m: StmatrixMap, colour: bool) -> Any:
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    parts: list[Any] = [Text(m.instruction, style="bold"),
                        Text(f"{m.matrices} matrix(es) of {m.rows} rows x {m.cols} "
                             f"{m.element_bits}-bit elements in shared memory"
                             f"{' (stored transposed)' if m.trans else ''}; source: {m.source}")]
    addr = Table(title="row addresses", show_lines=False)
    addr.add_column("matrix", justify="right")
    for r in range(m.rows):
        addr.add_column(f"row {r}", justify="right")
    for i in range(m.matrices):
        addr.add_row(str(i), *[f"t{m.row_addresses[(i, r)]}" for r in range(m.rows)])
    parts.append(addr)
    unit = "h" if m.type == "b16" else "b"
    for i in range(m.matrices):
        t = Table(title=f"matrix {i} (register r[{i}] of every thread): lane t, "
                        f"{'half h (0 = low)' if unit == 'h' else 'byte b (0 = LSB)'}",
                  show_lines=False)
        t.add_column("row", justify="right")
        for c in range(m.cols):
            t.add_column(str(c), justify="center")
        for r in range(m.rows):
            cells = []
            for c in range(m.cols):
                e = m.at(i, r, c)
                sub = e.half if e.byte is None else e.byte
                style = _COLOURS[(e.lane // 4) % len(_COLOURS)] if colour else ""
                cells.append(Text(f"t{e.lane}.{unit}{sub}", style=style))
            t.add_row(str(r), *cells)
        parts.append(t)
    for n in m.notes:
        parts.append(Text(f"note: {n}"))
    return Group(*parts)


def _stmatrix_lines(m: StmatrixMap) -> list[str]:
    """``--plain`` of a stmatrix map: the picture's content as aligned text lines."""
    unit = "h" if m.type == "b16" else "b"
    out = [m.instruction,
           f"{m.matrices} matrix(es) of {m.rows} rows x {m.cols} {m.element_bits}-bit elements in "
           f"shared memory{' (stored transposed)' if m.trans else ''}; source: {m.source}",
           "row addresses (matrix: thread giving row 0, 1, ...):"]
    for i in range(m.matrices):
        out.append(f"  matrix {i}: " + " ".join(f"t{m.row_addresses[(i, r)]}" for r in range(m.rows)))
    for i in range(m.matrices):
        out.append(f"matrix {i} (register r[{i}] of every thread), row: lane t."
                   f"{'half h' if unit == 'h' else 'byte b'} per column")
        for r in range(m.rows):
            cells = []
            for c in range(m.cols):
                e = m.at(i, r, c)
                cells.append(f"t{e.lane}.{unit}{e.half if e.byte is None else e.byte}".ljust(7))
            out.append(f"  {r:>3}  " + " ".join(cells).rstrip())
    out += [f"note: {n}" for n in m.notes]
    return out


def _wmma_rows(w: WmmaFragment) -> list[tuple[str, str]]:
    return [("matrix", f"{w.matrix}: {w.rows} x {w.cols} {w.element_type} elements, .{w.layout} "
                       "in memory"),
            ("fragment", f"{w.registers} {w.register_bits}-bit register(s) per thread "
                         f"(.{'/.'.join(w.register_types)}), {w.elements_per_register} "
                         f"element(s) of {w.element_bits} bits per register, "
                         f"{w.elements_per_thread} per thread"),
            ("memory", f"default stride {w.default_stride} elements; the address and stride x "
                       f"element size must be multiples of {w.alignment_bytes} bytes "
                       "(PTX 9.7.14.4.2)"),
            ("thread layout", "not specified")]


def _wmma_lines(w: WmmaFragment) -> list[str]:
    return [w.instruction, *(f"{k}: {v}" for k, v in _wmma_rows(w)), f"note: {w.note}"]


def _short_vector(text: str) -> str:
    regs = [r.strip() for r in text.strip("{}").split(",")] if text.startswith("{") else []
    return f"{{{regs[0]}, ..., {regs[-1]}}} ({len(regs)})" if len(regs) > 4 else text


def _wgmma_rows(w: WgmmaForm) -> list[tuple[str, str]]:
    sat = " .satfinite" if w.satfinite else ""
    rows = [("operation", f"D ({w.m} x {w.n} .{w.dtype}{sat}) = A ({w.m} x {w.k} .{w.atype}"
                          f"{', sparse' if w.sparse else ''}) * B ({w.k} x {w.n} .{w.btype}) "
                          "+ D"),
            ("D fragment", f"{w.d_registers} 32-bit registers per thread "
                           f"(.{'/.'.join(w.d_register_types)})"),
            ("A fragment", f"{w.a_registers} 32-bit registers per thread "
                  f"(.{'/.'.join(w.a_register_types)})" if w.a_source == "registers"
             else "from shared memory, through a matrix descriptor")]
    rows += [(name, f"{_short_vector(text)}: {meaning}") for name, text, meaning in w.operands]
    rows.append(("target", w.arch))
    return rows


def _wgmma_lines(w: WgmmaForm) -> list[str]:
    return [w.instruction, *(f"{k}: {v}" for k, v in _wgmma_rows(w)),
            *(f"note: {n}" for n in w.notes)]


def _relative(relative: bool) -> str:
    return ("relative to taddr = lane 0, column 0; give --taddr for a real address"
            if relative else "")


def _footprint_findings(fp: Any) -> list[Any]:
    return [f for f in fp.verdict if f.severity != "note" or "warp" in f.rule
            or "pack" in f.rule or "split" in f.rule]


def _footprint_lines(fp: Any, relative: bool) -> list[str]:
    where = f" ({_relative(relative)})" if relative else ""
    out = [fp.ptx, f"registers per thread: {fp.registers}"
           + (f" (+{fp.red_registers} for the reduction)" if fp.red_registers else "")
           + f"; {fp.lanes} lanes x {fp.columns_per_access} columns per access{where}"]
    for i, a in enumerate(fp.accesses, 1):
        out.append(f"access {i}: address {a.address.word:#010x}  lanes {a.lanes[0]}-{a.lanes[1]}"
                   f"  columns {a.columns[0]}-{a.columns[1]}")
    out += [str(f) for f in _footprint_findings(fp)]
    return out


def explain_cmd(
    instruction: Annotated[str, typer.Argument(help="One PTX instruction: stmatrix, wmma.load, wgmma.mma_async, tcgen05.ld or tcgen05.st.")],
    fmt: ExplainFormatOpt = ExplainFormat.text,
    svg: Annotated[Path | None, typer.Option("--svg", help="Write the picture to this SVG file.")] = None,
    taddr: Annotated[str | None, typer.Option("--taddr", help="tcgen05.ld/st: the Tensor Memory address.", show_default="0x00000000: lane 0, column 0")] = None,
    plain_: PlainOpt = False,
    no_color: NoColorOpt = False,
) -> None:
    """The fragment map of one instruction: stmatrix's thread/register/half per element
    (PTX Figures 107/108), tcgen05.ld/st's lane/column footprint, wmma.load's fragment size
    and packing (its thread layout is unspecified), wgmma.mma_async's operation, register
    counts and operands."""
    from descriptors.errors import ParameterError
    from descriptors.isa.instructions import parse_instruction

    p = parse_instruction(instruction)
    if taddr is not None and not p.mnemonic.startswith("tcgen05"):
        raise ParameterError("--taddr applies to tcgen05.ld/st only")
    kw = {} if taddr is None else {"taddr": parse_int(taddr, "--taddr")}
    result = explain_instruction(instruction, **kw)
    if isinstance(result, StmatrixMap):
        data = result.to_dict()
        picture: Any = lambda: _stmatrix_picture(result, colour=not no_color)  # noqa: E731
        plain_lines = None
    elif isinstance(result, WgmmaForm):
        data = {"instruction": result.instruction, "wgmma": result.to_dict()}
        picture = lambda: render_properties(result.instruction, _wgmma_rows(result),  # noqa: E731
                                            list(result.notes))
        plain_lines = _wgmma_lines(result)
    elif isinstance(result, WmmaFragment):
        data = {"instruction": result.instruction, "fragment": result.to_dict()}
        picture = lambda: render_properties(result.instruction, _wmma_rows(result),  # noqa: E731
                                            [result.note])
        plain_lines = _wmma_lines(result)
    else:
        data = {"instruction": p.text, "footprint": result.to_dict()}
        caption = (f"{result.lanes} lanes x {result.columns_per_access} columns per access"
                   + (f"; {_relative(taddr is None)}" if taddr is None else ""))
        picture = lambda: render_footprint(  # noqa: E731
            result, _footprint_findings(result), caption, verdict=False)
        plain_lines = _footprint_lines(result, taddr is None)
    _warn_as_lint(instruction)
    if svg is not None:
        from rich.console import Console
        console = Console(record=True, file=io.StringIO(), width=200, highlight=False)
        console.print(picture())
        console.save_svg(str(svg), title=f"descgen explain {p.text}")
    if fmt is ExplainFormat.json:
        typer.echo(json.dumps(data, indent=2))
    elif plain_:
        typer.echo("\n".join(_stmatrix_lines(result) if plain_lines is None else plain_lines))
    else:
        rich_console(no_color, piped_width=200).print(picture())


def _warn_as_lint(instruction: str) -> None:
    """The warnings ``descgen lint`` gives for this line (a missing ``.aligned`` ...), one line
    each on stderr, whatever the format: explain reads the form, lint judges it, and the two
    must not disagree in silence."""
    import sys

    from descriptors.isa.instructions import check_instruction

    for f in check_instruction(instruction, arch=None):
        if f.severity == "warning":
            sys.stderr.write(f"descgen: {' '.join(str(f).split())}\n")


def register(app: typer.Typer) -> None:
    """Add this module's commands to `app`."""
    app.command("explain")(explain_cmd)

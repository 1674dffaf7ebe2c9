"""``descgen explain``'s output: the fragment map of one instruction
(:mod:`descriptors.isa.fragments`) as rich tables and pictures, as ``--plain`` text lines, and
as its JSON document.

* stmatrix (:class:`~descriptors.isa.fragments.StmatrixMap`): the row addresses and, per
  matrix, which thread/register/half (or byte) holds each element, lanes coloured by group;
* wmma.load (:class:`~descriptors.isa.fragments.WmmaFragment`) and wgmma.mma_async
  (:class:`~descriptors.isa.fragments.WgmmaForm`): a property table;
* tcgen05.ld/st (:class:`descriptors.isa.tmem.Footprint`): the accesses (address, lanes,
  columns) and the findings worth showing;
* tcgen05.mma, cp, commit, alloc, dealloc, relinquish_alloc_permit
  (:class:`~descriptors.isa.instructions.forms.Tcgen05Form`): a property table (operation,
  kind, types, Table 39 shapes, qualifiers, operands and their roles, the descgen command).

rich loads inside the functions that draw with it.
"""

from __future__ import annotations

import json
from typing import Any

from ..isa.fragments import StmatrixMap, WgmmaForm, WmmaFragment
from ..isa.instructions.forms import Tcgen05Form

__all__ = ["picture", "plain_lines", "to_json", "write_svg"]


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


def _tcgen05_rows(t: Tcgen05Form) -> list[tuple[str, str]]:
    return [*t.rows, *((name, f"{_short_vector(text)}: {role}") for name, text, role in t.operands),
            ("source", t.section), ("target", t.arch)]


def _tcgen05_lines(t: Tcgen05Form) -> list[str]:
    return [t.instruction, *(f"{k}: {v}" for k, v in _tcgen05_rows(t)),
            *(f"note: {n}" for n in t.notes)]


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


def picture(result: Any, *, colour: bool, relative: bool = False) -> Any:
    """The rich renderable of an explained instruction (``result`` of
    :func:`descriptors.isa.fragments.explain_instruction`); ``colour`` colours a stmatrix map's
    lanes; ``relative``: a footprint's addresses are relative to taddr 0 (no ``--taddr``)."""
    from .printer import render_footprint, render_properties

    if isinstance(result, StmatrixMap):
        return _stmatrix_picture(result, colour=colour)
    if isinstance(result, WgmmaForm):
        return render_properties(result.instruction, _wgmma_rows(result), list(result.notes))
    if isinstance(result, Tcgen05Form):
        return render_properties(result.instruction, _tcgen05_rows(result), list(result.notes))
    if isinstance(result, WmmaFragment):
        return render_properties(result.instruction, _wmma_rows(result), [result.note])
    caption = (f"{result.lanes} lanes x {result.columns_per_access} columns per access"
               + (f"; {_relative(relative)}" if relative else ""))
    return render_footprint(result, _footprint_findings(result), caption, verdict=False)


def plain_lines(result: Any, *, relative: bool = False) -> list[str]:
    """``--plain``: the content of :func:`picture` as aligned text lines."""
    if isinstance(result, StmatrixMap):
        return _stmatrix_lines(result)
    if isinstance(result, WgmmaForm):
        return _wgmma_lines(result)
    if isinstance(result, Tcgen05Form):
        return _tcgen05_lines(result)
    if isinstance(result, WmmaFragment):
        return _wmma_lines(result)
    return _footprint_lines(result, relative)


def to_json(result: Any, instruction: str) -> str:
    """``--format json``: a stmatrix map's ``to_dict()``; for the others ``{"instruction",
    "wgmma" | "fragment" | "footprint" | "tcgen05"}`` (``instruction`` is the line as parsed), indented
    by 2."""
    if isinstance(result, StmatrixMap):
        data = result.to_dict()
    elif isinstance(result, WgmmaForm):
        data = {"instruction": result.instruction, "wgmma": result.to_dict()}
    elif isinstance(result, WmmaFragment):
        data = {"instruction": result.instruction, "fragment": result.to_dict()}
    elif isinstance(result, Tcgen05Form):
        data = {"instruction": result.instruction, "tcgen05": result.to_dict()}
    else:
        data = {"instruction": instruction, "footprint": result.to_dict()}
    return json.dumps(data, indent=2)


def write_svg(result: Any, path: Any, instruction: str, *, colour: bool,
              relative: bool = False) -> None:
    """``--svg FILE``: :func:`picture`, 200 columns wide, as an SVG file."""
    from .console import save_svg

    save_svg(picture(result, colour=colour, relative=relative), str(path),
             title=f"descgen explain {instruction}", width=200)

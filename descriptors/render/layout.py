"""``descgen layout``'s output: the report of a layout (the descriptor's properties and its K
steps, as rich tables or ``--plain`` aligned text), its JSON document, the words as constants,
and the pictures of ``--show``/``--svg`` (the swizzle atom, how the tile stacks its atoms).

The data comes from :mod:`descriptors.layout.smem_layout` and
:mod:`descriptors.layout.cute_layout`; rich loads inside the functions that draw with it.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..errors import ParameterError
from ..layout.cute_layout import CuteDescriptor
from ..layout.smem_layout import UNIT_BYTES, DescriptorLayout, KStep, SmemLayout, SwizzleAtom
from ..tools.output import DEFAULT_NAMES, describe_params, render_word

__all__ = ["report", "plain_report", "rich_report", "to_json", "constants", "picture", "write_svg",
           "wgmma_json", "wgmma_hex", "wgmma_report", "wgmma_constants",
           "atom_table",
           "tiling_table"]


#: One line of the layout report: a (label, value) row, or a K-steps table
#: (title, column names, rows of cells; right-aligned to the widths of _STEP_WIDTHS).
_Line = Any


_STEP_WIDTHS = {"step": 4, "k": 5, "offset": 8, "start": 8, "+word": 6, "descriptor": 0}


def _row(label: str, value: str) -> tuple[str, str]:
    return (label, value)


def _steps(title: str, columns: list[str], rows: list[list[str]]) -> dict[str, Any]:
    return {"title": title, "columns": columns, "rows": rows}


#: What tcgen05's text cites for a layout (its descriptor, Table 40-41; its canonical layouts
#: and swizzle atoms, 9.7.16.3 and Tables 52-53) and its MMA kinds, as sm_90a's wgmma
#: matrix descriptor cites them: the same canonical layouts, PTX ISA 9.7.15.5.1.
_TCGEN05_CITATION = re.compile(r"9\.7\.16\.3(?:\.\d+)*|Table (?:40|41|52|53)(?!\d)")
_KIND_MMAS = re.compile(r"\bkind::[\w:]+ MMAs?\b")
_WGMMA_SECTION = "9.7.15.5.1"


def wgmma_citations(text: str) -> str:
    """``text`` about a layout as a wgmma word's: each citation of tcgen05's descriptor tables
    and sections (Tables 40, 41, 52, 53, 9.7.16.3.x) becomes PTX ISA 9.7.15.5.1 (once where
    several were listed together), ``kind::f16 MMAs`` becomes ``wgmma MMAs``."""
    text = _TCGEN05_CITATION.sub(_WGMMA_SECTION, text)
    text = re.sub(rf"{re.escape(_WGMMA_SECTION)}(?:, {re.escape(_WGMMA_SECTION)})+", _WGMMA_SECTION,
                  text)
    return _KIND_MMAS.sub(lambda m: "wgmma MMAs" if m.group().endswith("s") else "wgmma MMA",
                          text)


def wgmma_source(source: str | None) -> str | None:
    """A :class:`~descriptors.errors.LayoutError`'s ``source`` as a wgmma word's
    (:func:`wgmma_citations`)."""
    return None if source is None else wgmma_citations(source)


def _wgmma_lines(lines: list[_Line]) -> list[_Line]:
    out: list[_Line] = []
    for line in lines:
        if isinstance(line, str):
            line = wgmma_citations(line)
        elif isinstance(line, tuple):
            line = _row(line[0], wgmma_citations(line[1]))
        else:
            line = {**line, "title": wgmma_citations(line["title"])}
        out.append(line)
    return out


def _wgmma_data(node: Any) -> Any:
    if isinstance(node, str):
        return wgmma_citations(node)
    if isinstance(node, list):
        return [_wgmma_data(v) for v in node]
    if isinstance(node, dict):
        return {k: _wgmma_data(v) for k, v in node.items()}
    return node


def report(result: SmemLayout | DescriptorLayout | CuteDescriptor,
           steps: list[KStep] | None = None, sparse: bool = False, compressed: bool = False,
           cute_text: tuple[str, int, list[str]] | None = None) -> list[_Line]:
    """The lines of the layout report: a title, (label, value) rows and the K-step table
    (``steps``, of a dense, sparse or sparse compressed-A MMA loop), for :func:`plain_report`
    and :func:`rich_report`.  ``cute_text`` (the CuTe layout a word implies, its origin and
    notes) adds its rows."""
    if isinstance(result, CuteDescriptor):
        return _cute_report(result)
    lines = _report(result, steps, sparse, compressed, cute_text)
    return _wgmma_lines(lines) if getattr(result, "descriptor", "smem") == "wgmma" else lines


def _cute_report(r: CuteDescriptor) -> list[_Line]:
    f = r.fields
    lines: list[_Line] = [f"shared memory descriptor {r.hex}"]
    lines.append(_row("layout", f"{r.major}-major {r.dtype} slice {r.shape[0]} x {r.shape[1]} (M/N x K "
                      f"elements) at {r.start_address_bytes:#x}, {r.swizzle} swizzle"))
    lines.append(_row("cute", r.layout))
    lines.append(_row("canonical form", r.canonical_layout + "   (element units, 9.7.16.3.3)"))
    lines.append(_row("LBO", f"{r.lbo_bytes} bytes (raw {f['leading_byte_offset']})"))
    lines.append(_row("SBO", f"{r.sbo_bytes} bytes (raw {f['stride_byte_offset']})"))
    lines.append(_row("swizzle", f"{r.swizzle} (code {f['swizzle']})"))
    lines.append(_row("base offset", f"{r.base_offset} (swizzle pattern on "
                      + ("absolute addresses)" if r.pattern == "address" else "the layout's origin)")))
    lines.append(_row("fields", " ".join(f"{k}={v}" for k, v in f.items()
                                         if not k.startswith(("reserved", "fixed")))))
    for note in r.notes:
        lines.append(_row("note", note))
    if r.k_steps:
        per = r.k_steps[1].k_elements if len(r.k_steps) > 1 else r.shape[1]
        lines.append(_steps(f"K steps ({len(r.k_steps)} steps of {per} K elements):",
                            ["step", "offset", "start", "+word", "descriptor"],
                            [[str(s.index), f"{s.offset_bytes:#x}", f"{s.start_address_bytes:#x}",
                              f"{s.delta:+}", s.hex] for s in r.k_steps]))
    return lines


def _report(result: SmemLayout | DescriptorLayout, steps: list[KStep] | None, sparse: bool,
            compressed: bool, cute_text: tuple[str, int, list[str]] | None = None) -> list[_Line]:
    atom = result.atom
    what = "wgmma matrix descriptor" if getattr(result, "descriptor", "smem") == "wgmma" \
        else "shared memory descriptor"
    lines: list[_Line] = [f"{what} {result.hex}"]
    f = result.fields
    if isinstance(result, SmemLayout):
        lines.append(_row("layout", f"{result.major}-major {result.dtype} tile {result.tile_rows} x "
                          f"{result.tile_k} (M/N x K elements) at {result.start_address_bytes:#x}, "
                          f"{result.swizzle} swizzle"))
        lines.append(_row("canonical", f"T = {result.T} elements per 16 bytes, m = {result.m}, "
                          f"k = {result.k} (9.7.16.3.3)"))
    else:
        lines.append(_row("layout", f"{result.major}-major {result.dtype}, {result.swizzle} swizzle, "
                          f"start address {result.start_address_bytes:#x}"))
        lines.append(_row("canonical", f"T = {result.T} elements per 16 bytes; m and k are not "
                          "stored in a descriptor"))
    lines.append(_row("packing", result.element.packing))
    lines.append(_row("canonical form", f"{atom.swizzle_functor} o {result.canonical_form}"))
    lines.append(_row("", f"= {result.canonical_layout}   (element units)"))
    if isinstance(result, SmemLayout):
        lines.append(_row("whole tile", f"{result.tile_layout}   (CuTe)"))
    if cute_text is not None:
        text, origin, cute_notes = cute_text
        lines.append(_row("cute", text))
        for note in cute_notes:
            lines.append(_row("", note + f"; pass --start-address {origin:#x} with --cute"))
    lines.append(_row("swizzle atom", f"{atom.shape} 128-bit units (Table 53) = {atom.elements[0]} "
                      f"M/N x {atom.elements[1]} K {result.dtype}, {atom.rows} rows of "
                      f"{atom.row_bytes} bytes, {atom.bytes} bytes"
                      + (f", pattern repeats every {atom.repeat_bytes} bytes" if atom.repeat_bytes else "")))
    if isinstance(result, SmemLayout):
        order = "M/N first, Step<_1,_2>" if result.tile_order == "mn_first" else "K first, Step<_2,_1>"
        lines.append(_row("atoms", f"{result.atoms[0]} along M/N x {result.atoms[1]} along K, stacked "
                          f"{order}; next atom along M/N +{result.mn_atom_stride_bytes} bytes, along K "
                          f"+{result.k_atom_stride_bytes} bytes; tile {result.footprint_bytes} bytes"))
    mode = f" ({result.lbo_mode} address)" if result.lbo_mode == "absolute" else ""
    lines.append(_row("LBO", f"{result.lbo_bytes} bytes (raw {f['leading_byte_offset']}){mode}: "
                      f"{result.lbo_meaning}"))
    lines.append(_row("SBO", f"{result.sbo_bytes} bytes (raw {f['stride_byte_offset']}): "
                      f"{result.sbo_meaning}"))
    lines.append(_row("swizzle", f"{result.swizzle} (code {f['swizzle']})"))
    lines.append(_row("base offset", str(result.base_offset)))
    lines.append(_row("fields", " ".join(f"{k}={v}" for k, v in f.items()
                                         if not k.startswith(("reserved", "fixed")))))
    for note in result.notes:
        lines.append(_row("note", note))
    if steps is not None and isinstance(result, SmemLayout):
        k_per = steps[1].k_elements if len(steps) > 1 else result.tile_k
        what = ("sparse, compressed A" if compressed else "sparse") if sparse else "dense"
        lines.append(_steps(f"K steps ({what}, {k_per} K elements per step, "
                            f"{len(steps)} steps through K = {result.tile_k}):",
                            ["step", "k", "offset", "start", "+word", "descriptor"],
                            [[str(s.index), str(s.k_elements), f"{s.offset_bytes:#x}",
                              f"{s.start_address_bytes:#x}", f"{s.delta:+}", s.hex]
                             for s in steps]))
    return lines


def plain_report(lines: list[_Line]) -> str:
    """The report as the stable plain text of ``--plain``: ``  label             value`` rows
    and aligned K-step tables."""
    out = []
    for line in lines:
        if isinstance(line, str):
            out.append(line)
        elif isinstance(line, tuple):
            out.append(f"  {line[0]:<18}{line[1]}")
        else:
            out += ["", line["title"]]
            for cells in (line["columns"], *line["rows"]):
                out.append("  " + "  ".join(c.rjust(_STEP_WIDTHS[n])
                                            for n, c in zip(line["columns"], cells)))
    return "\n".join(out)


def rich_report(lines: list[_Line]) -> Any:
    """The report as rich tables: the descriptor's properties, then each K-step table."""
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    from .printer import render_properties

    title = lines[0]
    rows = [line for line in lines[1:] if isinstance(line, tuple)]
    parts: list[Any] = [render_properties(title, rows)]
    for line in lines[1:]:
        if isinstance(line, dict):
            table = Table()
            for name in line["columns"]:
                table.add_column(name, justify="left" if name == "descriptor" else "right")
            for cells in line["rows"]:
                table.add_row(*cells)
            parts += [Text(""), Text(line["title"]), table]
    return Group(*parts)


def to_json(result: SmemLayout | DescriptorLayout | CuteDescriptor,
            steps: list[KStep] | None = None,
            cute_text: tuple[str, int, list[str]] | None = None) -> str:
    """``--format json``: the layout's ``to_dict()``, its ``k_steps`` when listed, and the CuTe
    layout a word implies (``cute_layout``, ``cute_origin_bytes``), indented by 2."""
    data = result.to_dict()
    if data["descriptor"] == "wgmma":
        data = _wgmma_data(data)
    if steps is not None:
        data["k_steps"] = [s.to_dict() for s in steps]
    if cute_text is not None:
        data["cute_layout"] = cute_text[0]
        data["cute_origin_bytes"] = cute_text[1]
    return json.dumps(data, indent=2)


def constants(descriptor: str, word: int, steps: list[KStep] | None, fmt: str,
              name: str | None, params: dict[str, Any]) -> str:
    """The word (or one word per K step, ``NAME_K<i>``) as C++/Python constants, the layout's
    inputs as their comment."""
    base = name if name is not None else DEFAULT_NAMES[descriptor]
    if steps is None:
        return render_word(descriptor, word, fmt, name=base, params=params)
    comment = ("// " if fmt != "python" else "# ") + f"{descriptor}: {describe_params(params)}"
    return "\n".join([comment] + [
        render_word(descriptor, s.word, fmt, name=f"{base}_K{s.index}",
                    params={"k_step": s.index, "k_elements": s.k_elements})
        for s in steps])


def wgmma_json(result: SmemLayout | DescriptorLayout | CuteDescriptor, words: list[int],
               steps: list[KStep] | None = None) -> str:
    """``layout --arch sm_90a --format json``: :func:`to_json`'s document of the layout (the
    same keys, the same schema) with sm_90a's wgmma matrix descriptor (PTX ISA 9.7.15.5.1) in
    place of tcgen05's word: ``descriptor`` ``"wgmma"``, ``word``, its ``fields`` and
    ``swizzle_code``, and each K step's ``word`` (``words``: one per K step with ``steps``,
    ``words[0]`` alone without); indented by 2."""
    from ..words.codec import decode
    data = _wgmma_data(json.loads(to_json(result, steps)))
    fields = dict(decode("wgmma", words[0]).fields)
    data.update(descriptor="wgmma", word=f"{words[0]:#018x}", fields=fields)
    if "swizzle_code" in data:
        data["swizzle_code"] = fields["swizzle"]
    if steps is not None:
        for step, w in zip(data["k_steps"], words):
            step["word"] = f"{w:#018x}"
    return json.dumps(data, indent=2)


def wgmma_hex(words: list[int]) -> str:
    """``layout --arch sm_90a --format hex``: one wgmma word a line."""
    return "\n".join(f"{w:#018x}" for w in words)


def wgmma_report(result: SmemLayout | DescriptorLayout | CuteDescriptor, words: list[int],
                 steps: list[KStep] | None = None, sparse: bool = False,
                 compressed: bool = False) -> list[_Line]:
    """``layout --arch sm_90a`` as text: :func:`report` of the layout with sm_90a's wgmma
    matrix descriptor (PTX ISA 9.7.15.5.1) in place of tcgen05's word -- ``words``, one per K
    step with ``steps`` (``words[0]`` alone without): its title, its swizzle code and fields,
    and the K-step table's descriptors."""
    from ..words.codec import decode
    fields = dict(decode("wgmma", words[0]).fields)
    lines: list[_Line] = [f"wgmma matrix descriptor {words[0]:#018x}   (sm_90a, PTX ISA "
                          "9.7.15.5.1)"]
    for line in _wgmma_lines(report(result, steps, sparse, compressed))[1:]:
        if isinstance(line, tuple) and line[0] == "swizzle":
            line = _row("swizzle", f"{result.swizzle} (code {fields['swizzle']})")
        elif isinstance(line, tuple) and line[0] == "fields":
            line = _row("fields", " ".join(f"{k}={v}" for k, v in fields.items()
                                           if not k.startswith(("reserved", "fixed"))))
        elif isinstance(line, dict):
            at = line["columns"].index("descriptor")
            rows = [[*cells[:at], f"{w:#018x}", *cells[at + 1:]]
                    for cells, w in zip(line["rows"], words)]
            line = {**line, "rows": rows}
        lines.append(line)
    return lines


def wgmma_constants(words: list[int], fmt: str, name: str | None, params: dict[str, Any],
                    k_steps: bool) -> str:
    """``layout --arch sm_90a --format c/cpp/python``: the wgmma word as a constant named
    ``name`` (default ``WGMMA_DESC``...), or one per K step, ``NAME_K<i>``."""
    base = name or DEFAULT_NAMES["wgmma"]
    if not k_steps:
        return render_word("wgmma", words[0], fmt, name=base, params=params)
    return "\n".join(render_word("wgmma", w, fmt, name=f"{base}_K{i}", params={"k_step": i})
                     for i, w in enumerate(words))


def _pattern_start(result: SmemLayout | DescriptorLayout) -> int:
    if isinstance(result, SmemLayout):
        return result.start_address_bytes
    return result.pattern_start_bytes


def picture(result: SmemLayout | DescriptorLayout | CuteDescriptor, *, colour: bool,
            plain: bool = False) -> Any:
    """``--show``: the swizzle atom (:func:`atom_table`) and, for a tile, how it stacks its
    atoms (:func:`tiling_table`); ``plain`` (``--plain``): aligned columns, no box drawing.  A
    CuTe layout's descriptor has no picture: a :class:`ParameterError`."""
    if isinstance(result, CuteDescriptor):
        raise ParameterError("--show/--svg draw a tile from --tile or a word from --explain; "
                             "for a CuTe layout, --explain its word")
    atom = atom_table(result.atom, _pattern_start(result), colour=colour, plain=plain)
    if isinstance(result, SmemLayout):
        from rich.console import Group
        return Group(atom, tiling_table(result, colour=colour, plain=plain))
    return atom


def write_svg(result: SmemLayout | DescriptorLayout | CuteDescriptor, path: Any) -> None:
    """``--svg FILE``: :func:`picture` in colour, 160 columns wide, as an SVG file."""
    from .console import save_svg

    save_svg(picture(result, colour=True), str(path), title=f"descgen layout {result.hex}")


# ---------------------------------------------------------------------------- picture

#: A picture's table under ``--plain``: aligned columns, no box drawing.
_PLAIN_TABLE: dict[str, Any] = {"box": None, "show_edge": False}

_COLOURS = ("red", "green", "yellow", "blue", "magenta", "cyan", "bright_red", "bright_green")


def atom_table(atom: SwizzleAtom, pattern_start: int = 0, *, colour: bool = True,
               plain: bool = False) -> Any:
    """A rich renderable (title, table, caption) of one swizzle atom at ``pattern_start``: a line per row (labelled with its
    address and its M/N or K index), a column per physical 16-byte chunk position (labelled with
    its byte offset in the row); each cell names the elements of the row's leading dimension
    that the chunk stored there holds, coloured by logical chunk; ``plain``: no box drawing."""
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    lead = "K" if atom.major == "K" else "M/N"
    across = "M/N" if atom.major == "K" else "K"
    title = (f"{atom.major}-major {atom.swizzle} swizzle atom, {atom.dtype} (T={atom.T}) at "
             f"{pattern_start:#x}: Table 53 {atom.shape} 128-bit units = {atom.elements[0]} M/N x "
             f"{atom.elements[1]} K, {atom.rows} rows of {atom.row_bytes} bytes, "
             f"{atom.swizzle_functor}")
    caption = (f"cell = the {lead} elements of that {across} row held by the 16-byte chunk "
               "stored at that byte offset of the row")
    table = Table(show_lines=False, **_PLAIN_TABLE if plain else {})
    table.add_column("address", justify="right", no_wrap=True)
    table.add_column(f"{across} row", justify="right", no_wrap=True)
    for p in range(atom.chunks):
        table.add_column(f"+{p * UNIT_BYTES}", justify="center", no_wrap=True)
    for r, row in enumerate(atom.grid(pattern_start)):
        cells = []
        for c in row:
            label = f"{lead} {c * atom.T}-{(c + 1) * atom.T - 1}"
            style = f"bold black on {_COLOURS[c % len(_COLOURS)]}" if colour else ""
            cells.append(Text(label, style=style))
        table.add_row(f"{pattern_start + r * atom.row_bytes:#x}", str(r), *cells)
    return Group(Text(title, style="bold" if colour else ""), table, Text(caption))


_MAX_TILING = 16          # atoms per direction drawn; larger tiles are cut with a note


def tiling_table(layout: SmemLayout, *, colour: bool = True, plain: bool = False) -> Any:
    """A rich renderable of how ``layout``'s tile stacks its swizzle atoms (its tile order): a
    row per atom along M/N, a column per atom along K, each cell the atom's byte address.  The
    step from one cell to the next down a column is the M/N atom stride, along a row the K atom
    stride -- the two strides LBO and SBO are made of.  ``plain``: no box drawing."""
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    atom = layout.atom
    n_mn, n_k = layout.atoms
    order = "M/N first (Step<_1,_2>)" if layout.tile_order == "mn_first" else "K first (Step<_2,_1>)"
    title = (f"{n_mn} x {n_k} swizzle atoms ({atom.elements[0]} M/N x {atom.elements[1]} K "
             f"{atom.dtype} each) stacked {order}: next along M/N +{layout.mn_atom_stride_bytes} "
             f"bytes, along K +{layout.k_atom_stride_bytes} bytes")
    table = Table(show_lines=False, **_PLAIN_TABLE if plain else {})
    table.add_column("M/N \\ K", justify="right", no_wrap=True)
    for j in range(min(n_k, _MAX_TILING)):
        table.add_column(f"K {j * atom.elements[1]}", justify="right", no_wrap=True)
    for i in range(min(n_mn, _MAX_TILING)):
        cells = []
        for j in range(min(n_k, _MAX_TILING)):
            addr = layout.start_address_bytes + i * layout.mn_atom_stride_bytes + j * layout.k_atom_stride_bytes
            rank = (i * n_k + j) if layout.tile_order == "k_first" else (j * n_mn + i)
            style = f"bold black on {_COLOURS[rank % len(_COLOURS)]}" if colour else ""
            cells.append(Text(f"{addr:#x}", style=style))
        table.add_row(f"M/N {i * atom.elements[0]}", *cells)
    parts: list[Any] = [Text(title, style="bold" if colour else ""), table]
    if n_mn > _MAX_TILING or n_k > _MAX_TILING:
        parts.append(Text(f"(first {_MAX_TILING} atoms per direction shown)"))
    return Group(*parts)

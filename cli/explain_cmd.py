"""descgen explain command (registered on the main app by cli.main).

``descgen explain 'stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [p], {r0,r1,r2,r3};'`` prints
the fragment map of one instruction (:mod:`descriptors.isa.fragments`): for stmatrix which thread
gives which row address and which thread/register/half (or byte) holds each element; for
tcgen05.ld/st the lanes and columns it touches; for wmma.load what PTX specifies (vector size,
element type, packing) and that the thread layout is not specified; for wgmma.mma_async what
the line computes, the register counts and what each operand is.  ``--svg FILE`` writes the
picture, ``--format json`` the data.  A line that does not read, or an illegal form, is one
line on stderr with exit code 2.  tcgen05.mma (every kind, .sp, .ws, .block_scale, collector
usage), tcgen05.cp, tcgen05.commit and tcgen05.alloc/dealloc/relinquish_alloc_permit get a
property table: what the line does and what each operand is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from descriptors import parse_int

from descriptors.isa.fragments import explain_instruction
from descriptors.render import explain as view

from .common import REPORT_FORMATS, NoColorOpt, PlainOpt, format_option, show_output


ExplainFormat, ExplainFormatOpt = format_option("ExplainFormat", REPORT_FORMATS, {
    "text": "the fragment map as tables (--plain: plain text)",
    "json": "{instruction, ...}: the map, fragment, footprint or tcgen05 form"})


def explain_cmd(
    instruction: Annotated[str, typer.Argument(help="One PTX instruction: stmatrix, wmma.load, wgmma.mma_async, tcgen05.ld/st, tcgen05.mma (.sp, .ws), tcgen05.cp, tcgen05.commit, tcgen05.alloc/dealloc/relinquish_alloc_permit.")],
    fmt: ExplainFormatOpt = ExplainFormat.text,
    svg: Annotated[Path | None, typer.Option("--svg", help="Write the picture to this SVG file.")] = None,
    taddr: Annotated[str | None, typer.Option("--taddr", help="tcgen05.ld/st: the Tensor Memory address.", show_default="0x00000000: lane 0, column 0")] = None,
    plain_: PlainOpt = False,
    no_color: NoColorOpt = False,
) -> None:
    """The fragment map of one instruction: stmatrix's thread/register/half per element
    (PTX Figures 107/108), tcgen05.ld/st's lane/column footprint, wmma.load's fragment size
    and packing (its thread layout is unspecified), wgmma.mma_async's operation, register
    counts and operands; tcgen05.mma's operation, kind, types, Table 39 shapes, qualifiers
    and operands (and the descgen idesc command for its descriptor), and what tcgen05.cp,
    commit, alloc, dealloc and relinquish_alloc_permit do."""
    from descriptors.errors import ParameterError
    from descriptors.isa.instructions import parse_instruction

    from descriptors.isa.instructions.forms import with_syntax_operands

    filled = with_syntax_operands(instruction)  # tcgen05.mma.cta_group::1.kind::f16 alone
    if filled is not None:
        instruction = filled
    p = parse_instruction(instruction)
    if taddr is not None and p.mnemonic not in ("tcgen05.ld", "tcgen05.st"):
        raise ParameterError("--taddr applies to tcgen05.ld/st only")
    kw = {} if taddr is None else {"taddr": parse_int(taddr, "--taddr")}
    result = explain_instruction(instruction, **kw)
    if filled is not None:
        from descriptors.structs import replace
        result = replace(result, notes=result.notes + (
            "no operands given: the syntax's operands are shown as placeholders",))
    relative = taddr is None  # a footprint's addresses: relative to taddr 0
    _warn_as_lint(instruction)
    if svg is not None:
        view.write_svg(result, svg, p.text, colour=not no_color, relative=relative)
    if fmt is ExplainFormat.json:
        typer.echo(view.to_json(result, p.text))
    else:
        show_output(lambda: view.picture(result, colour=not no_color, relative=relative),
                    lambda: "\n".join(view.plain_lines(result, relative=relative)), plain_,
                    no_color, piped_width=200)


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

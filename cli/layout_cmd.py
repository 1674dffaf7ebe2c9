"""descgen layout command (registered on the main app by cli.main).

``descgen layout --major K --swizzle 128B --a-type bf16 --tile 128x64 --start-address 0x400``
derives the shared memory descriptor of a tile from its layout (PTX 9.7.16.3.3, Tables 52-53),
its swizzle atoms stacked as ``--tile-order`` says; ``--k-steps`` lists the descriptors an MMA
loop issues through the tile's K; ``--show`` draws the swizzle atom and how the tile stacks the
atoms, ``--svg FILE`` writes the same picture; ``--cute LAYOUT`` reads a layout as CuTe prints
it; ``--explain WORD`` goes the other way: the layout a descriptor word implies, with its CuTe
layout.  Bad input raises a DescgenError (one line, exit 2).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from descriptors import ParameterError, parse_int
from descriptors.layout.cute_layout import CuteDescriptor, cute_layout_descriptor, descriptor_cute_layout
from descriptors.render import layout as view
from descriptors.tools.output import NAMED_FORMATS
from .common import (NameOpt, NoColorOpt, arch_spelling, kind_option, PlainOpt, format_option, renamed_option, show_output,
                     warn_name_unused)
from descriptors.layout.smem_layout import (DTYPES, WGMMA_ONLY_K, DescriptorLayout, KStep, SmemLayout,
                                     explain_descriptor, layout_descriptor, parse_tile)


#: Formats of ``descgen layout``.
LAYOUT_FORMATS = ("text", "json", "hex", "c", "cpp", "python")
LayoutFormat, LayoutFormatOpt = format_option("LayoutFormat", LAYOUT_FORMATS, {
    "text": "the layout, its fields and K steps as tables (--plain: aligned text; --show adds the picture)",
    "hex": "the word; one per K step with --k-steps or a CuTe layout's K mode",
    "c": "a C++ constexpr line, also C23; one per K step (NAME_K0, NAME_K1, ...)",
    "python": "a Python assignment; one per K step (NAME_K0, NAME_K1, ...)"})


def _dtype_help() -> str:
    return ", ".join(n for n in DTYPES if n not in WGMMA_ONLY_K)


# (Long: one command, three ways in -- --cute, --explain, a layout -- each checking which
# options it takes; the results are the library's, the output a renderer's.)
def layout_cmd(
    major: Annotated[str | None, typer.Option("--major", help="Major-ness of the operand in shared memory: K or MN.")] = None,
    swizzle: Annotated[str | None, typer.Option("--swizzle", help="Swizzle mode: none, 128B_base32B, 128B, 64B, 32B.")] = None,
    a_type: Annotated[str | None, typer.Option("--a-type", help=f"Element type of an A tile by PTX name, as idesc spells it: {_dtype_help()}.")] = None,
    b_type: Annotated[str | None, typer.Option("--b-type", help="Element type of a B tile (give --a-type or --b-type).")] = None,
    dtype_old: Annotated[str | None, typer.Option("--dtype", hidden=True, help="Old name of --a-type/--b-type.")] = None,
    tile: Annotated[str | None, typer.Option("--tile", help="Tile ROWSxK in elements: rows of M (A) or N (B) by K, e.g. 128x64. With --explain: the slice its CuTe layout spans.")] = None,
    tile_order: Annotated[str | None, typer.Option("--tile-order", help="How the tile stacks its swizzle atoms: mn_first (CuTe Step<_1,_2>) or k_first (Step<_2,_1>, how CUTLASS tiles MN-major operands).", show_default="mn_first")] = None,
    cute: Annotated[str | None, typer.Option("--cute", help="A layout as CuTe prints it (per-MMA slice (M/N,K) in elements, or a partitioned tensor), e.g. 'Sw<3,4,3>_smem_ptr[16b](0x400) o (_128,_16):(_64,_1)', or as the CuTe DSL prints it, e.g. 'tensor<ptr<bf16, smem, align<32>, S<3,4,3>> o ((128,16)):((64,1))>' (it names the type but no address: give --start-address).")] = None,
    start_address: Annotated[str | None, typer.Option("--start-address", help="Byte address of the tile in shared memory.", show_default="0")] = None,
    kind: Annotated[str | None, typer.Option("--kind", callback=kind_option, help="MMA kind: picks e2m1's packing (padded for f8f6f4/mxf8f6f4, packed for mxf4/mxf4nvf4) and the K of --k-steps.")] = None,
    unused_lbo_bytes: Annotated[str, typer.Option("--unused-lbo-bytes", help="LBO written where it is unused (K-major swizzled): 16 (raw 1, CUTLASS) or 0 (DeepGEMM).")] = "16",
    lbo_address: Annotated[str | None, typer.Option("--lbo-address", help="Absolute leading-dimension address mode (sm_103a): byte address of the second K chunk.")] = None,
    k_steps: Annotated[bool, typer.Option("--k-steps", help="List the descriptors an MMA loop issues stepping through the tile's K (with --cute: one per MMA of the slice's K; a partitioned tensor lists its K mode anyway).")] = False,
    sparse: Annotated[bool, typer.Option("--sparse/--dense", help="--k-steps: sparse MMA (K doubled, Table 39).")] = False,
    compressed: Annotated[bool, typer.Option("--compressed", help="--k-steps: the sparse A operand, stored with half its K.")] = False,
    k: Annotated[str | None, typer.Option("-k", "--k", help="--k-steps: K of one MMA when the kind allows two (96 for mxf4/mxf4nvf4 on sm_103a), as idesc -k.", show_default="the kind's K")] = None,
    umma_k_old: Annotated[str | None, typer.Option("--umma-k", hidden=True, help="Old name of -k/--k.")] = None,
    explain: Annotated[str | None, typer.Option("--explain", help="Explain a descriptor WORD instead: the layout it implies (needs --major and --a-type or --b-type).")] = None,
    show: Annotated[bool, typer.Option("--show", help="Draw the swizzle atom: which 16-byte chunk of each row lands where.")] = False,
    svg: Annotated[Path | None, typer.Option("--svg", help="Write the swizzle-atom picture to this SVG file.")] = None,
    arch: Annotated[str | None, typer.Option("--arch", callback=arch_spelling, help="sm_90a: the wgmma matrix descriptor "
                    "(PTX ISA 9.7.15.5.1) of the same layout, instead of tcgen05's; with "
                    "--explain, the WORD is a wgmma word.",
                    show_default="tcgen05's smem descriptor")] = None,
    fmt: LayoutFormatOpt = LayoutFormat.text,
    name: NameOpt = None,
    plain_: PlainOpt = False,
    no_color: NoColorOpt = False,
) -> None:
    """Shared memory descriptor from a layout (major-ness, swizzle, type, tile and tile order,
    or a CuTe layout), its K steps and swizzle atom; or, with --explain, the layout a
    descriptor word implies.  The text is a table of the descriptor's properties and a table
    of the K steps; --plain prints them as aligned plain text (and the --show picture without
    colour)."""
    umma_k = renamed_option(k, umma_k_old, "-k/--k", "--umma-k")
    given_types = {t for t in (a_type, b_type) if t is not None}
    if len(given_types) > 1:
        raise ParameterError("give --a-type or --b-type (the tile's operand), not both")
    dtype = renamed_option(next(iter(given_types), None), dtype_old, "--a-type/--b-type", "--dtype")
    no_color = no_color or plain_
    if show and fmt is not LayoutFormat.text:
        raise ParameterError("--show draws in the terminal: use it with --format text (or --svg)")
    if cute is None and (major is None or dtype is None):
        raise ParameterError("give --major (K or MN) and --a-type or --b-type" + ("" if explain or cute else
                             ", --swizzle and --tile (or --cute LAYOUT, or --explain WORD)"))
    if explain is not None and cute is not None:
        raise ParameterError("--explain and --cute go opposite ways: give one")
    if arch == "sm_90a" and explain is None:
        _wgmma_refusals(major, swizzle, dtype)
    result: SmemLayout | DescriptorLayout | CuteDescriptor
    steps: list[KStep] | None = None
    cute_text: tuple[str, int, list[str]] | None = None
    if cute is not None:
        _refuse_with("--cute", (("--tile", tile), ("--tile-order", tile_order),
                                ("--lbo-address", lbo_address),
                                ("--compressed", compressed or None)), False,
                     "the layout itself says how the tile is laid out")
        if (sparse or umma_k is not None) and not k_steps:
            raise ParameterError("--sparse and -k apply to --k-steps")
        result = cute_layout_descriptor(cute, dtype=dtype, major=major, swizzle=swizzle,
                                        start_address=start_address, kind=kind,
                                        unused_lbo_bytes=parse_int(unused_lbo_bytes, "--unused-lbo-bytes"),
                                        k_steps=k_steps, sparse=sparse, umma_k=umma_k)
        steps = list(result.k_steps) or None
    elif explain is not None:
        _refuse_with("--explain", (("--swizzle", swizzle), ("--tile-order", tile_order),
                                   ("--start-address", start_address), ("--lbo-address", lbo_address)),
                     k_steps or unused_lbo_bytes != "16", "the layout comes from the word")
        word = parse_int(explain, "--explain")
        if arch not in (None, "sm_100a", "sm_90a"):
            raise ParameterError(f"--arch {arch!r}: layout reads tcgen05's word (sm_100a, the "
                                 "default) or sm_90a's wgmma word")
        result = explain_descriptor(word, major=major, dtype=dtype, kind=kind, arch=arch)
        rows, kk = parse_tile(tile) if tile is not None else (None, None)
        if result.lbo_mode == "relative":
            from descriptors.words.codec import wgmma_to_smem
            same = wgmma_to_smem(word) if result.descriptor == "wgmma" else word
            cute_text = descriptor_cute_layout(same, major=major, dtype=dtype, kind=kind, mn=rows,
                                               k=kk)
    else:
        if swizzle is None or tile is None:
            raise ParameterError("give --swizzle and --tile ROWSxK (or --explain WORD)")
        result = layout_descriptor(major, swizzle, dtype, tile,
                                   0 if start_address is None else start_address, kind=kind,
                                   unused_lbo_bytes=unused_lbo_bytes, lbo_address=lbo_address,
                                   tile_order=tile_order)
        if k_steps:
            steps = result.k_steps(sparse=sparse, compressed=compressed, umma_k=umma_k)
        elif sparse or compressed or umma_k is not None:
            raise ParameterError("--sparse, --compressed and -k apply to --k-steps")
    el_name = getattr(getattr(result, "element", None), "name", None) or getattr(result, "dtype", None)
    if el_name in WGMMA_ONLY_K and arch != "sm_90a":
        raise ParameterError(f"{el_name} is an A/B type of wgmma only (no tcgen05.mma kind reads "
                             "it): give --arch sm_90a")
    if arch is not None and arch != "sm_100a":
        if arch != "sm_90a":
            raise ParameterError(f"--arch {arch!r}: layout gives tcgen05's word (sm_100a, the "
                                 "default) or sm_90a's wgmma word")
        if explain is None:
            _wgmma_layout(result, steps, fmt, name, getattr(result, "major", major), swizzle,
                          dtype, tile, cute, (sparse, compressed, plain_, no_color))
            return
    if svg is not None:
        view.write_svg(result, svg)
    if fmt is not LayoutFormat.text and fmt is not LayoutFormat.json:
        # the word alone: what it rests on goes to stderr (text and JSON carry every note)
        for caveat in getattr(result, "caveats", ()):
            if getattr(result, "descriptor", "smem") == "wgmma":
                caveat = view.wgmma_citations(caveat)
            sys.stderr.write(f"descgen: note: {caveat}\n")
    warn_name_unused(name, fmt.value)
    if fmt.value in NAMED_FORMATS:
        given = {"major": major, "swizzle": swizzle, "dtype": dtype, "tile": tile,
                 "tile_order": tile_order, "cute": cute, "start_address": start_address,
                 "kind": kind, "explain": explain}
        typer.echo(view.constants(getattr(result, "descriptor", "smem"), result.word, steps,
                                  fmt.value, name,
                                  {k: v for k, v in given.items() if v is not None}))
    elif fmt is LayoutFormat.hex:
        typer.echo("\n".join(s.hex for s in steps) if steps is not None else result.hex)
    elif fmt is LayoutFormat.json:
        typer.echo(view.to_json(result, steps, cute_text))
    else:
        lines = view.report(result, steps, sparse, compressed, cute_text)
        show_output(lambda: view.rich_report(lines), lambda: view.plain_report(lines), plain_,
                    no_color, piped_width=160)
        if show and not isinstance(result, CuteDescriptor):
            from descriptors.render.console import picture_console
            picture_console(no_color).print(view.picture(result, colour=not no_color,
                                                                  plain=plain_))


def _wgmma_layout(result: Any, steps: list[KStep] | None, fmt: LayoutFormat, name: str | None,
                  major: str, swizzle: str | None, dtype: str | None, tile: str | None,
                  cute: str | None, text: tuple[bool, bool, bool, bool]) -> None:
    """``layout --arch sm_90a``: the same layout's wgmma matrix descriptor (PTX ISA 9.7.15.5.1),
    one word per K step with --k-steps (text: the tables of the sm_100a report, its words
    replaced, :func:`descriptors.render.layout.wgmma_report`): :func:`descriptors.words.codec.smem_to_wgmma` of each
    tcgen05 word (the same canonical layouts; an H100 reads them as descgen's fetch model
    says).  Refused where sm_90 has no form: 128B swizzling with 32B atomicity, the absolute
    LBO mode, an MN-major operand of a type other than f16/bf16 (wgmma's imm-trans,
    9.7.15.5.2)."""
    from descriptors.errors import LayoutError, WordError
    from descriptors.words.codec import smem_to_wgmma
    el = getattr(result, "element", None)
    name_of = el.name if el is not None else getattr(result, "dtype", dtype)
    _wgmma_refusals(major, None, name_of)
    try:
        words = [smem_to_wgmma(s.word) for s in steps] if steps is not None \
            else [smem_to_wgmma(result.word)]
    except WordError as exc:
        raise LayoutError(f"{exc}".removesuffix(" (9.7.15.5.1)"), "9.7.15.5.1") from None
    if fmt not in (LayoutFormat.text, LayoutFormat.json):  # (text and JSON carry every note)
        for caveat in getattr(result, "caveats", ()):
            sys.stderr.write(f"descgen: note: {view.wgmma_citations(caveat)}\n")
    warn_name_unused(name, fmt.value)
    if fmt.value in NAMED_FORMATS:
        given = {"major": major, "swizzle": swizzle, "dtype": dtype, "tile": tile, "cute": cute}
        params = {k: v for k, v in given.items() if v is not None}
        typer.echo(view.wgmma_constants(words, fmt.value, name, params, steps is not None))
    elif fmt is LayoutFormat.json:
        typer.echo(view.wgmma_json(result, words, steps))
    elif fmt is LayoutFormat.hex:
        typer.echo(view.wgmma_hex(words))
    else:  # text: the sm_100a report's tables, with the wgmma words (text: --sparse,
        # --compressed, --plain, --no-color)
        sparse, compressed, plain_, no_color = text
        lines = view.wgmma_report(result, words, steps, sparse, compressed)
        show_output(lambda: view.rich_report(lines), lambda: view.plain_report(lines), plain_,
                    no_color, piped_width=160)


def _wgmma_refusals(major: str | None, swizzle: str | None, dtype: str | None) -> None:
    """What sm_90a's wgmma has no form of, refused before the layout is worked out (which
    would answer in tcgen05's terms): an MN-major operand of a type other than f16/bf16
    (wgmma transposes, imm-trans, .f16/.bf16 only: PTX ISA 9.7.15.5.2) and a swizzle mode
    the wgmma matrix descriptor lacks (128B with 32B atomicity: 9.7.15.5.1).  Input that does
    not parse is left to the layout's own errors."""
    from descriptors.errors import DescgenError, LayoutError
    from descriptors.layout.smem_layout import canonical_dtype, parse_swizzle
    from descriptors.words.enums import SWIZZLE_SM90
    if major is not None and major.strip().upper() == "MN" and dtype is not None:
        try:
            name = canonical_dtype(dtype)
        except DescgenError:
            name = None
        if name is not None and name not in ("f16", "bf16"):
            raise LayoutError(f"an MN-major {name} operand has no wgmma form: wgmma transposes "
                              "(imm-trans) .f16/.bf16 operands only; store it K-major",
                              "9.7.15.5.2")
    if swizzle is not None:
        try:
            mode = parse_swizzle(swizzle).name
        except DescgenError:
            return
        if SWIZZLE_SM90.lookup(mode) is None:
            raise LayoutError(f"the wgmma matrix descriptor has no {mode} swizzle: its modes are "
                              + ", ".join(c.name for c in SWIZZLE_SM90.choices), "9.7.15.5.1")


def _refuse_with(what: str, options: tuple[tuple[str, Any], ...], flag: bool, why: str) -> None:
    given = [n for n, v in options if v is not None]
    if flag:
        given.append("--k-steps/--sparse/--compressed/--unused-lbo-bytes")
    if given:
        raise ParameterError(f"{', '.join(given)} cannot be combined with {what}: {why}")


def _in_wgmma_terms(command: Any) -> Any:
    """``command`` whose layout errors, with ``--arch sm_90a``, cite what the wgmma word rests
    on (PTX ISA 9.7.15.5.1: :func:`descriptors.render.layout.wgmma_citations`) rather than
    tcgen05's tables: the layout is worked out in tcgen05's terms, the same canonical
    layouts."""
    from functools import wraps

    @wraps(command)
    def run(**options: Any) -> None:
        from descriptors.errors import LayoutError
        try:
            command(**options)
        except LayoutError as exc:
            if options.get("arch") != "sm_90a":
                raise
            text = str(exc)
            if exc.source is not None:
                text = text.removesuffix(f" (PTX {exc.source})")
            raise LayoutError(view.wgmma_citations(text), view.wgmma_source(exc.source)) from None
    return run


def register(app: typer.Typer) -> None:
    """Add this module's commands to `app`."""
    app.command("layout")(_in_wgmma_terms(layout_cmd))

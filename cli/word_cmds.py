"""``descgen idesc``, ``smem``, ``zcm`` and ``tmem``: one word from its parameters.

``--format json`` gives ``{"descriptor", "word", "fields", "params", "findings", "valid"}``
(schema ``word``); ``zcm --show`` the masks (``zcm-show``), ``tmem --ld/--st`` the footprint
(``tmem-footprint``), ``tmem --datapath`` the layout (``tmem-datapath``): see
:data:`descriptors.tools.output.JSON_SCHEMAS`.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

import descriptors
from descriptors.tools.output import NAMED_FORMATS, render_word
from descriptors.rules.validate import validate

from .common import (OutFormat, WordOutput, emit_word, enforce_rules, kind_option,
                     option_groups, option_values, word_format_option,
                     params_for, renamed_option, show_output, show_word, warn_name_unused,
                     word_for_arch)


class ZcmOutput(WordOutput):
    """:class:`WordOutput` of ``zcm``: ``--format text`` is also the table of ``--show``."""

    fmt: word_format_option("--show") = OutFormat.hex  # type: ignore[valid-type]


class TmemOutput(WordOutput):
    """:class:`WordOutput` of ``tmem``: ``--format text`` is also the table of ``--ld/--st``
    and ``--datapath``; ``--force`` also passes a footprint that breaks a rule."""

    fmt: word_format_option("--ld/--st, --datapath") = OutFormat.hex  # type: ignore[valid-type]
    force: Annotated[bool, typer.Option("--force", help="Emit the constant even when it breaks "
                     "rules of the PTX text, and pass an --ld/--st footprint that does (errors "
                     "become warnings, exit 0).")] = False


#: What --force does to an --ld/--st footprint (printed whatever the verdict).
_FOOTPRINT_HINT = "the footprint is shown above; --force makes its errors warnings, exit 0"


@option_groups
def idesc_cmd(
    kind: Annotated[str, typer.Option("--kind", callback=kind_option, help="MMA kind: tf32, f16, f8f6f4, i8, mxf8f6f4, "
                                      "mxf4, mxf4nvf4.")],
    m: Annotated[str, typer.Option("-m", "--m", help="M, rows of A and D.")],
    n: Annotated[str, typer.Option("-n", "--n", help="N, columns of B and D.")],
    a_type: Annotated[str | None, typer.Option("--a-type", help="A type by PTX name (bf16, e4m3, s8 ...).")] = None,
    b_type: Annotated[str | None, typer.Option("--b-type", help="B type by PTX name.")] = None,
    d_type: Annotated[str | None, typer.Option("--d-type", help="D (accumulator) type: f16, f32, s32.", show_default="f32")] = None,
    a_major: Annotated[str | None, typer.Option("--a-major", help="A major-ness: K or MN.", show_default="K")] = None,
    b_major: Annotated[str | None, typer.Option("--b-major", help="B major-ness: K or MN.", show_default="K")] = None,
    negate_a: Annotated[bool | None, typer.Option("--negate-a/--no-negate-a", help="Negate A.", show_default="no-negate-a")] = None,
    negate_b: Annotated[bool | None, typer.Option("--negate-b/--no-negate-b", help="Negate B.", show_default="no-negate-b")] = None,
    saturate: Annotated[bool | None, typer.Option("--saturate/--no-saturate", help="Saturate (kind::i8).", show_default="no-saturate")] = None,
    sparse: Annotated[bool | None, typer.Option("--sparse/--dense", help="Sparse A.", show_default="dense")] = None,
    sparsity_selector: Annotated[str | None, typer.Option("--sparsity-selector", help="Sparsity selector 0-3.", show_default="0")] = None,
    max_shift: Annotated[str | None, typer.Option("--max-shift", help="Max B shift for .ws: 0, 8, 16, 32.", show_default="0")] = None,
    scale_type: Annotated[str | None, typer.Option("--scale-type", help="Scale factor type (block-scaled kinds): ue8m0, ue4m3.", show_default="ue8m0")] = None,
    a_scale_id: Annotated[str | None, typer.Option("--a-scale-id", help="A scale factor ID (block-scaled kinds).", show_default="0")] = None,
    b_scale_id: Annotated[str | None, typer.Option("--b-scale-id", help="B scale factor ID (block-scaled kinds).", show_default="0")] = None,
    k: Annotated[str | None, typer.Option("-k", "--k", help="K of one MMA, only to ask for K=96 (mxf4, mxf4nvf4).", show_default="the kind's K")] = None,
    cta_group: Annotated[str | None, typer.Option("--cta-group", help="cta_group 1 or 2 (context, not stored). Not given: not assumed; the word is accepted if some cta_group allows it (M=256 needs 2: give 1 to refuse it).", show_default=False)] = None,
    ws: Annotated[bool | None, typer.Option("--ws/--no-ws", help="For tcgen05.mma.ws (context, not stored). Neither given: not assumed; the word is accepted if the .ws form or the plain one allows it (M=32 and --max-shift need .ws: give --no-ws to refuse them).", show_default=False)] = None,
    scale_vec: Annotated[str | None, typer.Option("--scale-vec", help="Block-scaled kinds: the MMA's .scale_vec 1X, 2X or 4X (or block16/block32; context, not stored).")] = None,
    out: WordOutput = WordOutput(),
) -> None:
    """Instruction descriptor (32-bit; PTX Tables 42-44) from M, N, types and flags."""
    params = dict(kind=kind, a_type=a_type, b_type=b_type, d_type=d_type, m=m, n=n,
                  a_major=a_major, b_major=b_major, negate_a=negate_a, negate_b=negate_b,
                  saturate=saturate, sparse=sparse, sparsity_selector=sparsity_selector,
                  max_shift=max_shift, scale_type=scale_type, a_scale_id=a_scale_id,
                  b_scale_id=b_scale_id, k=k, cta_group=cta_group, ws=ws)
    emit_word("idesc", params, out, {"scale_vec": scale_vec})


@option_groups
def smem_cmd(
    start_address: Annotated[str | None, typer.Option("--start-address", help="Start address in bytes (16-byte aligned, < 256 KiB).", show_default="0")] = None,
    leading_byte_offset: Annotated[str | None, typer.Option("--leading-byte-offset", "--lbo", help="Leading dimension byte offset (or absolute address), bytes.", show_default="0")] = None,
    stride_byte_offset: Annotated[str | None, typer.Option("--stride-byte-offset", "--sbo", help="Stride dimension byte offset, bytes.", show_default="0")] = None,
    swizzle: Annotated[str | None, typer.Option("--swizzle", help="none, 128B_base32B, 128B, 64B, 32B (sm_90a: none, 128B, 64B, 32B); CUTLASS's SW128, SW64, SW32, INTERLEAVE and Swizzle<3,4,3> ... too.", show_default="none")] = None,
    base_offset: Annotated[str | None, typer.Option("--base-offset", help="Matrix base offset 0-7.", show_default="0")] = None,
    lbo_mode: Annotated[str | None, typer.Option("--lbo-mode", help="relative or absolute (not on sm_90a).", show_default="relative")] = None,
    out: WordOutput = WordOutput(),
) -> None:
    """Shared memory descriptor (64-bit; PTX Table 40) from byte offsets and a swizzle mode;
    with --arch sm_90a the wgmma matrix descriptor (PTX ISA 9.7.15.5.1)."""
    params = dict(start_address=start_address, leading_byte_offset=leading_byte_offset,
                  stride_byte_offset=stride_byte_offset, swizzle=swizzle,
                  base_offset=base_offset, lbo_mode=lbo_mode)
    descriptor, _ = word_for_arch("smem", out.arch)
    if descriptor == "wgmma":
        if lbo_mode is not None:
            raise descriptors.ParameterError(
                "--lbo-mode: the sm_90a wgmma matrix descriptor has no leading-dimension mode "
                "(PTX ISA 9.7.15.5.1)")
        del params["lbo_mode"]
    emit_word(descriptor, params, out)



# (Long: typer takes each option as a parameter: the mask's fields and three ways to
# synthesise it.)
@option_groups
def zcm_cmd(
    start_count: Annotated[list[str] | None, typer.Option("--start-count", help="Start counts sc0..sc3, comma-separated or repeated.", show_default="0,0,0,0")] = None,
    first_span: Annotated[list[str] | None, typer.Option("--first-span", help="First spans fs0..fs3 (0 use, 1 skip), comma-separated or repeated.", show_default="0,0,0,0")] = None,
    non_zero_mask: Annotated[str | None, typer.Option("--non-zero-mask", help="1 generate the mask, 0 all-zero mask.", show_default="1")] = None,
    skip_span: Annotated[str | None, typer.Option("--skip-span", help="Zeroed columns per period minus 1.", show_default="0")] = None,
    use_span: Annotated[str | None, typer.Option("--use-span", help="Used columns per period minus 1.", show_default="0")] = None,
    column_shift: Annotated[str | None, typer.Option("--column-shift", help="Shift of B columns.", show_default="0")] = None,
    m: Annotated[str | None, typer.Option("-m", "--m", help="M of the MMA (32, 64, 128): sub-masks, shift limit.")] = None,
    n: Annotated[str | None, typer.Option("-n", "--n", help="N of the MMA (for --show and synthesis).")] = None,
    from_mask: Annotated[str | None, typer.Option("--from-mask", help="Synthesise from a mask: an integer, bit j = column j, 1 = zeroed (0x.. or 0b..).")] = None,
    zero_columns: Annotated[list[str] | None, typer.Option("--zero-columns", help="Synthesise from zeroed columns: 3,7-9 (comma-separated or repeated).")] = None,
    conv: Annotated[str | None, typer.Option("--conv", help="Synthesise for convolution padding: Q,LEFT,RIGHT[,START] (row width Q).")] = None,
    show: Annotated[bool, typer.Option("--show", help="Show the masks the descriptor generates (needs -m and -n).")] = False,
    out: ZcmOutput = ZcmOutput(),
) -> None:
    """Zero-column mask descriptor of tcgen05.mma.ws (64-bit; PTX Table 45): from raw fields, or
    synthesised from the mask you want; --show renders the masks it generates."""
    from descriptors.words import zcm as zcm_lib
    from descriptors.render.printer import plain_mask, render_mask

    for option, value in (("--from-mask", from_mask), ("--conv", conv)):
        if value is not None and not value.strip():
            raise descriptors.ParameterError(f"{option} is empty")
    if zero_columns is not None and not option_values(zero_columns):
        raise descriptors.ParameterError("--zero-columns is empty; give columns such as 3,7-9")
    wanted = [x for x in (from_mask, zero_columns, conv) if x is not None]
    raw = dict(start_count=option_values(start_count), first_span=option_values(first_span),
               non_zero_mask=non_zero_mask, skip_span=skip_span, use_span=use_span)
    if len(wanted) > 1:
        raise descriptors.ParameterError("give one of --from-mask, --zero-columns, --conv")
    if wanted:
        if any(v is not None for v in raw.values()):
            raise descriptors.ParameterError("a synthesised descriptor takes no raw span/count "
                                             "options (only --column-shift)")
        if m is None or n is None:
            raise descriptors.ParameterError("synthesis needs -m and -n")
        if from_mask is not None:
            mask = descriptors.parse_int(from_mask, "--from-mask")
        elif zero_columns:
            mask = zcm_lib.mask_from_columns(n, option_values(zero_columns) or [])
        else:
            parts = [p.strip() for p in (conv or "").split(",")]
            if len(parts) not in (3, 4):
                raise descriptors.ParameterError("--conv takes Q,LEFT,RIGHT[,START]")
            mask = zcm_lib.conv_padding_mask(n, *parts)
        word = zcm_lib.synthesise(mask, m, n, column_shift=column_shift or 0)
        given: dict[str, Any] = {"m": m, "n": n, "mask": f"{mask:#x}"}
    else:
        given = {k: v for k, v in raw.items() if v is not None}
        if column_shift is not None:
            given["column_shift"] = column_shift
        word = descriptors.encode("zcm", check=False, **given)  # validated below (--force)
    context = {k: v for k, v in (("m", m), ("n", n)) if v is not None}
    findings = validate("zcm", word, arch=out.arch, **context)
    z = None
    if show:  # before any warning is printed: a refusal is one line
        if m is None or n is None:
            raise descriptors.ParameterError("--show needs -m and -n")
        z = zcm_lib.generate(word, m, n)
    enforce_rules(findings, out.force, f"the zcm descriptor {descriptors.format_word('zcm', word)}")
    if z is not None:
        if out.fmt in (OutFormat.json, OutFormat.hex, OutFormat.text):
            warn_name_unused(out.name, out.fmt.value, "--show with --format "
                         f"{out.fmt.value} prints the masks, not a named constant")
        if out.fmt is OutFormat.json:
            typer.echo(json.dumps(z.to_dict(), indent=2))
        elif out.fmt in (OutFormat.hex, OutFormat.text):
            show_output(lambda: render_mask(z), lambda: plain_mask(z), out.plain_, out.no_color)
        else:
            typer.echo(render_word("zcm", word, out.fmt.value, name=out.name, params=given))
            typer.echo(plain_mask(z))
        return
    warn_name_unused(out.name, out.fmt.value)
    if out.fmt is OutFormat.text:
        show_word("zcm", word, None, findings, out.plain_, out.no_color)
        return
    typer.echo(render_word("zcm", word, out.fmt.value, name=out.name,
                           params=params_for(out.fmt.value, given, keep=("mask",)), findings=findings))


@option_groups
def tmem_cmd(
    lane: Annotated[str | None, typer.Option("--lane", help="Lane index (bits 31-16).", show_default="0")] = None,
    column: Annotated[str | None, typer.Option("--column", help="Column index (bits 15-0).", show_default="0")] = None,
    alloc: Annotated[str | None, typer.Option("--alloc", help="Allocated columns (power of two, 32..512).")] = None,
    ld: Annotated[str | None, typer.Option("--ld", help="Footprint of tcgen05.ld SHAPE.NUM, e.g. 32x32b.x8.")] = None,
    st: Annotated[str | None, typer.Option("--st", help="Footprint of tcgen05.st SHAPE.NUM.")] = None,
    taddr: Annotated[str | None, typer.Option("--taddr", help="Tensor Memory address (taddr) of the ld/st.", show_default="--lane/--column")] = None,
    address_old: Annotated[str | None, typer.Option("--address", hidden=True, help="Old name of --taddr.")] = None,
    warp: Annotated[str | None, typer.Option("--warp", help="Warp id of the issuing warp (its id % 4 picks the lanes).")] = None,
    alloc_base: Annotated[str | None, typer.Option("--alloc-base", help="Address tcgen05.alloc returned.", show_default="column 0")] = None,
    pack16: Annotated[bool, typer.Option("--pack", help="tcgen05.ld .pack::16b.")] = False,
    unpack16: Annotated[bool, typer.Option("--unpack", help="tcgen05.st .unpack::16b.")] = False,
    red: Annotated[str | None, typer.Option("--red", help="tcgen05.ld .red: min or max.")] = None,
    red_type: Annotated[str, typer.Option("--red-type", help="Type of .red.")] = "f32",
    imm_half_splitoff: Annotated[str | None, typer.Option("--imm-half-splitoff", help="immHalfSplitoff of .16x32bx2 (the column offset of the second half).")] = None,
    split_old: Annotated[str | None, typer.Option("--split", hidden=True, help="Old name of --imm-half-splitoff.")] = None,
    datapath: Annotated[str | None, typer.Option("--datapath", help="Data-path layout (A-G) for this M; with --cta-group, --sparse, --ws.")] = None,
    cta_group: Annotated[str | None, typer.Option("--cta-group", help="For --datapath: cta_group 1 or 2.", show_default="1")] = None,
    sparse: Annotated[bool, typer.Option("--sparse/--dense", help="For --datapath: sparse A (as idesc and layout spell it).")] = False,
    ws: Annotated[bool, typer.Option("--ws/--no-ws", help="For --datapath: tcgen05.mma.ws (as idesc, decode and check spell it).")] = False,
    shift: Annotated[bool, typer.Option("--shift", help="The address is the taddr of tcgen05.shift (lane aligned to 32).")] = False,
    out: TmemOutput = TmemOutput(),
) -> None:
    """Tensor Memory address (32-bit; PTX 9.7.16.1.1) from lane and column; with --ld/--st the
    footprint and verdict of a tcgen05.ld/st; with --datapath the data-path layout of an M."""
    from descriptors.isa import tmem as tm

    address = renamed_option(taddr, address_old, "--taddr", "--address")
    split = renamed_option(imm_half_splitoff, split_old, "--imm-half-splitoff", "--split")
    what = ("--datapath prints a layout" if datapath is not None else
            f"--{'ld' if ld is not None else 'st'} prints a footprint"
            if ld is not None or st is not None else None)
    if what is not None and out.fmt.value in NAMED_FORMATS:
        raise descriptors.ParameterError(f"--format {out.fmt.value}: {what}, not a constant "
                                         "(its formats: text, json)")
    if datapath is not None:
        dl = tm.datapath_layout(descriptors.parse_int(datapath, "--datapath"),
                                cta_group=descriptors.parse_int(cta_group or 1, "--cta-group"),
                                sparse=sparse, ws=ws)
        # warnings only once the input is good: a refusal stays one line
        warn_name_unused(out.name, out.fmt.value, "--datapath prints a layout, not a constant")
        if out.fmt is OutFormat.json:
            typer.echo(json.dumps(dl.to_dict(), indent=2))
        else:
            from descriptors.render.printer import plain_datapath, render_datapath
            show_output(lambda: render_datapath(dl), lambda: plain_datapath(dl), out.plain_,
                        out.no_color)
        return
    if ld is None and st is None:
        emit_word("tmem", dict(lane=lane, column=column), out,
                  {"alloc": alloc, "shift": shift or None})
        return
    if shift:
        raise descriptors.ParameterError("--shift checks an address (--lane/--column), not an "
                                         "--ld/--st footprint")
    if ld is not None and st is not None:
        raise descriptors.ParameterError("give --ld or --st, not both")
    op, spec = ("ld", ld) if ld is not None else ("st", st)
    shape, num = tm.parse_ld_spec(spec or "")
    addr = address if address is not None else tm.pack(
        descriptors.parse_int(lane or 0, "--lane"), descriptors.parse_int(column or 0, "--column"))
    fp = tm.footprint(op, shape, num, addr,
                      warp=None if warp is None else descriptors.parse_int(warp, "--warp"),
                      alloc=None if alloc is None else descriptors.parse_int(alloc, "--alloc"),
                      alloc_base=alloc_base, pack=pack16, unpack=unpack16, red=red,
                      red_type=red_type,
                      imm_half_splitoff=None if split is None else descriptors.parse_int(split, "--split"),
                      arch=out.arch if red is not None else None)
    warn_name_unused(out.name, out.fmt.value, f"--{op} prints a footprint, not a constant")
    if out.fmt is OutFormat.json:
        typer.echo(json.dumps(fp.to_dict(), indent=2))
    else:  # errors go to stderr, below
        from descriptors.render.printer import plain_footprint, render_footprint
        show_output(lambda: render_footprint(fp), lambda: plain_footprint(fp), out.plain_, out.no_color)
    enforce_rules(fp.verdict, out.force, f"the {fp.ptx}", _FOOTPRINT_HINT)


def register(app: typer.Typer) -> None:
    """Add these commands to ``app``."""
    app.command("idesc")(idesc_cmd)
    app.command("smem")(smem_cmd)
    app.command("zcm")(zcm_cmd)
    app.command("tmem")(tmem_cmd)

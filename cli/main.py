"""The ``descgen`` command: a thin typer layer over the :mod:`descriptors` library.

The library raises; this module formats.  Every error -- a click usage error or a
:class:`~descriptors.DescgenError` -- becomes one line on stderr, ``descgen: error: ...``,
with exit code 2 (bad usage or input).  Exit code 1 is kept for descriptors that fail
validation; 0 otherwise.
"""

from __future__ import annotations

import json
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from rich.console import Console

import descriptors
from descriptors import DescgenError, InvalidDescriptorError
from descriptors.errors import shorten
from descriptors.batch import BATCH_FORMATS, encode_batch, load_batch, render
from descriptors.output import FORMATS, NAMED_FORMATS, render_word
from descriptors.printer import plain, rank_readings, to_json
from descriptors.printer import render as render_rich
from descriptors.validate import ARCHES, Finding, is_valid, validate, validate_pair

try:  # typer >= 0.24 vendors click
    from typer._click import exceptions as _click_exc
except ImportError:  # pragma: no cover - older typer with click as a dependency
    from click import exceptions as _click_exc  # type: ignore[no-redef]

EXIT_OK, EXIT_INVALID, EXIT_USAGE = 0, 1, 2
#: Longest error message printed (a message quoting a huge input is cut).
_MAX_MESSAGE = 600


def _fail(message: str, code: int = EXIT_USAGE) -> None:
    """Print ``message`` as one line on stderr and exit with ``code``."""
    text = " ".join(str(message).split())
    if len(text) > _MAX_MESSAGE:  # never echo a huge input in full
        text = f"{text[:_MAX_MESSAGE - 40]} ... ({len(text)} characters, cut)"
    sys.stderr.write(f"descgen: error: {text}\n")
    sys.stderr.flush()
    sys.exit(code)


class _OneLineErrors(TyperGroup):
    """Runs commands without click's standalone handling so every error is one line."""

    def main(self, args: Any = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, **extra: Any) -> Any:
        try:
            rv = super().main(args=args, prog_name=prog_name or "descgen",
                              complete_var=complete_var, standalone_mode=False, **extra)
        except _click_exc.NoArgsIsHelpError as exc:
            sys.stderr.write(exc.format_message() if hasattr(exc, "format_message") else str(exc))
            sys.exit(EXIT_USAGE)
        except _click_exc.UsageError as exc:
            hint = ""
            if exc.ctx is not None:
                hint = f" (see '{exc.ctx.command_path} --help')"
            _fail(exc.format_message() + hint, EXIT_USAGE)
        except _click_exc.ClickException as exc:
            _fail(exc.format_message(), exc.exit_code)
        except typer.Abort:
            _fail("aborted", 130)
        except InvalidDescriptorError as exc:
            for f in exc.findings:
                if f.severity == "error":
                    sys.stderr.write(f"descgen: {' '.join(str(f).split())}\n")
            sys.stderr.write(f"descgen: error: {exc} (use --force to emit it anyway)\n")
            sys.stderr.flush()
            sys.exit(EXIT_INVALID)
        except DescgenError as exc:
            _fail(str(exc), EXIT_USAGE)
        except OSError as exc:  # e.g. a closed pipe or an unwritable --output
            _fail(str(exc), EXIT_USAGE)
        except RecursionError:
            _fail("the input is nested too deeply", EXIT_USAGE)
        except Exception as exc:  # noqa: BLE001 - the last line of defence: never a traceback
            _fail(f"internal error ({type(exc).__name__}: {shorten(exc)}); this is a bug in "
                  f"descgen {descriptors.__version__}, please report it with the command line",
                  EXIT_USAGE)
        if standalone_mode:
            sys.exit(rv if isinstance(rv, int) else EXIT_OK)
        return rv


app = typer.Typer(
    cls=_OneLineErrors,
    name="descgen",
    help="Bit-exact encoder and decoder for NVIDIA Blackwell tcgen05 descriptors (PTX ISA 9.7.16).",
    add_completion=True,  # typer's --install-completion / --show-completion (bash, zsh, fish)
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    """``--version``: the package version, as the batch header prints it."""
    if value:
        typer.echo(f"descgen {descriptors.__version__}")
        raise typer.Exit(EXIT_OK)


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print the descgen version and exit.")] = False,
) -> None:
    """Bit-exact encoder and decoder for NVIDIA Blackwell tcgen05 descriptors (PTX ISA 9.7.16)."""


def _choices(name: str, values: tuple[str, ...]) -> Any:
    """A str Enum for typer from one of the library's tuples of names."""
    return Enum(name, {v: v for v in values}, type=str)


OutFormat = _choices("OutFormat", FORMATS)
DecodeFormat = _choices("DecodeFormat", ("text", "json"))
#: ``c`` is accepted for ``cpp`` (one vocabulary with the single-word commands).
BatchFormat = _choices("BatchFormat", ("hex", "c", *BATCH_FORMATS[1:]))
Descriptor = _choices("Descriptor", descriptors.DESCRIPTORS)


FormatOpt = Annotated[OutFormat, typer.Option("--format", "-f", help="Output: hex constant, c or cpp "
                                              "(the same: a C++ constexpr line), Python assignment "
                                              "or JSON.")]
NameOpt = Annotated[str | None, typer.Option("--name", help="Constant name for --format c/cpp/python "
                                             "(a warning with the other formats, which have no name).")]
ArchOpt = Annotated[str, typer.Option("--arch", help="Target architecture: " + ", ".join(ARCHES) + ".")]
#: On every command that prints; where a command prints no colour anyway it changes nothing.
NoColorOpt = Annotated[bool, typer.Option("--no-color", help="No colour (NO_COLOR is honoured too; "
                                          "colour is only ever used on a terminal).")]
ForceOpt = Annotated[bool, typer.Option("--force", help="Emit the constant even when it breaks "
                                        "rules of the PTX text (errors become warnings).")]


def _warn(findings: list[Finding], force: bool) -> None:
    """Warnings (and, with --force, errors) as lines on stderr; notes stay quiet."""
    for f in findings:
        if f.severity == "warning" or (force and f.severity == "error"):
            text = " ".join(str(f).split())
            if f.severity == "error":
                text = "warning: (forced) " + text
            sys.stderr.write(f"descgen: {text}\n")


def _checked(findings: list[Finding], force: bool, what: str) -> None:
    if not is_valid(findings) and not force:
        raise InvalidDescriptorError(f"{what} breaks the PTX rules above", findings)
    _warn(findings, force)


def _name_unused(name: str | None, fmt: str, why: str | None = None) -> None:
    """A warning on stderr when ``--name`` is given where no constant is named (it used to be
    ignored silently)."""
    if name is not None and (why is not None or fmt not in NAMED_FORMATS):
        sys.stderr.write(f"descgen: warning: --name {shorten(name)} is ignored: "
                         f"{why or f'--format {fmt} names no constant'} "
                         f"(--name applies to --format {'/'.join(NAMED_FORMATS)})\n")


def _typed(value: Any) -> Any:
    """A parameter as JSON gives it: integer text (decimal or 0x hex, as the options take it) as
    a number, a list element-wise; names (``bf16``, ``128B``), booleans and the rest unchanged."""
    if isinstance(value, list):
        return [_typed(v) for v in value]
    if isinstance(value, str):
        try:
            return descriptors.parse_int(value, "parameter")
        except DescgenError:
            return value
    return value


def _params_for(fmt: str, params: dict[str, Any], keep: tuple[str, ...] = ()) -> dict[str, Any]:
    """``params`` as the output shows them: for JSON numbers as numbers (the keys in ``keep``
    stay as they are: a zero-column mask is hex text, like the word, because it may be wider
    than the integers JSON readers keep exactly); the other formats echo the options as given."""
    if fmt != "json":
        return params
    return {k: v if k in keep else _typed(v) for k, v in params.items()}


def _emit(descriptor: str, params: dict[str, Any], fmt: OutFormat, name: str | None, arch: str,
          force: bool, context: dict[str, Any] | None = None) -> None:
    given = {k: v for k, v in params.items() if v is not None}
    word = descriptors.encode(descriptor, **given)
    ctx = {k: v for k, v in (context or {}).items() if v is not None}
    if descriptor == "idesc":
        ctx.update({k: given[k] for k in ("cta_group", "ws") if k in given})
    findings = validate(descriptor, word, kind=given.get("kind"), arch=arch, **ctx)
    _checked(findings, force, f"the {descriptor} descriptor {descriptors.format_word(descriptor, word)}")
    text = render_word(descriptor, word, fmt.value, name=name, params=_params_for(fmt.value, given))
    _name_unused(name, fmt.value)
    typer.echo(text)


def _list(values: list[str] | None) -> list[str] | None:
    """Comma-separated and/or repeated option values as one list."""
    if not values:
        return None
    return [part.strip() for v in values for part in v.split(",") if part.strip()]


@app.command("idesc")
def idesc_cmd(
    kind: Annotated[str, typer.Option("--kind", help="MMA kind: tf32, f16, f8f6f4, i8, mxf8f6f4, "
                                      "mxf4, mxf4nvf4.")],
    m: Annotated[str, typer.Option("-m", "--m", help="M, rows of A and D.")],
    n: Annotated[str, typer.Option("-n", "--n", help="N, columns of B and D.")],
    a_type: Annotated[str | None, typer.Option("--a-type", help="A type by PTX name (bf16, e4m3, s8 ...).")] = None,
    b_type: Annotated[str | None, typer.Option("--b-type", help="B type by PTX name.")] = None,
    d_type: Annotated[str | None, typer.Option("--d-type", help="D (accumulator) type: f16, f32, s32 (default f32).")] = None,
    a_major: Annotated[str | None, typer.Option("--a-major", help="A major-ness: K or MN.")] = None,
    b_major: Annotated[str | None, typer.Option("--b-major", help="B major-ness: K or MN.")] = None,
    negate_a: Annotated[bool | None, typer.Option("--negate-a/--no-negate-a", help="Negate A.")] = None,
    negate_b: Annotated[bool | None, typer.Option("--negate-b/--no-negate-b", help="Negate B.")] = None,
    saturate: Annotated[bool | None, typer.Option("--saturate/--no-saturate", help="Saturate (kind::i8).")] = None,
    sparse: Annotated[bool | None, typer.Option("--sparse/--dense", help="Sparse A.")] = None,
    sparsity_selector: Annotated[str | None, typer.Option("--sparsity-selector", help="Sparsity selector 0-3.")] = None,
    max_shift: Annotated[str | None, typer.Option("--max-shift", help="Max B shift for .ws: 0, 8, 16, 32.")] = None,
    scale_type: Annotated[str | None, typer.Option("--scale-type", help="Scale factor type: ue8m0, ue4m3.")] = None,
    a_scale_id: Annotated[str | None, typer.Option("--a-scale-id", help="A scale factor ID.")] = None,
    b_scale_id: Annotated[str | None, typer.Option("--b-scale-id", help="B scale factor ID.")] = None,
    k: Annotated[str | None, typer.Option("-k", "--k", help="K, only to ask for K=96 (mxf4, mxf4nvf4).")] = None,
    cta_group: Annotated[str | None, typer.Option("--cta-group", help="cta_group 1 or 2 (context, not stored).")] = None,
    ws: Annotated[bool | None, typer.Option("--ws/--no-ws", help="For tcgen05.mma.ws (context, not stored).")] = None,
    scale_vec: Annotated[str | None, typer.Option("--scale-vec", help="Block-scaled kinds: the MMA's .scale_vec 1X, 2X or 4X (or block16/block32; context, not stored).")] = None,
    fmt: FormatOpt = OutFormat.hex,
    name: NameOpt = None,
    arch: ArchOpt = "sm_100a",
    force: ForceOpt = False,
    no_color: NoColorOpt = False,
) -> None:
    """Instruction descriptor (32-bit; PTX Tables 42-44) from M, N, types and flags."""
    params = dict(kind=kind, a_type=a_type, b_type=b_type, d_type=d_type, m=m, n=n,
                  a_major=a_major, b_major=b_major, negate_a=negate_a, negate_b=negate_b,
                  saturate=saturate, sparse=sparse, sparsity_selector=sparsity_selector,
                  max_shift=max_shift, scale_type=scale_type, a_scale_id=a_scale_id,
                  b_scale_id=b_scale_id, k=k, cta_group=cta_group, ws=ws)
    _emit("idesc", params, fmt, name, arch, force, {"scale_vec": scale_vec})


@app.command("smem")
def smem_cmd(
    start_address: Annotated[str | None, typer.Option("--start-address", help="Start address in bytes (16-byte aligned, < 256 KiB).", show_default="0")] = None,
    leading_byte_offset: Annotated[str | None, typer.Option("--leading-byte-offset", "--lbo", help="Leading dimension byte offset (or absolute address), bytes.", show_default="0")] = None,
    stride_byte_offset: Annotated[str | None, typer.Option("--stride-byte-offset", "--sbo", help="Stride dimension byte offset, bytes.", show_default="0")] = None,
    swizzle: Annotated[str | None, typer.Option("--swizzle", help="none, 128B_base32B, 128B, 64B, 32B.", show_default="none")] = None,
    base_offset: Annotated[str | None, typer.Option("--base-offset", help="Matrix base offset 0-7.", show_default="0")] = None,
    lbo_mode: Annotated[str | None, typer.Option("--lbo-mode", help="relative or absolute.", show_default="relative")] = None,
    fmt: FormatOpt = OutFormat.hex,
    name: NameOpt = None,
    arch: ArchOpt = "sm_100a",
    force: ForceOpt = False,
    no_color: NoColorOpt = False,
) -> None:
    """Shared memory descriptor (64-bit; PTX Table 40) from byte offsets and a swizzle mode."""
    params = dict(start_address=start_address, leading_byte_offset=leading_byte_offset,
                  stride_byte_offset=stride_byte_offset, swizzle=swizzle,
                  base_offset=base_offset, lbo_mode=lbo_mode)
    _emit("smem", params, fmt, name, arch, force)


@app.command("zcm")
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
    fmt: FormatOpt = OutFormat.hex,
    name: NameOpt = None,
    arch: ArchOpt = "sm_100a",
    force: ForceOpt = False,
    no_color: NoColorOpt = False,
) -> None:
    """Zero-column mask descriptor of tcgen05.mma.ws (64-bit; PTX Table 45): from raw fields, or
    synthesised from the mask you want; --show renders the masks it generates."""
    from descriptors import zcm as zcm_lib
    from descriptors.printer import plain_mask, render_mask

    for option, value in (("--from-mask", from_mask), ("--conv", conv)):
        if value is not None and not value.strip():
            raise descriptors.ParameterError(f"{option} is empty")
    if zero_columns is not None and not _list(zero_columns):
        raise descriptors.ParameterError("--zero-columns is empty; give columns such as 3,7-9")
    wanted = [x for x in (from_mask, zero_columns, conv) if x is not None]
    raw = dict(start_count=_list(start_count), first_span=_list(first_span),
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
            mask = zcm_lib.mask_from_columns(n, _list(zero_columns) or [])
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
        word = descriptors.encode("zcm", **given)
    context = {k: v for k, v in (("m", m), ("n", n)) if v is not None}
    findings = validate("zcm", word, arch=arch, **context)
    z = None
    if show:  # before any warning is printed: a refusal is one line
        if m is None or n is None:
            raise descriptors.ParameterError("--show needs -m and -n")
        z = zcm_lib.generate(word, m, n)
    _checked(findings, force, f"the zcm descriptor {descriptors.format_word('zcm', word)}")
    if z is not None:
        if fmt in (OutFormat.json, OutFormat.hex):
            _name_unused(name, fmt.value, "--show with --format "
                         f"{fmt.value} prints the masks, not a named constant")
        if fmt is OutFormat.json:
            typer.echo(json.dumps(z.to_dict(), indent=2))
        elif fmt is OutFormat.hex:
            _console(no_color).print(render_mask(z))
        else:
            typer.echo(render_word("zcm", word, fmt.value, name=name, params=given))
            typer.echo(plain_mask(z))
        return
    text = render_word("zcm", word, fmt.value, name=name,
                       params=_params_for(fmt.value, given, keep=("mask",)))
    _name_unused(name, fmt.value)
    typer.echo(text)


@app.command("tmem")
def tmem_cmd(
    lane: Annotated[str | None, typer.Option("--lane", help="Lane index (bits 31-16).", show_default="0")] = None,
    column: Annotated[str | None, typer.Option("--column", help="Column index (bits 15-0).", show_default="0")] = None,
    alloc: Annotated[str | None, typer.Option("--alloc", help="Allocated columns (power of two, 32..512).")] = None,
    ld: Annotated[str | None, typer.Option("--ld", help="Footprint of tcgen05.ld SHAPE.NUM, e.g. 32x32b.x8.")] = None,
    st: Annotated[str | None, typer.Option("--st", help="Footprint of tcgen05.st SHAPE.NUM.")] = None,
    address: Annotated[str | None, typer.Option("--address", help="TMEM address of the ld/st (default: --lane/--column).")] = None,
    warp: Annotated[str | None, typer.Option("--warp", help="Warp id of the issuing warp (its id % 4 picks the lanes).")] = None,
    alloc_base: Annotated[str | None, typer.Option("--alloc-base", help="Address tcgen05.alloc returned (default column 0).")] = None,
    pack16: Annotated[bool, typer.Option("--pack", help="tcgen05.ld .pack::16b.")] = False,
    unpack16: Annotated[bool, typer.Option("--unpack", help="tcgen05.st .unpack::16b.")] = False,
    red: Annotated[str | None, typer.Option("--red", help="tcgen05.ld .red: min or max.")] = None,
    red_type: Annotated[str, typer.Option("--red-type", help="Type of .red (default f32).")] = "f32",
    split: Annotated[str | None, typer.Option("--split", help="immHalfSplitoff of .16x32bx2.")] = None,
    datapath: Annotated[str | None, typer.Option("--datapath", help="Data-path layout (A-G) for this M; with --cta-group, --sparse, --ws.")] = None,
    cta_group: Annotated[str | None, typer.Option("--cta-group", help="For --datapath: cta_group 1 or 2.")] = None,
    sparse: Annotated[bool, typer.Option("--sparse/--dense", help="For --datapath: sparse A (as idesc and layout spell it).")] = False,
    ws: Annotated[bool, typer.Option("--ws/--no-ws", help="For --datapath: tcgen05.mma.ws (as idesc, decode and check spell it).")] = False,
    shift: Annotated[bool, typer.Option("--shift", help="The address is the taddr of tcgen05.shift (lane aligned to 32).")] = False,
    fmt: FormatOpt = OutFormat.hex,
    name: NameOpt = None,
    arch: ArchOpt = "sm_100a",
    force: ForceOpt = False,
    no_color: NoColorOpt = False,
) -> None:
    """Tensor Memory address (32-bit; PTX 9.7.16.1.1) from lane and column; with --ld/--st the
    footprint and verdict of a tcgen05.ld/st; with --datapath the data-path layout of an M."""
    from descriptors import tmem as tm

    if datapath is not None:
        dl = tm.datapath_layout(descriptors.parse_int(datapath, "--datapath"),
                                cta_group=descriptors.parse_int(cta_group or 1, "--cta-group"),
                                sparse=sparse, ws=ws)
        # warnings only once the input is good: a refusal stays one line
        _name_unused(name, fmt.value, "--datapath prints a layout, not a constant")
        if fmt is OutFormat.json:
            typer.echo(json.dumps(dl.to_dict(), indent=2))
        else:
            from descriptors.printer import render_datapath
            _console(no_color).print(render_datapath(dl))
        return
    if ld is None and st is None:
        _emit("tmem", dict(lane=lane, column=column), fmt, name, arch, force,
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
                      arch=arch if red is not None else None)
    _name_unused(name, fmt.value, f"--{op} prints a footprint, not a constant")
    if fmt is OutFormat.json:
        typer.echo(json.dumps(fp.to_dict(), indent=2))
    else:
        typer.echo(fp.ptx)
        typer.echo(f"registers per thread: {fp.registers}"
                   + (f" (+{fp.red_registers} for the reduction)" if fp.red_registers else ""))
        for i, a in enumerate(fp.accesses, 1):
            typer.echo(f"access {i}: address {a.address.word:#010x}  lanes {a.lanes[0]}-{a.lanes[1]}"
                       f"  columns {a.columns[0]}-{a.columns[1]}")
        for f in fp.verdict:
            if f.severity != "error":  # errors go to stderr, below
                typer.echo(str(f))
        typer.echo("valid" if fp.ok else "INVALID")
    _checked(fp.verdict, force, f"the {fp.ptx}")


CtaOpt = Annotated[str | None, typer.Option("--cta-group", help="idesc context: cta_group 1 or 2.")]
WsOpt = Annotated[bool | None, typer.Option("--ws/--no-ws", help="idesc context: for tcgen05.mma.ws.")]
MOpt = Annotated[str | None, typer.Option("-m", "--m", help="zcm context: M of the MMA.")]
NOpt = Annotated[str | None, typer.Option("-n", "--n", help="zcm context: N of the MMA (64, 128, 256).")]
ScaleVecOpt = Annotated[str | None, typer.Option("--scale-vec", help="idesc context: .scale_vec of a block-scaled MMA (1X, 2X, 4X).")]
ShiftOpt = Annotated[bool, typer.Option("--shift", help="tmem context: the address is the taddr of tcgen05.shift.")]
AllocOpt = Annotated[str | None, typer.Option("--alloc", help="tmem context: allocated columns.")]
KindOpt = Annotated[str | None, typer.Option("--kind", help="MMA kind of an instruction descriptor.")]
AsOpt = Annotated[Descriptor | None, typer.Option("--as", help="Which descriptor the word is.")]


def _context(descriptor: str, cta_group: str | None, ws: bool | None, m: str | None,
             alloc: str | None, n: str | None = None, scale_vec: str | None = None,
             shift: bool = False) -> dict[str, Any]:
    """The context options that apply to ``descriptor``; one given for another descriptor is
    refused (it would be silently ignored)."""
    options = {"cta_group": ("idesc", cta_group), "ws": ("idesc", ws),
               "scale_vec": ("idesc", scale_vec), "m": ("zcm", m), "n": ("zcm", n),
               "alloc": ("tmem", alloc), "shift": ("tmem", shift or None)}
    for key, (owner, value) in options.items():
        if value is not None and owner != descriptor:
            raise descriptors.ParameterError(
                f"--{key.replace('_', '-')} is context of a {owner} word, not of {descriptor}")
    return {k: v for k, (owner, v) in options.items() if owner == descriptor and v is not None}


def _console(no_color: bool) -> Console:
    """Colour in a terminal; plain text when piped or with --no-color (a wide page when piped)."""
    extra: dict[str, Any] = {"color_system": None} if no_color else {}
    console = Console(highlight=False, soft_wrap=False, **extra)
    if not console.is_terminal:
        console = Console(highlight=False, soft_wrap=False, width=140, **extra)
    return console


@app.command("decode")
def decode_cmd(
    word: Annotated[str, typer.Argument(help="The word: decimal or 0x hex (_ and ' separators allowed).")],
    as_: Annotated[Descriptor, typer.Option("--as", help="Which descriptor the word is.")],
    kind: KindOpt = None,
    arch: ArchOpt = "sm_100a",
    cta_group: CtaOpt = None,
    ws: WsOpt = None,
    m: MOpt = None,
    alloc: AllocOpt = None,
    n: NOpt = None,
    scale_vec: ScaleVecOpt = None,
    shift: ShiftOpt = False,
    fmt: Annotated[DecodeFormat, typer.Option("--format", "-f", help="text or json.")] = DecodeFormat.text,
    plain_: Annotated[bool, typer.Option("--plain", help="Plain-text dump (stable; no table, no colour).")] = False,
    no_color: NoColorOpt = False,
) -> None:
    """Decode a word: every field (bits, raw value, meaning), a bit diagram and the findings."""
    descriptor = as_.value
    value = descriptors.parse_int(word, "word")
    ctx = _context(descriptor, cta_group, ws, m, alloc, n, scale_vec, shift)
    if descriptor == "idesc" and kind is None:
        readings = rank_readings([(r, validate("idesc", value, kind=r.kind, arch=arch, **ctx))
                                  for r in descriptors.readings("idesc", value)])
        if fmt is DecodeFormat.json:
            typer.echo(json.dumps({"descriptor": descriptor, "kind": None,
                                   "word": readings[0][0].hex,
                                   "readings": [to_json(d, f) for d, f in readings]}, indent=2))
            return
        typer.echo(f"An instruction-descriptor word does not identify its kind; every kind's "
                   f"reading of {readings[0][0].hex} follows, fewest broken rules first "
                   "(pass --kind to choose one).")
        for d, f in readings:
            typer.echo("")
            _show(d, f, plain_, no_color)
        return
    decoded = descriptors.decode(descriptor, value, kind=kind)
    findings = validate(descriptor, value, kind=kind, arch=arch, **ctx)
    if fmt is DecodeFormat.json:
        typer.echo(json.dumps(to_json(decoded, findings), indent=2))
    else:
        _show(decoded, findings, plain_, no_color)


def _show(decoded: descriptors.Decoded, findings: list[Finding], plain_: bool, no_color: bool) -> None:
    if plain_:
        typer.echo(plain(decoded, findings))
    else:
        _console(no_color).print(render_rich(decoded, findings))


@app.command("check")
def check_cmd(
    word: Annotated[str | None, typer.Argument(help="A word to check (with --as).")] = None,
    as_: AsOpt = None,
    kind: KindOpt = None,
    param: Annotated[list[str] | None, typer.Option("--param", "-p", help="Check a parameter set "
                     "instead of a word: KEY=VALUE, repeated (the names encode takes).")] = None,
    idesc: Annotated[str | None, typer.Option("--idesc", help="Instruction descriptor of a pair check (with --kind).")] = None,
    a_desc: Annotated[str | None, typer.Option("--a-desc", help="Shared memory descriptor of A (pair check).")] = None,
    b_desc: Annotated[str | None, typer.Option("--b-desc", help="Shared memory descriptor of B (pair check).")] = None,
    arch: ArchOpt = "sm_100a",
    cta_group: CtaOpt = None,
    ws: WsOpt = None,
    m: MOpt = None,
    alloc: AllocOpt = None,
    n: NOpt = None,
    scale_vec: ScaleVecOpt = None,
    shift: ShiftOpt = False,
    fmt: Annotated[DecodeFormat, typer.Option("--format", "-f", help="text or json.")] = DecodeFormat.text,
    no_color: NoColorOpt = False,
) -> None:
    """Validate a word, a parameter set or an idesc with its A/B descriptors; exit 1 on errors."""
    if idesc is not None:
        if kind is None:
            raise descriptors.ParameterError("a pair check needs --kind for --idesc")
        if word is not None or param:
            raise descriptors.ParameterError("a pair check takes --idesc/--a-desc/--b-desc only")
        _context("idesc", cta_group, ws, m, alloc, n, scale_vec, shift)  # refuses the others
        findings = validate_pair(
            descriptors.parse_int(idesc, "--idesc"), kind=kind, arch=arch,
            a_desc=None if a_desc is None else descriptors.parse_int(a_desc, "--a-desc"),
            b_desc=None if b_desc is None else descriptors.parse_int(b_desc, "--b-desc"),
            cta_group=None if cta_group is None else descriptors.parse_int(cta_group, "--cta-group"),
            ws=ws, scale_vec=scale_vec)
    else:
        if as_ is None:
            raise descriptors.ParameterError("say which descriptor with --as (or give --idesc)")
        descriptor = as_.value
        ctx = _context(descriptor, cta_group, ws, m, alloc, n, scale_vec, shift)
        if param:
            if word is not None:
                raise descriptors.ParameterError("give a word or --param values, not both")
            params = _params(param)
            kind = _merge_param(params, "kind", kind, "--kind")
            for key, option in (("descriptor", "--as"), ("arch", "--arch"), ("word", "WORD")):
                if key in params:
                    raise descriptors.ParameterError(f"--param {key}=... is not an encode "
                                                     f"parameter; give it as {option}")
            for key in list(ctx):
                if key in params:
                    raise descriptors.ParameterError(
                        f"{key} given twice: as --param {key}=... and as "
                        f"--{key.replace('_', '-')}")
            findings = validate(descriptor, kind=kind, arch=arch, **params, **ctx)
        elif word is None:
            raise descriptors.ParameterError("give a WORD, --param KEY=VALUE, or --idesc")
        else:
            findings = validate(descriptor, descriptors.parse_int(word, "word"), kind=kind,
                                arch=arch, **ctx)
    if fmt is DecodeFormat.json:
        typer.echo(json.dumps({"valid": is_valid(findings),
                               "findings": [{**f.to_dict(), "value": _typed(f.value)}
                                            for f in findings]}, indent=2))
    else:
        for f in findings:
            typer.echo(str(f))
        errors = sum(f.severity == "error" for f in findings)
        typer.echo(("valid" if not errors else "INVALID") + f": {errors} error(s), "
                   f"{sum(f.severity == 'warning' for f in findings)} warning(s), "
                   f"{sum(f.severity == 'note' for f in findings)} note(s)")
    if not is_valid(findings):
        raise typer.Exit(EXIT_INVALID)


_LIST_PARAMS = ("start_count", "first_span")


def _merge_param(params: dict[str, Any], key: str, option_value: str | None,
                 option: str) -> str | None:
    """A value that may come as ``--param KEY=...`` or as its own option (not both, unless
    they agree)."""
    if key not in params:
        return option_value
    value = params.pop(key)
    if option_value is not None and option_value != value:
        raise descriptors.ParameterError(f"{key} given twice: --param {key}={value} and "
                                         f"{option} {option_value}")
    return value


def _params(items: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not key:
            raise descriptors.ParameterError(f"--param takes KEY=VALUE, not {shorten(item)}")
        out[key] = [v.strip() for v in value.split(",")] if key in _LIST_PARAMS else value.strip()
    return out


@app.command("batch")
def batch_cmd(
    file: Annotated[Path, typer.Argument(help="TOML or JSON file with a list 'configs'.")],
    fmt: Annotated[BatchFormat, typer.Option("--format", "-f", help="hex listing, c or cpp (the same: a C++ header), Python module or JSON.")] = BatchFormat.hex,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write to this file instead of stdout.")] = None,
    force: ForceOpt = False,
    no_color: NoColorOpt = False,
) -> None:
    """Encode and validate every configuration of a batch file; emit all constants at once."""
    results = encode_batch(load_batch(file), force=force)
    for r in results:
        for f in r.findings:
            if f.severity == "warning" or (force and f.severity == "error"):
                prefix = "warning: (forced) " if f.severity == "error" else ""
                sys.stderr.write(f"descgen: {prefix}{r.config.label}: {' '.join(str(f).split())}\n")
    text = render(results, "cpp" if fmt.value == "c" else fmt.value, origin=file.name)
    if output is None:
        typer.echo(text)
    else:
        output.write_text(text + "\n", encoding="utf-8")


from cli import dump_cmd, explain_cmd, layout_cmd, lint_cmd  # noqa: E402  (command modules register on the app)

for _module in (layout_cmd, dump_cmd, lint_cmd, explain_cmd):
    _module.register(app)


def main() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":
    main()

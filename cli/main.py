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

import descriptors
from descriptors import DescgenError
from descriptors.batch import encode_batch, load_batch, render
from descriptors.explain import plain_text
from descriptors.output import render_word

try:  # typer >= 0.24 vendors click
    from typer._click import exceptions as _click_exc
except ImportError:  # pragma: no cover - older typer with click as a dependency
    from click import exceptions as _click_exc  # type: ignore[no-redef]

EXIT_OK, EXIT_INVALID, EXIT_USAGE = 0, 1, 2


def _fail(message: str, code: int = EXIT_USAGE) -> None:
    """Print ``message`` as one line on stderr and exit with ``code``."""
    text = " ".join(str(message).split())
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
        except DescgenError as exc:
            _fail(str(exc), EXIT_USAGE)
        except OSError as exc:  # e.g. a closed pipe or an unwritable --output
            _fail(str(exc), EXIT_USAGE)
        if standalone_mode:
            sys.exit(rv if isinstance(rv, int) else EXIT_OK)
        return rv


app = typer.Typer(
    cls=_OneLineErrors,
    name="descgen",
    help="Bit-exact encoder and decoder for NVIDIA Blackwell tcgen05 descriptors (PTX ISA 9.7.16).",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


class OutFormat(str, Enum):
    hex = "hex"
    c = "c"
    python = "python"
    json = "json"


class DecodeFormat(str, Enum):
    text = "text"
    json = "json"


class BatchFormat(str, Enum):
    hex = "hex"
    cpp = "cpp"
    python = "python"
    json = "json"


class Descriptor(str, Enum):
    idesc = "idesc"
    smem = "smem"
    zcm = "zcm"
    tmem = "tmem"


FormatOpt = Annotated[OutFormat, typer.Option("--format", "-f", help="Output: hex constant, C++ "
                                              "constexpr line, Python assignment or JSON.")]
NameOpt = Annotated[str | None, typer.Option("--name", help="Constant name for --format c/python.")]


def _emit(descriptor: str, params: dict[str, Any], fmt: OutFormat, name: str | None) -> None:
    given = {k: v for k, v in params.items() if v is not None}
    word = descriptors.encode(descriptor, **given)
    typer.echo(render_word(descriptor, word, fmt.value, name=name, params=given))


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
    fmt: FormatOpt = OutFormat.hex,
    name: NameOpt = None,
) -> None:
    """Instruction descriptor (32-bit; PTX Tables 42-44) from M, N, types and flags."""
    params = dict(kind=kind, a_type=a_type, b_type=b_type, d_type=d_type, m=m, n=n,
                  a_major=a_major, b_major=b_major, negate_a=negate_a, negate_b=negate_b,
                  saturate=saturate, sparse=sparse, sparsity_selector=sparsity_selector,
                  max_shift=max_shift, scale_type=scale_type, a_scale_id=a_scale_id,
                  b_scale_id=b_scale_id, k=k, cta_group=cta_group, ws=ws)
    _emit("idesc", params, fmt, name)


@app.command("smem")
def smem_cmd(
    start_address: Annotated[str | None, typer.Option("--start-address", help="Start address in bytes (16-byte aligned, < 256 KiB).")] = None,
    leading_byte_offset: Annotated[str | None, typer.Option("--leading-byte-offset", "--lbo", help="Leading dimension byte offset (or absolute address), bytes.")] = None,
    stride_byte_offset: Annotated[str | None, typer.Option("--stride-byte-offset", "--sbo", help="Stride dimension byte offset, bytes.")] = None,
    swizzle: Annotated[str | None, typer.Option("--swizzle", help="none, 128B_base32B, 128B, 64B, 32B.")] = None,
    base_offset: Annotated[str | None, typer.Option("--base-offset", help="Matrix base offset 0-7.")] = None,
    lbo_mode: Annotated[str | None, typer.Option("--lbo-mode", help="relative or absolute.")] = None,
    fmt: FormatOpt = OutFormat.hex,
    name: NameOpt = None,
) -> None:
    """Shared memory descriptor (64-bit; PTX Table 40) from byte offsets and a swizzle mode."""
    params = dict(start_address=start_address, leading_byte_offset=leading_byte_offset,
                  stride_byte_offset=stride_byte_offset, swizzle=swizzle,
                  base_offset=base_offset, lbo_mode=lbo_mode)
    _emit("smem", params, fmt, name)


@app.command("zcm")
def zcm_cmd(
    start_count: Annotated[list[str] | None, typer.Option("--start-count", help="Start counts sc0..sc3, comma-separated or repeated.")] = None,
    first_span: Annotated[list[str] | None, typer.Option("--first-span", help="First spans fs0..fs3 (0 use, 1 skip), comma-separated or repeated.")] = None,
    non_zero_mask: Annotated[str | None, typer.Option("--non-zero-mask", help="1 generate the mask (default), 0 all-zero mask.")] = None,
    skip_span: Annotated[str | None, typer.Option("--skip-span", help="Zeroed columns per period minus 1.")] = None,
    use_span: Annotated[str | None, typer.Option("--use-span", help="Used columns per period minus 1.")] = None,
    column_shift: Annotated[str | None, typer.Option("--column-shift", help="Shift of B columns.")] = None,
    fmt: FormatOpt = OutFormat.hex,
    name: NameOpt = None,
) -> None:
    """Zero-column mask descriptor of tcgen05.mma.ws (64-bit; PTX Table 45), raw fields."""
    params = dict(start_count=_list(start_count), first_span=_list(first_span),
                  non_zero_mask=non_zero_mask, skip_span=skip_span, use_span=use_span,
                  column_shift=column_shift)
    _emit("zcm", params, fmt, name)


@app.command("tmem")
def tmem_cmd(
    lane: Annotated[str | None, typer.Option("--lane", help="Lane index (bits 31-16).")] = None,
    column: Annotated[str | None, typer.Option("--column", help="Column index (bits 15-0).")] = None,
    fmt: FormatOpt = OutFormat.hex,
    name: NameOpt = None,
) -> None:
    """Tensor Memory address (32-bit; PTX 9.7.16.1.1) from lane and column."""
    _emit("tmem", dict(lane=lane, column=column), fmt, name)


@app.command("decode")
def decode_cmd(
    word: Annotated[str, typer.Argument(help="The word: decimal or 0x hex (_ and ' separators allowed).")],
    as_: Annotated[Descriptor, typer.Option("--as", help="Which descriptor the word is.")],
    kind: Annotated[str | None, typer.Option("--kind", help="MMA kind of an instruction descriptor.")] = None,
    fmt: Annotated[DecodeFormat, typer.Option("--format", "-f", help="text or json.")] = DecodeFormat.text,
) -> None:
    """Decode a word into its fields (raw values and meanings)."""
    descriptor = as_.value
    value = descriptors.parse_int(word, "word")
    if descriptor == "idesc" and kind is None:
        readings = descriptors.readings(descriptor, value)
        if fmt is DecodeFormat.json:
            typer.echo(json.dumps({"descriptor": descriptor, "kind": None,
                                   "word": readings[0].hex,
                                   "readings": [r.to_dict() for r in readings]}, indent=2))
            return
        typer.echo(f"An instruction-descriptor word does not identify its kind; every kind's "
                   f"reading of {readings[0].hex} follows (pass --kind to choose one).")
        for r in readings:
            typer.echo("")
            typer.echo(plain_text(r))
        return
    decoded = descriptors.decode(descriptor, value, kind=kind)
    if fmt is DecodeFormat.json:
        typer.echo(json.dumps(decoded.to_dict(), indent=2))
    else:
        typer.echo(plain_text(decoded))


@app.command("batch")
def batch_cmd(
    file: Annotated[Path, typer.Argument(help="TOML or JSON file with a list 'configs'.")],
    fmt: Annotated[BatchFormat, typer.Option("--format", "-f", help="hex listing, C++ header, Python module or JSON.")] = BatchFormat.hex,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write to this file instead of stdout.")] = None,
) -> None:
    """Encode every configuration of a batch file and emit all constants at once."""
    results = encode_batch(load_batch(file))
    text = render(results, fmt.value, origin=file.name)
    if output is None:
        typer.echo(text)
    else:
        output.write_text(text + "\n", encoding="utf-8")


def main() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":
    main()

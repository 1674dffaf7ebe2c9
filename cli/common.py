"""What every ``descgen`` command module shares: the output vocabulary, the common options,
the exit codes and the helpers that turn findings into stderr lines.

It loads only what a word command needs (the codec, the validator, the output formats); the
renderers (:mod:`descriptors.render`, and with them rich) load when a command shows a result.
"""

from __future__ import annotations

import functools
import inspect
import sys
import typing
from collections.abc import Callable
from enum import Enum
from typing import Annotated, Any

import typer

import descriptors
from descriptors import InvalidDescriptorError
from descriptors.errors import shorten
from descriptors.words.codec import DESCRIPTOR_ALIASES
from descriptors.tools.output import FORMATS, NAMED_FORMATS, json_value, render_word
from descriptors.rules.validate import ARCHES, Finding, is_valid, validate


def _choices(name: str, values: tuple[str, ...]) -> Any:
    """A str Enum for typer from one of the library's tuples of names."""
    return Enum(name, {v: v for v in values}, type=str)


#: What each name of the output vocabulary means; a command's ``--format`` help lists the
#: names of its own tuple (the tuple its choices come from), so the two cannot drift apart.
FORMAT_MEANINGS = {
    "hex": "the word as a hex constant",
    "c": "a C++ constexpr line, also C23",
    "cpp": "the same as c",
    "python": "a Python assignment",
    "json": "one JSON document (README: JSON shapes)",
    "text": "a human-readable table (--plain for stable plain text)",
}


def format_help(formats: tuple[str, ...], meanings: dict[str, str] | None = None) -> str:
    """The ``--format`` help of a command that supports ``formats``: every name, in order, with
    what it means (``meanings`` overrides :data:`FORMAT_MEANINGS` for this command)."""
    table = {**FORMAT_MEANINGS, **(meanings or {})}
    return "Output format: " + "; ".join(f"{f} = {table[f]}" for f in formats) + "."


def format_option(enum_name: str, formats: tuple[str, ...],
                  meanings: dict[str, str] | None = None) -> tuple[Any, Any]:
    """A command's ``--format/-f``: the choices Enum and its ``Annotated`` type, both from the
    one tuple ``formats``."""
    enum = _choices(enum_name, formats)
    return enum, Annotated[enum, typer.Option("--format", "-f", help=format_help(formats, meanings))]


#: Formats of the word commands (idesc, smem, zcm, tmem): the library's constant formats and
#: ``text``, the decoded word as ``descgen decode`` prints it.
WORD_FORMATS = (*FORMATS, "text")
#: Formats of the commands that print a report (decode, check, dump, lint, explain).
REPORT_FORMATS = ("text", "json")

OutFormat, FormatOpt = format_option("OutFormat", WORD_FORMATS, {
    "text": "the decoded word as decode prints it"})


def word_format_option(table: str) -> Any:
    """The ``--format`` of a word command that also prints a table (zcm ``--show``, tmem
    ``--ld/--st``, ``--datapath``): :data:`FormatOpt` whose ``text`` says so."""
    return Annotated[OutFormat, typer.Option("--format", "-f", help=format_help(WORD_FORMATS, {
        "text": f"the decoded word as decode prints it; with {table} their table (also the "
                "default hex there)"}))]
DecodeFormat, DecodeFormatOpt = format_option("DecodeFormat", REPORT_FORMATS)
Descriptor = _choices("Descriptor", descriptors.DESCRIPTORS + tuple(DESCRIPTOR_ALIASES))

def arch_option(value: str | None) -> str | None:
    """``--arch`` as given, or the target it means (nvcc's and cuda-gdb's ``sm_100`` is
    ``sm_100a``: :func:`descriptors.rules.targets.resolve_arch`, a one-line note on stderr
    says so); an unknown one is refused (the callback of every ``--arch`` option)."""
    if value is None:
        return None
    from descriptors.rules.targets import resolve_arch
    arch, note = resolve_arch(value, ARCHES)
    if note is not None:
        sys.stderr.write(f"descgen: note: {note}\n")
    return arch


def arch_spelling(value: str | None) -> str | None:
    """:func:`arch_option` for a command that says itself which targets it takes: a name no
    target is passes through, for its own refusal."""
    try:
        return arch_option(value)
    except descriptors.ParameterError:
        return value


def kind_option(value: str | None) -> str | None:
    """``--kind`` as given; a name that is no kind is refused with what was probably meant
    (``--kind bf16``: did you mean --kind f16 (--a-type bf16)?; the callback of every
    ``--kind`` option)."""
    from descriptors.words.enums import KINDS, kind_hint, kind_named
    if value is None or kind_named(value) is not None:
        return value
    raise descriptors.ParameterError(f"unknown kind {shorten(value)}; kinds: "
                                     + ", ".join(KINDS) + kind_hint(value, "--kind ", "--a-type "))


PlainOpt = Annotated[bool, typer.Option("--plain", help="Stable plain text: no table, no colour.")]
NameOpt = Annotated[str | None, typer.Option("--name", help="Constant name for --format c/cpp/python "
                                             "(a warning with the other formats, which have no name).")]
ArchOpt = Annotated[str, typer.Option("--arch", callback=arch_option, help="Target "
                                      "architecture: " + ", ".join(ARCHES) + " (sm_100 and the "
                                      "like: the a target).")]
#: --arch of the commands that read a word: its default is the word's own target.
WordArchOpt = Annotated[str | None, typer.Option(
    "--arch", callback=arch_option, help="Target architecture: " + ", ".join(ARCHES) + " (sm_100 "
    "and the like: the a target); with sm_90a an smem word is the wgmma matrix descriptor.", show_default="the word's: sm_100a; sm_90a for wgmma")]


def word_for_arch(descriptor: str | None, arch: str | None,
                  command: str | None = None) -> tuple[str, str | None]:
    """The word a target reads as ``descriptor``: on sm_90a the shared memory descriptor is the
    wgmma matrix descriptor (PTX ISA 9.7.15.5.1), ``wgmma``; every other word is itself.  No
    ``descriptor`` (``--as`` not given): ``wgmma`` on sm_90a, the one word of that target; on
    any other target a :class:`ParameterError` (say which, ``command`` names the help)."""
    if descriptor is None:
        if arch == "sm_90a":
            return "wgmma", arch
        from descriptors.errors import ParameterError
        raise ParameterError("Missing option '--as'. Choose from: " + ", ".join(
            descriptors.DESCRIPTORS) + " (with --arch sm_90a it is wgmma, the one word of "
            "that target)" + (f" (see 'descgen {command} --help')" if command else ""))
    descriptor = DESCRIPTOR_ALIASES.get(descriptor, descriptor)
    if descriptor == "smem" and arch == "sm_90a":
        return "wgmma", arch
    return descriptor, arch
def parse_word(word: str) -> int:
    """The WORD argument of decode and check: an integer, or a register pair ``LO:HI``
    (:func:`descriptors.words.literals.parse_register_pair`, low word first; a one-line note
    on stderr says how it was read)."""
    from descriptors.words.literals import PAIR_ORDER, parse_register_pair
    value = parse_register_pair(word)
    if value is None:
        try:
            value = descriptors.parse_int(word, "word")
        except descriptors.ParameterError as e:
            text = word.strip()
            if 0 < len(text) <= 16 and all(c in _HEX_DIGITS for c in text):
                raise descriptors.ParameterError(f"{e}; did you mean 0x{text}? (hex as printf "
                                                 f"%x prints it)") from None
            raise
        _hex_note(word.strip(), value)
        return value
    sys.stderr.write(f"descgen: note: register pair {shorten(word.strip())} read as "
                     f"{PAIR_ORDER}: {value:#018x}\n")
    return value


_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
#: Bare digit strings :func:`_hex_note` has spoken of, with the stream it wrote to: once per
#: command (check may parse its word twice), again for a command run later in this process.
_NOTED: dict[str, Any] = {}


def _hex_note(text: str, value: int) -> None:
    """A bare digit string (no ``0x``, no suffix) is read as decimal; when its hex reading is
    another word that ``descgen dump`` would report as a valid descriptor (a ``%x`` print
    pasted without ``0x``: ``4000404000010040``), a one-line note on stderr asks whether that
    was meant."""
    if not text.isdigit() or not text.isascii() or len(text) > 16 \
            or _NOTED.get(text) is sys.stderr:
        return
    hex_value = int(text, 16)
    if hex_value == value:
        return
    from descriptors.tools.dump.score import DEFAULT_MIN_CONFIDENCE, classify
    size = 64 if len(text) > 8 or hex_value >> 32 else 32
    best = classify(hex_value, size)[:1]
    if best and best[0].valid and best[0].confidence >= DEFAULT_MIN_CONFIDENCE:
        if len(_NOTED) > 64:
            _NOTED.clear()
        _NOTED[text] = sys.stderr
        sys.stderr.write(f"descgen: note: {text} read as decimal ({value:#x}); did you mean "
                         f"0x{text}? (hex, as printf %x prints it, it is {best[0].summary})\n")


def upper_half(word: str, value: int, descriptor: str | None, kind: str | None,
               arch: str | None) -> tuple[str, str | None, int] | None:
    """With no ``--as``, ``--kind`` or sm_90a, a 32-bit value pasted alone whose best reading
    is the upper half of a shared memory (or wgmma) descriptor (``descgen dump``'s reading of
    a 32-bit register, :func:`descriptors.tools.dump.score.classify`): ``(family, arch,
    64-bit word)``, its lower half not given (0), said in a note on stderr; else ``None``."""
    if descriptor is not None or kind is not None or arch == "sm_90a" or ":" in word \
            or not 0 <= value < 1 << 32:
        return None
    half = _upper_half(value, arch)
    if half is None:
        return None
    family, on, full = half
    from descriptors.words.codec import format_word
    what = ("a shared memory descriptor" if family == "smem" else
            "a wgmma matrix descriptor (sm_90a)")
    sys.stderr.write(
        f"descgen: note: {value:#010x} reads as the upper half (bits 63-32) of {what}; "
        f"decoded as {format_word(family, full)}: its lower half (start address, "
        f"leading byte offset) is not given and shows as 0 (give the pair LO:HI, or "
        f"--as to read the value as a word)\n")
    return family, on, full


def _upper_half(value: int, arch: str | None) -> tuple[str, str | None, int] | None:
    """(family, arch, 64-bit word) of the best upper-half reading of a 32-bit ``value``:
    on ``arch``, or with none given the tcgen05 shared memory descriptor (whose fixed
    constant is evidence; sm_90a's word has none, and every value reads as its half)."""
    from descriptors.tools.dump.score import classify
    for target in ((arch,) if arch is not None else ("sm_100a",)):
        best = classify(value, 32, arch=target)[:1]  # only where the half is the best reading
        for c in best:
            if c.form == "upper":
                return c.descriptor, arch if arch is not None or c.descriptor == "smem" \
                    else target, c.word
    return None


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


#: What the refusal of a word says ``--force`` does (``descgen: error: ... (hint)``).
FORCE_HINT = "use --force to emit it anyway"


def enforce_rules(findings: list[Finding], force: bool, what: str,
                  hint: str = FORCE_HINT) -> None:
    """Refuse a word whose ``findings`` hold an error (:class:`InvalidDescriptorError`, naming
    ``what`` and the rules; ``hint`` says what ``--force`` would do, the error line ends with
    it), unless ``force``; then write the warnings (and forced errors) to stderr."""
    if not is_valid(findings) and not force:
        exc = InvalidDescriptorError(f"{what} {broken_rules(findings)}", findings)
        exc.force_hint = hint  # type: ignore[attr-defined]
        raise exc
    _warn(findings, force)


def broken_rules(findings: list[Finding]) -> str:
    """"breaks N rule(s) of the PTX text (ids)": what an error says whether or not the findings
    were shown (--format hex prints none)."""
    ids = list(dict.fromkeys(f.rule for f in findings if f.severity == "error"))
    return (f"breaks {len(ids)} rule{'s' if len(ids) != 1 else ''} of the PTX text "
            f"({', '.join(ids)})")


def warn_name_unused(name: str | None, fmt: str, why: str | None = None) -> None:
    """A warning on stderr when ``--name`` is given where no constant is named (it used to be
    ignored silently)."""
    if name is not None and (why is not None or fmt not in NAMED_FORMATS):
        sys.stderr.write(f"descgen: warning: --name {shorten(name)} is ignored: "
                         f"{why or f'--format {fmt} names no constant'} "
                         f"(--name applies to --format {'/'.join(NAMED_FORMATS)})\n")


def params_for(fmt: str, params: dict[str, Any], keep: tuple[str, ...] = ()) -> dict[str, Any]:
    """``params`` as the output shows them: for JSON numbers as numbers (the keys in ``keep``
    stay as they are: a zero-column mask is hex text, like the word, because it may be wider
    than the integers JSON readers keep exactly); the other formats echo the options as given."""
    if fmt != "json":
        return params
    return {k: v if k in keep else json_value(v) for k, v in params.items()}


def emit_word(descriptor: str, params: dict[str, Any], out: WordOutput,
              context: dict[str, Any] | None = None) -> None:
    """A word command's output: encode ``params``, judge the word (``context``: the options the
    word does not store), refuse it as :func:`enforce_rules` does, and print it as ``out``
    says."""
    given = {k: v for k, v in params.items() if v is not None}
    word = descriptors.encode(descriptor, check=False, **given)  # validated below (--force)
    ctx = {k: v for k, v in (context or {}).items() if v is not None}
    if descriptor == "idesc":
        ctx.update({k: given[k] for k in ("cta_group", "ws") if k in given})
    findings = validate(descriptor, word, kind=given.get("kind"), arch=out.arch, **ctx)
    enforce_rules(findings, out.force, f"the {descriptor} descriptor {descriptors.format_word(descriptor, word)}")
    warn_name_unused(out.name, out.fmt.value)
    if out.fmt.value == "text":
        show_word(descriptor, word, given.get("kind"), findings, out.plain_, out.no_color)
        return
    typer.echo(render_word(descriptor, word, out.fmt.value, name=out.name,
                           params=params_for(out.fmt.value, given), findings=findings))


def show_word(descriptor: str, word: int, kind: str | None, findings: list[Finding],
              plain_: bool, no_color: bool) -> None:
    """``--format text`` of a word command: the decoded word as ``descgen decode`` shows it."""
    decoded = descriptors.decode(descriptor, word, kind=kind if descriptor == "idesc" else None)
    show_decoded(decoded, findings, plain_, no_color)


def show_decoded(decoded: descriptors.Decoded, findings: list[Finding], plain_: bool,
                 no_color: bool) -> None:
    """A decoded word and its findings: the rich table and bit diagram, or ``--plain`` text
    (:mod:`descriptors.render.printer`)."""
    from descriptors.render import printer

    show_output(lambda: printer.render(decoded, findings), lambda: printer.plain(decoded, findings),
                plain_, no_color)


def option_values(values: list[str] | None) -> list[str] | None:
    """Comma-separated and/or repeated option values as one list."""
    if not values:
        return None
    return [part.strip() for v in values for part in v.split(",") if part.strip()]


CtaOpt = Annotated[str | None, typer.Option("--cta-group", help="idesc context: cta_group 1 or 2.")]
WsOpt = Annotated[bool | None, typer.Option("--ws/--no-ws", help="idesc context: for tcgen05.mma.ws.")]
MOpt = Annotated[str | None, typer.Option("-m", "--m", help="zcm context: M of the MMA.")]
NOpt = Annotated[str | None, typer.Option("-n", "--n", help="zcm context: N of the MMA (64, 128, 256).")]
ScaleVecOpt = Annotated[str | None, typer.Option("--scale-vec", help="idesc context: .scale_vec of a block-scaled MMA (1X, 2X, 4X).")]
ShiftOpt = Annotated[bool, typer.Option("--shift", help="tmem context: the address is the taddr of tcgen05.shift.")]
AllocOpt = Annotated[str | None, typer.Option("--alloc", help="tmem context: allocated columns.")]
KindOpt = Annotated[str | None, typer.Option("--kind", callback=kind_option,
                                            help="MMA kind of an instruction descriptor.")]
AsOpt = Annotated[Descriptor | None, typer.Option("--as", help="Which descriptor the word is.")]


class OptionGroup:
    """Typer options that several commands share, declared once: a subclass's annotations are
    the options (their ``Annotated`` types), its class attributes the defaults.  A command
    takes the group as one parameter (see :func:`option_groups`); the instance holds the
    values given."""

    def __init__(self, **values: Any) -> None:
        vars(self).update(values)


class WordOutput(OptionGroup):
    """The options every word command (idesc, smem, zcm, tmem) ends with: the output, the
    target, ``--force``."""

    fmt: FormatOpt = OutFormat.hex
    name: NameOpt = None
    arch: ArchOpt = "sm_100a"
    force: ForceOpt = False
    plain_: PlainOpt = False
    no_color: NoColorOpt = False


class WordContext(OptionGroup):
    """The options of a command that reads a word (decode, check, diff): ``--arch`` and the
    context the word does not store (:func:`context_options`)."""

    arch: WordArchOpt = None
    cta_group: CtaOpt = None
    ws: WsOpt = None
    m: MOpt = None
    alloc: AllocOpt = None
    n: NOpt = None
    scale_vec: ScaleVecOpt = None
    shift: ShiftOpt = False

    def options(self, descriptor: str) -> dict[str, Any]:
        """:func:`context_options` of ``descriptor``."""
        return context_options(descriptor, self.cta_group, self.ws, self.m, self.alloc, self.n,
                               self.scale_vec, self.shift)


class ReportOutput(OptionGroup):
    """How decode, check and diff print: ``--format``, ``--plain``, ``--no-color``."""

    fmt: DecodeFormatOpt = DecodeFormat.text
    plain_: PlainOpt = False
    no_color: NoColorOpt = False


def option_groups(command: Callable[..., None]) -> Callable[..., None]:
    """``command`` as typer reads it: a parameter whose type is an :class:`OptionGroup` (such
    as :class:`WordContext`) stands for the group's options, in its place in the help;
    ``command`` is called with the group made of their values."""
    signature = inspect.signature(command, eval_str=True)
    params: list[inspect.Parameter] = []
    groups: dict[str, tuple[Any, list[str]]] = {}
    for param in signature.parameters.values():
        group = param.annotation
        if not (isinstance(group, type) and issubclass(group, OptionGroup)):
            params.append(param)
            continue
        options = typing.get_type_hints(group, include_extras=True)
        groups[param.name] = (group, list(options))
        params += [inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                     default=getattr(group, name), annotation=option)
                   for name, option in options.items()]

    @functools.wraps(command)
    def run(**values: Any) -> None:
        for name, (group, names) in groups.items():
            values[name] = group(**{n: values.pop(n) for n in names})
        command(**values)

    run.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
    run.__annotations__ = {p.name: p.annotation for p in params}
    return run


def context_options(descriptor: str, cta_group: str | None, ws: bool | None, m: str | None,
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
                f"--{key.replace('_', '-')} is context of {'an' if owner == 'idesc' else 'a'} {owner} "
                f"word, not of {descriptor}")
    return {k: v for k, (owner, v) in options.items() if owner == descriptor and v is not None}


def renamed_option(new: Any, old: Any, new_name: str, old_name: str, unset: Any = None) -> Any:
    """One value from a renamed option and its hidden old spelling (``old_name``, still
    accepted): both given with different values is refused."""
    if old == unset or old is None:
        return new
    if new != unset and new is not None and new != old:
        raise descriptors.ParameterError(f"{new_name} and {old_name} (its old name) disagree: "
                                         f"give one")
    return old


def show_output(renderable: Any, plain_text: Any, plain_: bool, no_color: bool,
                piped_width: int = 140) -> None:
    """A human output: with ``--plain`` the stable text ``plain_text()``, else the rich
    renderable ``renderable()`` (:func:`descriptors.render.console.print_rich`: colour in a
    terminal, a page ``piped_width`` columns wide when piped).  Each is made only when shown."""
    if plain_:
        typer.echo(plain_text())
    else:
        from descriptors.render.console import print_rich
        print_rich(renderable(), no_color, piped_width)

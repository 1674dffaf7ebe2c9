"""From a Construct bit-struct to field tables, fast codecs and bit diagrams.

A layout is declared once, in :mod:`descriptors.words.layouts`, as Construct sub-constructs listed
**LSB first** (the order of the PTX tables).  :func:`register` turns that list into a
``construct.BitStruct`` and derives everything else from it:

* the :class:`Field` table (lsb, msb, width, mask, max, role, doc);
* straight-line ``encode``/``decode`` functions compiled once, so the hot path never runs
  Construct's interpreter;
* a scapy-style bit diagram for docstrings and the printer.

Bit order is settled here and only here: bit 0 is the least significant bit of the register
value.  Construct's ``BitStruct`` reads a big-endian bit stream MSB first, so the declared list
is reversed before it is handed to Construct, and words travel to Construct as big-endian bytes
(:meth:`BitLayout.to_bytes`).

**The derived table.**  Importing construct costs about 14 ms, a tenth of a ``descgen``
command's start-up, and nothing but the declarations needs it.  :func:`load` therefore builds
the layouts from ``layouts.derived.json`` -- exactly what :func:`register` derives from the
declarations, written by ``python -m descriptors.words.layouts`` -- when that table was derived from
the current text of ``layouts.py`` and ``bits.py`` (their CRC-32 is stored in it), and runs the
declarations otherwise, so a stale table is never used.  The Construct ``BitStruct`` itself
(:attr:`BitLayout.struct`) is built from the declarations on first use.  A test fails while the
committed table is stale, naming the command that rewrites it.
"""

from __future__ import annotations

import functools
import json
import operator
import zlib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..structs import Struct
from ..errors import FieldError, ParameterError, WordError, rewrap, shorten

if TYPE_CHECKING:
    import construct as cs

__all__ = ["Field", "BitLayout", "Layout", "register", "reserved", "load", "derived_table"]

ROLE_FIELD = "field"
ROLE_RESERVED = "reserved"
ROLE_CONSTANT = "constant"


class Field(Struct, frozen=True):
    """One field of a register layout, derived from its Construct definition."""

    name: str
    lsb: int
    width: int
    doc: str
    role: str  # "field", "reserved" (must be zero) or "constant" (fixed value)
    default: int  # value written when the caller gives none: the constant, else 0
    source: str  # PTX table the layout comes from

    @property
    def msb(self) -> int:
        return self.lsb + self.width - 1

    @property
    def max(self) -> int:
        """Largest raw value the field holds."""
        return (1 << self.width) - 1

    @property
    def mask(self) -> int:
        """The field's bits within the word."""
        return self.max << self.lsb

    @property
    def bits(self) -> str:
        """Bit range as ``[msb:lsb]`` (``[lsb]`` for one bit)."""
        return f"[{self.lsb}]" if self.width == 1 else f"[{self.msb}:{self.lsb}]"

    def extract(self, word: int) -> int:
        return (word >> self.lsb) & self.max

    def error(self, value: Any, problem: str, allowed: str | None = None) -> FieldError:
        """A :class:`FieldError` about ``value`` in this field."""
        return FieldError(self.name, self.bits, value, problem,
                          allowed if allowed is not None else f"0..{self.max}", self.source)

    def check(self, value: Any) -> int:
        """Return ``value`` as a raw field value, or raise :class:`FieldError` naming the field."""
        if isinstance(value, bool):
            if self.width != 1:
                raise self.error(value, f"{value!r} is a boolean, but the field is {self.width} "
                                        f"bits wide; allowed 0..{self.max}")
            value = int(value)
        if not isinstance(value, int):
            try:
                value = operator.index(value)
            except TypeError:
                raise self.error(value, f"{shorten(value)} is not an integer; allowed 0..{self.max}") from None
        if value < 0:
            raise self.error(value, f"{shorten(value)} is negative; allowed 0..{self.max}")
        if value > self.max:
            raise self.error(value, f"{shorten(value)} exceeds max {self.max}")
        return value


def reserved(width: int, doc: str = "Reserved, must be 0") -> cs.Construct:
    """An unnamed reserved field; :func:`register` names it ``reserved_<lsb>``."""
    import construct as cs

    return cs.BitsInteger(width) * doc


def _unwrap(sub: cs.Construct) -> tuple[str | None, str, cs.Construct]:
    """Name, doc and innermost construct of a (possibly multiply) renamed sub-construct."""
    import construct as cs

    name, doc = None, ""
    while isinstance(sub, cs.Renamed):
        name = name or sub.name
        doc = doc or (sub.docs or "")
        sub = sub.subcon
    return name, doc, sub


def _width(sub: cs.Construct) -> int:
    import construct as cs

    if isinstance(sub, cs.Default):
        sub = sub.subcon
    if not isinstance(sub, cs.BitsInteger) or sub.signed:
        raise TypeError(f"layout fields must be unsigned BitsInteger, not {sub!r}")
    return int(sub.length)


def _compiled(name: str, src: str, **namespace: Any) -> Callable[..., Any]:
    """The function ``name`` that the generated ``src`` defines (its globals: ``namespace``)."""
    exec(src, namespace)  # noqa: S102 - generated from a layout's fields
    return namespace[name]  # type: ignore[no-any-return]


class BitLayout:
    """The bit layout of a fixed-size word (not a shared-memory layout: those are
    :mod:`descriptors.layout`): a Construct ``BitStruct`` and the tables derived from it.

    Attributes: ``name``, ``size`` (bits), ``source`` (PTX table), ``title``, ``struct`` (the
    Construct definition), ``fields`` (tuple of :class:`Field`, LSB first), ``by_name``.
    """

    def __init__(self, name: str, size: int, source: str, title: str,
                 fields: Sequence[Field], aliases: Mapping[str, str],
                 struct: cs.Construct | None, make_struct: Callable[[], cs.Construct] | None = None
                 ) -> None:
        """Use :func:`register` (from Construct sub-constructs) or :func:`load`: ``struct`` is
        the ``BitStruct``, or None and ``make_struct`` builds it on first use."""
        self.name = name
        self.size = size
        self.source = source
        self.title = title
        lsb = 0
        for f in fields:
            if f.lsb != lsb:
                raise ValueError(f"layout {name}: field {f.name} starts at bit {f.lsb}, not {lsb}")
            lsb += f.width
        if lsb != size:
            raise ValueError(f"layout {name}: fields cover {lsb} bits, not {size}")
        if struct is None and make_struct is None:
            raise ValueError(f"layout {name}: no Construct definition")
        self._struct = struct
        self._make_struct = make_struct
        self.fields: tuple[Field, ...] = tuple(fields)
        self.by_name: dict[str, Field] = {f.name: f for f in fields}
        self.aliases: dict[str, str] = dict(aliases)
        for alias, target in self.aliases.items():
            if target not in self.by_name:
                raise ValueError(f"layout {name}: alias {alias!r} names unknown field {target!r}")
        self.max_word = (1 << size) - 1
        self.__doc__ = f"{title} ({size}-bit word, PTX {source}).\n\n{self.diagram()}"

    # The generated hot paths, compiled on first use (a command that touches one layout does
    # not compile the others): the commands of tests/bench_cli.py take 4-6% more CPU time when
    # all are compiled at import (median of 25 interleaved rounds).  cached_property stores each
    # in the instance, so later reads are plain attribute reads.  ``decode``/``encode_fields``
    # are then the generated functions themselves, set on the instance: no wrapper call, which
    # makes tests/bench_codec.py's raw decode 6-30% faster (tmem the most).
    @functools.cached_property
    def _decode(self) -> Callable[[int], dict[str, int]]:
        fn = self._compile_decode()
        fn.__doc__ = BitLayout.decode.__doc__
        self.decode = fn  # type: ignore[method-assign]
        return fn

    @functools.cached_property
    def _encode(self) -> Callable[..., int]:
        return self._compile_encode()

    @functools.cached_property
    def _encode_map(self) -> Callable[[Mapping[str, Any]], int]:
        fn = self._compile_encode_map()
        fn.__doc__ = BitLayout.encode_fields.__doc__
        self.encode_fields = fn  # type: ignore[method-assign]
        return fn

    @property
    def struct(self) -> cs.Construct:
        """The Construct definition: fields MSB first, as ``BitStruct`` reads big-endian bytes
        (built from the declarations in :mod:`descriptors.words.layouts` on first use)."""
        if self._struct is None:
            assert self._make_struct is not None
            self._struct = self._make_struct()
        return self._struct

    def table_entry(self) -> dict[str, Any]:
        """This layout as one entry of the derived table (see the module docs)."""
        return {"name": self.name, "size": self.size, "source": self.source,
                "title": self.title, "aliases": self.aliases,
                "fields": [[f.name, f.lsb, f.width, f.doc, f.role, f.default]
                           for f in self.fields]}

    # ----------------------------------------------------------------- compiled hot paths
    def _compile_decode(self) -> Callable[[int], dict[str, int]]:
        """``decode(word)``: range check and one shift/mask per field, no interpreter."""
        def item(f: Field) -> str:
            if f.msb == self.size - 1:
                return f"{f.name!r}: w >> {f.lsb}"
            return f"{f.name!r}: (w >> {f.lsb}) & {f.max}" if f.lsb else f"{f.name!r}: w & {f.max}"
        items = ", ".join(item(f) for f in self.fields)
        src = (
            f"def decode(w):\n"
            f"    if w.__class__ is int and 0 <= w <= {self.max_word}:\n"
            f"        return {{{items}}}\n"
            f"    return decode(check(w))\n"
        )
        return _compiled("decode", src, check=self.check_word)

    def _compile_encode(self) -> Callable[..., int]:
        """``encode(**fields)``: the fast path when every value is an int that fits its field."""
        args = ", ".join(f"{f.name}={f.default}" for f in self.fields)
        collect = ", ".join(f"{f.name!r}: {f.name}" for f in self.fields)
        return self._compile_packer("encode", args, "", "", "TypeError", f"{{{collect}}}",
                                    self._encode_checked)

    def _compile_encode_map(self) -> Callable[[Mapping[str, Any]], int]:
        """``encode_map(fields)``: the fast path when every field is given by its PTX name."""
        loads = "".join(f"        {f.name} = d[{f.name!r}]\n" for f in self.fields)
        return self._compile_packer("encode_map", "d", loads, f"len(d) == {len(self.fields)} and ",
                                    "(KeyError, TypeError)", "d", lambda d: self.encode(**d))

    def _compile_packer(self, name: str, args: str, loads: str, test: str, errors: str,
                        call: str, fallback: Callable[[Any], int]) -> Callable[..., int]:
        """Both encoders' one shape: ``loads`` (lines that bind each field's name), then, when
        ``test`` holds and no field overflows its width, the fields shifted and OR-ed; otherwise
        (or on ``errors``) ``fallback(call)``, the checked path that raises the precise error."""
        overflow = " | ".join(f"{f.name} >> {f.width}" for f in self.fields)
        word = " | ".join(f"{f.name} << {f.lsb}" if f.lsb else f.name for f in self.fields)
        src = (
            f"def {name}({args}):\n"
            f"    try:\n"
            f"{loads}"
            f"        if {test}not ({overflow}):\n"
            f"            w = {word}\n"
            f"            if w.__class__ is int:\n"
            f"                return w\n"
            f"    except {errors}:\n"
            f"        pass\n"
            f"    return fallback({call})\n"
        )
        return _compiled(name, src, fallback=fallback)

    def _encode_checked(self, values: Mapping[str, Any]) -> int:
        """Slow path: check every field and raise the precise error."""
        word = 0
        for f in self.fields:
            word |= f.check(values.get(f.name, f.default)) << f.lsb
        return word

    # ----------------------------------------------------------------- public codec
    def canonical(self, name: str) -> str:
        """The PTX field name for ``name`` or one of its aliases (CUTLASS's names)."""
        if name in self.by_name:
            return name
        if name in self.aliases:
            return self.aliases[name]
        raise ParameterError(
            f"unknown field {shorten(name)} for layout {self.name} ({self.source}); fields: "
            + ", ".join(f.name for f in self.fields))

    def encode(self, **fields: Any) -> int:
        """Build a word from raw field values; missing fields take their default (0 or the
        fixed constant).  Raises :class:`FieldError` when a value does not fit its field and
        :class:`ParameterError` for an unknown field name."""
        try:
            return self._encode(**fields)
        except TypeError:
            pass
        canon: dict[str, Any] = {}
        for key, value in fields.items():
            name = self.canonical(key)
            if name in canon:
                raise ParameterError(f"field {shorten(name)} given twice (as {shorten(key)} and an alias)")
            canon[name] = value
        return self._encode(**canon)

    def encode_fields(self, fields: Mapping[str, Any]) -> int:
        """Like :meth:`encode`, from a mapping (the fast path when it holds every field)."""
        return self._encode_map(fields)

    def check_word(self, word: Any) -> int:
        """Return ``word`` as an int in range of this layout, else raise :class:`WordError`."""
        if word.__class__ is int and 0 <= word <= self.max_word:
            return word  # type: ignore[no-any-return]
        if isinstance(word, bool) or not hasattr(word, "__index__"):
            raise WordError(f"{self.name}: word must be an integer, not {shorten(word)}")
        value = operator.index(word)
        if not 0 <= value <= self.max_word:
            raise WordError(f"{self.name}: word {value:#x} does not fit in {self.size} bits "
                            f"(allowed 0..{self.max_word:#x})")
        return value

    def decode(self, word: int) -> dict[str, int]:
        """Raw value of every field (reserved and constant ones included) of ``word``.
        Raises :class:`WordError` when ``word`` is not an integer of this layout's size."""
        return self._decode(word)

    # ----------------------------------------------------------------- Construct route
    def to_bytes(self, word: int) -> bytes:
        """The word as the big-endian byte string Construct's BitStruct reads."""
        return self.check_word(word).to_bytes(self.size // 8, "big")

    def construct_parse(self, word: int) -> dict[str, int]:
        """Decode through Construct's interpreter (reference path for tests and benchmarks)."""
        with rewrap(f"{self.name}: Construct parse"):
            container = self.struct.parse(self.to_bytes(word))
        return {f.name: int(container[f.name]) for f in self.fields}

    def construct_build(self, fields: Mapping[str, int]) -> int:
        """Encode through Construct's interpreter (reference path for tests and benchmarks)."""
        values = {f.name: fields.get(f.name, f.default) for f in self.fields}
        with rewrap(f"{self.name}: Construct build"):
            data = self.struct.build(values)
        return int.from_bytes(data, "big")

    # ----------------------------------------------------------------- documentation
    def diagram(self) -> str:
        """A plain-text bit diagram: one line per field, MSB first, with its bit range."""
        width = max(len(f.name) for f in self.fields)
        lines = [f"{'bits':>7}  {'field':<{width}}  description"]
        for f in reversed(self.fields):
            rng = f"{f.msb}-{f.lsb}" if f.width > 1 else f"{f.lsb}"
            lines.append(f"{rng:>7}  {f.name:<{width}}  {f.doc}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<BitLayout {self.name} ({self.size} bits, {self.source})>"


#: The name :class:`BitLayout` had in 0.1.0.
Layout = BitLayout


def register(name: str, size: int, source: str, title: str, *subcons: cs.Construct,
             aliases: Mapping[str, str] | None = None) -> BitLayout:
    """Declare a layout from Construct sub-constructs listed LSB first.

    Each sub-construct is ``"name" / BitsInteger(width) * "doc"``; ``Default(...)`` marks a
    fixed constant, a name starting with ``reserved`` or no name at all marks a reserved field.
    ``aliases`` maps other names (CUTLASS's) to PTX field names.
    """
    import construct as cs

    named: list[cs.Construct] = []
    fields: list[Field] = []
    lsb = 0
    for sub in subcons:
        fname, doc, inner = _unwrap(sub)
        width = _width(inner)
        role = ROLE_FIELD
        default = 0
        if fname is None:
            fname, role = f"reserved_{lsb}", ROLE_RESERVED
        elif fname.startswith("reserved"):
            role = ROLE_RESERVED
        if isinstance(inner, cs.Default):
            role, default = ROLE_CONSTANT, int(inner.value)
        fields.append(Field(fname, lsb, width, doc, role, default, source))
        named.append(fname / inner * doc)
        lsb += width
    return BitLayout(name, size, source, title, fields, aliases or {},
                  cs.BitStruct(*reversed(named)))


# ----------------------------------------------------------------- the derived table
_DERIVED_FROM = ("layouts.py", "bits.py")


def _fingerprint(directory: Path) -> int | None:
    """CRC-32 of the texts the table is derived from (None when a source is not readable)."""
    crc = 0
    for name in _DERIVED_FROM:
        try:
            crc = zlib.crc32((directory / name).read_bytes(), crc)
        except OSError:
            return None
    return crc


def derived_table(layouts: Sequence[BitLayout], directory: Path) -> str:
    """The derived table of ``layouts`` as the JSON text ``python -m descriptors.words.layouts``
    writes: the fingerprint of the sources and every layout's :meth:`BitLayout.table_entry`."""
    entries = []
    for lay in layouts:
        entry = lay.table_entry()
        fields = ",\n".join(f"    {json.dumps(f)}" for f in entry.pop("fields"))
        head = json.dumps(entry)[:-1]
        entries.append(f"  {head},\n   \"fields\": [\n{fields}\n   ]}}")
    return (f'{{"derived_from": {json.dumps(list(_DERIVED_FROM))}, '
            f'"crc32": {_fingerprint(directory)},\n "layouts": [\n' + ",\n".join(entries) + "\n ]}\n")


def load(declarations: Callable[[], Sequence[BitLayout]], directory: Path,
         table: str) -> tuple[BitLayout, ...]:
    """The layouts ``declarations()`` returns -- from ``directory/table`` when it was derived
    from the current sources (no construct import), else by running the declarations."""
    crc = _fingerprint(directory)
    try:
        data = json.loads((directory / table).read_text(encoding="utf-8"))
        fresh = crc is not None and data["crc32"] == crc
    except (OSError, ValueError, KeyError, TypeError):
        fresh = False
    if not fresh:
        return tuple(declarations())
    built: list[BitLayout] = []

    def struct_of(name: str) -> Callable[[], cs.Construct]:
        return lambda: next(lay.struct for lay in declarations() if lay.name == name)

    for entry in data["layouts"]:
        fields = [Field(f[0], f[1], f[2], f[3], f[4], f[5], entry["source"])
                  for f in entry["fields"]]
        built.append(BitLayout(entry["name"], entry["size"], entry["source"], entry["title"],
                            fields, entry["aliases"], None, struct_of(entry["name"])))
    return tuple(built)

"""Semantic encode and decode of the four descriptor families: the library's public calls.

(Long: one encoder and one decoder per word, with the parameter parsing they share and the
memos the benchmarks show pay, each saying which row.)

``encode(descriptor, **params) -> int`` builds a word from semantic parameters (M, N, type
names, byte values, swizzle names ...); ``encode_raw`` builds one from raw field values;
``decode(descriptor, word, kind=...)`` returns a :class:`Decoded` holding the raw value of every
field (reserved ones included) and the semantic values; ``readings`` lists every layout's
reading of a word.  Nothing is silently truncated: a value that does not fit raises
:class:`~descriptors.errors.FieldError` naming the field, its bits, the value and what is
allowed, with the PTX table.  Field positions come from :mod:`descriptors.words.layouts` only.
"""

from __future__ import annotations

import difflib
import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .bits import Field, BitLayout
from .enums import (KINDS, LBO_MODE, MAJOR, MAX_SHIFT, SWIZZLE, SWIZZLE_SM90, EnumTable, Kind,
                    kind_hint, kind_named)
from ..errors import DescgenError, KindRequiredError, ParameterError, WordError
from ..errors import shorten as _short
from .layouts import IDESC, LAYOUTS, SMEM, TMEM, WGMMA, ZCM
from .literals import strip_c_suffix

__all__ = ["DESCRIPTOR_ALIASES", 
    "DESCRIPTORS", "PARAMETERS", "Decoded", "encode", "encode_raw", "decode", "readings",
    "layout_for", "format_word", "parse_int", "word_bits", "smem_to_wgmma", "parse_bool",
    "parse_word", "MAX_DIGITS",
]

#: The descriptor families, by the name every call takes.
DESCRIPTORS: tuple[str, ...] = ("smem", "idesc", "zcm", "tmem", "wgmma")
#: Other names of a family every call takes too: ``gmma`` -- CUTLASS's ``GmmaDescriptor``
#: (``cute/arch/mma_sm90_desc.hpp``) for the word PTX calls wgmma's matrix descriptor.
DESCRIPTOR_ALIASES: dict[str, str] = {"gmma": "wgmma"}

#: Semantic parameter names ``encode`` accepts, per descriptor (aliases excluded).
PARAMETERS: dict[str, tuple[str, ...]] = {
    "idesc": ("kind", "a_type", "b_type", "d_type", "m", "n", "a_major", "b_major", "negate_a",
              "negate_b", "saturate", "sparse", "sparsity_selector", "max_shift", "scale_type",
              "a_scale_id", "b_scale_id", "k", "cta_group", "ws"),
    "smem": ("start_address", "leading_byte_offset", "stride_byte_offset", "swizzle",
             "base_offset", "lbo_mode"),
    "zcm": ("start_count", "first_span", "non_zero_mask", "skip_span", "use_span",
            "column_shift"),
    "tmem": ("lane", "column"),
    "wgmma": ("start_address", "leading_byte_offset", "stride_byte_offset", "swizzle",
              "base_offset"),
}

_ALIASES: dict[str, dict[str, str]] = {
    "idesc": {},
    "smem": {"start_address_bytes": "start_address", "lbo": "leading_byte_offset",
             "leading_byte_offset_bytes": "leading_byte_offset", "sbo": "stride_byte_offset",
             "stride_byte_offset_bytes": "stride_byte_offset", "layout_type": "swizzle"},
    "zcm": {"nzm": "non_zero_mask", "shift": "column_shift"},
    "tmem": {},
    "wgmma": {"start_address_bytes": "start_address", "lbo": "leading_byte_offset",
              "leading_byte_offset_bytes": "leading_byte_offset", "sbo": "stride_byte_offset",
              "stride_byte_offset_bytes": "stride_byte_offset", "layout_type": "swizzle"},
}

_KNOWN = {d: frozenset(names) for d, names in PARAMETERS.items()}

#: Encoded-field scales: the field stores value >> shift (PTX "M >> 4", "N >> 3", 16-byte units).
_M_SHIFT = {"idesc": 4, "idesc_mxf8f6f4": 7, "idesc_mxf4": 7}
_N_SHIFT = 3
_BYTE_SHIFT = 4

# ------------------------------------------------------------------ parameter parsing


def parse_int(value: Any, what: str) -> int:
    """An integer from an int or a decimal / ``0x`` hex string (``_`` and ``'`` separators
    allowed, and a C/C++ integer suffix, ``0x08400490u``, ``...ull``:
    :data:`~descriptors.words.literals.C_SUFFIX`).  Raises :class:`ParameterError` for
    anything else (bools and floats included)."""
    if value.__class__ is int:
        return value  # type: ignore[no-any-return]
    if isinstance(value, str):
        text = strip_c_suffix(value.strip().replace("_", "").replace("'", ""))
        if len(text) > MAX_DIGITS:
            raise ParameterError(f"{what}: a number of {len(text)} characters is longer than "
                                 f"any descriptor value ({MAX_DIGITS} at most)")
        try:
            return int(text, 0)
        except ValueError:
            raise ParameterError(f"{what}: {_short(value)} is not an integer (decimal or 0x hex)") from None
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise ParameterError(f"{what}: {_short(value)} is not an integer")
    return int(value.__index__())


#: Longest integer text parse_int reads: a 256-bit zero-column mask in binary with its 0b prefix.
MAX_DIGITS = 260



def parse_bool(value: Any, what: str) -> bool:
    """A boolean from a bool, 0/1 or a word (``true``/``false``, ``yes``/``no``, ``1``/``0``; any
    case).  Raises :class:`ParameterError` naming ``what`` for anything else."""
    if value is True or value is False:
        return value
    if value.__class__ is int and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in _BOOL_WORDS:
        return _BOOL_WORDS[value.strip().lower()]
    raise ParameterError(f"{what}: {_short(value)} is not a boolean (true/false, 1/0)")


_BOOL_WORDS = {"true": True, "false": False, "1": True, "0": False, "yes": True, "no": False}


def _bit(field: Field, value: Any, what: str) -> int:
    """A one-bit field from a bool, 0/1 or a boolean word; anything else is refused."""
    if value.__class__ is int:
        return field.check(value)
    return int(parse_bool(value, what))


def _choice(table: EnumTable, field: Field, value: Any, what: str, *, ints: bool = False) -> int:
    """Raw code of ``value`` in ``table``; ``ints`` lets an int name its choice (``32`` for
    max shift, ``1`` for MN)."""
    key = str(value) if ints and value.__class__ is int else value
    choice = table.lookup(key) if isinstance(key, str) else None
    if choice is None:
        raise field.error(value, f"{what}={_short(value)} is not a valid {table.what}; allowed "
                                 + ", ".join(table.names))
    return choice.value


def _scaled(field: Field, value: Any, what: str, shift: int, unit: str) -> int:
    """Raw value of a field that stores ``value >> shift``; refuses remainders and overflow."""
    v = parse_int(value, what)
    step = 1 << shift
    top = field.max << shift
    allowed = f"multiples of {step} from 0 to {top}" if shift else f"0..{top}"
    if v < 0 or v % step:
        raise field.error(value, f"{what}={v} {unit}is not a non-negative multiple of {step} "
                                 f"(the field stores {what} >> {shift}); allowed {allowed}")
    if v > top:
        raise field.error(value, f"{what}={v} {unit}encodes as {v >> shift}, exceeds max "
                                 f"{field.max}; allowed {allowed}")
    return v >> shift


def _bytes(field: Field, value: Any, what: str) -> int:
    """Raw value of a shared-memory byte field: (bytes & 0x3FFFF) >> 4, refusing what would be
    masked (above the 256 KiB window) or shifted out (not 16-byte aligned)."""
    v = parse_int(value, what)
    limit = (field.max + 1) << _BYTE_SHIFT
    allowed = f"0..{limit - 16:#x} bytes, 16-byte aligned"
    if v < 0 or v >= limit:
        raise field.error(value, f"{what}={v:#x} bytes is outside the {limit // 1024} KiB "
                                 f"shared-memory window; allowed {allowed}")
    if v % (1 << _BYTE_SHIFT):
        raise field.error(value, f"{what}={v:#x} bytes is not 16-byte aligned; allowed {allowed}")
    return v >> _BYTE_SHIFT


def _normalise(descriptor: str, params: Mapping[str, Any]) -> Mapping[str, Any]:
    """Map aliases to parameter names and refuse unknown or doubly-given parameters."""
    if _KNOWN[descriptor].issuperset(params):  # PTX names only: no alias, nothing twice
        return params
    known = PARAMETERS[descriptor]
    aliases = _ALIASES[descriptor]
    out: dict[str, Any] = {}
    for key, value in params.items():
        name = aliases.get(key, key)
        if name not in known:
            hint = difflib.get_close_matches(key, [*known, *aliases], n=1) \
                if isinstance(key, str) and len(key) < 100 else []
            raise ParameterError(
                f"unknown parameter {_short(key)} for {descriptor}"
                + (f" (did you mean {_short(hint[0])}?)" if hint else "")
                + "; parameters: " + ", ".join(known))
        if name in out:
            raise ParameterError(f"{descriptor}: parameter {_short(name)} given twice (once as an alias)")
        out[name] = value
    return out


# ------------------------------------------------------------------ encoding by parameter steps
#
# idesc and smem words are encoded by a table of steps, one per parameter, that is the only
# statement of their checks: a step turns the parameter's value into its field's raw value (or
# checks it and stores nothing, e.g. d_type of a kind without a D type field), raising what a
# bad value deserves.  Steps are independent of one another, so the word of a parameter set is
# the OR of its parameters' bits over the bits of the defaults.  The bits each step gave for a
# value are remembered (per table, keyed by the parameter's name, the value's exact type and the
# value; str/int/bool/None values only, immutable and checked deterministically; bounded;
# refusals never kept): a parameter set never encoded whose values were each seen before costs
# a dict look-up per parameter.  It pays on tests/bench_speed.py's "new set" rows (the
# whole-set memo of :func:`encode` emptied before each call): idesc 3.0x (3.1 us against 9.3),
# smem 2.3x (2.4 us against 5.4); CPU time, median of 7 interleaved rounds.  zcm, tmem and
# wgmma have no such row, and no memo.
#
# When a value is refused (or a required parameter is missing), the steps run again in their
# order, so that of several bad parameters the one first in that order is reported, whatever
# the order of the caller's keywords.


def _remember(memo: dict[Any, Any], key: Any, value: Any) -> None:
    """Store ``value`` in a bounded memo (emptied when full: O(1) amortised)."""
    if len(memo) >= MEMO_SIZE:
        memo.clear()
    memo[key] = value


#: Entries a bounded memo keeps (:func:`_remember`; the whole-set memo of :func:`encode` too).
MEMO_SIZE = 4096
#: The only value types whose results are memoised: immutable, and checked deterministically
#: (the whole-set memos of :func:`encode` and of ``descriptors.encode`` use it too).
PLAIN_TYPES = frozenset({str, int, bool, type(None)})

#: A step: the parameter's name, the value it takes when not given, the field it sets (None for
#: a check only) and the computation of that field's raw value from the parameter's value.  A
#: step whose name is None is a check of the whole parameter set (its computation takes them).
_Step = tuple["str | None", Any, "str | None", Callable[[Any], int]]


class _Steps:
    """The steps of one word (one layout; per kind for an idesc), in the order of the checks,
    and the memo of the bits they gave.  :meth:`encode` is the word's encoder."""

    __slots__ = ("order", "by_name", "base", "required", "memo")

    def __init__(self, layout: BitLayout, order: list[_Step]) -> None:
        self.order = order
        #: name -> (computation, field, lsb, largest raw value, the bits the field leaves)
        self.by_name: dict[str, tuple[Callable[[Any], int], Field | None, int, int, int]] = {}
        #: the fixed constants and the bits of every default the steps accept
        self.base = 0
        for f in layout.fields:
            if f.role == "constant":
                self.base |= f.default << f.lsb
        required: list[str] = []
        for name, default, out, compute in order:
            if name is None:
                continue
            field = layout.by_name[out] if out is not None else None
            step = (compute, field, field.lsb if field else 0, field.max if field else 0,
                    layout.max_word & ~(field.mask if field else 0))
            self.by_name[name] = step
            try:
                self.base |= _placed(step, default)
            except DescgenError:  # refused: the parameter must be given
                required.append(name)
        self.required = tuple(required)
        self.memo: dict[tuple[str, type, Any], int] = {}

    def encode(self, p: Mapping[str, Any]) -> int:
        """The word of the parameters ``p`` (names without a step -- kind, the context -- are
        the caller's to check).  Raises what the first step, in order, to refuse ``p`` raises."""
        for name in self.required:
            if name not in p:
                self.refuse(p)  # raises: the step of a missing required parameter refuses
        word = self.base
        by_name, memo = self.by_name, self.memo
        for name, v in p.items():
            step = by_name.get(name)
            if step is None:
                continue
            key: Any = (name, v.__class__, v)
            try:
                r = memo.get(key)
            except Exception:  # noqa: BLE001 - unhashable (a list): computed, never remembered
                r = key = None
            if r is None:
                try:
                    r = _placed(step, v)
                except Exception:
                    self.refuse(p)  # the first refusal in the order of the checks
                    raise
                if key is not None and key[1] in PLAIN_TYPES:
                    _remember(memo, key, r)
            word = word & step[4] | r
        return word

    def refuse(self, p: Mapping[str, Any]) -> None:
        """Run every step on ``p`` in order: raises the first refusal (returns if none)."""
        for name, default, _out, compute in self.order:
            if name is None:
                compute(p)
            else:
                _placed(self.by_name[name], p.get(name, default))


def _placed(step: tuple[Callable[[Any], int], Field | None, int, int, int], value: Any) -> int:
    """The bits ``step`` gives ``value``: its raw value checked against the field (the
    :class:`FieldError` the layout's encoder would raise) and shifted into place; 0 for a step
    that stores no field."""
    compute, field, lsb, top, _keep = step
    raw = compute(value)
    if field is None:
        return 0
    if raw.__class__ is int and 0 <= raw <= top:
        return raw << lsb  # type: ignore[no-any-return]
    return field.check(raw) << lsb


# ------------------------------------------------------------------ instruction descriptor


def _kind(value: Any) -> Kind:
    kind = KINDS.get(value) if value.__class__ is str else None  # the PTX name: no parsing
    if kind is not None:
        return kind
    if value is None:
        raise ParameterError("idesc needs kind= one of " + ", ".join(KINDS))
    kind = kind_named(value)
    if kind is None:
        raise ParameterError(f"unknown kind {_short(value)}; kinds: " + ", ".join(KINDS)
                             + kind_hint(value))
    return kind


def _type_param(kind: Kind, table: EnumTable, field: Field, value: Any, name: str,
                default: str | None) -> int:
    if value is None:
        if len(table.choices) == 1:
            return table.choices[0].value
        if default is None:
            raise ParameterError(f"kind {kind.name} needs {name} (one of {', '.join(table.names)})")
        value = default
    return _choice(table, field, value, name)


def _absent(kind: Kind, value: Any, name: str, default: Any, why: str) -> int:
    """Refuse a parameter the kind's layout has no field for, unless it has its default."""
    if value is None:
        return 0
    try:
        same = value == default or (isinstance(default, bool) and parse_bool(value, name) == default)
    except ParameterError:
        same = False
    if not same:
        raise ParameterError(f"{name}={_short(value)} cannot be encoded for kind {kind.name}: {why}")
    return 0


def _idesc_steps(kind: Kind) -> list[_Step]:
    """The checks of an instruction descriptor of ``kind`` (Tables 42-44), in order."""
    lay = LAYOUTS[kind.layout]
    f = lay.by_name
    src = kind.source

    def type_step(name: str, table: EnumTable, default: str | None) -> _Step:
        return (name, None, name, lambda v: _type_param(kind, table, f[name], v, name, default))

    def absent(name: str, default: Any, why: str) -> _Step:
        return (name, None, None, lambda v: _absent(kind, v, name, default, why))

    def no_d(d: Any) -> int:
        if d is not None and not (isinstance(d, str) and d.lower() in ("f32", "float")):
            raise ParameterError(f"d_type={_short(d)} cannot be encoded for kind {kind.name}: D is "
                                 f"always f32 and {src} has no D type field")
        return 0

    def m_and_n(p: Mapping[str, Any]) -> int:
        if p.get("m") is None or p.get("n") is None:
            raise ParameterError("idesc needs m and n (the MMA shape M x N)")
        return 0

    def raw_int(name: str) -> _Step:
        return (name, 0, name, lambda v: f[name].check(parse_int(v, name)))

    def flag(name: str) -> _Step:
        return (name, False, name, lambda v: int(parse_bool(v, name)))

    def major(name: str, field: str) -> _Step:
        return (name, "K", field, lambda v: _choice(MAJOR, f[field], v, name, ints=True))

    m_shift = _M_SHIFT[lay.name]
    steps: list[_Step] = [
        type_step("a_type", kind.ab_types, None), type_step("b_type", kind.ab_types, None),
        type_step("d_type", kind.d_types, "f32") if kind.d_types is not None
        else ("d_type", None, None, no_d),
        (None, None, None, m_and_n),
        ("m", None, "m_dim", lambda v: _scaled(f["m_dim"], v, "M", m_shift, "")),
        ("n", None, "n_dim", lambda v: _scaled(f["n_dim"], v, "N", _N_SHIFT, "")),
        major("a_major", "transpose_a"), major("b_major", "transpose_b"),
        flag("negate_a"), flag("negate_b"), flag("sparse"),
    ]
    if kind.block_scaled:
        assert kind.scale_types is not None
        steps += [type_step("scale_type", kind.scale_types, "ue8m0"),
                  raw_int("a_scale_id"), raw_int("b_scale_id"),
                  absent("saturate", False, f"{src} has no saturate bit"),
                  absent("sparsity_selector", 0, f"bits 0-1 are reserved in {src}"),
                  absent("max_shift", 0, f"{src} has no max shift field (.ws is not allowed)")]
    else:
        why = f"{src} has no scale factor fields (block-scaled kinds only)"
        steps += [flag("saturate"), raw_int("sparsity_selector"),
                  ("max_shift", 0, "max_shift",
                   lambda v: _choice(MAX_SHIFT, f["max_shift"], v, "max_shift", ints=True)),
                  absent("scale_type", None, why), absent("a_scale_id", 0, why),
                  absent("b_scale_id", 0, why)]
    return steps


_IDESC_STEPS = {name: _Steps(LAYOUTS[kind.layout], _idesc_steps(kind))
                for name, kind in KINDS.items()}


def _encode_idesc(params: Mapping[str, Any]) -> int:
    p = _normalise("idesc", params)
    kind = _kind(p.get("kind"))
    word = _IDESC_STEPS[kind.name].encode(p)
    if p.get("k") is not None or p.get("cta_group") is not None or p.get("ws") is not None:
        word |= _idesc_context(kind, p, word)
    return word


def _idesc_context(kind: Kind, p: Mapping[str, Any], word: int) -> int:
    """The checks of ``k``, ``cta_group`` and ``ws`` on the word built from the other
    parameters; returns the K=96 bit where asked for."""
    f = LAYOUTS[kind.layout].by_name
    sparse = bool(f["sparse"].extract(word))
    k96 = 0
    k = p.get("k")
    if k is not None:
        kv = parse_int(k, "k")
        implied = kind.k_sparse if sparse else kind.k_dense
        if kv == kind.k_alt and not sparse and "k_dim" in f:
            k96 = 1 << f["k_dim"].lsb
        elif kv != implied:
            alt = (f", or {kind.k_alt} when dense (k_dim{f['k_dim'].bits}, sm_103a)"
                   if kind.k_alt else "")
            raise ParameterError(
                f"K={kv} cannot be encoded for kind {kind.name} ({'sparse' if sparse else 'dense'}): "
                f"K is implied by kind and sparsity (Table 39): {implied}{alt}")
    cta = p.get("cta_group")
    if cta is not None and parse_int(cta, "cta_group") not in (1, 2):
        raise ParameterError(f"cta_group={_short(cta)}: allowed 1 or 2")
    if p.get("ws") is not None:
        parse_bool(p["ws"], "ws")
    return k96


def _values_idesc(kind_name: str, lay: BitLayout, f: Mapping[str, int]) -> dict[str, Any]:
    kind = KINDS[kind_name]
    sparse = bool(f["sparse"])
    ab = kind.ab_types.name_by_code.get
    major = MAJOR.name_by_code.get
    v: dict[str, Any] = {
        "kind": kind.name,
        "a_type": ab(f["a_type"]),
        "b_type": ab(f["b_type"]),
        "d_type": kind.d_types.name_by_code.get(f["d_type"]) if kind.d_types is not None else "f32",
        "m": f["m_dim"] << _M_SHIFT[lay.name],
        "n": f["n_dim"] << _N_SHIFT,
        "k": kind.k_alt if f.get("k_dim") else (kind.k_sparse if sparse else kind.k_dense),
        "a_major": major(f["transpose_a"]),
        "b_major": major(f["transpose_b"]),
        "negate_a": bool(f["negate_a"]),
        "negate_b": bool(f["negate_b"]),
        "sparse": sparse,
    }
    if kind.block_scaled:
        assert kind.scale_types is not None
        v["scale_type"] = kind.scale_types.name_by_code.get(f["scale_type"])
        v["a_scale_id"] = f["a_scale_id"]
        v["b_scale_id"] = f["b_scale_id"]
    else:
        v["saturate"] = bool(f["saturate"])
        v["sparsity_selector"] = f["sparsity_selector"]
        v["max_shift"] = int(MAX_SHIFT.name_by_code.get(f["max_shift"]) or 0)
    return v


# ------------------------------------------------------------------ shared memory descriptor


def _smem_steps() -> list[_Step]:
    """The checks of a shared memory descriptor (Table 40), in order."""
    f = SMEM.by_name

    def byte_step(name: str) -> _Step:
        return (name, 0, name, lambda v: _bytes(f[name], v, name))

    return [byte_step("start_address"), byte_step("leading_byte_offset"),
            byte_step("stride_byte_offset"),
            ("swizzle", "none", "swizzle", lambda v: _choice(SWIZZLE, f["swizzle"], v, "swizzle")),
            ("base_offset", 0, "base_offset",
             lambda v: f["base_offset"].check(parse_int(v, "base_offset"))),
            ("lbo_mode", "relative", "lbo_mode",
             lambda v: _choice(LBO_MODE, f["lbo_mode"], v, "lbo_mode", ints=True))]


_SMEM_STEPS = _Steps(SMEM, _smem_steps())


def _encode_smem(params: Mapping[str, Any]) -> int:
    return _SMEM_STEPS.encode(_normalise("smem", params))


def _matrix_values(f: Mapping[str, int], swizzles: EnumTable) -> dict[str, Any]:
    """The values a shared memory matrix descriptor (smem, wgmma) shares: the three addresses
    and offsets in bytes, the swizzle mode by name (from ``swizzles``), the base offset."""
    return {
        "start_address_bytes": f["start_address"] << _BYTE_SHIFT,
        "leading_byte_offset_bytes": f["leading_byte_offset"] << _BYTE_SHIFT,
        "stride_byte_offset_bytes": f["stride_byte_offset"] << _BYTE_SHIFT,
        "swizzle": swizzles.name_by_code.get(f["swizzle"]),
        "base_offset": f["base_offset"],
    }


def _values_smem(f: Mapping[str, int]) -> dict[str, Any]:
    return {**_matrix_values(f, SWIZZLE), "lbo_mode": LBO_MODE.name_by_code.get(f["lbo_mode"])}


# ------------------------------------------------------------------ wgmma matrix descriptor


def _encode_wgmma(params: Mapping[str, Any]) -> int:
    """The sm_90 wgmma matrix descriptor (PTX ISA 9.7.15.5.1): the smem descriptor's byte
    fields, ``swizzle`` (``none``/``interleave``, ``128B``, ``64B``, ``32B``) and ``base_offset``;
    no fixed constant, no LBO mode."""
    p = _normalise("wgmma", params)
    f = WGMMA.by_name
    return WGMMA.encode(
        start_address=_bytes(f["start_address"], p.get("start_address", 0), "start_address"),
        leading_byte_offset=_bytes(f["leading_byte_offset"], p.get("leading_byte_offset", 0),
                                   "leading_byte_offset"),
        stride_byte_offset=_bytes(f["stride_byte_offset"], p.get("stride_byte_offset", 0),
                                  "stride_byte_offset"),
        swizzle=_choice(SWIZZLE_SM90, f["swizzle"], p.get("swizzle", "none"), "swizzle"),
        base_offset=f["base_offset"].check(parse_int(p.get("base_offset", 0), "base_offset")))


def smem_to_wgmma(word: Any) -> int:
    """The wgmma matrix descriptor (sm_90a, PTX ISA 9.7.15.5.1) that describes the same operand
    as tcgen05's smem descriptor ``word`` (Table 40): the same start address, LBO, SBO, base
    offset and swizzle, which both read the same way (the canonical layouts of 9.7.16.3.3 and
    9.7.15.5.1; an H100 reads every measured word as descgen's fetch model says).  Raises
    :class:`WordError` for what sm_90 has no form of: 128B swizzling with 32B atomicity, the
    absolute leading-dimension mode, an invalid swizzle code."""
    d = decode("smem", word)
    v = d.values
    if v["swizzle"] is None or v["swizzle"] == "128B_base32B":
        raise WordError(f"smem swizzle {v['swizzle'] or d.fields['swizzle']} has no sm_90 wgmma "
                        "form (9.7.15.5.1: none, 128B, 64B, 32B)")
    if v["lbo_mode"] != "relative":
        raise WordError("the absolute leading-dimension mode is tcgen05's (sm_103a): the wgmma "
                        "descriptor has none (9.7.15.5.1)")
    return encode("wgmma", start_address=v["start_address_bytes"],
                  leading_byte_offset=v["leading_byte_offset_bytes"],
                  stride_byte_offset=v["stride_byte_offset_bytes"], swizzle=v["swizzle"],
                  base_offset=v["base_offset"])


def wgmma_to_smem(word: Any) -> int:
    """The tcgen05 smem descriptor (Table 40) that describes the same operand as the sm_90a
    wgmma matrix descriptor ``word`` (PTX ISA 9.7.15.5.1): the same start address, LBO, SBO,
    base offset and swizzle, the relative LBO mode (the inverse of :func:`smem_to_wgmma`).
    The wgmma word's unused bits are not carried over (an H100 ignores them, measured)."""
    v = decode("wgmma", word).values
    return encode("smem", start_address=v["start_address_bytes"],
                  leading_byte_offset=v["leading_byte_offset_bytes"],
                  stride_byte_offset=v["stride_byte_offset_bytes"], swizzle=v["swizzle"],
                  base_offset=v["base_offset"])


def _values_wgmma(f: Mapping[str, int]) -> dict[str, Any]:
    return _matrix_values(f, SWIZZLE_SM90)


# ------------------------------------------------------------------ zero-column mask


def _four(value: Any, what: str) -> list[Any]:
    if isinstance(value, (str, bytes, bytearray, memoryview)) or not isinstance(value, Sequence):
        raise ParameterError(f"{what} takes up to 4 values (index i for sub-mask i), got {_short(value)}")
    if not 1 <= len(value) <= 4:
        raise ParameterError(f"{what} takes 1 to 4 values (sub-masks 0..3), got {len(value)}")
    return [*value, *([0] * (4 - len(value)))]


def _encode_zcm(params: Mapping[str, Any]) -> int:
    p = _normalise("zcm", params)
    f = ZCM.by_name
    raw: dict[str, int] = {}
    for i, v in enumerate(_four(p.get("start_count", [0]), "start_count")):
        name = f"start_count_{i}"
        raw[name] = f[name].check(parse_int(v, name))
    for i, v in enumerate(_four(p.get("first_span", [0]), "first_span")):
        name = f"first_span_{i}"
        raw[name] = _bit(f[name], v, name)
    raw["non_zero_mask"] = _bit(f["non_zero_mask"], p.get("non_zero_mask", 1), "non_zero_mask")
    for name in ("skip_span", "use_span", "column_shift"):
        raw[name] = f[name].check(parse_int(p.get(name, 0), name))
    return ZCM.encode(**raw)


def _values_zcm(f: Mapping[str, int]) -> dict[str, Any]:
    return {
        "start_count": [f[f"start_count_{i}"] for i in range(4)],
        "first_span": [f[f"first_span_{i}"] for i in range(4)],
        "non_zero_mask": f["non_zero_mask"],
        "skip_span": f["skip_span"],
        "use_span": f["use_span"],
        "column_shift": f["column_shift"],
    }


# ------------------------------------------------------------------ tensor memory address


def _encode_tmem(params: Mapping[str, Any]) -> int:
    p = _normalise("tmem", params)
    f = TMEM.by_name
    return TMEM.encode(lane=f["lane"].check(parse_int(p.get("lane", 0), "lane")),
                       column=f["column"].check(parse_int(p.get("column", 0), "column")))


def _values_tmem(f: Mapping[str, int]) -> dict[str, Any]:
    return {"lane": f["lane"], "column": f["column"]}


# ------------------------------------------------------------------ public API

#: The encoder of each descriptor (what :func:`encode` runs below its whole-set memos).
_ENCODERS: dict[str, Callable[[Mapping[str, Any]], int]] = {
    "idesc": _encode_idesc, "smem": _encode_smem, "zcm": _encode_zcm, "tmem": _encode_tmem,
    "wgmma": _encode_wgmma,
}
#: The per-parameter memo of each step table (idesc per kind), by name.
_PARTS: dict[str, dict[Any, int]] = {**{name: steps.memo for name, steps in _IDESC_STEPS.items()},
                                     "smem": _SMEM_STEPS.memo}
_FIXED_LAYOUT = {"smem": SMEM, "zcm": ZCM, "tmem": TMEM, "wgmma": WGMMA}


def _descriptor(descriptor: Any) -> str:
    if isinstance(descriptor, str) and descriptor in _ENCODERS:
        return descriptor
    if isinstance(descriptor, str) and descriptor in DESCRIPTOR_ALIASES:
        return DESCRIPTOR_ALIASES[descriptor]
    raise ParameterError(f"unknown descriptor {_short(descriptor)}; descriptors: " + ", ".join(DESCRIPTORS))


def layout_for(descriptor: str, kind: str | None = None) -> BitLayout:
    """The :class:`~descriptors.words.bits.BitLayout` of ``descriptor`` (an idesc needs its ``kind``)."""
    try:  # a canonical (descriptor, kind): decode's table
        return _BY_KIND[kind][descriptor][0]
    except (KeyError, TypeError):
        pass
    d = _descriptor(descriptor)
    if d != "idesc":
        if kind is not None:
            raise ParameterError(f"kind applies to idesc only, not {d}")
        return _FIXED_LAYOUT[d]
    if kind is None:
        raise KindRequiredError(
            "an instruction-descriptor word does not identify its kind: pass kind= one of "
            + ", ".join(KINDS) + " (or call readings('idesc', word) for every layout's reading)")
    return LAYOUTS[_kind(kind).layout]


def word_bits(descriptor: str) -> int:
    """Size of the descriptor's word in bits (32 or 64)."""
    d = _descriptor(descriptor)
    return IDESC.size if d == "idesc" else _FIXED_LAYOUT[d].size


def format_word(descriptor: str, word: int) -> str:
    """``0x%08x`` for 32-bit descriptors, ``0x%016x`` for 64-bit ones.  Raises
    :class:`WordError` for anything but an integer in ``0 .. 2**bits - 1`` (no sign, never
    wider than the word)."""
    bits = word_bits(descriptor)
    if word.__class__ is not int or word < 0 or word >> bits:
        if isinstance(word, bool) or not hasattr(word, "__index__"):
            raise WordError(f"{descriptor}: word must be an integer, not {_short(word)}")
        value = int(word.__index__())
        if not 0 <= value < 1 << bits:
            raise WordError(f"{descriptor}: word {_short(value)} does not fit in {bits} bits "
                            f"(allowed 0..{(1 << bits) - 1:#x})")
        word = value
    return f"{word:#0{bits // 4 + 2}x}"


def encode(descriptor: str, **params: Any) -> int:
    """Build a descriptor word from semantic parameters.

    ``idesc`` (32-bit; PTX Tables 42/43/44 by ``kind``): ``kind``, ``a_type``, ``b_type``,
    ``d_type`` (PTX type names; f32 by default), ``m`` (stored M >> 4, or M >> 7 for the
    block-scaled kinds), ``n`` (stored N >> 3), ``a_major``/``b_major`` (``K`` or ``MN``),
    ``negate_a``, ``negate_b``, ``saturate``, ``sparse``, ``sparsity_selector`` (0-3),
    ``max_shift`` (0, 8, 16, 32), ``scale_type`` (``ue8m0``/``ue4m3``), ``a_scale_id``,
    ``b_scale_id``, ``k`` (only to ask for K=96), and the context parameters ``cta_group`` and
    ``ws`` (checked, not stored).

    ``smem`` (64-bit; Table 40): ``start_address``, ``leading_byte_offset`` (``lbo``),
    ``stride_byte_offset`` (``sbo``), all in **bytes** (16-byte aligned, below 256 KiB; stored
    in 16-byte units); ``swizzle`` (``none``, ``128B_base32B``, ``128B``, ``64B``, ``32B``);
    ``base_offset`` (0-7); ``lbo_mode`` (``relative``/``absolute``).

    ``zcm`` (64-bit; Table 45): raw fields ``start_count`` and ``first_span`` (up to 4 values,
    sub-mask 0 first), ``non_zero_mask`` (default 1), ``skip_span``, ``use_span``,
    ``column_shift``.  ``tmem`` (32-bit; 9.7.16.1.1): ``lane`` (bits 31-16), ``column`` (15-0).

    ``wgmma`` (64-bit; the sm_90 wgmma matrix descriptor, PTX ISA 9.7.15.5.1, CUTLASS
    ``GmmaDescriptor``): ``start_address``, ``leading_byte_offset``, ``stride_byte_offset`` in
    bytes as for smem; ``swizzle`` (``none``/``interleave``, ``128B``, ``64B``, ``32B``: codes 0-3,
    CUTLASS ``layout_type``); ``base_offset`` (0-7).

    Raises :class:`FieldError` when a value does not fit its field (never truncates) and
    :class:`ParameterError` for an unknown, missing or malformed parameter.
    """
    try:
        return _memo(descriptor, **params)
    except _Unmemoised as done:  # checked and encoded, but not of memoisable types
        return done.word
    except TypeError:  # an unhashable parameter (a list)
        pass
    return _encode_lists(descriptor, params)  # outside the handler: no TypeError chained


def _encode_lists(descriptor: Any, params: dict[str, Any]) -> int:
    """:func:`encode` of a set holding a list or tuple (zcm's ``start_count``/``first_span``):
    memoised in ``_LIST_MEMO`` keyed by every value and element with its exact type, when they
    are all plain (``[1]``, ``[True]`` and ``[1.0]`` have keys of their own); anything else is
    checked and encoded every time.  It pays on tests/bench_speed.py's ``zcm: encode`` row: 4.3x
    (2.6 us against 11.0; CPU time, median of 7 interleaved rounds)."""
    if descriptor.__class__ is not str:
        return _encode(descriptor, params)
    try:
        key = (descriptor, *params, *map(_frozen, params.values()))
    except _NotPlain:
        return _encode(descriptor, params)
    word = _LIST_MEMO.get(key)
    if word is None:
        word = _encode(descriptor, params)
        _remember(_LIST_MEMO, key, word)
    return word


class _NotPlain(Exception):
    """A value :func:`_frozen` cannot key exactly."""


def _frozen(value: Any) -> tuple[Any, ...]:
    """``value`` with its exact type, and a list's or tuple's elements with theirs."""
    cls = value.__class__
    if cls in PLAIN_TYPES:
        return (cls, value)
    if cls is list or cls is tuple:
        types = tuple(map(type, value))
        if PLAIN_TYPES.issuperset(types):
            return (cls, tuple(value), types)
    raise _NotPlain


#: Words of parameter sets holding lists or tuples (see :func:`_encode_lists`).
_LIST_MEMO: dict[tuple[Any, ...], int] = {}


def _encode(descriptor: Any, params: Mapping[str, Any]) -> int:
    """:func:`encode` without the whole-set memos."""
    try:
        encoder = _ENCODERS[descriptor]
    except (KeyError, TypeError):
        if isinstance(descriptor, str) and descriptor in DESCRIPTOR_ALIASES:
            return _encode(DESCRIPTOR_ALIASES[descriptor], params)
        raise ParameterError(f"unknown descriptor {_short(descriptor)}; descriptors: "
                             + ", ".join(DESCRIPTORS)) from None
    return encoder(params)


class _Unmemoised(Exception):
    """Carries a word out of :func:`_memo` without memoising it (``lru_cache`` keeps every value
    returned, never an exception)."""

    def __init__(self, word: int) -> None:
        self.word = word


@functools.lru_cache(maxsize=MEMO_SIZE, typed=True)
def _memo(descriptor: Any, /, **params: Any) -> int:
    """Words of parameter sets already encoded.  ``functools.lru_cache`` with ``typed=True``
    keys them by descriptor, parameter names, values *and the values' exact types*, built in C
    (so ``m=128.0`` or ``negate_a=1`` never meet the entry of ``m=128`` / ``negate_a=True``).
    Only sets whose values are plain str/int/bool/None are kept: those are immutable and their
    checks deterministic, so a hit returns what the checks would; any other set raises
    :class:`_Unmemoised` with its word.  Refusals raise, and are never kept.

    It pays on tests/bench_speed.py's rows of a repeated set: ``encode`` of one is 2.5-3.1x
    faster (idesc 0.72 us against 2.06, smem 0.55 against 1.55, tmem 0.44 against 1.09); a set
    not seen before pays for the look-up ("new set" rows 1.45x slower, "cold" 1.17x); CPU
    time, median of 7 interleaved rounds."""
    word = _encode(descriptor, params)
    if descriptor.__class__ is str and PLAIN_TYPES.issuperset(map(type, params.values())):
        return word
    raise _Unmemoised(word)


def _layout_docs() -> str:
    """The bit diagram of every layout, for the docstrings of :func:`encode` and friends."""
    return "\n\n".join(lay.__doc__ or "" for lay in LAYOUTS.values())


def encode_raw(descriptor: str, *, kind: str | None = None, force: bool = False,
               **fields: Any) -> int:
    """Build a word from raw field values (PTX field names or CUTLASS aliases, reserved fields
    included); missing fields are 0, fixed constants take their value.  ``kind`` selects the
    instruction-descriptor layout.  A fixed constant given a different value (Table 40's
    bits 46-48 must be 0b001) is refused unless ``force=True`` (to build a broken word on
    purpose, e.g. to test a validator).  Booleans are accepted for one-bit fields only.
    Raises :class:`FieldError` / :class:`ParameterError`."""
    layout = layout_for(descriptor, kind)
    for key, value in fields.items():
        f = layout.by_name[layout.canonical(key)]
        if isinstance(value, bool):
            f.check(value)  # refused for fields wider than one bit
        if f.role == "constant" and not force and f.check(value) != f.default:
            raise f.error(value, f"fixed constant must be {f.default:#0{f.width + 2}b}, not "
                                 f"{f.check(value):#0{f.width + 2}b} (pass force=True to build a "
                                 "word that breaks it)")
    return layout.encode(**fields)


class Decoded:
    """A decoded descriptor word.

    ``word`` (int), ``descriptor``, ``kind`` (idesc only), ``layout``, ``fields`` (raw value of
    every field by PTX name, reserved and constant fields included) and ``values`` (semantic
    values, keyed like ``encode``'s parameters; byte values end in ``_bytes``).  ``int(obj)``
    re-encodes from ``fields``, so ``int(decode(d, w)) == w`` for every word.

    :func:`decode` checks the word at once; ``fields`` and ``values`` are computed on first
    access (one shift and mask per field, from the layout's compiled decoder) and kept.  Each
    object gets its own ``fields`` and ``values`` dicts (changing one changes nothing else);
    the words decoded recently and more than once are remembered (a bounded memo per descriptor
    and kind), so reading ``fields``/``values`` of such a word copies a dict instead of
    recomputing it.  That pays on tests/bench_speed.py's rows of a word decoded before:
    ``.values`` 1.7-6.3x faster (idesc 0.40 us against 2.52, smem 0.38 against 1.41), ``.fields``
    2.5-2.9x; the noting of words seen once makes the rows of a new word each call 12-32% slower
    (idesc 3.1 us against 2.8, tmem 1.14 against 0.78); CPU time, median of 7 interleaved
    rounds.

    Every (descriptor, kind) has its own subclass holding ``descriptor``, ``kind`` and
    ``layout`` as class attributes (so a decode sets one attribute, the word);
    ``isinstance(obj, Decoded)`` holds for all of them.
    """

    __slots__ = ("word", "_fields", "_values")

    descriptor: str
    kind: str | None
    layout: BitLayout
    #: per-subclass: the reference computation of ``values`` from ``fields``, the keys holding
    #: lists (copied per object), the memos of fields and values by word (a word's dicts are
    #: kept from its second decode on) and the words decoded once.
    _values_ref: Callable[[Mapping[str, int]], dict[str, Any]]
    _lists: tuple[str, ...]
    _fmemo: dict[int, dict[str, int]]
    _vmemo: dict[int, dict[str, Any]]
    _fonce: set[int]
    _fget: Callable[[int], dict[str, int] | None]  # _fmemo.get, _vmemo.get
    _vget: Callable[[int], dict[str, Any] | None]

    def __new__(cls, descriptor: str, kind: str | None, layout: BitLayout, word: int,
                fields: dict[str, int] | None = None) -> Decoded:
        _lay, sub, _top = _dispatch(descriptor, kind)
        if layout is not sub.layout:
            raise ParameterError(f"{descriptor}: layout {layout.name} is not the layout of "
                                 f"{descriptor}{f' kind {kind}' if kind else ''} ({sub.layout.name})")
        obj: Decoded = object.__new__(sub)
        obj.word = parse_word(sub.layout, word)
        obj._fields = fields
        obj._values = None
        return obj

    @property
    def fields(self) -> dict[str, int]:
        """Raw value of every field by PTX name (reserved and constant fields included)."""
        f = self._fields
        if f is None:
            word = self.word
            seen = self._fget(word)
            if seen is not None:
                f = self._fields = seen.copy()
                return f
            f = self._fields = self.layout._decode(word)
            once = self._fonce
            if word in once:  # decoded before: kept from now on
                _remember(self._fmemo, word, f.copy())
            else:  # decoded once: noted, nothing kept
                if len(once) >= MEMO_SIZE:
                    once.clear()
                once.add(word)
        return f

    @property
    def values(self) -> dict[str, Any]:
        """Semantic values (an unknown enumerated code reads as ``None``; its raw value is in
        ``fields``)."""
        v = self._values
        if v is None:
            if self._fields is None:  # the common case, first (zcm's _vget finds nothing)
                seen = self._vget(self.word)
                if seen is not None:
                    v = self._values = seen.copy()
                    return v
            v = self._values = self._values_slow()
        return v

    def _values_slow(self) -> dict[str, Any]:
        """:attr:`values` from edited fields, the memo (lists copied) or computed.  The values
        of a word are kept once its fields are (from its second decode on)."""
        word, f = self.word, self._fields
        if f is not None and f != self._fmemo.get(word):
            # fields given or edited (or no longer remembered): the values are theirs
            return self._values_ref(f)
        lists = self._lists
        if lists:  # zcm: its memo is read here only, the lists copied per object
            seen = self._vmemo.get(word)
            if seen is not None:
                v = seen.copy()
                for key in lists:
                    v[key] = [*v[key]]
                return v
        v = self._values_ref(self.fields if f is None else f)
        if word in self._fmemo:  # decoded before: kept from now on (lists of their own)
            _remember(self._vmemo, word, self._values_ref(self._fields) if lists else v.copy())
        return v

    @property
    def hex(self) -> str:
        return format_word(self.descriptor, self.word)

    @property
    def unexpected(self) -> dict[str, int]:
        """Reserved fields that are set and fixed constants that differ from their value."""
        return {f.name: self.fields[f.name] for f in self.layout.fields
                if f.role != "field" and self.fields[f.name] != f.default}

    @property
    def refused(self) -> dict[str, str]:
        """Fields holding what :func:`encode` would refuse, with the reason: an enumerated code
        the table does not define (a type, scale type or swizzle code) and, for
        ``kind::mxf4``/``mxf4nvf4``, K=96 (bit 31) together with sparsity (bit 2) -- Table 44
        defines K=96 for dense MMAs only.  The printer marks these fields like set reserved
        bits; validation reports them as errors."""
        out: dict[str, str] = {}
        f = self.fields
        if self.descriptor == "idesc":
            v = self.values
            for name in ("a_type", "b_type", "d_type", "scale_type"):
                if name in f and v.get(name) is None:
                    out[name] = f"code {f[name]} is not defined for kind::{self.kind}"
            if f.get("k_dim") and f["sparse"]:
                out["k_dim"] = "K=96 is defined for dense MMAs only (Table 44); the word is sparse"
        elif self.descriptor == "smem" and self.values["swizzle"] is None:
            out["swizzle"] = f"swizzle code {f['swizzle']} is invalid (3, 5 and 7 are undefined)"
        return out

    def __int__(self) -> int:
        return self.layout._encode_map(self.fields)

    __index__ = __int__

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Decoded):
            return NotImplemented
        return (self.descriptor, self.kind, int(self)) == (other.descriptor, other.kind, int(other))

    def __hash__(self) -> int:
        return hash((self.descriptor, self.kind, self.word))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: ``descriptor``, ``kind``, ``word`` (hex string), ``fields``, ``values``."""
        return {"descriptor": self.descriptor, "kind": self.kind, "word": self.hex,
                "fields": dict(self.fields), "values": self.values}

    def __repr__(self) -> str:
        kind = f" kind={self.kind}" if self.kind else ""
        return f"<Decoded {self.descriptor}{kind} {self.hex}>"


def parse_word(layout: BitLayout, word: Any) -> int:
    """``word`` as an int of ``layout``'s size: text is read as :func:`parse_int` reads it.
    Raises :class:`ParameterError` for text that is no integer and :class:`WordError` for
    anything but an integer in ``0 .. 2**bits - 1``."""
    if isinstance(word, str):
        word = parse_int(word, f"{layout.name} word")
    return layout.check_word(word)


def decode(descriptor: str, word: int, *, kind: str | None = None) -> Decoded:
    """Decode ``word`` into a :class:`Decoded`.  An idesc needs ``kind`` (the word alone does not
    say which layout it uses): without it :class:`KindRequiredError` names the kinds; see
    :func:`readings`.  Raises :class:`WordError` when the word is not an integer of the
    descriptor's size.  Never loses a bit: ``int(decode(d, w)) == w``.

    The word is checked here; the fields are extracted on first access to ``fields`` or
    ``values`` (:class:`Decoded` is lazy)."""
    try:
        _lay, cls, top = _BY_KIND[kind][descriptor]
    except (KeyError, TypeError):
        _lay, cls, top = _dispatch(descriptor, kind)
    if word.__class__ is not int or word < 0 or word > top:
        word = parse_word(cls.layout, word)
    obj = _new_decoded(cls)
    obj.word = word
    obj._fields = obj._values = None
    return obj


_new_decoded = object.__new__


def _nothing(word: int) -> None:
    """The ``_vget`` of a class whose values are not copied on the short path (zcm)."""
    return None


def _decoded_class(descriptor: str, kind: str | None, layout: BitLayout) -> type[Decoded]:
    """The :class:`Decoded` subclass of one (descriptor, kind)."""
    ref: Callable[[Mapping[str, int]], dict[str, Any]]
    if descriptor == "idesc":
        assert kind is not None
        ref = functools.partial(_values_idesc, kind, layout)  # C-level: no extra Python frame
    else:
        ref = {"smem": _values_smem, "zcm": _values_zcm, "tmem": _values_tmem,
               "wgmma": _values_wgmma}[descriptor]
    fmemo: dict[int, dict[str, int]] = {}
    vmemo: dict[int, dict[str, Any]] = {}
    return type("Decoded", (Decoded,), {
        "__slots__": (), "__qualname__": "Decoded", "__module__": __name__,
        "__doc__": Decoded.__doc__, "descriptor": descriptor, "kind": kind, "layout": layout,
        "_values_ref": staticmethod(ref),
        "_lists": ("start_count", "first_span") if descriptor == "zcm" else (),
        "_fmemo": fmemo, "_vmemo": vmemo, "_fget": fmemo.get,
        # zcm's values hold lists (copied per object): its memo is read by _values_slow only
        "_vget": vmemo.get if descriptor != "zcm" else staticmethod(_nothing),
        "_fonce": set(),
        "__reduce__": _reduce_decoded,
    })


def _reduce_decoded(self: Decoded) -> tuple[Any, ...]:
    """Pickle/copy support: a decoded word is rebuilt by decoding it again."""
    return (_rebuild_decoded, (self.descriptor, self.word, self.kind))


def _rebuild_decoded(descriptor: str, word: int, kind: str | None) -> Decoded:
    return decode(descriptor, word, kind=kind)


#: kind (None but for an idesc) -> descriptor -> (layout, Decoded subclass, largest word):
#: decode's dispatch table, derived from the layouts and KINDS.  Keyed by kind, then descriptor:
#: two dict look-ups instead of one keyed by a (descriptor, kind) tuple make ``decode`` 13-19%
#: faster (tests/bench_speed.py, ``decode('smem', w)`` 217 ns against 246, ``decode('idesc', w,
#: kind='f16')`` 203 against 241; CPU time, median of 11 interleaved rounds).
_BY_KIND: dict[str | None, dict[str, tuple[BitLayout, type[Decoded], int]]] = {
    None: {d: (lay, _decoded_class(d, None, lay), lay.max_word)
           for d, lay in _FIXED_LAYOUT.items()},
    **{k: {"idesc": (LAYOUTS[kind.layout], _decoded_class("idesc", k, LAYOUTS[kind.layout]),
                     LAYOUTS[kind.layout].max_word)} for k, kind in KINDS.items()},
}


def _dispatch(descriptor: Any, kind: Any) -> tuple[BitLayout, type[Decoded], int]:
    """The slow dispatch: checks the descriptor and kind (raising what :func:`layout_for`
    raises), then the table entry of their canonical names."""
    descriptor = DESCRIPTOR_ALIASES.get(descriptor, descriptor) if isinstance(descriptor, str) \
        else descriptor
    layout_for(descriptor, kind)
    return _BY_KIND[_kind(kind).name if kind is not None else None][str(descriptor)]


def readings(descriptor: str, word: int) -> list[Decoded]:
    """Every reading of ``word``: one per kind for an idesc (the word alone does not identify
    its kind), the single reading otherwise."""
    if _descriptor(descriptor) != "idesc":
        return [decode(_descriptor(descriptor), word)]
    return [decode(descriptor, word, kind=k) for k in KINDS]


encode.__doc__ = f"{encode.__doc__}\n    Field bit ranges (derived from the Construct definitions):\n\n{_layout_docs()}\n"

"""What each raw field of a decoded word means, in words: the description table.

``explain(decoded)`` returns one :class:`FieldReading` per field, MSB first, with the field's
bit range, raw value and meaning (``N = 256``, ``128B``, ``1024 bytes``).  Bit ranges come from
the layout (the Construct definitions); meanings come from :attr:`Decoded.values` and the enum
tables.  :mod:`descriptors.render.printer` lays them out.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..structs import Struct
from ..words.bits import Field
from ..words.codec import Decoded
from ..words.enums import KINDS, LBO_MODE, MAJOR, MAX_SHIFT, SWIZZLE, SWIZZLE_SM90

__all__ = ["FieldReading", "explain"]


class FieldReading(Struct, frozen=True):
    field: Field
    raw: int
    meaning: str
    unexpected: bool  # a reserved field that is set, a constant that differs, or a value
    # encode refuses (Decoded.refused)

    @property
    def name(self) -> str:
        return self.field.name

    @property
    def bits(self) -> str:
        return self.field.bits


def _yes_no(raw: int) -> str:
    return "yes" if raw else "no"


def _code(table_name: Callable[[int], str | None], raw: int) -> str:
    name = table_name(raw)
    return name if name is not None else f"invalid code {raw}"


def _bytes(raw: int, values: dict[str, Any], key: str) -> str:
    b = values[key]
    return f"{b} bytes ({b:#x})" if b >= 1024 else f"{b} bytes"


def _idesc(d: Decoded, f: Field, raw: int) -> str:
    kind = KINDS[d.kind or ""]
    v = d.values
    name = f.name
    if name == "sparsity_selector":
        return f"selector {raw}" + ("" if v["sparse"] else " (used only when sparse)")
    if name == "sparse":
        if raw and d.fields.get("k_dim"):
            return "sparse (with K=96 set: no such MMA)"
        return f"sparse, K = {v['k']}" if raw else f"dense, K = {v['k']}"
    if name == "saturate":
        return _yes_no(raw)
    if name == "d_type":
        assert kind.d_types is not None
        return _code(kind.d_types.name_of, raw)
    if name in ("a_type", "b_type"):
        return _code(kind.ab_types.name_of, raw)
    if name.startswith("negate_"):
        return _yes_no(raw)
    if name.startswith("transpose_"):
        return _code(MAJOR.name_of, raw) + "-major"
    if name == "n_dim":
        return f"N = {v['n']}"
    if name == "m_dim":
        return f"M = {v['m']}"
    if name == "max_shift":
        c = MAX_SHIFT.by_value(raw)
        return c.description if c else f"invalid code {raw}"
    if name == "scale_type":
        assert kind.scale_types is not None
        return _code(kind.scale_types.name_of, raw)
    if name in ("a_scale_id", "b_scale_id"):
        return f"scale factor ID {raw}"
    if name == "k_dim":
        return f"K = {v['k']}"
    return ""


def _smem(d: Decoded, f: Field, raw: int) -> str:
    v = d.values
    name = f.name
    if name in ("start_address", "leading_byte_offset", "stride_byte_offset"):
        return _bytes(raw, v, f"{name}_bytes")
    if name == "swizzle":
        c = SWIZZLE.by_value(raw)
        return f"{c.name}: {c.description}" if c else f"invalid code {raw} (3, 5, 7 are invalid)"
    if name == "lbo_mode":
        c = LBO_MODE.by_value(raw)
        return c.name if c else ""
    if name == "base_offset":
        return f"base offset {raw}"
    return ""


def _wgmma(d: Decoded, f: Field, raw: int) -> str:
    """The sm_90 wgmma matrix descriptor (PTX ISA 9.7.15.5.1): smem's fields, its own swizzle
    codes."""
    if f.name == "swizzle":
        c = SWIZZLE_SM90.by_value(raw)
        return f"{c.name}: {c.description}" if c else f"invalid code {raw}"
    return _smem(d, f, raw)


def _zcm(d: Decoded, f: Field, raw: int) -> str:
    name = f.name
    if name.startswith("start_count_"):
        return f"skip {raw} leading positions of sub-mask {name[-1]}"
    if name.startswith("first_span_"):
        return f"sub-mask {name[-1]} starts with a " + ("skip (zero) span" if raw else "use span")
    if name == "non_zero_mask":
        return "generate the mask" if raw else "mask is all zeros: every B column used"
    if name == "skip_span":
        return f"{raw + 1} zeroed column(s) per period"
    if name == "use_span":
        return f"{raw + 1} used column(s) per period"
    if name == "column_shift":
        return f"B columns shifted by {raw}"
    return ""


def _tmem(d: Decoded, f: Field, raw: int) -> str:
    return f"{f.name} {raw}"


_MEANINGS: dict[str, Callable[[Decoded, Field, int], str]] = {
    "idesc": _idesc, "smem": _smem, "zcm": _zcm, "tmem": _tmem, "wgmma": _wgmma,
}


def explain(decoded: Decoded) -> list[FieldReading]:
    """One :class:`FieldReading` per field of ``decoded``, MSB first."""
    meaning = _MEANINGS[decoded.descriptor]
    refused = decoded.refused
    out = []
    for f in reversed(decoded.layout.fields):
        raw = decoded.fields[f.name]
        if f.role == "field":
            text, odd = meaning(decoded, f, raw), f.name in refused
            if f.name == "k_dim" and odd:
                text = f"K = 96 BUT SPARSE: {refused[f.name]}"
        else:
            odd = raw != f.default
            if f.role == "constant":
                text = (f"fixed constant {f.default:#0{f.width + 2}b}" if not odd else
                        f"MUST BE {f.default:#0{f.width + 2}b}, is {raw:#0{f.width + 2}b}")
            else:
                text = "reserved" if not odd else "RESERVED BITS SET (must be 0)"
            if ("CUTLASS" in f.doc or "tcgen05" in f.doc) and odd:
                text += f"; {f.doc.split('(', 1)[-1].rstrip(')')}"
        out.append(FieldReading(f, raw, text, odd))
    return out

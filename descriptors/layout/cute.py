"""CuTe layouts as CuTe prints them: parse, evaluate and print ``shape:stride`` notation.

CuTe (CUTLASS's layout algebra) describes a shared-memory tile as a *layout* -- a function
from coordinates to offsets -- written ``shape:stride`` with nested tuples in element units,
static values as ``_N`` and dynamic ones bare.  Kernels print them with ``print(layout)``,
``print(tensor)``, ``cute.printf``; this module reads every form those prints take, as
observed with the nvidia-cutlass 4.2 headers (see tests/unit/layout/test_cute.py):

==================================================  =============================================
``(_128,_16):(_64,_1)``                             a layout (offsets in elements)
``Sw<3,3,3> o _0 o (_8,_64):(_64,_1)``              ``composition(Swizzle<3,3,3>, layout)``: the
                                                    swizzle acts on the layout's **element**
                                                    offsets, relative to its origin; the middle
                                                    term is an offset (elements)
``Swizzle<1,4,3> o ((8,2),(8,2)):(...)``            the PTX text's notation (9.7.16.3.3): the
                                                    swizzle acts on **byte** addresses; CuTe
                                                    never prints a composition without its
                                                    offset term
``Sw<3,4,3> o smem_ptr[16b](unset) o (...)``        an smem swizzle atom / tile
                                                    (``smem_ptr_flag``): the swizzle acts on the
                                                    **byte** address
``Sw<3,4,3>_smem_ptr[16b](0x400) o (...)``          a swizzled smem tensor: the swizzle acts on
                                                    the absolute byte address of the pointer
``smem_ptr[16b](0x400) o (...)``                    an unswizzled smem tensor
``smem_ptr[16b]((nil))``, ``smem_subptr[4b](0x400.0)``  a null pointer; a sub-byte pointer
==================================================  =============================================

NVIDIA's CuTe DSL (the CUTLASS Python DSL, ``nvidia-cutlass-dsl``; forms observed with 4.8.1,
see fixtures/cute-dsl/) prints differently, and is read too:

==========================================================  =====================================
``tensor<ptr<bf16, smem, align<32>, S<3,4,3>> o L>``        a swizzled smem tensor: the swizzle
                                                            ``S<B,M,S>`` sits on the pointer and
                                                            acts on **byte** addresses; no
                                                            address is printed
``tensor<ptr<f32, smem, align<128>> o L>``                  an unswizzled smem tensor
``S<3,4,3> o 0 o (8,64):(64,1)``                            a DSL smem layout atom or staged
                                                            layout: the swizzle acts on **byte**
                                                            addresses (the DSL moves it onto the
                                                            pointer), the middle term an offset
``((128,16)):((64,1))``                                     a layout (values bare)
==========================================================  =====================================

The element type is named (``bf16``, ``f16``, ``f32`` -- also tf32's storage --, ``f8E4M3FN``,
``f8E5M2``, ``f6E2M3FN``, ``f6E3M2FN``, ``f4E2M1FN``, ``i8``, ``u8``, ...).  A DSL print never
carries an address: the slice's shared-memory byte address must be given
(:attr:`CuteLayout.needs_address`).

``Swizzle<B,M,S>`` XORs address bits ``[M+S, M+S+B)`` into bits ``[M, M+B)``
(cute/swizzle.hpp); pointers apply it to the address (cute/pointer_swizzle.hpp), composed
layouts to the offset.  A coordinate maps to an offset colexicographically: the first
coordinate of a mode varies fastest (cute/layout.hpp ``crd2idx``).

Malformed text raises :class:`CuteSyntaxError` (a :class:`~descriptors.errors.LayoutError` and a
:class:`~descriptors.errors.ParameterError`) naming what was expected and where.
"""

from __future__ import annotations

import re
from typing import Union

from ..structs import Struct
from ..errors import LayoutError, ParameterError

__all__ = ["CuteSyntaxError", "IntTuple", "Swizzle", "Pointer", "CuteLayout", "parse_layout",
           "format_tuple", "leaves", "size", "rank", "DSL_STORAGE_TYPES"]

#: A CuTe IntTuple: an int or a (nested) tuple of them.
IntTuple = Union[int, tuple["IntTuple", ...]]

_MAX_TEXT = 4096          # a layout print is a few hundred characters; cut anything longer
_MAX_DEPTH = 16           # nesting depth of a shape or stride
_MAX_VALUE = 1 << 40      # any shape or stride beyond this is not a shared-memory layout


class CuteSyntaxError(LayoutError, ParameterError):
    """A CuTe layout string that does not parse (a :class:`LayoutError`, and a
    :class:`~descriptors.errors.ParameterError` as bad input)."""


def _quote(text: str, limit: int = 80) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "...")


class Swizzle(Struct, frozen=True):
    """CuTe ``Swizzle<B,M,S>``: XOR the ``B`` bits at ``M+S`` into the ``B`` bits at ``M``."""

    B: int
    M: int
    S: int

    def __call__(self, offset: int) -> int:
        mask = ((1 << self.B) - 1) << (self.M + self.S)
        return offset ^ ((offset & mask) >> self.S)

    def __str__(self) -> str:
        return f"Sw<{self.B},{self.M},{self.S}>"


class Pointer(Struct, frozen=True):
    """A printed CuTe pointer: its memory space (``smem``, ``gmem``, ``rmem`` or ``""`` for a
    raw pointer), the element width in bits, the byte address (None when ``(unset)``), the
    sub-byte element index of a ``subptr`` and whether it is a sparse pointer flag."""

    space: str
    bits: int
    address: int | None
    sub_index: int = 0
    sparse: int | None = None
    dtype: str | None = None       # the CuTe DSL's element type name (its prints only)
    align: int | None = None       # the CuTe DSL's align<N>

    def __str__(self) -> str:
        if self.dtype is not None:  # the CuTe DSL's form
            space = f", {self.space}" if self.space else ""
            align = f", align<{self.align}>" if self.align is not None else ""
            return f"ptr<{self.dtype}{space}{align}>"
        name = f"{self.space}_ptr" if self.space else "ptr"
        if self.sparse is not None:
            name = f"{self.space}_sparse<{self.sparse}>_ptr"
        addr = "unset" if self.address is None else f"{self.address:#x}"
        return f"{name}[{self.bits}b]({addr})"


class CuteLayout(Struct, frozen=True):
    """A parsed CuTe layout print: ``shape`` and ``stride`` (congruent IntTuples, element
    units), the ``swizzle`` if any, where it acts (``swizzle_on``: ``"address"`` for a swizzle
    on a pointer or an smem pointer flag -- byte addresses --, ``"offset"`` for a swizzle
    composed with the layout -- element offsets), the composed ``offset`` (elements) and the
    ``pointer``; ``"bytes"`` for the PTX text's two-term ``Swizzle<B,M,S> o L``, which acts on
    byte addresses but does not say where its pattern starts)."""

    shape: IntTuple
    stride: IntTuple
    swizzle: Swizzle | None = None
    swizzle_on: str | None = None
    offset: int = 0
    pointer: Pointer | None = None
    dialect: str = "cute"          # "dsl": printed by the CuTe DSL (no address in it)

    @property
    def needs_address(self) -> bool:
        """True for a CuTe DSL tensor or swizzled layout print: it names no address, so the
        slice's byte address must come from elsewhere (never assumed 0)."""
        return self.dialect == "dsl" and (self.pointer is not None or self.swizzle is not None)

    @property
    def rank(self) -> int:
        return rank(self.shape)

    def mode(self, i: int) -> tuple[IntTuple, IntTuple]:
        """``(shape, stride)`` of top-level mode ``i``."""
        if isinstance(self.shape, int):
            if i:
                raise IndexError(i)
            return self.shape, self.stride
        return self.shape[i], self.stride[i]  # type: ignore[index]

    def layout_str(self) -> str:
        return f"{format_tuple(self.shape)}:{format_tuple(self.stride)}"

    def __str__(self) -> str:
        if self.dialect == "dsl":
            return self._dsl_str()
        parts = []
        if self.swizzle is not None and self.swizzle_on == "offset":
            parts += [str(self.swizzle), f"_{self.offset}" if self.offset == 0 else str(self.offset)]
        elif self.pointer is not None:
            ptr = str(self.pointer)
            parts.append(f"{self.swizzle}_{ptr}" if self.swizzle is not None else ptr)
        elif self.swizzle is not None:
            parts.append(f"Swizzle<{self.swizzle.B},{self.swizzle.M},{self.swizzle.S}>")
        parts.append(self.layout_str())
        return " o ".join(parts)

    def _dsl_str(self) -> str:
        layout = f"{format_tuple(self.shape, False)}:{format_tuple(self.stride, False)}"
        sw = f"S<{self.swizzle.B},{self.swizzle.M},{self.swizzle.S}>" if self.swizzle else None
        if self.pointer is not None:
            ptr = str(self.pointer)
            if sw is not None:
                ptr = ptr[:-1] + f", {sw}>"
            return f"tensor<{ptr} o {layout}>"
        return f"{sw} o {self.offset} o {layout}" if sw is not None else layout


# ---------------------------------------------------------------------------- IntTuple helpers


def leaves(t: IntTuple) -> list[int]:
    """The integers of an IntTuple, first mode first (CuTe's ``flatten``)."""
    if isinstance(t, int):
        return [t]
    out: list[int] = []
    for x in t:
        out += leaves(x)
    return out


def size(shape: IntTuple) -> int:
    """The number of coordinates of a shape (product of its leaves)."""
    n = 1
    for v in leaves(shape):
        n *= v
    return n


def rank(t: IntTuple) -> int:
    return 1 if isinstance(t, int) else len(t)


def format_tuple(t: IntTuple, static: bool = True) -> str:
    """CuTe's print of an IntTuple: static values as ``_N``."""
    if isinstance(t, int):
        return f"_{t}" if static and t >= 0 else str(t)
    return "(" + ",".join(format_tuple(x, static) for x in t) + ")"


def congruent(a: IntTuple, b: IntTuple) -> bool:
    if isinstance(a, int) or isinstance(b, int):
        return isinstance(a, int) and isinstance(b, int)
    return len(a) == len(b) and all(congruent(x, y) for x, y in zip(a, b))


def offsets(shape: IntTuple, stride: IntTuple) -> list[int]:
    """Offset of every coordinate ``0 .. size(shape)-1`` of one mode (colexicographic: the
    first leaf varies fastest), as CuTe's ``crd2idx``."""
    out = [0]
    for s, d in zip(leaves(shape), leaves(stride)):
        out = [o + i * d for i in range(s) for o in out]
    return out


# ---------------------------------------------------------------------------- parser

_SWIZZLE = re.compile(r"(?:Sw|Swizzle)\s*<\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*>")
_POINTER = re.compile(
    r"(?:(?P<space>smem|gmem|rmem)_)?(?:sparse<(?P<sparse>\d+)>_)?(?P<sub>sub)?ptr"
    r"\s*\[\s*(?P<bits>\d+)\s*b\s*\]\s*\(\s*(?P<addr>\(nil\)|nil|unset|0x[0-9a-fA-F]+|\d+)"
    r"(?:\.(?P<idx>\d+))?\s*\)")
_INT = re.compile(r"\s*(_?)(-?\d+)\s*")
_COMPOSE = re.compile(r"(?<!\s)\s+o\s+")  # from a blank run's start: linear


def _parse_int_tuple(text: str, pos: int, depth: int, what: str) -> tuple[IntTuple, int]:
    if depth > _MAX_DEPTH:
        raise CuteSyntaxError(f"{what} is nested more than {_MAX_DEPTH} levels deep")
    while pos < len(text) and text[pos].isspace():
        pos += 1
    if pos < len(text) and text[pos] == "(":
        items: list[IntTuple] = []
        pos += 1
        while True:
            item, pos = _parse_int_tuple(text, pos, depth + 1, what)
            items.append(item)
            while pos < len(text) and text[pos].isspace():
                pos += 1
            if pos < len(text) and text[pos] == ",":
                pos += 1
                continue
            if pos < len(text) and text[pos] == ")":
                return tuple(items), pos + 1
            raise CuteSyntaxError(f"{what}: expected ',' or ')' at character {pos + 1} of "
                                  f"{_quote(text)}")
    m = _INT.match(text, pos)
    if not m or len(m.group(2).lstrip("-")) > 15:
        raise CuteSyntaxError(f"{what}: expected an integer (_N or N) or '(' at character "
                              f"{pos + 1} of {_quote(text)}")
    value = int(m.group(2))
    if abs(value) > _MAX_VALUE:
        raise CuteSyntaxError(f"{what}: {value} is out of range for a shared-memory layout")
    return value, m.end()


def _parse_shape_stride(text: str) -> tuple[IntTuple, IntTuple]:
    if ":" not in text:
        raise CuteSyntaxError(f"expected a CuTe layout SHAPE:STRIDE, e.g. (_128,_16):(_64,_1); "
                              f"got {_quote(text)}")
    shape, end = _parse_int_tuple(text, 0, 0, "shape")
    rest = text[end:].lstrip()
    if not rest.startswith(":"):
        raise CuteSyntaxError(f"expected ':' after the shape {format_tuple(shape, False)} in "
                              f"{_quote(text)}")
    body = rest[1:]
    stride, end = _parse_int_tuple(body, 0, 0, "stride")
    if body[end:].strip():
        raise CuteSyntaxError(f"unexpected text {_quote(body[end:].strip(), 30)} after the "
                              f"stride in {_quote(text)}")
    if not congruent(shape, stride):
        raise CuteSyntaxError(f"shape {format_tuple(shape, False)} and stride "
                              f"{format_tuple(stride, False)} are not congruent (a stride for "
                              "every shape entry, nested alike)")
    bad = [v for v in leaves(shape) if v <= 0]
    if bad:
        raise CuteSyntaxError(f"shape {format_tuple(shape, False)} has a mode of size {bad[0]}: "
                              "sizes are positive")
    return shape, stride


def _pointer(m: re.Match[str]) -> Pointer:
    raw = m.group("addr")
    addr = None if raw == "unset" else 0 if raw in ("(nil)", "nil") else int(raw, 0)
    sparse = m.group("sparse")
    return Pointer(m.group("space") or "", int(m.group("bits")), addr, int(m.group("idx") or 0),
                   int(sparse) if sparse else None)


#: The CuTe DSL's element type names: the width is the number after the family letters.
_DSL_DTYPE = re.compile(r"(?:bf|tf|f|i|u|b)(4|6|8|16|32|64)(?:E\d+M\d+(?:FNUZ|FNU|FN|B11FNUZ)?)?")
_DSL_SWIZZLE = re.compile(r"S\s*<\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*>")
_DSL_TENSOR = re.compile(r"tensor\s*<\s*ptr\s*<(?P<ptr>[^<>]*(?:<[^<>]*>[^<>]*)*)>\s+o\s+"
                         r"(?P<layout>.*)>")
#: The CuTe DSL stores tf32 operands as ``f32`` (its tensors print ``f32``); every other type
#: name of the DSL (``bf16``, ``f8E4M3FN``, ``i8`` ...) is an alias of the A/B type enums
#: (:mod:`descriptors.words.enums`).
DSL_STORAGE_TYPES = {"f32": "tf32"}


def _dsl_pointer(body: str, src: str) -> tuple[Pointer, Swizzle | None]:
    """``bf16, smem, align<32>, S<3,4,3>`` -> the pointer and its swizzle."""
    items = [x.strip() for x in body.split(",")]
    # S<B,M,S> and align<N> contain commas: put them back together
    joined: list[str] = []
    for x in items:
        if joined and joined[-1].count("<") > joined[-1].count(">"):
            joined[-1] += "," + x
        else:
            joined.append(x)
    if len(joined) < 2:
        raise CuteSyntaxError(f"expected ptr<TYPE, SPACE, ...> in {_quote(src)}")
    dtype, space, *rest = joined
    tm = _DSL_DTYPE.fullmatch(dtype)
    if not tm:
        raise CuteSyntaxError(f"unknown element type {_quote(dtype, 30)} in {_quote(src)}: the "
                              "CuTe DSL names them bf16, f16, f32, f8E4M3FN, f8E5M2, f6E2M3FN, "
                              "f6E3M2FN, f4E2M1FN, i8, u8, ...")
    if space not in ("smem", "gmem", "rmem", "tmem", "generic"):
        raise CuteSyntaxError(f"unknown memory space {_quote(space, 20)} in {_quote(src)}")
    align = None
    swizzle = None
    for x in rest:
        am = re.fullmatch(r"align\s*<\s*(\d+)\s*>", x)
        sm = _DSL_SWIZZLE.fullmatch(x)
        if am:
            align = int(am.group(1))
        elif sm:
            swizzle = Swizzle(*(int(g) for g in sm.groups()))
        else:
            raise CuteSyntaxError(f"cannot read {_quote(x, 30)} in the pointer of {_quote(src)}: "
                                  "expected align<N> or S<B,M,S>")
    return Pointer(space, int(tm.group(1)), None, dtype=dtype, align=align), swizzle


def _parse_dsl(src: str) -> CuteLayout | None:
    """The CuTe DSL's tensor and composed-layout prints; None for anything else."""
    tm = _DSL_TENSOR.fullmatch(src)
    if tm:
        pointer, swizzle = _dsl_pointer(tm.group("ptr"), src)
        shape, stride = _parse_shape_stride(tm.group("layout").strip())
        return CuteLayout(shape, stride, swizzle, "address" if swizzle else None, 0, pointer,
                          dialect="dsl")
    if src.startswith("tensor<") or src.startswith("tensor <"):
        raise CuteSyntaxError(f"expected tensor<ptr<TYPE, SPACE, align<N>[, S<B,M,S>]> o "
                              f"SHAPE:STRIDE>, got {_quote(src)}")
    sm = _DSL_SWIZZLE.match(src)
    if sm:
        parts = _COMPOSE.split(" " + src[sm.end():].lstrip())
        if len(parts) != 3 or parts[0]:
            raise CuteSyntaxError(f"expected S<B,M,S> o OFFSET o SHAPE:STRIDE (the CuTe DSL's "
                                  f"composed layout), got {_quote(src)}")
        om = _INT.fullmatch(parts[1])
        if not om or int(om.group(2)) < 0:
            raise CuteSyntaxError(f"expected an offset after {sm.group(0)} o, got "
                                  f"{_quote(parts[1], 30)}")
        shape, stride = _parse_shape_stride(parts[2])
        return CuteLayout(shape, stride, Swizzle(*(int(g) for g in sm.groups())), "address",
                          int(om.group(2)), None, dialect="dsl")
    return None


def parse_layout(text: str) -> CuteLayout:
    """Parse a CuTe layout, composed layout or tensor print, as CuTe C++ or the CuTe DSL prints
    it (see the module docstring).

    Raises :class:`CuteSyntaxError` for text that is none of those forms.
    """
    if not isinstance(text, str):
        raise CuteSyntaxError(f"a CuTe layout is a string, not {type(text).__name__}")
    src = " ".join(text.split())
    if not src:
        raise CuteSyntaxError("empty CuTe layout")
    if len(src) > _MAX_TEXT:
        raise CuteSyntaxError(f"CuTe layout of {len(src)} characters: longer than any layout "
                              f"print ({_MAX_TEXT})")
    dsl = _parse_dsl(src)
    if dsl is not None:
        return dsl
    parts = _COMPOSE.split(src)
    shape, stride = _parse_shape_stride(parts[-1])
    swizzle: Swizzle | None = None
    swizzle_on: str | None = None
    offset = 0
    pointer: Pointer | None = None
    front = parts[:-1]
    has_offset = False
    if len(front) > 2:
        raise CuteSyntaxError(f"{_quote(src)}: at most SWIZZLE o (OFFSET|POINTER) o LAYOUT")
    for i, part in enumerate(front):
        sw = _SWIZZLE.match(part)
        if sw and i == 0:
            swizzle = Swizzle(*(int(g) for g in sw.groups()))
            rest = part[sw.end():]
            if not rest:
                swizzle_on = "offset"       # until a pointer term says otherwise
                continue
            if not rest.startswith("_"):
                raise CuteSyntaxError(f"unexpected {_quote(rest, 30)} after {swizzle}")
            part = rest[1:]
            swizzle_on = "address"          # Sw<..>_smem_ptr[..](..): a swizzled pointer
            pm = _POINTER.fullmatch(part)
            if not pm:
                raise CuteSyntaxError(f"expected a pointer such as smem_ptr[16b](0x400) after "
                                      f"{swizzle}_, got {_quote(part, 40)}")
            pointer = _pointer(pm)
            continue
        pm = _POINTER.fullmatch(part)
        if pm:
            if pointer is not None:
                raise CuteSyntaxError(f"{_quote(src)} names two pointers")
            pointer = _pointer(pm)
            if swizzle is not None:
                swizzle_on = "address"      # Sw<..> o smem_ptr[..](unset) o L: smem_ptr_flag
            continue
        im = _INT.fullmatch(part)
        if im and swizzle is not None and swizzle_on == "offset" and i == 1:
            offset = int(im.group(2))
            has_offset = True
            if not 0 <= offset <= _MAX_VALUE:
                raise CuteSyntaxError(f"composed offset {offset} out of range")
            continue
        raise CuteSyntaxError(f"cannot read {_quote(part, 40)} in {_quote(src)}: expected "
                              "Sw<B,M,S>, a pointer (smem_ptr[16b](0x400)) or an offset")
    if swizzle_on == "offset" and not has_offset:
        swizzle_on = "bytes"                # PTX notation: Swizzle<B,M,S> o L
    return CuteLayout(shape, stride, swizzle, swizzle_on, offset, pointer)

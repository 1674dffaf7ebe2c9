"""Shared memory descriptors from CuTe layouts, and CuTe layouts from descriptors.

A kernel hands ``make_umma_desc`` the per-MMA slice of its shared-memory tensor: a rank-2
layout ``(M/N, K)`` in element units, usually printed by CuTe as
``Sw<3,4,3>_smem_ptr[16b](0x400) o (_128,_16):(_64,_1)``.  :func:`cute_descriptor` reads such a
print (any form :mod:`descriptors.layout.cute` parses), decides which canonical layout of PTX
9.7.16.3.3 it is, derives LBO, SBO, swizzle, base offset and start address, and **checks every
coordinate of the slice** against the layout the descriptor makes the hardware read -- so a
layout no descriptor can express is refused with the mode, the coordinate and what was
expected, never answered with a word that describes something else.

>>> from descriptors.layout.cute_layout import cute_descriptor
>>> hex(cute_descriptor("Sw<3,4,3>_smem_ptr[16b](0x400) o (_128,_16):(_64,_1)",
...                     dtype="bf16", major="K"))
'0x4000404000010040'

The canonical layouts, in 16-byte units (``T`` elements each; ``A`` = chunks per swizzled row
along M/N, ``G`` = K rows per group: 8, or 4 for 128B_base32B), as the hardware reads them:

* K-major, no swizzle: M/N row ``r``, K chunk ``c`` at ``(r%8) + (r/8)*SBO + c*LBO``;
* K-major, swizzled (row of ``W`` bytes): ``(r%8)*W/16 + (r/8)*SBO + c``, ``c < W/16``;
* MN-major, no swizzle: M/N chunk ``j``, K row ``q`` at ``j*SBO + (q%8) + (q/8)*LBO``;
* MN-major, swizzled: ``(j%A) + (j/A)*LBO + (q%G)*A + (q/G)*SBO``.

Conventions (each CUTLASS's, so words match ``make_umma_desc``): a mode that repeats once
(16-row or 8-K slices) has no observable stride and its field is written 0; LBO of K-major
swizzled layouts is "not used, assumed 1" and written ``unused_lbo_bytes`` (16 = raw 1, CUTLASS;
0, DeepGEMM).  Where the swizzle pattern starts decides the base offset (Table 41): a swizzle on
the smem pointer (CuTe's ``Sw<..>_smem_ptr``, ``Sw<..> o smem_ptr[..](unset) o``) acts on
absolute addresses, its pattern starts on the repeat boundaries and the base offset is 0 (as
CUTLASS writes); a swizzle composed with the layout (``Sw<B,M,S> o OFF o L``, element units)
starts its pattern at the layout's origin, and an origin off the repeat boundary gives
``(origin >> 7) & 7``.  A bare layout with ``swizzle=`` given, or the PTX text's
``Swizzle<B,M,S> o L`` (byte units), with a start off the repeat boundary says neither, and is
refused.

Every error is a :class:`~descriptors.layout.smem_layout.LayoutError` (what the PTX text or CuTe's
semantics rule out, with the source) or a :class:`~descriptors.errors.ParameterError` (text that
does not parse, a malformed parameter).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..structs import Struct
from ..words.codec import decode, encode, format_word, parse_int
from .cute import DSL_STORAGE_TYPES, CuteLayout, Swizzle, format_tuple, offsets, parse_layout, size
from ..errors import FieldError, ParameterError
from .smem_layout import (CANONICAL_FORMS, CANONICAL_SOURCE, DTYPES, ROW_ALIGN_BYTES,
                          SWIZZLE_MODES, UNIT_BYTES, WINDOW_BYTES, ElementType, KStep, LayoutError,
                          SwizzleMode, advance_descriptor, canonical_dtype, check_combination,
                          cute_print, element_type, explain_descriptor, fill_form, k_per_mma,
                          parse_kind, parse_major, parse_swizzle)

__all__ = ["CuteDescriptor", "cute_descriptor", "cute_layout_descriptor", "descriptor_cute_layout",
           "byte_functor", "slice_start", "mma_slice", "dsl_dtype", "signless_note",
           "print_operand"]

_SRC = CANONICAL_SOURCE
_MAX_POINTS = 1 << 16       # coordinates checked; a per-MMA slice has at most 256 x 128


class CuteDescriptor(Struct, frozen=True):
    """The descriptor of a CuTe layout: ``word`` and its ``fields``; the slice's ``shape``
    (M/N, K elements); ``lbo_bytes``/``sbo_bytes``; ``swizzle``, ``base_offset``,
    ``start_address_bytes``; ``pattern`` (where the swizzle pattern starts: ``"address"``,
    absolute repeat boundaries, or ``"origin"``, the layout's origin); ``canonical_layout``
    (PTX's canonical form with the numbers filled in); ``k_steps`` (one per MMA K block when
    the layout is a partitioned tensor ``(MMA, MMA_M/N, MMA_K)``, else empty); ``notes``;
    ``caveats``, the notes the word rests on (only block 0 / index 0 of a mode is read, no
    address was given): a caller printing only the words must still show these."""

    word: int
    fields: dict[str, int]
    layout: str
    major: str
    swizzle: str
    dtype: str
    kind: str | None
    T: int
    shape: tuple[int, int]
    lbo_bytes: int
    sbo_bytes: int
    base_offset: int
    start_address_bytes: int
    pattern: str
    canonical_layout: str
    k_steps: tuple[KStep, ...] = ()
    notes: tuple[str, ...] = ()
    caveats: tuple[str, ...] = ()

    @property
    def hex(self) -> str:
        return format_word("smem", self.word)

    def to_dict(self) -> dict[str, Any]:
        return {
            "descriptor": "smem", "word": self.hex, "fields": dict(self.fields),
            "layout": self.layout, "major": self.major, "swizzle": self.swizzle,
            "dtype": self.dtype, "kind": self.kind, "T": self.T, "shape": list(self.shape),
            "lbo_bytes": self.lbo_bytes, "sbo_bytes": self.sbo_bytes,
            "base_offset": self.base_offset, "start_address_bytes": self.start_address_bytes,
            "pattern": self.pattern, "canonical_layout": self.canonical_layout,
            "k_steps": [s.to_dict() for s in self.k_steps], "notes": list(self.notes),
        }


# ---------------------------------------------------------------------------- helpers


def byte_functor(sw: Swizzle, el: ElementType, on: str) -> tuple[int, int, int]:
    """The swizzle as it acts on byte addresses: a pointer's swizzle already does; one composed
    with the layout acts on element offsets, whose bit i is byte bit i + log2(bytes/element)."""
    if on != "offset" or sw.B == 0:
        return sw.B, sw.M, sw.S
    shift = el.smem_bits.bit_length() - 4          # 4 -> -1, 8 -> 0, 16 -> 1, 32 -> 2
    return sw.B, sw.M + shift, sw.S


def _resolve_swizzle(lay: CuteLayout, el: ElementType, swizzle: Any) -> SwizzleMode | None:
    """The swizzle mode the layout string and ``swizzle=`` agree on (None: neither says)."""
    given = parse_swizzle(swizzle) if swizzle is not None else None
    if lay.swizzle is None:
        if given is None and lay.pointer is not None:
            return SWIZZLE_MODES["none"]          # a printed tensor without Sw<..> is unswizzled
        return given
    b, m, s = byte_functor(lay.swizzle, el, lay.swizzle_on or "offset")
    found = None
    for mode in SWIZZLE_MODES.values():
        fb, fm, fs = mode.functor
        if (b == 0 and fb == 0) or (b, m, s) == (fb, fm, fs):
            found = mode
            break
    if found is None:
        names = ", ".join(f"{n} Sw<{f[0]},{f[1]},{f[2]}>" for n, f in
                          ((mo.name, mo.functor) for mo in SWIZZLE_MODES.values()) if n != "none")
        where = ("on the byte address" if lay.swizzle_on == "address" else
                 f"on {el.name} element offsets, i.e. Sw<{b},{m},{s}> on byte addresses")
        hint = ""
        if lay.swizzle_on == "offset" and el.smem_bits != 8:
            hint = (f"; composed with a layout a swizzle acts on element offsets -- for the byte "
                    f"swizzle write it on the pointer: {lay.swizzle} o "
                    f"smem_ptr[{el.smem_bits}b](unset) o ...")
        raise LayoutError(f"{lay.swizzle} ({where}) is not a descriptor swizzle mode; byte-address "
                          f"swizzles: {names}{hint}", "Table 40, Table 53")
    if given is not None and given.name != found.name:
        raise LayoutError(f"swizzle={given.name} contradicts the layout's {lay.swizzle} "
                          f"({found.name})", "Table 40")
    return found


def slice_start(lay: CuteLayout, el: ElementType, start_address: Any) -> tuple[int, list[str]]:
    """(shared-memory byte address, notes) where the slice ``lay`` of ``el`` elements starts:
    its pointer's address, else ``start_address``, else 0 (a note says so).  Raises
    :class:`ParameterError` when the two disagree, or an address is needed (a CuTe DSL print,
    a pointer to 4-bit elements) and none is given, and :class:`LayoutError` for a pointer no
    descriptor addresses or an address that is not 16-byte aligned in the window (Table 40)."""
    notes: list[str] = []
    given = parse_int(start_address, "start_address") if start_address is not None else None
    if lay.needs_address and given is None:
        raise ParameterError("the CuTe DSL prints no address: give the slice's shared-memory byte "
                             "address (start_address=, --start-address); the descriptor's start "
                             "address and, for a swizzled layout, its position in the swizzle "
                             "pattern depend on it")
    if lay.dialect == "dsl" and lay.offset:
        raise LayoutError(f"the CuTe DSL layout has an offset of {lay.offset} elements: take the "
                          "slice's tensor (its print) and pass its byte address", _SRC)
    ptr = lay.pointer
    addr = None
    if ptr is not None:
        if ptr.sparse is not None:
            raise LayoutError(f"{ptr} is a sparse pointer (CuTe's logical, uncompressed view); "
                              "pass the layout of the stored (compressed) operand", _SRC)
        if ptr.space and ptr.space != "smem":
            raise LayoutError(f"{ptr} is not shared memory: a descriptor addresses the CTA's "
                              "shared memory", "Table 40")
        if ptr.bits != el.smem_bits:
            raise LayoutError(f"the pointer holds {ptr.bits}-bit elements ({ptr}) but {el.name} "
                              f"is stored as {_stored_as(el)}", "9.7.16.10.4")
        if ptr.sub_index:
            raise LayoutError(f"{ptr} starts {ptr.sub_index} elements into a byte: a descriptor "
                              "starts on a 16-byte boundary", "Table 40")
        addr = ptr.address
        if ptr.bits < 8 and addr is not None:
            # CuTe advances a pointer to a 4-bit type (sizeof == 1) one byte per element, so a
            # sliced tensor prints base + element offset: not its byte address (observed with
            # the nvidia-cutlass 4.2 headers; tests/oracles/test_cutlass_layout_oracle.py).
            if given is None:
                raise ParameterError(
                    f"{ptr}: CuTe advances pointers to {ptr.bits}-bit elements one byte per "
                    "element, so the address a sliced tensor prints is not its byte address; "
                    "pass start_address= (the slice's shared-memory byte address)")
            notes.append(f"the printed {ptr} address is ignored for start_address={given:#x} "
                         f"({ptr.bits}-bit pointers print base + element offset)")
            addr = None
    if addr is not None and given is not None and addr != given:
        raise ParameterError(f"start_address={given:#x} contradicts the layout's pointer "
                             f"{lay.pointer} ({addr:#x})")
    start = addr if addr is not None else given if given is not None else 0
    if addr is None and given is None:
        notes.append("start address 0: the layout string names none and start_address was "
                     "not given")
    if start < 0:
        raise ParameterError(f"start_address={start}: must be non-negative")
    if start % UNIT_BYTES:
        raise LayoutError(f"start address {start:#x} is not 16-byte aligned: a descriptor stores "
                          "it in 16-byte units ((addr & 0x3FFFF) >> 4)", "Table 40")
    if start >= WINDOW_BYTES:
        raise LayoutError(f"{start:#x} is not a shared-memory window address (below "
                          f"{WINDOW_BYTES // 1024} KiB): convert a generic pointer with "
                          "__cvta_generic_to_shared and pass start_address", "Table 40")
    return start, notes


def _describe(el: ElementType, n: int) -> str:
    return f"{n} elements ({el.bytes_of(n)} bytes)" if el.smem_bits % 8 == 0 else \
        f"{n} elements ({n * el.smem_bits / 8:g} bytes)"


# ---------------------------------------------------------------------------- the matcher


def mma_slice(lay: CuteLayout) -> tuple[Any, Any, Any, Any, list[int], list[str]]:
    """(MN shape, MN stride, K shape, K stride, K-step offsets, notes) of the per-MMA slice of
    ``lay``: the layout itself (rank 2, or its MMA mode alone), or mode 0 of a partitioned
    tensor ``(MMA, MMA_M/N, MMA_K, ...)``, whose mode 2 gives the K steps.  Raises
    :class:`LayoutError` for a layout of another shape."""
    notes: list[str] = []
    r = lay.rank
    if r == 2 and not isinstance(lay.shape, int):
        (ms, md), (ks, kd) = lay.mode(0), lay.mode(1)
        return ms, md, ks, kd, [0], notes
    if r == 1 and not isinstance(lay.shape, int):
        s0, d0 = lay.mode(0)
        if not isinstance(s0, int) and len(s0) == 2:
            # print(tCsA(_,0,k)): the MMA mode alone, ((MN,K)):((..,..))
            return s0[0], d0[0], s0[1], d0[1], [0], notes  # type: ignore[index]
    if r >= 3:
        s0, d0 = lay.mode(0)
        if isinstance(s0, int) or len(s0) != 2:
            raise LayoutError(f"a rank-{r} layout is read as a partitioned tensor (MMA, MMA_M/N, "
                              f"MMA_K, ...) whose mode 0 is the (M/N, K) slice of one MMA; mode 0 "
                              f"{format_tuple(s0)} is not rank 2", _SRC)
        ks_, kd_ = lay.mode(2)
        steps = offsets(ks_, kd_)
        s1, _ = lay.mode(1)
        if size(s1) > 1:
            notes.append(f"mode 1 (MMA_M/N) has {size(s1)} blocks: each has its own descriptor; "
                         "this is block 0's")
        for i in range(3, r):
            si, _ = lay.mode(i)
            if size(si) > 1:
                notes.append(f"mode {i} ({format_tuple(si)}) is taken at index 0 (e.g. pipeline "
                             "stage 0)")
        notes.append(f"a partitioned tensor: mode 0 is one MMA's slice, mode 2 its "
                     f"{len(steps)} K steps")
        return s0[0], d0[0], s0[1], d0[1], steps, notes  # type: ignore[index]
    raise LayoutError(f"a rank-{r} layout: a descriptor describes a rank-2 (M/N, K) slice, its "
                      "MMA mode alone ((M/N,K)), or a partitioned tensor (MMA, MMA_M/N, MMA_K)", _SRC)


def _chunk_grid(el: ElementType, major: str, mn: list[int], kk: list[int]) -> tuple[int, int, Callable[[int, int], int]]:
    """Check that the slice is made of 16-byte chunks of T contiguous elements along the major
    dimension and return (MN count, K count, unit(i, j)) at chunk granularity: for K-major
    ``i`` = M/N row, ``j`` = K chunk; for MN-major ``i`` = M/N chunk, ``j`` = K row; ``unit``
    gives the 16-byte unit offset from the origin."""
    T = el.T
    inner, outer = (kk, mn) if major == "K" else (mn, kk)
    lead = "K" if major == "K" else "M/N"
    mode_i = 1 if major == "K" else 0
    if len(inner) % T:
        raise LayoutError(f"layout mode {mode_i} ({lead}) has {len(inner)} elements: not a whole "
                          f"number of 16-byte chunks of {T} {el.name} (T = {T}); {_a_major(major)} "
                          f"operand is read in 16-byte chunks along {lead}", _SRC)
    for c in range(0, len(inner), T):
        base = inner[c]
        for e in range(1, T):
            if inner[c + e] != base + e:
                raise LayoutError(
                    f"layout mode {mode_i} ({lead}): element {c + e} is at offset {inner[c + e]}, "
                    f"not {base + e}: {_a_major(major)} {el.name} operand needs {T} contiguous "
                    f"elements (16 bytes) along {lead} (T = {T}; stride 1 within each chunk)", _SRC)
        if (base * el.smem_bits) % 128:
            raise LayoutError(f"layout mode {mode_i} ({lead}): chunk {c // T} starts at offset "
                              f"{base} elements, not on a 16-byte boundary", _SRC)
    for o in outer:
        if (o * el.smem_bits) % 128:
            other = "M/N" if major == "K" else "K"
            raise LayoutError(f"layout mode {1 - mode_i} ({other}): offset {o} elements is not "
                              "on a 16-byte boundary", _SRC)
    unit = 128 // el.smem_bits          # elements per 16 bytes
    n_inner = len(inner) // T
    if major == "K":
        return len(outer), n_inner, lambda i, j: (mn[i] + kk[j * T]) // unit
    return n_inner, len(outer), lambda i, j: (mn[i * T] + kk[j]) // unit


def _derive(major: str, mode: SwizzleMode, el: ElementType, n_mn: int, n_k: int,
            unit: Callable[[int, int], int]) -> tuple[int, int, Callable[[int, int], int], list[str]]:
    """LBO and SBO (16-byte units; 0 for a mode that repeats once) and the canonical function
    they imply; raises for a slice no canonical layout of this major-ness and swizzle fits."""
    notes: list[str] = []
    name = f"{major}-major {mode.name}"
    W_u = mode.row_bytes // UNIT_BYTES
    if major == "K":
        if n_mn % 8:
            raise LayoutError(f"layout mode 0 (M/N) has {n_mn} rows: a K-major operand is read "
                              "in core matrices of 8 rows ((8,m))", _SRC)
        if n_k % 2:
            raise LayoutError(f"layout mode 1 (K) is {n_k} 16-byte chunks: a K-major slice is "
                              "made of 32-byte K slices ((T,2k)); 48-byte K needs the absolute "
                              "leading-dimension address mode (sm_103a, 9.7.16.3.1.2)", _SRC)
        row = W_u if mode.name != "none" else 1
        sbo = unit(8, 0) - unit(0, 0) if n_mn > 8 else 0
        if mode.name == "none":
            lbo = unit(0, 1) - unit(0, 0)
            def canon(i: int, j: int) -> int:
                return (i % 8) * row + (i // 8) * sbo + j * lbo
        else:
            lbo = 0
            if n_k > W_u and n_k % W_u:
                raise LayoutError(f"layout mode 1 (K) spans {n_k * 16} bytes: a K-major "
                                  f"{mode.name} slice reads K within one {mode.row_bytes}-byte "
                                  "swizzled row, or whole rows of several swizzle atoms", _SRC)
            # a K wider than one swizzled row is several atoms along K (a whole stage of several
            # MMAs, each reading within one atom): atom b sits koff[b] units from atom 0
            koff = [unit(0, b * W_u) - unit(0, 0) for b in range(max(1, n_k // W_u))]
            atom = {(i % 8) * row + (i // 8) * sbo + c for i in range(n_mn) for c in range(W_u)}
            for b in range(1, len(koff)):
                hit = next((a for a in range(b) if {u + koff[b] for u in atom} &
                            {u + koff[a] for u in atom}), None)
                if hit is not None:
                    raise LayoutError(
                        f"layout mode 1 (K) spans {n_k * 16} bytes: a K-major {mode.name} slice "
                        f"reads K within one {mode.row_bytes}-byte swizzled row, and its K atom "
                        f"{b} at byte offset {koff[b] * 16} overlaps atom {hit}", _SRC)
            if len(koff) > 1:
                notes.append(f"layout mode 1 (K) is {len(koff)} {mode.row_bytes}-byte swizzle "
                             f"atoms at byte offsets {', '.join(str(o * 16) for o in koff)}: "
                             "each MMA reads K within one atom")
            def canon(i: int, j: int) -> int:
                return (i % 8) * row + (i // 8) * sbo + j % W_u + koff[j // W_u]
    else:
        A = mode.atoms["MN"][0]
        G = mode.atoms["MN"][1] if mode.name == "128B_base32B" else 8
        if mode.name == "none":
            sbo = unit(1, 0) - unit(0, 0) if n_mn > 1 else 0
            lbo = unit(0, 8) - unit(0, 0) if n_k > 8 else 0
            def canon(i: int, j: int) -> int:
                return i * sbo + (j % 8) + (j // 8) * lbo
        else:
            if n_mn % A:
                raise LayoutError(f"layout mode 0 (M/N) is {n_mn} 16-byte chunks: an MN-major "
                                  f"{mode.name} slice is made of {A}-chunk swizzle atoms "
                                  f"({A * el.T} {el.name}; Table 53)", "Table 53")
            lbo = unit(A, 0) - unit(0, 0) if n_mn > A else 0
            sbo = unit(0, G) - unit(0, 0) if n_k > G else 0
            def canon(i: int, j: int) -> int:
                return (i % A) + (i // A) * lbo + (j % G) * A + (j // G) * sbo
        if n_k % G and n_k > G:
            raise LayoutError(f"layout mode 1 (K) has {n_k} rows: an MN-major {mode.name} slice "
                              f"is made of groups of {G} K rows", _SRC)
    _inner_strides(major, mode, el, n_mn, n_k, unit)
    for what, v in (("SBO", sbo), ("LBO", lbo)):
        if v < 0:
            raise LayoutError(f"{name}: the {what} stride would be {v * 16} bytes; descriptor "
                              "offsets are unsigned (the layout runs backwards)", "Table 40")
    # every coordinate at chunk granularity
    for i in range(n_mn):
        for j in range(n_k):
            got, want = unit(i, j), canon(i, j)
            if got != want:
                raise LayoutError(_mismatch(major, mode, el, i, j, got, want, lbo, sbo), _SRC)
    if (major == "K" and n_mn > 8 and sbo == 0) or (major == "MN" and sbo == 0 and
                                                     n_k > (8 if mode.name == "none" else 8)):
        notes.append("SBO 0: the repeated groups alias one another (stride 0 in the layout)")
    return lbo, sbo, canon, notes


def _inner_strides(major: str, mode: SwizzleMode, el: ElementType, n_mn: int, n_k: int,
                   unit: Callable[[int, int], int]) -> None:
    """The strides fixed by the swizzle atom (Table 53, 9.7.16.3.3), checked first so a wrong
    one is named by its mode."""
    per_unit = 128 // el.smem_bits
    W_u = mode.row_bytes // UNIT_BYTES
    unit_name = "core matrix" if mode.name == "none" else f"{mode.name} swizzle atom"
    checks = []
    if major == "K":
        row = W_u if mode.name != "none" else 1
        what = (f"consecutive M/N rows {row * 16} bytes apart within each 8-row core matrix "
                f"(the rows of a {unit_name}, Table 53)")
        if n_mn > 1:
            checks.append((0, "M/N", "rows 0 and 1", unit(1, 0) - unit(0, 0), row, what))
        if mode.name != "none" and n_k > 1:
            checks.append((1, "K", "16-byte chunks 0 and 1", unit(0, 1) - unit(0, 0), 1,
                           "K contiguous within the swizzled row ((T,2k):(1,T))"))
    else:
        a = mode.atoms["MN"][0] if mode.name != "none" else 1
        if n_k > 1:
            checks.append((1, "K", "rows 0 and 1", unit(0, 1) - unit(0, 0), a,
                           f"consecutive K rows {a * 16} bytes apart (the rows of a {unit_name}, "
                           "Table 53)"))
        if mode.name != "none" and n_mn > 1:
            checks.append((0, "M/N", "16-byte chunks 0 and 1", unit(1, 0) - unit(0, 0), 1,
                           f"M/N contiguous within the {mode.row_bytes}-byte swizzled row"))
    for m_i, m_name, between, got, want, what in checks:
        if got != want:
            raise LayoutError(
                f"layout mode {m_i} ({m_name}) stride {got * per_unit} elements ({got * 16} bytes) "
                f"between {between}: {'an' if major == 'MN' else 'a'} {major}-major {mode.name} "
                f"{el.name} layout needs "
                f"{want * per_unit} ({want * 16} bytes): {what}", _SRC)


def _a_major(major: str) -> str:
    """``a K-major`` / ``an MN-major`` (the article as the letters are read)."""
    return f"{'an' if major == 'MN' else 'a'} {major}-major"


def _stored_as(el: ElementType) -> str:
    """How ``el`` is stored in shared memory: its packing, led by its width where the packing
    does not start with it (``8-bit``, ``8-bit (4-bit, padded: ...)``)."""
    width = f"{el.smem_bits}-bit"
    if not el.packing.startswith(width):
        return f"{width} ({el.packing})"
    return el.packing if el.packing[len(width):len(width) + 1] in ("", ",") else f"a {el.packing}"


def _mismatch(major: str, mode: SwizzleMode, el: ElementType, i: int, j: int, got: int, want: int,
              lbo: int, sbo: int) -> str:
    if major == "K":
        where = f"M/N row {i}, K chunk {j} (K elements {j * el.T}..{j * el.T + el.T - 1})"
    else:
        where = f"M/N chunk {i} (M/N elements {i * el.T}..{i * el.T + el.T - 1}), K row {j}"
    form = CANONICAL_FORMS[major, mode.name]
    return (f"layout puts {where} at byte {got * 16}; {_a_major(major)} {mode.name} descriptor "
            f"(LBO {lbo * 16} B, SBO {sbo * 16} B, taken from the layout's own strides) reads it "
            f"at byte {want * 16}: the layout is not the canonical form {mode.swizzle_functor} o "
            f"{form}")


def width_dtype(lay: CuteLayout) -> str | None:
    """The element type a C++ CuTe print's pointer implies by its width alone
    (``smem_ptr[16b]``): the first of :data:`DTYPES` stored with that many bits in shared
    memory, a stand-in for all of them (a descriptor addresses bytes: every type of one width
    gives the same word).  ``None`` when the print has no pointer, names its type (a DSL
    print) or has a width no single packing has (4-bit: e2m1's packing needs the kind)."""
    ptr = lay.pointer
    if ptr is None or ptr.dtype is not None:
        return None
    for name, options in DTYPES.items():
        if len(options) == 1 and options[0].smem_bits == ptr.bits:
            return name
    return None


def width_note(lay: CuteLayout, dtype: str) -> str:
    """The note saying the element type came from the pointer's width (:func:`width_dtype`)."""
    assert lay.pointer is not None
    return (f"element type from the print's {lay.pointer.bits}-bit pointer: {dtype} stands for "
            f"every {lay.pointer.bits}-bit type (the word is the same; --a-type/--b-type names "
            "it)")


def layout_major(lay: CuteLayout) -> str | None:
    """``"K"`` or ``"MN"``: the mode of the per-MMA slice (:func:`mma_slice`) whose first two
    elements are adjacent (stride 1, element units), where the major-ness of a canonical
    layout is (9.7.16.3.3); ``None`` when neither mode has stride 1."""
    ms, md, ks, kd, _steps, _notes = mma_slice(lay)
    for major, (shape, stride) in (("K", (ks, kd)), ("MN", (ms, md))):
        o = offsets(shape, stride)
        if len(o) > 1 and o[1] - o[0] == 1:
            return major
    return None


def resolve_major(lay: CuteLayout, major: Any) -> tuple[str, str | None]:
    """The major-ness of ``lay``'s slice and a note when it was not given: ``major`` (K or MN)
    when given, checked against :func:`layout_major`, else :func:`layout_major`.  Raises
    :class:`ParameterError` when ``major`` contradicts the layout ("this layout is K-major")
    or is not given and no mode has stride 1."""
    found = layout_major(lay)
    if major is None:
        if found is None:
            raise ParameterError("the layout has no mode of stride 1 to tell its major-ness: "
                                 "pass major= (--major K or MN)")
        mode = "K" if found == "K" else "M/N"
        return found, f"major-ness {found} from the print: its {mode} mode has stride 1"
    maj = parse_major(major)
    if found is not None and found != maj:
        mode = "K" if found == "K" else "M/N"
        raise ParameterError(f"this layout is {found}-major (its {mode} mode has stride 1), not "
                             f"{maj}-major: leave major= (--major) out or pass {found}")
    return maj, None


def dsl_dtype(lay: CuteLayout, dtype: str | None, kind: str | None) -> str:
    """The element type: ``dtype``, or the one a CuTe DSL tensor print names (they must agree),
    or the one a C++ print's pointer width implies (:func:`width_dtype`).
    Raises :class:`ParameterError` when none names one, the DSL's type is no A/B type of a
    tcgen05.mma, or the two disagree."""
    named = lay.pointer.dtype if lay.pointer is not None else None
    if named is None:
        if dtype is None:
            dtype = width_dtype(lay)
        if dtype is None:
            raise ParameterError("the layout names no element type: pass dtype= (--a-type/--b-type)")
        return dtype
    try:
        ptx = DSL_STORAGE_TYPES.get(named) or canonical_dtype(named)
    except ParameterError:
        raise ParameterError(f"the CuTe DSL type {named} is not an A/B type of a tcgen05.mma; "
                             f"types a descriptor addresses: {', '.join(DTYPES)} (the DSL's "
                             "bf16, f16, f32 for tf32, f8E4M3FN, f8E5M2, f6E2M3FN, f6E3M2FN, "
                             "f4E2M1FN, i8, u8)") from None
    if dtype is not None and element_type(dtype, kind).name != element_type(ptx, kind).name \
            and signless_note(lay, dtype) is None:
        raise ParameterError(f"dtype={dtype} contradicts the tensor's element type {named} ({ptx})")
    return dtype if dtype is not None else ptx


def signless_note(lay: CuteLayout, dtype: str | None) -> str | None:
    """The note accepting ``dtype`` for a CuTe DSL print whose integer type differs from it in
    signedness only (``u8`` for ``i8``): the DSL prints MLIR's signless integers, ``i8`` for
    Int8 and Uint8 alike, and a descriptor depends on the element's width only; ``None`` when
    the print names no signless integer or ``dtype`` is no integer type of its width."""
    named = lay.pointer.dtype if lay.pointer is not None else None
    if dtype is None or named is None or not named.startswith("i") or not named[1:].isdigit():
        return None
    try:
        given = canonical_dtype(dtype)
    except ParameterError:
        return None
    if given[:1] not in ("s", "u") or given[1:] != named[1:]:
        return None
    if DSL_STORAGE_TYPES.get(named, named) == given or (named == "i8" and given == "s8"):
        return None          # the print's own type: nothing to say
    return (f"element type {given} for the print's {named}: the CuTe DSL prints MLIR's signless "
            f"integers ({named} for signed and unsigned {named[1:]}-bit alike) and the word "
            "depends on the width only")


def print_operand(lay: CuteLayout, major: str | None, dtype: str | None,
                  kind: str | None) -> tuple[str, ElementType, list[str]]:
    """The major-ness and element type of a printed operand slice (each from the options, or
    inferred from the print: :func:`resolve_major`, :func:`dsl_dtype`), and the notes saying
    what was inferred (the major-ness, the type from the pointer width, a signless integer)."""
    maj, major_note = resolve_major(lay, major)
    el = element_type(dsl_dtype(lay, dtype, kind), kind)
    inferred = [major_note] if major_note else []
    if dtype is None and width_dtype(lay) is not None:
        inferred.append(width_note(lay, el.name))
    signless = signless_note(lay, dtype)
    if signless is not None:
        inferred.append(signless)
    return maj, el, inferred


def cute_layout_descriptor(layout: str | CuteLayout, *, dtype: str | None = None,
                           major: str | None = None,
                           swizzle: str | None = None, start_address: Any = None,
                           kind: str | None = None, unused_lbo_bytes: int = 16,
                           k_steps: bool = False, sparse: bool = False,
                           umma_k: Any = None) -> CuteDescriptor:
    """The shared memory descriptor (64-bit word, PTX Table 40) of a CuTe layout, with what it
    was derived from.

    ``layout`` is the per-MMA slice ``(M/N, K)`` in element units (what ``make_umma_desc``
    receives; also as ``print(tCsA(_,0,k))`` shows it, the MMA mode alone: ``((M/N,K)):(..)``),
    or a partitioned tensor ``(MMA, MMA_M/N, MMA_K[, PIPE])`` whose mode 0 is that slice (its K
    steps are listed; later modes are taken at index 0), as CuTe prints it (see
    :mod:`descriptors.layout.cute`).
    ``dtype`` (PTX name; ``kind`` picks e2m1's packing) and ``major`` (K or MN) may be
    omitted where the print says them: a CuTe DSL tensor print names its element type, a C++
    print's ``smem_ptr[16b]`` its width (:func:`width_dtype`), and the mode of stride 1 is the
    major-ness (:func:`resolve_major`; a ``major`` that contradicts it is refused); a note
    says what was taken from the print.
    A CuTe DSL print (``tensor<ptr<bf16, smem, align<32>, S<3,4,3>> o ...>``, ``S<3,4,3> o 0 o
    ...``) carries no address: ``start_address`` is required, and the swizzle acts on absolute
    byte addresses (base offset 0).  ``swizzle`` (none, 128B_base32B, 128B, 64B, 32B) may be omitted when the print has
    ``Sw<B,M,S>`` or a pointer; ``start_address`` (bytes) when the print has a pointer address.

    A slice ``(M/N, K)`` whose K spans several MMAs (a whole stage: K=64 of bf16 is four
    kind::f16 MMAs of K=16; Table 39, ``sparse`` doubles K, ``umma_k`` picks K=96 where a kind
    has two) still gives the first MMA's word, with a caveat saying so; ``k_steps=True`` lists
    every MMA's word (the word advanced by each K block's offset) in ``k_steps``.  The K of one
    MMA comes from ``kind``, or from the type when every kind taking it has one K.

    Raises :class:`~descriptors.layout.smem_layout.LayoutError` when the layout is not a canonical
    layout (9.7.16.3.3) of that major-ness and swizzle, or breaks Tables 40, 41, 52, 53;
    :class:`~descriptors.errors.ParameterError` for text that does not parse or contradicting
    parameters.

    (Long: the steps of one derivation -- read the layout, find its swizzle atom, its LBO
    and SBO, the start address and the K steps -- each refusing with its own reason.)"""
    lay = layout if isinstance(layout, CuteLayout) else parse_layout(layout)
    maj, el, inferred = print_operand(lay, major, dtype, kind)
    unused = parse_int(unused_lbo_bytes, "unused_lbo_bytes")
    if unused not in (0, UNIT_BYTES):
        raise ParameterError(f"unused_lbo_bytes={unused}: allowed 16 (raw 1, CUTLASS) or 0 (DeepGEMM)")
    mode = _resolve_swizzle(lay, el, swizzle)
    if mode is None:
        raise ParameterError("the layout names no swizzle (no Sw<B,M,S>, no pointer): pass "
                             "swizzle= (none, 128B_base32B, 128B, 64B, 32B)")
    check_combination(maj, mode, el)
    start, notes = slice_start(lay, el, start_address)
    notes = inferred + notes
    ms, md, ks, kd, steps, slice_notes = mma_slice(lay)
    notes += slice_notes
    n_points = size(ms) * size(ks)
    if n_points > _MAX_POINTS:
        raise LayoutError(f"the slice has {size(ms)} x {size(ks)} elements: more than one MMA's "
                          "operand (at most 256 M/N by 128 K)", "Table 39")
    mn, kk = offsets(ms, md), offsets(ks, kd)
    if any(o < 0 for o in mn + kk):
        raise LayoutError("the layout has a negative stride: descriptor offsets are unsigned",
                          "Table 40")
    n_mn, n_k, unit = _chunk_grid(el, maj, mn, kk)
    lbo_u, sbo_u, _, derive_notes = _derive(maj, mode, el, n_mn, n_k, unit)
    notes += derive_notes
    lbo, sbo = lbo_u * UNIT_BYTES, sbo_u * UNIT_BYTES
    if maj == "K" and mode.name != "none":
        lbo = unused
    origin_off = el.bytes_of(lay.offset) if lay.swizzle_on == "offset" else 0
    if lay.swizzle_on == "offset" and (lay.offset * el.smem_bits) % 128:
        raise LayoutError(f"composed offset {lay.offset} elements is not on a 16-byte boundary",
                          "Table 40")
    base, pattern = 0, "address"
    if mode.repeat_bytes is not None:
        if lay.swizzle is not None and lay.swizzle_on == "offset":
            pattern = "origin"
            if start % mode.repeat_bytes:
                if start % ROW_ALIGN_BYTES:
                    raise LayoutError(f"the swizzle pattern starts at the layout's origin {start:#x}, "
                                      "not on a 128-byte boundary: the base offset records only "
                                      "bits 7-9 of the pattern start", "Table 40, Table 41")
                base = (start >> 7) & 7
                notes.append(f"base offset {base}: the {mode.name} pattern starts at the layout's "
                             f"origin {start:#x}, off its {mode.repeat_bytes}-byte repeat "
                             "boundary (Table 41)")
        elif lay.swizzle_on in (None, "bytes") and start % mode.repeat_bytes:
            raise LayoutError(
                f"start address {start:#x} is off the {mode.repeat_bytes}-byte repeat boundary of "
                f"{mode.name} swizzling, and "
                + ("a bare layout" if lay.swizzle is None else "the PTX notation Swizzle<B,M,S> o L")
                + " does not say where the pattern starts: "
                f"paste the tensor as CuTe prints it ({Swizzle(*mode.functor)}_smem_ptr[...]"
                f"({start:#x}) o ..., pattern on absolute addresses, base offset 0) or compose the "
                f"swizzle with the layout (Sw<..> o _0 o ..., pattern at the origin)", "Table 41")
        else:
            notes.append(f"the swizzle acts on absolute addresses (CuTe smem pointer): the pattern "
                         f"repeats on {mode.repeat_bytes}-byte boundaries, base offset 0 (Table 41)")
    first = start + origin_off
    footprint = max(mn) + max(kk)
    end = first + -(-(footprint + 1) * el.smem_bits // 8)     # a half-used last byte counts
    if end > WINDOW_BYTES:
        raise LayoutError(f"the slice at {first:#x} reaches {end:#x}, past the "
                          f"{WINDOW_BYTES // 1024} KiB window a descriptor addresses", "Table 40")
    try:
        word = encode("smem", start_address=first, leading_byte_offset=lbo,
                      stride_byte_offset=sbo, swizzle=mode.name, base_offset=base)
    except FieldError as exc:
        raise LayoutError(f"the layout's strides do not fit the descriptor: {exc}", "Table 40") from None
    k_list = []
    per = None
    if lay.rank < 3:
        try:
            per, label = k_per_mma(el, kind, sparse, umma_k)
        except ParameterError:
            if k_steps:
                raise
    if per is not None and len(kk) > per:
        if k_steps and (len(kk) % per or any(kk[i * per + j] - kk[i * per] != kk[j] - kk[0]
                                for i in range(len(kk) // per) for j in range(per))):
            raise LayoutError(f"the slice's K={len(kk)} is not a run of whole {label} MMAs of "
                              f"K={per} laid out alike: pass one MMA's slice", "Table 39")
        if k_steps:
            steps = [kk[i * per] - kk[0] for i in range(len(kk) // per)]
        else:
            notes.append(f"the slice's K={len(kk)} spans {len(kk) / per:g} {label} MMAs of "
                         f"K={per}: this is the first MMA's word; k_steps (--k-steps) gives every "
                         "MMA's")
    if len(steps) > 1 or lay.rank >= 3 or k_steps:
        for i, off in enumerate(steps):
            if (off * el.smem_bits) % 128:
                raise LayoutError(f"K step {i} starts {off} elements in: not on a 16-byte boundary",
                                  "Table 40")
            ob = el.bytes_of(off)
            k_list.append(KStep(i, i * (per if per is not None and len(kk) > per else size(ks)),
                                ob, first + ob, advance_descriptor(word, ob)))
    fields = decode("smem", word).fields
    el_of = lambda b: b * 8 // el.smem_bits  # noqa: E731
    form = CANONICAL_FORMS[maj, mode.name]
    canonical = f"{mode.swizzle_functor} o " + fill_form(form, {"T": el.T, "m": None, "k": None,
                                                            "SBO": el_of(sbo), "LBO": el_of(lbo)})
    return CuteDescriptor(
        word=word, fields=dict(fields), layout=str(lay), major=maj, swizzle=mode.name,
        dtype=el.name, kind=parse_kind(kind).name if kind is not None else None, T=el.T,
        shape=(size(ms), size(ks)), lbo_bytes=lbo, sbo_bytes=sbo, base_offset=base,
        start_address_bytes=first, pattern=pattern, canonical_layout=canonical,
        k_steps=tuple(k_list), notes=tuple(notes),
        caveats=tuple(n for n in notes if n.startswith(_CAVEATS)))


#: The notes of :func:`cute_layout_descriptor` that the word rests on: a mode read at index 0
#: only, no address given, the major-ness or the type taken from the print.
_CAVEATS = ("mode ", "start address 0:", "the slice's K=", "major-ness ", "element type from ")
#: The notes that say what was taken from the print rather than given (:func:`resolve_major`,
#: :func:`width_note`).
INFERRED_NOTES = _CAVEATS[-2:]


def cute_descriptor(layout: str | CuteLayout, *, dtype: str | None = None,
                    major: str | None = None, swizzle: str | None = None,
                    start_address: Any = None, kind: str | None = None,
                    unused_lbo_bytes: int = 16) -> int:
    """The 64-bit shared memory descriptor word (PTX Table 40) of a CuTe layout; see
    :func:`cute_layout_descriptor` for the parameters and the errors raised.

    A print with several K steps (a partitioned tensor ``(MMA, MMA_M/N, MMA_K)``, or a slice
    whose K spans several MMAs) gives the first MMA's word, as ``descgen layout --cute`` does
    without ``--k-steps``; every step's word is ``[s.word for s in
    cute_layout_descriptor(..., k_steps=True).k_steps]`` (``--k-steps``)."""
    return cute_layout_descriptor(layout, dtype=dtype, major=major, swizzle=swizzle,
                                  start_address=start_address, kind=kind,
                                  unused_lbo_bytes=unused_lbo_bytes).word


# ---------------------------------------------------------------------------- descriptor -> CuTe


def descriptor_cute_layout(word: Any, *, major: str, dtype: str, kind: str | None = None,
                           mn: int | None = None, k: int | None = None) -> tuple[str, int, list[str]]:
    """The CuTe layout a shared memory descriptor describes: ``(layout string, origin address,
    notes)``.  The slice is ``mn`` x ``k`` elements (M/N by K); by default the smallest that
    shows every stride the word holds (two 8-row groups or two M/N atoms, two K groups, one
    MMA's 32 bytes of K for K-major).  The string is what :func:`cute_descriptor` reads back to
    the same word: with the swizzle on the smem pointer when the base offset is 0, else
    composed with the layout (element units) whose origin -- the pattern start -- is the
    returned address (pass it as ``start_address``).

    Raises :class:`~descriptors.layout.smem_layout.LayoutError` for words no layout fits
    (:func:`~descriptors.layout.smem_layout.explain_descriptor`) and for the absolute
    leading-dimension address mode (one K slice split across two places: no single strided
    layout).
    """
    d = explain_descriptor(word, major=major, dtype=dtype, kind=kind)
    if d.lbo_mode == "absolute":
        raise LayoutError("the absolute leading-dimension address mode splits K between the start "
                          "address and an absolute LBO address: no single CuTe layout", "9.7.16.3.1.2")
    el, mode = d.element, SWIZZLE_MODES[d.swizzle]
    T = el.T
    el_of = lambda b: b * 8 // el.smem_bits  # noqa: E731
    notes: list[str] = []
    sbo, lbo = el_of(d.sbo_bytes), el_of(d.lbo_bytes)
    W = el_of(mode.row_bytes)
    if d.major == "K":
        rows = 16 if mn is None else mn
        kk = 2 * T if k is None else k
        if rows % 8 or rows <= 0:
            raise ParameterError(f"mn={rows}: a K-major slice has a multiple of 8 rows")
        if kk % (2 * T) or kk <= 0:
            raise ParameterError(f"k={kk}: a K-major slice is whole 32-byte K slices ({2 * T} {el.name})")
        n_k = kk // T
        k_shape: Any = (T, n_k) if mode.name == "none" else kk
        k_stride: Any = (1, lbo) if mode.name == "none" else 1
        shape = ((8, rows // 8), k_shape)
        stride = ((W if mode.name != "none" else T, sbo), k_stride)
    else:
        A = mode.atoms["MN"][0]
        G = mode.atoms["MN"][1] if mode.name == "128B_base32B" else 8
        cols = 2 * A * T if mn is None else mn
        kk = 2 * G if k is None else k
        if cols <= 0 or cols % (A * T):
            raise ParameterError(f"mn={cols}: an MN-major {mode.name} slice is whole {A * T}-element atoms")
        if kk <= 0 or kk % G:
            raise ParameterError(f"k={kk}: an MN-major {mode.name} slice is whole groups of {G} K rows")
        if mode.name == "none":
            shape = ((T, cols // T), (8, kk // 8))
            stride = ((1, sbo), (T, lbo))
        else:
            shape = ((A * T, cols // (A * T)), (G, kk // G))
            stride = ((1, lbo), (A * T, sbo))
    origin = d.start_address_bytes
    offset_el = 0
    if mode.repeat_bytes is not None and d.base_offset:
        origin = d.pattern_start_bytes
        offset_el = el_of(d.start_address_bytes - origin)
        notes.append(f"base offset {d.base_offset}: the swizzle pattern starts at {origin:#x}, the "
                     "layout's origin; the swizzle is composed with the layout (element units)")
    text = cute_print(mode, el, origin, d.base_offset, format_tuple(shape), format_tuple(stride),
                      offset_el)
    if mode.name != "none" and d.base_offset == 0:
        # the pointer carries the start address itself
        origin = d.start_address_bytes
    return text, origin, notes

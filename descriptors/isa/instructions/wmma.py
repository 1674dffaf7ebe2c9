"""The model of ``wmma.load`` (PTX 9.7.14.4.3), as data: the fragment sizes of the six
syntax blocks (9.7.14.4.1), the register types ptxas takes, and the constraints, alignment and
stride rules (9.7.14.4.2) derived from them."""

from __future__ import annotations

from collections.abc import Mapping

from ...structs import Struct
from ...rules.targets import ArchRequirement
from .models import INT32, REG32, Constraint, Group, InstructionModel, OperandSpec, unique

#: The section wmma.load's rules cite (the checker's stride findings too).
WMMA_LOAD_SOURCE = "PTX 9.7.14.4.3"
_WFRAG = "PTX 9.7.14.4.1 (Matrix Fragments for WMMA; confirmed by ptxas 13.0)"


class WmmaFamily(Struct, frozen=True):
    """One syntax block of 9.7.14.4.3: its shapes, the types of a/b/c, the layouts a and b
    allow, the fragment registers per (matrix, shape, type), the register type and the
    target requirement."""

    name: str
    shapes: tuple[str, ...]
    types: Mapping[str, tuple[str, ...]]
    layouts: Mapping[str, tuple[str, ...]]
    min_sm: int
    registers: Mapping[tuple[str, str, str], int]
    element_bits: Mapping[str, int]


_ROWCOL = ("row", "col")
#: The six syntax blocks of 9.7.14.4.3 with their fragment sizes (registers per thread, PTX
#: 9.7.14.4.1 "Matrix Fragments for WMMA": e.g. f16 a of m16n16k16 is eight .f16x2 registers).
WMMA_FRAGMENTS: tuple[WmmaFamily, ...] = (
    WmmaFamily("f16 and integer", ("m16n16k16", "m8n32k16", "m32n8k16"),
               {"a": ("f16", "s8", "u8"), "b": ("f16", "s8", "u8"), "c": ("f16", "f32", "s32")},
               {"a": _ROWCOL, "b": _ROWCOL, "c": _ROWCOL}, 70,
               {**{(m, s, "f16"): 8 for m in "ab" for s in ("m16n16k16", "m8n32k16", "m32n8k16")},
                **{("c", s, "f16"): 4 for s in ("m16n16k16", "m8n32k16", "m32n8k16")},
                **{("c", s, t): 8 for s in ("m16n16k16", "m8n32k16", "m32n8k16")
                   for t in ("f32", "s32")},
                **{("a", "m16n16k16", t): 2 for t in ("s8", "u8")},
                **{("b", "m16n16k16", t): 2 for t in ("s8", "u8")},
                **{("a", "m8n32k16", t): 1 for t in ("s8", "u8")},
                **{("b", "m8n32k16", t): 4 for t in ("s8", "u8")},
                **{("a", "m32n8k16", t): 4 for t in ("s8", "u8")},
                **{("b", "m32n8k16", t): 1 for t in ("s8", "u8")}},
               {"f16": 16, "s8": 8, "u8": 8, "f32": 32, "s32": 32}),
    WmmaFamily("bf16", ("m16n16k16", "m8n32k16", "m32n8k16"),
               {"a": ("bf16",), "b": ("bf16",), "c": ("f32",)},
               {"a": _ROWCOL, "b": _ROWCOL, "c": _ROWCOL}, 80,
               {("a", "m16n16k16", "bf16"): 4, ("b", "m16n16k16", "bf16"): 4,
                ("a", "m8n32k16", "bf16"): 2, ("b", "m8n32k16", "bf16"): 8,
                ("a", "m32n8k16", "bf16"): 8, ("b", "m32n8k16", "bf16"): 2,
                **{("c", s, "f32"): 8 for s in ("m16n16k16", "m8n32k16", "m32n8k16")}},
               {"bf16": 16, "f32": 32}),
    WmmaFamily("tf32", ("m16n16k8",), {"a": ("tf32",), "b": ("tf32",), "c": ("f32",)},
               {"a": _ROWCOL, "b": _ROWCOL, "c": _ROWCOL}, 80,
               {("a", "m16n16k8", "tf32"): 4, ("b", "m16n16k8", "tf32"): 4,
                ("c", "m16n16k8", "f32"): 8},
               {"tf32": 32, "f32": 32}),
    WmmaFamily("f64", ("m8n8k4",), {"a": ("f64",), "b": ("f64",), "c": ("f64",)},
               {"a": _ROWCOL, "b": _ROWCOL, "c": _ROWCOL}, 80,
               {("a", "m8n8k4", "f64"): 1, ("b", "m8n8k4", "f64"): 1, ("c", "m8n8k4", "f64"): 2},
               {"f64": 64}),
    WmmaFamily("sub-byte", ("m8n8k32",), {"a": ("s4", "u4"), "b": ("s4", "u4"), "c": ("s32",)},
               {"a": ("row",), "b": ("col",), "c": _ROWCOL}, 75,
               {("a", "m8n8k32", "s4"): 1, ("a", "m8n8k32", "u4"): 1,
                ("b", "m8n8k32", "s4"): 1, ("b", "m8n8k32", "u4"): 1,
                ("c", "m8n8k32", "s32"): 2},
               {"s4": 4, "u4": 4, "s32": 32}),
    WmmaFamily("single-bit", ("m8n8k128",), {"a": ("b1",), "b": ("b1",), "c": ("s32",)},
               {"a": ("row",), "b": ("col",), "c": _ROWCOL}, 75,
               {("a", "m8n8k128", "b1"): 1, ("b", "m8n8k128", "b1"): 1,
                ("c", "m8n8k128", "s32"): 2},
               {"b1": 1, "s32": 32}),
)

#: Forms outside the syntax blocks that ptxas 13.0 assembles: an ``.f32`` C fragment of the
#: sub-byte and single-bit shapes (two registers, like ``.s32``).  descgen warns about them.
WMMA_PTXAS_ONLY: dict[tuple[str, str, str], int] = {("c", "m8n8k32", "f32"): 2,
                                                   ("c", "m8n8k128", "f32"): 2}

#: (matrix, shape, type) -> registers per thread of the fragment, from :data:`WMMA_FRAGMENTS`
#: and :data:`WMMA_PTXAS_ONLY`.
WMMA_FRAGMENT_REGISTERS: dict[tuple[str, str, str], int] = {
    **{k: v for fam in WMMA_FRAGMENTS for k, v in fam.registers.items()}, **WMMA_PTXAS_ONLY}


#: Register types of the fragment vector by ``.type``, as ptxas 13.0 accepts them (the text's
#: fragment section speaks of .f16x2 / .f32 / .f64 / .b32 registers; ptxas is irregular:
#: .bf16 and .tf32 fragments take .b32 only, sub-byte and single-bit any 32-bit type).
WMMA_REGISTER_TYPES: dict[str, tuple[str, ...]] = {
    "f16": ("b32", "f16x2"), "bf16": ("b32",), "tf32": ("b32",), "f32": ("b32", "f32"),
    "f64": ("b64", "f64"), "s8": INT32, "u8": INT32, "s32": INT32,
    "s4": REG32, "u4": REG32, "b1": REG32}
WMMA_INT_REGISTERS: tuple[str, ...] = INT32


def _wmma_family(matrix: str, shape: str, type_: str) -> WmmaFamily | None:
    return next((f for f in WMMA_FRAGMENTS if shape in f.shapes and
                 type_ in f.types.get(matrix, ())), None)


_WMMA_SHAPES = unique(s for f in WMMA_FRAGMENTS for s in f.shapes)
_WMMA_TYPES = unique(t for f in WMMA_FRAGMENTS for m in "abc" for t in f.types[m])


def _wmma_constraints() -> tuple[Constraint, ...]:
    """Derived from :data:`WMMA_FRAGMENTS`: per (matrix, shape), the types and layouts."""
    out = []
    for matrix in "abc":
        for shape in _WMMA_SHAPES:
            fams = [f for f in WMMA_FRAGMENTS if shape in f.shapes]
            types = unique(t for f in fams for t in f.types[matrix])
            extra = tuple(t for (m, s, t) in WMMA_PTXAS_ONLY if (m, s) == (matrix, shape))
            out.append(Constraint("wmma.load.type", {"matrix": (matrix,), "shape": (shape,)},
                                  {"type": types + extra},
                                  f".{matrix} with .{shape} takes ." + ", .".join(types),
                                  WMMA_LOAD_SOURCE))
            if extra:
                out.append(Constraint(
                    "wmma.load.type", {"matrix": (matrix,), "shape": (shape,)},
                    {"type": types}, f".{matrix} with .{shape} takes ." + ", .".join(types)
                    + " in the PTX syntax; ptxas 13.0 also assembles ." + ", .".join(extra),
                    WMMA_LOAD_SOURCE, "ptxas", "warning"))
            for f in fams:
                if f.layouts[matrix] != _ROWCOL:
                    out.append(Constraint(
                        "wmma.load.layout",
                        {"matrix": (matrix,), "shape": (shape,), "type": f.types[matrix]},
                        {"layout": f.layouts[matrix]},
                        f"{f.name} loads of .{matrix} take .{f.layouts[matrix][0]} layout only",
                        WMMA_LOAD_SOURCE))
    return tuple(out)


def _wmma_registers(q: Mapping[str, str | None]) -> int | None:
    return WMMA_FRAGMENT_REGISTERS.get((q.get("matrix") or "", q.get("shape") or "",
                                        q.get("type") or ""))


#: The section of the wmma alignment and stride rules (the checker's stride findings cite it).
WMMA_STORAGE_SOURCE = "PTX 9.7.14.4.2 (Matrix Storage for WMMA)"


def _wmma_fragment_bytes(q: Mapping[str, str | None]) -> int | None:
    """9.7.14.4.2: each row (column) must start aligned to the fragment's size in bytes."""
    n = _wmma_registers(q)
    if n is None:
        return None
    return n * (8 if q.get("type") == "f64" else 4)


def _wmma_stride(q: Mapping[str, str | None]) -> tuple[int, int, int] | None:
    """(default stride in elements, element bits, fragment bytes) -- 9.7.14.4.2: the default
    stride is the leading dimension (row-major MxK: K; column-major: M), a smaller one is
    undefined behaviour, and ``stride x element bytes`` must be a multiple of the fragment
    size."""
    frag = _wmma_fragment_bytes(q)
    shape, matrix, type_ = q.get("shape") or "", q.get("matrix"), q.get("type") or ""
    if frag is None:
        return None
    m, n, k = (int(x) for x in shape[1:].replace("n", " ").replace("k", " ").split())
    rows, cols = {"a": (m, k), "b": (k, n), "c": (m, n)}[matrix or "c"]
    fam = next((f for f in WMMA_FRAGMENTS if shape in f.shapes and type_ in f.element_bits),
               None)
    bits = fam.element_bits[type_] if fam else 32
    return (cols if q.get("layout") == "row" else rows), bits, frag


WMMA_LOAD = InstructionModel(
    mnemonic="wmma.load",
    section="9.7.14.4.3",
    groups=(
        Group("matrix", ("a", "b", "c"), True, WMMA_LOAD_SOURCE, leading=True),
        Group("sync", ("sync",), True, WMMA_LOAD_SOURCE),
        Group("aligned", ("aligned",), True, WMMA_LOAD_SOURCE),
        Group("layout", ("row", "col"), True, WMMA_LOAD_SOURCE),
        Group("shape", _WMMA_SHAPES, True, WMMA_LOAD_SOURCE),
        Group("ss", ("global", "shared", "shared::cta"), False, WMMA_LOAD_SOURCE),
        Group("type", _WMMA_TYPES, True, WMMA_LOAD_SOURCE),
    ),
    constraints=_wmma_constraints(),
    operands=(
        OperandSpec("r", "vector", WMMA_LOAD_SOURCE),
        OperandSpec("p", "address", f"{WMMA_LOAD_SOURCE} (Addresses as Operands)", bits=(32, 64)),
        OperandSpec("stride", "reg_or_imm",
                    f"{WMMA_LOAD_SOURCE}: stride is an optional 32-bit integer", optional=True,
                    types=INT32),
    ),
    vector=_wmma_registers,
    vector_source=_WFRAG,
    alignment=_wmma_fragment_bytes,
    alignment_source=f"{WMMA_STORAGE_SOURCE}: the start of each row (column) is aligned to the "
                     "fragment size in bytes",
    stride=_wmma_stride,
    register_types=lambda q: WMMA_REGISTER_TYPES.get(q.get("type") or "", WMMA_INT_REGISTERS),
    arch=tuple(
        ({"shape": (s,), "type": f.types[m], "matrix": (m,)},
         ArchRequirement(f"sm_{f.min_sm} or higher ({f.name} wmma)",
                         f"{WMMA_LOAD_SOURCE} Target ISA Notes", min_number=f.min_sm))
        for f in WMMA_FRAGMENTS for s in f.shapes for m in "abc"),
)

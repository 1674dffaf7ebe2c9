"""The model of ``wgmma.mma_async`` (PTX 9.7.15.5.2; sparse ``.sp`` 9.7.15.6), built from
:data:`WGMMA_FAMILIES`, one entry per syntax block."""

from __future__ import annotations

import re
from collections.abc import Mapping

from ...structs import Struct
from ...rules.targets import ArchRequirement
from .models import INT32, REG32, Constraint, Group, InstructionModel, OperandSpec, unique

_WG = "PTX 9.7.15.5.2"
_WGSP = "PTX 9.7.15.6"
_WGFRAG = "PTX 9.7.15.5.1"


class WgmmaFamily(Struct, frozen=True):
    """One syntax block of 9.7.15.5.2: the A and B types, the accumulator types, K (dense;
    ``.sp`` doubles it, 9.7.15.6), the N the text lists, the immediates after scale-d
    (``trans``: imm-scale-a/b and imm-trans-a/b; ``scale``: imm-scale-a/b; ``none``), whether
    ``.satfinite`` and ``.sp`` exist, and the sparsity selector values (9.7.15.6.1)."""

    name: str
    atypes: tuple[str, ...]
    btypes: tuple[str, ...]
    dtypes: tuple[str, ...]
    k: int
    ns: tuple[int, ...]
    immediates: str
    satfinite: bool = False
    sparse: bool = True
    sp_sel: tuple[int, ...] = (0,)
    bits: int = 16


#: N of the floating-point shapes (8 .. 256 step 8) and of the integer and single-bit ones
#: (8, 16, 24, then 32 .. 256 step 16), as 9.7.15.5.2 lists them (ptxas 13.0 agrees exactly).
WGMMA_FLOAT_N: tuple[int, ...] = tuple(range(8, 257, 8))
WGMMA_INT_N: tuple[int, ...] = (8, 16, 24) + tuple(range(32, 257, 16))
_FP8 = ("e4m3", "e5m2")
_I8 = ("s8", "u8")
#: The type families of wgmma.mma_async (9.7.15.5.2 syntax blocks; sparse: 9.7.15.6).
WGMMA_FAMILIES: tuple[WgmmaFamily, ...] = (
    WgmmaFamily("f16", ("f16",), ("f16",), ("f16", "f32"), 16, WGMMA_FLOAT_N, "trans",
                sp_sel=(0, 1)),
    WgmmaFamily("bf16", ("bf16",), ("bf16",), ("f32",), 16, WGMMA_FLOAT_N, "trans",
                sp_sel=(0, 1)),
    WgmmaFamily("tf32", ("tf32",), ("tf32",), ("f32",), 8, WGMMA_FLOAT_N, "scale",
                sp_sel=(0, 1), bits=32),
    WgmmaFamily("fp8", _FP8, _FP8, ("f16", "f32"), 32, WGMMA_FLOAT_N, "scale", bits=8),
    WgmmaFamily("integer", _I8, _I8, ("s32",), 32, WGMMA_INT_N, "none", satfinite=True, bits=8),
    WgmmaFamily("single-bit", ("b1",), ("b1",), ("s32",), 256, WGMMA_INT_N, "none",
                sparse=False, bits=1),
)
#: M of every wgmma shape (9.7.15.5.2: ``.m64nNkK``).
WGMMA_M = 64
#: Bits of each accumulator type (the d registers hold N/2 .f32/.s32 or N/4 .f16x2 values).
_WG_DBITS = {"f16": 16, "f32": 32, "s32": 32}


def _wg_family(q: Mapping[str, str | None]) -> WgmmaFamily | None:
    return next((f for f in WGMMA_FAMILIES if q.get("atype") in f.atypes), None)


def _wg_mnk(shape: str | None) -> tuple[int, int, int] | None:
    m = re.fullmatch(r"m(\d+)n(\d+)k(\d+)", shape or "")
    return None if m is None else (int(m.group(1)), int(m.group(2)), int(m.group(3)))


def is_wgmma_shape(atype: str, m: int, n: int, k: int, sparse: bool = False) -> bool:
    """Whether ``wgmma.mma_async`` with ``.atype`` ``atype`` has the shape M x N x K (dense,
    or ``.sp`` with ``sparse``): M 64, N among :attr:`WgmmaFamily.ns`, K the type's (doubled by
    ``.sp``) -- PTX ISA 9.7.15.5.2 (dense) and 9.7.15.6 (sparse).  An unknown ``atype`` has
    none."""
    f = _wg_family({"atype": atype})
    return (f is not None and (f.sparse or not sparse) and m == WGMMA_M and n in f.ns
            and k == f.k * (2 if sparse else 1))


def _wg_shapes(f: WgmmaFamily, sparse: bool) -> tuple[str, ...]:
    k = f.k * (2 if sparse else 1)
    return tuple(f"m{WGMMA_M}n{n}k{k}" for n in f.ns)


def _wg_d_registers(q: Mapping[str, str | None]) -> int | None:
    """d: the M x N accumulator spread over the warpgroup's 128 threads, M*N/128 elements per
    thread, packed into 32-bit registers (9.7.15.5.1: N/2 for .f32/.s32, N/4 for .f16)."""
    mnk, bits = _wg_mnk(q.get("shape")), _WG_DBITS.get(q.get("dtype") or "")
    if mnk is None or bits is None:
        return None
    return mnk[0] * mnk[1] // 128 * bits // 32


def _wg_a_registers(q: Mapping[str, str | None]) -> int | None:
    """A from registers: the M x K matrix over 128 threads (.sp: packed to M x K/2,
    9.7.15.6), in 32-bit registers -- four for every type."""
    mnk, f = _wg_mnk(q.get("shape")), _wg_family(q)
    if mnk is None or f is None:
        return None
    k = mnk[2] // (2 if q.get("sp") else 1)
    return mnk[0] * k // 128 * f.bits // 32


#: Register types ptxas 13.0 takes for the d vector (the text: .f32/.s32 registers, or .f16x2
#: packed in 32-bit registers).
WGMMA_D_TYPES: dict[str, tuple[str, ...]] = {"f32": ("b32", "f32"), "f16": ("b32", "f16x2"),
                                             "s32": INT32}
#: ... and for A from registers: .b32 or .f16x2 for the floating-point types, any 32-bit type
#: for the integer and single-bit ones.
WGMMA_A_TYPES: dict[str, tuple[str, ...]] = {
    **{t: ("b32", "f16x2") for f in WGMMA_FAMILIES[:4] for t in f.atypes},
    **{t: REG32 for f in WGMMA_FAMILIES[4:] for t in f.atypes}}
_DESC64: tuple[str, ...] = ("b64", "u64", "s64")


def _wgmma_constraints() -> tuple[Constraint, ...]:
    """Derived from :data:`WGMMA_FAMILIES`: per A type, B and accumulator types, shapes
    (dense and .sp), .satfinite, .sp, the single-bit operation."""
    out: list[Constraint] = []
    for f in WGMMA_FAMILIES:
        src = f"{_WG} ({f.name} syntax)"
        a = {"atype": f.atypes}
        out.append(Constraint("wgmma.type", a, {"btype": f.btypes},
                              f"{f.name} wgmma takes .btype ." + "/.".join(f.btypes)
                              + " with .atype ." + "/.".join(f.atypes), src))
        out.append(Constraint("wgmma.type", a, {"dtype": f.dtypes},
                              f"{f.name} wgmma accumulates in ." + "/.".join(f.dtypes), src))
        for sparse in ((False, True) if f.sparse else (False,)):
            sh = _wg_shapes(f, sparse)
            out.append(Constraint(
                "wgmma.shape", {**a, "sp": ("sp",) if sparse else (None,)}, {"shape": sh},
                f"{'sparse ' if sparse else ''}{f.name} wgmma is m64nNk{sh[0].split('k')[1]}, "
                f"N = {f.ns[0]}, {f.ns[1]}, ..., {f.ns[-1]}"
                + ("" if f.ns == WGMMA_FLOAT_N else " (8, 16, 24, then steps of 16)"),
                _WGSP if sparse else src))
        if not f.satfinite:
            out.append(Constraint("wgmma.satfinite", a, {"satfinite": (None,)},
                                  ".satfinite belongs to the integer (.s8/.u8) wgmma", _WG))
        if not f.sparse:
            out.append(Constraint("wgmma.sp", a, {"sp": (None,)},
                                  f"there is no sparse {f.name} wgmma ({_WGSP} lists none)",
                                  _WGSP))
        if f.name == "single-bit":
            out.append(Constraint("wgmma.op", a, {"op": ("and",), "popc": ("popc",)},
                                  "single-bit wgmma is .and.popc (.op = {.and})", src))
        else:
            out.append(Constraint("wgmma.op", a, {"op": (None,), "popc": (None,)},
                                  ".and/.popc belong to the single-bit (.b1) wgmma", src))
    return tuple(out)


def _wg_atypes(kind: str) -> tuple[str, ...]:
    return tuple(t for f in WGMMA_FAMILIES if f.immediates in kind.split("|") for t in f.atypes)


def _wgmma_operands() -> tuple[OperandSpec, ...]:
    sp_sel = []
    for values in dict.fromkeys(f.sp_sel for f in WGMMA_FAMILIES if f.sparse):
        types = tuple(t for f in WGMMA_FAMILIES if f.sparse and f.sp_sel == values
                      for t in f.atypes)
        sp_sel.append(OperandSpec("sp-sel", "immediate", f"{_WGSP}.1 (sparsity selector)",
                                  when={"sp": ("sp",), "atype": types}, values=values))
    return (
        OperandSpec("d", "vector", f"{_WGFRAG} (register fragment of D)", size=_wg_d_registers,
                    reg_types=lambda q: WGMMA_D_TYPES.get(q.get("dtype") or "", REG32)),
        OperandSpec("a", "vector", f"{_WGFRAG} (register fragment of A)", size=_wg_a_registers,
                    when={"a_src": ("reg",)},
                    reg_types=lambda q: WGMMA_A_TYPES.get(q.get("atype") or "", REG32)),
        OperandSpec("a-desc", "register", f"{_WG} (matrix descriptor, 64-bit)", bits=(64,),
                    when={"a_src": ("desc",)}, types=_DESC64, offset=True),
        OperandSpec("b-desc", "register", f"{_WG} (matrix descriptor, 64-bit)", bits=(64,),
                    types=_DESC64, offset=True),
        OperandSpec("sp-meta", "register", f"{_WGSP}.1 (sparsity metadata, 32-bit)",
                    when={"sp": ("sp",)}),
        *sp_sel,
        OperandSpec("scale-d", "predicate", f"{_WG} (scale-d: D = A*B+D when true)",
                    types=("pred",), values=(0, 1)),
        OperandSpec("imm-scale-a", "immediate", f"{_WG} (imm-scale-a: -1 negates A)",
                    when={"atype": _wg_atypes("trans|scale")}, values=(-1, 1)),
        OperandSpec("imm-scale-b", "immediate", f"{_WG} (imm-scale-b: -1 negates B)",
                    when={"atype": _wg_atypes("trans|scale")}, values=(-1, 1)),
        OperandSpec("imm-trans-a", "immediate", f"{_WG} (imm-trans-a: .f16/.bf16, A from a "
                    "descriptor only)", when={"atype": _wg_atypes("trans"),
                                             "a_src": ("desc",)}, values=(0, 1)),
        OperandSpec("imm-trans-b", "immediate", f"{_WG} (imm-trans-b: .f16/.bf16 only)",
                    when={"atype": _wg_atypes("trans")}, values=(0, 1)),
    )


def _wg_facts(operands: list[str]) -> dict[str, str]:
    """``a_src``: A from registers (a brace-enclosed vector) or from a descriptor."""
    return {"a_src": "reg" if len(operands) > 1 and operands[1].startswith("{") else "desc"}


_WG_TYPES = unique(t for f in WGMMA_FAMILIES for t in f.atypes)
_WG_SHAPES = unique(f"m{WGMMA_M}n{n}k{k}" for k in (8, 16, 32, 64, 256) for n in WGMMA_FLOAT_N)

WGMMA_MMA_ASYNC = InstructionModel(
    mnemonic="wgmma.mma_async",
    section="9.7.15.5.2",
    groups=(
        Group("sp", ("sp",), False, _WGSP),
        Group("sync", ("sync",), True, _WG, repeat="warning"),
        Group("aligned", ("aligned",), True, _WG, missing="warning"),
        Group("shape", _WG_SHAPES, True, _WG),
        Group("satfinite", ("satfinite",), False, _WG, repeat="warning"),
        Group("dtype", tuple(_WG_DBITS), True, _WG),
        Group("atype", _WG_TYPES, True, _WG),
        Group("btype", _WG_TYPES, True, _WG),
        Group("op", ("and", "or", "xor"), False, _WG),
        Group("popc", ("popc",), False, _WG, after="op"),
    ),
    constraints=_wgmma_constraints(),
    operands=_wgmma_operands(),
    vector=_wg_d_registers,
    vector_source=f"{_WGFRAG} (register fragments: M*N/128 accumulator elements and M*K/128 A "
                  "elements per thread, packed in 32-bit registers)",
    register_types=lambda q: WGMMA_D_TYPES.get(q.get("dtype") or "", REG32),
    arch=(({}, ArchRequirement("sm_90a", f"{_WG} Target ISA Notes (sm_90a only; ptxas 13.0 "
                               "refuses sm_90, sm_100a, sm_120a)", specific=("sm_90a",))),),
    default_arch="sm_90a",
    operand_facts=_wg_facts,
)

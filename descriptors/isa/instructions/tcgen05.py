"""The models of ``tcgen05.ld`` (PTX 9.7.16.8.3) and ``tcgen05.st`` (9.7.16.8.4), derived
from :mod:`descriptors.isa.tmem` (shapes, nums, register counts, the ``.red`` forms)."""

from __future__ import annotations

from collections.abc import Mapping

from ...errors import ParameterError
from ...rules.targets import ArchRequirement
from .models import REG32, Constraint, Group, InstructionModel, OperandSpec


def _tcgen05_model(op: str) -> InstructionModel:
    """tcgen05.ld (9.7.16.8.3) or tcgen05.st (9.7.16.8.4); shapes, nums, register counts, the
    .red shapes/ops/types and arches come from :mod:`descriptors.isa.tmem`."""
    from .. import tmem

    section = tmem.TABLES[op][2]
    src = f"PTX {section}"
    table = tmem.table_source(op)
    nums = tuple(f"x{n}" for n in tmem.NUMS)
    shapes = tuple(tmem.SHAPES)
    split = tuple(s for s in shapes if tmem.SHAPES[s].accesses == 2)

    def regs(q: Mapping[str, str | None]) -> int | None:
        shape, num = q.get("shape"), q.get("num")
        if shape not in tmem.SHAPES or num not in nums:
            return None
        try:
            return tmem.registers(shape, num, op)
        except ParameterError:
            return None

    na = tuple(Constraint(f"tcgen05.{op}.num", {"shape": (s,)},
                          {"num": tuple(n for n in nums if regs({"shape": s, "num": n}))},
                          f".{s} has no .num beyond "
                          f".x{max(n for n in tmem.NUMS if regs({'shape': s, 'num': f'x{n}'}))}"
                          f" (NA cells of {table.split(' (')[0]})", table)
                   for s in shapes if any(regs({"shape": s, "num": n}) is None for n in nums))
    groups = [Group("sync", ("sync",), True, src),
              Group("aligned", ("aligned",), True, src, missing="warning"),
              Group("shape", shapes, True, src), Group("num", nums, True, src)]
    constraints = list(na)
    operands: list[OperandSpec]
    arch: list[tuple[Mapping[str, tuple[str | None, ...]], ArchRequirement]] = [
        ({}, ArchRequirement("sm_100a, sm_101a (sm_110a), or sm_100f/sm_110f or higher in the "
                             "family", f"{src} Target ISA Notes",
                             specific=("sm_100a", "sm_110a"), families=(100, 110)))]
    if op == "ld":
        red_types = tuple(t for t in tmem.RED_TYPES)
        groups[:0] = [Group("red", ("red",), False, src, leading=True)]
        groups += [Group("pack", ("pack::16b",), False, src),
                   Group("redOp", tmem.RED_OPS, False, src),
                   Group("abs", ("abs",), False, src), Group("NaN", ("NaN",), False, src),
                   Group("type", ("b32",) + red_types, True, src)]
        constraints += _ld_constraints(src, nums, red_types)
        operands = [OperandSpec("r", "vector", src),
                    OperandSpec("redval", "register", src, when={"red": ("red",)}),
                    OperandSpec("taddr", "address", src, bits=(32,)),
                    OperandSpec("immHalfSplitoff", "immediate", src, when={"shape": split})]
        arch.append(({"red": ("red",)}, tmem.RED_REQUIREMENT))
    else:
        groups += [Group("unpack", ("unpack::16b",), False, src),
                   Group("type", ("b32",), True, src)]
        operands = [OperandSpec("taddr", "address", src, bits=(32,)),
                    OperandSpec("immHalfSplitoff", "immediate", src, when={"shape": split}),
                    OperandSpec("r", "vector", src)]
    return InstructionModel(
        mnemonic=f"tcgen05.{op}", section=section, groups=tuple(groups),
        constraints=tuple(constraints), operands=tuple(operands), vector=regs,
        vector_source=table, register_types=lambda q: REG32, arch=tuple(arch))


def _ld_constraints(src: str, nums: tuple[str, ...], red_types: tuple[str, ...]
                    ) -> list[Constraint]:
    """tcgen05.ld's own constraints: its type, and what belongs to ``.red`` (9.7.16.8.3)."""
    from .. import tmem

    return [
        Constraint("tcgen05.ld.type", {"red": (None,)}, {"type": ("b32",)},
                   "tcgen05.ld without .red loads .b32", src),
        Constraint("tcgen05.ld.red", {"red": (None,)},
                   {"redOp": (None,), "abs": (None,), "NaN": (None,)},
                   ".min/.max, .abs and .NaN belong to tcgen05.ld.red", src),
        Constraint("tcgen05.ld.red", {"red": ("red",)}, {"redOp": tmem.RED_OPS},
                   "tcgen05.ld.red needs .redOp (.min or .max)", src),
        Constraint("tcgen05.ld.red", {"red": ("red",)}, {"type": red_types},
                   "tcgen05.ld.red's type is .f32, .u32 or .s32", src),
        Constraint("tcgen05.ld.red", {"red": ("red",)}, {"shape": tmem.RED_SHAPES},
                   ".red is defined for .shape3 = .32x32b and .shape4 = .16x32bx2 only", src),
        Constraint("tcgen05.ld.red", {"red": ("red",)},
                   {"num": tuple(n for n in nums if n != "x1")},
                   "when .red is specified, .num must be at least .x2", src),
        Constraint("tcgen05.ld.red", {"red": ("red",)}, {"pack": (None,)},
                   "the .red forms have no .pack::16b", src),
        Constraint("tcgen05.ld.red", {"abs": ("abs",)}, {"type": ("f32",)},
                   ".abs is for the floating-point (.f32) reduction only", src),
        Constraint("tcgen05.ld.red", {"NaN": ("NaN",)}, {"type": ("f32",)},
                   ".NaN is for the floating-point (.f32) reduction only", src),
    ]


TCGEN05_LD = _tcgen05_model("ld")
TCGEN05_ST = _tcgen05_model("st")

"""The shared-memory swizzle modes of a matrix descriptor, as data (PTX ISA 9.7.16.4.1, Tables 40,
41 and 53).

One row per mode of the smem descriptor's 3-bit ``swizzle`` field: the swizzled row's width, the
CuTe ``Swizzle<B, M, S>`` functor that permutes 16-byte chunks within it, where the repeating
pattern starts (Table 41: the base offset counts 128-byte rows from there), and the layout atoms
Table 53 lists per major-ness.  The layout solver, the validator and the printer read this one
table.
"""

from collections.abc import Mapping

from ..structs import Struct

__all__ = ["SwizzleMode", "SWIZZLE_MODES"]


class SwizzleMode(Struct, frozen=True):
    """One swizzle mode (PTX ISA Table 40 ``swizzle`` field, Tables 41 and 53)."""

    #: the mode's name as the smem descriptor's ``swizzle`` enum spells it
    name: str
    #: bytes of one swizzled row (16 for none: a core matrix row)
    row_bytes: int
    #: CuTe's ``Swizzle<B, M, S>`` on byte addresses (XOR bits M..M+B-1 with bits M+S..)
    functor: tuple[int, int, int]
    #: Table 41: the byte boundary the repeating pattern starts on (None: no swizzle)
    repeat_bytes: int | None
    #: Table 53: major ("K", "MN") -> atom (M/N, K) in 128-bit units; absent = no atom
    atoms: Mapping[str, tuple[int, int]]

    @property
    def swizzle_functor(self) -> str:
        """CuTe's spelling, ``Swizzle<B,M,S>``."""
        return "Swizzle<{},{},{}>".format(*self.functor)


#: Every swizzle mode by name.
SWIZZLE_MODES: dict[str, SwizzleMode] = {m.name: m for m in (
    SwizzleMode("none", 16, (0, 4, 3), None, {"MN": (1, 8), "K": (8, 1)}),
    SwizzleMode("32B", 32, (1, 4, 3), 256, {"MN": (2, 8), "K": (8, 2)}),
    SwizzleMode("64B", 64, (2, 4, 3), 512, {"MN": (4, 8), "K": (8, 4)}),
    SwizzleMode("128B", 128, (3, 4, 3), 1024, {"MN": (8, 8), "K": (8, 8)}),
    # Table 53 lists no K-major atom ("-"); CUTLASS: Swizzle<2,5,2>, "invalid for Major-K".
    SwizzleMode("128B_base32B", 128, (2, 5, 2), 1024, {"MN": (8, 4)}),
)}

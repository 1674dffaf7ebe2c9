"""Known bits of a value that compiled code computes: each bit known 0, known 1 or unknown.

The model is LLVM's ``KnownBits``: a value of ``width`` bits is a pair of masks, ``zero`` (bits
known to be 0) and ``one`` (bits known to be 1), never overlapping.  A constant has every bit
known; a value loaded at run time (``ld.param``, ``LDS``, ``S2R`` ...) has none.  Every
operation returns the most that is certain about its result and nothing more: a bit is
reported known only when it takes that value for *every* run-time value of the unknown bits.
So a descriptor whose start address is computed at run time (``or.b64 %rd2, %rd9,
4611756662049538048``) still shows its constant upper fields as known.
"""

from __future__ import annotations

from ..structs import Struct

__all__ = ["KnownBits"]


def _mask(width: int) -> int:
    return (1 << width) - 1


class KnownBits(Struct, frozen=True, gc=False):
    """``width`` bits; ``zero``/``one`` are the masks of the bits known to be 0 / 1."""

    width: int
    zero: int = 0
    one: int = 0

    # ------------------------------------------------------------------ constructors
    @classmethod
    def const(cls, value: int, width: int) -> KnownBits:
        value &= _mask(width)
        return cls(width, _mask(width) & ~value, value)

    @classmethod
    def unknown(cls, width: int) -> KnownBits:
        return cls(width)

    # ------------------------------------------------------------------ queries
    @property
    def known(self) -> int:
        """Mask of the bits whose value is known."""
        return self.zero | self.one

    @property
    def is_const(self) -> bool:
        return self.known == _mask(self.width)

    @property
    def is_unknown(self) -> bool:
        return self.known == 0

    @property
    def value(self) -> int:
        """The known-1 bits (the whole value when :attr:`is_const`)."""
        return self.one

    def fill(self, unknown_as: int) -> int:
        """The word with every unknown bit taken from ``unknown_as``."""
        return self.one | (unknown_as & ~self.known & _mask(self.width))

    def pattern(self) -> str:
        """Hex with one character per nibble: the digit when all 4 bits are known, ``x`` when
        none is, ``?`` when some are (e.g. ``0x40004040xxxxxxxx``)."""
        if self.width & 3 == 0 and self.width and self.zero | self.one == _mask(self.width):
            return f"0x{self.one:0{self.width >> 2}x}"  # a constant: every digit known
        out = []
        for shift in range(self.width - 4, -1, -4):
            known = (self.known >> shift) & 0xF
            out.append(f"{(self.one >> shift) & 0xF:x}" if known == 0xF else
                       "x" if known == 0 else "?")
        return "0x" + "".join(out)

    # ------------------------------------------------------------------ width changes
    def resize(self, width: int, signed: bool = False) -> KnownBits:
        """Truncate, or extend with zeros (``signed``: with copies of the sign bit)."""
        if width <= self.width:
            m = _mask(width)
            return KnownBits(width, self.zero & m, self.one & m)
        ext = _mask(width) & ~_mask(self.width)
        if not signed:
            return KnownBits(width, self.zero | ext, self.one)
        sign = 1 << (self.width - 1)
        if self.one & sign:
            return KnownBits(width, self.zero, self.one | ext)
        if self.zero & sign:
            return KnownBits(width, self.zero | ext, self.one)
        return KnownBits(width, self.zero, self.one)

    @staticmethod
    def concat(lo: KnownBits, hi: KnownBits) -> KnownBits:
        """``{lo, hi}`` as one value (lo in the low bits)."""
        s = lo.width
        return KnownBits(lo.width + hi.width, lo.zero | (hi.zero << s), lo.one | (hi.one << s))

    def slice(self, lsb: int, width: int) -> KnownBits:
        m = _mask(width)
        return KnownBits(width, (self.zero >> lsb) & m, (self.one >> lsb) & m)

    # ------------------------------------------------------------------ bitwise
    def __and__(self, o: KnownBits) -> KnownBits:
        return KnownBits(self.width, self.zero | o.zero, self.one & o.one)

    def __or__(self, o: KnownBits) -> KnownBits:
        return KnownBits(self.width, self.zero & o.zero, self.one | o.one)

    def __xor__(self, o: KnownBits) -> KnownBits:
        known = self.known & o.known
        v = (self.one ^ o.one) & known
        return KnownBits(self.width, known & ~v, v)

    def __invert__(self) -> KnownBits:
        return KnownBits(self.width, self.one, self.zero)

    @staticmethod
    def lop3(a: KnownBits, b: KnownBits, c: KnownBits, lut: int) -> KnownBits:
        """SASS ``LOP3.LUT``: bit i of the result is ``lut[(a_i << 2) | (b_i << 1) | c_i]``."""
        can = [(a.one | ~a.known, a.zero | ~a.known), (b.one | ~b.known, b.zero | ~b.known),
               (c.one | ~c.known, c.zero | ~c.known)]  # (may be 1, may be 0)
        may1 = may0 = 0
        for idx in range(8):
            bits = ((idx >> 2) & 1, (idx >> 1) & 1, idx & 1)
            possible = -1
            for (m1, m0), bit in zip(can, bits):
                possible &= m1 if bit else m0
            if (lut >> idx) & 1:
                may1 |= possible
            else:
                may0 |= possible
        m = _mask(a.width)
        return KnownBits(a.width, may0 & ~may1 & m, may1 & ~may0 & m)

    # ------------------------------------------------------------------ shifts
    def shl(self, n: int) -> KnownBits:
        m = _mask(self.width)
        if n >= self.width:
            return KnownBits.const(0, self.width)
        return KnownBits(self.width, ((self.zero << n) | _mask(n)) & m, (self.one << n) & m)

    def shr(self, n: int, signed: bool = False) -> KnownBits:
        if n >= self.width:
            n = self.width - 1 if signed else self.width
            if not signed:
                return KnownBits.const(0, self.width)
        top = _mask(self.width) & ~(_mask(self.width) >> n)
        z, o = self.zero >> n, self.one >> n
        if not signed:
            return KnownBits(self.width, z | top, o)
        sign = 1 << (self.width - 1)
        if self.one & sign:
            return KnownBits(self.width, z, o | top)
        if self.zero & sign:
            return KnownBits(self.width, z | top, o)
        return KnownBits(self.width, z, o)

    # ------------------------------------------------------------------ arithmetic
    def __add__(self, o: KnownBits) -> KnownBits:
        """LLVM's ``computeForAddSub`` (add, no carry in)."""
        m = _mask(self.width)
        max_sum = ((~self.zero & m) + (~o.zero & m))
        min_sum = self.one + o.one
        carry_zero = ~(max_sum ^ self.zero ^ o.zero)
        carry_one = min_sum ^ self.one ^ o.one
        known = self.known & o.known & (carry_zero | carry_one) & m
        return KnownBits(self.width, ~min_sum & known, min_sum & known)

    def __sub__(self, o: KnownBits) -> KnownBits:
        if self.is_const and o.is_const:
            return KnownBits.const(self.one - o.one, self.width)
        return self + (~o + KnownBits.const(1, self.width)) if o.is_const else \
            KnownBits.unknown(self.width)

    def mul(self, o: KnownBits) -> KnownBits:
        if self.is_const and o.is_const:
            return KnownBits.const(self.one * o.one, self.width)
        for x, y in ((self, o), (o, self)):
            if y.is_const and y.one and y.one & (y.one - 1) == 0:
                return x.shl(y.one.bit_length() - 1)
        # trailing zeros of a product: at least the sum of the operands' known trailing zeros
        tz = min(_trailing(self.zero) + _trailing(o.zero), self.width)
        return KnownBits(self.width, _mask(tz), 0)

    def meet(self, o: KnownBits) -> KnownBits:
        """What is known of a value that is either ``self`` or ``o``."""
        return KnownBits(self.width, self.zero & o.zero, self.one & o.one)


def _trailing(zero: int) -> int:
    n = 0
    while zero & 1:
        zero >>= 1
        n += 1
    return n

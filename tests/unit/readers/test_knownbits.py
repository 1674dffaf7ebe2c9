"""KnownBits (descriptors.readers.knownbits): every operation is sound -- for any concrete
values consistent with the operands' known bits, the result agrees with every bit the result
claims to know -- and exact on constants."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from descriptors.readers.knownbits import KnownBits

W = 16
M = (1 << W) - 1


@st.composite
def kb_and_value(draw):
    value = draw(st.integers(0, M))
    known = draw(st.integers(0, M))
    return KnownBits(W, ~value & known & M, value & known), value


def _agrees(kb: KnownBits, x: int) -> bool:
    return x & kb.zero == 0 and x & kb.one == kb.one


@settings(max_examples=300, deadline=None)
@given(kb_and_value(), kb_and_value(), kb_and_value(), st.integers(0, 255), st.integers(0, W))
def test_sound(a, b, c, lut, n):
    (ka, x), (kb, y), (kc, z) = a, b, c
    assert _agrees(ka + kb, (x + y) & M)
    assert _agrees(ka & kb, x & y)
    assert _agrees(ka | kb, x | y)
    assert _agrees(ka ^ kb, x ^ y)
    assert _agrees(~ka, ~x & M)
    assert _agrees(ka.shl(n), (x << n) & M)
    assert _agrees(ka.shr(n), x >> n)
    sx = x - (1 << W) if x >> (W - 1) else x
    assert _agrees(ka.shr(n, signed=True), (sx >> n) & M)
    assert _agrees(ka.mul(kb), (x * y) & M)
    assert _agrees(ka.meet(kb), x) and _agrees(ka.meet(kb), y)
    assert _agrees(ka.resize(2 * W), x)
    assert _agrees(ka.resize(2 * W, signed=True), (sx) & ((1 << 2 * W) - 1))
    assert _agrees(KnownBits.concat(ka, kb), x | (y << W))
    r = 0
    for i in range(W):
        idx = (((x >> i) & 1) << 2) | (((y >> i) & 1) << 1) | ((z >> i) & 1)
        r |= ((lut >> idx) & 1) << i
    assert _agrees(KnownBits.lop3(ka, kb, kc, lut), r)


@given(st.integers(0, M), st.integers(0, M), st.integers(0, 255))
def test_exact_on_constants(x, y, lut):
    a, b = KnownBits.const(x, W), KnownBits.const(y, W)
    assert (a + b).is_const and (a + b).value == (x + y) & M
    assert (a - b).value == (x - y) & M
    assert KnownBits.lop3(a, b, a, lut).is_const


def test_pattern():
    kb = KnownBits.unknown(32).resize(64) | KnownBits.const(0x40004040 << 32, 64)
    assert kb.pattern() == "0x40004040xxxxxxxx"
    assert KnownBits(8, 0xF0, 0x00).pattern() == "0x0x"
    assert KnownBits(8, 0x30, 0x01).pattern() == "0x??"

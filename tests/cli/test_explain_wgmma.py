"""``layout --explain WORD --arch sm_90a``: the layout a Hopper wgmma matrix descriptor (PTX ISA
9.7.15.5.1) implies, read as tcgen05's word is (the same fields, the same canonical layouts)."""

from __future__ import annotations

import pytest
from helpers import runner

from cli.main import app
from descriptors.errors import LayoutError
from descriptors.layout.smem_layout import explain_descriptor, layout_descriptor
from descriptors.words.codec import smem_to_wgmma, wgmma_to_smem

CASES = [(major, swizzle, dtype, order) for major in ("K", "MN")
         for swizzle in ("none", "32B", "64B", "128B")
         for dtype in ("f16", "bf16", "tf32", "e4m3", "s8") for order in ("mn_first", "k_first")
         if major == "K" or dtype in ("f16", "bf16")]


@pytest.mark.parametrize("major,swizzle,dtype,order", CASES)
def test_a_wgmma_word_explains_as_the_layout_that_made_it(major, swizzle, dtype, order):
    # a tile of several swizzle atoms each way, stacked in either tile order
    tile = {"tf32": "128x64", "e4m3": "128x256", "s8": "128x256"}.get(dtype, "128x128")
    made = layout_descriptor(major, swizzle, dtype, tile, 0x1400, tile_order=order)
    word = smem_to_wgmma(made.word)
    assert wgmma_to_smem(word) == made.word
    got = explain_descriptor(word, major=major, dtype=dtype, arch="sm_90a")
    same = explain_descriptor(made.word, major=major, dtype=dtype)
    assert got.descriptor == "wgmma" and got.word == word and got.hex == f"{word:#018x}"
    assert (got.swizzle, got.start_address_bytes, got.lbo_bytes, got.sbo_bytes,
            got.canonical_layout) == (same.swizzle, same.start_address_bytes, same.lbo_bytes,
                                      same.sbo_bytes, same.canonical_layout)
    assert got.notes == same.notes  # the tile readings, in either tile order
    assert got.to_dict()["descriptor"] == "wgmma"


def test_unused_bits_are_a_note_and_mn_major_8_bit_is_refused():
    got = explain_descriptor(0x4000404000010040, major="K", dtype="f16", arch="sm_90a")
    assert got.notes[0].startswith("unused bits set: reserved_46[48:46]=0x1; an H100 ignores")
    with pytest.raises(LayoutError, match="MN-major e4m3 operand: wgmma reads MN-major"):
        explain_descriptor(0x4000004000010040, major="MN", dtype="e4m3", arch="sm_90a")


def test_cli():
    r = runner.invoke(app, ["layout", "--explain", "0x4000004000010040", "--major", "K",
                            "--a-type", "f16", "--arch", "sm_90a", "--plain"])
    assert r.exit_code == 0, r.output
    assert r.output.splitlines()[0] == "wgmma matrix descriptor 0x4000004000010040"
    assert "SBO               1024 bytes (raw 64)" in r.output
    r = runner.invoke(app, ["layout", "--explain", "0x4000004000010040", "--major", "K",
                            "--a-type", "f16", "--arch", "sm_80"])
    assert r.exit_code == 2 and "--arch 'sm_80'" in r.output

"""The words of layout's messages: an sm_90a (wgmma) word's errors, notes and report cite what
it rests on (PTX ISA 9.7.15.5.x), not tcgen05's tables; no doubled phrase; a/an as read."""

from __future__ import annotations

import json
import re

import pytest

from helpers import fails, ok, run

SM90 = ("--arch", "sm_90a")
TILE = ("--major", "K", "--swizzle", "128B", "--a-type", "bf16")
SLICE = "Sw<3,4,3>_smem_ptr[16b](0x400) o (_128,_64):(_64,_1)"
#: What tcgen05's text cites: its descriptor (Tables 40-41), canonical layouts (9.7.16.3.x,
#: Tables 52-53) and kinds.
TCGEN05 = re.compile(r"Table (40|41|52|53)\b|9\.7\.16\.|kind::")


def test_sm90_mn_major_tf32_says_wgmma_has_no_form_first():
    """tf32 MN-major has no wgmma form: said at once, not tcgen05's advice (128B_base32B)
    that sm_90a would refuse next."""
    for swizzle in ("128B", "128B_base32B", "64B"):
        line = fails("layout", *SM90, "--major", "MN", "--swizzle", swizzle, "--a-type", "tf32",
                     "--tile", "64x8")
        assert line == ("descgen: error: an MN-major tf32 operand has no wgmma form: wgmma "
                        "transposes (imm-trans) .f16/.bf16 operands only; store it K-major "
                        "(PTX 9.7.15.5.2)")
    line = fails("layout", *SM90, "--major", "MN", "--swizzle", "128B", "--a-type",
                 "float_e4m3_t", "--tile", "64x128")
    assert "an MN-major e4m3 operand has no wgmma form" in line


def test_sm90_128b_base32b_is_refused_in_wgmma_terms():
    line = fails("layout", *SM90, "--major", "MN", "--swizzle", "128B_base32B", "--a-type",
                 "bf16", "--tile", "64x16")
    assert line == ("descgen: error: the wgmma matrix descriptor has no 128B_base32B swizzle: "
                    "its modes are none, 128B, 64B, 32B (PTX 9.7.15.5.1)")


@pytest.mark.parametrize("args, sm100_source", [
    (("--tile", "64x60"), "9.7.16.3.3"),
    (("--tile", "64x64", "--start-address", "0x401"), "Table 40, Table 41"),
])
def test_sm90_layout_errors_cite_the_wgmma_descriptor(args, sm100_source):
    sm100 = fails("layout", *TILE, *args)
    assert sm100.endswith(f"(PTX {sm100_source})")
    sm90 = fails("layout", *TILE, *args, *SM90)
    assert sm90 == sm100.replace(f"(PTX {sm100_source})", "(PTX 9.7.15.5.1)")


def test_sm90_absolute_lbo_cites_once():
    line = fails("layout", *TILE, "--tile", "64x64", "--lbo-address", "0x800", *SM90)
    assert line.endswith("the wgmma descriptor has none (PTX 9.7.15.5.1)")
    assert line.count("9.7.15.5.1") == 1


@pytest.mark.parametrize("args", [
    (*TILE, "--tile", "64x64", "--k-steps"),
    ("--cute", SLICE, "--major", "K", "--a-type", "bf16"),
    ("--explain", "0x4000002000010040", "--major", "K", "--a-type", "f16"),
])
def test_sm90_report_and_json_cite_no_tcgen05_table(args):
    for fmt in (("--plain",), ("--format", "json")):
        out = ok("layout", *args, *SM90, *fmt)
        assert not TCGEN05.findall(out), (fmt, TCGEN05.findall(out))
        assert "9.7.15.5.1" in out
    # sm_100a's own report does cite them
    sm100 = [{"0x4000002000010040": "0x4000404000010000"}.get(a, a) for a in args]
    assert TCGEN05.search(ok("layout", *sm100, "--plain"))


def test_sm90_k_spanning_slice_note_counts_wgmma_mmas():
    note = [n for n in json.loads(ok("layout", "--cute", SLICE, "--major", "K", "--a-type",
                                     "bf16", *SM90, "--format", "json"))["notes"]
            if "spans" in n]
    assert note and note[0].startswith("the slice's K=64 spans 4 wgmma MMAs of K=16")
    sm100 = json.loads(ok("layout", "--cute", SLICE, "--major", "K", "--a-type", "bf16",
                          "--format", "json"))["notes"]
    assert any("spans 4 kind::f16 MMAs of K=16" in n for n in sm100)


def test_pointer_width_message_says_the_packing_once():
    line = fails("layout", "--cute", "Sw<3,4,3>_smem_ptr[16b](0x400) o (_128,_16):(_64,_1)",
                 "--a-type", "e4m3", "--major", "K")
    assert line.endswith("but e4m3 is stored as 8-bit (PTX 9.7.16.10.4)")
    line = fails("layout", "--cute", "Sw<3,4,3>_smem_ptr[16b](0x400) o (_128,_16):(_64,_1)",
                 "--a-type", "e2m1", "--kind", "f8f6f4", "--major", "K")
    assert "e2m1 is stored as 8-bit (4-bit, padded: 16 elements per 16-byte chunk" in line
    assert "(8-bit)" not in line


def test_articles_before_a_vowel_sound():
    line = fails("layout", "--cute", "Sw<3,4,3>_smem_ptr[16b](0x400) o (_128,_16):(_1,_128)",
                 "--a-type", "bf16", "--major", "MN")
    assert "an MN-major" in line and "a MN" not in line
    assert fails("decode", "0x4000404000010000", "--as", "smem", "--cta-group", "2") == (
        "descgen: error: --cta-group is context of an idesc word, not of smem")
    assert "a tmem word" in fails("decode", "0x4000404000010000", "--as", "smem", "--alloc", "2")
    result = run("batch", "descgen-missing.ini")
    assert result.exit_code == 2 and "an INI file;" in result.stderr

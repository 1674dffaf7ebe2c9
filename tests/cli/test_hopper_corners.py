"""Hopper (sm_90a) corners of ``layout --cute`` and ``check --cute`` as a user types them:
a CuTe DSL ``i8`` print read as u8, a K-major slice spanning several swizzle atoms along K, and
``check --cute --arch sm_90a`` without ``--as``."""

from __future__ import annotations

import json

from helpers import ok, run

DSL_I8 = "tensor<ptr<i8, smem, align<1024>, S<3,4,3>> o ((64,32)):((128,1))>"
#: a 64B-swizzled bf16 stage: K=64 is two 64-byte swizzle atoms along K, 512 bytes apart
SPAN = "Sw<2,4,3>_smem_ptr[16b](0x0) o ((8,8),(32,2)):((32,512),(1,256))"


def test_dsl_i8_print_is_accepted_as_u8_with_a_note():
    for opt in ("--b-type", "--a-type"):
        out = json.loads(ok("layout", "--cute", DSL_I8, opt, "u8", "--start-address", "0",
                            "--format", "json"))
        assert out["word"] == "0x4000404000010000"
        assert out["dtype"] == "u8"
        assert any(n.startswith("element type u8 for the print's i8: the CuTe DSL prints "
                                "MLIR's signless integers") for n in out["notes"])
    r = run("layout", "--arch", "sm_90a", "--cute", DSL_I8, "--b-type", "u8",
            "--start-address", "0", "--format", "hex")
    assert (r.exit_code, r.stdout) == (0, "0x4000004000010000\n"), r.output


def test_dsl_i8_print_checks_against_a_u8_word():
    r = run("check", "0x4000004000010000", "--arch", "sm_90a", "--cute", DSL_I8, "--b-type", "u8",
            "--start-address", "0")
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith("yes: the word reads exactly the layout's 64 x 32 elements")


def test_dsl_integer_print_still_refuses_another_width_or_family():
    r = run("layout", "--cute", DSL_I8, "--b-type", "e4m3", "--start-address", "0")
    assert r.exit_code == 2
    assert "dtype=e4m3 contradicts the tensor's element type i8 (s8)" in r.stderr


def test_k_spanning_two_swizzle_atoms_gives_the_first_k_steps_word():
    r = run("layout", "--arch", "sm_90a", "--cute", SPAN, "--format", "json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["word"] == "0x8000004000010000"
    r = run("layout", "--arch", "sm_90a", "--cute", SPAN, "--plain")
    assert r.exit_code == 0, r.output
    assert ("layout mode 1 (K) is 2 64-byte swizzle atoms at byte offsets 0, 512: each MMA "
            "reads K within one atom") in r.stdout
    assert "the slice's K=64 spans 4 wgmma MMAs of K=16" in r.stdout


def test_k_spanning_two_swizzle_atoms_lists_every_k_step():
    r = run("layout", "--arch", "sm_90a", "--cute", SPAN, "--k-steps", "--format", "hex")
    assert r.exit_code == 0, r.output
    # K steps of 32 bytes within an atom, the next atom 512 bytes on (start address in 16 B)
    assert r.stdout.split() == ["0x8000004000010000", "0x8000004000010002",
                                "0x8000004000010020", "0x8000004000010022"]
    r = run("layout", "--cute", SPAN, "--k-steps", "--format", "hex")
    assert r.stdout.split() == ["0x8000404000010000", "0x8000404000010002",
                                "0x8000404000010020", "0x8000404000010022"]


def test_k_spanning_two_swizzle_atoms_checks_on_sm_100a():
    r = run("check", "0x8000404000010000", "--cute", SPAN)
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith("yes: the word reads exactly the layout's 64 x 16 elements")
    r = run("check", "0x8000404000010020", "--cute", SPAN)
    assert r.exit_code == 1


def test_k_not_whole_swizzle_rows_is_still_refused():
    r = run("layout", "--arch", "sm_90a", "--cute",
            "Sw<2,4,3>_smem_ptr[16b](0x0) o ((8,8),(48)):((32,512),(1))")
    assert r.exit_code == 2
    assert "layout mode 1 (K) spans 96 bytes" in r.stderr


def test_check_cute_on_sm_90a_needs_no_as():
    lay = "Sw<3,4,3>_smem_ptr[16b](0x400) o (_64,_64):(_64,_1)"
    r = run("check", "0x4000004000010040", "--cute", lay, "--arch", "sm_90a")
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith("yes: the word reads exactly the layout's 64 x 16 elements (one "
                               "MMA's 32 bytes of K) (the fetch model measured on an H100)")
    r = run("check", "0x4000004000010080", "--cute", lay, "--arch", "sm_90a")
    assert r.exit_code == 1
    assert r.stdout.startswith("no: ")


#: CUTLASS's Layout_K_SW128_Atom<uint1b_t> tiled to 64 x 1024 bits, as CuTe prints the tensor
B1 = "Sw<3,4,3>_smem_ptr[1b](0x400) o ((_8,_8),(_1024,_1)):((_1024,_8192),(_1,_0))"


def test_b1_k_major_sw128_gives_a_wgmma_word_per_k256_step():
    r = run("layout", "--arch", "sm_90a", "--cute", B1, "--start-address", "0x400", "--k-steps",
            "--format", "hex")
    assert r.exit_code == 0, r.output
    # K=256 bits = 32 bytes per MMA: four MMAs in one 128-byte swizzled row
    assert r.stdout.split() == ["0x4000004000010040", "0x4000004000010042",
                                "0x4000004000010044", "0x4000004000010046"]
    r = run("layout", "--arch", "sm_90a", "--cute", B1, "--start-address", "0x400", "--plain")
    assert r.exit_code == 0, r.output
    assert "K-major b1 slice 64 x 1024" in r.stdout
    assert "the slice's K=1024 spans 4 wgmma .b1 MMAs of K=256" in r.stdout


def test_b1_tile_and_refusals():
    assert ok("layout", "--arch", "sm_90a", "--major", "K", "--swizzle", "128B", "--b-type", "b1",
              "--tile", "64x1024", "--format", "hex") == "0x4000004000010000\n"
    assert "an MN-major b1 operand has no wgmma form" in run("layout", "--arch", "sm_90a", "--major", "MN", "--swizzle",
                                       "128B", "--b-type", "b1", "--tile", "64x1024").stderr
    r = run("layout", "--cute", B1, "--start-address", "0x400")
    assert r.exit_code == 2
    assert r.stderr == ("descgen: error: b1 is an A/B type of wgmma only (no tcgen05.mma kind "
                        "reads it): give --arch sm_90a\n")


def test_check_cute_reads_b1_a_byte_at_a_time():
    r = run("check", "0x4000004000010040", "--arch", "sm_90a", "--cute", B1, "--start-address",
            "0x400")
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith("yes: the word reads exactly the layout's 64 x 256 elements")
    r = run("check", "0x4000004000010042", "--arch", "sm_90a", "--cute", B1, "--start-address",
            "0x400")
    assert r.exit_code == 1
    assert r.stdout.startswith("no: element (row 0, k 0) is at byte 0x400 in the layout, but the "
                               "word reads byte 0x420")
    r = run("check", "0x4000404000010040", "--cute", B1, "--start-address", "0x400")
    assert r.exit_code == 2
    assert "b1 is an A/B type of wgmma only" in r.stderr

"""What the CLI infers instead of asking, as a user types it: the descriptor of a word
(``decode``/``check`` without ``--as``), the major-ness and element type of a CuTe print
(``layout --cute``, ``check --cute``); each inference is said in one ``descgen: note:`` line on
stderr, and where nothing decides, the error names the candidates and the flag."""

from __future__ import annotations

import json

import pytest

from helpers import fails, run

SMEM_WORD = "0x4000400100400000"   # fixed_constant[48:46] = 0b001: tcgen05's smem descriptor
IDESC_WORD = "0x08200490"          # valid as kind::f16 and kind::f8f6f4
K_MAJOR = "Sw<3,4,3>_smem_ptr[16b](0x400) o (_128,_16):(_64,_1)"
MN_MAJOR = "Sw<3,4,3>_smem_ptr[16b](0x400) o ((_64,_2),_16):((_1,_1024),_64)"


def test_decode_reads_a_word_with_the_fixed_constant_as_smem():
    r = run("decode", SMEM_WORD, "--plain")
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith("smem 0x4000400100400000  (Shared memory descriptor")
    assert r.stderr == ("descgen: note: read 0x4000400100400000 as --as smem: its "
                        "fixed_constant[48:46] = 0b001 (tcgen05's shared memory descriptor)\n")
    assert r.stdout == run("decode", SMEM_WORD, "--as", "smem", "--plain").stdout


def test_decode_reads_a_valid_instruction_descriptor_as_idesc():
    r = run("decode", IDESC_WORD, "-f", "json")
    assert r.exit_code == 0, r.output
    assert r.stderr == ("descgen: note: read 0x08200490 as --as idesc: a valid instruction "
                        "descriptor as kind::f16, kind::f8f6f4\n")
    assert json.loads(r.stdout) == json.loads(run("decode", IDESC_WORD, "--as", "idesc",
                                                  "-f", "json").stdout)


def test_kind_means_idesc():
    r = run("decode", IDESC_WORD, "--kind", "f16", "--plain")
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith("idesc 0x08200490  kind::f16")
    assert r.stderr == "descgen: note: read as --as idesc (--kind names an MMA kind)\n"


def test_a_word_that_fits_two_descriptors_names_both_and_the_flag():
    line = fails("decode", "0")
    assert line == (
        "descgen: error: 0x0 fits more than one descriptor's layout: tmem (a valid Tensor Memory "
        "address (lane 0, column 0)); zcm (zero-column mask layout: reserved bits clear, non-zero "
        "mask clear (an all-zero mask)) -- say which with --as tmem or --as zcm (see 'descgen "
        "decode --help')")


def test_check_infers_the_descriptor_of_a_word():
    r = run("check", SMEM_WORD, "--plain")
    assert r.exit_code == 0, r.output
    assert r.stderr.startswith("descgen: note: read 0x4000400100400000 as --as smem: ")
    assert r.stdout == run("check", SMEM_WORD, "--as", "smem", "--plain").stdout


def test_check_of_a_parameter_set_still_needs_as():
    assert fails("check", "-p", "swizzle=128B") == (
        "descgen: error: say which descriptor with --as (or give --idesc)")


def test_layout_cute_takes_major_and_width_from_the_print():
    r = run("layout", "--cute", K_MAJOR, "-f", "hex")
    assert r.exit_code == 0, r.output
    assert r.stdout == run("layout", "--cute", K_MAJOR, "--major", "K", "--a-type", "bf16",
                           "-f", "hex").stdout == "0x4000404000010040\n"
    assert r.stderr == (
        "descgen: note: major-ness K from the print: its K mode has stride 1\n"
        "descgen: note: element type from the print's 16-bit pointer: f16 stands for every "
        "16-bit type (the word is the same; --a-type/--b-type names it)\n")
    mn = run("layout", "--cute", MN_MAJOR, "-f", "json")
    assert mn.exit_code == 0, mn.output
    assert json.loads(mn.stdout)["major"] == "MN"


def test_layout_cute_says_which_major_a_print_is():
    assert fails("layout", "--cute", K_MAJOR, "--major", "MN") == (
        "descgen: error: this layout is K-major (its K mode has stride 1), not MN-major: leave "
        "major= (--major) out or pass K")


def test_layout_cute_asks_for_the_type_a_bare_layout_does_not_name():
    assert fails("layout", "--cute", "Sw<3,4,3> o _0 o (_128,_16):(_64,_1)") == (
        "descgen: error: the layout names no element type: pass dtype= (--a-type/--b-type)")


@pytest.mark.parametrize("arch", [[], ["--arch", "sm_90a"]])
def test_check_cute_needs_no_as_nor_major(arch):
    word = run("layout", "--cute", K_MAJOR, "-f", "hex", *arch).stdout.strip()
    r = run("check", word, "--cute", K_MAJOR, *arch)
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith("yes: the word reads exactly the layout's 128 x 16 elements")
    assert "descgen: note: major-ness K from the print" in r.stderr
    assert fails("check", word, "--cute", K_MAJOR, "--major", "MN", *arch).startswith(
        "descgen: error: this layout is K-major")


# ---------------------------------------------------------------- summaries first

def test_decode_of_an_idesc_without_kind_prints_one_line_per_reading():
    r = run("decode", "0x08400490", "--as", "idesc")
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert lines[0] == ("idesc 0x08400490: the word does not say its kind; each kind's reading, "
                        "fewest broken rules first (--kind picks one; --show prints each in "
                        "full):")
    assert lines[1] == "  kind::f16       bf16 x bf16 -> f32  M=128  N=256  K=16  valid"
    assert lines[2] == "  kind::f8f6f4    e5m2 x e5m2 -> f32  M=128  N=256  K=32  valid"
    assert lines[3] == ("  kind::i8        s8 x s8 -> ?        M=128  N=256  K=32  INVALID: "
                        "[idesc.types] d_type[5:4]: code 1 is not a D type of kind::i8; "
                        "allowed s32=2")
    assert len(lines) == 8  # the seven kinds


@pytest.mark.parametrize("flag", ["--show", "-v"])
def test_decode_show_prints_every_reading_in_full(flag):
    r = run("decode", "0x08400490", "--as", "idesc", flag, "--plain")
    assert r.exit_code == 0, r.output
    assert r.stdout.count("\nidesc 0x08400490  kind::") == 7
    assert r.stdout.count("bit diagram") == 7
    full = [d for d in r.stdout.split("\n\n") if d.startswith("idesc 0x08400490  kind::f16")]
    assert full and "[28:24]  m_dim" in full[0]


def test_decode_json_of_an_idesc_without_kind_stays_complete():
    doc = json.loads(run("decode", "0x08400490", "--as", "idesc", "-f", "json").stdout)
    assert [r["kind"] for r in doc["readings"]][:2] == ["f16", "f8f6f4"]
    assert doc["readings"][0]["fields"]["m_dim"] == 8
    assert len(doc["readings"]) == 7


def test_layout_for_sm_90a_prints_the_tables_of_sm_100a_with_the_wgmma_words():
    args = ["layout", "--major", "K", "--swizzle", "128B", "--a-type", "bf16", "--tile",
            "128x64", "--k-steps", "--plain"]
    sm100 = run(*args).stdout.splitlines()
    r = run(*args, "--arch", "sm_90a")
    assert r.exit_code == 0, r.output
    sm90 = r.stdout.splitlines()
    assert sm90[0] == "wgmma matrix descriptor 0x4000004000010000   (sm_90a, PTX ISA 9.7.15.5.1)"
    assert len(sm90) == len(sm100)
    rows = dict(zip(sm100, sm90))
    assert rows["  swizzle           128B (code 2)"] == "  swizzle           128B (code 1)"
    assert sm90[-4:] == ["     0      0       0x0       0x0      +0  0x4000004000010000",
                         "     1     16      0x20      0x20      +2  0x4000004000010002",
                         "     2     32      0x40      0x40      +4  0x4000004000010004",
                         "     3     48      0x60      0x60      +6  0x4000004000010006"]
    hexes = run(*args[:-1], "--arch", "sm_90a", "-f", "hex").stdout.split()
    assert [line.split()[-1] for line in sm90[-4:]] == hexes
    # every other row as sm_100a prints it (the layout is the same)
    same = [a for a, b in zip(sm100[1:], sm90[1:]) if a == b]
    assert "  SBO               1024 bytes (raw 64): from one group of 8 M/N rows to the next" in same


def test_a_word_wider_than_any_descriptor_is_refused_without_as():
    assert fails("decode", "0x1ffffffffffffffffff") == (
        "descgen: error: word 0x1ffffffffffffffffff is wider than 64 bits: no descriptor is")

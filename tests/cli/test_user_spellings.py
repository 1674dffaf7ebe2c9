"""Spellings users bring from nvcc, cuda-gdb and CUTLASS: accepted where they mean one thing
(with a note of what was assumed), else refused with what was probably meant."""

from __future__ import annotations

import pytest

import descriptors
from support.helpers import fails, ok, run


@pytest.mark.parametrize("given, meant", [("sm_100", "sm_100a"), ("sm_103", "sm_103a"),
                                          ("sm_110", "sm_110a"), ("sm_90", "sm_90a")])
def test_arch_without_suffix_is_the_a_target_with_a_note(given, meant):
    args = ("smem", "--swizzle", "128B", "--sbo", "1024")
    result = run(*args, "--arch", given)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == ok(*args, "--arch", meant)
    note, = result.stderr.splitlines()
    assert note.startswith(f"descgen: note: --arch {given} read as {meant}: there is no ")
    assert ("wgmma" if meant == "sm_90a" else "tcgen05") in note


def test_arch_note_on_the_commands_that_read_words():
    word = "0x08200490"  # f16, M=128 N=128
    result = run("check", word, "--as", "idesc", "--kind", "f16", "--arch", "sm_100", "--plain")
    assert result.exit_code == 0 and "read as sm_100a" in result.stderr
    assert result.stdout == ok("check", word, "--as", "idesc", "--kind", "f16", "--arch",
                               "sm_100a", "--plain")
    result = run("lint", "--arch", "sm_100", "fixtures/lint/f16_cta1.ptx")
    assert result.exit_code == 0 and "read as sm_100a" in result.stderr


def test_arch_the_rules_do_not_know_is_refused():
    assert "unknown architecture 'sm_89'; known: sm_90a" in fails("idesc", "--kind", "f16",
                                                                "-m", "128", "-n", "128",
                                                                "--a-type", "f16", "--b-type",
                                                                "f16", "--arch", "sm_89")


@pytest.mark.parametrize("spelling, mode", [("SW128", "128B"), ("sw64", "64B"), ("SW32", "32B"),
                                            ("INTERLEAVE", "none"), ("Swizzle<3,4,3>", "128B"),
                                            ("Swizzle<2, 4, 3>", "64B"), ("B128", "128B")])
@pytest.mark.parametrize("arch", ["sm_100a", "sm_90a"])
def test_cutlass_swizzle_spellings(spelling, mode, arch):
    assert ok("smem", "--swizzle", spelling, "--sbo", "1024", "--arch", arch) == \
        ok("smem", "--swizzle", mode, "--sbo", "1024", "--arch", arch)
    assert descriptors.encode("smem", swizzle=spelling, sbo=1024) == \
        descriptors.encode("smem", swizzle=mode, sbo=1024)


@pytest.mark.parametrize("given, hint", [
    ("bf16", "did you mean --kind f16 (--a-type bf16)?"),
    ("e4m3", "did you mean --kind f8f6f4 (--a-type e4m3)?"),
    ("int8", "did you mean --kind i8 (--a-type s8)?"),
    ("fp8", "did you mean --kind f8f6f4?"),
    ("fp16", "did you mean --kind f16?"),
])
def test_a_type_given_as_kind_says_what_was_meant(given, hint):
    line = fails("idesc", "--kind", given, "-m", "128", "-n", "128")
    assert line.endswith(hint), line
    assert f"unknown kind '{given}'" in line
    assert fails("decode", "0x08200490", "--as", "idesc", "--kind", given).endswith(hint)
    # the library says the same in its own names
    with pytest.raises(descriptors.ParameterError, match=hint.replace("--kind ", "kind ")
                       .replace("--a-type ", "a_type ").replace("(", r"\(").replace(")", r"\)")
                       .replace("?", r"\?")):
        descriptors.encode("idesc", kind=given, m=128, n=128)


def test_nothing_near_is_no_guess():
    line = fails("idesc", "--kind", "xyz", "-m", "128", "-n", "128")
    assert line.endswith("kinds: tf32, f16, f8f6f4, i8, mxf8f6f4, mxf4, mxf4nvf4")


# ---------------------------------------------------------------- batch: every bad configuration

_BATCH = '''
[[configs]]
name = "GOOD"
descriptor = "tmem"
lane = 1

[[configs]]
name = "BAD_RULE"
descriptor = "idesc"
kind = "f16"
a_type = "bf16"
b_type = "bf16"
m = 256
n = 256
cta_group = 1

[[configs]]
name = "MISS"
descriptor = "tmem"
lane = 2
expect = "0x00010000"
'''


def test_batch_reports_every_bad_configuration(tmp_path):
    path = tmp_path / "b.toml"
    path.write_text(_BATCH + '''
[[configs]]
name = "NOFIT"
descriptor = "tmem"
lane = 0x10000

[[configs]]
descriptor = "tmem"
''')
    result = run("batch", str(path))
    assert result.exit_code == 2 and result.stdout == ""  # two cannot be encoded: bad input
    errors = [line for line in result.stderr.splitlines() if line.startswith("descgen: error: c")]
    assert errors == [
        "descgen: error: config 'BAD_RULE' (#2) breaks 1 rule of the PTX text (idesc.shape)",
        "descgen: error: config 'MISS' (#3): encodes to 0x00020000, expected 0x00010000",
        "descgen: error: config 'NOFIT' (#4): field 'lane'[31:16]: 65536 exceeds max 65535 "
        "(PTX 9.7.16.1.1)",
        "descgen: error: config #5: missing 'name'"]
    assert result.stderr.splitlines()[-1] == (
        "descgen: error: 4 of 5 configurations are bad; nothing emitted (--force emits those "
        "that only break rules)")


def test_batch_expect_mismatch_is_a_rule_broken_exit_1(tmp_path):
    path = tmp_path / "b.toml"
    path.write_text(_BATCH)
    result = run("batch", str(path))
    assert result.exit_code == 1 and result.stdout == ""
    assert "config 'BAD_RULE' (#2) breaks" in result.stderr
    assert "config 'MISS' (#3): encodes to 0x00020000" in result.stderr
    forced = run("batch", str(path), "--force")  # the rule is forced, the expect still fails
    assert forced.exit_code == 1 and forced.stdout == ""
    assert forced.stderr.splitlines()[-1] == (
        "descgen: error: config 'MISS' (#3): encodes to 0x00020000, expected 0x00010000")
    path.write_text(_BATCH.split("[[configs]]\nname = \"BAD_RULE\"")[0] + _BATCH.split(
        "cta_group = 1\n")[1])
    line = fails("batch", str(path), code=1)
    assert line == "descgen: error: config 'MISS' (#2): encodes to 0x00020000, expected 0x00010000"


def test_batch_library_collects_when_asked():
    from descriptors.tools.batch import encode_batch, parse_batch
    problems: list = []
    configs = parse_batch([{"name": "A", "descriptor": "tmem", "lane": 1},
                           {"descriptor": "tmem"},
                           {"name": "B", "descriptor": "tmem", "lane": 2, "expect": 3}],
                          problems=problems)
    results = encode_batch(configs, problems=problems)
    assert [r.config.name for r in results] == ["A"]
    assert [(p.index, p.name, p.broken) for p in problems] == [(1, None, False), (2, "B", True)]
    with pytest.raises(descriptors.BatchError, match=r"config 'B' \(#2\): encodes to"):
        encode_batch(parse_batch([{"name": "A", "descriptor": "tmem", "lane": 1},
                                  {"name": "B", "descriptor": "tmem", "lane": 2, "expect": 3}]))


# ---------------------------------------------------------------- lint on what is no code

@pytest.mark.parametrize("file, what", [
    ("fixtures/dumps/printf.log", "a printf log"),
    ("fixtures/dumps/cuda-gdb-info-registers.txt", "a register dump"),
])
def test_lint_on_a_log_points_at_dump(file, what):
    assert fails("lint", file) == (f"descgen: error: {file}: no PTX or SASS here; this looks "
                                   f"like {what}: try descgen dump {file}")
    # and dump does read it
    assert ok("dump", "--plain", file).strip()


def test_lint_says_why_there_is_nothing_to_check(tmp_path):
    path = tmp_path / "k.ptx"
    path.write_text(".version 8.7\n.target sm_100a\n.address_size 64\n"
                    ".visible .entry k() {\n  ret;\n}\n")
    result = run("lint", str(path))
    assert result.exit_code == 0
    assert result.stderr == (f"descgen: note: {path}: nothing to check: no tcgen05 or wgmma "
                             "instruction found\n")
    verbose = run("lint", "-v", str(path))  # the note itself is shown: no second line
    assert verbose.stderr == "" and "[lint.nothing] nothing to check" in verbose.stdout
    # CUDA source is still told apart from a log
    assert "for CUDA source, lint its nvcc -ptx output" in fails("lint", "fixtures/lint/src/mma.cu")


# ---------------------------------------------------------------- half words and register pairs

def test_a_32_bit_upper_half_pasted_alone_is_decoded_as_that_half():
    result = run("decode", "0x40004040", "--plain")
    assert result.exit_code == 0
    note, = result.stderr.splitlines()
    assert note.startswith("descgen: note: 0x40004040 reads as the upper half (bits 63-32) of "
                           "a shared memory descriptor; decoded as 0x4000404000000000: its "
                           "lower half (start address, leading byte offset) is not given")
    assert result.stdout == ok("decode", "0x4000404000000000", "--as", "smem", "--plain")
    assert "swizzle               2  128B" in result.stdout
    assert "1024 bytes (0x400)" in result.stdout  # SBO 64 x 16
    # no half is guessed without the fixed constant's evidence (sm_90a's word has none: every
    # value reads as its upper half): the candidates are named instead
    assert "say which with --as" in fails("decode", "0x40000040")


def test_a_value_that_is_no_upper_half_still_needs_as():
    # (a value that fits a whole word is read as that word: decode infers it)
    assert "fits no sm_100a descriptor's layout" in fails("decode", "0xffffffffffffffff")
    # with --as the value is the word, as before
    assert ok("decode", "0x40004040", "--as", "smem", "--plain").startswith(
        "smem 0x0000000040004040")


def test_register_pair_low_word_first():
    result = run("decode", "0x00010040:0x40004040", "--as", "smem", "--plain")
    assert result.exit_code == 0
    assert result.stderr == ("descgen: note: register pair '0x00010040:0x40004040' read as "
                             "LO:HI, the low word first, as cuda-gdb's info registers UR4 UR5 "
                             "lists UR4:UR5: 0x4000404000010040\n")
    assert result.stdout == ok("decode", "0x4000404000010040", "--as", "smem", "--plain")
    checked = run("check", "0x00010040:0x40004040", "--as", "smem", "--plain")
    assert checked.exit_code == 0 and checked.stdout.startswith("valid")
    assert "low word first" in ok("decode", "--help")
    assert "no 32-bit register value" in fails("decode", "0x1:0x100000000", "--as", "smem")
    assert "expected two 32-bit values" in fails("decode", "1:2:3", "--as", "smem")


def test_register_pair_library_order():
    from descriptors.words.literals import parse_register_pair
    assert parse_register_pair("0x00010040:0x40004040") == 0x4000404000010040
    assert parse_register_pair("-1:0") == 0xFFFFFFFF  # a signed reading of the low word
    assert parse_register_pair("0x40004040") is None


# ---------------------------------------------------------------- library: words and K steps

def test_cute_descriptor_of_several_k_steps_is_the_first_as_the_cli_says():
    from descriptors.layout.cute_layout import cute_layout_descriptor
    layout = "Sw<3,4,3>_smem_ptr[16b](0x400) o (_128,_64):(_64,_1)"  # K=64 bf16: four MMAs
    first = descriptors.cute_descriptor(layout, dtype="bf16", major="K", kind="f16")
    steps = [s.word for s in cute_layout_descriptor(layout, dtype="bf16", major="K", kind="f16",
                                                    k_steps=True).k_steps]
    assert steps == [0x4000404000010040, 0x4000404000010042, 0x4000404000010044,
                     0x4000404000010046]
    assert first == steps[0]
    cli = ok("layout", "--cute", layout, "--major", "K", "--a-type", "bf16", "--kind", "f16",
             "--k-steps", "--format", "hex").split()
    assert [int(w, 16) for w in cli if w.startswith("0x")][-4:] == steps
    assert "cute_layout_descriptor(..., k_steps=True).k_steps" in descriptors.cute_descriptor.__doc__


def test_encode_word_shown_as_the_library_shows_words():
    word = descriptors.encode("idesc", kind="f16", a_type="bf16", b_type="bf16", m=128, n=256)
    assert word.__class__ is int  # every library function takes it at full speed
    assert descriptors.format_word("idesc", word) == "0x08400490"
    assert "format_word" in descriptors.encode.__doc__


def test_layout_and_dump_take_the_same_spellings():
    tile = ("layout", "--major", "K", "--swizzle", "128B", "--a-type", "bf16", "--tile",
            "128x64", "--format", "hex")
    result = run(*tile, "--arch", "sm_100")
    assert result.exit_code == 0 and result.stdout == ok(*tile)
    assert "read as sm_100a" in result.stderr
    assert ok("layout", "--major", "K", "--swizzle", "SW128", "--a-type", "bf16", "--tile",
              "128x64", "--format", "hex") == ok(*tile)
    assert fails(*tile, "--kind", "bf16").endswith("did you mean --kind f16 (--a-type bf16)?")
    result = run("dump", "--plain", "--arch", "sm_100", "fixtures/dumps/printf.log")
    assert result.exit_code == 0 and "read as sm_100a" in result.stderr
    assert result.stdout == ok("dump", "--plain", "--arch", "sm_100a", "fixtures/dumps/printf.log")
    assert fails("dump", "--kind", "e4m3", "fixtures/dumps/printf.log").endswith(
        "did you mean --kind f8f6f4 (--a-type e4m3)?")


def test_batch_goes_on_after_a_refusal_in_a_run_of_one_descriptor():
    from descriptors.tools.batch import encode_batch, parse_batch
    problems: list = []
    doc = [{"name": n, "descriptor": "tmem", "lane": lane}
           for n, lane in (("A", 1), ("B", 0x10000), ("C", 0x10001), ("D", 4))]
    results = encode_batch(parse_batch(doc), problems=problems)
    assert [(r.config.name, r.word) for r in results] == [("A", 0x10000), ("D", 0x40000)]
    assert [p.name for p in problems] == ["B", "C"]


def test_diff_takes_a_register_pair_too():
    """``diff`` reads a pair LO:HI as decode and check do: low word first, said in a note."""
    result = run("diff", "0x00010040:0x40004040", "0x4000404000010040", "--as", "smem")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("smem: 0x4000404000010040 and 0x4000404000010040 are equal")
    assert "read as LO:HI, the low word first" in result.stderr
    result = run("diff", "0x00010040:0x40004040", "0x4000404000010080", "--as", "smem")
    assert result.exit_code == 1 and "differ in 1 field" in result.stdout

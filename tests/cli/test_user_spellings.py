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

"""``--arch sm_90a`` selects Hopper's wgmma matrix descriptor on the word commands: with it,
``--as`` may be left out (wgmma is the one word of sm_90a); without it, ``--as`` is required."""

from __future__ import annotations

import pytest
from helpers import runner

from cli.main import app

WORD = "0x4000004000010040"


@pytest.mark.parametrize("args,first", [
    (["decode", WORD, "--arch", "sm_90a", "--plain"],
     "wgmma 0x4000004000010040  (wgmma matrix descriptor (sm_90a); 64-bit; PTX 9.7.15.5.1)"),
    (["diff", WORD, "0x4000004000010080", "--arch", "sm_90a"],
     "wgmma: 0x4000004000010040 and 0x4000004000010080 differ in 1 field (changed bits "
     "0x00000000000000c0)"),
    (["check", "0x4000404000010040", "--arch", "sm_90a", "--plain"],
     "warning: [wgmma.reserved] reserved_46[48:46]: unused bits are set (raw 1)"),
])
def test_arch_sm_90a_needs_no_as(args, first):
    r = runner.invoke(app, args)
    assert r.exit_code in (0, 1), r.output
    assert r.output.splitlines()[0].startswith(first)


def test_without_a_target_as_is_required_by_diff():
    r = runner.invoke(app, ["diff", WORD, WORD])
    assert r.exit_code == 2
    assert "Missing option '--as'. Choose from: smem, idesc, zcm, tmem, wgmma" in r.output


@pytest.mark.parametrize("command", ["decode", "check"])
def test_a_wgmma_word_without_a_target_names_the_flags_that_decide(command):
    """A word with no tcgen05 fixed constant fits no sm_100a descriptor: the error says so and
    names --arch sm_90a (whose wgmma matrix descriptor it fits) and --as."""
    r = runner.invoke(app, [command, WORD])
    assert r.exit_code == 2
    assert r.stdout == ""
    assert r.stderr == (
        "descgen: error: 0x4000004000010040 fits no sm_100a descriptor's layout "
        "(fixed_constant[48:46] = 0b001 is not set, so it is no shared memory descriptor); it "
        "fits sm_90a's wgmma matrix descriptor: give --arch sm_90a, or --as "
        f"smem|idesc|zcm|tmem|wgmma to read it anyway (see 'descgen {command} --help')\n")


def test_gmma_is_cutlass_name_for_the_word():
    """``gmma`` (CUTLASS's GmmaDescriptor) names the word PTX calls wgmma's matrix descriptor,
    in every call that takes a descriptor name and on the command line."""
    import descriptors
    from descriptors.rules.validate import validate
    params = dict(start_address=0x400, leading_byte_offset=16, stride_byte_offset=1024,
                  swizzle="128B")
    word = descriptors.encode("wgmma", **params)
    assert descriptors.encode("gmma", **params) == word == 0x4000004000010040
    assert descriptors.encode("gmma", check=False, **params) == word
    assert descriptors.decode("gmma", word).descriptor == "wgmma"
    assert [d.descriptor for d in descriptors.readings("gmma", word)] == ["wgmma"]
    assert [f.rule for f in validate("gmma", word | 1 << 46)] == ["wgmma.reserved"]
    r = runner.invoke(app, ["decode", WORD, "--as", "gmma", "--plain"])
    assert r.exit_code == 0 and r.output.startswith("wgmma 0x4000004000010040")
    r = runner.invoke(app, ["decode", WORD, "--as", "gmmx"])
    assert r.exit_code == 2

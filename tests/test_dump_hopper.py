"""``descgen dump`` on Hopper (sm_90a) code: the wgmma matrix descriptor (PTX ISA 9.7.15.5.1).

The words of sm_90a SASS and PTX are wgmma words (there is no tcgen05 smem, idesc, zcm or
TMEM address on Hopper); the HGMMA/IGMMA/QGMMA/BGMMA ``gdesc[URn]`` operands (A in URn:URn+1,
B in URn+2:URn+3) and the ``wgmma.mma_async`` a-desc/b-desc operands name the words that reach
them.  The listing's own target decides, and a fatbin's members each keep theirs.
"""

from __future__ import annotations

import gzip
from pathlib import Path

from descriptors.readers import Fact, Instruction
from descriptors.readers.ptx import read_ptx
from descriptors.readers.ptx import wgmma_operands as ptx_wgmma_operands
from descriptors.readers.sass import read_sass
from descriptors.readers.sass import wgmma_operands as sass_wgmma_operands

ROOT = Path(__file__).resolve().parent.parent
HOPPER = ROOT / "fixtures" / "hopper"
COMPILED = HOPPER / "compiled"


def _lines(path: Path) -> list[str]:
    with gzip.open(path, "rt") as fh:
        return fh.read().splitlines()

#: A fatbin listing with an sm_90a member and an sm_100a member (cuobjdump's layout: each
#: member's header lines come before its first ``Function :``).
TWO_MEMBERS = """\
Fatbin elf code:
================
arch = sm_90a
code version = [1,7]

	code for sm_90a
		Function : hopper_kernel
        /*0020*/                   UMOV UR4, 0x10040 ;
        /*0030*/                   UMOV UR5, 0x40000040 ;
        /*0040*/                   UMOV UR6, 0x10440 ;
        /*0050*/                   UMOV UR7, 0x40000040 ;
        /*0070*/                   HGMMA.64x16x8.F32.TF32 R24, gdesc[UR4], RZ, !UPT, gsb0 ;
        /*0080*/                   EXIT ;
		..........

Fatbin elf code:
================
arch = sm_100a
code version = [1,7]

	code for sm_100a
		Function : blackwell_kernel
        /*0020*/                   UMOV UR5, 0x8400490 ;
        /*0030*/                   UMOV UR4, 0x40004040 ;
        /*0080*/                   EXIT ;
"""


def test_each_member_of_a_fatbin_listing_keeps_its_target():
    items = list(read_sass(TWO_MEMBERS.splitlines()))
    (hgmma,) = [i for i in items if isinstance(i, Instruction)]
    # the sm_100a member's header lines come before the sm_90a function is over: the HGMMA is
    # still sm_90a code
    assert (hgmma.line, hgmma.arch) == (12, "sm_90a")
    assert "code for sm_90a" in hgmma.arch_reason


def test_facts_carry_the_target_of_their_code():
    facts = [(f.line, f.arch) for f in read_sass(TWO_MEMBERS.splitlines())
             if isinstance(f, Fact)]
    assert facts == [(8, "sm_90a"), (9, "sm_90a"), (10, "sm_90a"), (11, "sm_90a"),
                     (23, "sm_100a"), (24, "sm_100a")]
    ptx = [".version 8.0", ".target sm_90a", ".visible .entry k()", "{",
           "mov.u64 %rd1, 4611686293305360448;", "}"]
    assert [(f.line, f.arch) for f in read_ptx(ptx) if isinstance(f, Fact)] == [(5, "sm_90a")]
    assert [f.arch for f in read_sass(["  UMOV UR5, 0x40000040 ;"]) if isinstance(f, Fact)] \
        == [None]


def test_wgmma_operands_pair_each_descriptor_with_its_operand():
    sass = [i for i in read_sass(_lines(COMPILED / "hand_wgmma.sass.gz"))
            if isinstance(i, Instruction) and i.line in (213, 883)]
    ab, rs = sass
    assert [(d.name, d.registers, o.text) for d, o in sass_wgmma_operands(ab)] == [
        ("a_desc", ("UR4", "UR5"), "gdesc[UR4]"), ("b_desc", ("UR6", "UR7"), "gdesc[UR4].B")]
    # A from registers (R32): B only
    assert [(d.name, d.registers, o.text) for d, o in sass_wgmma_operands(rs)] == [
        ("b_desc", ("UR6", "UR7"), "gdesc[UR4].tnspB.B")]
    ptx = [i for i in read_ptx(_lines(COMPILED / "hand_wgmma.ptx.gz"))
           if isinstance(i, Instruction) and i.line in (46, 215)]
    assert [{r: o.text for r, o in ptx_wgmma_operands(i).items()} for i in ptx] == [
        {"a_desc": "%rd1", "b_desc": "%rd2"}, {"b_desc": "%rd1"}]

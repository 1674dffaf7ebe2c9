"""``descgen dump`` on Hopper (sm_90a) code: the wgmma matrix descriptor (PTX ISA 9.7.15.5.1).

The words of sm_90a SASS and PTX are wgmma words (there is no tcgen05 smem, idesc, zcm or
TMEM address on Hopper); the HGMMA/IGMMA/QGMMA/BGMMA ``gdesc[URn]`` operands (A in URn:URn+1,
B in URn+2:URn+3) and the ``wgmma.mma_async`` a-desc/b-desc operands name the words that reach
them.  The listing's own target decides, and a fatbin's members each keep theirs.
"""

from __future__ import annotations

from descriptors.readers import Instruction
from descriptors.readers.sass import read_sass

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

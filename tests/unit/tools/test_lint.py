"""descgen lint on real nvcc 13 output (fixtures/lint/, made by fixtures/lint/build.py).

* every clean kernel: no error, no warning, from the PTX and from the SASS;
* every planted kernel: exactly the expected findings (file, line, column, severity, rule,
  operand, word, message);
* the held-out kernels (src/kloop.cu: a K loop, descriptors assembled with mov.b64 {lo, hi}),
  which these tests were not written against: the error rules equal the planted ones;
* the SASS opcode mapping recorded in descriptors/readers/sass/__init__.py;
* the CLI (text, JSON, exit codes, stdin, several files, --arch) and bad input (binary, empty,
  CRLF, over-long and truncated lines, unknown instructions, a large stream in bounded memory);
* the fixtures rebuild bit for bit when nvcc and cuobjdump are present (a fixed sample; all of
  them with ``-m nvcc_all``).
"""

from __future__ import annotations

import io
import json
import re
import sys
import tracemalloc
from pathlib import Path

import pytest
from helpers import run

from descriptors.tools.lint import SASS_MMA, lint_lines
from descriptors.readers import Instruction, sniff
from descriptors.readers.ptx import read_ptx
from descriptors.readers.sass import read_sass

FIX = Path(__file__).resolve().parents[3] / "fixtures" / "lint"
sys.path.insert(0, str(FIX))
import build  # noqa: E402  (fixtures/lint/build.py: the variants and how they are made)

MAIN = [v for v in build.VARIANTS if not v.heldout]
HELDOUT = [v for v in build.VARIANTS if v.heldout]


def _lint(name: str, **kw):
    with open(FIX / name, encoding="utf-8") as fh:
        return list(lint_lines(fh, file=name, **kw))


def _shown(findings):
    return [(f.file, f.line, f.col, f.severity, f.rule, f.operand, f.word, f.message)
            for f in findings if f.severity != "note"]


# ------------------------------------------------------------------ exact findings

EXPECTED = [
    ("bad_m256_cta1.ptx", 60, 55, "error", "idesc.shape", "idesc", "0x10400490",
     "tcgen05.mma.cta_group::1.kind::f16: m_dim[28:24]: M=256 is not allowed for kind::f16 cta_group::1 dense; M is 64 or 128; M=256 N=256 needs cta_group::2 dense (Table 39)"),
    ("bad_m256_cta1.sass", 153, 91, "error", "idesc.shape", "idesc", "0x10400490",
     "UTCHMMA (kind::f16, cta_group::1): m_dim[28:24]: M=256 is not allowed for kind::f16 cta_group::1 dense; M is 64 or 128; M=256 N=256 needs cta_group::2 dense (Table 39)"),
    ("bad_n24_cta2.ptx", 62, 55, "error", "idesc.shape", "idesc", "0x10060490",
     "tcgen05.mma.cta_group::2.kind::f16: n_dim[22:17]: N=24 is not allowed for kind::f16 cta_group::2 dense M=256; N is 16..256 in steps of 16 (Table 39)"),
    ("bad_n24_cta2.sass", 241, 96, "error", "idesc.shape", "idesc", "0x10060490",
     "UTCHMMA.2CTA (kind::f16, cta_group::2): n_dim[22:17]: N=24 is not allowed for kind::f16 cta_group::2 dense M=256; N is 16..256 in steps of 16 (Table 39)"),
    ("bad_reserved.ptx", 60, 55, "error", "idesc.reserved", "idesc", "0x08c00490",
     "tcgen05.mma.cta_group::1.kind::f16: reserved_23[23]: reserved bits are set (raw 1); they must be 0 (Table 42)"),
    ("bad_reserved.sass", 153, 91, "error", "idesc.reserved", "idesc", "0x08c00490",
     "UTCHMMA (kind::f16, cta_group::1): reserved_23[23]: reserved bits are set (raw 1); they must be 0 (Table 42)"),
    ("bad_smem_version.ptx", 60, 43, "error", "smem.reserved", "a_desc", "0x400000400000?x?0",
     "A descriptor: fixed_constant[48:46]: fixed constant must be 0b001, is 0b000 (Table 40)"),
    ("bad_smem_version.sass", 153, 44, "error", "smem.reserved", "a_desc", "0x4000004000000040",
     "A descriptor: fixed_constant[48:46]: fixed constant must be 0b001, is 0b000 (Table 40)"),
    ("bad_smem_swizzle.ptx", 60, 49, "error", "smem.swizzle", "b_desc", "0x600040400000?x?0",
     "B descriptor: swizzle[63:61]: swizzle code 3 is invalid; allowed 0 none, 1 128B_base32B, 2 128B, 4 64B, 6 32B (Table 40)"),
    ("bad_smem_swizzle.sass", 153, 56, "error", "smem.swizzle", "b_desc", "0x6000404000000440",
     "B descriptor: swizzle[63:61]: swizzle code 3 is invalid; allowed 0 none, 1 128B_base32B, 2 128B, 4 64B, 6 32B (Table 40)"),
    ("bad_max_shift.ptx", 60, 55, "error", "idesc.max_shift", "idesc", "0x48400490",
     "tcgen05.mma.cta_group::1.kind::f16: max_shift[31:30]: maximum shift is meaningful only for tcgen05.mma.ws (Table 42)"),
    ("bad_max_shift.sass", 153, 91, "error", "idesc.max_shift", "idesc", "0x48400490",
     "UTCHMMA (kind::f16, cta_group::1): max_shift[31:30]: maximum shift is meaningful only for tcgen05.mma.ws (Table 42)"),
    ("bad_tf32_f16acc.ptx", 60, 56, "error", "idesc.types", "idesc", "0x08400900",
     "tcgen05.mma.cta_group::1.kind::tf32: d_type[5:4]: code 0 is not a D type of kind::tf32; allowed f32=1 (Table 42-44)"),
    ("bad_tf32_f16acc.sass", 153, 91, "error", "idesc.types", "idesc", "0x08400900",
     "UTCHMMA (kind::f16 or kind::tf32, cta_group::1): as kind::tf32: d_type[5:4]: code 0 is not a D type of kind::tf32; allowed f32=1 (Table 42-44)"),
    ("bad_sparse_dense.ptx", 60, 55, "error", "idesc.sparse_form", "idesc", "0x08400494",
     "tcgen05.mma.cta_group::1.kind::f16: sparse[2]: the sparsity bit is set but the tcgen05.mma has no .sp (a dense MMA) (Table 42, 9.7.16.10.9.2)"),
    ("bad_sparse_dense.sass", 153, 91, "warning", "idesc.sparse_form", "idesc", "0x08400494",
     "UTCHMMA (kind::f16, cta_group::1): the sparsity bit is set but the idescE low word (the sparse metadata TMEM address) is 0, which is what nvcc writes for a dense tcgen05.mma (Table 42)"),
    ("bad_dense_sp.ptx", 61, 65, "error", "idesc.sparse_form", "idesc", "0x08200010",
     "tcgen05.mma.sp.cta_group::1.kind::f16: sparse[2]: tcgen05.mma.sp needs the sparsity bit set (it is 0: a dense descriptor) (Table 42, 9.7.16.10.9.2)"),
    ("bad_mxf4nvf4_scale_id.ptx", 62, 86, "error", "idesc.scale_id", "idesc", "0x28400480",
     "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X: a_scale_id[30:29]: kind::mxf4nvf4 allows scale factor ID 0 or 2, not 1 (Tables 43-44)"),
    ("bad_mxf4nvf4_scale_id.ptx", 62, 86, "error", "idesc.scale_id_4x", "idesc", "0x28400480",
     "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X: a_scale_id[30:29]: the scale factor ID must be 0 with scale_vec::4X, not 1 (9.7.16.10.7.2.3, 9.7.16.10.7.3.3)"),
    ("bad_mxf4nvf4_scale_id.sass", 157, 94, "error", "idesc.scale_id", "idesc", "0x28400480",
     "UTCOMMA.4X (kind::mxf4nvf4, cta_group::1): a_scale_id[30:29]: kind::mxf4nvf4 allows scale factor ID 0 or 2, not 1 (Tables 43-44)"),
    ("bad_mxf4nvf4_scale_id.sass", 157, 94, "error", "idesc.scale_id_4x", "idesc", "0x28400480",
     "UTCOMMA.4X (kind::mxf4nvf4, cta_group::1): a_scale_id[30:29]: the scale factor ID must be 0 with scale_vec::4X, not 1 (9.7.16.10.7.2.3, 9.7.16.10.7.3.3)"),
    ("bad_ws_m256.ptx", 61, 58, "error", "idesc.shape", "idesc", "0x10200010",
     "tcgen05.mma.ws.cta_group::1.kind::f16: m_dim[28:24]: M=256 is not allowed for kind::f16 cta_group::1 .ws dense; M is 32 or 64 or 128; M=256 N=128 needs cta_group::2 dense (Table 39)"),
    ("bad_ws_m256.sass", 153, 94, "error", "idesc.shape", "idesc", "0x10200010",
     "UTCHMMA.WS (kind::f16, cta_group::1, .ws): m_dim[28:24]: M=256 is not allowed for kind::f16 cta_group::1 .ws dense; M is 32 or 64 or 128; M=256 N=128 needs cta_group::2 dense (Table 39)"),
    ("bad_zcm_shift.ptx", 61, 66, "error", "zcm.column_shift", "zcm", "0x1400000000000000",
     "zero-column mask: column_shift[61:56]: column shift 20 exceeds 16 (M=32) (Table 45) (M=32 from the instruction descriptor)"),
    ("bad_zcm_shift.sass", 157, 108, "error", "zcm.column_shift", "zcm", "0x1400000000000000",
     "zero-column mask: column_shift[61:56]: column shift 20 exceeds 16 (M=32) (Table 45) (M=32 from the instruction descriptor)"),
    ("bad_bs_sp_cta2_m128.ptx", 65, 97, "error", "idesc.shape", "idesc", "0x08a00004",
     "tcgen05.mma.sp.cta_group::2.kind::mxf8f6f4.block_scale.scale_vec::1X: m_dim[28:27]: M=128 is not allowed for kind::mxf8f6f4 cta_group::2 sparse; M is 256; M=128 N=128 needs cta_group::1 sparse (Table 39)"),
    ("bad_bs_sp_cta2_m128.sass", 245, 96, "error", "idesc.shape", "idesc", "0x08a00004",
     "UTCQMMA.2CTA (kind::mxf8f6f4, cta_group::2): m_dim[28:27]: M=128 is not allowed for kind::mxf8f6f4 cta_group::2 sparse; M is 256; M=128 N=128 needs cta_group::1 sparse (Table 39)"),
    ("bad_cp_version.ptx", 57, 42, "error", "smem.reserved", "s_desc", "0x400000400000?x?0",
     "source descriptor: fixed_constant[48:46]: fixed constant must be 0b001, is 0b000 (Table 40)"),
    ("bad_cp_version.ptx", 64, 43, "error", "smem.reserved", "a_desc", "0x400000400000?x?0",
     "A descriptor: fixed_constant[48:46]: fixed constant must be 0b001, is 0b000 (Table 40)"),
    ("bad_cp_version.sass", 143, 63, "error", "smem.reserved", "s_desc", "0x4000004000000040",
     "source descriptor: fixed_constant[48:46]: fixed constant must be 0b001, is 0b000 (Table 40)"),
    ("bad_cp_version.sass", 165, 44, "error", "smem.reserved", "a_desc", "0x4000004000000040",
     "A descriptor: fixed_constant[48:46]: fixed constant must be 0b001, is 0b000 (Table 40)"),
    ("bad_block32_ue4m3.ptx", 62, 80, "error", "idesc.scale_vec", "idesc", "0x08400480",
     "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block32: scale_type[23]: kind::mxf4nvf4 with ue4m3 scale factors allows scale_vec::4X only, not scale_vec::2X (Tables 54-55, 9.7.16.10.7.1)"),
    # ue4m3 scale factors are not defined for kind::mxf4 (Tables 43-44): the word is
    # kind::mxf4nvf4, and UTCOMMA without .4X is scale_vec::2X
    ("bad_block32_ue4m3.sass", 157, 91, "error", "idesc.scale_vec", "idesc", "0x08400480",
     "UTCOMMA (kind::mxf4nvf4, cta_group::1): scale_type[23]: kind::mxf4nvf4 with ue4m3 scale factors allows scale_vec::4X only, not scale_vec::2X (Tables 54-55, 9.7.16.10.7.1)"),
    ("bad_atmem_m256.ptx", 61, 56, "error", "idesc.shape", "idesc", "0x10400490",
     "tcgen05.mma.cta_group::1.kind::f16: m_dim[28:24]: M=256 is not allowed for kind::f16 cta_group::1 dense; M is 64 or 128; M=256 N=256 needs cta_group::2 dense (Table 39)"),
    # 64-bit K steps (src/kstep64.cu): the upper fields are known under the K-step rule (PTX)
    ("bad_kstep64_version.ptx", 51, 43, "error", "smem.reserved", "a_desc", "0x400000400001xxxx",
     "A descriptor: fixed_constant[48:46]: fixed constant must be 0b001, is 0b000 (Table 40)"),
    ("bad_kstep64_version.ptx", 62, 43, "error", "smem.reserved", "a_desc", "0x400000400001xxxx",
     "A descriptor: fixed_constant[48:46]: fixed constant must be 0b001, is 0b000 (Table 40)"),
    ("bad_kstep64_version.ptx", 73, 43, "error", "smem.reserved", "a_desc", "0x400000400001xxxx",
     "A descriptor: fixed_constant[48:46]: fixed constant must be 0b001, is 0b000 (Table 40)"),
    ("bad_kstep64_version.ptx", 84, 43, "error", "smem.reserved", "a_desc", "0x400000400001xxxx",
     "A descriptor: fixed_constant[48:46]: fixed constant must be 0b001, is 0b000 (Table 40)"),
    ("bad_kstep64_version.ptx", 103, 43, "error", "smem.reserved", "a_desc", "0x400000400001xxxx",
     "A descriptor: fixed_constant[48:46]: fixed constant must be 0b001, is 0b000 (Table 40)"),
    ("bad_kstep64_swizzle.ptx", 51, 50, "error", "smem.swizzle", "b_desc", "0x600040400001xxxx",
     "B descriptor: swizzle[63:61]: swizzle code 3 is invalid; allowed 0 none, 1 128B_base32B, 2 128B, 4 64B, 6 32B (Table 40)"),
    ("bad_kstep64_swizzle.ptx", 62, 50, "error", "smem.swizzle", "b_desc", "0x600040400001xxxx",
     "B descriptor: swizzle[63:61]: swizzle code 3 is invalid; allowed 0 none, 1 128B_base32B, 2 128B, 4 64B, 6 32B (Table 40)"),
    ("bad_kstep64_swizzle.ptx", 73, 50, "error", "smem.swizzle", "b_desc", "0x600040400001xxxx",
     "B descriptor: swizzle[63:61]: swizzle code 3 is invalid; allowed 0 none, 1 128B_base32B, 2 128B, 4 64B, 6 32B (Table 40)"),
    ("bad_kstep64_swizzle.ptx", 84, 50, "error", "smem.swizzle", "b_desc", "0x600040400001xxxx",
     "B descriptor: swizzle[63:61]: swizzle code 3 is invalid; allowed 0 none, 1 128B_base32B, 2 128B, 4 64B, 6 32B (Table 40)"),
    ("bad_kstep64_swizzle.ptx", 103, 50, "error", "smem.swizzle", "b_desc", "0x600040400001xxxx",
     "B descriptor: swizzle[63:61]: swizzle code 3 is invalid; allowed 0 none, 1 128B_base32B, 2 128B, 4 64B, 6 32B (Table 40)"),
    # ... and in SASS (UIADD3 / UIADD3.X / UIADD3.64 K steps)
    ("bad_kstep64_version.sass", 61, 44, "error", "smem.reserved", "a_desc", "0x400000400001xxxx",
     "A descriptor: fixed_constant[48:46]: fixed constant must be 0b001, is 0b000 (Table 40)"),
    ("bad_kstep64_version.sass", 81, 44, "error", "smem.reserved", "a_desc", "0x400000400001xxxx",
     "A descriptor: fixed_constant[48:46]: fixed constant must be 0b001, is 0b000 (Table 40)"),
    ("bad_kstep64_version.sass", 101, 44, "error", "smem.reserved", "a_desc", "0x400000400001xxxx",
     "A descriptor: fixed_constant[48:46]: fixed constant must be 0b001, is 0b000 (Table 40)"),
    ("bad_kstep64_version.sass", 121, 44, "error", "smem.reserved", "a_desc", "0x400000400001xxxx",
     "A descriptor: fixed_constant[48:46]: fixed constant must be 0b001, is 0b000 (Table 40)"),
    ("bad_kstep64_version.sass", 167, 44, "error", "smem.reserved", "a_desc", "0x400000400001xxxx",
     "A descriptor: fixed_constant[48:46]: fixed constant must be 0b001, is 0b000 (Table 40)"),
    ("bad_kstep64_swizzle.sass", 61, 56, "error", "smem.swizzle", "b_desc", "0x600040400001xxxx",
     "B descriptor: swizzle[63:61]: swizzle code 3 is invalid; allowed 0 none, 1 128B_base32B, 2 128B, 4 64B, 6 32B (Table 40)"),
    ("bad_kstep64_swizzle.sass", 81, 57, "error", "smem.swizzle", "b_desc", "0x600040400001xxxx",
     "B descriptor: swizzle[63:61]: swizzle code 3 is invalid; allowed 0 none, 1 128B_base32B, 2 128B, 4 64B, 6 32B (Table 40)"),
    ("bad_kstep64_swizzle.sass", 101, 57, "error", "smem.swizzle", "b_desc", "0x600040400001xxxx",
     "B descriptor: swizzle[63:61]: swizzle code 3 is invalid; allowed 0 none, 1 128B_base32B, 2 128B, 4 64B, 6 32B (Table 40)"),
    ("bad_kstep64_swizzle.sass", 121, 57, "error", "smem.swizzle", "b_desc", "0x600040400001xxxx",
     "B descriptor: swizzle[63:61]: swizzle code 3 is invalid; allowed 0 none, 1 128B_base32B, 2 128B, 4 64B, 6 32B (Table 40)"),
    ("bad_kstep64_swizzle.sass", 167, 56, "error", "smem.swizzle", "b_desc", "0x600040400001xxxx",
     "B descriptor: swizzle[63:61]: swizzle code 3 is invalid; allowed 0 none, 1 128B_base32B, 2 128B, 4 64B, 6 32B (Table 40)"),
    ("bad_atmem_m256.sass", 149, 90, "error", "idesc.shape", "idesc", "0x10400490",
     "UTCHMMA (kind::f16, cta_group::1): m_dim[28:24]: M=256 is not allowed for kind::f16 cta_group::1 dense; M is 64 or 128; M=256 N=256 needs cta_group::2 dense (Table 39)"),
    # constant descriptors in a one-thread branch (src/const.cu): in SASS each half is a
    # predicated UMOV (@!UP1 UMOV UR8, lo; @!UP1 UMOV UR9, hi) and the MMA is guarded alike
    ("bad_const_version.ptx", 53, 43, "error", "smem.reserved", "a_desc", "0x4000004000010040",
     "A descriptor: fixed_constant[48:46]: fixed constant must be 0b001, is 0b000 (Table 40)"),
    ("bad_const_version.sass", 147, 50, "error", "smem.reserved", "a_desc", "0x4000004000010040",
     "A descriptor: fixed_constant[48:46]: fixed constant must be 0b001, is 0b000 (Table 40)"),
    ("bad_const_reserved.ptx", 53, 48, "error", "smem.reserved", "b_desc", "0x4000404000014440",
     "B descriptor: reserved_14[15:14]: reserved bits are set (raw 1); they must be 0 (Table 40)"),
    ("bad_const_reserved.sass", 147, 63, "error", "smem.reserved", "b_desc", "0x4000404000014440",
     "B descriptor: reserved_14[15:14]: reserved bits are set (raw 1); they must be 0 (Table 40)"),
    ("bad_const_swizzle_cta2.ptx", 55, 49, "error", "smem.swizzle", "b_desc", "0x6000404000010440",
     "B descriptor: swizzle[63:61]: swizzle code 3 is invalid; allowed 0 none, 1 128B_base32B, 2 128B, 4 64B, 6 32B (Table 40)"),
    ("bad_const_swizzle_cta2.sass", 235, 68, "error", "smem.swizzle", "b_desc", "0x6000404000010440",
     "B descriptor: swizzle[63:61]: swizzle code 3 is invalid; allowed 0 none, 1 128B_base32B, 2 128B, 4 64B, 6 32B (Table 40)"),
    # (.ws: ptxas branches around the MMA instead of predicating it)
    ("bad_const_ws_version.ptx", 54, 52, "error", "smem.reserved", "b_desc", "0x4000004000010440",
     "B descriptor: fixed_constant[48:46]: fixed constant must be 0b001, is 0b000 (Table 40)"),
    ("bad_const_ws_version.sass", 149, 60, "error", "smem.reserved", "b_desc", "0x4000004000010440",
     "B descriptor: fixed_constant[48:46]: fixed constant must be 0b001, is 0b000 (Table 40)"),
    # tcgen05.ld/st at constant addresses; in SASS ptxas folds them: LDTM.x4 R4, tmem[0x1fe]
    ("bad_tmem_columns.ptx", 42, 62, "error", "tmem.ld.columns", "taddr", "0x000001fe",
     "tcgen05.ld: touches columns 510-513, beyond Tensor Memory's 512 columns (0-511) (9.7.16.1, 9.7.16.2.3)"),
    ("bad_tmem_columns.sass", 113, 48, "error", "tmem.ld.columns", "taddr", "0x000001fe",
     "tcgen05.ld: touches columns 510-513, beyond Tensor Memory's 512 columns (0-511) (9.7.16.1, 9.7.16.2.3)"),
    ("bad_tmem_lanes.ptx", 53, 41, "error", "tmem.st.lanes", "taddr", "0x00780000",
     "tcgen05.st: touches lanes 120-135, beyond Tensor Memory's 128 lanes (0-127) (9.7.16.1, 9.7.16.2.3)"),
    ("bad_tmem_lanes.sass", 139, 52, "error", "tmem.st.lanes", "taddr", "0x00780000",
     "tcgen05.st: touches lanes 120-135, beyond Tensor Memory's 128 lanes (0-127) (9.7.16.1, 9.7.16.2.3)"),
]


@pytest.mark.parametrize("v", MAIN, ids=lambda v: v.name)
@pytest.mark.parametrize("ext", ["ptx", "sass"])
def test_exact_findings(v, ext):
    name = f"{v.name}.{ext}"
    assert _shown(_lint(name)) == [e for e in EXPECTED if e[0] == name]


def test_every_planted_error_is_expected():
    planted = {v.name for v in MAIN if v.expect}
    assert {e[0].rsplit(".", 1)[0] for e in EXPECTED} == planted
    for v in MAIN:
        for ext in ("ptx", "sass"):
            want = v.sass_expect if ext == "sass" and v.sass_expect is not None else v.expect
            got = {e[4] for e in EXPECTED if e[0] == f"{v.name}.{ext}" and e[3] == "error"}
            assert got == set(want), (v.name, ext)
    # the only planted errors SASS cannot prove: the sparsity bit against .sp, which has no
    # SASS suffix (the idescE low word hints at it: a warning; see lint docs)
    # (a dense word with a run-time low word, bad_dense_sp.sass, is a note: production kernels
    # leave run-time values there for dense MMAs)
    assert [e[:5] for e in EXPECTED if e[3] != "error"] == [
        ("bad_sparse_dense.sass", 153, 91, "warning", "idesc.sparse_form")]


@pytest.mark.parametrize("v", HELDOUT, ids=lambda v: v.name)
@pytest.mark.parametrize("ext", ["ptx", "sass"])
def test_heldout(v, ext):
    findings = _lint(f"{v.name}.{ext}")
    assert {f.rule for f in findings if f.severity == "error"} == set(v.expect)
    assert not [f for f in findings if f.severity == "warning"]


# ------------------------------------------------------------------ readers

#: SASS opcode + suffixes observed for each PTX form (nvcc 13.0, sm_100a).
SASS_OPCODES = {
    "f16_cta1": "UTCHMMA", "tf32_cta1": "UTCHMMA", "f8f6f4_cta1": "UTCQMMA", "i8_cta1": "UTCIMMA",
    "f16_cta2": "UTCHMMA.2CTA", "f16_ws": "UTCHMMA.WS", "f16_sp": "UTCHMMA",
    "mxf8f6f4_bs": "UTCQMMA", "mxf4nvf4_bs": "UTCOMMA.4X", "mxf4_bs_cta2": "UTCOMMA.2CTA",
    "mxf8f6f4_bs_sp": "UTCQMMA", "f16_atmem": "UTCHMMA", "mxf8f6f4_bs_atmem": "UTCQMMA",
    "mxf4nvf4_block16": "UTCOMMA.4X", "mxf4nvf4_block32": "UTCOMMA", "f16_collector": "UTCHMMA",
    "f16_ws_collector": "UTCHMMA.WS", "cp_f16": "UTCHMMA",
}


@pytest.mark.parametrize("name", sorted(SASS_OPCODES))
def test_sass_mapping(name):
    with open(FIX / f"{name}.sass") as fh:
        mmas = [i for i in read_sass(fh) if isinstance(i, Instruction) and "MMA" in i.opcode]
    assert [i.opcode for i in mmas] == [SASS_OPCODES[name]]
    assert mmas[0].opcode.split(".")[0] in SASS_MMA
    idesc = next(o for o in mmas[0].operands if o.text.startswith("idesc["))
    assert idesc.value.is_const and idesc.value.value == int(build.BY_NAME[name].idesc, 16)
    low = mmas[0].operands[[o.text for o in mmas[0].operands].index(idesc.text) - 1]
    # the idescE low word: 0 for dense forms, the sparse metadata TMEM address (run time) for .sp
    assert low.value.is_const == ("_sp" not in name)
    # shared memory descriptor operands (collector suffixes such as gdesc[UR4].A_KEEP included):
    # the constant upper word is known; A from Tensor Memory is a tmem[..] first operand
    gdescs = [o for o in mmas[0].operands if o.text.startswith("gdesc[")]
    assert len(gdescs) == (1 if "atmem" in name else 2)
    assert all(o.value.slice(32, 32).value == 0x40004040 and o.value.known >> 32 == 0xFFFFFFFF
               for o in gdescs)
    assert mmas[0].operands[0].text.startswith("tmem[" if "atmem" in name else "gdesc[")


def test_ptx_values_and_origins():
    with open(FIX / "f16_ws.ptx") as fh:
        mma = next(i for i in read_ptx(fh) if isinstance(i, Instruction)
                   and i.opcode.startswith("tcgen05.mma"))
    a, b, idesc, zcm = (mma.operands[k].value for k in (1, 2, 3, 5))
    assert idesc.is_const and idesc.value == 0x04200010
    assert zcm.is_const and zcm.value == 0x0003028000000000
    # constant upper half, run-time start address: bits 6..13 unknown (and 0x3FC0 mask)
    assert a.pattern() == "0x400040400000?x?0"
    assert a.known == (1 << 64) - 1 - 0x3FC0
    assert mma.operands[3].origin[1] == "mov.b32 %r6, 69206032"


def test_bare_ptx_lines():
    text = ["mov.b32 %r37, 138413200;", "mov.b64 %rd9, 4611756662049538048;",
            "or.b64 %rd2, %rd10, %rd9;",
            "tcgen05.mma.cta_group::1.kind::f16 [%r2], %rd2, %rd2, %r37, p;"]
    assert sniff(text) == "ptx"
    findings = list(lint_lines(text, file="snippet"))
    arch, *findings = findings
    assert (arch.line, arch.rule, arch.message) == (0, "lint.arch", "arch-gated rules follow "
                                                    "sm_100a: the input names no target; "
                                                    "assuming sm_100a (--arch to choose)")
    assert [f.severity for f in findings] == ["note", "note"]  # start address at run time
    bad = ["mov.b32 %r37, 272630928;", *text[1:]]  # M=256 under cta_group::1
    err = [f for f in lint_lines(bad, file="snippet") if f.severity == "error"]
    assert [(f.line, f.col, f.rule, f.word) for f in err] == [(4, 55, "idesc.shape", "0x10400490")]


def test_data_flow_ptx_ops():
    text = [".entry k(", ")", "{",
            "mov.b32 %r1, 0x4000;", "shl.b32 %r2, %r1, 8;", "or.b32 %r3, %r2, 0x40;",
            "cvt.u64.u32 %rd1, %r3;", "shl.b64 %rd2, %rd1, 32;", "ld.param.u32 %r4, [p];",
            "and.b32 %r5, %r4, 0x3FF0;", "shr.u32 %r6, %r5, 4;", "cvt.u64.u32 %rd3, %r6;",
            "add.s64 %rd4, %rd2, %rd3;", "mov.b64 {%r7, %r8}, %rd4;",
            "mov.b64 %rd5, {%r7, %r8};", "mov.u32 %r9, 0;", "mov.u32 %r9, 1;",
            "tcgen05.mma.cta_group::1.kind::f16 [%r2], %rd5, %rd4, %r9, p;", "}"]
    mma = next(i for i in read_ptx(text) if isinstance(i, Instruction))
    assert mma.operands[1].value.pattern() == "0x0040004000000?xx"
    assert mma.operands[1].value.known == (1 << 64) - 1 - 0x3FF
    assert mma.operands[3].value.value == 1  # two definitions: the later one reaches the MMA
    assert mma.operands[3].origin == (17, "mov.u32 %r9, 1")


def test_runtime_idesc_is_a_note():
    text = ["ld.param.u32 %r1, [idesc_param];",
            "tcgen05.mma.cta_group::1.kind::f16 [%r2], %rd2, %rd3, %r1, p;"]
    findings = list(lint_lines(text, file="s"))
    assert [(f.severity, f.rule, f.operand, f.word) for f in findings] == [
        ("note", "lint.arch", None, None),
        ("note", "lint.runtime", "idesc", "0xxxxxxxxx"),
        ("note", "lint.runtime", "a_desc", "0xxxxxxxxxxxxxxxxx"),
        ("note", "lint.runtime", "b_desc", "0xxxxxxxxxxxxxxxxx")]


def test_alloc_dealloc_immediates():
    text = ["tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r4], 96;",
            "tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, 1024;"]
    f = [(x.line, x.rule, x.word) for x in lint_lines(text, file="s") if x.severity == "error"]
    assert f == [(1, "tmem.alloc", "96"), (2, "tmem.alloc", "1024")]


def test_ld_st_and_cp():
    text = ["mov.b32 %r2, 8388608;",  # lane 128
            "tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r10, %r11, %r12}, [%r2];",
            "mov.b32 %r5, 500;",
            "tcgen05.st.sync.aligned.32x32b.x32.b32 [%r5], {" + ", ".join(
                f"%r{i}" for i in range(100, 132)) + "};",
            "ld.shared.u32 %r6, [tmem_base];",
            "tcgen05.ld.sync.aligned.16x64b.x4.b32 {%r21, %r22, %r23, %r24}, [%r6];",
            "mov.b64 %rd8, 4611686293305294848;",  # no 0b001 constant
            "tcgen05.cp.cta_group::1.128x256b [%r5], %rd8;",
            "mov.b32 %r30, 1048576;",  # lane 16
            "tcgen05.shift.cta_group::1.down [%r30];"]
    got = [(f.line, f.rule, f.operand) for f in lint_lines(text) if f.severity == "error"]
    assert got == [(2, "tmem.ld.num", "registers"), (2, "tmem.ld.lanes", "taddr"),
                   (4, "tmem.st.columns", "taddr"), (8, "smem.reserved", "s_desc"),
                   (10, "tmem.shift_lane", "taddr")]


def test_arch_option_and_target():
    assert not [f for f in _lint("i8_cta1.ptx") if f.severity == "error"]
    err = [f for f in _lint("i8_cta1.ptx", arch="sm_103a") if f.severity == "error"]
    assert [f.rule for f in err] == ["idesc.arch"]
    text = [".target sm_103a", "mov.b32 %r1, 138413216;",
            "tcgen05.mma.cta_group::1.kind::i8 [%r2], %rd2, %rd3, %r1, p;"]
    assert [f.rule for f in lint_lines(text) if f.severity == "error"] == ["idesc.arch"]


# ------------------------------------------------------------------ CLI

def test_cli_text_and_exit_codes():
    r = run("lint", str(FIX / "bad_m256_cta1.ptx"), str(FIX / "f16_cta1.sass"))
    assert r.exit_code == 1
    lines = r.stdout.splitlines()
    assert re.match(r".*bad_m256_cta1\.ptx:60:55: error: \[idesc\.shape\] tcgen05\.mma\.cta_group::1"
                    r"\.kind::f16: m_dim\[28:24\]: M=256 is not allowed", lines[0])
    assert lines[1] == "    tcgen05.mma.cta_group::1.kind::f16 [%r2], %rd2, %rd3, %r6, p"
    assert lines[2] == "    idesc = 0x10400490 from line 55: mov.b32 %r6, 272630928"
    assert lines[3] == "    decoded as kind::f16: bf16 x bf16 -> f32, M=256 N=256"
    assert lines[-1].startswith("1 error, 0 warnings,")
    r = run("lint", str(FIX / "f16_cta1.ptx"))
    assert r.exit_code == 0 and "0 errors" in r.stdout and "note:" not in r.stdout
    assert "note: [lint.runtime]" in run("lint", "-v", str(FIX / "f16_cta1.ptx")).stdout


def test_cli_json():
    r = run("lint", "--format", "json", str(FIX / "bad_zcm_shift.sass"))
    assert r.exit_code == 1
    doc = json.loads(r.stdout)
    err = [f for f in doc["findings"] if f["severity"] == "error"]
    assert len(err) == 1
    assert {k: err[0][k] for k in ("line", "rule", "operand", "word")} == {
        "line": 157, "rule": "zcm.column_shift", "operand": "zcm", "word": "0x1400000000000000"}
    assert set(err[0]) >= {"file", "line", "severity", "rule", "message", "instruction",
                           "operand", "word"}
    assert err[0]["instruction"].startswith("UTCHMMA.WS gdesc[UR6]")


def test_cli_stdin():
    from typer.testing import CliRunner

    from cli.main import app
    text = (FIX / "bad_reserved.ptx").read_bytes()
    r = CliRunner().invoke(app, ["lint", "-"], input=text)
    assert r.exit_code == 1 and "<stdin>:60:55: error: [idesc.reserved]" in r.stdout


@pytest.mark.parametrize("args,message", [
    (["lint", "--arch", "sm_89", "x.ptx"], "unknown architecture 'sm_89'"),
    (["lint", "/nonexistent.ptx"], "cannot read /nonexistent.ptx"),
])
def test_cli_usage_errors(args, message):
    r = run(*args)
    assert r.exit_code == 2 and message in r.stderr and "Traceback" not in r.stderr


# ------------------------------------------------------------------ bad input

def _cli_bytes(tmp_path, data: bytes, *extra: str):
    p = tmp_path / "input"
    p.write_bytes(data)
    return run("lint", *extra, str(p))


def test_binary_junk(tmp_path):
    r = _cli_bytes(tmp_path, bytes(range(256)) * 64)
    assert r.exit_code == 2 and "binary data" in r.stderr and "Traceback" not in r.stderr


def test_empty_and_unknown(tmp_path):
    """Input with no PTX or SASS in it is a bad input (exit 2, one line on stderr), not a clean
    one; PTX without a tcgen05 instruction is clean (a lint.nothing note)."""
    r = _cli_bytes(tmp_path, b"", "-v")
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr == f"descgen: error: {tmp_path / 'input'}: no PTX or SASS found (empty)\n"
    r = _cli_bytes(tmp_path, b"#define X 1\nfoo.bar %r1, %r2;\n\xff\xfe garbage ;;; {{{ \n", "-v")
    assert r.exit_code == 2 and "no PTX or SASS found" in r.stderr
    assert "Traceback" not in r.stdout + r.stderr
    r = _cli_bytes(tmp_path, b".version 9.0\n.target sm_100a\nmov.b32 %r1, 5;\n", "-v")
    assert r.exit_code == 0 and "nothing to check: no tcgen05 or wgmma instruction found (read as ptx)" in r.stdout


def test_crlf_and_truncated(tmp_path):
    text = (FIX / "bad_reserved.ptx").read_text().replace("\n", "\r\n").encode()
    r = _cli_bytes(tmp_path, text)
    assert r.exit_code == 1 and ":60:55: error: [idesc.reserved]" in r.stdout
    cut = (FIX / "bad_reserved.sass").read_bytes()
    half = cut[:cut.index(b"UTCHMMA") + 20]  # ends inside the MMA line
    r = _cli_bytes(tmp_path, half)
    assert r.exit_code == 0 and "Traceback" not in r.stdout
    long_line = b"mov.b32 %r1, " + b"9" * 10_000_000 + b";\n"
    r = _cli_bytes(tmp_path, long_line + (FIX / "bad_reserved.ptx").read_bytes())
    assert r.exit_code == 1


class _Endless(io.RawIOBase):
    """``n`` lines of a PTX statement, produced on demand."""

    def __init__(self, n: int) -> None:
        self.left = n
        self.line = b"\tadd.s32 \t%r13, %r10, %r11; // filler\n"

    def readable(self) -> bool:
        return True

    def readline(self, size: int = -1) -> bytes:  # type: ignore[override]
        if self.left <= 0:
            return b""
        self.left -= 1
        return self.line

    def read(self, size: int = -1) -> bytes:
        n = min(self.left, max(1, size // len(self.line)) if size > 0 else self.left)
        self.left -= n
        return self.line * n


def _peak(lines: int) -> tuple[int, list]:
    from descriptors.readers.binary import text_lines
    tracemalloc.start()
    out = list(lint_lines(text_lines(_Endless(lines), "big"), file="big"))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak, out


def test_large_stream_constant_memory(monkeypatch):
    """Memory does not grow with the input: 4x the lines, about the same peak (functions are
    analysed in pieces of MAX_FUNCTION statements, each piece said in a lint.split note)."""
    import descriptors.readers.ptx as ptx
    monkeypatch.setattr(ptx, "MAX_FUNCTION", 500)
    small, out_small = _peak(2_000)
    large, out_large = _peak(8_000)
    assert large < 1.5 * small
    assert [f.rule for f in out_large].count("lint.split") == 16
    assert out_large[-1].rule == "lint.nothing"


# ------------------------------------------------------------------ rebuild with nvcc

SAMPLE = ("f16_cta1", "bad_zcm_shift")


def _rebuild(name: str, tmp_path: Path) -> None:
    found = build.tools()
    if isinstance(found, str):
        pytest.skip(found)
    v = build.BY_NAME[name]
    ptx, sass = build.build(v, tmp_path, *found)
    assert ptx == (FIX / f"{name}.ptx").read_text()
    assert sass == (FIX / f"{name}.sass").read_text()


@pytest.mark.parametrize("name", SAMPLE)
def test_fixtures_rebuild_sample(name, tmp_path):
    _rebuild(name, tmp_path)


@pytest.mark.nvcc_all
@pytest.mark.parametrize("name", [v.name for v in build.VARIANTS if v.name not in SAMPLE])
def test_fixtures_rebuild_all(name, tmp_path):
    _rebuild(name, tmp_path)


# ------------------------------------------------------------------ dump on PTX (same reader)

def test_dump_finds_ptx_immediates():
    from descriptors.tools.dump import scan
    found = scan((FIX / "f16_ws.ptx").read_text())
    got = [(f.line, f.source, f.hex, f.best.descriptor, f.best.kind, f.best.valid) for f in found]
    assert got == [(51, "ptx", "0x4000404000000000", "smem", None, True),
                   (54, "ptx", "0x4000404000000000", "smem", None, True),
                   (55, "ptx", "0x04200010", "idesc", "f16", True),
                   (56, "ptx", "0x0003028000000000", "zcm", None, True)]
    assert found[2].text == "mov.b32 %r6, 69206032"
    assert any("it feeds idesc of tcgen05.mma.ws.cta_group::1.kind::f16 at line 61" in e
               for e in found[2].best.evidence)
    # the instruction's kind decides the reading (the word alone is also a kind::f8f6f4 word)
    found = scan((FIX / "f8f6f4_cta1.ptx").read_text())
    assert [f.best.kind for f in found if f.best.descriptor == "idesc"] == ["f8f6f4"]


def test_dump_cli_on_ptx():
    out = run("dump", "--plain", "--table-only", str(FIX / "bad_reserved.ptx"))
    assert out.exit_code == 0
    assert re.search(r"55\s+ptx\s+0x08c00490 .*INVALID", out.stdout)


def test_sass_loops_are_not_guessed():
    """A value a loop changes is unknown at the use (but for the K-step rule on shared memory
    descriptors); constants a loop re-materialises are merged (nvdisasm-style listing with a
    back edge over the MMA)."""
    text = """        /*0000*/                   UMOV UR8, 0x80 ;
        /*0010*/                   UMOV UR9, 0x40004040 ;
        /*0020*/                   UMOV UR10, 0x880 ;
        /*0030*/                   UMOV UR11, 0x40004040 ;
        /*0040*/                   UMOV UR4, URZ ;
        /*0050*/                   UMOV UR5, 0x8400490 ;
        /*0060*/                   UTCHMMA gdesc[UR8], gdesc[UR10], tmem[UR6], tmem[UR4], idesc[UR5], UPT ;
        /*0070*/                   UMOV UR5, 0x10400490 ;
        /*0080*/                   UIADD3 UR8, UPT, UPT, UR8, 0x4, URZ ;
        /*0090*/                   BRA 0x60 ;""".splitlines()
    mma = next(i for i in read_sass(text) if isinstance(i, Instruction))
    a, b, _d, _low, idesc = (o.value for o in mma.operands[:5])
    # UR8 += 4 on every trip: a K step, so only the start address (and the two unused bits
    # above it) is unknown, under the rule that a step does not carry out of it (Table 40)
    assert a.pattern() == "0x400040400000xxxx"
    assert mma.operands[0].assumes and "K-step" in mma.operands[0].assumes
    assert mma.operands[1].assumes is None
    assert b.is_const and b.value == 0x4000404000000880
    assert idesc.pattern() == "0x??400490"  # 0x08400490 or 0x10400490
    assert [a.bits.value for a in mma.operands[4].alternatives] == [0x08400490, 0x10400490]
    # the second trip reads 0x10400490: M=256 under cta_group::1 on that path.  Whether a
    # path of a SASS listing's control flow can reach the MMA is not known (a register
    # reused across a loop looks the same), so a finding of some paths only is a note
    assert not [f for f in lint_lines(text) if f.severity in ("error", "warning")]
    some = [f for f in lint_lines(text) if f.rule == "idesc.shape"]
    assert [(f.severity, f.message.split(":")[0], f.evidence[0]) for f in some] == [
        ("note", "on some paths", "idesc = 0x10400490 from line 8: UMOV UR5, 0x10400490")]


CONST = [v for v in build.VARIANTS if v.src == "const.cu"]


@pytest.mark.parametrize("v", CONST, ids=lambda v: v.name)
def test_dump_reports_constant_descriptor_pairs(v):
    """src/const.cu: each constant A/B descriptor is one 64-bit word at its MMA in the SASS
    (in the PTX: the mov.b64 immediates), valid but for a planted error, whether ptxas
    predicates the moves of its halves (@!UP1 UMOV) or branches around the MMA."""
    from descriptors.tools.dump import scan
    want = {int(h.removesuffix("ull"), 16) for h in (v.a_hi, v.b_hi)}
    for ext in ("sass", "ptx"):
        found = [f for f in scan((FIX / f"{v.name}.{ext}").read_text())
                 if f.best.descriptor == "smem"]
        assert {int(f.hex, 16) for f in found} == want, ext
        assert all(f.size == 64 for f in found), ext
        bad = {f.hex for f in found if not f.best.valid}
        assert len(bad) == (1 if v.expect else 0), ext
        if ext == "sass":
            mma = {f.line for f in found}
            assert len(mma) == 1 and all(f.text.startswith("gdesc[") for f in found)


def test_predicated_pairs_in_const_fixtures():
    """The shape the fixtures are for: in most forms ptxas writes both halves under one vote
    and guards the MMA with another (VOTEU.ALL UP1, P0 / VOTEU.ALL UP2, P0)."""
    shaped = [v.name for v in CONST
              if "@!UP1 UMOV" in (text := (FIX / f"{v.name}.sass").read_text())
              and re.search(r"@!UP2 UTC\w+MMA", text)]
    assert shaped == ["const_f16_cta1", "const_tf32_cta1", "const_f8f6f4_cta1", "const_i8_cta1",
                      "const_f16_cta2", "bad_const_version", "bad_const_reserved",
                      "bad_const_swizzle_cta2"]


def test_guarded_descriptor_halves_are_paired():
    """Both halves written by predicated moves under the MMA's guard: the pair is judged (the
    written lo with the written hi), as a single guarded idesc is; a planted error is found.
    Halves each written on two paths stay what every combination agrees on."""
    head = """        /*0000*/                   ULDC.64 UR8, c[0x0][0x380] ;
        /*0010*/                   ULDC.64 UR10, c[0x0][0x388] ;
        /*0020*/                   VOTEU.ALL UP1, P0 ;
        /*0030*/                   VOTEU.ALL UP2, P0 ;
        /*0040*/                   @!UP1 UMOV UR8, 0x10040 ;
        /*0050*/                   @!UP1 UMOV UR9, {hi} ;
        /*0060*/                   @!UP1 UMOV UR10, 0x10440 ;
        /*0070*/                   @!UP1 UMOV UR11, 0x40004040 ;
        /*0080*/                   @!UP1 UMOV UR4, URZ ;
        /*0090*/                   @!UP1 UMOV UR5, 0x8400490 ;
        /*00a0*/                   @!UP2 UTCHMMA gdesc[UR8], gdesc[UR10], tmem[UR6], tmem[UR4], idesc[UR5], UPT ;"""
    text = head.format(hi="0x40004040").splitlines()
    mma = next(i for i in read_sass(text) if isinstance(i, Instruction))
    a, b = mma.operands[:2]
    assert [x.bits.value for x in a.judged] == [0x4000404000010040]
    assert [x.bits.value for x in b.judged] == [0x4000404000010440]
    assert not [f for f in lint_lines(text) if f.operand in ("a_desc", "b_desc")]
    planted = [f for f in lint_lines(head.format(hi="0x40000040").splitlines())
               if f.severity == "error"]
    assert [(f.rule, f.operand, f.word) for f in planted] == [
        ("smem.reserved", "a_desc", "0x4000004000010040")]
    # two paths, each writing both halves: which lo goes with which hi is not known
    two = """        /*0000*/               @P0 BRA 0x40 ;
        /*0010*/                   UMOV UR8, 0x10040 ;
        /*0020*/                   UMOV UR9, 0x40004040 ;
        /*0030*/                   BRA 0x60 ;
        /*0040*/                   UMOV UR8, 0x10080 ;
        /*0050*/                   UMOV UR9, 0x40004080 ;
        /*0060*/                   UTCHMMA gdesc[UR8], gdesc[UR8], tmem[UR6], tmem[UR4], idesc[UR5], UPT ;""".splitlines()
    mma = next(i for i in read_sass(two) if isinstance(i, Instruction))
    assert mma.operands[0].value.pattern() == "0x400040?0000100?0"
    assert mma.operands[0].alternatives == ()


def test_cute_and_triton_style_descriptors():
    """CuTe masks a run-time descriptor and ORs the constant part in; Triton assembles it from
    two 32-bit halves (PTX that nvcc and Triton emit).  Only the constant fields are judged."""
    cute = ["ld.param.u64 %rd1, [desc_param];",
            "and.b64 %rd2, %rd1, 9223301530671579136;",  # 0x7fffbfdfffff0000
            "or.b64 %rd3, %rd2, 4611756662049538048;",  # 0x4000404000010000
            "mov.b32 %r9, 138413200;",
            "tcgen05.mma.cta_group::1.kind::f16 [%r2], %rd3, %rd3, %r9, p;"]
    mma = next(i for i in read_ptx(cute) if isinstance(i, Instruction))
    a = mma.operands[1].value
    assert a.one == 0x4000404000010000 and a.zero & 0xFFFF == 0xFFFF  # start address 0
    assert not [f for f in lint_lines(cute) if f.severity == "error"]
    stepped = [cute[0], cute[1], "or.b64 %rd3, %rd2, 4611756662049538051;", *cute[3:]]
    mma = next(i for i in read_ptx(stepped) if isinstance(i, Instruction))
    a = mma.operands[1].value  # the mask clears bits 15-0 and the OR sets them: start 48 B
    assert a.known & 0xFFFF == 0xFFFF and a.one & 0xFFFF == 3
    assert not [f for f in lint_lines(stepped) if f.severity == "error"]
    triton = ["ld.shared.u32 %r253, [smem_addr];",
              "mov.b32 %r256, 1073758272;",  # 0x40004040: upper half
              "mov.b64 %rd389, {%r253, %r256};",
              "mov.b32 %r9, 272630928;",  # M=256
              "tcgen05.mma.cta_group::1.kind::f16 [%r2], %rd389, %rd389, %r9, p;"]
    mma = next(i for i in read_ptx(triton) if isinstance(i, Instruction))
    assert mma.operands[1].value.pattern() == "0x40004040xxxxxxxx"
    assert [f.rule for f in lint_lines(triton) if f.severity == "error"] == ["idesc.shape"]
    no_version = [*triton[:1], "mov.b32 %r256, 1073741888;", *triton[2:3],
                  "mov.b32 %r9, 138413200;", triton[4]]  # 0x40000040
    assert [(f.rule, f.operand) for f in lint_lines(no_version) if f.severity == "error"] == [
        ("smem.reserved", "a_desc"), ("smem.reserved", "b_desc")]


def test_ptx_defs_are_over_approximated():
    """Writes the reader does not evaluate make registers unknown, never stale: redux.sync,
    vector loads; a predicated move no other write precedes is the one value that may reach
    the MMA."""
    text = ["mov.b32 %r1, 138413200;", "redux.sync.or.b32 %r1, %r5, 0xffffffff;",
            "mov.b32 %r2, 138413200;", "@%p1 mov.b32 %r3, 272630928;",
            "mov.b32 %r4, 0;", "ld.shared.v2.u32 {%r4, %r6}, [x];",
            "tcgen05.mma.cta_group::1.kind::f16 [%r9], %rd2, %rd3, %r1, p;",
            "tcgen05.mma.cta_group::1.kind::f16 [%r9], %rd2, %rd3, %r2, p;",
            "tcgen05.mma.cta_group::1.kind::f16 [%r9], %rd2, %rd3, %r3, p;",
            "tcgen05.mma.cta_group::1.kind::f16 [%r9], %rd2, %rd3, %r4, p;"]
    mmas = [i for i in read_ptx(text) if isinstance(i, Instruction)]
    assert [m.operands[3].value.is_const for m in mmas] == [False, True, True, False]
    assert mmas[2].operands[3].value.value == 272630928


# ------------------------------------------------------------------ never a traceback

_PIECES = [line for name in ("f16_ws.ptx", "mxf8f6f4_bs_sp.ptx", "f16_ws.sass", "cp_f16.sass",
                             "f16_atmem.sass") for line in (FIX / name).read_text().splitlines()
           if "tcgen05" in line or "UTC" in line or "MOV" in line or "mov" in line
           or "or.b64" in line or "ULOP3" in line or "USHF" in line]


@pytest.mark.parametrize("seed", range(3))
def test_fuzz_mutated_lines(seed):
    """Fixture lines cut, spliced and garbled: lint_lines never raises."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    line = st.one_of(st.sampled_from(_PIECES), st.text(max_size=80))

    @settings(max_examples=150, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.lists(st.tuples(line, st.integers(0, 120), st.integers(0, 120), st.text(max_size=6)),
                    max_size=12), st.sampled_from([None, "sm_100a", "sm_103a"]))
    def check(rows, arch):
        lines = [a[:i] + junk + a[j:] for a, i, j, junk in rows]
        if seed:
            lines = lines[::-1] if seed == 1 else [ln.upper() for ln in lines]
        for f in lint_lines(lines, file="fuzz", arch=arch):
            assert f.severity in ("error", "warning", "note")
            json.dumps(f.to_dict())
    check()


# ------------------------------------------------------------------ real CUTLASS kernels

CUTLASS = FIX / "cutlass"
#: (file, tcgen05.mma / UTCHMMA instructions): CuTe's Blackwell tutorial GEMMs (build.sh there)
REAL = [("01_mma_sm100.ptx.gz", 4), ("04_mma_tma_2sm_sm100.ptx.gz", 12),
        ("01_mma_sm100.sass.gz", 8), ("04_mma_tma_2sm_sm100.sass.gz", 24)]


def _written_constant(op):
    written = {a.bits for a in op.alternatives if not a.skipped}
    return next(iter(written)) if len(written) == 1 and next(iter(written)).is_const else None


#: A/B descriptors the data flow proves constant: in the 2-SM kernel the start address is the
#: shared memory window's 0x400 ((CgaCtaId << 24) + 0x400, >> 4, & 0x3fff), so 20 of its 24
#: MMAs read wholly known descriptors (A at 0x400, B 16 KiB after it, each K step 32 bytes on:
#: start address fields 0x40, 0x42, 0x44, 0x46 and 0x440 ... 0x446, the steps through
#: ``VIADD``); the other 4 follow predicated writes after calls.  In the 1-SM kernel the first
#: MMA of each K block reads A at 0x400 and B at 0x4400, both known; the others read pairs
#: whose halves are predicated moves (``@UP4 UMOV UR24, UR12`` and ``@UP4 UMOV UR25,
#: 0x40004040``) guarded like the MMA: each pair's one written value is judged, so all are.
CONSTANT_SMEM = {"01_mma_sm100.ptx.gz": 0, "04_mma_tma_2sm_sm100.ptx.gz": 0,
                 "01_mma_sm100.sass.gz": 16, "04_mma_tma_2sm_sm100.sass.gz": 48}


@pytest.mark.parametrize("name,mmas", REAL)
def test_real_cutlass_kernels_are_clean(name, mmas):
    """Kernels nobody wrote for these tests: no error or warning; the instruction descriptor is a
    kernel parameter (a run-time note per MMA), the descriptors' constant upper halves are
    checked."""
    import gzip
    with gzip.open(CUTLASS / name, "rt") as fh:
        findings = list(lint_lines(fh, file=name))
    assert [str(f) for f in findings if f.severity != "note"] == []
    runtime_idesc = [f for f in findings if f.rule == "lint.runtime" and f.operand == "idesc"]
    assert len(runtime_idesc) == mmas
    smem = [f for f in findings if f.operand in ("a_desc", "b_desc")]
    # every A/B descriptor operand: wholly constant and valid (no finding), or a run-time note
    reader = read_sass if name.endswith(".sass.gz") else read_ptx
    with gzip.open(CUTLASS / name, "rt") as fh:
        operands = [o for i in reader(fh) if isinstance(i, Instruction)
                    and "MMA" in i.opcode.upper()
                    for o in (i.operands[:2] if name.endswith(".sass.gz") else i.operands[1:3])]
    ops = [o.value for o in operands]
    assert len(ops) == 2 * mmas
    # a value set whose one written alternative is constant (the others left by skipped
    # predicated writes) is judged as that constant
    written = [_written_constant(o) for o in operands if not o.value.is_const]
    constant = [kb for kb in ops if kb.is_const]
    constant += [w for w in written if w is not None]
    assert len(smem) + len(constant) == 2 * mmas
    assert len(constant) == CONSTANT_SMEM[name]
    # SW128, SBO 1024 B, 0b001 -- or, in SASS, unknown: ptxas writes the upper half with
    # predicated UMOVs (@UP5 UMOV UR11, 0x40004040), which may not execute, after calls
    # (printf) that may change any register
    assert all(f.word.startswith("0x40004040") for f in smem if ".ptx" in name)
    # the upper half known (SW128 ...) or not at all; the low half field by field
    assert all(f.word.startswith(("0x40004040", "0xxxxxxxxx")) for f in smem)
    assert all(kb.value >> 32 == 0x40004040 for kb in constant)


@pytest.mark.nvcc_all
def test_real_cutlass_kernels_rebuild(tmp_path):
    import gzip
    import shutil
    import subprocess
    found = build.tools()
    if isinstance(found, str):
        pytest.skip(found)
    try:
        import cutlass_library  # noqa: F401
    except ImportError:
        pytest.skip("nvidia-cutlass wheel not installed")
    for f in CUTLASS.glob("build.sh"):
        shutil.copy(f, tmp_path / f.name)
    env = dict(__import__("os").environ)
    env["PATH"] = f"{Path(found[1]).parent}:{Path(found[0]).parent}:{env['PATH']}"
    env["PATH"] = f"{Path(sys.executable).parent}:{env['PATH']}"
    subprocess.run(["bash", str(tmp_path / "build.sh")], check=True, env=env, capture_output=True)
    # The text itself differs by where it was built (nvcc's _INTERNAL_<hash>_ symbol names,
    # the header paths of assert messages): the tcgen05 lines and lint's verdicts must not.
    tc = re.compile(r"tcgen05|UTC\w*MMA|UTCCP|UTCBAR|LDTM|STTM")
    for name, _ in REAL:
        got = []
        for path in (tmp_path / name, CUTLASS / name):
            with gzip.open(path, "rt") as f:
                text = f.read().splitlines()
            got.append(([s.strip() for s in text if tc.search(s)],
                        [(x.severity, x.rule, x.word) for x in lint_lines(text)]))
        assert got[0] == got[1], name
        assert got[0][0], name


@pytest.mark.parametrize("planted,rule", [
    ("4611686293305360384", "smem.reserved"),  # 0x4000004000010000: no 0b001 constant
    ("6917599671263232000", "smem.swizzle"),  # 0x6000404000010000: swizzle code 3
])
def test_real_cutlass_kernel_with_a_planted_constant(planted, rule):
    """The real kernel's descriptor constant (0x4000404000010000, written in decimal) replaced
    in its PTX: every A and B descriptor of every MMA is reported."""
    import gzip
    with gzip.open(CUTLASS / "04_mma_tma_2sm_sm100.ptx.gz", "rt") as fh:
        text = fh.read()
    assert text.count("4611756662049538048") == 2
    lines = text.replace("4611756662049538048", planted).splitlines()
    errors = [f for f in lint_lines(lines, file="planted.ptx") if f.severity == "error"]
    assert {f.rule for f in errors} == {rule}
    assert sorted({f.operand for f in errors}) == ["a_desc", "b_desc"]
    assert len(errors) == 24  # 12 MMAs x (A, B)



@pytest.mark.nvcc_all
def test_planted_real_kernel_assembles(tmp_path):
    """ptxas accepts the planted constant (it judges no descriptor value)."""
    import gzip
    import shutil
    import subprocess
    ptxas = shutil.which("ptxas")
    if ptxas is None:
        pytest.skip("ptxas not found on PATH")
    with gzip.open(CUTLASS / "04_mma_tma_2sm_sm100.ptx.gz", "rt") as fh:
        text = fh.read().replace("4611756662049538048", "4611686293305360384")
    (tmp_path / "planted.ptx").write_text(text)
    subprocess.run([ptxas, "-arch=sm_100a", "-o", str(tmp_path / "planted.cubin"),
                    str(tmp_path / "planted.ptx")], check=True, capture_output=True)


# ------------------------------------------------------------------ real Triton kernels

TRITON = FIX / "triton"


@pytest.mark.parametrize("dtype,kind", [("fp16", "f16"), ("bf16", "f16"), ("fp8e4nv", "f8f6f4"),
                                        ("fp32", "tf32")])
def test_real_triton_kernels_are_clean(dtype, kind):
    """Triton 3.9 tl.dot for Blackwell (fixtures/lint/triton/make.py): a constant instruction
    descriptor, checked for the instruction's kind and valid; no error, no warning."""
    import gzip
    with gzip.open(TRITON / f"triton_matmul_{dtype}.ptx.gz", "rt") as fh:
        lines = fh.read().splitlines()
    mmas = [i for i in read_ptx(lines) if isinstance(i, Instruction)
            and i.opcode.startswith("tcgen05.mma")]
    assert mmas and all(f".kind::{kind}" in m.opcode for m in mmas)
    assert all(m.operands[3].value.is_const for m in mmas)  # the idesc
    findings = list(lint_lines(lines, file=dtype))
    assert [str(f) for f in findings if f.severity != "note"] == []
    assert not [f for f in findings if f.operand == "idesc"]


def test_real_triton_kernel_with_a_planted_idesc():
    import gzip
    with gzip.open(TRITON / "triton_matmul_fp16.ptx.gz", "rt") as fh:
        text = fh.read()
    assert text.count(", 136380432;") == 2  # 0x08210010: f16 -> f32, 128x128, B MN-major
    lines = text.replace(", 136380432;", ", 270598160;").splitlines()  # M=256
    errors = [f for f in lint_lines(lines, file="planted") if f.severity == "error"]
    assert {(f.rule, f.operand, f.word) for f in errors} == {("idesc.shape", "idesc", "0x10210010")}
    assert len(errors) == 8


def test_readme_example_is_what_lint_prints():
    readme = (FIX.parent.parent / "README.md").read_text()
    block = readme.split("$ descgen lint fixtures/lint/bad_m256_cta1.ptx\n", 1)[1].split("```")[0]
    import os
    cwd = os.getcwd()
    os.chdir(FIX.parent.parent)
    try:
        r = run("lint", "fixtures/lint/bad_m256_cta1.ptx")
    finally:
        os.chdir(cwd)
    assert r.exit_code == 1 and r.stdout == block


def test_k_step_rule_is_stated_in_the_evidence():
    """A descriptor stepped by 64-bit adds in a loop is checked under the K-step rule (a step
    must not carry out of the 14-bit start address, Table 40), and the finding says so; a
    register redefined any other way is followed as what it computes (no assumption)."""
    f = [x for x in _lint("bad_kstep64_version.ptx") if x.severity == "error"][0]
    assert f.evidence[0].endswith("(assuming K-step adds do not carry out of the 14-bit start "
                                  "address (Table 40))")
    snippet = [
        "ld.param.u64 %rd1, [p];",
        "shr.u64 %rd5, %rd1, 4;",
        "and.b64 %rd6, %rd5, 16383;",                    # the start address, bits 0-13
        "or.b64 %rd2, %rd6, 4611686293305360384;",       # 0x4000004000010000: no 0b001
        "add.s64 %rd2, %rd2, 2;",                         # a K step (in a loop)
        "tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd2, %rd2, 138413200, p;",
        "or.b64 %rd4, %rd6, 4611686293305360384;",
        "add.s64 %rd4, %rd4, 70000;",                     # not a K step: 70000 >= 2^14
        "tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd4, %rd4, 138413200, p;",
    ]
    got = [(x.line, x.rule) for x in lint_lines(snippet, file="s.ptx") if x.severity == "error"]
    assert got == [(6, "smem.reserved"), (6, "smem.reserved"), (9, "smem.reserved"),
                   (9, "smem.reserved")]
    at9 = [x for x in lint_lines(snippet, file="s.ptx") if x.line == 9 and x.severity == "error"]
    # the add of 70000 carries into the leading byte offset (1 -> 2); the fixed constant is
    # 0b000 whatever the start address
    assert {x.word for x in at9} == {"0x400000400002?xxx"}
    assert all(x.evidence == (f"{x.operand} = 0x400000400002?xxx from line 8: "
                              "add.s64 %rd4, %rd4, 70000",) for x in at9)


def test_every_ldtm_sttm_form_is_its_ptx():
    """Each LDTM/STTM that nvcc 13 compiled from a tcgen05.ld/st form (fixtures/sass-forms, 282
    instructions over every shape, num, pack/unpack and .red form) reads back as that form."""
    import json
    from descriptors.readers.sass import tmem_access
    forms = json.loads((FIX.parent / "sass-forms" / "forms.json").read_text())["forms"]
    pairs = [(s.split()[0], f["ptx"].split()[0]) for f in forms for s in f.get("tcgen05", [])
             if s.startswith(("LDTM", "STTM"))]
    assert len(pairs) == 282
    assert [(op, getattr(tmem_access(op), "ptx", None)) for op, _ in pairs] == pairs
    assert tmem_access("LDTM.x4.BOGUS") is None and tmem_access("UTCBAR") is None


def test_mixed_cta_group_is_an_error():
    """ptxas: "Function 'k' uses single CTA(.cta_group::1) and CTA pair granularity
    (.cta_group::2) and that is not allowed" -- lint says so, at the second instruction, in
    PTX and in SASS (where .2CTA shows it; UTCATOMSWS.AND, dealloc, shows neither)."""
    ptx = [".target sm_100a", ".visible .entry k()", "{",
           "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 32;",
           "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.b64 [%r3];", "}"]
    got = [f for f in lint_lines(ptx) if f.rule == "tcgen05.cta_group"]
    assert [(f.line, f.severity) for f in got] == [(5, "error")]
    assert "line 4" in got[0].message and "9.7.16.12.1" in got[0].message
    sass = ["code for sm_100a", "Function : k",
            "/*0010*/ UTCATOMSWS.AND URZ, UR4 ;", "/*0020*/ UTCBAR.2CTA [UR5], URZ ;",
            "/*0030*/ UTCBAR [UR5], URZ ;", "/*0040*/ EXIT ;"]
    got = [f for f in lint_lines(sass) if f.rule == "tcgen05.cta_group"]
    assert [(f.line, f.severity) for f in got] == [(5, "error")]
    sass[4] = "/*0030*/ UTCBAR.2CTA.MULTICAST [UR5], URZ, UR4 ;"
    assert not [f for f in lint_lines(sass) if f.rule == "tcgen05.cta_group"]


def test_kept_findings_replay_on_each_instruction_and_are_not_kept_for_a_foreign_operand():
    """lint judges a word once per context and replays its findings on every instruction that
    reads it (its own line, column and origin); a finding about an operand the key does not
    cover is reported as found and never replayed elsewhere."""
    from descriptors.structs import replace

    from descriptors.readers import Operand
    from descriptors.tools import lint as L
    ins = Instruction("sass", 7, 3, "UTCHMMA", (), "UTCHMMA ...")
    em1, em2 = L._Emitter("f", ins), L._Emitter("f", replace(ins, line=9))
    a1, a2 = Operand("gdesc[UR4]", 10), Operand("gdesc[UR4]", 12)
    calls = []

    def check(e, o):
        calls.append(o)
        e.add("warning", "r", "m", o, "a_desc", "0x1")
        return 5
    assert L._kept(em1, ("test-key",), check, a1) == 5
    assert L._kept(em2, ("test-key",), check, a2) == 5
    assert calls == [a1]  # judged once
    assert [(f.line, f.col) for f in em1.out + em2.out] == [(7, 10), (9, 12)]
    other = Operand("idesc[UR6]", 30)

    def foreign(e, o):
        e.add("note", "r", "m", other, "idesc", None)
    L._kept(em1, ("test-key-2",), foreign, a1)
    assert ("test-key-2",) not in L._KEPT and em1.out[-1].col == 30
    L._KEPT.pop(("test-key",), None)


def test_no_tcgen05_on_sm90a_is_said_once_a_line():
    """Under --arch sm_90a a tcgen05.ld line gets tcgen05.arch, not also the model's own
    tcgen05.ld.arch for the same fact."""
    from descriptors.tools.lint import lint_lines
    lines = (FIX / "f16_cta1.ptx").read_text().splitlines()
    found = [f for f in lint_lines(lines, file="f16_cta1.ptx", arch="sm_90a") if f.line == 71]
    assert [f.rule for f in found] == ["tcgen05.arch"]

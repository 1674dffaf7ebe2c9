"""What every descgen command prints, byte for byte: stdout, stderr and the exit code.

Each case is one command line, run in-process through typer's ``CliRunner`` on ``cli.main:app``;
its record (the exit code, the bytes of stdout and of stderr, and of any file the command
wrote) is pinned by its SHA-256 in ``tests/production/golden_outputs.json``, keyed by the command line.
The cases:

- ``lint`` (text and ``--format json``) on every listing lint reads in ``fixtures/``: lint/
  (and its cutlass/ and triton/ kernels), hopper/, binaries/ (its SASS: the cubin and fatbin
  are read through cuobjdump, which a machine may lack), cute-dsl/ptx/, sass-forms/, gdb/'s
  SASS, dumps/ (an error: no code in them) and the production sample the tests read by
  default (the manifest's ``default``), each file given by its path, as users do; ``lint -v``
  on fixtures/lint's own files and one file of each other directory and kind; and some of
  lint's options, several files, stdin;
- ``dump`` (``--plain`` and ``--format json``) on the same code fixtures but sass-forms/ (and
  dumps/, pinned by ``tests/production/test_dump_output.py``), the rich text on one file of each
  directory and kind, and some of dump's options;
- every ``$ descgen`` example of README.md's console blocks (as ``tests/project/test_readme.py``
  extracts them; ``--version`` excepted: it prints the package's version);
- for each other command a set of representative cases: each descriptor, kind and output
  format, ``--plain``, and a bad input (exit 2) or a broken rule (exit 1);
- ``--help`` of descgen and of each command (``COLUMNS`` is set to 80 for them).

Every case runs in a fresh directory in which ``fixtures`` is the repository's ``fixtures/``, so
the paths printed are the relative ones a user types, whatever the checkout's place.  After an
intended change of the output, regenerate the digests with::

    DESCGEN_UPDATE_GOLDEN=1 python -m pytest tests/production/test_golden_outputs.py

and review the change: ``python tests/production/test_golden_outputs.py [CASE ...] > out.txt`` prints the
record of every case (or of the named ones) in full, to diff against the same run on the
previous commit.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import shlex
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest
from typer.testing import CliRunner

from cli.main import app
from test_readme import EXAMPLES

ROOT = Path(__file__).resolve().parents[2]
DIGESTS = Path(__file__).resolve().parent / "golden_outputs.json"

#: Environment variables that change what a command prints; a case runs without them (and
#: with ``COLUMNS=80``, the width ``--help`` is laid out in).
_ENVIRON = ("NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "COLUMNS", "LINES",
            "TERMINAL_WIDTH", "CLICOLOR_FORCE", "PY_COLORS", "GITHUB_ACTIONS")


def _fixtures(*patterns: str) -> list[str]:
    found: set[str] = set()
    for pattern in patterns:
        found.update(os.path.relpath(p, ROOT) for p in glob.glob(str(ROOT / pattern),
                                                                 recursive=True))
    return sorted(found)


_PRODUCTION = json.loads((ROOT / "fixtures/production/manifest.json").read_text())["fixtures"]

#: The listings lint and dump read: PTX, SASS (cuobjdump, nvdisasm), maybe gzipped.
CODE = _fixtures(
    "fixtures/lint/*.ptx", "fixtures/lint/*.sass", "fixtures/lint/cutlass/*.gz",
    "fixtures/lint/triton/*.gz", "fixtures/hopper/compiled/*.gz",
    "fixtures/hopper/production/*.gz", "fixtures/hopper/triton/*.gz",
    "fixtures/hopper/cute-dsl/ptx/*.gz", "fixtures/binaries/*.sass", "fixtures/cute-dsl/ptx/*",
    "fixtures/gdb/*.sass",
) + [f"fixtures/production/{f['file']}" for f in _PRODUCTION if f["default"]]
#: The ptxas forms (each tcgen05 instruction as cuobjdump and nvdisasm list it): lint only.
FORMS = _fixtures("fixtures/sass-forms/out/*", "fixtures/sass-forms/src/*.ptx")
#: Text lint finds no code in (one line on stderr, exit 2).
DUMPS = [p for p in _fixtures("fixtures/dumps/*") if not p.endswith(".expected.json")]


def _sample(paths: list[str]) -> list[str]:
    """The first file of each directory and suffix (``.ptx``, ``.sass.gz``, ...)."""
    first: dict[tuple[str, str], str] = {}
    for path in paths:
        suffixes = Path(path).suffixes
        first.setdefault((os.path.dirname(path), "".join(suffixes[-2 if path.endswith(".gz")
                                                                 else -1:])), path)
    return sorted(first.values())


#: The slower modes (the rich table of dump, lint's notes) take one file of each kind, and
#: all of fixtures/lint's small ones for lint -v.
SAMPLE = _sample(CODE)
VERBOSE = sorted(set(SAMPLE + _sample(FORMS) + _fixtures("fixtures/lint/*.ptx",
                                                          "fixtures/lint/*.sass")))

LINT = [f"lint {fmt}{path}" for path in CODE + FORMS + DUMPS for fmt in ("", "--format json ")] + [
    f"lint -v {path}" for path in VERBOSE] + [
    "lint fixtures/lint/bad_m256_cta1.ptx fixtures/lint/f16_cta1.sass fixtures/lint/tmem_clean.ptx",
    "lint --format json fixtures/lint/bad_m256_cta1.ptx fixtures/lint/f16_cta1.sass",
    "lint - < fixtures/lint/bad_reserved.ptx",
    "lint --format json - < fixtures/lint/bad_reserved.sass",
    "lint --arch sm_100f fixtures/lint/mxf4nvf4_bs.sass",
    "lint --arch sm_103a -v fixtures/lint/bad_kstep64_version.ptx",
    "lint --arch sm_90a fixtures/lint/f16_cta1.ptx",
    "lint --arch sm_89 fixtures/lint/bad_reserved.sass",
    "lint --ptx fixtures/lint/i8_cta1.ptx",
    "lint fixtures/lint/src/mma.cu",
    "lint fixtures/lint/no_such_file.ptx",
    "lint fixtures/lint/f16_cta1.sass fixtures/lint/no_such_file.ptx",
]

DUMP = [f"dump {fmt}{path}" for path in CODE for fmt in ("--plain ", "--format json ")] + [
    f"dump {path}" for path in SAMPLE] + [
    "dump --plain --table-only fixtures/lint/bad_reserved.ptx",
    "dump --unique --plain fixtures/dumps/printf.log",
    "dump -u --plain fixtures/gdb/wg_lineinfo.sass fixtures/dumps/cuda-gdb-print.txt",
    "dump --table-only fixtures/hopper/compiled/hand_wgmma.sass.gz",
    "dump --plain fixtures/dumps/printf.log fixtures/lint/f16_cta1.sass",
    "dump --format json fixtures/dumps/printf.log fixtures/lint/f16_cta1.sass",
    "dump --as idesc --kind f16 --plain fixtures/dumps/printf.log",
    "dump --as smem --plain fixtures/dumps/cuda-gdb-print.txt",
    "dump --as wgmma --plain fixtures/dumps/cuda-gdb-print.txt",
    "dump --as tmem --format json fixtures/dumps/cuda-gdb-info-registers.txt",
    "dump --as zcm --plain fixtures/dumps/cuda-gdb-info-registers.txt",
    "dump --kind mxf8f6f4 --plain fixtures/dumps/cuobjdump-sass.txt",
    "dump --arch sm_90a --plain fixtures/dumps/printf.log",
    "dump --arch sm_103a --format json fixtures/dumps/nvdisasm.txt",
    "dump --min-confidence 0.9 --plain fixtures/dumps/printf.log",
    "dump --min-confidence 0 --plain --table-only fixtures/dumps/printf.log",
    "dump - < fixtures/dumps/printf.log",
    "dump --kind f99 fixtures/dumps/printf.log",
    "dump fixtures/dumps/no_such_file.txt",
    "dump fixtures/dumps/printf.log fixtures/dumps/no_such_file.txt",
]

# ---------------------------------------------------------------- the word commands

#: (word, its descriptor options): a word of each descriptor, each kind, valid and broken.
WORDS = [
    ("0x08400490", "--as idesc --kind f16"),
    ("0x08400490", "--as idesc"),
    ("0x10200010", "--as idesc"),
    ("0x08408910", "--as idesc --kind tf32"),
    ("0x08400491", "--as idesc --kind mxf8f6f4"),
    ("0x30c00010", "--as idesc --kind mxf8f6f4 --cta-group 2"),
    ("0x08400480", "--as idesc --kind mxf4nvf4 --scale-vec 2X"),
    ("0x48c00480", "--as idesc --kind mxf4nvf4 --scale-vec 4X"),
    ("0x08200910", "--as idesc --kind i8 --ws"),
    ("0x10400490", "--as idesc --kind f16 --cta-group 1"),
    ("0x4000404000010000", "--as smem"),
    ("0x7fe0004000010000", "--as smem"),
    ("0x4000404000010040", "--as smem --arch sm_90a"),
    ("0x4000002000010040", "--as wgmma"),
    ("0x4000002000010040", "--as gmma"),
    ("0x0203028301020100", "--as zcm -m 64 -n 64"),
    ("0x0203028301020100", "--as zcm"),
    ("0x00400080", "--as tmem --alloc 256"),
    ("0x00200000", "--as tmem --shift"),
]
WORD_FORMATS = ["", "--plain", "--format json"]

DECODE = [f"decode {w} {opts} {fmt}".strip() for w, opts in WORDS for fmt in WORD_FORMATS] + [
    "decode 0x08400490",
    "decode 0x08400490 --as idesc --show --plain",
    "decode 0x10200010 --as idesc -v",
    "decode 0x08400490 --as idesc --kind f17",
    "decode 0x1_0000_0000 --as idesc --kind f16",
    "decode \"0x0840'0490\" --as idesc --kind f16 --no-color",
    "decode 138413200 --as idesc --kind f16 --plain",
    "decode 0x08400490 --as smem -m 64",
]

CHECK = [f"check {w} {opts} {fmt}".strip() for w, opts in WORDS for fmt in WORD_FORMATS] + [
    f"check {params} {fmt}".strip() for params in (
        "--as idesc --kind i8 -p a_type=s8 -p b_type=s8 -p d_type=s32 -p m=128 -p n=40",
        "--as idesc --kind f16 -p a_type=bf16 -p b_type=bf16 -p m=128 -p n=256",
        "--as smem -p swizzle=128B -p leading_byte_offset=16 -p stride_byte_offset=1024",
        "--as smem -p swizzle=3 -p stride_byte_offset=1024",
        "--as zcm -p skip_span=2 -p use_span=3",
        "--as tmem -p lane=32 -p column=16",
    ) for fmt in WORD_FORMATS] + [
    f"check {pair} {fmt}".strip() for pair in (
        "--idesc 0x08408910 --kind tf32 --a-desc 0x4000404000010000",
        "--idesc 0x08400490 --kind f16 --a-desc 0x4000404000010000 --b-desc 0x4000404000010040",
        "--idesc 0x08400490 --kind f16 --a-desc 0x7fe0004000010000",
    ) for fmt in WORD_FORMATS] + [
    f"check {cute} {fmt}".strip() for cute in (
        "0x4000002000010040 --as wgmma --cute 'Sw<3,4,3>_smem_ptr[16b](0x400) o (_64,_64):(_64,_1)'"
        " --major K --a-type f16",
        "0x4000404000010040 --as smem --cute 'Sw<3,4,3>_smem_ptr[16b](0x400) o (_128,_16):(_64,_1)'"
        " --major K --a-type bf16",
        "0x4000404000010000 --as smem --cute 'Sw<3,4,3>_smem_ptr[16b](0x400) o (_128,_16):(_64,_1)'"
        " --major K --a-type bf16",
        "0x4000404000010000 --as smem --cute 'tensor<ptr<bf16, smem, align<32>, S<3,4,3>> o "
        "((128,16)):((64,1))>' --major K --start-address 0",
    ) for fmt in WORD_FORMATS] + [
    "check",
    "check 0x08400490",
    "check 0x08400490 --as idesc --kind f16 -p m=128",
    "check 0x08400490 --as idesc --kind f16 --alloc 128",
]

#: (a, b, descriptor options) of diff.
PAIRS = [
    ("0x08400490", "0x10400490", "--as idesc --kind f16"),
    ("0x08400490", "0x08400490", "--as idesc --kind f16"),
    ("0x08400490", "0x08400491", "--as idesc --kind mxf8f6f4"),
    ("0x4000404000010000", "0x4000404000010040", "--as smem"),
    ("0x4000404000010000", "0x7fe0004000010000", "--as smem"),
    ("0x4000002000010040", "0x4000004000010040", "--as wgmma"),
    ("0x4000404000010040", "0x4000404000010080", "--as smem --arch sm_90a"),
    ("0x0203028301020100", "0x0203028301020101", "--as zcm -m 64 -n 64"),
    ("0x00400080", "0x00200080", "--as tmem --alloc 256"),
]
DIFF = [f"diff {a} {b} {opts} {fmt}".strip() for a, b, opts in PAIRS
        for fmt in WORD_FORMATS] + [
    "diff 0x08400490 0x10400490 --as idesc",
    "diff 0x08400490 0x1_0000_0000_0000_0000 --as smem",
    "diff 0x08400490 0x10400490",
]

_FORMATS = ["", "--format c", "--format cpp", "--format python", "--format json",
            "--format text", "--format text --plain", "--format c --name MY_CONSTANT"]

#: Parameter sets of the encoders: each kind of idesc, each smem swizzle, each zcm way, tmem.
ENCODE = {
    "idesc": [
        "--kind f16 --a-type bf16 --b-type bf16 --d-type f32 -m 128 -n 256",
        "--kind f16 --a-type f16 --b-type f16 --d-type f16 -m 64 -n 8 --a-major MN --b-major MN",
        "--kind tf32 -m 128 -n 128 --negate-a --negate-b",
        "--kind f8f6f4 --a-type e4m3 --b-type e2m1 -m 256 -n 256 --cta-group 2",
        "--kind i8 --a-type s8 --b-type u8 --d-type s32 -m 128 -n 48 --saturate",
        "--kind f16 --a-type bf16 --b-type bf16 -m 128 -n 256 --sparse --sparsity-selector 2",
        "--kind f16 --a-type f16 --b-type f16 -m 32 -n 64 --ws --max-shift 16",
        "--kind mxf8f6f4 --a-type e4m3 --b-type e4m3 -m 256 -n 256 --a-scale-id 3 --b-scale-id 3",
        "--kind mxf4 -m 128 -n 128 --scale-vec 2X",
        "--kind mxf4nvf4 --scale-type ue4m3 -m 128 -n 256 --scale-vec 4X",
        "--kind mxf4 -m 256 -n 256 -k 96 --cta-group 2 --arch sm_103a",
    ],
    "smem": [
        "--swizzle 128B --lbo 16 --sbo 1024",
        "--start-address 0x400 --swizzle 64B --sbo 512 --base-offset 1",
        "--swizzle 32B --lbo 128 --sbo 256",
        "--swizzle 128B_base32B --sbo 1024",
        "--swizzle 128B --lbo 0x1000 --lbo-mode absolute --sbo 1024 --arch sm_103a",
        "--arch sm_90a --start-address 0x400 --lbo 16 --sbo 1024 --swizzle 128B",
    ],
    "zcm": [
        "--start-count 1,2,1,0 --first-span 0,1,0,1 --skip-span 2 --use-span 3 --column-shift 2",
        "--skip-span 2 --use-span 3 -m 64 -n 64",
        "--from-mask 0x8888888888888888 -m 128 -n 64",
        "--zero-columns 0-3,16-19,32-35,48-51 -m 128 -n 64",
        "--conv 20,1,1 -m 128 -n 128",
    ],
    "tmem": [
        "--lane 64 --column 128",
        "--lane 32 --column 16 --alloc 64",
        "--lane 32 --shift",
    ],
}
#: Broken rules (exit 2, or a warning with --force) and bad input.
ENCODE_ERRORS = [
    "idesc --kind tf32 --a-type f16 --b-type f16 -m 128 -n 256",
    "idesc --kind f16 --a-type bf16 --b-type bf16 -m 256 -n 256 --cta-group 1",
    "idesc --kind f16 --a-type bf16 --b-type bf16 -m 256 -n 256 --cta-group 1 --force",
    "idesc --kind f16 --a-type bf16 --b-type bf16 -m 128 -n 24 --force --format c",
    "idesc --kind f16 -m 128 -n 256 --a-type bf16 --b-type bf16 --name X",
    "idesc --kind f99 -m 128 -n 256",
    "idesc --kind f16 -m 128",
    "idesc --kind f16 --a-type bf16 --b-type bf16 -m 128 -n 256 --arch sm_99",
    "smem --start-address 8",
    "smem --swizzle 128B --lbo 16 --sbo 1024 --arch sm_90a --lbo-mode absolute",
    "smem --swizzle 256B",
    "smem --start-address 0x40000 --force",
    "zcm --show -m 64",
    "zcm --column-shift 64 -m 128",
    "zcm --from-mask 0x1 --zero-columns 3 -m 128 -n 64",
    "zcm --from-mask 0xf0f0 -m 128 -n 64",
    "tmem --lane 200",
    "tmem --column 512 --force",
    "tmem --ld 32x32b.x8 --taddr 0x00200000 --warp 0",
    "tmem --ld 32x32b.x999",
]
TMEM_TABLES = [
    f"tmem {opts} {fmt}".strip() for opts in (
        "--ld 32x32b.x8 --taddr 0x00200000 --warp 1",
        "--ld 16x32bx2.x4 --imm-half-splitoff 64 --alloc 256",
        "--ld 16x64b.x2 --pack --alloc 128",
        "--ld 32x32b.x4 --red min --red-type f32",
        "--st 16x256b.x1 --unpack --taddr 0x00400000 --warp 2 --alloc 512",
        "--st 32x32b.x128 --alloc 128",
        "--datapath 128 --cta-group 2 --sparse",
        "--datapath 64",
        "--datapath 32 --ws",
        "--datapath 256 --cta-group 2",
    ) for fmt in ("", "--format text", "--format text --plain", "--format json")
]
ZCM_SHOW = [f"zcm {opts} --show {fmt}".strip() for opts in (
    "--skip-span 2 --use-span 3 -m 64 -n 64", "--conv 20,1,1 -m 128 -n 128",
    "--from-mask 0x0ff0 -m 32 -n 64") for fmt in ("", "--plain", "--format json")]

WORD_CMDS = [f"{command} {params} {fmt}".strip() for command, sets in ENCODE.items()
             for params in sets for fmt in _FORMATS] + ENCODE_ERRORS + TMEM_TABLES + ZCM_SHOW

_LAYOUTS = [
    "--major K --swizzle 128B --a-type bf16 --tile 128x64",
    "--major MN --swizzle 128B --a-type bf16 --tile 128x64 --tile-order k_first",
    "--major K --swizzle 128B --a-type bf16 --tile 128x64 --k-steps --kind f16",
    "--major MN --swizzle 64B --b-type f16 --tile 64x16 --start-address 0x800",
    "--major K --swizzle 32B --a-type e4m3 --tile 128x128 --k-steps --kind f8f6f4",
    "--major K --swizzle none --a-type tf32 --tile 128x32 --k-steps --kind tf32",
    "--major K --swizzle 128B --a-type e2m1 --tile 128x256 --k-steps --kind mxf4",
    "--major K --swizzle 128B --a-type e2m1 --tile 128x128 --k-steps --kind f8f6f4",
    "--major K --swizzle 128B --a-type s8 --tile 128x128 --k-steps --kind i8 --sparse",
    "--major K --swizzle 128B --a-type bf16 --tile 128x64 --k-steps --kind f16 --sparse "
    "--compressed",
    "--major K --swizzle 128B --a-type bf16 --tile 128x64 --unused-lbo-bytes 0",
    "--major K --swizzle 128B --a-type bf16 --tile 128x128 --lbo-address 0x2000",
    "--major MN --swizzle 128B_base32B --a-type tf32 --tile 128x32 --tile-order k_first",
    "--arch sm_90a --major K --swizzle 128B --a-type f16 --tile 64x64 --start-address 0x400 "
    "--k-steps",
    "--cute 'Sw<3,4,3>_smem_ptr[16b](0x400) o ((_128,_16),_1,_4):((_64,_1),_0,_16)' "
    "--a-type bf16 --major K",
    "--cute 'tensor<ptr<bf16, smem, align<1024>, S<3,4,3>> o ((128,16),1,4,2):((64,1),0,16,8192)>'"
    " --major K --start-address 0x1000",
    "--explain 0x4000404000010000 --major K --a-type bf16",
    "--explain 0x4000002000010040 --major K --a-type f16 --arch sm_90a",
    "--explain 0x4000404000010000 --major MN --b-type f16 --tile 64x64",
]
LAYOUT = [f"layout {opts} {fmt}".strip() for opts in _LAYOUTS for fmt in (
    "", "--plain", "--format json", "--format hex", "--format python --name A")] + [
    "layout --major MN --swizzle 64B --a-type bf16 --tile 64x16 --show",
    "layout --major MN --swizzle 64B --a-type bf16 --tile 64x16 --show --plain",
    "layout --major K --swizzle 128B --a-type bf16 --tile 128x64 --show --svg atom.svg",
    "layout --major K --swizzle 128B --a-type bf16 --tile 128x64 --k-steps --kind f16 "
    "--format c --name A_DESC",
    "layout --major K --swizzle 128B --a-type bf16 --tile 100x64",
    "layout --major K --swizzle 96B --a-type bf16 --tile 128x64",
    "layout --swizzle 128B --a-type bf16 --tile 128x64",
    "layout --explain 0x7fe0004000010000 --major K --a-type bf16",
]

_INSTRUCTIONS = [
    "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [p], {r0,r1,r2,r3};",
    "stmatrix.sync.aligned.m8n8.x1.shared.b16 [p], {r0};",
    "stmatrix.sync.aligned.m16n8.x1.trans.b8 [p], {r0};",
    "wmma.load.a.sync.aligned.row.m16n16k16.f16 {r0,r1,r2,r3,r4,r5,r6,r7}, [p];",
    "wmma.load.b.sync.aligned.col.m16n16k16.global.bf16 {r0,r1,r2,r3}, [p];",
    "wmma.load.c.sync.aligned.row.m16n16k16.f32 {r0,r1,r2,r3,r4,r5,r6,r7}, [p];",
    "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {f0,f1,f2,f3}, da, db, p, 1, 1, 0, 1;",
    "wgmma.mma_async.sync.aligned.m64n16k32.f16.e4m3.e5m2 {h0,h1,h2,h3}, {a0,a1,a2,a3}, db, p, "
    "1, 1;",
    "wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 {f0,f1,f2,f3}, da, db, sp, 0, p, 1, 1, "
    "0, 0;",
    "tcgen05.ld.sync.aligned.16x32bx2.x4.b32 {r0,r1,r2,r3}, [t], 64;",
    "tcgen05.ld.sync.aligned.32x32b.x2.pack::16b.b32 {r0,r1}, [t];",
    "tcgen05.st.sync.aligned.16x64b.x1.b32 [t], {r0};",
]
EXPLAIN = [f"explain {shlex.quote(i)} {fmt}".strip() for i in _INSTRUCTIONS
           for fmt in ("", "--plain", "--format json")] + [
    "explain 'tcgen05.ld.sync.aligned.16x32bx2.x4.b32 {r0,r1,r2,r3}, [t], 64;' --taddr 0x00200000",
    "explain 'tcgen05.ld.sync.aligned.32x32b.x1.b32 {r0}, [t];' --taddr 0x00600000 --format json",
    "explain 'stmatrix.sync.aligned.m8n8.x2.shared.b16 [p], {r0,r1};' --svg map.svg",
    "explain 'tcgen05.st.sync.aligned.32x32b.x1.b32 [t], {r0};' --svg map.svg --plain",
    "explain 'mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {d0}, {a0}, {b0}, {c0};'",
    "explain 'stmatrix.sync.aligned.m8n8.x3.shared.b16 [p], {r0,r1,r2};'",
]

BATCH = [f"batch {src} {fmt}".strip() for src in ("fixtures/real-world.toml",
                                                   "fixtures/real-world.json")
         for fmt in ("", "--plain", "--format c", "--format cpp", "--format python",
                     "--format json")] + [
    "batch fixtures/real-world.toml --format c -o out.hpp",
    "batch fixtures/real-world.toml -o out.txt",
    "batch - < fixtures/real-world.json",
    "batch - --format python < fixtures/real-world.toml",
    "batch fixtures/no_such_file.toml",
    "batch fixtures/real-world.toml --format text",
    "batch fixtures/lint/f16_cta1.ptx",
]

HELP = ["--help"] + [f"{command} --help" for command in (
    "idesc", "smem", "zcm", "tmem", "decode", "check", "diff", "batch", "layout", "dump", "lint",
    "explain")]


def _command_line(words: list[str]) -> str:
    return " ".join(w if w in ("<", ">") else shlex.quote(w) for w in words)


#: README's examples, without their comments (but the version: it moves with each release).
README = [_command_line(shlex.split(e.command, comments=True)[1:]) for e in EXAMPLES
          if e.command != "descgen --version"]

CASES = list(dict.fromkeys(README + LINT + DUMP + DECODE + CHECK + DIFF + WORD_CMDS + LAYOUT +
                           EXPLAIN + BATCH + HELP))


# ---------------------------------------------------------------- running a case

@contextmanager
def workdir() -> Iterator[Path]:
    """A fresh directory in which ``fixtures`` is the repository's, the current one meanwhile;
    and the environment a case runs in."""
    saved_cwd, saved_env = os.getcwd(), {k: os.environ.get(k) for k in _ENVIRON}
    with tempfile.TemporaryDirectory(prefix="descgen-golden-") as tmp:
        work = Path(tmp)
        (work / "fixtures").symlink_to(ROOT / "fixtures", target_is_directory=True)
        for key in _ENVIRON:
            os.environ.pop(key, None)
        os.environ["COLUMNS"] = "80"
        os.chdir(work)
        try:
            yield work
        finally:
            os.chdir(saved_cwd)
            for key, value in saved_env.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value


def record(command: str, work: Path) -> bytes:
    """What ``descgen COMMAND`` prints, run in ``work``: its exit code, stdout, stderr and every
    file it wrote there.  ``< FILE`` in the command reads stdin from FILE; ``> FILE`` is
    dropped (the file would hold stdout)."""
    words = shlex.split(command)
    stdin = None
    if ">" in words:  # the file is what stdout holds
        words = words[:words.index(">")]
    if "<" in words:
        at = words.index("<")
        stdin, words = (work / words[at + 1]).read_bytes(), words[:at] + words[at + 2:]
    before = set(work.iterdir())
    result = CliRunner().invoke(app, words, input=stdin)
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        f"descgen {command} raised {result.exception!r}")
    parts = [f"exit {result.exit_code}\n--- stdout\n".encode(), result.stdout_bytes,
             b"--- stderr\n", result.stderr_bytes]
    for new in sorted(set(work.iterdir()) - before):
        parts += [f"--- file {new.name}\n".encode(), new.read_bytes()]
        new.unlink()
    return b"".join(parts)


def digest(command: str, work: Path) -> str:
    return hashlib.sha256(record(command, work)).hexdigest()


@pytest.fixture(scope="module")
def work() -> Iterator[Path]:
    with workdir() as path:
        yield path


#: The digests computed to be written (DESCGEN_UPDATE_GOLDEN), not computed again.
_UPDATED: dict[str, str] = {}


@pytest.fixture(scope="module")
def recorded(work: Path) -> dict[str, str]:
    """The pinned digests; with DESCGEN_UPDATE_GOLDEN set, those of this checkout, written."""
    if os.environ.get("DESCGEN_UPDATE_GOLDEN"):
        _UPDATED.update((c, digest(c, work)) for c in CASES)
        DIGESTS.write_text(json.dumps(_UPDATED, indent=1, sort_keys=True) + "\n")
    return json.loads(DIGESTS.read_text())


def test_every_case_has_a_digest_and_every_digest_a_case(recorded):
    assert len(CASES) > 1000
    assert sorted(recorded) == sorted(CASES)


@pytest.mark.parametrize("command", CASES)
def test_output_is_byte_identical_to_recorded(command, work, recorded):
    assert command in recorded, f"no digest for 'descgen {command}': regenerate the digests"
    got = _UPDATED.get(command) or digest(command, work)
    assert got == recorded[command], (
        f"'descgen {command}' prints something else than was recorded:\n"
        f"{record(command, work).decode(errors='replace')[:4000]}")


def test_the_cases_reach_each_exit_code_and_format(work):
    """The cases are not vacuous: they include broken rules, bad input and each output kind."""
    codes = {c: record(c, work).split(b"\n", 1)[0] for c in (
        "lint fixtures/lint/bad_m256_cta1.ptx", "lint fixtures/lint/f16_cta1.sass",
        "lint fixtures/dumps/printf.log", "check 0x08400491 --as idesc --kind mxf8f6f4")}
    assert list(codes.values()) == [b"exit 1", b"exit 0", b"exit 2", b"exit 1"]
    assert sum(c.startswith("lint") for c in CASES) >= 2 * len(CODE + FORMS + DUMPS)
    assert sum(c.startswith("dump") for c in CASES) >= 2 * len(CODE)
    assert len(README) == len(EXAMPLES) - 1 and set(README) <= set(CASES)


if __name__ == "__main__":  # print the records of the named cases (all without a name)
    with workdir() as _work:
        for _command in sys.argv[1:] or CASES:
            sys.stdout.write(f"=== descgen {_command}\n")
            sys.stdout.flush()
            sys.stdout.buffer.write(record(_command, _work))
            sys.stdout.buffer.write(b"\n")

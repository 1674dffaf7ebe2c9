"""``descgen dump`` on Hopper (sm_90a) code: the wgmma matrix descriptor (PTX ISA 9.7.15.5.1).

The words of sm_90a SASS and PTX are wgmma words (there is no tcgen05 smem, idesc, zcm or
TMEM address on Hopper); the HGMMA/IGMMA/QGMMA/BGMMA ``gdesc[URn]`` operands (A in URn:URn+1,
B in URn+2:URn+3) and the ``wgmma.mma_async`` a-desc/b-desc operands name the words that reach
them.  The listing's own target decides, and a fatbin's members each keep theirs.
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app
from descriptors.readers import Fact, Instruction
from descriptors.readers.ptx import read_ptx
from descriptors.readers.ptx import wgmma_operands as ptx_wgmma_operands
from descriptors.readers.sass import read_sass
from descriptors.readers.sass import wgmma_operands as sass_wgmma_operands
from descriptors.tools.dump import FoundWord, classify, scan, scan_stream

ROOT = Path(__file__).resolve().parents[3]
HOPPER = ROOT / "fixtures" / "hopper"
COMPILED = HOPPER / "compiled"
DUMPS = ROOT / "fixtures" / "dumps"
runner = CliRunner()


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


# ---------------------------------------------------------------- dump on Hopper code


def _scan_file(path: Path, **options) -> list[FoundWord]:
    with gzip.open(path, "rb") as fh:
        return list(scan_stream(fh, **options))


def _rows(findings: list[FoundWord]) -> list[tuple]:
    """(line, register, word, form, evidence) of each finding's best reading."""
    return [(f.line, f.register, f.hex, f.best.form, f.best.evidence) for f in findings]


def _fed(operand: str, opcode: str, line: int, upper: bool = False) -> tuple[str]:
    return (f"it feeds {'the upper register of ' if upper else ''}{operand} of {opcode} at "
            f"line {line} (+0.35)",)


HOPPER_CODE = sorted([*COMPILED.glob("*.sass.gz"), *COMPILED.glob("*.ptx.gz"),
                      *(HOPPER / "production").glob("*.sass.gz")])


def test_hand_wgmma_sass_words_are_wgmma_words_named_by_their_hgmma():
    found = _scan_file(COMPILED / "hand_wgmma.sass.gz")
    rows = _rows(found)
    hgmma = "HGMMA.64x16x16.F32"
    # nvcc materialises the upper halves (SBO, swizzle) as constants; the lower halves (start
    # address, LBO) are computed at run time
    assert rows[:10] == [
        (61, "UR9", "0x40000040", "upper", _fed("gdesc[UR8] (A)", hgmma, 89, True)),
        (63, "UR11", "0x40000040", "upper", _fed("gdesc[UR8] (B)", hgmma, 89, True)),
        (105, "UR9", "0x40000040", "upper", _fed("gdesc[UR8] (A)", hgmma, 123, True)),
        (107, "UR11", "0x40000040", "upper", _fed("gdesc[UR8] (B)", hgmma, 123, True)),
        (127, "UR9", "0x40000040", "upper", _fed("gdesc[UR8] (A)", hgmma, 155, True)),
        (129, "UR11", "0x40000040", "upper", _fed("gdesc[UR8] (B)", hgmma, 155, True)),
        (161, "UR9", "0x40000040", "upper", _fed("gdesc[UR8] (A)", hgmma, 169, True)),
        (163, "UR11", "0x40000040", "upper", _fed("gdesc[UR8] (B)", hgmma, 169, True)),
        (207, "UR7", "0x40000040", "upper", _fed("gdesc[UR4] (B)", hgmma, 213, True)),
        (209, "UR5", "0x40000040", "upper", _fed("gdesc[UR4] (A)", hgmma, 213, True)),
    ]
    upper = found[8].best
    assert upper.decoded.values == {"start_address_bytes": 0, "leading_byte_offset_bytes": 0,
                                    "stride_byte_offset_bytes": 1024, "swizzle": "128B",
                                    "base_offset": 0}
    assert (upper.descriptor, upper.confidence, upper.level, upper.valid) == \
        ("wgmma", 0.99, "high", True)
    assert upper.summary == "wgmma (upper half) swizzle 128B, start 0x0, LBO 0 B, SBO 1024 B"
    # a constant pair is one 64-bit word at its MMA (the immediates of its halves are not
    # reported again): A in URn:URn+1, B in URn+2:URn+3; A from registers (R32): B only
    assert rows[10:16] == [
        (312, "UR8:UR9", "0x4000004000010040", "word",
         _fed("gdesc[UR8] (A)", "IGMMA.SP.64x16x64.S8.S8", 312)),
        (312, "UR10:UR11", "0x4000004000010440", "word",
         _fed("gdesc[UR8] (B)", "IGMMA.SP.64x16x64.S8.S8", 312)),
        (314, "UR8:UR9", "0x4000004000010040", "word",
         _fed("gdesc[UR8] (A)", "HGMMA.SP.64x16x16.F32.TF32", 314)),
        (314, "UR10:UR11", "0x4000004000010440", "word",
         _fed("gdesc[UR8] (B)", "HGMMA.SP.64x16x16.F32.TF32", 314)),
        (423, "UR6:UR7", "0x4000004000010440", "word",
         _fed("gdesc[UR4] (B)", "QGMMA.SP.64x16x64.F32.E4M3.E4M3", 423)),
        (498, "UR8:UR9", "0x4000004000010040", "word",
         _fed("gdesc[UR8] (A)", "HGMMA.SP.64x16x32.F32", 498)),
    ]
    assert [r[:3] for r in rows if r[0] == 883] == [(883, "UR6:UR7", "0x4000004000400440")]
    assert [r[:3] for r in rows if r[0] == 569] == [(569, "UR4:UR5", "0x0000001000080040"),
                                                   (569, "UR6:UR7", "0x0000001000080440")]
    assert found[10].text == "gdesc[UR8] (A) = 0x4000004000010040"
    assert found[10].best.summary == "wgmma swizzle 128B, start 0x400, LBO 16 B, SBO 1024 B"
    assert len(found) == 36
    # the UMOVs of 292-298 went into the pairs at 312
    assert not [f for f in found if 290 <= f.line <= 300]


def test_hand_wgmma_ptx_words_are_named_by_their_wgmma_mma_async():
    rows = _rows(_scan_file(COMPILED / "hand_wgmma.ptx.gz"))
    f16 = "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16"
    assert rows[:2] == [(31, None, "0x4000004000010040", "word", _fed("a_desc", f16, 46)),
                        (32, None, "0x4000004000010440", "word", _fed("b_desc", f16, 46))]
    # A from registers: the one descriptor operand is B's
    bf16 = "wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16"
    assert [r for r in rows if r[0] == 210] == [
        (210, None, "0x4000004000400440", "word", _fed("b_desc", bf16, 215))]
    # a negative decimal immediate (mov.u64 %rd1, -4611685949707845568): swizzle 32B
    assert [r[2] for r in rows if r[0] in (349, 350)] == ["0xc000001000010040",
                                                         "0xc000001000010440"]


@pytest.mark.parametrize("path", HOPPER_CODE, ids=lambda p: p.name)
def test_hopper_code_has_wgmma_words_only(path):
    found = _scan_file(path)
    assert found
    assert {c.descriptor for f in found for c in f.candidates} == {"wgmma"}
    assert all(f.best.valid for f in found)
    named = [f for f in found if f.best.evidence]
    assert named and all("GMMA" in e or "wgmma.mma_async" in e
                         for f in named for e in f.best.evidence)


@pytest.mark.parametrize("path", [p for p in HOPPER_CODE if p.name.endswith(".sass.gz")],
                         ids=lambda p: p.name)
def test_every_constant_wgmma_pair_is_reported_at_its_mma(path):
    """What lint judges, dump names: each HGMMA/IGMMA/QGMMA/BGMMA descriptor whose register
    pair the reader knows whole is a wgmma word at the MMA's line, in that pair."""
    want = set()
    for ins in read_sass(_lines(path)):
        if isinstance(ins, Instruction):
            for d, op in sass_wgmma_operands(ins):
                if op.value.is_const and not op.alternatives:
                    want.add((ins.line, ":".join(d.registers), op.value.value))
    got = {(f.line, f.register, f.word) for f in _scan_file(path) if f.size == 64}
    assert want <= got
    if path.name.startswith("hand"):
        assert len(want) == 26


PLANTED = 207  # UMOV UR7, 0x40000040: B's upper half of the HGMMA at line 213


def _planted(word: str) -> bytes:
    lines = _lines(COMPILED / "hand_wgmma.sass.gz")
    assert "UMOV UR7, 0x40000040 ;" in lines[PLANTED - 1]
    lines[PLANTED - 1] = lines[PLANTED - 1].replace("0x40000040", word)
    return "\n".join(lines).encode()


def test_a_planted_bit_46_is_still_a_wgmma_word_with_its_warning():
    (f,) = [f for f in scan(_planted("0x40004040")) if f.line == PLANTED]
    best = f.best
    assert (best.descriptor, best.form, best.word) == ("wgmma", "upper", 0x4000404000000000)
    assert not best.structural and best.valid  # a warning: an H100 ignores the unused bits
    assert [(x.severity, x.rule, x.field) for x in best.findings] == [
        ("warning", "wgmma.reserved", "reserved_46")]
    assert best.evidence == _fed("gdesc[UR4] (B)", "HGMMA.64x16x16.F32", 213, True)
    assert best.reason.startswith("read as upper half of a wgmma matrix descriptor although "
                                  "its unused bits are not all 0: reserved_46: unused bits")
    assert [c.descriptor for c in f.candidates] == ["wgmma"]  # no tcgen05 smem on sm_90a
    # the same word no MMA names is not reported: its structure does not hold
    lines = _planted("0x40004040").decode().splitlines()
    assert not [f for f in scan("\n".join(lines[:PLANTED + 2])) if f.line == PLANTED]


def test_an_unused_bit_in_the_stride_field_half_is_kept_apart_from_the_word():
    # bit 52 (unused): broken structure, named by the HGMMA, a warning
    (f,) = [f for f in scan(_planted("0x40100040")) if f.line == PLANTED]
    assert [x.field for x in f.best.findings] == ["reserved_52"]
    assert f.best.confidence == 0.45 and f.best.level == "low"


# ---------------------------------------------------------------- targets


def test_the_input_target_decides_and_each_fatbin_member_keeps_its_own():
    found = scan(TWO_MEMBERS)
    assert [(f.line, f.register, f.best.descriptor, f.best.form) for f in found] == [
        (12, "UR4:UR5", "wgmma", "word"), (12, "UR6:UR7", "wgmma", "word"),
        (23, "UR5", "idesc", "word"), (24, "UR4", "smem", "upper")]
    assert all(f.best.valid for f in found)
    # --arch overrides the input: on sm_100a the HGMMA still names its words, judged there
    forced = scan(TWO_MEMBERS, arch="sm_100a")
    assert [f.best.descriptor for f in forced] == ["wgmma", "wgmma", "idesc", "smem"]
    assert [x.rule for x in forced[0].best.findings if x.severity == "error"] == ["wgmma.target"]
    # on sm_90a the sm_100a member's words are not Hopper words: none is reported
    assert [f.line for f in scan(TWO_MEMBERS, arch="sm_90a")] == [12, 12]


def test_a_blackwell_listing_has_no_wgmma_reading():
    for name in ("cuobjdump-sass.txt", "nvdisasm.txt", "printf.log", "cuda-gdb-print.txt",
                 "cuda-gdb-info-registers.txt"):
        found = scan((DUMPS / name).read_bytes())
        assert found and not [c for f in found for c in f.candidates
                              if c.descriptor == "wgmma"], name


def test_library_defaults_stay_tcgen05():
    # classify: sm_100a unless told
    assert "wgmma" not in {c.descriptor for c in classify(0x40000040, 32)}
    (c,) = classify(0x40000040, 32, arch="sm_90a")
    assert (c.descriptor, c.form, c.confidence) == ("wgmma", "upper", 0.65)
    assert c.reason.endswith("swizzle 128B (+0.20); SBO 1024 B (+0.10)")
    # a word that names no target is read for sm_100a: a Hopper word is an INVALID smem
    (f,) = scan("adesc=0x4000004000010040\n")
    assert (f.best.descriptor, f.best.valid) == ("smem", False)
    assert scan("adesc=0x4000004000010040\n", arch="sm_100a")[0].best == f.best


def test_names_and_as_smem_mean_the_wgmma_word_on_sm_90a():
    text = "adesc=0x4000004000010040 desc_b: 0x4000004000010440 a_desc=0x40000040\n"
    found = scan(text, arch="sm_90a")
    assert [(f.name, f.best.descriptor, f.best.form, f.best.confidence) for f in found] == [
        ("adesc", "wgmma", "word", 0.99), ("desc_b", "wgmma", "word", 0.99),
        ("a_desc", "wgmma", "upper", 0.95)]
    assert found[0].best.evidence == ("the text names it 'adesc' (+0.30)",)
    (forced,) = scan("0x4000004000010040\n", arch="sm_90a", as_="smem")
    assert (forced.best.descriptor, forced.best.evidence) == (
        "wgmma", ("read as wgmma on request (+0.30)",))
    # a name that says wgmma names it on any target (judged on sm_90a when none is named)
    (f,) = scan("wgmma_desc=0x4000004000010040\n")
    assert (f.best.descriptor, f.best.valid, f.best.confidence) == ("wgmma", True, 0.99)


def test_what_small_integers_and_sign_masks_look_like_is_not_a_wgmma_word():
    text = "\n".join(["0x80000000", "0x40000000", "0xc0000000", "0x00000000", "0x00000400",
                      "0x0000000000000010", "0x0000000040000000"]) + "\n"
    assert scan(text, arch="sm_90a") == []
    # with a stride they are (swizzled, SBO 1024 B; SBO 256 B)
    assert [f.hex for f in scan("0x40000040\n0x0000001000080040\n", arch="sm_90a")] == [
        "0x40000040", "0x0000001000080040"]
    (c,) = classify(0x80000000, 32, arch="sm_90a")
    assert c.confidence == 0.35 and "no stride (SBO 0)" in c.reason


# ---------------------------------------------------------------- the command


def dump(*args: str, input: bytes | str | None = None):
    return runner.invoke(app, ["dump", *args], input=input)


def test_cli_reads_hopper_listings_as_hopper_without_flags():
    result = dump(str(COMPILED / "hand_wgmma.sass.gz"), "--plain", "--table-only")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[2].split() == ["61", "UR9", "0x40000040", "high", "0.99", "valid", "wgmma",
                                "(upper", "half)", "swizzle", "128B,", "start", "0x0,", "LBO",
                                "0", "B,", "SBO", "1024", "B"]
    assert lines[-1] == (f"36 descriptor words found in {COMPILED / 'hand_wgmma.sass.gz'}, "
                         "16 distinct")
    assert not re.search(r"\b(smem|idesc|zcm|tmem)\b", result.stdout)
    same = dump(str(COMPILED / "hand_wgmma.sass.gz"), "--plain", "--table-only",
                "--arch", "sm_90a")
    assert same.stdout == result.stdout
    decoded = dump(str(COMPILED / "hand_wgmma.sass.gz"), "--plain")
    assert "evidence: it feeds the upper register of gdesc[UR8] (A) of HGMMA.64x16x16.F32 at " \
           "line 89 (+0.35)" in decoded.stdout


def test_cli_arch_sm_90a_and_as_wgmma():
    result = dump("-", "--arch", "sm_90a", "--plain", "--table-only",
                  input="adesc=0x4000004000010040\n")
    assert result.exit_code == 0 and "wgmma swizzle 128B, start 0x400" in result.stdout
    result = dump("-", "--as", "wgmma", "--plain", "--table-only", input="0x40000040\n")
    assert result.exit_code == 0 and "wgmma (upper half) swizzle 128B" in result.stdout
    result = dump("-", "--as", "wgmma", "-f", "json", input="0x4000004000010040\n")
    best = json.loads(result.stdout)["findings"][0]["best"]
    assert (best["descriptor"], best["form"], best["valid"]) == ("wgmma", "word", True)


@pytest.mark.parametrize("args, message", [
    (["--arch", "sm_89"], "unknown architecture 'sm_89'; known: sm_90a, sm_100a"),
    (["--arch", "sm_80"], "unknown architecture 'sm_80'"),
    (["--as", "wgmma", "--kind", "f16"], "kind applies to idesc only, not wgmma"),
    (["--as", "gmma"], "--as"),
    # a word the given target does not have (the input's target is not known yet: the words
    # of another target are then judged on their own, see test_library_defaults_stay_tcgen05)
    (["--arch", "sm_90a", "--as", "idesc"],
     "as idesc: the idesc word does not exist on sm_90a (its descriptors: wgmma)"),
    (["--arch", "sm_100a", "--as", "wgmma"], "as wgmma: the wgmma word does not exist on sm_100a"),
])
def test_cli_bad_options_are_one_line_exit_2(args, message):
    result = dump("-", *args, input="adesc=0x4000004000010040\n")
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith("descgen: error: ") and message in line


def test_a_blackwell_module_is_read_on_its_own_target_too():
    """The input's target decides on Blackwell as well: an sm_103a module's K=96 block-scaled
    instruction descriptors (sm_103a only) are valid words there, not on sm_100a."""
    path = ROOT / "fixtures" / "sass-forms" / "src" / "sm103a.ptx"
    own = {f.line: f for f in scan(path.read_bytes())}
    assert own[230].hex == "0x90c00480" and own[230].best.decoded.values["k"] == 96
    # (the idesc register is written once per form: the MMA that reads it names the kind)
    assert {c.kind for c in (own[230].best, *own[230].ambiguous)} == {"mxf4nvf4"}
    # on sm_100a the word that feeds the MMA's idesc is reported as what it is there: invalid
    other = {f.line: f for f in scan(path.read_bytes(), arch="sm_100a")}[230]
    assert other.hex == "0x90c00480" and not other.best.valid and other.best.errors == 1


def test_every_member_of_a_fatbin_listing_is_read():
    """Both members' MMAs are read, each on its member's target: the reader's bookkeeping
    starts afresh at a member's header lines and at each function, and nothing read after
    either lands in the function before it."""
    two = TWO_MEMBERS.replace("        /*0080*/                   EXIT ;\n\"\"\"", "") + (
        "        /*0040*/                   UTCHMMA gdesc[UR8], gdesc[UR10], tmem[UR6], "
        "tmem[UR4], idesc[UR5], UPT ;\n        /*0080*/                   EXIT ;\n")
    got = [(i.opcode.split(".")[0], i.arch) for i in read_sass(two.splitlines())
           if isinstance(i, Instruction)]
    assert got == [("HGMMA", "sm_90a"), ("UTCHMMA", "sm_100a")]

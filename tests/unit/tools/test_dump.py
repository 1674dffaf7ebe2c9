"""descgen dump: finding descriptors in register dumps, printf logs and SASS listings.

Fixtures in ``fixtures/dumps`` are written as cuda-gdb, printf, cuobjdump and nvdisasm print
them; each has its expected findings next to it (``<fixture>.expected.json``).  After an
intended change of the scanner, regenerate them with
``DESCGEN_UPDATE_GOLDEN=1 python -m pytest tests/unit/tools/test_dump.py`` and review the diff; the
explicit tests below pin the real values independently of the golden files.
"""

from __future__ import annotations

import io
import itertools
import json
import os
import re
import time
import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import descriptors
from cli.main import app
from descriptors import DescgenError, ParameterError
from descriptors.errors import InputError
from descriptors.tools.dump.score import name_hints
from descriptors.tools.dump import (MAX_LINE, Candidate, FoundWord, classify, iter_lines, scan,
                              scan_lines, scan_stream)

ROOT = Path(__file__).resolve().parents[3]
DUMPS = ROOT / "fixtures" / "dumps"
FIXTURES = sorted(p for p in DUMPS.iterdir() if not p.name.endswith(".expected.json"))
runner = CliRunner()


def compact(f: FoundWord) -> dict:
    best = f.best
    assert best is not None
    return {"line": f.line, "source": f.source, "register": f.register, "name": f.name,
            "word": f.hex, "size": f.size, "descriptor": best.descriptor, "kind": best.kind,
            "form": best.form, "reading": best.summary, "confidence": best.confidence,
            "valid": best.valid}


def found(text: str | bytes, **options) -> list[tuple]:
    """(line, register or name, word, descriptor, kind, form) of every finding."""
    return [(f.line, f.register or f.name, f.word, f.best.descriptor, f.best.kind, f.best.form)
            for f in scan(text, **options)]


def gdb(name: str, value: int) -> str:
    """One row of cuda-gdb's `info registers` (name to column 15, hex to column 35)."""
    signed = value - (1 << 32) if value >> 31 else value
    return f"{name:<15}{hex(value):<20}{signed}"


# ---------------------------------------------------------------- golden fixtures


def test_every_input_style_has_a_fixture():
    names = {p.name for p in FIXTURES}
    assert names == {"cuda-gdb-info-registers.txt", "cuda-gdb-print.txt", "printf.log",
                     "cuobjdump-sass.txt", "nvdisasm.txt"}
    expected = {p.name for p in DUMPS.glob("*.expected.json")}
    assert expected == {f"{p.name}.expected.json" for p in FIXTURES}


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda p: p.name)
def test_fixture_findings_match_golden_file(fixture):
    got = [compact(f) for f in scan(fixture.read_bytes())]
    path = fixture.with_name(fixture.name + ".expected.json")
    if os.environ.get("DESCGEN_UPDATE_GOLDEN"):
        path.write_text(json.dumps(got, indent=1) + "\n")
    assert got == json.loads(path.read_text())


def test_info_registers_fixture():
    got = found((DUMPS / "cuda-gdb-info-registers.txt").read_bytes())
    assert got == [
        (14, "R8", 0x08400490, "idesc", "f16", "word"),
        (17, "R10:R11", 0x0840049000000000, "idesc", "f16", "idescE"),
        (23, "R16:R17", 0x4000404000010040, "smem", None, "word"),
        (50, "UR4:UR5", 0x0840049000000000, "idesc", "f16", "idescE"),
        (54, "UR8:UR9", 0x4000404000000040, "smem", None, "word"),
        (56, "UR10:UR11", 0x4000404000000840, "smem", None, "word"),
        (59, "UR14", 0x10C00000, "idesc", "mxf8f6f4", "word"),
        (64, "UR18:UR19", 0x0000400800000000, "smem", None, "word"),
    ]


def test_print_fixture():
    findings = scan((DUMPS / "cuda-gdb-print.txt").read_bytes())
    by_line = {f.line: f for f in findings}
    assert by_line[2].register == "UR5" and by_line[2].word == 0x08400490
    assert by_line[4].word == 0x08400490  # `p $UR5` prints the decimal 138413200
    assert by_line[6].name == "adesc" and by_line[6].best.confidence == 0.99
    bug = by_line[8]  # bdesc with the 0b001 constant missing: shown, with the rule it breaks
    assert (bug.name, bug.word, bug.best.descriptor, bug.best.valid) == \
        ("bdesc", 0x4000004000000840, "smem", False)
    assert [f.rule for f in bug.best.findings if f.severity == "error"] == ["smem.reserved"]
    assert by_line[12].best.decoded.fields == {"column": 128, "lane": 64}
    assert (by_line[14].word, by_line[14].best.descriptor) == (0x0003028000000000, "zcm")
    assert by_line[25].best.form == "idescE"
    assert 21 not in by_line  # $9 = 0x80 (p/x $R4) is not a descriptor


def test_printf_fixture():
    findings = scan((DUMPS / "printf.log").read_bytes())
    words = {(f.line, f.word): f for f in findings}
    assert words[(8, 0x0840201000000000)].best.decoded.values["negate_a"] is True
    for line, word, descriptor, kind in [
            (3, 0x4000404000000040, "smem", None), (3, 0x08400490, "idesc", "f16"),
            (5, 0x4000404000010000, "smem", None), (6, 0x4000404000000000, "smem", None),
            (7, 0x08400010, "idesc", "f16"), (8, 0x0840201000000000, "idesc", "f16"),
            (9, 0x0000400800000000, "smem", None), (10, 0x30C00010, "idesc", "mxf8f6f4"),
            (11, 0x50C00020, "idesc", "mxf8f6f4"), (11, 0x70C00030, "idesc", "mxf8f6f4"),
            (12, 0x08400480, "idesc", "mxf4nvf4"), (13, 0x08400910, "idesc", "tf32"),
            (14, 0x4000404000010000, "smem", None), (15, 0x4000404000010002, "smem", None),
            (16, 0x0003028000000000, "zcm", None), (17, 0x0203028301020100, "zcm", None),
            (18, 0x00400080, "tmem", None)]:
        f = words.pop((line, word))
        assert (f.best.descriptor, f.best.kind) == (descriptor, kind), (line, hex(word))
    # the pointer 0x7f3a10200000 happens to fit the smem layout; its 256 KiB stride gives it away
    assert all(f.line != 19 for f in findings)
    bad = [f for f in findings if f.line == 20]
    assert len(bad) == 1 and not bad[0].best.valid and bad[0].name == "adesc"


#: The descriptor words of fixtures/dumps/cuobjdump-sass.txt and nvdisasm.txt (the same cubin,
#: built by fixtures/dumps-src/build.py): (register, word, descriptor, kind, form), in order.
#: An NVFP4 K loop (the A descriptor is B - 0x800, stepped: only its upper half is constant),
#: a 2-CTA mxf8f6f4 MMA twice (idesc 0x10c00000, then 0x30c00010 with scale IDs 1/1), a bf16
#: MMA with constant descriptors and a +2 K step, and data words in plain registers.
LISTING_WORDS = [
    ("UR7", 0x40004040, "smem", None, "upper"),
    ("UR10", 0, "tmem", None, "word"),
    ("UR11", 0x08400480, "idesc", "mxf4nvf4", "word"),   # UTCOMMA.4X: kind::mxf4nvf4
    ("UR12", 0x100, "tmem", None, "word"),                # the scale factors' column
    ("UR10", 0, "tmem", None, "word"),
    ("UR11", 0x10C00000, "idesc", "mxf8f6f4", "word"),  # UTCQMMA + scales: kind::mxf8f6f4
    ("UR12", 0x100, "tmem", None, "word"),
    ("UR5", 0x40004040, "smem", None, "upper"),
    ("UR8:UR9", 0x4000404000000840, "smem", None, "word"),
    ("UR10", 0, "tmem", None, "word"),
    ("UR11", 0x30C00010, "idesc", "mxf8f6f4", "word"),
    ("UR8:UR9", 0x4000404000000840, "smem", None, "word"),
    ("UR12", 0, "tmem", None, "word"),
    ("UR13", 0x08400490, "idesc", "f16", "word"),        # UTCHMMA with bf16 types: kind::f16
    ("UR8:UR9", 0x4000404000000040, "smem", None, "word"),
    ("UR10:UR11", 0x4000404000000840, "smem", None, "word"),
    ("UR8:UR9", 0x4000404000000042, "smem", None, "word"),  # the +2 K step (32 bytes)
    ("UR10:UR11", 0x4000404000000842, "smem", None, "word"),
    ("R5", 0x10400490, "idesc", "f16", "word"),          # data: no MMA reads them
    ("R7", 0x10200010, "idesc", "f16", "word"),
]


def test_cuobjdump_fixture():
    """Unedited cuobjdump -sass output, header lines and all, read by the SASS reader."""
    findings = scan((DUMPS / "cuobjdump-sass.txt").read_bytes())
    got = [(f.register, f.word, f.best.descriptor, f.best.kind, f.best.form) for f in findings]
    assert got == LISTING_WORDS
    idesc = next(f for f in findings if f.word == 0x08400490)
    assert idesc.line == 228
    assert idesc.best.evidence == ("it feeds idesc[UR13] of UTCHMMA at line 236 (+0.35)",)
    assert idesc.best.confidence == 0.85
    # the instruction encodings (/* 0x... */) are never read as words
    text = (DUMPS / "cuobjdump-sass.txt").read_text()
    encodings = {int(m, 16) for m in re.findall(r"/\* (0x[0-9a-f]{16}) \*/", text)}
    assert len(encodings) > 50 and not encodings & {f.word for f in findings}
    assert {f.source for f in findings} == {"sass"}
    assert "\tcode for sm_100a\n\t.target\tsm_100a" in text[:400]  # the header lines are there


def test_nvdisasm_fixture():
    """nvdisasm's listing of the same cubin: the same words, at its own lines."""
    findings = scan((DUMPS / "nvdisasm.txt").read_bytes())
    got = [(f.register, f.word, f.best.descriptor, f.best.kind, f.best.form) for f in findings]
    assert got == LISTING_WORDS
    assert [f.line for f in findings][:3] == [601, 602, 603]


def test_dump_and_lint_read_the_same_facts():
    """dump and lint consume one reader: every MMA operand value lint judges is a word dump
    reports (or, known in part, the immediate of its upper half)."""
    from descriptors.tools.lint import lint_lines
    for name in ("cuobjdump-sass.txt", "nvdisasm.txt"):
        text = (DUMPS / name).read_text()
        words = {f.word for f in scan(text)}
        judged = [f for f in lint_lines(text.splitlines(), file=name)
                  if f.operand in ("idesc", "a_desc", "b_desc")]
        assert not [f for f in judged if f.severity != "note"]
        for f in judged:  # the notes: descriptors known in part
            assert f.word.startswith("0x400040") and 0x40004040 in words


# ---------------------------------------------------------------- classification


def _real_world():
    with open(ROOT / "fixtures" / "real-world.toml", "rb") as fh:
        return [c for c in tomllib.load(fh)["configs"]]


@pytest.mark.parametrize("config", _real_world(), ids=lambda c: c["name"])
def test_every_published_word_is_recognised(config):
    word = int(config["expect"], 16)
    descriptor = config["descriptor"]
    size = descriptors.word_bits(descriptor)
    cands = classify(word, size)
    if descriptor in ("smem", "idesc"):  # recognised without any evidence in the text
        best = cands[0]
        assert best.descriptor == descriptor and best.valid and best.confidence >= 0.5
        if descriptor == "idesc":
            assert config["kind"] in {c.kind for c in cands if c.descriptor == "idesc"}
    else:  # zcm, tmem: too common a shape to report unnamed; a name makes them certain
        assert cands[0].descriptor == descriptor and cands[0].confidence < 0.5
        named = classify(word, size, hints=[(descriptor, 0.3, True, "named")])
        assert named[0].descriptor == descriptor and named[0].confidence >= 0.5


def test_confidence_levels_and_reasons():
    (smem,) = classify(0x4000404000010000, 64)
    assert (smem.confidence, smem.level) == (0.85, "high")
    assert "fixed_constant[48:46] = 0b001" in smem.reason and "swizzle 128B (+0.20)" in smem.reason
    sf, zcm = classify(0x0000400800000000, 64)
    assert (sf.descriptor, sf.confidence, sf.level) == ("smem", 0.65, "medium")
    assert (zcm.descriptor, zcm.confidence, zcm.level) == ("zcm", 0.1, "low")
    idesc = classify(0x08400490)
    assert [(c.descriptor, c.kind, c.confidence) for c in idesc] == [
        ("idesc", "f16", 0.5), ("idesc", "f8f6f4", 0.5)]
    assert "also valid as kind::f8f6f4" in idesc[0].reason
    assert idesc[0].summary == "idesc kind::f16 bf16 x bf16 -> f32 M=128 N=256 K=16"
    nvfp4 = classify(0x08400480)  # f32 accumulation is preferred on a tie (f8f6f4 reads f16)
    assert [c.kind for c in nvfp4] == ["mxf4nvf4", "f8f6f4"]


def test_idesc_e_form():
    (zero, _) = classify(0x0840049000000000, 64)
    assert (zero.descriptor, zero.kind, zero.form, zero.word, zero.confidence) == \
        ("idesc", "f16", "idescE", 0x08400490, 0.7)
    assert "lower 32 bits 0" in zero.reason
    (tmem, _) = classify(0x0840049000400080, 64)
    assert (tmem.form, tmem.confidence) == ("idescE", 0.6)
    assert "lane 64 column 128" in tmem.reason
    assert classify(0x0840049012345678, 64) == []  # the lower half is no TMEM address


def test_pointer_that_fits_the_smem_layout_is_penalised():
    (ptr,) = classify(0x00007FFF10200000, 64)
    assert ptr.descriptor == "smem" and ptr.valid
    assert ptr.confidence == 0.3 and "typical of a pointer" in ptr.reason
    assert scan("ptr=0x00007fff10200000\n") == []


def test_smem_upper_half():
    (upper,) = [c for c in classify(0x40004040) if c.descriptor == "smem"]
    assert (upper.form, upper.word, upper.confidence) == ("upper", 0x4000404000000000, 0.65)
    assert upper.decoded.values["swizzle"] == "128B"


def test_names_raise_confidence_and_force_a_reading():
    plain_, named = scan("0x08400490\nidesc=0x08400490\n")
    assert plain_.best.confidence == 0.5 and named.best.confidence == 0.8
    assert named.best.evidence == ("the text names it 'idesc' (+0.30)",)
    # a specific name always reports its reading, even when it breaks the layout
    (bad,) = scan("adesc = 0x0000000000010000\n")
    assert (bad.best.descriptor, bad.best.valid, bad.best.structural) == ("smem", False, False)
    assert "fixed constant must be 0b001" in bad.best.reason
    # a generic name only adds a little
    (desc,) = scan("desc: 0x0000400800000000\n")
    assert desc.best.confidence == 0.8  # 0.65 + 0.15
    assert desc.best.evidence == ("the text calls it 'desc' (+0.15)",)
    assert scan("mask=0xffffffffffffffff\n") == []


def test_name_hint_families():
    cases = {"idesc": "idesc", "instr_desc": "idesc", "a_desc": "smem", "desc_b": "smem",
             "smem_desc": "smem", "taddr": "tmem", "tmem_addr": "tmem", "zcm": "zcm",
             "zero_col_mask": "zcm"}
    for name, family in cases.items():
        hints = name_hints(name)
        assert hints and hints[0][0] == family and hints[0][2], name
    assert name_hints("ptr") == ()
    weak = name_hints("desc")
    assert {h[0] for h in weak} == {"smem", "idesc", "zcm"} and not any(h[2] for h in weak)


def test_as_and_kind_force_the_reading():
    (zcm,) = scan("0x0003028000000000\n", as_="zcm")
    assert (zcm.best.descriptor, zcm.best.confidence) == ("zcm", 0.65)
    assert scan("0x0003028000000000\n") == []
    (i8,) = scan("0x08400490\n", kind="f8f6f4")
    assert [c.kind for c in i8.candidates] == ["f8f6f4"]
    assert i8.best.summary.startswith("idesc kind::f8f6f4 e5m2 x e5m2 -> f32")
    (t,) = scan("0x00400080\n", as_="tmem")
    assert t.best.decoded.fields == {"column": 128, "lane": 64}
    assert all(c.descriptor == "tmem" for c in t.candidates)


@pytest.mark.parametrize("options, message", [
    (dict(kind="f17"), "unknown kind 'f17'"),
    (dict(as_="smem", kind="f16"), "kind applies to idesc only"),
    (dict(as_="foo"), "unknown descriptor 'foo'"),
    (dict(arch="sm_90"), "unknown architecture 'sm_90'"),  # (sm_90a is read: wgmma)
    (dict(arch=90), "unknown architecture 90"),
])
def test_bad_options_are_refused_before_reading(options, message):
    with pytest.raises(ParameterError, match=message):
        scan_lines(iter(()), **options)
    with pytest.raises(DescgenError):
        scan("0x08400490", **options)


def test_classify_refuses_a_word_that_does_not_fit():
    with pytest.raises(ParameterError):
        classify(1 << 32, 32)
    with pytest.raises(ParameterError):
        classify(-1, 64)


# ---------------------------------------------------------------- input styles


def test_register_pairs_are_aligned_and_consecutive():
    text = "\n".join([gdb("R4", 0x0), gdb("R5", 0x8400490),  # idescE pair
                      gdb("R7", 0x10040), gdb("R8", 0x40004040),  # R7:R8 is not a pair
                      gdb("R10", 0x8400490), gdb("R11", 0x0),  # low word idesc, high 0
                      gdb("R12", 0x10040), "", gdb("R13", 0x40004040)])  # not consecutive
    assert found(text) == [
        (2, "R4:R5", 0x0840049000000000, "idesc", "f16", "idescE"),
        (4, "R8", 0x40004040, "smem", None, "upper"),
        (5, "R10", 0x08400490, "idesc", "f16", "word"),
        (9, "R13", 0x40004040, "smem", None, "upper"),
    ]
    (pair,) = scan(gdb("UR8", 0x10040) + "\n" + gdb("UR9", 0x40004040))
    assert pair.text == "UR8=0x10040 UR9=0x40004040" and pair.source == "registers"


def test_gdb_print_takes_the_name_of_the_expression():
    text = "(cuda-gdb) p/x a_desc\n$1 = 0x4000404000010000\n(cuda-gdb) p/x $UR11\n$2 = 0x40004040\n"
    first, second = scan(text)
    assert (first.name, first.source, first.best.confidence) == ("a_desc", "print", 0.99)
    assert (second.register, second.name) == ("UR11", None)
    # the name belongs to the value printed right after the command only
    assert found("(cuda-gdb) p/x taddr\n$1 = 0x0\n$2 = 0x0\n") == [(2, "taddr", 0, "tmem", None, "word")]


def test_printf_tokens():
    text = ("a=0x4000_4040_0001_0000 b=0x40004040'00010000 c=4000404000010000 "
            "d=400040400001 e=0x40004040000100001 f=08400490\n")
    got = [(f.text, f.word) for f in scan(text)]
    assert got == [("0x4000_4040_0001_0000", 0x4000404000010000),
                   ("0x40004040'00010000", 0x4000404000010000),
                   ("4000404000010000", 0x4000404000010000),
                   ("08400490", 0x08400490)]
    # decimal values only when a name says what they are
    assert found("taddr=4194432 n=138413200 idesc: 138413200\n") == [
        (1, "taddr", 0x00400080, "tmem", None, "word"),
        (1, "idesc", 0x08400490, "idesc", "f16", "word")]
    assert found("idesc 08400480") == [(1, "idesc", 0x08400480, "idesc", "mxf4nvf4", "word")]


def test_sass_register_tracking():
    base = ["        /*0000*/                   UMOV UR5, 0x8400490 ;",
            "        /*0010*/                   UMOV UR4, URZ ;"]
    mma = "        /*0040*/                   UTCHMMA gdesc[UR8], gdesc[UR10], tmem[UR6], tmem[UR4], idesc[UR5], UPT ;"
    (idesc, tmem) = scan("\n".join(base + [mma]))
    assert idesc.best.confidence == 0.85 and tmem.best.descriptor == "tmem"
    # an instruction that changes the register between the move and the MMA: the MMA reads
    # the value the data flow computes (0x08400490 + 1), reported where the MMA reads it
    stepped = scan("\n".join(base + ["        /*0020*/                   UIADD3 UR5, UPT, UPT, UR5, 0x1, URZ ;", mma]))
    assert [(f.line, f.register, f.text, f.best.confidence) for f in stepped] == [
        (1, "UR5", "UMOV UR5, 0x8400490", 0.5), (2, "UR4", "UMOV UR4, URZ", 0.55),
        (4, None, "idesc[UR5] = 0x08400491", 0.85)]
    # a 64-bit load into the pair overwrites both: the MMA reads a run-time value
    loaded = scan("\n".join(base + ["        /*0020*/                   LDCU.64 UR4, c[0x0][0x380] ;", mma]))
    assert [f.register for f in loaded] == ["UR5"] and loaded[0].best.confidence == 0.5
    # a copy carries the value: MOV R2 <- imm, then R2UR UR5 <- R2
    copied = scan("\n".join(["  MOV R2, 0x8400490", "  R2UR UR5, R2", mma.strip()]))
    assert [(f.register, f.word, f.best.confidence) for f in copied] == [("R2", 0x08400490, 0.85)]
    # the word is read in the MMA's context, as lint judges it: M=256 needs cta_group::2
    for opcode, valid in (("UTCHMMA", False), ("UTCHMMA.2CTA", True)):
        m256 = scan("\n".join(["  MOV R2, 0x10400490", "  R2UR UR5, R2",
                               mma.strip().replace("UTCHMMA", opcode)]))
        assert [(f.word, f.best.valid) for f in m256] == [(0x10400490, valid)]
        assert [x.rule for x in m256[0].best.findings if x.severity == "error"] == \
            ([] if valid else ["idesc.shape"])
    # IMAD.MOV and a predicated move; a function header ends the data flow
    other = scan("\n".join(["        /*0000*/              @P0  IMAD.MOV.U32 R4, RZ, RZ, 0x8400490 ;",
                            "\t\tFunction : next", "  R2UR UR5, R4", mma.strip()]))
    assert [(f.register, f.text, f.best.confidence) for f in other] == \
        [("R4", "@P0 IMAD.MOV.U32 R4, RZ, RZ, 0x8400490", 0.5)]
    # a predicated move whose only alternative is "not yet written" holds its constant
    # (nvcc's code for a planted N=264: reported with its error, named by the MMA)
    guarded = scan("\n".join(["  @!UP1 UMOV UR5, 0x8420490", "  @!UP2 UTCHMMA gdesc[UR8], "
                              "gdesc[UR10], tmem[UR6], tmem[UR4], idesc[UR5], UPT"]))
    assert [(f.register, f.word, f.best.descriptor, f.best.valid) for f in guarded] == \
        [("UR5", 0x08420490, "idesc", False)]
    assert [x.rule for x in guarded[0].best.findings] == ["idesc.shape"]
    assert guarded[0].best.evidence == ("it feeds idesc[UR5] of UTCHMMA at line 2 (+0.35)",)


def test_sass_gdesc_pair_and_upper_half():
    lines = ["  UMOV UR8, 0x40", "  UMOV UR9, 0x40004040",
             "  UTCHMMA gdesc[UR8], gdesc[UR10], tmem[UR6], tmem[UR4], idesc[UR5], UPT"]
    (pair,) = scan("\n".join(lines))
    assert (pair.register, pair.word, pair.line, pair.best.confidence) == \
        ("UR8:UR9", 0x4000404000000040, 3, 0.99)
    assert pair.text == "gdesc[UR8] = 0x4000404000000040"
    (upper,) = scan("\n".join(["  R2UR UR8, R3"] + lines[1:]))
    assert (upper.register, upper.best.form, upper.best.confidence) == ("UR9", "upper", 0.99)
    assert "upper register of gdesc[UR8]" in upper.best.evidence[0]


def test_sass_encodings_and_addresses_are_not_words():
    line = ("        /*0080*/                   LDC R1, c[0x0][0x37c] ;"
            "                    /* 0x0840049000057882 */\n" + " " * 78 + "/* 0x000fe20008000000 */\n")
    assert scan(line) == []


def test_window_bounds_how_long_a_move_waits():
    lines = ["  UMOV UR5, 0x8400490"] + ["nothing here 1"] * 30 + \
        ["  UTCHMMA gdesc[UR8], gdesc[UR10], tmem[UR6], tmem[UR4], idesc[UR5], UPT"]
    assert [f.best.confidence for f in scan_lines(lines)] == [0.85]
    # past the window the move is reported alone, and the MMA's word where the MMA reads it
    assert [(f.line, f.best.confidence) for f in scan_lines(lines, window=10)] == \
        [(1, 0.5), (32, 0.85)]


def test_scan_lines_streams():
    def endless():
        yield "idesc=0x08400490"
        for i in itertools.count():
            yield f"noise {i}"
    first = next(scan_lines(endless()))
    assert first.word == 0x08400490
    # a register holding a SASS value releases it when overwritten, not at the window's end
    def sass():
        yield "  UMOV UR5, 0x8400490"
        yield "  UIADD3 UR5, UR5, 0x1, URZ"
        for i in itertools.count():
            yield f"  NOP ; {i}"
    assert next(scan_lines(sass())).line == 1


def test_bytes_crlf_and_non_utf8():
    data = b"\xff\xfe junk \x00\x01\r\nidesc=0x08400490\r\n\x80adesc=0x4000404000010000\xc3"
    assert [(f.line, f.word) for f in scan(data)] == [(2, 0x08400490), (3, 0x4000404000010000)]
    assert scan(data) == scan(data.decode("utf-8", "replace"))


def test_long_lines_are_capped():
    head = "x" * (MAX_LINE - 20)
    text = f"{head} idesc=0x08400490 beyond the cap idesc=0x10400490\nidesc=0x10C00000\n"
    assert [f.word for f in scan(text)] == [0x08400490, 0x10C00000]
    assert [f.word for f in scan(text.encode())] == [0x08400490, 0x10C00000]


def test_iter_lines_keeps_memory_bounded():
    data = b"a" * 5_000_000 + b"\nidesc=0x08400490\n" + b"b" * 100 + b"\n"
    lines = list(iter_lines(io.BytesIO(data), chunk=1 << 16))
    assert [len(l) for l in lines] == [MAX_LINE, 16, 100]
    assert lines[1] == "idesc=0x08400490"
    (f,) = scan_stream(io.BytesIO(data))
    assert (f.line, f.word) == (2, 0x08400490)


@pytest.mark.parametrize("text", [
    "0x" + "_" * 100_000,
    "a_" * 100_000,
    "1'" * 100_000,
    "0x" + "1_" * 100_000,
    "0" * 200_000,
    "/*" * 100_000,
    "(cuda-gdb) p/x " + "a" * 100_000 + "\n$1 = 0x1",
    "UMOV " + "UR1, " * 50_000,
    "desc=" * 50_000 + "1",
    "R4" + " " * 100_000 + "0x1",
])
def test_pathological_lines_do_not_hang(text):
    start = time.perf_counter()
    scan("\n".join([text] * 3))
    assert time.perf_counter() - start < 2.0


# ---------------------------------------------------------------- properties

_FRAGMENTS = st.sampled_from([
    "R4             0x8400490           138413200", "UR5            0x40004040          1073758272",
    "UR4            0x0                 0", "(cuda-gdb) p/x adesc", "(cuda-gdb) p $UR5", "$1 = ",
    "        /*0080*/                   UMOV UR5, 0x8400490 ;", " " * 78 + "/* 0x000fe20008000000 */",
    "  UTCHMMA gdesc[UR8], gdesc[UR10], tmem[UR6], tmem[UR4], idesc[UR5], UPT ;",
    "\t\tFunction : k", "idesc=", "adesc=0x", "0x", "4000404000010000", "'", "_", "=", ":", " ",
    "\n", "\r\n", "\x00", "\ufffd", "{", "}", "[", "]", "/*", "*/", ";", ",", "@P0 ", "URZ",
    "R2UR UR8, R3", "MOV R2, 0x", "LDCU.64 {UR4,UR5}, c[0x0][0x0] ;", "taddr=", "zcm: ", "mask ",
])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(b"\rR4  0x8400490  138413200")  # a CR ends a line too
@given(st.binary(max_size=3000))
def test_random_bytes_never_crash(data):
    findings = scan(data)
    lines = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n").count(b"\n") + 1
    for f in findings:
        assert 1 <= f.line <= lines
        assert 0 <= f.word < (1 << f.size) and f.candidates


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(["\rR4  0x8400490  138413200"], None)  # a CR ends a line too
@given(st.lists(st.one_of(_FRAGMENTS, st.text(max_size=40),
                          st.integers(0, (1 << 64) - 1).map(hex)), max_size=80),
       st.sampled_from([None, "smem", "idesc", "zcm", "tmem"]))
def test_random_text_mixes_never_crash(parts, as_):
    text = "".join(parts)
    findings = scan(text, as_=as_)
    # CR, CRLF and LF end a line alike (as the readers take them)
    lf = text.replace("\r\n", "\n").replace("\r", "\n")
    if max(len(line.encode()) for line in lf.split("\n")) < MAX_LINE:
        assert scan(text.encode(), as_=as_) == findings  # bytes and text read alike
    lines = lf.count("\n") + 1
    for f in findings:
        assert 1 <= f.line <= lines
        best = f.best
        assert isinstance(best, Candidate) and 0.01 <= best.confidence <= 0.99
        if as_ is not None:
            assert {c.descriptor for c in f.candidates} == {as_}
        json.dumps(f.to_dict())


# ---------------------------------------------------------------- command line


def dump(*args: str, input: bytes | str | None = None):
    return runner.invoke(app, ["dump", *args], input=input)


def test_cli_table_and_decodes():
    result = dump(str(DUMPS / "cuda-gdb-print.txt"), "--no-color")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "11 descriptor words found in" in out
    assert "0x4000004000000840" in out and "INVALID (1 error)" in out
    assert "line 8  bdesc  0x4000004000000840" in out
    assert "error: [smem.reserved] fixed_constant[48:46]: fixed constant must be 0b001" in out
    assert result.stderr == ""


def test_cli_plain_is_stable_text():
    result = dump(str(DUMPS / "nvdisasm.txt"), "--plain")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("descriptor words in " + str(DUMPS / "nvdisasm.txt"))
    assert lines[1].split() == ["line", "where", "value", "confidence", "verdict", "reading"]
    assert lines[2].split()[:7] == ["601", "UR7", "0x40004040", "high", "0.99", "valid", "smem"]
    assert lines[-1] == f"20 descriptor words found in {DUMPS / 'nvdisasm.txt'}, 13 distinct"
    assert "idesc 0x08400480  kind::mxf4nvf4  (Instruction descriptor (kind::mxf4, mxf4nvf4); " \
           "32-bit; PTX Table 44)" in result.stdout
    assert "\x1b[" not in result.stdout
    table = dump(str(DUMPS / "nvdisasm.txt"), "--plain", "--table-only").stdout.splitlines()
    assert len(table) == 2 + 20 + 1


def test_cli_json_from_stdin():
    result = dump("-", "--format", "json", input=(DUMPS / "printf.log").read_bytes())
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["input"] == "<stdin>"
    first = doc["findings"][0]
    assert (first["line"], first["name"], first["word"], first["best"]["descriptor"]) == \
        (2, "tmem_base", "0x00000000", "tmem")
    words = [f["word"] for f in doc["findings"]]
    assert "0x0840201000000000" in words and len(words) == 23
    idesc_e = doc["findings"][words.index("0x0840201000000000")]["best"]
    assert (idesc_e["form"], idesc_e["decoded"]["values"]["negate_a"]) == ("idescE", True)
    assert json.loads(dump("-", "-f", "json", input="nothing\n").stdout) == \
        {"input": "<stdin>", "findings": []}


def test_cli_options_and_nothing_found():
    result = dump("-", "--as", "zcm", "--plain", "--table-only", input="0x0003028000000000\n")
    assert result.exit_code == 0 and "zcm use 4, skip 3" in result.stdout
    result = dump("-", input="int main() { return 0; }\n")  # text without a word: exit 0
    assert result.exit_code == 0 and result.stdout == "no descriptor words found in <stdin>\n"
    result = dump("-", "--min-confidence", "0.9", "--plain", input="0x4000404000010000\n")
    assert result.stdout.startswith("no descriptor words found")


def test_binary_data_is_a_bad_input_as_for_lint(tmp_path):
    """Bytes that are neither text nor a CUDA binary nor gzip (NUL bytes in the first line):
    one line on stderr and exit 2, before any report, as lint says it; the other files are
    still read.  The library refuses them where it is given the input's name."""
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"\x00\xff binary \x80 junk" * 100)
    for args, kwargs in (([str(junk)], {}), (["-"], {"input": junk.read_bytes()})):
        result = dump(*args, **kwargs)
        name = args[0] if args[0] != "-" else "<stdin>"
        assert (result.exit_code, result.stdout) == (2, "")
        assert result.stderr == f"descgen: error: {name}: binary data, not text (nor a CUDA " \
            "binary or gzip file)\n"
    both = dump(str(junk), str(DUMPS / "printf.log"), "--plain", "--table-only")
    assert both.exit_code == 2 and "in 2 files (1 not read)" in both.stdout
    with pytest.raises(InputError, match="junk: binary data"):
        scan_stream(io.BytesIO(junk.read_bytes()), "junk")
    assert list(scan_stream(io.BytesIO(junk.read_bytes()))) == []  # (no name: not checked)


@pytest.mark.parametrize("args, message", [
    (["/nonexistent/dump.txt"], "cannot read /nonexistent/dump.txt"),
    (["-", "--kind", "f17"], "unknown kind 'f17'"),
    (["-", "--as", "smem", "--kind", "f16"], "kind applies to idesc only"),
    (["-", "--arch", "sm_80"], "unknown architecture 'sm_80'"),
    (["-", "--as", "gdesc"], "--as"),
])
def test_cli_bad_input_is_one_line_exit_2(args, message):
    result = dump(*args, input="idesc=0x08400490\n")
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("descgen: error: ") and message in lines[0]


def test_cli_directory_is_refused(tmp_path):
    result = dump(str(tmp_path))
    assert result.exit_code == 2 and result.stderr.startswith("descgen: error: cannot read")


# ---------------------------------------------------------------- default output at scale (issue 15)


def _busy_log(lines: int = 300, words: int = 40) -> str:
    """A printf log of ``lines`` x ``words`` hex words: real descriptors repeated over and over,
    mixed with random values (the shape of the log that took 2 minutes in issue 15)."""
    import random
    rng = random.Random(15)
    real = [0x08400490, 0x10400490, 0x4000404000010000, 0x0000400800000000, 0x00200040,
            0x0003028000000000, 0x08400480, 0x10C00000]
    out = []
    for i in range(lines):
        ws = (rng.choice(real) if rng.random() < 0.6 else rng.getrandbits(32) for _ in range(words))
        out.append(f"[blk {i}] desc " + " ".join(f"0x{w:x}" for w in ws))
    return "\n".join(out) + "\n"


def test_cli_default_output_decodes_each_distinct_word_once():
    text = _busy_log()
    start = time.perf_counter()
    result = dump("-", "--no-color", input=text)
    elapsed = time.perf_counter() - start
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    last = out.splitlines()[-1]
    m = re.fullmatch(r"(\d+) descriptor words found in <stdin>, (\d+) distinct", last)
    assert m, last
    total, distinct = int(m.group(1)), int(m.group(2))
    assert total > 5000 and distinct < 50
    # one decode per distinct word: its rule heading and its "best reading" block (or, for a
    # word two kinds read alike, its "ambiguous" block), once each
    assert out.count("best reading:") + out.count("\n  ambiguous: ") == distinct
    assert out.count("(decoded at line ") == total - distinct
    # the index lists every distinct word with its count and first places
    index = out[out.index("where each distinct word occurs:"):].splitlines()[1:-1]
    assert len(index) == distinct
    assert sum(int(re.search(r": (\d+)x, line ", row).group(1)) for row in index) == total
    assert elapsed < 30  # was 2 minutes for this input (every occurrence decoded)


def test_cli_default_output_streams(monkeypatch, capsys):
    """Rows are written as findings arrive, not after the scan: the first row is out before
    the second finding exists."""
    from descriptors.render import dump as render_dump
    findings = scan("adesc = 0x4000404000010000\nidesc = 0x08400490\n")
    assert len(findings) == 2

    def source():
        yield findings[0]
        assert "0x4000404000010000" in capsys.readouterr().out
        yield findings[1]

    render_dump.write_text(source(), "<test>", plain_=True, table_only=False, no_color=True)
    assert "0x08400490" in capsys.readouterr().out


def test_cli_default_output_memory_is_bounded(monkeypatch, capsys):
    """The index remembers at most KEEP_WORDS distinct words and KEEP_LOCATIONS places each."""
    from descriptors.render import dump as render_dump
    monkeypatch.setattr(render_dump, "KEEP_WORDS", 3)
    monkeypatch.setattr(render_dump, "KEEP_LOCATIONS", 2)
    text = "".join(f"tmem_addr = 0x{col:08x}\n" for col in range(6)) + "tmem_addr = 0x0\n" * 5
    render_dump.write_text(iter(scan(text)), "<test>", plain_=True, table_only=False,
                           no_color=True)
    out = capsys.readouterr().out
    assert "(the first 3 distinct words are listed)" in out
    assert "0x00000000  tmem lane 0, column 0: 6x, line 1 (tmem_addr), 7 (tmem_addr) and 4 more" in out
    assert out.splitlines()[-1] == "11 descriptor words found in <test>, 3+ distinct"


# ---------------------------------------------------------------- progress bar (issue #12)


def _big_file(tmp_path: Path) -> Path:
    path = tmp_path / "big.log"
    path.write_text("idesc=0x08400490\n" + "noise line 12345\n" * 20000)
    return path


def test_progress_bar_drawn_on_a_terminal(tmp_path, monkeypatch):
    """A file over the threshold read with a terminal console shows the bar, and the scan
    through the bar's reader finds the same words as without it."""
    from rich.console import Console

    from cli import dump_cmd
    from descriptors.tools.dump import scan_stream

    path = _big_file(tmp_path)
    monkeypatch.setattr(dump_cmd, "PROGRESS_MIN_BYTES", 1024)
    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, width=100)
    with path.open("rb") as stream, dump_cmd._progress(stream, "big.log", True,
                                                       console=console) as reading:
        assert reading is not stream
        found = [f.hex for f in scan_stream(reading)]
    assert found == [f.hex for f in scan(path.read_bytes())] == ["0x08400490"]
    drawn = screen.getvalue()
    assert "dump big.log" in drawn and "\x1b[" in drawn  # the bar, with terminal control codes


def test_progress_bar_not_drawn_off_a_terminal(tmp_path, monkeypatch):
    """No bar when the console is not a terminal, for small files, or for standard input."""
    from rich.console import Console

    from cli import dump_cmd

    path = _big_file(tmp_path)
    monkeypatch.setattr(dump_cmd, "PROGRESS_MIN_BYTES", 1024)
    screen = io.StringIO()
    with path.open("rb") as stream:
        with dump_cmd._progress(stream, "big.log", True,
                                console=Console(file=screen, force_terminal=False)) as reading:
            assert reading is stream
        with dump_cmd._progress(stream, "<stdin>", False,
                                console=Console(file=screen, force_terminal=True)) as reading:
            assert reading is stream  # standard input: no size to measure against
    monkeypatch.setattr(dump_cmd, "PROGRESS_MIN_BYTES", path.stat().st_size + 1)
    with path.open("rb") as stream, dump_cmd._progress(
            stream, "big.log", True, console=Console(file=screen, force_terminal=True)) as reading:
        assert reading is stream
    assert screen.getvalue() == ""


def test_cli_no_progress_output_when_stderr_is_not_a_terminal(tmp_path, monkeypatch):
    from cli import dump_cmd

    path = _big_file(tmp_path)
    monkeypatch.setattr(dump_cmd, "PROGRESS_MIN_BYTES", 1024)
    for fmt in ("text", "json"):
        result = dump(str(path), "--format", fmt)
        assert result.exit_code == 0, result.stderr
        assert result.stderr == ""
        assert "0x08400490" in result.stdout


# ---------------------------------------------------------------- the shared SASS reader (issue #12)


def test_sass_reader_facts_and_writes():
    """What the SASS reader (dump's and lint's one reader of SASS) takes from each line: the
    constants moved into registers, and the registers an instruction overwrites."""
    from descriptors.readers import Fact
    from descriptors.readers.sass import read_sass
    lines = ["        /*0080*/                   UMOV UR5, 0x8400490 ;" + " " * 20
             + "/* 0x0840049000057882 */", " " * 78 + "/* 0x000fe20008000000 */",
             "  @P1 MOV R3, -0x1 ;", "  UMOV UR4, URZ", "  IMAD.MOV.U32 R5, RZ, RZ, 0x10200010 ;",
             "  IMAD.MOV.U32 R6, R1, RZ, 0x10 ;", "  adesc=0x4000404000010040"]
    facts = [(f.line, f.register, f.value.value) for f in read_sass(lines) if isinstance(f, Fact)]
    assert facts == [(1, "UR5", 0x08400490), (3, "R3", 0xFFFFFFFF), (4, "UR4", 0),
                     (5, "R5", 0x10200010)]
    mma = "  UTCHMMA gdesc[UR8], gdesc[UR10], tmem[UR6], tmem[UR4], idesc[UR5], UPT ;"
    for write, known in [("ULDC.64 UR4, c[0x0][0x208] ;", False),   # UR4 and UR5
                         ("LDG.E.128 R8, desc[UR12][R2.64] ;", True),
                         ("LDCU.128 UR4, c[0x0][0x380] ;", False),
                         ("LDSM.16.M88.4 R4, [R2] ;", True),
                         ("UIADD3 UR6, UPT, UPT, UR6, 0x1, URZ ;", True)]:
        ins = next(i for i in read_sass(["  UMOV UR5, 0x8400490 ;", "  " + write, mma])
                   if not isinstance(i, Fact))
        assert ins.operands[4].value.is_const is known, write


# ------------------------------------------------------------------ ambiguous idesc readings

def _dump(text: str, *args: str):
    from typer.testing import CliRunner

    from cli.main import app
    return CliRunner().invoke(app, ["dump", "-", "--table-only", *args], input=text)


def test_dump_says_a_word_of_two_kinds_is_ambiguous_and_shows_both():
    r = _dump("0x08218010\n")
    assert r.exit_code == 0, r.output
    row = next(line for line in r.stdout.splitlines() if "0x08218010" in line)
    assert "ambiguous: idesc kind::f16 f16 x f16" in row
    assert "| or kind::f8f6f4 e4m3 x e4m3" in row
    from descriptors.tools.dump import scan
    (f,) = scan("0x08218010\n")
    assert [c.kind for c in (f.best, *f.ambiguous)] == ["f16", "f8f6f4"]


def test_dump_with_the_kind_given_is_not_ambiguous():
    r = _dump("0x08218010\n", "--kind", "f8f6f4")
    assert r.exit_code == 0, r.output
    row = next(line for line in r.stdout.splitlines() if "0x08218010" in line)
    assert "ambiguous" not in row and "kind::f8f6f4 e4m3 x e4m3" in row

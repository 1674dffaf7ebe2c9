"""Word literals as the user types or pastes them: descgen's own ``--format c``/``cpp``/
``python`` constants fed back to ``dump``, ``decode`` and ``check`` (C/C++ integer suffixes),
and ``dump --as`` keeping a word the text names."""

from __future__ import annotations

import json
import re

import pytest

from cli.main import app
from tests.support.helpers import fails, ok, run, runner

#: (command line, descriptor as decode/check take it, the word it makes)
WORDS = [
    (["idesc", "--kind", "f16", "-m", "128", "-n", "256", "--a-type", "bf16", "--b-type", "bf16"],
     ["--as", "idesc", "--kind", "f16"], 0x08400490),
    (["smem", "--start-address", "1024", "--lbo", "16", "--sbo", "1024", "--swizzle", "128B"],
     ["--as", "smem"], 0x4000404000010040),
    (["zcm"], ["--as", "zcm"], 0x0000008000000000),
    (["tmem", "--lane", "32", "--column", "64"], ["--as", "tmem"], 0x00200040),
]
_LITERAL = re.compile(r"= (\S+?);?(?:\s|$)")


@pytest.mark.parametrize("fmt", ["c", "cpp", "python"])
@pytest.mark.parametrize("args,as_,word", WORDS, ids=[w[0][0] for w in WORDS])
def test_format_output_round_trips(args, as_, word, fmt):
    line = ok(*args, "--format", fmt)
    literal = _LITERAL.search(line).group(1)
    if fmt != "python":
        assert literal[-1] in "uUlL"  # the suffix under test is there
    # dump reads the whole line back
    found = json.loads(_dump(line))["findings"]
    assert found and int(found[0]["word"], 16) == word
    # decode and check read the literal as written
    decoded = json.loads(ok("decode", literal, *as_, "--format", "json"))
    assert int(decoded["word"], 16) == word
    checked = run("check", literal, *as_)
    assert checked.exit_code == 0, checked.stderr
    assert "not an integer" not in checked.stderr


def _dump(text: str) -> str:
    return _dump_as(text, None)


@pytest.mark.parametrize("literal", ["0x08400490u", "0x08400490U", "0x08400490ul", "0x08400490UL",
                                     "0x08400490ull", "0x08400490ULL", "0x08400490llu",
                                     "0x08400490LLU", "0x08400490LL", "0x08400490l", "138413200u",
                                     "138413200ULL", "0x08400490z", "0x08400490uz"])
def test_check_reads_c_suffixes(literal):
    out = json.loads(ok("decode", literal, "--as", "idesc", "--kind", "f16", "--format", "json"))
    assert int(out["word"], 16) == 0x08400490


@pytest.mark.parametrize("literal", ["0x08400490lL", "0x08400490uu", "0x08400490lul",
                                     "0x08400490ulu", "u", "0xu"])
def test_bad_suffixes_refused(literal):
    assert "not an integer" in fails("decode", literal, "--as", "idesc", "--kind", "f16")


@pytest.mark.parametrize("suffix", ["u", "U", "ul", "UL", "ull", "ULL", "LLU", "llu", "L", "LL"])
def test_dump_reads_suffixed_words(suffix):
    found = json.loads(_dump(f"idesc=0x08400490{suffix}\n"))["findings"]
    assert [(f["name"], f["word"]) for f in found] == [("idesc", "0x08400490")]
    found = json.loads(_dump(f"adesc = 4611756662049538112{suffix};\n"))["findings"]
    assert [(f["name"], f["word"]) for f in found] == [("adesc", "0x4000404000010040")]


def test_dump_as_wgmma_keeps_a_named_word():
    """``adesc`` names the word; ``--as wgmma`` reads it as a wgmma word, whose bit 46 (where
    tcgen05's fixed constant sits) is unused: reported with that warning, not dropped."""
    found = json.loads(_dump_as("adesc=0x4000404000010040\n", "wgmma"))["findings"]
    assert len(found) == 1
    best = found[0]["best"]
    assert found[0]["word"] == "0x4000404000010040"
    assert best["descriptor"] == "wgmma"
    assert best["decoded"]["fields"]["reserved_46"] == 1
    assert best["reason"].startswith("read as wgmma although its unused bits are not all 0")
    text = runner.invoke(app, ["dump", "--as", "wgmma", "--plain"],
                         input="adesc=0x4000404000010040\n").stdout
    assert "valid: 0 error(s), 1 warning(s), 0 note(s)" in text
    assert "warning: [wgmma.reserved] reserved_46[48:46]" in text


def test_dump_as_still_skips_unnamed_noise():
    """A word no name points at is still judged on its reading alone under ``--as``."""
    assert json.loads(_dump_as("x=0x4000404000010040\n", "wgmma"))["findings"] == []


def _dump_as(text: str, as_: str | None, fmt: str = "json") -> str:
    """``descgen dump [--as AS_] --format FMT`` of ``text`` on standard input."""
    args = ["dump", "--format", fmt] + (["--as", as_] if as_ else [])
    result = runner.invoke(app, args, input=text)
    assert result.exit_code == 0, (result.stdout, result.stderr)
    return result.stdout


# ------------------------------------------------------------------ bare hex (a %x print)

def test_dump_offers_the_hex_reading_of_bare_digits():
    """``idesc=8400490`` in a ``%llx``/``%x`` log: as decimal (0x802e6a) no valid
    instruction descriptor, as hex the valid word; the hex reading is reported, 0.10 less
    sure, and its why says so."""
    found = json.loads(_dump("adesc=4000404000010040 idesc=8400490\n"))["findings"]
    assert [(f["name"], f["word"]) for f in found] == [("adesc", "0x4000404000010040"),
                                                      ("idesc", "0x08400490")]
    best = found[1]["best"]
    assert best["valid"] and best["confidence"] == 0.70
    assert best["reason"].startswith("the digits 8400490 read as hex (a %x print without 0x): "
                                     "as decimal (0x802e6a) they are INVALID (4 errors) as "
                                     "idesc (-0.10); ")


def test_dump_takes_hex_where_the_line_prints_bare_hex():
    """Decimal 200040 is no valid TMEM address (column 3432); hex 200040 is lane 32,
    column 64.  Alone or beside bare hex, the hex reading is taken."""
    for line in ("tmem_addr=200040\n", "adesc=4000404000010040 tmem_addr=200040\n"):
        found = json.loads(_dump(line))["findings"]
        assert found[-1]["word"] == "0x00200040"
        assert found[-1]["best"]["descriptor"] == "tmem"


def test_dump_keeps_decimal_where_it_is_valid_and_the_line_is_decimal():
    found = json.loads(_dump("idesc=138413200\n"))["findings"]
    assert [(f["word"], f["best"]["confidence"]) for f in found] == [("0x08400490", 0.80)]
    assert not found[0]["best"]["reason"].startswith("the digits")
    # a C suffix says decimal: no hex reading
    found = json.loads(_dump("idesc=8400490u\n"))["findings"]
    assert [f["word"] for f in found] == ["0x00802e6a"]


def test_decode_notes_the_hex_reading_of_bare_digits():
    result = run("decode", "4000404000010040", "--as", "smem", "--format", "json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["word"] == "0x000e3658a360ef38"  # decimal, as documented
    assert result.stderr == ("descgen: note: 4000404000010040 read as decimal (0xe3658a360ef38); "
                             "did you mean 0x4000404000010040? (hex, as printf %x prints it, it "
                             "is smem swizzle 128B, start 0x400, LBO 16 B, SBO 1024 B)\n")
    checked = run("check", "4000404000010040", "--as", "smem")
    assert checked.exit_code == 1
    assert checked.stderr.count("did you mean 0x4000404000010040?") == 1


def test_decode_no_note_for_plain_decimal():
    ok("decode", "138413200", "--as", "idesc", "--kind", "f16")  # nothing on stderr
    ok("decode", "16", "--as", "tmem")


def test_bare_hex_with_a_leading_zero_is_refused_with_the_hex_spelling():
    assert fails("check", "08400490", "--as", "idesc", "--kind", "f16") == (
        "descgen: error: word: '08400490' is not an integer (decimal or 0x hex); did you mean "
        "0x08400490? (hex as printf %x prints it)")

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

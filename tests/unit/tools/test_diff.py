"""``descgen diff`` and :func:`descriptors.tools.diff.diff_words`: only the fields that differ,
the changed bits marked, both words' findings; exit 0 equal, 1 different, 2 bad input."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from cli.main import app
from descriptors import DescgenError
from descriptors.tools.diff import diff_words

runner = CliRunner()


def test_library_lists_only_the_changed_fields():
    d = diff_words("idesc", 0x08400490, 0x10400490, kind="f16")
    assert not d.equal and d.changed_bits == 0x18000000
    assert [(c.name, c.bits, c.raw_a, c.raw_b, c.meaning_a, c.meaning_b) for c in d.changes] == \
        [("m_dim", "[28:24]", 8, 16, "M = 128", "M = 256")]
    marks = d.diagram()[2]
    assert marks.count("^") == 2 and marks.index("^") == d.diagram()[0].index("a ") + 2 + 3


def test_cli_different_words_exit_1_with_fields_diagram_and_findings():
    r = runner.invoke(app, ["diff", "0x4000404000010000", "0x4000404000400000", "--as", "smem"])
    assert r.exit_code == 1, r.output
    out = r.stdout
    assert "differ in 1 field (changed bits 0x0000000000410000)" in out
    assert "leading_byte_offset[29:16]  a     1  16 bytes" in out
    assert "b    64  1024 bytes (0x400)" in out
    assert "^ marks a changed bit" in out and out.count("^") == 3
    assert "a 0x4000404000010000: valid" in out and "b 0x4000404000400000: valid" in out
    assert "[smem.lbo_unused]" in out  # the second word's finding


def test_cli_equal_words_exit_0():
    r = runner.invoke(app, ["diff", "0x08400490", "138413200", "--as", "idesc", "--kind", "f16"])
    assert r.exit_code == 0, r.output
    assert "0x08400490 and 0x08400490 are equal" in r.stdout and "^" not in r.stdout


def test_cli_findings_of_a_broken_word_are_shown():
    r = runner.invoke(app, ["diff", "0x10c00000", "0x10c00001", "--as", "idesc",
                            "--kind", "mxf8f6f4"])
    assert r.exit_code == 1
    assert "reserved_0[1:0]" in r.stdout and "b 0x10c00001: INVALID" in r.stdout


@pytest.mark.parametrize("args, message", [
    (["0x1", "zz", "--as", "tmem"], "second word: 'zz' is not an integer"),
    (["1", "2", "--as", "idesc"], "give --kind"),
    (["0x1", "0x100000000", "--as", "tmem"], "0x100000000"),
    (["0x1", "0x2", "--as", "smem", "--kind", "f16"], "kind"),
    (["0x1", "0x2", "--as", "tmem", "--cta-group", "2"], "cta-group"),
])
def test_cli_bad_input_exit_2_one_line(args, message):
    r = runner.invoke(app, ["diff", *args])
    assert r.exit_code == 2, r.output
    assert message in r.stderr and r.stderr.count("\n") == 1 and "Traceback" not in r.output


def test_cli_json():
    r = runner.invoke(app, ["diff", "0x08400490", "0x08400010", "--as", "idesc", "--kind", "f16",
                            "-f", "json"])
    assert r.exit_code == 1
    doc = json.loads(r.stdout)
    assert doc["equal"] is False and doc["changed_bits"] == "0x00000480"
    assert {c["field"] for c in doc["changes"]} == {"a_type", "b_type"}
    assert doc["changes"][0]["a"] == {"raw": 1, "meaning": "bf16"}


def test_library_bad_word_raises_descgen_error():
    with pytest.raises(DescgenError):
        diff_words("tmem", 1, 1 << 40)


# ------------------------------------------------------------------ diff of wgmma words

def test_diff_reads_wgmma_words_with_as_wgmma_or_arch_sm_90a():
    from typer.testing import CliRunner
    from cli.main import app
    a, b = "0x4000004000010000", "0x4000004000010040"
    for args in (["--as", "wgmma"], ["--as", "smem", "--arch", "sm_90a"]):
        r = CliRunner().invoke(app, ["diff", a, b, *args])
        assert r.exit_code == 1, r.output
        assert r.stdout.startswith("wgmma: 0x4000004000010000 and 0x4000004000010040 differ in 1 field")
        assert "error:" not in r.stdout and "does not exist" not in r.stdout
        assert r.stdout.count(": valid:") == 2
    r = CliRunner().invoke(app, ["diff", a, a, "--as", "smem", "--arch", "sm_90a", "-f", "json"])
    assert r.exit_code == 0 and '"descriptor": "wgmma"' in r.stdout

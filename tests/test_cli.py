"""The descgen command line: exact output for known words, one-line errors with exit code 2."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import descriptors
from cli.main import app

runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args))


def ok(*args: str) -> str:
    result = run(*args)
    assert result.exit_code == 0, (result.stdout, result.stderr)
    assert result.stderr == ""
    return result.stdout


def fails(*args: str, code: int = 2) -> str:
    """Run a command that must fail: exit code, empty stdout, exactly one stderr line."""
    result = run(*args)
    assert result.exit_code == code, (result.stdout, result.stderr)
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("descgen: error: ")
    assert "Traceback" not in result.stderr
    return lines[0]


HEADLINE = ["idesc", "--kind", "f16", "--a-type", "bf16", "--b-type", "bf16", "--d-type", "f32",
            "-m", "128", "-n", "256"]


def test_headline_command_prints_the_published_constant():
    assert ok(*HEADLINE) == "0x08400490\n"


def test_long_shape_options_and_hex_integers():
    assert ok("idesc", "--kind", "f16", "--a-type", "bf16", "--b-type", "bf16",
              "--m", "0x80", "--n", "0x1_00") == "0x08400490\n"


def test_idesc_formats():
    assert ok(*HEADLINE, "--format", "c", "--name", "MY_IDESC") == (
        "constexpr uint32_t MY_IDESC = 0x08400490u;  // idesc: kind=f16 a_type=bf16 b_type=bf16 "
        "d_type=f32 m=128 n=256\n")
    assert ok(*HEADLINE, "-f", "python") == (
        "IDESC = 0x08400490  # idesc: kind=f16 a_type=bf16 b_type=bf16 d_type=f32 m=128 n=256\n")
    doc = json.loads(ok(*HEADLINE, "--format", "json"))
    assert doc["descriptor"] == "idesc"
    assert doc["word"] == "0x08400490"
    assert doc["params"]["kind"] == "f16" and doc["params"]["n"] == "256"


def test_idesc_flags_reach_the_word():
    assert ok("idesc", "--kind", "f16", "--a-type", "f16", "--b-type", "f16", "-m", "128",
              "-n", "256", "--negate-a") == "0x08402010\n"
    assert ok("idesc", "--kind", "mxf8f6f4", "--a-type", "e4m3", "--b-type", "e4m3", "-m", "256",
              "-n", "256", "--a-scale-id", "3", "--b-scale-id", "3") == "0x70c00030\n"
    assert ok("idesc", "--kind", "mxf4nvf4", "--scale-type", "ue4m3", "-m", "128",
              "-n", "256") == "0x08400480\n"


def test_smem_with_lbo_sbo_aliases_and_formats():
    assert ok("smem", "--swizzle", "128B", "--lbo", "16", "--sbo", "1024") == "0x4000404000010000\n"
    assert ok("smem", "--swizzle", "128B", "--leading-byte-offset", "0x10",
              "--stride-byte-offset", "0x400") == "0x4000404000010000\n"
    assert ok("smem", "--sbo", "128", "-f", "c") == (
        "constexpr uint64_t SMEM_DESC = 0x0000400800000000ull;  // smem: stride_byte_offset=128\n")
    assert ok("smem", "--start-address", "32", "--swizzle", "128B", "--sbo", "1024",
              "-f", "python", "--name", "B") == (
        "B = 0x4000404000000002  # smem: start_address=32 stride_byte_offset=1024 swizzle=128B\n")


def test_zcm_lists_comma_separated_or_repeated():
    expected = descriptors.encode("zcm", start_count=[0, 1, 2, 1], first_span=[1, 1, 0, 0],
                                  skip_span=2, use_span=3, column_shift=2)
    text = descriptors.format_word("zcm", expected) + "\n"
    assert ok("zcm", "--start-count", "0,1,2,1", "--first-span", "1,1,0,0", "--skip-span", "2",
              "--use-span", "3", "--column-shift", "2") == text
    assert ok("zcm", "--start-count", "0", "--start-count", "1", "--start-count", "2",
              "--start-count", "1", "--first-span", "1,1", "--skip-span", "2", "--use-span", "3",
              "--column-shift", "2") == text
    assert text == "0x0203028301020100\n"


def test_tmem():
    assert ok("tmem", "--lane", "64", "--column", "128") == "0x00400080\n"
    assert json.loads(ok("tmem", "--lane", "1", "-f", "json"))["word"] == "0x00010000"


def test_decode_plain_for_each_descriptor():
    out = ok("decode", "0x08400490", "--as", "idesc", "--kind", "f16", "--plain")
    assert out.startswith("idesc 0x08400490  kind::f16")
    row = next(line for line in out.splitlines() if " n_dim " in line)
    assert row.split() == ["[22:17]", "n_dim", "32", "N", "=", "256"]
    assert "M = 128" in out and "bf16" in out
    out = ok("decode", "0x4000404000010000", "--as", "smem", "--plain")
    assert "128B" in out and "1024 bytes" in out and "16 bytes" in out
    out = ok("decode", "0x0003028000000000", "--as", "zcm", "--plain")
    assert "3 zeroed column(s)" in out and "4 used column(s)" in out
    out = ok("decode", "0x00400080", "--as", "tmem", "--plain")
    assert "lane 64" in out and "column 128" in out


def test_decode_plain_rows_follow_the_layout():
    out = ok("decode", "0x08400490", "--as", "idesc", "--kind", "f16", "--plain").splitlines()
    fields = list(reversed(descriptors.IDESC.fields))
    for line, f in zip(out[1:1 + len(fields)], fields):
        assert line.split()[:2] == [f.bits, f.name]
    assert out[1 + len(fields)] == ""


def test_decode_rich_table_when_piped_has_no_colour_codes():
    out = ok("decode", "0x08400490", "--as", "idesc", "--kind", "f16")
    assert "\x1b[" not in out
    assert "n_dim" in out and "N = 256" in out and "[22:17]" in out
    assert "valid: 0 error(s)" in out


def test_decode_flags_reserved_bits():
    out = ok("decode", "0x08400491", "--as", "idesc", "--kind", "mxf8f6f4", "--plain")
    row = next(line for line in out.splitlines() if " reserved_0 " in line)
    assert row.lstrip().startswith("!") and "RESERVED BITS SET" in row
    assert "[idesc.reserved] reserved_0[1:0]" in out
    assert "INVALID: 2 error(s)" in out


def test_decode_json_equals_library():
    doc = json.loads(ok("decode", "0x08400490", "--as", "idesc", "--kind", "f16", "-f", "json"))
    lib = json.loads(json.dumps(descriptors.decode("idesc", 0x08400490, kind="f16").to_dict()))
    assert {k: doc[k] for k in lib} == lib
    assert doc["values"]["n"] == 256 and doc["fields"]["n_dim"] == 32
    assert doc["layout"] == "idesc" and doc["meanings"]["n_dim"] == "N = 256"
    assert doc["valid"] is True and [f["rule"] for f in doc["findings"]] == ["idesc.shape"]


def test_decode_idesc_without_kind_lists_every_kind():
    out = ok("decode", "0x10200010", "--as", "idesc", "--plain")
    for kind in descriptors.KINDS:
        assert f"kind::{kind}" in out
    doc = json.loads(ok("decode", "0x10200010", "--as", "idesc", "-f", "json"))
    assert doc["kind"] is None
    assert sorted(r["kind"] for r in doc["readings"]) == sorted(descriptors.KINDS)
    errors = [sum(f["severity"] == "error" for f in r["findings"]) for r in doc["readings"]]
    assert errors == sorted(errors) and errors[0] == 0 and errors[-1] > 0
    assert {r["kind"] for r in doc["readings"][:2]} == {"f16", "f8f6f4"}
    assert {r["values"]["a_type"] for r in doc["readings"] if r["kind"] in ("f16", "f8f6f4")} == {
        "f16", "e4m3"}


def test_decode_accepts_separators():
    assert "N = 256" in ok("decode", "0x0840_0490", "--as", "idesc", "--kind", "f16", "--plain")
    assert "N = 256" in ok("decode", "0x0840'0490", "--as", "idesc", "--kind", "f16", "--plain")


@pytest.mark.parametrize("args, fragment", [
    (["idesc", "--kind", "f16", "--a-type", "fp8", "--b-type", "bf16", "-m", "128", "-n", "256"],
     "field 'a_type'[9:7]"),
    (["idesc", "--kind", "f16", "--a-type", "bf16", "--b-type", "bf16", "-m", "128", "-n", "520"],
     "field 'n_dim'[22:17]: N=520"),
    (["idesc", "--kind", "f17", "-m", "128", "-n", "256"], "unknown kind"),
    (["smem", "--start-address", "0x408"], "not 16-byte aligned"),
    (["smem", "--start-address", "0x40000"], "256 KiB"),
    (["smem", "--swizzle", "96B"], "field 'swizzle'[63:61]"),
    (["tmem", "--lane", "zz"], "'zz' is not an integer"),
    (["tmem", "--column", "0x10000"], "field 'column'[15:0]"),
    (["zcm", "--start-count", "1,2,3,4,5"], "start_count"),
    (["decode", "0x100000000", "--as", "tmem"], "does not fit in 32 bits"),
    (["decode", "0x08400490", "--as", "idesc", "--kind", "bogus"], "unknown kind"),
    (["decode", "nope", "--as", "smem"], "not an integer"),
    (["idesc", "--bogus"], "No such option: --bogus"),
    (["decode", "12", "--as", "bogus"], "--as"),
    (["batch", "/nonexistent/file.toml"], "cannot read"),
])
def test_bad_input_is_one_line_and_exit_2(args, fragment):
    assert fragment in fails(*args)


def test_missing_required_option_is_one_line():
    assert "--kind" in fails("idesc", "-m", "128", "-n", "256")

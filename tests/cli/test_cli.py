"""The descgen command line: exact output for known words, one-line errors with exit code 2."""

from __future__ import annotations

import json

import pytest

import descriptors

from helpers import fails, ok, run




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
    assert doc["params"]["kind"] == "f16" and doc["params"]["n"] == 256


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


#: One known word per encoding command, and the exact text of every output format.
_EVERY_FORMAT = {
    "idesc": (HEADLINE, "0x08400490", "uint32_t", "u", "IDESC",
              "kind=f16 a_type=bf16 b_type=bf16 d_type=f32 m=128 n=256"),
    "smem": (["smem", "--swizzle", "128B", "--lbo", "16", "--sbo", "1024"], "0x4000404000010000",
             "uint64_t", "ull", "SMEM_DESC",
             "leading_byte_offset=16 stride_byte_offset=1024 swizzle=128B"),
    "zcm": (["zcm", "--non-zero-mask", "1", "--skip-span", "2", "--use-span", "3"],
            "0x0003028000000000", "uint64_t", "ull", "ZCM_DESC",
            "non_zero_mask=1 skip_span=2 use_span=3"),
    "tmem": (["tmem", "--lane", "64", "--column", "128"], "0x00400080", "uint32_t", "u",
             "TMEM_ADDR", "lane=64 column=128"),
}


@pytest.mark.parametrize("descriptor", list(_EVERY_FORMAT))
def test_every_format_of_every_encoding_command(descriptor):
    args, word, ctype, suffix, default_name, given = _EVERY_FORMAT[descriptor]
    assert ok(*args) == f"{word}\n"
    assert ok(*args, "--format", "hex") == f"{word}\n"
    assert ok(*args, "--format", "c") == (
        f"constexpr {ctype} {default_name} = {word}{suffix};  // {descriptor}: {given}\n")
    assert ok(*args, "--format", "c", "--name", "K_0") == (
        f"constexpr {ctype} K_0 = {word}{suffix};  // {descriptor}: {given}\n")
    assert ok(*args, "--format", "cpp") == ok(*args, "--format", "c")
    assert ok(*args, "--format", "python") == f"{default_name} = {word}  # {descriptor}: {given}\n"
    doc = json.loads(ok(*args, "--format", "json"))
    assert set(doc) == {"descriptor", "word", "fields", "params", "findings", "valid"}
    assert (doc["descriptor"], doc["word"], doc["valid"]) == (descriptor, word, True)
    assert doc["params"] == {k: int(v) if v.isdigit() else v  # numbers as numbers
                             for k, v in (pair.split("=") for pair in given.split())}
    fields = descriptors.decode(descriptor, int(word, 16), kind=doc["params"].get("kind"))
    assert doc["fields"] == fields.to_dict()["fields"]  # every raw field, integers
    namespace: dict = {}
    exec(ok(*args, "--format", "python", "--name", "W"), namespace)
    assert namespace["W"] == int(word, 16)


def test_bad_constant_name_is_one_line():
    assert "not a valid C/Python identifier" in fails("tmem", "--lane", "1", "-f", "c",
                                                      "--name", "9lives")


# ---------------------------------------------------------------- validation in the CLI (issue 3)

def test_encoding_command_refuses_an_invalid_descriptor_with_exit_1():
    result = run("idesc", "--kind", "f16", "--a-type", "bf16", "--b-type", "bf16", "-m", "256",
                 "-n", "256", "--cta-group", "1")
    assert result.exit_code == 1 and result.stdout == ""
    lines = result.stderr.splitlines()
    assert lines[0].startswith("descgen: error: [idesc.shape] m_dim[28:24]:")
    assert lines[-1].endswith("(use --force to emit it anyway)")
    assert "Traceback" not in result.stderr


def test_force_emits_with_warnings():
    result = run("idesc", "--kind", "f16", "--a-type", "bf16", "--b-type", "bf16", "-m", "256",
                 "-n", "256", "--cta-group", "1", "--force")
    assert result.exit_code == 0 and result.stdout == "0x10400490\n"
    assert result.stderr.startswith("descgen: warning: (forced) error: [idesc.shape]")


def test_warnings_go_to_stderr_and_the_constant_to_stdout():
    result = run("smem", "--swizzle", "128B", "--start-address", "0x600", "--sbo", "1024",
                 "--base-offset", "1")
    assert result.exit_code == 0 and result.stdout == "0x4002404000000060\n"
    assert result.stderr.startswith("descgen: warning: [smem.base_offset]")


def test_arch_gates_k96_and_absolute_lbo():
    k96 = ["idesc", "--kind", "mxf4", "-m", "256", "-n", "256", "-k", "96", "--cta-group", "2"]
    assert run(*k96).exit_code == 1
    assert ok(*k96, "--arch", "sm_103a") == "0x90c00480\n"  # bit 31 + 2<<27 + bit 23 + 32<<17 + 0x480
    absolute = ["smem", "--swizzle", "128B", "--sbo", "1024", "--lbo", "0x800", "--lbo-mode", "absolute"]
    assert run(*absolute).exit_code == 1
    assert ok(*absolute, "--arch", "sm_103a") == "0x4010404000800000\n"
    # sm_90a's shared memory descriptor is the wgmma matrix descriptor: no LBO mode
    assert "no leading-dimension mode" in fails(*absolute, "--arch", "sm_90a")
    assert "unknown architecture 'sm_80'" in fails(*absolute, "--arch", "sm_80")


def test_check_word_text_and_json():
    result = run("check", "0x08400491", "--as", "idesc", "--kind", "mxf8f6f4")
    assert result.exit_code == 1  # a table: severity, rule, field, message, source
    assert result.stdout.splitlines()[1].split("┃")[1:-1] == [
        " severity ", " rule             ", " field           ",
        result.stdout.splitlines()[1].split("┃")[4], " source       "]
    assert result.stdout.splitlines()[-1].startswith("INVALID: 2 error(s)")
    result = run("check", "0x08400491", "--as", "idesc", "--kind", "mxf8f6f4", "--plain")
    assert result.exit_code == 1
    assert "error: [idesc.reserved] reserved_0[1:0]" in result.stdout
    assert result.stdout.splitlines()[-1].startswith("INVALID: 2 error(s)")
    result = run("check", "0x08400490", "--as", "idesc", "--kind", "f16", "--format", "json")
    assert result.exit_code == 0
    doc = json.loads(result.stdout)
    assert doc["valid"] is True
    assert set(doc["findings"][0]) == {"severity", "rule", "field", "bits", "value", "message",
                                       "source"}


def test_check_parameter_set():
    result = run("check", "--as", "idesc", "--kind", "i8", "-p", "a_type=s8", "-p", "b_type=s8",
                 "-p", "d_type=s32", "-p", "m=128", "-p", "n=40", "-p", "negate_a=true", "-f", "json")
    assert result.exit_code == 1
    rules = {(f["rule"], f["field"]) for f in json.loads(result.stdout)["findings"]
             if f["severity"] == "error"}
    assert rules == {("idesc.shape", "n_dim"), ("idesc.negate", "negate_a")}
    result = run("check", "--as", "zcm", "-m", "32", "-p", "column_shift=20", "-p", "skip_span=2",
                 "--plain")
    assert result.exit_code == 1 and "[zcm.column_shift] column_shift[61:56]" in result.stdout
    assert "--param takes KEY=VALUE" in fails("check", "--as", "smem", "-p", "swizzle")


def test_check_pair():
    idesc = descriptors.encode("idesc", kind="tf32", m=128, n=128, a_major="MN")
    sw128 = descriptors.encode("smem", swizzle="128B", sbo=1024)
    sw128_32 = descriptors.encode("smem", swizzle="128B_base32B", sbo=1024)
    bad = run("check", "--idesc", hex(idesc), "--kind", "tf32", "--a-desc", hex(sw128),
              "--b-desc", hex(sw128), "--plain")
    assert bad.exit_code == 1 and "[pair.table52] swizzle[63:61]: A:" in bad.stdout
    good = run("check", "--idesc", hex(idesc), "--kind", "tf32", "--a-desc", hex(sw128_32),
               "--b-desc", hex(sw128))
    assert good.exit_code == 0, good.stdout
    assert "--kind" in fails("check", "--idesc", hex(idesc))


def test_check_needs_a_question():
    assert "--as" in fails("check", "0x5")
    assert "WORD" in fails("check", "--as", "smem")


def test_batch_refuses_invalid_configs_unless_forced(tmp_path):
    path = tmp_path / "b.toml"
    path.write_text('[[configs]]\nname = "BAD"\ndescriptor = "idesc"\nkind = "f16"\n'
                    'a_type = "bf16"\nb_type = "bf16"\nm = 256\nn = 256\ncta_group = 1\n')
    result = run("batch", str(path))
    assert result.exit_code == 1 and result.stdout == ""
    assert "config 'BAD' (#1) breaks 1 rule of the PTX text (idesc.shape)" in result.stderr
    result = run("batch", str(path), "--force")
    assert result.exit_code == 0 and "0x10400490" in result.stdout
    assert "(forced)" in result.stderr


# ---------------------------------------------------------------- issue 15


def test_check_param_kind_and_duplicates():
    out = ok("check", "--as", "idesc", "-p", "kind=f16", "-p", "a_type=f16", "-p", "b_type=f16",
             "-p", "m=128", "-p", "n=256")
    assert out.splitlines()[-1].startswith("valid")
    assert "kind given twice" in fails("check", "--as", "idesc", "--kind", "f16", "-p", "kind=tf32")
    assert "give it as --arch" in fails("check", "--as", "idesc", "-p", "arch=sm_100a")
    assert "give it as --as" in fails("check", "--as", "idesc", "-p", "descriptor=smem")
    assert "cta_group given twice" in fails("check", "--as", "idesc", "--kind", "f16", "-p",
                                            "cta_group=1", "--cta-group", "1")
    assert "alloc given twice" in fails("check", "--as", "tmem", "-p", "alloc=64", "--alloc", "64")
    assert "context of a zcm word, not of smem" in fails("decode", "0", "--as", "smem", "-m", "64")


def test_empty_names_and_synthesis_inputs_are_refused():
    assert "constant name is empty" in fails("tmem", "--lane", "1", "-f", "c", "--name", "")
    assert "--conv is empty" in fails("zcm", "--conv", "", "-m", "128", "-n", "128")
    assert "--zero-columns is empty" in fails("zcm", "--zero-columns", ",", "-m", "128", "-n", "128")


def test_context_options_reach_the_rules():
    r = run("idesc", "--kind", "mxf4nvf4", "--scale-type", "ue8m0", "-m", "128", "-n", "256",
            "--a-scale-id", "2", "--scale-vec", "4X")
    assert r.exit_code == 1 and "[idesc.scale_id_4x]" in r.stderr
    r = run("check", "0x0003028000000000", "--as", "zcm", "-m", "128", "-n", "96", "--plain")
    assert r.exit_code == 1 and "[zcm.n]" in r.stdout
    r = run("tmem", "--lane", "16", "--shift")
    assert r.exit_code == 1 and "[tmem.shift_lane]" in r.stderr and r.stdout == ""
    assert ok("tmem", "--lane", "32", "--shift") == "0x00200000\n"


# ------------------------------------------------------------------ idesc --help: no false defaults

def test_idesc_help_does_not_claim_defaults_it_does_not_apply():
    import re

    from typer.testing import CliRunner

    from cli.main import app
    runner = CliRunner()
    text = " ".join(runner.invoke(app, ["idesc", "--help"], terminal_width=200).stdout.split())
    cta = re.search(r"--cta-group <str> (.*?) --ws", text).group(1)
    ws = re.search(r"--ws / --no-ws (.*?) --scale-vec", text).group(1)
    assert "default" not in cta and "not assumed" in cta
    assert "default" not in ws and "not assumed" in ws
    base = ["idesc", "--kind", "f16", "--a-type", "bf16", "--b-type", "bf16", "-n", "128"]
    # what the help says: not given, the rules accept what some context allows ...
    assert runner.invoke(app, [*base, "-m", "256"]).exit_code == 0
    assert runner.invoke(app, [*base, "-m", "64", "--max-shift", "8"]).exit_code == 0
    # ... and given, they are checked
    assert runner.invoke(app, [*base, "-m", "256", "--cta-group", "1"]).exit_code == 1
    assert runner.invoke(app, [*base, "-m", "64", "--max-shift", "8", "--no-ws"]).exit_code == 1


def test_a_shape_the_given_cta_group_rules_out_names_the_form_that_takes_it():
    """M=256 N=256 under --cta-group 1: no cta_group::1 form of Table 39 allows it, and the
    error says cta_group::2 does (it used to say no form at all allowed it)."""
    r = run(*["check", "0x10400490", "--as", "idesc", "--kind", "f16",
                                 "--cta-group", "1", "--plain"])
    assert r.exit_code == 1
    assert "M=256 N=256 needs cta_group::2 dense: no cta_group::1 dense or cta_group::1 .ws " \
           "dense form of Table 39 allows it" in r.output
    assert "no cta_group/.ws form" not in r.output
    r = run(*["check", "0x10400490", "--as", "idesc", "--kind", "f16",
                                 "--cta-group", "1", "--ws", "--plain"])
    assert r.exit_code == 1 and "M is 32 or 64 or 128; M=256 N=256 needs cta_group::2 dense" \
        in r.output


def test_a_swizzled_sbo_of_16_bytes_warns_whatever_the_lbo():
    """SBO 16 B: no swizzled layout has its 8-row groups 16 bytes apart -- warned with any LBO,
    not only when LBO is one 8-row atom (then: swapped)."""
    r = run(*["smem", "--swizzle", "128B", "--lbo", "16", "--sbo", "16",
                                 "--plain"])
    assert r.exit_code == 0 and r.stdout.strip() == "0x4000400100010000"
    assert "warning: [smem.lbo_sbo_swapped] stride_byte_offset[45:32]: SBO 16 bytes: no " \
           "swizzled layout has its 8-row groups 16 bytes apart (8 rows of a 128B layout are " \
           "1024 bytes)" in r.stderr
    r = run(*["smem", "--swizzle", "128B", "--lbo", "16", "--sbo", "1024",
                                 "--plain"])
    assert r.exit_code == 0 and r.stderr == ""

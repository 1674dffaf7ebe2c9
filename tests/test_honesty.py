"""Issue 24: what a new user found wrong or misleading -- one test per item, each failing
before its fix.  Fast: no subprocess, no fixture rebuild."""

from __future__ import annotations

import pytest

import descriptors
from descriptors import InvalidDescriptorError


# ------------------------------------------------------------------ encode checks by default

def test_encode_refuses_a_rule_breaking_word_by_default():
    # N=264 is above Table 39's 256: the CLI refuses it (exit 1), and so does the library
    with pytest.raises(InvalidDescriptorError) as exc:
        descriptors.encode("idesc", kind="f16", a_type="bf16", b_type="bf16", d_type="f32",
                           m=128, n=264)
    assert "[idesc.shape]" in str(exc.value) and "Table 39" in str(exc.value)
    assert [f.rule for f in exc.value.findings if f.severity == "error"] == ["idesc.shape"]
    assert isinstance(exc.value, descriptors.DescgenError)


def test_encode_check_false_is_the_raw_packing():
    word = descriptors.encode("idesc", kind="f16", a_type="bf16", b_type="bf16", d_type="f32",
                              m=128, n=264, check=False)
    assert word == descriptors.words.codec.encode(
        "idesc", kind="f16", a_type="bf16", b_type="bf16", d_type="f32", m=128, n=264)
    assert descriptors.decode("idesc", word, kind="f16").values["n"] == 264


def test_encode_takes_the_context_the_cli_takes():
    p = dict(kind="f16", a_type="bf16", b_type="bf16", d_type="f32", m=256, n=256)
    assert descriptors.encode("idesc", **p) == 0x10400490          # cta_group unknown: a note
    assert descriptors.encode("idesc", **p, cta_group=2) == 0x10400490
    with pytest.raises(InvalidDescriptorError, match=r"idesc\.shape"):
        descriptors.encode("idesc", **p, cta_group=1)
    bs = dict(kind="mxf4nvf4", a_type="e2m1", b_type="e2m1", scale_type="ue8m0", m=128, n=256,
              a_scale_id=2)
    assert descriptors.encode("idesc", **bs, scale_vec="2X")
    with pytest.raises(InvalidDescriptorError, match=r"idesc\.scale_id_4x"):
        descriptors.encode("idesc", **bs, scale_vec="4X")
    assert descriptors.encode("tmem", lane=0, column=128, alloc=256) == 128
    assert descriptors.encode("tmem", lane=0, column=128, alloc=64) == 128  # a warning only
    with pytest.raises(InvalidDescriptorError, match=r"tmem\.column"):
        descriptors.encode("tmem", lane=0, column=600)
    with pytest.raises(InvalidDescriptorError, match="sm_100a"):
        descriptors.encode("idesc", kind="mxf4", a_type="e2m1", b_type="e2m1", m=256, n=256,
                           k=96, cta_group=2)
    assert descriptors.encode("idesc", kind="mxf4", a_type="e2m1", b_type="e2m1", m=256, n=256,
                              k=96, cta_group=2, arch="sm_103a")


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


# ------------------------------------------------------------------ explain warns as lint does

def test_explain_gives_the_missing_aligned_warning_lint_gives():
    from typer.testing import CliRunner

    from cli.main import app
    from descriptors.isa.instructions import check_instruction
    line = "tcgen05.ld.sync.16x32bx2.x4.b32 {r0,r1,r2,r3}, [t], 64;"
    lint = [f for f in check_instruction(line) if f.severity == "warning"]
    assert [f.rule for f in lint] == ["tcgen05.ld.qualifier"]
    for fmt in ("text", "json"):
        r = CliRunner().invoke(app, ["explain", line, "-f", fmt, "--plain"])
        assert r.exit_code == 0, r.output
        assert "warning: [tcgen05.ld.qualifier]" in r.stderr and "missing .aligned" in r.stderr
    clean = CliRunner().invoke(app, ["explain", line.replace(".sync.", ".sync.aligned.")])
    assert clean.exit_code == 0 and clean.stderr == ""


# ------------------------------------------------------------------ one citation, no file names

def test_explain_and_tmem_cite_the_register_table_alike_and_name_no_file():
    from typer.testing import CliRunner

    from cli.main import app
    from descriptors.isa import tmem
    runner = CliRunner()
    cite = tmem.table_source("ld")
    assert cite.startswith("Table 47 ") and "PTX 9.7.16.8.3" in cite
    explain = runner.invoke(app, ["explain", "tcgen05.ld.sync.aligned.16x256b.x4.b32 {r0}, [t];"])
    footprint = runner.invoke(app, ["tmem", "--ld", "16x256b.x128"])
    for r in (explain, footprint):
        assert r.exit_code == 2 and cite in r.stderr and ".md" not in r.stderr


# ------------------------------------------------------------------ no private paths

def test_readme_links_stay_in_the_repository_and_nothing_names_private_notes():
    import re
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent
    readme = (root / "README.md").read_text()
    # markdown links and backticked paths that leave the repository break in a clone
    prose = re.sub(r"`[^`\n]*`", "", re.sub(r"```.*?```", "", readme, flags=re.S))
    for target in re.findall(r"\]\(([^)#]+)\)", prose) + re.findall(r"`(\.\./[^`]*)`", readme):
        if target.startswith(("http://", "https://")):
            continue
        assert not target.startswith(("../", "/")), target
        assert (root / target).exists(), target
    private = ("spec-" + "facts", "shared/" + "notes", "/work/" + "shared")
    for folder in ("descriptors", "cli", "tests", "fixtures"):
        for path in (root / folder).rglob("*"):
            if path.is_file() and path.suffix in (".py", ".md", ".toml", ".json", ".txt"):
                text = path.read_text(errors="replace")
                assert not any(p in text for p in private), path
    assert not any(p in readme for p in private)


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


# ------------------------------------------------------------------ layout: notes in every format

def test_layout_tile_order_note_reaches_the_user_in_every_format():
    from typer.testing import CliRunner
    from cli.main import app
    args = ["layout", "--major", "MN", "--swizzle", "128B", "--a-type", "bf16", "--tile", "128x64"]
    for fmt in ("text", "json", "hex"):
        r = CliRunner().invoke(app, [*args, "-f", fmt, "--plain"] if fmt == "text" else [*args, "-f", fmt])
        assert r.exit_code == 0, r.output
        assert "tile order not given" in r.output, fmt
    r = CliRunner().invoke(app, [*args, "-f", "hex"])
    assert r.stdout == "0x4000408000400000\n"
    assert r.stderr.startswith("descgen: note: tile order not given") and "--tile-order" in r.stderr
    # given, nothing is assumed: no note
    r = CliRunner().invoke(app, [*args, "--tile-order", "k_first", "-f", "hex"])
    assert r.exit_code == 0 and r.stderr == ""


# ------------------------------------------------------------------ batch -, layout as constants

def test_batch_reads_stdin_toml_or_json():
    from typer.testing import CliRunner
    from cli.main import app
    toml = '[[configs]]\nname = "A"\ndescriptor = "smem"\nswizzle = "128B"\n' \
           'stride_byte_offset = 1024\nleading_byte_offset = 16\n'
    js = '{"configs": [{"name": "A", "descriptor": "smem", "swizzle": "128B", ' \
         '"stride_byte_offset": 1024, "leading_byte_offset": 16}]}'
    for text in (toml, js):
        r = CliRunner().invoke(app, ["batch", "-", "-f", "python"], input=text)
        assert r.exit_code == 0, r.output
        assert "A = 0x4000404000010000" in r.stdout and "from stdin" in r.stdout
    r = CliRunner().invoke(app, ["batch", "-"], input="")
    assert r.exit_code == 2 and r.stderr == ("descgen: error: stdin: the file is empty; a batch "
                                             "file holds a list 'configs'\n")


def test_layout_gives_cpp_and_python_constants_with_name():
    from typer.testing import CliRunner
    from cli.main import app
    args = ["layout", "--major", "K", "--swizzle", "128B", "--a-type", "bf16", "--tile", "128x64"]
    r = CliRunner().invoke(app, [*args, "-f", "c", "--name", "A_DESC"])
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith("constexpr uint64_t A_DESC = 0x4000404000010000ull;  // smem: major=K")
    r = CliRunner().invoke(app, [*args, "-f", "python", "--k-steps", "--kind", "f16"])
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert lines[0].startswith("# smem: major=K") and len(lines) == 5
    assert lines[1].startswith("SMEM_DESC_K0 = 0x4000404000010000  #")
    assert lines[4].startswith("SMEM_DESC_K3 = 0x4000404000010006  #")
    r = CliRunner().invoke(app, [*args, "-f", "cpp", "--name", "auto"])
    assert r.exit_code == 2 and "C++ keyword" in r.stderr


# ------------------------------------------------------------------ layout --cute --k-steps

def test_layout_cute_stage_gives_every_k_step_or_says_it_gave_the_first():
    from typer.testing import CliRunner
    from cli.main import app
    stage = "Sw<3,4,3>_smem_ptr[16b](0x400) o (_128,_64):(_64,_1)"  # K=64: four kind::f16 MMAs
    args = ["layout", "--major", "K", "--a-type", "bf16", "--cute", stage, "-f", "hex"]
    r = CliRunner().invoke(app, [*args, "--k-steps"])
    assert r.exit_code == 0, r.output
    assert r.stdout.split() == ["0x4000404000010040", "0x4000404000010042",
                                "0x4000404000010044", "0x4000404000010046"]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0 and r.stdout == "0x4000404000010040\n"
    assert "spans 4 kind::f16 MMAs of K=16: this is the first MMA's word" in r.stderr
    assert "--k-steps" in r.stderr
    # one MMA's slice: one word, nothing to say
    one = ["layout", "--major", "K", "--a-type", "bf16", "--cute",
           "Sw<3,4,3>_smem_ptr[16b](0x400) o (_128,_16):(_64,_1)", "-f", "hex"]
    r = CliRunner().invoke(app, one)
    assert r.exit_code == 0 and r.stdout == "0x4000404000010040\n" and r.stderr == ""


# ------------------------------------------------------------------ no internals in messages

def test_messages_name_no_internal_value_and_point_at_nothing_absent(tmp_path):
    from typer.testing import CliRunner
    from cli.main import app
    from descriptors.tools.batch import encode_batch, parse_batch
    # a refused word says which rules it breaks, also where no rule is printed above it
    r = CliRunner().invoke(app, ["idesc", "--kind", "f16", "--a-type", "bf16", "--b-type", "bf16",
                                 "--d-type", "f32", "-m", "128", "-n", "264", "-f", "hex"])
    assert r.exit_code == 1
    assert r.stderr.splitlines()[-1] == ("descgen: error: the idesc descriptor 0x08420490 breaks 1 "
                                         "rule of the PTX text (idesc.shape) (use --force to emit it anyway)")
    with pytest.raises(InvalidDescriptorError) as exc:
        encode_batch(parse_batch([{"name": "X", "descriptor": "idesc", "kind": "f16", "a_type": "bf16",
                                   "b_type": "bf16", "d_type": "f32", "m": 128, "n": 264}]))
    assert "above" not in str(exc.value) and "(idesc.shape)" in str(exc.value)
    # a type code the kind has none for is named by its code, not as None
    ptx = tmp_path / "k.ptx"
    ptx.write_text(".version 8.7\n.target sm_100a\n.address_size 64\n.visible .entry k() {\n"
                   "  .reg .b32 %r<40>; .reg .b64 %rd<10>; .reg .pred p;\n"
                   "  mov.b32 %r37, 138413968;\n"
                   "  tcgen05.mma.cta_group::1.kind::f16 [%r2], %rd2, %rd3, %r37, p;\n  ret;\n}\n")
    r = CliRunner().invoke(app, ["lint", str(ptx)])
    assert r.exit_code == 1
    assert "None" not in r.output
    assert "decoded as kind::f16: code 7 (no type) x bf16 -> f32, M=128 N=256" in r.output

"""Batch files: the real-world fixture reproduces every published value, and every format."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

import descriptors
from cli.main import app
from descriptors.tools.batch import encode_batch, load_batch, parse_batch, render

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
REAL = FIXTURES / "real-world.toml"
CONFIGS = tomllib.loads(REAL.read_text())["configs"]

#: The published values (fixtures/README.md names their sources), written out here independently of the fixture file.
PUBLISHED = {
    "IDESC_BF16_F32_128x256": 0x08400490, "IDESC_F16_F32_128x256": 0x08400010,
    "IDESC_F16_F32_128x256_NEG_A": 0x08402010, "IDESC_TF32_F32_128x256": 0x08400910,
    "IDESC_BF16_F32_256x256_2CTA": 0x10400490, "IDESC_F16_F32_256x128_2CTA": 0x10200010,
    "IDESC_E4M3_F32_256x128_2CTA": 0x10200010, "IDESC_MXF8_E4M3_256x256": 0x10C00000,
    "IDESC_MXF8_E4M3_256x256_SF1": 0x30C00010, "IDESC_MXF8_E4M3_256x256_SF2": 0x50C00020,
    "IDESC_MXF8_E4M3_256x256_SF3": 0x70C00030, "IDESC_MXF8_E4M3xE2M1_256x256": 0x10C01400,
    "IDESC_NVF4_128x256": 0x08400480, "SMEM_KMAJOR_SW128_LBO16": 0x4000404000010000,
    "SMEM_KMAJOR_SW128": 0x4000404000000000, "SMEM_KMAJOR_SW128_KSTEP1": 0x4000404000000002,
    "SMEM_SF_NOSWIZZLE": 0x0000400800000000, "ZCM_PTX_EXAMPLE_2": 0x0003028000000000,
    "TMEM_LANE64_COL128": 0x00400080,
}
_META = {"name", "descriptor", "expect", "source"}
_CONTEXT = {"cta_group", "ws"}  # checked, not stored in the word


def test_fixture_holds_every_published_value():
    assert {c["name"] for c in CONFIGS} == set(PUBLISHED)
    assert all(c.get("source") for c in CONFIGS)


@pytest.mark.parametrize("cfg", CONFIGS, ids=[c["name"] for c in CONFIGS])
def test_real_world_config_encodes_and_decodes_back(cfg):
    params = {k: v for k, v in cfg.items() if k not in _META}
    word = descriptors.encode(cfg["descriptor"], **params)
    assert word == PUBLISHED[cfg["name"]]
    assert word == int(cfg["expect"], 16)
    kind = params.get("kind")
    decoded = descriptors.decode(cfg["descriptor"], word, kind=kind)
    assert int(decoded) == word
    assert decoded.unexpected == {}
    values = decoded.values
    for key, given in params.items():
        if key in _CONTEXT:
            continue
        if key in ("start_address", "leading_byte_offset", "stride_byte_offset"):
            assert values[f"{key}_bytes"] == given
        elif key in ("start_count", "first_span"):
            assert values[key] == list(given)
        else:
            assert values[key] == given, key


def test_batch_library_on_the_fixture():
    results = encode_batch(load_batch(REAL))
    assert {r.config.name: r.word for r in results} == PUBLISHED


def test_json_fixture():
    results = encode_batch(load_batch(FIXTURES / "real-world.json"))
    assert [(r.config.name, r.word) for r in results] == [
        ("IDESC_BF16_F32_128x256", 0x08400490), ("IDESC_NVF4_128x256", 0x08400480),
        ("SMEM_KMAJOR_SW128_LBO16", 0x4000404000010000)]


def test_formats():
    results = encode_batch(load_batch(REAL))
    doc = json.loads(render(results, "json"))
    assert doc[0] == {"name": "IDESC_BF16_F32_128x256", "descriptor": "idesc", "word": "0x08400490"}
    assert {d["name"]: int(d["word"], 16) for d in doc} == PUBLISHED
    namespace: dict = {}
    exec(render(results, "python"), namespace)
    assert {k: namespace[k] for k in PUBLISHED} == PUBLISHED
    header = render(results, "cpp", origin="real-world.toml")
    assert header.splitlines()[1] == "#pragma once"
    assert "constexpr uint32_t IDESC_BF16_F32_128x256 = 0x08400490u;" in header
    assert "constexpr uint64_t SMEM_KMAJOR_SW128_LBO16 = 0x4000404000010000ull;" in header
    assert header.count("constexpr ") == len(PUBLISHED)
    listing = render(results, "hex").splitlines()
    assert listing[0].split() == ["name", "word", "descriptor"]  # the column titles
    assert listing[1].split() == ["IDESC_BF16_F32_128x256", "0x08400490", "idesc"]
    assert render(results, "c", origin="real-world.toml") == header  # c is cpp


def test_cli_batch_formats_and_output_file(tmp_path):
    runner = CliRunner()
    r = runner.invoke(app, ["batch", str(REAL), "--plain"])
    assert r.exit_code == 0 and len(r.stdout.splitlines()) == len(PUBLISHED) + 1
    assert r.stdout.splitlines()[0].split() == ["name", "word", "descriptor"]
    r = runner.invoke(app, ["batch", str(REAL)])  # a table with the same titles
    assert r.exit_code == 0 and "┃ name " in r.stdout and "┃ descriptor ┃" in r.stdout
    assert "│ IDESC_BF16_F32_128x256 " in r.stdout
    out = tmp_path / "desc.hpp"
    r = runner.invoke(app, ["batch", str(REAL), "--format", "cpp", "-o", str(out)])
    assert r.exit_code == 0 and r.stdout == ""
    assert "0x70c00030u" in out.read_text()


def _config(**extra):
    return {"name": "X", "descriptor": "tmem", "lane": 1, **extra}


@pytest.mark.parametrize("doc, fragment", [
    ([_config(bogus=1)], "unknown parameter 'bogus'"),
    ([_config(name="1X")], "not a valid C/Python identifier"),
    ([_config(), _config()], "used twice"),
    ([_config(expect="0x5")], "encodes to 0x00010000, expected 0x00000005"),
    ([_config(descriptor="nope")], "'descriptor' must be one of"),
    ([_config(lane=0x10000)], "field 'lane'[31:16]"),
    ([{"descriptor": "tmem"}], "missing 'name'"),
    ({"configs": [], }, "no configurations"),
    ({"config": []}, "unknown top-level key"),
    ([3], "must be a table"),
])
def test_batch_errors_name_the_config(doc, fragment):
    with pytest.raises(descriptors.BatchError) as info:
        encode_batch(parse_batch(doc))
    assert fragment in str(info.value)


def test_bad_toml_and_cli_exit_code(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[[configs]\nname = ")
    with pytest.raises(descriptors.BatchError, match="not valid TOML"):
        load_batch(bad)
    r = CliRunner().invoke(app, ["batch", str(bad)])
    assert r.exit_code == 2 and r.stdout == ""
    assert len(r.stderr.splitlines()) == 1 and r.stderr.startswith("descgen: error: ")
    mismatch = tmp_path / "m.json"
    mismatch.write_text(json.dumps([_config(expect="0x5")]))
    r = CliRunner().invoke(app, ["batch", str(mismatch)])
    assert r.exit_code == 1 and "config 'X' (#1)" in r.stderr  # a missed expect: a rule broken


def test_unknown_extension(tmp_path):
    f = tmp_path / "a.yaml"
    f.write_text("x")
    with pytest.raises(descriptors.BatchError, match=r"a YAML file; batch files are TOML \(\.toml\) or JSON \(\.json\)"):
        load_batch(f)


@pytest.mark.parametrize("doc, label", [
    ([_config(bogus=1)], "config 'X' (#1)"),
    ([_config(name="1X")], "config #1"),
    ([_config(name="A"), _config(name="A")], "config 'A' (#2)"),
    ([_config(expect="0x5")], "config 'X' (#1)"),
    ([_config(descriptor="nope")], "config 'X' (#1)"),
    ([_config(name="A"), _config(name="B", column="zz")], "config 'B' (#2)"),
])
def test_batch_error_names_the_config_and_cli_prints_one_line(doc, label, tmp_path):
    with pytest.raises(descriptors.BatchError) as info:
        encode_batch(parse_batch(doc))
    assert str(info.value).startswith(label + ": ")
    path = tmp_path / "batch.json"
    path.write_text(json.dumps(doc))
    r = CliRunner().invoke(app, ["batch", str(path)])
    assert r.exit_code == (1 if "expect" in doc[-1] else 2) and r.stdout == ""
    assert r.stderr.splitlines() == [f"descgen: error: {info.value}"]
    assert "Traceback" not in r.stderr


def test_bad_toml_names_the_file_and_the_line(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[[configs]]\nname = "A"\ndescriptor = \n')
    with pytest.raises(descriptors.BatchError) as info:
        load_batch(bad)
    assert "bad.toml" in str(info.value) and "line 3" in str(info.value)


def test_toml_and_json_fixtures_agree():
    toml = {r.config.name: r.word for r in encode_batch(load_batch(REAL))}
    js = {r.config.name: r.word for r in encode_batch(load_batch(FIXTURES / "real-world.json"))}
    assert js and all(toml[name] == word for name, word in js.items())


# ---------------------------------------------------------------- injected text (issue 15)


def _compiles(header: str, tmp_path) -> None:
    import shutil
    import subprocess
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("g++ not found")
    (tmp_path / "h.hpp").write_text(header, encoding="utf-8")
    (tmp_path / "main.cpp").write_text('#include "h.hpp"\n', encoding="utf-8")
    r = subprocess.run([gxx, "-std=c++17", "-fsyntax-only", "-Wall", "-Werror", "main.cpp"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr


def test_injected_source_text_stays_in_comments(tmp_path):
    import ast
    sources = ["line1\n#error injected", "x\nimport os; os.system('echo pwned')", "nul\x00byte",
               "ends in a backslash \\", "trigraph ??/", "\u2028separator", "*/ /*"]
    results = encode_batch(parse_batch([{"name": f"C{i}", "descriptor": "tmem", "lane": 1,
                                         "source": s} for i, s in enumerate(sources)]))
    origin = 'q""".toml\n#error too'
    cpp = render(results, "cpp", origin=origin)
    py = render(results, "python", origin=origin)
    assert not any(line.startswith(("#error", "import")) for line in cpp.splitlines())
    assert "\x00" not in cpp + py and "\u2028" not in cpp + py
    module = ast.parse(py)
    assert [type(n).__name__ for n in module.body] == ["Expr", *["Assign"] * len(sources)]
    namespace: dict = {}
    exec(compile(module, "generated", "exec"), namespace)  # nothing but the constants
    assert {k for k in namespace if not k.startswith("__")} == {f"C{i}" for i in range(len(sources))}
    _compiles(cpp, tmp_path)


@pytest.mark.parametrize("name, why", [
    ("class", "Python keyword"), ("None", "Python keyword"), ("int", "C++ keyword"),
    ("constexpr", "C++ keyword"), ("main", "reserved in C++"), ("linux", "GCC predefines"),
    ("_X", "reserved"), ("_x", "reserved"), ("a__b", "reserved"), ("uint32_t", "<cstdint>"),
    ("INT8_C", "<cstdint>"), ("", "empty"), ("1x", "not a valid"), ("x-y", "not a valid"),
])
def test_constant_names_are_identifiers_in_both_languages(name, why, tmp_path):
    import re
    with pytest.raises(descriptors.BatchError, match=re.escape(why)):
        parse_batch([{"name": name, "descriptor": "tmem"}])
    r = CliRunner().invoke(app, ["tmem", "--lane", "1", "-f", "python", "--name", name])
    assert r.exit_code == 2 and why in r.stderr and len(r.stderr.splitlines()) == 1


def test_accepted_names_compile_and_parse(tmp_path):
    import ast
    names = ["match", "type", "print", "final", "override", "SMEM", "x1", "std_"]
    results = encode_batch(parse_batch([{"name": n, "descriptor": "tmem"} for n in names]))
    ast.parse(render(results, "python"))
    _compiles(render(results, "cpp"), tmp_path)


def test_batch_context_keys_reach_the_rules():
    """scale_vec (idesc), n (zcm) and shift (tmem) are context in a configuration (issue 15)."""
    ok = parse_batch([
        {"name": "NV", "descriptor": "idesc", "kind": "mxf4nvf4", "a_type": "e2m1",
         "b_type": "e2m1", "scale_type": "ue8m0", "m": 128, "n": 256, "a_scale_id": 2,
         "scale_vec": "2X"},
        {"name": "Z", "descriptor": "zcm", "skip_span": 2, "use_span": 3, "m": 64, "n": 128},
        {"name": "T", "descriptor": "tmem", "lane": 32, "shift": True}])
    assert [r.word for r in encode_batch(ok)][2] == 0x00200000
    for bad, rule in (({**ok[0].params, "scale_vec": "4X"}, "idesc.scale_id_4x"),):
        cfgs = parse_batch([{"name": "NV", "descriptor": "idesc", **bad}])
        with pytest.raises(descriptors.InvalidDescriptorError) as exc:
            encode_batch(cfgs)
        assert rule in {f.rule for f in exc.value.findings}
    for entry, rule in (({"descriptor": "zcm", "skip_span": 2, "m": 64, "n": 96}, "zcm.n"),
                        ({"descriptor": "tmem", "lane": 16, "shift": True}, "tmem.shift_lane")):
        with pytest.raises(descriptors.InvalidDescriptorError) as exc:
            encode_batch(parse_batch([{"name": "X", **entry}]))
        assert rule in {f.rule for f in exc.value.findings}


@pytest.mark.parametrize("name, content, message", [
    ("deep.json", "[" * 100_000 + "]" * 100_000, "nested deeper than 32 levels"),
    ("deep.toml", "a = " + "[" * 3000 + "]" * 3000, "nested deeper than 32 levels"),
    ("big.json", '[{"name": "A", "descriptor": "tmem", "lane": ' + "9" * 5000 + "}]",
     "lane: a number of 5000 characters is longer than any descriptor value"),
    ("big.toml", '[[configs]]\nname = "A"\ndescriptor = "tmem"\nlane = ' + "9" * 5000 + "\n",
     "a number has more than 4300 digits"),
    ("empty.json", "", "the file is empty"),
    ("blank.toml", "\n  \n", "the file is empty"),
    ("x.yaml", "a: 1", "a YAML file; batch files are TOML (.toml) or JSON (.json)"),
    ("noext", "[]", "a file without a suffix"),
])
def test_batch_file_problems_are_one_clear_line(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    r = CliRunner().invoke(app, ["batch", str(path)])
    assert r.exit_code == 2 and r.stdout == "", r.stderr
    assert len(r.stderr.splitlines()) == 1 and message in r.stderr, r.stderr
    assert "set_int_max_str_digits" not in r.stderr and len(r.stderr) < 400


def test_batch_file_with_a_byte_order_mark(tmp_path):
    path = tmp_path / "bom.toml"
    path.write_text('[[configs]]\nname = "A"\ndescriptor = "tmem"\nlane = 1\n',
                    encoding="utf-8-sig")
    assert load_batch(path)[0].params == {"lane": 1}
    r = CliRunner().invoke(app, ["batch", "/dev/null"])
    assert r.exit_code == 2 and "not valid :" not in r.stderr


def test_batch_encodes_runs_of_one_descriptor_through_the_bulk_path(monkeypatch):
    """Each run of consecutive entries of one descriptor is one iter_encode call; the first
    problem in file order is the one reported, whether it is a refusal or a broken rule."""
    from descriptors.words import bulk

    runs = []

    def spy(descriptor, rows):
        runs.append((descriptor, len(rows)))
        return real(descriptor, rows)

    real = bulk.iter_encode
    monkeypatch.setattr(bulk, "iter_encode", spy)
    doc = [_config(name="A"), _config(name="B", lane=2),
           {"name": "S", "descriptor": "smem", "sbo": 1024, "swizzle": "128B"},
           _config(name="C", lane=3)]
    words = [r.word for r in encode_batch(parse_batch(doc))]
    assert runs == [("tmem", 2), ("smem", 1), ("tmem", 1)]
    assert words == [0x10000, 0x20000, descriptors.encode("smem", sbo=1024, swizzle="128B"),
                     0x30000]
    # B breaks a rule (lane 16 with shift), C cannot be encoded: B is reported
    broken = [_config(name="A"), _config(name="B", lane=16, shift=True),
              _config(name="C", lane=0x10000)]
    with pytest.raises(descriptors.InvalidDescriptorError, match=r"config 'B' \(#2\) breaks"):
        encode_batch(parse_batch(broken))
    # the refusal comes first: it is reported, with the entry's name
    with pytest.raises(descriptors.BatchError,
                       match=r"^config 'C' \(#2\): .*field 'lane'\[31:16\]"):
        encode_batch(parse_batch([broken[0], broken[2], broken[1]]))


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

def test_a_batch_arch_takes_nvcc_spelling_with_a_note():
    """``arch = "sm_100"`` in a batch file is read as sm_100a, as ``--arch sm_100`` is, and the
    command says so; a target descgen does not know is still refused with the entry named."""
    from helpers import run
    import tempfile, os
    text = ('[[configs]]\nname = "a"\ndescriptor = "idesc"\narch = "sm_100"\nkind = "f16"\n'
            'a_type = "bf16"\nb_type = "bf16"\nm = 128\nn = 256\n')
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "b.toml")
        with open(path, "w") as f:
            f.write(text)
        result = run("batch", path, "--format", "json")
        assert result.exit_code == 0, result.output
        assert '"0x08400490"' in result.stdout
        assert result.stderr.startswith("descgen: note: config 'a' (#1): arch sm_100 read as "
                                        "sm_100a")
        with open(path, "w") as f:
            f.write(text.replace("sm_100", "sm_89"))
        result = run("batch", path)
        assert result.exit_code == 2 and "config 'a' (#1): unknown architecture 'sm_89'" in \
            result.stderr

"""The derived layout table (``descriptors/words/layouts.derived.json``) and what a command loads.

The layouts come from the table only while it was derived from the current declarations
(``descriptors.words.bits.load``); these tests keep the committed table fresh, prove it says exactly
what the Construct declarations say, prove a stale table is never used, and check that the
light paths (``import descriptors`` + encode/decode, ``descgen idesc``/``decode --plain``/json)
load neither construct nor rich.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import descriptors
from descriptors.words import bits, layouts

ROOT = Path(__file__).resolve().parents[3]
PACKAGE = ROOT / "descriptors" / "words"  # the layouts, their table and the code that derives it


def test_committed_table_is_fresh() -> None:
    text = (PACKAGE / layouts.DERIVED_TABLE).read_text(encoding="utf-8")
    assert text == bits.derived_table(layouts.declarations(), PACKAGE), (
        "descriptors/words/layouts.derived.json is stale: run `python -m descriptors.words.layouts`")


def test_table_layouts_are_the_declared_layouts() -> None:
    declared = {lay.name: lay for lay in layouts.declarations()}
    assert list(declared) == list(layouts.LAYOUTS)
    rng = random.Random(7)
    for name, lay in layouts.LAYOUTS.items():
        ref = declared[name]
        assert lay is not ref  # the module's layouts came from the table (it is fresh)
        assert (lay.size, lay.source, lay.title, lay.aliases) == (
            ref.size, ref.source, ref.title, ref.aliases)
        assert lay.fields == ref.fields
        assert lay.__doc__ == ref.__doc__
        for _ in range(200):
            word = rng.getrandbits(lay.size)
            assert lay.decode(word) == ref.decode(word) == lay.construct_parse(word)
            assert lay.construct_build(lay.decode(word)) == word


def _copy_sources(tmp: Path, table_text: str) -> Path:
    for name in ("layouts.py", "bits.py"):
        shutil.copy(PACKAGE / name, tmp / name)
    (tmp / "t.json").write_text(table_text, encoding="utf-8")
    return tmp


def test_stale_or_broken_table_is_not_used(tmp_path: Path) -> None:
    declared = layouts.declarations()
    good = (PACKAGE / layouts.DERIVED_TABLE).read_text(encoding="utf-8")
    data = json.loads(good)
    # a table from the current sources is used: its layouts are new objects
    fresh = bits.load(layouts.declarations, _copy_sources(tmp_path, good), "t.json")
    assert fresh[0] is not declared[0] and fresh[0].fields == declared[0].fields
    # a source edited after the table was written: the declarations run instead
    stale = tmp_path / "stale"
    stale.mkdir()
    _copy_sources(stale, good)
    (stale / "layouts.py").write_text((PACKAGE / "layouts.py").read_text() + "\n# edited\n")
    assert bits.load(layouts.declarations, stale, "t.json") == declared
    # a table whose fingerprint does not match, a broken file, a missing file
    data["crc32"] ^= 1
    for text in (json.dumps(data), "{not json", '{"layouts": []}'):
        assert bits.load(layouts.declarations, _copy_sources(tmp_path, text), "t.json") == declared
    assert bits.load(layouts.declarations, tmp_path, "missing.json") == declared


def _loaded(code: str) -> set[str]:
    """The top-level packages among construct, rich, bitstring and numpy that ``code`` loads."""
    probe = (code + "\nimport sys\nprint(sorted({m.split('.')[0] for m in sys.modules} & "
             "{'construct', 'rich', 'bitstring', 'numpy'}))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT,
                         check=True).stdout
    return set(json.loads(out.strip().splitlines()[-1].replace("'", '"')))


CLI = "import sys\nfrom cli.main import app\nsys.argv = ['descgen', *{args!r}]\ntry:\n    app()\nexcept SystemExit:\n    pass"


@pytest.mark.parametrize("args", [
    ["idesc", "--kind", "f16", "-m", "128", "-n", "256", "--a-type", "bf16", "--b-type", "bf16"],
    ["smem", "--sbo", "1024", "--swizzle", "128B", "--format", "cpp", "--name", "A"],
    ["decode", "0x08400490", "--as", "idesc", "--kind", "f16", "--plain"],
    ["decode", "0x4000404000010000", "--as", "smem", "--format", "json"],
    ["check", "0x08400490", "--as", "idesc", "--kind", "f16", "--plain"],
    ["idesc", "--kind", "f16", "-m", "128", "-n", "256", "--a-type", "bf16", "--b-type", "bf16",
     "--format", "json"],
])
def test_light_commands_load_neither_construct_nor_rich(args: list[str]) -> None:
    assert _loaded(CLI.format(args=args)) == set()


@pytest.mark.parametrize("args", [["decode", "0x08400490", "--as", "idesc", "--kind", "f16"],
                                  ["check", "0x08400490", "--as", "idesc", "--kind", "f16"]])
def test_rich_loads_for_the_table_output(args: list[str]) -> None:
    assert "rich" in _loaded(CLI.format(args=args))


LAYOUT = ["layout", "--major", "K", "--a-type", "bf16", "--swizzle", "128B", "--tile", "128x64"]
STMATRIX = "stmatrix.sync.aligned.m8n8.x4.shared.b16 [p], {r0, r1, r2, r3};"
TCGEN05_LD = "tcgen05.ld.sync.aligned.32x32b.x2.b32 {r0, r1}, [taddr];"
WMMA = "wmma.load.a.sync.aligned.row.m16n16k16.shared.f16 {r0, r1, r2, r3, r4, r5, r6, r7}, [p];"


@pytest.mark.parametrize("args", [
    [*LAYOUT, "--k-steps", "--plain"], [*LAYOUT, "--format", "json"], [*LAYOUT, "-f", "hex"],
    *[["explain", instr, *fmt] for instr in (STMATRIX, TCGEN05_LD, WMMA)
      for fmt in (["--plain"], ["--format", "json"])],
])
def test_plain_and_json_reports_do_not_load_rich(args: list[str]) -> None:
    """layout and explain draw with rich only for their tables and pictures."""
    code = CLI.format(args=args).replace("except SystemExit:\n    pass",
                                         "except SystemExit as e:\n    assert not e.code, e.code")
    assert _loaded(code) == set()
    assert "rich" in _loaded(CLI.format(args=[a for a in args if a != "--plain"
                                              and a not in ("--format", "json", "-f", "hex")]))


def test_library_codec_loads_nothing_heavy() -> None:
    code = ("import descriptors\n"
            "descriptors.encode('idesc', kind='f16', a_type='bf16', b_type='bf16', m=128, n=256)\n"
            "descriptors.decode('smem', 0x4000404000010000).values\n"
            "descriptors.validate('idesc', 0x08400490, kind='f16')")
    assert _loaded(code) == set()
    assert _loaded("import descriptors\ndescriptors.SMEM.struct") == {"construct"}
    assert descriptors.SMEM.struct is layouts.declarations()[0].struct

"""descgen layout: layout -> descriptor, K steps, the swizzle-atom picture (terminal and SVG),
--explain, and one-line errors with exit code 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import fails, ok

SW128 = ["layout", "--major", "K", "--swizzle", "128B", "--dtype", "bf16", "--tile", "128x64"]


def test_hex_reproduces_the_production_descriptors() -> None:
    assert ok(*SW128, "--format", "hex") == "0x4000404000010000\n"
    assert ok(*SW128, "-f", "hex", "--unused-lbo-bytes", "0") == "0x4000404000000000\n"
    assert ok(*SW128, "-f", "hex", "--start-address", "0x400") == "0x4000404000010040\n"


def test_k_steps_hex_one_word_per_step() -> None:
    out = ok(*SW128, "-f", "hex", "--start-address", "0x400", "--k-steps")
    assert out.splitlines() == ["0x4000404000010040", "0x4000404000010042",
                                "0x4000404000010044", "0x4000404000010046"]
    sparse = ok(*SW128, "-f", "hex", "--k-steps", "--sparse")
    assert sparse.splitlines() == ["0x4000404000010000", "0x4000404000010004"]


def test_text_summary() -> None:
    out = ok(*SW128, "--start-address", "0x400", "--k-steps", "--plain")
    assert out.startswith("shared memory descriptor 0x4000404000010040\n")
    assert "T = 8 elements per 16 bytes, m = 16, k = 4" in out
    assert "Swizzle<3,4,3> o ((8,m),(T,2k)):((8T,SBO),(1,T))" in out
    assert "= Swizzle<3,4,3> o ((8,16),(8,8)):((64,512),(1,8))" in out
    assert "SBO               1024 bytes (raw 64)" in out
    assert "8x8 128-bit units (Table 53)" in out
    assert "     1     16      0x20     0x420      +2  0x4000404000010042" in out


def test_text_tables() -> None:
    """Without --plain the same report is two rich tables: the properties, then the K steps."""
    lines = ok(*SW128, "--start-address", "0x400", "--k-steps").splitlines()
    assert lines[0].rstrip() == "shared memory descriptor 0x4000404000010040"
    rows = [[c.strip() for c in ln.strip("│").split("│")] for ln in lines if ln.startswith("│")]
    assert ["SBO", "1024 bytes (raw 64): from one group of 8 M/N rows to the next"] in rows
    assert ["", "= Swizzle<3,4,3> o ((8,16),(8,8)):((64,512),(1,8))   (element units)"] in rows
    assert rows[-4:] == [[str(i), str(16 * i), f"{0x20 * i:#x}", f"{0x400 + 0x20 * i:#x}",
                          f"+{2 * i}", f"{0x4000404000010040 + 2 * i:#018x}"] for i in range(4)]
    assert "K steps (dense, 16 K elements per step, 4 steps through K = 64):" in lines


def test_json_for_machines() -> None:
    doc = json.loads(ok("layout", "--major", "MN", "--swizzle", "64B", "--dtype", "bf16",
                        "--tile", "64x16", "-f", "json", "--k-steps"))
    assert doc["word"] == "0x8000404000200000"
    assert (doc["T"], doc["m"], doc["k"], doc["lbo_bytes"], doc["sbo_bytes"]) == (8, 2, 2, 512, 1024)
    assert doc["fields"]["leading_byte_offset"] == 32 and doc["fields"]["stride_byte_offset"] == 64
    assert doc["canonical_layout"] == "Swizzle<2,4,3> o ((8,4,2),(8,2)):((1,8,256),(32,512))"
    assert doc["atom"]["shape_units"] == [4, 8]
    assert doc["atom_grid"][2] == [1, 0, 3, 2]
    assert [s["word"] for s in doc["k_steps"]] == ["0x8000404000200000"]


def test_show_draws_the_atom() -> None:
    out = ok(*SW128, "--start-address", "0x400", "--show", "--no-color")
    assert "K-major 128B swizzle atom, bf16 (T=8) at 0x400" in out
    lines = out.splitlines()
    header = next(line for line in lines if "address" in line and "+112" in line)
    assert header.split()[1:] == ["address", "┃", "M/N", "row", "┃", "+0", "┃", "+16", "┃",
                                  "+32", "┃", "+48", "┃", "+64", "┃", "+80", "┃", "+96", "┃",
                                  "+112", "┃"]
    row1 = next(line for line in lines if "0x480" in line)
    cells = [c.strip() for c in row1.strip("│ ").split("│")]
    assert cells == ["0x480", "1", "K 8-15", "K 0-7", "K 24-31", "K 16-23", "K 40-47",
                     "K 32-39", "K 56-63", "K 48-55"]
    assert "\x1b[" not in out


def test_svg_writes_the_picture(tmp_path: Path) -> None:
    svg = tmp_path / "atom.svg"
    out = ok(*SW128, "-f", "hex", "--svg", str(svg))
    assert out == "0x4000404000010000\n"
    text = svg.read_text()
    assert text.startswith("<svg") and text.rstrip().endswith("</svg>")
    assert "0x380" in text and "+112" in text and "56-63" in text


def test_explain() -> None:
    doc = json.loads(ok("layout", "--explain", "0x4000404000010000", "--major", "K", "--dtype",
                        "bf16", "-f", "json"))
    assert (doc["swizzle"], doc["sbo_bytes"], doc["lbo_bytes"], doc["T"]) == ("128B", 1024, 16, 8)
    assert doc["canonical_layout"] == "Swizzle<3,4,3> o ((8,m),(8,2k)):((64,512),(1,8))"
    out = ok("layout", "--explain", "0x4000404000010002", "--major", "K", "--dtype", "bf16",
             "--show", "--no-color")
    assert "start address 0x20" in out and "at 0x0" in out


@pytest.mark.parametrize("args, needle", [
    (["layout", "--major", "MN", "--swizzle", "128B", "--dtype", "tf32", "--tile", "64x16"], "Table 52"),
    (["layout", "--major", "K", "--swizzle", "128B_base32B", "--dtype", "tf32", "--tile", "64x16"], "Table 53"),
    (["layout", "--major", "K", "--swizzle", "128B", "--dtype", "e2m1", "--tile", "128x256"], "pass kind="),
    (["layout", "--major", "row", "--swizzle", "128B", "--dtype", "bf16", "--tile", "128x64"], "major="),
    ([*SW128[:-1], "128"], "ROWSxK"),
    (SW128[:-2], "--tile"),
    ([*SW128, "--start-address", "0x440"], "128-byte boundary"),
    ([*SW128, "--start-address", "0x3F000"], "256 KiB"),
    ([*SW128, "--unused-lbo-bytes", "8"], "unused_lbo_bytes"),
    ([*SW128, "--sparse"], "--k-steps"),
    ([*SW128, "--show", "-f", "json"], "--show"),
    ([*SW128, "--explain", "0x4000404000010000"], "--explain"),
    (["layout", "--explain", "0x4000404000010000", "--major", "MN", "--dtype", "tf32"], "Table 52"),
    (["layout", "--explain", "0x6000404000010000", "--major", "K", "--dtype", "bf16"], "invalid"),
    (["layout", "--major", "K", "--swizzle", "128B", "--dtype", "e2m1", "--kind", "mxf4",
      "--tile", "128x768", "--k-steps", "--umma-k", "96"], "straddle"),
    (["layout", "--major", "MN", "--swizzle", "128B", "--dtype", "bf16", "--tile", "64x16",
      "--lbo-address", "0x8000"], "9.7.16.3.1.2.1"),
])
def test_bad_input_is_one_line_exit_2(args, needle) -> None:
    assert needle in fails(*args)


def test_help_lists_the_options() -> None:
    out = ok("layout", "--help")
    for opt in ("--major", "--swizzle", "--a-type", "--b-type", "--tile", "--start-address", "--kind",
                "--unused-lbo-bytes", "--k-steps", "--explain", "--show", "--svg", "--format"):
        assert opt in out


def test_bad_k_names_the_quantity_not_the_python_parameter() -> None:
    msg = fails(*SW128, "--k-steps", "-k", "99")
    assert msg == ("descgen: error: K=99 is not the K of a dense MMA of kind::f16; "
                   "Table 39: 16")
    assert "umma_k" not in msg
    assert "sparse MMA" in fails(*SW128, "--k-steps", "--sparse", "-k", "16")
    assert "K (umma_k)" in fails(*SW128, "--k-steps", "-k", "x")


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

"""The pretty-printer: golden files of the plain dump, the rich table, the bit diagram, JSON.

Golden files live in ``fixtures/golden``; after an intended change of the output, regenerate
them with ``DESCGEN_UPDATE_GOLDEN=1 python -m pytest tests/unit/tools/test_printer.py`` and review the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

import descriptors
from cli.main import app
from descriptors.render.printer import diagram_rows, plain, render, to_json

GOLDEN = Path(__file__).resolve().parents[3] / "fixtures" / "golden"

#: name -> decode command arguments; one word of each layout, and words with reserved bits set.
CASES = {
    "smem_sw128_kmajor": ["0x4000404000010000", "--as", "smem"],
    "smem_broken_fixed_bits": ["0x7FE0004000010000", "--as", "smem"],
    "idesc_f16_bf16_128x256": ["0x08400490", "--as", "idesc", "--kind", "f16"],
    "idesc_mxf8f6f4_256x256_sf1": ["0x30C00010", "--as", "idesc", "--kind", "mxf8f6f4",
                                   "--cta-group", "2"],
    "idesc_mxf8f6f4_reserved_set": ["0x08400491", "--as", "idesc", "--kind", "mxf8f6f4"],
    "idesc_mxf4nvf4_128x256": ["0x08400480", "--as", "idesc", "--kind", "mxf4nvf4"],
    "zcm_ptx_example_4": ["0x0203028301020100", "--as", "zcm", "-m", "32"],
    "tmem_lane64_col128": ["0x00400080", "--as", "tmem"],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_plain_output_matches_golden_file(name):
    result = CliRunner().invoke(app, ["decode", *CASES[name], "--plain"])
    assert result.exit_code == 0, result.stderr
    path = GOLDEN / f"{name}.txt"
    if os.environ.get("DESCGEN_UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(result.stdout)
    assert path.exists(), f"missing golden file {path}; run with DESCGEN_UPDATE_GOLDEN=1"
    assert result.stdout == path.read_text()


def test_golden_files_are_all_used():
    assert {p.stem for p in GOLDEN.glob("*.txt")} == set(CASES)


def test_reserved_bits_are_marked_in_the_dump():
    d = descriptors.decode("smem", 0x7FE0004000010000)
    text = plain(d, descriptors.validate("smem", d.word))
    marked = [line.split()[2] for line in text.splitlines() if line.startswith(" !")]
    # the set reserved bits, the broken constant, and the swizzle code encode refuses (3)
    assert marked == ["swizzle", "fixed_zero", "fixed_constant"]
    assert "INVALID: 3 error(s)" in text  # fixed_zero, fixed_constant, swizzle code 3


def test_values_encode_refuses_are_marked_in_the_dump():
    """A mxf4 word with K=96 (bit 31) and sparse (bit 2) has no MMA: decode flags it."""
    word = descriptors.encode("idesc", check=False, kind="mxf4", a_type="e2m1", b_type="e2m1", m=256, n=256,
                              k=96) | 1 << descriptors.IDESC_MXF4.by_name["sparse"].lsb
    d = descriptors.decode("idesc", word, kind="mxf4")
    assert set(d.refused) == {"k_dim"}
    text = plain(d)
    marked = [line.split()[2] for line in text.splitlines() if line.startswith(" !")]
    assert marked == ["k_dim"]
    assert "dense MMAs only" in text


def test_diagram_rows_cover_every_bit_once():
    for word, descriptor, kind in ((0x4000404000010000, "smem", None),
                                   (0x08400490, "idesc", "f16"), (0x0203028301020100, "zcm", None)):
        d = descriptors.decode(descriptor, word, kind=kind)
        bits = "".join(s for _, _, segs in diagram_rows(d) for _, s in segs)
        assert bits == format(word, f"0{d.layout.size}b")
        names = [f.name for _, _, segs in diagram_rows(d) for f, _ in segs]
        assert names == [f.name for f in reversed(d.layout.fields)]


def test_rich_render_colours_in_a_terminal_only():
    d = descriptors.decode("idesc", 0x08400491, kind="mxf8f6f4")
    findings = descriptors.validate("idesc", d.word, kind="mxf8f6f4")
    term = Console(force_terminal=True, color_system="standard", width=140, record=True)
    term.print(render(d, findings))
    coloured = term.export_text(styles=True)
    assert "\x1b[" in coloured and "RESERVED BITS SET" in coloured
    piped = Console(force_terminal=False, width=140, record=True)
    piped.print(render(d, findings))
    text = piped.export_text(styles=False)
    assert "\x1b[" not in text and "reserved_0" in text and "INVALID: 2 error(s)" in text


def test_no_color_flag_and_terminal_output(monkeypatch):
    monkeypatch.setenv("FORCE_COLOR", "1")
    coloured = CliRunner().invoke(app, ["decode", "0x08400490", "--as", "idesc", "--kind", "f16"])
    plain_ = CliRunner().invoke(app, ["decode", "0x08400490", "--as", "idesc", "--kind", "f16",
                                      "--no-color"])
    assert "\x1b[" in coloured.stdout
    assert "\x1b[" not in plain_.stdout and "N = 256" in plain_.stdout


def test_json_has_word_layout_fields_meanings_and_findings():
    d = descriptors.decode("smem", 0x4000404000000002)
    doc = json.loads(json.dumps(to_json(d, descriptors.validate("smem", d.word))))
    assert doc["word"] == "0x4000404000000002" and doc["layout"] == "smem"
    assert doc["fields"]["start_address"] == 2 and doc["values"]["start_address_bytes"] == 32
    assert doc["meanings"]["swizzle"].startswith("128B")
    assert doc["valid"] is True
    assert [(f["rule"], f["severity"]) for f in doc["findings"]] == [("smem.base_offset", "note")]

"""The operand-fetch model (descriptors.layout.fetch) against what an H100 read.

fixtures/hopper/hardware/wgmma_read_map.jsonl.gz records, for 192 wgmma matrix descriptor words
(every swizzle, both majors for f16, K-major tf32/e4m3/s8, wrong LBO/SBO, K steps, base offsets,
each unused bit set), the shared-memory byte each element of the operand was read from (see that
folder's README).  The model, computed from the decoded word alone, must give every one of
them.  Planted: a model that read LBO for a swizzled K-major operand, or ignored the base offset,
would fail on the recorded cases.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from descriptors import DescgenError, LayoutError, encode
from descriptors.layout.fetch import FetchModel, fetch_model, read_address

MAPS = Path(__file__).resolve().parents[2] / "fixtures" / "hopper" / "hardware" / \
    "wgmma_read_map.jsonl.gz"
ELEMENT_BYTES = {"f16": 2, "tf32": 4, "e4m3": 1, "s8": 1}


def _cases() -> list[dict]:
    with gzip.open(MAPS, "rt") as f:
        return [json.loads(line) for line in f]


CASES = _cases()


def _mismatches(model: FetchModel, case: dict) -> int:
    e, major = ELEMENT_BYTES[case["type"]], "MN" if case["trans"] else "K"
    return sum(model.address(row, k, element_bytes=e, major=major) - case["region_addr"] != got
               for row, ks in enumerate(case["map"]) for k, got in enumerate(ks))


def test_every_recorded_element_is_the_model_s() -> None:
    assert len(CASES) == 192
    assert sum(len(ks) for c in CASES for ks in c["map"]) == 235_520
    bad = {c["id"]: n for c in CASES if (n := _mismatches(fetch_model(int(c["desc"], 16)), c))}
    assert bad == {}
    assert fetch_model(int(CASES[0]["desc"], 16)).measured


def test_what_the_recordings_rule_out() -> None:
    """Two plausible wrong models: each fails on cases the H100 recorded."""
    from descriptors.structs import replace
    swizzled_k = [c for c in CASES if c["swizzle"] and not c["trans"] and c["lbo"] not in (0, 16)]
    assert swizzled_k
    # reading LBO for K-major swizzled operands (as K-major unswizzled ones do): the recorded
    # words with a large LBO read exactly as those with LBO 16
    for c in swizzled_k:
        m = fetch_model(int(c["desc"], 16))
        assert _mismatches(replace(m, swizzle="none"), c)
    # ignoring the base offset: the cases with a base offset on a mid-pattern start differ
    based = [c for c in CASES if c["base_offset"] and c["swizzle"] == 1]
    assert based and all(_mismatches(replace(fetch_model(int(c["desc"], 16)), base_offset=0), c)
                         for c in based)


def test_read_address_examples() -> None:
    # 128B K-major f16 A at 0x400, SBO 1024: row 1's k=0 is 128 bytes on, XOR-ed by phase 1
    w = encode("wgmma", start_address=0x400, leading_byte_offset=16, stride_byte_offset=1024,
               swizzle="128B")
    assert read_address(w, 0, 0, element_bytes=2, major="K") == 0x400
    assert read_address(w, 1, 0, element_bytes=2, major="K") == 0x400 + 128 + 16
    assert read_address(w, 8, 0, element_bytes=2, major="K") == 0x400 + 1024
    # the same word read as tcgen05's smem descriptor: the same canonical model, not measured
    s = encode("smem", start_address=0x400, leading_byte_offset=16, stride_byte_offset=1024,
               swizzle="128B")
    assert read_address(s, 1, 0, element_bytes=2, major="K", descriptor="smem") == 0x490
    assert not fetch_model(s, "smem").measured


def test_refusals() -> None:
    with pytest.raises(LayoutError, match="32B atomicity"):
        fetch_model(encode("smem", swizzle="128B_base32B", stride_byte_offset=1024), "smem")
    with pytest.raises(DescgenError):
        read_address(0, 0, 0, element_bytes=3, major="K")
    with pytest.raises(DescgenError):
        read_address(0, 0, 0, element_bytes=2, major="X")


def test_check_cute_cli() -> None:
    """descgen check WORD --cute LAYOUT: exit 0 when the word reads the layout, 1 with the first
    element read from the wrong place, 2 for a bad question."""
    from typer.testing import CliRunner

    from cli.main import app
    run = CliRunner().invoke
    lay = "Sw<3,4,3>_smem_ptr[16b](0x400) o (_64,_64):(_64,_1)"
    good = run(app, ["check", "0x4000004000010040", "--as", "smem", "--arch", "sm_90a",
                     "--cute", lay, "--major", "K", "--a-type", "f16"])
    assert good.exit_code == 0 and good.stdout.startswith("yes: ") and "H100" in good.stdout
    bad = run(app, ["check", "0x4000002000010040", "--as", "wgmma", "--cute", lay,
                    "--major", "K", "--a-type", "f16"])
    assert bad.exit_code == 1
    assert "element (row 8, k 0) is at byte 0x800 in the layout, but the word reads byte 0x640" \
        in bad.stdout
    dsl = "tensor<ptr<bf16, smem, align<1024>, S<3,4,3>> o ((64,16)):((64,1))>"
    ok = run(app, ["check", "0x4000004000010040", "--as", "wgmma", "--cute", dsl, "--major", "K",
                   "--start-address", "0x400", "--format", "json"])
    assert ok.exit_code == 0 and '"reads_layout": true' in ok.stdout
    tc = run(app, ["check", "0x4000404000010040", "--as", "smem", "--cute", lay, "--major", "K",
                   "--a-type", "f16"])
    assert tc.exit_code == 0 and "not measured" in tc.stdout
    for args in (["check", "0x1", "--as", "idesc", "--cute", lay, "--major", "K"],
                 ["check", "0x1", "--as", "smem", "--cute", lay, "--major", "MN"],  # K-major
                 ["check", "0x1", "--as", "smem", "--major", "K"],
                 ["check", "0x4000004000010040", "--as", "wgmma", "--cute", dsl, "--major", "K"]):
        r = run(app, args)
        assert r.exit_code == 2 and r.stderr.count("descgen: error:") == 1, (args, r.stderr)


def test_layout_arch_sm90a_gives_the_wgmma_word_the_layout_is_read_with() -> None:
    """layout --arch sm_90a: the wgmma word of the same tile (each K step), which the fetch
    model (measured on an H100) says reads the tile's CuTe layout; refusals where sm_90 has no
    form (9.7.15.5.1-2)."""
    from typer.testing import CliRunner

    from cli.main import app
    run = CliRunner().invoke
    base = ["layout", "--arch", "sm_90a", "--major", "K", "--swizzle", "128B", "--a-type", "f16",
            "--tile", "64x64", "--start-address", "0x400"]
    r = run(app, [*base, "--k-steps", "--format", "hex"])
    assert r.exit_code == 0, r.stderr
    words = [int(w, 16) for w in r.stdout.split()]
    assert words == [0x4000004000010040 + 2 * i for i in range(4)]  # +32 bytes per K step
    for i, w in enumerate(words):
        lay = f"Sw<3,4,3>_smem_ptr[16b]({0x400 + 32 * i:#x}) o (_64,_16):(_64,_1)"
        assert check_layout_ok(w, lay)
    cpp = run(app, [*base, "--format", "c", "--name", "a_desc"])
    assert cpp.stdout.startswith("constexpr uint64_t a_desc = 0x4000004000010040ull;  // wgmma:")
    for args in (["--major", "MN", "--swizzle", "128B", "--a-type", "e4m3", "--tile", "128x64"],
                 ["--major", "MN", "--swizzle", "128B_base32B", "--a-type", "tf32", "--tile", "64x32"]):
        bad = run(app, ["layout", "--arch", "sm_90a", *args, "--format", "hex"])
        assert bad.exit_code == 2 and "9.7.15.5" in bad.stderr, (args, bad.stderr)
    tc = run(app, ["layout", "--arch", "sm_80", *base[3:]])
    assert tc.exit_code == 2


def check_layout_ok(word: int, layout: str) -> bool:
    from descriptors.layout.fetch import check_layout
    return check_layout(word, layout, major="K", dtype="f16").ok


@pytest.mark.parametrize("layout,start", [
    ("Sw<3,3,3> o _0 o (_64,_64):(_64,_1)", 0x400),     # swizzle on element offsets
    ("Sw<3,3,3> o _16 o (_64,_64):(_64,_1)", 0x400),    # ... with a composed offset
    ("Sw<3,3,3> o _0 o (_64,_64):(_64,_1)", 0x480),     # pattern off its repeat: base offset 1
    ("Swizzle<3,4,3> o (_64,_64):(_64,_1)", 0x400),     # the PTX notation, bytes
    ("Sw<3,4,3>_smem_ptr[16b](0x420) o (_64,_64):(_64,_1)", None),  # a pointer, mid-pattern
])
def test_every_swizzle_form_reads_as_the_word_derived_from_it(layout: str, start) -> None:
    """check_layout agrees with cute_layout_descriptor on each way a CuTe print places its
    swizzle (pointer, composed with or without an offset, PTX notation): the word derived from
    the layout reads the layout, and a word one 16-byte unit off does not."""
    from descriptors.layout.cute_layout import cute_layout_descriptor
    from descriptors.layout.fetch import check_layout
    word = cute_layout_descriptor(layout, dtype="f16", major="K", start_address=start).word
    kw = dict(major="K", dtype="f16", descriptor="smem", start_address=start)
    assert check_layout(word, layout, **kw).ok
    assert not check_layout(word + 1, layout, **kw).ok

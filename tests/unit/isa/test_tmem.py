"""descriptors.isa.tmem: addresses, tcgen05.ld/st footprints, alloc, data path layouts.

The register table below is an independent transcription of PTX Table 47 (tcgen05.ld) /
Table 48 (tcgen05.st) -- numbered Tables 49 / 50 in the stand-alone 9.7.16.8 page -- written as
the text prints it (rows .x1 .. .x128; columns ".16x32bx2 / .16x64b / .32x32b", ".16x128b",
".16x256b"; "NA" for a cell that does not exist).  When the spec files are present, the table
is also read out of them and compared.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

import descriptors
from descriptors import TMEM, DescgenError, FieldError, ParameterError
from descriptors.isa import tmem as t

# ------------------------------------------------------------------ Table 47 / 48, by hand

SPEC_TABLE = """
.x1   | 1   | 2   | 4
.x2   | 2   | 4   | 8
.x4   | 4   | 8   | 16
.x8   | 8   | 16  | 32
.x16  | 16  | 32  | 64
.x32  | 32  | 64  | 128
.x64  | 64  | 128 | NA
.x128 | 128 | NA  | NA
"""
SPEC_COLUMNS = (("16x32bx2", "16x64b", "32x32b"), ("16x128b",), ("16x256b",))


def spec_cells():
    for line in SPEC_TABLE.strip().splitlines():
        num, *cells = [c.strip() for c in line.split("|")]
        for shapes, cell in zip(SPEC_COLUMNS, cells):
            for shape in shapes:
                yield shape, int(num.removeprefix(".x")), None if cell == "NA" else int(cell)


CELLS = list(spec_cells())


def test_transcription_covers_every_cell():
    assert len(CELLS) == 5 * 8
    assert sum(c is None for _, _, c in CELLS) == 3  # 16x128b.x128, 16x256b.x64, 16x256b.x128


@pytest.mark.parametrize("op", ["ld", "st"])
@pytest.mark.parametrize("shape,num,expected", CELLS,
                         ids=[f"{s}.x{n}" for s, n, _ in CELLS])
def test_register_table_cell(op, shape, num, expected):
    if expected is None:
        with pytest.raises(ParameterError) as exc:
            t.registers(shape, num, op)
        msg = str(exc.value)
        assert "NA" in msg and f".x{num}" in msg
        assert ("Table 47" if op == "ld" else "Table 48") in msg
        assert ("Table 49" if op == "ld" else "Table 50") in msg
        with pytest.raises(ParameterError, match="NA"):
            t.footprint(op, shape, num, 0, imm_half_splitoff=num if "x2" in shape[-2:] else None)
    else:
        assert t.registers(shape, num, op) == expected
        fp = t.footprint(op, shape, num, 0,
                         imm_half_splitoff=num if shape == "16x32bx2" else None)
        assert fp.registers == expected
        # the data moved per warp equals the registers of its 32 threads
        s = t.SHAPES[shape]
        assert s.lanes * s.accesses * fp.columns_per_access == 32 * expected


def _tables_in(path: Path) -> list[dict[int, tuple[str, ...]]]:
    """Every .num x .shape table in a spec file: {num: (cell, cell, cell)}."""
    text = path.read_text()
    found, rows = [], {}
    for m in re.finditer(r"`?\.x(\d+)`?\s*\|\s*(\w+)\s*\|\s*(\w+)\s*\|\s*(\w+)", text):
        rows[int(m.group(1))] = (m.group(2), m.group(3), m.group(4))
        if int(m.group(1)) == 128:
            found.append(rows)
            rows = {}
    return found


#: A directory of PTX ISA text extracts (markdown), when the environment names one.
SPEC_DIR = Path(os.environ.get("DESCGEN_PTX_SPEC_DIR", "/nonexistent"))


@pytest.mark.skipif(not SPEC_DIR.exists(), reason="set DESCGEN_PTX_SPEC_DIR to a directory of PTX ISA text extracts")
@pytest.mark.parametrize("name,count", [("ptx-9.7.16-tcgen05.md", 2),
                                        ("ptx-9.7.16.8-tcgen05-ld-st-wait.md", 2),
                                        ("ptx-9.7.16.8.3-tcgen05-ld.md", 1)])
def test_register_table_matches_spec_files(name, count):
    tables = _tables_in(SPEC_DIR / name)
    assert len(tables) == count
    for table in tables:
        assert {n: tuple(None if c == "NA" else int(c) for c in cells)
                for n, cells in table.items()} == t.REGISTER_TABLE


def test_table_numbers():
    assert t.TABLES["ld"][:2] == ("Table 47", "Table 49")
    assert t.TABLES["st"][:2] == ("Table 48", "Table 50")


# ------------------------------------------------------------------ parsing


@pytest.mark.parametrize("spec,expected", [
    ("32x32b.x8", ("32x32b", 8)), (".32x32b.x8", ("32x32b", 8)),
    ("16x32bx2.x4", ("16x32bx2", 4)), (".16x256b.x32", ("16x256b", 32)),
    ("16x64b.x128", ("16x64b", 128)), (" 16x128B.X1 ", ("16x128b", 1)),
])
def test_parse_ld_spec(spec, expected):
    assert t.parse_ld_spec(spec) == expected


@pytest.mark.parametrize("spec,needle", [
    ("32x32b", "expected <shape>.x<num>"), ("32x32b.8", "expected"), ("32x32b.x3", ".num"),
    ("64x32b.x8", "not a tcgen05.ld/st shape"), ("16x32b.x2", "not a tcgen05.ld/st shape"),
    ("16x256b.x64", "NA"), ("16x128b.x128", "NA"), ("", "expected"), (8, "not a string"),
])
def test_parse_ld_spec_refuses(spec, needle):
    with pytest.raises(ParameterError, match=re.escape(needle)):
        t.parse_ld_spec(spec)


@pytest.mark.parametrize("bad", [3, 0, 256, "x0", True, None, 8.0])
def test_parse_num_refuses(bad):
    with pytest.raises(ParameterError):
        t.parse_num(bad)


def test_unknown_op_and_shape():
    with pytest.raises(ParameterError, match="'ld'"):
        t.footprint("cp", "32x32b", 1, 0)
    with pytest.raises(ParameterError, match="shape"):
        t.footprint("ld", "4x256b", 1, 0)
    assert t.footprint("tcgen05.st", ".32x32b", ".x2", "0x0").op == "st"


# ------------------------------------------------------------------ addresses


def test_pack_unpack_round_trip():
    assert t.pack(32, 64) == 0x00200040
    assert t.pack(127, 511) == 0x007F01FF
    a = t.unpack(0x00200040)
    assert (a.lane, a.column, a.byte_index, a.lane_field) == (32, 64, 0, 32)
    assert a.in_range and a.outside_cutlass_mask == 0
    assert t.unpack("0x00600010").lane == 96
    assert t.pack(lane=5, column=7) == descriptors.encode("tmem", lane=5, column=7)


def test_byte_index_bits_31_30():
    word = t.pack(32, 64, byte_index=3)
    assert word == 0xC0200040
    a = t.unpack(word)
    assert (a.lane, a.column, a.byte_index, a.lane_field) == (32, 64, 3, 0xC020)
    assert a.in_range and a.outside_cutlass_mask == 0
    assert t.unpack(0x40000000).byte_index == 1 and t.unpack(0x40000000).lane == 0
    assert t.unpack(0x80000000).byte_index == 2


def test_masks_derive_from_layout():
    assert t.CUTLASS_ACTIVE_MASK == 0x007F01FF  # CUTLASS cute/pointer.hpp, tmem_ptr
    assert t.BYTE_INDEX_MASK == 0xC0000000
    assert (t.BYTE_INDEX_LSB, t.BYTE_INDEX_WIDTH) == (30, 2)
    assert TMEM.by_name["lane"].msb == 31 and TMEM.by_name["column"].lsb == 0
    assert t.CUTLASS_ACTIVE_MASK & t.BYTE_INDEX_MASK == 0


def test_outside_cutlass_mask_and_range():
    a = t.unpack(0x00800200)  # lane 128, column 512
    assert not a.in_range and a.outside_cutlass_mask == 0x00800200
    assert t.unpack(0x3FFF0000).lane == 0x3FFF


@pytest.mark.parametrize("kwargs,field", [
    ({"lane": 128, "column": 0}, "lane"), ({"lane": -1, "column": 0}, "lane"),
    ({"lane": 0, "column": 512}, "column"), ({"lane": 0, "column": 0, "byte_index": 4},
                                             "byte_index"),
])
def test_pack_refuses(kwargs, field):
    with pytest.raises(FieldError) as exc:
        t.pack(**kwargs)
    assert exc.value.field == field
    assert isinstance(exc.value, DescgenError)


def test_unpack_refuses_non_words():
    with pytest.raises(DescgenError):
        t.unpack(1 << 32)
    with pytest.raises(DescgenError):
        t.unpack("lane 3")


# ------------------------------------------------------------------ footprint: lanes and warps


def rules(fp, severity=None):
    return {f.rule for f in fp.verdict if severity is None or f.severity == severity}


def test_warp1_lanes_32_63_ok():
    fp = t.footprint("ld", "32x32b", 8, 0x00200040, warp=1, alloc=128)
    assert fp.ok
    assert (fp.lane_range, fp.column_range) == ((32, 63), (64, 71))
    assert (fp.quadrant, fp.accessible_lanes) == (1, (32, 63))
    assert fp.ptx == "tcgen05.ld.sync.aligned.32x32b.x8.b32"
    assert "tmem.ld.warp_lanes" in rules(fp, "note")


def test_warp1_lane0_refused():
    fp = t.footprint("ld", "32x32b", 8, t.pack(0, 0), warp=1)
    assert not fp.ok
    err = [f for f in fp.verdict if f.severity == "error"]
    assert [f.rule for f in err] == ["tmem.ld.warp_lanes"]
    assert "32-63" in err[0].message and "0-31" in err[0].message
    assert err[0].source == "9.7.16.8.1"


def test_warp2_32x32b_at_lane64_ok():
    fp = t.footprint("st", "32x32b", 4, t.pack(64, 0), warp=2)
    assert fp.ok and fp.lane_range == (64, 95) and fp.registers == 4


def test_warp_id_modulo_4():
    assert t.footprint("ld", "32x32b", 1, t.pack(32, 0), warp=5).ok  # warp 5 % 4 == 1
    assert not t.footprint("ld", "32x32b", 1, t.pack(32, 0), warp=6).ok


def test_16_lane_shapes_in_quadrant():
    assert t.footprint("ld", "16x64b", 2, t.pack(48, 0), warp=1).lane_range == (48, 63)
    assert t.footprint("ld", "16x64b", 2, t.pack(48, 0), warp=1).ok
    fp = t.footprint("ld", "16x64b", 2, t.pack(56, 0), warp=1)  # lanes 56-71 cross into warp 2
    assert rules(fp, "error") == {"tmem.ld.warp_lanes"}


def test_no_warp_names_the_quadrant_or_refuses():
    fp = t.footprint("ld", "32x32b", 1, t.pack(96, 0))
    note = [f for f in fp.verdict if f.rule == "tmem.ld.warp_lanes"]
    assert note[0].severity == "note" and "warp 3" in note[0].message
    fp = t.footprint("ld", "32x32b", 1, t.pack(16, 0))  # lanes 16-47
    assert rules(fp, "error") == {"tmem.ld.warp_lanes"}


def test_lanes_and_columns_beyond_tensor_memory():
    fp = t.footprint("ld", "32x32b", 1, t.pack(112, 0))
    assert rules(fp, "error") == {"tmem.ld.lanes"}
    fp = t.footprint("ld", "32x32b", 16, t.pack(0, 500))  # columns 500-515
    assert rules(fp, "error") == {"tmem.ld.columns"}
    assert t.footprint("ld", "32x32b", 16, t.pack(0, 496)).ok  # columns 496-511


@pytest.mark.parametrize("shape,num,cols,lanes", [
    ("32x32b", 8, 8, 32), ("16x64b", 8, 16, 16), ("16x128b", 8, 32, 16),
    ("16x256b", 8, 64, 16), ("16x32bx2", 8, 8, 16), ("32x32b", 128, 128, 32),
    ("16x256b", 32, 256, 16),
])
def test_columns_per_access(shape, num, cols, lanes):
    fp = t.footprint("ld", shape, num, 0, imm_half_splitoff=num if shape == "16x32bx2" else None)
    assert (fp.columns_per_access, fp.lanes) == (cols, lanes)
    assert fp.bits_per_lane == t.SHAPES[shape].bits * num


# ------------------------------------------------------------------ .16x32bx2


def test_16x32bx2_second_access():
    fp = t.footprint("ld", "16x32bx2", 4, t.pack(32, 8), warp=1, imm_half_splitoff=4)
    first, second = fp.accesses
    assert (first.lanes, first.columns) == ((32, 47), (8, 11))
    assert second.address.word == t.pack(32, 12)
    assert (second.lanes, second.columns) == ((32, 47), (12, 15))
    assert fp.column_range == (8, 15) and fp.registers == 4 and fp.ok
    assert fp.ptx == "tcgen05.ld.sync.aligned.16x32bx2.x4.b32"


def test_16x32bx2_split_moves_lanes_when_imm_carries_into_lane_bits():
    fp = t.footprint("st", "16x32bx2", 2, t.pack(32, 0), warp=1,
                     imm_half_splitoff=16 << TMEM.by_name["lane"].lsb)
    assert fp.accesses[1].lanes == (48, 63) and fp.ok
    fp = t.footprint("st", "16x32bx2", 2, t.pack(32, 0), warp=1,
                     imm_half_splitoff=32 << TMEM.by_name["lane"].lsb)
    assert rules(fp, "error") == {"tmem.st.warp_lanes"}
    assert "access 2" in [f for f in fp.verdict if f.severity == "error"][0].message


def test_16x32bx2_overlap_warned():
    fp = t.footprint("ld", "16x32bx2", 8, 0, imm_half_splitoff=4)
    assert any(f.rule == "tmem.ld.split" and f.severity == "warning" for f in fp.verdict)
    fp = t.footprint("ld", "16x32bx2", 8, 0, imm_half_splitoff=8)
    assert not any(f.severity == "warning" for f in fp.verdict)


def test_16x32bx2_needs_imm_and_others_refuse_it():
    with pytest.raises(ParameterError, match="immHalfSplitoff"):
        t.footprint("ld", "16x32bx2", 2, 0)
    with pytest.raises(ParameterError, match="16x32bx2 only"):
        t.footprint("ld", "32x32b", 2, 0, imm_half_splitoff=2)
    with pytest.raises(ParameterError, match="negative"):
        t.footprint("ld", "16x32bx2", 2, 0, imm_half_splitoff=-1)
    with pytest.raises(ParameterError, match="32-bit"):
        t.footprint("ld", "16x32bx2", 2, 0xFFFFFFF0, imm_half_splitoff=0x20)


# ------------------------------------------------------------------ allocation


def test_alloc_inside_and_outside():
    fp = t.footprint("ld", "32x32b", 64, t.pack(0, 64), warp=0, alloc=128)
    assert fp.ok and fp.alloc_columns == (0, 127)
    fp = t.footprint("ld", "32x32b", 64, t.pack(0, 65), warp=0, alloc=128)  # 65-128
    errs = [f for f in fp.verdict if f.severity == "error"]
    assert [f.rule for f in errs] == ["tmem.ld.alloc"]
    assert "65-128" in errs[0].message and "0-127" in errs[0].message
    assert "column 0" in errs[0].message  # the stated assumption


def test_alloc_base_moves_the_allocation():
    fp = t.footprint("st", "32x32b", 32, t.pack(0, 256), warp=0, alloc=64, alloc_base=256)
    assert fp.ok and fp.alloc_columns == (256, 319)
    fp = t.footprint("st", "32x32b", 32, t.pack(0, 0), warp=0, alloc=64, alloc_base=256)
    assert rules(fp, "error") == {"tmem.st.alloc"}
    with pytest.raises(ParameterError, match="needs alloc"):
        t.footprint("st", "32x32b", 1, 0, alloc_base=256)


def test_footprint_with_invalid_alloc_size():
    fp = t.footprint("ld", "32x32b", 1, 0, warp=0, alloc=48)
    assert rules(fp, "error") == {"tmem.alloc"}


@pytest.mark.parametrize("n", [32, 64, 128, 256, 512])
def test_alloc_sizes_valid(n):
    assert t.check_alloc(n) == []
    assert t.alloc_range(0, n).columns == (0, n - 1)


@pytest.mark.parametrize("n,why", [(48, "power of two"), (16, "minimum 32"),
                                   (1024, "maximum 512"), (0, "minimum"), (96, "power of two"),
                                   (-32, "minimum")])
def test_alloc_sizes_invalid(n, why):
    (f,) = t.check_alloc(n)
    assert (f.severity, f.rule, f.value) == ("error", "tmem.alloc", n)
    assert why in f.message
    with pytest.raises(ParameterError, match=why):
        t.alloc_range(0, n)


def test_alloc_range():
    r = t.alloc_range(t.pack(0, 128), 128)
    assert (r.columns, r.lanes, r.ncols) == ((128, 255), (0, 127), 128)
    assert 200 in r and 256 not in r and 127 not in r
    with pytest.raises(ParameterError, match="beyond"):
        t.alloc_range(t.pack(0, 256), 512)
    with pytest.raises(ParameterError):
        t.check_alloc("lots")


# ------------------------------------------------------------------ pack / unpack


def test_ld_pack_doubles_columns_not_registers():
    plain = t.footprint("ld", "32x32b", 4, 0)
    packed = t.footprint("ld", "32x32b", 4, 0, pack=True)
    assert plain.registers == packed.registers == 4
    assert (plain.columns_per_access, packed.columns_per_access) == (4, 8)
    assert packed.ptx == "tcgen05.ld.sync.aligned.32x32b.x4.pack::16b.b32"
    assert "tmem.ld.pack" in rules(packed, "note")


def test_st_unpack_matches_ptx_example():
    # PTX 9.7.16.8.4: tcgen05.st.sync.aligned.16x128b.x1.unpack::16b.b32 [taddr1], {r0, r1};
    fp = t.footprint("st", "16x128b", 1, 0, unpack=True)
    assert fp.registers == 2 and fp.columns_per_access == 8
    assert fp.ptx == "tcgen05.st.sync.aligned.16x128b.x1.unpack::16b.b32"


def test_pack_unpack_belong_to_their_op():
    with pytest.raises(ParameterError, match="tcgen05.ld qualifier"):
        t.footprint("st", "32x32b", 1, 0, pack=True)
    with pytest.raises(ParameterError, match="tcgen05.st qualifier"):
        t.footprint("ld", "32x32b", 1, 0, unpack=True)


def test_pack_alloc_interaction():
    assert t.footprint("ld", "32x32b", 16, 0, alloc=32).ok
    assert not t.footprint("ld", "32x32b", 32, 0, alloc=32, pack=True).ok  # 64 columns


# ------------------------------------------------------------------ .red


def test_red_ok_and_example():
    # PTX 9.7.16.8.3: tcgen05.ld.red.sync.aligned.16x32bx2.x8.u32.max {r0..r7}, redVal, [taddr3], 16;
    fp = t.footprint("ld", "16x32bx2", 8, 0, red="max", red_type="u32", imm_half_splitoff=16,
                     warp=0, arch="sm_103a")
    assert fp.ok and fp.registers == 8 and fp.red_registers == 1
    assert fp.ptx == "tcgen05.ld.red.sync.aligned.16x32bx2.x8.max.u32"
    assert t.footprint("ld", "32x32b", 2, 0, red="min", warp=0, arch="sm_110a").ok


def test_red_needs_x2():
    fp = t.footprint("ld", "32x32b", 1, 0, red="min", warp=0, arch="sm_103f")
    errs = [f for f in fp.verdict if f.severity == "error"]
    assert [f.rule for f in errs] == ["tmem.ld.red"] and ".x2" in errs[0].message


@pytest.mark.parametrize("shape", ["16x64b", "16x128b", "16x256b"])
def test_red_shapes(shape):
    fp = t.footprint("ld", shape, 2, 0, red="max", warp=0, arch="sm_103a")
    errs = [f for f in fp.verdict if f.severity == "error"]
    assert [f.rule for f in errs] == ["tmem.ld.red"] and f".{shape}" in errs[0].message


def test_red_rules_misc():
    with pytest.raises(ParameterError, match="tcgen05.ld only"):
        t.footprint("st", "32x32b", 2, 0, red="max")
    with pytest.raises(ParameterError, match="redOp"):
        t.footprint("ld", "32x32b", 2, 0, red="add")
    with pytest.raises(ParameterError, match="red_type"):
        t.footprint("ld", "32x32b", 2, 0, red="max", red_type="f16")
    fp = t.footprint("ld", "32x32b", 2, 0, red="max", pack=True, warp=0, arch="sm_103a")
    assert rules(fp, "error") == {"tmem.ld.red"}
    fp = t.footprint("ld", "32x32b", 2, 0, red="max", warp=0, arch="sm_100a")
    assert rules(fp, "error") == {"tmem.ld.red"}
    fp = t.footprint("ld", "32x32b", 2, 0, red="max", warp=0)
    assert fp.ok and "tmem.ld.red" in rules(fp, "note")
    with pytest.raises(ParameterError, match="architecture"):
        t.footprint("ld", "32x32b", 2, 0, arch="sm_90a")


# ------------------------------------------------------------------ byte index in footprints


def test_footprint_with_byte_index_warns():
    fp = t.footprint("ld", "32x32b", 1, t.pack(32, 0, byte_index=2), warp=1)
    assert fp.ok and fp.lane_range == (32, 63)
    (w,) = [f for f in fp.verdict if f.severity == "warning"]
    assert w.rule == "tmem.ld.address" and "CUTLASS" in w.message and w.bits == "[31:16]"


# ------------------------------------------------------------------ data path layouts


@pytest.mark.parametrize("m,cta,sparse,ws,letter,align", [
    (32, 1, False, True, "G", (0,)), (32, 1, True, True, "G", (0,)),
    (64, 1, False, True, "E", (0,)), (64, 1, True, True, "E", (0,)),
    (64, 1, False, False, "F", (0, 16)), (64, 1, True, False, "F", (0, 16)),
    (128, 1, False, False, "D", (0,)), (128, 1, True, True, "D", (0,)),
    (128, 1, False, True, "D", (0,)),
    (128, 2, False, False, "B", (0,)), (128, 2, True, False, "C", (0, 16)),
    (256, 2, False, False, "A", (0,)), (256, 2, True, False, "A", (0,)),
])
def test_datapath_layouts(m, cta, sparse, ws, letter, align):
    d = t.datapath_layout(m, cta_group=cta, sparse=sparse, ws=ws)
    assert (d.layout, d.lane_alignments) == (letter, align)
    assert d.half_datapath == (letter in "CF")
    assert d.section.startswith("9.7.16.10.5.")
    assert json.loads(json.dumps(d.to_dict()))["layout"] == letter


def test_datapath_organizations():
    assert t.datapath_layout(128, cta_group=2).organization == "2x2"
    assert t.datapath_layout(32, ws=True).organization == "1x4"
    assert t.datapath_layout(256, cta_group=2).figures == ("Figure 205", "Figure 206")


@pytest.mark.parametrize("m,cta,sparse,ws", [
    (32, 1, False, False), (64, 2, False, False), (256, 1, False, False),
    (128, 2, False, True), (256, 2, False, True), (96, 1, False, False),
    (32, 2, False, True), (512, 2, False, False),
])
def test_datapath_undefined(m, cta, sparse, ws):
    with pytest.raises(ParameterError, match=r"9\.7\.16\.10\.5|Table 39"):
        t.datapath_layout(m, cta_group=cta, sparse=sparse, ws=ws)


def test_datapath_bad_args():
    with pytest.raises(ParameterError, match="cta_group"):
        t.datapath_layout(128, cta_group=3)
    with pytest.raises(ParameterError, match="boolean"):
        t.datapath_layout(128, ws="maybe")


# ------------------------------------------------------------------ JSON


def test_footprint_to_dict_is_json():
    fp = t.footprint("ld", "16x32bx2", 2, 0x00200040, warp=1, alloc=128, imm_half_splitoff=2)
    d = json.loads(json.dumps(fp.to_dict()))
    assert d["registers"] == 2 and d["lane_range"] == [32, 47] and d["ok"] is True
    assert d["address"]["word"] == "0x00200040"
    assert [a["columns"] for a in d["accesses"]] == [[64, 65], [66, 67]]
    assert d["alloc_columns"] == [0, 127]
    assert {f["rule"] for f in d["verdict"]} >= {"tmem.ld.num", "tmem.ld.warp_lanes",
                                                 "tmem.ld.alloc", "tmem.ld.split"}
    assert json.loads(json.dumps(t.unpack(0xC0200040).to_dict()))["byte_index"] == 3
    assert json.loads(json.dumps(t.alloc_range(0, 64).to_dict()))["columns"] == [0, 63]


def test_rule_ids_are_declared():
    fp = t.footprint("ld", "16x32bx2", 1, t.pack(120, 600 - 512), warp=2, alloc=48,
                     imm_half_splitoff=0, red="max", pack=True)
    declared = {r.replace("{op}", "ld") for r in t.ACCESS_RULES}
    assert {f.rule for f in fp.verdict} <= declared
    assert len({f.rule for f in fp.verdict}) >= 6


# ---------------------------------------------------------------- CLI (descgen tmem --ld/--st/--datapath)

def _cli(*args):
    from typer.testing import CliRunner
    from cli.main import app
    return CliRunner().invoke(app, list(args))


def test_cli_ld_footprint_and_verdict():
    r = _cli("tmem", "--ld", "32x32b.x8", "--warp", "1", "--taddr", "0x00200040", "--alloc", "128",
             "--plain")
    assert r.exit_code == 0, r.stderr
    assert r.stdout.splitlines()[:3] == [
        "tcgen05.ld.sync.aligned.32x32b.x8.b32", "registers per thread: 8",
        "access 1: address 0x00200040  lanes 32-63  columns 64-71"]
    r = _cli("tmem", "--ld", "32x32b.x8", "--warp", "0", "--taddr", "0x00200040", "--plain")
    # a broken rule: exit 1, the report on stdout, the errors on stderr (issue 15)
    assert r.exit_code == 1 and r.stdout.splitlines()[-1] == "INVALID"
    assert "error" not in r.stdout
    assert r.stderr.startswith("descgen: error: [tmem.ld.warp_lanes]")
    assert r.stderr.splitlines()[-1].startswith("descgen: error: the tcgen05.ld")


def test_cli_ld_footprint_table():
    r = _cli("tmem", "--ld", "32x32b.x8", "--warp", "1", "--taddr", "0x00200040", "--alloc", "128")
    assert r.exit_code == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "tcgen05.ld.sync.aligned.32x32b.x8.b32: 8 register(s) per thread"
    assert [c.strip() for c in lines[2].strip("┃").split("┃")] == ["access", "address", "lanes",
                                                                  "columns"]
    assert [c.strip() for c in lines[4].strip("│").split("│")] == ["1", "0x00200040", "32-63",
                                                                  "64-71"]
    assert lines[-1] == "valid"


def test_cli_ld_json_and_bad_spec():
    import json
    r = _cli("tmem", "--ld", "32x32b.x8", "--warp", "1", "--address", "0x00200040", "-f", "json")
    doc = json.loads(r.stdout)
    assert doc["registers"] == 8
    r = _cli("tmem", "--ld", "32x32b.y8")
    assert r.exit_code == 2 and r.stderr.startswith("descgen: error:") and len(r.stderr.splitlines()) == 1


def test_cli_datapath():
    r = _cli("tmem", "--datapath", "128", "--cta-group", "2", "--sparse")
    assert r.exit_code == 0 and r.stdout.splitlines()[0].rstrip() == "data-path layout C"
    rows = {tuple(c.strip() for c in line.strip("│ ").split("│")) for line in r.stdout.splitlines()}
    assert {("sparse", "yes"), ("ws", "no"), ("half data path", "yes"),
            ("lane alignments", "0, 16"), ("figures", "Figure 209, Figure 210")} <= rows
    assert "True" not in r.stdout and "[" not in r.stdout  # no Python reprs
    r = _cli("tmem", "--datapath", "32")
    assert r.exit_code == 2 and r.stderr.startswith("descgen: error:")

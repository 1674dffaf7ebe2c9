"""descgen explain: stmatrix fragment maps (Figures 107/108), tcgen05.ld/st footprints,
wmma.load's specified facts, wgmma.mma_async's operation and operands; bad input is one line,
exit 2."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from descriptors.isa.fragments import stmatrix_map, wgmma_form, wmma_fragment
from helpers import fails, ok


@pytest.mark.parametrize("num", ["x1", "x2", "x4"])
@pytest.mark.parametrize("trans", ["", ".trans"])
def test_stmatrix_b16_is_figure_107(num: str, trans: str) -> None:
    n = int(num[1:])
    regs = ", ".join(f"r{i}" for i in range(n))
    m = stmatrix_map(f"stmatrix.sync.aligned.m8n8.{num}{trans}.shared.b16 [p], {{{regs}}};")
    assert len(m.elements) == 64 * n
    # every (lane, register, half) supplies exactly one element
    assert Counter((e.lane, e.register, e.half) for e in m.elements) == \
        Counter({(t, i, h): 1 for t in range(32) for i in range(n) for h in (0, 1)})
    for t in range(32):
        for i in range(n):
            for h in (0, 1):
                row, col = t // 4, 2 * (t % 4) + h  # the fragment position (Figure 107)
                e = m.at(i, col, row) if trans else m.at(i, row, col)
                assert (e.lane, e.register, e.half) == (t, i, h)
    assert m.row_addresses == {(i, r): 8 * i + r for i in range(n) for r in range(8)}


def test_stmatrix_b8_follows_cutlass_bit_map() -> None:
    m = stmatrix_map("stmatrix.sync.aligned.m16n8.x2.trans.shared::cta.b8 [p], {r0, r1};")
    assert (m.rows, m.cols, m.element_bits) == (8, 16, 8)
    # CUTLASS SM100_U8x8_STSM_T: SrcLayout ((4,8),(8,2,2,2)):((256,8),(1,128,64,1024)), bits
    # of 8 rows x 128 bits per matrix
    for t0 in range(4):
        for t1 in range(8):
            for v1 in range(2):
                for v2 in range(2):
                    for v3 in range(2):
                        bit = 256 * t0 + 8 * t1 + 128 * v1 + 64 * v2 + 1024 * v3
                        matrix, rest = divmod(bit, 1024)
                        e = m.at(matrix, rest // 128, (rest % 128) // 8)
                        assert (e.lane, e.register, e.byte) == (t0 + 4 * t1, v3, v1 + 2 * v2)


def test_explain_json_schema() -> None:
    out = json.loads(ok("explain", "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [p], "
                        "{r0,r1,r2,r3};", "--format", "json"))
    assert out["instruction"].startswith("stmatrix.sync.aligned.m8n8.x4.trans")
    assert len(out["elements"]) == 256
    assert set(out["elements"][0]) == {"matrix", "row", "col", "lane", "register", "half"}
    assert out["elements"][1] == {"matrix": 0, "row": 0, "col": 1, "lane": 4, "register": 0,
                                  "half": 0}
    b8 = json.loads(ok("explain", "stmatrix.sync.aligned.m16n8.x1.trans.b8 [p], {r0};",
                       "-f", "json"))
    assert set(b8["elements"][0]) == {"matrix", "row", "col", "lane", "register", "byte"}


def test_explain_text_and_svg(tmp_path) -> None:
    text = ok("explain", "stmatrix.sync.aligned.m8n8.x1.shared.b16 [p], {r0};", "--no-color")
    assert "row addresses" in text and "t0.h0" in text and "t31.h1" in text
    svg = tmp_path / "map.svg"
    ok("explain", "stmatrix.sync.aligned.m8n8.x1.shared.b16 [p], {r0};", "--svg", str(svg))
    assert svg.read_text().lstrip().startswith("<svg") and "t31" in svg.read_text()


def test_explain_wmma_says_unspecified() -> None:
    line = "wmma.load.c.sync.aligned.col.m16n16k16.f32 {r0,r1,r2,r3,r4,r5,r6,r7}, [p];"
    text = ok("explain", line, "--plain")
    assert "thread layout: not specified" in text and "8 32-bit register(s)" in text
    table = ok("explain", line).splitlines()  # a rich table; [p] is text, not markup
    assert table[0].rstrip() == line
    rows = [[c.strip() for c in r.strip("│").split("│")] for r in table if r.startswith("│")]
    assert rows[0] == ["matrix", "c: 16 x 16 f32 elements, .col in memory"]
    assert rows[-1] == ["thread layout", "not specified"]
    d = json.loads(ok("explain", "wmma.load.a.sync.aligned.row.m8n8k32.s4 {r0}, [p];", "-f",
                      "json"))["fragment"]
    assert (d["registers"], d["elements_per_register"], d["element_bits"], d["rows"],
            d["cols"], d["layout_specified"]) == (1, 8, 4, 8, 32, False)
    w = wmma_fragment("wmma.load.c.sync.aligned.row.m8n8k4.f64 {d0, d1}, [p];")
    assert (w.registers, w.register_bits, w.elements_per_thread) == (2, 64, 2)


def test_explain_wgmma() -> None:
    d32 = "{" + ",".join(f"f{i}" for i in range(32)) + "}"
    line = f"wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {d32}, da, db, p, 1, -1, 0, 1;"
    text = ok("explain", line, "--plain")
    assert "operation: D (64 x 64 .f32) = A (64 x 16 .bf16) * B (16 x 64 .bf16) + D" in text
    assert "D fragment: 32 32-bit registers per thread (.b32/.f32)" in text
    assert "imm-scale-b: -1: B is negated" in text and "imm-trans-b: 1: B is transposed" in text
    d = json.loads(ok("explain", "wgmma.mma_async.sp.sync.aligned.m64n16k64.s32.u8.s8 "
                      "{r0,r1,r2,r3,r4,r5,r6,r7}, {a0,a1,a2,a3}, db, meta, 0, p;", "-f",
                      "json"))["wgmma"]
    assert (d["m"], d["n"], d["k"], d["sparse"], d["a_source"], d["d_registers"],
            d["a_registers"]) == (64, 16, 64, True, "registers", 8, 4)
    assert [o["name"] for o in d["operands"]] == ["d", "a", "b-desc", "sp-meta", "sp-sel",
                                                  "scale-d"]
    w = wgmma_form("wgmma.mma_async.sync.aligned.m64n256k16.f16.f16.f16 {" + ",".join(
        f"r{i}" for i in range(64)) + "}, da, db, p, 1, 1, 0, 0;")
    assert (w.d_registers, w.a_source, w.a_registers) == (64, "descriptor", 0)


def test_explain_tcgen05_footprint() -> None:
    d = json.loads(ok("explain", "tcgen05.ld.sync.aligned.32x32b.x8.b32 {r0,r1,r2,r3,r4,r5,r6,"
                      "r7}, [t];", "--taddr", "0x00200040", "-f", "json"))["footprint"]
    assert (d["registers"], d["lane_range"], d["column_range"]) == (8, [32, 63], [64, 71])
    line = "tcgen05.st.sync.aligned.16x32bx2.x2.unpack::16b.b32 [t], 32, {r0,r1};"
    text = ok("explain", line, "--plain")
    assert "access 2: address 0x00000020  lanes 0-15  columns 32-35" in text
    rows = [[c.strip() for c in r.strip("│").split("│")] for r in ok("explain", line).splitlines()
            if r.startswith("│")]
    assert rows == [["1", "0x00000000", "0-15", "0-3"], ["2", "0x00000020", "0-15", "32-35"]]


@pytest.mark.parametrize("line, words", [
    ("ldmatrix.sync.aligned.m8n8.x1.b16 {r0}, [p];", "unknown mnemonic"),
    ("stmatrix.sync.aligned.m8n8.x4", "no operands"),
    ("stmatrix.sync.aligned.m8n8.x4.b16 [p], {" + ",".join(f"r{i}" for i in range(200)) + "};",
     "200 register(s)"),
    ("\x01\x02junk\x7f", "not PTX text"),
    ("stmatrix.sync.aligned.m16n8.x1.b8 [p], {r0};", ".trans is mandatory"),
    ("stmatrix.sync.aligned.m8n8.x16.b16 [p], {r0};", "does not guess"),
    ("wmma.load.a.sync.aligned.row.m16n16k16.f16 {r0}, [p];", "takes 8"),
    ("wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16 {r0,r1,r2}, da, db, p, 1, 1, 0, 0;",
     "takes 2"),
    ("wgmma.mma_async.sync.aligned.m64n40k32.s32.s8.s8 {r0}, da, db, p;", "then steps of 16"),
])
def test_explain_bad_input_is_one_line(line: str, words: str) -> None:
    assert words in fails("explain", line)


def test_explain_taddr_only_for_tcgen05() -> None:
    assert "--taddr" in fails("explain", "stmatrix.sync.aligned.m8n8.x1.b16 [p], {r0};",
                              "--taddr", "0")


def test_explain_wmma_storage_rules() -> None:
    # 9.7.14.4.2's example: m16n16k16 .f16 A, fragment 32 bytes; default strides per its table
    w = wmma_fragment("wmma.load.a.sync.aligned.row.m16n16k16.f16 {r0,r1,r2,r3,r4,r5,r6,r7}, [p];")
    assert (w.default_stride, w.alignment_bytes) == (16, 32)
    table = {("a", "row", "m8n32k16"): 16, ("a", "col", "m8n32k16"): 8,
             ("b", "row", "m8n32k16"): 32, ("b", "col", "m8n32k16"): 16,
             ("c", "row", "m8n32k16"): 32, ("c", "col", "m8n32k16"): 8,
             ("a", "row", "m8n8k128"): 128, ("b", "col", "m8n8k128"): 128,
             ("c", "col", "m8n8k128"): 8, ("a", "row", "m16n16k8"): 8,
             ("a", "col", "m16n16k8"): 16, ("a", "row", "m8n8k4"): 4, ("b", "col", "m8n8k4"): 4}
    types = {"m8n32k16": {"a": "f16", "b": "f16", "c": "f32"},
             "m8n8k128": {"a": "b1", "b": "b1", "c": "s32"},
             "m16n16k8": {"a": "tf32", "b": "tf32", "c": "f32"},
             "m8n8k4": {"a": "f64", "b": "f64", "c": "f64"}}
    from descriptors.isa.instructions import MODELS, resolve
    for (matrix, layout, shape), stride in table.items():
        q, _ = resolve(MODELS["wmma.load"], [matrix, "sync", "aligned", layout, shape,
                                             types[shape][matrix]])
        assert MODELS["wmma.load"].stride(q)[0] == stride, (matrix, layout, shape)
    text = ok("explain", "wmma.load.a.sync.aligned.row.m16n16k16.f16 {r0,r1,r2,r3,r4,r5,r6,r7},"
              " [p];")
    assert "default stride 16 elements" in text and "multiples of 32 bytes" in text


def test_explain_red_form() -> None:
    d = json.loads(ok("explain", "tcgen05.ld.red.sync.aligned.32x32b.x4.max.NaN.f32 {r0,r1,r2,"
                      "r3}, rv, [t];", "-f", "json"))["footprint"]
    assert (d["registers"], d["red_registers"], d["red"]) == (4, 1, "max")
    assert "--taddr" in fails("explain", "tcgen05.ld.sync.aligned.32x32b.x1.b32 {r0}, [t];",
                              "--taddr", "lane3")


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


def test_explain_tcgen05_mma_first_try() -> None:
    """A new user's first line on Blackwell, the qualifiers alone: explained with the syntax's
    operands (said on stderr) -- the operation, the kind's types, Table 39's shapes, the
    operands and the descgen command that builds the idesc word."""
    from descriptors.isa.instructions.forms import with_syntax_operands

    assert with_syntax_operands("tcgen05.mma.cta_group::1.kind::f16") == \
        "tcgen05.mma.cta_group::1.kind::f16 [d_tmem], a_desc, b_desc, idesc, enable_input_d;"
    assert with_syntax_operands("tcgen05.mma.cta_group::1.kind::f16 [d], a, b, i, p;") is None
    assert with_syntax_operands("stmatrix.sync.aligned.m8n8.x1.b16") is None
    assert "a-desc: a_desc: A in shared memory" in ok(
        "explain", "tcgen05.mma.cta_group::1.kind::f16", "--plain")
    assert "no operands" in fails("explain", "stmatrix.sync.aligned.m8n8.x1.b16")
    text = ok("explain", "tcgen05.mma.cta_group::1.kind::f16 [dt], da, db, idesc, p;", "--plain")
    assert "operation: D (M x N) = A (M x K) * B (K x N) + D; D = A*B when enable-input-d is " \
           "false" in text
    assert "types: A/B .f16/.bf16; D .f16/.f32" in text
    assert "shape: M = 64 or 128; N = 8..256 step 8; K = 16" in text
    assert "build: the idesc word: descgen idesc --kind f16 -m 128 -n 256 --a-type f16 " \
           "--b-type f16 --d-type f32 --cta-group 1 --no-ws" in text
    assert "a-desc: da: A in shared memory" in text and "source: PTX 9.7.16.10.9.1" in text


def test_explain_tcgen05_mma_contexts() -> None:
    from descriptors.isa.instructions.forms import tcgen05_form

    f = tcgen05_form("tcgen05.mma.sp.cta_group::2.kind::mxf4nvf4.block_scale.block16 [d], [a], "
                     "bd, [m], id, [sa], [sb], p;")
    assert f.mma is not None
    assert (f.mma["m"], f.mma["n"][:2], f.mma["k"], f.mma["a_source"]) == ([256], [16, 32], 128,
                                                                            "tmem")
    assert f.mma["types"]["scale"] == ["ue4m3", "ue8m0"]
    assert [o[0] for o in f.operands] == ["d-tmem", "a-tmem", "b-desc", "sp-meta-tmem", "idesc",
                                          "scale-A-tmem", "scale-B-tmem", "enable-input-d"]
    assert f.section == "PTX 9.7.16.10.9.2"
    ws = tcgen05_form("tcgen05.mma.ws.cta_group::1.kind::i8.collector::b1::use [d], ad, bd, id, "
                      "p, z;")
    assert ws.mma is not None and ws.mma["m"] == [32, 64, 128] and ws.mma["n"] == [64, 128, 256]
    assert ("collector", ".collector::b1::use: B is read from collector buffer b1") in ws.rows
    assert ws.operands[-1][0] == "zero-column-mask-desc" and ws.section == "PTX 9.7.16.10.9.3"
    two = tcgen05_form("tcgen05.mma.cta_group::2.kind::tf32 [d], ad, bd, id, "
                       "{m0,m1,m2,m3,m4,m5,m6,m7}, !p, 3;")
    assert two.mma is not None and two.mma["m"] == [128, 256] and two.mma["k"] == 8
    assert two.operands[-3:] == (
        ("disable-output-lane", "{m0,m1,m2,m3,m4,m5,m6,m7}",
         "one 32-bit mask per warp: set bits leave those lanes of D unwritten"),
        ("enable-input-d", "!p", "predicate: true D = A*B + D, false D = A*B (negated)"),
        ("scale-input-d", "3", "D is scaled by 2^-3 before the add"))
    assert "D * 2^-3" in dict(two.rows)["operation"]


@pytest.mark.parametrize("line, words", [
    ("tcgen05.mma.ws.cta_group::2.kind::f16 [d], ad, bd, id, p;", "cta_group::1 only"),
    ("tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale [d], ad, bd, id, [a], [b], p;",
     "(required)"),
    ("tcgen05.mma.cta_group::1.kind::f16 [d], ad, bd, id, {m0,m1,m2}, p;", "takes 4"),
    ("tcgen05.mma.cta_group::1.kind::f16.ashift [d], ad, bd, id, p;", "[a-tmem]"),
    ("tcgen05.mma.cta_group::1.kind::f16 [d], ad, bd, id, p, 16;", "in [0, 15]"),
    ("tcgen05.cp.cta_group::1.64x128b [t], sd;", ".warpx2::02_13"),
    ("tcgen05.alloc.cta_group::1.sync.aligned.b32 [p], 48;", "32 or 64 or 128 or 256 or 512"),
])
def test_explain_tcgen05_illegal_forms(line: str, words: str) -> None:
    assert words in fails("explain", line)


def test_explain_tcgen05_cp_commit_alloc() -> None:
    text = ok("explain", "tcgen05.cp.cta_group::2.128x128b.b8x16.b6x16_p32 [t], sd;", "--plain")
    assert "operation: copy 128 lanes x 128 bits from shared memory" in text
    assert "16 6-bit elements and 4 bytes of padding" in text
    d = json.loads(ok("explain", "tcgen05.commit.cta_group::1.mbarrier::arrive::one."
                      "multicast::cluster.b64 [mb], mask;", "-f", "json"))["tcgen05"]
    assert [o["name"] for o in d["operands"]] == ["mbar", "ctaMask"] and d["mma"] is None
    assert "relinquish" in ok("explain", "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta."
                              "b32 [p], 512;", "--plain")
    assert "allocate no more" in ok("explain", "tcgen05.relinquish_alloc_permit.cta_group::1."
                                    "sync.aligned;", "--plain")

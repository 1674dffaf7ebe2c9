"""CuTe DSL (pip ``nvidia-cutlass-dsl==4.8.1``) as a second NVIDIA oracle.

The vectors in ``fixtures/cute-dsl/`` were read back from the PTX the DSL generates (the
generator and its command are in that folder; CI does not run it).  Every instruction descriptor
the DSL builds must be descgen's word for the same parameters and decode to them; where the DSL
breaks a rule of the PTX ISA, descgen must say so (the classes are listed in the fixture README).
``descgen lint`` must be clean on the DSL's compiled example GEMMs and catch errors planted in
them at test time.
"""

from __future__ import annotations

import collections
import gzip
import json
import re
from pathlib import Path

import pytest

import descriptors
from descriptors.layout.cute import parse_layout
from descriptors.layout.cute_layout import cute_layout_descriptor
from descriptors.tools.lint import lint_lines

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "cute-dsl"
IDESC = json.loads((FIX / "idesc.json").read_text())["vectors"]
PTX = sorted((FIX / "ptx").glob("*.ptx.gz"))

# the DSL's type names (generate.py) -> PTX's
_TYPE = {"i8": "s8", "u8": "u8", "i32": "s32"}
_SUB_BYTE = {"e2m3", "e3m2", "e2m1"}
_OPS = {"MmaTF32Op", "MmaF16BF16Op", "MmaI8Op", "MmaFP8Op", "MmaF8F6F4Op", "MmaMXF8Op",
        "MmaMXF8F6F4Op", "MmaMXF4Op", "MmaMXF4NVF4Op"}


def _ptx_type(name: str) -> str:
    return _TYPE.get(name, name)


def _context(v: dict) -> tuple[str, dict]:
    """kind and the validation context (cta_group, scale_vec) from the PTX instruction."""
    ins = v["instruction"]
    kind = re.search(r"\.kind::(\w+)", ins).group(1)
    ctx = {"cta_group": int(re.search(r"cta_group::(\d)", ins).group(1))}
    sv = re.search(r"\.(block16|block32)\b", ins)
    if sv:
        ctx["scale_vec"] = sv.group(1)
    return kind, ctx


def _params(v: dict, kind: str) -> dict:
    p = v["dsl"]
    out = dict(kind=kind, a_type=_ptx_type(p["a_type"]), b_type=_ptx_type(p["b_type"]),
               m=p["m"], n=p["n"], a_major=p["a_major"], b_major=p["b_major"],
               negate_a=bool(p.get("negate_a")), negate_b=bool(p.get("negate_b")))
    if kind.startswith("mx"):
        out["scale_type"] = p["sf_type"]
    else:
        out["d_type"] = _ptx_type(p["d_type"])
    if kind == "i8":
        out["saturate"] = True  # the DSL's default for integer MMAs (README class 1)
    return out


def _errors(v: dict) -> list:
    kind, ctx = _context(v)
    return [f for f in descriptors.validate("idesc", int(v["idesc"], 16), kind=kind, **ctx)
            if f.severity == "error"]


def test_idesc_vectors_cover_every_op():
    assert len(IDESC) == 1190
    assert {v["dsl"]["op"] for v in IDESC} == _OPS
    seen = collections.Counter((v["dsl"]["op"], v["dsl"]["cta_group"]) for v in IDESC)
    assert all(seen[(op, cta)] >= 30 for op in _OPS for cta in (1, 2))
    kinds = {_context(v)[0] for v in IDESC}
    assert kinds == {"tf32", "f16", "i8", "f8f6f4", "mxf8f6f4", "mxf4nvf4"}
    assert sum(1 for v in IDESC if v["dsl"]["a_major"] == "MN") >= 50
    assert sum(1 for v in IDESC if v["dsl"].get("negate_b")) >= 30


def test_idesc_encode_gives_the_dsl_word():
    wrong = []
    for v in IDESC:
        kind, ctx = _context(v)
        word = descriptors.encode("idesc", check=False, **_params(v, kind), cta_group=ctx["cta_group"])
        if word != int(v["idesc"], 16):
            wrong.append((v["dsl"], v["idesc"], hex(word)))
    assert wrong == []


def test_idesc_decode_gives_the_dsl_parameters():
    wrong = []
    for v in IDESC:
        kind, _ = _context(v)
        want = _params(v, kind)
        got = descriptors.decode("idesc", int(v["idesc"], 16), kind=kind).values
        diff = {k: (got.get(k), w) for k, w in want.items() if got.get(k) != w}
        if diff:
            wrong.append((v["dsl"], v["idesc"], diff))
    assert wrong == []


def test_idesc_dsl_sets_saturate_on_every_integer_word():
    """README class 1: a different default, legal (Table 42, bit 3: saturate for integer types)."""
    i8 = [v for v in IDESC if v["dsl"]["op"] == "MmaI8Op"]
    assert len(i8) == 122
    assert all(int(v["idesc"], 16) & 0x8 for v in i8)
    assert not any(int(v["idesc"], 16) & 0x8 for v in IDESC if v["dsl"]["op"] != "MmaI8Op")


def _table39_i8_n(cta: int, m: int, n: int) -> bool:
    """Table 39, kind::i8 dense: N = 8, 16, 24, 32, then steps of 16 up to 256 (cta_group::1, M 64
    and 128); N = 32, 64, ... 256 (cta_group::2, M 128 and 256)."""
    if cta == 1:
        return n in (8, 16, 24, 32) or (n % 16 == 0 and 32 < n <= 256)
    return n % 32 == 0 and 32 <= n <= 256


def test_idesc_where_the_dsl_breaks_the_rules_descgen_says_so():
    """Every error descgen finds in a DSL word is one of README classes 2-5, and every word of
    those classes has its error."""
    classes, clean = collections.Counter(), 0
    for v in IDESC:
        p = v["dsl"]
        rules = sorted({f.rule for f in _errors(v)})
        want = []
        if p["op"] == "MmaI8Op" and not _table39_i8_n(p["cta_group"], p["m"], p["n"]):
            want.append("idesc.shape")  # class 2: a shape Table 39 does not list
        if p["op"] == "MmaF16BF16Op" and p["a_type"] == "bf16" and p["d_type"] == "f16":
            want.append("idesc.type_combination")  # class 3: bf16 inputs, f16 accumulator
        if p["op"] == "MmaI8Op" and (p.get("negate_a") or p.get("negate_b")):
            want.append("idesc.negate")  # class 4: Table 49, no negation for kind::i8
        if any(p[f"{x}_major"] == "MN" and p[f"{x}_type"] in _SUB_BYTE for x in "ab"):
            want.append("idesc.transpose")  # class 5: Table 52, 4/6-bit operands are K-major
        assert rules == sorted(want), (p, v["idesc"], rules)
        classes.update(want)
        clean += not rules
    assert classes == {"idesc.shape": 44, "idesc.type_combination": 14, "idesc.negate": 12,
                       "idesc.transpose": 78}
    assert clean == 1190 - 148


def test_idesc_mxf4_op_emits_kind_mxf4nvf4_block32():
    """README note 6: MmaMXF4Op (UE8M0 scales) is emitted as kind::mxf4nvf4 with block32."""
    mxf4 = [v for v in IDESC if v["dsl"]["op"] == "MmaMXF4Op"]
    assert mxf4 and {_context(v)[0] for v in mxf4} == {"mxf4nvf4"}
    assert {_context(v)[1]["scale_vec"] for v in mxf4} == {"block32"}


# --------------------------------------------------------------------------------------------
# lint on the DSL's compiled example GEMMs
# --------------------------------------------------------------------------------------------

_IDESC_N = 0x3F << 17
_SMEM_HIGH = 0x4000404000010000  # the constant upper half of the DSL's smem descriptors


def _ptx(path: Path) -> str:
    return gzip.decompress(path.read_bytes()).decode()


def _lint(text: str, name: str) -> collections.Counter:
    return collections.Counter((f.severity, f.rule, f.operand)
                               for f in lint_lines(text.splitlines(), file=name)
                               if f.severity != "note")


def _mmas(text: str) -> int:
    return len(re.findall(r"^\s*tcgen05\.mma\.", text, re.M))


def _illegal_n(text: str) -> str:
    """N=264 (field 33; Table 39 stops at 256) in both alternatives of every ``selp.b32`` that
    chooses between two instruction descriptors (the DSL selects negate A at run time)."""
    def sub(m: re.Match) -> str:
        a, b = int(m.group(2)), int(m.group(3))
        if a >> 24 and b >> 24:  # both M fields set: an idesc pair, not a 0/1 or a mask
            a, b = ((x & ~_IDESC_N) | (33 << 17) for x in (a, b))
        return f"{m.group(1)}{a}, {b},"
    out, n = re.subn(r"(selp\.b32\s+%r\d+,\s*)(\d+),\s*(\d+),", sub, text)
    assert out != text
    return out


def _version_bit_cleared(text: str) -> str:
    """Bit 46 (Table 40's fixed 0b001 at 46-48) cleared in the ``or.b64`` constant of every
    shared memory descriptor's upper half."""
    out = text.replace(f", {_SMEM_HIGH};", f", {_SMEM_HIGH & ~(1 << 46)};")
    assert out != text
    return out


@pytest.mark.parametrize("path", PTX, ids=lambda p: p.name.split(".")[0])
def test_lint_dsl_ptx(path: Path):
    text = _ptx(path)
    n = _mmas(text)
    assert n in (4, 8)
    assert _lint(text, path.name) == {}
    assert _lint(_illegal_n(text), path.name) == {("error", "idesc.shape", "idesc"): n}
    assert _lint(_version_bit_cleared(text), path.name) == {
        ("error", "smem.reserved", "a_desc"): n, ("error", "smem.reserved", "b_desc"): n}


def test_dsl_ptx_fixtures_are_the_examples():
    names = {p.name.split(".")[0] for p in PTX}
    assert names == {"dense_f16_1cta_128x256", "dense_bf16_2cta_256x256",
                     "dense_tf32_1cta_128x128", "dense_e4m3_2cta_256x128",
                     "dense_i8_1cta_128x128", "blockscaled_mxf8_e4m3_1cta_128x128",
                     "blockscaled_nvf4_2cta_256x256"}


# --------------------------------------------------------------------------------------------
# shared memory descriptors, from the DSL's own prints
# --------------------------------------------------------------------------------------------

SMEM = json.loads((FIX / "smem.json").read_text())["vectors"]
_SMEM_KIND = {"MmaTF32Op": "tf32", "MmaF16BF16Op": "f16", "MmaI8Op": "i8", "MmaFP8Op": "f8f6f4",
              "MmaF8F6F4Op": "f8f6f4"}
_REPEAT = {"INTER": None, "SW32": 256, "SW64": 512, "SW128": 1024, "SW128_32B": 1024}


def _smem_class(v: dict) -> str | None:
    """Where the DSL lays out what the PTX ISA does not allow, the refusal descgen must give."""
    atom = v["atom"].split("_", 1)[1]
    if v["major"] == "MN" and v["dtype"] == "tf32" and atom != "SW128_32B":
        return "Table 52"   # tf32 MN-major: only 128B swizzling with 32B atomicity
    if v["major"] == "MN" and v["dtype"] != "tf32" and atom == "SW128_32B":
        return "Table 52"   # 8- and 16-bit MN-major: every swizzle but 128B_base32B
    if v["dtype"] == "e2m1":
        return "9.7.16.10.4"  # kind::f8f6f4 keeps 4-bit elements padded; the DSL's are packed
    return None


def test_smem_vectors_cover_atoms_majors_dtypes():
    assert len(SMEM) == 392
    assert {v["dtype"] for v in SMEM} == {"tf32", "f16", "bf16", "e4m3", "e5m2", "i8", "e2m1"}
    atoms = {(v["major"], v["atom"]) for v in SMEM}
    assert {a for _, a in atoms} == {"K_INTER", "K_SW32", "K_SW64", "K_SW128", "MN_INTER",
                                     "MN_SW32", "MN_SW64", "MN_SW128", "MN_SW128_32B"}
    assert all(int(v["smem_desc"], 16) >> 49 & 7 == 0 for v in SMEM)  # base offset 0, always
    off = [v for v in SMEM if _REPEAT[v["atom"].split("_", 1)[1]]
           and v["slice_address"] % _REPEAT[v["atom"].split("_", 1)[1]]]
    assert len(off) == 137     # slices that start inside the swizzle pattern


def test_smem_dsl_slice_print_gives_the_dsl_word():
    """The DSL's print of each per-MMA slice, with the slice's address, reads to the DSL's word
    (the swizzle on the DSL's pointer acts on absolute byte addresses: base offset 0), or to the
    refusal of the rule the DSL breaks."""
    got = collections.Counter()
    for v in SMEM:
        want = _smem_class(v)
        kind = _SMEM_KIND[v["dsl"]["op"]]
        if want is None:
            r = cute_layout_descriptor(v["print"]["slice"], major=v["major"],
                                       start_address=v["slice_address"], kind=kind)
            assert r.word == int(v["smem_desc"], 16), (v["print"]["slice"], v["smem_desc"])
            assert r.dtype == _ptx_type(v["dtype"]) and r.base_offset == 0
            got["agree"] += 1
        else:
            with pytest.raises(descriptors.LayoutError, match=re.escape(want)):
                cute_layout_descriptor(v["print"]["slice"], major=v["major"],
                                       start_address=v["slice_address"], kind=kind)
            got[want] += 1
    assert got == {"agree": 310, "Table 52": 54, "9.7.16.10.4": 28}


def test_smem_dsl_staged_prints_give_each_k_step():
    """The whole staged tensor (and the staged composed layout, with the type given) at the
    tensor's address lists the K steps of stage 0: the K block's step is the DSL's word."""
    n = 0
    for v in SMEM:
        if v["stage"] != 0 or _smem_class(v):
            continue
        kind = _SMEM_KIND[v["dsl"]["op"]]
        for text, dtype in ((v["print"]["tensor"], None),
                            (v["print"]["staged_layout"], _ptx_type(v["dtype"]))):
            r = cute_layout_descriptor(text, dtype=dtype, major=v["major"],
                                       start_address=v["tensor_address"], kind=kind)
            assert r.k_steps[v["k_block"]].word == int(v["smem_desc"], 16), text
            n += 1
    assert n == 2 * 132


def test_dsl_prints_parse_and_print_back():
    for v in SMEM:
        for key in ("atom", "staged_layout", "tensor", "slice"):
            assert str(parse_layout(v["print"][key])) == v["print"][key]


def test_dsl_print_needs_an_address():
    v = next(x for x in SMEM if x["dtype"] == "bf16" and x["atom"] == "K_SW128")
    with pytest.raises(descriptors.ParameterError, match="prints no address"):
        cute_layout_descriptor(v["print"]["slice"], major="K")
    with pytest.raises(descriptors.ParameterError, match="contradicts"):
        cute_layout_descriptor(v["print"]["slice"], dtype="f16", major="K", start_address=0x3020)
    with pytest.raises(descriptors.ParameterError, match="names no element type"):
        cute_layout_descriptor("((128,16)):((64,1))", major="K", start_address=0)


@pytest.mark.parametrize("text", [
    "tensor<ptr<bf17, smem, align<32>> o ((128,16)):((64,1))>",
    "tensor<ptr<bf16, smem, align<32>, T<3,4,3>> o ((128,16)):((64,1))>",
    "tensor<ptr<bf16, smem, align<32>> o ((128,16)):((64,1)>",
    "tensor<bf16 o (1):(1)>",
    "S<3,4,3> o (8,64):(64,1)",
    "S<3,4,3> o x o (8,64):(64,1)",
])
def test_dsl_print_syntax_errors_are_clear(text):
    with pytest.raises(descriptors.LayoutError) as e:
        parse_layout(text)
    assert isinstance(e.value, descriptors.ParameterError) and "Traceback" not in str(e.value)


def test_cli_layout_cute_reads_a_dsl_print():
    from typer.testing import CliRunner

    from cli.main import app
    text = "tensor<ptr<bf16, smem, align<32>, S<3,4,3>> o ((128,16)):((64,1))>"
    ok = CliRunner().invoke(app, ["layout", "--cute", text, "--major", "K",
                                  "--start-address", "0x3020", "--format", "hex"])
    assert ok.exit_code == 0 and ok.output.strip() == "0x4000404000010302"
    bad = CliRunner().invoke(app, ["layout", "--cute", text, "--major", "K"])
    assert bad.exit_code != 0 and "prints no address" in bad.output
    assert bad.exception is None or isinstance(bad.exception, SystemExit)


# --------------------------------------------------------------------------------------------
# the DSL's experimental descriptor builders (cutlass.experimental.primitives)
# --------------------------------------------------------------------------------------------

EXPERIMENTAL = [v for v in json.loads((FIX / "experimental.json").read_text())["vectors"]
                if v["builder"] != "Tcgen05SmemDesc"]
X_SMEM = [v for v in json.loads((FIX / "experimental.json").read_text())["vectors"]
          if v["builder"] == "Tcgen05SmemDesc"]


def _x_params(v: dict) -> tuple[dict, dict, dict]:
    kind, m = v["kind"], v["m_dim"]
    p = dict(kind=kind, a_type=_ptx_type(v["a_dtype"]), b_type=_ptx_type(v["b_dtype"]), m=m,
             n=v["n_dim"], a_major="MN" if v.get("a_major") else "K",
             b_major="MN" if v.get("b_major") else "K", negate_a=bool(v.get("a_negate")),
             negate_b=bool(v.get("b_negate")))
    ctx = {"cta_group": 2 if m == 256 else 1}
    vctx = dict(ctx)
    if kind.startswith("mx"):
        p.update(scale_type={1: "ue8m0", 0: "ue4m3"}[v["scale_format"]],
                 a_scale_id=v["a_sf_id"], b_scale_id=v["b_sf_id"])
        vctx["scale_vec"] = "block16" if p["scale_type"] == "ue4m3" else "block32"
    else:
        p["d_type"] = _ptx_type(v["c_dtype"])
    return p, ctx, vctx


def test_experimental_builders():
    """Tcgen05InstrDesc, Tcgen05MxInstrDesc and Tcgen05MxOmmaInstrDesc build descgen's words,
    except Tcgen05MxOmmaInstrDesc's default sparsity_version=1, which sets bit 12: reserved in
    Table 44 (README class 8).  The builders check none of Table 39/44/49/50's rules; descgen
    flags what they let through (classes 9-11)."""
    got = collections.Counter()
    for v in EXPERIMENTAL:
        p, ctx, vctx = _x_params(v)
        word = int(v["idesc"], 16)
        rules = sorted({f.rule for f in descriptors.validate("idesc", word, kind=v["kind"], **vctx)
                        if f.severity == "error"})
        want = []
        if v.get("sparsity_version"):
            want.append("idesc.reserved")
            assert word == descriptors.encode("idesc", check=False, **p, **ctx) | 1 << 12
        else:
            assert word == descriptors.encode("idesc", check=False, **p, **ctx), v
        if v["kind"] == "i8" and (v["a_negate"] or v["b_negate"]):
            want.append("idesc.negate")
        if v.get("b_major") and v["b_dtype"] in ("e4m3", "e5m2", "i8", "u8") and v["n_dim"] % 16:
            want.append("idesc.transpose_b_8bit_n")    # Table 50
        if v["kind"] == "mxf4nvf4" and v["scale_format"] == 0 and v["a_sf_id"]:
            want.append("idesc.scale_id_4x")           # Table 44: IDs 0 under scale_vec::4X
        assert rules == sorted(want), (v, rules)
        got[v["builder"]] += 1
        got.update(want)
    assert got == {"Tcgen05InstrDesc": 192, "Tcgen05MxInstrDesc": 90,
                   "Tcgen05MxOmmaInstrDesc": 24, "idesc.reserved": 12, "idesc.negate": 12,
                   "idesc.transpose_b_8bit_n": 4, "idesc.scale_id_4x": 6}


def test_experimental_smem_builder():
    """Tcgen05SmemDesc.build (compiled; the NVVM op folds to a constant): descgen's word for the
    same fields; the version and leading-dimension mode it accepts are flagged where Table 40
    (bits 46-48 are 0b001) and 9.7.16.3.1.2 (absolute LBO: sm_103a only) forbid them."""
    codes = {0: "none", 1: "128B_base32B", 2: "128B", 4: "64B", 6: "32B"}
    got = collections.Counter()
    for v in X_SMEM:
        word = int(v["smem_desc"], 16)
        mode = v.get("leading_dim_mode", 0)
        mine = descriptors.encode(
            "smem", check=False, start_address=v["start_address"], leading_byte_offset=v["leading_byte_offset"],
            stride_byte_offset=v["stride_byte_offset"], swizzle=codes[v["layout"]],
            base_offset=v.get("base_offset", 0), lbo_mode="absolute" if mode else "relative")
        version = v.get("version", 1)
        assert word == (mine & ~(7 << 46)) | version << 46, v
        rules = [f.rule for f in descriptors.validate("smem", word) if f.severity == "error"]
        if version != 1:
            assert rules == ["smem.reserved"], v
        elif mode:
            assert rules == ["smem.lbo_absolute"], v
            assert not [f for f in descriptors.validate("smem", word, arch="sm_103a")
                        if f.severity == "error"]
        else:
            assert rules == [], v
        got["version" if version != 1 else "absolute" if mode else "agree"] += 1
    assert got == {"agree": 32, "version": 3, "absolute": 1}

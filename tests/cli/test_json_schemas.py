"""Every ``--format json`` output of every command (and mode) validates against the JSON Schema
the package ships for it (``descriptors/schemas``, :func:`descriptors.tools.output.json_schema`)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

jsonschema = pytest.importorskip("jsonschema", reason="jsonschema (the test extra) validates the schemas")

from descriptors.tools.output import JSON_SCHEMAS, json_schema  # noqa: E402

from helpers import run  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "fixtures"
STMATRIX = "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [p], {r0,r1,r2,r3};"
CUTE = "Sw<3,4,3>_smem_ptr[16b](0x400) o ((_128,_16),_1,_4):((_64,_1),_0,_16)"
TILE = ("--major", "K", "--swizzle", "128B", "--a-type", "bf16", "--tile", "128x64")

#: (schema, command line, exit code): every command and mode that prints JSON.
CASES = [
    ("word", ["idesc", "--kind", "f16", "--a-type", "bf16", "--b-type", "bf16", "-m", "128",
              "-n", "256", "--negate-a"], 0),
    ("word", ["idesc", "--kind", "mxf4nvf4", "--a-type", "e2m1", "--b-type", "e2m1",
              "--scale-type", "ue4m3", "-m", "128", "-n", "256"], 0),
    ("word", ["smem", "--swizzle", "128B", "--lbo", "16", "--sbo", "1024"], 0),
    ("word", ["zcm", "--start-count", "1,2", "--first-span", "0,1"], 0),
    ("word", ["zcm", "--conv", "20,1,1", "-m", "128", "-n", "128"], 0),
    ("word", ["tmem", "--lane", "32", "--column", "16", "--alloc", "128"], 0),
    ("zcm-show", ["zcm", "--skip-span", "2", "--use-span", "3", "-m", "64", "-n", "64", "--show"], 0),
    ("tmem-footprint", ["tmem", "--ld", "32x32b.x8", "--warp", "1", "--taddr", "0x00200040",
                        "--alloc", "128"], 0),
    ("tmem-footprint", ["tmem", "--st", "16x32bx2.x2", "--imm-half-splitoff", "4"], 0),
    ("tmem-datapath", ["tmem", "--datapath", "128", "--cta-group", "2", "--sparse"], 0),
    ("decode", ["decode", "0x08400490", "--as", "idesc", "--kind", "f16"], 0),
    ("decode", ["decode", "0x4000404000010000", "--as", "smem"], 0),
    ("decode", ["decode", "0x10200010", "--as", "idesc"], 0),  # no --kind: every reading
    ("check", ["check", "0x08400491", "--as", "idesc", "--kind", "mxf8f6f4"], 1),
    ("check", ["check", "--as", "smem", "-p", "swizzle=128B", "-p", "start_address=0x608"], 1),
    ("check", ["check", "--idesc", "0x08408910", "--kind", "tf32", "--a-desc",
               "0x4000404000010000"], 1),
    ("batch", ["batch", str(FIX / "real-world.toml")], 0),
    ("diff", ["diff", "0x08400490", "0x10400490", "--as", "idesc", "--kind", "f16"], 1),
    ("diff", ["diff", "0x4000404000010000", "0x4000404000010000", "--as", "smem"], 0),
    ("diff", ["diff", "0x08400490", "0x08400491", "--as", "idesc", "--kind", "mxf8f6f4"], 1),
    ("layout", ["layout", *TILE], 0),
    ("layout", ["layout", *TILE, "--k-steps", "--kind", "f16"], 0),
    ("layout", ["layout", "--explain", "0x4000404000010000", "--major", "K", "--a-type", "bf16"], 0),
    ("layout", ["layout", "--cute", CUTE, "--a-type", "bf16", "--major", "K"], 0),
    ("dump", ["dump", str(FIX / "dumps" / "cuda-gdb-info-registers.txt")], 0),
    ("dump", ["dump", str(FIX / "dumps" / "cuobjdump-sass.txt")], 0),
    ("dump", ["dump", str(FIX / "dumps" / "cuobjdump-sass.txt"),  # several: {"inputs": [...]}
              str(FIX / "lint" / "bad_reserved.ptx")], 0),
    # sm_90a: wgmma words (HGMMA evidence; PTX wgmma.mma_async)
    ("dump", ["dump", str(FIX / "hopper" / "compiled" / "hand_wgmma.sass.gz")], 0),
    ("dump", ["dump", str(FIX / "hopper" / "compiled" / "hand_wgmma.ptx.gz")], 0),
    ("lint", ["lint", str(FIX / "lint" / "candidates.ptx")], 1),
    ("lint", ["lint", str(FIX / "lint" / "bad_dense_sp.sass")], 0),
    ("explain", ["explain", STMATRIX], 0),
    ("explain", ["explain", "stmatrix.sync.aligned.m16n8.x1.trans.b8 [p], {r0};"], 0),
    ("explain", ["explain", "tcgen05.ld.sync.aligned.16x32bx2.x4.b32 {r0,r1,r2,r3}, [t], 64;"], 0),
    ("explain", ["explain", "wmma.load.a.sync.aligned.row.m16n16k16.f16 "
                            "{r0,r1,r2,r3,r4,r5,r6,r7}, [p];"], 0),
    ("explain", ["explain", "wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.bf16.bf16 "
                            "{f0,f1,f2,f3}, {a0,a1,a2,a3}, db, meta, 1, p, 1, -1, 1;"], 0),
    ("explain", ["explain", "tcgen05.mma.cta_group::1.kind::f16 [d], ad, bd, id, p;"], 0),
    ("explain", ["explain", "tcgen05.mma.sp.cta_group::2.kind::mxf4nvf4.block_scale.block16 "
                            "[d], [a], bd, [m], id, [sa], [sb], p;"], 0),
    ("explain", ["explain", "tcgen05.mma.ws.cta_group::1.kind::i8.collector::b1::use "
                            "[d], ad, bd, id, p, z;"], 0),
    ("explain", ["explain", "tcgen05.cp.cta_group::1.32x128b.warpx4.b8x16.b6x16_p32 [t], sd;"], 0),
    ("explain", ["explain", "tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64 [mb];"], 0),
    ("explain", ["explain", "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;"], 0),
    ("rules", ["rules"], 0),
    ("rules", ["rules", "tmem.ld."], 0),
    # the sm_90a wgmma word through the word commands
    ("word", ["smem", "--arch", "sm_90a", "--swizzle", "128B", "--sbo", "1024"], 0),
    ("decode", ["decode", "0x4000004000010040", "--as", "wgmma"], 0),
    ("decode", ["decode", "0x4000004000010040", "--arch", "sm_90a"], 0),
    ("diff", ["diff", "0x4000004000010040", "0x4000004000010080", "--as", "wgmma"], 1),
    ("check", ["check", "0x4000004000010040", "--as", "wgmma"], 0),
]

CUTE_SLICE = "Sw<3,4,3>_smem_ptr[16b](0x400) o (_128,_16):(_64,_1)"
K_BF16 = ("--major", "K", "--a-type", "bf16")
#: Each arch's word of CUTE_SLICE (what ``layout --cute CUTE_SLICE`` gives), and its --explain word.
ARCH_WORDS = {"sm_100a": ("0x4000404000010040", "0x4000404000010000"),
              "sm_90a": ("0x4000004000010040", "0x4000002000010040")}

# every way into layout and check --cute, on each arch: one document shape per way, whatever
# the arch (sm_90a's wgmma word in sm_100a's document)
for _arch, (_word, _explained) in ARCH_WORDS.items():
    _a = ["--arch", _arch]
    CASES += [
        ("layout", ["layout", *TILE, *_a], 0),
        ("layout", ["layout", *TILE, "--k-steps", *_a], 0),
        ("layout", ["layout", "--major", "MN", "--swizzle", "64B", "--a-type", "f16", "--tile",
                    "64x32", "--tile-order", "k_first", "--k-steps", *_a], 0),
        ("layout", ["layout", "--cute", CUTE_SLICE, *K_BF16, *_a], 0),
        ("layout", ["layout", "--cute", CUTE_SLICE, *K_BF16, "--k-steps", *_a], 0),
        ("layout", ["layout", "--cute", CUTE, *K_BF16, *_a], 0),
        ("layout", ["layout", "--explain", _explained, *K_BF16, *_a], 0),
        ("layout", ["layout", "--explain", _explained, *K_BF16, "--tile", "128x16", *_a], 0),
        ("check", ["check", _word, "--cute", CUTE_SLICE, *K_BF16, *_a], 0),
        ("check", ["check", _word, "--cute", CUTE_SLICE.replace("0x400", "0x480"), *K_BF16,
                   *_a], 1),
    ]


def _validator(name: str):
    schema = json_schema(name)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def _json(args: list[str], code: int):
    result = run(*args, "--format", "json")
    assert result.exit_code == code, (result.stdout, result.stderr)
    return json.loads(result.stdout)


@pytest.mark.parametrize("schema, args, code", CASES, ids=[" ".join(c[1][:2]) + f" #{i}"
                                                            for i, c in enumerate(CASES)])
def test_json_output_matches_its_schema(schema, args, code):
    errors = list(_validator(schema).iter_errors(_json(args, code)))
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors[:5]]


def test_every_schema_is_shipped_and_used():
    shipped = {p.name.removesuffix(".schema.json") for p in (ROOT / "descriptors" / "schemas").glob("*.json")}
    assert shipped == set(JSON_SCHEMAS) == {c[0] for c in CASES}
    assert "schemas/*.schema.json" in (ROOT / "pyproject.toml").read_text()


def test_a_wrong_shape_is_rejected():
    """The schemas are tight: a missing key, an extra key, a number as text, a boolean as a
    number and an unknown severity are each an error."""
    good = _json(CASES[0][1], 0)
    word = _validator("word")
    assert word.is_valid(good)
    broken = []
    for change in (lambda d: d.pop("fields"), lambda d: d.update(extra=1),
                   lambda d: d["fields"].update(m_dim="8"), lambda d: d.update(valid=1),
                   lambda d: d.update(word=int(d["word"], 16)),
                   lambda d: d["findings"].append({"severity": "fatal", "rule": "r", "message": "m",
                                                   "source": "s", "field": None, "bits": None,
                                                   "value": None})):
        doc = copy.deepcopy(good)
        change(doc)
        broken.append(word.is_valid(doc))
    assert broken == [False] * 6
    check = _json(CASES[13][1], 1)
    del check["findings"][0]["rule"]
    assert not _validator("check").is_valid(check)


def test_the_schemas_name_every_descriptor_the_package_has():
    """Every ``descriptor`` enum of the word schemas is the package's list of descriptors (the
    sm_90a ``wgmma`` word included), so a new word cannot be left out of a schema."""
    from descriptors import DESCRIPTORS

    def enums(node, key=None):
        if isinstance(node, dict):
            for k, v in node.items():
                if k == "descriptor" and isinstance(v, dict) and "enum" in v:
                    yield v["enum"]
                yield from enums(v, k)
        elif isinstance(node, list):
            for v in node:
                yield from enums(v)

    for name in ("word", "decode", "diff"):
        found = list(enums(json_schema(name)))
        assert found and all(sorted(e) == sorted(DESCRIPTORS) for e in found), (name, found)


@pytest.mark.parametrize("args", [[*TILE], [*TILE, "--k-steps"], ["--cute", CUTE, *K_BF16],
                                  ["--cute", CUTE_SLICE, *K_BF16, "--k-steps"]])
def test_sm90_layout_json_is_sm100s_document_with_the_wgmma_word(args):
    """``layout --arch sm_90a -f json`` is sm_100a's document (the same keys, K steps included)
    with the wgmma word: its word and K steps' words are what ``--format hex`` prints."""
    sm100 = _json(["layout", *args], 0)
    sm90 = _json(["layout", *args, "--arch", "sm_90a"], 0)
    assert sorted(sm90) == sorted(sm100) and "arch" not in sm90
    assert (sm90["descriptor"], sm100["descriptor"]) == ("wgmma", "smem")
    hexes = run("layout", *args, "--arch", "sm_90a", "--format", "hex").stdout.split()
    assert [s["word"] for s in sm90.get("k_steps") or [sm90]] == hexes
    assert sm90["fields"]["swizzle"] == 1  # wgmma's code of 128B (tcgen05's is 2)
    if "swizzle_code" in sm90:
        assert (sm90["swizzle_code"], sm100["swizzle_code"]) == (1, 2)
    assert len(sm90.get("k_steps") or []) == len(sm100.get("k_steps") or [])

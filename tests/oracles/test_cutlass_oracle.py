"""CUTLASS oracle: our encoders against NVIDIA's own descriptor definitions, bit for bit.

A small C++ program (``tests/oracles/cpp/cutlass_oracle.cpp`` plus a generated
``oracle_cases.inc``) is compiled once per session against the headers shipped in the PyPI
wheel ``nvidia-cutlass==4.2.0.0`` (``cutlass_library/source/include``, found without importing
``cutlass_library``).  Every word it prints is built by CUTLASS's
``cute/arch/mma_sm100_desc.hpp``:

* template-generated instruction descriptors (``make_instr_desc``,
  ``make_runtime_instr_desc``, ``make_instr_desc_block_scaled``,
  ``make_runtime_instr_desc_block_scaled``) over every kind, every A/B/D (and scale) type
  combination and a spread of shapes, majors, negation, saturation, sparsity, max shift and
  scale-factor IDs -- compared with ``descriptors.encode("idesc", check=False, ...)``;
* CUTLASS's enums and C++-type -> code mappings (``to_UMMAFormat`` ...) -- compared with our
  per-kind type tables;
* the bulk (thousands of words): raw field values read from stdin and assigned to CUTLASS's
  union bitfields (``InstrDescriptor``, ``InstrDescriptorBlockScaled``, ``SmemDescriptor``,
  ``MaskAndShiftB``) at run time -- compared with our ``encode`` / ``encode_raw``.

Where CUTLASS and PTX disagree, PTX wins (README, "Where PTX, CUTLASS and practice disagree"); each such
documented difference has its own explicit test below (``test_difference_*``), which asserts
the difference exactly as documented, so a change on either side makes it fail:

* block-scaled M: PTX bits 27-28 = M >> 7 (24-26 reserved), CUTLASS bits 24-28 = M >> 4;
* block-scaled bits 0-1: reserved in PTX, CUTLASS's sparse_id2_;
* bit 31: reserved in Table 43, k_dim (K = 96) in Table 44, CUTLASS's k_size_ in both;
* ZCM bit 39: CUTLASS's nzm_ comment inverts PTX's meaning; position and code agree;
* (found by this oracle) Table 44's B type is 2 bits with bit 12 reserved,
  CUTLASS's b_format_ is 3 bits.

The test is skipped (with the reason) when no C++ compiler, no CUDA include directory, or no
CUTLASS wheel headers are found; when they are found, a compile error is a failure.
"""

from __future__ import annotations

import itertools
import random
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from cutlass_env import CUTLASS_VERSION, build_oracle

import descriptors
from descriptors import KINDS, LAYOUTS, FieldError, ParameterError, decode, encode_raw
from descriptors.words.codec import encode  # the packing: CUTLASS builds words the rules refuse
from descriptors.words.enums import MAJOR, MAX_SHIFT, SWIZZLE

HERE = Path(__file__).resolve().parent
ORACLE_SRC = HERE / "cpp" / "cutlass_oracle.cpp"
DESC_HEADER = Path("cute") / "arch" / "mma_sm100_desc.hpp"


# ---------------------------------------------------------------------------- environment


# ---------------------------------------------------------------------------- C++ spellings

#: Our A/B type name -> the C++ type CUTLASS's make_instr_desc* takes, per kind.  FP6/FP4 in
#: kind::f8f6f4 / mxf8f6f4 are CUTLASS's "unpacksmem" types; plain float_e2m1_t is kind::mxf4.
_F8F6F4_CPP = {"e4m3": "float_e4m3_t", "e5m2": "float_e5m2_t",
               "e2m3": "detail::float_e2m3_unpacksmem_t", "e3m2": "detail::float_e3m2_unpacksmem_t",
               "e2m1": "detail::float_e2m1_unpacksmem_t"}
CPP_AB: dict[str, dict[str, str]] = {
    "tf32": {"tf32": "tfloat32_t"},
    "f16": {"f16": "half_t", "bf16": "bfloat16_t"},
    "f8f6f4": _F8F6F4_CPP,
    "i8": {"u8": "uint8_t", "s8": "int8_t"},
    "mxf8f6f4": _F8F6F4_CPP,
    "mxf4": {"e2m1": "float_e2m1_t"},
    "mxf4nvf4": {"e2m1": "float_e2m1_t"},
}
CPP_D = {"f16": "half_t", "f32": "float", "s32": "int32_t"}
CPP_SF = {"ue8m0": "float_ue8m0_t", "ue4m3": "float_ue4m3_t"}
CPP_MAX_SHIFT = {0: "NoShift", 8: "MaxShift8", 16: "MaxShift16", 32: "MaxShift32"}
#: A/B types that may be MN-major (Table 42 note; CUTLASS's a_major_ comment): no FP6/FP4.
MN_OK = {"tf32", "f16", "bf16", "u8", "s8", "e4m3", "e5m2"}

#: CUTLASS's enum -> the kinds whose type table holds its names (name lookup is ours).
ENUM_TABLES = {
    "F16F32Format": [("f16", "ab"), ("tf32", "ab")],
    "S8Format": [("i8", "ab")],
    "MXF8F6F4Format": [("f8f6f4", "ab"), ("mxf8f6f4", "ab")],
    "MXF4Format": [("mxf4", "ab"), ("mxf4nvf4", "ab")],
    "ScaleFormat": [("mxf4nvf4", "scale"), ("mxf8f6f4", "scale"), ("mxf4", "scale")],
    "CFormat": [("f16", "d"), ("f8f6f4", "d"), ("i8", "d"), ("tf32", "d")],
}


def _table(kind: str, which: str) -> Any:
    k = KINDS[kind]
    return {"ab": k.ab_types, "d": k.d_types, "scale": k.scale_types}[which]


# ---------------------------------------------------------------------------- case generation


@dataclass
class TemplateCase:
    """One word from a CUTLASS make_* template: our encode parameters and the C++ expression."""

    id: int
    api: str
    params: dict[str, Any]
    cpp: str

    def __str__(self) -> str:
        p = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"#{self.id} {self.api}: encode('idesc', {p})"


def _major(x: str) -> str:
    return f"UMMA::Major::{x}"


def _neg(b: bool) -> str:
    return "UMMA::ScaleIn::Neg" if b else "UMMA::ScaleIn::One"


def _cbool(b: bool) -> str:
    return "true" if b else "false"


def _generate_template_cases() -> list[TemplateCase]:
    """Every kind x every A/B(/D/scale) type combination, each with several random draws of
    M (kind's legal set, plus M=32 .ws for Table 42), N, majors, negation, saturation (i8),
    sparsity (+ selector), max shift (.ws shapes) and scale IDs (block-scaled)."""
    rng = random.Random(0x7C605)
    ids = itertools.count()
    cases: list[TemplateCase] = []
    for kind in KINDS.values():
        ab = CPP_AB[kind.name]
        d_names = kind.d_types.names if kind.d_types is not None else ("f32",)
        sf_names = kind.scale_types.names if kind.scale_types is not None else (None,)
        combos = list(itertools.product(kind.ab_types.names, kind.ab_types.names, d_names, sf_names))
        per = max(4, -(-48 // len(combos)))
        for a, b, d, sf in combos:
            for _ in range(per):
                am = rng.choice(("K", "MN")) if a in MN_OK and kind.name not in ("mxf4", "mxf4nvf4") else "K"
                bm = rng.choice(("K", "MN")) if b in MN_OK and kind.name not in ("mxf4", "mxf4nvf4") else "K"
                na, nb = (False, False) if kind.name == "i8" else (rng.random() < .5, rng.random() < .5)
                sparse = rng.random() < .4
                p: dict[str, Any] = {"kind": kind.name, "a_type": a, "b_type": b}
                if not kind.block_scaled:
                    m = rng.choice((32, 64, 128, 256))
                    ws = m == 32 or (m != 256 and rng.random() < .35)
                    n = rng.choice((64, 128, 256) if ws else
                                   range(8, 257, 8) if m == 64 else range(16, 257, 16))
                    shift = rng.choice((0, 8, 16, 32)) if ws else 0
                    sat = kind.name == "i8" and rng.random() < .5
                    sel = rng.randrange(4) if sparse else 0
                    p.update(d_type=d, m=m, n=n, a_major=am, b_major=bm, negate_a=na, negate_b=nb,
                             saturate=sat, sparse=sparse, sparsity_selector=sel, max_shift=shift)
                    args = (f"{ab[a]}, {ab[b]}, {CPP_D[d]}, {m}, {n}, {_major(am)}, {_major(bm)}, "
                            f"{_neg(na)}, {_neg(nb)}, UMMA::Saturate::{'True' if sat else 'False'}, "
                            f"{_cbool(sparse)}, UMMA::MaxShift::{CPP_MAX_SHIFT[shift]}")
                    if sparse:
                        cases.append(TemplateCase(next(ids), "make_runtime_instr_desc(sparse_id2) >> 32", p,
                                                  f"UMMA::make_runtime_instr_desc<{args}>({sel}u) >> 32"))
                    else:
                        cases.append(TemplateCase(next(ids), "make_instr_desc", p,
                                                  f"uint32_t(UMMA::make_instr_desc<{args}>())"))
                else:
                    m = rng.choice((128, 256))
                    n = rng.choice(range(8, 257, 8) if m == 128 else range(16, 257, 16))
                    ids_ok = (0, 1, 2, 3) if kind.name == "mxf8f6f4" else (0, 2)
                    a_id, b_id = rng.choice(ids_ok), rng.choice(ids_ok)
                    p.update(m=m, n=n, a_major=am, b_major=bm, negate_a=na, negate_b=nb,
                             sparse=sparse, scale_type=sf)
                    args = (f"{ab[a]}, {ab[b]}, float, {CPP_SF[sf]}, {m}, {n}, {_major(am)}, "
                            f"{_major(bm)}, {_neg(na)}, {_neg(nb)}, {_cbool(sparse)}")
                    cases.append(TemplateCase(next(ids), "make_instr_desc_block_scaled", dict(p),
                                              f"uint32_t(UMMA::make_instr_desc_block_scaled<{args}>())"))
                    # Scale IDs come from bits 31:30 of the scale factors' TMEM addresses; the
                    # lane/column bits below must not leak into the descriptor.
                    sfa = (a_id << 30) | (rng.randrange(128) << 16) | rng.randrange(512)
                    sfb = (b_id << 30) | (rng.randrange(128) << 16) | rng.randrange(512)
                    p.update(a_scale_id=a_id, b_scale_id=b_id)
                    cases.append(TemplateCase(
                        next(ids), f"make_runtime_instr_desc_block_scaled({sfa:#x}, {sfb:#x}) >> 32", p,
                        f"UMMA::make_runtime_instr_desc_block_scaled<{args}>({sfa:#x}u, {sfb:#x}u) >> 32"))
    return cases


_E4M3 = "float_e4m3_t, float_e4m3_t, float, float_ue8m0_t"
_E2M1_NV = "float_e2m1_t, float_e2m1_t, float, float_ue4m3_t"
_E2M1_MX = "float_e2m1_t, float_e2m1_t, float, float_ue8m0_t"
_KK = "UMMA::Major::K, UMMA::Major::K"
_ONE = "UMMA::ScaleIn::One, UMMA::ScaleIn::One"
#: Named words for the documented-difference tests (CUTLASS's public API, not raw bitfields).
SPECIALS: dict[str, str] = {
    "ref_bf16_128x256": f"uint32_t(UMMA::make_instr_desc<bfloat16_t, bfloat16_t, float, 128, 256, {_KK}>())",
    "bs_m64_mxf8f6f4": f"uint32_t(UMMA::make_instr_desc_block_scaled<{_E4M3}, 64, 128, {_KK}>())",
    "bs_m128_mxf8f6f4": f"uint32_t(UMMA::make_instr_desc_block_scaled<{_E4M3}, 128, 256, {_KK}>())",
    "bs_m256_mxf8f6f4": f"uint32_t(UMMA::make_instr_desc_block_scaled<{_E4M3}, 256, 256, {_KK}>())",
    "bs_m128_mxf4nvf4": f"uint32_t(UMMA::make_instr_desc_block_scaled<{_E2M1_NV}, 128, 256, {_KK}>())",
    "bs_m256_mxf4": f"uint32_t(UMMA::make_instr_desc_block_scaled<{_E2M1_MX}, 256, 128, {_KK}>())",
    "bs_sparse_id2_mxf8f6f4": (f"UMMA::make_runtime_instr_desc_block_scaled<{_E4M3}, 128, 256, {_KK}, "
                               f"{_ONE}, true>(0u, 0u, 1u) >> 32"),
    "bs_sparse_id2_mxf4nvf4": (f"UMMA::make_runtime_instr_desc_block_scaled<{_E2M1_NV}, 128, 256, {_KK}, "
                               f"{_ONE}, true>(0u, 0u, 1u) >> 32"),
}

TEMPLATE_CASES = _generate_template_cases()


def _cases_inc() -> str:
    lines = ["// Generated by tests/oracles/test_cutlass_oracle.py -- do not edit.",
             "static void template_cases() {"]
    lines += [f"  emit({c.id}, {c.cpp});" for c in TEMPLATE_CASES]
    lines += [f'  special("{name}", {cpp});' for name, cpp in SPECIALS.items()]
    lines.append("}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------- the oracle


@dataclass
class Oracle:
    exe: Path
    version: str
    enums: dict[str, dict[str, int]] = field(default_factory=dict)
    types: dict[tuple[str, str], int] = field(default_factory=dict)
    template: dict[int, int] = field(default_factory=dict)
    specials: dict[str, int] = field(default_factory=dict)
    czm: dict[tuple[int, int], int] = field(default_factory=dict)

    def run(self, lines: list[str]) -> list[int]:
        """Feed raw-field lines to the program; one word per line, in order."""
        proc = subprocess.run([str(self.exe), "stdin"], input="\n".join(lines) + "\n",
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, f"oracle failed ({proc.returncode}): {proc.stdout[-500:]}{proc.stderr}"
        out = proc.stdout.split()
        assert len(out) == len(lines), f"oracle printed {len(out)} words for {len(lines)} lines"
        bad = [(line, o) for line, o in zip(lines, out) if o.startswith("ERR")]
        assert not bad, f"oracle refused input: {bad[:5]}"
        return [int(o, 16) for o in out]


@pytest.fixture(scope="module")
def oracle(tmp_path_factory: pytest.TempPathFactory) -> Oracle:
    build = tmp_path_factory.mktemp("cutlass_oracle")
    (build / "oracle_cases.inc").write_text(_cases_inc())
    exe, version = build_oracle(ORACLE_SRC, DESC_HEADER, build / "cutlass_oracle", (build,))
    if exe is None:
        pytest.skip(version)
    out = subprocess.run([str(exe), "static"], capture_output=True, text=True, timeout=60, check=True)
    o = Oracle(exe, version)
    for line in out.stdout.splitlines():
        tag, *rest = line.split()
        if tag == "ENUM":
            o.enums.setdefault(rest[0], {})[rest[1]] = int(rest[2])
        elif tag == "TYPE":
            o.types[rest[0], rest[1]] = int(rest[2])
        elif tag == "T":
            o.template[int(rest[0])] = int(rest[1], 16)
        elif tag == "X":
            o.specials[rest[0]] = int(rest[1], 16)
        elif tag == "CZM":
            o.czm[int(rest[0]), int(rest[1])] = int(rest[2], 16)
        else:
            raise AssertionError(f"unexpected oracle line {line!r}")
    return o


def _report(category: str, rows: list[tuple[Any, int, int]], digits: int) -> None:
    """Assert ours == CUTLASS's for every (case, ours, cutlass) row; show the first mismatches."""
    bad = [r for r in rows if r[1] != r[2]]
    if bad:
        lines = [f"  {case}\n      ours {ours:#0{digits + 2}x}  cutlass {theirs:#0{digits + 2}x}"
                 f"  xor {ours ^ theirs:#x}" for case, ours, theirs in bad[:8]]
        pytest.fail(f"{category}: {len(bad)} of {len(rows)} words differ from CUTLASS:\n" + "\n".join(lines))
    assert rows, f"{category}: nothing compared"
    print(f"{category}: {len(rows)} words identical to CUTLASS")


# ---------------------------------------------------------------------------- 1. idesc (templates)


def test_case_generator_covers_the_brief() -> None:
    """The generated template cases really span what the docstring claims (else the
    comparison below would prove less than it says)."""
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for c in TEMPLATE_CASES:
        by_kind.setdefault(c.params["kind"], []).append(c.params)
    assert set(by_kind) == set(KINDS)
    for name, ps in by_kind.items():
        kind = KINDS[name]
        combos = {(p["a_type"], p["b_type"], p.get("d_type"), p.get("scale_type")) for p in ps}
        n_d = len(kind.d_types.names) if kind.d_types else 1
        n_sf = len(kind.scale_types.names) if kind.scale_types else 1
        assert len(combos) == len(kind.ab_types.names) ** 2 * n_d * n_sf, name
        ms = {p["m"] for p in ps}
        assert ms == ({128, 256} if kind.block_scaled else {32, 64, 128, 256}), (name, ms)
        assert {p["sparse"] for p in ps} == {False, True}, name
        assert {p["negate_a"] for p in ps} == ({False} if name == "i8" else {False, True}), name
        assert {p["negate_b"] for p in ps} == ({False} if name == "i8" else {False, True}), name
        majors = {"K"} if name in ("mxf4", "mxf4nvf4") else {"K", "MN"}
        assert {p["a_major"] for p in ps} == majors and {p["b_major"] for p in ps} == majors, name
        assert min(p["n"] for p in ps) <= 32 and max(p["n"] for p in ps) == 256, name
        if kind.block_scaled:
            legal = {0, 1, 2, 3} if name == "mxf8f6f4" else {0, 2}
            assert {p.get("a_scale_id") for p in ps} == legal | {None}, name
            assert {p.get("b_scale_id") for p in ps} == legal | {None}, name
        else:
            assert {p["max_shift"] for p in ps} == {0, 8, 16, 32}, name
            assert {p["sparsity_selector"] for p in ps} == {0, 1, 2, 3}, name
            assert {p["saturate"] for p in ps} == ({False, True} if name == "i8" else {False}), name


def test_idesc_templates_match_cutlass(oracle: Oracle) -> None:
    """encode("idesc", ...) == CUTLASS's make_instr_desc / make_runtime_instr_desc (sparse, with
    sparse_id2 = our sparsity_selector) / make_instr_desc_block_scaled /
    make_runtime_instr_desc_block_scaled (scale IDs from TMEM address bits 31:30), for every
    generated case."""
    assert set(oracle.template) == {c.id for c in TEMPLATE_CASES}
    rows = [(c, encode("idesc", **c.params), oracle.template[c.id]) for c in TEMPLATE_CASES]
    _report("idesc via CUTLASS make_instr_desc*", rows, 8)


# ---------------------------------------------------------------------------- type codes


def test_type_codes_match_cutlass_to_umma_format(oracle: Oracle) -> None:
    """Each kind's A/B type codes == CUTLASS's to_UMMAFormat<T> for the C++ type CUTLASS uses
    for it (and the kind-specific to_F16F32Format / to_S8Format / to_MXF8F6F4Format /
    to_MXF4Format); D codes == to_CFormat; scale codes == to_ScaleFormat."""
    rows: list[tuple[Any, int, int]] = []
    specific = {"tf32": "to_F16F32Format", "f16": "to_F16F32Format", "i8": "to_S8Format",
                "f8f6f4": "to_MXF8F6F4Format", "mxf8f6f4": "to_MXF8F6F4Format",
                "mxf4": "to_MXF4Format", "mxf4nvf4": "to_MXF4Format"}
    for kname, kind in KINDS.items():
        for choice in kind.ab_types:
            cpp = CPP_AB[kname][choice.name]
            for fn in ("to_UMMAFormat", specific[kname]):
                rows.append((f"{kname} {choice.name} = {fn}<{cpp}>", choice.value, oracle.types[fn, cpp]))
        for choice in kind.d_types or ():
            cpp = CPP_D[choice.name]
            rows.append((f"{kname} D {choice.name} = to_CFormat<{cpp}>", choice.value,
                         oracle.types["to_CFormat", cpp]))
        for choice in kind.scale_types or ():
            cpp = CPP_SF[choice.name]
            rows.append((f"{kname} scale {choice.name} = to_ScaleFormat<{cpp}>", choice.value,
                         oracle.types["to_ScaleFormat", cpp]))
    # The non-"unpacksmem" FP6 types map to the same codes in to_UMMAFormat.
    for name in ("e2m3", "e3m2"):
        ours = KINDS["f8f6f4"].ab_types.lookup(name)
        assert ours is not None
        rows.append((f"f8f6f4 {name} = to_UMMAFormat<float_{name}_t>", ours.value,
                     oracle.types["to_UMMAFormat", f"float_{name}_t"]))
    _report("type codes via to_UMMAFormat & co", rows, 1)


def test_enum_codes_match_cutlass_enums(oracle: Oracle) -> None:
    """Every named code of CUTLASS's enums (to_string over 0..7) is the code our tables give
    that name, and every code of ours is one of CUTLASS's (CUTLASS's MXF8F6F4Format::INVALID=7
    is a runtime placeholder: we must not give 7 a name)."""
    rows: list[tuple[Any, int, int]] = []
    covered: set[tuple[str, str, str]] = set()
    for enum, tables in ENUM_TABLES.items():
        assert oracle.enums.get(enum), f"CUTLASS enum {enum} not dumped"
        for cname, code in oracle.enums[enum].items():
            if cname == "INVALID":
                for kname, which in tables:
                    assert _table(kname, which).name_of(code) is None, (enum, kname)
                continue
            hits = [(k, w, _table(k, w).lookup(cname)) for k, w in tables]
            hits = [(k, w, c) for k, w, c in hits if c is not None]
            assert hits, f"CUTLASS {enum}::{cname} has no counterpart in our tables {tables}"
            for k, w, c in hits:
                rows.append((f"{enum}::{cname} vs {k} {w} {c.name}", c.value, code))
                covered.add((k, w, c.name))
    for enum, tables in ENUM_TABLES.items():
        for k, w in tables:
            for c in _table(k, w):
                assert (k, w, c.name) in covered, f"our {k} {w} type {c.name} is not in CUTLASS's {enum}"
    for cname, code in oracle.enums["LayoutType"].items():
        ours = SWIZZLE.lookup(cname)
        assert ours is not None, f"LayoutType::{cname} unknown to our SWIZZLE table"
        assert "SWIZZLE_" + ours.name.upper() == cname
        rows.append((f"LayoutType::{cname}", ours.value, code))
    assert len(oracle.enums["LayoutType"]) == len(SWIZZLE.choices)
    for cname, code in oracle.enums["Major"].items():
        rows.append((f"Major::{cname}", MAJOR.lookup(cname).value, code))
    for cname, code in oracle.enums["MaxShift"].items():
        rows.append((f"MaxShift {cname}", MAX_SHIFT.lookup(cname).value, code))
    for cname, code in oracle.enums["ScaleIn"].items():
        rows.append((f"ScaleIn::{cname} (negate bit)", int(cname == "Neg"), code))
    for cname, code in oracle.enums["Saturate"].items():
        rows.append((f"Saturate::{cname}", int(cname == "True"), code))
    _report("enum codes", rows, 1)


# ---------------------------------------------------------------------------- 4. raw Table 42

#: CUTLASS InstrDescriptor bitfields (stdin order of an "I" line) and their widths.
T42_CUTLASS = [("sparse_id2_", 2), ("sparse_flag_", 1), ("saturate_", 1), ("c_format_", 2),
               ("a_format_", 3), ("b_format_", 3), ("a_negate_", 1), ("b_negate_", 1),
               ("a_major_", 1), ("b_major_", 1), ("n_dim_", 6), ("m_dim_", 5), ("max_shift_", 2)]
#: CUTLASS InstrDescriptorBlockScaled bitfields (stdin order of a "B" line) and their widths.
BS_CUTLASS = [("sparse_id2_", 2), ("sparse_flag_", 1), ("b_sf_id_", 2), ("a_format_", 3),
              ("b_format_", 3), ("a_negate_", 1), ("b_negate_", 1), ("a_major_", 1), ("b_major_", 1),
              ("n_dim_", 6), ("scale_format_", 1), ("m_dim_", 5), ("a_sf_id_", 2), ("k_size_", 1)]


def _random_fields(spec: list[tuple[str, int]], rng: random.Random, count: int) -> list[dict[str, int]]:
    """Edge rows (all zero, all max, each field alone at max) then uniform random rows."""
    rows = [{n: 0 for n, _ in spec}, {n: (1 << w) - 1 for n, w in spec}]
    rows += [{n: ((1 << w) - 1 if n == one else 0) for n, w in spec} for one, _ in spec]
    rows += [{n: rng.randrange(1 << w) for n, w in spec} for _ in range(count)]
    return rows


def _line(tag: str, spec: list[tuple[str, int]], row: dict[str, int]) -> str:
    return " ".join([tag, *(str(row[n]) for n, _ in spec)])


def test_table42_raw_fields_match_cutlass_bitfields(oracle: Oracle) -> None:
    """Random raw Table 42 field values through CUTLASS's InstrDescriptor bitfields ==
    encode_raw("idesc", kind="f16", <CUTLASS field names>), and decoding CUTLASS's word gives
    back every value under our PTX name with no reserved bit set -- for all four Table 42 kinds."""
    rows = _random_fields(T42_CUTLASS, random.Random(42), 2000)
    words = oracle.run([_line("I", T42_CUTLASS, r) for r in rows])
    lay = LAYOUTS["idesc"]
    cmp = []
    for r, w in zip(rows, words):
        ours = encode_raw("idesc", kind="f16", **{n.rstrip("_"): v for n, v in r.items()})
        cmp.append((f"InstrDescriptor{r}", ours, w))
    _report("Table 42 raw fields via InstrDescriptor bitfields", cmp, 8)
    for r, w in zip(rows[:300], words[:300]):
        for kind in ("tf32", "f16", "f8f6f4", "i8"):
            d = decode("idesc", w, kind=kind)
            got = {n: d.fields[lay.canonical(n.rstrip("_"))] for n in r}
            assert got == r and d.unexpected == {}, (kind, hex(w), r, got, d.unexpected)


def _bs_expected(kind: str, r: dict[str, int]) -> dict[str, int]:
    """CUTLASS's block-scaled bitfields as our Table 43/44 raw fields.  The layouts differ
    only where PTX reserves bits CUTLASS names (the documented differences): sparse_id2_ (bits
    0-1) is our reserved_0; CUTLASS's 5-bit m_dim_ (24-28) is our reserved_24 (24-26) + m_dim
    (27-28); k_size_ (31) is reserved_31 in Table 43, k_dim in Table 44; and Table 44's B type is
    2 bits (10-11) with bit 12 reserved where CUTLASS's b_format_ has 3."""
    f = {n.rstrip("_"): v for n, v in r.items()}
    out = {k: v for k, v in f.items() if k not in ("sparse_id2", "m_dim", "k_size", "b_format")}
    out["reserved_0"] = f["sparse_id2"]
    out["reserved_24"] = f["m_dim"] & 0b111
    out["m_dim"] = f["m_dim"] >> 3
    if kind == "mxf8f6f4":
        out["reserved_31"] = f["k_size"]
        out["b_format"] = f["b_format"]
    else:
        out["k_size"] = f["k_size"]
        out["b_format"] = f["b_format"] & 0b11
        out["reserved_12"] = f["b_format"] >> 2
    return out


@pytest.mark.parametrize("kind", ["mxf8f6f4", "mxf4"])
def test_block_scaled_raw_fields_match_cutlass_bitfields(oracle: Oracle, kind: str) -> None:
    """Random raw values through CUTLASS's InstrDescriptorBlockScaled bitfields ==
    encode_raw("idesc", kind=...) of the same values mapped onto Table 43/44 (see
    _bs_expected), and the decoded fields are those values."""
    rows = _random_fields(BS_CUTLASS, random.Random(43 if kind == "mxf8f6f4" else 44), 1000)
    words = oracle.run([_line("B", BS_CUTLASS, r) for r in rows])
    lay = LAYOUTS[KINDS[kind].layout]
    expected = [{lay.canonical(k): v for k, v in _bs_expected(kind, r).items()} for r in rows]
    cmp = [(f"InstrDescriptorBlockScaled{r} as {kind}", encode_raw("idesc", kind=kind, **exp), w)
           for r, exp, w in zip(rows, expected, words)]
    _report(f"Table {KINDS[kind].source[-2:]} raw fields via InstrDescriptorBlockScaled bitfields",
            cmp, 8)
    for r, exp, w in zip(rows, expected, words):
        got = decode("idesc", w, kind=kind).fields
        assert {k: got[k] for k in exp} == exp, (hex(w), r)


# ---------------------------------------------------------------------------- 2. smem

SMEM_BOUNDARY = (0, 16, 0x3FFE0, 0x3FFF0)  # raw 0, 1, max-1, max


def test_smem_matches_cutlass_smem_descriptor(oracle: Oracle) -> None:
    """encode("smem", ...) from byte values == CUTLASS's SmemDescriptor with version_ = 1,
    start/LBO/SBO = bytes >> 4 (as cute's make_umma_desc does), base_offset_, lbo_mode_ and
    layout_type_ = the CUTLASS LayoutType of that name: every swizzle x boundary values of the
    three 14-bit fields x base offset 0..7 x LBO mode, plus random aligned values."""
    layouts = oracle.enums["LayoutType"]
    assert set(layouts) == {"SWIZZLE_" + c.name.upper() for c in SWIZZLE}
    cases = [(s, l_, b, lay, base, mode)
             for s, l_, b in itertools.product(SMEM_BOUNDARY, repeat=3)
             for lay in layouts for base in range(8) for mode in (0, 1)]
    rng = random.Random(40)
    cases += [(rng.randrange(0x4000) << 4, rng.randrange(0x4000) << 4, rng.randrange(0x4000) << 4,
               rng.choice(sorted(layouts)), rng.randrange(8), rng.randrange(2)) for _ in range(500)]
    words = oracle.run([f"S {s} {l_} {b} {lay} {base} {mode}" for s, l_, b, lay, base, mode in cases])
    rows = []
    for (s, l_, b, lay, base, mode), w in zip(cases, words):
        params = dict(start_address=s, leading_byte_offset=l_, stride_byte_offset=b,
                      swizzle=SWIZZLE.lookup(lay).name, base_offset=base,
                      lbo_mode=("relative", "absolute")[mode])
        rows.append((f"encode('smem', {params})", encode("smem", **params), w))
    _report("smem via SmemDescriptor bitfields", rows, 16)
    # version_ (CUTLASS) is our fixed constant 0b001 at bits 46-48; every word carries it.
    fc = LAYOUTS["smem"].by_name["fixed_constant"]
    assert all(fc.extract(w) == 1 for w in words)


# ---------------------------------------------------------------------------- 3. zcm

ZCM_CUTLASS = [("sc0", 8), ("sc1", 8), ("sc2", 8), ("sc3", 8), ("first_span_", 4), ("nzm_", 1),
               ("skip_span_", 8), ("use_span_", 8), ("shift_", 6)]


def test_zcm_matches_cutlass_mask_and_shift_b(oracle: Oracle) -> None:
    """encode("zcm", ...) == CUTLASS's MaskAndShiftB with start_count_[i] = sc_i, the 4-bit
    first_span_ = fs_0 | fs_1 << 1 | ..., nzm_, skip_span_, use_span_ and shift_."""
    rows_in = _random_fields(ZCM_CUTLASS, random.Random(45), 1500)
    words = oracle.run([_line("Z", ZCM_CUTLASS, r) for r in rows_in])
    rows = []
    for r, w in zip(rows_in, words):
        params = dict(start_count=[r["sc0"], r["sc1"], r["sc2"], r["sc3"]],
                      first_span=[(r["first_span_"] >> i) & 1 for i in range(4)],
                      non_zero_mask=r["nzm_"], skip_span=r["skip_span_"], use_span=r["use_span_"],
                      column_shift=r["shift_"])
        rows.append((f"encode('zcm', {params})", encode("zcm", **params), w))
    _report("zcm via MaskAndShiftB bitfields", rows, 16)


# ---------------------------------------------------------------------------- 5. differences


def test_difference_block_scaled_m_field(oracle: Oracle) -> None:
    """PTX Tables 43/44 store M >> 7 in bits 27-28 and reserve bits 24-26; CUTLASS writes
    M >> 4 into bits 24-28.  For the legal M (128, 256) both give the same word.  For M = 64
    CUTLASS sets bit 26, a reserved bit in PTX: our encoder refuses M = 64 for the block-scaled
    kinds (FieldError on m_dim) and decoding CUTLASS's word reports reserved_24 = 0b100."""
    same = {
        "bs_m128_mxf8f6f4": dict(kind="mxf8f6f4", a_type="e4m3", b_type="e4m3", m=128, n=256),
        "bs_m256_mxf8f6f4": dict(kind="mxf8f6f4", a_type="e4m3", b_type="e4m3", m=256, n=256),
        "bs_m128_mxf4nvf4": dict(kind="mxf4nvf4", a_type="e2m1", b_type="e2m1", m=128, n=256,
                                 scale_type="ue4m3"),
        "bs_m256_mxf4": dict(kind="mxf4", a_type="e2m1", b_type="e2m1", m=256, n=128),
    }
    _report("block-scaled M=128/256 (identical in CUTLASS and PTX)",
            [(name, encode("idesc", **p), oracle.specials[name]) for name, p in same.items()], 8)
    assert oracle.specials["bs_m256_mxf8f6f4"] == 0x10C00000  # DeepGEMM's value (its FP8 GEMM)

    w64 = oracle.specials["bs_m64_mxf8f6f4"]
    assert (w64 >> 24) & 0x1F == 64 >> 4 and w64 & (1 << 26), hex(w64)
    with pytest.raises(FieldError) as err:
        encode("idesc", kind="mxf8f6f4", a_type="e4m3", b_type="e4m3", m=64, n=128)
    assert err.value.field == "m_dim"
    d = decode("idesc", w64, kind="mxf8f6f4")
    assert d.unexpected == {"reserved_24": 0b100}, d.unexpected
    assert d.fields["m_dim"] == 0 and int(d) == w64
    # Apart from bit 26 (and the m_dim bits of a legal M), the word is the M=128 word.
    w128 = encode("idesc", kind="mxf8f6f4", a_type="e4m3", b_type="e4m3", m=128, n=128)
    assert w64 == (w128 & ~(0b11 << 27)) | (1 << 26), (hex(w64), hex(w128))


@pytest.mark.parametrize("kind,name", [("mxf8f6f4", "bs_sparse_id2_mxf8f6f4"),
                                       ("mxf4nvf4", "bs_sparse_id2_mxf4nvf4")])
def test_difference_block_scaled_sparse_id2(oracle: Oracle, kind: str, name: str) -> None:
    """Tables 43/44 reserve bits 0-1; CUTLASS's block-scaled struct names them sparse_id2_ and
    make_runtime_instr_desc_block_scaled<..., sparse>(..., sparse_id2) writes them.  Our decoder
    keeps them as reserved_0 (reported as unexpected), re-encodes the word bit-exactly, and our
    encoder does not offer them as a parameter."""
    w = oracle.specials[name]
    assert w & 0b11 == 1, hex(w)
    d = decode("idesc", w, kind=kind)
    assert d.fields["reserved_0"] == 1 and d.unexpected == {"reserved_0": 1}, d.unexpected
    assert int(d) == w
    p = dict(kind=kind, a_type=d.values["a_type"], b_type=d.values["b_type"], m=128, n=256,
             sparse=True, scale_type=d.values["scale_type"])
    assert encode("idesc", **p) | 1 == w
    with pytest.raises(ParameterError):
        encode("idesc", **p, sparsity_selector=1)


def test_difference_bit31_k_size(oracle: Oracle) -> None:
    """Bit 31: CUTLASS's k_size_ in every block-scaled descriptor.  PTX Table 43 (mxf8f6f4)
    reserves it; Table 44 (mxf4, mxf4nvf4) makes it k_dim, dense K = 96 (sm_103a).  A CUTLASS
    word with k_size_ = 1 decodes as reserved_31 = 1 for mxf8f6f4 and as k_dim = 1 (K = 96) for
    mxf4, where our encode(..., k=96) gives the same word."""
    base = {n: 0 for n, _ in BS_CUTLASS}
    e4m3 = dict(base, n_dim_=256 >> 3, m_dim_=128 >> 4, scale_format_=1, k_size_=1)
    fp4 = dict(base, a_format_=1, b_format_=1, n_dim_=256 >> 3, m_dim_=256 >> 4, scale_format_=1,
               k_size_=1)
    w8, w4, w4_plain = oracle.run([_line("B", BS_CUTLASS, e4m3), _line("B", BS_CUTLASS, fp4),
                                   _line("B", BS_CUTLASS, dict(fp4, k_size_=0))])
    assert w8 >> 31 == 1 and w4 >> 31 == 1 and w4 ^ w4_plain == 1 << 31
    d8 = decode("idesc", w8, kind="mxf8f6f4")
    assert d8.unexpected == {"reserved_31": 1} and int(d8) == w8
    d4 = decode("idesc", w4, kind="mxf4")
    assert d4.fields["k_dim"] == 1 and d4.values["k"] == 96 and d4.unexpected == {}
    assert encode("idesc", kind="mxf4", a_type="e2m1", b_type="e2m1", m=256, n=256, k=96) == w4
    assert encode("idesc", kind="mxf4", a_type="e2m1", b_type="e2m1", m=256, n=256) == w4_plain
    assert encode("idesc", kind="mxf8f6f4", a_type="e4m3", b_type="e4m3", m=128, n=256) == w8 & ~(1 << 31)


def test_difference_zcm_non_zero_mask_bit(oracle: Oracle) -> None:
    """CUTLASS's comment on nzm_ (bit 39) reads "0 = Enable the mask. 1 = Disable the mask",
    the opposite of PTX (0: mask all zeros, every B column used; 1: generate the mask).  The
    bit position is the same (asserted through MaskAndShiftB), and CUTLASS's own producer,
    make_column_zero_mask, follows PTX: it writes nzm_ = 0 exactly when there is no left
    padding to skip (skip == shift) and nzm_ = 1 with a leading skip span of (skip - shift)
    zeroed columns when there is.  Its words re-encode bit-exactly through encode("zcm", ...)."""
    lsb = LAYOUTS["zcm"].by_name["non_zero_mask"].lsb
    only_nzm = {n: 0 for n, _ in ZCM_CUTLASS} | {"nzm_": 1}
    (w,) = oracle.run([_line("Z", ZCM_CUTLASS, only_nzm)])
    assert w == 1 << 39 == 1 << lsb, hex(w)
    assert encode("zcm", non_zero_mask=1) == w and encode("zcm", non_zero_mask=0) == 0
    assert len(oracle.czm) == 9
    for (skip, shift), word in sorted(oracle.czm.items()):
        d = decode("zcm", word)
        v = d.values
        assert d.unexpected == {} and encode("zcm", **v) == word, (skip, shift, hex(word))
        assert v["column_shift"] == shift
        if skip == shift:
            assert v["non_zero_mask"] == 0, (skip, shift, hex(word))
        elif skip > shift:
            assert v["non_zero_mask"] == 1 and v["first_span"][0] == 1, (skip, shift, hex(word))
            assert v["skip_span"] + 1 == skip - shift and v["start_count"][0] == 0, (skip, shift, v)


def test_difference_table44_b_type_width(oracle: Oracle) -> None:
    """Found by this oracle: PTX Table 44 gives the B type two
    bits (10-11) and reserves bit 12; CUTLASS's InstrDescriptorBlockScaled has a 3-bit
    b_format_ (10-12) for every block-scaled kind.  For the only legal Table 44 code (E2M1 = 1)
    the words agree; a 3-bit code such as MXF8F6F4Format::E2M1 = 5 decodes under mxf4 as
    b_type = 1 plus reserved_12 = 1 (reported), and re-encodes bit-exactly."""
    base = {n: 0 for n, _ in BS_CUTLASS} | dict(a_format_=1, n_dim_=256 >> 3, m_dim_=128 >> 4,
                                                 scale_format_=1)
    legal, wide = oracle.run([_line("B", BS_CUTLASS, base | {"b_format_": 1}),
                              _line("B", BS_CUTLASS, base | {"b_format_": 5})])
    assert encode("idesc", kind="mxf4", a_type="e2m1", b_type="e2m1", m=128, n=256) == legal
    assert wide == legal | 1 << 12, (hex(wide), hex(legal))
    d = decode("idesc", wide, kind="mxf4")
    assert d.fields["b_type"] == 1 and d.unexpected == {"reserved_12": 1} and int(d) == wide
    assert LAYOUTS["idesc_mxf4"].by_name["b_type"].width == 2


def test_oracle_is_the_documented_wheel(oracle: Oracle) -> None:
    """The headers are those of the wheel the facts were checked against, and CUTLASS's
    make_instr_desc reproduces the reference word of DeepGEMM's sm100 bf16 GEMM (bf16 128x256 -> 0x08400490)."""
    assert oracle.version == CUTLASS_VERSION, f"nvidia-cutlass {oracle.version} (expected {CUTLASS_VERSION})"
    assert oracle.specials["ref_bf16_128x256"] == 0x08400490
    assert descriptors.encode("idesc", check=False, kind="f16", a_type="bf16", b_type="bf16", m=128, n=256) == 0x08400490

"""Numbers in a listing that the readers would turn into a size stay within the ISA's facts.

* a SASS wgmma whose shape no wgmma has (``HGMMA.64x20000000x16``, an N of 26 digits, N not a
  multiple of 8, M not 64, K not the type's) is not judged (``lint.unjudged``) and its
  accumulator is not enumerated; ``LDTM``/``STTM`` with a ``.xN`` no tcgen05.ld/st has and PTX
  ``.x99999999``/``.v99999999`` are read in no time;
* a PTX register declared with a type PTX does not have (``.b40000000``, ``.b4000000000``,
  ``.b²``, ``.b0``) holds an unknown value as wide as the word it stands for (never zeros),
  lint names the type once, and no ``int()`` of a non-ASCII digit fails;
* a 3,900-character register name costs linear time.

Each command runs under :func:`_deadline` (a few seconds, where the readers took 15 s, 60 s
or never ended before).
"""

from __future__ import annotations

import json
import signal
from contextlib import contextmanager

import pytest
from helpers import run

from descriptors.isa.instructions import RegisterDecls
from descriptors.isa.sass import tmem_access, wgmma_shape
from descriptors.readers.sass.opcodes import written


@contextmanager
def _deadline(seconds: float):
    """Fail the block after ``seconds`` of wall time."""
    def stop(signum, frame):
        raise AssertionError(f"took more than {seconds} s")
    old = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _lint(tmp_path, name: str, text: str) -> tuple[int, list[dict]]:
    path = tmp_path / name
    path.write_text(text)
    with _deadline(5):
        result = run("lint", "-f", "json", "-v", str(path))
    assert "internal error" not in result.stderr, result.stderr
    return result.exit_code, json.loads(result.stdout)["findings"]


def _dump(tmp_path, name: str) -> str:
    with _deadline(5):
        result = run("dump", str(tmp_path / name))
    assert result.exit_code == 0, (result.stdout, result.stderr)
    return result.stdout


def _sass(*lines: str, arch: str = "sm_90a") -> str:
    return f"\tcode for {arch}\n" + "".join(
        f"        /*{16 * k:04x}*/                   {line} ;\n" for k, line in enumerate(lines))


@pytest.mark.parametrize("n", ["20000000", "9" * 26])
def test_sass_wgmma_shape_no_isa_has_is_not_judged(tmp_path, n):
    opcode = f"HGMMA.64x{n}x16.F32"
    code, findings = _lint(tmp_path, "w.sass", _sass(f"{opcode} R24, gdesc[UR4], RZ, !UPT"))
    assert code == 0
    rules = [(f["rule"], f["line"]) for f in findings]
    assert rules == [("lint.arch", 0), ("lint.unjudged", 2)]
    assert findings[1]["message"].startswith(f"{opcode}: a shape no wgmma has")
    assert "no descriptor words found" in _dump(tmp_path, "w.sass")


def test_sass_wgmma_isa_shape_is_judged(tmp_path):
    _, findings = _lint(tmp_path, "w.sass",
                        _sass("HGMMA.64x128x16.F32 R24, gdesc[UR4], RZ, !UPT"))
    assert [f["rule"] for f in findings] == ["lint.arch", "lint.runtime", "lint.runtime"]


@pytest.mark.parametrize("opcode,shape", [
    ("HGMMA.64x128x16.F32", (64, 128, 16)),
    ("HGMMA.64x256x16.F32.BF16", (64, 256, 16)),
    ("HGMMA.64x64x8.F32.TF32", (64, 64, 8)),
    ("HGMMA.SP.64x16x32.F32", (64, 16, 32)),
    ("HGMMA.SP.REGOFFSET.64x256x16.F32.TF32", (64, 256, 16)),
    ("IGMMA.SP.64x16x64.S8.S8", (64, 16, 64)),
    ("QGMMA.64x224x32.F32.E4M3.E4M3", (64, 224, 32)),
    ("BGMMA.64x256x256.S32", (64, 256, 256)),
    ("HGMMA.64x20000000x16.F32", None),
    ("HGMMA.64x264x16.F32", None),    # N > 256
    ("HGMMA.64x12x16.F32", None),     # N not a multiple of 8
    ("IGMMA.64x40x32.S8.S8", None),   # integer N: 8, 16, 24, then steps of 16
    ("HGMMA.128x64x16.F32", None),    # M not 64
    ("HGMMA.64x64x16.F32.TF32", None),  # tf32 K is 8
    ("HGMMA.64x64x8.F32", None),      # f16 K is 16
    ("BGMMA.SP.64x64x512.S32", None),  # no sparse single-bit wgmma
    ("HGMMA.64x064x16.F32", (64, 64, 16)),
    ("HGMMA.64x99999x16.F32", None),
    ("HGMMA.F32", None),
    ("UTCHMMA", None),
])
def test_wgmma_shape(opcode, shape):
    assert wgmma_shape(opcode) == shape


def test_wgmma_accumulator_is_bounded():
    # N/2 .f32 registers of an ISA shape; 128 (every register a wgmma may write) otherwise
    assert written("HGMMA.64x128x16.F32", "R24") == (tuple(f"R{24 + k}" for k in range(64)), 2)
    assert written("HGMMA.64x128x16.F16", "R24")[0][-1] == "R55"
    with _deadline(2):
        dests, _ = written(f"HGMMA.64x{'9' * 26}x16.F32", "R24")
        assert len(dests) == 128
        assert len(written("HGMMA.64x20000000x16.F32", "R0")[0]) == 128


def test_ldtm_sttm_repeat_no_isa_has(tmp_path):
    assert tmem_access("LDTM.x99999999") is None
    assert tmem_access("STTM.x256") is None
    assert tmem_access("LDTM.x128").num == 128
    assert tmem_access("STTM.16dp64bit.x4").ptx == "tcgen05.st.sync.aligned.16x64b.x4.b32"
    code, findings = _lint(tmp_path, "t.sass", _sass(
        "LDTM.x99999999 R4, tmem[UR4]", "STTM.x99999999 tmem[UR4], R4", arch="sm_100a"))
    assert code == 0
    assert [(f["rule"], f["line"]) for f in findings] == [
        ("lint.arch", 0), ("lint.unjudged", 2), ("lint.unjudged", 3)]


_PTX_HEAD = ".version 8.7\n.target sm_100a\n.address_size 64\n.visible .entry k()\n{\n"


def test_ptx_vector_sizes_no_isa_has(tmp_path):
    code, findings = _lint(tmp_path, "v.ptx", _PTX_HEAD + (
        ".reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n"
        "tcgen05.ld.sync.aligned.32x32b.x99999999.b32 {%r1}, [%r2];\n"
        "tcgen05.st.sync.aligned.32x32b.x99999999.b32 [%r2], {%r1};\n"
        "ld.shared.v99999999.u32 {%r1}, [%rd1];\nret;\n}\n"))
    assert code == 1
    assert {(f["rule"], f["line"]) for f in findings if f["severity"] == "error"} >= {
        ("tcgen05.ld.qualifier", 8), ("tmem.ld.num", 8),
        ("tcgen05.st.qualifier", 9), ("tmem.st.num", 9)}


@pytest.mark.parametrize("rtype", ["b40000000", "b4000000000", "b\u00b2", "b0", "q32"])
def test_ptx_register_of_no_ptx_type_is_unknown(tmp_path, rtype):
    # an operand the register stands for and never written: unknown, as wide as its word
    code, findings = _lint(tmp_path, "r.ptx", _PTX_HEAD + (
        f".reg .b64 %rd<4>;\n.reg .b32 %r<4>;\n.reg .pred %p<2>;\n.reg .{rtype} %x<2>;\n"
        "tcgen05.mma.cta_group::1.kind::f16 [%r1], %x1, %rd1, %r2, %p1;\nret;\n}\n"))
    # tcgen05.mma's instruction model names the type (as wgmma's does, below)
    assert code == 1
    assert [f["rule"] for f in findings if f["severity"] == "error"] == [
        "tcgen05.mma.register_type"]
    a = [f for f in findings if f["col"] == 43 and f["severity"] != "error"]
    assert [(f["rule"], f["word"]) for f in a] == [("lint.runtime", "0x" + "x" * 16)]
    assert "no descriptor words found" in _dump(tmp_path, "r.ptx")


@pytest.mark.parametrize("rtype", ["b40000000", "b\u00b2", "b0"])
def test_ptx_register_type_no_ptx_has_is_named(tmp_path, rtype):
    code, findings = _lint(tmp_path, "w.ptx", (
        ".version 8.7\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\n"
        ".reg .b64 %rd<4>;\n.reg .pred %p<2>;\n.reg .f32 %f<4>;\n"
        f".reg .{rtype} %x<2>;\nmov.b64 %rd1, 4611686293305294848;\n"
        "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f0, %f1, %f2, %f3}, %x1, %rd1, "
        "%p1, 1, 1, 0, 0;\nret;\n}\n"))
    assert code == 1
    errors = [f for f in findings if f["severity"] == "error"]
    assert len(errors) == 1
    assert errors[0]["rule"] == "wgmma.mma_async.register_type"
    assert f"%x1 is declared .{rtype}, which is no PTX type" in errors[0]["message"]


def test_register_declarations_are_linear():
    decls = RegisterDecls()
    name = "%a" + "1" * 3900
    decls.add(f".reg .b64 {name}x, %r<10>, %q<{'9' * 5000}>;")
    with _deadline(1):
        for k in range(50):
            assert f"{name}y{k}" not in decls
            assert decls.get(f"{name}x") == "b64"
    assert decls["%r9"] == decls["%r0"] == "b64"
    assert "%r10" not in decls and "%r09" not in decls and "%r\u0663" not in decls
    assert "%q1" not in decls  # a count of 5,000 digits declares nothing


def test_long_register_name_is_linear(tmp_path):
    # 40 distinct names of 3,900 digits and a letter: 0.13 s each before
    name = "%a" + "1" * 3900
    body = "".join(f"tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, {name}y{k}, %r2, %p1;\n"
                   for k in range(40))
    code, findings = _lint(tmp_path, "n.ptx", _PTX_HEAD + (
        f".reg .b64 %rd<4>;\n.reg .b32 %r<4>;\n.reg .pred %p<2>;\n{body}ret;\n}}\n"))
    assert code == 0
    assert sum(f["rule"] == "lint.runtime" for f in findings) == 120

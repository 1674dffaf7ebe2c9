"""One meaning per instruction (:mod:`descriptors.isa.sites`): what each operand of an MMA or
Tensor Memory instruction is, from real compiled lines, and the same :class:`MmaSite` used
by the readers, ``lint``, ``dump`` and the live (cuda-gdb) path for every instruction of the
fixtures."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from descriptors.isa.sites import MmaSite, ptx_site, sass_site, site
from descriptors.readers import Instruction, read
from descriptors.readers.sass import instruction, read_live
from descriptors.tools import dump, lint, live
from descriptors.tools.dump import code as dump_code
from descriptors.tools.dump import logs as dump_logs
from descriptors.tools.dump import score as dump_score

ROOT = Path(__file__).resolve().parents[3] / "fixtures"


def roles(s: MmaSite) -> list[tuple[str, int, tuple[str, ...], bool]]:
    return [(o.role, o.index, o.registers, o.judged) for o in s.operands]


def sass(line: str) -> MmaSite:
    got = instruction(line)
    assert got is not None
    s = sass_site(got[1], got[2])
    assert s is not None
    return s


# ---------------------------------------------------------------------------- SASS lines

def test_utchmma_dense():
    # fixtures/lint/*.sass, nvcc 13.0 sm_100a: tcgen05.mma.cta_group::1.kind::f16
    s = sass("UTCHMMA gdesc[UR4], gdesc[UR6], tmem[UR8], tmem[UR14], idesc[UR15], UP0 ;")
    assert roles(s) == [("a_desc", 0, ("UR4", "UR5"), True), ("b_desc", 1, ("UR6", "UR7"), True),
                        ("d_tmem", 2, ("UR8",), False), ("sp_meta", 3, ("UR14",), True),
                        ("idesc", 4, ("UR15",), True)]
    assert (s.kinds, s.cta_group, s.ws, s.sp, s.block_scale, s.a_tmem) == \
        (("f16", "tf32"), 1, False, None, False, False)
    assert s.label == "UTCHMMA (kind::f16 or kind::tf32, cta_group::1)"
    assert [o.family for o in s.operands] == ["smem", "smem", "tmem", "tmem", "idesc"]


def test_a_from_tensor_memory():
    s = sass("UTCHMMA tmem[UR4], gdesc[UR6], tmem[UR8], tmem[UR14], idesc[UR15], UPT ;")
    assert [o.role for o in s.operands] == ["a_tmem", "b_desc", "d_tmem", "sp_meta", "idesc"]
    assert s.a_tmem and s.operand("a_desc") is None


def test_ws_zero_column_mask_is_a_register_pair():
    s = sass("UTCHMMA.WS gdesc[UR4], gdesc[UR6], tmem[UR8], tmem[UR14], idesc[UR15], UR16, UP0 ;")
    z = s.operand("zcm")
    assert z is not None and (z.index, z.registers, z.family) == (5, ("UR16", "UR17"), "zcm")
    assert s.ws and s.label.endswith(", .ws)")


@pytest.mark.parametrize("line, kinds, scale_vec, cta", [
    ("UTCQMMA.2CTA gdesc[UR4], gdesc[UR6], tmem[UR8], tmem[UR14], idesc[UR15], tmem[UR12], UP0 ;",
     ("mxf8f6f4",), "1X", 2),
    ("UTCOMMA gdesc[UR4], gdesc[UR6], tmem[UR8], tmem[UR16], idesc[UR17], tmem[UR12], UP0 ;",
     ("mxf4", "mxf4nvf4"), "2X", 1),
    ("UTCOMMA.4X gdesc[UR4], gdesc[UR6], tmem[UR8], tmem[UR16], idesc[UR17], tmem[UR12], UP0 ;",
     ("mxf4nvf4",), "4X", 1),
    ("UTCOMMA.2CTA.BLOCK16 gdesc[UR4], gdesc[UR6], tmem[UR8], tmem[UR16], idesc[UR17], "
     "tmem[UR12], UP0 ;", ("mxf4nvf4",), "4X", 2),
    ("UTCQMMA gdesc[UR4], gdesc[UR6], tmem[UR8], tmem[UR14], idesc[UR15], UP0 ;",
     ("f8f6f4",), None, 1),
])
def test_block_scaled_kinds(line, kinds, scale_vec, cta):
    s = sass(line)
    assert (s.kinds, s.scale_vec, s.cta_group) == (kinds, scale_vec, cta)
    assert s.block_scale == (scale_vec is not None)
    scale = s.operand("scale_tmem")
    assert (scale is not None) == s.block_scale
    if scale is not None:
        assert scale.registers == ("UR12",) and scale.judged


def test_wgmma_a_from_registers_reads_only_b():
    # cuda-gdb's x/i dialect (no spaces, no ;), as recorded on an H100 (fixtures/gdb)
    s = sass("HGMMA.64x64x16.F32.BF16 R24,R56,gdesc[UR4].tnspB,R24,gsb0")
    assert roles(s) == [("b_desc", 5, ("UR6", "UR7"), True)]
    assert (s.family, s.operands[0].major, s.operands[0].text) == \
        ("wgmma", "MN", "gdesc[UR4].tnspB.B")


def test_wgmma_both_descriptors():
    s = sass("HGMMA.64x64x16.F32 R24, gdesc[UR4], RZ, !UPT ;")
    assert roles(s) == [("a_desc", 1, ("UR4", "UR5"), True), ("b_desc", 4, ("UR6", "UR7"), True)]
    assert [o.major for o in s.operands] == ["K", "K"]


def test_tensor_memory_instructions():
    s = sass("LDTM.16dp32bit_t0_t15.x4 R4, tmem[UR4+0x10] ;")
    assert roles(s) == [("taddr", 1, ("UR4",), True)] and s.operands[0].offset == "0x10"
    s = sass("UTCCP.T.S.2CTA tmem[UR5+0x100], gdesc[UR6] ;")
    assert [(o.role, o.judged) for o in s.operands] == [("taddr", False), ("s_desc", True)]
    assert (s.mma, s.cta_group) == (False, 2)
    assert sass("UTCBAR [UR4], URZ ;").operands == ()
    assert sass_site("IMAD R1, R2, R3, RZ", ("R1", "R2", "R3", "RZ")) is None


# ---------------------------------------------------------------------------- PTX lines

@pytest.mark.parametrize("opcode, operands, expected", [
    ("tcgen05.mma.cta_group::1.kind::f16", ("[%r2]", "%rd2", "%rd3", "%r6", "p"),
     [("d_tmem", 0, False), ("a_desc", 1, True), ("b_desc", 2, True), ("idesc", 3, True)]),
    ("tcgen05.mma.cta_group::1.kind::f16", ("[%r2]", "[%r8]", "%rd3", "%r6", "p"),
     [("d_tmem", 0, False), ("a_tmem", 1, False), ("b_desc", 2, True), ("idesc", 3, True)]),
    ("tcgen05.mma.sp.cta_group::2.kind::f8f6f4", ("[%r2]", "%rd2", "%rd3", "[%r9]", "%r6", "p"),
     [("d_tmem", 0, False), ("a_desc", 1, True), ("b_desc", 2, True), ("sp_meta", 3, False),
      ("idesc", 4, True)]),
    ("tcgen05.mma.ws.cta_group::1.kind::i8", ("[%r2]", "%rd2", "%rd3", "%r6", "p", "%rd9"),
     [("d_tmem", 0, False), ("a_desc", 1, True), ("b_desc", 2, True), ("idesc", 3, True),
      ("zcm", 5, True)]),
    ("tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X",
     ("[%r2]", "%rd2", "%rd3", "%r6", "[%r10]", "[%r11]", "p"),
     [("d_tmem", 0, False), ("a_desc", 1, True), ("b_desc", 2, True), ("idesc", 3, True),
      ("scale_tmem", 4, False), ("scale_tmem", 5, False)]),
    ("wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16", ("{%f1, %f2}", "%rd1", "%rd2", "p", "1",
                                                         "1", "0", "0"),
     [("a_desc", 1, True), ("b_desc", 2, True)]),
    ("wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16", ("{%f1, %f2}", "{%r1, %r2}", "%rd2",
                                                         "p", "1", "1", "0"),
     [("b_desc", 2, True)]),
    ("tcgen05.cp.cta_group::1.128x256b", ("[%r1]", "%rd2"), [("taddr", 0, False),
                                                            ("s_desc", 1, True)]),
])
def test_ptx_roles(opcode, operands, expected):
    s = ptx_site(opcode, operands)
    assert s is not None and [(o.role, o.index, o.judged) for o in s.operands] == expected


def test_ptx_context():
    s = ptx_site("tcgen05.mma.sp.cta_group::2.kind::mxf8f6f4.block_scale.scale_vec::1X",
                 ("[%r2]", "%rd2", "%rd3", "[%r9]", "%r6", "[%r10]", "[%r11]", "p"))
    assert (s.kinds, s.cta_group, s.sp, s.ws, s.block_scale, s.scale_vec) == \
        (("mxf8f6f4",), 2, True, False, True, "scale_vec::1X")
    assert s.label == s.opcode
    assert ptx_site("tcgen05.mma.cta_group::1.kind::f17", ("[%r2]",)).kinds == ()
    assert ptx_site("stmatrix.sync.aligned.m8n8.x1.shared.b16", ("[%r1]", "{%r2}")) is None


# ---------------------------------------------------------------------------- one site for all

def _fixtures() -> list[Path]:
    files = [*sorted((ROOT / "lint").glob("*.sass")), *sorted((ROOT / "lint").glob("*.ptx")),
             *sorted((ROOT / "hopper").rglob("*.sass.gz"))[:6],
             *sorted((ROOT / "hopper").rglob("*.ptx.gz"))[:4],
             *sorted((ROOT / "binaries").glob("*.sass"))]
    mma = ("MMA ", "MMA.", "GMMA.", "tcgen05.mma", "wgmma.mma_async")
    files = [p for p in files if any(m in line for line in _lines(p) for m in mma)]
    assert len(files) > 50
    return files


def _lines(path: Path) -> list[str]:
    data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    return data.decode("utf-8", "replace").splitlines()


@pytest.mark.parametrize("path", _fixtures(), ids=lambda p: p.name)
def test_lint_dump_and_live_read_one_site(path, monkeypatch):
    """Every MMA of a fixture: the site the reader attaches is the one its text gives, the one
    lint judges, the one dump names the words by and, for SASS, the one the live path reads
    from the same line (in the listing's spelling and in cuda-gdb's, without spaces)."""
    lines = _lines(path)
    dialect, items = read(lines)
    instructions = [i for i in items if isinstance(i, Instruction) and i.site is not None
                    and i.site.mma]
    assert instructions, path
    for ins in instructions:
        assert ins.site == site(ins.dialect, ins.opcode,
                                tuple(o.text for o in ins.operands[:_written(ins)]))
    seen: dict[str, dict[int, MmaSite]] = {"lint": {}, "dump": {}}

    def spy(name, fn, where):
        def wrapped(*args, **kwargs):
            ins = next(a for a in args if isinstance(a, Instruction))
            # the site the check is given (lint's _check_mma takes it as its context)
            given = next((a for a in args if isinstance(a, MmaSite)), ins.site)
            seen[where][ins.line] = given
            return fn(*args, **kwargs)
        monkeypatch.setattr(name[0], name[1], wrapped)
    spy((lint, "_check_mma"), lint._check_mma, "lint")
    spy((lint, "_check_wgmma"), lint._check_wgmma, "lint")
    for fn in ("sass_mma", "sass_wgmma", "ptx_mma"):
        spy((dump_code._CodeWords, fn), getattr(dump_code._CodeWords, fn), "dump")
    list(lint.lint_lines(lines, file=path.name))
    dump.scan("\n".join(lines))
    expected = {i.line: i.site for i in instructions}
    judged = {line: s for line, s in expected.items() if s.kinds or s.family == "wgmma"}
    assert seen["lint"] == judged
    assert seen["dump"] == expected
    if dialect == "sass":
        for ins in instructions:
            regs = live.registers_named(ins.text)
            got = read_live(ins.text, dict.fromkeys(regs, 0))
            assert got is not None and got.site == ins.site, ins.text
            gdb_spelling = ins.text.replace(", ", ",").rstrip(" ;")
            assert read_live(gdb_spelling, {}).site.operands == ins.site.operands


def _written(ins: Instruction) -> int:
    """The operands as written (a SASS wgmma's B descriptor is appended by the reader)."""
    return len(ins.operands) - (ins.site.family == "wgmma" and ins.dialect == "sass")


#: What only the site may read from an instruction's text: operand brackets, kind and
#: cta_group qualifiers, SASS suffixes.  (live.py names the ``gdesc[..]`` operand of a wgmma
#: in its display; it reads no role from it.)
_ROLE_SYNTAX = ("gdesc[", "idesc[", "tmem[", ".kind::", ".cta_group::", "2CTA", ".WS", ".ws")


def _role_syntax(source: str) -> set[str]:
    """The pieces of :data:`_ROLE_SYNTAX` that the code's strings spell (docstrings aside)."""
    import ast
    tree = ast.parse(source)
    docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                  if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef)) and n.body
                  and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    return {s for n in ast.walk(tree) if isinstance(n, ast.Constant)
            and isinstance(n.value, str) and id(n) not in docstrings
            for s in _ROLE_SYNTAX if s in n.value}


@pytest.mark.parametrize("module", [lint, live, dump, dump_code, dump_logs, dump_score],
                         ids=lambda m: m.__name__)
def test_tools_read_no_role_from_text(module):
    """The tools take roles, kinds, cta_group and .ws from the site only: their code has no
    string that spells operand syntax or the qualifiers (docstrings and comments aside)."""
    import inspect
    allowed = {"gdesc["} if module is live else set()
    assert sorted(_role_syntax(inspect.getsource(module)) - allowed) == []


def test_the_syntax_check_sees_a_role_read():
    probe = 'def f(t):\n    """idesc[ in a docstring"""\n    return t.startswith(f"idesc[{t}") or ".2CTA" in t\n'
    assert _role_syntax(probe) == {"idesc[", "2CTA"}


def test_live_values_are_32_bit_words_or_refused():
    """A register's value as a debugger gives it: a signed reading is its two's complement; a
    value no 32-bit register holds is refused with the register's name, never masked."""
    from descriptors.errors import ParameterError
    line = "UTCHMMA gdesc[UR4], gdesc[UR6], tmem[UR8], tmem[UR14], idesc[UR15], UP0 ;"
    got = read_live(line, {"UR15": -1, "UR4": 0x10, "UR5": 0x40004040})
    idesc = got.operands[got.site.operand("idesc").index]
    assert idesc.value.is_const and idesc.value.value == 0xFFFFFFFF
    a = got.operands[got.site.operand("a_desc").index]
    assert a.value.value == 0x4000404000000010 and a.origin == (0, "$UR5")
    for bad in (1 << 32, -(1 << 31) - 1, "0x10", 1.0):
        with pytest.raises(ParameterError, match=r"^\$UR15: .* no 32-bit register value"):
            read_live(line, {"UR15": bad})
        with pytest.raises(ParameterError, match=r"^\$UR15: "):
            live.judge(line, {"UR15": bad}.get)


@pytest.mark.parametrize("cta", [1, 2])
@pytest.mark.parametrize("kind", ["f16", "tf32", "f8f6f4", "i8", "mxf8f6f4", "mxf4", "mxf4nvf4"])
def test_every_ptx_kind_and_cta_group(kind, cta):
    """Every .kind of tcgen05.mma (PTX ISA 9.7.16.10.9) under both cta_groups: the kind and
    cta_group the opcode names, the block-scaled forms' two scale addresses."""
    block = kind.startswith("mx")
    opcode = f"tcgen05.mma.cta_group::{cta}.kind::{kind}" + (".block_scale" if block else "")
    ops = ("[%r1]", "%rd2", "%rd3", "%r4") + (("[%r5]", "[%r6]") if block else ()) + ("p",)
    s = ptx_site(opcode, ops)
    assert (s.kinds, s.cta_group, s.block_scale) == ((kind,), cta, block)
    assert [o.role for o in s.operands if o.role == "scale_tmem"] == ["scale_tmem"] * (2 * block)


@pytest.mark.parametrize("opcode, kinds", [
    ("UTCIMMA", ("i8",)), ("UTCIMMA.2CTA", ("i8",)), ("UTCHMMA.2CTA.WS", ("f16", "tf32")),
    ("UTCQMMA.2CTA", ("f8f6f4",)),
])
def test_sass_opcodes_name_their_kinds(opcode, kinds):
    s = sass(f"{opcode} gdesc[UR4], gdesc[UR6], tmem[UR8], tmem[UR14], idesc[UR15], UP0 ;")
    assert s.kinds == kinds and s.cta_group == (2 if ".2CTA" in opcode else 1)
    assert s.ws == opcode.endswith(".WS") and not s.block_scale

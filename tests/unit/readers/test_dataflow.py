"""The SASS data flow (descriptors.readers.dataflow, through the SASS reader): what a register
holds where an MMA reads it, path by path."""

from __future__ import annotations

import pytest

from descriptors.tools.lint import lint_lines
from descriptors.readers import Instruction, sniff
from descriptors.readers.sass import read_sass

MMA = "UTCHMMA gdesc[UR8], gdesc[UR10], tmem[UR6], tmem[UR4], idesc[UR5], UPT ;"


def _idesc(lines: list[str]):
    mma = next(i for i in read_sass(lines) if isinstance(i, Instruction) and "MMA" in i.opcode)
    return mma.operands[4]


def _addressed(lines: list[str]) -> list[str]:
    return [f"        /*{16 * i:04x}*/                   {t}" for i, t in enumerate(lines)]


def test_a_later_write_kills_an_earlier_one():
    op = _idesc(_addressed(["UMOV UR5, 0x10400490 ;", "UMOV UR5, 0x8400490 ;", MMA]))
    assert op.value.value == 0x08400490 and not op.alternatives


def test_branches_merge_their_values():
    # if (p) UR5 = a; else UR5 = b; MMA
    op = _idesc(_addressed(["@P0 BRA 0x30 ;", "UMOV UR5, 0x8400490 ;", "BRA 0x40 ;",
                            "UMOV UR5, 0x8200490 ;", MMA]))
    assert sorted(a.bits.value for a in op.alternatives) == [0x08200490, 0x08400490]
    assert op.value.pattern() == "0x08?00490"


def test_complementary_guards_replace_the_value_before():
    op = _idesc(_addressed(["UMOV UR5, 0x1 ;", "@P0 UMOV UR5, 0x8400490 ;",
                            "@!P0 UMOV UR5, 0x8200490 ;", MMA]))
    assert sorted(a.bits.value for a in op.alternatives) == [0x08200490, 0x08400490]
    assert not any(a.skipped for a in op.alternatives)
    # the predicate written in between: the guards are no longer complementary
    op = _idesc(_addressed(["UMOV UR5, 0x1 ;", "@P0 UMOV UR5, 0x8400490 ;",
                            "ISETP.NE.AND P0, PT, R2, RZ, PT ;", "@!P0 UMOV UR5, 0x8200490 ;",
                            MMA]))
    # (both earlier values now hold only where the second guarded write is skipped)
    assert sorted(a.bits.value for a in op.alternatives if a.skipped) == [1, 0x08400490]
    assert [a.bits.value for a in op.alternatives if not a.skipped] == [0x08200490]


def test_not_yet_written_is_no_value():
    op = _idesc(_addressed(["@!UP1 UMOV UR5, 0x8420490 ;", "@!UP2 " + MMA]))
    assert op.value.is_const and op.value.value == 0x08420490


def test_a_call_may_change_any_register():
    op = _idesc(_addressed(["UMOV UR5, 0x8400490 ;", "CALL.ABS.NOINC R8 ;", MMA]))
    assert op.value.is_unknown


def test_a_loop_step_ends_unknown_and_the_loop_ends():
    # UR5 += 1 around a back edge: still changing after a few trips, so unknown (widening),
    # and the iteration ends
    op = _idesc(_addressed(["UMOV UR5, 0x8400490 ;", MMA, "UIADD3 UR5, UPT, UPT, UR5, 0x1, URZ ;",
                            "@P0 BRA 0x10 ;", "EXIT ;"]))
    assert op.value.is_unknown
    findings = list(lint_lines(_addressed(["UMOV UR5, 0x8400490 ;", MMA,
                                           "UIADD3 UR5, UPT, UPT, UR5, 0x1, URZ ;",
                                           "@P0 BRA 0x10 ;", "EXIT ;"])))
    assert [f.rule for f in findings if f.operand == "idesc"] == ["lint.runtime"]


def test_a_loop_past_max_rounds_leaves_every_queried_value_unknown(monkeypatch):
    import descriptors.readers.dataflow as dataflow
    lines = _addressed(["UMOV UR8, 0x40 ;", "UMOV UR5, 0x8400490 ;", MMA,
                        "UIADD3 UR5, UPT, UPT, UR5, 0x1, URZ ;", "@P0 BRA 0x20 ;", "EXIT ;"])
    mma = next(i for i in read_sass(lines) if isinstance(i, Instruction))
    assert mma.operands[0].value.pattern() == "0xxxxxxxxx00000040"  # A's low word, known
    monkeypatch.setattr(dataflow, "MAX_ROUNDS", 1)  # UR5's loop cannot settle in one round
    mma = next(i for i in read_sass(lines) if isinstance(i, Instruction))
    assert mma.operands[0].value.is_unknown and mma.operands[4].value.is_unknown


def test_solving_a_listing_leaves_no_reference_cycle():
    # the data flow's state (and the function's instructions) is freed when it returns, not
    # kept until the cyclic garbage collector runs
    import gc
    import gzip
    from pathlib import Path
    listing = Path(__file__).resolve().parents[3] / "fixtures" / "production" / \
        "gemm_e4m3_splitk2.sass.gz"
    lines = gzip.open(listing, "rt").read().splitlines()
    gc.collect()
    gc.disable()
    try:
        found = [i for i in read_sass(lines) if isinstance(i, Instruction)]
        assert len(found) > 10
        del found
        assert gc.collect() == 0
    finally:
        gc.enable()


def test_a_loop_that_does_not_write_a_register_keeps_its_value():
    # the idesc set before a K loop that never writes it: one constant at the MMA in the loop
    op = _idesc(_addressed(["UMOV UR5, 0x8400490 ;", "UIADD3 UR8, UR8, 0x2, URZ ;", MMA,
                            "@P0 BRA 0x10 ;", "EXIT ;"]))
    assert op.value.is_const and op.value.value == 0x08400490 and not op.alternatives


def test_a_loop_carried_value_is_joined_with_the_value_before_the_loop():
    # UR5 is 0x8400490 on entry and 0x8200490 on every later trip: both, path by path
    op = _idesc(_addressed(["UMOV UR5, 0x8400490 ;", MMA, "UMOV UR5, 0x8200490 ;",
                            "@P0 BRA 0x10 ;", "EXIT ;"]))
    assert sorted(a.bits.value for a in op.alternatives) == [0x08200490, 0x08400490]


def test_a_value_does_not_depend_on_what_else_is_asked():
    """The on-demand data flow answers each question the same whether it is asked alone or
    with every other operand of the function (a production kernel's MMAs)."""
    import gzip
    from pathlib import Path
    from descriptors.readers import dataflow, sass
    from descriptors.readers.sass import read
    path = Path(__file__).resolve().parents[3] / "fixtures/production/bmm_bf16_2cta.sass.gz"
    asked: list = []
    real = read.solve

    def spy(code, uses):
        uses = list(uses)
        asked.append((code, uses))
        return real(code, uses)

    read.solve = spy
    try:
        list(sass.read_sass(gzip.open(path, "rt").read().splitlines()))
    finally:
        read.solve = real
    code, uses = max(asked, key=lambda a: len(a[1]))
    together = dataflow.solve(code, uses)
    assert len(uses) > 100
    for use in uses[::7]:
        assert dataflow.solve(code, [use])[use] == together[use], use


def _steps_uncached(monkeypatch) -> None:
    """Every step worked out anew (``transfer.STEPS`` bypassed): the reference for the cache."""
    from descriptors.readers.sass import read, transfer
    monkeypatch.setattr(read, "step_kept",
                        lambda fn, i, reg, gdesc: transfer.step(fn.ins(i), reg, gdesc))


def _values(instructions) -> list:
    return [[(o.text, o.value, o.assumes, tuple(a.bits for a in o.alternatives))
             for o in i.operands] for i in instructions if isinstance(i, Instruction)]


def test_a_step_kept_by_spelling_is_the_step_worked_out(monkeypatch):
    """An instruction's step is kept by its spelling across functions and listings
    (``transfer.STEPS``): two production listings (an attention kernel's descriptors are stepped
    in K loops) read with the cache emptied, kept from the other listing, and bounded to one
    entry give the values that working out every step anew gives."""
    import gzip
    from pathlib import Path
    from descriptors.readers import sass
    from descriptors.readers.sass import transfer
    root = Path(__file__).resolve().parents[3] / "fixtures/production"
    texts = [gzip.open(root / name, "rt").read().splitlines()
             for name in ("fmha_bf16_h64_gen_sparse_q64.sass.gz", "gemm_mxe4m3_2cta.sass.gz")]

    def read() -> list:
        return [_values(sass.read_sass(t, facts=False)) for t in texts]

    transfer.STEPS.clear()
    cold = read()
    assert len(transfer.STEPS) > 100
    warm = read()  # (every step of both listings kept)
    with monkeypatch.context() as m:
        m.setattr(transfer, "STEPS_MAX", 1)
        transfer.STEPS.clear()
        bounded = read()
        assert len(transfer.STEPS) == 1
    _steps_uncached(monkeypatch)
    assert cold == warm == bounded == read()
    assert sum(len(v) for v in cold) > 50


def test_a_kept_step_is_the_step_of_its_spelling(monkeypatch):
    """A 64-bit K step (``UIADD3.64 d, UPT, UPT, s, IMM, URZ``) makes its source pair
    descriptor registers, so an add to ``s`` is a K step too -- unless it is guarded, or ``s``
    is no descriptor's (a Tensor Memory address).  Functions read in turn with the steps kept
    by spelling: the same add to a Tensor Memory address first; then the descriptor's, twice
    (the second takes its steps from the cache), and guarded; each as working out every step
    anew reads it."""
    from descriptors.readers import K_STEP_BITS
    from descriptors.readers.sass import transfer
    mma = MMA.replace("gdesc[UR8], gdesc[UR10]", "gdesc[UR10], gdesc[UR10]").replace("UR5]",
                                                                                     "UR17]")
    # the bits a K step may change all 1 (the start address and the unused bits above it, as
    # the layout table places them): a plain add of 2 carries out of them
    low = (1 << K_STEP_BITS) - 1

    def body(guard: str) -> list[str]:
        return _addressed([f"UMOV UR6, {low:#x} ;", "UMOV UR7, 0x40004040 ;", "ISETP.NE.AND P0, "
                           "PT, R0, RZ, PT ;", f"{guard}UIADD3 UR6, UPT, UPT, UR6, 0x2, URZ ;",
                           "UIADD3.64 UR10, UPT, UPT, UR6, 0x2, URZ ;", "UMOV UR17, 0x8400490 ;",
                           mma, "EXIT ;"])

    listing = ["\t\tFunction : t", *_addressed([
        f"UMOV UR6, {low:#x} ;", "UIADD3 UR6, UPT, UPT, UR6, 0x2, URZ ;",
        "LDTM.16dp256bit.x8 R4, tmem[UR6] ;", "EXIT ;"])]
    for name, guard in (("a", ""), ("b", ""), ("c", "@P0 ")):
        listing += [f"\t\tFunction : {name}", *body(guard)]
    transfer.STEPS.clear()
    t, a, b, c = _values(read_sass(listing, facts=False))
    assert t[1][1].value == low + 2  # (a plain add)
    # the add to UR6 a K step: no carry out of the start address and the unused bits above it
    # (a plain add sets the bit above them)
    assert a[0][1].zero >> K_STEP_BITS & 1 and a == b
    assert not c[0][1].zero >> K_STEP_BITS & 1
    _steps_uncached(monkeypatch)
    assert [t, a, b, c] == _values(read_sass(listing, facts=False))


def test_an_indirect_branch_goes_to_the_blocks_nothing_else_reaches():
    # BRX to a case block that only it reaches: the value set there comes from the BRX
    op = _idesc(_addressed(["UMOV UR5, 0x8400490 ;", "BRX R2 -0x10 ;", "EXIT ;", MMA]))
    assert op.value.value == 0x08400490


def test_sass_alloc_column_count():
    lines = _addressed(["UMOV UR4, 0x3 ;", "UTCATOMSWS.FIND_AND_SET.ALIGN UP0, UR4, UR4 ;",
                        "UMOV UR5, 0x4 ;", "UTCATOMSWS.FIND_AND_SET.ALIGN UP0, UR6, UR5 ;"])
    errors = [(f.line, f.rule, f.word) for f in lint_lines(lines) if f.severity == "error"]
    assert errors == [(2, "tmem.alloc", "96")]  # 3 x 32 columns: not a power of two


def test_the_sniffer_knows_header_lines_and_logs():
    listing = ["", "Fatbin elf code:", "================", "arch = sm_100a", "",
               "\tcode for sm_100a", "\t.target\tsm_100a", "\t\tFunction : k",
               '\t.headerflags\t@"EF_CUDA_ACCELERATORS EF_CUDA_SM100"']
    assert sniff(listing + _addressed([MMA])) == "sass"
    assert sniff(["\t.target\tsm_100a", ".version 9.0", ".visible .entry k()"]) == "ptx"
    log = ["(cuda-gdb) info registers UR4", "UR4            0x8400490           138413200",
           "idesc=0x08400490", "[block (0,0,0) thread (0,0,0)] adesc=0x4000404000010040"]
    assert sniff(log + _addressed([MMA])) is None  # a log with SASS in it
    assert sniff(["#include <cuda.h>", "int main() { return 0; }"]) is None


def test_family_build_is_sm_100f():
    listing = ["\tcode for sm_100", "\t.target\tsm_100", "\t\tFunction : k",
               '\t.headerflags\t@"EF_CUDA_SM100 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM100)"',
               *_addressed(["UMOV UR5, 0x8400490 ;", MMA])]
    arch = next(f for f in lint_lines(listing) if f.rule == "lint.arch")
    assert arch.message.startswith("arch-gated rules follow sm_100f: target sm_100f from "
                                   "'code for sm_100' (line 1): no arch-specific 'a'")


# ---------------------------------------------------------------- dump and lint: the same facts

def _code_fixtures():
    from pathlib import Path
    root = Path(__file__).resolve().parents[3] / "fixtures"
    paths = sorted((root / "lint").glob("*.sass")) + sorted((root / "lint").glob("*.ptx")) + \
        [root / "dumps" / "cuobjdump-sass.txt", root / "dumps" / "nvdisasm.txt"]
    return [pytest.param(p, id=p.name) for p in paths if "MMA" in p.read_text().upper()]


@pytest.mark.parametrize("path", _code_fixtures())
def test_dump_reports_every_constant_word_lint_judges(path):
    """dump and lint read one reader: every MMA instruction or shared memory descriptor that
    lint judges as a constant word (one value on every path, or the one value predicated
    writes guarded like the instruction give it) is a word dump reports, with the family the
    operand names."""
    from descriptors.tools.dump import scan
    from descriptors.readers import read
    from descriptors.readers.ptx import mma_operands
    lines = path.read_text().splitlines()
    dialect, items = read(lines)
    want: set[tuple[int, str]] = set()
    for ins in items:
        if not isinstance(ins, Instruction) or "MMA" not in ins.opcode.upper():
            continue
        if dialect == "ptx":
            ops = {r: o for r, o in mma_operands(ins).items() if r != "zcm"}.items()
        else:
            ops = [("idesc" if o.text.startswith("idesc[") else "a_desc", o)
                   for o in ins.operands if o.text.startswith(("idesc[", "gdesc["))]
        for role, op in ops:
            family = "idesc" if role == "idesc" else "smem"
            if op.value is not None and op.value.is_const and not op.alternatives:
                want.add((op.value.value, family))
            elif len(op.judged) == 1 and op.judged[0].bits.is_const:  # one written value (a
                want.add((op.judged[0].bits.value, family))  # predicated write guarded alike)
    got = {(f.word, f.best.descriptor) for f in scan("\n".join(lines))}
    assert want and want <= got, sorted(want - got)


def _forms():
    from pathlib import Path
    root = Path(__file__).resolve().parents[3] / "fixtures" / "sass-forms"
    return [pytest.param(p, id=p.name) for p in sorted((root / "out").iterdir())
            + sorted((root / "src").glob("*.ptx"))]


@pytest.mark.parametrize("path", _forms())
def test_every_compiled_form_lints_clean(path):
    """Every tcgen05 form ptxas assembled (fixtures/sass-forms: each MMA kind, cta_group 1 and
    2, .ws, .sp, block scaling with .4X on sm_100a and .BLOCK16 on sm_103a, cp, alloc, ld/st),
    as cuobjdump and nvdisasm list it, and the PTX it was assembled from: no error or
    warning."""
    import gzip
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as fh:
        lines = fh.read().splitlines()
    found = list(lint_lines(lines, file=path.name))
    assert [str(f) for f in found if f.severity in ("error", "warning")] == []
    from descriptors.readers import read
    mmas = [i for i in read(lines)[1] if isinstance(i, Instruction) and "MMA" in i.opcode.upper()]
    if "mma" in path.name or "family" in path.name or "sm103a" in path.name:
        assert mmas


def test_dump_follows_the_alternatives_lint_judges():
    """A value that holds only where a predicated write before the MMA did not happen (the MMA
    is guarded alike) is not judged by lint, and dump does not say it feeds the MMA."""
    from descriptors.tools.dump import scan
    lines = _addressed(["UMOV UR5, 0x10400490 ;", "@UP2 UMOV UR5, 0x8400490 ;", "@UP2 " + MMA])
    fed = {f.line: f.best.evidence for f in scan("\n".join(lines))}
    assert any("it feeds idesc[UR5]" in e for e in fed[2])
    assert not any("it feeds" in e for e in fed.get(1, ()))


def test_a_long_sass_function_is_read_in_pieces(monkeypatch):
    """A function longer than MAX_FUNCTION instructions is analysed in pieces, each boundary
    a lint.split note; every MMA of the listing is still judged (none lost at a boundary)."""
    import gzip
    from pathlib import Path
    from descriptors.readers.sass import read
    path = Path(__file__).resolve().parents[3] / "fixtures/production/bmm_bf16_2cta.sass.gz"
    lines = gzip.open(path, "rt").read().splitlines()
    whole = [i.line for i in read_sass(lines) if isinstance(i, Instruction)]
    monkeypatch.setattr(read, "MAX_FUNCTION", 500)
    pieces = [i.line for i in read_sass(lines) if isinstance(i, Instruction)]
    assert pieces == whole and len(whole) > 20
    splits = [f for f in lint_lines(lines) if f.rule == "lint.split"]
    assert len(splits) == (sum(1 for ln in lines if "/*" in ln and ";" in ln) - 1) // 500


# ---------------------------------------------------------------- every instruction line is read

def _sass_listings():
    from pathlib import Path
    root = Path(__file__).resolve().parents[3] / "fixtures"
    return sorted(p for p in root.rglob("*") if p.is_file() and (
        p.name.endswith((".sass", ".sass.gz", ".nvdisasm", ".nvdisasm.gz"))
        or p.name in ("cuobjdump-sass.txt", "nvdisasm.txt")))


def test_every_instruction_line_of_every_listing_is_read():
    """Every line of a committed SASS listing that has an instruction address and an upper-case
    opcode is read as an instruction (the second half of ``.16x32bx2``,
    ``LDTM.16dp32bit_t16_t31``, has a 17-character modifier and was once dropped unread)."""
    import gzip
    import re
    from descriptors.readers.sass import instruction
    addressed = re.compile(r"\s*/\*[0-9a-fA-F]{4,}\*/\s+@?!?[A-Z]")
    listings = _sass_listings()
    assert len(listings) >= 100
    lines = unread = 0
    long_modifier = set()
    for path in listings:
        with (gzip.open(path, "rt") if path.suffix == ".gz" else open(path)) as fh:
            for line in fh:
                if addressed.match(line):
                    lines += 1
                    got = instruction(line)
                    if got is None:
                        unread += 1
                    elif any(len(m) > 16 for m in got[1].split(".")[1:]):
                        long_modifier.add(got[1].split(".", 1)[0])
    assert lines > 200_000 and unread == 0
    assert long_modifier >= {"LDTM", "STTM"}


def test_the_second_half_of_a_16x32bx2_access_is_read_and_writes_its_vector():
    """``LDTM.16dp32bit_t16_t31.x64 R4, ..`` writes R4..R67: a value moved into R5 before it is
    gone (it was once read through the LDTM as the constant)."""
    lines = _addressed(["MOV R5, 0x8400490 ;", "UMOV UR9, 0x40 ;",
                        "LDTM.16dp32bit_t16_t31.x64 R4, tmem[UR9+0x10] ;", "R2UR UR5, R5 ;",
                        "UMOV UR8, 0x0 ;", MMA])
    read = [i for i in read_sass(lines) if isinstance(i, Instruction)]
    assert [i.opcode for i in read] == ["LDTM.16dp32bit_t16_t31.x64", "UTCHMMA"]
    assert read[0].operands[1].value.value == 0x50  # tmem[UR9+0x10]: UR9 + 0x10
    assert read[1].operands[4].value.is_unknown  # the LDTM's R5, not the MOV's


# ---------------------------------------------------------------- what an instruction writes

@pytest.mark.parametrize("writer", [
    "R2UR P1, UR5, R30 ;",                                   # the predicate: was R30 uniform
    "R2UR.OR P1, UR5, R30 ;",
    "ULOP3.LUT UP0, UR5, UR30, 0x3, URZ, 0xc0, !UPT ;",       # a predicate and a register
    "REDUX UR5, R2 ;",                                        # a warp's reduction (no RED)
])
def test_a_register_written_after_a_predicate_is_written(writer):
    """Opcodes that write a predicate first and a register after it, and ``REDUX`` (in the
    production listings), overwrite the register: the idesc moved into UR5 before is gone."""
    op = _idesc(_addressed(["UMOV UR5, 0x8400490 ;", writer, MMA]))
    assert op.value.is_unknown or op.value.value != 0x08400490
    assert not (op.value.is_const and op.value.value == 0x08400490)


def test_a_predicate_and_register_writer_computes_the_register():
    # ULOP3.LUT UP0, UR5, UR4, 0x7fffffff, URZ, 0xc0 (UR5 = UR4 & 0x7fffffff), UR4 a constant
    op = _idesc(_addressed(["UMOV UR4, 0x88400490 ;",
                            "ULOP3.LUT UP0, UR5, UR4, 0x7fffffff, URZ, 0xc0, !UPT ;", MMA]))
    assert op.value.is_const and op.value.value == 0x08400490


@pytest.mark.parametrize("writer, reg", [
    ("CS2R R4, SRZ ;", "R5"),                                 # a 64-bit zero: R4 and R5
    ("FMUL2 R4, R8.F32x2.HI_LO, R10.F32x2.HI_LO ;", "R5"),    # paired FP32: R4:R5
    ("LDSM.16.M88.4 R4, [R2] ;", "R7"),                       # ldmatrix .x4: R4..R7
    ("LDSM.U4x16P64TO8.MT1616 R4, [R2] ;", "R5"),
    ("HGMMA.64x128x16.F32.BF16 R24, gdesc[UR8], R24, gsb0 ;", "R87"),  # 64 accumulators
    ("HGMMA.64x64x16.F16 R24, gdesc[UR8], R24, gsb0 ;", "R39"),        # 16 (f16)
    ("QGMMA.64x128x32.F32.E4M3.E4M3 R24, gdesc[UR8], R24, gsb0 ;", "R87"),  # 64
    ("IGMMA.SP.REGOFFSET.64x64x64.S8.S8 R24, gdesc[UR8], R24, R60 ;", "R55"),  # 32 (s32)
    ("HMMA.16816.F32.BF16 R4, R8, R12, R4 ;", "R7"),           # mma.sync m16n8k16: 4
    ("LDSM.U4x16P64TO8.M816.2 R4, [R2] ;", "R5"),             # production's .2 form
    ("DADD R4, R8, R10 ;", "R5"),
    ("F2F.F64.F32 R4, R8 ;", "R5"),
])
def test_an_instruction_that_writes_several_registers_writes_them_all(writer, reg):
    """A value moved into a register that an instruction later overwrites as part of its
    destination group is gone (it was read through, as the constant)."""
    def idesc(r: str):
        lines = _addressed([f"MOV {r}, 0x8400490 ;", writer, f"R2UR UR5, {r} ;", MMA])
        mma = [i for i in read_sass(lines) if isinstance(i, Instruction)][-1]
        assert mma.opcode == "UTCHMMA"
        return mma.operands[4].value

    got = idesc(reg)
    assert not (got.is_const and got.value == 0x08400490), writer
    # and one register past the group is not touched
    got = idesc(f"R{int(reg[1:]) + 1}")
    assert got.is_const and got.value == 0x08400490, writer


def test_a_uniform_indirect_branch_is_a_branch():
    """``BRXU UR8 -0x..`` (in the production listings) jumps through a uniform register like
    ``BRX``: the case block it reaches holds the value written before it, and it does not fall
    through into the block after it."""
    op = _idesc(_addressed(["UMOV UR5, 0x8400490 ;", "BRXU UR8 -0x10 ;",
                            "UMOV UR5, 0x8200490 ;", "EXIT ;", MMA]))
    assert op.value.is_const and op.value.value == 0x08400490


def test_viadd_adds():
    """``VIADD Rd, Ra, imm`` (sm_90 on; common in the production listings) is followed."""
    lines = _addressed(["MOV R4, 0x8400480 ;", "VIADD R6, R4.reuse, 0x10 ;", "R2UR UR5, R6 ;",
                        MMA])
    op = _idesc(lines)
    assert op.value.is_const and op.value.value == 0x08400490


@pytest.mark.parametrize("source", ["R4.H1", "|R4|", "-R4", "R4.reuse.B1"])
def test_a_part_or_a_modified_register_is_not_the_register(source):
    """A half, a byte, an absolute value or a negation of a register is not followed as the
    register itself (it was once read as the whole register for halves and absolute values)."""
    lines = _addressed(["MOV R4, 0x8400490 ;", f"IADD3 R6, {source}, RZ, RZ ;", "R2UR UR5, R6 ;",
                        MMA])
    assert _idesc(lines).value.is_unknown


def test_a_wgmma_operand_with_lower_case_modifiers_is_a_memory_operand():
    """``gdesc[UR4].tnspA`` (an MN-major A, in the Hopper production listings) is the same
    memory operand as ``gdesc[UR4]``: its descriptor pair is read either way."""
    lines = _addressed(["UMOV UR4, 0x40 ;", "UMOV UR5, 0x40000040 ;", "UMOV UR6, 0x80 ;",
                        "UMOV UR7, 0x40000040 ;",
                        "HGMMA.64x64x16.F32 R24, gdesc[UR4].tnspA.tnspB, RZ, !UPT, gsb0 ;"])
    (wgmma,) = [i for i in read_sass(lines) if isinstance(i, Instruction)]
    gdesc = [o for o in wgmma.operands if o.text.startswith("gdesc[")]
    assert [o.memory for o in gdesc] == [True, True]
    assert [o.value.value for o in gdesc] == [0x4000004000000040, 0x4000004000000080]


def test_the_second_half_of_a_16x32bx2_access_is_judged():
    """lint judges ``LDTM.16dp32bit_t16_t31`` like the first half: columns past 511 are an
    error at the half's own address (``tmem[UR9+0x10]``: column 504 + 16)."""
    lines = ["\tcode for sm_100a", *_addressed(["UMOV UR9, 0x1f8 ;",
                                               "LDTM.16dp32bit_t16_t31.x64 R4, tmem[UR9+0x10] ;"])]
    errors = {(f.rule, f.message.split(" (")[0]) for f in lint_lines(lines)
              if f.severity == "error"}
    assert errors == {("tmem.ld.columns", "tcgen05.ld: access 1 touches columns 520-583, beyond "
                       "Tensor Memory's 512 columns"),
                      ("tmem.ld.columns", "tcgen05.ld: access 2 touches columns 520-583, beyond "
                       "Tensor Memory's 512 columns")}

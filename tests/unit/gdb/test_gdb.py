"""descgen inside cuda-gdb (descriptors.gdb), against a stand-in for gdb's Python API.

Hopper: the stand-in replays sessions recorded with cuda-gdb 13.0 on an H100
(fixtures/gdb/regs_*.json: the x/i text, every uniform register, the device's sm_type; made by
fixtures/gdb/run_device.sh, COMMANDS.md).  Blackwell: NOT recorded on hardware (no B200 here) --
the instruction lines are real compiled SASS (fixtures/lint/*.sass, nvcc 13.0 for sm_100a)
and the register values are supplied by the tests."""

from __future__ import annotations

import json
import types
from pathlib import Path

import pytest

from descriptors.gdb.commands import register

ROOT = Path(__file__).resolve().parents[3]
GDB = ROOT / "fixtures" / "gdb"


# ---------------------------------------------------------------------------- the stand-in

class _Error(RuntimeError):
    pass


class _GdbError(Exception):
    pass


class _Type:
    def __init__(self, code: int, sizeof: int) -> None:
        self.code, self.sizeof = code, sizeof

    def strip_typedefs(self) -> "_Type":
        return self


class _Value:
    """A register's value as cuda-gdb 13.0 gives it: uint32_t; an unknown register is void."""

    def __init__(self, v: int | None, fields: dict | None = None) -> None:
        self.v, self.fields = v, fields or {}
        # cuda-gdb: registers are uint32_t; a literal wider than 32 bits is a 64-bit long
        self.type = _Type(0 if v is None else 1, 0 if v is None else 4 if v < 1 << 32 else 8)

    def __int__(self) -> int:
        if self.v is None:
            raise _Error("Cannot convert value to long.")
        return self.v

    def __getitem__(self, k: str) -> "_Value":
        return _Value(self.fields[k])


def standin(xi: str, registers: dict, sm_type: str | None = "sm_90",
            thread: tuple[int, int, int] = (0, 0, 0)):
    """A ``gdb`` module stopped at one instruction: ``x/i`` prints ``xi``, the frame's
    registers are ``registers`` (recorded or supplied), the device reports ``sm_type``."""
    out: list[str] = []
    commands: dict[str, object] = {}
    regs = {k: v for k, v in registers.items() if isinstance(v, int)}

    class Command:
        def __init__(self, name, *args) -> None:
            commands[name] = self

    class Frame:
        def read_register(self, name: str) -> _Value:
            if name not in regs:
                raise ValueError("Bad register")  # what cuda-gdb 13.0 raises
            return _Value(regs[name])

    def parse_and_eval(expr: str) -> _Value:
        e = expr.strip()
        if e.startswith("$") and e[1:] in regs:
            return _Value(regs[e[1:]])
        if e.startswith("$"):
            return _Value(None)  # cuda-gdb: an unknown register is void, silently
        if e == "threadIdx":
            return _Value(0, dict(zip("xyz", thread)))
        if e == "blockDim":
            return _Value(0, {"x": 128, "y": 1, "z": 1})
        try:
            return _Value(int(e, 0))
        except ValueError:
            raise _Error(f'No symbol "{e}" in current context.') from None

    def execute(cmd: str, from_tty: bool = False, to_string: bool = False) -> str:
        if cmd.startswith("x/i"):
            return xi
        raise _Error(f"not recorded: {cmd}")

    dev = types.SimpleNamespace(sm_type=sm_type, name="NVIDIA H100 80GB HBM3")
    gdb = types.SimpleNamespace(
        Command=Command, GdbError=_GdbError, error=_Error, COMMAND_DATA=1, COMPLETE_COMMAND=2,
        COMPLETE_EXPRESSION=3, TYPE_CODE_VOID=0, write=out.append,
        parameter=lambda name: False, selected_frame=Frame, parse_and_eval=parse_and_eval,
        execute=execute,
        cuda=types.SimpleNamespace(devices=lambda: [dev] if sm_type else []))
    register(gdb)
    return gdb, commands, out


def recorded(name: str) -> list[dict]:
    return json.loads((GDB / f"{name}.json").read_text(encoding="utf-8"))


def run(cmds, out, name: str, arg: str = "") -> str:
    out.clear()
    cmds[name].invoke(arg, False)
    return "".join(out)


# ---------------------------------------------------------------------------- Hopper, recorded

def test_registers_commands_and_help() -> None:
    _gdb, cmds, out = standin("", {})
    assert set(cmds) == {"descgen", "descgen mma", "descgen decode", "descgen tmem"}
    assert "descgen mma [ADDRESS]" in run(cmds, out, "descgen")
    assert all(type(c).__doc__ for c in cmds.values())


@pytest.mark.parametrize("build", ["G", "lineinfo"])
def test_correct_descriptors_are_decoded_and_clean(build: str) -> None:
    stop = recorded(f"regs_{build}_0")[0]
    assert stop["sm_type"] == "sm_90" and "HGMMA.64x64x16.F32" in stop["x/i"]
    _gdb, cmds, out = standin(stop["x/i"], stop["registers"])
    text = run(cmds, out, "descgen mma")
    assert "rules for sm_90a: HGMMA is wgmma, which exists on sm_90a only (the device reports sm_90)" in text
    # the values the kernel printed (session_*_0.txt: a_desc = 0x4000004000010040 ...)
    assert "$UR4:$UR5 = 0x4000004000010040" in text
    assert "$UR6:$UR7 = 0x4000004000010240" in text
    assert "start 0x400, LBO 16 B, SBO 1024 B, swizzle 128B" in text
    assert "OK: 0 error(s), 0 warning(s), 0 note(s)" in text


@pytest.mark.parametrize("build", ["G", "lineinfo"])
def test_bit46_is_flagged(build: str) -> None:
    """Bit 46 (tcgen05's fixed constant) in a Hopper descriptor: a warning -- the H100 read
    maps show the hardware ignores it (fixtures/hopper/hardware), the text gives it no meaning."""
    stop = recorded(f"regs_{build}_1")[0]
    _gdb, cmds, out = standin(stop["x/i"], stop["registers"])
    text = run(cmds, out, "descgen mma")
    assert "warning: [wgmma.reserved] HGMMA.64x64x16.F32 A (K-major): reserved_46[48:46]" in text
    assert "a_desc = 0x4000404000010040 from $UR4:$UR5" in text
    assert "OK: 0 error(s), 1 warning(s)" in text


def test_lbo_sbo_swapped_is_read_with_the_opcodes_major() -> None:
    stop = recorded("regs_lineinfo_2")[0]
    _gdb, cmds, out = standin(stop["x/i"], stop["registers"])
    text = run(cmds, out, "descgen mma")
    assert "LBO 1024 B, SBO 16 B" in text
    assert text.count("warning: [wgmma.lbo_sbo_swapped]") == 2  # A and B
    assert text.count("[wgmma.lbo_unused]") == 2 and "K-major (from the opcode)" in text


def test_the_G_builds_commit_group_mma_is_not_a_user_bug() -> None:
    stops = [s for s in recorded("regs_G_0") if "HGMMA.64x8x16.F16" in s["x/i"]]
    assert len(stops) == 2  # one per kernel, at wgmma.commit_group, descriptors all zero
    for stop in stops:
        _gdb, cmds, out = standin(stop["x/i"], stop["registers"])
        text = run(cmds, out, "descgen mma")
        assert "nvcc's -G build adds at wgmma.commit_group" in text
        assert "not a bug in the program" in text and "INVALID" not in text


def test_a_from_registers_reads_b_only_mn_major() -> None:
    stop = next(s for s in recorded("regs_lineinfo_0") if "tnspB" in s["x/i"])
    _gdb, cmds, out = standin(stop["x/i"], stop["registers"])
    text = run(cmds, out, "descgen mma")
    assert "a_desc" not in text
    assert "b_desc  gdesc[UR4].tnspB   $UR6:$UR7 = 0x4000004002000040" in text
    assert "MN-major" in text and "lbo_unused" not in text  # MN-major: LBO is used


def test_decode_pair_register_and_errors() -> None:
    stop = recorded("regs_G_1")[0]
    gdb, cmds, out = standin(stop["x/i"], stop["registers"])
    text = run(cmds, out, "descgen decode", "$UR4:$UR5")
    assert "wgmma" in text and "reserved_46" in text  # an sm_90 device: the wgmma word
    text = run(cmds, out, "descgen decode", "$UR4:$UR5 --as smem --arch sm_100a")
    assert "smem" in text
    text = run(cmds, out, "descgen decode", "0x08400490 --kind f16")
    assert "f16" in text
    assert "kind::tf32" in run(cmds, out, "descgen decode", "0x08400490")
    with pytest.raises(gdb.GdbError, match="void"):
        run(cmds, out, "descgen decode", "$UR999")
    with pytest.raises(gdb.GdbError, match="--as"):
        run(cmds, out, "descgen decode", "$UR4 --as nope")
    with pytest.raises(gdb.GdbError, match="unknown option"):
        run(cmds, out, "descgen decode", "$UR4 --frobnicate")
    with pytest.raises(gdb.GdbError, match="No symbol"):
        run(cmds, out, "descgen decode", "nosuchvar")


def test_completion() -> None:
    gdb, cmds, _out = standin("", {})
    c = cmds["descgen decode"]
    assert c.complete("$UR4 --as ", "") == ["smem", "idesc", "zcm", "tmem", "wgmma"]
    assert c.complete("$UR4 --as w", "w") == ["wgmma"]
    assert "mxf4nvf4" in c.complete("$UR4 --kind mx", "mx")
    assert c.complete("$UR4 --k", "--k") == ["--kind"]
    assert c.complete("$U", "$U") == gdb.COMPLETE_EXPRESSION


def test_not_an_mma() -> None:
    gdb, cmds, out = standin("=> 0x7ffd <k+16>:\tWARPGROUP.ARRIVE", {})
    with pytest.raises(gdb.GdbError, match="descgen"):
        run(cmds, out, "descgen mma")


# ---------------------------------------------------------------------------- Blackwell, supplied

def _sass_line(fixture: str, opcode: str) -> str:
    """The first ``opcode`` instruction of a real compiled listing, as cuda-gdb's x/i would
    print it (no address, no ``;``, no spaces after commas)."""
    for line in (ROOT / "fixtures" / "lint" / fixture).read_text(encoding="utf-8").splitlines():
        if f" {opcode} " in line or f" {opcode}." in line:
            ins = line.split("*/", 1)[1].split(";", 1)[0].strip()
            return "=> 0x7fffd0001490 <kernel+1168>:\t" + ins.replace(", ", ",")
    raise AssertionError(f"{opcode} not in {fixture}")


# NOT recorded on hardware: register values the tests supply
SMEM_OK = 0x4000404000010000  # 128B swizzle, SBO 1024, version 1 (bit 46)


def test_blackwell_m256_cta1_is_an_error_as_lint_says() -> None:
    xi = _sass_line("bad_m256_cta1.sass", "UTCHMMA")
    assert xi.endswith("UTCHMMA gdesc[UR4],gdesc[UR6],tmem[UR8],tmem[UR14],idesc[UR15],UP0")
    regs = {"UR4": SMEM_OK & 0xFFFFFFFF, "UR5": SMEM_OK >> 32, "UR6": SMEM_OK & 0xFFFFFFFF,
            "UR7": SMEM_OK >> 32, "UR8": 0, "UR14": 0, "UR15": 0x10400490}
    _gdb, cmds, out = standin(xi, regs, sm_type="sm_100")
    text = run(cmds, out, "descgen mma")
    assert "rules for sm_100a: the device reports sm_100" in text
    assert "error: [idesc.shape]" in text and "M=256 is not allowed" in text
    assert "idesc = 0x10400490 from $UR15" in text
    assert "a_desc  gdesc[UR4]" in text and "d_tmem" in text


def test_blackwell_smem_without_version_bit() -> None:
    xi = _sass_line("bad_m256_cta1.sass", "UTCHMMA")
    regs = {"UR4": 0x10000, "UR5": 0x40000040, "UR6": SMEM_OK & 0xFFFFFFFF,
            "UR7": SMEM_OK >> 32, "UR8": 0, "UR14": 0, "UR15": 0x08400490}
    _gdb, cmds, out = standin(xi, regs, sm_type="sm_100")
    text = run(cmds, out, "descgen mma")
    assert "A descriptor" in text and "error:" in text and "fixed_constant" in text


def test_blackwell_register_not_read_is_said() -> None:
    xi = _sass_line("bad_m256_cta1.sass", "UTCHMMA")
    _gdb, cmds, out = standin(xi, {"UR15": 0x08400490}, sm_type="sm_100")
    text = run(cmds, out, "descgen mma")
    assert "not read: " in text and "UR4" in text


def test_tmem_command_warp_lanes() -> None:
    _gdb, cmds, out = standin("", {"UR8": (32 << 16) | 64}, sm_type="sm_100", thread=(0, 0, 0))
    text = run(cmds, out, "descgen tmem", "$UR8")
    assert "lane 32, column 64" in text and "warning: [tmem.warp_lanes]" in text
    _gdb, cmds, out = standin("", {"UR8": (32 << 16) | 64}, sm_type="sm_100", thread=(40, 0, 0))
    assert "note: [tmem.warp_lanes]" in run(cmds, out, "descgen tmem", "$UR8")


@pytest.mark.parametrize("session,stop", [("lineinfo_0", 0), ("lineinfo_1", 0), ("lineinfo_2", 0),
                                          ("G_0", 0), ("G_0", 1)])
def test_the_stand_in_prints_what_cuda_gdb_printed(session: str, stop: int) -> None:
    """ext_*.txt: the extension run inside cuda-gdb 13.0 on the H100; the stand-in, fed the
    registers recorded at the same stop, prints the same lines."""
    import re
    text = (GDB / f"ext_{session}.txt").read_text(encoding="utf-8")
    blocks = re.findall(r"\(cuda-gdb\) descgen mma\n(.*?[A-Z]+: \d+ error\(s\)[^\n]*\n)", text, re.S)
    s = recorded(f"regs_{session}")[stop]
    _gdb, cmds, out = standin(s["x/i"], s["registers"])
    assert run(cmds, out, "descgen mma") == blocks[stop]


def test_a_wider_value_is_refused_not_cut() -> None:
    """A pair's half or a Tensor Memory address wider than 32 bits: a gdb error naming it,
    never its low 32 bits."""
    gdb, cmds, out = standin("", {"UR4": 0x10, "UR5": 0x40000040})
    assert "0x4000004000000010" in run(cmds, out, "descgen decode", "$UR4:$UR5 --as wgmma")
    with pytest.raises(gdb.GdbError, match="does not fit 32 bits"):
        run(cmds, out, "descgen decode", "0x100000010:$UR5 --as wgmma")
    with pytest.raises(gdb.GdbError, match="does not fit 32 bits"):
        run(cmds, out, "descgen tmem", "0x100000000")

"""The ``descgen`` commands of the debugger, over its Python API passed in as ``gdb`` (the
real module inside cuda-gdb; a stand-in in the tests).

* ``descgen mma [ADDRESS]`` -- the instruction at ``$pc`` (or ADDRESS) as the debugger
  disassembles it (``x/i``), every descriptor operand read from the focused thread's registers
  and judged by :func:`descriptors.tools.live.judge` (lint's readers and rules);
* ``descgen decode EXPR [--as D] [--kind K] [--arch A]`` -- a register, a pair ``$UR4:$UR5``
  (low:high) or any expression, decoded and validated;
* ``descgen tmem EXPR`` -- a Tensor Memory address, with the lanes the focused warp may access.

Errors are ``gdb.GdbError`` (one line, no traceback); colour only when gdb styles its output
and standard output is a terminal (never in batch mode or a log).
"""

from __future__ import annotations

import os
import shlex
from typing import Any

from ..errors import DescgenError
from ..rules.validate import validate
from ..tools.lint import LintFinding
from ..tools.live import LiveMMA, judge, summary
from ..words.codec import DESCRIPTORS, decode
from ..words.enums import KINDS

__all__ = ["register", "render_mma", "HELP"]

HELP = """Decode and check NVIDIA tensor-core descriptors in the stopped program (descgen).

descgen mma [ADDRESS]   the MMA at $pc (or ADDRESS): each descriptor operand read from the
                        focused thread's registers, decoded with the instruction's context
                        (kind from the opcode, arch from the device) and checked by lint's rules
descgen decode EXPR [--as smem|idesc|zcm|tmem|wgmma] [--kind KIND] [--arch sm_NNNa]
                        a register ($UR4), a pair ($UR4:$UR5, low:high) or an expression
descgen tmem EXPR       a Tensor Memory address, with the lanes the focused warp may access"""

_SEV = {"error": "\x1b[1;31m", "warning": "\x1b[33m", "note": "\x1b[2m"}


def register(gdb: Any) -> dict[str, Any]:
    """Register the commands with ``gdb``; returns them by name (the tests call them).

    (Long: the commands are classes defined here, where ``gdb`` is in scope: its Python API
    exists only inside cuda-gdb.)"""
    cmds: dict[str, Any] = {}

    def colour() -> bool:
        try:
            styled = bool(gdb.parameter("style enabled"))
        except Exception:  # noqa: BLE001 - a gdb without styling
            styled = False
        return styled and "NO_COLOR" not in os.environ and os.isatty(1)

    def fail(message: str) -> Exception:
        return gdb.GdbError(f"descgen: {message}")

    def device_sm() -> str | None:
        cuda = getattr(gdb, "cuda", None)
        try:
            devs = cuda.devices() if cuda is not None else []
            return str(devs[0].sm_type) if devs else None
        except Exception:  # noqa: BLE001 - no device, or a gdb without gdb.cuda
            return None

    def read(name: str) -> int | None:
        try:
            return int(gdb.selected_frame().read_register(name)) & 0xFFFFFFFF
        except (ValueError, gdb.error):
            return None

    def value(expr: str) -> tuple[int, int]:
        """(value, width in bits) of an expression; ``lo:hi`` is a pair (low word first)."""
        expr = expr.strip()
        if ":" in expr and "::" not in expr:
            lo, hi = (word32(e) for e in expr.split(":", 1))
            return hi << 32 | lo, 64
        try:
            v = gdb.parse_and_eval(expr)
            t = v.type.strip_typedefs()
            if t.code == gdb.TYPE_CODE_VOID:
                raise fail(f"{expr} has no value (cuda-gdb reads an unknown register as void)")
            width = 8 * t.sizeof
            return int(v) & ((1 << width) - 1), width
        except gdb.error as exc:
            raise fail(f"{expr}: {exc}") from None

    def word32(expr: str) -> int:
        """A 32-bit value (a register, a pair's half, a Tensor Memory address); a wider value
        is refused, never cut to its low bits."""
        v, _width = value(expr)
        if v >> 32:
            raise fail(f"{expr.strip()} = {v:#x} does not fit 32 bits (a register, a pair's "
                       "half, a Tensor Memory address)")
        return v

    class Descgen(gdb.Command):
        __doc__ = HELP

        def __init__(self) -> None:
            super().__init__("descgen", gdb.COMMAND_DATA, gdb.COMPLETE_COMMAND, True)

        def invoke(self, arg: str, from_tty: bool) -> None:
            gdb.write(HELP + "\n")

    class Mma(gdb.Command):
        """The MMA at $pc (or ADDRESS): its descriptors from the focused thread's registers.

Usage: descgen mma [ADDRESS]
The instruction is what `x/i ADDRESS` prints; its operands' registers are read from the
focused thread (at another ADDRESS than $pc they hold what they hold now).  tcgen05 UTC*MMA,
UTCCP, LDTM/STTM (sm_100a and later) and wgmma HGMMA/IGMMA/QGMMA/BGMMA (sm_90a) are read."""

        def __init__(self) -> None:
            super().__init__("descgen mma", gdb.COMMAND_DATA, gdb.COMPLETE_EXPRESSION)

        def invoke(self, arg: str, from_tty: bool) -> None:
            from ..readers.gdb import disassembly
            where = arg.strip() or "$pc"
            try:
                text = gdb.execute(f"x/i {where}", to_string=True)
            except gdb.error as exc:
                raise fail(f"x/i {where}: {exc}") from None
            got = disassembly(text)
            if got is None:
                raise fail(f"no instruction at {where}: {text.strip()!r}")
            address, symbol, ins = got
            try:
                live = judge(ins, read, device_sm=device_sm())
            except DescgenError as exc:
                raise fail(str(exc)) from None
            gdb.write(render_mma(live, address, symbol, colour()))

    class Decode(gdb.Command):
        """Decode a descriptor held in a register, a register pair or an expression.

Usage: descgen decode EXPR [--as smem|idesc|zcm|tmem|wgmma] [--kind KIND] [--arch sm_NNNa]
EXPR: $UR4 (32 bits), $UR4:$UR5 or $R4:$R5 (a 64-bit pair, low:high), or any expression.
Without --as, 64 bits read as the shared memory descriptor (the wgmma one on an sm_90 device)
and 32 bits as an instruction descriptor (every kind, without --kind)."""

        def __init__(self) -> None:
            super().__init__("descgen decode", gdb.COMMAND_DATA)

        def invoke(self, arg: str, from_tty: bool) -> None:
            expr, opts = _options(arg, fail, ("--as", "--kind", "--arch"))
            word, width = value(expr)
            sm = device_sm()
            what = opts.get("--as") or ("wgmma" if width > 32 and sm == "sm_90" else
                                        "smem" if width > 32 else "idesc")
            if what not in DESCRIPTORS:
                raise fail(f"--as {what}: one of {', '.join(DESCRIPTORS)}")
            arch = opts.get("--arch") or ("sm_90a" if what == "wgmma" else None)
            kind = opts.get("--kind")
            try:
                if what == "idesc" and kind is None:
                    gdb.write(_every_kind(word, arch, colour()))
                    return
                from ..render.printer import plain
                d = decode(what, word, kind=kind) if kind else decode(what, word)
                extra = {"kind": kind} if kind else {}
                findings = validate(what, word, arch=arch, **extra)
                gdb.write(plain(d, findings) + "\n")
            except DescgenError as exc:
                raise fail(str(exc)) from None

        def complete(self, text: str, word: str) -> Any:
            return _complete(gdb, text, word)

    class Tmem(gdb.Command):
        """A Tensor Memory address: lane and column, the address rules, and the lanes the
focused warp may access (warp w: lanes 32*(w%4)..+31, PTX ISA 9.7.16.8.1).

Usage: descgen tmem EXPR"""

        def __init__(self) -> None:
            super().__init__("descgen tmem", gdb.COMMAND_DATA, gdb.COMPLETE_EXPRESSION)

        def invoke(self, arg: str, from_tty: bool) -> None:
            if not arg.strip():
                raise fail("usage: descgen tmem EXPR")
            word = word32(arg)
            sm = device_sm()
            arch = (sm + "a") if sm and sm[-1] not in "af" and sm != "sm_90" else None
            lines = [f"{arg.strip()} = {word:#010x}: {summary('tmem', word)}"]
            try:
                fs = validate("tmem", word, arch=arch) if arch else validate("tmem", word)
            except DescgenError as exc:
                raise fail(str(exc)) from None
            lines += [_finding_line(f.severity, f.rule, f"{f.field}{f.bits or ''}: {f.message} "
                                    f"({f.source})", colour()) for f in fs]
            warp = _warp(gdb)
            lane = (word >> 16) & 0xFFFF
            if warp is not None:
                q = warp % 4
                inside = 32 * q <= lane < 32 * q + 32
                lines.append(_finding_line(
                    "note" if inside else "warning", "tmem.warp_lanes",
                    f"the focused warp {warp} (warp id % 4 = {q}) may access lanes "
                    f"{32 * q}-{32 * q + 31} with tcgen05.ld/st; lane {lane} is "
                    f"{'inside' if inside else 'outside'} (9.7.16.8.1)", colour()))
            if sm == "sm_90":
                lines.append("  (the device is sm_90: Tensor Memory exists on sm_100a and later)")
            gdb.write("\n".join(lines) + "\n")

    for c in (Descgen(), Mma(), Decode(), Tmem()):
        cmds[getattr(c, "_name", None) or type(c).__name__.lower()] = c
    return cmds


def _options(arg: str, fail: Any, names: tuple[str, ...]) -> tuple[str, dict[str, str]]:
    try:
        words = shlex.split(arg)
    except ValueError as exc:
        raise fail(str(exc)) from None
    opts: dict[str, str] = {}
    rest: list[str] = []
    i = 0
    while i < len(words):
        w = words[i]
        name, eq, val = w.partition("=")
        if name in names:
            if not eq:
                if i + 1 >= len(words):
                    raise fail(f"{name} needs a value")
                i += 1
                val = words[i]
            opts[name] = val
        elif w.startswith("--"):
            raise fail(f"unknown option {w}; known: {', '.join(names)}")
        else:
            rest.append(w)
        i += 1
    if not rest:
        raise fail("an expression is needed (a register $UR4, a pair $UR4:$UR5, ...)")
    return " ".join(rest), opts


def _complete(gdb: Any, text: str, word: str) -> Any:
    words = text.split()
    prev = words[-1] if words and not text.endswith(word or "\0") else \
        (words[-2] if len(words) > 1 else "")
    if text.endswith(" ") and words:
        prev = words[-1]
    if prev == "--as":
        return [d for d in DESCRIPTORS if d.startswith(word)]
    if prev == "--kind":
        return [k for k in KINDS if k.startswith(word)]
    if prev == "--arch":
        from ..rules.validate import ARCHES
        return [a for a in ARCHES if a.startswith(word)]
    if word.startswith("-"):
        return [o for o in ("--as", "--kind", "--arch") if o.startswith(word)]
    return gdb.COMPLETE_EXPRESSION


def _warp(gdb: Any) -> int | None:
    """The focused thread's warp in its CTA: its linear thread index // 32."""
    try:
        t, b = gdb.parse_and_eval("threadIdx"), gdb.parse_and_eval("blockDim")
        linear = int(t["x"]) + int(b["x"]) * (int(t["y"]) + int(b["y"]) * int(t["z"]))
        return linear // 32
    except Exception:  # noqa: BLE001 - not in a kernel
        return None


def _finding_line(severity: str, rule: str, message: str, colour: bool) -> str:
    head = f"{severity}: [{rule}]"
    if colour:
        head = f"{_SEV.get(severity, '')}{head}\x1b[0m"
    return f"  {head} {message}"


def _every_kind(word: int, arch: str | None, colour: bool) -> str:
    lines = [f"{word:#010x} as an instruction descriptor, every kind (--kind to choose):"]
    for kind in KINDS:
        try:
            fs = validate("idesc", word, kind=kind, **({"arch": arch} if arch else {}))
            errors = [f for f in fs if f.severity == "error"]
            lines.append(f"  kind::{kind:<9} {summary('idesc', word, kind)}"
                         + (f"  -- {len(errors)} error(s): " + ", ".join(sorted({f.rule for f in errors}))
                            if errors else "  -- valid"))
        except DescgenError as exc:
            lines.append(f"  kind::{kind:<9} not decoded: {exc}")
    return "\n".join(lines) + "\n"


def render_mma(live: LiveMMA, address: int | None = None, symbol: str | None = None,
               colour: bool = False) -> str:
    """The text ``descgen mma`` prints."""
    where = (f" at {address:#x}" if address is not None else "") + (f" <{symbol}>" if symbol else "")
    lines = [f"{live.instruction}{where}", f"  rules for {live.arch}: {live.arch_reason}"]
    for o in live.operands:
        regs = ":".join(f"${r}" for r in o.registers)
        word = "?" if o.word is None else f"{o.word:#0{18 if len(o.registers) > 1 else 10}x}"
        what = o.descriptor + (f" kind::{o.kind}" if o.kind else "") + \
            (f", {o.major}-major" if o.major else "")
        lines.append(f"  {o.name:<7} {o.text:<18} {regs} = {word}")
        lines.append(f"          {what}: {o.summary}")
    for f in live.findings:
        lines.append(_finding_line(f.severity, f.rule, f.message, colour))
        lines += [f"      {e}" for e in f.evidence]
    lines += [f"  note: {n}" for n in live.notes]
    count = {s: sum(f.severity == s for f in live.findings) for s in ("error", "warning", "note")}
    verdict = "INVALID" if count["error"] else "OK"
    lines.append(f"  {verdict}: {count['error']} error(s), {count['warning']} warning(s), "
                 f"{count['note']} note(s)")
    return "\n".join(lines) + "\n"


_ = LintFinding  # the findings' type (re-exported for readers of render_mma)

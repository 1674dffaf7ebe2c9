"""A small parser for one PTX instruction statement (label, predicate guard, qualifiers,
operands; comments and ``;`` stripped) and for ``.reg`` declarations."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from ...structs import Struct
from ...errors import shorten, shorten_text
from ...words.literals import MAX_LINE, split_operands
from .catalog import MODELS
from .models import InstructionError

#: Longest register vector read; PTX's longest is 128 (tcgen05 .x128).
MAX_VECTOR = 256


class ParsedInstruction(Struct, frozen=True):
    """One instruction statement: ``mnemonic`` (a key of :data:`MODELS`), ``qualifiers`` as
    written (without dots) with their 1-based columns, ``operands`` (text, column), the
    ``text`` read (guard and label removed) and the guard (``@p``/``@!p``) if any."""

    text: str
    mnemonic: str
    qualifiers: tuple[tuple[str, int], ...]
    operands: tuple[tuple[str, int], ...]
    guard: str | None = None
    col: int = 1


_GUARD = re.compile(r"@!?%?[A-Za-z_$][\w$]*\s+")
_LABEL = re.compile(r"[A-Za-z_$%][\w$]*\s*:(?!:)\s*")
_OPCODE = re.compile(r"[a-z][a-z0-9_]*(?:\.[A-Za-z0-9_]+(?:::[A-Za-z0-9_]+)*)*")


def _split_operands(text: str, base: int) -> list[tuple[str, int]]:
    out, problem = split_operands(text, base)
    if problem is not None:
        raise InstructionError(problem)
    return out


def parse_instruction(text: Any) -> ParsedInstruction:
    """Read one PTX instruction statement (``stmatrix``, ``wmma.load``, ``tcgen05.ld``/``st``).

    Accepts a leading guard (``@%p1``), a label (``L1:``), a trailing ``;`` and a ``//``
    comment.  Raises :class:`InstructionError` (one line, never a traceback) for text that is
    not a string, empty, longer than :data:`MAX_LINE`, holds control characters or non-ASCII
    bytes outside a comment, has no ``;`` after operands when followed by more text, an
    unknown mnemonic, unbalanced brackets, or a vector longer than :data:`MAX_VECTOR`.
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    if not isinstance(text, str):
        raise InstructionError(f"an instruction is text, not {type(text).__name__}")
    if len(text) > MAX_LINE:
        raise InstructionError(f"the instruction is {len(text)} characters long; at most "
                               f"{MAX_LINE} are read")
    line = text.split("//", 1)[0]
    bad = next((i for i, ch in enumerate(line) if not (" " <= ch <= "~" or ch in "\t\r\n")),
               None)
    if bad is not None:
        raise InstructionError(f"column {bad + 1}: character {line[bad]!r} is not PTX text")
    stripped = line.strip()
    if not stripped:
        raise InstructionError("no instruction: the line is empty")
    col = len(line) - len(line.lstrip()) + 1
    body = stripped
    if ";" in body:
        body, rest = body.split(";", 1)
        if rest.strip():
            raise InstructionError("more than one statement on the line (text after ';'); "
                                   "give one instruction")
    guard = None
    m = _LABEL.match(body)
    if m:
        col += m.end()
        body = body[m.end():]
    m = _GUARD.match(body)
    if m:
        guard = m.group(0).strip()
        col += m.end()
        body = body[m.end():]
    m = _OPCODE.match(body)
    if m is None:
        raise InstructionError(f"no instruction mnemonic at the start of {shorten(body)}")
    opcode = m.group(0)
    mnemonic = next((k for k in sorted(MODELS, key=len, reverse=True)
                     if opcode == k or opcode.startswith(k + ".")), None)
    if mnemonic is None:
        raise InstructionError(f"unknown mnemonic {shorten_text('.'.join(opcode.split('.')[:2]))}"
                               ": descgen models " + ", ".join(MODELS))
    after = body[m.end():]
    if after and not after[0].isspace() and after[0] not in "{[":  # ptxas: b32{%r1},[%r2]
        raise InstructionError(f"column {col + m.end()}: unexpected {after[0]!r} in the "
                               f"opcode {shorten_text(body)}")
    quals: list[tuple[str, int]] = []
    pos = col + len(mnemonic) + 1
    for q in opcode[len(mnemonic) + 1:].split(".") if opcode != mnemonic else []:
        quals.append((q, pos))
        pos += len(q) + 1
    rest = after.strip()
    if not rest and MODELS[mnemonic].operands:
        raise InstructionError(f"{mnemonic}: no operands (truncated line?)")
    base = col + m.end() + len(after) - len(after.lstrip())
    operands = _split_operands(rest, base) if rest else []
    for op, c in operands:
        if op.startswith("{") and op.count(",") + 1 > MAX_VECTOR:
            raise InstructionError(f"column {c}: a vector of {op.count(',') + 1} registers; PTX "
                                   f"vectors here hold at most 128 (read up to {MAX_VECTOR})")
    return ParsedInstruction(" ".join(stripped.split()), mnemonic, tuple(quals),
                             tuple(operands), guard, col)


#: Bits of each type a ``.reg`` declaration may name: the fundamental types (PTX ISA 5.2.2,
#: Table 8: .s/.u/.b 8-64, .b128, .f16/.f32/.f64, .pred) and the packed and alternate
#: floating-point ones registers hold (5.2.3: .f16x2, .bf16, .bf16x2, .tf32).  Another type is
#: no PTX type: a register declared with it has no known width.
PTX_REGISTER_BITS: dict[str, int] = {
    **{f"{k}{n}": n for k in "bsu" for n in (8, 16, 32, 64)}, "b128": 128,
    "f16": 16, "f32": 32, "f64": 64, "pred": 1,
    "f16x2": 32, "bf16": 16, "bf16x2": 32, "tf32": 32}

_DECL = re.compile(r"\.reg\s+\.(\w+)\s+([^;\n]+)")
_DECL_ITEM = re.compile(r"(%?[A-Za-z_$][\w$]*)(?:<([0-9]{1,9})>)?")


class RegisterDecls(Mapping[str, str]):
    """Declared register types, name -> type (``"b32"``), without expanding
    ``%r<100000>``: a parameterised declaration answers for ``%r0 .. %r99999`` lazily.
    Later declarations win.  Iteration lists the plain names only."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.ranges: dict[str, tuple[int, str]] = {}

    def add(self, text: str) -> None:
        """Read the declarations in ``text`` (``.reg .b32 %r<10>, %q;``); other text is
        ignored."""
        for m in _DECL.finditer(text.split("//", 1)[0]):
            rtype = m.group(1)
            for item in m.group(2).split(","):
                d = _DECL_ITEM.fullmatch(item.strip())
                if d is None:
                    continue
                if d.group(2) is None:
                    self.names[d.group(1)] = rtype
                else:
                    self.ranges[d.group(1)] = (int(d.group(2)), rtype)

    def __getitem__(self, name: str) -> str:
        if name in self.names:
            return self.names[name]
        if self.ranges and isinstance(name, str):
            # %r007 is %r00 + 7 (a number has no leading zero; 0 alone is one)
            stem = name.rstrip("0123456789")
            digits = name[len(stem):]
            number = digits.lstrip("0") or digits[-1:]
            stem = name[:len(name) - len(number)]
            got = self.ranges.get(stem) if number else None
            if got is not None and len(number) <= 9 and int(number) < got[0]:
                return got[1]
        raise KeyError(name)

    def __contains__(self, name: object) -> bool:
        try:
            self[name]  # type: ignore[index]
        except (KeyError, TypeError):
            return False
        return True

    def __iter__(self):  # type: ignore[override]
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)


def parse_registers(lines: Iterable[str]) -> RegisterDecls:
    """Register declarations of a PTX module (``.reg .b32 %r<10>;`` declares ``%r0..%r9``;
    ``.reg .f64 fd, x;``) as a mapping name -> type; other lines are ignored."""
    out = RegisterDecls()
    for line in lines:
        out.add(line)
    return out

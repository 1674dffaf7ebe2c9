"""PTX reader: statements of a PTX module (or bare instruction lines) as known-bits facts.

(Long: the statement parser, the one-pass environment every register defined once goes
through, and the control flow built for :func:`~descriptors.readers.dataflow.solve` share one
statement representation (``_Stmt``) and its per-line caches.)

Data flow followed (per function, ``.entry``/``.func``): ``mov`` (immediates, registers,
``mov.b64 %rd, {%lo, %hi}`` and the split ``mov.b64 {%lo, %hi}, %rd``, any vector size, a sink
``_`` taking its piece away: CuTe DSL reads an idesc with ``mov.b64 {_, %r91}, %rd2``),
``and``/``or``/``xor``/``not``, ``shl``/``shr``, ``add``/``sub``/``mul.lo``/``mul.wide``, ``cvt``
between integer types (zero- or sign-extension, truncation) and ``selp`` (either value).
Immediates are decimal (nvcc writes descriptors that way: ``mov.b32 %r37, 138413200;``),
hexadecimal (``0x``, with or without a ``U`` suffix), octal or binary, negative with a minus,
and as wide as the instruction's type (a 64-bit one stays whole, also as an instruction's
operand).  Everything else that writes a register (``ld``, ``cvta``, special registers, a symbol
address ...) makes it unknown: a run-time value.

Value sets (:mod:`descriptors.readers.values`): ``selp`` gives its destination both sources'
values side by side, each an :class:`~descriptors.readers.values.Alternative` with the line
that made it, and every operation above applied to such a register gives one alternative per
combination (:func:`~descriptors.readers.values.combine`, merged past
:data:`~descriptors.readers.values.MAX_ALTERNATIVES`); a plain ``mov`` copy keeps each
alternative's origin.  So CuTe DSL's instruction descriptor (``selp`` of the negate bits, ``or``
with the constant fields) reaches the ``tcgen05.mma`` as each word it may be.  An operand with
two or more distinct alternatives has them in ``Operand.alternatives`` and their meet (the bits
they all agree on) in ``Operand.value``.  Registers that hold one value cost nothing more: the
value-set path runs only for ``selp`` and for statements that read a register with several.

A register written more than once in a function (a loop-carried value, a value of each arm of
an if/else), or written by a predicated instruction (``@%p1 mov.b32 ...``), and a register
computed from such a one, hold at a judged operand (a descriptor, the idesc ...) what the
data flow over the function's paths gives them
(:func:`~descriptors.readers.dataflow.solve`, the engine of the SASS reader too): the
function's blocks begin at labels and end at ``bra``, ``brx.idx``, ``ret``, ``exit`` and
``trap``; a ``@%p``/``@!%p`` guard makes a write one that may not happen (a pair of them under
complementary guards, one that does); each write reaching the operand is one alternative with
its line.  A ``call`` changes no register of the caller (PTX registers belong to their
function).  Elsewhere the value of such a register is unknown.  Inline-asm blocks
(``{ .reg .pred p; ... }``) are read like the rest, their labels their own.

Speed: a statement is parsed once per distinct line (modules repeat lines: ``ret;``,
``bar.sync 0;``, the same moves in every kernel), with what the analysis asks of it (registers
written, K step, immediates, operand split, and the value when every source is an immediate)
worked out then; register declarations are read once per distinct set of ``.reg`` lines (with
the declared registers an instruction names) and immediates once per text.  Every memo is bounded
(:data:`_LINE_CACHE` lines of at most :data:`_LINE_CACHE_CHARS` characters, 256 declaration
sets, 4096 immediates), and none changes an item (``tests/unit/tools/test_ptx_dump.py`` reads with them
off and on).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Iterable, Iterator
from itertools import chain, repeat
from time import perf_counter
from typing import Any

from ..isa.instructions import MODELS, RegisterDecls
from ..isa.instructions.parse import PTX_REGISTER_BITS
from . import MAX_FUNCTION, Fact, Instruction, Operand
from ..isa.sites import ptx_site
from .ksteps import K_STEP_ASSUMPTION, is_k_step, k_stepped
from .knownbits import KnownBits
from ..words.literals import parse_immediate, split_operands
from ..structs import replace
from .dataflow import EVERY, SLOW, Code, Step, solve
from .values import Alternative, ValueSet, combine, join, meet

__all__ = ["read_ptx", "parse_immediate", "mma_operands", "wgmma_operands"]

_TYPE = re.compile(r"\.([bsu])(8|16|32|64)\b")
_REG = re.compile(r"%[A-Za-z_$][\w$]*(?:\.[xyzw])?\Z")
_LABEL = re.compile(r"\s*[A-Za-z_$][\w$]*\s*:\s*")
#: A statement that begins with a label (a cheap test before :func:`_labels`).
_LABELLED = re.compile(r"[\s{}()]*[A-Za-z_$][\w$]*\s*:(?!:)")
_PRED = re.compile(r"\s*@!?%?[\w$]+\s+")
_TARGET = re.compile(r"\s*\.target\s+([\w,\s]+)")
_FUNC = re.compile(r".*?\.(?:entry|func)\s+(?:\([^()]*\)\s*)?([\w$]+)")
#: Debugging directives that take a line and end without a semicolon (the PTX ISA's
#: "Debugging Directives" section: ``.file 1 "k.py"``, ``.loc 1 28 15``, ``@@DWARF ...``): line
#: information, which Triton writes by default and nvcc with -lineinfo, before statements and
#: inside inline-asm blocks.
_DEBUG_LINE = re.compile(r"\s*(?:\.(?:loc|file)|@@DWARF)(?:\s|\Z)")
#: Opcodes whose first operand, when it is a register, is read, not written (any other
#: instruction whose first operand is a register or a vector of registers writes them).
_NO_DEF_BASE = frozenset({"bar", "barrier", "bra", "call", "ret", "exit", "trap", "membar",
                          "fence"})
_NO_DEF_TWO = frozenset({"tcgen05.dealloc"})
#: Opcodes that end a block: a branch (its target a label, or, for ``brx.idx``, a table) and
#: the statements after which the thread goes no further (``ret``, ``exit``, ``trap``).  A
#: ``call`` changes no register of the caller (PTX registers belong to their function: a
#: result comes back through ``.param`` space), so it ends nothing here.
_CONTROL = ("bra", "brx", "ret", "exit", "trap")
#: Opcodes yielded as instructions: tcgen05.*, and every instruction descriptors.instructions
#: models (stmatrix, wmma.load, ...).
_YIELDED = ("tcgen05.",) + tuple(f"{m}." for m in MODELS)
_NAMES = re.compile(r"%?[A-Za-z_$][\w$]*")
#: How an immediate begins (a cheap test before :func:`parse_immediate`).
_IMM_FIRST = frozenset("-0123456789")
#: Opcodes :func:`_eval` has a case for (every other result is unknown).
_EVALUATED = frozenset({"mov", "and", "or", "xor", "not", "shl", "shr", "add", "sub", "mul", "cvt",
                        "selp"})


def _width(opcode: str, operand: str | None = None) -> int:
    types = _TYPE.findall(opcode)
    if types:
        return int(types[0][1])
    if operand and operand.startswith("%rd"):
        return 64
    return 32


#: The text kept of a statement that is no instruction yielded (it is shown only as the line
#: that defined a value): this many characters, then its length.  A module's statements are
#: kept until their function is analysed, and a statement may be thousands of characters long.
_TEXT_KEPT = 2048
#: Characters of statements of one function analysed together (as :data:`MAX_FUNCTION`
#: bounds their number): a piece of wide statements is cut sooner.
_PIECE_CHARS = 8 << 20


class _Stmt:
    """One statement as written, without its line number (a line that recurs is parsed once):
    the 1-based ``col`` of its first character, ``opcode``, operands ``ops`` (text, column),
    the normalised ``text``, whether it is predicated, and what the analysis asks of it,
    worked out once: the registers it writes (``defs``), the K step it is
    (:func:`_k_step`), whether it is yielded as an instruction, the immediates it
    materialises (``facts``: column, known bits), the names it mentions and, for a yielded
    instruction, its operands split into address base and offset."""

    __slots__ = ("col", "opcode", "ops", "text", "pred", "defs", "kstep", "yielded", "facts",
                 "names", "operands", "base", "srcs", "width", "evaluates", "fixed", "selfstep",
                 "reads", "selects", "guard", "size")

    def __init__(self, col: int, opcode: str, ops: tuple[tuple[str, int], ...], text: str,
                 guard: str | None = None):
        self.col, self.opcode, self.ops, self.text = col, opcode, ops, text
        #: the length of its normalised text (what :func:`read_ptx` bounds a piece by)
        self.size = len(text)
        #: its predicate guard as written (``@%p1``, ``@!p``), ``None`` when it always runs
        self.guard = guard
        self.pred = pred = guard is not None
        self.defs = defs = _defs(self)
        self.kstep = ks = _k_step(self) if len(ops) == 3 and not pred else None
        #: the register a K step adds to itself (``add.s64 %rd34, %rd34, 8``)
        self.selfstep = ks[0] if ks is not None and ks[0] == ks[1] else None
        #: what :func:`_eval` gives when every source is an immediate (the result does not
        #: depend on the registers: worked out once per line), False otherwise
        self.fixed: list[KnownBits] | None | bool = False
        self.yielded = yielded = opcode.startswith(_YIELDED)
        self.facts: tuple[tuple[int, KnownBits], ...] = ()
        self.evaluates = False  # an opcode _eval may know the result of
        #: the registers it reads when its result is worked out (:func:`_eval`), worked out
        #: when first asked for (:func:`_reads`): a value set among them makes it go through
        #: :func:`_analyse`'s value-set path
        self.reads: tuple[str, ...] | None = None
        #: a ``selp`` (not predicated): either source, kept as a value set
        self.selects = False
        if not yielded and len(text) > _TEXT_KEPT:  # shown only as a value's origin
            self.text = f"{text[:_TEXT_KEPT]} ... ({len(text)} characters)"
        if yielded:
            self.names = tuple(dict.fromkeys(_NAMES.findall(text)))
            operands = []
            for t, c in ops:
                memory = t.startswith("[")
                inner = t.strip("[]").strip() if memory else t
                base, _, off = inner.partition("+")
                value = bool(_REG.match(base.strip())) or parse_immediate(base) is not None
                has_off = bool(off.strip())
                operands.append((t, c, memory, base.strip(), has_off,
                                 parse_immediate(off) if has_off else None, value))
            self.operands = tuple(operands)
        elif defs:
            self.base = base = opcode.split(".", 1)[0]  # what _eval reads
            self.srcs = tuple([t for t, _ in ops[1:]])
            self.width = _width(opcode, ops[0][0])
            self.evaluates = base in _EVALUATED
            if self.evaluates and not pred:
                self.selects = base == "selp"
                if not self.selects and self.srcs and all(
                        t[:1] in _IMM_FIRST and parse_immediate(t) is not None for t in self.srcs):
                    self.fixed = _eval(self, _immediate)
            for t, c in ops[1:]:
                if t[:1] in _IMM_FIRST:
                    imm = parse_immediate(t)
                    if imm is not None and abs(imm) > 0xFFFF:
                        self.facts += ((c, KnownBits.const(imm, _width(opcode, defs[0]))),)


#: Distinct lines whose statements are kept parsed (:func:`_statements`), and the longest line
#: kept: memory stays bounded whatever the input.
_LINE_CACHE = 1 << 13
_LINE_CACHE_CHARS = 256


_NO_ITEMS: list = []  # never appended to: _add makes a new list


def _add(items: list, item: tuple[str, int, object]) -> list:
    """``items`` with ``item`` appended (a new list in place of :data:`_NO_ITEMS`): most lines
    yield no item, and a list per line is an object the collector tracks."""
    if items is _NO_ITEMS:
        return [item]
    items.append(item)
    return items


def _statements(lines: Iterable[str]) -> Iterator[tuple[str, int, object]]:
    """("target", line, arch) / ("function", line, name) / ("reg", line, text) /
    ("stmt", line, _Stmt) items.  A line read from a clean state (not inside a comment or a
    statement) that ends in one is remembered with its items, so that a recurring line is
    parsed once.

    (Long: one loop over the lines with the comment and statement state in locals; every line
    of a module passes through it.)"""
    in_comment = False
    pending = ""
    pending_line = pending_col = 0
    clean = True  # not in a comment, nothing pending (but white space)
    cache: dict[str, list[tuple[str, int, object]]] = {}
    for lineno, raw in enumerate(lines, 1):
        if clean and len(raw) <= _LINE_CACHE_CHARS:
            hit = cache.get(raw)
            if hit is not None:
                for kind, _, item in hit:
                    yield kind, lineno, item
                continue
            start_clean = True
        else:
            start_clean = False
        items: list[tuple[str, int, object]] = _NO_ITEMS  # a list once there is one
        line = raw
        # comments
        if in_comment:
            end = line.find("*/")
            if end >= 0:
                line = " " * (end + 2) + line[end + 2:]
                in_comment = False
            else:
                line = ""
        if line:
            while "/*" in line:
                s = line.find("/*")
                e = line.find("*/", s + 2)
                if e < 0:
                    line = line[:s]
                    in_comment = True
                    break
                line = line[:s] + " " * (e + 2 - s) + line[e + 2:]
            if "//" in line:
                line = line[:line.find("//")]
        stripped = line.strip()
        if not stripped:
            pass
        elif stripped in ("{", "}", "(", ")", ");") or stripped.startswith(".param"):
            if ":" in pending and _LABELLED.match(pending):  # a label before a brace
                for name in _labels(pending):
                    items = _add(items, ("label", pending_line, name))
            if stripped in ("{", "}"):  # a block (an inline-asm one has its own labels)
                items = _add(items, ("brace", lineno, stripped))
            pending = ""  # function braces and parameter lists end no statement
        elif stripped[:1] in ".@" and _DEBUG_LINE.match(stripped):
            pass  # a whole directive: it neither ends nor starts a statement
        elif ".target" in line and (m := _TARGET.match(line)):
            items = _add(items, ("target", lineno, m.group(1).split(",")[0].strip()))
        elif (".entry" in line or ".func" in line) and (m := _FUNC.match(line)):
            pending = ""
            items = _add(items, ("function", lineno, m.group(1)))
        else:
            # statements end with ';' (a statement may continue over lines)
            pos = 0
            while pos < len(line):
                semi = line.find(";", pos)
                chunk = line[pos:] if semi < 0 else line[pos:semi]
                if not pending.strip():
                    # the column where the chunk starts (1-based): _parse adds the statement's
                    # leading blanks itself
                    pending_line, pending_col = lineno, pos + 1
                    pending = chunk
                else:
                    pending += " " + chunk
                if semi < 0:
                    break
                stmt = pending
                pending = ""
                pos = semi + 1
                if stmt.strip().startswith(".reg"):
                    items = _add(items, ("reg", pending_line, stmt.strip()))
                    continue
                if ":" in stmt and _LABELLED.match(stmt):
                    for name in _labels(stmt):
                        items = _add(items, ("label", pending_line, name))
                item = _parse(stmt, pending_col)
                if item is not None:
                    items = _add(items, ("stmt", pending_line, item))
            if len(pending) > 4 * 4096:  # an unterminated statement: drop it
                pending = ""
        clean = not in_comment and not pending.strip()
        if start_clean and clean and len(raw) <= _LINE_CACHE_CHARS:
            if len(cache) >= _LINE_CACHE:
                cache.clear()
            # (their line numbers are this line's: a hit gives its own)
            cache[raw] = items
        yield from items


def _labels(stmt: str) -> list[str]:
    """The labels a statement begins with (``$L__BB0_2: mov.b32 ...``; a label may also stand
    before a brace or a directive)."""
    text = stmt.strip().lstrip("{}()").strip()
    out = []
    while (m := _LABEL.match(text)) is not None:
        out.append(text[:m.end()].strip()[:-1].strip())
        text = text[m.end():]
    return out


def _parse(stmt: str, col: int) -> _Stmt | None:
    text = stmt.strip().lstrip("{}()").strip()
    if not text or text.startswith((".", "}")):
        return None
    offset = col - 1 + (len(stmt) - len(stmt.lstrip()))
    m = _LABEL.match(text)
    if m and not text.startswith("@"):
        text = text[m.end():]
        offset += m.end()
    m = _PRED.match(text)
    guard = None
    if m:
        guard = m.group().strip()
        text = text[m.end():]
        offset += m.end()
    parts = text.split(None, 1)
    if not parts or not "a" <= parts[0][0] <= "z":
        return None
    opcode = parts[0]
    rest = parts[1] if len(parts) > 1 else ""
    ops, _ = split_operands(rest, offset + len(opcode) + (len(text) - len(opcode) - len(rest)) + 1)
    # tuples, not lists: a module's statements are many, and the collector skips tuples of
    # strings and numbers
    return _Stmt(offset + 1, opcode, tuple(ops), " ".join(text.split()), guard)


class _Function:
    """Statements of one function (or piece of one), ``(line, statement)``, and the text of its
    register declarations, analysed when complete."""

    def __init__(self, name: str | None, decls: Iterable[str] = ()) -> None:
        self.name = name
        self.stmts: list[tuple[int, _Stmt]] = []
        self.decls: list[str] = list(decls)
        #: the statements each label stands before, with the block it is in (``(index,
        #: block)``; a label may recur: inline-asm blocks have their own); where blocks begin
        #: and end (``(index, block from there on)``), and the blocks open
        self.labels: dict[str, list[tuple[int, int]]] = {}
        self.braces: list[tuple[int, int]] = []
        self.open = [0]
        #: the length of the statements' texts (:data:`_PIECE_CHARS`)
        self.chars = 0


#: Register declarations read, by their text (functions of a module mostly declare alike), with
#: the names looked up in them (name -> type) and the declared registers of the instructions
#: read (their names, a tuple -> ((register, type), ...)); both bounded.
_DECLS: dict[tuple[str, ...], tuple[RegisterDecls, dict[Any, Any]]] = {}
_DECLS_MAX = 256
_DECL_NAMES_MAX = 1 << 12


def _declared(texts: tuple[str, ...]) -> tuple[RegisterDecls, dict[Any, Any]]:
    """The declarations of ``texts`` and a memo of the types of names looked up in them."""
    got = _DECLS.get(texts)
    if got is None:
        decls = RegisterDecls()
        for text in texts:
            decls.add(text)
        if len(_DECLS) >= _DECLS_MAX:
            _DECLS.clear()
        got = _DECLS[texts] = (decls, {})
    return got


def _word_bits(site: Any, index: int) -> int:
    """Bits of the word operand ``index`` of an instruction holds (its site's family: 64 for a
    shared memory descriptor, 32 for the idesc), 32 for an operand that holds none."""
    so = next((o for o in site.operands if o.index == index), None) if site else None
    if so is None or so.family is None:
        return 32
    from ..words.layouts import LAYOUTS
    return LAYOUTS[so.family].size


def _defs(st: _Stmt) -> tuple[str, ...]:
    """Registers the statement writes (over-approximated: that only makes values unknown)."""
    if not st.ops:
        return ()
    parts = st.opcode.split(".")
    if parts[0] in _NO_DEF_BASE or ".".join(parts[:2]) in _NO_DEF_TWO:
        return ()
    first = st.ops[0][0]
    if first.startswith("{"):  # a vector: its registers (a sink ``_`` is none)
        return tuple([r for r in _vector(first) if _REG.match(r)])
    if "|" in first:  # setp's p|q
        return tuple([r for r in first.split("|") if _REG.match(r)])
    return (first,) if _REG.match(first) else ()


def _vector(text: str) -> list[str]:
    """The elements of a vector operand ``{a, _, c}`` (sinks ``_`` included, in place), or
    ``[text]`` for a scalar one."""
    if text[:1] != "{":
        return [text]
    return [p.strip() for p in text.strip("{}").split(",")]


def _reads(st: _Stmt) -> tuple[str, ...]:
    """The registers ``st`` reads when :func:`_analyse` works its result out (none when it does
    not: an opcode :func:`_eval` has no case for, a predicated statement), kept in ``st``."""
    reads = st.reads
    if reads is None:
        if st.evaluates and not st.pred:
            got: list[str] = []
            for t in st.srcs:
                if t[:1] == "%":
                    if _REG.match(t):
                        got.append(t)
                elif t[:1] == "{":
                    got += [r for r in _vector(t) if _REG.match(r)]
            reads = tuple(got) if len(got) < 2 else tuple(dict.fromkeys(got))
        else:
            reads = ()
        st.reads = reads
    return reads


def _k_step(st: _Stmt) -> tuple[str, str] | None:
    """``(dest, source)`` of ``add/sub.{s,u,b}64 d, s, IMM`` with 0 < |IMM| < 2^14: how kernels
    step a shared memory descriptor through K."""
    if st.pred or len(st.ops) != 3 or st.opcode.split(".")[0] not in ("add", "sub") \
            or not st.opcode.endswith("64"):
        return None
    imm = parse_immediate(st.ops[2][0])
    d, src = st.ops[0][0].strip(), st.ops[1][0].strip()
    if not is_k_step(imm) or not _REG.match(d) or not _REG.match(src):
        return None
    return d, src


def _stepped(steps: dict[str, int], count: dict[str, int]) -> set[str]:
    """64-bit registers defined once by something else and otherwise only stepped by K-step
    adds of themselves (``add.s64 %rd34, %rd34, 8`` in a loop, ``steps`` of each): their bits
    above the start address are those of the one other definition."""
    return {r for r, n in steps.items() if count.get(r, 0) == n + 1}


#: Immediates read as values, by (text, width) (None: not an immediate); bounded.
_CONSTS: dict[tuple[str, int], KnownBits | None] = {}
_CONSTS_MAX = 1 << 12
#: Nothing known, by width (KnownBits are immutable: one object serves every use).
_UNKNOWN = {w: KnownBits.unknown(w) for w in (8, 16, 32, 64, 128)}


def _const(text: str, width: int) -> KnownBits | None:
    """The value of ``text`` (stripped) as a ``width``-bit constant, or None when it is no
    immediate; memoised in :data:`_CONSTS`."""
    key = (text, width)
    kb = _CONSTS.get(key, False)
    if kb is False:
        imm = parse_immediate(text)
        if len(_CONSTS) >= _CONSTS_MAX:
            _CONSTS.clear()
        kb = _CONSTS[key] = None if imm is None else KnownBits.const(imm, width)
    return kb  # type: ignore[return-value]


def _immediate(text: str, width: int) -> KnownBits:
    """The value of immediate ``text`` as :func:`_analyse`'s ``val`` reads it (the caller
    knows ``text`` is one: :class:`_Stmt` calls this only when every source parses)."""
    kb = _const(text.strip(), width)
    if kb is None:
        raise ValueError(f"not an immediate: {text!r}")  # never: the caller checked
    return kb


def _analyse(fn: _Function, arch: str | None) -> Iterator[Instruction | Fact]:  # noqa: C901
    """The instructions and facts of one function: a register defined once holds what its
    definition computes, a K-stepped one its other definition's bits above the start address
    (:mod:`descriptors.readers.ksteps`), any other is unknown.

    (Long: the statement loop is read_ptx's hot path; the environment and what reads it are
    locals of one function, a call per statement less.)"""
    stmts = fn.stmts
    count: dict[str, int] = Counter(chain.from_iterable([st.defs for _, st in stmts]))
    selfsteps = [st.selfstep for _, st in stmts if st.selfstep is not None]
    stepped = _stepped(Counter(selfsteps), count) if selfsteps else set()
    assumed: set[str] = set()     # registers whose known bits rest on the K-step rule
    env: dict[str, tuple[KnownBits, tuple[int, str]]] = {}
    #: registers that hold one of several values (2+ alternatives; ``env`` has their meet).
    #: Only a register defined once (or a stepped one) gets here, so a statement that writes
    #: a register not in it has nothing to remove from it.
    multi: dict[str, ValueSet] = {}
    decls, declared = _declared(tuple(fn.decls))
    #: the items made once an operand is asked of the data flow (then every later item, so
    #: that they come out in order), and the operands asked: (item, statement, operand,
    #: register, offset given, offset) -- a register this function writes whose value this
    #: pass does not know whole (:func:`_resolved` asks the data flow where it may know more)
    out: list[Instruction | Fact] | None = None
    asked: list[tuple[int, int, int, str, bool, int | None]] = []

    def rtype(name: str) -> str | None:
        got = declared.get(name, False)
        if got is False:
            if len(declared) >= _DECL_NAMES_MAX:
                declared.clear()
            got = declared[name] = decls.get(name)
        return got  # type: ignore[return-value]

    def val(text: str, width: int) -> KnownBits:
        text = text.strip()
        if text[:1] != "%":  # a register is no immediate
            kb = _const(text, width)
            if kb is not None:
                return kb
        got = env.get(text)
        if got is None:
            return _UNKNOWN.get(width) or KnownBits.unknown(width)
        kb = got[0]
        return kb if kb.width == width else kb.resize(width)

    def operand_width(base: str) -> int | None:
        """The width of an instruction's operand ``base`` with no value in ``env``: 64 for
        ``%rd..``, 32 for another ``%r..`` (nvcc's names), else the register's declared width
        (``None`` when undeclared or declared with no PTX type, ``.b0``, ``.b40000000``: no
        width); an immediate's own (64 bits when it does not fit in 32)."""
        if base[:1] == "%":
            if base[:2] == "%r":
                return 64 if base[:3] == "%rd" else 32
            t = rtype(base)
            bits = PTX_REGISTER_BITS.get(t) if t is not None else None
            return None if bits is None else bits if t[1:].isdigit() else 32
        imm = parse_immediate(base)
        return 32 if imm is None or -(1 << 31) <= imm < 1 << 32 else 64

    def at_offset(kb: KnownBits, off: int | None) -> KnownBits:
        """``kb`` plus an address offset (``None``: one that is no immediate)."""
        return kb + KnownBits.const(off, kb.width) if off is not None else \
            KnownBits.unknown(kb.width)

    def source_set(text: str, width: int, here: tuple[int, str]) -> ValueSet:
        """What source ``text`` may hold, as a value set (an immediate is made ``here``)."""
        text = text.strip()
        if text[:1] != "%":
            kb = _const(text, width)
            if kb is not None:
                return (Alternative(kb, here),)
        alts = multi.get(text)
        if alts is not None:
            if alts[0].bits.width == width:
                return alts
            return tuple([Alternative(a.bits.resize(width), a.origin, a.assumes, a.merged)
                          for a in alts])
        got = env.get(text)
        if got is None:
            return (Alternative(_UNKNOWN.get(width) or KnownBits.unknown(width)),)
        kb = got[0]
        return (Alternative(kb if kb.width == width else kb.resize(width), got[1],
                            K_STEP_ASSUMPTION if text in assumed else None),)

    def value_sets(st: _Stmt, here: tuple[int, str]) -> list[ValueSet]:
        """The value set of each register ``st`` writes, one alternative per select arm or
        combination of the alternatives of its sources (:func:`descriptors.readers.values
        .combine`)."""
        if st.selects:  # selp d, a, b, p: either source
            if len(st.srcs) < 3:
                return [()]
            w = st.width
            return [join(source_set(st.srcs[0], w, here), source_set(st.srcs[1], w, here))]
        regs = [r for r in _reads(st) if r in multi]
        results: dict[tuple[KnownBits, ...], list[KnownBits] | None] = {}

        def evaluate(*bits: KnownBits) -> list[KnownBits] | None:
            got = results.get(bits, False)
            if got is False:
                over = dict(zip(regs, bits))

                def v(text: str, width: int) -> KnownBits:
                    kb = over.get(text.strip())
                    if kb is None:
                        return val(text, width)
                    return kb if kb.width == width else kb.resize(width)
                got = results[bits] = _eval(st, v)
            return got  # type: ignore[return-value]

        sources = [multi[r] for r in regs]
        copy = st.base == "mov" and st.ops[0][0][:1] != "{" and _reads(st) == st.srcs[:1]
        out = []
        for i in range(len(st.defs)):
            def pick(*bits: KnownBits, i: int = i) -> KnownBits | None:
                got = evaluate(*bits)
                return got[i] if got and i < len(got) else None
            out.append(combine(pick, sources, here, _def_width(st), copy=copy))
        return out

    def store(d: str, alts: ValueSet, here: tuple[int, str], step: bool = False) -> None:
        """Register ``d`` holds one of ``alts`` (``step``: a stepped descriptor's one other
        definition, whose bits above the start address the K steps keep)."""
        if step:
            alts = join([Alternative(k_stepped(a.bits), a.origin, K_STEP_ASSUMPTION)
                         for a in alts])
        if not alts or (not step and count[d] != 1):
            env.pop(d, None)
            multi.pop(d, None)
            assumed.discard(d)
            return
        if len(alts) == 1:
            env[d] = (alts[0].bits, here)
            multi.pop(d, None)
        else:
            env[d] = (meet(alts), here)  # type: ignore[assignment]
            multi[d] = alts
        if step:
            assumed.add(d)
        else:
            assumed.discard(d)

    for index, (line, st) in enumerate(stmts):
        defs = st.defs
        if st.yielded:
            ops = []
            flow = None
            site = ptx_site(st.opcode, tuple([o[0] for o in st.operands]))
            # the operands the site judges (descriptors, the idesc, a scale-factor address)
            judged = () if site is None else [o.index for o in site.judged]
            for text, col, memory, base, has_off, off, is_value in st.operands:
                value = origin = None
                alternatives: ValueSet = ()
                if is_value:
                    got = env.get(base)
                    if got is not None:  # a register with a value: never cut, widened
                        value = got[0]  # to the register's width as its name tells
                        origin = got[1]
                        if value.width < 32 or value.width == 32 and base[:3] == "%rd":
                            value = value.resize(64 if base[:3] == "%rd" else 32)
                    else:
                        width = operand_width(base)
                        if width is None:  # no known width: unknown, as wide as its word
                            width = _word_bits(site, len(ops))
                        value = val(base, width)
                    if has_off:
                        value = at_offset(value, off)
                    if multi and base in multi:  # one of several values: each, placed alike
                        width = value.width
                        alternatives = join([Alternative(
                            at_offset(a.bits.resize(width), off) if has_off else
                            a.bits.resize(width), a.origin, a.assumes) for a in multi[base]])
                        if len(alternatives) > 1:
                            value = meet(alternatives)
                        else:
                            alternatives = ()
                    if judged and len(ops) in judged and base in count and (
                            alternatives or not value.is_const):
                        if flow is None:
                            flow = []
                        flow.append((len(ops), base, has_off, off))
                ops.append(Operand(text, col, value, origin, memory,
                                   K_STEP_ASSUMPTION if base in assumed else None, alternatives))
            # the declared registers it names, kept with the names' types (a tuple key: no
            # name's)
            regs = declared.get(st.names)
            if regs is None:
                regs = tuple([(r, t) for r in st.names if (t := rtype(r)) is not None])
                if len(declared) >= _DECL_NAMES_MAX:
                    declared.clear()
                declared[st.names] = regs
            ins = Instruction("ptx", line, st.col, st.opcode, tuple(ops), st.text, arch, fn.name,
                              regs, site=site)
            if flow is not None:
                if out is None:
                    out = []
                asked += [(len(out), index, *f) for f in flow]
            if out is None:
                yield ins
            else:
                out.append(ins)
            for d in defs:
                env.pop(d, None)
                if multi:
                    multi.pop(d, None)
            continue
        if not defs:
            continue
        ks = st.kstep
        if ks is not None and ks[1] in assumed and (ks[0] == ks[1] or count.get(ks[0], 0) == 1):
            # a K step of a stepped descriptor: the bits above the start address stay
            d, src = ks
            if d != src:
                here = (line, st.text)
                if multi and src in multi:
                    store(d, [Alternative(a.bits, here) for a in multi[src]], here, step=True)
                else:
                    env[d] = (k_stepped(env[src][0]), here)
                    assumed.add(d)
            continue
        if st.selects or multi and not multi.keys().isdisjoint(
                _reads(st) if st.reads is None else st.reads):
            # a select, or a source that holds one of several values: value sets
            here = (line, st.text)
            for d, alts in zip(defs, value_sets(st, here)):
                store(d, alts, here, step=d in stepped and len(defs) == 1 and bool(alts)
                      and alts[0].bits.width == 64)
            for col, kb in st.facts:
                if out is None:
                    yield Fact(line, col, kb, "immediate", st.text, "ptx", arch=arch)
                else:
                    out.append(Fact(line, col, kb, "immediate", st.text, "ptx", arch=arch))
            continue
        # a predicated write may not happen
        results = st.fixed
        if results is False:
            results = _eval(st, val) if st.evaluates and not st.pred else None
        # (one register written, the common case: no zip, chain and repeat to make, which
        # cost 3-8% of read_ptx on a 10 MB module)
        pairs = ((defs[0], results[0] if results else None),) if len(defs) == 1 else \
            zip(defs, chain(results or (), repeat(None)))
        for d, kb in pairs:
            if stepped and d in stepped and kb is not None and kb.width == 64 and len(defs) == 1:
                env[d] = (k_stepped(kb), (line, st.text))
                assumed.add(d)
                continue
            if kb is None or count[d] != 1:
                env.pop(d, None)
            else:
                env[d] = (kb, (line, st.text))
            if assumed:
                assumed.discard(d)
        # constants the code materialises (for dump)
        for col, kb in st.facts:
            if out is None:
                yield Fact(line, col, kb, "immediate", st.text, "ptx", arch=arch)
            else:
                out.append(Fact(line, col, kb, "immediate", st.text, "ptx", arch=arch))
    if out is not None:
        yield from _resolved(fn, out, asked, count, stepped, env)


#: What the data flow takes an unknown value to be as wide as: the widest PTX register, so
#: that reading it at any register's width leaves every bit unknown.
_FLOW_WIDTH = 128
#: How many registers back :func:`_resolved` looks for one the data flow may know better.
_FOLLOW = 8
_PRED_SPLIT = re.compile(r"[{}|,!\s]+")


class _Where:
    """``Code.where`` of a function: ``(line, text)`` of statement ``i``, made when asked."""

    __slots__ = ("stmts",)

    def __init__(self, stmts: list[tuple[int, _Stmt]]) -> None:
        self.stmts = stmts

    def __len__(self) -> int:
        return len(self.stmts)

    def __getitem__(self, i: int) -> tuple[int, str]:
        line, st = self.stmts[i]
        return line, st.text


class _Guards(_Where):
    """``Code.guard`` of a function: statement ``i``'s guard (``@%p1``, ``@!%p1``)."""

    __slots__ = ()

    def __getitem__(self, i: int) -> str | None:  # type: ignore[override]
        return self.stmts[i][1].guard


def _code(fn: _Function, gdesc: set[str]) -> Code:
    """The function as :func:`~descriptors.readers.dataflow.solve` reads it: what each
    statement writes, its guard, where a branch goes (a label: the nearest one of its name
    in the branch's own block where inline-asm blocks repeat one; nowhere here when the label
    is in another piece of a function too long to read whole; anywhere for ``brx.idx``),
    whether control goes on past it, and what it computes
    (:func:`_describe`; ``gdesc``: the descriptor registers, whose K-step adds follow the
    K-step rule)."""
    stmts = fn.stmts
    n = len(stmts)
    jumps: list[tuple[int, ...]] = [()] * n
    falls = [True] * n
    branches = [i for i, (_, st) in enumerate(stmts) if st.opcode.startswith(_CONTROL)
                and st.opcode.split(".", 1)[0] in _CONTROL]
    labels = fn.labels
    starts = [b[0] for b in fn.braces]
    for i in branches:
        st = stmts[i][1]
        base = st.opcode.split(".", 1)[0]
        falls[i] = st.guard is not None
        if base == "bra":
            at = labels.get(st.ops[0][0].strip()) if st.ops else None
            if at:
                if len(at) > 1:  # those of the branch's own block, if any
                    k = bisect_right(starts, i) - 1
                    block = fn.braces[k][1] if k >= 0 else 0
                    at = [a for a in at if a[1] == block] or at
                jumps[i] = (min([a[0] for a in at], key=lambda t: abs(t - i)),)
        elif base == "brx":
            jumps[i] = EVERY
    return Code([st.defs for _, st in stmts], _Guards(stmts), jumps, falls, _Where(stmts),
                lambda i, p: _mentions(stmts[i][1], p),
                lambda i, reg: _describe(stmts[i][1], reg, gdesc), _FLOW_WIDTH,
                branches=branches)


def _mentions(st: _Stmt, pred: str) -> bool:
    """Whether ``st`` names predicate ``pred`` in its operands (it may write it)."""
    return any(pred in _PRED_SPLIT.split(t) for t, _ in st.ops)


def _describe(st: _Stmt, reg: str, gdesc: set[str]) -> Step | None:
    """What ``st`` computes (:func:`_eval`) as a :class:`~descriptors.readers.dataflow.Step`,
    ``None`` when the reader does not follow it (its result is unknown): a ``selp`` is either
    source; a K-step add of a descriptor register (``reg`` in ``gdesc``) keeps the bits above
    the start address of its source (:func:`~descriptors.readers.ksteps.k_stepped`, which
    makes the source a descriptor register too); a plain ``mov`` passes its source's value on
    with the line that made it."""
    if st.yielded or not st.defs or not st.evaluates:
        return None
    ks = st.kstep
    if ks is not None and reg in gdesc and len(st.defs) == 1:
        gdesc.add(ks[1])
        return Step((ks[1],), lambda a: (k_stepped(a),), "eval", K_STEP_ASSUMPTION)
    w = st.width
    if st.base == "selp":
        sources: list[str | KnownBits] = []
        for t in st.srcs[:2]:
            t = t.strip()
            kb = _const(t, w) if t[:1] != "%" else None
            if kb is None and not _REG.match(t):
                return None
            sources.append(t if kb is None else kb)
        return Step(tuple(sources), None, "select") if len(sources) == 2 else None
    reads = tuple(dict.fromkeys(r for t in st.srcs for r in _vector(t) if _REG.match(r)))

    def fn(*bits: KnownBits) -> list[KnownBits] | None:
        over = dict(zip(reads, bits))

        def v(text: str, width: int) -> KnownBits:
            text = text.strip()
            kb = over.get(text)
            if kb is None:
                kb = _const(text, width) if text[:1] != "%" else None
                return kb if kb is not None else _UNKNOWN.get(width) or KnownBits.unknown(width)
            return kb if kb.width == width else kb.resize(width)
        return _eval(st, v)

    copy = st.base == "mov" and st.ops[0][0][:1] != "{" and reads == tuple(
        t.strip() for t in st.srcs[:1])
    return Step(reads, fn, "copy" if copy else "eval")


def _resolved(fn: _Function, out: list[Instruction | Fact],
              asked: list[tuple[int, int, int, str, bool, int | None]],
              count: dict[str, int], stepped: set[str],
              env: dict[str, tuple[KnownBits, tuple[int, str]]]) -> list[Instruction | Fact]:
    """``out`` with the operands ``asked`` given what the data flow knows of them
    (:func:`~descriptors.readers.dataflow.solve`: one alternative per path or select arm,
    each with its line) where that is more than :func:`_analyse` knows: every bit it knows is
    known, and some more bits, or alternatives that do.  Only a register that
    :func:`_analyse` does not follow (written more than once, not only by K steps
    (``count``, ``stepped``), or by a predicated statement) or one computed from such a
    register is asked: the data flow knows no more of any other.  (Such a register is
    followed back through the statements that defined the values ``env`` holds at the end of
    the function: a register written once keeps the one value it was given.)"""
    stmts = fn.stmts
    vague = {r for r, c in count.items() if c != 1}
    if stepped:
        vague -= stepped
    vague.update(chain.from_iterable([st.defs for _, st in stmts if st.pred]))
    lines: list[int] = []
    clean: set[str] = set()  # registers computed from no vague one

    def follows(r: str) -> bool:
        """Whether ``r`` is vague or computed from a vague register (through at most
        :data:`_FOLLOW` registers: a longer chain is an address computation, not a
        descriptor's)."""
        seen = {r}
        todo = [r]
        while todo:
            if len(seen) > _FOLLOW:
                return False
            x = todo.pop()
            if x in vague:
                vague.add(r)  # (a later walk that meets r stops there)
                return True
            got = env.get(x)
            if got is None:  # not computed here (a load ...): nothing to follow
                continue
            if not lines:
                lines.extend([line for line, _ in stmts])
            line, text = got[1]
            k = bisect_left(lines, line)
            while k < len(stmts) and stmts[k][1].text != text:
                k += 1
            if k == len(stmts):
                return True  # (never: the line is the function's)
            for y in _reads(stmts[k][1]):
                if y not in seen and y not in clean:
                    seen.add(y)
                    todo.append(y)
        clean.update(seen)
        return False
    asked = [a for a in asked if follows(a[3])]
    if not asked:
        return out
    gdesc = {a[3] for a in asked
             if out[a[0]].operands[a[2]].value.width == 64}  # type: ignore[union-attr]
    start = perf_counter()
    code = _code(fn, gdesc)
    values = solve(code, dict.fromkeys((a[1], a[3]) for a in asked))
    took = perf_counter() - start
    for k, i, o, base, has_off, off in asked:
        ins = out[k]
        op = ins.operands[o]  # type: ignore[union-attr]
        new = _better(op, values.get((i, base), ()), has_off, off)
        if new is not op:
            ops = list(ins.operands)  # type: ignore[union-attr]
            ops[o] = new
            out[k] = replace(ins, operands=tuple(ops))
    # before the items asked: the data flow past its budget (every value asked unknown), and
    # one slow enough to name (lint -v)
    if took >= SLOW:
        out.insert(0, Fact(stmts[0][0], 0, KnownBits.unknown(1), "slow", fn.name or "", "ptx",
                           (f"{took:.1f}",)))
    if code.outcome == "budget":
        out.insert(0, Fact(stmts[0][0], 0, KnownBits.unknown(1), "budget", fn.name or "",
                           "ptx"))
    return out


def _better(op: Operand, alts: ValueSet, has_off: bool, off: int | None) -> Operand:
    """``op`` with the value set ``alts`` the data flow gives its register (placed at the
    operand's offset, at its width), or ``op`` itself where that knows no more."""
    old = op.value
    if not alts or old is None:
        return op
    width = old.width
    vs = join([Alternative((a.bits.resize(width) + KnownBits.const(off, width) if off is not None
                            else KnownBits.unknown(width)) if has_off else a.bits.resize(width),
                           a.origin, a.assumes, False, a.skipped) for a in alts])
    kb = meet(vs) if len(vs) > 1 else vs[0].bits
    assert kb is not None
    known = old.known
    if known & ~kb.known:
        return op  # (never where both are sound: what every path gives holds the old bits)
    if not kb.known & ~known and not (len(vs) > 1 and any(a.bits.known & ~known for a in vs)):
        return op
    if op.alternatives and {a.bits for a in op.alternatives} == {a.bits for a in vs}:
        return op
    origins = {a.origin for a in vs}
    return Operand(op.text, op.col, kb, origins.pop() if len(origins) == 1 else None, op.memory,
                   next((a.assumes for a in vs if a.assumes), None), vs if len(vs) > 1 else ())


def _def_width(st: _Stmt) -> int:
    """The width of a register ``st`` writes (for a result :func:`_eval` cannot tell)."""
    dst = st.ops[0][0]
    if dst[:1] == "{":
        return st.width // max(len(_vector(dst)), 1)
    if st.base == "mul" and ".wide" in st.opcode:
        return 2 * st.width
    return st.width


def _eval(st: _Stmt, val) -> list[KnownBits] | None:  # noqa: C901 - one case per opcode
    op = st.opcode
    base = st.base
    srcs = st.srcs
    dst = st.ops[0][0]
    w = st.width
    try:
        if base == "mov":
            if dst.startswith("{"):  # split: mov.b64 {lo, hi}, %rd
                # one value per register written (_defs): a sink ``_`` takes its piece away
                parts = _vector(dst)
                v = val(srcs[0], w)
                n = len(parts)
                return [v.slice(i * (w // n), w // n) for i, p in enumerate(parts)
                        if _REG.match(p)]
            if srcs and srcs[0].startswith("{"):  # pack: mov.b64 %rd, {lo, hi}
                parts = _vector(srcs[0])
                n = len(parts)
                v = val(parts[0], w // n)
                for i, p in enumerate(parts[1:], 1):
                    v = KnownBits.concat(v, val(p, w // n))
                return [v]
            return [val(srcs[0], w)]
        if base in ("and", "or", "xor"):
            a, b = val(srcs[0], w), val(srcs[1], w)
            return [a & b if base == "and" else a | b if base == "or" else a ^ b]
        if base == "not":
            return [~val(srcs[0], w)]
        if base in ("shl", "shr"):
            n = val(srcs[1], 32)
            if not n.is_const:
                return None
            a = val(srcs[0], w)
            return [a.shl(n.value) if base == "shl" else a.shr(n.value, signed=".s" in op)]
        if base in ("add", "sub") and ".cc" not in op and ".f" not in op and "addc" != base:
            a, b = val(srcs[0], w), val(srcs[1], w)
            return [a + b if base == "add" else a - b]
        if base == "mul" and ".lo" in op:
            return [val(srcs[0], w).mul(val(srcs[1], w))]
        if base == "mul" and ".wide" in op:
            a, b = val(srcs[0], w).resize(2 * w, ".s" in op), val(srcs[1], w).resize(2 * w, ".s" in op)
            return [a.mul(b)]
        if base == "cvt":
            types = _TYPE.findall(op)
            if len(types) == 2 and not re.search(r"\.(f\d|rn|rz|rm|rp|sat)", op):
                (dk, dw), (sk, sw) = types
                return [val(srcs[0], int(sw)).resize(int(dw), signed=sk == "s")]
            return None
        if base == "selp":
            return [val(srcs[0], w).meet(val(srcs[1], w))]
    except (IndexError, ValueError):
        return None
    return None


def mma_operands(ins: Instruction) -> dict[str, Operand]:
    """The judged operands of a PTX ``tcgen05.mma`` by role (:attr:`Instruction.site`,
    :func:`descriptors.isa.sites.ptx_site`): ``a_desc`` (absent when A is in Tensor Memory,
    ``[a-tmem]``), ``b_desc``, ``idesc`` and, for ``.ws``, ``zcm`` when given."""
    return _by_role(ins)


def wgmma_operands(ins: Instruction) -> dict[str, Operand]:
    """The matrix descriptor operands of a PTX ``wgmma.mma_async`` by role (as
    :func:`mma_operands`): ``a_desc`` (absent when A comes from registers) and ``b_desc``."""
    return _by_role(ins)


def _by_role(ins: Instruction) -> dict[str, Operand]:
    s = ins.site
    return {} if s is None else {o.role: ins.operands[o.index] for o in s.judged}


def read_ptx(lines: Iterable[str]) -> Iterator[Instruction | Fact]:
    """Instructions (``tcgen05.*``, ``stmatrix``, ``wmma.load``, with the declared types of the
    registers they name) and facts (immediates) of PTX text, in order."""
    arch: str | None = None
    fn = _Function(None)
    for kind, line, item in _statements(lines):
        if kind == "stmt":
            fn.stmts.append((line, item))  # type: ignore[arg-type]
            fn.chars += item.size  # type: ignore[union-attr]
            if len(fn.stmts) >= MAX_FUNCTION or fn.chars >= _PIECE_CHARS:
                yield from _analyse(fn, arch)
                yield Fact(fn.stmts[-1][0], 0, KnownBits.unknown(1), "split", fn.name or "",
                           "ptx")
                fn = _Function(fn.name, fn.decls)
        elif kind == "label":
            fn.labels.setdefault(str(item), []).append((len(fn.stmts), fn.open[-1]))
        elif kind == "brace":
            if item == "{":
                fn.open.append(len(fn.braces) + 1)
            elif len(fn.open) > 1:
                fn.open.pop()
            fn.braces.append((len(fn.stmts), fn.open[-1]))
        elif kind == "reg":
            fn.decls.append(str(item))
        elif kind == "target":
            arch = str(item)
        else:  # function
            yield from _analyse(fn, arch)
            fn = _Function(str(item))
    yield from _analyse(fn, arch)

"""Every regular expression that reads user text runs in linear time: none backtracks
catastrophically on a long run of one character (spaces, tabs, digits, commas, ``0x``, ``[``,
``%r`` ...), with or without a character at the end that makes the match fail.

The patterns are collected, not listed: the compiled :class:`re.Pattern` objects in the globals of
the reader modules (:mod:`descriptors.readers` and :mod:`descriptors.readers.sass`, the ISA
tables they lex with, :mod:`descriptors.tools.dump`, :mod:`descriptors.words.literals`,
:mod:`descriptors.layout.cute*`, the CLI), and the patterns written inline
(``re.fullmatch(r"...", text)``) in those modules' source.  Each runs ``match``, ``fullmatch``
and, where its module searches with it, ``search``/``finditer`` on each input; a call that takes
more than :data:`LIMIT` seconds of CPU time (the best of three tries) fails the test.  A
quadratic pattern takes 30 ms to seconds on these inputs, a catastrophic one forever (the
cuda-gdb disassembly pattern took 2.6 s on 100 spaces, 67 s on 200): :func:`_deadline` stops
it.
"""

from __future__ import annotations

import ast
import gc
import importlib
import inspect
import pkgutil
import re
import signal
import time
from collections import deque
from contextlib import contextmanager
from types import ModuleType

import pytest

#: CPU seconds one call may take: a linear pattern takes at most a few milliseconds on
#: :data:`N` characters, a quadratic one 30 ms (``\.entry\s+\([^)]*\)`` on ``.entry (``
#: repeated) to seconds.
LIMIT = 0.02
#: Characters in a run.
N = 20000
#: The runs: one character or token repeated.
TOKENS = (" ", "\t", "0", "9", "a", "_", ",", ", ", "0x", "[", "%r", ".", "x", "1x", "R1", ":",
          "<", "-", "/", "$", "{", "@", "(", ".entry (")
#: What follows a run: nothing, or a character that makes most patterns fail at the end.
ENDS = ("", "\x01")

_PACKAGES = ("descriptors.readers", "descriptors.tools.dump", "cli")
_MODULES = ("descriptors.words.literals", "descriptors.isa.sass", "descriptors.isa.sites",
            "descriptors.isa.instructions.parse", "descriptors.isa.instructions.check",
            "descriptors.isa.tmem")


def _modules() -> list[ModuleType]:
    out = [importlib.import_module(m) for m in _MODULES]
    for name in _PACKAGES:
        pkg = importlib.import_module(name)
        out.append(pkg)
        for info in pkgutil.walk_packages(pkg.__path__, name + "."):
            out.append(importlib.import_module(info.name))
    layout = importlib.import_module("descriptors.layout")
    out += [importlib.import_module(f"descriptors.layout.{i.name}")
            for i in pkgutil.iter_modules(layout.__path__) if i.name.startswith("cute")]
    return list(dict.fromkeys(out))


_SEARCHES = re.compile(r"\.(search|finditer|findall|sub|subn|split)\(")


def _patterns() -> list[tuple[str, re.Pattern, bool]]:
    """``(where, pattern, searched)`` of every pattern: module globals, and the literal first
    argument of an inline ``re.match/fullmatch/search/...`` call."""
    out: dict[tuple[str, int], tuple[str, re.Pattern, bool]] = {}
    for mod in _modules():
        source = inspect.getsource(mod)
        for name, value in vars(mod).items():
            if isinstance(value, re.Pattern) and value.pattern and isinstance(value.pattern, str):
                searched = bool(re.search(rf"\b{re.escape(name)}{_SEARCHES.pattern}", source))
                out.setdefault((value.pattern, value.flags),
                               (f"{mod.__name__}.{name}", value, searched))
        for node in ast.walk(ast.parse(source)):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "re"
                    and node.args and isinstance(node.args[0], ast.Constant)
                    and isinstance(node.args[0].value, str) and node.func.attr in (
                        "match", "fullmatch", "search", "finditer", "findall", "sub", "split")):
                flags = 0
                if len(node.args) > 2 or node.keywords:
                    continue  # flags given: compiled as written elsewhere
                pattern = re.compile(node.args[0].value, flags)
                out.setdefault((pattern.pattern, flags),
                               (f"{mod.__name__}:{node.lineno}", pattern,
                                node.func.attr not in ("match", "fullmatch")))
    return sorted(out.values(), key=lambda t: t[0])


PATTERNS = _patterns()


class _Slow(Exception):
    pass


@contextmanager
def _deadline(seconds: float):
    """Raise :class:`_Slow` in the block after ``seconds`` (a catastrophic pattern never ends by
    itself)."""
    def stop(signum, frame):
        raise _Slow
    old = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def test_patterns_are_collected():
    names = {w for w, _, _ in PATTERNS}
    # a few known ones, so that the walk cannot silently find nothing
    assert "descriptors.readers.gdb.DISASSEMBLY" in names
    assert "descriptors.isa.sass.REGISTER" in names
    assert any(w.startswith("descriptors.readers.ptx.") for w in names)
    assert any(w.startswith("descriptors.readers.sass.") for w in names)
    assert any(w.startswith("descriptors.words.literals") for w in names)
    assert any(":" in w for w in names)  # inline patterns
    assert len(PATTERNS) > 50


def _took(call, text: str) -> float:
    """CPU seconds ``call(text)`` takes (the process's own time: other processes on the machine
    do not count), at most about a second."""
    gc.disable()  # a collection of the whole test process is no cost of the pattern
    t = time.process_time()
    try:
        with _deadline(1.0):
            call(text)
    except _Slow:
        pass
    finally:
        took = time.process_time() - t
        gc.enable()
    return took


@pytest.mark.parametrize("where,pattern,searched", PATTERNS, ids=[w for w, _, _ in PATTERNS])
def test_pattern_is_linear(where: str, pattern: re.Pattern, searched: bool):
    texts = [t * (N // len(t)) + end for t in TOKENS for end in ENDS]
    texts += [f"R{' ' * N}x", f"0x{'0' * N}U!", f"%r{'1' * N}x", " 1" * (N // 2)]
    slow = []
    for text in texts:
        calls = [pattern.match, pattern.fullmatch]
        if searched:
            calls += [pattern.search, lambda s: deque(pattern.finditer(s), maxlen=0)]
        for call in calls:
            took = _took(call, text)
            for _ in range(2):  # a slow try is tried again (a busy machine), a linear one passes
                if took <= LIMIT:
                    break
                took = min(took, _took(call, text))
            if took > LIMIT:
                slow.append(f"{getattr(call, '__name__', 'finditer')}({text[:12]!r}... "
                            f"{len(text)} chars): {took:.3f} s")
                break
    assert not slow, f"{where} /{pattern.pattern}/ is slow on: " + "; ".join(slow[:5])


def test_gdb_disassembly_blank_line():
    """A blank line of 200 spaces took 67 s (four ``\\s*`` that could share the run); the
    instruction read is the same."""
    from descriptors.readers.gdb import disassembly
    assert _took(disassembly, " " * 200) < LIMIT
    assert _took(disassembly, "\t" * N + "\n" + " " * N) < LIMIT
    assert _took(disassembly, "R" + " " * N + "x") < LIMIT
    assert disassembly(" " * 200) is None
    assert disassembly(" " * 200 + "\n=> 0x7fff0010 <_Z1kv+16>:\tHGMMA.64x64x16.F32 R24, "
                       "gdesc[UR4], RZ, !UPT ;   ") == (
        0x7FFF0010, "_Z1kv+16", "HGMMA.64x64x16.F32 R24, gdesc[UR4], RZ, !UPT ;")
    assert disassembly("   0x10:  UMOV UR4, 0x1  ") == (0x10, None, "UMOV UR4, 0x1")
    assert disassembly("HGMMA") == (None, None, "HGMMA")

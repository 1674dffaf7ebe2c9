"""Long code says why: a module over 800 lines carries a ``(Long: ...)`` reason in its docstring,
a function over 80 lines one in its docstring or in a comment on or right above its ``def``
(for a typer command, whose docstring is help text) or a ``noqa: C901 - reason``."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted([*(ROOT / "descriptors").rglob("*.py"), *(ROOT / "cli").rglob("*.py")])
MODULE_LINES, FUNCTION_LINES = 800, 80


def _says_why(text: str) -> bool:
    return "(Long:" in text or "noqa: C901 -" in text


def test_long_modules_say_why():
    unexplained = []
    for path in SOURCES:
        source = path.read_text()
        if source.count("\n") > MODULE_LINES and not _says_why(ast.get_docstring(
                ast.parse(source)) or ""):
            unexplained.append(str(path.relative_to(ROOT)))
    assert unexplained == []


def test_long_functions_say_why():
    unexplained = []
    for path in SOURCES:
        source = path.read_text()
        lines = source.splitlines()
        for node in ast.walk(ast.parse(source)):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            if node.end_lineno - node.lineno + 1 <= FUNCTION_LINES:  # type: ignore[operator]
                continue
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            around = "\n".join(lines[max(first - 4, 0):node.lineno + 1])
            if not (_says_why(ast.get_docstring(node) or "") or _says_why(around)):
                unexplained.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    assert unexplained == []

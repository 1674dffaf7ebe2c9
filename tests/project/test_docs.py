"""What the documentation shows runs, and what it names exists.

- The doctests (``>>>``) of every module of the package pass (doctest's ELLIPSIS on).
- Every dotted ``descriptors.`` name written in README.md, CHANGELOG.md and the docstrings of
  the package and the CLI resolves: a module, or a name reached from one by attributes.  An
  import (``from descriptors.x import y``, ``import descriptors.x``) must name a real module;
  docstrings name the module where a thing lives (``descriptors.isa.tmem.footprint``), while
  README and CHANGELOG may use the submodules the package lends as attributes
  (``descriptors.tmem.footprint``; README, "Package layout").  (README's ```python blocks and
  console examples run in ``tests/project/test_readme.py``.)
"""

from __future__ import annotations

import ast
import doctest
import importlib
import re
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "descriptors"
#: descgen_gdb.py is a script cuda-gdb sources (it edits sys.path), not a module to import.
SCRIPTS = {PACKAGE / "gdb" / "descgen_gdb.py"}
MODULES = sorted(p for p in PACKAGE.rglob("*.py") if p not in SCRIPTS)


def _dotted(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


# ---------------------------------------------------------------------------- doctests


def _run_doctests(module: types.ModuleType) -> tuple[int, int, str]:
    """(failed, attempted, report) of the doctests of ``module``'s docstrings."""
    out: list[str] = []
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in doctest.DocTestFinder(exclude_empty=True).find(module, module.__name__):
        runner.run(test, out=out.append)
    return runner.failures, runner.tries, "".join(out)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_doctests(path: Path) -> None:
    failed, _attempted, report = _run_doctests(importlib.import_module(_dotted(path)))
    assert not failed, report


def test_the_doctests_are_found() -> None:
    """The runner finds the package's doctests (the test above cannot pass vacuously) and
    reports a failing one."""
    attempted = sum(_run_doctests(importlib.import_module(_dotted(p)))[1] for p in MODULES)
    assert attempted >= 15
    probe = types.ModuleType("probe", ">>> 1 + 1\n3\n>>> 'abc'\n'a...c'\n>>> 2 * 2\n5...\n")
    failed, attempted, report = _run_doctests(probe)
    assert (failed, attempted) == (2, 3) and "Expected:\n    3\nGot:\n    2" in report


# ---------------------------------------------------------------------------- dotted names

_NAME = re.compile(r"(?<![\w./-])descriptors(?:\.[A-Za-z_]\w*)+")
_IMPORT = re.compile(r"\b(?:from\s+(descriptors(?:\.\w+)*)\s+import\b|import\s+(descriptors(?:\.\w+)*))")
#: File names that look like dotted names (``> descriptors.hpp``).
_FILES = ("hpp", "h", "py", "json", "toml", "md", "txt")
#: Names in CHANGELOG's older entries of modules since moved into folders (the entry "flat
#: modules now name their folder" says where): history, kept as written.  The list only shrinks.
CHANGELOG_HISTORY = {
    "descriptors.batch.HEX_COLUMNS", "descriptors.batch.encode_batch", "descriptors.batch.render",
    "descriptors.bulk.iter_encode", "descriptors.codec", "descriptors.layouts",
    "descriptors.output.FORMATS", "descriptors.output.json_schema",
    "descriptors.output.render_word", "descriptors.output.word_json",
}


def resolve(dotted: str, lent: bool) -> str | None:
    """Why ``dotted`` does not resolve (``None`` when it does): each part a module imported by
    its full name or an attribute of the part before; ``lent``: a submodule may be reached as
    an attribute of the package (``descriptors.tmem``) rather than by its own path."""
    parts = dotted.split(".")
    obj: object = importlib.import_module(parts[0])
    for i in range(1, len(parts)):
        prefix = ".".join(parts[:i + 1])
        try:
            obj = importlib.import_module(prefix)
            continue
        except ModuleNotFoundError:
            pass
        try:
            obj = getattr(obj, parts[i])
        except AttributeError:
            return f"{'.'.join(parts[:i])} has no {parts[i]!r}"
        if isinstance(obj, types.ModuleType) and not lent:
            return f"{prefix} is lent by the package; the module is {obj.__name__}"
    return None


def _importable(dotted: str) -> str | None:
    try:
        importlib.import_module(dotted)
    except ModuleNotFoundError as exc:
        return f"import {dotted}: {exc}"
    return None


def _names(text: str) -> set[str]:
    return {m.group(0) for m in _NAME.finditer(text) if m.group(0).rsplit(".", 1)[1] not in _FILES}


def _imports(text: str) -> set[str]:
    return {m.group(1) or m.group(2) for m in _IMPORT.finditer(text)}


def docstrings(path: Path) -> list[tuple[int, str]]:
    """(line, text) of every docstring of ``path``: the module's, its classes' and functions'."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            text = ast.get_docstring(node, clean=False)
            if text:
                found.append((getattr(node, "lineno", 1), text))
    return found


def _problems(text: str, lent: bool, allowed: set[str] = frozenset()) -> list[str]:
    out = [f"{name}: {why}" for name in sorted(_names(text) - allowed)
           if (why := resolve(name, lent))]
    out += [why for name in sorted(_imports(text) - allowed) if (why := _importable(name))]
    return out


@pytest.mark.parametrize("name", ["README.md", "CHANGELOG.md"])
def test_names_in_readme_and_changelog_resolve(name: str) -> None:
    text = (ROOT / name).read_text(encoding="utf-8")
    allowed = CHANGELOG_HISTORY if name == "CHANGELOG.md" else set()
    assert len(_names(text)) >= 10
    bad = _problems(text, lent=True, allowed=allowed)
    assert not bad, f"{name}: " + "; ".join(bad)


def test_changelog_history_is_history() -> None:
    """Each allowed CHANGELOG name is still written there and still resolves nowhere."""
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert CHANGELOG_HISTORY <= _names(text)
    assert all(resolve(name, lent=True) for name in CHANGELOG_HISTORY)


@pytest.mark.parametrize("path", sorted([*PACKAGE.rglob("*.py"), *(ROOT / "cli").glob("*.py")]),
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_names_in_docstrings_resolve(path: Path) -> None:
    bad = [f"{path.relative_to(ROOT)}:{line}: {why}" for line, text in docstrings(path)
           for why in _problems(text, lent=False)]
    assert not bad, "\n".join(bad)


def test_the_name_checks_see_what_does_not_resolve() -> None:
    """The checks on probes: a missing name, a lent module in a docstring, an import of a lent
    module, file names skipped."""
    text = ("`descriptors.encode` and descriptors.tools.lint.lint_lines, "
            "`descriptors.readers.sass.instruction_fact`, descriptors.tmem.footprint, "
            "from descriptors.lint import lint_lines; import descriptors.words.codec; "
            "> descriptors.hpp")
    assert _names(text) == {"descriptors.encode", "descriptors.tools.lint.lint_lines",
                            "descriptors.readers.sass.instruction_fact",
                            "descriptors.tmem.footprint", "descriptors.lint",
                            "descriptors.words.codec"}
    assert _imports(text) == {"descriptors.lint", "descriptors.words.codec"}
    assert _problems(text, lent=True) == [
        "descriptors.readers.sass.instruction_fact: descriptors.readers.sass has no "
        "'instruction_fact'",
        "import descriptors.lint: No module named 'descriptors.lint'"]
    assert [p.split(":")[0] for p in _problems(text, lent=False)] == [
        "descriptors.lint", "descriptors.readers.sass.instruction_fact",
        "descriptors.tmem.footprint", "import descriptors.lint"]


# ------------------------------------------------------------------ no private paths

def test_readme_links_stay_in_the_repository_and_nothing_names_private_notes():
    import re
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    readme = (root / "README.md").read_text()
    # markdown links and backticked paths that leave the repository break in a clone
    prose = re.sub(r"`[^`\n]*`", "", re.sub(r"```.*?```", "", readme, flags=re.S))
    for target in re.findall(r"\]\(([^)#]+)\)", prose) + re.findall(r"`(\.\./[^`]*)`", readme):
        if target.startswith(("http://", "https://")):
            continue
        assert not target.startswith(("../", "/")), target
        assert (root / target).exists(), target
    private = ("spec-" + "facts", "shared/" + "notes", "/work/" + "shared")
    for folder in ("descriptors", "cli", "tests", "fixtures"):
        for path in (root / folder).rglob("*"):
            if path.is_file() and path.suffix in (".py", ".md", ".toml", ".json", ".txt"):
                text = path.read_text(errors="replace")
                assert not any(p in text for p in private), path
    assert not any(p in readme for p in private)

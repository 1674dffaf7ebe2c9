"""The package's folders are layers (README, "Package layout"): a module never imports one of a
higher layer, nor of another folder on its own floor.  Checked on every import statement,
including the ones inside functions."""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "descriptors"
#: floor of each top-level part of the package, lowest first
FLOORS = {"errors": 0, "structs": 0, "words": 1, "rules": 2, "layout": 3, "isa": 3, "readers": 4,
          "tools": 5, "render": 6, "gdb": 7}
#: the top-level modules that are layers of their own (the others are the package's front)
TOP = {"errors", "structs"}
MODULES = sorted(p for p in PACKAGE.rglob("*.py") if p.parent != PACKAGE or p.stem in TOP)


def _imports(path: Path, root: Path = PACKAGE) -> list[tuple[int, str]]:
    """(line, first package part) of every package import in ``path`` (a file under ``root``)."""
    here = list(path.relative_to(root).parts[:-1])
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = here[:len(here) - (node.level - 1)]
            target = [*base, *(node.module.split(".") if node.module else [])]
            if not target:      # ``from .. import x``: x is the part
                found += [(node.lineno, alias.name) for alias in node.names]
            else:
                found.append((node.lineno, target[0]))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
            found += [(node.lineno, n.split(".")[1]) for n in names
                      if n and n.startswith("descriptors.") and n.count(".")]
    return sorted(found)


def test_every_folder_has_a_floor() -> None:
    folders = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert folders == set(FLOORS) - TOP


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_import_runs_up_or_sideways(path: Path) -> None:
    me = path.relative_to(PACKAGE).parts[0] if path.parent != PACKAGE else path.stem
    bad = [(line, part) for line, part in _imports(path)
           if part in FLOORS and part != me and FLOORS[part] >= FLOORS[me]]
    assert not bad, f"{path.name} imports from a layer not below {me!r}: {bad}"


def test_the_check_sees_a_violation(tmp_path: Path) -> None:
    """The checker itself: upward imports, inside a function and absolute, are found."""
    (tmp_path / "words").mkdir()
    probe = tmp_path / "words" / "probe.py"
    probe.write_text("from .bits import Field\n"
                     "def f():\n    from ..tools.lint import lint_lines\n"
                     "import descriptors.readers.sass\n", encoding="utf-8")
    assert _imports(probe, tmp_path) == [(1, "words"), (3, "tools"), (4, "readers")]


# ---------------------------------------------------------------- presentation in one layer

ROOT = PACKAGE.parent
#: Where rich may be imported: the presentation floor, nowhere else (the command line draws
#: through it too).
RICH_ALLOWED = PACKAGE / "render"
SOURCES = sorted([*PACKAGE.rglob("*.py"), *(ROOT / "cli").rglob("*.py")])


def _rich_imports(path: Path) -> list[int]:
    """Lines of ``path`` that import rich (``import rich...``, ``from rich... import``),
    wherever they are: at the top, inside a function, under ``TYPE_CHECKING``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names = [node.module or ""]
        else:
            continue
        if any(n == "rich" or n.startswith("rich.") for n in names):
            found.append(node.lineno)
    return found


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_only_the_render_floor_imports_rich(path: Path) -> None:
    lines = _rich_imports(path)
    if RICH_ALLOWED in path.parents:
        return
    assert not lines, f"{path.relative_to(ROOT)} imports rich (line {lines}): draw through " \
                      "descriptors.render"


def test_render_is_the_floor_that_draws() -> None:
    """The check is not vacuous: render imports rich, and the check sees an import of rich
    however it is written."""
    assert any(_rich_imports(p) for p in RICH_ALLOWED.rglob("*.py"))


def test_the_rich_check_sees_every_form(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text("import rich\nfrom typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                     "    from rich.console import Console\n"
                     "def f():\n    import rich.table as t\n    from . import rich\n"
                     "import richer\n", encoding="utf-8")
    assert _rich_imports(probe) == [1, 4, 6]

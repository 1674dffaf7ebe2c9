"""The package's folders are layers (README, "Package layout"): a module never imports one of a
higher layer, nor of another folder on its own floor.  Checked on every import statement,
including the ones inside functions.

Nor does the package's code import through its front (the lazy names of
``descriptors/__init__.py`` are for users), and no module of the package or the CLI takes
another module's ``_private`` names: what is shared has a public name where it is defined."""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "descriptors"
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


# ---------------------------------------------------------------------------- the package front

#: What the package's own code may import from ``descriptors`` itself: its real submodules and
#: subpackages, and the one name ``descriptors/__init__.py`` defines rather than lends.  Every
#: other name there (``encode``, ``tmem``, ...) is the front's lazy table, for users: code in
#: the package imports each from the module where it lives.
ROOT_MODULES = {p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__"} | {
    p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
ROOT_NAMES = ROOT_MODULES | {"__version__"}
#: The command line, whose modules follow the same rule on private names.
CLI = PACKAGE.parent / "cli"
ALL_MODULES = sorted([*PACKAGE.rglob("*.py"), *CLI.glob("*.py")])


def _module_of(path: Path, top: Path) -> list[str]:
    """The dotted name of ``path`` (a file under the package or cli folder ``top``), as parts."""
    parts = [top.name, *path.relative_to(top).with_suffix("").parts]
    return parts[:-1] if parts[-1] == "__init__" else parts


def _package_parts(path: Path, top: Path) -> list[str]:
    """The package ``path`` is in (its relative imports' base), as parts."""
    return [top.name, *path.relative_to(top).parent.parts]


def _target(node: ast.ImportFrom, package: list[str]) -> list[str]:
    """The module an ``ImportFrom`` in a module of ``package`` (its parts) reads, as parts."""
    module = node.module.split(".") if node.module else []
    if not node.level:
        return module
    return [*package[:len(package) - (node.level - 1)], *module]


def _front_imports(path: Path, top: Path = PACKAGE) -> list[tuple[int, str]]:
    """(line, import) of every import in ``path`` that goes through the package front: a name
    of ``descriptors`` that is not one of its modules (``from .. import tmem``, ``from
    descriptors import encode``), ``import descriptors`` itself, and ``descriptors.x`` read as
    an attribute of the package where ``x`` is no submodule."""
    package = _package_parts(path, top)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            target = _target(node, package)
            if target == [top.name]:
                found += [(node.lineno, f"from {'.' * node.level or top.name} import {a.name}")
                          for a in node.names if node.level == 0 or a.name not in ROOT_NAMES]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, f"import {a.name}") for a in node.names if a.name == top.name]
        elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
              and node.value.id == top.name and node.attr not in ROOT_MODULES):
            found.append((node.lineno, f"{top.name}.{node.attr}"))
    return sorted(found)


def _private_imports(path: Path, top: Path) -> list[tuple[int, str]]:
    """(line, name) of every ``_private`` name ``path`` takes from another module of the package
    or the CLI: ``from .codec import _word`` and ``codec._word`` where ``codec`` was imported
    (dunder names such as ``__version__`` are public)."""
    me, package = _module_of(path, top), _package_parts(path, top)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    ours = (PACKAGE.name, CLI.name)
    found, modules = [], set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            target = _target(node, package)
            if not target or target[0] not in ours:
                continue
            for a in node.names:
                modules.add(a.asname or a.name)
                if a.name.startswith("_") and not a.name.startswith("__") and target != me:
                    found.append((node.lineno, f"{'.'.join(target)}.{a.name}"))
        elif isinstance(node, ast.Import):
            modules |= {a.asname or a.name.split(".")[0] for a in node.names
                        if a.name.split(".")[0] in ours}
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and node.attr.startswith("_")
                and not node.attr.startswith("__")):
            base = node.value
            while isinstance(base, ast.Attribute):
                base = base.value
            if isinstance(base, ast.Name) and base.id in modules:
                found.append((node.lineno, ast.unparse(node)))
    return sorted(found)


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")),
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_import_through_the_package_front(path: Path) -> None:
    """The front's lazy names are for users; the package's code imports the module that
    defines a name (``from . import tmem``, not ``from .. import tmem``)."""
    bad = _front_imports(path)
    assert not bad, f"{path.name} imports through the package front: {bad}"


@pytest.mark.parametrize("path", ALL_MODULES, ids=lambda p: str(p.relative_to(PACKAGE.parent)))
def test_no_private_name_of_another_module(path: Path) -> None:
    """What another module needs has a public name (and a docstring) where it is defined."""
    top = CLI if path.is_relative_to(CLI) else PACKAGE
    bad = _private_imports(path, top)
    assert not bad, f"{path.name} takes private names of other modules: {bad}"


def test_the_front_checks_see_their_violations(tmp_path: Path) -> None:
    """Both checkers, on probes: each way through the front and each way to a private name is
    found, at its line; a module's own private names, dunders and public aliases are not."""
    top = tmp_path / "descriptors"
    (top / "isa").mkdir(parents=True)
    (top / "errors.py").write_text("", encoding="utf-8")
    probe = top / "isa" / "probe.py"
    probe.write_text("from .. import errors, __version__\n"
                     "def f():\n    from .. import tmem\n"
                     "import descriptors\n"
                     "from descriptors import encode\n"
                     "import descriptors.isa.tmem\n"
                     "x = descriptors.validate, descriptors.isa\n"
                     "from ..words.codec import _word, parse_int as _parse_int\n"
                     "from . import tmem as t\n"
                     "y = t._private, t.__name__\n"
                     "from .probe import _mine\n", encoding="utf-8")
    assert _front_imports(probe, top) == [
        (3, "from .. import tmem"), (4, "import descriptors"),
        (5, "from descriptors import encode"), (7, "descriptors.validate")]
    assert _private_imports(probe, top) == [(8, "descriptors.words.codec._word"),
                                            (10, "t._private")]
    cli = tmp_path / "cli"
    cli.mkdir()
    (cli / "word_cmds.py").write_text("from .common import _console, emit_word\n"
                                      "from descriptors.tools.printer import _verdict\n",
                                      encoding="utf-8")
    assert _private_imports(cli / "word_cmds.py", cli) == [
        (1, "cli.common._console"), (2, "descriptors.tools.printer._verdict")]


def test_the_front_lends_public_names_no_module_shadows() -> None:
    """The lazy table: public names only, none of them also a module directly under the package
    (importing that module would bind it on the package over the lent name, as a
    ``descriptors/validate.py`` would hide ``descriptors.validate``, the function); each lent
    submodule is the module where it lives, and README names it ("Package layout")."""
    import importlib

    import descriptors

    assert all(not name.startswith("_") for name in descriptors._LAZY)
    assert not ROOT_MODULES & set(descriptors._LAZY), ROOT_MODULES & set(descriptors._LAZY)
    importlib.import_module("descriptors.rules.validate")
    assert descriptors.validate is importlib.import_module("descriptors.rules.validate").validate
    readme = (PACKAGE.parent / "README.md").read_text(encoding="utf-8")
    layout = readme[readme.index("### Package layout"):]
    lent = {n: m for n, (m, attr) in descriptors._LAZY.items() if attr is None}
    assert {"zcm", "tmem", "lint", "dump"} <= set(lent)
    for name, module in lent.items():
        real = importlib.import_module(module, "descriptors")
        assert getattr(descriptors, name) is real and real.__name__.endswith(f".{name}")
        assert f"`.{name}`" in layout or f"`descriptors.{name}`" in layout, name


# ---------------------------------------------------------------------------- presentation in one layer

#: Where rich may be imported: the presentation floor, nowhere else (the command line draws
#: through it too).
RICH_ALLOWED = PACKAGE / "render"


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


@pytest.mark.parametrize("path", ALL_MODULES, ids=lambda p: str(p.relative_to(PACKAGE.parent)))
def test_only_the_render_floor_imports_rich(path: Path) -> None:
    lines = _rich_imports(path)
    if RICH_ALLOWED in path.parents:
        return
    assert not lines, f"{path.relative_to(PACKAGE.parent)} imports rich (line {lines}): draw " \
                      "through descriptors.render"


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

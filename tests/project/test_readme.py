"""The README is tested (issue 14): every ``$ descgen ...`` line of a ```console block runs, and
where the README shows output under it, the output must be what the command prints.

Doctest-style rules, as Sphinx's doctest or pytest-console-scripts apply them:

- A command is the text after ``$ `` (a ``# comment`` at its end is dropped, as a shell would).
  Every ``$`` line of a console block must be a ``descgen`` command: a pipeline or another
  program belongs in a ```sh block, which is not run.
- The lines after a command, up to the next ``$`` line or the end of the block, are its output:
  what a terminal shows (stdout and stderr as they interleave), each line compared without
  trailing blanks.  A line ``...`` stands for any number of lines (doctest's ELLIPSIS).
- No lines under a command mark its output as elided: the command must still run, and exit 0
  (or 1, a descriptor that breaks a rule: what ``check`` and ``lint`` examples show), never 2
  (bad usage or input) -- so a README example can not go stale by its options.
- ``> FILE`` sends stdout to FILE.  Commands run in a fresh directory in which ``fixtures``
  is the repository's ``fixtures/``: relative fixture paths work as from the repository root, and
  files an example writes (``--svg atom.svg``, ``> descriptors.hpp``) land in the temporary
  directory, where the test checks they were written.

Every ```python block runs too, statement by statement, the blocks of one section (the README
heading above them) in order in one namespace, in such a directory (where ``kernel.cubin``, the
binary a sample opens, is ``fixtures/binaries/bad_m256_cta1.cubin``):

- A comment that starts with a Python literal, at the end of a statement's last line, shows
  its value (``word = encode(...)  # 0x08400490``, ``# 0x08420490: the raw packing``,
  ``# (32, 256)``): the value of the expression, or of the one name an assignment binds, must
  equal it.  Other comments are prose.
- A comparison on its own (``int(d) == word``) must hold.
- A comment line ``# SomeError: message`` right under a statement shows that it raises: an
  exception of that class (or a subclass), whose message matches (``...`` for any text).
"""

from __future__ import annotations

import ast
import contextlib
import io
import re
import shlex
import shutil
import tokenize
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cli.main import app

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"


@dataclass
class Example:
    line: int  #: README line number of the ``$`` line
    command: str  #: the text after ``$ ``
    output: list[str]  #: the lines shown under it ([] = elided)

    def __str__(self) -> str:
        return f"README.md:{self.line}: $ {self.command}"


def examples(text: str) -> list[Example]:
    """The ``$`` commands of every ```console block of ``text``, with the output shown."""
    found: list[Example] = []
    in_block, current = False, None
    for number, line in enumerate(text.splitlines(), 1):
        if not in_block:
            in_block, current = line.strip() == "```console", None
        elif line.strip().startswith("```"):
            in_block = False
        elif line.startswith("$ "):
            current = Example(number, line[2:].strip(), [])
            found.append(current)
        elif current is not None:
            current.output.append(line.rstrip())
    return found


EXAMPLES = examples(README.read_text(encoding="utf-8"))


def _matches(shown: list[str], actual: list[str]) -> bool:
    """doctest's ELLIPSIS at line granularity: a ``...`` line matches any run of lines."""
    pattern = "".join(r"(?:[^\n]*\n)*?" if line == "..." else re.escape(line) + r"\n"
                      for line in shown)
    return re.fullmatch(pattern, "".join(f"{line}\n" for line in actual)) is not None


def test_the_readme_has_console_examples():
    """The parser finds the README's examples (the test below cannot pass vacuously)."""
    assert len(EXAMPLES) >= 20
    assert sum(bool(e.output) for e in EXAMPLES) >= 8
    assert all(e.command.startswith("descgen ") for e in EXAMPLES), [
        str(e) for e in EXAMPLES if not e.command.startswith("descgen ")]


def test_matching_rules():
    assert _matches(["a", "...", "d"], ["a", "b", "c", "d"])
    assert _matches(["a", "..."], ["a"])
    assert not _matches(["a", "b"], ["a", "b", "c"])
    assert not _matches(["a", "...", "d"], ["a", "b", "c"])
    assert examples("```console\n$ descgen x  # c\nout\n\n$ descgen y\n```\n$ descgen z\n"
                    "```console\nstray\n```\n") == [
        Example(2, "descgen x  # c", ["out", ""]), Example(5, "descgen y", [])]


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    (tmp_path / "fixtures").symlink_to(ROOT / "fixtures", target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    return tmp_path


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: f"L{e.line}")
def test_readme_example(example: Example, workdir: Path):
    words = shlex.split(example.command, comments=True)
    assert words[0] == "descgen", f"{example}: not a descgen command"
    assert "|" not in words, f"{example}: a pipeline; put it in a ```sh block"
    redirect = None
    if ">" in words:
        at = words.index(">")
        words, redirect = words[:at], words[at + 1:]
        assert len(redirect) == 1, f"{example}: one file after >"
    result = CliRunner().invoke(app, words[1:])
    assert "internal error" not in result.output and result.exception is None or isinstance(
        result.exception, SystemExit), f"{example}\n{result.output}"
    if redirect:
        (workdir / redirect[0]).write_text(result.stdout, encoding="utf-8")
        shown_text = result.stderr
    else:
        shown_text = result.output
    actual = [line.rstrip() for line in shown_text.splitlines()]
    shown = list(example.output)
    while shown and not shown[-1]:
        shown.pop()
    if shown:
        assert _matches(shown, actual), (
            f"{example}\nREADME shows:\n" + "\n".join(shown) + "\n\nthe command prints:\n"
            + "\n".join(actual))
    assert result.exit_code in (0, 1), f"{example}: exit {result.exit_code}\n{result.output}"
    if "--svg" in words:
        assert (workdir / words[words.index("--svg") + 1]).stat().st_size > 0
    if redirect:
        assert (workdir / redirect[0]).stat().st_size > 0


# ---------------------------------------------------------------------------- ```python blocks

#: Files the README's Python samples open, as the fixtures that stand for them.
SAMPLE_FILES = {"kernel.cubin": ROOT / "fixtures" / "binaries" / "bad_m256_cta1.cubin"}
_RAISES = re.compile(r"#\s*([A-Za-z_]\w*(?:Error|Exception)):\s?(.*)")


@dataclass
class PythonBlock:
    line: int  #: README line number of the block's first line of code
    section: str  #: the heading above it
    code: str


@dataclass
class Statement:
    line: int  #: README line number
    source: str
    node: ast.stmt = field(repr=False)
    shows: tuple[bool, Any] = (False, None)  #: (whether a value is shown, the value)
    raises: tuple[str, str] | None = None  #: (exception class name, message) shown under it

    def __str__(self) -> str:
        return f"README.md:{self.line}: {self.source.splitlines()[0]}"


def python_blocks(text: str) -> dict[str, list[PythonBlock]]:
    """The ```python blocks of ``text`` by section (the heading above them), in order."""
    groups: dict[str, list[PythonBlock]] = {}
    section, fence, start, body = "", None, 0, []
    for number, line in enumerate(text.splitlines(), 1):
        if fence is None:
            if line.startswith("```"):
                fence, start, body = line.strip()[3:], number + 1, []
            elif line.startswith("#"):
                section = line.lstrip("#").strip()
        elif line.strip().startswith("```"):
            if fence == "python":
                groups.setdefault(section, []).append(PythonBlock(start, section, "\n".join(body)))
            fence = None
        else:
            body.append(line)
    return groups


def _shown_value(comment: str) -> tuple[bool, Any]:
    """(True, value) when ``comment`` starts with a Python literal (all of it, or what comes
    before its first colon), else (False, None)."""
    text = comment.lstrip("#").strip()
    for candidate in (text, text.split(":", 1)[0]):
        try:
            return True, ast.literal_eval(candidate)
        except (ValueError, SyntaxError, TypeError):
            pass
    return False, None


def statements(block: PythonBlock) -> list[Statement]:
    """The block's top-level statements with the value or the exception each one shows."""
    lines = block.code.splitlines()
    comments = {tok.start[0]: tok for tok in tokenize.generate_tokens(io.StringIO(block.code).readline)
                if tok.type == tokenize.COMMENT}
    found = []
    for node in ast.parse(block.code).body:
        end = node.end_lineno or node.lineno
        st = Statement(block.line + node.lineno - 1, ast.get_source_segment(block.code, node) or "",
                       node)
        trailing = comments.get(end)
        if trailing is not None and lines[end - 1][:trailing.start[1]].strip():
            st.shows = _shown_value(trailing.string)
        under = comments.get(end + 1)
        if under is not None and not lines[end][:under.start[1]].strip():
            m = _RAISES.fullmatch(under.string.strip())
            if m:
                st.raises = (m.group(1), m.group(2).strip())
        found.append(st)
    return found


def _message_matches(shown: str, actual: str) -> bool:
    pattern = ".*?".join(re.escape(part) for part in shown.split("..."))
    return re.fullmatch(pattern, actual, re.DOTALL) is not None


def run_statement(st: Statement, namespace: dict[str, Any]) -> None:
    """Run one statement in ``namespace``; an AssertionError names the README line when it does
    not do what the README shows."""
    node = st.node
    if st.raises is not None:
        name, message = st.raises
        try:
            exec(compile(ast.Module([node], []), "README.md", "exec"), namespace)
        except Exception as exc:  # noqa: BLE001 - the README names the class
            names = [c.__name__ for c in type(exc).__mro__]
            assert name in names, f"{st}: raised {type(exc).__name__}, README shows {name}"
            assert _message_matches(message, str(exc)), (
                f"{st}: README shows\n  {name}: {message}\nit raises\n  {name}: {exc}")
            return
        raise AssertionError(f"{st}: README shows it raises {name}; it does not")
    if isinstance(node, ast.Expr):
        value = eval(compile(ast.Expression(node.value), "README.md", "eval"), namespace)
        if isinstance(node.value, ast.Compare):
            assert value, f"{st}: the comparison does not hold"
    else:
        exec(compile(ast.Module([node], []), "README.md", "exec"), namespace)
        targets = node.targets if isinstance(node, ast.Assign) else []
        value = (namespace[targets[0].id] if len(targets) == 1 and isinstance(targets[0], ast.Name)
                 else None)
    shown, expected = st.shows
    if shown:
        assert value == expected, f"{st}: README shows {_shown(expected)}, it gives {_shown(value)}"


def _shown(value: Any) -> str:
    return f"{value:#x}" if isinstance(value, int) and not isinstance(value, bool) else repr(value)


PYTHON_GROUPS = python_blocks(README.read_text(encoding="utf-8"))


def test_the_readme_has_python_samples():
    """The parser finds the README's Python samples and what they show (the test below cannot
    pass vacuously)."""
    every = [st for blocks in PYTHON_GROUPS.values() for b in blocks for st in statements(b)]
    assert len(every) >= 20
    assert sum(st.shows[0] for st in every) >= 4 and sum(st.raises is not None for st in every) >= 1
    assert "Library" in PYTHON_GROUPS


def test_python_sample_rules(tmp_path):
    """The rules above, on a sample README: values, comparisons, an exception and its message
    are checked, and a wrong value, a false comparison or a missing exception fails."""
    text = ("# A\n```python\nx = 1 + 1  # 2\nx * 3  # 6: six\nx == 2  # prose\n"
            "int('z')\n# ValueError: invalid literal ... 'z'\n```\n```sh\n# no heading\n```\n"
            "```python\ny = x  # prose, 1\n```\n")
    groups = python_blocks(text)
    assert list(groups) == ["A"] and [b.line for b in groups["A"]] == [3, 13]
    sts = [st for b in groups["A"] for st in statements(b)]
    assert [(st.line, st.shows, st.raises) for st in sts] == [
        (3, (True, 2), None), (4, (True, 6), None), (5, (False, None), None),
        (6, (False, None), ("ValueError", "invalid literal ... 'z'")), (13, (False, None), None)]
    namespace: dict[str, Any] = {}
    for st in sts:
        run_statement(st, namespace)
    for bad in ("x = 1  # 2", "1 == 2", "int('1')\n# ValueError: ...", "int('z')\n# KeyError: ...",
                "int('z')\n# ValueError: other"):
        (st,) = statements(PythonBlock(1, "A", bad))
        with pytest.raises(AssertionError):
            run_statement(st, {})


@pytest.mark.parametrize("section", PYTHON_GROUPS, ids=lambda s: s.replace(" ", "_"))
def test_readme_python(section: str, workdir: Path):
    for name, fixture in SAMPLE_FILES.items():
        shutil.copyfile(fixture, workdir / name)
    namespace: dict[str, Any] = {"__name__": "__readme__"}
    with contextlib.redirect_stdout(io.StringIO()):
        for block in PYTHON_GROUPS[section]:
            for st in statements(block):
                try:
                    run_statement(st, namespace)
                except AssertionError:
                    raise
                except Exception as exc:
                    from descriptors.errors import ToolNotFoundError
                    if isinstance(exc, ToolNotFoundError):
                        pytest.skip(f"{st}: {exc}")
                    raise AssertionError(f"{st}: {type(exc).__name__}: {exc}") from exc


def test_readme_cuda_gdb_session_is_the_recorded_one():
    """The README's cuda-gdb session (a ``(cuda-gdb) source`` block) is the recorded
    fixtures/gdb/ext_lineinfo_2.txt: each line, in order (``...`` skips lines), but for the
    ``source`` line, whose recorded path is the machine's own."""
    text = README.read_text()
    start = text.index("```\n(cuda-gdb) source ")
    block = text[start + 4:text.index("```", start + 4)].splitlines()
    recorded = [line.rstrip() for line in
                (ROOT / "fixtures" / "gdb" / "ext_lineinfo_2.txt").read_text().splitlines()]
    assert block[0] == "(cuda-gdb) source descriptors/gdb/descgen_gdb.py"
    assert recorded[0].endswith("/descriptors/gdb/descgen_gdb.py")
    at = 1
    for line in block[1:]:
        if line == "...":
            continue
        while at < len(recorded) and recorded[at] != line.rstrip():
            at += 1
        assert at < len(recorded), f"README line not in the recording (in order): {line}"
        at += 1

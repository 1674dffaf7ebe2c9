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
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app

ROOT = Path(__file__).resolve().parent.parent
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

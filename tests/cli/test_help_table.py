"""Every command's ``--help`` names only options the command has, and README's table of
options ("Command line") lists exactly the options each ``--help`` lists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import COMMANDS, app

README = Path(__file__).resolve().parents[2] / "README.md"
#: An option's line in ``--help``: two blanks, then its spellings (``-m, --m``, ``--ws / --no-ws``).
_OPTION_LINE = re.compile(r"  (-[-\w]*(?:, -[-\w]*)*(?: / --[-\w]+)?)(?: <[^>]*>)?(?:\s|$)")


def _help(command: str) -> str:
    result = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result.stdout


def help_options(command: str) -> list[str]:
    """The options ``descgen COMMAND --help`` lists, each as it spells it (``-m, --m``),
    ``--help`` left out."""
    found = []
    for line in _help(command).splitlines():
        m = _OPTION_LINE.match(line)
        if m and m.group(1) != "--help":
            found.append(m.group(1))
    return found


def readme_options() -> dict[str, list[str]]:
    """README's table of options: command -> the options of its row (backquoted, as --help
    spells them)."""
    text = README.read_text(encoding="utf-8")
    start = text.index("| command | options |")
    rows = {}
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("| `"):
            break
        command, options = line.strip("|").split("|", 1)
        rows[command.strip().strip("`")] = re.findall(r"`([^`]+)`", options)
    return rows


@pytest.mark.parametrize("command", list(COMMANDS))
def test_readme_table_lists_the_options_of_help(command):
    assert readme_options().get(command) == help_options(command), (
        f"README's row of {command} differs from its --help; the row should read: | `{command}` "
        "| " + ", ".join(f"`{o}`" for o in help_options(command)) + " |")


def test_readme_table_has_no_other_command():
    assert list(readme_options()) == list(COMMANDS)


@pytest.mark.parametrize("command", list(COMMANDS))
def test_help_names_only_options_the_command_has(command):
    text = re.sub(r"-\n\s+", "-", _help(command))  # an option name broken at its hyphen
    has = {s for o in help_options(command) for s in re.findall(r"--?[\w][\w-]*", o)}
    named = set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*[a-z0-9])", text))
    assert named - has - {"--help"} == set(), f"{command} --help names {named - has}"


def test_the_extraction_sees_real_options():
    assert help_options("idesc")[:3] == ["--kind", "-m, --m", "-n, --n"]
    assert "--ws / --no-ws" in help_options("idesc")
    assert "--lbo" not in help_options("smem")  # the second name is on the same line
    assert "--leading-byte-offset, --lbo" in help_options("smem")


def test_force_hint_only_where_force_would_emit_something():
    result = CliRunner().invoke(app, ["tmem", "--ld", "32x32b.x2", "--lane", "16", "--plain"])
    assert result.exit_code == 1 and "INVALID" in result.stdout  # the footprint is shown
    last = result.stderr.splitlines()[-1]
    assert "use --force to emit it anyway" not in last
    assert last.endswith("(the footprint is shown above; --force makes its errors warnings, "
                         "exit 0)")
    result = CliRunner().invoke(app, ["idesc", "--kind", "f16", "--a-type", "f16", "--b-type",
                                      "f16", "-m", "256", "-n", "256", "--cta-group", "1"])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.splitlines()[-1].endswith("(use --force to emit it anyway)")


def test_word_format_help_names_its_own_tables():
    assert "--show" not in _help("idesc") and "--datapath" not in _help("smem")
    assert "with --show their table" in " ".join(_help("zcm").split())
    assert "with --ld/--st, --datapath their table" in " ".join(_help("tmem").split())

"""README's table of output formats ("Output formats, `--plain` and JSON") lists, for every
command, exactly the choices of its ``--format`` option, the default first."""

from __future__ import annotations

import re
from pathlib import Path

from cli.main import COMMANDS, all_commands

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_formats() -> dict[str, list[str]]:
    """README's table of formats: command -> its formats, in the row's order (parenthesised
    remarks left out)."""
    text = README.read_text(encoding="utf-8")
    start = text.index("| command | formats (default first) |")
    rows = {}
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("| `"):
            break
        commands, formats = line.strip().strip("|").split("|")
        formats = re.sub(r"\([^()]*(?:\([^()]*\)[^()]*)*\)", "", formats)
        for command in re.findall(r"`([^`]+)`", commands):
            rows[command] = [f.strip() for f in formats.split(",")]
    return rows


def help_formats() -> dict[str, list[str]]:
    """Each command's ``--format`` choices, its default moved first."""
    found = {}
    for name, command in all_commands().items():
        (param,) = [p for p in command.params if "--format" in p.opts]
        default = param.default.value
        found[name] = [default] + [c for c in param.type.choices if c != default]
    return found


def test_readme_formats_table_is_each_commands_format_choices():
    readme, choices = readme_formats(), help_formats()
    assert list(choices) == list(COMMANDS)
    assert readme == choices


def test_the_extraction_sees_real_rows():
    rows = readme_formats()
    assert rows["idesc"] == ["hex", "c", "cpp", "python", "json", "text"]
    assert rows["decode"] == ["text", "json"]
    assert help_formats()["layout"][:2] == ["text", "json"]

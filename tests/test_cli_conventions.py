"""Conventions of the whole command line (issue 14): --version and typer's shell completion."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

import descriptors
from cli.main import app

from helpers import ok


def test_version_prints_the_package_version_as_the_batch_header_does():
    assert ok("--version") == f"descgen {descriptors.__version__}\n"
    assert descriptors.__version__ == "0.1.0"  # pyproject's version


def test_version_is_eager_and_needs_no_command():
    # eager: printed before any command (or its missing options) is looked at
    assert ok("--version", "idesc") == f"descgen {descriptors.__version__}\n"


def test_help_lists_version_and_completion_options():
    text = ok("--help")
    for option in ("--version", "--install-completion", "--show-completion"):
        assert option in text


@pytest.fixture
def no_detect(monkeypatch):
    """Typer's own switch: --show/--install-completion take the shell as a value instead of
    detecting the running shell (the command is rebuilt by every CliRunner.invoke)."""
    monkeypatch.setenv("_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION", "1")
    return CliRunner()


@pytest.mark.parametrize("shell, marker", [
    ("bash", "complete -o default -F _descgen_completion descgen"),
    ("zsh", "compdef _descgen_completion descgen"),
    ("fish", "complete --command descgen"),
])
def test_show_completion_script_per_shell(no_detect, shell, marker):
    result = no_detect.invoke(app, ["--show-completion", shell])
    assert result.exit_code == 0, result.output
    assert marker in result.stdout
    assert "_DESCGEN_COMPLETE=complete_" + shell in result.stdout


@pytest.mark.parametrize("shell, rc_file", [
    ("bash", ".bashrc"), ("zsh", ".zshrc"), ("fish", ".config/fish/completions/descgen.fish"),
])
def test_install_completion_writes_the_shell_setup(no_detect, tmp_path, monkeypatch, shell, rc_file):
    monkeypatch.setenv("HOME", str(tmp_path))
    result = no_detect.invoke(app, ["--install-completion", shell])
    assert result.exit_code == 0, result.output
    assert f"{shell} completion installed in" in result.stdout
    assert (tmp_path / rc_file).is_file()


def test_bash_completion_completes_commands_and_options():
    """What the installed script asks the program: the words to offer."""
    r = CliRunner().invoke(app, [], env={"_DESCGEN_COMPLETE": "complete_bash",
                                         "COMP_WORDS": "descgen sm", "COMP_CWORD": "1"})
    assert r.exit_code == 0 and r.stdout.split() == ["smem"]
    r = CliRunner().invoke(app, [], env={"_DESCGEN_COMPLETE": "complete_bash",
                                         "COMP_WORDS": "descgen smem --swi", "COMP_CWORD": "2"})
    assert r.exit_code == 0 and r.stdout.split() == ["--swizzle"]

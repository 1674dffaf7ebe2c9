"""Shared test helpers: one legal type combination per kind, and the CLI runner checks."""

from __future__ import annotations

from typing import Any

from typer.testing import CliRunner

from cli.main import app

#: A legal type combination per kind (Table 39 dtype / atype / btype columns).
LEGAL_TYPES: dict[str, dict[str, Any]] = {
    "tf32": {"a_type": "tf32", "b_type": "tf32", "d_type": "f32"},
    "f16": {"a_type": "bf16", "b_type": "bf16", "d_type": "f32"},
    "f8f6f4": {"a_type": "e4m3", "b_type": "e4m3", "d_type": "f32"},
    "i8": {"a_type": "s8", "b_type": "s8", "d_type": "s32"},
    "mxf8f6f4": {"a_type": "e4m3", "b_type": "e4m3", "scale_type": "ue8m0"},
    "mxf4": {"a_type": "e2m1", "b_type": "e2m1", "scale_type": "ue8m0"},
    "mxf4nvf4": {"a_type": "e2m1", "b_type": "e2m1", "scale_type": "ue4m3"},
}

runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args))


def ok(*args: str) -> str:
    """A command that must succeed: exit 0, nothing on stderr; returns stdout."""
    result = run(*args)
    assert result.exit_code == 0, (result.stdout, result.stderr)
    assert result.stderr == ""
    return result.stdout


def fails(*args: str, code: int = 2) -> str:
    """A command that must fail: exit code, empty stdout, exactly one 'descgen: error:' line."""
    result = run(*args)
    assert result.exit_code == code, (result.stdout, result.stderr)
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("descgen: error: ")
    assert "Traceback" not in result.stderr
    return lines[0]

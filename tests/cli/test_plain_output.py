"""``--plain`` is stable plain text on every command: no box drawing (U+2500-U+257F), over
every command line with ``--plain`` that tests/production/golden_outputs.json pins, run again
through the CliRunner."""

from __future__ import annotations

import json
import os
import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "production" / "golden_outputs.json"
BOX = re.compile("[\u2500-\u257f]")

PLAIN = sorted(c for c in json.loads(GOLDEN.read_text()) if "--plain" in shlex.split(c))


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    """A directory whose ``fixtures`` is the checkout's (the golden lines name fixtures/
    relative to it); what a line writes (``--svg map.svg``) lands there."""
    path = tmp_path_factory.mktemp("plain")
    (path / "fixtures").symlink_to(ROOT / "fixtures", target_is_directory=True)
    return path


def _run(command: str, work: Path):
    words = shlex.split(command)
    stdin = None
    if "<" in words:
        at = words.index("<")
        stdin, words = (ROOT / words[at + 1]).read_bytes(), words[:at] + words[at + 2:]
    saved = os.getcwd()
    os.chdir(work)
    try:
        return CliRunner().invoke(app, words, input=stdin)
    finally:
        os.chdir(saved)


def test_the_golden_lines_cover_plain_on_the_picture_commands():
    assert len(PLAIN) > 100
    assert any(c.startswith("layout ") and "--show" in c for c in PLAIN)
    assert any(c.startswith("zcm ") and "--show" in c for c in PLAIN)


@pytest.mark.parametrize("command", PLAIN)
def test_plain_output_has_no_box_drawing(command, work):
    result = _run(command, work)
    found = BOX.findall(result.stdout)
    assert not found, f"descgen {command} --plain draws {''.join(sorted(set(found)))}"

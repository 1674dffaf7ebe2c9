"""The presentation floor (descriptors/render): dump's JSON made by msgspec is ``json.dumps``'s
text, byte for byte, whatever the text of a finding holds (characters outside ASCII, DEL,
control characters, the text a template leaves open), through the template of a place and
without it."""

from __future__ import annotations

import io
import json
import sys
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from descriptors.render.dump import _HOLE_TEXT, json_text, write_json
from descriptors.tools.dump import FoundWord, scan

TRICKY = st.text(alphabet=st.one_of(st.characters(), st.sampled_from(
    ["\x00", "\x7f", "\x1b", '"', "\\", "\u2028", "\U0001f600", "\ufffd", "/"])), max_size=12)
SCALARS = st.one_of(st.none(), st.booleans(), TRICKY,
                    st.integers(min_value=-(1 << 63), max_value=(1 << 64) - 1),
                    st.integers(1, 99).map(lambda n: n / 100))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(TRICKY, inner, max_size=4)), max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(VALUES)
def test_json_text_is_json_dumps(value: Any) -> None:
    assert json_text(value) == json.dumps(value).encode("ascii")


def _written(findings: list[Any], name: str) -> str:
    out = io.StringIO()  # no binary buffer: the text as it is
    saved, sys.stdout = sys.stdout, out
    try:
        write_json(iter(findings), name)
    finally:
        sys.stdout = saved
    return out.getvalue()


def _expected(findings: list[Any], name: str) -> str:
    body = ",".join("\n  " + json.dumps(f.to_dict()) for f in findings)
    return '{"input": ' + json.dumps(name) + ', "findings": [' + body + \
        ("\n]}\n" if findings else "]}\n")


WORDS = scan("adesc = 0x4000404000010040\nidesc=0x08400490\ntaddr 0x00200000\n"
             "desc: 0x08400490\n")


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, len(WORDS) - 1), TRICKY, st.one_of(st.none(), TRICKY),
                          st.integers(1, 10**6)), max_size=8), TRICKY)
def test_dump_json_of_any_text_is_json_dumps(picks: list[tuple[int, str, Any, int]],
                                            name: str) -> None:
    """Findings at the same place and elsewhere, their text and name anything."""
    findings = []
    for i, text, who, line in picks:
        f = WORDS[i]
        findings.append(FoundWord(line, f.source, f.register, who, text, f.word, f.size,
                                 f.candidates))
    findings += findings[:3]  # met again: the kept text
    assert _written(findings, name) == _expected(findings, name)


def test_dump_json_of_a_finding_holding_the_template_s_hole() -> None:
    """A finding whose text is what a template leaves open is written without a template."""
    hole = json.loads(_HOLE_TEXT)
    f = WORDS[0]
    findings = [FoundWord(3, f.source, f.register, hole, hole, f.word, f.size, f.candidates),
                FoundWord(4, f.source, f.register, "adesc", f.text, f.word, f.size, f.candidates),
                FoundWord(5, f.source, f.register, hole, hole, f.word, f.size, ())]
    assert _HOLE_TEXT.decode() in _written(findings, hole)
    assert _written(findings, hole) == _expected(findings, hole)

"""descgen dump's output, byte for byte, and the printf reader's one-pass word pattern.

The output of ``descgen dump`` (rich text, ``--plain``, ``--plain --table-only`` and
``--format json``) on every dump fixture and on a log that repeats them (the rows and JSON of
words met again are built from caches) is pinned by its SHA-256 in
``tests/production/dump_output_digests.json``, recorded before the caches existed.  After an intended
change of the output, regenerate it with ``DESCGEN_UPDATE_GOLDEN=1 python -m pytest
tests/production/test_dump_output.py`` and review the output's diff against the previous commit.  The JSON
document is also rebuilt from :func:`descriptors.dump.scan` and ``json.dumps(f.to_dict())``.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from cli.main import app
from descriptors.tools.dump import FoundWord, scan
from descriptors.tools.dump.score import make_finding as _finding
from descriptors.readers import printf

ROOT = Path(__file__).resolve().parents[2]
DUMPS = ROOT / "fixtures" / "dumps"
FIXTURES = sorted(p for p in DUMPS.iterdir() if not p.name.endswith(".expected.json"))
DIGESTS = Path(__file__).resolve().parent / "dump_output_digests.json"
MODES = {"text": [], "plain": ["--plain"], "table": ["--plain", "--table-only"],
         "json": ["--format", "json"]}
runner = CliRunner()


def repeated_log() -> bytes:
    """Every fixture three times, then a printf log from 96 threads of 4 K-loop steps: the same
    words again and again, named alike and differently, and words never reported."""
    parts = [p.read_bytes() for p in FIXTURES] * 3
    lines = []
    for t in range(384):
        warp, k = t // 32 % 3, t // 96
        a = 0x4000404000010040 + 2 * k
        lines.append(f"[block ({t % 5},0,0) thread ({t % 96},0,0)] k={k}: adesc=0x{a:016x} "
                     f"bdesc=0x{a + 0x800:016x} idesc=0x08400490 taddr=0x{(warp * 32) << 16:08x} "
                     f"ptr=0x7fff{t * 4099:08x}")
        if t % 32 == 0:
            lines.append(f"desc: 0x{a:016x} mask 0x0003028000000000 $3 = 0x8400490 UR{t % 7} "
                         f"0x40004040 zcm=0 idesc={138413200 + (t % 2)}")
    parts.append(("\n".join(lines) + "\n").encode())
    return b"".join(parts)


INPUTS = {p.name: p.read_bytes for p in FIXTURES} | {"repeated.log": repeated_log}


def output(data: bytes, mode: str) -> str:
    result = runner.invoke(app, ["dump", "-", *MODES[mode]], input=data)
    assert result.exit_code == 0, result.stderr
    return result.stdout


def digests() -> dict[str, str]:
    return {f"{name} {mode}": hashlib.sha256(output(read(), mode).encode()).hexdigest()
            for name, read in INPUTS.items() for mode in MODES}


def test_output_is_byte_identical_to_recorded():
    got = digests()
    if os.environ.get("DESCGEN_UPDATE_GOLDEN"):
        DIGESTS.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n")
    expected = json.loads(DIGESTS.read_text())
    assert sorted(got) == sorted(expected)
    assert [k for k in got if got[k] != expected[k]] == []


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_json_output_is_json_dumps_of_each_finding(name):
    data = INPUTS[name]()
    findings = scan(data)
    body = ",".join("\n  " + json.dumps(f.to_dict()) for f in findings)
    assert output(data, "json") == '{"input": "<stdin>", "findings": [' + body + \
        ("\n]}\n" if findings else "]}\n")


def test_json_written_as_text_where_stdout_has_no_buffer(monkeypatch):
    from cli import dump_cmd
    data = repeated_log()
    out = io.StringIO()  # no binary buffer: the text is written as it is
    monkeypatch.setattr(sys, "stdout", out)
    dump_cmd._json(iter(scan(data)), "<stdin>")
    monkeypatch.undo()
    assert out.getvalue() == output(data, "json")


def test_repeated_log_repeats_words():
    findings = scan(repeated_log())
    assert len(findings) > 3 * len({(f.word, f.name, f.register) for f in findings})
    rows = output(repeated_log(), "plain").splitlines()
    assert sum("(decoded at line " in r for r in rows) > 1000


def test_printf_match_memo_keeps_the_context_and_the_line_s_name():
    """The scanner reads a distinct printf match once per context (register, printed
    expression, source): the same text printed by ``p $UR4`` is the register's; a name the
    match does not hold (here longer than 64 characters) is read from each line."""
    word = "0x4000404000010040"
    text = "\n".join([f"adesc={word}", "(cuda-gdb) p $UR4", f"$1 = adesc={word}",
                      "q" * 60 + f"_adesc={word}", "q" * 60 + f"_bdesc={word}",
                      f"adesc={word}"])
    got = [(f.line, f.source, f.register, f.name) for f in scan(text)]
    assert got == [(1, "printf", None, "adesc"), (3, "print", "UR4", "adesc"),
                   (4, "printf", None, "q" * 58 + "_adesc"),
                   (5, "printf", None, "q" * 58 + "_bdesc"), (6, "printf", None, "adesc")]


def test_fast_finding_is_the_dataclass():
    args = (3, "printf", None, "adesc", "0x40", 0x40, 64, ())
    fast, slow = _finding(*args), FoundWord(*args)
    assert fast == slow and hash(fast) == hash(slow) and repr(fast) == repr(slow)
    assert vars(fast) == vars(slow)
    with pytest.raises(AttributeError):
        fast.line = 4  # type: ignore[misc]  # still frozen


# ---------------------------------------------------------------- printf reader

_PIECES = st.sampled_from([
    "0x", "0X", "adesc", "idesc=", " = ", ": ", "=", ":", " ", "\t", "4000", "abcd1234",
    "08400490", "0x4000404000010040", "0x4000_4040'0001", "_", "'", "$", ".", "a" * 70,
    " " * 30, "x", "R4", "$R4 ", "7", "zz", ",", "(", ")",
])


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(_PIECES, st.text("0123456789abcdefxX_.'$=: \t", max_size=12)),
                max_size=24))
def test_named_hex_words_is_hex_words_and_name_before(parts):
    line = "".join(parts)
    expected = [(start, text, value, size, printf.name_before(line, start))
                for start, text, value, size in printf.hex_words(line)]
    assert list(printf.named_hex_words(line)) == expected


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(_PIECES, st.sampled_from(["k=3", "idesc = 138413200", "1" * 21]),
                          st.text("0123456789abcdefxX_.'$=: \t", max_size=12)), max_size=24))
def test_named_decimal_words_are_decimal_words_with_a_name(parts):
    line = "".join(parts)
    expected = [(start, text, value, size, printf.name_before(line, start))
                for start, text, value, size in printf.decimal_words(line, every=False)]
    assert list(printf.named_decimal_words(line)) == [w for w in expected if w[4] is not None]


@pytest.mark.parametrize("line, names", [
    ("adesc=0x4000404000010040 bdesc: 0x40", ["adesc", "bdesc"]),
    ("idesc 08400490", ["idesc"]),
    ("abcd1234=0x5", [None, "abcd1234"]),           # a word is never taken for a name
    ("foo=abcd1234 0x2", ["foo", "abcd1234"]),       # the word before names the next
    ("0x1 0x2", [None, None]),                       # a number is no name
    ("_v.x = 0x40", ["_v.x"]),
    ("$R4 = 0x40", ["R4"]),
    ("a" * 70 + "=0x40", ["a" * 64]),                # name_before reads 64 characters
    ("desc" + " " * 90 + "0x40", [None]),            # ... in a window of 80
    ("desc" + " " * 70 + "0x40", ["desc"]),
    ("desc" + " " * 76 + "0x40", ["desc"]),          # the name starts 80 before the word
    ("desc" + " " * 77 + "0x40", ["esc"]),           # 81: the window cuts it
])
def test_named_hex_words_names(line, names):
    assert [w[4] for w in printf.named_hex_words(line)] == names
    assert [printf.name_before(line, w[0]) for w in printf.hex_words(line)] == names


def test_named_decimal_words_names():
    line = "k=3 adesc = 138413200 (=5) x: 99999999999999999999 " + "a" * 70 + "=7 " + \
        "desc" + " " * 77 + "=8"
    assert [(w[1], w[4]) for w in printf.named_decimal_words(line)] == \
        [("3", "k"), ("138413200", "adesc"), ("7", "a" * 64), ("8", "sc")]  # window of 80


if __name__ == "__main__":  # print the digests of this checkout's output
    print(json.dumps(digests(), indent=1, sort_keys=True))

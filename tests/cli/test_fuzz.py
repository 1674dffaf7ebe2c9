"""Fuzzing the command line and the public library calls (issue 15).

Arbitrary text, numbers and nesting go into every ``descgen`` command (through typer's
CliRunner, the options taken from the commands themselves) and into the library's public calls.
Whatever the input:

* the command exits 0, 1 or 2, never with a traceback or descgen's "internal error";
* a refusal (exit 2) is exactly one line on stderr, ``descgen: error: ...``; a broken rule
  (exit 1) writes only ``descgen: ...`` lines on stderr;
* a library call returns or raises :class:`~descriptors.DescgenError`, nothing else;
* every call finishes within :data:`TIME_BOUND` seconds;
* ``descgen batch``: every accepted input yields a C++ header that compiles
  (``g++ -fsyntax-only``; skipped without g++) and a Python module that parses
  (``ast.parse``) and holds nothing but its docstring and constant assignments.

The budget is bounded and the run reproducible: hypothesis runs derandomized (a fixed seed
derived from each test) with the ``max_examples`` of :func:`fuzz`; ``DESCGEN_FUZZ_EXAMPLES=1000``
runs ten times longer.
"""

from __future__ import annotations

import ast
import json
import math
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import descriptors
from cli.main import all_commands, app
from descriptors import DescgenError

#: Seconds any one call may take (the hangs of issue 15 took from 9 s to minutes).
TIME_BOUND = 5.0
#: Examples per fuzz test, scaled by ``DESCGEN_FUZZ_EXAMPLES`` (default 100: the file runs in
#: about 15 s on two cores; 1000 took 4 minutes and found nothing more).
SCALE = int(os.environ.get("DESCGEN_FUZZ_EXAMPLES", "100")) / 100


def fuzz(examples: int) -> settings:
    """Bounded and reproducible: ``examples`` x SCALE examples, derandomized, no database."""
    return settings(max_examples=max(1, int(examples * SCALE)), deadline=None,
                    derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture])

runner = CliRunner()
COMMANDS = all_commands()

# ---------------------------------------------------------------- values

#: Values that mean something to some option, and values that broke descgen before.
INTERESTING = [
    "", " ", "0", "1", "2", "-1", "3", "4", "8", "16", "32", "64", "96", "100", "128", "256",
    "512", "1024", "0x10", "0x400", "0b101", "1_000", "1'024", "1.5", "nan", "inf", "1e9",
    "1000000000", "9" * 5000, "x" * 10000, "true", "false", "yes", "K", "MN", "k", "f16", "bf16",
    "tf32", "e4m3", "e2m1", "s8", "s32", "f32", "ue8m0", "ue4m3", "1X", "2X", "4X", "block16",
    "f8f6f4", "i8", "mxf8f6f4", "mxf4", "mxf4nvf4", "idesc", "smem", "zcm", "tmem", "none",
    "128B", "128B_base32B", "64B", "32B", "absolute", "relative", "sm_100a", "sm_103a",
    "32x32b.x8", "16x32bx2.x4", "16x256b.x128", "min", "max", "3,1,1", "20,1,1,0", "0-3,7",
    "0,1,2,1", "1,1,0,0", "kind=f16", "m=128", "n=256", "a_type=bf16", "descriptor=idesc",
    "arch=sm_100a", "cta_group=1", "=", "\n#error injected", "line1\nline2", "\x00", "\\",
    "None", "class", "int", "_X", "__y", "uint32_t", "A", "my_const", "(128,64)", "128x64",
    "0x4000404000010000", "0x08400490", "0x0003028000000000", "0xffffffffffffffff",
    "text", "json", "hex", "c", "python", "cpp", "-", "--", "--force",
]
#: Values for options that write files: only names inside the test's temporary directory.
OUTPUT_VALUES = ["out.hpp", "out.svg", "", "missing-dir/x", "/dev/full"]

cli_text = st.text(st.characters(exclude_categories=("Cs",)), max_size=30)
cli_value = st.one_of(st.sampled_from(INTERESTING), cli_text,
                      st.integers(-(1 << 70), 1 << 70).map(str))


def _option_tokens(param: Any, value: str) -> list[str]:
    opt = param.opts[0]
    if getattr(param, "is_flag", False):
        return [opt]
    if opt in ("--output", "-o", "--svg"):
        return [opt, value if value in OUTPUT_VALUES else "out.hpp"]
    return [opt, value]


@st.composite
def command_lines(draw: st.DrawFn) -> tuple[list[str], str | None]:
    """A command, some of its options (or their negative forms) with values, maybe a stray
    token; and text for stdin."""
    name = draw(st.sampled_from(sorted(COMMANDS)))
    params = [p for p in COMMANDS[name].params if "--help" not in p.opts]
    args = [name]
    for p in draw(st.lists(st.sampled_from(params), max_size=8)):
        value = draw(st.one_of(cli_value, st.sampled_from(OUTPUT_VALUES)))
        if p.param_type_name == "argument":
            args.append(value)
        elif getattr(p, "secondary_opts", None) and draw(st.booleans()):
            args.append(p.secondary_opts[0])
        else:
            args += _option_tokens(p, value)
    if draw(st.integers(0, 9)) == 0:
        args.insert(draw(st.integers(1, len(args))), draw(cli_value))
    stdin = draw(st.one_of(st.none(), cli_text, st.sampled_from(
        ["idesc = 0x08400490\nadesc = 0x4000404000010000\n", "R4  0x8400490  138413200\n"])))
    return args, stdin


def check_cli(result: Any, elapsed: float, args: list[str]) -> None:
    """The contract of every descgen command line."""
    what = (args, result.exit_code, result.stdout[-300:], result.stderr[-600:])
    assert result.exit_code in (0, 1, 2), what
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        (what, repr(result.exception))
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout, what
    assert "internal error" not in result.stderr, what
    lines = result.stderr.splitlines()
    if result.exit_code == 2:
        # one line; lint and dump read several files and say one line per bad one, batch
        # one line per bad configuration (and the rules each breaks) and a count
        assert len(lines) == 1 or (args[0] in ("lint", "dump", "batch") and lines), what
        assert all(line.startswith("descgen: error: ") for line in lines), what
    else:
        assert all(line.startswith("descgen: ") for line in lines), what
    if result.exit_code == 1:
        assert lines and lines[-1].startswith("descgen: error: "), what
    assert elapsed < TIME_BOUND, (what, elapsed)


def invoke(args: list[str], stdin: str | None = None) -> Any:
    start = time.perf_counter()
    result = runner.invoke(app, args, input=stdin)
    check_cli(result, time.perf_counter() - start, args)
    return result


@fuzz(120)
@given(line=command_lines())
def test_fuzz_command_lines(line, tmp_path_factory, monkeypatch):
    monkeypatch.chdir(tmp_path_factory.mktemp("cwd"))  # --output / --svg land here
    args, stdin = line
    invoke(args, stdin)


@pytest.mark.parametrize("code, args", [
    # the inputs issue 15 reported, each a traceback or a hang before
    (0, ["check", "--as", "idesc", "-p", "kind=f16", "-p", "a_type=f16", "-p", "b_type=f16",
         "-p", "m=128", "-p", "n=256"]),
    (2, ["check", "--as", "idesc", "--kind", "f16", "-p", "kind=tf32"]),
    (2, ["check", "--as", "idesc", "--kind", "f16", "-p", "arch=sm_100a"]),
    (2, ["check", "--as", "idesc", "--kind", "f16", "-p", "descriptor=idesc"]),
    (2, ["check", "--as", "idesc", "--kind", "f16", "-p", "cta_group=1", "--cta-group", "1"]),
    (2, ["check", "--as", "idesc", "--kind", "f16", "-p", "ws=1", "--ws"]),
    (2, ["check", "--as", "zcm", "-p", "m=64", "-m", "64"]),
    (2, ["check", "--as", "tmem", "-p", "alloc=64", "--alloc", "64"]),
    (2, ["zcm", "--from-mask", "0b101", "-m", "64", "-n", "1000000000"]),
    (2, ["zcm", "--zero-columns", "1", "-m", "64", "-n", "1000000000"]),
    (2, ["zcm", "--conv", "3,1,1", "-m", "64", "-n", "1000000000"]),
    (2, ["zcm", "--skip-span", "1", "-m", "64", "-n", "1000000000", "--show", "--force"]),
    (2, ["zcm", "--skip-span", "1", "-m", "64", "-n", "1000000000", "--show"]),
    (2, ["zcm", "--conv", "", "-m", "64", "-n", "128"]),
    (2, ["idesc", "--kind", "f16", "--a-type", "f16", "--b-type", "f16", "-m", "128", "-n", "256",
         "-f", "c", "--name", ""]),
    (2, ["idesc", "--kind", "f16", "--a-type", "f16", "--b-type", "f16", "-m", "128", "-n", "256",
         "-f", "python", "--name", "class"]),
    (2, ["smem", "--sbo", "9" * 5000]),
    (1, ["tmem", "--ld", "32x32b.x8", "--alloc", "100"]),
    (2, ["batch", "/dev/null"]),
])
def test_reported_inputs(code, args, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = invoke(args)
    assert result.exit_code == code, (result.stdout, result.stderr)
    assert len(result.stderr) < 1000  # inputs are never echoed in full


# ---------------------------------------------------------------- library


def _anything(max_leaves: int = 6) -> st.SearchStrategy[Any]:
    scalars = st.one_of(st.none(), st.booleans(), st.integers(-(1 << 80), 1 << 80),
                        st.floats(allow_nan=True), st.text(max_size=20),
                        st.sampled_from(INTERESTING), st.binary(max_size=8))
    return st.recursive(scalars, lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.tuples(inner, inner),
        st.dictionaries(st.text(max_size=5), inner, max_size=3)), max_leaves=max_leaves)


ANY = _anything()
NAMES = st.sampled_from([*descriptors.DESCRIPTORS, "gdesc", "", "IDESC"])
KINDS = st.one_of(st.none(), st.sampled_from([*descriptors.KINDS, "f17", "kind::f16"]))
WORDS = st.one_of(st.integers(0, (1 << 64) - 1), ANY)


def _params_for(descriptor: str) -> st.SearchStrategy[dict[str, Any]]:
    keys = [*descriptors.PARAMETERS.get(descriptor, ()), "m", "n", "alloc", "scale_vec",
            "shift", "bogus"]
    return st.dictionaries(st.sampled_from(keys), st.one_of(ANY, st.sampled_from(INTERESTING)),
                           max_size=6)


@st.composite
def library_calls(draw: st.DrawFn) -> tuple[str, Any]:
    """(name, thunk) of one public library call with arbitrary arguments."""
    from descriptors import validate_pair
    from descriptors.isa import tmem
    from descriptors.render import printer
    from descriptors.tools import dump
    from descriptors.words import zcm
    d = draw(NAMES)
    kind = draw(KINDS)
    params = draw(_params_for(d))
    word = draw(WORDS)
    a, b, c, e = (draw(ANY) for _ in range(4))
    calls = {
        "encode": lambda: descriptors.encode(d, **params),
        "encode_raw": lambda: descriptors.encode_raw(d, kind=kind, **{
            f.name: v for f, v in zip(descriptors.layout_for(d, kind).fields, params.values())}),
        "decode": lambda: descriptors.decode(d, word, kind=kind),
        "readings": lambda: descriptors.readings(d, word),
        "validate-word": lambda: descriptors.validate(d, word, kind=kind, **{
            k: v for k, v in params.items() if k in ("cta_group", "ws", "m", "n", "alloc",
                                                     "scale_vec", "shift")}),
        "validate-params": lambda: descriptors.validate(d, kind=kind, **params),
        "validate_pair": lambda: validate_pair(word, kind=kind, a_desc=a, b_desc=b,
                                               cta_group=c, ws=e, scale_vec=params.get("m")),
        "format_word": lambda: descriptors.format_word(d, word),
        "parse_int": lambda: descriptors.parse_int(a, "x"),
        "zcm.generate": lambda: zcm.generate(word, a, b),
        "zcm.synthesise": lambda: zcm.synthesise(word, a, b, column_shift=c),
        "zcm.mask_from_columns": lambda: zcm.mask_from_columns(a, b),
        "zcm.conv_padding_mask": lambda: zcm.conv_padding_mask(a, b, c, e),
        "tmem.footprint": lambda: tmem.footprint(draw(st.sampled_from(["ld", "st", a])),
                                                 draw(st.sampled_from(["32x32b", "16x64b", b])),
                                                 c, word),
        "tmem.pack": lambda: tmem.pack(a, b),
        "dump.scan": lambda: dump.scan(draw(st.one_of(st.text(max_size=200), ANY)),
                                       min_confidence=draw(st.one_of(st.floats(), ANY))),
        "dump.scan_lines": lambda: list(dump.scan_lines(a)),
        "dump.classify": lambda: dump.classify(word, draw(st.sampled_from([32, 64, a]))),
        "printer.plain": lambda: printer.plain(a, b),
        "printer.plain-real": lambda: printer.plain(descriptors.decode(d, word, kind=kind),
                                                    descriptors.validate(d, word, kind=kind)),
        "layout_descriptor": lambda: descriptors.layout_descriptor(a, b, c, e),
    }
    name = draw(st.sampled_from(sorted(calls)))
    return name, calls[name]


@fuzz(300)
@given(call=library_calls())
def test_fuzz_library_calls(call):
    name, thunk = call
    start = time.perf_counter()
    try:
        thunk()
    except DescgenError as exc:
        assert str(exc) and len(str(exc)) < 2000, (name, str(exc)[:300])
    elapsed = time.perf_counter() - start
    assert elapsed < TIME_BOUND, (name, elapsed)


@pytest.mark.parametrize("call", [
    lambda: descriptors.format_word("tmem", 1.5),
    lambda: descriptors.format_word("idesc", -1),
    lambda: descriptors.format_word("idesc", 1 << 32),
    lambda: descriptors.encode_raw("idesc", kind="f16", n_dim=True),
    lambda: descriptors.encode_raw("smem", fixed_constant=0),
    lambda: descriptors.zcm.mask_from_columns(32, None),
    lambda: descriptors.dump.scan_lines(None),
    lambda: descriptors.dump.scan("x", min_confidence=2),
    lambda: descriptors.dump.scan("x", min_confidence=math.nan),
    lambda: descriptors.printer.plain(None, []),
    lambda: descriptors.zcm.generate(0, 64, 10**9),
    lambda: descriptors.zcm.synthesise(0b101, 64, 10**9),
    lambda: descriptors.zcm.conv_padding_mask(10**9, 3, 1, 1),
])
def test_reported_library_calls_raise_descgen_errors(call):
    """The library calls issue 15 reported (raw TypeError/ValueError/AttributeError or a hang)."""
    start = time.perf_counter()
    with pytest.raises(DescgenError):
        call()
    assert time.perf_counter() - start < TIME_BOUND


# ---------------------------------------------------------------- batch: accepted => compiles


IDENTIFIERS = st.one_of(
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,12}", fullmatch=True),
    st.sampled_from(["None", "class", "int", "and", "main", "linux", "uint32_t", "INT8_C", "_X",
                     "a__b", "std", "NULL", "True", "lambda", "SMEM", "async", "match", "type",
                     "", "1x"]))
CONFIG_VALUES = {
    "idesc": {"kind": ["f16", "tf32", "f8f6f4", "i8", "mxf8f6f4", "mxf4nvf4"],
              "a_type": ["f16", "bf16", "tf32", "e4m3", "e2m1", "s8"],
              "b_type": ["f16", "bf16", "tf32", "e4m3", "e2m1", "s8"],
              "d_type": ["f32", "f16", "s32"], "m": [64, 128, 256, "128", " 128\n"],
              "n": [64, 128, 256, "0x100"], "sparse": [True, False, "yes"],
              "scale_vec": ["2X", "4X"], "cta_group": [1, 2], "ws": [True, False]},
    "smem": {"start_address": [0, 16, 1024, "0x400"], "sbo": [128, 1024], "lbo": [0, 16],
             "swizzle": ["none", "128B", "64B", "32B", "128B_base32B"], "base_offset": [0, 1]},
    "zcm": {"skip_span": [0, 2, 300], "use_span": [3], "m": [64, 128], "n": [64, 128, 96],
            "start_count": [[0], [0, 1]], "first_span": [[1, 0]], "column_shift": [0, 17]},
    "tmem": {"lane": [0, 32, 16, "0x20"], "column": [0, 128, 511], "alloc": [128, 100],
             "shift": [True, False]},
}


#: A legal configuration per descriptor, which the fuzzer then changes.
BASE_CONFIGS: dict[str, dict[str, Any]] = {
    "idesc": {"kind": "f16", "a_type": "bf16", "b_type": "bf16", "m": 128, "n": 256},
    "smem": {"sbo": 1024, "swizzle": "128B"},
    "zcm": {"skip_span": 2, "use_span": 3},
    "tmem": {"lane": 32},
}

JSON_ANY = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(1 << 80), 1 << 80),
              st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=20)),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.text(max_size=5), inner, max_size=3)),
    max_leaves=6)


@st.composite
def batch_documents(draw: st.DrawFn) -> Any:
    configs = []
    for i in range(draw(st.integers(1, 4))):
        d = draw(st.sampled_from(sorted(CONFIG_VALUES)))
        name = draw(IDENTIFIERS) if draw(st.integers(1, 5)) == 5 else \
            draw(st.from_regex(r"[A-Z][A-Za-z0-9_]{0,10}", fullmatch=True)).rstrip("_") + f"_{i}"
        cfg: dict[str, Any] = {"name": name, "descriptor": d, **BASE_CONFIGS[d]}
        for key in draw(st.lists(st.sampled_from(sorted(CONFIG_VALUES[d])), max_size=3,
                                 unique=True)):
            cfg[key] = draw(st.sampled_from(CONFIG_VALUES[d][key]))
        if draw(st.booleans()):
            cfg["source"] = draw(st.one_of(st.text(max_size=40), st.sampled_from([
                "line1\n#error injected", 'q""" + __import__("os").system("x") + """',
                "ends in a backslash \\", "??/", "\x00nul", "\u2028sep\ud800", "*/ /*"])))
        if draw(st.integers(1, 8)) == 8:
            cfg[draw(st.sampled_from(["bogus", "expect", "arch"]))] = draw(JSON_ANY)
        configs.append(cfg)
    document: Any = {"configs": configs} if draw(st.booleans()) else configs
    if draw(st.integers(1, 10)) == 10:
        for _ in range(draw(st.integers(1, 60))):
            document = [document]
    return document


FILE_NAMES = st.one_of(st.sampled_from(["b", 'q"""', "new\nline", "back\\slash", "x??",
                                        "sp ace", "ü"]),
                       st.text(st.characters(codec="utf-8", exclude_characters="/\x00"),
                               min_size=1, max_size=12))


def _only_constants(module: ast.Module) -> bool:
    body = module.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return all(isinstance(node, ast.Assign) and len(node.targets) == 1
               and isinstance(node.targets[0], ast.Name)
               and isinstance(node.value, ast.Constant) and isinstance(node.value.value, int)
               for node in body)


def test_fuzz_batch_accepted_input_compiles_and_parses(tmp_path):
    headers: list[str] = []
    accepted = {"n": 0}

    @fuzz(60)
    @given(document=batch_documents(), stem=FILE_NAMES, suffix=st.sampled_from([".json", ".toml"]),
           raw=st.one_of(st.none(), st.none(), st.none(), st.text(max_size=80)))
    def run(document, stem, suffix, raw):
        path = tmp_path / f"{stem.replace('.', '_').replace('/', '_')[:12] or 'b'}{suffix}"
        if raw is not None:
            text = raw  # arbitrary text as a batch file
        elif suffix == ".json":
            text = json.dumps(document)
        else:  # a TOML rendering of the configurations (strings JSON-escaped, which TOML reads)
            text = _toml(document)
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        cpp = invoke(["batch", str(path), "-f", "cpp"])
        py = invoke(["batch", str(path), "-f", "python"])
        assert cpp.exit_code == py.exit_code
        if cpp.exit_code != 0:
            return
        accepted["n"] += 1
        module = ast.parse(py.stdout)
        assert _only_constants(module), py.stdout
        names = [node.targets[0].id for node in module.body if isinstance(node, ast.Assign)]
        assert len(names) == len(set(names))
        headers.append(cpp.stdout)

    run()
    print(f"batch fuzz: {accepted['n']} accepted files compiled and parsed")
    # not vacuous: a good share of the generated files is accepted
    assert accepted["n"] >= max(1, int(10 * SCALE)), accepted
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("g++ not found: the accepted headers were not compiled")
    _compile(gxx, headers, tmp_path)


def _toml(document: Any) -> str:
    configs = document.get("configs") if isinstance(document, dict) else document
    if not isinstance(configs, list) or not all(isinstance(c, dict) for c in configs):
        return json.dumps(document)  # nesting has no TOML form here: write it anyway
    out = []
    for cfg in configs:
        out.append("[[configs]]")
        for key, value in cfg.items():
            out.append(f"{key} = {_toml_value(value)}")
    return "\n".join(out) + "\n"


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # TOML has no surrogate-pair escapes
    return json.dumps(str(value), ensure_ascii=False)


def _compile(gxx: str, headers: list[str], tmp_path: Path) -> None:
    """Every accepted header, each in its own namespace, in one g++ -fsyntax-only run."""
    main = ["#include <cstdint>"]
    for i, header in enumerate(headers):
        h = tmp_path / f"accepted_{i}.hpp"
        h.write_text(header, encoding="utf-8")
        main += [f"namespace fuzz_{i} {{", f'#include "{h.name}"', "}"]
    src = tmp_path / "all_headers.cpp"
    src.write_text("\n".join(main) + "\n", encoding="utf-8")
    r = subprocess.run([gxx, "-std=c++17", "-fsyntax-only", "-Wall", "-Werror", str(src)],
                       capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]

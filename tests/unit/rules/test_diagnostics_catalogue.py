"""The diagnostic catalogue (:data:`descriptors.rules.diagnostics.DIAGNOSTICS`) against the code
that reports the rules, and ``descgen rules``.

* every rule id ``lint`` and ``dump`` report over the fixtures (fixtures/lint, fixtures/hopper,
  fixtures/binaries, fixtures/cute-dsl/ptx, the default sample of fixtures/production) is
  declared, with a severity its declaration allows;
* every id the sources pass to an emitter (an AST scan: ``Finding(...)``, ``em.add(...)``,
  ``located(...)``, ``Constraint(...)`` ...; ids built with ``{op}`` or an f-string are
  patterns) is declared, and a literal severity there is allowed; the word rules' own
  severities (their ``ctx.error``/``warning``/``note`` calls) are the ones they declare;
* every declaration is used: reported over the fixtures or found in the sources;
* the instruction models' rules are the catalogue's (constraints, qualifier groups, operand
  kinds).
"""

from __future__ import annotations

import ast
import gzip
import json
import re
from collections.abc import Iterator
from fnmatch import fnmatchcase
from functools import lru_cache
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app
from descriptors.rules.diagnostics import (DIAGNOSTICS, SOME_PATHS, DiagnosticKind, Severity,
                                           declare, diagnostic)
from descriptors.rules.validate import RULES, SEVERITIES

ROOT = Path(__file__).resolve().parents[3]
FIX = ROOT / "fixtures"
SOURCES = sorted([*(ROOT / "descriptors").rglob("*.py"), *(ROOT / "cli").rglob("*.py")])
ID = re.compile(r"[a-z][a-z0-9_]*(\.[a-z0-9_]+)+\Z")


# ---------------------------------------------------------------------------- the fixtures

def _fixture_files() -> list[Path]:
    files = [p for d in ("lint", "hopper", "binaries", "cute-dsl/ptx")
             for p in sorted((FIX / d).rglob("*"))
             if p.is_file() and p.name.endswith((".ptx", ".sass", ".ptx.gz", ".sass.gz"))]
    manifest = json.loads((FIX / "production" / "manifest.json").read_text())["fixtures"]
    return files + [FIX / "production" / f["file"] for f in manifest if f["default"]]


def _lines(path: Path) -> list[str]:
    if path.name.endswith(".gz"):
        with gzip.open(path, "rt") as fh:
            return fh.read().splitlines()
    return path.read_text().splitlines()


@lru_cache(maxsize=1)
def reported() -> dict[str, set[tuple[str, str, str]]]:
    """Rule id -> {(severity, message, "tool file")} of every finding lint and dump report
    over the fixtures."""
    from descriptors.tools.dump import scan_lines
    from descriptors.tools.lint import lint_lines

    found: dict[str, set[tuple[str, str, str]]] = {}
    for path in _fixture_files():
        lines = _lines(path)
        name = str(path.relative_to(ROOT))
        for f in lint_lines(lines, file=name):
            found.setdefault(f.rule, set()).add((f.severity, f.message, f"lint {name}"))
        for d in scan_lines(lines):
            for c in d.candidates:
                for g in c.findings:
                    found.setdefault(g.rule, set()).add((g.severity, g.message, f"dump {name}"))
    return found


def test_the_fixtures_are_read():
    files = _fixture_files()
    assert len(files) > 150
    assert {p.relative_to(FIX).parts[0] for p in files} == {
        "lint", "hopper", "binaries", "cute-dsl", "production"}
    found = reported()
    # errors, warnings and notes of the validators, the models and lint itself
    assert {"idesc.shape", "smem.swizzle", "tmem.st.lanes", "stmatrix.shape_type",
            "wgmma.mma_async.operand", "lint.runtime", "instruction.legal"} <= set(found)


def test_every_reported_id_is_declared():
    undeclared = {rule: sorted(where for *_, where in hits)[:2]
                  for rule, hits in reported().items() if rule not in DIAGNOSTICS}
    assert undeclared == {}


def test_every_reported_severity_is_allowed():
    bad = sorted({(rule, sev, where) for rule, hits in reported().items() if rule in DIAGNOSTICS
                  for sev, message, where in hits if not DIAGNOSTICS[rule].allows(sev, message)})
    assert bad == []


# ---------------------------------------------------------------------------- the sources

#: Emitters: the callee's name -> (position of the severity, position of the rule id).
EMITTERS = {"Finding": (0, 1), "_finding": (0, 1), "add": (0, 1), "find": (0, 1),
            "_finding_line": (0, 1), "located": (3, 4), "Diagnostic": (0, 1)}
#: Callees that take an id-like string but report nothing: the declarations (``rule``
#: registers a word rule and declares it; the catalogue's own), ``startswith`` and
#: ``_checked`` take mnemonics.
NOT_EMITTERS = {"rule", "diagnostic", "declare", "_declare", "_model", "startswith", "_checked"}


class Emission:
    """One emitter call: where, the id or the id pattern (``*`` for what is computed), and the
    literal severities (``None``: computed)."""

    def __init__(self, where: str, pattern: str, severities: set[str] | None) -> None:
        self.where, self.pattern, self.severities = where, pattern, severities

    @property
    def exact(self) -> bool:
        return "*" not in self.pattern

    def ids(self, declared: dict[str, DiagnosticKind]) -> list[str]:
        return [i for i in declared if fnmatchcase(i, self.pattern)]

    def __repr__(self) -> str:
        return f"{self.where}: {self.pattern} {sorted(self.severities or ())}"


def _pattern(node: ast.AST | None) -> str | None:
    """The id a string or f-string argument spells (``{...}`` and f-string holes as ``*``), if
    it looks like an id."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        text = re.sub(r"\{[^}]*\}", "*", node.value)
    elif isinstance(node, ast.JoinedStr):
        text = "".join(v.value if isinstance(v, ast.Constant) else "*" for v in node.values)
    else:
        return None
    return text if ID.match(text.replace("*", "x")) else None


def _severities(node: ast.AST | None) -> set[str] | None:
    if isinstance(node, ast.Constant) and node.value in SEVERITIES:
        return {node.value}
    if isinstance(node, ast.IfExp):
        a, b = _severities(node.body), _severities(node.orelse)
        return None if a is None or b is None else a | b
    return None


def _own_nodes(scope: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a module or function, not those of the functions inside it."""
    todo = list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            todo.extend(ast.iter_child_nodes(node))


def _scopes(tree: ast.AST) -> Iterator[tuple[list[ast.AST], dict[str, list[ast.AST]]]]:
    """Each function (and the module, and each lambda) as its own nodes, with the values its
    local names are assigned."""
    for scope in [tree, *(n for n in ast.walk(tree)
                          if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))]:
        nodes = list(_own_nodes(scope))
        names: dict[str, list[ast.AST]] = {}
        for n in nodes:
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and \
                    isinstance(n.targets[0], ast.Name):
                names.setdefault(n.targets[0].id, []).append(n.value)
        yield nodes, names


def scan(text: str, where: str) -> tuple[list[Emission], list[str]]:
    """The emitter calls of one source, and the calls that pass an id of a declared prefix to
    a callee that is neither an emitter nor one of :data:`NOT_EMITTERS`."""
    prefixes = {i.split(".", 1)[0] for i in DIAGNOSTICS}
    tree = ast.parse(text)
    emissions: dict[tuple[int, int, str], Emission] = {}
    strays: list[str] = []
    for nodes, names in _scopes(tree):
        for call in nodes:
            if not isinstance(call, ast.Call):
                continue
            f = call.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
            args = call.args
            if name == "Constraint":
                kw = {k.arg: k.value for k in call.keywords}
                sev = kw.get("severity", args[6] if len(args) > 6 else None)
                pairs = [(args[0], {"error"} if sev is None else _severities(sev))]
            elif name in EMITTERS and len(args) > EMITTERS[name][1]:
                s, i = EMITTERS[name]
                node = args[i]
                sev = _severities(args[s])
                values = names.get(node.id, []) if isinstance(node, ast.Name) else [node]
                pairs = [(v, sev) for v in values]
            else:
                for a in args:
                    p = _pattern(a)
                    if p is not None and p.split(".", 1)[0] in prefixes and \
                            name not in NOT_EMITTERS:
                        strays.append(f"{where}:{call.lineno}: {name}({p!r})")
                continue
            for node, sev in pairs:
                p = _pattern(node)
                if p is not None:
                    emissions[(call.lineno, call.col_offset, p)] = Emission(
                        f"{where}:{call.lineno}", p, sev)
    return [emissions[k] for k in sorted(emissions)], sorted(strays)


@lru_cache(maxsize=1)
def emissions() -> tuple[Emission, ...]:
    out: list[Emission] = []
    for path in SOURCES:
        out += scan(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))[0]
    return tuple(out)


def problems(found: list[Emission], declared: dict[str, DiagnosticKind]) -> list[str]:
    """What is wrong with ``found`` against ``declared``: an id (pattern) no declaration
    matches, a literal severity no matching declaration allows."""
    out = []
    for e in found:
        ids = e.ids(declared)
        if not ids:
            out.append(f"{e.where}: {e.pattern} is not declared")
        for sev in sorted(e.severities or ()):
            allowed = [i for i in ids if declared[i].allows(sev)]
            if ids and (not allowed if not e.exact else len(allowed) < len(ids)):
                out.append(f"{e.where}: {e.pattern} is reported as {sev}; declared "
                           + ", ".join(",".join(declared[i].severities) for i in ids))
    return out


def test_the_scan_finds_the_emitters():
    found = emissions()
    patterns = {e.pattern for e in found}
    # literal ids, {op} templates, f-strings, a local variable, Constraint(...) with severity
    assert {"lint.runtime", "tcgen05.cta_group", "tmem.*.warp_lanes", "*.qualifier",
            "*.alignment", "stmatrix.num", "pair.lbo_unused", "live.zero",
            "tmem.warp_lanes", "instruction.syntax"} <= patterns
    assert next(e for e in found if e.pattern == "stmatrix.num").severities == {"warning"}
    assert len(found) > 80


def test_every_emitted_id_is_declared_with_its_severity():
    assert problems(list(emissions()), DIAGNOSTICS) == []


def test_no_id_goes_to_an_unknown_callee():
    strays = [s for path in SOURCES
              for s in scan(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))[1]]
    assert strays == []


def test_the_scan_sees_a_violation():
    """The checker itself: an undeclared id, a severity its declaration does not allow, an id
    given to a callee nobody classified, each found."""
    source = ('def f(em, mn):\n'
              '    em.add("error", "lint.bogus", "m", None, None, None)\n'
              '    em.add("error", "lint.split", "m", None, None, None)\n'
              '    rule = f"{mn}.nonesuch"\n'
              '    out = _finding("note", rule, "m", "s")\n'
              '    report("lint.runtime")\n')
    found, strays = scan(source, "probe.py")
    assert problems(found, DIAGNOSTICS) == [
        "probe.py:2: lint.bogus is not declared",
        "probe.py:3: lint.split is reported as error; declared note",
        "probe.py:5: *.nonesuch is not declared"]
    assert strays == ["probe.py:6: report('lint.runtime')"]


# ---------------------------------------------------------------------------- the word rules

def _word_rule_severities() -> dict[str, set[str]]:
    """Rule id -> the severities its check's ``ctx.error/warning/note/find`` calls give
    (following the module functions it passes ``ctx`` to), from the source of validate."""
    tree = ast.parse((ROOT / "descriptors" / "rules" / "validate.py").read_text())
    funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}

    def of(name: str, seen: frozenset[str] = frozenset()) -> set[str]:
        out: set[str] = set()
        for node in ast.walk(funcs[name]):
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            if isinstance(f, ast.Attribute) and getattr(f.value, "id", None) == "ctx":
                if f.attr in SEVERITIES:
                    out.add(f.attr)
                elif f.attr == "find":
                    out |= _severities(node.args[0]) or set(SEVERITIES)
            elif isinstance(f, ast.Name) and f.id in funcs and f.id not in seen and \
                    any(getattr(a, "id", None) == "ctx" for a in node.args):
                out |= of(f.id, seen | {name})
        return out

    by_pattern: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            for d in node.decorator_list:
                if isinstance(d, ast.Call) and getattr(d.func, "id", None) == "rule":
                    by_pattern.setdefault(_pattern(d.args[0]) or "?", set()).update(of(node.name))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Call) and \
                getattr(node.func.func, "id", None) == "rule" and node.args:
            fn = node.args[0]
            got = of(fn.id) if isinstance(fn, ast.Name) else set()
            by_pattern.setdefault(_pattern(node.func.args[0]) or "?", set()).update(got)
    out: dict[str, set[str]] = {}
    for pattern, sevs in by_pattern.items():
        for rid in RULES:
            if fnmatchcase(rid, pattern):
                out.setdefault(rid, set()).update(sevs)
    return out


def test_word_rules_are_the_catalogues():
    for rid, r in RULES.items():
        d = DIAGNOSTICS[rid]
        assert (d.source, d.summary) == (r.source, r.summary)
        assert tuple(d.severities) == r.severities


def test_word_rule_severities_are_the_ones_their_checks_give():
    """A declared severity comes from the check or from another emitter (lint's SASS
    sparsity hint); what a check gives is declared by one of the rules that share it."""
    checks = _word_rule_severities()
    literal: dict[str, set[str]] = {}
    for e in emissions():
        if e.exact and e.severities:
            literal.setdefault(e.pattern, set()).update(e.severities)
    assert set(checks) | {i for i in RULES if i.startswith("pair.")} == set(RULES)
    for rid, r in RULES.items():
        given = checks.get(rid, set()) | literal.get(rid, set())
        assert set(r.severities) <= given, (rid, r.severities, given)
    sharing: dict[int, list[str]] = {}
    for rid, r in RULES.items():
        sharing.setdefault(id(r.check), []).append(rid)
    for ids in sharing.values():
        declared = {s for i in ids for s in RULES[i].severities}
        assert checks.get(ids[0], set()) <= declared, (ids, checks.get(ids[0]))


def test_a_word_rule_reporting_an_undeclared_severity_fails():
    """The validator's own check: a severity the rule does not declare is refused as the
    finding is made."""
    from descriptors.rules.validate import _Ctx
    from descriptors.words.codec import decode

    ctx = _Ctx(decode("smem", 0), "sm_100a", rule=RULES["smem.lbo_unused"])
    assert ctx.note("fine").severity == "note"
    with pytest.raises(AssertionError, match="smem.lbo_unused reports error"):
        ctx.error("not declared")


# ---------------------------------------------------------------------------- no dead entries

def test_every_declaration_is_used():
    """Reported over the fixtures, passed to an emitter in the sources, or a word rule whose
    check reports it."""
    used = set(reported())
    for e in emissions():
        used.update(e.ids(DIAGNOSTICS))
    used.update(i for i, sevs in _word_rule_severities().items() if sevs)
    assert sorted(set(DIAGNOSTICS) - used) == []


def test_a_dead_entry_is_seen():
    declare(diagnostic("lint.probe_never_reported", "note", "descgen lint", "a probe"))
    try:
        used = set(reported()) | {i for e in emissions() for i in e.ids(DIAGNOSTICS)}
        assert "lint.probe_never_reported" not in used
    finally:
        del DIAGNOSTICS["lint.probe_never_reported"]


# ---------------------------------------------------------------------------- the other registries

def test_instruction_models_rules_are_declared():
    """Each model's constraints, qualifier groups (their repeat/missing severities) and
    operand kinds have their rule declared, with the severities they report."""
    from descriptors.isa.instructions import MODELS

    generic = {e.pattern.split(".", 1)[1] for e in emissions() if e.pattern.startswith("*.")}
    assert {"qualifier", "operand", "operands", "register_type", "vector", "address",
            "immediate", "alignment", "stride", "taddr", "arch"} == generic
    for mn, model in MODELS.items():
        for c in model.constraints:
            assert DIAGNOSTICS[c.id].allows(c.severity), (c.id, c.severity)
        qual = DIAGNOSTICS[f"{mn}.qualifier"]
        for g in model.groups:
            assert qual.allows(g.repeat) and qual.allows(g.missing), (mn, g.name)
        kinds = {s.kind for s in model.operands}
        expected = {"qualifier", "operands", "operand", "register_type", "arch"}
        expected |= {"vector"} & kinds
        expected |= {"address"} if "address" in kinds else set()
        expected |= {"immediate"} if any(s.values for s in model.operands) else set()
        expected |= {"alignment"} if model.alignment_source else set()
        # wmma.load's stride (tcgen05's reg_or_imm operands have no stride rule); the
        # footprint of tcgen05.ld/st's taddr
        expected |= {"stride"} if "reg_or_imm" in kinds and mn == "wmma.load" else set()
        expected |= {"taddr"} if mn in ("tcgen05.ld", "tcgen05.st") else set()
        declared = {i[len(mn) + 1:] for i in DIAGNOSTICS
                    if i.startswith(mn + ".") and i[len(mn) + 1:] in generic}
        assert declared == expected, mn
        assert all(DIAGNOSTICS[f"{mn}.{k}"].source == model.section for k in expected), mn
        # a bare register where the syntax wants a vector is a warning; a predicate given
        # as an immediate too
        if "vector" in kinds:
            assert DIAGNOSTICS[f"{mn}.vector"].allows("warning") == any(
                s.bare_when for s in model.operands)
        # (and an operand ptxas takes beyond the syntax: tcgen05.mma's "lenient" ones)
        assert DIAGNOSTICS[f"{mn}.operand"].allows("warning") == bool(
            {"predicate", "lenient"} & kinds)


def test_value_and_access_rules_are_the_catalogues():
    from descriptors.isa.instructions import VALUE_RULES
    from descriptors.isa.tmem import ACCESS_RULES, footprint

    assert set(VALUE_RULES) <= set(DIAGNOSTICS)
    assert all(ACCESS_RULES[i] is DIAGNOSTICS[i] for i in ACCESS_RULES)
    assert len(ACCESS_RULES) == 18 and "tmem.alloc" in ACCESS_RULES
    fp = footprint("st", "16x32bx2", 4, 0x0078_01FC, warp=2, alloc=48, imm_half_splitoff=2)
    assert {f.rule for f in fp.verdict} == {
        "tmem.st.num", "tmem.st.lanes", "tmem.st.columns", "tmem.st.warp_lanes", "tmem.alloc",
        "tmem.st.alloc", "tmem.st.split"}
    # the sources findings carry are the declarations' (tmem.st.num cites its table row)
    assert {f.rule: f.source for f in fp.verdict if f.rule != "tmem.st.num"} == {
        i: DIAGNOSTICS[i].source for i in ("tmem.st.lanes", "tmem.st.columns",
                                           "tmem.st.warp_lanes", "tmem.alloc",
                                           "tmem.st.alloc", "tmem.st.split")}
    assert DIAGNOSTICS["tmem.alloc"].source == "9.7.16.1.2, 9.7.16.7.1"


# ---------------------------------------------------------------------------- the catalogue

def test_severity_is_a_plain_string():
    assert Severity.ERROR == "error" and f"{Severity.NOTE}" == "note"
    assert json.dumps([Severity.WARNING]) == '["warning"]'
    assert SEVERITIES == ("error", "warning", "note") == tuple(Severity)
    assert all(type(s) is str for s in SEVERITIES)


def test_declarations_are_well_formed():
    assert len(DIAGNOSTICS) > 120
    for rid, d in DIAGNOSTICS.items():
        assert d.id == rid and ID.match(rid), rid
        assert d.source and d.summary and "\n" not in d.summary, rid
        assert isinstance(d.severity, Severity) and all(isinstance(s, Severity)
                                                        for s in d.overrides), rid
        assert d.severity not in d.overrides, rid
        assert "issue" not in (d.help or "") + d.summary and "shared/" not in d.source, rid


def test_overrides_and_the_some_paths_note():
    d = DIAGNOSTICS["idesc.sparse_form"]
    assert d.severity == "error" and d.severities == ("error", "warning", "note")
    assert not DIAGNOSTICS["idesc.negate"].allows("note")
    assert DIAGNOSTICS["idesc.negate"].allows("note", SOME_PATHS + "negate A is set")
    assert not DIAGNOSTICS["idesc.negate"].allows("warning", SOME_PATHS + "negate A is set")


def test_declaring_twice_or_a_bad_severity_is_refused():
    with pytest.raises(ValueError, match="lint.runtime declared twice"):
        declare(diagnostic("lint.runtime", "note", "descgen lint", "again"))
    with pytest.raises(ValueError):
        diagnostic("lint.x", "fatal", "descgen lint", "no such severity")
    with pytest.raises(ValueError, match="repeat"):
        diagnostic("lint.x", "note", "descgen lint", "default again", overrides=("note",))


# ---------------------------------------------------------------------------- descgen rules

runner = CliRunner()


def test_rules_lists_every_id_sorted():
    r = runner.invoke(app, ["rules"])
    assert r.exit_code == 0 and r.stderr == ""
    ids = [line.split()[0] for line in r.stdout.splitlines() if not line.startswith(" ")]
    assert ids == sorted(DIAGNOSTICS)
    line = next(x for x in r.stdout.splitlines() if x.startswith("idesc.sparse_form "))
    assert line.split()[1] == "error,warning,note"
    assert line.endswith("set for tcgen05.mma.sp, clear otherwise (Table 42, 9.7.16.10.9.2)")
    assert "  help: judge the value live" in r.stdout


def test_rules_prefix_and_json():
    r = runner.invoke(app, ["rules", "wgmma.", "--format", "json"])
    assert r.exit_code == 0 and r.stderr == ""
    data = json.loads(r.stdout)
    assert [d["id"] for d in data] == sorted(i for i in DIAGNOSTICS if i.startswith("wgmma."))
    assert {"wgmma.lbo_unused", "wgmma.mma_async.operand", "wgmma.shape"} <= {
        d["id"] for d in data}
    operand = next(d for d in data if d["id"] == "wgmma.mma_async.operand")
    assert operand == {"id": "wgmma.mma_async.operand", "severity": "error",
                       "overrides": ["warning"], "source": "9.7.15.5.2",
                       "summary": DIAGNOSTICS["wgmma.mma_async.operand"].summary, "help": None}
    text = runner.invoke(app, ["rules", "lint."])
    assert text.exit_code == 0
    assert [line.split()[0] for line in text.stdout.splitlines()
            if not line.startswith(" ")] == sorted(i for i in DIAGNOSTICS if i.startswith("lint."))


def test_rules_unknown_prefix_is_one_line_exit_2():
    r = runner.invoke(app, ["rules", "nosuch."])
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr.splitlines() == [
        "descgen: error: no rule id starts with 'nosuch.'; the ids start with "
        + ", ".join(sorted({i.split(".")[0] + "." for i in DIAGNOSTICS}))]

"""The checker: findings for one parsed instruction against its model (qualifiers,
constraints, operands, vector size, register types, value rules, target architecture)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ...errors import ParameterError, shorten_text
from ...words.literals import parse_immediate
from ...rules.targets import ArchRequirement, parse_target
from ...rules.validate import SEVERITIES, Finding
from .catalog import model_for
from .models import InstructionError, InstructionModel, OperandSpec, Qualifiers
from .parse import PTX_REGISTER_BITS, ParsedInstruction, parse_instruction
from .wmma import WMMA_LOAD_SOURCE, WMMA_STORAGE_SOURCE

#: The integer register types (.b/.u/.s, :data:`PTX_REGISTER_BITS`), which an address
#: register is.
_INT_TYPES = frozenset(t for t in PTX_REGISTER_BITS if t[0] in "bus" and t[1:].isdigit())


def _finding(severity: str, rule: str, message: str, source: str, field_name: str | None = None,
             value: Any = None) -> Finding:
    return Finding(severity, rule, message, source, field_name, None, value)


def _choices(values: tuple[str, ...]) -> str:
    """``.a .b .c``; a long list (wgmma's 160 shapes) as its first and last values."""
    if len(values) <= 12:
        return " ".join(f".{v}" for v in values)
    return " ".join(f".{v}" for v in values[:3]) + f" ... .{values[-1]} ({len(values)} values)"


def resolve(model: InstructionModel, quals: Iterable[tuple[str, int]] | Iterable[str]
            ) -> tuple[Qualifiers, list[Finding]]:
    """Qualifiers by group (``None`` = absent) and the findings about the qualifier list:
    unknown qualifiers, a group given twice, required groups missing, order notes.  A value
    several groups list (wgmma's ``.dtype.atype.btype``) fills the first of them still empty."""
    by_value = model.groups_by_value
    index = {g.name: i for i, g in enumerate(model.groups)}
    q: Qualifiers = {g.name: None for g in model.groups}
    out: list[Finding] = []
    mn = model.mnemonic
    order: list[int] = []
    for item in quals:
        name = item[0] if isinstance(item, tuple) else item
        gs = by_value.get(name)
        if gs is None:
            near = [v for v in by_value if v.lower() == name.lower()]
            hint = f" (did you mean .{near[0]}?)" if near else ""
            listed = "; ".join(f".{g.name}: {_choices(g.values)}" for g in model.groups
                               if len(g.values) > 12)
            short = " ".join(dict.fromkeys(f".{v}" for g in model.groups
                                           if len(g.values) <= 12 for v in g.values))
            out.append(_finding("error", f"{mn}.qualifier", f"unknown qualifier .{shorten_text(name)}"
                                f" for {mn}{hint}; its qualifiers are " + short
                                + (f"; {listed}" if listed else ""), f"PTX {model.section}",
                                "qualifier", name))
            continue
        g = next((x for x in gs if q[x.name] is None), gs[-1])
        if q[g.name] is not None:
            if g.repeat != "error" and q[g.name] == name:
                out.append(_finding(g.repeat, f"{mn}.qualifier", f".{name} given twice (ptxas "
                                    "13.0 accepts the repetition)", g.source, g.name, name))
                continue
            out.append(_finding("error", f"{mn}.qualifier", f".{g.name} given twice (.{q[g.name]}"
                                f" and .{name})", g.source, g.name, name))
            continue
        q[g.name] = name
        order.append(index[g.name])
    for g in model.groups:
        if g.required and q[g.name] is None:
            extra = "" if g.missing == "error" else " (ptxas 13.0 assembles the form without it)"
            out.append(_finding(g.missing, f"{mn}.qualifier", f"missing .{g.name} (one of "
                                f"{_choices(g.values)}){extra}", g.source, g.name))
        if g.leading and q[g.name] is not None and order and order[0] != index[g.name]:
            out.append(_finding("error", f"{mn}.qualifier", f".{q[g.name]} must come right after "
                                f"{mn} ({mn}.{q[g.name]} is the opcode)", g.source, g.name,
                                q[g.name]))
        if g.after is not None and q[g.name] is not None and q[g.after] is not None and \
                order.index(index[g.name]) < order.index(index[g.after]):
            out.append(_finding("error", f"{mn}.qualifier", f".{q[g.name]} must follow "
                                f".{q[g.after]} (ptxas 13.0 refuses the other order)", g.source,
                                g.name, q[g.name]))
    if order != sorted(order) and not any(f.severity == "error" for f in out):
        canon = ".".join([mn] + [q[g.name] for g in model.groups if q[g.name]])  # type: ignore[misc]
        out.append(_finding("note", f"{mn}.qualifier", "qualifiers out of the syntax's order "
                            f"(ptxas 13.0 accepts any order); canonical: {canon}",
                            f"PTX {model.section} syntax"))
    return q, out


def vector_size(model: InstructionModel, q: Mapping[str, str | None]) -> int | None:
    """Registers of the vector operand for these qualifiers; ``None`` when undefined or when
    several sizes are accepted (:func:`vector_sizes`)."""
    n = model.vector(q)
    return n if isinstance(n, int) else None


def vector_sizes(model: InstructionModel, q: Mapping[str, str | None]) -> tuple[int, ...]:
    """Every vector size accepted for these qualifiers (empty when undefined)."""
    n = model.vector(q)
    return () if n is None else (n,) if isinstance(n, int) else n


_REGNAME = re.compile(r"%?[A-Za-z_$][\w$]*\Z")
_ADDR = re.compile(r"\[\s*(?P<base>%?[A-Za-z_$][\w$]*|-?\w+)\s*(?:\+\s*(?P<off>-?\w+)\s*)?\]\Z")


def _reg_check(mn: str, name: str, text: str, col: int, registers: Mapping[str, str] | None,
               allowed: tuple[str, ...], source: str, what: str) -> list[Finding]:
    if not _REGNAME.match(text):
        return [_finding("error", f"{mn}.operand", f"{what} {shorten_text(text)} (column {col}) "
                         "is not a register", source, name, text)]
    if registers is None or text not in registers:
        return []
    rtype = registers[text]
    if rtype not in PTX_REGISTER_BITS:
        return [_finding("error", f"{mn}.register_type", f"{what} {text} is declared "
                         f".{shorten_text(rtype)}, which is no PTX type (PTX ISA 5.2.2, 5.2.3: ."
                         + " .".join(PTX_REGISTER_BITS) + f"); {mn} takes ."
                         + "/.".join(allowed) + " registers here", source, name,
                         shorten_text(rtype))]
    if rtype not in allowed:
        return [_finding("error", f"{mn}.register_type", f"{what} {text} is .{rtype}; "
                         f"{mn} takes ." + "/.".join(allowed) + " registers here", source, name,
                         rtype)]
    return []


#: Rules about operand *values* (addresses, strides) that ptxas cannot judge: a form breaking
#: them assembles.  The ptxas test compares verdicts on every other rule.
VALUE_RULES: tuple[str, ...] = ("stmatrix.alignment", "wmma.load.alignment", "wmma.load.stride",
                                "tcgen05.ld.taddr", "tcgen05.st.taddr")


def present_operands(model: InstructionModel, q: Mapping[str, str | None],
                     texts: Sequence[str]) -> list[OperandSpec]:
    """The operands an instruction of ``model`` with resolved qualifiers ``q`` takes, in
    order, given its operand texts: what the operands themselves say (wgmma's A from a
    descriptor or from registers, :attr:`InstructionModel.operand_facts`) decides too."""
    if model.operand_facts is not None:
        q = {**q, **model.operand_facts(list(texts))}
    return [s for s in model.operands if s.present(q)]


def legal_form(text: str | ParsedInstruction, purpose: str) -> ParsedInstruction:
    """``text`` parsed, when it is a legal form; raises :class:`InstructionError` naming the
    first error (and how many more) otherwise, saying that only a legal form ``purpose``
    ("is explained", "has a fragment map")."""
    from .parse import parse_instruction
    p = text if isinstance(text, ParsedInstruction) else parse_instruction(text)
    errors = [f for f in check_parsed(p, arch=None) if f.severity == "error"]
    if errors:
        f = errors[0]
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise InstructionError(f"{shorten_text(p.text)}: [{f.rule}] {f.message}{more} "
                               f"({f.source}); only a legal form {purpose}")
    return p


def check_parsed(p: ParsedInstruction, *, registers: Mapping[str, str] | None = None,
                 arch: str | None = None, constants: Mapping[str, int] | None = None
                 ) -> list[Finding]:
    """Findings for a parsed instruction (errors first); see :func:`check_instruction`."""
    model = model_for(p.mnemonic)
    mn = model.mnemonic
    q, out = resolve(model, p.qualifiers)
    qual_errors = any(f.severity == "error" for f in out)
    if model.operand_facts is not None:  # constraints may name them (tcgen05.mma's a_src)
        q = {**q, **model.operand_facts([t for t, _ in p.operands])}
    if not qual_errors:
        for c in model.constraints:
            if c.applies(q):
                for g in c.broken(q):
                    given = q.get(g)
                    out.append(_finding(c.severity, c.id, f"{c.message} (given: "
                                        f"{'.' + given if given else 'none'})", c.source, g,
                                        given))
    # operands
    ops = list(p.operands)
    specs = present_operands(model, q, [t for t, _ in ops])
    if model.operand_facts is not None:
        q = {**q, **model.operand_facts([t for t, _ in ops])}
    required = [s for s in specs if not s.optional]
    if len(ops) < len(required) or len(ops) > len(specs):
        want = ", ".join(s.name + ("?" if s.optional else "") for s in specs)
        out.append(_finding("error", f"{mn}.operands", f"{len(ops)} operand(s) given; this form "
                            f"takes {want}", f"PTX {model.section} syntax", "operands", len(ops)))
    else:
        expected = vector_sizes(model, q)
        for spec, (text, col) in zip(specs, ops):
            size = expected
            if spec.size is not None:
                n = None if qual_errors else spec.size(q)
                size = () if n is None else (n,)
            out += _operand_findings(model, q, spec, text, col, size, registers,
                                     skip_size=qual_errors, constants=constants or {})
        if not qual_errors and mn in ("tcgen05.ld", "tcgen05.st"):
            out += _taddr_findings(model, q, specs, ops, constants or {})
    # arch
    if arch is not None:
        target = parse_target(arch)
        seen: list[ArchRequirement] = []
        for when, req in model.arch:
            if req in seen or not all(q.get(g) in vals for g, vals in when.items()):
                continue
            seen.append(req)
            if not req.supports(target):
                out.append(_finding("error", f"{mn}.arch", f"not supported on {target.name}; "
                                    f"needs {req.text}", req.source, "arch", target.name))
    order = {sev: i for i, sev in enumerate(SEVERITIES)}
    out.sort(key=lambda f: order[f.severity])
    return out


def _operand_findings(model: InstructionModel, q: Mapping[str, str | None], spec: OperandSpec,
                      text: str, col: int, expected: tuple[int, ...],
                      registers: Mapping[str, str] | None, skip_size: bool,
                      constants: Mapping[str, int]) -> list[Finding]:
    mn = model.mnemonic
    if spec.kind == "vector":
        return _vector_findings(model, q, spec, text, col, expected, registers, skip_size)
    if spec.kind == "address":
        return _address_findings(model, q, spec, text, col, registers, skip_size, constants)
    if spec.kind == "immediate":
        v = parse_immediate(text)
        if v is None:
            return [_finding("error", f"{mn}.operand", f"{spec.name} (column {col}) must be an "
                             f"immediate integer, not {shorten_text(text)}", spec.source,
                             spec.name, text)]
        return _value_findings(mn, spec, v)
    if spec.kind == "predicate":
        v = parse_immediate(text)
        if v is not None:
            if spec.values is not None and v not in spec.values:
                return _value_findings(mn, spec, v)
            return [_finding("warning", f"{mn}.operand", f"{spec.name} is the immediate {v}; "
                             "the syntax gives a predicate (ptxas 13.0 takes 0 or 1 too)",
                             spec.source, spec.name, v)]
        reg = text[1:].strip() if text.startswith("!") else text
        return _reg_check(mn, spec.name, reg, col, registers, spec.types, spec.source,
                          spec.name)
    if spec.kind == "lenient":  # an operand ptxas takes that the text does not write
        if parse_immediate(text) is None:
            reg = text[1:].strip() if text.startswith("!") else text
            found = _reg_check(mn, spec.name, reg, col, registers, spec.types, spec.source,
                               spec.name)
            if found:
                return found
        return [_finding("warning", f"{mn}.operand", f"operand {shorten_text(text)} (column "
                         f"{col}) is not in the PTX syntax of this form; {spec.source}",
                         spec.source, spec.name, text)]
    if spec.kind == "register":
        if spec.offset and "+" in text:  # ptxas reads reg+imm here too
            reg, _, off = text.partition("+")
            if parse_immediate(off) is not None:
                text = reg.strip()
        return _reg_check(mn, spec.name, text, col, registers, spec.types, spec.source,
                          spec.name)
    if spec.kind == "reg_or_imm":
        value = parse_immediate(text)
        if value is not None and spec.values is not None:  # a literal (ptxas checks it)
            return _value_findings(mn, spec, value)
        if value is None and text in constants:
            value = constants[text]
        if value is not None:
            return [] if skip_size else _stride_findings(model, q, spec, value)
        if spec.offset and "+" in text and parse_immediate(text.partition("+")[2]) is not None:
            text = text.partition("+")[0].strip()  # ptxas reads reg+imm here too
        return _reg_check(mn, spec.name, text, col, registers, spec.types, spec.source,
                          spec.name)
    raise AssertionError(spec.kind)  # pragma: no cover - every kind is handled above


def _vector_findings(model: InstructionModel, q: Mapping[str, str | None], spec: OperandSpec,
                     text: str, col: int, expected: tuple[int, ...],
                     registers: Mapping[str, str] | None, skip_size: bool) -> list[Finding]:
    """A vector operand: braces, its size (``expected``; not checked when ``skip_size``) and
    its element types."""
    mn = model.mnemonic
    if spec.bare_when is not None and all(q.get(g) in v for g, v in spec.bare_when.items()) \
            and _REGNAME.match(text):
        return [_finding("warning", f"{mn}.vector", f"operand {spec.name} is a bare register; "
                         "the syntax wants a brace-enclosed vector (ptxas 13.0 assembles "
                         "this form)", spec.source, spec.name, text)] + _reg_check(
            mn, spec.name, text, col, registers, model.register_types(q),
            model.vector_source, "vector element")
    if not (text.startswith("{") and text.endswith("}")):
        return [_finding("error", f"{mn}.operand", f"operand {spec.name} (column {col}) must "
                         "be a brace-enclosed vector {r0, ...}", spec.source, spec.name, text)]
    regs = [r.strip() for r in text[1:-1].split(",")]
    if any(not r for r in regs):
        return [_finding("error", f"{mn}.operand", f"operand {spec.name} (column {col}) has an "
                         "empty element", spec.source, spec.name, text)]
    out = []
    if expected and not skip_size and len(regs) not in expected:
        form = ".".join([mn] + [v for g in model.groups if (v := q.get(g.name))])
        out.append(_finding("error", f"{mn}.vector", f"the vector has {len(regs)} "
                            f"register(s); {form} takes " + " or ".join(map(str, expected)),
                            model.vector_source, spec.name, len(regs)))
    allowed = (spec.reg_types or model.register_types)(q)
    for r in regs:
        found = _reg_check(mn, spec.name, r, col, registers, allowed, model.vector_source,
                           "vector element")
        if found:
            out += found
            break
    return out


def _address_findings(model: InstructionModel, q: Mapping[str, str | None], spec: OperandSpec,
                      text: str, col: int, registers: Mapping[str, str] | None,
                      skip_size: bool, constants: Mapping[str, int]) -> list[Finding]:
    """An address operand: its form, an immediate address, the base register's type and the
    alignment (not checked when ``skip_size``)."""
    mn = model.mnemonic
    m = _ADDR.match(text)
    if m is None:
        return [_finding("error", f"{mn}.address", f"operand {spec.name} (column {col}) must be "
                         "an address [reg], [reg+imm] or [var]", spec.source, spec.name, text)]
    base, off = m.group("base"), m.group("off")
    out = []
    if parse_immediate(base) is not None:
        out.append(_finding("error", f"{mn}.address", f"an immediate address [{base}] "
                            "(ptxas: immediate addresses are allowed for .local only)",
                            spec.source, spec.name, base))
        return out
    offset = 0
    if off is not None:
        v = parse_immediate(off)
        if v is None:
            return [_finding("error", f"{mn}.address", f"offset {shorten_text(off)} in "
                             f"{spec.name} is not an integer", spec.source, spec.name, off)]
        offset = v
    if registers is not None and base in registers:
        rtype = registers[base]
        bits = PTX_REGISTER_BITS.get(rtype)
        if bits not in spec.bits or rtype not in _INT_TYPES:
            out.append(_finding("error", f"{mn}.address", f"address register {base} is ."
                                f"{rtype}; {spec.name} takes a "
                                + " or ".join(f"{b}-bit" for b in spec.bits)
                                + " integer (.b/.u/.s) register",
                                spec.source, spec.name, rtype))
    align = None if skip_size else model.alignment(q)
    if align:
        out += _alignment_findings(model, spec, base, offset, align, constants)
    return out


def _describe(values: tuple[int, ...]) -> str:
    """``0 or 1``; a long arithmetic run as ``in [0, 15]`` or ``a multiple of 32 in [32, 65504]``."""
    if isinstance(values, range):  # tcgen05.dealloc's nCols: a multiple of 32
        return f"a multiple of {values.step}"
    step = values[1] - values[0] if len(values) > 4 else 0
    if step and all(b - a == step for a, b in zip(values, values[1:])):
        run = f"in [{values[0]}, {values[-1]}]"
        return run if step == 1 else f"a multiple of {step} {run}"
    return " or ".join(str(v) for v in values)


def _value_findings(mn: str, spec: OperandSpec, value: int) -> list[Finding]:
    if spec.values is None or value in spec.values:
        return []
    allowed = _describe(spec.values)
    return [_finding("error", f"{mn}.immediate", f"{spec.name} is {value}; it must be {allowed}",
                     spec.source, spec.name, value)]


def _alignment_findings(model: InstructionModel, spec: OperandSpec, base: str, offset: int,
                        align: int, constants: Mapping[str, int]) -> list[Finding]:
    mn = model.mnemonic
    rule = f"{mn}.alignment"
    if base in constants:
        address = constants[base] + offset
        if address % align:
            return [_finding("error", rule, f"address {address:#x} ({base} = "
                             f"{constants[base]:#x}{f' + {offset}' if offset else ''}) is not "
                             f"{align}-byte aligned", model.alignment_source, spec.name, address)]
        return []
    if offset % align:
        return [_finding("warning", rule, f"offset {offset} is not a multiple of {align}: the "
                         f"address is {align}-byte aligned only if {base} is "
                         f"{(-offset) % align} mod {align}", model.alignment_source, spec.name,
                         offset)]
    return []


def _stride_findings(model: InstructionModel, q: Mapping[str, str | None], spec: OperandSpec,
                     stride: int) -> list[Finding]:
    info = model.stride(q)
    if info is None:
        return []
    default, bits, frag = info
    rule = f"{model.mnemonic}.stride"
    out = []
    if stride < default:
        out.append(_finding("error", rule, f"stride {stride} is below the default {default} "
                            "(the leading dimension): undefined behaviour",
                            f"{WMMA_STORAGE_SOURCE}; {WMMA_LOAD_SOURCE}", spec.name, stride))
    if (stride * bits) % (8 * frag):
        out.append(_finding("error", rule, f"stride {stride} x {bits} bits = "
                            f"{stride * bits / 8:g} bytes is not a multiple of the fragment "
                            f"size, {frag} bytes", WMMA_STORAGE_SOURCE, spec.name, stride))
    return out


def _taddr_findings(model: InstructionModel, q: Mapping[str, str | None],
                    specs: list[OperandSpec], ops: list[tuple[str, int]],
                    constants: Mapping[str, int]) -> list[Finding]:
    """A constant ``taddr``: :func:`descriptors.isa.tmem.footprint`'s errors and warnings."""
    from .. import tmem
    values: dict[str, str] = {spec.name: text for spec, (text, _) in zip(specs, ops)}
    m = _ADDR.match(values.get("taddr", ""))
    if m is None or m.group("base") not in constants:
        return []
    address = constants[m.group("base")] + (parse_immediate(m.group("off") or "0") or 0)
    imm = parse_immediate(values["immHalfSplitoff"]) if "immHalfSplitoff" in values else None
    if "immHalfSplitoff" in values and imm is None:
        return []
    op = model.mnemonic.split(".")[1]
    try:
        fp = tmem.footprint(op, q["shape"], q["num"], address, pack=bool(q.get("pack")),
                            unpack=bool(q.get("unpack")), imm_half_splitoff=imm)
    except ParameterError as exc:
        return [_finding("error", f"{model.mnemonic}.taddr", str(exc), model.vector_source,
                         "taddr", address)]
    return [_finding(f.severity, f"{model.mnemonic}.taddr", f"[{f.rule}] {f.message}",
                     f.source, "taddr", address)
            for f in fp.verdict if f.severity in ("error", "warning")]


#: ``check_instruction``'s default ``arch``: the model's own target (:attr:`InstructionModel
#: .default_arch`: sm_100a; sm_90a for wgmma.mma_async).
MODEL_ARCH = "model"


def check_instruction(text: Any, *, registers: Mapping[str, str] | None = None,
                      arch: str | None = MODEL_ARCH,
                      constants: Mapping[str, int] | None = None) -> list[Finding]:
    """Findings for one PTX instruction line: qualifier legality, vector size and register
    types (when ``registers`` maps names to declared types, see :func:`parse_registers`),
    operand list, address form and alignment, target architecture (``arch``; ``None`` skips;
    by default the model's own target, sm_100a -- sm_90a for wgmma.mma_async).
    ``constants`` maps register names to values known at compile time (a module reader's
    data flow): a constant address is then checked for alignment (an error, not a warning), a
    constant wmma stride against 9.7.14.4.2, and a constant tcgen05 ``taddr`` by
    :func:`descriptors.isa.tmem.footprint`.

    A line that cannot be read comes back as one ``instruction.syntax`` error (the message of
    :class:`InstructionError`), so a snippet file gets a verdict per line.  Severity ``error``
    means ptxas 13.0 refuses the line (the tests hold descgen to that).
    """
    try:
        p = parse_instruction(text)
    except InstructionError as exc:
        return [_finding("error", "instruction.syntax", str(exc), "PTX 9.7 (instruction syntax)")]
    if arch == MODEL_ARCH:
        arch = model_for(p.mnemonic).default_arch
    return check_parsed(p, registers=registers, arch=arch, constants=constants)

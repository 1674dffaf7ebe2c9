"""What a legal ``tcgen05.mma`` / ``tcgen05.cp`` / ``tcgen05.commit`` / ``tcgen05.alloc`` /
``tcgen05.dealloc`` / ``tcgen05.relinquish_alloc_permit`` line does, for ``descgen explain``.

:func:`tcgen05_form` reads one line (it must pass :func:`check_parsed`; raises
:class:`InstructionError` otherwise) and returns a :class:`Tcgen05Form`: a property table
(``rows``: name, text), the operands with their roles, notes, and for tcgen05.mma the allowed
M, N and K (PTX Table 39, :data:`descriptors.rules.validate.SHAPES`), the element types of the
kind (:data:`descriptors.words.enums.KINDS`, Tables 42-44) and the ``descgen idesc`` command
that builds a matching instruction descriptor.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...structs import Struct
from .catalog import MODELS
from .check import legal_form, present_operands, resolve
from .models import InstructionError
from .parse import ParsedInstruction, parse_instruction

__all__ = ["Tcgen05Form", "tcgen05_form", "EXPLAINED", "with_syntax_operands"]

#: The mnemonics :func:`tcgen05_form` explains.
EXPLAINED: tuple[str, ...] = ("tcgen05.mma", "tcgen05.cp", "tcgen05.commit", "tcgen05.alloc",
                              "tcgen05.dealloc", "tcgen05.relinquish_alloc_permit")


class Tcgen05Form(Struct, frozen=True):
    """One explained tcgen05 line: ``mnemonic``, ``qualifiers`` (group -> value, absent ones
    left out), ``rows`` (property, text) in display order, ``operands`` (name, text, role),
    ``notes``, ``section`` (PTX section), and for tcgen05.mma ``mma`` (kind, cta_group, ws,
    sparse, block_scale, a_source, m, n, k, types, idesc_command)."""

    instruction: str
    mnemonic: str
    section: str
    qualifiers: dict[str, str]
    rows: tuple[tuple[str, str], ...]
    operands: tuple[tuple[str, str, str], ...]
    notes: tuple[str, ...]
    mma: dict[str, Any] | None = None
    arch: str = "sm_100a, sm_110a; sm_100f/sm_110f family"

    def to_dict(self) -> dict[str, Any]:
        return {"instruction": self.instruction, "mnemonic": self.mnemonic,
                "section": self.section, "qualifiers": dict(self.qualifiers),
                "properties": [{"name": n, "text": t} for n, t in self.rows],
                "operands": [{"name": n, "text": t, "role": r} for n, t, r in self.operands],
                "mma": self.mma, "arch": self.arch, "notes": list(self.notes)}


def _runs(values: tuple[int, ...]) -> str:
    """``8..256 step 8``; several arithmetic runs joined by commas (``8, 16, 24, 32, 48..256
    step 16``)."""
    out: list[str] = []
    i = 0
    while i < len(values):
        j = i + 1
        if j < len(values):
            step = values[j] - values[i]
            while j + 1 < len(values) and values[j + 1] - values[j] == step:
                j += 1
            if j - i >= 3:
                out.append(f"{values[i]}..{values[j]} step {step}")
                i = j + 1
                continue
        out.append(str(values[i]))
        i += 1
    return ", ".join(out)


def _types(table: Any) -> list[str]:
    return [c.name for c in table] if table is not None else []


def _mma(q: Mapping[str, str | None], ops: dict[str, str]) -> tuple[dict[str, Any],
                                                                    list[tuple[str, str]],
                                                                    list[str]]:
    from ...rules.validate import SHAPES
    from ...words.enums import KINDS

    kind_name = (q["kind"] or "").split("::")[1]
    kind = KINDS[kind_name]
    cta = int((q["cta_group"] or "x::1").split("::")[1])
    ws, sparse = q["ws"] is not None, q["sp"] is not None
    shape = SHAPES[kind_name][(ws, cta, sparse)]
    ms, ns = shape if shape is not None else ((), ())
    k = kind.k_sparse if sparse else kind.k_dense
    types = {"a": _types(kind.ab_types), "b": _types(kind.ab_types),
             "d": _types(kind.d_types) if kind.d_types is not None else ["f32"],
             "scale": _types(kind.scale_types)}
    a_src = "tmem" if ops.get("a-tmem") else "desc"
    rows: list[tuple[str, str]] = []
    scale = ops.get("scale-input-d")
    d_in = "D" if scale is None else f"D * 2^-{scale}"
    a_txt = "A (M x K" + (", sparse: 50% zeros, stored packed as M x K/2" if sparse else "") + ")"
    scaled = " (A and B scaled by their block scale factors)" if kind.block_scaled else ""
    rows.append(("operation", f"D (M x N) = {a_txt} * B (K x N){scaled} + {d_in}; "
                              "D = A*B when enable-input-d is false"))
    rows.append(("kind", f"kind::{kind_name}: {kind.description} (PTX {kind.source})"))
    rows.append(("types", f"A/B .{'/.'.join(types['a'])}; D .{'/.'.join(types['d'])}"
                 + (f"; scale factors .{'/.'.join(types['scale'])}" if types["scale"] else "")
                 + " (chosen by the instruction descriptor)"))
    if shape is None:
        rows.append(("shape", f"Table 39 lists no kind::{kind_name} form for this context"))
    else:
        rows.append(("shape", f"M = {' or '.join(map(str, ms))}; N = {_runs(ns)}; K = {k}"
                     + (f" (or {kind.k_alt} dense, sm_103a)" if kind.k_alt and not sparse
                        else "") + " (PTX Table 39; M and N come from the instruction "
                     "descriptor)"))
    rows.append(("cta_group", "cta_group::1: the MMA uses this CTA's Tensor Memory" if cta == 1
                 else "cta_group::2: the MMA spans this CTA and its peer CTA (9.7.16.5.1); "
                 "one thread of the pair issues it"))
    if ws:
        rows.append(("ws", ".ws: weight-stationary; B may stay in collector buffers b0..b3, "
                     "an optional zero-column mask zeroes columns of B (Table 45)"))
    if sparse:
        rows.append(("sp", f".sp: A is structurally sparse (9.7.16.10.8); K = {k} "
                     f"instead of {kind.k_dense}; the metadata is in Tensor Memory"))
    if q["block_scale"]:
        vec = q["scale_vectorsize"]
        rows.append(("block_scale", f".block_scale{'.' + vec if vec else ''}: one scale factor "
                     "per block of K elements of each row of A and column of B "
                     "(9.7.16.10.7)" + ("" if vec else "; the kind's default vector size")))
    if q["ashift"]:
        rows.append(("ashift", ".ashift: the rows of A in Tensor Memory shift down by one "
                     "(convolution)"))
    coll = q["collector_usage"]
    if coll:
        buf, op = coll.split("::")[1:]
        what = {"fill": "read from memory and kept in", "use": "read from",
                "lastuse": "read from, then released,", "discard": "not kept in"}[op]
        rows.append(("collector", f".{coll}: {'A' if buf == 'a' else 'B'} is {what} collector "
                     f"buffer {buf}"))
    d_type = "f32" if "f32" in types["d"] else types["d"][0]
    command = (f"descgen idesc --kind {kind_name} -m {max(ms) if ms else 128} -n "
               f"{max(ns) if ns else 256} --a-type {types['a'][0]} --b-type {types['b'][0]}"
               + (f" --d-type {d_type}" if kind.d_types is not None else "")
               + (" --sparse" if sparse else "") + f" --cta-group {cta}"
               + (" --ws" if ws else " --no-ws")
               + (f" --scale-vec {q['scale_vectorsize'].split('::')[-1]}"
                  if q["scale_vectorsize"] else "")
               + (" --scale-type ue4m3" if q["scale_vectorsize"] in ("scale_vec::4X", "block16")
                  else ""))
    rows.append(("build", f"the idesc word: {command}"))
    data = {"kind": kind_name, "cta_group": cta, "ws": ws, "sparse": sparse,
            "block_scale": q["block_scale"] is not None,
            "scale_vectorsize": q["scale_vectorsize"], "a_source": a_src,
            "m": list(ms), "n": list(ns), "k": k, "types": types, "idesc_command": command}
    notes = ["M, N, the exact types, transposes and negation are in the idesc word, not in "
             f"the qualifiers: descgen decode --as idesc --kind {kind_name} WORD reads one",
             "descgen smem builds the shared memory descriptors"
             + ("; descgen zcm the zero-column mask" if ws else "")]
    return data, rows, notes


_ROLES: dict[str, str] = {
    "d-tmem": "Tensor Memory address of D (the accumulator, M x N)",
    "a-desc": "A in shared memory: a 64-bit matrix descriptor (descgen decode --as smem WORD)",
    "a-tmem": "A in Tensor Memory: its address",
    "b-desc": "B in shared memory: a 64-bit matrix descriptor (descgen decode --as smem WORD)",
    "sp-meta-tmem": "Tensor Memory address of A's sparsity metadata",
    "idesc": "the 32-bit instruction descriptor: M, N, types, majors, negation",
    "scale-A-tmem": "Tensor Memory address of A's scale factors",
    "scale-B-tmem": "Tensor Memory address of B's scale factors",
    "disable-output-lane": "one 32-bit mask per warp: set bits leave those lanes of D unwritten",
    "enable-input-d": "predicate: true D = A*B + D, false D = A*B",
    "scale-input-d": "D is scaled by 2^-scale-input-d before the add",
    "trailing": "assembled by ptxas, not in the PTX syntax",
    "zero-column-mask-desc": "64-bit zero-column mask descriptor: columns of B read as zero "
                             "(descgen zcm)",
    "taddr": "Tensor Memory address",
    "s-desc": "the source in shared memory: a 64-bit matrix descriptor (descgen decode --as smem WORD)",
    "mbar": "the mbarrier object (shared memory) that the completion arrives on",
    "ctaMask": "16-bit mask: bit i multicasts the arrive to CTA i of the cluster",
    "dst": "shared memory word that receives the allocated Tensor Memory address",
    "nCols": "columns of Tensor Memory (a power of two, 32..512; all 128 lanes)",
}

_CP_SHAPES = {"128x256b": "128 lanes x 256 bits", "4x256b": "4 lanes x 256 bits",
              "128x128b": "128 lanes x 128 bits", "64x128b": "64 lanes x 128 bits",
              "32x128b": "32 lanes x 128 bits"}
_CP_CAST = {"warpx2::02_13": "multicast to warp pairs (0, 2) and (1, 3), each warp of a pair "
                             "receiving half the data",
            "warpx2::01_23": "multicast to warp pairs (0, 1) and (2, 3), each warp of a pair "
                             "receiving half the data",
            "warpx4": "multicast to all 4 warps' lane quarters"}


def _other(mn: str, q: Mapping[str, str | None]) -> tuple[list[tuple[str, str]], list[str]]:
    rows: list[tuple[str, str]] = []
    notes: list[str] = []
    cta = q.get("cta_group") or ""
    two = cta == "cta_group::2"
    if mn == "tcgen05.cp":
        rows.append(("operation", f"copy {_CP_SHAPES[q['shape'] or '']} from shared memory (s-desc) "
                     "to Tensor Memory (taddr), asynchronously"))
        if q["multicast"]:
            rows.append(("multicast", f".{q['multicast']}: {_CP_CAST[q['multicast']]}"))
        if q["src_fmt"]:
            bits = 4 if q["src_fmt"] == "b4x16_p64" else 6
            rows.append(("decompression", f".b8x16.{q['src_fmt']}: 16 {bits}-bit elements "
                         f"and {16 - 2 * bits} bytes of padding (16 bytes) become 16 8-bit "
                         "elements (9.7.16.9.1)"))
        rows.append(("cta_group", "into this CTA's and its peer CTA's Tensor Memory" if two
                     else "into this CTA's Tensor Memory"))
        rows.append(("completion", "tcgen05.commit (mbarrier) tracks it"))
    elif mn == "tcgen05.commit":
        rows.append(("operation", "make the mbarrier track the completion of every prior "
                     f"asynchronous tcgen05 operation ({cta}) of this thread; on completion "
                     "an arrive-on with count 1 is signalled (cluster scope)"))
        if q["multicast"]:
            rows.append(("multicast", ".multicast::cluster: the arrive goes to the mbarrier at "
                         "the same offset in each CTA ctaMask names"))
        rows.append(("state space", "mbar in .shared::cluster" if q["state_space"] else
                     "mbar in the generic state space (or .shared::cluster)"))
    elif mn == "tcgen05.alloc":
        rows.append(("operation", "allocate nCols columns of Tensor Memory (all 128 lanes); "
                     "the address is written to shared memory at dst; blocks until available"))
        rows.append(("warp", "a whole warp issues it (.sync.aligned)"
                     + ("; on this CTA and its peer CTA" if two else "")))
        notes.append("every allocation must be freed with tcgen05.dealloc before the kernel "
                     "exits; tcgen05.relinquish_alloc_permit ends the CTA's allocations")
    elif mn == "tcgen05.dealloc":
        rows.append(("operation", "free the nCols columns of Tensor Memory at taddr (a prior "
                     "tcgen05.alloc's address)"))
        rows.append(("warp", "a whole warp issues it (.sync.aligned)"))
    else:
        rows.append(("operation", "this CTA will allocate no more Tensor Memory (later "
                     "tcgen05.alloc is undefined behaviour)"))
        rows.append(("warp", "a whole warp issues it (.sync.aligned)"))
    return rows, notes


def tcgen05_form(text: str | ParsedInstruction) -> Tcgen05Form:
    """Explain one legal tcgen05.mma/cp/commit/alloc/dealloc/relinquish_alloc_permit line.

    Raises :class:`InstructionError` for a line that does not read, another mnemonic, or a
    form with an error (the first error is named)."""
    p = text if isinstance(text, ParsedInstruction) else parse_instruction(text)
    if p.mnemonic not in EXPLAINED:
        raise InstructionError(f"{p.mnemonic} is not one of " + ", ".join(EXPLAINED))
    legal_form(p, "is explained")
    model = MODELS[p.mnemonic]
    q, _ = resolve(model, p.qualifiers)
    texts = [t for t, _ in p.operands]
    if model.operand_facts is not None:
        q = {**q, **model.operand_facts(texts)}
    specs = present_operands(model, q, texts)
    ops = {s.name: t for s, t in zip(specs, texts)}
    mma = None
    if p.mnemonic == "tcgen05.mma":
        mma, rows, notes = _mma(q, ops)
    else:
        rows, notes = _other(p.mnemonic, q)
    operands = tuple((s.name, t, _role(s.name, t)) for s, t in zip(specs, texts))
    quals = {g.name: v for g in model.groups if (v := q.get(g.name))}
    section = model.section
    if p.mnemonic == "tcgen05.mma":  # .sp 9.7.16.10.9.2, .ws 9.7.16.10.9.3, .ws.sp ...4
        section = section[:-1] + str(1 + bool(q["sp"]) + 2 * bool(q["ws"]))
    return Tcgen05Form(p.text, p.mnemonic, f"PTX {section}", quals, tuple(rows),
                       operands, tuple(notes), mma)


def with_syntax_operands(text: str) -> str | None:
    """``text`` with the syntax's operands as placeholders (``[d_tmem], a_desc, ...``) when it
    is a tcgen05 line of :data:`EXPLAINED` given without operands (``tcgen05.mma.cta_group::1
    .kind::f16``); ``None`` otherwise.  Optional operands are left out; A is a descriptor."""
    line = text.split("//", 1)[0].strip().rstrip(";").strip()
    if not line or any(c.isspace() for c in line):
        return None
    mnemonic = next((m for m in sorted(EXPLAINED, key=len, reverse=True)
                     if line == m or line.startswith(m + ".")), None)
    if mnemonic is None or not MODELS[mnemonic].operands:
        return None
    model = MODELS[mnemonic]
    q, _ = resolve(model, line[len(mnemonic) + 1:].split(".") if line != mnemonic else [])
    if model.operand_facts is not None:
        q = {**q, **model.operand_facts(["[d]", "a"])}
    ops = []
    for spec in present_operands(model, q, []):
        if spec.optional or (spec.when and not spec.present(q)):
            continue
        name = spec.name.replace("-", "_")
        ops.append(f"[{name}]" if spec.kind == "address" else name)
    return f"{line} {', '.join(ops)};"


def _role(name: str, text: str) -> str:
    from ...words.literals import parse_immediate

    v = parse_immediate(text)
    if name == "enable-input-d" and v is not None:
        return "D = A*B + D" if v else "D = A*B (the input D is ignored)"
    if name == "enable-input-d" and text.startswith("!"):
        return _ROLES[name] + " (negated)"
    if name == "scale-input-d" and v is not None:
        return f"D is scaled by 2^-{v} before the add"
    return _ROLES.get(name, "")

"""Fragment maps: which thread holds which element, for the instructions of
:mod:`descriptors.isa.instructions`.

* ``stmatrix`` -- :func:`stmatrix_map`: for each matrix, which thread gives which row address
  (9.7.14.5.16 table: threads ``8i .. 8i+7`` give the rows of matrix ``i``) and, for every
  element of shared memory the instruction writes, the thread (``lane``), ``register`` (index
  in the source vector, = matrix index) and ``half`` (16-bit half, 0 = low) or, for ``.b8``,
  ``byte`` (0 = least significant) that supplies it.

  - ``.m8n8 .b16`` (PTX Figure 107): without ``.trans``, thread ``t`` holds row ``t // 4``,
    columns ``2 (t % 4)`` (low half) and ``2 (t % 4) + 1`` (high half); with ``.trans`` the
    matrix is stored transposed: memory row ``R``, column ``C`` gets the element the fragment
    has at row ``C``, column ``R``.  Observed on an H100 (sm_90a) for x1/x2/x4 with and without
    ``.trans`` (``fixtures/hardware/stmatrix_map.*``).
  - ``.m16n8 .b8`` (``.trans`` mandatory; PTX Figure 108 is a picture the text does not
    transcribe): the fragment is a 16x8 matrix; thread ``t`` holds rows ``t // 4`` (bytes 0, 1)
    and ``t // 4 + 8`` (bytes 2, 3), columns ``2 (t % 4)`` and ``2 (t % 4) + 1``; stored
    transposed, as 8 rows of 16 bytes: memory row ``R``, byte ``C`` comes from thread
    ``4 (C % 8) + R // 2``, byte ``R % 2 + 2 (C // 8)``.  Source: CUTLASS
    ``cute/atom/copy_traits_sm100.hpp`` ``Copy_Traits<SM100_U8x{4,8,16}_STSM_T>`` (nvidia-cutlass
    4.2.0.0), whose bit maps this is; not observed on hardware (the H100 lacks ``.b8``).

  Coordinates are those of shared memory: ``row`` is the row whose address thread
  ``8 * matrix + row`` gives, ``col`` the element within it (16-bit elements for ``.b16``,
  bytes for ``.b8``).

* ``tcgen05.ld`` / ``tcgen05.st`` -- :func:`tcgen05_footprint`: the lanes and columns
  :func:`descriptors.isa.tmem.footprint` gives (relative to ``taddr``).
* ``wmma.load`` -- :func:`wmma_fragment`: PTX leaves the fragment layout unspecified
  ("Matrix Fragments for WMMA": the distribution of elements over threads is not given); what
  is specified is the vector size, the element type and the packing per register.
* ``wgmma.mma_async`` -- :func:`wgmma_form`: what the line computes (M x N x K, types, dense
  or ``.sp``), where A comes from, the register counts of d (and of A from registers), what
  each operand is and what its immediate means (9.7.15.5.2, 9.7.15.6).  The thread map of the
  fragments (9.7.15.5.1 figures) is not drawn.
"""

from __future__ import annotations

from typing import Any

from ..structs import Struct
from ..errors import ParameterError
from .instructions import (MODELS, WGMMA_A_TYPES, WGMMA_D_TYPES, WMMA_FRAGMENTS,
                           WMMA_REGISTER_TYPES, InstructionError, ParsedInstruction, legal_form,
                           parse_instruction, resolve, vector_size)

__all__ = ["StmatrixElement", "StmatrixMap", "WmmaFragment", "stmatrix_map", "wmma_fragment",
           "tcgen05_footprint", "explain_instruction", "STMATRIX_SOURCES", "WgmmaForm",
           "wgmma_form"]

#: Where each stmatrix map comes from.
STMATRIX_SOURCES: dict[tuple[str, str], str] = {
    ("m8n8", "b16"): "PTX 9.7.14.5.16 Figure 107 (observed on H100, sm_90a)",
    ("m16n8", "b8"): "PTX 9.7.14.5.16 Figure 108 as CUTLASS encodes it "
                     "(cute/atom/copy_traits_sm100.hpp, SM100_U8x{4,8,16}_STSM_T)",
}


class StmatrixElement(Struct, frozen=True):
    """One element written by stmatrix: ``matrix``, its shared-memory ``row`` and ``col``
    (elements of the row), and the ``lane``, ``register`` (vector index) and ``half`` (16-bit
    half, 0 = low; ``None`` for .b8) or ``byte`` (0 = LSB; ``None`` for .b16) holding it."""

    matrix: int
    row: int
    col: int
    lane: int
    register: int
    half: int | None = None
    byte: int | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"matrix": self.matrix, "row": self.row, "col": self.col,
                             "lane": self.lane, "register": self.register}
        if self.byte is None:
            d["half"] = self.half
        else:
            d["byte"] = self.byte
        return d


class StmatrixMap(Struct, frozen=True):
    """The map of one stmatrix form: ``matrices`` (1/2/4), ``rows`` x ``cols`` per matrix as
    stored, ``element_bits``, ``trans``, ``row_addresses`` ((matrix, row) -> lane),
    ``elements`` (matrix-major, row-major) and the ``source`` of the map."""

    instruction: str
    shape: str
    type: str
    trans: bool
    matrices: int
    rows: int
    cols: int
    element_bits: int
    row_addresses: dict[tuple[int, int], int]
    elements: tuple[StmatrixElement, ...]
    source: str
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"instruction": self.instruction, "shape": self.shape, "type": self.type,
                "trans": self.trans, "matrices": self.matrices, "rows": self.rows,
                "cols": self.cols, "element_bits": self.element_bits,
                "row_addresses": [{"matrix": m, "row": r, "lane": t}
                                  for (m, r), t in sorted(self.row_addresses.items())],
                "elements": [e.to_dict() for e in self.elements], "source": self.source,
                "notes": list(self.notes)}

    def at(self, matrix: int, row: int, col: int) -> StmatrixElement:
        return self.elements[(matrix * self.rows + row) * self.cols + col]


def _checked(text: str | ParsedInstruction, mnemonic: str) -> tuple[ParsedInstruction, dict]:
    p = text if isinstance(text, ParsedInstruction) else parse_instruction(text)
    if p.mnemonic != mnemonic:
        raise ParameterError(f"{p.mnemonic} is not {mnemonic}")
    legal_form(p, "has a fragment map")
    q, _ = resolve(MODELS[mnemonic], p.qualifiers)
    return p, q


def stmatrix_map(text: str | ParsedInstruction) -> StmatrixMap:
    """The fragment map of a stmatrix instruction (see the module docs for the formulas and
    their sources).  Raises :class:`~descriptors.isa.instructions.InstructionError` for a line
    that does not read or breaks a rule (only legal forms have a map), and for ``.x8``/``.x16``
    (ptxas assembles them, but PTX defines no map for them)."""
    p, q = _checked(text, "stmatrix")
    num = q["num"]
    if num not in ("x1", "x2", "x4"):
        raise InstructionError(f".{num}: PTX defines stmatrix for .x1/.x2/.x4 only (ptxas "
                               "assembles it, but no fragment map is given); descgen does not "
                               "guess one")
    matrices = int(num[1:])
    trans = q["trans"] is not None
    elements: list[StmatrixElement] = []
    if q["shape"] == "m8n8":
        rows, cols, bits = 8, 8, 16
        for i in range(matrices):
            for r in range(rows):
                for c in range(cols):
                    fr, fc = (c, r) if trans else (r, c)  # position in the fragment
                    elements.append(StmatrixElement(i, r, c, 4 * fr + fc // 2, i, half=fc % 2))
    else:  # m16n8 .b8, stored transposed as 8 rows of 16 bytes
        rows, cols, bits = 8, 16, 8
        for i in range(matrices):
            for r in range(rows):
                for c in range(cols):
                    elements.append(StmatrixElement(i, r, c, 4 * (c % 8) + r // 2, i,
                                                    byte=r % 2 + 2 * (c // 8)))
    addresses = {(i, r): 8 * i + r for i in range(matrices) for r in range(rows)}
    notes = []
    if trans:
        notes.append("with .trans the matrix is stored column-major: memory row R, column C "
                     "holds the fragment's row C, column R")
    return StmatrixMap(p.text, q["shape"], q["type"], trans, matrices, rows, cols, bits,
                       addresses, tuple(elements), STMATRIX_SOURCES[(q["shape"], q["type"])],
                       tuple(notes))


class WmmaFragment(Struct, frozen=True):
    """What PTX specifies about a wmma.load fragment: the matrix (a/b/c) and its ``rows`` x
    ``cols`` (a: MxK, b: KxN, c: MxN), ``registers`` per thread, ``register_types``,
    ``element_type`` and ``element_bits``, ``elements_per_register`` (packing) and
    ``elements_per_thread``; ``default_stride`` (elements: the leading dimension) and
    ``alignment_bytes`` (the fragment size: the address and ``stride x element size`` must be
    multiples of it), both PTX 9.7.14.4.2; ``layout_specified`` is always False."""

    instruction: str
    matrix: str
    shape: str
    layout: str
    element_type: str
    element_bits: int
    rows: int
    cols: int
    registers: int
    register_bits: int
    register_types: tuple[str, ...]
    elements_per_register: int
    elements_per_thread: int
    default_stride: int
    alignment_bytes: int
    note: str
    layout_specified: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"instruction": self.instruction, "matrix": self.matrix, "shape": self.shape,
                "layout": self.layout, "element_type": self.element_type,
                "element_bits": self.element_bits, "rows": self.rows, "cols": self.cols,
                "registers": self.registers, "register_bits": self.register_bits,
                "register_types": list(self.register_types),
                "elements_per_register": self.elements_per_register,
                "elements_per_thread": self.elements_per_thread,
                "default_stride": self.default_stride, "alignment_bytes": self.alignment_bytes,
                "layout_specified": self.layout_specified, "note": self.note}


_WMMA_NOTE = ("PTX does not specify which thread holds which element of a wmma fragment "
              "(9.7.14.4.1, Matrix Fragments for WMMA: the layout is unspecified and may differ "
              "between architectures); only the vector size, the element type and the packing "
              "per register are given")


def wmma_fragment(text: str | ParsedInstruction) -> WmmaFragment:
    """What is specified about the fragment a wmma.load fills (no thread map: PTX leaves it
    unspecified).  Raises :class:`~descriptors.isa.instructions.InstructionError` for a line that
    does not read or breaks a rule."""
    p, q = _checked(text, "wmma.load")
    matrix, shape, type_ = q["matrix"], q["shape"], q["type"]
    dims = dict(zip("mnk", (int(x) for x in shape[1:].replace("n", " ").replace("k", " ")
                                .split())))
    rows, cols = {"a": (dims["m"], dims["k"]), "b": (dims["k"], dims["n"]),
                  "c": (dims["m"], dims["n"])}[matrix]
    fam = next((f for f in WMMA_FRAGMENTS if shape in f.shapes and type_ in f.element_bits),
               None)
    bits = fam.element_bits[type_] if fam else 32  # the ptxas-only .f32 accumulator
    regs = vector_size(MODELS["wmma.load"], q) or 0
    reg_bits = 64 if type_ == "f64" else 32
    per_reg = reg_bits // bits
    stride = MODELS["wmma.load"].stride(q)
    assert stride is not None  # a legal form has a fragment
    return WmmaFragment(p.text, matrix, shape, q["layout"], type_, bits, rows, cols, regs,
                        reg_bits, WMMA_REGISTER_TYPES[type_], per_reg, per_reg * regs,
                        stride[0], stride[2], _WMMA_NOTE)


def tcgen05_footprint(text: str | ParsedInstruction, taddr: int | str = 0,
                      imm_half_splitoff: int | None = None):
    """:func:`descriptors.isa.tmem.footprint` of a tcgen05.ld/st line at ``taddr`` (default lane 0,
    column 0; the line's ``taddr`` is a register).  ``immHalfSplitoff`` comes from the line."""
    from . import tmem
    p = text if isinstance(text, ParsedInstruction) else parse_instruction(text)
    if p.mnemonic not in ("tcgen05.ld", "tcgen05.st"):
        raise ParameterError(f"{p.mnemonic} is not tcgen05.ld/st")
    p, q = _checked(p, p.mnemonic)
    op = p.mnemonic.split(".")[1]
    imm = imm_half_splitoff
    if q["shape"] == "16x32bx2" and imm is None:
        from ..words.literals import parse_immediate
        model = MODELS[p.mnemonic]
        specs = [s for s in model.operands if s.present(q)]
        for spec, (t, _) in zip(specs, p.operands):
            if spec.name == "immHalfSplitoff":
                imm = parse_immediate(t)
    return tmem.footprint(op, q["shape"], q["num"], taddr,
                          pack=q.get("pack") is not None, unpack=q.get("unpack") is not None,
                          red=q.get("redOp") if q.get("red") else None,
                          red_type=q.get("type") if q.get("red") else "f32",
                          imm_half_splitoff=imm)


class WgmmaForm(Struct, frozen=True):
    """What a wgmma.mma_async line computes: ``m`` x ``n`` x ``k`` (``sparse``: A is M x K/2
    packed, 9.7.15.6), the types, ``a_source`` (``descriptor`` or ``registers``), the d
    registers per thread and their types, A's registers (0 from a descriptor), the operands
    (name, text, meaning) and notes."""

    instruction: str
    m: int
    n: int
    k: int
    sparse: bool
    dtype: str
    atype: str
    btype: str
    satfinite: bool
    a_source: str
    d_registers: int
    d_register_types: tuple[str, ...]
    a_registers: int
    a_register_types: tuple[str, ...]
    operands: tuple[tuple[str, str, str], ...]
    notes: tuple[str, ...]
    arch: str = "sm_90a"

    def to_dict(self) -> dict[str, Any]:
        return {"instruction": self.instruction, "m": self.m, "n": self.n, "k": self.k,
                "sparse": self.sparse, "dtype": self.dtype, "atype": self.atype,
                "btype": self.btype, "satfinite": self.satfinite, "a_source": self.a_source,
                "d_registers": self.d_registers,
                "d_register_types": list(self.d_register_types),
                "a_registers": self.a_registers,
                "a_register_types": list(self.a_register_types),
                "operands": [{"name": n, "text": t, "meaning": m} for n, t, m in self.operands],
                "arch": self.arch, "notes": list(self.notes)}


def _wgmma_meaning(name: str, text: str, atype: str) -> str:
    from ..words.literals import parse_immediate
    v = parse_immediate(text)
    if name == "d":
        return "the accumulator D (read unless scale-d is false, then written)"
    if name == "a":
        return "A from registers (the fragment of 9.7.15.5.1)"
    if name in ("a-desc", "b-desc"):
        return (f"the shared-memory matrix descriptor of {name[0].upper()} (a 64-bit word: "
                "descgen decode --arch sm_90a WORD)")
    if name == "sp-meta":
        return "the sparsity metadata of A (9.7.15.6.1)"
    if name == "sp-sel":
        return (f"sparsity selector {v}: which threads of each group of four hold the "
                "metadata (9.7.15.6.1)")
    if name == "scale-d":
        if v is not None:
            return "D = A*B + D" if v else "D = A*B (the input D is ignored)"
        return ("D = A*B + D where the predicate is true, D = A*B where false"
                + (" (negated)" if text.startswith("!") else ""))
    if name.startswith("imm-scale"):
        return f"{name[-1].upper()} is {'negated' if v == -1 else 'taken as is'}"
    if name.startswith("imm-trans"):
        return f"{name[-1].upper()} is {'transposed' if v == 1 else 'not transposed'}"
    return ""


def wgmma_form(text: str | ParsedInstruction) -> WgmmaForm:
    """What a legal wgmma.mma_async line computes and what each operand is (see the module
    docs).  Raises :class:`~descriptors.isa.instructions.InstructionError` for a line that does
    not read or breaks a rule."""
    p, q = _checked(text, "wgmma.mma_async")
    model = MODELS["wgmma.mma_async"]
    ops = [t for t, _ in p.operands]
    q = {**q, **(model.operand_facts(ops) if model.operand_facts else {})}
    specs = [sp for sp in model.operands if sp.present(q)]
    shape = q["shape"] or ""
    m, n, k = (int(x) for x in shape[1:].replace("n", " ").replace("k", " ").split())
    d_spec = next(sp for sp in specs if sp.name == "d")
    a_spec = next(sp for sp in specs if sp.name in ("a", "a-desc"))
    a_regs = a_spec.size(q) if a_spec.size is not None else 0
    atype = q["atype"] or ""
    notes = [f"{m} x {n} x {k}: each of the warpgroup's 128 threads holds {m * n // 128} "
             f"elements of D in {d_spec.size(q) if d_spec.size else 0} 32-bit registers"]
    if q["sp"]:
        notes.append(f"sparse: A is {m} x {k} with 50% zeros, stored packed as {m} x {k // 2} "
                     "(9.7.15.6)")
    notes.append("the thread layout of the fragments (9.7.15.5.1 figures) is not drawn here")
    return WgmmaForm(
        p.text, m, n, k, q["sp"] is not None, q["dtype"] or "", atype, q["btype"] or "",
        q["satfinite"] is not None, "registers" if q["a_src"] == "reg" else "descriptor",
        d_spec.size(q) or 0 if d_spec.size else 0, WGMMA_D_TYPES[q["dtype"] or "f32"],
        a_regs or 0, WGMMA_A_TYPES[atype] if q["a_src"] == "reg" else ("b64", "u64", "s64"),
        tuple((sp.name, t, _wgmma_meaning(sp.name, t, atype)) for sp, t in zip(specs, ops)),
        tuple(notes))


def explain_instruction(text: Any, **kw: Any) -> StmatrixMap | WmmaFragment | WgmmaForm | Any:
    """The map of any modelled instruction: a :class:`StmatrixMap`, a :class:`WmmaFragment`,
    a :class:`WgmmaForm`, a :class:`~descriptors.isa.tmem.Footprint` (tcgen05.ld/st) or a
    :class:`~descriptors.isa.instructions.forms.Tcgen05Form` (tcgen05.mma, cp, commit,
    alloc, dealloc, relinquish_alloc_permit)."""
    p = parse_instruction(text)
    if p.mnemonic == "stmatrix":
        return stmatrix_map(p)
    if p.mnemonic == "wmma.load":
        return wmma_fragment(p)
    if p.mnemonic == "wgmma.mma_async":
        return wgmma_form(p)
    if p.mnemonic not in ("tcgen05.ld", "tcgen05.st"):  # tcgen05.mma, cp, commit, alloc ...
        from .instructions.forms import tcgen05_form
        return tcgen05_form(p)
    return tcgen05_footprint(p, **kw)

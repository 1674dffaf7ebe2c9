"""The Construct definitions of every descriptor word (tcgen05's, and sm_90's wgmma matrix
descriptor): the single source of truth.

Each layout lists its fields **LSB first**, exactly as the PTX table does, one
``"name" / BitsInteger(width) * "doc"`` per field; a run of fields that several words hold at
the same bits (the matrix descriptors' addresses, the instruction descriptors' negate,
transpose and N) is written once and spliced in with ``*``.  A ``Default(...)`` is a fixed constant;
an unnamed field is reserved and is named ``reserved_<lsb>``.  Every bit of every word belongs
to exactly one field, so decoding never loses a bit.  Bit positions, widths, masks, the fast
codecs and the bit diagrams are all derived from these declarations by
:func:`descriptors.words.bits.register`; nothing else in descgen writes a bit position.

``print(SMEM.__doc__)`` (or ``descgen layout``-style tools) shows the derived bit diagram.

The declarations run when construct is needed; the layouts themselves come from
``layouts.derived.json`` while it matches this file (see :mod:`descriptors.words.bits`).  After
editing a declaration, rewrite that table with ``python -m descriptors.words.layouts``.
"""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path
from typing import Any

from .bits import BitLayout, derived_table, load, register, reserved

__all__ = ["SMEM", "IDESC", "IDESC_MXF8F6F4", "IDESC_MXF4", "ZCM", "TMEM", "WGMMA", "LAYOUTS"]

_BLOCK_SCALED_ALIASES = {
    "sparse_flag": "sparse", "a_format": "a_type", "b_format": "b_type",
    "a_negate": "negate_a", "b_negate": "negate_b", "a_major": "transpose_a",
    "b_major": "transpose_b", "scale_format": "scale_type", "a_sf_id": "a_scale_id",
    "b_sf_id": "b_scale_id",
}


@cache
def declarations() -> tuple[BitLayout, ...]:
    """Every layout from its Construct definition, in :data:`LAYOUTS` order (imports
    construct; :func:`descriptors.words.bits.load` runs this only when the derived table is stale,
    and :attr:`BitLayout.struct` on first use).  Run once per process (``cache``), so that each
    layout has one Construct definition: ``SMEM.struct is declarations()[0].struct``.

    (Long: a table -- one Construct declaration per word, field by field.)"""
    from construct import BitsInteger, Default

    def matrix_start_and_offsets(lbo_doc: str) -> tuple[Any, ...]:
        """Bits 0-45 of both shared memory matrix descriptors (Table 40; the wgmma one,
        9.7.15.5.1): the start address and the two byte offsets, 16-byte units."""
        return (
            "start_address" / BitsInteger(14)
            * "Matrix start address: (bytes & 0x3FFFF) >> 4, in 16-byte units",
            reserved(2, "Unused, 0"),
            "leading_byte_offset" / BitsInteger(14) * lbo_doc,
            reserved(2, "Unused, 0"),
            "stride_byte_offset" / BitsInteger(14)
            * "Stride dimension byte offset, in 16-byte units",
        )

    def negate_transpose_n(transpose_doc: str) -> tuple[Any, ...]:
        """Bits 13-22 of every instruction descriptor (Tables 42-44): negate and transpose A
        and B, and N."""
        return (
            "negate_a" / BitsInteger(1) * "Negate A: 0 no, 1 yes",
            "negate_b" / BitsInteger(1) * "Negate B: 0 no, 1 yes",
            "transpose_a" / BitsInteger(1) * f"Transpose A: {transpose_doc}",
            "transpose_b" / BitsInteger(1) * f"Transpose B: {transpose_doc}",
            "n_dim" / BitsInteger(6) * "N >> 3 (dimension of matrix B)",
        )

    # Shared memory (matrix) descriptor, 64 bits -- PTX Table 40.
    smem = register(
        "smem", 64, "Table 40", "Shared memory descriptor",
        *matrix_start_and_offsets("Leading dimension byte offset (lbo_mode 0) or byte address "
                                  "(lbo_mode 1), in 16-byte units"),
        "fixed_constant" / Default(BitsInteger(3), 0b001)
        * "Fixed constant 0b001 (CUTLASS: version_ = 1)",
        "base_offset" / BitsInteger(3)
        * "Matrix base offset: (pattern start address >> 7) & 7 when not on the swizzle repeat",
        "lbo_mode" / BitsInteger(1)
        * "Leading dimension stride mode: 0 relative byte offset, 1 absolute byte address",
        "fixed_zero" / Default(BitsInteger(8), 0)
        * "Fixed constant 0",
        "swizzle" / BitsInteger(3)
        * "Swizzling mode: 0 none, 1 128B with 32B atomicity, 2 128B, 4 64B, 6 32B (3, 5, 7 invalid)",
        aliases={"layout_type": "swizzle", "version": "fixed_constant",
                 "leading_byte_offset_mode": "lbo_mode", "lbo": "leading_byte_offset",
                 "sbo": "stride_byte_offset"},
    )

    # Instruction descriptor for .kind::tf32, f16, f8f6f4 and i8, 32 bits -- PTX Table 42.
    idesc = register(
        "idesc", 32, "Table 42", "Instruction descriptor (kind::tf32, f16, f8f6f4, i8)",
        "sparsity_selector" / BitsInteger(2) * "Sparsity selector (metadata ID), if sparse",
        "sparse" / BitsInteger(1) * "Sparsity: 0 dense, 1 sparse",
        "saturate" / BitsInteger(1) * "Saturate for integer types (kind::i8 only)",
        "d_type" / BitsInteger(2) * "Matrix D type: 0 F16, 1 F32, 2 S32",
        reserved(1),
        "a_type" / BitsInteger(3) * "Matrix A type (code depends on the kind)",
        "b_type" / BitsInteger(3) * "Matrix B type (code depends on the kind)",
        *negate_transpose_n("0 K-major, 1 MN-major"),
        reserved(1),
        "m_dim" / BitsInteger(5) * "M >> 4 (dimension of matrix A)",
        reserved(1),
        "max_shift" / BitsInteger(2) * "Maximum B-reuse shift for .ws: 0 none, 1 8, 2 16, 3 32",
        aliases={"sparse_id2": "sparsity_selector", "sparse_flag": "sparse",
                 "c_format": "d_type", "a_format": "a_type", "b_format": "b_type",
                 "a_negate": "negate_a", "b_negate": "negate_b",
                 "a_major": "transpose_a", "b_major": "transpose_b"},
    )

    # Instruction descriptor for .kind::mxf8f6f4, 32 bits -- PTX Table 43.
    idesc_mxf8f6f4 = register(
        "idesc_mxf8f6f4", 32, "Table 43", "Instruction descriptor (kind::mxf8f6f4)",
        reserved(2, "Reserved, 0 (CUTLASS: sparse_id2)"),
        "sparse" / BitsInteger(1) * "Sparsity: 0 dense, 1 sparse",
        reserved(1),
        "b_scale_id" / BitsInteger(2) * "Matrix B scale factor data ID (0-3)",
        reserved(1),
        "a_type" / BitsInteger(3) * "Matrix A type: E4M3 0, E5M2 1, E2M3 3, E3M2 4, E2M1 5",
        "b_type" / BitsInteger(3) * "Matrix B type: E4M3 0, E5M2 1, E2M3 3, E3M2 4, E2M1 5",
        *negate_transpose_n("0 K-major, 1 MN-major"),
        "scale_type" / BitsInteger(1) * "Scale matrix type for scale_A and scale_B: 1 UE8M0",
        reserved(3, "Reserved, 0 (CUTLASS writes M >> 4 into bits 24-28)"),
        "m_dim" / BitsInteger(2) * "M >> 7 (dimension of matrix A)",
        "a_scale_id" / BitsInteger(2) * "Matrix A scale factor data ID (0-3)",
        reserved(1, "Reserved, 0 (CUTLASS: k_size)"),
        aliases=_BLOCK_SCALED_ALIASES,
    )

    # Instruction descriptor for .kind::mxf4 and .kind::mxf4nvf4, 32 bits -- PTX Table 44.
    idesc_mxf4 = register(
        "idesc_mxf4", 32, "Table 44", "Instruction descriptor (kind::mxf4, mxf4nvf4)",
        reserved(2, "Reserved, 0 (CUTLASS: sparse_id2)"),
        "sparse" / BitsInteger(1) * "Sparsity: 0 dense, 1 sparse",
        reserved(1),
        "b_scale_id" / BitsInteger(2) * ("Matrix B scale factor data ID (0 or 2; 4X: 0; "
                                                  "K=96: block32 0-3, block16 0 or 2)"),
        reserved(1),
        "a_type" / BitsInteger(3) * "Matrix A type: E2M1 1",
        "b_type" / BitsInteger(2) * "Matrix B type: E2M1 1",
        reserved(1),
        *negate_transpose_n("0 K-major (only)"),
        "scale_type" / BitsInteger(1) * "Scale matrix type: 1 UE8M0, 0 UE4M3 (mxf4nvf4 only)",
        reserved(3, "Reserved, 0 (CUTLASS writes M >> 4 into bits 24-28)"),
        "m_dim" / BitsInteger(2) * "M >> 7 (dimension of matrix A)",
        "a_scale_id" / BitsInteger(2) * ("Matrix A scale factor data ID (0 or 2; 4X: 0; "
                                                  "K=96: block32 0-3, block16 0 or 2)"),
        "k_dim" / BitsInteger(1) * "K dimension: 0 dense K=64 / sparse K=128, 1 dense K=96 (sm_103a)",
        aliases={**_BLOCK_SCALED_ALIASES, "k_size": "k_dim"},
    )

    # Zero-column mask descriptor of tcgen05.mma.ws, 64 bits -- PTX Table 45.
    zcm = register(
        "zcm", 64, "Table 45", "Zero-column mask descriptor",
        *(f"start_count_{i}" / BitsInteger(8)
          * f"Start count sc{i}: leading positions skipped in sub-mask {i}" for i in range(4)),
        *(f"first_span_{i}" / BitsInteger(1)
          * f"First span fs{i}: sub-mask {i} starts with 0 a use span, 1 a skip span"
          for i in range(4)),
        reserved(3),
        "non_zero_mask" / BitsInteger(1) * "Non-zero mask: 0 mask is all zeros (all B columns used), 1 generate",
        "skip_span" / BitsInteger(8)
        * "Consecutive zeroed columns (mask bit 1) - 1 (PTX text swaps skip/use; its examples rule)",
        "use_span" / BitsInteger(8) * "Consecutive used B columns (mask bit 0) - 1",
        "column_shift" / BitsInteger(6) * "Column shift of B: max 16 for M=32, 32 otherwise",
        reserved(2),
        aliases={"nzm": "non_zero_mask", "shift": "column_shift", "sc0": "start_count_0",
                 "sc1": "start_count_1", "sc2": "start_count_2", "sc3": "start_count_3",
                 "fs0": "first_span_0", "fs1": "first_span_1", "fs2": "first_span_2",
                 "fs3": "first_span_3"},
    )

    # Tensor Memory address, 32 bits -- PTX 9.7.16.1.1.
    tmem = register(
        "tmem", 32, "9.7.16.1.1", "Tensor Memory address",
        "column" / BitsInteger(16) * "Column index (32-bit cells; 512 columns on sm_100)",
        "lane" / BitsInteger(16)
        * "Lane index (128 lanes on sm_100; CUTLASS keeps a sub-word byte index in bits 31-30)",
    )

    # wgmma matrix descriptor (sm_90a), 64 bits -- PTX ISA 9.7.15.5.1; CUTLASS GmmaDescriptor.
    wgmma = register(
        "wgmma", 64, "9.7.15.5.1", "wgmma matrix descriptor (sm_90a)",
        *matrix_start_and_offsets("Leading dimension byte offset, in 16-byte units"),
        reserved(3, "Unused, 0 (tcgen05's fixed constant 0b001 sits here on sm_100)"),
        "base_offset" / BitsInteger(3)
        * "Matrix base offset: the swizzle pattern's phase, 0 when it starts on its repeat",
        reserved(10, "Unused, 0"),
        "swizzle" / BitsInteger(2)
        * "Swizzle mode (CUTLASS layout_type): 0 none (interleave), 1 128B, 2 64B, 3 32B",
        aliases={"layout_type": "swizzle", "lbo": "leading_byte_offset",
                 "sbo": "stride_byte_offset"},
    )

    return smem, idesc, idesc_mxf8f6f4, idesc_mxf4, zcm, tmem, wgmma


_HERE = Path(__file__).resolve().parent
#: The table :func:`declarations` derives, written by ``python -m descriptors.words.layouts``.
DERIVED_TABLE = "layouts.derived.json"

#: Shared memory (matrix) descriptor, 64 bits -- PTX Table 40.  Instruction descriptor for
#: .kind::tf32, f16, f8f6f4 and i8, 32 bits -- Table 42; for .kind::mxf8f6f4 -- Table 43; for
#: .kind::mxf4 and .kind::mxf4nvf4 -- Table 44.  Zero-column mask descriptor of tcgen05.mma.ws,
#: 64 bits -- Table 45.  Tensor Memory address, 32 bits -- 9.7.16.1.1.
#: The wgmma matrix descriptor (sm_90a), 64 bits -- PTX ISA 9.7.15.5.1.
SMEM, IDESC, IDESC_MXF8F6F4, IDESC_MXF4, ZCM, TMEM, WGMMA = load(declarations, _HERE, DERIVED_TABLE)

#: Every layout by name.
LAYOUTS: dict[str, BitLayout] = {lay.name: lay for lay in (SMEM, IDESC, IDESC_MXF8F6F4, IDESC_MXF4, ZCM,
                                                        TMEM, WGMMA)}


if __name__ == "__main__":  # python -m descriptors.words.layouts: rewrite the derived table
    (_HERE / DERIVED_TABLE).write_text(derived_table(declarations(), _HERE), encoding="utf-8")
    sys.stdout.write(f"wrote {_HERE / DERIVED_TABLE}\n")

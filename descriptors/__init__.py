"""descgen: bit-exact encoder and decoder for NVIDIA Blackwell ``tcgen05`` descriptors.

The four descriptor families (PTX ISA 9.7.16):

* ``smem``  -- 64-bit shared memory (matrix) descriptor, PTX Table 40;
* ``idesc`` -- 32-bit instruction descriptor, Tables 42 (tf32/f16/f8f6f4/i8), 43 (mxf8f6f4)
  and 44 (mxf4/mxf4nvf4), selected by ``kind``;
* ``zcm``   -- 64-bit zero-column mask descriptor of ``tcgen05.mma.ws``, Table 45;
* ``tmem``  -- 32-bit Tensor Memory address (lane 31-16, column 15-0), 9.7.16.1.1.

>>> import descriptors
>>> hex(descriptors.encode("idesc", kind="f16", a_type="bf16", b_type="bf16", d_type="f32",
...                        m=128, n=256))
'0x8400490'
>>> descriptors.decode("idesc", 0x08400490, kind="f16").values["n"]
256

Many words at once: :func:`decode_many` (columns of raw fields, vectorised with NumPy when
installed) and :func:`encode_many`.

Every error is a :class:`DescgenError`.
"""

from .bits import Field, Layout
from .bulk import decode_many, encode_many
from .codec import (DESCRIPTORS, PARAMETERS, Decoded, decode, encode, encode_raw, format_word,
                    layout_for, parse_int, readings, word_bits)
from .enums import KINDS, Kind
from .errors import (BatchError, DescgenError, FieldError, InvalidDescriptorError,
                     KindRequiredError, LayoutError, ParameterError, WordError)
from .layouts import IDESC, IDESC_MXF4, IDESC_MXF8F6F4, LAYOUTS, SMEM, TMEM, ZCM
from .validate import ARCHES, RULES, Finding, is_valid, validate, validate_pair

__version__ = "0.1.0"

# Modules that pull in rich and friends load on first use, so `import descriptors` stays light
# for generators (PEP 562).
_LAZY = {"dump": (".dump", None), "zcm": (".zcm", None), "tmem": (".tmem", None),
         "smem_layout": (".smem_layout", None), "printer": (".printer", None),
         "KStepCarryError": (".smem_layout", "KStepCarryError"),
         "layout_descriptor": (".smem_layout", "layout_descriptor"),
         "explain_descriptor": (".smem_layout", "explain_descriptor"),
         "cute": (".cute", None), "cute_layout": (".cute_layout", None),
         "cute_descriptor": (".cute_layout", "cute_descriptor"),
         "cute_layout_descriptor": (".cute_layout", "cute_layout_descriptor")}


def __getattr__(name: str) -> object:
    if name not in _LAZY:
        raise AttributeError(f"module 'descriptors' has no attribute {name!r}")
    import importlib
    module_name, attr = _LAZY[name]
    module = importlib.import_module(module_name, __name__)
    return module if attr is None else getattr(module, attr)

__all__ = [
    "DESCRIPTORS", "PARAMETERS", "KINDS", "LAYOUTS", "Kind", "Field", "Layout", "Decoded",
    "encode", "encode_raw", "decode", "encode_many", "decode_many", "readings", "layout_for", "format_word", "word_bits",
    "parse_int", "SMEM", "IDESC", "IDESC_MXF8F6F4", "IDESC_MXF4", "ZCM", "TMEM",
    "DescgenError", "ParameterError", "FieldError", "WordError", "KindRequiredError",
    "BatchError", "InvalidDescriptorError", "validate", "validate_pair", "is_valid", "Finding",
    "RULES", "ARCHES", "LayoutError", "KStepCarryError", "layout_descriptor",
    "explain_descriptor", "cute_descriptor", "cute_layout_descriptor", "__version__",
]

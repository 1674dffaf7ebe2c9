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

``encode`` applies the rules of the PTX text, as the command line does, and raises
:class:`InvalidDescriptorError` for a word that breaks one (``check=False``: the raw packing):

>>> descriptors.encode("idesc", kind="f16", a_type="bf16", b_type="bf16", m=128, n=264)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
descriptors.errors.InvalidDescriptorError: idesc 0x08420490 breaks a rule of the PTX text: ...
>>> hex(descriptors.encode("idesc", kind="f16", a_type="bf16", b_type="bf16", m=128, n=264,
...                        check=False))
'0x8420490'

Many words at once: :func:`decode_many` (columns of raw fields, vectorised with NumPy when
installed) and :func:`encode_many`.

Every error is a :class:`DescgenError`.
"""

from typing import TYPE_CHECKING

__version__ = "0.1.0"

# Every public name loads on first use (PEP 562): `import descriptors` costs nothing, and a
# command-line call loads only the modules it uses (`descgen idesc` never loads rich, the
# dump scanner or the layout solver).  Each name is defined once, in the module listed here.
_LAZY: dict[str, tuple[str, str | None]] = {
    **{n: (".words.bits", n) for n in ("Field", "BitLayout", "Layout")},
    **{n: (".words.bulk", n) for n in ("decode_many", "encode_many")},
    **{n: (".words.codec", n) for n in ("DESCRIPTORS", "PARAMETERS", "Decoded", "decode",
                                   "encode_raw", "format_word", "layout_for", "parse_int",
                                   "readings", "word_bits")},
    **{n: (".words.enums", n) for n in ("KINDS", "Kind")},
    **{n: (".errors", n) for n in ("BatchError", "DescgenError", "FieldError", "InputError",
                                    "InvalidDescriptorError", "KindRequiredError", "LayoutError",
                                    "ParameterError", "ToolNotFoundError", "WordError")},
    **{n: (".words.layouts", n) for n in ("IDESC", "IDESC_MXF4", "IDESC_MXF8F6F4", "LAYOUTS", "SMEM",
                                     "TMEM", "ZCM")},
    "encode": (".rules.encoding", "encode"),
    **{n: (".rules.validate", n) for n in ("ARCHES", "RULES", "Finding", "is_valid", "validate",
                                      "validate_pair")},
    **{n: (".layout.smem_layout", n) for n in ("KStepCarryError", "layout_descriptor",
                                         "explain_descriptor")},
    **{n: (".layout.cute_layout", n) for n in ("cute_descriptor", "cute_layout_descriptor")},
    # the submodules README ("Package layout") names as attributes of the package
    # (``descriptors.zcm.synthesise(...)``); an import, and the package's own code, use the
    # module's real path (``descriptors.words.zcm``)
    **{n: (f".{pkg}.{n}", None) for pkg, names in (
        ("words", ("zcm",)), ("isa", ("tmem", "instructions", "fragments")),
        ("layout", ("smem_layout", "cute", "cute_layout")),
        ("tools", ("dump", "lint")), ("render", ("printer",))) for n in names},
}

if TYPE_CHECKING:  # what the lazy table gives, for type checkers and IDEs
    from .words.bits import BitLayout, Field, Layout
    from .words.bulk import decode_many, encode_many
    from .words.codec import (DESCRIPTORS, PARAMETERS, Decoded, decode, encode_raw,
                        format_word, layout_for, parse_int, readings, word_bits)
    from .rules.encoding import encode
    from .layout.cute_layout import cute_descriptor, cute_layout_descriptor
    from .words.enums import KINDS, Kind
    from .errors import (BatchError, DescgenError, FieldError, InputError,
                         InvalidDescriptorError, KindRequiredError, LayoutError, ParameterError,
                         ToolNotFoundError, WordError)
    from .words.layouts import IDESC, IDESC_MXF4, IDESC_MXF8F6F4, LAYOUTS, SMEM, TMEM, ZCM
    from .layout.smem_layout import KStepCarryError, explain_descriptor, layout_descriptor
    from .rules.validate import ARCHES, RULES, Finding, is_valid, validate, validate_pair


def __getattr__(name: str) -> object:
    try:
        module_name, attr = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'descriptors' has no attribute {name!r}") from None
    import importlib
    module = importlib.import_module(module_name, __name__)
    value = module if attr is None else getattr(module, attr)
    globals()[name] = value  # the next access is a plain module attribute
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


__all__ = [
    "DESCRIPTORS", "PARAMETERS", "KINDS", "LAYOUTS", "Kind", "Field", "BitLayout", "Layout", "Decoded",
    "encode", "encode_raw", "decode", "encode_many", "decode_many", "readings", "layout_for", "format_word", "word_bits",
    "parse_int", "SMEM", "IDESC", "IDESC_MXF8F6F4", "IDESC_MXF4", "ZCM", "TMEM",
    "DescgenError", "ParameterError", "FieldError", "WordError", "KindRequiredError",
    "BatchError", "InvalidDescriptorError", "validate", "validate_pair", "is_valid", "Finding",
    "RULES", "ARCHES", "LayoutError", "InputError", "ToolNotFoundError", "KStepCarryError", "layout_descriptor",
    "explain_descriptor", "cute_descriptor", "cute_layout_descriptor", "__version__",
]

"""One diagnostic type for everything descgen reports, with one formatter per output: a word's
finding (``validate``) and a located one (``lint``, the cuda-gdb path) are the same class, and
``str()`` / ``to_dict()`` write each in its shape."""

from descriptors.rules.diagnostics import Diagnostic
from descriptors.rules.validate import validate
from descriptors.tools.lint import lint_lines

PTX = """.version 9.0
.target sm_100a
.address_size 64
.visible .entry k()
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    mov.b32 %r1, 0x08400490;
    mov.b64 %rd1, 0;
    mov.b64 %rd2, 0;
    mov.b32 %r2, 0;
    tcgen05.mma.cta_group::1.kind::f16 [%r2], %rd1, %rd2, %r1, 1;
    ret;
}
"""


def test_a_word_finding_and_a_lint_finding_are_one_type():
    word = validate("idesc", 0x08400490 | (1 << 2), kind="f16")  # sparsity bit on
    found = list(lint_lines(PTX.splitlines(), file="k.ptx"))
    assert word and found
    assert {type(f) for f in word + found} == {Diagnostic}


def test_the_text_formatter_writes_each_shape():
    word = Diagnostic("error", "idesc.n", "N is not a multiple of 8", "PTX ISA Table 44", "n",
                      "[22:17]", 33)
    assert str(word) == "error: [idesc.n] n[22:17]: N is not a multiple of 8 (PTX ISA Table 44)"
    at = Diagnostic("warning", "lint.kind", "why", file="k.sass", line=12, col=5)
    assert str(at) == "k.sass:12:5: warning: [lint.kind] why"
    whole = Diagnostic("note", "lint.arch", "which target", file="k.sass")
    assert str(whole) == "k.sass: note: [lint.arch] which target"


def test_the_json_formatter_writes_each_shape():
    word = Diagnostic("error", "idesc.n", "m", "Table 44", "n", "[22:17]", 33)
    assert list(word.to_dict()) == ["severity", "rule", "message", "source", "field", "bits",
                                    "value"]
    at = Diagnostic("note", "lint.runtime", "m", file="k.ptx", line=3, col=9, instruction="i",
                    operand="idesc", word="0x1", evidence=("e",))
    assert at.to_dict() == {"file": "k.ptx", "line": 3, "col": 9, "severity": "note",
                            "rule": "lint.runtime", "message": "m", "instruction": "i",
                            "operand": "idesc", "word": "0x1", "evidence": ["e"]}

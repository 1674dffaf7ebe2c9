"""PTX modules and SASS listings: the immediates the code materialises and the words that
reach an MMA's operands (:attr:`descriptors.readers.Instruction.site`), named by the MMA
that reads them."""


from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any

from ...isa.sites import IdescContext
from ...rules.validate import ARCHES
from .score import (MMA_OPERAND, Candidate, FoundWord, Hint, candidates_for, evidence_plan,
                    evidence_signature, is_reported, make_finding, may_report, on_arch,
                    scored_readings, with_evidence)


#: Readings of words no text names kept by one PTX scan (they depend on the word only).
_PTX_PLAIN_MEMO = 1 << 14


def scan_code(lines: Iterable[str], dialect: str, as_: str | None, context: IdescContext | None,
               arch: str | None, min_confidence: float, window: int, first_line: int = 1
               ) -> Iterator[FoundWord]:
    """PTX or SASS, through the reader of the dialect (:mod:`descriptors.readers.ptx`,
    :mod:`descriptors.readers.sass`, the same facts ``descgen lint`` judges): the immediates
    the code materialises (``mov.b32 %r37, 138413200;``, ``UMOV UR5, 0x8400490``) and the
    constant operands of every MMA.  An immediate that reaches an MMA operand (the line that
    defined the operand's value, on any path) is named by it: the family, and for an
    instruction descriptor the kinds the instruction serves (PTX ``.kind::``; a SASS opcode's
    kinds, :data:`descriptors.readers.sass.SASS_MMA`).  A SASS shared memory descriptor is a
    register pair: a constant pair is one 64-bit word at the MMA (its upper half's immediate
    is not reported again); a pair known in part names the immediate of its upper half.  An
    operand no immediate made is reported when it is known: each of its alternatives that is
    (``selp`` ... ``or``: every word).  Hopper's MMAs (SASS ``HGMMA``/``IGMMA``/``QGMMA``/
    ``BGMMA``, PTX ``wgmma.mma_async``) name their A and B descriptors alike, as wgmma words.
    Each word is read for ``arch``, or (``None``) for the target its code names (the
    reader's ``arch`` of each fact and instruction), else :data:`DEFAULT_ARCH`'s families.
    ``context``: the kind the user named (``descgen dump --kind``), which overrides the MMA's."""
    from ...readers import Fact
    from ...readers.ptx import read_ptx
    from ...readers.sass import read_sass

    items = read_ptx(lines) if dialect == "ptx" else read_sass(lines, first_line)
    words = _CodeWords(dialect, as_, context, arch, min_confidence)
    for item in items:
        line = item.line
        if words.pending and words.pending[0].line < line - window:
            yield from words.due(line - window)  # waited the window out: no later MMA names it
        if item.__class__ is Fact:
            if item.use == "immediate":
                v = item.value  # type: ignore[union-attr]
                words.add(line, item.text, v.one, 64 if v.width == 64 else 32, [], None, None,
                          item.register, words.target(item.arch))  # type: ignore[union-attr]
        elif item.site is not None and item.site.mma:  # type: ignore[union-attr]
            words.mma(item)
    yield from words.due(1 << 62)  # the end: every word is due


class _Word:
    """A word the code holds, waiting for an MMA that names it: ``line`` and ``text`` where it
    is; ``word`` (``None``: a SASS half taken into its 64-bit pair) and ``size`` in bits;
    the evidence naming it (``hints``); the idesc context the MMA gives (``context``: an
    :class:`~descriptors.isa.sites.IdescContext`); ``value``, the known bits of an MMA operand
    (their pattern is added to the text when the word is reported; ``None`` for an
    immediate); the ``register`` it is written to; ``arch``, the target it is read for."""

    __slots__ = ("line", "text", "word", "size", "hints", "context", "value", "register", "arch")

    def __init__(self, line: int, text: str, word: int | None, size: int, hints: list[Hint],
                 context: IdescContext | None, value: Any, register: str | None,
                 arch: str | None) -> None:
        self.line, self.text, self.word, self.size, self.hints = line, text, word, size, hints
        self.context, self.value, self.register, self.arch = context, value, register, arch


class _CodeWords:
    """The words of one PTX or SASS input (:func:`scan_code`): each waits (``pending``, and
    by its line in ``by_line``) until no later MMA within the window can name it, then is
    classified; the readings of words met again are kept (``plain``: no evidence; ``named``:
    by the kinds of evidence)."""

    def __init__(self, dialect: str, as_: str | None, context: IdescContext | None,
                 arch: str | None, min_confidence: float) -> None:
        #: the kind the user named: it overrides an MMA's context
        self.dialect, self.as_, self.context, self.arch = dialect, as_, context, arch
        self.min_confidence = min_confidence
        self.pending: deque[_Word] = deque()
        self.by_line: dict[int, list[_Word]] = {}
        self.plain: dict[tuple[Any, ...], tuple[Candidate, ...] | None] = {}
        self.named: dict[tuple[Any, ...], tuple[Any, ...]] = {}

    def target(self, named_arch: str | None) -> str | None:
        """The target a word of code for ``named_arch`` (the reader's) is read for."""
        if self.arch is not None:
            return self.arch
        return named_arch if named_arch in _KNOWN_ARCHES else None

    def add(self, line: int, text: str, word: int, size: int, hints: list[Hint],
            context: IdescContext | None, value: Any, register: str | None,
            here: str | None) -> None:
        e = _Word(line, text, word, size, hints, context, value, register, here)
        self.pending.append(e)
        group = self.by_line.get(line)
        if group is None:
            self.by_line[line] = [e]
        else:
            group.append(e)

    def due(self, limit: int) -> Iterator[FoundWord]:
        """Emit the words no later line can name (defined before ``limit``)."""
        pending, by_line = self.pending, self.by_line
        while pending and pending[0].line < limit:
            e = pending.popleft()
            group = by_line.get(e.line)
            if group is not None and e in group:
                group.remove(e)
                if not group:
                    del by_line[e.line]
            if e.word is None:
                continue  # a SASS half taken into its 64-bit pair
            found = self.classify(e)
            if found is not None:
                yield found

    def readings(self, word: int, size: int, context: IdescContext | None, here: str | None
                 ) -> tuple[Candidate, ...] | None:
        """The readings of a word no text names, None when none is reported."""
        if self.as_ is None and not may_report(word, size, True, self.min_confidence, here):
            return None
        cands = candidates_for(word, size, (), self.as_, self.context or context, here, True)
        return cands if is_reported(cands, (), self.min_confidence) else None

    def classify(self, e: _Word) -> FoundWord | None:
        word, size, hints, context, here = e.word, e.size, e.hints, e.context, e.arch
        assert word is not None
        if not hints:
            key = (word, size, context, here)
            cands = self.plain.get(key, False)
            if cands is False:
                if len(self.plain) >= _PTX_PLAIN_MEMO:
                    self.plain.clear()
                cands = self.plain[key] = self.readings(word, size, context, here)
            if cands is None:
                return None
        else:
            # the evidence names the line: the readings and which evidence each gets are
            # kept by the kinds of evidence, the sentences attached per occurrence
            kinds = tuple([h[:3] for h in hints])
            key = (word, size, kinds, context, here)
            as_ = self.as_
            forced = as_ if as_ is None else on_arch(as_, here)
            got = self.named.get(key)
            if got is None:
                if len(self.named) >= _PTX_PLAIN_MEMO:
                    self.named.clear()
                scored = scored_readings(word, size, evidence_signature(kinds), forced,
                                         self.context or context, here, True)
                if not is_reported(scored, kinds, self.min_confidence, as_ is not None):
                    got = self.named[key] = ()
                else:
                    got = self.named[key] = (scored, evidence_plan(
                        scored, tuple([h[:2] for h in kinds]), forced))
            if not got:
                return None
            cands = with_evidence(got[0], tuple(hints), forced, got[1])
        text = e.text if e.value is None else f"{e.text} = {e.value.pattern()}"
        return make_finding(e.line, self.dialect, e.register, None, text, word, size, tuple(cands))

    # ------------------------------------------------------------------ evidence of MMAs

    def mma(self, item: Any) -> None:
        """The evidence an MMA gives the words that reach the operands its site judges."""
        if self.dialect == "ptx":
            self.ptx_mma(item)
        elif item.site.family == "wgmma":
            self.sass_wgmma(item)
        else:
            self.sass_mma(item)

    def named_by(self, e: _Word, hint: Hint, context: IdescContext | None) -> None:
        if hint not in e.hints:
            e.hints.append(hint)
            e.context = context or e.context

    def ptx_mma(self, item: Any) -> None:
        """A PTX MMA (``tcgen05.mma``, ``wgmma.mma_async``): every line that made a value of
        an operand is named by it; an operand no immediate made is reported when its word,
        or each of its alternatives, is wholly known."""
        site, line, by_line = item.site, item.line, self.by_line
        here = self.target(item.arch)
        at = f" of {item.opcode} at line {line}"
        # (a PTX tcgen05.mma names its .cta_group: read as cta_group::1 where not)
        context = IdescContext(site.kinds, site.cta_group or 1, site.ws) if site.kinds else None
        for so in site.judged:
            role, family, op = so.role, so.family, item.operands[so.index]
            hint: Hint = (family, MMA_OPERAND, True, "it feeds " + role + at)
            k = context if family == "idesc" else None
            targets = list(by_line.get(op.origin[0], ())) if op.origin else []
            alternatives = op.judged
            if alternatives:  # several values: the lines that made each too
                for w in dict.fromkeys([a.origin for a in alternatives]):
                    if w is not None and w != op.origin:
                        targets += by_line.get(w[0], ())
            for e in targets:
                self.named_by(e, hint, k)
            if targets:
                continue
            # no immediate made it: the operand's word(s), when wholly known
            for kb in [a.bits for a in alternatives] if alternatives else [op.value]:
                if kb is not None and kb.is_const:
                    self.add(line, op.text, kb.value, 64 if kb.width == 64 else 32, [hint], k,
                             kb, None, here)

    def sass_mma(self, item: Any) -> None:
        """A SASS tcgen05 MMA: the descriptors and zero-column mask (register pairs), the
        instruction descriptor, the Tensor Memory addresses it reads."""
        site, line = item.site, item.line
        here = self.target(item.arch)
        at = f" of {item.opcode} at line {line}"
        context = IdescContext(site.kinds, site.cta_group, site.ws) if site.kinds else None
        for so in site.judged:
            op = item.operands[so.index]
            family, text = so.family, op.text
            if op.value is None or family is None or family == "zcm" and op.value.width != 64:
                continue
            if family in ("smem", "zcm"):
                self.pair(op, text, ":".join(so.registers), family, at, line, here)
                continue
            hint: Hint = (family, MMA_OPERAND, True, f"it feeds {text}{at}")
            k = context if family == "idesc" else None
            targets = self.made(op)
            for e in targets:
                self.named_by(e, hint, k)
            if not targets and op.value.is_const:
                self.add(line, text, op.value.value, 32, [hint], k, op.value, None, here)

    def sass_wgmma(self, item: Any) -> None:
        """A SASS ``HGMMA``/``IGMMA``/``QGMMA``/``BGMMA``: its descriptors (A in URn:URn+1
        unless A comes from registers, B in URn+2:URn+3), as wgmma words named ``gdesc[URn]
        (A)`` and ``gdesc[URn] (B)``."""
        at = f" of {item.opcode} at line {item.line}"
        here = self.target(item.arch)
        for so in item.site.judged:
            op = item.operands[so.index]
            text = f"{op.text.split(']', 1)[0]}] ({'A' if so.role == 'a_desc' else 'B'})"
            self.pair(op, text, ":".join(so.registers), "wgmma", at, item.line, here)

    def made(self, op: Any) -> list[_Word]:
        """The waiting words of the lines that made the values of an MMA operand: those of
        the alternatives lint judges (not those only a skipped predicated write leaves), or
        of its one value."""
        lines = sorted({a.origin[0] for a in op.judged if a.origin}) if op.alternatives \
            else ([op.origin[0]] if op.origin else [])
        return [e for ln in lines for e in self.by_line.get(ln, ()) if e.word is not None]

    def pair(self, op: Any, text: str, pair: str, family: str, at: str, line: int,
             here: str | None) -> None:
        """A 64-bit descriptor an MMA reads from the register pair ``pair``: a constant pair
        is one word at the MMA (the immediates of its halves are not reported again), a pair
        known in part names the immediate of its upper half (each alternative lint judges:
        halves written by predicated moves guarded like the MMA are a constant pair too)."""
        targets = self.made(op)
        words = [a.bits for a in op.judged] if op.alternatives else [op.value]
        if all(kb.is_const for kb in words):
            for e in targets:  # the upper half's immediate: now part of the pair
                e.word = None
            for kb in dict.fromkeys(words):
                self.add(line, text, kb.value, 64,
                         [(family, MMA_OPERAND, True, f"it feeds {text}{at}")], None, kb,
                         pair, here)
            return
        hint: Hint = (family, MMA_OPERAND, True, f"it feeds the upper register of {text}{at}")
        for e in targets:
            if e.size == 32 and hint not in e.hints:
                e.hints.append(hint)


#: The targets a word can be read for (:data:`~descriptors.rules.validate.ARCHES`).
_KNOWN_ARCHES = frozenset(ARCHES)

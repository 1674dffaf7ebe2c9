"""Path-sensitive data flow over one function of compiled code: basic blocks, reaching
definitions, value sets.

The readers (:mod:`~descriptors.readers.sass`, :mod:`~descriptors.readers.ptx`) turn text into
instructions; this module answers one question about them: *what may register R hold where
instruction i reads it?*  The answer is a value set (:mod:`~descriptors.readers.values`): one
alternative per definition that reaches the use along some path, each with its known bits and
the line that made it.

* **Blocks.**  A block starts at the function's first instruction, at every branch target and
  after every branch or instruction that does not fall through (an unconditional ``BRA``,
  ``EXIT``, ``RET``, ``BRX`` ...).  Its successors are the targets of its last instruction and
  the next block when control can fall through.  An indirect branch (``BRX``, ``JMX``) goes
  where its jump table says, which a listing does not show: it is taken to go to the blocks
  nothing else reaches (a switch's cases), or, where there are none, to any block.
* **Reaching definitions.**  A write kills what the register held before; a predicated write
  (``@P0 UMOV UR5, ...``) may not happen, so it merges with the value before it -- except
  where the same register was just written under the complementary guard (``@P0`` then
  ``@!P0``, the predicate not written in between): then one of the two writes happens and the
  value before is dead.  A register not yet written on a path brings nothing from that path
  ("no value", not "unknown"), so a register whose only reaching definition is one constant
  holds that constant.  A subroutine call may change any register: everything is unknown
  after it.
* **Values.**  The dialect describes each instruction that writes a register of interest
  (:class:`Step`): the registers it reads and a function of their known bits; the value sets
  are combined alternative by alternative (:func:`~descriptors.readers.values.combine`).
* **Slice.**  Only what the uses depend on is computed: starting from the registers the
  queried instructions read, the registers their definitions read, and so on (a backward
  slice); every other instruction is only a block boundary or nothing.
* **Loops.**  Block states only grow (the value sets of a block's entry are joined with what
  each predecessor brings), and a value set of more than
  :data:`~descriptors.readers.values.MAX_ALTERNATIVES` alternatives is merged into one, so the
  iteration ends; a register stepped in a loop (``UIADD3 UR8, UR8, 0x2``) ends up with the
  bits every trip agrees on; a value still changing after :data:`WIDEN` visits of a block is
  unknown there.  Should the iteration still run past :data:`MAX_ROUNDS` visits per block,
  every queried value is unknown rather than a guess.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from .knownbits import KnownBits
from .values import Alternative, ValueSet, _interned, combine, join, single, skipped

__all__ = ["Step", "Code", "solve", "blocks", "MAX_ROUNDS", "EVERY"]

#: Visits of one block after which the iteration gives up (every queried value unknown).
MAX_ROUNDS = 256
#: Visits of one block after which a value still changing at its entry is taken as unknown
#: (widening: the iteration then ends in a few more rounds).
WIDEN = 4

#: ``Code.jumps`` of an indirect branch: any block may follow.
EVERY = (-1,)


@dataclass(frozen=True, slots=True)
class Step:
    """What an instruction computes, for the registers it writes.

    ``sources``: what it reads, each a register name or a constant (:class:`KnownBits`);
    ``fn``: the known bits of each written register (a sequence, one per register the
    instruction writes) from one alternative of each source, or ``None`` when it cannot tell
    (the results are then unknown); ``mode``: ``"eval"``, ``"copy"`` (one source passed on
    unchanged: the result keeps the source's origin, so the evidence shows the constant's
    line) or ``"select"`` (the result is any one source: their value sets joined);
    ``assumes``: an assumption the result rests on (the K-step rule), ``None`` when none."""

    sources: tuple[str | KnownBits, ...]
    fn: Callable[..., Sequence[KnownBits] | None] | None = None
    mode: str = "eval"
    assumes: str | None = None


class Code:
    """One function as the data flow sees it.  Parallel sequences, one entry per
    instruction:

    ``defs`` -- the registers it writes (``("*",)`` for a call: every register);
    ``guard`` -- its predicate guard as written (``"@!UP1"``), ``None`` when it always runs;
    ``jumps`` -- branch target indices (:data:`EVERY` for an indirect branch), ``()`` when it
    does not branch; ``falls`` -- whether control may go on to the next instruction;
    ``where`` -- ``(line, text)``, the origin of the values it defines;
    ``mentions(index, predicate)`` -- whether the instruction names the predicate register
    other than in its guard (it may write it: a complementary guard after it is then no
    longer the same condition).

    ``describe(index, register)`` gives the :class:`Step` of an instruction that writes a
    register of interest (``None``: the result is unknown); it is called once per
    instruction in the slice."""

    __slots__ = ("defs", "guard", "jumps", "falls", "where", "mentions", "describe",
                 "_blocks", "_defs_by_reg", "_steps", "width")

    def __init__(self, defs: Sequence[tuple[str, ...]], guard: Sequence[str | None],
                 jumps: Sequence[tuple[int, ...]], falls: Sequence[bool],
                 where: Sequence[tuple[int, str]],
                 mentions: Callable[[int, str], bool],
                 describe: Callable[[int, str], Step | None], width: int = 32) -> None:
        self.defs, self.guard, self.jumps, self.falls = defs, guard, jumps, falls
        self.where, self.mentions, self.describe = where, mentions, describe
        self.width = width
        self._blocks: tuple[list[int], list[list[int]], list[int]] | None = None
        self._defs_by_reg: dict[str, list[int]] | None = None
        self._steps: dict[int, Step | None] = {}

    def step(self, i: int, reg: str) -> Step | None:
        try:
            return self._steps[i]
        except KeyError:
            s = self._steps[i] = self.describe(i, reg)
            return s

    def defs_by_reg(self) -> dict[str, list[int]]:
        if self._defs_by_reg is None:
            out: dict[str, list[int]] = {}
            for i, ds in enumerate(self.defs):
                for d in ds:
                    lst = out.get(d)
                    if lst is None:
                        out[d] = [i]
                    else:
                        lst.append(i)
            self._defs_by_reg = out
        return self._defs_by_reg


def blocks(code: Code) -> tuple[list[int], list[list[int]], list[int]]:
    """``(starts, successors, block_of)``: the first instruction of each block, each block's
    successor blocks, and the block of each instruction."""
    if code._blocks is not None:
        return code._blocks
    n = len(code.defs)
    leaders = {0} if n else set()
    jumps, falls = code.jumps, code.falls
    for i in range(n):
        js = jumps[i]
        if js or not falls[i]:
            if i + 1 < n:
                leaders.add(i + 1)
            if not (js is EVERY or js == EVERY):
                leaders.update(t for t in js if 0 <= t < n)
    starts = sorted(leaders)
    block_of = [0] * n
    for b, s in enumerate(starts):
        end = starts[b + 1] if b + 1 < len(starts) else n
        for i in range(s, end):
            block_of[i] = b
    succ: list[list[int]] = []
    reached = {0}
    for b, s in enumerate(starts):
        last = (starts[b + 1] if b + 1 < len(starts) else n) - 1
        out: list[int] = []
        js = jumps[last]
        if js and not (js is EVERY or js == EVERY):
            out = [block_of[t] for t in js if 0 <= t < n]
        if falls[last] and b + 1 < len(starts):
            out.append(b + 1)
        reached.update(out)
        succ.append(out)
    # an indirect branch goes where its jump table says, which a listing does not show: to
    # the blocks nothing else reaches (the cases of a switch), or, where there are none, to
    # every block
    orphans = [b for b in range(len(starts)) if b not in reached]
    for b, s in enumerate(starts):
        last = (starts[b + 1] if b + 1 < len(starts) else n) - 1
        js = jumps[last]
        if js is EVERY or js == EVERY:
            succ[b] = succ[b] + (orphans or list(range(len(starts))))
        succ[b] = sorted(set(succ[b]))
    code._blocks = (starts, succ, block_of)
    return code._blocks


def _complement(a: str, b: str) -> bool:
    """``@P0`` / ``@!P0`` (either order)."""
    a, b = a.lstrip("@"), b.lstrip("@")
    return a == "!" + b or b == "!" + a


def solve(code: Code, uses: Iterable[tuple[int, str]]) -> dict[tuple[int, str], ValueSet]:
    """The value set of each ``(instruction index, register)`` in ``uses``, as the instruction
    reads it (before it executes).  An empty value set: the register is written on no path
    that reaches the use."""
    uses = list(uses)
    if not uses:
        return {}
    width = code.width
    unknown = KnownBits.unknown(width)
    by_reg = code.defs_by_reg()
    calls = by_reg.get("*", [])

    # ---- the slice: registers the uses depend on, and the instructions that write them
    wanted: set[str] = set()
    todo = [r for _, r in uses]
    relevant: set[int] = set(calls)
    while todo:
        reg = todo.pop()
        if reg in wanted:
            continue
        wanted.add(reg)
        for i in by_reg.get(reg, ()):
            relevant.add(i)
            st = code.step(i, reg)
            if st is not None:
                todo.extend(s for s in st.sources if s.__class__ is str and s not in wanted)

    starts, succ, block_of = blocks(code)
    nb = len(starts)
    # per block, the instructions that matter there, in order: definitions of wanted
    # registers, calls, uses
    use_at: dict[int, list[str]] = {}
    for i, r in uses:
        use_at.setdefault(i, []).append(r)
    events: list[list[int]] = [[] for _ in range(nb)]
    for i in sorted(relevant | set(use_at)):
        events[block_of[i]].append(i)

    result: dict[tuple[int, str], ValueSet] = {}
    defs, guard, where, mentions = code.defs, code.guard, code.where, code.mentions
    #: (instruction, ids of its sources' value sets) -> (those value sets, its results): a
    #: block run again on the same entry values gives the very same objects, which joins
    #: then pass over by identity
    memo: dict[tuple[int, ...], tuple[list[ValueSet], list[ValueSet] | None]] = {}

    #: the value set of each constant source (by the identity of its known bits, which the
    #: steps keep): made once, not at every run of its block
    constant: dict[int, ValueSet] = {}

    def value_of(state: dict[str, ValueSet], src: str | KnownBits) -> ValueSet:
        if src.__class__ is str:
            return state.get(src, ())  # type: ignore[arg-type]
        got = constant.get(id(src))
        if got is None:
            got = constant[id(src)] = single(src)  # type: ignore[arg-type]
        return got

    unknowns: dict[int, ValueSet] = {}

    def unknown_at(i: int) -> ValueSet:
        """An unknown value defined by instruction ``i`` (made once)."""
        got = unknowns.get(i)
        if got is None:
            got = unknowns[i] = single(unknown, where[i])
        return got

    def run(b: int, state: dict[str, ValueSet], record: bool) -> dict[str, ValueSet]:
        """The state at the end of block ``b`` from its entry state (copied on first write)."""
        owned = False
        pending: dict[str, tuple[str, ValueSet, int]] = {}  # reg -> (guard, written, index)
        for i in events[b]:
            if record and i in use_at:
                for r in use_at[i]:
                    result[(i, r)] = state.get(r, ())
            if i not in relevant:
                continue
            ds = defs[i]
            if not owned:
                state = dict(state)
                owned = True
            if ds == ("*",):
                u = unknown_at(i)
                for r in wanted:
                    state[r] = u
                pending.clear()
                continue
            g = guard[i]
            outs: list[ValueSet] | None = None
            st = code.step(i, ds[0]) if ds else None
            if st is not None:
                sources = [state.get(s, ()) if s.__class__ is str else value_of(state, s)
                           for s in st.sources]
                key = (i, *map(id, sources))
                got = memo.get(key)
                if got is not None and all(a is b for a, b in zip(got[0], sources)):
                    outs = got[1]  # the same value sets in: the same objects out
                else:
                    if st.mode == "select":
                        outs = [join(*sources)] * len(ds)
                    elif st.fn is not None:
                        outs = _combine_many(st, sources, where[i], width, len(ds))
                    memo[key] = (sources, outs)
            for k, r in enumerate(ds):
                if r not in wanted:
                    continue
                new = outs[k] if outs is not None else unknown_at(i)
                if g is None:
                    state[r] = new
                    pending.pop(r, None)
                    continue
                before = pending.get(r)
                if before is not None and _complement(before[0], g) and not any(
                        mentions(k, g.lstrip("@!")) for k in range(before[2] + 1, i)):
                    state[r] = join(before[1], new)   # one of the two writes happens
                    del pending[r]
                else:
                    pending[r] = (g, new, i)
                    before = state.get(r, ())
                    key = (-1 - i, id(before), id(new))
                    got = memo.get(key)
                    if got is not None and got[0][0] is before and got[0][1] is new:
                        state[r] = got[1]  # type: ignore[assignment]
                    else:
                        state[r] = join(skipped(before), new)
                        memo[key] = ([before, new], state[r])  # type: ignore[list-item]
        return state

    empty: dict[str, ValueSet] = {}
    joins: dict[tuple[int, int], tuple[ValueSet, ValueSet, ValueSet]] = {}
    ins: list[dict[str, ValueSet] | None] = [None] * nb
    outs_: list[dict[str, ValueSet] | None] = [None] * nb
    if nb:
        ins[0] = empty
    preds: list[list[int]] = [[] for _ in range(nb)]
    for b, ss in enumerate(succ):
        for s in ss:
            preds[s].append(b)
    # only the blocks from which a use can be reached matter: the others are not iterated
    useful = [False] * nb
    stack = [block_of[i] for i in use_at]
    while stack:
        b = stack.pop()
        if not useful[b]:
            useful[b] = True
            stack.extend(p for p in preds[b] if not useful[p])
    visits = [0] * nb
    work = [b for b in range(nb) if useful[b]]
    queued = list(useful)
    gave_up = False
    heapq.heapify(work)
    while work:
        b = heapq.heappop(work)
        queued[b] = False
        cur = ins[b]
        if cur is None:
            continue  # not reached (yet)
        visits[b] += 1
        if visits[b] > MAX_ROUNDS:
            gave_up = True
            break
        out = run(b, cur, False) if events[b] else cur
        if outs_[b] is out:
            continue
        outs_[b] = out
        for s in succ[b]:
            if not useful[s]:
                continue
            old = ins[s]
            new = _join_states(old, out, unknown if visits[s] >= WIDEN else None, joins) \
                if old is not None else out
            if new is not old:
                ins[s] = new
                if not queued[s]:
                    queued[s] = True
                    heapq.heappush(work, s)
    if gave_up:
        return {(i, r): single(unknown) for i, r in uses}
    for b in range(nb):
        if ins[b] is not None and any(i in use_at for i in events[b]):
            run(b, ins[b], True)  # type: ignore[arg-type]
    for key in uses:
        result.setdefault(key, ())  # in a block no path reaches
    return result


def _join_states(old: dict[str, ValueSet], new: dict[str, ValueSet],
                 widen: KnownBits | None = None,
                 joins: dict[tuple[int, int], tuple[ValueSet, ValueSet, ValueSet]] | None = None
                 ) -> dict[str, ValueSet]:
    """``old`` joined with ``new``; ``old`` itself when nothing changes.  ``widen``: a value
    that still changes becomes that (unknown) at once, so a loop ends in few rounds.
    ``joins`` keeps the join of each pair of value sets met (by identity; the same pair meets
    again at every block a loop's values flow through)."""
    if old is new:
        return old
    out = None
    get = old.get
    # the registers whose value sets differ in object (most are the very same object)
    for r, v in [(r, v) for r, v in new.items() if get(r) is not v]:
        o = get(r)
        if o is None:
            j = v
        elif joins is None:
            j = _join_pair(o, v)
        else:
            got = joins.get((id(o), id(v)))
            if got is not None and got[0] is o and got[1] is v:
                j = got[2]
            else:
                j = _join_pair(o, v)
                joins[(id(o), id(v))] = (o, v, j)
        if j is o:
            continue  # nothing new (the common case: the same alternatives)
        if j != o:
            if widen is not None:
                j = (_interned(Alternative(widen, None, None, True,
                                           all(a.skipped for a in j))),)
                if j == o:
                    continue
            if out is None:
                out = dict(old)
            out[r] = j
    return old if out is None else out


def _join_pair(o: ValueSet, v: ValueSet) -> ValueSet:
    """``o`` joined with ``v``: ``o`` itself when ``v`` brings no alternative it lacks
    (alternatives are interned: equal ones are one object)."""
    if len(v) <= len(o):
        ids = {id(a) for a in o}
        if all(id(a) in ids for a in v):
            return o
    return join(o, v)


def _combine_many(st: Step, sources: list[ValueSet], origin: tuple[int, str], width: int,
                  count: int) -> list[ValueSet]:
    """The value sets of the ``count`` registers an instruction writes, from its sources."""
    fn = st.fn
    assert fn is not None
    if count == 1:
        def one(*bits: KnownBits) -> KnownBits | None:
            got = fn(*bits)
            return got[0] if got else None
        out = [combine(one, sources, origin, width, copy=st.mode == "copy")]
    else:
        out = []
        for k in range(count):
            def nth(*bits: KnownBits, k: int = k) -> KnownBits | None:
                got = fn(*bits)
                return got[k] if got and len(got) > k else None
            out.append(combine(nth, sources, origin, width, copy=st.mode == "copy"))
    if st.assumes:
        out = [tuple(_interned(Alternative(a.bits, a.origin, a.assumes or st.assumes, a.merged,
                                           a.skipped)) for a in vs) for vs in out]
    return out

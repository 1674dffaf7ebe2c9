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
  nothing else reaches (a switch's cases), or, where there are none, to any block; so is a
  branch whose target the reader cannot find.  Such branches go there through one empty
  block, the unknown successor: what reaches it reaches every block it may enter, and k such
  branches into m blocks make k + m edges, not k * m.
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
* **On demand.**  Only what the uses depend on is worked out, backward from them: what a
  register holds where an instruction reads it is what the last write before it in its block
  left, or what the block holds on entry.  A block entry is the value every predecessor leaves
  when they all leave the same one (a straight run of blocks, a branch neither arm of which
  writes the register, a loop that does not write it), else a join of what each leaves.  Each
  such question is one node -- a block entry for one register, what one instruction writes,
  what a register holds after one write -- made only when a use depends on it, so the cost
  grows with the slice (the instructions a descriptor's registers come through), not with
  the function.  The nodes are evaluated dependencies first (strongly connected components,
  Tarjan's algorithm); the answer for one register does not depend on what else is asked.
* **Loops.**  The nodes of one loop (one strongly connected component) are evaluated in turn,
  in the order of the code, until a round changes nothing (a node is evaluated again only
  when a value it reads changed since its last evaluation: any other would give the value it
  has).  A block entry only grows (what
  each predecessor brings is joined with what it held), and a value set of more than
  :data:`~descriptors.readers.values.MAX_ALTERNATIVES` alternatives is merged into one, so a
  register stepped in a loop (``UIADD3 UR8, UR8, 0x2``) ends up with the bits every trip
  agrees on; a block entry still changing after :data:`WIDEN` rounds is unknown there.
  Should a loop still change after :data:`MAX_ROUNDS` rounds, every queried value is unknown
  rather than a guess.
* **Budget.**  The work of one function (nodes made, and each node of a loop once a round)
  is bounded by :data:`BUDGET`: past it every queried value is unknown, and
  ``Code.outcome`` says so (the readers then give a ``budget`` fact: a ``lint.budget`` note).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable, Sequence
from typing import Union

from ..structs import Struct
from .knownbits import KnownBits
from .values import Alternative, ValueSet, combine, interned, join, single, skipped

__all__ = ["Step", "Code", "solve", "blocks", "MAX_ROUNDS", "BUDGET", "SLOW", "EVERY"]

#: Rounds of one loop after which the iteration gives up (every queried value unknown).
MAX_ROUNDS = 256
#: Rounds of one loop after which a block entry still changing is taken as unknown (widening:
#: the iteration then ends in a few more rounds).
WIDEN = 4

#: How far back through blocks one question about a block entry is followed before that entry
#: is taken as a node of its own (bounds the recursion; the answer is the same).
_RESOLVE_DEPTH = 150

#: Work (nodes made, plus each node of a loop once a round) the data flow of one function may
#: take before it gives up: every queried value of the function is then unknown
#: (``Code.outcome`` says so).  The cost grows with the slice, so this bounds crafted input,
#: never compiled code (the largest production kernels need under a five-hundredth of it; a
#: unit is some microseconds).
BUDGET = 1_000_000

#: Seconds of one function's data flow past which a reader says how long it took (a
#: ``slow`` fact, its seconds in ``hints``: ``lint -v`` prints it); compiled code takes a small
#: fraction of this.
SLOW = 2.0

#: ``Code.jumps`` of an indirect branch: any block may follow.
EVERY = (-1,)

#: A key not looked up yet (its value may be ``None``).
_UNSEEN = object()


class Step(Struct, frozen=True):
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
                 "_blocks", "_defs_by_reg", "_steps", "width", "branches", "outcome", "work")

    def __init__(self, defs: Sequence[tuple[str, ...]], guard: Sequence[str | None],
                 jumps: Sequence[tuple[int, ...]], falls: Sequence[bool],
                 where: Sequence[tuple[int, str]],
                 mentions: Callable[[int, str], bool],
                 describe: Callable[[int, str], Step | None], width: int = 32, *,
                 by_reg: dict[str, list[int]] | None = None,
                 branches: Sequence[int] | None = None) -> None:
        self.defs, self.guard, self.jumps, self.falls = defs, guard, jumps, falls
        self.where, self.mentions, self.describe = where, mentions, describe
        self.width = width
        #: the instructions that may branch or not fall through (``None``: any may), and the
        #: writes of each register (:meth:`defs_by_reg`), when the reader has them already
        self.branches = branches
        self._blocks: tuple[list[int], list[list[int]], list[int]] | None = None
        self._defs_by_reg: dict[str, list[int]] | None = by_reg
        self._steps: dict[int, Step | None] = {}
        #: how :func:`solve` ended: ``None`` (every value worked out), ``"rounds"`` (a loop
        #: still changed after :data:`MAX_ROUNDS` rounds) or ``"budget"`` (past
        #: :data:`BUDGET`): every queried value unknown; ``work``: the nodes made plus the
        #: visits of loops' nodes (one a node a round) it took
        self.outcome: str | None = None
        self.work = 0

    def step(self, i: int, reg: str) -> Step | None:
        s = self._steps.get(i, _UNSEEN)
        if s is _UNSEEN:  # (a miss is common: no exception for it)
            s = self._steps[i] = self.describe(i, reg)
        return s  # type: ignore[return-value]

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
    successor blocks, and the block of each instruction.  Where the function has an indirect
    branch (or one whose target the reader cannot find), ``successors`` has one entry more
    than ``starts``: the unknown successor, an empty block past the last one (index
    ``len(starts)``, at instruction ``len(code.defs)``), which each such branch goes to and
    which goes to every block the branch may enter."""
    if code._blocks is not None:
        return code._blocks
    n = len(code.defs)
    leaders = {0} if n else set()
    jumps, falls = code.jumps, code.falls
    for i in range(n) if code.branches is None else code.branches:
        js = jumps[i]
        if js or not falls[i]:
            if i + 1 < n:
                leaders.add(i + 1)
            if not (js is EVERY or js == EVERY):
                leaders.update(t for t in js if 0 <= t < n)
    starts = sorted(leaders)
    block_of: list[int] = []
    for b, s in enumerate(starts):
        end = starts[b + 1] if b + 1 < len(starts) else n
        block_of += [b] * (end - s)
    succ: list[list[int]] = []
    reached = {0}
    indirect = []
    nb = len(starts)
    for b in range(nb):
        last = (starts[b + 1] if b + 1 < nb else n) - 1
        out: list[int] = []
        js = jumps[last]
        if js:
            if js is EVERY or js == EVERY:
                indirect.append(b)
            else:
                out = [block_of[t] for t in js if 0 <= t < n]
        if falls[last] and b + 1 < nb:
            out.append(b + 1)
        if len(out) > 1:
            out = sorted(set(out))
        reached.update(out)
        succ.append(out)
    # an indirect branch goes where its jump table says, which a listing does not show: to
    # the blocks nothing else reaches (the cases of a switch), or, where there are none, to
    # every block -- through one empty block past the last (the unknown successor), so that
    # k such branches and m such targets make k + m edges, not k * m
    if indirect:
        orphans = [b for b in range(nb) if b not in reached]
        for b in indirect:
            succ[b] = succ[b] + [nb]
        succ.append(orphans or list(range(nb)))
    code._blocks = (starts, succ, block_of)
    return code._blocks


def _complement(a: str, b: str) -> bool:
    """``@P0`` / ``@!P0`` (either order)."""
    a, b = a.lstrip("@"), b.lstrip("@")
    return a == "!" + b or b == "!" + a


class BlockEntry:
    """A node: what register ``reg`` holds where block ``block`` begins, the join of what each
    predecessor leaves.  ``alias``: once the entry is found to hold what one other node holds
    (every path brings the same value), that node (``None``: it is a node of its own)."""

    __slots__ = ("block", "reg", "alias")

    def __init__(self, block: int, reg: str) -> None:
        self.block, self.reg = block, reg
        self.alias: Node | None = None


class Computed:
    """A node: what instruction ``at`` computes -- one value set when it writes one register,
    else a list of them, one per register it writes (in the order of ``Code.defs``)."""

    __slots__ = ("at",)

    def __init__(self, at: int) -> None:
        self.at = at


class AfterWrite:
    """A node: what register ``reg`` holds after instruction ``at`` writes it, where that is not
    simply what ``at`` computes: a guarded write (it may not happen), one of several registers
    it writes, or a call."""

    __slots__ = ("at", "reg")

    def __init__(self, at: int, reg: str) -> None:
        self.at, self.reg = at, reg


#: A node of the data flow.  Each is made once per question (:class:`Solver` keeps them), so
#: one node is one object: the dictionaries of the solver key on identity.
Node = Union[BlockEntry, Computed, AfterWrite]

#: The empty value set: no definition reaches.
_NOTHING: ValueSet = ()


def _canon(node: Node) -> Node:
    """The node a block entry stands for (itself when it is a node of its own)."""
    while node.__class__ is BlockEntry:
        got = node.alias  # type: ignore[union-attr]
        if got is None:
            break
        node = got
    return node


class Solver:
    """The data flow of one function, worked out on demand for :func:`solve`.

    The nodes (:class:`BlockEntry`, :class:`Computed`, :class:`AfterWrite`) are made when a
    use depends on them (:meth:`before`, :meth:`entry`, :meth:`after`); :meth:`components`
    groups them into strongly connected components, dependencies first; :meth:`evaluate`
    gives a node's value from its dependencies' and :meth:`settle` iterates a loop's nodes
    until they agree.  Holds no reference to itself (no bound method, no closure), so its
    state is freed when it is dropped, without the cyclic garbage collector."""

    __slots__ = ("code", "width", "unknown", "by_reg", "calls", "defs", "guard", "where",
                 "mentions", "starts", "block_of", "ends", "preds", "reach", "run_start",
                 "writes", "entries", "entry_nodes", "resolving", "computed", "afters", "guards",
                 "paired", "deps", "unknowns", "constant", "value", "work")

    def __init__(self, code: Code) -> None:
        self.code = code
        self.width = width = code.width
        self.unknown = KnownBits.unknown(width)
        by_reg = self.by_reg = code.defs_by_reg()
        self.calls = by_reg.get("*", [])
        self.defs, self.guard, self.where, self.mentions = (code.defs, code.guard, code.where,
                                                            code.mentions)
        starts, succ, block_of = blocks(code)
        nb, n = len(succ), len(code.defs)
        if nb > len(starts):  # the unknown successor: an empty block at the end
            starts = starts + [n]
        self.starts, self.block_of = starts, block_of
        self.ends = starts[1:] + [n]
        preds: list[list[int]] = [[] for _ in range(nb)]
        for b, ss in enumerate(succ):
            for s in ss:
                preds[s].append(b)
        reach = self.reach = [False] * nb
        stack = [0] if nb else []
        while stack:
            b = stack.pop()
            if not reach[b]:
                reach[b] = True
                stack.extend(s for s in succ[b] if not reach[s])
        preds = self.preds = [[p for p in ps if reach[p]] for ps in preds]
        # the first block of the run that ends at each block, every block of it after the
        # first entered only from the block before it (a branch not taken falls through): a
        # block of the run is entered with the run's last write before it or, with none,
        # with what the run's first block is entered with
        run_start = self.run_start = list(range(nb))
        for b in range(1, nb):
            if len(preds[b]) == 1 and preds[b][0] == b - 1:
                run_start[b] = run_start[b - 1]
        #: the writes of each register (calls included), in order
        self.writes: dict[str, list[int]] = {}
        #: the node each block entry (block, register) stands for, once resolved
        self.entries: dict[tuple[int, str], Node] = {}
        #: the block entries being resolved (their predecessors asked)
        self.resolving: set[tuple[int, str]] = set()
        #: the nodes, each made once: block entries by (block, register), what an instruction
        #: computes by its index, the value after a write by (index, register)
        self.entry_nodes: dict[tuple[int, str], BlockEntry] = {}
        self.computed: dict[int, Computed] = {}
        self.afters: dict[tuple[int, str], AfterWrite] = {}
        self.guards: dict[int, str | None] = {}
        self.paired: dict[tuple[int, str], int | None] = {}
        #: the nodes each node's value is made from
        self.deps: dict[Node, tuple[Node, ...]] = {}
        self.unknowns: dict[int, ValueSet] = {}
        self.constant: dict[int, ValueSet] = {}
        #: each node's value: a value set (a list of them for a Computed writing several)
        self.value: dict[Node, object] = {}
        #: the visits of loops' nodes so far, one a node a round (:meth:`settle`)
        self.work = 0

    # ------------------------------------------------------------------ the questions

    def writes_of(self, r: str) -> list[int]:
        got = self.writes.get(r)
        if got is None:
            own = self.by_reg.get(r, [])
            calls = self.calls
            # (two sorted lists: one run each for the sort; a repeated index would change no
            # answer of last_write)
            got = self.writes[r] = sorted(own + calls) if calls else own
        return got

    def last_write(self, r: str, lo: int, hi: int) -> int | None:
        """The last write of ``r`` at an index in ``[lo, hi)``."""
        ws = self.writes.get(r)
        if ws is None:
            ws = self.writes_of(r)
        k = bisect_left(ws, hi) - 1
        return ws[k] if k >= 0 and ws[k] >= lo else None

    def entry(self, b: int, r: str, depth: int = 0) -> Node:
        """The node of what ``r`` holds where block ``b`` begins.  Where every predecessor
        leaves the same node's value (a straight run of blocks, a branch neither arm of which
        writes ``r``, a loop that does not write it) it is that node; else the block's own
        entry node, which joins them."""
        key = (b, r)
        got = self.entries.get(key)
        if got is not None:
            if got.__class__ is BlockEntry and got.alias is not None:  # type: ignore[union-attr]
                return _canon(got)
            return got
        resolving = self.resolving
        if key in resolving or depth > _RESOLVE_DEPTH:
            # a loop back to a block being resolved (it is its own node for now)
            return self.entry_node(key)
        ws = self.writes.get(r)
        if ws is None:
            ws = self.writes_of(r)
        starts = self.starts
        c = self.run_start[b]
        if c != b:  # what the run's last write leaves, or what its first block is entered with
            k = bisect_left(ws, starts[b]) - 1
            got = self.after(ws[k], r) if k >= 0 and ws[k] >= starts[c] else \
                self.entry(c, r, depth + 1)
            me = self.entry_nodes.get(key)
        else:
            resolving.add(key)
            outs: dict[Node, None] = {}  # (in order; a dict: the unknown successor has many)
            entries, ends = self.entries, self.ends
            for p in self.preds[b]:
                k = bisect_left(ws, ends[p]) - 1
                if k >= 0 and ws[k] >= starts[p]:
                    n = self.after(ws[k], r)
                else:
                    n = entries.get((p, r))  # type: ignore[assignment]
                    if n is None:
                        n = self.entry(p, r, depth + 1)
                    if n.__class__ is BlockEntry and n.alias is not None:  # type: ignore[union-attr]
                        n = _canon(n)
                outs[n] = None
            resolving.discard(key)
            me = self.entry_nodes.get(key)  # (handed out while resolving: a loop back here)
            if me is not None:
                outs.pop(me, None)
            got = next(iter(outs)) if len(outs) == 1 else me if me is not None else \
                self.entry_node(key)
        self.entries[key] = got
        if me is not None and got is not me:  # (never an alias to itself: a block of a run
            # handed out past the depth bound can come back as the node its run leaves)
            me.alias = got
        return got

    def entry_node(self, key: tuple[int, str]) -> BlockEntry:
        """The node of block entry ``key`` (block, register), made once."""
        node = self.entry_nodes.get(key)
        if node is None:
            node = self.entry_nodes[key] = BlockEntry(*key)
        return node

    def guard_of(self, j: int) -> str | None:
        g = self.guards.get(j, _UNSEEN)
        if g is _UNSEEN:
            g = self.guards[j] = self.guard[j]
        return g  # type: ignore[return-value]

    def computed_by(self, j: int) -> Computed:
        """The node of what instruction ``j`` computes."""
        node = self.computed.get(j)
        if node is None:
            node = self.computed[j] = Computed(j)
        return node

    def after(self, j: int, r: str) -> Node:
        """The node of what ``r`` holds after instruction ``j`` writes it: what ``j`` computes
        itself when it always runs and writes one register."""
        ds = self.defs[j]
        if len(ds) == 1 and ds != ("*",) and self.guard_of(j) is None:
            node = self.computed.get(j)  # (computed_by, written out: a hot path)
            if node is None:
                node = self.computed[j] = Computed(j)
            return node
        node = self.afters.get((j, r))
        if node is None:
            node = self.afters[(j, r)] = AfterWrite(j, r)
        return node

    def before(self, i: int, r: str) -> Node:
        """The node of what ``r`` holds where instruction ``i`` reads it."""
        b = self.block_of[i]
        ws = self.writes.get(r)  # (last_write, written out: a hot path)
        if ws is None:
            ws = self.writes_of(r)
        k = bisect_left(ws, i) - 1
        if k >= 0 and ws[k] >= self.starts[b]:
            return self.after(ws[k], r)
        return self.entry(b, r)

    def exit_of(self, b: int, r: str) -> Node:
        """The node of what ``r`` holds where block ``b`` ends."""
        ws = self.writes.get(r)  # (last_write, written out: a hot path)
        if ws is None:
            ws = self.writes_of(r)
        k = bisect_left(ws, self.ends[b]) - 1
        if k >= 0 and ws[k] >= self.starts[b]:
            return self.after(ws[k], r)
        return self.entry(b, r)

    def pair_of(self, j: int, r: str) -> int | None:
        """The guarded write of ``r`` just before the guarded write ``j`` in its block under the
        complementary guard (the predicate not written in between) and not itself paired with
        one before it: one of the two writes happens, and the value before them is dead."""
        paired = self.paired
        key = (j, r)
        if key in paired:
            return paired[key]
        got = None
        g = self.guard_of(j)
        k = self.last_write(r, self.starts[self.block_of[j]], j) if g is not None else None
        if k is not None and self.defs[k] != ("*",):
            gk = self.guard_of(k)
            if gk is not None and _complement(gk, g) and self.pair_of(k, r) is None:  # type: ignore[arg-type]
                p = g.lstrip("@!")  # type: ignore[union-attr]
                mentions = self.mentions
                if not any(mentions(m, p) for m in range(k + 1, j)):
                    got = k
        paired[key] = got
        return got

    def deps_of(self, node: Node) -> tuple[Node, ...]:
        """The nodes ``node``'s value is made from (made now if new)."""
        cls = node.__class__
        if cls is BlockEntry:
            b, r = node.block, node.reg  # type: ignore[union-attr]
            if not self.reach[b]:
                return ()
            exit_of = self.exit_of
            return tuple(dict.fromkeys(exit_of(p, r) for p in self.preds[b]))
        j = node.at  # type: ignore[union-attr]
        if cls is Computed:
            ds = self.defs[j]
            if ds == ("*",) or not ds:
                return ()
            st = self.code.step(j, ds[0])
            if st is None or (st.mode != "select" and st.fn is None):
                return ()
            before = self.before
            return tuple(before(j, s) for s in st.sources if s.__class__ is str)  # type: ignore[arg-type]
        r = node.reg  # type: ignore[union-attr]
        if self.defs[j] == ("*",):
            return ()
        if self.guard_of(j) is None:
            return (self.computed_by(j),)
        k = self.pair_of(j, r)
        if k is not None:
            return (self.computed_by(k), self.computed_by(j))
        return (self.before(j, r), self.computed_by(j))

    def components(self, roots: Iterable[Node]) -> list[list[Node]]:
        """The nodes the roots depend on, grouped into strongly connected components (the
        nodes of one loop's values), each component after those it depends on (Tarjan's
        algorithm, without recursion); fills :attr:`deps` on the way."""
        deps, deps_of = self.deps, self.deps_of
        index: dict[Node, int] = {}
        low: dict[Node, int] = {}
        on_stack: set[Node] = set()
        stack: list[Node] = []
        components: list[list[Node]] = []
        for root in roots:
            if root in index:
                continue
            deps[root] = deps_of(root)
            index[root] = low[root] = len(index)
            stack.append(root)
            on_stack.add(root)
            walk = [(root, iter(deps[root]))]
            while walk:
                node, pending = walk[-1]
                for d in pending:  # (resumed where it left off when the walk comes back here)
                    if d not in index:
                        if d not in deps:
                            deps[d] = deps_of(d)
                        index[d] = low[d] = k = len(index)
                        if k + self.work > BUDGET:
                            raise _OverBudget
                        stack.append(d)
                        on_stack.add(d)
                        walk.append((d, iter(deps[d])))
                        break
                    if d in on_stack and index[d] < low[node]:
                        low[node] = index[d]
                else:
                    walk.pop()
                    if walk:
                        parent = walk[-1][0]
                        if low[node] < low[parent]:
                            low[parent] = low[node]
                    if low[node] == index[node]:
                        comp = []
                        while True:
                            w = stack.pop()
                            on_stack.discard(w)
                            comp.append(w)
                            if w is node:
                                break
                        components.append(comp)
        return components

    # ------------------------------------------------------------------ the values

    def unknown_at(self, i: int) -> ValueSet:
        """An unknown value defined by instruction ``i`` (made once)."""
        got = self.unknowns.get(i)
        if got is None:
            got = self.unknowns[i] = single(self.unknown, self.where[i])
        return got

    def written(self, j: int, r: str) -> ValueSet:
        """What instruction ``j`` writes to ``r``."""
        node = self.computed.get(j)
        outs = None if node is None else self.value.get(node)
        if outs is None:
            return self.unknown_at(j)
        ds = self.defs[j]
        return outs if len(ds) == 1 else outs[ds.index(r)]  # type: ignore[return-value,index]

    def evaluate(self, node: Node, widen: bool) -> object:
        """``node``'s value from its dependencies' (``widen``: a block entry that grows is
        unknown)."""
        cls = node.__class__
        value = self.value
        if cls is BlockEntry:
            old = value.get(node, _NOTHING)
            acc = old
            for d in self.deps[node]:
                v = value.get(d, _NOTHING)
                if v:
                    acc = _join_pair(acc, v) if acc else join(v)  # type: ignore[arg-type]
            if widen and acc is not old and acc != old:
                acc = (interned(Alternative(self.unknown, None, None, True,
                                            all(a.skipped for a in acc))),)  # type: ignore[union-attr]
            return acc
        j = node.at  # type: ignore[union-attr]
        if cls is Computed:
            # what instruction j computes: one value set (it writes one register) or one per
            # register it writes
            ds = self.defs[j]
            st = self.code.step(j, ds[0]) if ds and ds != ("*",) else None
            if st is None or (st.mode != "select" and st.fn is None):
                return self.unknown_at(j) if len(ds) == 1 else [self.unknown_at(j)] * len(ds)
            sources = []
            reads = iter(self.deps[node])
            constant = self.constant
            for s in st.sources:
                if s.__class__ is str:
                    sources.append(value.get(next(reads), _NOTHING))  # type: ignore[arg-type]
                else:
                    got = constant.get(id(s))
                    if got is None:
                        got = constant[id(s)] = single(s)  # type: ignore[arg-type]
                    sources.append(got)
            if st.mode == "select":
                got = join(*sources)
                return got if len(ds) == 1 else [got] * len(ds)
            outs = _combine_many(st, sources, self.where[j], self.width, len(ds))
            return outs[0] if len(ds) == 1 else outs
        r = node.reg  # type: ignore[union-attr]
        if self.defs[j] == ("*",):
            return self.unknown_at(j)
        new = self.written(j, r)
        if self.guard_of(j) is None:
            return new
        k = self.pair_of(j, r)
        if k is not None:
            return join(self.written(k, r), new)
        return join(skipped(value.get(self.before(j, r), _NOTHING)), new)  # type: ignore[arg-type]

    def position(self, node: Node) -> tuple[int, int, str]:
        """Where a node's value is made: a loop's nodes are evaluated in this order."""
        cls = node.__class__
        if cls is BlockEntry:
            return (self.starts[node.block], 0, node.reg)  # type: ignore[union-attr]
        if cls is Computed:
            return (node.at, 1, "")  # type: ignore[union-attr]
        return (node.at, 2, node.reg)  # type: ignore[union-attr]

    def settle(self, comp: list[Node]) -> bool:
        """Evaluate a loop's nodes in turn, in the order of the code, until a round changes
        nothing; from round :data:`WIDEN` on, a block entry that still changes is unknown.
        ``False`` when the loop still changes after :data:`MAX_ROUNDS` rounds."""
        comp.sort(key=self.position)
        value, deps, defs = self.value, self.deps, self.defs
        for node in comp:
            value[node] = [_NOTHING] * len(defs[node.at]) if node.__class__ is Computed and \
                len(defs[node.at]) > 1 else _NOTHING  # type: ignore[union-attr]
        # a node is evaluated again only when a value it reads changed since its last
        # evaluation, or (a block entry, which joins its own value) when that evaluation
        # changed it: any other evaluation would give the value it has (the same rounds, the
        # same result, fewer evaluations)
        evaluate = self.evaluate
        evaluated: dict[Node, int] = {}
        changed_at: dict[Node, int] = {}
        stamp = 0
        for rounds in range(1, MAX_ROUNDS + 1):
            changed = False
            for node in comp:
                last = evaluated.get(node)
                if last is not None and not (node.__class__ is BlockEntry and
                                             changed_at.get(node) == last):
                    for d in deps[node]:
                        if changed_at.get(d, -1) > last:
                            break
                    else:
                        continue
                stamp += 1
                evaluated[node] = stamp
                new = evaluate(node, rounds > WIDEN)
                old = value[node]
                if new is old:
                    continue
                if new == old:
                    continue
                value[node] = new
                changed_at[node] = stamp
                changed = True
            if not changed:
                self.work += rounds * len(comp)
                return True
            if self.work + rounds * len(comp) + len(deps) > BUDGET:
                raise _OverBudget
        self.work += MAX_ROUNDS * len(comp)
        return False

    def solve(self, uses: Iterable[tuple[int, str]]) -> dict[tuple[int, str], ValueSet]:
        """See :func:`solve`."""
        before = self.before
        roots = {key: before(*key) for key in uses}
        deps, value, evaluate = self.deps, self.value, self.evaluate
        gave_up = None
        try:
            for comp in self.components(roots.values()):
                if len(comp) == 1 and comp[0] not in deps[comp[0]]:
                    value[comp[0]] = evaluate(comp[0], False)
                elif not self.settle(comp):
                    gave_up = "rounds"  # every queried value unknown
                    break
        except _OverBudget:
            gave_up = "budget"
        self.code.outcome = gave_up
        self.code.work = self.work + len(deps)
        result: dict[tuple[int, str], ValueSet] = {}
        reach, block_of, unknown = self.reach, self.block_of, self.unknown
        for (i, r), root in roots.items():
            result[(i, r)] = single(unknown) if gave_up else value.get(root, _NOTHING) \
                if reach[block_of[i]] else _NOTHING  # type: ignore[assignment]
        return result


class _OverBudget(Exception):
    """The data flow of one function took more than :data:`BUDGET` (caught in :meth:`Solver.solve`)."""


def solve(code: Code, uses: Iterable[tuple[int, str]]) -> dict[tuple[int, str], ValueSet]:
    """The value set of each ``(instruction index, register)`` in ``uses``, as the instruction
    reads it (before it executes).  An empty value set: the register is written on no path
    that reaches the use.

    Worked out on demand, backward from the uses (:class:`Solver`): what a register holds
    where an instruction reads it is what the last write before it in its block left, or,
    where the block does not write it, what every predecessor block leaves (joined).  Each
    such question is a node -- the entry of a block for one register, the result of one
    instruction, the value after one write -- made only when a use depends on it; the nodes
    are then evaluated dependencies first, and those in a loop again until nothing changes.
    So the cost grows with the slice (the few instructions and blocks a descriptor's
    registers come through), not with the function.  Past :data:`BUDGET` (nodes made plus
    the visits of loops' nodes) every queried value is unknown and ``code.outcome`` is ``"budget"``; after
    :data:`MAX_ROUNDS` rounds of one loop, likewise, with ``"rounds"``."""
    uses = list(uses)
    if not uses:
        return {}
    return Solver(code).solve(uses)


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
    if not sources and not st.assumes:  # constants, defined here (what combine gives them)
        got = fn()
        return [single(got[k] if got and len(got) > k and got[k] is not None  # type: ignore[index]
                       else KnownBits.unknown(width), origin) for k in range(count)]
    copy = st.mode == "copy"
    out = [combine(fn, sources, origin, width, copy, k) for k in range(count)]  # type: ignore[arg-type]
    if st.assumes:
        out = [tuple(interned(Alternative(a.bits, a.origin, a.assumes or st.assumes, a.merged,
                                           a.skipped)) for a in vs) for vs in out]
    return out

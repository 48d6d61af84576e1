"""List grammars: Grammar-Generation and record segmentation for G-STM.

G-STM turns the children of a node into a string of symbols (equal symbols for children
that match) and infers a union-free regular expression from it (Jindal and Liu 2010, section
4.4): ``abaab`` gives ``(ab?)+``. The loops of that grammar are the lists, and their back
edges cut the records. Entry points: :func:`grammar_generation`, :func:`render`,
:func:`segment`, :func:`flatten`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Grammar:
    """A union-free regular expression over a linear chain of states.

    ``edges[e]`` is the symbol of chain edge ``q_e -> q_{e+1}`` (each symbol labels exactly
    one edge); ``opt`` the optional edges (``x?``); ``loops`` the back edges ``(f, g)`` =
    epsilon ``q_f -> q_g`` meaning ``(e_g ... e_{f-1})+``; ``pos_edge[p]`` the edge
    consumed by the p-th input symbol and ``back[p]`` the loop traversed just before
    consuming it (``None`` when none): the events :func:`segment` cuts records at.
    """

    edges: list[Any]
    opt: set[int]
    loops: set[tuple[int, int]]
    pos_edge: list[int] = field(default_factory=list)
    back: list[tuple[int, int] | None] = field(default_factory=list)

    def list_symbols(self) -> set[Any]:
        """Symbols under a ``+`` (what two grammars must agree on to hold the same lists)."""
        out: set[Any] = set()
        for f, g in self.loops:
            out.update(self.edges[g:f])
        return out

    def __str__(self) -> str:
        return render(self)


def _laminar(g: int, f: int, loops: set[tuple[int, int]]) -> bool:
    """A new loop over edges ``[g, f)`` keeps the loops nested or disjoint."""
    for f2, g2 in loops:
        # edge ranges [g, f) and [g2, f2) must be nested or disjoint
        if g < g2 < f < f2 or g2 < g < f2 < f:
            return False
    return True


def grammar_generation(seq: Sequence[Any], literal: bool = False) -> Grammar:
    """Grammar-Generation (Jindal and Liu 2010, section 4.4, Figure 7) for the symbol string
    ``seq``, in an implementable form: a new symbol extends the end of the state chain,
    skipped edges become optional, and a new loop starts at the first state that keeps
    the loops nested or disjoint.

    ``literal=True`` keeps the figure's line 9 as written (the back edge always starts at
    the current state), which can make loops cross (``abcba``).
    """
    edges: list[Any] = []
    pos: dict[Any, int] = {}
    opt: set[int] = set()
    loops: set[tuple[int, int]] = set()
    pos_edge: list[int] = []
    back: list[tuple[int, int] | None] = []
    c = 0

    def skip_to(t: int) -> None:
        nonlocal c
        while c < t:
            opt.add(c)
            c += 1

    for s in seq:
        e = pos.get(s)
        used: tuple[int, int] | None = None
        if e is None:  # lines 11-13: a new symbol, appended at the end of the chain
            skip_to(len(edges))
            e = pos[s] = len(edges)
            edges.append(s)
            c += 1
        elif e >= c:  # lines 4-5, or a forward skip over optional edges
            skip_to(e)
            c = e + 1
        else:  # a repeat: loop back to q_e
            i = e
            cands = [f for (f, g) in loops if g == i and f >= c]
            if cands:  # lines 7-8: reuse the existing loop into q_i
                f = min(cands)
                skip_to(f)
                used = (f, i)
                c = i + 1
            elif literal:  # line 9 as written: epsilon q_c -> q_i
                used = (c, i)
                loops.add(used)
                c = i + 1
            else:  # a new loop from the first state >= c that keeps loops nested
                n = len(edges)
                start = next((f for f in range(c, n + 1) if _laminar(i, f, loops)), None)
                if start is not None:
                    skip_to(start)
                    used = (start, i)
                    loops.add(used)
                    c = i + 1
                else:  # none: the loop starts where the enclosing loop starts
                    encl = [g2 for (f2, g2) in loops if g2 < i <= f2]
                    g = min(encl) if encl else 0
                    opt.update(range(g, i))
                    f = next((f for f in range(c, n + 1) if _laminar(g, f, loops)), n)
                    skip_to(f)
                    used = (f, g)
                    loops.add(used)
                    c = i + 1
        pos_edge.append(e)
        back.append(used)
    skip_to(len(edges))  # lines 14-16: trailing edges of the last record become optional
    return Grammar(edges, opt, loops, pos_edge, back)


def render(g: Grammar, names: Any = None, only: set[Any] | None = None) -> str:
    """Figure 7 line 17: the regular expression of a grammar (``(d)+`` written ``d+``).

    :param names: optional mapping or callable symbol -> display string.
    :param only: render only these edge symbols (the literal grammar comparison).
    """

    def name(s: Any) -> str:
        if names is None:
            return str(s)
        return str(names(s) if callable(names) else names[s])

    out: list[str] = []
    n = len(g.edges)
    opens: dict[int, int] = {}
    closes: dict[int, int] = {}
    for f, gg in g.loops:
        opens[gg] = opens.get(gg, 0) + 1
        closes[f] = closes.get(f, 0) + 1
    for i in range(n + 1):
        for _ in range(closes.get(i, 0)):  # close the groups ending here, inner first
            body_start = len(out) - 1
            # find the matching "(" to drop parentheses around a single atom
            depth = 0
            j = len(out) - 1
            while j >= 0:
                if out[j] == ")+":
                    depth += 1
                elif out[j] == "(":
                    if depth == 0:
                        break
                    depth -= 1
                j -= 1
            if (
                j >= 0
                and body_start - j == 1
                and not out[body_start].endswith("?")
                and len(out[body_start]) == 1
                and out[body_start] != ")+"
            ):
                out.pop(j)
                out.append("+")
            else:
                out.append(")+")
        if i == n:
            break
        out.extend("(" for _ in range(opens.get(i, 0)))
        if only is None or g.edges[i] in only:
            out.append(name(g.edges[i]) + ("?" if i in g.opt else ""))
    s = "".join(out)
    if only is not None:  # drop empty groups left by filtered symbols
        prev = None
        while prev != s:
            prev = s
            s = s.replace("()+", "")
    return s


def segment(
    g: Grammar, lo: int = 0, hi: int | None = None, scope: tuple[int, int] | None = None
) -> list[Any]:
    """Record segmentation from the grammar's back edges (the paper only says that record
    boundaries "are shown by +").

    Returns the items of input positions ``lo..hi-1``: an ``int`` (a position outside any
    loop of ``scope``) or a ``list`` of instances for a loop, each instance being again a
    list of items. A traversal of loop ``(f, g)``'s back edge closes the current instance
    and opens a new one; entering ``[g, f)`` opens the first one; leaving it closes the group.
    """
    if hi is None:
        hi = len(g.pos_edge)
    if scope is None:
        inner = sorted(g.loops, key=lambda fg: (fg[1], -fg[0]))
    else:
        sf, sg = scope
        inner = [(f, gg) for (f, gg) in g.loops if sg <= gg and f <= sf and (f, gg) != scope]
    # outermost loops within the scope
    outer = [L for L in inner if not any(o != L and o[1] <= L[1] and L[0] <= o[0] for o in inner)]
    items: list[Any] = []
    p = lo
    pe = g.pos_edge
    while p < hi:
        e = pe[p]
        L = next(((f, gg) for (f, gg) in outer if gg <= e < f), None)
        if L is None:
            items.append(p)
            p += 1
            continue
        f, gg = L
        q = p
        while q < hi and gg <= pe[q] < f:
            q += 1
        starts = [p] + [
            r
            for r in range(p + 1, q)
            if (used := g.back[r]) is not None and used[1] <= gg and used[0] >= f
        ]
        starts.append(q)
        insts = [segment(g, a, b, L) for a, b in zip(starts, starts[1:])]
        items.append(insts)
        p = q
    return items


def flatten(items: list[Any]) -> list[int]:
    """All positions of a segmented item list, in order."""
    out: list[int] = []
    stack = [iter(items)]
    while stack:
        for it in stack[-1]:
            if isinstance(it, list):
                stack.append(iter(it))
                break
            out.append(it)
        else:
            stack.pop()
    return out

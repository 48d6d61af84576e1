"""The template of partial tree alignment: built from the records, then every record mapped
onto it (Zhai & Liu 2005, as summarised in Jindal & Liu, section 4.6).

:func:`build_template` seeds the template with the largest sampled record and grows it with
the unmatched sibling runs of the other records where their position is unique, retrying
deferred records while a pass inserts something. :func:`map_record` is the Simple Tree
Matching traceback (Jindal & Liu, section 4.1) from template nodes to a record's nodes.
:class:`Layout` gives the final template's pre-order, parents and depths.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scrapy_records.fields.records import TEXT, VROOT, RecordTree
from scrapy_records.treematch import STM, Shapes

#: ``(template shape, record shape)`` -> a recorded mapping (see :func:`map_record`)
Programs = dict[tuple[int, int], Any]


class TemplateNode:
    """A template node (mutable: partial tree alignment inserts into ``children``)."""

    __slots__ = ("label", "sig", "children", "shape", "parent")

    def __init__(self, label: int, sig: int = 0, parent: TemplateNode | None = None) -> None:
        self.label = label
        self.sig = sig
        self.children: list[TemplateNode] = []
        self.shape = -1  # -1: not computed yet, or stale after an insertion below
        self.parent = parent

    def mark_changed(self) -> None:
        """This node's children changed: its shape and its ancestors' are stale (an
        ancestor already marked has its own ancestors marked)."""
        t: TemplateNode | None = self
        while t is not None and t.shape >= 0:
            t.shape = -1
            t = t.parent


#: matched pairs of one record: template node -> record node
NodeMap = dict[TemplateNode, int]


def template_from(rec: RecordTree, x: int) -> TemplateNode:
    """Copy the record sub-tree at node ``x`` into template nodes (iterative)."""
    top = TemplateNode(rec.label(x), rec.sig(x))
    if x < 0 and x != VROOT:
        return top  # a text node
    items, tag_id, sig = rec.pd.items, rec.pd.tag_id, rec.pd.sig
    stack = [(x, top)]
    while stack:
        y, t = stack.pop()
        kids = t.children
        for c in items[y] if y >= 0 else rec.roots:
            if c >= 0:
                tc = TemplateNode(tag_id[c], sig[c], t)
                kids.append(tc)
                if items[c]:
                    stack.append((c, tc))
            else:
                kids.append(TemplateNode(TEXT, rec.sig(c), t))
    return top


def reshape(root: TemplateNode, shapes: Shapes) -> None:
    """Recompute the template's stale shape ids bottom-up (after insertions): only the
    nodes marked stale (new nodes, and the nodes on the path from an insertion point to
    the root) are visited, in the order a walk of the whole template meets them, so new
    shapes are interned in the same order as by recomputing every node."""
    if root.shape >= 0:
        return
    order = []
    stack = [root]
    while stack:
        t = stack.pop()
        order.append(t)
        stack.extend([c for c in t.children if c.shape < 0])
    intern, ids_get = shapes.intern, shapes.ids.get
    for t in reversed(order):
        kt = tuple([c.shape for c in t.children]) if t.children else ()
        h = ids_get((t.label, t.sig, kt))  # Shapes.intern's key; known shapes without the call
        t.shape = h if h is not None else intern(t.label, kt, t.sig)


def map_record(
    root: TemplateNode,
    rec: RecordTree,
    matcher: STM,
    progs: Programs | None = None,
    whole: set[TemplateNode] | None = None,
) -> NodeMap:
    """Matched pairs template node -> record node (STM traceback, top-down, iterative).

    The mapping depends only on the template and the record's shape; with ``progs`` (a
    cache owned by one alignment, keyed ``(template shape, record shape)``) it is recorded
    once as a program (for each matched template node: the index of its parent's pair and
    the child position) and replayed for every further record of the same shape, without
    the traceback lookups.

    With ``whole`` (a set, filled here), a pair of identical sub-trees is mapped at its
    root only, its template node added to ``whole``: the rest of it pairs off node by node
    with nothing left over, which is all an insertion pass needs to know (a post body of a
    thousand nodes is not walked again on every pass). Such a partial mapping is not
    recorded in ``progs`` (no tree matching is skipped: identical sub-trees need none)."""
    if whole is not None:
        progs = None
        if root.shape == rec.vshape:
            whole.add(root)
            return {root: VROOT}
    key = (root.shape, rec.vshape)
    if progs is not None:
        prog = progs.get(key)
        if prog is not None:
            return _replay(root, rec, prog)
    out: NodeMap = {}
    pairs = matcher.pairs
    items, shape = rec.pd.items, rec.pd.shape
    tl: list[TemplateNode] = []
    pl: list[int] = []
    jl: list[int] = []
    # the virtual root first, then elements only (text nodes have no children)
    stack: list[tuple[TemplateNode, int, int, int]] = []
    out[root] = VROOT
    tc = root.children
    roots = rec.roots
    if tc and roots:
        if root.shape == rec.vshape:
            stack.extend([(t, x, -1, j) for j, (t, x) in enumerate(zip(tc, roots))])
        else:
            for i, j in pairs(root.shape, rec.vshape):
                stack.append((tc[i], roots[j], -1, j))
    pop, push = stack.pop, stack.append
    while stack:
        t, x, p, j = pop()
        out[t] = x
        me = len(tl)
        tl.append(t)
        pl.append(p)
        jl.append(j)
        tc = t.children
        if not tc or x < 0:
            continue
        xc = items[x]
        if not xc:
            continue
        sx = shape[x]
        if t.shape == sx:
            if whole is not None:
                whole.add(t)
                continue
            for i in range(len(xc) if len(xc) < len(tc) else len(tc)):
                push((tc[i], xc[i], me, i))
        else:
            for i, j in pairs(t.shape, sx):
                push((tc[i], xc[j], me, j))
    if progs is not None:
        progs[key] = (tl, pl, jl)
    return out


def _replay(root: TemplateNode, rec: RecordTree, prog: Any) -> NodeMap:
    """:func:`map_record` from a recorded program (a record of an already mapped shape)."""
    tlist, pidx, cpos = prog
    items, roots = rec.pd.items, rec.roots
    xs: list[int] = []
    push_x = xs.append
    for p, j in zip(pidx, cpos):
        push_x(roots[j] if p < 0 else items[xs[p]][j])
    out = {root: VROOT}
    out.update(zip(tlist, xs))
    return out


def insert_runs(
    rec: RecordTree, m: NodeMap, force: bool, whole: set[TemplateNode] | None = None
) -> tuple[bool, bool]:
    """Insert the record's unmatched sibling runs where their template position is unique.

    ``whole``: the template nodes of ``m`` whose sub-trees the record matches identically
    (:func:`map_record`'s partial mapping: their children are not in ``m``, and none of
    them is unmatched).

    Returns ``(inserted, deferred)``; ``deferred`` is True when a run holding data had no
    unique position (with ``force``, such runs go right after their left matched neighbour).
    """
    inv = {x: t for t, x in m.items()}
    inserted = deferred = False
    items, roots = rec.pd.items, rec.roots
    for t, x in m.items():  # (insertions change the template, never m)
        if whole and t in whole:
            continue
        if x >= 0:  # rec.kids(x), inlined
            xk = items[x]
        elif x == VROOT:
            xk = roots
        else:
            continue  # a text node
        if not xk:
            continue
        for c in xk:
            if c not in inv:
                break
        else:
            continue
        runs = _unmatched_runs(t, xk, inv)
        nt = len(t.children)
        ins: list[tuple[int, int, list[int]]] = []
        for order, (lo, hi, run) in enumerate(runs):
            if lo is None and hi is None:
                ok, at = nt == 0, 0
            elif lo is None:
                ok, at = hi == 0, 0
            elif hi is None:
                ok, at = lo == nt - 1, nt
            else:
                ok, at = hi == lo + 1, hi
            if not ok:
                if not any(rec.has_data(c) for c in run):
                    continue
                if not force:
                    deferred = True
                    continue
                at = lo + 1 if lo is not None else (hi if hi is not None else nt)
            ins.append((at, order, run))
        for at, _, run in sorted(ins, key=lambda e: (e[0], e[1]), reverse=True):
            new = [template_from(rec, c) for c in run]
            for tc in new:
                tc.parent = t
            t.children[at:at] = new
            t.mark_changed()
            inserted = True
    return inserted, deferred


def _unmatched_runs(
    t: TemplateNode, xk: Sequence[int], inv: dict[int, TemplateNode]
) -> list[tuple[int | None, int | None, list[int]]]:
    """The runs of consecutive unmatched children ``xk`` of a record node mapped to ``t``,
    each with the template positions of its matched left and right neighbours (or None)."""
    pos = {id(c): i for i, c in enumerate(t.children)}
    runs: list[tuple[int | None, int | None, list[int]]] = []
    left: int | None = None
    cur: list[int] = []
    for c in xk:
        tc = inv.get(c)
        if tc is None:
            cur.append(c)
        else:
            p = pos[id(tc)]
            if cur:
                runs.append((left, p, cur))
                cur = []
            left = p
    if cur:
        runs.append((left, None, cur))
    return runs


class _Builder:
    """Grows one template by insertion passes, remembering the passes that inserted nothing.

    A pass depends only on the template's and the record's shapes, so a record of a shape
    already tried against the same template gets the recorded answer."""

    def __init__(self, trees: list[RecordTree], matcher: STM, seed: int) -> None:
        self.trees = trees
        self.matcher = matcher
        self.shapes = matcher.shapes
        self.progs: Programs = {}  # map_record programs per (template, record) shape
        self.template = template_from(trees[seed], VROOT)
        reshape(self.template, self.shapes)
        self.idle: dict[tuple[int, int, bool], bool] = {}  # (template, record, force) -> deferred

    def insert_pass(self, rt: RecordTree, force: bool) -> tuple[bool, bool]:
        """One insertion pass of record ``rt``: ``(inserted, deferred)``."""
        template = self.template
        key = (template.shape, rt.vshape, force)
        deferred = self.idle.get(key)
        if deferred is not None:
            return False, deferred
        whole: set[TemplateNode] = set()
        m = map_record(template, rt, self.matcher, whole=whole)
        ins, deferred = insert_runs(rt, m, force, whole)
        if ins:
            reshape(template, self.shapes)
        else:
            self.idle[key] = deferred
        return ins, deferred

    def align_sample(self, todo: list[int], keep_unaligned: bool) -> None:
        """Insertion passes over the records ``todo`` (not the seed), retrying the deferred
        ones while a pass inserts something; then, with ``keep_unaligned``, the remaining
        deferred runs are inserted next to their left matched neighbour."""
        trees = self.trees
        while todo:
            changed = False
            retry = []
            for r in todo:
                rt = trees[r]
                if rt.vshape != self.template.shape:
                    ins, deferred = self.insert_pass(rt, False)
                    if ins:
                        changed = True
                    if deferred:
                        retry.append(r)
            if not retry:
                break
            if not changed:
                if keep_unaligned:
                    for r in retry:
                        self.insert_pass(trees[r], True)
                break
            todo = retry

    def add_variants(self, sample: list[int], max_extra: int, keep_unaligned: bool) -> None:
        """One insertion pass per record shape outside the sample (at most ``max_extra``),
        so rare variants the sample missed still get their columns."""
        trees = self.trees
        seen = {trees[r].vshape for r in sample}
        in_sample = set(sample)
        extra = 0
        for r in range(len(trees)):
            if r in in_sample or extra >= max_extra:
                continue
            rt = trees[r]
            if rt.vshape in seen:
                continue
            seen.add(rt.vshape)
            extra += 1
            if rt.vshape != self.template.shape:
                self.insert_pass(rt, keep_unaligned)


def build_template(
    trees: list[RecordTree], matcher: STM, max_template_records: int, keep_unaligned: bool
) -> tuple[TemplateNode, Programs]:
    """The template of the records ``trees`` and the mapping programs recorded on the way.

    The template comes from an even sample of at most ``max_template_records`` records,
    seeded with the largest one; then at most as many further records with a shape not
    seen yet get one insertion pass each."""
    n = len(trees)
    if n <= max_template_records:
        sample = list(range(n))
    else:
        step = n / max_template_records
        sample = sorted({int(k * step) for k in range(max_template_records)})
    seed = max(sample, key=lambda r: (trees[r].size, -r))
    builder = _Builder(trees, matcher, seed)
    builder.align_sample([r for r in sample if r != seed], keep_unaligned)
    builder.add_variants(sample, max_template_records, keep_unaligned)
    return builder.template, builder.progs


class Layout:
    """The final template in pre-order: each node's parent, depth, position ``pos`` and the
    position ``last`` of the last node of its sub-tree."""

    __slots__ = ("order", "parent", "depth", "pos", "last")

    def __init__(self, root: TemplateNode) -> None:
        order: list[TemplateNode] = []
        parent: dict[TemplateNode, TemplateNode | None] = {root: None}
        depth: dict[TemplateNode, int] = {root: 0}
        stack = [root]
        while stack:
            t = stack.pop()
            order.append(t)
            for c in reversed(t.children):
                parent[c] = t
                depth[c] = depth[t] + 1
                stack.append(c)
        self.order, self.parent, self.depth = order, parent, depth
        self.pos = pos = {t: i for i, t in enumerate(order)}
        last: dict[TemplateNode, int] = {}
        for t in reversed(order):
            # pre-order: a sub-tree ends where its last child's sub-tree ends
            last[t] = last[t.children[-1]] if t.children else pos[t]
        self.last = last

"""The G-STM tree pattern of a template, and its induction from sample pages (Jindal & Liu
2010, sections 3 and 4.6: Problem 1, multiple pages of one template).

Entry point: :func:`induce_pattern` ``(pages, **matcher options) -> Pattern``. Each page is
collapsed (its lists found by G-STM against itself, each list replaced by the alignment of
its records) and the collapsed trees are merged by partial tree alignment with G-STM as the
matcher. A :class:`Pattern` serialises to JSON; :mod:`.gstm` turns it into a wrapper.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from scrapy_records.errors import OptionError, WrapperError
from scrapy_records.extractors.gstm import make_matcher
from scrapy_records.page import as_page
from scrapy_records.selectors import stable_id, stable_token
from scrapy_records.treematch import TEXT, Detail, Matcher, PageTree, flatten, segment

__all__ = [
    "ATTR_SLOTS",
    "MAX_SAMPLES",
    "PList",
    "PNode",
    "Pattern",
    "Slot",
    "induce_pattern",
]

PATTERN_VERSION = 1
#: pattern recursion is bounded: deeper sub-trees become one opaque text slot
MAX_PATTERN_DEPTH = 120
#: sample values kept per slot
MAX_SAMPLES = 12
#: item pairs one sequence alignment scores at most (beyond: a band around the diagonal)
MAX_MERGE_CELLS = 20_000
#: tag -> (attribute, field type) of the attribute slots
ATTR_SLOTS = {"a": ("href", "url"), "img": ("src", "image")}


@dataclass
class Slot:
    """A slot of the template: a text leaf or an attribute.

    ``constant`` slots hold the same value in every instance (template labels); the
    others are data: their values vary across the sample pages or records. ``count`` is
    the number of instances holding a value.
    """

    samples: list[str] = field(default_factory=list)
    count: int = 0
    distinct: bool = False
    attr: str | None = None

    @property
    def constant(self) -> bool:
        return not self.distinct and self.count >= 2

    def add(self, other: Slot) -> Slot:
        s = Slot(
            list(self.samples), self.count + other.count, self.distinct or other.distinct, self.attr
        )
        if (
            not s.distinct
            and self.samples
            and other.samples
            and self.samples[0] != other.samples[0]
        ):
            s.distinct = True
        for v in other.samples:
            if len(s.samples) >= MAX_SAMPLES:
                break
            s.samples.append(v)
        return s

    def to_dict(self) -> dict[str, Any]:
        return {
            "samples": list(self.samples),
            "count": self.count,
            "constant": self.constant,
            "distinct": self.distinct,
            "attr": self.attr,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Slot:
        return cls(list(d["samples"]), int(d["count"]), bool(d["distinct"]), d.get("attr"))


@dataclass(eq=False)
class PNode:
    """A template node: tag (``#text`` for text leaves), optional flag, children, slots."""

    tag: str
    optional: bool = False
    children: list[Any] = field(default_factory=list)
    text: Slot | None = None
    attrs: dict[str, Slot] = field(default_factory=dict)
    classes: list[str] = field(default_factory=list)
    ident: str | None = None
    #: (sample page number, page node) of every instance: element index, or ~leaf index
    inst: list[tuple[int, int]] = field(default_factory=list, repr=False)


@dataclass(eq=False)
class PList:
    """A ``(D)+`` list of the template: the record template ``record`` (a PTA of all records)."""

    record: list[Any] = field(default_factory=list)
    optional: bool = False
    #: (sample page number, the record's child nodes) of every record instance
    inst: list[tuple[int, tuple[int, ...]]] = field(default_factory=list, repr=False)
    #: number of record instances seen (kept when the pattern is loaded from JSON)
    count: int = 0

    @property
    def records(self) -> int:
        return max(len(self.inst), self.count)


def _item_to_dict(root: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    stack: list[tuple[Any, dict[str, Any]]] = [(root, out)]
    while stack:
        it, d = stack.pop()
        if isinstance(it, PList):
            d["list"] = True
            d["optional"] = it.optional
            d["records"] = it.records
            kids = d["record"] = []
            src = it.record
        else:
            d["tag"] = it.tag
            d["optional"] = it.optional
            if it.text is not None:
                d["text"] = it.text.to_dict()
            if it.attrs:
                d["attrs"] = {k: v.to_dict() for k, v in it.attrs.items()}
            if it.classes:
                d["classes"] = list(it.classes)
            if it.ident:
                d["id"] = it.ident
            kids = d["children"] = []
            src = it.children
        for c in src:
            cd: dict[str, Any] = {}
            kids.append(cd)
            stack.append((c, cd))
    return out


def _item_from_dict(d: dict[str, Any]) -> Any:
    def make(x: dict[str, Any]) -> Any:
        if not isinstance(x, dict):
            raise ValueError("pattern item must be an object")
        if x.get("list"):
            return PList([], bool(x.get("optional", False)), [], int(x.get("records", 0)))
        return PNode(
            str(x["tag"]),
            bool(x.get("optional", False)),
            [],
            Slot.from_dict(x["text"]) if x.get("text") else None,
            {k: Slot.from_dict(v) for k, v in (x.get("attrs") or {}).items()},
            list(x.get("classes") or []),
            x.get("id"),
        )

    root = make(d)
    stack = [(root, d)]
    while stack:
        it, x = stack.pop()
        kids = x.get("record") if isinstance(it, PList) else x.get("children")
        dest = it.record if isinstance(it, PList) else it.children
        for cx in kids or []:
            c = make(cx)
            dest.append(c)
            stack.append((c, cx))
    return root


def _regex(items: list[Any]) -> str:
    out = []
    for it in items:
        if isinstance(it, PList):
            inner = _regex(it.record)
            out.append(
                ("(" + inner + ")+" if " " in inner else inner + "+") + ("?" if it.optional else "")
            )
        else:
            out.append(it.tag + ("?" if it.optional else ""))
    return " ".join(out)


@dataclass
class Pattern:
    """The tree pattern of a template, serialisable to JSON.

    :param root: the template tree (``PNode``; lists are ``PList`` items).
    :param pages: number of sample pages it was induced from.
    :param score: ``(score, nodes_A, nodes_B)`` of G-STM on the first two sample trees
        (``None`` for one page) and ``norm`` its normalized value.
    """

    root: PNode
    pages: int = 1
    urls: list[str | None] = field(default_factory=list)
    score: tuple[float, float, float] | None = None
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def norm(self) -> float | None:
        if self.score is None:
            return None
        m = max(self.score[1], self.score[2])
        return self.score[0] / m if m else 0.0

    def lists(self) -> list[PList]:
        """Every list of the template, outer before inner."""
        out = []
        stack: list[Any] = [self.root]
        while stack:
            it = stack.pop()
            if isinstance(it, PList):
                out.append(it)
                stack.extend(reversed(it.record))
            else:
                stack.extend(reversed(it.children))
        return out

    def regexes(self) -> list[str]:
        """``tag: child-regex`` of every internal element node (the paper's grammars)."""
        out = []
        stack: list[Any] = [self.root]
        while stack:
            it = stack.pop()
            kids = it.record if isinstance(it, PList) else it.children
            if isinstance(it, PNode) and kids:
                out.append(f"{it.tag}: {_regex(kids)}")
            stack.extend(reversed(kids))
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": "scrapy-records-gstm-pattern",
            "version": PATTERN_VERSION,
            "pages": self.pages,
            "urls": list(self.urls),
            "score": list(self.score) if self.score is not None else None,
            "options": dict(self.options),
            "root": _item_to_dict(self.root),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True, ensure_ascii=False)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Pattern:
        if not isinstance(d, dict) or d.get("format") != "scrapy-records-gstm-pattern":
            raise WrapperError("not a G-STM pattern document")
        if d.get("version") != PATTERN_VERSION:
            raise WrapperError(f"unsupported G-STM pattern version {d.get('version')!r}")
        try:
            root = _item_from_dict(d["root"])
            sc = d.get("score")
            return cls(
                root,
                int(d["pages"]),
                list(d.get("urls") or []),
                tuple(sc) if sc is not None else None,
                dict(d.get("options") or {}),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise WrapperError(f"invalid G-STM pattern document: {exc}") from exc

    @classmethod
    def from_json(cls, text: str) -> Pattern:
        try:
            return cls.from_dict(json.loads(text))
        except (ValueError, RecursionError) as exc:
            if isinstance(exc, WrapperError):
                raise
            raise WrapperError(f"G-STM pattern is not valid JSON: {exc}") from exc


class _PatternBuilder:
    """Collapse trees (lower-level lists first) and merge them by partial tree alignment
    with G-STM as the tree matcher (Jindal & Liu 2010, section 4.6)."""

    def __init__(self, matcher: Matcher, pattern_matcher: Matcher) -> None:
        self.M = matcher
        self.PM = pattern_matcher
        self._self_detail: dict[int, Detail | None] = {}
        self._shapes: dict[int, tuple[Any, int]] = {}
        self.plus = pattern_matcher.label("+")

    # ---------------------------------------------------------------- collapse
    def detail(self, h: int) -> Detail | None:
        if h in self._self_detail:
            return self._self_detail[h]
        M = self.M
        lab = M.s_label
        seen: set[int] = set()
        dup = False
        for c in M.s_children[h]:
            if lab[c] in seen:
                dup = True
                break
            seen.add(lab[c])
        d = M.self_lists(h) if dup else None
        self._self_detail[h] = d
        return d

    def collapse(self, T: PageTree, pg: int, v: int, depth: int = 0) -> PNode:
        page = T.page
        el = page.el[v]
        tag = page.tag[v]
        node = PNode(tag, inst=[(pg, v)])
        node.classes = [c for c in page.classes(v) if stable_token(c)]
        ident = el.get("id")
        node.ident = ident if ident and stable_id(ident) else None
        if tag in ATTR_SLOTS:
            name = ATTR_SLOTS[tag][0]
            val = (el.get(name) or "").strip()
            if val:
                node.attrs[name] = Slot([val], 1, False, name)
        if depth >= MAX_PATTERN_DEPTH:
            txt = page.text(v)
            if txt:
                node.children = [PNode(TEXT, text=Slot([txt], 1), inst=[(pg, v)])]
            return node
        kids = T.kids[v]
        if not kids:
            return node
        d = self.detail(T.shape[v])
        items: list[Any] = (
            segment(d.gram_a) if d is not None and d.gram_a is not None else list(range(len(kids)))
        )
        node.children = self._items(T, pg, v, items, depth)
        return node

    def _items(self, T: PageTree, pg: int, v: int, items: list[Any], depth: int) -> list[Any]:
        kids = T.kids[v]
        out: list[Any] = []
        for it in items:
            if isinstance(it, list):
                seqs = [self._items(T, pg, v, inst, depth) for inst in it]
                # alignment seed: the instance with the most nodes
                order = sorted(range(len(seqs)), key=lambda x: -self._seq_size(seqs[x]))
                rec = seqs[order[0]]
                for x in order[1:]:
                    rec = self.merge_seq(rec, seqs[x])
                insts = [(pg, tuple(kids[p] for p in flatten(inst))) for inst in it]
                out.append(PList(rec, False, insts))
            else:
                c = kids[it]
                if c >= 0:
                    out.append(self.collapse(T, pg, c, depth + 1))
                else:
                    out.append(PNode(TEXT, text=Slot([T.page.leaves[-c - 1]], 1), inst=[(pg, c)]))
        return out

    # ---------------------------------------------------------------- shapes
    def shape(self, item: Any) -> int:
        got = self._shapes.get(id(item))
        if got is not None and got[0] is item:
            return got[1]
        PM = self.PM
        stack: list[tuple[Any, bool]] = [(item, False)]
        while stack:
            it, done = stack.pop()
            if id(it) in self._shapes and self._shapes[id(it)][0] is it:
                continue
            kids = it.record if isinstance(it, PList) else it.children
            if not done:
                stack.append((it, True))
                stack.extend((c, False) for c in kids)
                continue
            lab = self.plus if isinstance(it, PList) else PM.label(it.tag)
            h = PM.intern(lab, tuple(self._shapes[id(c)][1] for c in kids))
            self._shapes[id(it)] = (it, h)
        return self._shapes[id(item)][1]

    def _seq_size(self, seq: list[Any]) -> int:
        return sum(self.PM.s_size[self.shape(x)] for x in seq)

    # ---------------------------------------------------------------- merging (PTA)
    def _score(self, p: Any, q: Any) -> float:
        PM = self.PM
        if isinstance(p, PList) and isinstance(q, PList):
            return PM.match(self.shape(p), self.shape(q))[0]
        if isinstance(p, PList) or isinstance(q, PList):
            lst, node = (p, q) if isinstance(p, PList) else (q, p)
            if (
                len(lst.record) == 1
                and isinstance(lst.record[0], PNode)
                and lst.record[0].tag == node.tag
            ):
                return PM.match(self.shape(lst.record[0]), self.shape(node))[0]
            return 0.0
        if p.tag != q.tag:
            return 0.0
        return PM.match(self.shape(p), self.shape(q))[0]

    def merge_seq(self, P: list[Any], Q: list[Any]) -> list[Any]:
        """Align two item sequences (STM's DP with G-STM scores) and merge them; unaligned
        items are inserted as optional, between their aligned neighbours."""
        if not P:
            return [self._optional(q) for q in Q]
        if not Q:
            return [self._optional(p) for p in P]
        k, n = len(P), len(Q)
        pairs = self._aligned_pairs(P, Q)
        out: list[Any] = []
        pi = qj = 0
        for a, b in pairs + [(k, n)]:
            out.extend(self._optional(x) for x in P[pi:a])
            out.extend(self._optional(x) for x in Q[qj:b])
            if a < k:
                out.append(self.merge(P[a], Q[b]))
            pi, qj = a + 1, b + 1
        return out

    def _aligned_pairs(self, P: list[Any], Q: list[Any]) -> list[tuple[int, int]]:
        """The aligned ``(i, j)`` item pairs: STM's DP over G-STM scores. Past
        :data:`MAX_MERGE_CELLS` item pairs the DP keeps to a band around the diagonal, so
        the scored pairs stay bounded (two pages of 5,000 distinct blocks: 25 million
        G-STM scores and DP cells otherwise)."""
        k, n = len(P), len(Q)
        w = max(MAX_MERGE_CELLS // (2 * max(k, n)), -(-max(k, n) // min(k, n)) + 1)
        banded = k * n > MAX_MERGE_CELLS
        S: dict[tuple[int, int], float] = {}
        m: dict[tuple[int, int], float] = {}

        def at(i: int, j: int) -> float:  # (outside the band: unreachable)
            return 0.0 if i == 0 or j == 0 else m.get((i, j), -1.0)

        for i in range(1, k + 1):
            lo, hi = 1, n
            if banded:
                c = i * n // k
                lo, hi = max(1, c - w), min(n, c + w)
            for j in range(lo, hi + 1):
                s = S[(i, j)] = self._score(P[i - 1], Q[j - 1])
                m[(i, j)] = max(at(i, j - 1), at(i - 1, j), at(i - 1, j - 1) + s)
        pairs = []
        i, j = k, n
        while i > 0 and j > 0:
            s = S.get((i, j), 0.0)
            if s > 0 and at(i, j) == at(i - 1, j - 1) + s:
                pairs.append((i - 1, j - 1))
                i -= 1
                j -= 1
            elif at(i, j) == at(i - 1, j):
                i -= 1
            elif at(i, j) == at(i, j - 1):
                j -= 1
            else:  # (a step of score 0 along the band's edge)
                i -= 1
                j -= 1
        pairs.reverse()
        return pairs

    @staticmethod
    def _optional(item: Any) -> Any:
        item.optional = True
        return item

    def merge(self, p: Any, q: Any) -> Any:
        if isinstance(p, PList) and isinstance(q, PList):
            return PList(
                self.merge_seq(p.record, q.record), p.optional or q.optional, p.inst + q.inst
            )
        if isinstance(p, PList) or isinstance(q, PList):
            lst, node = (p, q) if isinstance(p, PList) else (q, p)
            rec = [self.merge(lst.record[0], node)]
            inst = lst.inst + [(pg, (x,)) for pg, x in node.inst]
            return PList(rec, lst.optional or node.optional, inst)
        out = PNode(p.tag, p.optional or q.optional)
        out.inst = p.inst + q.inst
        out.classes = [c for c in p.classes if c in q.classes]
        out.ident = p.ident if p.ident == q.ident else None
        if p.text is not None or q.text is not None:
            if p.text is None or q.text is None:
                out.text = p.text or q.text
            else:
                out.text = p.text.add(q.text)
        for name in set(p.attrs) | set(q.attrs):
            a, b = p.attrs.get(name), q.attrs.get(name)
            out.attrs[name] = a.add(b) if a is not None and b is not None else (a or b)
        out.children = self.merge_seq(p.children, q.children)
        return out


def induce_pattern(pages: list[Any], **options: Any) -> Pattern:
    """Problem 1: a tree pattern from pages of one template.

    Each page is collapsed first: its lists are found by G-STM against its own copy and
    every list is replaced by the partial tree alignment of its records (lower-level lists
    first). The collapsed trees are then merged by partial tree alignment, G-STM scoring
    the candidate node pairs; a list on one page aligns with a single instance on another.
    Nodes missing from some page become optional. One page gives a pattern with its lists
    only.

    Unlike the partial tree alignment the paper borrows, unaligned nodes are always
    inserted (an ambiguous position puts the seed's nodes first) instead of being retried.
    Options: the G-STM matcher options (:func:`scrapy_records.extractors.gstm.make_matcher`).
    """
    opts = dict(options)
    try:
        M = make_matcher(opts)
    except (TypeError, ValueError) as exc:
        raise OptionError(f"gstm: {exc}") from exc
    kw = {k: getattr(M, k) for k in ("tau1", "tau2", "r2", "sizes", "max_cells", "max_node_cells")}
    PM = Matcher(
        tau1=M.tau1,
        tau2=M.tau2,
        r2=M.r2,
        sizes=M.sizes,
        grammar="literal" if M.literal_grammar else "r6",
    )
    if opts:
        raise OptionError(f"unknown option(s) for the G-STM pattern: {', '.join(sorted(opts))}")
    plist = [as_page(p) for p in pages]
    if not plist:
        raise ValueError("induce_pattern() needs at least one page")
    B = _PatternBuilder(M, PM)
    trees = [M.page_tree(p, root=0) for p in plist]
    score = None
    if len(trees) >= 2:
        score = M.match(trees[0].shape[0], trees[1].shape[0])
    collapsed = []
    for pg, T in enumerate(trees):
        if not len(T.page):
            continue
        M.match(T.shape[0], T.shape[0])
        collapsed.append(B.collapse(T, pg, 0))
    if not collapsed:
        raise ValueError("no page holds any element")
    order = sorted(range(len(collapsed)), key=lambda x: -B._seq_size([collapsed[x]]))
    root = collapsed[order[0]]
    for x in order[1:]:
        other = collapsed[x]
        if other.tag != root.tag:
            continue
        root = B.merge(root, other)
    kw["grammar"] = "literal" if M.literal_grammar else "r6"
    return Pattern(root, len(plist), [p.url for p in plist], score, kw)

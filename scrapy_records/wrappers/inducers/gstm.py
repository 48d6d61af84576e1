"""G-STM pattern induction over several pages of one template (Jindal & Liu, Problem 1)."""

from __future__ import annotations

import json
import logging
import math
import re as _re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from scrapy_records.errors import WrapperError
from scrapy_records.extractors.gstm import make_matcher
from scrapy_records.fields.values import guess_type
from scrapy_records.page import Page, as_page
from scrapy_records.treematch import TEXT, Detail, Matcher, PageTree, flatten, segment
from scrapy_records.wrappers.model import (
    FieldSpec,
    Health,
    ListSpec,
    Provenance,
    RecordSelector,
    TemplateInfo,
)
from scrapy_records.wrappers.selectors import stable_token
from scrapy_records.wrappers.wrapper import Wrapper

logger = logging.getLogger(__name__)

__all__ = [
    "PList",
    "PNode",
    "Pattern",
    "Slot",
    "induce_pattern",
    "induce_wrapper",
    "pattern_wrapper",
]


# ============================================================== Problem 1: the pattern
PATTERN_VERSION = 1
#: pattern recursion is bounded: deeper sub-trees become one opaque text slot
MAX_PATTERN_DEPTH = 120
_MAX_SAMPLES = 12
_ATTR_SLOTS = {"a": ("href", "url"), "img": ("src", "image")}


@dataclass
class Slot:
    """A data slot of the template (digest §1.5 [proj], R-10): a text leaf or an attribute.

    ``constant`` slots hold the same value in every instance (template labels); the
    others are data. ``count`` is the number of instances holding a value.
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
            if len(s.samples) >= _MAX_SAMPLES:
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
    """The tree pattern of a template (digest §1.5, §3.10, §8.1): serialisable.

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


class _Builder:
    """Collapse trees (lower-level lists first) and merge them by partial tree alignment
    with G-STM as the tree matcher (digest §2.9, §3.10, §3.11 Problem 1)."""

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
        try:
            from scrapy_records.wrappers.selectors import stable_id, stable_token
        except ImportError:  # pragma: no cover
            stable_id = stable_token = lambda x: False  # noqa: E731
        node.classes = [c for c in page.classes(v) if stable_token(c)]
        ident = el.get("id")
        node.ident = ident if ident and stable_id(ident) else None
        if tag in _ATTR_SLOTS:
            name = _ATTR_SLOTS[tag][0]
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
                # PTA seed: the instance with most nodes (digest §3.10 step 2)
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
        items are inserted as optional, between their aligned neighbours (PTA step 4)."""
        if not P:
            return [self._optional(q) for q in Q]
        if not Q:
            return [self._optional(p) for p in P]
        k, n = len(P), len(Q)
        S = [[self._score(p, q) for q in Q] for p in P]
        m = [[0.0] * (n + 1) for _ in range(k + 1)]
        for i in range(1, k + 1):
            for j in range(1, n + 1):
                m[i][j] = max(m[i][j - 1], m[i - 1][j], m[i - 1][j - 1] + S[i - 1][j - 1])
        pairs = []
        i, j = k, n
        while i > 0 and j > 0:
            s = S[i - 1][j - 1]
            if s > 0 and m[i][j] == m[i - 1][j - 1] + s:
                pairs.append((i - 1, j - 1))
                i -= 1
                j -= 1
            elif m[i][j] == m[i - 1][j]:
                i -= 1
            else:
                j -= 1
        pairs.reverse()
        out: list[Any] = []
        pi = qj = 0
        for a, b in pairs + [(k, n)]:
            out.extend(self._optional(x) for x in P[pi:a])
            out.extend(self._optional(x) for x in Q[qj:b])
            if a < k:
                out.append(self.merge(P[a], Q[b]))
            pi, qj = a + 1, b + 1
        return out

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
            out.attrs[name] = a.add(b) if a is not None and b is not None else (a or b)  # type: ignore[assignment]
        out.children = self.merge_seq(p.children, q.children)
        return out


def induce_pattern(pages: list[Any], **options: Any) -> Pattern:
    """Problem 1 (digest §1.2, §3.10, §3.11, §8.2): a tree pattern from pages of one template.

    Each page is collapsed first: its lists are found by G-STM against its own copy and
    every list is replaced by the partial tree alignment of its records (lower-level lists
    first). The collapsed trees are then merged by partial tree alignment, G-STM scoring
    the candidate node pairs; a list on one page aligns with a single instance on another
    (the ``X+Y`` vs ``XY`` case of R-2). Nodes missing from some page become optional.
    One page gives a pattern with its lists only (§8.2 step 5).

    Differences from PTA (documented, [proj]): unaligned nodes are always inserted (an
    ambiguous position puts the seed's nodes first) instead of being retried.
    """
    opts = dict(options)
    M = make_matcher(opts)
    kw = {k: getattr(M, k) for k in ("tau1", "tau2", "r2", "sizes", "max_cells", "max_node_cells")}
    PM = Matcher(
        tau1=M.tau1,
        tau2=M.tau2,
        r2=M.r2,
        sizes=M.sizes,
        grammar="literal" if M.literal_grammar else "r6",
    )
    if opts:
        raise TypeError(f"unknown option(s) for the G-STM pattern: {', '.join(sorted(opts))}")
    plist = [as_page(p) for p in pages]
    if not plist:
        raise ValueError("induce_pattern() needs at least one page")
    B = _Builder(M, PM)
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


# ============================================================== pattern -> Wrapper
_TAG_OK = _re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")
_NAME_BAD = _re.compile(r"[^A-Za-z0-9_\-]+")


def class_predicate(c: str) -> str:
    return f"contains(concat(' ', normalize-space(@class), ' '), ' {c} ')"


def _tag_step(tag: str) -> str:
    return tag if _TAG_OK.match(tag) else f"*[name()='{tag}']"


class _WrapperBuilder:
    """Turn a :class:`Pattern` into selectors, verified on the sample pages (digest §8)."""

    def __init__(self, pattern: Pattern, pages: list[Page]) -> None:
        self.P = pattern
        self.pages = pages
        self.parent: dict[int, PNode | None] = {}
        self.chain_opt: dict[int, bool] = {}
        self._abs: dict[int, str] = {}
        self._names: set[str] = set()
        self._row: dict[int, str] = {}
        #: emit multi-valued page fields for variable-length lists without labels (noisy)
        self.multi_fields = True
        stack: list[tuple[Any, PNode | None]] = [(pattern.root, None)]
        while stack:
            it, par = stack.pop()
            if isinstance(it, PList):
                for c in it.record:
                    stack.append((c, par))
            else:
                self.parent[id(it)] = par
                for c in it.children:
                    stack.append((c, it))

    # ------------------------------------------------------------ instances
    def elems(self, node: PNode) -> list[Any]:
        out = []
        for pg, x in node.inst:
            if x >= 0 and pg < len(self.pages):
                out.append(self.pages[pg].el[x])
        return out

    def step(self, node: PNode, contexts: list[Any]) -> tuple[str, bool]:
        """The most robust child step from ``contexts`` selecting exactly ``node``'s instances."""
        want = self.elems(node)
        by_parent: dict[Any, set[Any]] = {}
        for e in want:
            by_parent.setdefault(e.getparent(), set()).add(e)
        tag = _tag_step(node.tag)
        cands = []
        if node.ident:
            cands.append(f"{tag}[@id='{node.ident}']")
        for c in node.classes[:4]:
            cands.append(f"{tag}[{class_predicate(c)}]")
        idx = set()
        for e in want:
            k = 1
            for s in e.itersiblings(preceding=True):
                if s.tag == e.tag:
                    k += 1
            idx.add(k)
        cands.append(tag)
        if len(idx) == 1:
            cands.append(f"{tag}[{idx.pop()}]")
        best, best_err = tag, None
        for c in cands:
            miss = extra = 0
            for ctx in contexts:
                try:
                    got = {x for x in ctx.xpath(c) if hasattr(x, "tag")}
                except Exception:
                    got = set()
                exp = by_parent.get(ctx, set())
                miss += len(exp - got)
                extra += len(got - exp)
            if miss == 0 and extra == 0:
                return c, True
            err = (miss, extra)
            if best_err is None or err < best_err:
                best, best_err = c, err
        return best, False

    def abs_path(self, node: PNode) -> str:
        """Absolute XPath of a template element node, step by step from the root."""
        chain = []
        x: PNode | None = node
        while x is not None and id(x) not in self._abs:
            chain.append(x)
            x = self.parent.get(id(x))
        for n in reversed(chain):
            par = self.parent.get(id(n))
            if par is None:
                self._abs[id(n)] = "/" + _tag_step(n.tag)
                continue
            if n.ident and self._unique_id(n):
                self._abs[id(n)] = f"//{_tag_step(n.tag)}[@id='{n.ident}']"
                continue
            st, _ = self.step(n, self.elems(par))
            self._abs[id(n)] = self._abs[id(par)] + "/" + st
        return self._abs[id(node)]

    def _unique_id(self, n: PNode) -> bool:
        want = set(self.elems(n))
        got: set[Any] = set()
        for p in self.pages:
            try:
                got.update(p.root.xpath(f"//*[@id='{n.ident}']"))
            except Exception:
                return False
        return got == want

    # ------------------------------------------------------------ naming
    def name(self, hint: str) -> str:
        base = _NAME_BAD.sub("_", hint).strip("_-") or "field"
        if not (base[0].isalpha() or base[0] == "_"):
            base = "f_" + base
        base = base[:40]
        name, k = base, 2
        while name in self._names:
            name = f"{base}_{k}"
            k += 1
        self._names.add(name)
        return name

    # ------------------------------------------------------------ lists
    def _list_info(self, L: PList) -> float:
        info = 0.0
        # only slots inside element items count: bare text between records (``(#text br)+``)
        # cannot be selected as a record
        stack = [x for x in L.record if isinstance(x, PList) or x.tag != TEXT]
        while stack:
            it = stack.pop()
            if isinstance(it, PList):
                stack.extend(it.record)
                continue
            if it.text is not None and not it.text.constant and it.text.samples:
                avg = sum(len(s) for s in it.text.samples) / len(it.text.samples)
                info += 1.0 + min(avg, 100.0) / 20.0
            for s in it.attrs.values():
                if not s.constant:
                    info += 0.5
            stack.extend(it.children)
        return info

    def _record_share(self, L: PList) -> float:
        """Mean share of its page's text held by one record of ``L``."""
        tot = 0.0
        cnt = 0
        for pg, nodes in L.inst:
            if pg >= len(self.pages):
                continue
            page = self.pages[pg]
            body = sum(len(x) for x in page.leaves) or 1
            n = 0
            for x in nodes:
                if x >= 0:
                    n += sum(len(page.leaves[k]) for k in range(page.leaf_lo[x], page.leaf_hi[x]))
                else:
                    n += len(page.leaves[-x - 1])
            tot += n / body
            cnt += 1
        return tot / cnt if cnt else 0.0

    def main_list(self) -> PList | None:
        best, best_s = None, 0.0
        npages = max(1, self.P.pages)
        for L in self.P.lists():
            per_page = L.records / npages
            if L.records < 2 or not any(isinstance(x, PNode) and x.tag != TEXT for x in L.record):
                continue
            if any(isinstance(x, PList) for x in L.record):
                continue  # same-level nested lists ((a(bc)+)+) have no fixed-size record selector
            if self._fixed_arity(L):
                continue  # the cells of a row (td+ of fixed length) are columns
            # a list with about one record per page is a page part, not a record list
            s = self._list_info(L) * math.log2(1 + per_page) * (1.0 if per_page >= 1.5 else 0.1)
            # "records" holding a large share of their page are page parts (as in the extractor)
            share = self._record_share(L)
            cells = all(
                x.tag in ("td", "th") for x in L.record if isinstance(x, PNode) and x.tag != TEXT
            )
            if cells and share > 0.2:
                continue  # the columns of a layout table, not records (a grid's cells are small)
            s *= 1.0 if share <= 0.25 else max(0.1, 1.0 - 2.0 * (share - 0.25))
            if s > best_s:
                best, best_s = L, s
        return best

    def record_selector(self, L: PList, contexts: list[Any] | None, ctx_path: str | None):
        items = L.record
        r0 = next(
            (
                k
                for k, x in enumerate(items)
                if isinstance(x, PNode) and x.tag != TEXT and not x.optional
            ),
            None,
        )
        if r0 is None:
            r0 = next(k for k, x in enumerate(items) if isinstance(x, PNode) and x.tag != TEXT)
        R0 = items[r0]
        if contexts is None:
            xp = self.abs_path(R0)
        else:
            par = self.parent.get(id(R0))
            rel = self.rel_path(par, contexts, ctx_path) if par is not None else ""
            st, _ = self.step(R0, self.elems(par) if par is not None else contexts)
            xp = (rel + "/" if rel and rel != "." else "") + st
        size = 1
        for x in items[r0 + 1 :]:
            if isinstance(x, PNode) and x.tag != TEXT and not x.optional:
                size += 1
            else:
                break
        return RecordSelector(xp, None, size), r0, R0

    def rel_path(self, node: PNode, contexts: list[Any], ctx_node_path: Any) -> str:
        """Relative path from an ancestor (whose instances are ``contexts``) down to ``node``."""
        chain = []
        x: PNode | None = node
        ctx_set = set(contexts)
        while x is not None and not (set(self.elems(x)) & ctx_set):
            chain.append(x)
            x = self.parent.get(id(x))
        steps = []
        for n in reversed(chain):
            par = self.parent.get(id(n))
            st, _ = self.step(n, self.elems(par) if par is not None else contexts)
            steps.append(st)
        return "/".join(steps) if steps else "."

    def list_fields(self, L: PList, r0: int, R0: PNode):
        """Fields and nested lists of one list's records, relative to the record's first element."""
        fields: list[FieldSpec] = []
        lists: list[ListSpec] = []
        n_rec = max(1, L.records)
        items = L.record
        for k, it in enumerate(items):
            if not isinstance(it, PNode) or it.tag == TEXT:
                continue
            if k == r0:
                prefix = ""
            elif k > r0:
                between = items[r0 + 1 : k]
                if all(isinstance(b, PNode) and b.tag != TEXT and not b.optional for b in between):
                    prefix = f"following-sibling::*[{k - r0}][self::{_tag_step(it.tag)}]"
                else:
                    prefix = f"following-sibling::{_tag_step(it.tag)}[1]"
            elif k == r0 - 1:
                prefix = f"preceding-sibling::*[1][self::{_tag_step(it.tag)}]"
            else:
                continue
            # walk the item's sub-template
            up0 = None
            anc = self.parent.get(id(R0))
            for _ in range(3):  # name hint from the list's container (ul.features -> features_li)
                if anc is None:
                    break
                if anc.classes or anc.ident:
                    up0 = anc.classes[0] if anc.classes else anc.ident
                    break
                anc = self.parent.get(id(anc))
            stack: list[tuple[PNode, str, bool, str | None]] = [(it, prefix, it.optional, up0)]
            while stack:
                node, path, opt, up = stack.pop()
                ctxs = self.elems(node)
                texts = [c for c in node.children if isinstance(c, PNode) and c.tag == TEXT]
                has_el = any(not (isinstance(c, PNode) and c.tag == TEXT) for c in node.children)
                own = node.classes[0] if node.classes else node.ident
                hint = own or (f"{up}_{node.tag}" if up else node.tag)
                up = own or up
                for name, slot in node.attrs.items():
                    if slot.constant or not slot.samples:
                        continue
                    ftype = _ATTR_SLOTS.get(node.tag, (name, "url"))[1]
                    fields.append(
                        FieldSpec(
                            self.name(f"{hint}_{'url' if ftype == 'url' else 'image'}"),
                            ftype,
                            path or ".",
                            None,
                            name,
                            opt or slot.count < n_rec,
                            False,
                        )
                    )
                for j, t in enumerate(texts, 1):
                    slot = t.text
                    if slot is None or slot.constant or not slot.samples:
                        continue
                    if len(texts) == 1 and not has_el:
                        xp = path or "."
                    else:
                        xp = (path + "/" if path else "") + f"text()[normalize-space()][{j}]"
                    fields.append(
                        FieldSpec(
                            self.name(hint),
                            guess_type(slot.samples),
                            xp,
                            None,
                            None,
                            opt or t.optional or slot.count < n_rec,
                            False,
                        )
                    )
                for c in reversed(node.children):
                    if isinstance(c, PList):
                        if not any(isinstance(x, PNode) and x.tag != TEXT for x in c.record):
                            continue
                        arity = self._fixed_arity(c)
                        if arity:
                            fields.extend(self._arity_fields(c, arity, path, opt, up))
                            continue
                        rs, cr0, CR0 = self.record_selector(c, ctxs, None)
                        rs.xpath = (path + "/" if path else "") + rs.xpath
                        sub_f, sub_l = self.list_fields(c, cr0, CR0)
                        if sub_f or sub_l:
                            hint_l = (CR0.classes[0] if CR0.classes else None) or f"{CR0.tag}_list"
                            lists.append(ListSpec(self.name(hint_l), rs, sub_f, sub_l, True))
                    elif c.tag != TEXT:
                        st, _ = self.step(c, ctxs)
                        stack.append((c, (path + "/" if path else "") + st, opt or c.optional, up))
        return fields, lists

    def _fixed_arity(self, L: PList, max_arity: int = 8) -> int:
        """A-15: a primitive inner list (one leaf-like element per record) whose every
        instance has the same length is a row of columns, not a nested list."""
        if len(L.record) != 1 or not isinstance(L.record[0], PNode):
            return 0
        r = L.record[0]
        if r.tag == TEXT or any(not (isinstance(c, PNode) and c.tag == TEXT) for c in r.children):
            return 0
        counts: dict[Any, int] = {}
        for pg, nodes in L.inst:
            if not nodes or nodes[0] < 0 or pg >= len(self.pages):
                return 0
            par = self.pages[pg].parent[nodes[0]]
            counts[(pg, par)] = counts.get((pg, par), 0) + 1
        vals = set(counts.values())
        if len(vals) != 1:
            return 0
        c = vals.pop()
        return c if 2 <= c <= max_arity else 0

    def _arity_fields(
        self, L: PList, arity: int, path: str, opt: bool, up: str | None
    ) -> list[Any]:
        r = L.record[0]
        by_pos: list[list[Any]] = [[] for _ in range(arity)]
        seen: dict[Any, int] = {}
        for pg, nodes in L.inst:
            page = self.pages[pg]
            key = (pg, page.parent[nodes[0]])
            k = seen.get(key, 0)
            seen[key] = k + 1
            by_pos[k].append(page.el[nodes[0]])
        out = []
        tag = _tag_step(r.tag)
        for k, els in enumerate(by_pos, 1):
            common = None
            for e in els:
                cl = {c for c in (e.get("class") or "").split() if stable_token(c)}
                common = cl if common is None else common & cl
            cls = sorted(common or ())
            step = f"{tag}[{class_predicate(cls[0])}]" if cls else f"{tag}[{k}]"
            samples = [" ".join(" ".join(e.itertext()).split()) for e in els[:_MAX_SAMPLES]]
            hint = cls[0] if cls else (f"{up}_{r.tag}{k}" if up else f"{r.tag}{k}")
            out.append(
                FieldSpec(
                    self.name(hint),
                    guess_type([x for x in samples if x]),
                    (path + "/" if path else "") + step,
                    None,
                    None,
                    opt or L.optional or r.optional,
                    False,
                )
            )
        return out

    def page_fields(self, exclude: PList | None) -> list[Any]:
        out: list[FieldSpec] = []
        stack: list[tuple[Any, bool, str | None, bool]] = [(self.P.root, False, None, False)]
        multi = self.P.pages >= 2
        while stack and len(out) < 80:
            it, opt, up, inlist = stack.pop()
            if isinstance(it, PList):
                if multi and it is not exclude:
                    out.extend(self._list_page_fields(it, opt))
                    # key/value lists may sit inside its records
                    for c in reversed(it.record):
                        if isinstance(c, PList) or c.tag != TEXT:
                            stack.append((c, True, up, True))
                continue
            if inlist:
                for c in reversed(it.children):
                    if isinstance(c, PList) or c.tag != TEXT:
                        stack.append((c, True, up, True))
                continue
            own = it.classes[0] if it.classes else it.ident
            hint = own or (f"{up}_{it.tag}" if up else it.tag)
            up = own or up
            texts = [c for c in it.children if isinstance(c, PNode) and c.tag == TEXT]
            has_el = any(not (isinstance(c, PNode) and c.tag == TEXT) for c in it.children)
            # data: varies across pages, or seen on some pages only; one page cannot
            # tell data from template text, so a one-page wrapper has no page fields
            data = [
                (j, t)
                for j, t in enumerate(texts, 1)
                if multi and t.text is not None and not t.text.constant and t.text.samples
            ]
            attrs = [(k, s) for k, s in it.attrs.items() if multi and not s.constant and s.samples]
            if data or attrs:
                base = self.abs_path(it)
                for name, slot in attrs:
                    ftype = _ATTR_SLOTS.get(it.tag, (name, "url"))[1]
                    out.append(
                        FieldSpec(
                            self.name(f"{hint}_{ftype}"),
                            ftype,
                            base,
                            None,
                            name,
                            opt or slot.count < self.P.pages,
                            False,
                        )
                    )
                for j, t in data:
                    xp = (
                        base
                        if (len(texts) == 1 and not has_el)
                        else f"{base}/text()[normalize-space()][{j}]"
                    )
                    out.append(
                        FieldSpec(
                            self.name(hint),
                            guess_type(t.text.samples),
                            xp,
                            None,
                            None,  # type: ignore[union-attr]
                            opt or t.optional or t.text.count < self.P.pages,
                            False,
                        )
                    )  # type: ignore[union-attr]
            for c in reversed(it.children):
                if isinstance(c, PList) or c.tag != TEXT:
                    stack.append((c, opt or c.optional, up, False))
        return self._drop_constants(out[:80])

    def _list_page_fields(self, L: PList, opt: bool) -> list[Any]:
        """Page fields from a list that is not the record list (A-15 on detail pages: a
        key/value table is a ``tr+``, often ``(tr tr?)+`` with spacer rows).

        When every sample page holds the list once with the same number of elements and
        position ``k`` has the same item template on every page, the list is a tuple: one
        field per position and slot (``container/tr[k]/...``), named later after the row's
        constant label. Otherwise each slot of a simple record is a multi-valued field.
        """
        items: dict[tuple[int, int], PNode] = {}
        stack: list[PList] = [L]
        nested = False
        while stack:
            x = stack.pop()
            for it in x.record:
                if isinstance(it, PList):
                    nested = True
                    stack.append(it)
                elif it.tag != TEXT:
                    for key in it.inst:
                        items[key] = it
        if not items:
            return []
        seqs: dict[int, list[int]] = {}
        parents: dict[int, set[int]] = {}
        for pg, nodes in L.inst:
            if pg >= len(self.pages):
                return []
            for n in nodes:
                if n >= 0:
                    seqs.setdefault(pg, []).append(n)
                    parents.setdefault(pg, set()).add(self.pages[pg].parent[n])
        out: list[Any] = []
        lens = {len(v) for v in seqs.values()}
        fixed = (
            len(seqs) == self.P.pages
            and len(lens) == 1
            and all(len(v) == 1 for v in parents.values())
        )
        par = next((self.parent.get(id(x)) for x in items.values()), None)
        if fixed and par is not None and lens.pop() <= 60:
            cpath = self.abs_path(par)
            c = len(seqs[0])
            for k in range(c):
                temps = {id(items.get((pg, seqs[pg][k]))) for pg in seqs}
                T = items.get((0, seqs[0][k]))
                if T is None or len(temps) != 1:
                    continue
                idx = set()
                for pg, seq in seqs.items():
                    e = self.pages[pg].el[seq[k]]
                    idx.add(
                        1 + sum(1 for sib in e.itersiblings(preceding=True) if sib.tag == e.tag)
                    )
                if len(idx) != 1:
                    continue
                prefix = f"{cpath}/{_tag_step(T.tag)}[{idx.pop()}]"
                fields, _ = self.list_fields(PList([T], False, [], 1), 0, T)
                for f in fields:
                    f2 = FieldSpec(
                        f"{f.name}_{k + 1}",
                        f.type,
                        prefix + ("" if f.xpath == "." else "/" + f.xpath),
                        None,
                        f.attribute,
                        opt or f.optional or T.optional,
                        False,
                    )
                    self._row[id(f2)] = prefix
                    out.append(f2)
            return out
        if par is not None and len(seqs) == self.P.pages:
            anchored = self._label_rows(items, seqs, par, opt)
            if anchored:
                return anchored
        if nested or not self.multi_fields:
            return []
        rs, r0, R0 = self.record_selector(L, None, None)
        fields, _ = self.list_fields(L, r0, R0)
        for f in fields:
            xp = rs.xpath + ("" if f.xpath == "." else "/" + f.xpath)
            out.append(FieldSpec(f.name, f.type, xp, None, f.attribute, True, True))
        return out

    def _label_rows(
        self, items: dict[tuple[int, int], PNode], seqs: dict[int, list[int]], par: PNode, opt: bool
    ) -> list[Any]:
        """Label-anchored fields of a variable-length key/value list: a row whose first text
        (its label) occurs once on every sample page gives fields selected by that label
        (``tr[.//text()[normalize-space()='Born:']]/td[2]``); values equal on every page are
        template text and dropped."""

        cpath = self.abs_path(par)
        tfields: dict[int, list[Any]] = {}
        rows: dict[tuple[int, str], dict[int, Any]] = {}
        for pg, seq in seqs.items():
            page = self.pages[pg]
            seen: dict[tuple[int, str], int] = {}
            for n in seq:
                T = items.get((pg, n))
                if T is None or page.leaf_lo[n] >= page.leaf_hi[n]:
                    continue
                label = page.leaves[page.leaf_lo[n]]
                if len(label) > 40 or "'" in label or not any(ch.isalpha() for ch in label):
                    continue
                key = (id(T), label)
                seen[key] = seen.get(key, 0) + 1
                rows.setdefault(key, {})[pg] = (T, page.el[n])
            for key, cnt in seen.items():
                if cnt > 1:
                    rows[key][pg] = None  # ambiguous label on this page
        out: list[Any] = []
        for (tid, label), per in rows.items():
            if len(per) != self.P.pages or any(v is None for v in per.values()):
                continue
            T = next(iter(per.values()))[0]
            if tid not in tfields:
                tfields[tid] = self.list_fields(PList([T], False, [], 1), 0, T)[0]
            n_before = len(out)
            self._label_fields(label, per, cpath, T, tfields[tid], opt, out)
            if len(out) == n_before:
                self._label_cell(label, per, cpath, T, opt, out)
        return out

    def _label_cell(
        self, label: str, per: dict[int, Any], cpath: str, T: PNode, opt: bool, out: list[Any]
    ) -> None:
        """The cell after the label's cell, when it is the same cell on every page."""
        where = set()
        vals = []
        for _, el in per.values():
            kids = [c for c in el if isinstance(c.tag, str)]
            j = next(
                (x for x, c in enumerate(kids) if label in " ".join("".join(c.itertext()).split())),
                None,
            )
            if j is None:
                return
            nxt = next((c for c in kids[j + 1 :] if " ".join("".join(c.itertext()).split())), None)
            if nxt is None:
                return
            idx = 1 + sum(1 for sib in nxt.itersiblings(preceding=True) if sib.tag == nxt.tag)
            where.add((nxt.tag, idx))
            vals.append(" ".join("".join(nxt.itertext()).split()))
        if len(where) != 1 or len(set(vals)) == 1 or not isinstance(next(iter(where))[0], str):
            return
        tag, idx = where.pop()
        xp = f"({cpath}/{_tag_step(T.tag)}[.//text()[normalize-space()='{label}']])[1]/{_tag_step(tag)}[{idx}]"
        slug = _NAME_BAD.sub("_", label.lower()).strip("_-")[:30]
        out.append(
            FieldSpec(
                self.name(slug if slug and slug[0].isalpha() else "value"),
                guess_type(vals),
                xp,
                None,
                None,
                opt,
                False,
            )
        )

    def _label_fields(
        self,
        label: str,
        per: dict[int, Any],
        cpath: str,
        T: PNode,
        fields: list[Any],
        opt: bool,
        out: list[Any],
    ) -> None:
        for f in fields:
            vals = []
            for _, el in per.values():
                try:
                    nodes = el.xpath(f.xpath)
                except Exception:
                    nodes = []
                v = None
                for nd in nodes if isinstance(nodes, list) else []:
                    v = (
                        nd.get(f.attribute)
                        if f.attribute
                        else " ".join(
                            ("".join(nd.itertext()) if hasattr(nd, "itertext") else str(nd)).split()
                        )
                    )
                    if v:
                        break
                vals.append(v)
            if not any(vals) or (all(vals) and len(set(vals)) == 1):
                continue  # absent, or template text (the label itself)
            xp = f"({cpath}/{_tag_step(T.tag)}[.//text()[normalize-space()='{label}']])[1]"
            slug = _NAME_BAD.sub("_", label.lower()).strip("_-")[:30]
            name = slug if slug and slug[0].isalpha() else f.name
            if f.attribute:
                name = f"{name}_{f.attribute}"
            out.append(
                FieldSpec(
                    self.name(name),
                    f.type,
                    xp + ("" if f.xpath == "." else "/" + f.xpath),
                    None,
                    f.attribute,
                    opt or not all(vals),
                    False,
                )
            )

    def _drop_constants(self, fields: list[Any]) -> list[Any]:
        """Evaluate page fields on the samples: a field with the same value on every page is a
        template label (R-10): dropped, and used to name the data fields of its row."""
        if self.P.pages < 2 or not fields:
            return fields
        keep = []
        labels: dict[str, str] = {}
        for f in fields:
            got = []
            for p in self.pages:
                try:
                    nodes = p.root.xpath(f.xpath)
                except Exception:
                    nodes = []
                v = None
                for nd in nodes if isinstance(nodes, list) else []:
                    if f.attribute:
                        v = nd.get(f.attribute) if hasattr(nd, "get") else None
                    else:
                        v = " ".join(
                            ("".join(nd.itertext()) if hasattr(nd, "itertext") else str(nd)).split()
                        )
                    if v:
                        break
                got.append(v or None)
            present = [g for g in got if g]
            if not present:
                continue  # selects nothing on the samples
            if len(present) == len(got) and len(set(present)) == 1 and not f.multiple:
                row = self._row.get(id(f))
                if row is not None:
                    labels.setdefault(row, present[0])
                continue
            keep.append(f)
        for f in keep:
            lab = labels.get(self._row.get(id(f), ""))
            if lab:
                slug = _NAME_BAD.sub("_", lab.lower()).strip("_-")[:30]
                if slug and slug[0].isalpha():
                    self._names.discard(f.name)
                    f.name = self.name(slug)
        return keep


def pattern_wrapper(
    pattern: Pattern,
    pages: list[Any],
    *,
    site: str | None = None,
    min_fit: float = 0.5,
    page_fields: bool = True,
) -> Any:
    """Build a :class:`~scrapy_records.wrappers.model.Wrapper` from a pattern and its sample pages.

    The record selector comes from the pattern's main list (the one holding most data
    slots, weighted by records per page); fields from the data slots of its record template
    (constants, R-10, are skipped); nested lists become ``ListSpec``; data slots outside the
    lists become page fields. Every step is chosen robust-first (id, stable class, tag,
    position) and verified on the sample pages to select exactly the template instances.
    """

    plist = [as_page(p) for p in pages]
    B = _WrapperBuilder(pattern, plist)
    L = B.main_list()
    record = None
    fields: list[Any] = []
    lists: list[Any] = []
    if L is not None:
        record, r0, R0 = B.record_selector(L, None, None)
        fields, lists = B.list_fields(L, r0, R0)
    pfields = B.page_fields(L) if page_fields else []
    if record is None and not pfields:
        raise WrapperError("the G-STM pattern holds no list and no varying page data")
    if record is not None and not fields and not lists:
        fields = [FieldSpec(B.name("text"), "text", ".", None, None, False, False)]
    if site is None:
        url = next((p.url for p in plist if p.url), None)
        site = urlsplit(url).hostname if url else None
    tinfo = TemplateInfo()
    try:
        from scrapy_records.wrappers.templates import page_signature

        sig = page_signature(plist[0])
        tinfo = TemplateInfo(id=sig.template_id, method=sig.method, signature=list(sig.sketch))
    except Exception:  # pragma: no cover - template grouping is optional here
        pass
    opts = dict(pattern.options)
    if pattern.norm is not None:
        opts["pattern_norm"] = round(pattern.norm, 4)
    opts["pattern_regexes"] = pattern.regexes()[:40]
    w = Wrapper(
        id=Wrapper.make_id(
            site,
            record.xpath if record else None,
            [f.xpath for f in fields],
            [f.xpath for f in pfields],
        ),
        record=record,
        fields=fields,
        lists=lists,
        page_fields=pfields,
        site=site,
        template=tinfo,
        provenance=Provenance(
            extractor="gstm", sample_urls=[p.url for p in plist if p.url], options=opts
        ),
        health=Health(min_fit=min_fit),
    )
    # health from the samples: record counts and field fill rates of the wrapper's own output
    counts = []
    have: dict[str, int] = {}
    total = 0
    for p in plist:
        res = w._compile().apply(p.root, p.url, p)
        recs = res.regions[0].records if res.regions else []
        counts.append(len(recs))
        for r in recs:
            total += 1
            for f in fields:
                if f.name in r.fields:
                    have[f.name] = have.get(f.name, 0) + 1
    w.health = Health(
        expected_records=(min(counts), max(counts)) if counts else (0, 0),
        fill_rates={f.name: (have.get(f.name, 0) / total if total else 0.0) for f in fields},
        min_fit=min_fit,
    )
    w._compiled = None
    return w.validate()


def induce_wrapper(pages: list[Any], **options: Any) -> Any:
    """G-STM inducer for :func:`scrapy_records.induce` (``extractor="gstm"``).

    ``pages``: :class:`~scrapy_records.page.Page` objects (or raw sources) of one template;
    two or more give a Problem 1 pattern, one gives a Problem 2 pattern (lists only).
    Options: the matcher options of :class:`GSTMExtractor`, ``site``, ``min_fit`` (0.5),
    ``page_fields`` (True).
    """
    opts = dict(options)
    site = opts.pop("site", None)
    min_fit = float(opts.pop("min_fit", 0.5))
    pf = bool(opts.pop("page_fields", True))
    plist = [as_page(p) for p in pages]
    pattern = induce_pattern(plist, **opts)
    return pattern_wrapper(pattern, plist, site=site, min_fit=min_fit, page_fields=pf)

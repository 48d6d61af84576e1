"""Template grouping: which pages of a site share a template, so that each template gets its
own wrapper (list pages, detail pages, forum threads...).

Every page gets a *structural signature*, a bottom-k MinHash sketch of its tag paths,
repeated tag paths, stable ids and stable classes; two pages' similarity is the estimated
Jaccard similarity of those feature sets. :class:`TemplateGrouper` clusters signatures
deterministically: a page joins the most similar cluster at ``threshold`` (0.6) or more,
else opens a new one; cluster ids are hashes of their first page's sketch, so the same
pages in the same order give the same ids in every run. ``docs/algorithms/
wrapper-induction.md`` describes the signature and the clustering.

Entry points: :func:`page_signature` (``k=128``, ``max_depth=12``), :func:`similarity`,
:func:`template_info` and :class:`TemplateGrouper` (``threshold=0.6``, ``k=128``; saved and
loaded with ``to_json``/``from_json``).
"""

from __future__ import annotations

import json
import logging
import zlib
from collections import Counter
from dataclasses import dataclass
from typing import Any

from lxml import etree

from scrapy_records.errors import PageTooLargeError, WrapperError
from scrapy_records.page import (
    DROPPED_TAGS,
    EMPTY_DROPPED_TAGS,
    LEAF_TAGS,
    Page,
    empty_inline,
    holds_content,
    parse_html,
)
from scrapy_records.selectors import stable_token
from scrapy_records.wrappers.model import TemplateInfo

logger = logging.getLogger(__name__)

__all__ = [
    "Signature",
    "page_signature",
    "similarity",
    "template_info",
    "TemplateGrouper",
    "METHOD",
]

METHOD = "bottomk-tagpath-v2"
#: signature methods whose sketches can be compared with :data:`METHOD`'s: v1 read the page
#: model's repaired paths, so a v1 and a v2 sketch differ only on pages with repairs
COMPATIBLE_METHODS = frozenset({METHOD, "bottomk-tagpath-v1"})
#: a tag path shared by this many nodes is also a "repeated" feature (list pages repeat
#: their record paths, detail pages do not)
REPEAT = 3
#: tag paths deeper than this are ignored (free-form content such as user-written
#: descriptions nests deep and differs from page to page; the template is shallower)
DEPTH = 12
_MASK = (1 << 61) - 1
#: the ids and classes of the document's elements (``//@id`` is the same set, yet libxml2
#: reads the attribute axis of every text and comment node too)
_IDS = etree.XPath("/descendant::*/@id", smart_strings=False)
_CLASSES = etree.XPath("/descendant::*/@class", smart_strings=False)


def _mix(x: int) -> int:
    """splitmix64 finaliser, reduced to 61 bits: a fixed, well-spread integer hash."""
    x = (x + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return (x ^ (x >> 31)) & _MASK


def _str_hash(s: str, salt: int) -> int:
    b = s.encode("utf-8", "surrogatepass")
    return _mix((zlib.crc32(b) << 32 | zlib.adler32(b)) ^ salt)


@dataclass(frozen=True)
class Signature:
    """A page's structural signature: the bottom-k sketch of its feature hashes."""

    sketch: tuple[int, ...]
    features: int
    method: str = METHOD
    k: int = 128

    @property
    def template_id(self) -> str:
        """The id a cluster represented by this signature gets (see module docstring)."""
        h = 0
        for x in self.sketch:
            h = _mix(h ^ x)
        return f"t-{h & 0xFFFFFFFFFF:010x}"

    def similarity(self, other: Signature) -> float:
        return similarity(self, other)

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "k": self.k,
            "features": self.features,
            "sketch": list(self.sketch),
        }

    @classmethod
    def from_dict(cls, d: Any) -> Signature:
        if not isinstance(d, dict) or d.get("method") not in COMPATIBLE_METHODS:
            raise WrapperError(
                f"unsupported template signature: {d.get('method') if isinstance(d, dict) else d!r}"
            )
        try:
            sk = tuple(int(x) for x in d["sketch"])
            return cls(
                sketch=sk, features=int(d["features"]), method=str(d["method"]), k=int(d["k"])
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise WrapperError(f"invalid template signature: {exc}") from exc


#: feature hash (or None: not stable) of "#id" / ".class" tokens already seen: the pages of a
#: site repeat them, and the stability test and the hash are most of a signature's cost
_TOKEN_FEATURES: dict[str, int | None] = {}
_TOKEN_MEMO_SIZE = 100_000


def _page_paths(page: Page) -> tuple[dict[tuple[int, str], int], list[int]]:
    """The tree's tag-path table from the page model: ``{(parent path, tag): path}`` (paths
    numbered parent-first) and the number of elements on each path."""
    names = {v: n for n, v in page.tag_names.items()}
    keys: dict[tuple[int, str], int]
    counts: list[int]
    if page._rparent is page.parent:  # nothing repaired: the model's own table
        keys = {(pp, names[tid]): pid for (pp, tid), pid in page.path_keys.items()}
        counts = [0] * len(keys)
        for path_id, c in Counter(page.path_id).items():
            counts[path_id] = c
        return keys, counts
    # a repaired page: the paths along the parents libxml2 gave (pre-order: parents first)
    rparent, tag = page._rparent, page.tag
    keys = {}
    counts = []
    raw = [0] * len(tag)
    for i, t in enumerate(tag):
        p = rparent[i]
        key = (raw[p] if p >= 0 else -1, t)
        pid = keys.get(key)
        if pid is None:
            pid = keys[key] = len(counts)
            counts.append(0)
        counts[pid] += 1
        raw[i] = pid
    return keys, counts


def _tree_paths(
    root: Any, max_nodes: int | None = None
) -> tuple[dict[tuple[int, str], int], list[int]]:
    """:func:`_page_paths` of the page model ``root`` would give, by one walk over the lxml
    tree (the same elements: dropped tags, empty inline elements and the inside of leaf
    tags are skipped).

    :raises PageTooLargeError: more than ``max_nodes`` elements.
    """
    keys: dict[tuple[int, str], int] = {}
    counts: list[int] = []
    stack: list[int] = []
    n = 0
    walker = etree.iterwalk(root, events=("start", "end"))
    for event, node in walker:
        if event == "end":
            stack.pop()
            continue
        t = node.tag
        if not isinstance(t, str):  # entities
            stack.append(-2)
            continue
        t = t.lower()
        if (t in DROPPED_TAGS and not (t == "noscript" and holds_content(node))) or (
            t in EMPTY_DROPPED_TAGS and empty_inline(node)
        ):
            stack.append(-2)
            walker.skip_subtree()  # its "end" event still arrives
            continue
        n += 1
        if max_nodes is not None and n > max_nodes:
            raise PageTooLargeError(f"page has more than max_nodes={max_nodes} elements")
        key = (stack[-1] if stack else -1, t)
        pid = keys.get(key)
        if pid is None:
            pid = keys[key] = len(counts)
            counts.append(0)
        counts[pid] += 1
        stack.append(pid)
        if t in LEAF_TAGS:
            walker.skip_subtree()
    return keys, counts


def page_signature(
    page: Any, k: int = 128, max_depth: int = DEPTH, *, max_nodes: int | None = None
) -> Signature:
    """The structural signature of a page (module docstring).

    ``page`` is a :class:`~scrapy_records.page.Page` (its path table is read) or anything
    :func:`~scrapy_records.page.parse_html` takes: a Scrapy response (its selector tree is
    used, not re-parsed), an lxml tree or element, raw HTML. Both give the same signature.
    ``max_nodes`` bounds the walk over a tree (:class:`PageTooLargeError` beyond it).
    """
    if isinstance(page, Page):
        root = page.root
        keys, counts = _page_paths(page)
    else:
        root = parse_html(page)[0]
        keys, counts = _tree_paths(root, max_nodes)
    tag_h: dict[str, int] = {}
    ph = [0] * len(counts)
    pdepth = [0] * len(counts)
    feats: set[int] = set()
    for (parent_pid, t), pid in keys.items():  # parent-first (insertion order)
        th = tag_h.get(t)
        if th is None:
            th = tag_h[t] = _str_hash(t, 0x7A9)
        base = ph[parent_pid] if parent_pid >= 0 else 0x51ED
        h = _mix(base * 31 + th)
        ph[pid] = h
        d = pdepth[pid] = pdepth[parent_pid] + 1 if parent_pid >= 0 else 0
        if d <= max_depth:
            feats.add(h)
            if counts[pid] >= REPEAT:
                feats.add(_mix(h ^ 0x2E9E))
    memo = _TOKEN_FEATURES
    if len(memo) > _TOKEN_MEMO_SIZE:  # bounded: a crawl meets ids and classes without end
        memo.clear()
    for v in set(_IDS(root)):
        f = memo.get("#" + v, 0)
        if f == 0:
            w = v.strip()
            f = memo["#" + v] = _str_hash("#" + w, 0x1D) if w and stable_token(w) else None
        if f is not None:
            feats.add(f)
    toks: set[str] = set()
    for v in set(_CLASSES(root)):
        toks.update(v.split())
    for t in toks:
        f = memo.get("." + t, 0)
        if f == 0:
            f = memo["." + t] = _str_hash("." + t, 0xC1A55) if stable_token(t) else None
        if f is not None:
            feats.add(f)
    sketch = tuple(sorted(feats)[:k])
    return Signature(sketch=sketch, features=len(feats), k=k)


def template_info(page: Page, template_id: str | None = None) -> TemplateInfo:
    """The ``template`` part of a wrapper induced from ``page``: the page's signature, and
    ``template_id`` (e.g. from a :class:`TemplateGrouper`) or else the signature's own id."""
    sig = page_signature(page)
    return TemplateInfo(
        id=template_id or sig.template_id, method=sig.method, signature=list(sig.sketch)
    )


def similarity(a: Signature, b: Signature) -> float:
    """Bottom-k estimate of the Jaccard similarity of two pages' feature sets."""
    if not a.sketch and not b.sketch:
        return 1.0
    k = min(a.k, b.k)
    sa, sb = set(a.sketch), set(b.sketch)
    union = sorted(sa | sb)[:k]
    if not union:
        return 0.0
    both = sum(1 for x in union if x in sa and x in sb)
    return both / len(union)


class TemplateGrouper:
    """Deterministic leader clustering of pages by signature (module docstring).

    :param threshold: minimum similarity to join a cluster.
    :param k: sketch size.
    """

    def __init__(self, threshold: float = 0.6, k: int = 128):
        if not 0.0 < threshold <= 1.0:
            raise ValueError("threshold must be in (0, 1]")
        self.threshold = threshold
        self.k = k
        self._clusters: list[tuple[str, Signature]] = []
        self.counts: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self._clusters)

    @property
    def templates(self) -> list[str]:
        return [tid for tid, _ in self._clusters]

    def signature(self, tid: str) -> Signature:
        for t, s in self._clusters:
            if t == tid:
                return s
        raise KeyError(tid)

    def add(self, tid: str, sig: Signature) -> None:
        """Seed a known cluster (e.g. a template whose wrapper a store holds)."""
        if all(t != tid for t, _ in self._clusters):
            self._clusters.append((tid, sig))

    def count(self, tid: str) -> str:
        """Count one more page of the known template ``tid``; returns it."""
        self.counts[tid] = self.counts.get(tid, 0) + 1
        return tid

    def best(self, sig: Signature) -> tuple[str | None, float]:
        """The most similar cluster and its similarity (``(None, 0.0)`` when empty)."""
        best_id, best_sim = None, -1.0
        for tid, rep in self._clusters:
            s = similarity(sig, rep)
            if s > best_sim:
                best_id, best_sim = tid, s
        return best_id, max(best_sim, 0.0)

    def assign(self, page: Any, url: str | None = None) -> str:
        """Template id of ``page`` (a Page, raw HTML or a :class:`Signature`); opens a cluster
        if needed."""
        sig = page if isinstance(page, Signature) else page_signature(page, self.k)
        tid, sim = self.best(sig)
        if tid is None or sim < self.threshold:
            tid = sig.template_id
            taken = {t for t, _ in self._clusters}
            n = 1
            base = tid
            while tid in taken:  # identical sketch below threshold cannot happen; be safe
                n += 1
                tid = f"{base}-{n}"
            self._clusters.append((tid, sig))
            logger.debug("new template cluster %s (best similarity %.2f)", tid, sim)
        self.counts[tid] = self.counts.get(tid, 0) + 1
        return tid

    # ---------------------------------------------------------------- storage
    def to_json(self) -> str:
        return json.dumps(
            {
                "method": METHOD,
                "threshold": self.threshold,
                "k": self.k,
                "clusters": [
                    {"id": t, "signature": s.to_dict(), "pages": self.counts.get(t, 0)}
                    for t, s in self._clusters
                ],
            },
            sort_keys=True,
        )

    @classmethod
    def from_json(cls, text: str) -> TemplateGrouper:
        try:
            d = json.loads(text)
            g = cls(threshold=float(d["threshold"]), k=int(d["k"]))
            for c in d["clusters"]:
                sig = Signature.from_dict(c["signature"])
                g._clusters.append((str(c["id"]), sig))
                g.counts[str(c["id"])] = int(c["pages"])
        except WrapperError:
            raise
        except (ValueError, KeyError, TypeError) as exc:
            raise WrapperError(f"invalid template grouper document: {exc}") from exc
        return g

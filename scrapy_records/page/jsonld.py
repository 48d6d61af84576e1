"""The schema.org items a page lists in JSON-LD (``<script type="application/ld+json">``),
as the values of each property: the evidence that names a column whose values are those
of one property of the listed items (the path ``offers.price``; its name,
:func:`scrapy_records.fields.naming.path_name`, is ``price``), first in the naming order
beside microdata and RDFa.

For a list page only lists count: objects of a ``@type`` the page holds at least twice (the
products of an ``ItemList``, its ``ListItem``\\ s' ``item``, a ``@graph`` of articles); the
page's own description (one ``WebPage``) names no column. For a detail page
(``min_count=1``) the object the page is about counts too (one ``Product``, one
``JobPosting``), never the site's chrome (``WebSite``, ``WebPage``, ``BreadcrumbList``).
Bounded: at most :data:`MAX_BYTES` of JSON-LD text and :data:`MAX_ITEMS` objects per script;
a script that is no valid JSON is skipped.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Callable, Iterator
from typing import Any

#: JSON-LD text read per page (a larger script is skipped)
MAX_BYTES = 2_000_000
#: objects looked at per script (MAX_BYTES bounds the scripts of a page)
MAX_ITEMS = 2000
#: nesting followed below an item (``offers.priceSpecification.price``)
MAX_DEPTH = 3

_NUMBER_RE = re.compile(r"^[^\w\s]{0,3}\s*(\d[\d,]*(?:\.\d+)?)\s*[^\w\s]{0,3}$")
_SKIP_KEYS = frozenset({"@context", "@type", "@id"})
#: types that describe the page or the site, not what it lists or is about
_CHROME_TYPES = frozenset(
    "WebSite WebPage SearchResultsPage CollectionPage ItemPage BreadcrumbList ListItem "
    "SiteNavigationElement SearchAction ReadAction EntryPoint ImageObject".split()
)


def normal_text(value: Any) -> str:
    """How a text is compared: whitespace collapsed, case folded."""
    return " ".join(str(value).split()).casefold()


def normal_number(value: Any) -> str | None:
    """A number written alone (``19.97``, ``"$19.97"``, ``"1,299"``) as one key, else
    ``None``: ``"4.5 out of 5"`` is no number."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return f"{float(value):.6g}"
    m = _NUMBER_RE.match(str(value).strip())
    if m is None:
        return None
    try:
        return f"{float(m.group(1).replace(',', '')):.6g}"
    except ValueError:
        return None


def normal_url(value: str) -> str:
    """A URL without its fragment and trailing slash."""
    return value.split("#", 1)[0].rstrip("/")


def parse(texts: list[str]) -> list[Any]:
    """The JSON documents of the page's scripts (invalid or oversized ones skipped)."""
    out: list[Any] = []
    budget = MAX_BYTES
    for t in texts:
        if not t or len(t) > budget:
            continue
        budget -= len(t)
        try:
            out.append(json.loads(t))
        except (ValueError, RecursionError):  # not JSON; nested past the parser's stack
            continue
    return out


def _typed_objects(doc: Any) -> list[tuple[dict, int]]:
    """Every object with a ``@type`` (a ``ListItem`` stands for its ``item``) and the
    index of the nearest typed object around it (``-1``: none), at most
    :data:`MAX_ITEMS`, outermost first."""
    out: list[tuple[dict, int]] = []
    stack: list[tuple[Any, int]] = [(doc, -1)]
    seen = 0
    while stack and seen < MAX_ITEMS:
        x, around = stack.pop()
        if isinstance(x, list):
            stack.extend((v, around) for v in reversed(x))
            continue
        if not isinstance(x, dict):
            continue
        seen += 1
        if x.get("@type") == "ListItem" and isinstance(x.get("item"), dict):
            stack.append((x["item"], around))
            continue
        if "@type" in x:
            out.append((x, around))
            around = len(out) - 1
        for k, v in x.items():
            if k not in _SKIP_KEYS and isinstance(v, (dict, list)):
                stack.append((v, around))
    return out


def _listed(docs: list[Any], min_count: int = 2) -> list[dict]:
    """The items: objects of a type the page holds at least ``min_count`` times, not of the
    page's chrome, and not parts of another item (an ``Offer`` of a listed ``Product`` is
    read through its path, ``offers.price``)."""
    found = [_typed_objects(doc) for doc in docs]
    count: dict[str, int] = defaultdict(int)
    for objs in found:
        for obj, _ in objs:
            count[_type_key(obj)] += 1
    items: list[dict] = []
    for objs in found:
        listed = [False] * len(objs)
        for k, (obj, around) in enumerate(objs):
            t = _type_key(obj)
            inside = _inside_listed(objs, listed, around)
            listed[k] = count[t] >= min_count and t not in _CHROME_TYPES and not inside
            if listed[k]:
                items.append(obj)
    return items


def _inside_listed(objs: list[tuple[dict, int]], listed: list[bool], k: int) -> bool:
    while k >= 0:
        if listed[k]:
            return True
        k = objs[k][1]
    return False


def _type_key(obj: dict) -> str:
    t = obj.get("@type")
    return " ".join(map(str, t)) if isinstance(t, list) else str(t)


def _scalars(obj: dict, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """``(path, value)`` for each scalar below ``obj`` (lists of scalars give each)."""
    for k, v in obj.items():
        if k in _SKIP_KEYS or not isinstance(k, str):
            continue
        p = (*path, k)
        items = v if isinstance(v, list) else [v]
        for x in items:
            if isinstance(x, dict):
                if len(p) < MAX_DEPTH:
                    yield from _scalars(x, p)
            elif isinstance(x, (str, int, float)) and not isinstance(x, bool):
                yield p, x


class ItemValues:
    """The values of each property path of the page's listed items, normalised for
    comparison (:meth:`path_of` finds the path a column's values come from)."""

    def __init__(
        self, docs: list[Any], absolute: Callable[[str], str | None], min_count: int = 2
    ) -> None:
        #: path -> the normalised values the items give it
        self.values: dict[tuple[str, ...], set[str]] = defaultdict(set)
        for obj in _listed(docs, min_count):
            for path, v in _scalars(obj):
                vals = self.values[path]
                vals.add(normal_text(v))
                n = normal_number(v)
                if n is not None:
                    vals.add(n)
                if isinstance(v, str) and ("/" in v or v.startswith("http")):
                    u = absolute(v)
                    if u:
                        vals.add(normal_url(u))

    def __bool__(self) -> bool:
        return bool(self.values)

    def path_of(self, column: list[Any], share: float = 0.6) -> tuple[str, ...] | None:
        """The property path whose values most of the column's values are (at least two,
        and ``share`` of the non-empty ones); ``None`` when none is."""
        return best_path([(v, self) for v in column], share)


def _keys(x: Any) -> set[str]:
    k = {normal_text(x)}
    n = normal_number(x)
    if n is not None:
        k.add(n)
    if isinstance(x, str) and x.startswith("http"):
        k.add(normal_url(x))
    return k


def best_path(rows: list[tuple[Any, ItemValues]], share: float = 0.6) -> tuple[str, ...] | None:
    """The property path whose values most values are, each looked up in its own page's
    items (``rows``: a value, or a list of them, and the items of the page it is on): at
    least two hits and ``share`` of the non-empty values; ``None`` when none is."""
    looked: list[tuple[set[str], ItemValues]] = []
    for v, items in rows:
        for x in v if isinstance(v, list) else [v]:
            if x is not None and x != "":
                looked.append((_keys(x), items))
    if len(looked) < 2:
        return None
    hits: dict[tuple[str, ...], int] = defaultdict(int)
    for keys, items in looked:
        for path, vals in items.values.items():
            if keys & vals:
                hits[path] += 1
    best: tuple[str, ...] | None = None
    best_n = 0
    for path, n in hits.items():
        if n > best_n or (n == best_n and best is not None and len(path) < len(best)):
            best, best_n = path, n
    if best is None or best_n < 2 or best_n < share * len(looked):
        return None
    return best

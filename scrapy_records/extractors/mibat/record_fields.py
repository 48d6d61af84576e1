"""The fields of a post and its text without site chrome.

Fields per record: ``date`` (ISO 8601) and ``date_raw`` from the pivot, ``author`` and
``author_url`` (the best-scored profile link, else an element whose class names an author),
``permalink``, and ``text``: the post body, the part of the record with the most
class-weighted text that holds neither the pivot nor the author, quotes included. The body
container the records agree on wins over a record's own odd pick (:func:`body_consensus`).

A record is the whole post sub-tree; :func:`content_text` is its text without profile boxes,
signatures, action bars, footers and edit notices (``record_text="content"``).

Entry points: :func:`record_fields`, :func:`body_consensus`, :func:`content_text`,
:func:`add_field_columns`.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from scrapy_records.extractors.mibat.anchors import (
    DATE_ATTRS,
    PERMALINK_HREF_RE,
    PROFILE_HREF_RE,
    REPLY_HREF_RE,
    REPLY_TEXT_RE,
    in_sorted,
)
from scrapy_records.extractors.mibat.hints import (
    BODY_HINT_RE,
    CHROME_HINT_RE,
    QUOTE_CLASS_RE,
    is_author_class,
    is_author_zone,
    is_name_class,
    is_permalink_class,
    is_quote_hint,
    is_record_chrome,
)
from scrapy_records.fields.dates import date_substring, iso_date, parse_date, parse_timestamp
from scrapy_records.page import Page
from scrapy_records.results import Column, Region

__all__ = [
    "record_fields",
    "body_consensus",
    "content_text",
    "add_field_columns",
    "unlinked_author",
]

_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
#: Tags that hold a bare author name in profile boxes (FluxBB's ``<dt><strong>``).
_NAME_TAGS = frozenset({"strong", "b", "dt", "cite", "h4", "h5", "span"})
#: The fields MiBAT adds, with their column types.
_FIELD_TYPES = (
    ("author", "text"),
    ("author_url", "url"),
    ("date", "date"),
    ("date_raw", "text"),
    ("text", "text"),
    ("permalink", "url"),
)


def record_fields(
    page: Page,
    group: tuple[int, ...],
    pivot: int,
    opts: dict[str, Any],
    links: list[int],
    kind: str = "date",
    dates: list[int] | None = None,
) -> tuple[dict[str, Any], int, int]:
    """``(fields, body node, author node)`` of one post (nodes -1 when not found): the date
    from the pivot (for other anchor kinds, from the record's first date candidate in
    ``dates``), the author and permalink from the record's ``links``, the body text."""
    fields: dict[str, Any] = {}
    if kind != "date":
        got = [d for r in group for d in in_sorted(dates or [], r, page.end[r])]
        pivot = got[0] if got else -1
    if pivot >= 0:
        date_iso, date_raw = _date(page, pivot, opts)
        if date_iso or date_raw:
            fields["date"] = date_iso
            fields["date_raw"] = date_raw
    author_node, permalink = _scored_links(page, group, pivot, links)
    author: str | None = None
    author_url: str | None = None
    if author_node >= 0:
        author = page.text(author_node) or page.el[author_node].get("title")
        if not author:
            imgs = [
                j for j in range(author_node, page.end[author_node] + 1) if page.tag[j] == "img"
            ]
            author = page.el[imgs[0]].get("alt") if imgs else None
        author_url = _absolute(page, page.el[author_node].get("href"))
    else:
        author, author_node = unlinked_author(page, group, pivot)
    # a field the post does not have is left out (not ``None``, which exports as "None")
    for name, value in (
        ("author", author),
        ("author_url", author_url),
        ("permalink", _absolute(page, permalink)),
    ):
        if value is not None:
            fields[name] = value
    body, body_score, scores = _weighted_body(page, group, pivot, author_node)
    body = _descend_body(page, body, scores)
    if body >= 0 and body_score > 0:
        fields["text"] = page.text(body)
    else:
        body = -1
        fields["text"] = page.texts(group)
    return fields, body, author_node


# ------------------------------------------------------------------ date
def _date(page: Page, pivot: int, opts: dict[str, Any]) -> tuple[str | None, str | None]:
    """``(ISO date, raw date text)`` of the pivot: a timestamp attribute first, then the
    date inside its text (whose raw text wins)."""
    date_iso: str | None = None
    date_raw: str | None = None
    el = page.el[pivot]
    for name in DATE_ATTRS:
        v = el.get(name)
        if v:
            got = parse_timestamp(v, opts["languages"], relative_base=opts["relative_base"])
            if got:
                date_iso, date_raw = got[0], got[1]
                break
    txt = page.text(pivot)
    raw_txt = date_substring(txt) if txt else None
    if raw_txt:
        if date_iso is None:
            d = parse_date(raw_txt, opts["languages"], relative_base=opts["relative_base"])
            if d is not None:
                date_iso = iso_date(d, raw_txt)
        date_raw = raw_txt
    elif date_raw is None and txt:
        date_raw = txt[:80]
    return date_iso, date_raw


# ------------------------------------------------------------------ author and permalink
def _absolute(page: Page, href: str | None) -> str | None:
    """Absolute URL (fast path for links that already are)."""
    if not href:
        return None
    h = href.strip()
    if h.startswith(("http://", "https://")) and " " not in h:
        return h
    return page.absolute(h)


@lru_cache(maxsize=4096)
def _href_kind(href: str) -> tuple[bool, bool, bool]:
    """(profile, permalink, reply) tests of one href, cached."""
    return (
        bool(PROFILE_HREF_RE.search(href)),
        bool(PERMALINK_HREF_RE.search(href)),
        bool(REPLY_HREF_RE.search(href)),
    )


def _in_quote(page: Page, i: int, root: int) -> bool:
    """Node ``i`` lies in a quote block below the record root ``root``."""
    tag, parent = page.tag, page.parent
    while i > root:
        if tag[i] == "blockquote" or (
            tag[i] in ("div", "table", "section")
            and QUOTE_CLASS_RE.search(page.el[i].get("class") or "")
        ):
            return True
        i = parent[i]
    return False


def _ancestor_classes(page: Page, i: int, root: int, levels: int = 3) -> str:
    """The class and itemprop of ``i`` and its ancestors, ``levels`` up but not above
    ``root``."""
    out = []
    p = page.parent
    while i >= root and levels > 0:
        out.append(page.el[i].get("class") or "")
        out.append(page.el[i].get("itemprop") or "")
        if i == root:
            break
        i = p[i]
        levels -= 1
    return " ".join(out)


def _scored_links(
    page: Page, group: tuple[int, ...], pivot: int, links: list[int]
) -> tuple[int, str | None]:
    """``(author link node or -1, permalink href)``: the record's links outside quotes,
    scored as author links (profile href, author class, name-like text; not around the
    pivot, not a reply or permalink) and as permalinks (permalink href or class, around the
    pivot; not a reply or profile link); the best score at its threshold wins."""
    author_node, best_score = -1, 0
    permalink, perma_score = None, 0
    for root in group:
        for i in in_sorted(links, root, page.end[root]):
            href = page.el[i].get("href") or ""
            if not href or href.startswith("javascript:") or _in_quote(page, i, root):
                continue
            text = page.text(i)
            cls = _ancestor_classes(page, i, root)
            is_profile, is_perma, is_reply = _href_kind(href)
            score = 0
            if is_profile:
                score += 3
            if is_author_class(cls) or (page.el[i].get("rel") or "") == "author":
                score += 2
            if 0 < len(text) <= 40:
                score += 1
            if text and not any(ch.isalpha() for ch in text):
                score -= 3  # a post count or a number, not a name
            if "profil" in (page.el[i].get("title") or "").lower():
                score += 1
            if pivot >= 0 and page.is_ancestor(i, pivot):
                score -= 3
            if is_reply or is_perma:
                score -= 3
            if score >= 3 and score > best_score:
                best_score, author_node = score, i
            ps = 0
            if is_perma:
                ps += 3
            if (page.el[i].get("rel") or "").lower() == "bookmark" or is_permalink_class(cls):
                ps += 2
            if pivot >= 0 and (page.is_ancestor(i, pivot) or page.is_ancestor(pivot, i)):
                ps += 2
            if is_reply or (
                len(text) < 30 and REPLY_TEXT_RE.match(text) and "permalink" not in text.lower()
            ):
                ps -= 4
            if is_profile and not is_perma:
                ps -= 4
            if ps >= 2 and ps > perma_score:
                perma_score, permalink = ps, href
    return author_node, permalink


def unlinked_author(page: Page, group: tuple[int, ...], pivot: int) -> tuple[str | None, int]:
    """``(name, node)`` of an author without a link: a ``cite`` or an element whose class
    names an author, else a short name-like text in a profile zone (FluxBB-style
    ``<div class=postleft><dl><dt><strong>name</strong>``); ``(None, -1)``."""
    tag = page.tag
    for root in group:
        for i in range(root, page.end[root] + 1):
            cls = (page.el[i].get("class") or "") + " " + (page.el[i].get("itemprop") or "")
            if (tag[i] == "cite" and not _in_quote(page, i, root)) or (
                cls.strip() and is_name_class(cls)
            ):
                t = page.text(i)
                if 0 < len(t) <= 60 and not (pivot >= 0 and page.is_ancestor(i, pivot)):
                    return t, i
    for root in group:
        for i in range(root, page.end[root] + 1):
            if tag[i] not in _NAME_TAGS or (pivot >= 0 and page.is_ancestor(i, pivot)):
                continue
            t = page.text(i)
            if not (0 < len(t) <= 40 and any(ch.isalpha() for ch in t)):
                continue
            if is_author_zone(_ancestor_classes(page, i, root, 4)) and not _in_quote(page, i, root):
                return t, i
    return None, -1


# ------------------------------------------------------------------ body
@lru_cache(maxsize=4096)
def _hint_weight(hint: str) -> float | None:
    """Body weight from class / id / itemprop (None: inherit)."""
    if not hint:
        return None
    if CHROME_HINT_RE.search(hint):
        return 0.15
    if BODY_HINT_RE.search(hint):
        return 2.0
    return None


def _is_quote_node(page: Page, i: int) -> bool:
    """A quote block: ``blockquote`` or an element whose class names a quote."""
    if page.tag[i] == "blockquote":
        return True
    el = page.el[i]
    return bool(el.attrib) and is_quote_hint(el.get("class") or "")


def _weighted_body(
    page: Page, group: tuple[int, ...], pivot: int, author_node: int
) -> tuple[int, float, dict[int, float]]:
    """``(node, score, scores)``: the element of the record with the most *weighted* text
    that holds neither pivot nor author, and every candidate's score. Each leaf counts with
    the weight of its element, from class hints inherited downwards (content-ish x2,
    signature / profile chrome x0.15, headings x0.3, quotes x0.6), so a container is not
    chosen for the chrome it also holds."""
    body, body_score = -1, 0.0
    scores: dict[int, float] = {}
    lo, hi = page.leaf_lo, page.leaf_hi
    parent, end, tag, els = page.parent, page.end, page.tag, page.el
    leaves, owner = page.leaves, page.leaf_owner
    for root in group:
        weight: dict[int, float] = {}
        order: list[int] = []
        i = root
        stop = end[root]
        while i <= stop:
            if lo[i] == hi[i]:
                i = end[i] + 1  # no text below
                continue
            el = els[i]
            wgt = weight.get(parent[i], 1.0) if i != root else 1.0
            hw = None
            # (each attribute read once: lxml builds a new string per read)
            attrs = bool(el.attrib)
            cls = el.get("class") if attrs else None
            if attrs and i != root:  # the root's class names the whole post
                hw = _hint_weight(" ".join(filter(None, (cls, el.get("id"), el.get("itemprop")))))
                if hw is not None:
                    if hw < 1:
                        wgt = hw
                    elif wgt >= 1:  # a "quotecontent" inside a signature stays chrome
                        wgt = max(wgt, hw)
            if tag[i] in _HEADINGS:
                wgt = min(wgt, 0.3)
            elif hw is None and (tag[i] == "blockquote" or (cls and is_quote_hint(cls))):
                wgt = min(wgt, 0.6)  # quoted text belongs to the post, but is not its own words
            weight[i] = wgt
            order.append(i)
            i += 1
        wtext = dict.fromkeys(order, 0.0)
        for k in range(lo[root], hi[root]):
            o = owner[k]
            if o in wtext:
                wtext[o] += len(leaves[k]) * weight[o]
        for node in reversed(order):  # children before parents: accumulate upwards
            if node != root and parent[node] in wtext:
                wtext[parent[node]] += wtext[node]
        for node in order:
            if pivot >= 0 and node <= pivot <= end[node]:
                continue
            if author_node >= 0 and node <= author_node <= end[node]:
                continue
            sc = wtext[node]
            scores[node] = sc
            if sc > body_score:
                body, body_score = node, sc
    return body, body_score, scores


def _descend_body(page: Page, body: int, scores: dict[int, float]) -> int:
    """Descend while one child carries most of the body (drops a title or a byline row),
    but never past a quote: quoted text is part of the post (a post of one quote and one
    reply line keeps both)."""
    lo, hi = page.leaf_lo, page.leaf_hi
    while body >= 0:
        kids = page.children[body]
        best_c = max(kids, key=lambda c: scores.get(c, 0.0), default=-1)
        if best_c < 0 or scores.get(best_c, 0.0) < 0.85 * scores[body]:
            break
        if any(c != best_c and lo[c] < hi[c] and _is_quote_node(page, c) for c in kids):
            break
        body = best_c
    return body


# ------------------------------------------------------------------ body consensus
def _strip_digits(ident: str) -> str:
    return re.sub(r"\d+", "", ident)


def _body_sig(page: Page, root: int, node: int) -> tuple[tuple[str, str, str], ...]:
    """Path signature root -> node: (tag, class, id without digits) per step."""
    out = []
    parent = page.parent
    while node != root and node >= 0:
        el = page.el[node]
        out.append((page.tag[node], el.get("class") or "", _strip_digits(el.get("id") or "")))
        node = parent[node]
    out.reverse()
    return tuple(out)


def _follow_sig(page: Page, root: int, sig: tuple[tuple[str, str, str], ...]) -> int:
    """The node reached from ``root`` along ``sig`` (first matching child per step), -1."""
    node = root
    for tag, cls, ident in sig:
        nxt = -1
        for c in page.children[node]:
            if page.tag[c] != tag:
                continue
            el = page.el[c]
            if (el.get("class") or "") == cls and _strip_digits(el.get("id") or "") == ident:
                nxt = c
                break
        if nxt < 0:
            return -1
        node = nxt
    return node


def body_consensus(page: Page, groups: list[tuple[int, ...]], bodies: list[int]) -> dict[int, int]:
    """``{record index: new body node}``: body nodes agree across the records of a region.

    The template puts the post body in the same container in every post. The container is
    the deepest element on the records' body paths (tag, class, id without digits from the
    record root) that >= half of the records (>= 2) share and that has a class or an id (the
    template's part; below it the UGC's own markup varies). A record whose own pick lies
    outside that container (an edit notice chosen over a one-character body) or is a small
    part of it gets the container instead. A pick that holds the container, or most of its
    text, stays."""
    end = page.end
    counts: dict[tuple[int, tuple[tuple[str, str, str], ...]], int] = {}
    for g, b in zip(groups, bodies):
        root = next((r for r in g if b >= 0 and r <= b <= end[r]), -1)
        if root < 0 or b == root:
            continue
        pos, sig = g.index(root), _body_sig(page, root, b)
        for L in range(1, len(sig) + 1):
            if sig[L - 1][1] or sig[L - 1][2]:
                key = (pos, sig[:L])
                counts[key] = counts.get(key, 0) + 1
    need = max(2, 0.5 * len(groups))
    good = [key for key, c in counts.items() if c >= need]
    if not good:
        return {}
    pos, sig = max(good, key=lambda key: (len(key[1]), counts[key]))
    out: dict[int, int] = {}
    for ri, (g, b) in enumerate(zip(groups, bodies)):
        if pos >= len(g):
            continue
        node = _follow_sig(page, g[pos], sig)
        if node < 0 or node == b:
            continue
        if b >= 0 and b <= node <= end[b]:
            continue  # the own pick holds the container: keep the larger body
        if b >= 0 and node <= b <= end[node] and len(page.text(b)) >= 0.5 * len(page.text(node)):
            continue  # most of the container (a title or byline row dropped)
        if _in_quote(page, node, g[pos]):
            continue
        out[ri] = node
    return out


# ------------------------------------------------------------------ record text
def _action_link(page: Page, i: int) -> bool:
    """A reply / quote / report link (href pattern, or the whole link text is the action
    word in one of the anchor languages)."""
    href = page.el[i].get("href") or ""
    if href and _href_kind(href)[2]:
        return True
    t = page.text(i)
    return 0 < len(t) < 30 and bool(REPLY_TEXT_RE.match(t))


def content_text(page: Page, group: tuple[int, ...], keep: tuple[int, ...]) -> str:
    """The record's text without site chrome: sub-trees whose class / id name a profile box,
    signature, action bar, footer or edit notice are left out, and so are reply / quote /
    report links (:func:`_action_link`). Headers, bylines, titles, ratings and quotes stay.

    ``keep`` is ``(body, pivot, author...)``: a chrome-named element around the body or the
    pivot is a wrapper, not chrome, and is looked into; one around the author only (a
    profile box) keeps the author's text. Returns "" when nothing would be left (the caller
    keeps the full text)."""
    end, lo, hi = page.end, page.leaf_lo, page.leaf_hi
    tag = page.tag
    core = tuple(k for k in keep[:2] if k >= 0)  # the body and the pivot
    keep = tuple(k for k in keep if k >= 0)
    parts: list[str] = []
    leaves, owner = page.leaves, page.leaf_owner
    for root in group:
        # (first, last, kept nodes inside) of each left-out sub-tree, in document order
        skip: list[tuple[int, int, tuple[int, ...]]] = []
        i = root + 1
        stop = end[root]
        while i <= stop:
            if lo[i] == hi[i]:
                i = end[i] + 1
                continue
            el = page.el[i]
            if tag[i] == "a" and not any(i <= k <= end[i] for k in keep) and _action_link(page, i):
                skip.append((i, end[i], ()))  # "Reply", "Quote", "Report" links
                i = end[i] + 1
                continue
            if el.attrib:
                hint = " ".join(filter(None, (el.get("class"), el.get("id"))))
                if hint and is_record_chrome(hint):
                    inside = tuple(k for k in keep if i <= k <= end[i])
                    if not any(k in inside for k in core):
                        # chrome; a profile box holding the author keeps the name only
                        skip.append((i, end[i], inside))
                        i = end[i] + 1
                        continue
                    # a wrapper around the pivot or the body is no chrome: look inside
            i += 1
        if not skip:
            parts.extend(leaves[lo[root] : hi[root]])
            continue
        si = 0
        for k in range(lo[root], hi[root]):
            o = owner[k]
            while si < len(skip) and skip[si][1] < o:
                si += 1
            if (
                si < len(skip)
                and skip[si][0] <= o
                and not any(a <= o <= end[a] for a in skip[si][2])
            ):
                continue
            parts.append(leaves[k])
    return " ".join(p for p in parts if p)


# ------------------------------------------------------------------ columns
def add_field_columns(region: Region) -> None:
    """Declare MiBAT's fields as columns of ``region`` (type, fill rate, evidence
    ``"mibat"``), over the aligned columns of the same name."""
    if all(r.fields.get("date_raw") == r.fields.get("date") for r in region.records):
        # dates already written as ISO: the raw text says nothing the date does not
        for r in region.records:
            r.fields.pop("date_raw", None)
        region.columns = [c for c in region.columns if c.name != "date_raw"]
    have = {c.name for c in region.columns}
    n = len(region.records) or 1
    for name, typ in _FIELD_TYPES:
        if name == "date_raw" and not any("date_raw" in r.fields for r in region.records):
            continue
        fill = sum(1 for r in region.records if r.fields.get(name)) / n
        if name in have:
            for c in region.columns:
                if c.name == name:
                    c.type, c.fill, c.evidence = typ, fill, "mibat"
        else:
            region.columns.append(Column(name, typ, fill, None, "mibat"))

"""Selectors for the nodes of one page: XPath/CSS steps and paths, robust-first, evaluated
on the page to check what they select (used while inducing, never while applying)."""

from __future__ import annotations

from typing import Any

from lxml import etree
from parsel.csstranslator import HTMLTranslator

from scrapy_records.page import Page
from scrapy_records.selectors import class_predicate, css_ident_ok, stable_id, stable_token
from scrapy_records.wrappers.safe_xpath import compile_xpath

_CSS = HTMLTranslator()
_ANY = "\0"  # no class name holds a NUL


class PageSelectors:
    """One page's nodes as selector steps and paths, with the per-page caches they need."""

    def __init__(self, page: Page):
        self.page = page
        self._ids: dict[str, int] | None = None
        self._elkids: dict[int, list[Any]] = {}
        self._step_counts: dict[int, dict[tuple[str, str | None], int]] = {}
        self._steps: dict[int, tuple[str, str]] = {}
        self._paths: dict[int, tuple[str, str | None, bool]] = {}  # raw, see _raw_path
        # per parent: (tag, stable class) -> same-tag children holding it; element -> its
        # 1-based position among the parent's element children and among same-tag ones
        self._class_counts: dict[int, dict[tuple[str, str], int]] = {}
        self._positions: dict[int, dict[Any, tuple[int, int]]] = {}

    def id_count(self, v: str) -> int:
        """How many elements of the page have the id ``v``."""
        if self._ids is None:
            ids: dict[str, int] = {}
            for e in self.page.el:
                x = e.get("id")
                if x:
                    ids[x] = ids.get(x, 0) + 1
            self._ids = ids
        return self._ids.get(v, 0)

    def stable_classes(self, i: int) -> list[str]:
        return [c for c in self.page.classes(i) if stable_token(c)]

    def first_class(self, i: int) -> str | None:
        for c in self.page.classes(i):
            if stable_token(c):
                return c
        return None

    def el_children(self, p: int) -> list[Any]:
        """The lxml element children of node p (dropped tags such as scripts included)."""
        kids = self._elkids.get(p)
        if kids is None:
            kids = self._elkids[p] = [c for c in self.page.el[p] if isinstance(c.tag, str)]
        return kids

    def _position(self, p: int, e: Any) -> tuple[int, int]:
        """(position among all, among same-tag) element children of node p, of element e."""
        pos = self._positions.get(p)
        if pos is None:
            pos = self._positions[p] = {}
            per_tag: dict[str, int] = {}
            for k, c in enumerate(self.el_children(p), 1):
                t = c.tag.lower()
                per_tag[t] = per_tag.get(t, 0) + 1
                pos[c] = (k, per_tag[t])
        return pos.get(e, (1, 1))

    def el_pos(self, i: int) -> int:
        """1-based position of node i among its parent's element children (XPath ``*[k]``);
        the positions of a parent's children are worked out once (a list of 20,000 rows
        would be scanned once per row)."""
        p = self.page.parent[i]
        if p < 0:
            return 1
        return self._position(p, self.page.el[i])[0]

    def _class_count(self, p: int, tag: str, c: str) -> int:
        """How many of node p's children with tag ``tag`` have the class ``c`` (``_ANY``:
        how many have that tag)."""
        counts = self._class_counts.get(p)
        if counts is None:
            counts = self._class_counts[p] = {}
            page = self.page
            for j in page.children[p]:
                for cj in {_ANY, *page.classes(j)}:
                    key = (page.tag[j], cj)
                    counts[key] = counts.get(key, 0) + 1
        return counts.get((tag, c), 0)

    def same_step_count(self, j: int, c: str | None) -> int:
        """Siblings of j (itself included) with j's tag and ``c`` as first stable class."""
        page = self.page
        p = page.parent[j]
        if p < 0:
            return 1
        cnt = self._step_counts.get(p)
        if cnt is None:
            cnt = self._step_counts[p] = {}
            for x in page.children[p]:
                key = (page.tag[x], self.first_class(x))
                cnt[key] = cnt.get(key, 0) + 1
        return cnt.get((page.tag[j], c), 0)

    def step(self, i: int) -> tuple[str, str]:
        """(xpath step, css step) for node i under its parent: tag, tag+class or tag[k]."""
        got = self._steps.get(i)
        if got is None:
            got = self._steps[i] = self._step(i)
        return got

    def _step(self, i: int) -> tuple[str, str]:
        page = self.page
        tag = page.tag[i]
        p = page.parent[i]
        if p < 0:
            return tag, tag
        if self._class_count(p, tag, _ANY) == 1:
            return tag, tag
        for c in self.stable_classes(i):
            if self._class_count(p, tag, c) == 1:  # only i has it among its same-tag siblings
                css = f"{tag}.{c}" if css_ident_ok(c) else None
                return f"{tag}[{class_predicate(c)}]", css or ""
        # positional among same-tag element siblings; lxml counts the dropped elements of
        # the same tag too, so count on the lxml tree
        k = self._position(p, page.el[i])[1]
        return f"{tag}[{k}]", f"{tag}:nth-of-type({k})"

    def path(self, i: int) -> tuple[str, str | None, bool]:
        """Absolute XPath (and CSS) of node i, anchored on the nearest ancestor with a stable,
        unique id when there is one; third value: anchored by such an id."""
        xp, css, anchored = self._raw_path(i)
        return xp, (css or None), anchored

    def _raw_path(self, i: int) -> tuple[str, str | None, bool]:
        """:meth:`path` with the CSS as built (``""`` above the first step), each node's
        built once from its parent's."""
        paths = self._paths
        page = self.page
        chain = []
        j = i
        while j >= 0 and j not in paths:
            v = page.el[j].get("id")
            if v and stable_id(v) and self.id_count(v) == 1:
                tag = page.tag[j]
                paths[j] = (f"//{tag}[@id='{v}']", f"{tag}#{v}" if css_ident_ok(v) else None, True)
                break
            chain.append(j)
            j = page.parent[j]
        base = paths[j] if j >= 0 else ("", "", False)
        for k in reversed(chain):
            sx, sc = self.step(k)
            css = base[1]
            if css is not None:
                css = ((css + " > " + sc) if css else sc) if sc else None
            base = paths[k] = (base[0] + "/" + sx, css, base[2])
        return base

    def suffixes(self, i: int, max_steps: int = 6) -> list[tuple[str, str | None]]:
        """``//`` + the last m steps of node i's path, m = 1..max_steps (shortest first).

        Robust to changes above the region (an extra banner, a shifted layout table):
        verification on the sample pages keeps only the suffixes that stay exact.
        """
        page = self.page
        steps: list[tuple[str, str]] = []
        j = i
        while j >= 0 and page.tag[j] not in ("body", "html") and len(steps) < max_steps:
            steps.append(self.step(j))
            j = page.parent[j]
        steps.reverse()
        out = []
        for m in range(1, len(steps) + 1):
            part = steps[-m:]
            xp = "//" + "/".join(sx for sx, _ in part)
            css = " > ".join(sc for _, sc in part) if all(sc for _, sc in part) else None
            out.append((xp, css))
        return out

    def select(self, xp: str, ctx: Any = None) -> list[int] | None:
        """Evaluate xp on the page (or ctx element); indices, or None if anything is off-page."""
        try:
            found = compile_xpath(xp)(ctx if ctx is not None else self.page.root)
        except etree.XPathError:
            return None
        if not isinstance(found, list):
            return None
        out = []
        for e in found:
            if not isinstance(e, etree._Element):
                return None
            try:
                out.append(self.page.index(e))
            except KeyError:
                return None
        return out


def css_matches(sel: PageSelectors, css: str | None, expect: list[int]) -> str | None:
    """``css`` when it selects exactly the nodes ``expect`` on the page, else ``None``."""
    if not css:
        return None
    try:
        xp = _CSS.css_to_xpath(css)
    except Exception:  # cssselect raises several classes
        return None
    got = sel.select(xp)
    return css if got is not None and sorted(got) == sorted(expect) else None

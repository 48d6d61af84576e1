"""What a region's records look like to a reader: the evidence the ranking weighs.

Entry points: :class:`PageText` (text and link-text sizes of any sub-tree in O(1)),
:func:`landmark_of` (is a node inside page chrome by its landmark element or ARIA role),
:func:`demotion` (why a region is no candidate for the page's main content) and
:func:`groups_evidence` (text and link text of records) and :func:`inner_lists_only`
(records alike up to the length of their inner lists).

Page chrome is recognised by what it is, not by what its classes are called: a landmark
element or role (``nav``, ``aside``, a page-level ``header``/``footer``,
``role=navigation``). A class or id that merely contains a menu word (``nav_redesign``,
``has-sticky-nav``, ``fixed-header``) says nothing: themes put such names on the wrappers
of the main content. Menus, tag lists and pagers that are not marked as landmarks are
pushed down by their link share (:mod:`scrapy_records.extractors.ranking`) and by the
agreement of the list extractors (:mod:`scrapy_records.extractors.auto`).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from itertools import accumulate, compress

from scrapy_records.page import Page
from scrapy_records.results import Region

__all__ = [
    "PageText",
    "landmark_of",
    "demotion",
    "groups_evidence",
    "inner_lists_only",
    "EMPTY_SHARE",
    "LINKS_ONLY",
    "CONTROL_TAGS",
]

#: Landmarks of page chrome wherever they are (``aside``: content tangential to the page
#: or to the section it is in).
_ALWAYS_CHROME = frozenset({"nav", "menu", "aside"})
#: Landmarks of page chrome when they belong to the page, not to an article or section
#: (HTML-AAM: ``header`` is a banner and ``footer`` contentinfo only outside ``article``,
#: ``aside``, ``main``, ``nav`` and ``section``).
_PAGE_CHROME = frozenset({"header", "footer"})
_SCOPING = frozenset({"article", "aside", "main", "nav", "section"})
_CHROME_ROLES = frozenset(
    {"navigation", "banner", "contentinfo", "complementary", "menu", "menubar"}
)

#: Landmarks of content beside the page's own (``aside``, ``role=complementary``): they
#: hold the page's records when the page has less text outside its landmarks of chrome
#: than the region, and the region is more than links (a search page whose result
#: sections are asides; not a blog's sidebar of link widgets).
_TANGENTIAL = frozenset({"aside", "role=complementary"})

#: Records without text: at least this share of the records hold no text at all.
EMPTY_SHARE = 0.5
#: Links only: at least this share of the records' text is link text...
LINKS_ONLY = 0.9
#: The elements whose text labels a form control (a checkbox's label, a button, a
#: fieldset's legend, a select's options): the text of a filter panel, not of records.
CONTROL_TAGS = frozenset({"label", "button", "legend", "option", "optgroup", "select"})


class PageText:
    """Characters of text and of link text (inside ``<a>``) under any node, in O(1).

    Built once per page from the page arrays: one prefix sum over the text leaves, and one
    over the leaves inside links (link ranges marked by slices, no per-leaf Python loop)."""

    __slots__ = (
        "page",
        "chars",
        "linked",
        "_controls",
        "_free",
        "_unmarked",
        "landmarks",
        "card_rows",
    )

    def __init__(self, page: Page) -> None:
        self.page = page
        lens = list(map(len, page.leaves))
        self.chars = page.leaf_chars()  # (shared: read only)
        inside = bytearray(len(lens))
        last = -1
        lo, hi, end = page.leaf_lo, page.leaf_hi, page.end
        for i in compress(range(len(page.tag)), map("a".__eq__, page.tag)):
            if i > last:  # outermost links only: a nested link's leaves are marked already
                inside[lo[i] : hi[i]] = b"\x01" * (hi[i] - lo[i])
                last = end[i]
        self.linked = [0, *accumulate(map(operator.mul, lens, inside))]
        self._controls: list[int] | None = None
        self._free: int | None = None
        self._unmarked: int | None = None
        #: :func:`landmark_of` per node, memoised (regions share their parents).
        self.landmarks: dict[int, str | None] = {}
        #: the would-be cards of a record, by its root group, memoised (MDR and STEM
        #: often cut the same records: :func:`~scrapy_records.extractors.cards.split_card_rows`)
        self.card_rows: dict[tuple[int, ...], list[int] | None] = {}

    @property
    def total(self) -> int:
        """Characters of the page's text."""
        return self.chars[-1]

    def size(self, i: int) -> int:
        """Characters of text in node ``i``'s sub-tree."""
        p = self.page
        return self.chars[p.leaf_hi[i]] - self.chars[p.leaf_lo[i]]

    @property
    def free(self) -> int:
        """Characters of the page's text outside links and outside landmarks of chrome
        (``nav``, ``menu``, ``aside``, ``header``, ``footer``): its own words."""
        if self._free is None:
            self._chrome_text()
        assert self._free is not None
        return self._free

    @property
    def unmarked(self) -> int:
        """Characters of the page's text outside landmarks of chrome, links included."""
        if self._unmarked is None:
            self._chrome_text()
        assert self._unmarked is not None
        return self._unmarked

    def _chrome_text(self) -> None:
        tag, end = self.page.tag, self.page.end
        marks = _ALWAYS_CHROME | _PAGE_CHROME
        own = every = 0  # (text inside the outermost landmarks: own words, all of it)
        last = -1
        for i in compress(range(len(tag)), map(marks.__contains__, tag)):
            if i > last:
                size = self.size(i)
                every += size
                own += size - self.linked_size(i)
                last = end[i]
        self._free = self.total - self.linked[-1] - own
        self._unmarked = self.total - every

    def linked_size(self, i: int) -> int:
        """Characters of link text in node ``i``'s sub-tree."""
        p = self.page
        return self.linked[p.leaf_hi[i]] - self.linked[p.leaf_lo[i]]

    def controls_size(self, i: int) -> int:
        """Characters of form-control text (:data:`CONTROL_TAGS`) in node ``i``'s sub-tree
        (the prefix sum is built on first use, like :attr:`linked`)."""
        p = self.page
        if self._controls is None:
            inside = bytearray(len(p.leaves))
            last = -1
            for j in compress(range(len(p.tag)), map(CONTROL_TAGS.__contains__, p.tag)):
                if j > last:
                    inside[p.leaf_lo[j] : p.leaf_hi[j]] = b"\x01" * (p.leaf_hi[j] - p.leaf_lo[j])
                    last = p.end[j]
            lens = map(len, p.leaves)
            self._controls = [0, *accumulate(map(operator.mul, lens, inside))]
        return self._controls[p.leaf_hi[i]] - self._controls[p.leaf_lo[i]]


def landmark_of(page: Page, node: int, text: PageText | None = None) -> str | None:
    """Why the region under ``node`` is page chrome by its landmarks, or ``None``.

    ``node`` or an ancestor below ``<body>`` is a ``nav``/``menu``/``aside`` element, a
    page-level ``header``/``footer`` (not one of an ``article``, ``section`` or ``main``:
    that is the article's own header), or has an ARIA role of chrome (navigation, banner,
    contentinfo, complementary, menu, menubar). A role on an element that holds more than
    half of the page's text is no chrome: templates put ``role=complementary`` on the main
    column. The nearest reason is given (``"nav"``, ``"role=complementary"``)."""
    if text is None:
        text = PageText(page)
    if node in text.landmarks:
        return text.landmarks[node]
    where = text.landmarks[node] = _landmark(page, node, text)
    return where


def _landmark(page: Page, node: int, text: PageText) -> str | None:
    tag, parent = page.tag, page.parent
    chain = []
    i = node
    while i >= 0 and tag[i] not in ("body", "html"):
        chain.append(i)
        i = parent[i]
    scoped = [False] * len(chain)  # an article / section / main... above chain[k]
    seen = False
    for k in range(len(chain) - 1, -1, -1):
        scoped[k] = seen
        seen = seen or tag[chain[k]] in _SCOPING
    half = text.total / 2
    for k, i in enumerate(chain):
        t = tag[i]
        if t in _ALWAYS_CHROME or (t in _PAGE_CHROME and not scoped[k]):
            return t
        if text.size(i) > half:
            continue  # a role on the main column says nothing
        role = page.el[i].get("role")
        if role and role.strip().lower() in _CHROME_ROLES:
            return f"role={role.strip().lower()}"
    return None


def demotion(page: Page, region: Region, text: PageText) -> tuple[str, str] | None:
    """``(kind, why)`` when ``region`` is no candidate for the page's main content, else
    ``None``: ``("no_text", "3/4")`` when at least :data:`EMPTY_SHARE` of its records hold
    no text (spacer rows, image strips), ``("chrome", "nav")`` when it sits in page chrome
    (:func:`landmark_of`; an ``aside`` or complementary region holding more text than the
    page holds outside its landmarks of chrome, and not only links, is the page's
    content), ``("links_only", "0.97")`` when its text is (nearly) all link text
    (:data:`LINKS_ONLY`) and the page has more words of its own elsewhere than the region
    holds: related stories, tag lists and menus beside an article, not the page's
    records (a search result page of bare titles has no such text), and
    ``("controls", "1.00")`` when its text is (nearly) all the text of form controls
    (:data:`CONTROL_TAGS`: the legends, buttons and checkbox labels of a filter panel)
    and the page has at least as much text outside it: the page's filters, not its
    records, however regular the panel is.
    :func:`scrapy_records.extractors.explain.explain` says it in words."""
    n = len(region.records)
    lo, hi = page.leaf_lo, page.leaf_hi  # (text leaves are never empty strings)
    empty = sum(1 for rec in region.records if all(hi[x] == lo[x] for x in rec.nodes))
    if n and empty >= EMPTY_SHARE * n:
        return "no_text", f"{empty}/{n}"
    where = landmark_of(page, region.parent, text)
    chars, linked = groups_evidence(page, [r.nodes for r in region.records], text)
    content = where in _TANGENTIAL and text.unmarked < chars and linked < LINKS_ONLY * chars
    if where is not None and not content:
        return "chrome", where
    if chars and linked >= LINKS_ONLY * chars and text.free - (chars - linked) >= chars:
        return "links_only", f"{linked / chars:.2f}"
    if chars and text.total - chars >= chars:
        controls = sum(text.controls_size(x) for rec in region.records for x in rec.nodes)
        if controls >= LINKS_ONLY * chars:
            return "controls", f"{controls / chars:.2f}"
    return None


def inner_lists_only(page: Page, region: Region) -> bool:
    """Are the region's records alike up to the length of their inner lists?

    True when there are at least three records, each one element, every record holds the
    same set of root-to-node tag paths, and their tag strings are not all equal: product
    cards with two colour swatches or three, a feature list of four items or five. That
    is where STEM (Fang et al. 2017, section 5.2: a pattern's next window must repeat it)
    cannot see a list, so its silence is no evidence against one. Cost: one set of path
    ids per record."""
    groups = [rec.nodes for rec in region.records]
    if len(groups) < 3 or any(len(g) != 1 for g in groups):
        return False
    path_id, end, chars = page.path_id, page.end, page.tag_chars
    first = groups[0][0]
    paths = frozenset(path_id[first : end[first] + 1])
    tags = {chars[first : end[first] + 1]}
    for (x,) in groups[1:]:
        if frozenset(path_id[x : end[x] + 1]) != paths:
            return False
        tags.add(chars[x : end[x] + 1])
    return len(tags) > 1


def groups_evidence(page: Page, groups: Sequence[Sequence[int]], text: PageText) -> tuple[int, int]:
    """``(chars, linked chars)`` of records given as root node groups."""
    chars = linked = 0
    for g in groups:
        for x in g:
            chars += text.size(x)
            linked += text.linked_size(x)
    return chars, linked

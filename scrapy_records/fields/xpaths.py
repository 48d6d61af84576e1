"""Relative XPaths of the aligned columns: from a record's first root to the column's value.

:func:`set_xpaths` gives each data slot the XPath that selects its value in every checked
record (``None`` when no single path does). A step carries a position only where some
checked record has several same-tag siblings there; a record with several roots reaches a
later root with ``following-sibling::tag[k]``. Where the records' paths differ, steps of
tag and class, verified; where those find an alike item before the value's (an optional
item shifts positions), one step anchored on a text every record writes before the value
in it (``li/span[.//text()[normalize-space(.)='Salary Search:']]/a``), verified. A text
that is only part of its element's text ("Then the <b>Lord</b> God" before a block of
links) is read as that element's string between its neighbouring elements'
(``substring-before(string(div[2]), string(div[2]/div))``), verified too. An image some
records keep in ``src`` and others in a lazy loader's ``data-src`` is read by ``@src``: a
wrapper reads an image field's URL from any of those attributes, as mining does
(:func:`~scrapy_records.fields.text.image_source`).
"""

from __future__ import annotations

from typing import Any

from lxml import etree

from scrapy_records.fields.records import RecordTree
from scrapy_records.fields.slots import Slot
from scrapy_records.fields.text import IMAGE_ATTRS, strip_separators, xpath_literal
from scrapy_records.page import Page
from scrapy_records.selectors import class_predicate, stable_token, tag_step

#: relative path steps ``(tag, position among same-tag siblings, same-tag count)``
Steps = tuple[tuple[str, int, int], ...]
#: element -> its (position, count) among its same-tag siblings
SiblingPositions = dict[int, tuple[int, int]]
#: record root -> node -> its steps from that root (``None``: not below it)
StepsMemo = dict[int, dict[int, Any]]

_MISS = object()


def set_xpaths(
    page: Page, data: list[Slot], trees: list[RecordTree], groups: list[tuple[int, ...]]
) -> None:
    """Set ``xpath`` of every data slot (memos shared between the slots)."""
    sibpos: SiblingPositions = {}
    steps_memo: StepsMemo = {}
    for s in data:
        s.xpath = column_xpath(page, s, trees, groups, sibpos, steps_memo=steps_memo)


def _steps(
    page: Page, root: int, node: int, sibpos: SiblingPositions, memo: StepsMemo | None = None
) -> Steps | None:
    """Relative path steps from ``root`` down to ``node`` (``None`` when ``node`` is not
    below ``root``).

    ``memo`` keeps the steps of every node on the way, as ``memo[root][node]``: the
    slots of one record share their ancestors' steps."""
    if memo is None:
        memo = {}
    mr = memo.get(root)
    if mr is None:
        mr = memo[root] = {}
    parent, tag, children = page.parent, page.tag, page.children
    chain: list[int] = []
    base: Any = ()
    i = node
    while i != root:
        if i < 0:
            base = None
            break
        got = mr.get(i, _MISS)
        if got is not _MISS:
            base = got
            break
        p = parent[i]
        if p < 0:
            base = None
            break
        if i not in sibpos:
            ch = children[p]
            if p in page.gapped:  # (an empty <b> was dropped here: the document counts it)
                sibpos.update(zip(ch, page.child_positions(p)))
            elif len(ch) == 1:
                sibpos[i] = (1, 1)
            else:
                cnt: dict[str, int] = {}
                at: list[int] = []
                for c in ch:
                    k = cnt.get(tag[c], 0) + 1
                    cnt[tag[c]] = k
                    at.append(k)
                for c, k in zip(ch, at):
                    sibpos[c] = (k, cnt[tag[c]])
        chain.append(i)
        i = p
    if base is None:
        for x in chain:
            mr[x] = None
        return None
    cur: Steps = base
    for x in reversed(chain):
        sp = sibpos[x]
        cur = cur + ((tag[x], sp[0], sp[1]),)
        mr[x] = cur
    return cur


def column_xpath(
    page: Page,
    s: Slot,
    trees: list[RecordTree],
    groups: list[tuple[int, ...]],
    sibpos: SiblingPositions,
    max_check: int = 8,
    steps_memo: StepsMemo | None = None,
) -> str | None:
    """The XPath relative to the record's first root that selects the slot in every record:
    positional steps where the records agree, else class steps (an optional block before the
    value shifts positions from record to record).

    Checked on the first ``max_check`` records holding a value (bounded cost).
    """
    head0: Any = None  # the first checked record's head and steps
    steps0: Any = None
    key0: Any = None
    need_pos: list[bool] = []
    suffix0: str | None = None
    checked: list[tuple[int, int]] = []  # (record root, value node)
    checked_records: list[tuple[int, int]] = []  # (record, record root)
    positional = True
    for r, loc in enumerate(s.refs):
        if loc is None:
            continue
        if len(checked) >= max_check:
            break
        rec = trees[r]
        target = _value_node(s, r, loc, rec)
        if target is None:
            return None
        node, suffix = target
        if suffix0 is None:
            suffix0 = suffix
        elif suffix != suffix0:
            if {suffix, suffix0} <= _IMAGE_SUFFIXES:
                # src here, data-src there (lazy loading): the image's URL, which a
                # wrapper reads from any of them as mining does (image_source)
                suffix0 = _IMAGE_SRC
            elif not {suffix, suffix0} <= _FIRST_TEXT:
                return None
            else:
                # the element's only text, its one text node, its first: the first reads all
                suffix0 = _FIRST_TEXT_NODE
        checked.append((groups[r][0], node))
        checked_records.append((r, groups[r][0]))
        path = _record_path(page, rec, groups[r], node, sibpos, steps_memo)
        if path is None:
            return None
        head, st = path
        if key0 is None:
            head0, steps0 = head, st
            key0 = (head, tuple([(t, p) for t, p, _ in st]))
            need_pos = [c > 1 for _, _, c in st]
        elif st == steps0 and head == head0:
            continue  # the same steps and counts as the first record: nothing new
        elif (head, tuple([(t, p) for t, p, _ in st])) != key0:
            positional = False
        else:
            for k, (_, _, c) in enumerate(st):
                if c > 1:
                    need_pos[k] = True
    if key0 is None:
        return None
    suffix = suffix0 or ""
    if not positional:
        xp = _class_xpath(page, checked, suffix)
    else:
        head, steps = key0
        parts = []
        if head:
            parts.append(f"following-sibling::{tag_step(head[0])}[{head[1]}]")
        for k, (t, p) in enumerate(steps):
            step = tag_step(t)  # a tag XPath cannot spell ("class=x" in broken markup)
            parts.append(f"{step}[{p}]" if need_pos[k] else step)
        xp = _compose("/".join(parts) if parts else ".", suffix)
    if xp is not None and suffix.startswith(_RUN):
        xp = _verified_run(page, s, xp, checked_records)
    return xp


#: the suffix :func:`_value_node` gives a run: ``~before-step~after-step``
_RUN = "~"
#: suffixes that all read a value that is its element's first (or only) text node
_FIRST_TEXT_NODE = "text()[normalize-space()][1]"
_FIRST_TEXT = frozenset({"", "text()", _FIRST_TEXT_NODE})
#: the suffixes of an image's URL attributes, and the one a column of several gets
_IMAGE_SUFFIXES = frozenset("@" + a for a in IMAGE_ATTRS)
_IMAGE_SRC = "@" + IMAGE_ATTRS[0]


def _compose(path: str, suffix: str) -> str:
    """The XPath of an element path and a value suffix (``@href``, ``text()``, a run)."""
    if not suffix.startswith(_RUN):
        return f"{path}/{suffix}" if suffix and path != "." else (suffix or path)
    before, after = suffix[1:].split(_RUN)
    expr = f"string({path})"
    if before:
        expr = f"substring-after({expr}, string({path}/{before}))"
    if after:
        expr = f"substring-before({expr}, string({path}/{after}))"
    return expr


def _verified_run(page: Page, s: Slot, xp: str, checked: list[tuple[int, int]]) -> str | None:
    """``xp`` when it reads the run's text in every checked record ``(record, root)``."""
    try:
        compiled = etree.XPath(xp)
    except etree.XPathSyntaxError:
        return None
    values = s.raw or s.values
    for r, root in checked:
        got = compiled(page.el[root])
        if strip_separators(" ".join(str(got).split())) != values[r]:
            return None
    return xp


def _class_xpath(page: Page, checked: list[tuple[int, int]], suffix: str) -> str | None:
    """Steps of tag plus a stable class the records share at that step, verified: in every
    checked record the XPath's first match is the value's element."""
    chains = []
    for root, node in checked:
        chain = []
        i = node
        while i != root:
            if i < 0:
                return None
            chain.append(i)
            i = page.parent[i]
        chains.append(chain[::-1])
    if len({len(c) for c in chains}) != 1:
        return None
    parts = []
    for k in range(len(chains[0])):
        tags = {page.tag[c[k]] for c in chains}
        if len(tags) != 1:
            return None
        tag = tag_step(tags.pop())
        common = set.intersection(*(set(page.classes(c[k])) for c in chains))
        cls = next((t for t in page.classes(chains[0][k]) if t in common and stable_token(t)), None)
        parts.append(f"{tag}[{class_predicate(cls)}]" if cls else tag)
    element_xp = "/".join(parts) or "."
    if _first_is(page, element_xp, checked):
        return _compose(element_xp, suffix)
    anchored = _label_anchored(page, chains, checked, parts)
    return _compose(anchored, suffix) if anchored is not None else None


def _label_anchored(
    page: Page, chains: list[list[int]], checked: list[tuple[int, int]], parts: list[str]
) -> str | None:
    """The steps ``parts`` with one step anchored on a text every checked record writes
    inside it, before the value (a label, "Salary Search:", in the one of several alike
    items that holds the salaries; "Learn more about working at" before a company's
    link): ``li/span[.//text()[normalize-space(.)='Salary Search:']]/a``, verified (an
    optional item before it shifts positions, the classes are alike). The deepest step
    that tells the value's item apart; ``None`` when none does."""
    leaves, lo, hi = page.leaves, page.leaf_lo, page.leaf_hi
    for k in range(len(parts) - 1, -1, -1):
        common: set[str] | None = None
        first: list[str] = []
        for (_root, node), chain in zip(checked, chains):
            el = chain[k]
            # the short texts written inside the step's element before the value's (the
            # value's element: all of its texts, the value's too where it is one text)
            texts = [
                t
                for t in leaves[lo[el] : hi[el] if node == el else lo[node]]
                if len(t) <= _ANCHOR_CHARS and any(ch.isalpha() for ch in t)
            ]
            if common is None:
                first, common = texts, set(texts)
            else:
                common &= set(texts)
            if not common:
                break
        label = next((t for t in first if common and t in common), None)
        lit = xpath_literal(label) if label is not None else None
        if lit is None:
            continue
        anchored = [*parts[:k], f"{parts[k]}[.//text()[normalize-space(.)={lit}]]", *parts[k + 1 :]]
        xp = "/".join(anchored)
        if _first_is(page, xp, checked):
            return xp
    return None


#: a text that anchors a step is at most this long (a label, a caption)
_ANCHOR_CHARS = 40


def _first_is(page: Page, element_xp: str, checked: list[tuple[int, int]]) -> bool:
    """In every checked ``(record root, node)``, the XPath's first match is the node (the
    XPath compiled once for all of them, not once per record as ``el.xpath`` would)."""
    try:
        compiled = etree.XPath(element_xp)
    except Exception:  # an XPath lxml refuses: no column XPath
        return False
    for root, node in checked:
        try:
            found = compiled(page.el[root])
        except Exception:  # (an evaluation error: no column XPath either)
            return False
        if not found or found[0] is not page.el[node]:
            return False
    return True


def _value_node(s: Slot, r: int, loc: int, rec: RecordTree) -> tuple[int, str] | None:
    """The element that selects slot ``s``'s value ``loc`` in record ``r``, and the XPath
    suffix that reads it there (``None``: no XPath reads this text alone)."""
    kind = s.kind
    if kind == "text" and s.attr[r] == "datetime":
        return rec.pd.element(loc), "@datetime"
    if kind == "text" and not s.collapsed:
        pd = rec.pd
        owner = pd.owner(loc)
        if len(pd.items[owner]) == 1:  # the text is all the element holds: its string
            return owner, ""
        k = -loc - 1
        if k >= pd.nleaves:  # a run that is only part of its element's text
            return _run_node(rec, owner, loc)
        if sum(1 for c in rec.kids(owner) if c < 0) == 1:
            return owner, "text()"  # the element's one text node
        # one of several text nodes ("<b>Calories:</b> 120 <b>Fat:</b> 3 g"): by position
        # among the element's non-blank text nodes, as the page model keeps them
        lo, leaf_owner = pd.leaf_lo[owner], pd.leaf_owner
        pos = sum(1 for q in range(lo, k) if leaf_owner[q] == owner) + 1
        return owner, f"text()[normalize-space()][{pos}]"
    if kind == "text":
        return loc, ""
    return loc, "@" + (s.attr[r] or "href")


def _run_node(rec: RecordTree, owner: int, loc: int) -> tuple[int, str] | None:
    """The node and suffix that read run ``loc`` of element ``owner``: the one text node or
    element of the run holding text, else the owner's string between its neighbouring
    elements' (``~before~after``; ``None`` when text, not an element, is beside the run)."""
    pd = rec.pd
    page = pd.page
    run_items = pd.runs[-loc - 1 - pd.nleaves][1]
    texty = [x for x in run_items if x < 0 or page.leaf_hi[x] > page.leaf_lo[x]]
    if len(texty) == 1:
        x = texty[0]
        if x >= 0:
            return x, ""
        lo, leaf_owner = pd.leaf_lo[owner], pd.leaf_owner
        pos = sum(1 for q in range(lo, -x - 1) if leaf_owner[q] == owner) + 1
        return owner, f"text()[normalize-space()][{pos}]"
    its = pd.items[owner]
    i = its.index(loc)
    anchors = []
    for j in (i - 1, i + 1):
        nb = its[j] if 0 <= j < len(its) else None  # the run's neighbour (None: none)
        if nb is not None and (nb < 0 or page.leaf_hi[nb] == page.leaf_lo[nb]):
            return None  # text beside the run, or an empty element: nothing to cut at
        anchors.append("" if nb is None else _child_step(page, owner, nb))
    return owner, _RUN + anchors[0] + _RUN + anchors[1]


def _child_step(page: Page, parent: int, child: int) -> str:
    """The step from ``parent`` to its element ``child`` (a position among same tags)."""
    pos, count = page.sibling_position(child)
    step = tag_step(page.tag[child])
    return step if count == 1 else f"{step}[{pos}]"


def _record_path(
    page: Page,
    rec: RecordTree,
    g: tuple[int, ...],
    node: int,
    sibpos: SiblingPositions,
    steps_memo: StepsMemo | None,
) -> tuple[tuple[Any, ...], Steps] | None:
    """``(head, steps)`` from the record's first root ``g[0]`` to ``node``: ``head`` is
    ``(tag, offset)`` when ``node`` lies under a later root of the record, else ``()``."""
    end, parent, tag = page.end, page.parent, page.tag
    if len(g) == 1:  # rec.root_of for the usual single root (g is rec.roots)
        r0 = g[0]
        j = 0 if 0 <= node and r0 <= node <= end[r0] else rec.root_of(node)
    else:
        j = rec.root_of(node)
    if j < 0 or j >= len(g):
        return None
    mr = steps_memo.get(g[j]) if steps_memo is not None else None
    st: Any = mr.get(node, _MISS) if mr is not None else _MISS  # the record's memo first
    if st is _MISS:
        st = _steps(page, g[j], node, sibpos, steps_memo)
    if st is None:
        return None
    head: tuple[Any, ...] = ()
    if j > 0:
        r0, rj = g[0], g[j]
        if parent[r0] != parent[rj] or tag[r0] != tag[rj]:
            return None
        _steps(page, parent[r0], r0, sibpos, steps_memo)
        off = sibpos[rj][0] - sibpos[r0][0]
        if off <= 0:
            return None
        head = (tag[rj], off)
    return head, st

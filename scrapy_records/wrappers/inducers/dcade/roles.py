"""What a column of ``TableA`` is on the page, beyond the paper's MT/OT/MD/OD labels:
navigation links, labels next to values, and data values that coincide on the sample.

The paper tells template from data by whether the content varies across pages (Yuliana &
Chang 2019, section 2). Three cases need the page structure as well (our additions,
``docs/algorithms/dcade.md``):

* **Navigation.** A link target column is data only when the link's text is: a menu link
  whose text is the same on every page is navigation even when its URL varies (a session
  id, a tracking parameter, the current page's id in the query).
* **Labels.** The template text right before a value, close to it in the tree, that reads
  as a label ("Price:", a ``th``/``dt``/``label``/bold cell, the other cell of the row):
  :func:`label_before` finds it per page.
* **Coinciding values.** A value can be the same on every sample page (five books, all
  paperbacks), and the paper then calls it template (section 2). Two structural
  signs make such a column data again (:func:`coinciding_values`): it is a value in a
  label/value list whose other values vary, in the same markup (same value and label
  elements); or it is a label glued to a date, price or number inside the object's own
  content, next to values that vary. A link whose text is the same on every page stays
  template, as navigation does ("Write your own review!" under a "Reviews" heading).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from scrapy_records.fields.naming import label_name
from scrapy_records.fields.text import LABEL_TAGS
from scrapy_records.page import Page
from scrapy_records.wrappers.inducers.dcade.leaves import PageLeaves
from scrapy_records.wrappers.inducers.dcade.schema import SchemaColumn
from scrapy_records.wrappers.inducers.dcade.tokens import token_type

#: a heading labels the value right after it ("Type of School" above a list)
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
#: class/id words of label elements
_LABEL_WORDS = ("label", "key", "caption", "lbl", "heading")
#: how far a label and its value may be from their lowest common ancestor
_MAX_UP = 3
#: leaves looked at before a value when searching its label
_LABEL_SCAN = 4
_TYPED = frozenset({"DATE", "CURRENCY", "INTEGER", "DECIMAL", "PERCENT"})
#: words that join a form's parts, never a value
_CONNECTIVES = frozenset("or and to of by at in on - | / all any none".split())


@dataclass(frozen=True)
class Label:
    """The label of a value on one page: its text, leaf and element."""

    text: str
    leaf: int
    node: int


class LeafColumns:
    """Which column holds each leaf of each page (list columns excluded). ``rows``: the
    page of each row when the columns are a recordset's (TableA: row ``r`` is page ``r``)."""

    def __init__(
        self, cols: Sequence[SchemaColumn], m: int, rows: Sequence[int] | None = None
    ) -> None:
        self.of: list[dict[int, int]] = [{} for _ in range(m)]
        self.rows = list(rows) if rows is not None else list(range(m))
        for ci, c in enumerate(cols):
            if c.kind == "list":
                continue
            for i, ks in enumerate(c.leaves):
                for k in ks:
                    self.of[self.rows[i]].setdefault(k, ci)

    def column(self, r: int, k: int) -> int | None:
        return self.of[r].get(k)


def _lca(page: Page, a: int, b: int) -> int:
    while a >= 0 and not page.is_ancestor(a, b):
        a = page.parent[a]
    return a


def _up(page: Page, node: int, anc: int) -> int:
    return page.depth[node] - page.depth[anc] if anc >= 0 else 99


def reads_as_label(page: Page, node: int, text: str, value_node: int) -> bool:
    """A label by its form: ends in ``:``, sits in a label element or a heading, names
    itself a label, or is the cell before the value's cell in a table row."""
    t = text.strip()
    if t.endswith((":", "：")):
        return True
    if page.tag[node] in LABEL_TAGS or page.tag[node] in _HEADINGS:
        return True
    words = " ".join(page.classes(node)) + " " + (page.attr(node, "id") or "")
    if any(w in words.lower() for w in _LABEL_WORDS):
        return True
    cell = node
    while cell >= 0 and page.tag[cell] not in ("td", "th"):
        cell = page.parent[cell]
    vcell = value_node
    while vcell >= 0 and page.tag[vcell] not in ("td", "th"):
        vcell = page.parent[vcell]
    return (
        cell >= 0
        and vcell >= 0
        and cell != vcell
        and page.parent[cell] == page.parent[vcell]
        and cell < vcell
    )


def label_before(
    page: Page,
    pl: PageLeaves,
    r: int,
    k: int,
    cols: Sequence[SchemaColumn],
    where: LeafColumns,
) -> Label | None:
    """The label of leaf ``k`` of page ``r``: the nearest template text leaf before it
    (separators skipped, another data value stops the search) that is close in the tree
    and reads as a label."""
    vnode = pl.node[k]
    for j in range(k - 1, max(-1, k - 1 - _LABEL_SCAN), -1):
        if pl.kind[j] != "text":
            continue
        ci = where.column(r, j)
        text = pl.content[j]
        if ci is None or not cols[ci].template:
            return None
        lnode = pl.node[j]
        a = _lca(page, lnode, vnode)
        if _up(page, lnode, a) > _MAX_UP or _up(page, vnode, a) > _MAX_UP:
            return None
        if not any(ch.isalnum() for ch in text):
            continue  # a separator ("|", ":") between label and value
        if label_name(text) is None or not reads_as_label(page, lnode, text, vnode):
            return None
        return Label(text, j, lnode)
    return None


def column_label(
    pages: Sequence[Page],
    leaves: Sequence[PageLeaves],
    cols: Sequence[SchemaColumn],
    ci: int,
    where: LeafColumns,
) -> tuple[str, dict[int, Label]] | None:
    """The label of column ``ci``: the label text found before it on most of its rows,
    and that label per row (None: no label)."""
    c = cols[ci]
    per: dict[int, Label] = {}
    rows = [i for i, ks in enumerate(c.leaves) if ks]
    for i in rows:
        r = where.rows[i]
        lab = label_before(pages[r], leaves[r], r, c.leaves[i][0], cols, where)
        if lab is not None:
            per[i] = lab
    if not per:
        return None
    text, n = Counter(lab.text for lab in per.values()).most_common(1)[0]
    if n * 2 < len(rows) + (1 if len(rows) > 1 else 0):
        return None
    return text, {i: lab for i, lab in per.items() if lab.text == text}


# ---------------------------------------------------------------- navigation
def navigation_links(
    pages: Sequence[Page], leaves: Sequence[PageLeaves], cols: list[SchemaColumn]
) -> list[int]:
    """The link target columns whose link text is template on every page (or absent):
    navigation, whatever their URLs."""
    where = LeafColumns(cols, len(pages))
    out = []
    for ci, c in enumerate(cols):
        if c.kind != "href" or not c.data:
            continue
        varying = False
        for r, ks in enumerate(c.leaves):
            if not ks:
                continue
            page, pl = pages[r], leaves[r]
            anchor = pl.node[ks[0]]
            k = ks[0] - 1
            # the anchor's text leaves come right before its target leaf
            while k >= 0 and pl.kind[k] == "text" and page.is_ancestor(anchor, pl.node[k]):
                tc = where.column(r, k)
                if tc is not None and cols[tc].data:
                    varying = True
                    break
                k -= 1
            if varying:
                break
        if not varying:
            out.append(ci)
    return out


# ---------------------------------------------------------- coinciding values
def _signature(page: Page, node: int) -> tuple[str, str]:
    return page.tag[node], " ".join(page.classes(node))


_CONTROLS = frozenset({"input", "select", "textarea", "button", "option"})
_FORM = _CONTROLS | {"form"}


def _value_like(text: str) -> bool:
    """Could be a value: not a label ("Zip:"), not a connective ("or"), has a letter or
    digit."""
    t = text.strip()
    if t.endswith((":", "：")) or not any(ch.isalnum() for ch in t):
        return False
    return t.lower() not in _CONNECTIVES


def _in_form(page: Page, node: int) -> bool:
    """Inside a form, or beside a form control: a search box's words, not a value."""
    i, up = node, 0
    while i >= 0 and up <= 3:
        if page.tag[i] in _FORM:
            return True
        i, up = page.parent[i], up + 1
    p = page.parent[node]
    near = list(page.children[node]) + (list(page.children[p]) if p >= 0 else [])
    return any(page.tag[c] in _CONTROLS for c in near)


def _link_text(page: Page, node: int) -> bool:
    """The text of a link (``a`` with an ``href`` at most :data:`_MAX_UP` levels up)."""
    i, up = node, 0
    while i >= 0 and up <= _MAX_UP:
        if page.tag[i] == "a" and page.attr(i, "href"):
            return True
        i, up = page.parent[i], up + 1
    return False


def _glued_typed(text: str) -> bool:
    """``Label: value`` in one leaf, the value a date, price or number."""
    head, sep, rest = text.partition(":")
    if not sep or not rest.strip() or label_name(head + ":") is None:
        return False
    return any(token_type(w) in _TYPED for w in rest.split())


def _data_nearby(page: Page, pl: PageLeaves, r: int, node: int, cols, where) -> int:
    """Leaves of varying data columns inside the parent of ``node`` (its container)."""
    box = page.parent[node]
    if box < 0:
        return 0
    n = 0
    for k, owner in enumerate(pl.node):
        if (
            pl.kind[k] == "text"
            and page.is_ancestor(box, owner)
            and not page.is_ancestor(node, owner)
        ):
            ci = where.column(r, k)
            if ci is not None and cols[ci].data:
                n += 1
    return n


def coinciding_values(
    pages: Sequence[Page], leaves: Sequence[PageLeaves], cols: list[SchemaColumn]
) -> list[int]:
    """Template text columns that are data coinciding on the sample (module docstring)."""
    where = LeafColumns(cols, len(pages))
    # the markup of the varying values that have a label: (value sig, label sig)
    kv: Counter[tuple[tuple[str, str], tuple[str, str]]] = Counter()
    labels: dict[int, tuple[str, dict[int, Label]]] = {}
    for ci, c in enumerate(cols):
        if c.kind != "text" or c.split is not None or not (c.data or c.template):
            continue
        if c.template and len([v for v in c.values if v is not None]) < 2:
            continue
        lab = column_label(pages, leaves, cols, ci, where)
        if lab is None:
            continue
        labels[ci] = lab
        if c.data:
            r, one = next(iter(lab[1].items()))
            vnode = leaves[r].node[c.leaves[r][0]]
            kv[(_signature(pages[r], vnode), _signature(pages[r], one.node))] += 1
    out = []
    for ci, c in enumerate(cols):
        if c.kind != "text" or not c.template or c.kind == "list":
            continue
        rows = [r for r, ks in enumerate(c.leaves) if ks]
        if len(rows) < 2 or any(len(c.leaves[r]) != 1 for r in rows):
            continue
        r = rows[0]
        text = c.values[r]
        if not isinstance(text, str) or not _value_like(text):
            continue
        if any(_in_form(pages[q], leaves[q].node[c.leaves[q][0]]) for q in rows):
            continue
        if all(_link_text(pages[q], leaves[q].node[c.leaves[q][0]]) for q in rows):
            continue  # a link whose text is the same on every page: navigation
        vnode = leaves[r].node[c.leaves[r][0]]
        if ci in labels:
            one = next(iter(labels[ci][1].values()))
            if kv[(_signature(pages[r], vnode), _signature(pages[r], one.node))] >= 2:
                out.append(ci)
                continue
        if _glued_typed(text):
            if all(
                _data_nearby(pages[q], leaves[q], q, leaves[q].node[c.leaves[q][0]], cols, where)
                >= 2
                for q in rows
            ):
                out.append(ci)
    return out

"""XPaths for the values of a DCADE schema, checked on the induction pages (our design: the
paper extracts only from its input pages, Yuliana & Chang 2019, section 6).

For a column, :func:`column_xpath` builds the candidates that read its value on every page:

* ``label``: from the label before the value (``//th[normalize-space()='Price:']/../td``);
* ``attr``: the value's element by its ``itemprop`` or its class, when one element per
  page has it;
* ``id``: from the nearest element with the same ``id`` on every page (``id('price')/b``);
* ``pos``: the absolute path, the same on every page; ``end``: the positions that differ
  counted from the last sibling (``h5[last()]``); ``gen``: the positions that differ
  dropped.

The candidate that reproduces most values wins, the robust ones first on a tie (an optional
block above the value shifts absolute positions, not ids or labels). A label or attribute
anchor needs a scan of the document; when the absolute path also reproduces every value, the
selector reads it first, checked by the same label or attribute, and scans only when it finds
nothing: ``P[check] | /html[not(P[check])]//anchor...`` costs one absolute path on a page
of the template (``P`` may count positions from the end, see ``end``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from scrapy_records.fields.text import xpath_string
from scrapy_records.wrappers.inducers.dcade.roles import LeafColumns, column_label
from scrapy_records.wrappers.inducers.dcade.schema import Schema, SchemaColumn
from scrapy_records.wrappers.inducers.dcade.subleaf import xpath_of_gap
from scrapy_records.wrappers.model import FieldSpec
from scrapy_records.wrappers.reading import FieldReader
from scrapy_records.wrappers.safe_xpath import allowed_xpath

_STEP = re.compile(r"^([^\[]+)(?:\[(\d+)\])?$")
#: how far above a value its id anchor may be
_ID_UP = 4


def generalise(paths: list[str]) -> str | None:
    """One path from several: equal tags per step, positions kept where all agree."""
    if not paths:
        return None
    split = [p.split("/") for p in paths]
    if len({len(x) for x in split}) != 1:
        return None
    out = []
    for steps in zip(*split):
        ms = []
        for x in steps:
            mm = _STEP.match(x)
            if mm is None:
                return None
            ms.append(mm)
        if len({mm.group(1) for mm in ms}) != 1:
            return None
        pos = {mm.group(2) for mm in ms}
        out.append(steps[0] if len(pos) == 1 else ms[0].group(1))
    return "/".join(out)


def generalise_union(paths: list[str], min_share: float = 0.1) -> str | None:
    """Generalise paths per tag signature; the signatures holding at least ``min_share`` of
    the paths are joined with ``|`` (records whose nesting differs, e.g. an extra ``font``)."""
    if not paths:
        return None
    groups: dict[tuple[str, ...], list[str]] = {}
    for p in paths:
        sig = tuple(re.sub(r"\[\d+\]$", "", step) for step in p.split("/"))
        groups.setdefault(sig, []).append(p)
    parts = []
    for _sig, ps in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        if len(ps) < min_share * len(paths):
            continue
        g = generalise(ps)
        if g and g not in parts:
            parts.append(g)
    return " | ".join(parts) if parts else None


class SchemaSelectors:
    """XPaths for the leaves of a :class:`Schema` on its induction pages, and their check."""

    def __init__(self, schema: Schema) -> None:
        self.s = schema
        self.pages = schema.pages
        self.leaves = schema.page_leaves
        self.roots = [p.root.getroottree().getroot() for p in self.pages]
        self.bases = [p.base_url for p in self.pages]
        self._abs: dict[tuple[int, int], str] = {}
        self.where = LeafColumns(schema.columns, schema.m)
        self._attrs: dict[tuple[int, str], Counter[tuple[str, str]]] = {}

    def attr_count(self, r: int, attr: str, tag: str, value: str) -> int:
        """How many ``tag`` elements of page ``r`` have ``attr`` equal to ``value``."""
        cnt = self._attrs.get((r, attr))
        if cnt is None:
            page = self.pages[r]
            cnt = self._attrs[(r, attr)] = Counter(
                (page.tag[i], v) for i in range(len(page.tag)) if (v := page.attr(i, attr))
            )
        return cnt[(tag, value)]

    def absx(self, r: int, i: int) -> str:
        x = self._abs.get((r, i))
        if x is None:
            x = self._abs[(r, i)] = self.pages[r].xpath(i)
        return x

    def rel(self, r: int, anc: int, i: int) -> str:
        a, b = self.absx(r, anc), self.absx(r, i)
        return b[len(a) :].lstrip("/") if b.startswith(a + "/") or b == a else b

    def lca(self, r: int, nodes: Iterable[int]) -> int:
        page = self.pages[r]
        nodes = list(nodes)
        a = nodes[0]
        for b in nodes[1:]:
            while not page.is_ancestor(a, b):
                a = page.parent[a]
                if a < 0:
                    return 0
        return a

    def leaf_target(self, r: int, k: int) -> tuple[int, str]:
        """(element, suffix) selecting leaf ``k`` of page ``r`` (suffix: '' or
        '/text()[normalize-space()][j]' for one of several text nodes of the element)."""
        pl = self.leaves[r]
        node = pl.node[k]
        if pl.kind[k] != "text":
            return node, ""
        page = self.pages[r]
        if page.text(node) == pl.content[k]:
            return node, ""
        own = [
            kk
            for kk in range(page.leaf_lo[node], page.leaf_hi[node])
            if page.leaf_owner[kk] == node
        ]
        try:
            t = own.index(pl.pos[k])
        except ValueError:
            return node, ""
        # the t-th non-blank text node of the element, counted as XPath counts them
        # (a no-break space is not blank to normalize-space())
        el = page.el[node]
        texts = [el.text] + [ch.tail for ch in el]
        seen = j = 0
        for s in texts:
            if s and s.strip(" \t\n\r"):
                j += 1
            if s and not s.isspace():
                if seen == t:
                    return node, f"/text()[normalize-space()][{j}]"
                seen += 1
        return node, ""

    def target(self, r: int, ks: Sequence[int]) -> tuple[int, str]:
        """(element, suffix) selecting the leaves ``ks`` of page ``r`` (several: their LCA)."""
        if len(ks) == 1:
            return self.leaf_target(r, ks[0])
        return self.lca(r, [self.leaves[r].node[k] for k in ks]), ""

    def evaluate_multiple(self, spec: FieldSpec) -> list[list[Any]]:
        """The values a ``multiple`` field reads on every induction page."""
        try:
            fld = FieldReader(spec)
        except Exception:
            return [[] for _ in self.roots]
        return [fld.read(c, b) or [] for c, b in zip(self.roots, self.bases)]

    def evaluate(self, xp: str, attr: str | None, ftype: str) -> list[Any]:
        """The value ``xp`` reads on every induction page (``None`` for a bad XPath)."""
        try:
            fld = FieldReader(FieldSpec("x", ftype, xp, attribute=attr))
        except Exception:
            return [None] * len(self.roots)
        out = []
        for c, b in zip(self.roots, self.bases):
            v = fld.read(c, b)
            out.append(v if v not in ("", None) else None)
        return out


# ------------------------------------------------------------------ anchors
def _same(xs: Iterable[Any]) -> Any:
    s = set(xs)
    return s.pop() if len(s) == 1 else None


def _id_anchor(sel: SchemaSelectors, rows: list[int], targets: dict) -> str | None:
    """``id('x')/rel``: from an element with the same id on every page, the value's
    element or an ancestor, or an element inside the value's parent or grandparent (a
    landmark beside it: ``id('mapLink')/../text()[1]``); the relative path must be the
    same on every page."""
    first = rows[0]
    page = sel.pages[first]
    node0 = targets[first][0]
    cands: list[int] = []
    a, up = node0, 0
    while a >= 0 and up <= _ID_UP and page.tag[a] not in ("body", "html"):
        cands.append(a)
        a, up = page.parent[a], up + 1
    box = page.parent[page.parent[node0]] if page.parent[node0] >= 0 else -1
    if box >= 0 and page.tag[box] not in ("body", "html"):
        cands += [i for i in range(box, page.end[box] + 1) if page.attr(i, "id")]
    tried = set()
    for a in cands:
        ident = page.attr(a, "id")
        if not ident or ident in tried or ident.strip() != ident or "'" in ident:
            continue
        tried.add(ident)
        xs = set()
        for r in rows:
            p = sel.pages[r]
            node, suf = targets[r]
            b = next((i for i in range(len(p.tag)) if p.attr(i, "id") == ident), -1)
            if b < 0:
                break
            lca = sel.lca(r, [b, node])
            down = sel.rel(r, lca, node) if node != lca else ""
            xs.add("/.." * (p.depth[b] - p.depth[lca]) + ("/" + down if down else "") + suf)
        else:
            if len(xs) == 1:
                return f"id('{ident}')" + xs.pop()
    return None


def stable_path(sel: SchemaSelectors, rows: list[int], nodes: dict[int, int]) -> str | None:
    """The absolute path of ``nodes`` (one per page) when it is the same on every page,
    else the path with positions counted from the end (:func:`end_path`), else None."""
    same = _same(sel.absx(r, nodes[r]) for r in rows)
    return same or end_path(sel, rows, {r: (nodes[r], "") for r in rows})


def end_path(sel: SchemaSelectors, rows: list[int], targets: dict) -> str | None:
    """The absolute path with the positions that differ between pages counted from the
    end (``h5[last()]``, ``li[last()-1]``) when those agree: an optional element before
    the value shifts its position, not its distance to the last sibling."""
    per_page = []
    for r in rows:
        el = sel.pages[r].el[targets[r][0]]
        steps = []
        while el is not None:
            par = el.getparent()
            if par is None:
                steps.append((el.tag, 1, 1))
                break
            same = [c for c in par if c.tag == el.tag]
            steps.append((el.tag, same.index(el) + 1, len(same)))
            el = par
        per_page.append(steps[::-1])
    if len({len(s) for s in per_page}) != 1:
        return None
    out = []
    for col in zip(*per_page):
        tags = {t for t, _p, _n in col}
        if len(tags) != 1 or not isinstance(next(iter(tags)), str):
            return None
        tag = col[0][0]
        pos = {p for _t, p, _n in col}
        back = {n - p for _t, p, n in col}
        if all(n == 1 for _t, _p, n in col):
            out.append(tag)
        elif len(pos) == 1:
            out.append(f"{tag}[{pos.pop()}]")
        elif len(back) == 1:
            k = back.pop()
            out.append(f"{tag}[last()]" if k == 0 else f"{tag}[last()-{k}]")
        else:
            return None
    sufs = {targets[r][1] for r in rows}
    return "/" + "/".join(out) + sufs.pop() if len(sufs) == 1 else None


def _label_anchor(
    sel: SchemaSelectors, ci: int, rows: list[int], targets: dict
) -> tuple[str, str] | None:
    """``(anchor, check)``: ``//th[normalize-space()='Price:']/../td`` and the absolute path
    of the row with the label as a predicate (None when not the same on every page)."""
    lab = column_label(sel.pages, sel.leaves, sel.s.columns, ci, sel.where)
    if lab is None or any(r not in lab[1] for r in rows):
        return None
    text = lab[0]
    steps, checks = set(), set()
    lcas: dict[int, int] = {}
    for r in rows:
        page = sel.pages[r]
        ln = lab[1][r].node
        node, suf = targets[r]
        a = sel.lca(r, [ln, node])
        whole = page.text(ln) == text
        test = (
            f"[normalize-space()={xpath_string(text)}]"
            if whole
            else f"[text()[normalize-space()={xpath_string(text)}]]"
        )
        down = sel.rel(r, a, node) if node != a else ""
        steps.add((page.tag[ln], test, page.depth[ln] - page.depth[a], down + suf))
        to_label = sel.rel(r, a, ln) if ln != a else "self::*"
        checks.add((to_label, down + suf))
        lcas[r] = a
    if len(steps) != 1:
        return None
    tag, test, up, down = steps.pop()
    xp = f"//{tag}{test}" + "/.." * up
    if down:
        xp += "/" + down.lstrip("/")
    check = ""
    if len(checks) == 1:
        to_label, dn = checks.pop()
        base = stable_path(sel, rows, lcas)
        if base:
            check = base + f"[{to_label}{test}]" + ("/" + dn.lstrip("/") if dn else "")
    return xp, check


def _attr_anchor(sel: SchemaSelectors, rows: list[int], targets: dict) -> tuple[str, str] | None:
    """``(anchor, check)`` from the value element's ``itemprop`` or class, when exactly one
    element of its tag has it on each page."""
    for attr in ("itemprop", "class"):
        vals, tags, sufs = set(), set(), set()
        for r in rows:
            node, suf = targets[r]
            vals.add(sel.pages[r].attr(node, attr))
            tags.add(sel.pages[r].tag[node])
            sufs.add(suf)
        val, tag, suf = _same(vals), _same(tags), _same(sufs)
        if not val or not tag or suf is None:
            continue
        pred = f"[@{attr}={xpath_string(val)}]"
        if all(sel.attr_count(r, attr, tag, val) == 1 for r in rows):
            check = stable_path(sel, rows, {r: targets[r][0] for r in rows})
            return f"//{tag}{pred}{suf}", (f"{check}{pred}{suf}" if check else "")
    return None


def column_xpath(
    sel: SchemaSelectors, ci: int, c: SchemaColumn, rows: list[int], attr: str | None, ftype: str
) -> tuple[str, int] | None:
    """The best XPath for column ``ci`` and how many of its values it reproduces."""
    targets = {r: sel.target(r, c.leaves[r]) for r in rows}
    abs_paths = [sel.absx(r, targets[r][0]) + targets[r][1] for r in rows]
    cands: list[tuple[str, str]] = []  # (kind, xpath), robust first
    checked: dict[str, str] = {}
    lab = _label_anchor(sel, ci, rows, targets)
    if lab:
        cands.append(("label", lab[0]))
        checked[lab[0]] = lab[1]
    att = _attr_anchor(sel, rows, targets)
    if att:
        cands.append(("attr", att[0]))
        checked[att[0]] = att[1]
    idx = _id_anchor(sel, rows, targets)
    if idx:
        cands.append(("id", idx))
    pos = _same(abs_paths)
    if pos:
        cands.append(("pos", pos))
    else:
        end = end_path(sel, rows, targets)
        if end:
            cands.append(("end", end))
    g = generalise(abs_paths)
    if g and g != pos:
        cands.append(("gen", g))
    if not cands:
        return None
    want = [c.values[r] for r in range(sel.s.m)]
    best: tuple[int, int] | None = None
    best_xp = ""
    scores: dict[str, int] = {}
    for _kind, xp in cands:
        full = xpath_of_gap(xp, *c.split) if c.split else xp
        got = sel.evaluate(full, attr, ftype)
        n = sum(1 for r in range(sel.s.m) if want[r] is not None and got[r] == want[r])
        wrong = sum(1 for r in range(sel.s.m) if got[r] is not None and got[r] != want[r])
        scores[xp] = n - wrong
        if best is None or (n - wrong, -wrong) > best:
            best, best_xp = (n - wrong, -wrong), xp
    assert best is not None
    check = checked.get(best_xp)
    if check:
        # fast path first: the absolute path, checked by the same label or attribute (a
        # wrong row cannot pass); the anchored scan only when it finds nothing
        guarded = f"{check} | /html[not({check})]{best_xp}"
        if allowed_xpath(guarded):
            best_xp = guarded
    return best_xp, best[0]

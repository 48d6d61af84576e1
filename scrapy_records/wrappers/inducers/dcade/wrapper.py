"""From a DCADE :class:`Schema` to a :class:`~scrapy_records.wrappers.wrapper.Wrapper` of
XPath selectors (our design: the paper extracts only from the induction pages).

Entry point: :func:`schema_to_wrapper`.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import Any

from scrapy_records.errors import RecordsError
from scrapy_records.wrappers.apply import FieldReader
from scrapy_records.wrappers.inducers.dcade.schema import RecordSet, Schema, SchemaColumn
from scrapy_records.wrappers.inducers.dcade.tokens import token_type
from scrapy_records.wrappers.model import FieldSpec, Health, ListSpec, Provenance, RecordSelector
from scrapy_records.wrappers.wrapper import Wrapper

_STEP = re.compile(r"^([^\[]+)(?:\[(\d+)\])?$")


def _xlit(s: str) -> str:
    """``s`` as an XPath string literal."""
    if "'" not in s:
        return f"'{s}'"
    if '"' not in s:
        return f'"{s}"'
    parts = s.split("'")
    return "concat(" + ', "\'", '.join(f"'{p}'" for p in parts) + ")"


def _generalise(paths: list[str]) -> str | None:
    """One relative path from several: equal tags per step, positions kept where all agree."""
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


def _generalise_union(paths: list[str], min_share: float = 0.1) -> str | None:
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
        g = _generalise(ps)
        if g and g not in parts:
            parts.append(g)
    return " | ".join(parts) if parts else None


def _ftype(values: list[str], kind: str) -> str:
    """The field type all values read as (by their token types), else ``text``."""
    if kind == "href":
        return "url"
    if kind == "src":
        return "image"
    types: Counter[str] = Counter()
    for v in values:
        ws = v.split()
        ts = {token_type(w) for w in ws}
        if ts <= {"CURRENCY"} and ts:
            types["price"] += 1
        elif ts and ts <= {"INTEGER", "DECIMAL", "PERCENT"}:
            types["number"] += 1
        elif "DATE" in ts:
            types["date"] += 1
        else:
            types["text"] += 1
    if not types:
        return "text"
    t, n = types.most_common(1)[0]
    return t if n == len(values) else "text"


def _attribute(kind: str) -> str | None:
    return "href" if kind == "href" else ("src" if kind == "src" else None)


class SchemaSelectors:
    """XPaths for the leaves of a :class:`Schema` on its induction pages, and their check."""

    def __init__(self, schema: Schema) -> None:
        self.s = schema
        self.pages = schema.pages
        self.leaves = schema.page_leaves
        self.roots = [p.root.getroottree().getroot() for p in self.pages]
        self.bases = [p.base_url for p in self.pages]
        self._abs: dict[tuple[int, int], str] = {}

    def absx(self, r: int, i: int) -> str:
        x = self._abs.get((r, i))
        if x is None:
            x = self._abs[(r, i)] = self.pages[r].xpath(i)
        return x

    def rel(self, r: int, anc: int, i: int) -> str:
        a, b = self.absx(r, anc), self.absx(r, i)
        return b[len(a) :].lstrip("/") if b.startswith(a) else b

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
        """(element, suffix) selecting leaf ``k`` of page ``r`` (suffix: '' or '/text()[j]')."""
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
        content = pl.content[k]
        j = 1
        for kk in own:
            if page.leaves[kk] == content:
                break
            j += 1
        return node, f"/text()[normalize-space()][{j}]"

    def target(self, r: int, ks: tuple[int, ...]) -> tuple[int, str]:
        """(element, suffix) selecting the leaves ``ks`` of page ``r`` (several: their LCA)."""
        if len(ks) == 1:
            return self.leaf_target(r, ks[0])
        return self.lca(r, [self.leaves[r].node[k] for k in ks]), ""

    def evaluate(self, xp: str, attr: str | None, ftype: str) -> list[Any]:
        """The value ``xp`` reads on every induction page (``None`` for a bad XPath)."""
        try:
            fld = FieldReader(FieldSpec("x", ftype, xp, attribute=attr))
        except Exception:
            return [None] * len(self.roots)
        return [fld.read(c, b) if c is not None else None for c, b in zip(self.roots, self.bases)]


def _label_anchored_xpath(
    sel: SchemaSelectors,
    cols: list[SchemaColumn],
    ci: int,
    rows: list[int],
    targets: dict[int, tuple[int, str]],
) -> str | None:
    """A path from the nearest preceding template label (up to three columns back), e.g.
    ``//th[normalize-space()='Price:']/../td[1]``, when it is the same on every page."""
    for j in range(ci - 1, max(-1, ci - 4), -1):
        lab = cols[j]
        if lab.template and lab.kind == "text":
            break
    else:
        return None
    steps = set()
    for r in rows:
        if not lab.leaves[r] or len(lab.leaves[r]) != 1:
            return None
        ln = sel.leaves[r].node[lab.leaves[r][0]]
        page = sel.pages[r]
        if page.text(ln) != lab.values[r]:
            return None
        tn = targets[r][0]
        a = sel.lca(r, [ln, tn])
        steps.add((page.tag[ln], page.depth[ln] - page.depth[a], sel.rel(r, a, tn) + targets[r][1]))
    if len(steps) != 1:
        return None
    tag, up, down = steps.pop()
    xp = f"//{tag}[normalize-space()={_xlit(lab.values[rows[0]])}]" + "/.." * up
    if down:
        xp += "/" + down.lstrip("/")
    return xp


def _table_field(
    sel: SchemaSelectors, cols: list[SchemaColumn], ci: int, verify: bool
) -> FieldSpec | None:
    """The field of a data column of TableA: among the label-anchored path, the positional
    path and the positional path generalised, the one that reproduces most values."""
    c = cols[ci]
    m = sel.s.m
    rows = [r for r in range(m) if c.leaves[r]]
    if not rows:
        return None
    ftype = _ftype([c.values[r] for r in rows], c.kind)
    attr = _attribute(c.kind)
    targets = {r: sel.target(r, c.leaves[r]) for r in rows}
    abs_paths = [sel.rel(r, 0, targets[r][0]) + targets[r][1] for r in rows]
    cands: list[str] = []
    anchored = _label_anchored_xpath(sel, cols, ci, rows, targets)
    if anchored:
        cands.append(anchored)
    if len(set(abs_paths)) == 1:
        cands.append(abs_paths[0])
    g = _generalise(abs_paths)
    if g and g not in cands:
        cands.append(g)
    if not cands:
        return None
    best, best_n = cands[0], -1
    if verify and len(cands) > 1:
        for xp in cands:
            got = sel.evaluate(xp, attr, ftype)
            n = sum(1 for r in range(m) if (got[r] or None) == c.values[r])
            if n > best_n:
                best, best_n = xp, n
    return FieldSpec(c.name, ftype, best, None, attr, optional=not c.mandatory)


def _record_roots(sel: SchemaSelectors, rs: RecordSet, data: list[SchemaColumn]) -> list[int]:
    """The element of each record: the LCA of its leaves, or when records share one (names
    separated by commas) the element of their most filled data field (-1: none)."""
    roots = []
    for i, (r, _k) in enumerate(rs.rows):
        nodes = [sel.leaves[r].node[k] for f in rs.columns for k in f.leaves[i]]
        roots.append(sel.lca(r, nodes) if nodes else -1)
    per_page: dict[int, list[int]] = {}
    for (r, _k), x in zip(rs.rows, roots):
        per_page.setdefault(r, []).append(x)
    if all(len(set(v)) == len(v) and -1 not in v for v in per_page.values()):
        return roots
    anchor = max(data, key=lambda f: sum(1 for x in f.leaves if x))
    return [
        sel.leaves[r].node[anchor.leaves[i][0]] if anchor.leaves[i] else -1
        for i, (r, _k) in enumerate(rs.rows)
    ]


def _list_field(
    sel: SchemaSelectors, rs: RecordSet, f: SchemaColumn, roots: list[int]
) -> FieldSpec | None:
    """A field of a recordset: its paths from the record elements, generalised."""
    rels = []
    for i, (r, _k) in enumerate(rs.rows):
        if f.leaves[i] and roots[i] >= 0:
            tn, suf = sel.leaf_target(r, f.leaves[i][0])
            if not sel.pages[r].is_ancestor(roots[i], tn):
                continue
            rels.append((sel.rel(r, roots[i], tn) or ".") + suf if tn != roots[i] else "." + suf)
    gx = _generalise_union(rels) if rels else None
    if gx is None:
        return None
    gx = " | ".join(x.strip().lstrip("/") or "." for x in gx.split(" | "))
    ftype = _ftype([v for v in f.values if v], f.kind)
    return FieldSpec(f.name, ftype, gx, None, _attribute(f.kind), optional=not f.mandatory)


def _list_spec(sel: SchemaSelectors, rs: RecordSet) -> ListSpec | None:
    """A recordset as a nested list: the record elements' generalised paths, its data fields."""
    lc = sel.s.columns[rs.column_index]
    data = [f for f in rs.columns if f.data]
    if not data:
        return None
    roots = _record_roots(sel, rs, data)
    rec_paths = [sel.rel(r, 0, x) for (r, _k), x in zip(rs.rows, roots) if x >= 0]
    rec_xp = _generalise_union(rec_paths)
    if not rec_xp:
        return None
    lfields = [spec for f in data if (spec := _list_field(sel, rs, f, roots)) is not None]
    if not lfields:
        return None
    rec_xp = " | ".join(x.strip().lstrip("/") for x in rec_xp.split(" | "))
    return ListSpec(lc.name, RecordSelector(rec_xp), lfields, [], optional=lc.label == "OR")


def schema_to_wrapper(schema: Schema, site: str | None = None, verify: bool = True) -> Wrapper:
    """A :class:`~scrapy_records.wrappers.wrapper.Wrapper` for the template.

    Detail view: the record selector is ``/html`` (one record per page); every data column
    of TableA (MD/OD) becomes a field named after its template label, optional when the
    column is; every recordset becomes a nested list whose record selector is the
    generalised path of the records' lowest common ancestors (or of their most filled field
    when records share an ancestor, e.g. names separated by commas) and whose fields are the
    set's data columns. For each column several XPaths are generated (the same positional
    path on every page; a path anchored on the preceding template label, e.g.
    ``//th[normalize-space()='Price:']/../td[1]``; the positional path with varying
    positions dropped) and the one that reproduces most of the column's values on the
    induction pages is kept (``verify``).
    """
    sel = SchemaSelectors(schema)
    if not schema.page_leaves:
        raise RecordsError("schema has no leaf data (build it with induce_schema)")
    fields: list[FieldSpec] = []
    fill: dict[str, float] = {}
    for ci, c in enumerate(schema.columns):
        if not c.data or c.kind == "list":
            continue
        spec = _table_field(sel, schema.columns, ci, verify)
        if spec is not None:
            fields.append(spec)
            fill[c.name] = c.support
    lists = [ls for rs in schema.recordsets if (ls := _list_spec(sel, rs)) is not None]
    urls = [p.url for p in schema.pages if p.url]
    w = Wrapper(
        id=Wrapper.make_id(site, [f.xpath for f in fields], [x.record.xpath for x in lists]),
        record=RecordSelector("/html"),
        fields=fields,
        lists=lists,
        site=site,
        provenance=Provenance(
            extractor="dcade",
            sample_urls=urls[:50],
            options={
                k: (list(v) if isinstance(v, tuple) else v) for k, v in schema.options.items()
            },
        ),
        health=Health(expected_records=(1, 1), fill_rates=fill),
    )
    w.validate()
    return w

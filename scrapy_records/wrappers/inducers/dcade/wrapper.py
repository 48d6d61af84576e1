"""From a DCADE :class:`Schema` to a detail-page :class:`~scrapy_records.wrappers.wrapper.Wrapper`
(our design: the paper extracts only from the induction pages, Yuliana & Chang 2019,
section 6).

Entry point: :func:`schema_to_wrapper`. One record per page (``/html``) whose fields are the
data of ``TableA``: the columns labelled MD/OD (values that vary across the pages, values
cut out of leaves with template words, values coinciding on the sample in a label/value
list), not the template (MT/OT), not the navigation links (a link whose text is template).
A recordset becomes a list: a ``multiple`` field when its records hold one text value, else
a nested list of records; sibling values too few to be a recordset (one or two authors on
every sample page) become a ``multiple`` field as well (:mod:`siblings`).
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from typing import Any

from scrapy_records.errors import RecordsError
from scrapy_records.fields.values import is_no_value
from scrapy_records.wrappers.inducers.dcade.fieldnames import compact_numbering, name_object_title
from scrapy_records.wrappers.inducers.dcade.schema import RecordSet, Schema, SchemaColumn
from scrapy_records.wrappers.inducers.dcade.siblings import sibling_sets
from scrapy_records.wrappers.inducers.dcade.subleaf import xpath_of_gap
from scrapy_records.wrappers.inducers.dcade.tokens import token_type
from scrapy_records.wrappers.inducers.dcade.xpaths import (
    SchemaSelectors,
    column_xpath,
    generalise_union,
)
from scrapy_records.wrappers.model import FieldSpec, Health, ListSpec, Provenance, RecordSelector
from scrapy_records.wrappers.safe_xpath import allowed_xpath
from scrapy_records.wrappers.wrapper import Wrapper

logger = logging.getLogger(__name__)

_TYPED = ("price", "number", "date")
#: a number written plainly: its ``_raw`` twin would repeat it
_PLAIN = re.compile(r"^\s*-?\d+(?:\.\d+)?\s*$")


def _codes(values: list[str]) -> bool:
    """Digit strings all of one length of five or more (zip codes, ids): codes, not
    numbers ("02134" is no 2134)."""
    vals = [v.strip() for v in values]
    return (
        bool(vals)
        and all(v.isdigit() for v in vals)
        and len({len(v) for v in vals}) == 1
        and len(vals[0]) >= 5
    )


def _ftype(values: list[str], kind: str) -> str:
    """The field type all values read as (by their token types), else ``text``: a price
    when every word is an amount of money, a number when every word is a number (a
    percentage stays text), a date when a word is a date."""
    if kind == "href":
        return "url"
    if kind == "src":
        return "image"
    types: Counter[str] = Counter()
    values = [v for v in values if not is_no_value(v)]  # ("N/A" among the endowments)
    if _codes(values):
        return "text"
    for v in values:
        ts = {token_type(w) for w in v.split()}
        if ts and ts <= {"CURRENCY"}:
            types["price"] += 1
        elif ts and ts <= {"INTEGER", "DECIMAL"}:
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


def _worth_a_field(c: SchemaColumn, rows: list[int]) -> bool:
    """A data column the record keeps: text with a letter or digit, not labels, seen on
    two pages (or labelled: one page cannot show that it varies)."""
    if c.kind not in ("text", "href"):
        return False
    vals = [v for v in c.values if isinstance(v, str)]
    if c.kind == "text" and not any(ch.isalnum() for v in vals for ch in v):
        return False
    if c.kind == "text" and sum(v.rstrip().endswith((":", "：")) for v in vals) * 2 >= len(vals):
        return False  # labels the alignment left in a data column
    return len(rows) >= 2 or bool(c.label_text)


#: which column to keep when several hold the same values (best first): microdata, a
#: label, a microformat class, a value type, a heading tag, the page title, a class word
_EVIDENCE_RANK = {
    "itemprop": 0,
    "json-ld": 0,
    "label": 1,
    "microformat": 2,
    "type": 3,
    "tag": 4,
    "class": 6,
    "link": 7,
}


def _keep_rank(c: SchemaColumn) -> int:
    if c.evidence == "tag" and c.name.startswith("page_title"):
        return 5
    return _EVIDENCE_RANK.get(c.evidence, 9)


def _copies(cols: list[SchemaColumn]) -> set[int]:
    """Data columns holding the same varying values as a better-named one on every
    induction page (the title in the page title, the heading, the breadcrumb, "Reviews for
    <title>"): the record keeps one, a whole text before a value cut from a longer one
    (a value after its own label, "MSRP: $61,550", counts as whole), then the best named,
    then the first in the page.
    (Values equal on the sample are no evidence: two "Not available".)"""
    groups: dict[tuple[Any, ...], list[int]] = {}
    for ci, c in enumerate(cols):
        vals = [v for v in c.values if v is not None]
        if c.data and c.kind in ("text", "href") and len(set(vals)) >= 2:
            groups.setdefault((c.kind, tuple(c.values)), []).append(ci)
    out: set[int] = set()
    for members in groups.values():
        if len(members) > 1:
            best = min(members, key=lambda i: (_cut(cols[i]), _keep_rank(cols[i]), i))
            out.update(i for i in members if i != best)
    kept = [i for members in groups.values() for i in members if i not in out]
    for ci in kept:  # a value cut from a text where it is there, absent elsewhere
        c = cols[ci]
        if c.split is not None and any(_covers(cols[k], c) for k in kept if k != ci):
            out.add(ci)
    out |= _template_sentences(cols, [i for i in kept if i not in out])
    return out


def _template_sentences(cols: list[SchemaColumn], kept: list[int]) -> set[int]:
    """Texts that are template words around another field's value on every induction page
    ("Compare the <2011 BMW Z4> against similar models", "<2011 BMW Z4> Price Quote"
    beside the title "2011 BMW Z4 Overview"), and the links they are the text of: a link
    or a line the template writes about the object, not a value of it."""
    out: set[int] = set()
    texts = [i for i in kept if cols[i].kind == "text" and cols[i].split is None]
    for ci in texts:
        c = cols[ci]
        rows = [r for r, v in enumerate(c.values) if isinstance(v, str)]
        if len(rows) < 2 or len({c.values[r] for r in rows}) < 2:
            continue
        words = {r: c.values[r].split() for r in rows}
        head, tail = _common_ends(list(words.values()))
        if head + tail < 2:
            continue
        rest = {r: " ".join(w[head : len(w) - tail]) for r, w in words.items()}
        if not all(rest.values()):
            continue
        if not any(
            k != ci
            and all(
                isinstance(v := cols[k].values[r], str) and f" {rest[r]} " in f" {v} " for r in rows
            )
            for k in texts
            if k not in out
        ):
            continue
        out.add(ci)
        out.update(
            h
            for h in kept
            if cols[h].kind == "href" and all(cols[h].nodes[r] == c.nodes[r] for r in rows)
        )
    return out


def _common_ends(seqs: list[list[str]]) -> tuple[int, int]:
    """How many words all ``seqs`` share at their start, and then at their end."""
    short = min(map(len, seqs))
    head = 0
    while head < short and all(s[head] == seqs[0][head] for s in seqs):
        head += 1
    tail = 0
    while tail < short - head and all(s[-1 - tail] == seqs[0][-1 - tail] for s in seqs):
        tail += 1
    return head, tail


def _cut(c: SchemaColumn) -> bool:
    """A value cut from a longer text, other than the rest of a text after its label."""
    if c.split is None:
        return False
    runs, gap = c.split
    return not (c.label_text and gap == len(runs) and runs[-1].strip() == c.label_text.strip())


def _covers(whole: SchemaColumn, part: SchemaColumn) -> bool:
    """``part`` (a value cut from a longer text) repeats ``whole`` (a whole text) on every
    page where it has a value, with at least two distinct values on half the pages."""
    if whole.split is not None or whole.kind != part.kind:
        return False
    pairs = [(v, whole.values[r]) for r, v in enumerate(part.values) if v is not None]
    return (
        2 * len(pairs) >= len(part.values)
        and len({v for v, _w in pairs}) >= 2
        and all(v == w for v, w in pairs)
    )


def _table_fields(sel: SchemaSelectors, schema: Schema) -> tuple[list[FieldSpec], dict]:
    """The record's fields from the data columns of TableA (typed ones with a ``_raw``
    twin, the text as written, label included; not a number written plainly, "19", that
    ends its element's text, "Pages: 500": the twin would say it again with the label its
    name already says)."""
    fields: list[FieldSpec] = []
    fill: dict[str, float] = {}
    taken = {c.name for c in schema.columns}
    sets = {s.columns[0]: s for s in sibling_sets(sel, schema)}
    in_sets = {k for s in sets.values() for k in s.columns + s.links}
    copies = _copies(schema.columns)
    for ci, c in enumerate(schema.columns):
        if ci in sets:
            fields += [f for f in (sets[ci].field, sets[ci].url) if f is not None]
            continue
        if not c.data or c.kind == "list" or ci in in_sets or ci in copies:
            continue
        rows = [r for r in range(schema.m) if c.leaves[r]]
        if not rows or not _worth_a_field(c, rows):
            continue
        ftype = _ftype([c.values[r] for r in rows], c.kind)
        attr = _attribute(c.kind)
        got = column_xpath(sel, ci, c, rows, attr, ftype)
        if got is None or got[1] <= 0:
            continue
        xp = got[0]
        full = xpath_of_gap(xp, *c.split) if c.split else xp
        fields.append(FieldSpec(c.name, ftype, full, None, attr, optional=not c.mandatory))
        fill[c.name] = c.support
        raw = c.name + "_raw"
        tail = c.split is None or c.split[1] == len(c.split[0])  # nothing after the value
        plain = ftype == "number" and tail and all(_PLAIN.match(c.values[r]) for r in rows)
        if ftype in _TYPED and not plain and raw not in taken:
            fields.append(FieldSpec(raw, "text", xp, None, None, optional=True))
            taken.add(raw)
    return fields, fill


# ---------------------------------------------------------------------- lists
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
    gx = generalise_union(rels) if rels else None
    if gx is None:
        return None
    gx = " | ".join(x.strip().lstrip("/") or "." for x in gx.split(" | "))
    if f.split:
        gx = xpath_of_gap(gx, *f.split)
    ftype = _ftype([v for v in f.values if v], f.kind)
    return FieldSpec(f.name, ftype, gx, None, _attribute(f.kind), optional=not f.mandatory)


def _list_spec(sel: SchemaSelectors, rs: RecordSet, data: list[SchemaColumn]) -> ListSpec | None:
    """A recordset as a nested list: the record elements' generalised paths, its data fields."""
    lc = sel.s.columns[rs.column_index]
    roots = _record_roots(sel, rs, data)
    rec_paths = [sel.rel(r, 0, x) for (r, _k), x in zip(rs.rows, roots) if x >= 0]
    rec_xp = generalise_union(rec_paths)
    if not rec_xp:
        return None
    lfields = [spec for f in data if (spec := _list_field(sel, rs, f, roots)) is not None]
    if not lfields:
        return None
    name = lc.name
    texts = [f for f in lfields if f.type != "url"]
    links = [f for f in lfields if f.type == "url"]
    if len(texts) == 1 and len(links) == 1:  # a set of links: "cuisine", "cuisine_url"
        text, link = texts[0], links[0]
        if link.name.startswith("field"):
            link.name = f"{text.name}_url"
        elif text.name == name == "list" and link.name.endswith("_url"):
            name = text.name = link.name[: -len("_url")]  # named by its links' class
    rec_xp = " | ".join(x.strip().lstrip("/") for x in rec_xp.split(" | "))
    return ListSpec(name, RecordSelector(rec_xp), lfields, [], optional=lc.label == "OR")


def _multiple_field(sel: SchemaSelectors, rs: RecordSet, f: SchemaColumn) -> FieldSpec | None:
    """A recordset of one text value per record as a ``multiple`` field (its values in
    page order), when its generalised path reads exactly those values on every page."""
    if f.split:
        return None  # a string expression reads one value, not a list
    lc = sel.s.columns[rs.column_index]
    want: dict[int, list[Any]] = {}
    paths = []
    for i, (r, _k) in enumerate(rs.rows):
        if f.leaves[i]:
            node, suf = sel.leaf_target(r, f.leaves[i][0])
            paths.append(sel.absx(r, node) + suf)
            want.setdefault(r, []).append(f.values[i])
    xp = generalise_union(paths)
    if not xp:
        return None
    ftype = _ftype([v for v in f.values if v], f.kind)
    spec = FieldSpec(
        lc.name, ftype, xp, None, _attribute(f.kind), optional=lc.label == "OR", multiple=True
    )
    got = sel.evaluate_multiple(spec)
    if any(got[r] != want.get(r, []) for r in range(sel.s.m)):
        return None
    return spec


def _lists(sel: SchemaSelectors, schema: Schema) -> tuple[list[FieldSpec], list[ListSpec]]:
    fields, lists = [], []
    for rs in schema.recordsets:
        data = [f for f in rs.columns if f.data and f.kind in ("text", "href")]
        if not data:
            continue
        if len(data) == 1 and data[0].kind == "text":
            spec = _multiple_field(sel, rs, data[0])
            if spec is not None:
                fields.append(spec)
                continue
        ls = _list_spec(sel, rs, data)
        if ls is not None:
            lists.append(ls)
    return fields, lists


def schema_to_wrapper(schema: Schema, site: str | None = None, verify: bool = True) -> Wrapper:
    """A :class:`~scrapy_records.wrappers.wrapper.Wrapper` for the template (module
    docstring): record ``/html``, one field per data column of TableA with the XPath that
    reproduces most of its values on the induction pages (:mod:`xpaths`; ``verify`` is
    kept for compatibility: candidates are always checked), typed fields with a ``_raw``
    twin, recordsets as ``multiple`` fields or nested lists."""
    if not schema.page_leaves:
        raise RecordsError("schema has no leaf data (build it with induce_schema)")
    sel = SchemaSelectors(schema)
    fields, fill = _table_fields(sel, schema)
    list_fields, lists = _lists(sel, schema)
    names = {f.name for f in fields}
    for f in list_fields:
        if f.name in names:
            f.name = f"{f.name}_list"
        names.add(f.name)
        fields.append(f)
    for ls in lists:
        if ls.name in names:
            ls.name = f"{ls.name}_list"
        names.add(ls.name)
    # (a selector of a form wrappers may not hold never reaches the document: its field
    # is dropped rather than the whole wrapper)
    fields = [f for f in fields if _allowed(f)]
    lists = [x for x in lists if allowed_xpath(x.record.xpath) and all(map(_allowed, x.fields))]
    before = [f.name for f in fields]
    name_object_title(schema, fields, [x.name for x in lists])
    compact_numbering(schema, fields, [x.name for x in lists])
    renamed = {old: f.name for old, f in zip(before, fields)}
    fill = {renamed.get(k, k): v for k, v in fill.items()}
    w = _wrapper(schema, site, fields, lists, fill)
    heads = _list_heads(w, schema)
    if not heads:
        return w
    fields = [f for f in fields if f.name not in heads]
    holders: list[FieldSpec | ListSpec] = [*fields, *lists]
    for x in holders:  # "joblinks_list" takes back the name its copy held
        base = x.name[: -len("_list")]
        if x.name.endswith("_list") and base in heads:
            x.name = base
    return _wrapper(schema, site, fields, lists, {k: v for k, v in fill.items() if k not in heads})


def _list_heads(w: Wrapper, schema: Schema) -> set[str]:
    """Single fields that repeat the first item of a list on every induction page where
    they have a value (two values at least): the first related job's location, aligned
    as a column of its own, which the list of related jobs reads again."""
    seen: dict[str, list[bool]] = {}
    values: dict[str, set[Any]] = {}
    for page in schema.pages:
        try:
            res = w.extract(page)
        except RecordsError:  # (a page over the budget: no evidence, the fields stay)
            return set()
        if not res.regions or not res.regions[0].records:
            continue
        rec = res.regions[0].records[0].fields
        heads = []
        for v in rec.values():
            if isinstance(v, list) and v:
                heads += list(v[0].values()) if isinstance(v[0], dict) else [v[0]]
        for name, v in rec.items():
            if isinstance(v, (str, int, float)) and not isinstance(v, bool):
                seen.setdefault(name, []).append(v in heads)
                values.setdefault(name, set()).add(v)
    return {n for n, hits in seen.items() if all(hits) and len(values[n]) >= 2}


def _wrapper(
    schema: Schema, site: str | None, fields: list[FieldSpec], lists: list[ListSpec], fill: dict
) -> Wrapper:
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


def _allowed(f: FieldSpec) -> bool:
    if allowed_xpath(f.xpath):
        return True
    logger.debug("dcade: field %s dropped, not an allowed selector: %s", f.name, f.xpath)
    return False

"""Record fields from the aligned columns: a wrapper emits the columns mining emitted.

The template's schema is the main region's columns: each becomes a field with the column's
name and type, read by the column's XPath (relative to the record's first element). Where a
column has no single XPath, or its XPath differs between the sample pages, the candidates
are every page's column XPath, their union, the element's own text, a link found by its
text where that is one text of the template (positions dropped), plus the feature-based
selectors of :mod:`~scrapy_records.wrappers.inducers.record_fields`; each candidate is
applied to every sample page and the one whose values agree best with the mined values (on
>= 80% of the records holding either, on every page; a list one page mines where another has
numbered columns by its first item) reads the column. So mined and wrapped pages of a
template give the same keys and the same values. A column another sample page holds as one
value in every record is template text there, no field; columns two pages named
differently that one selector reads are one field, named by the better evidence; fields
sharing a base name are numbered as mining numbers them (the fullest keeps the base name).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

from scrapy_records.fields.namer import EVIDENCE_RANK
from scrapy_records.fields.text import xpath_literal
from scrapy_records.fields.values import parse_date_iso, parse_number, parse_price
from scrapy_records.page import Page
from scrapy_records.results import Column, Record, Region
from scrapy_records.wrappers.apply import CompiledWrapper
from scrapy_records.wrappers.model import FIELD_TYPES, FieldSpec, KeyList, RecordSelector
from scrapy_records.wrappers.safe_xpath import allowed_xpath

if TYPE_CHECKING:  # the Wrapper class is passed in: wrapper.py imports the inducers
    from scrapy_records.wrappers.wrapper import Wrapper

#: a field reads a column when it agrees with the mined values on this share of the records
MIN_AGREEMENT = 0.8


def schema_columns(region: Region) -> list[Column]:
    """The columns a wrapper must reproduce: all but the companions it derives itself
    (``<price>_currency``)."""
    return [c for c in region.columns if c.evidence not in ("currency", "unit", "max")]


def column_spec(col: Column) -> FieldSpec | None:
    """The field that reads ``col`` with its own XPath (``None`` when it has none)."""
    xp = col.xpath
    if not xp or not allowed_xpath(xp):
        return None
    attr = None
    head, _, last = xp.rpartition("/")
    if last.startswith("@"):
        attr, xp = last[1:], head or "."
    ftype = col.type if col.type in FIELD_TYPES else "text"
    if attr in ("href", "src", "data-src", "srcset") and ftype not in ("url", "image"):
        ftype = "url" if attr == "href" else "image"
    return FieldSpec(col.name, ftype, xp, None, attr, col.fill < 1.0, col.multiple)


_POSITION = re.compile(r"\[\d+\]")


_TEXT_ANCHOR = "normalize-space(.)="
#: an XPath of child steps only, each a name with predicates (no axis, union or function)
_CHILD_STEPS = re.compile(r"^[\w-]+(\[[^\]]*\])*(/[\w-]+(\[[^\]]*\])*)*$")


def _robustness(spec: FieldSpec) -> int:
    """Between selectors that read a column equally well, the one that survives a block
    shifting position: no positional step, then a class step; a link found by its text
    (the template's) first of all."""
    return (
        (_TEXT_ANCHOR in spec.xpath) * 4
        + (not _POSITION.search(spec.xpath)) * 2
        + ("@class" in spec.xpath)
    )


def _typed(text: Any, typ: str) -> Any:
    """A text value as a column of type ``typ`` holds it (``None``: it does not convert)."""
    if not isinstance(text, str):
        return None
    if typ == "price":
        p = parse_price(text)
        return p[0] if p else None
    if typ == "number":
        return parse_number(text)
    return parse_date_iso(text) if typ == "date" else None


def _text(v: Any) -> str | None:
    return None if v is None else str(v)


class _PageValues:
    """One sample page's candidate values and mined values, record by record (the mined
    records, matched by their first XPath), each converted to a string once. Every
    candidate is compared with every column through an index (per record: value ->
    candidates reading it) and bit sets of the records holding a value: linear in the
    candidates plus the columns, not in their product."""

    def __init__(
        self,
        got: dict[str, list[dict[str, Any]]],
        mined: dict[str, dict[str, Any]],
        cands: Sequence[FieldSpec],
        types: dict[str, str],
    ):
        self.types = types  # the mined columns' types on this page
        self.rows = [rows[0] if rows else None for rows in (got.get(f) for f in mined)]
        self.fields = list(mined.values())
        self.keys = [c.name for c in cands]
        self.text_keys = [c.name for c in cands if c.type == "text"]
        self._got: dict[str, tuple[list[Any], list[str | None], int]] = {}
        self._mined: dict[str, tuple[list[Any], list[str | None], list[str | None], int]] = {}
        self._typed: dict[tuple[str, str], list[str | None]] = {}
        self._index: dict[str | None, list[dict[str, list[str]]]] = {}
        self._same: dict[tuple[str, str | None], dict[str, int]] = {}
        self._conv: dict[tuple[str, str], str | None] = {}  # (text, type) -> typed string

    def got(self, key: str) -> tuple[list[Any], list[str | None], int]:
        """The candidate ``key``'s values per record, as strings, and the bit set of the
        records holding one."""
        if key not in self._got:
            vals = [r.get(key) if r is not None else None for r in self.rows]
            self._got[key] = (vals, [_text(v) for v in vals], _bits(vals))
        return self._got[key]

    def mined(self, name: str) -> tuple[list[Any], list[str | None], list[str | None], int]:
        """The column ``name``'s mined values per record, as strings, a list's first item
        as a string (its own string where the value is no list), and the bit set of the
        records holding a value."""
        if name not in self._mined:
            vals = [f.get(name) for f in self.fields]
            strs = [_text(v) for v in vals]
            firsts = [
                _text(v[0] if v else None) if isinstance(v, list) else t for v, t in zip(vals, strs)
            ]
            self._mined[name] = (vals, strs, firsts, _bits(vals))
        return self._mined[name]

    def typed(self, key: str, typ: str) -> list[str | None]:
        """The candidate ``key``'s text values converted to type ``typ``, as strings."""
        if (key, typ) not in self._typed:
            self._typed[key, typ] = [self.convert(v, typ) for v in self.got(key)[0]]
        return self._typed[key, typ]

    def convert(self, v: Any, typ: str) -> str | None:
        """:func:`_typed` as a string, once per text (candidates share many texts)."""
        if not isinstance(v, str):
            return None
        if (v, typ) not in self._conv:
            self._conv[v, typ] = _text(_typed(v, typ))
        return self._conv[v, typ]

    def index(self, typ: str | None) -> list[dict[str, list[str]]]:
        """Per record: value string -> the candidates reading it (``typ``: the text
        candidates' values converted to ``typ``, where that changes the string)."""
        if typ not in self._index:
            idx: list[dict[str, list[str]]] = [{} for _ in self.rows]
            if typ is None:
                for key in self.keys:
                    for i, v in enumerate(self.got(key)[1]):
                        if v is not None:
                            idx[i].setdefault(v, []).append(key)
            else:
                # converted only where a column of that type holds a value to meet
                need = 0
                for name, t in self.types.items():
                    need |= self.mined(name)[3] if t == typ else 0
                for key in self.text_keys:
                    vals, strs, _ = self.got(key)
                    for i, g in enumerate(vals):
                        if isinstance(g, str) and need >> i & 1:
                            v = self.convert(g, typ)
                            if v is not None and v != strs[i]:
                                idx[i].setdefault(v, []).append(key)
            self._index[typ] = idx
        return self._index[typ]

    def same(self, name: str, typ: str | None) -> dict[str, int]:
        """Per candidate: the records where it reads the mined value of ``name`` (``typ``:
        where its text converted to ``typ`` does, and its text does not)."""
        if (name, typ) not in self._same:
            counts: dict[str, int] = {}
            idx = self.index(typ)
            for i, ms in enumerate(self.mined(name)[1]):
                if ms is not None:
                    for key in idx[i].get(ms, ()):
                        counts[key] = counts.get(key, 0) + 1
            self._same[name, typ] = counts
        return self._same[name, typ]

    def agreement(
        self, key: str, name: str, convert: str | None = None, first_item: bool = False
    ) -> tuple[int, int]:
        """(records where the candidate ``key`` reads the mined value of ``name``, records
        where either has a value). ``convert``: the mined column's type on this page when
        the candidate reads its text (a column typed on one sample page and text on
        another). ``first_item``: the column is a list on this page and numbered single
        columns on another sample page (its items aligned apart there): a single value
        agrees with the list's first item."""
        if first_item:
            return self._first_item_agreement(key, name, convert)
        same = self.same(name, None).get(key, 0)
        if convert in ("price", "number", "date"):  # (no other type converts: _typed)
            same += self.same(name, convert).get(key, 0)
        return same, (self.got(key)[2] | self.mined(name)[3]).bit_count()

    def _first_item_agreement(self, key: str, name: str, convert: str | None) -> tuple[int, int]:
        gvals, gstrs, _ = self.got(key)
        mvals, mstrs, mfirsts, _ = self.mined(name)
        typed = self.typed(key, convert) if convert is not None else None
        same = either = 0
        for i, g in enumerate(gvals):
            m = mvals[i]
            ms = mstrs[i]
            if isinstance(m, list) and not isinstance(g, list):
                ms = mfirsts[i]
                if ms is None:
                    m = None
            if g is None and m is None:
                continue
            either += 1
            if ms is not None and (gstrs[i] == ms or (typed is not None and typed[i] == ms)):
                same += 1
        return same, either


def _bits(vals: list[Any]) -> int:
    """The bit set of the positions holding a value."""
    return sum(1 << i for i, v in enumerate(vals) if v is not None)


#: Record fields are induced from at most this many records of a page, evenly spread:
#: selectors and fill rates are estimated as well on 300 records as on 20,000, and
#: induction stays bounded in the records (the page's own walks stay linear).
SAMPLE_RECORDS = 300

T = TypeVar("T")


def sample(items: list[T], limit: int = SAMPLE_RECORDS) -> list[T]:
    """At most ``limit`` of the records, evenly spread over the page (every k-th)."""
    step = -(-len(items) // limit)
    return items if step <= 1 else items[::step]


def _apply_candidates(
    page: Page,
    record: RecordSelector,
    cands: list[FieldSpec],
    wrapper_cls: type[Wrapper],
    records: Sequence[Record] | None = None,
    compiled: dict[str, CompiledWrapper] | None = None,
) -> dict[str, list[dict[str, Any]]]:
    """The candidates' values on ``page``, per record (keyed by its first XPath); on
    ``records`` only when given (a sample: the draft selects their first elements).
    ``compiled``: the drafts compiled so far by record XPath (the sample pages of a
    template share the record selector: its candidates are compiled once)."""
    if records is not None and len(records) > 1:
        union = " | ".join(r.xpaths[0] for r in records if r.xpaths)
        if union and allowed_xpath(union):
            record = RecordSelector(union, None, record.size, record.span)
    # candidates reading alike (the same feature found on both pages, a typed feature's
    # text twin where it is text already) are read once: values depend on nothing else
    readers: dict[tuple[str, str | None, str, bool], str] = {}
    unique: list[FieldSpec] = []
    twins: list[tuple[str, str]] = []  # (candidate, the one read in its place)
    for c in cands:
        first = readers.setdefault((c.xpath, c.attribute, c.type, c.multiple), c.name)
        if first == c.name:
            unique.append(c)
        else:
            twins.append((c.name, first))
    cw = compiled.get(record.xpath) if compiled is not None else None
    if cw is None:
        cw = CompiledWrapper(wrapper_cls(id="draft", record=record, fields=unique))
        cw.shared = []  # every value: a link every record shares is judged by the scoring
        if compiled is not None:
            compiled[record.xpath] = cw
    res = cw.apply(page.root, page.url, page)
    out: dict[str, list[dict[str, Any]]] = {}
    for r in res.regions[0].records if res.regions else []:
        for name, first in twins:
            for suffix in _COMPANIONS:
                if first + suffix in r.fields:
                    r.fields[name + suffix] = r.fields[first + suffix]
        out.setdefault(r.xpaths[0], []).append(r.fields)
    return out


#: the values a typed field adds beside its own (apply's ``_type_values``)
_COMPANIONS = ("", "_currency", "_unit", "_max")


def _candidates(
    regions: Sequence[Region | None], extra: Sequence[FieldSpec]
) -> tuple[list[FieldSpec], dict[str, str]]:
    """The candidate fields (keys ``c0``, ``c1``...): every page's column XPaths, then the
    ``extra`` selectors; and each candidate's column name (``""`` for the extra ones)."""
    cands: list[FieldSpec] = []
    owner: dict[str, str] = {}
    seen: set[tuple[str, str, str | None]] = set()
    paths: dict[tuple[str, str | None], list[FieldSpec]] = {}  # one column's XPaths by page
    for region in regions:
        for col in schema_columns(region) if region is not None else []:
            spec = column_spec(col)
            if spec is not None and (col.name, spec.xpath, spec.attribute) not in seen:
                seen.add((col.name, spec.xpath, spec.attribute))
                paths.setdefault((col.name, spec.attribute), []).append(spec)
                spec.name = f"c{len(cands)}"
                owner[spec.name] = col.name
                cands.append(spec)
    for (name, _attr), specs in paths.items():
        # a column each sample page reads at its own place (a block that moved, a page of
        # another layout): the union of the places reads it on every page
        union = " | ".join(dict.fromkeys(f.xpath for f in specs))
        if len(specs) > 1 and " | " not in specs[0].xpath and allowed_xpath(union):
            spec = replace(specs[0], name=f"c{len(cands)}", xpath=union, css=None)
            owner[spec.name] = name
            cands.append(spec)
    for (name, attr), specs in paths.items():
        # a column mining reads in an element's own text, where other records hold a child
        # element there (another column): the element's own text reads it alone
        xp = f"{specs[0].xpath}/text()[normalize-space()]"
        if attr is None and " | " not in specs[0].xpath and allowed_xpath(xp):
            spec = replace(specs[0], name=f"c{len(cands)}", xpath=xp, css=None)
            owner[spec.name] = name
            cands.append(spec)
    for f in extra:
        # a typed feature also as text: a column may hold the text as written ("date_raw")
        for ftype in {f.type, "text"} if f.type in ("number", "price", "date") else {f.type}:
            spec = FieldSpec(f"c{len(cands)}", ftype, f.xpath, f.css, f.attribute, True, False)
            cands.append(spec)
            owner[spec.name] = ""
    return cands, owner


def _by_link_text(
    pages: Sequence[Page],
    regions: Sequence[Region | None],
    record: RecordSelector,
    cands: list[FieldSpec],
    owner: dict[str, str],
    wrapper_cls: type[Wrapper],
) -> list[FieldSpec]:
    """More candidates (owned as ``cands``' are): a candidate's link whose text is one text
    of the template in every sample record holding it ("Support & troubleshooting") and the
    text of a column's link, found by that text, its positions dropped (its class steps
    kept); a record that lacks an earlier link, or shows the link in another block, shifts
    positions, never the link's text."""
    # (child steps only: "." or another root of the record anchored on its text is no XPath)
    links = [c for c in cands if c.attribute == "href" and _CHILD_STEPS.match(c.xpath)]
    probes = [
        replace(c, name=f"t{k}", type="text", attribute=None, css=None) for k, c in enumerate(links)
    ]
    texts: dict[int, list[Any]] = {}
    for page, region in zip(pages, regions):
        if region is None or not probes:
            continue
        records = sample(region.records)
        sampled = records if len(records) < len(region.records) else None
        for rows in _apply_candidates(page, record, probes, wrapper_cls, sampled).values():
            for k, probe in enumerate(probes):
                if rows[0].get(probe.name) is not None:
                    texts.setdefault(k, []).append(rows[0][probe.name])
    constant = {
        k: " ".join(vals[0].split())
        for k, vals in texts.items()
        if len(vals) >= 2 and len({str(v) for v in vals}) == 1 and isinstance(vals[0], str)
    }
    # a feature selector's link only where it is a column's ("Learn more" beside the title
    # reads the title's address: no reader of the title)
    columns_links = {t for k, t in constant.items() if owner[links[k].name]}
    out: list[FieldSpec] = []
    for k, text in sorted(constant.items()):
        if text not in columns_links:
            continue
        lit = xpath_literal(text)
        xp = _POSITION.sub("", links[k].xpath)
        if _TEXT_ANCHOR not in xp.rsplit("/", 1)[-1] and lit is not None:
            xp = f"{xp}[{_TEXT_ANCHOR}{lit}]"  # (else anchored on its text already)
        if _TEXT_ANCHOR in xp and xp != links[k].xpath and allowed_xpath(xp):
            spec = replace(links[k], name=f"c{len(cands) + len(out)}", xpath=xp, css=None)
            owner[spec.name] = owner[links[k].name]
            out.append(spec)
    return out


def column_fields(
    pages: Sequence[Page],
    regions: Sequence[Region | None],
    record: RecordSelector,
    wrapper_cls: type[Wrapper],
    extra: Sequence[FieldSpec] = (),
) -> tuple[list[FieldSpec], dict[str, float]]:
    """The record fields that read the main regions' columns on every sample page.

    :param regions: each page's main region (aligned), ``None`` where a page has none.
    :param wrapper_cls: the :class:`~scrapy_records.wrappers.wrapper.Wrapper` class (a
        draft wrapper applies the candidates).
    :param extra: more candidate selectors (any name) tried for every column.
    :returns: ``(fields, fill rates)``, fields in the first page's column order.
    """
    order: list[str] = []
    columns: dict[str, Column] = {}
    types: dict[str, set[str]] = {}  # a column's types over the pages
    shapes: dict[str, set[bool]] = {}  # a column's list-or-single over the pages
    for region in regions:
        for col in schema_columns(region) if region is not None else []:
            types.setdefault(col.name, set()).add(col.type)
            shapes.setdefault(col.name, set()).add(col.multiple)
            if col.name not in columns:
                columns[col.name] = col
                order.append(col.name)
    cands, owner = _candidates(regions, extra)
    cands += _by_link_text(pages, regions, record, cands, owner, wrapper_cls)
    scores: dict[tuple[str, str], list[float]] = {}
    present: dict[str, int] = {}
    template_text: set[tuple[str, str]] = set()
    mixed = {n for n, s in shapes.items() if len(s) > 1}  # a list here, single there
    compiled: dict[str, CompiledWrapper] = {}
    gots: list[dict[str, list[dict[str, Any]]]] = []
    for page, region in zip(pages, regions):
        if region is None:
            continue
        constant, got = _score_page(
            page, region, record, cands, owner, wrapper_cls, scores, mixed, compiled
        )
        gots.append(got)
        names = {c.name for c in schema_columns(region)}
        template_text.update((n, c) for n in order if n not in names for c in constant)
        for name in names:
            present[name] = present.get(name, 0) + 1
    chosen: dict[str, FieldSpec] = {}
    for name in order:
        best = None
        for spec in cands:
            vals = scores.get((name, spec.name))
            if not vals or len(vals) < present.get(name, 0) or (name, spec.name) in template_text:
                continue
            key = (min(vals), sum(vals), _robustness(spec), owner[spec.name] == name)
            if min(vals) >= MIN_AGREEMENT and (best is None or key > best[0]):
                best = (key, spec)
        if best is not None:
            spec = best[1]
            col = columns[name]
            # typed on every page, or text (a date column one page's values do not all fit)
            ftype = col.type if len(types[name]) == 1 else "text"
            ftype = ftype if ftype in FIELD_TYPES else spec.type
            if spec.attribute and ftype not in ("url", "image"):
                ftype = spec.type
            multiple = col.multiple and name not in mixed
            chosen[name] = FieldSpec(
                name, ftype, spec.xpath, spec.css, spec.attribute, True, multiple
            )
    # a date's raw twin goes with a date field (a column text on some sample page is text)
    for name in [n for n in chosen if columns[n].evidence == "raw"]:
        base = chosen.get(name.removesuffix("_raw"))
        if base is None or base.type != "date":
            del chosen[name]
    _one_per_selector(chosen, columns, order)
    keyed, key_fill = key_list_fields(regions, chosen)
    fields = [chosen[n] for n in order if n in chosen]
    fill = _scored_fill_rates(fields, cands, gots)
    if fill is None:
        fill = _fill_rates(pages, regions, record, fields, wrapper_cls)
    fill = _renumber(fields, fill, set(columns))
    return fields + _name_key_lists(keyed, key_fill, fields, fill), fill


def _name_key_lists(
    keyed: list[FieldSpec],
    key_fill: dict[int, float],
    fields: list[FieldSpec],
    fill: dict[str, float],
) -> list[FieldSpec]:
    """The lists of keys named ``keys``, ``keys_2``... (a name no value takes: each key is
    a column of its own), their fill added to ``fill``."""
    taken = {f.name for f in fields}
    for f in keyed:
        f.name = next(n for n in ("keys", *(f"keys_{k}" for k in range(2, 99))) if n not in taken)
        taken.add(f.name)
        fill[f.name] = key_fill[id(f)]
    return keyed


def key_list_fields(
    regions: Sequence[Region | None], chosen: dict[str, FieldSpec]
) -> tuple[list[FieldSpec], dict[int, float]]:
    """The lists of keys and values the sample pages mined (columns with ``keys``): one
    field each (:class:`~scrapy_records.wrappers.model.KeyList`) that reads whatever keys a
    page shows, in place of the chosen fields of its keys (removed from ``chosen``); and
    each field's fill (by ``id()``: the fullest of its columns'). One list read at another
    place of its items by another page (a value cell's first text, the whole cell) is read
    as the first page read it."""
    lists: dict[tuple[str, str], list[Column]] = {}
    values: dict[tuple[str, str], str] = {}
    of_name: dict[str, set[tuple[str, str] | None]] = {}  # the lists a name's columns are of
    for region in regions:
        for col in schema_columns(region) if region is not None else []:
            keyed = col.keys is not None and all(allowed_xpath(x) for x in col.keys)
            of_name.setdefault(col.name, set()).add(col.keys[:2] if col.keys and keyed else None)
            if col.keys is not None and keyed:
                lists.setdefault(col.keys[:2], []).append(col)
                values.setdefault(col.keys[:2], col.keys[2])
    out: list[FieldSpec] = []
    fill: dict[int, float] = {}
    for (items, key), cols in lists.items():
        value = values[items, key]
        for col in cols:  # (a field of that name read elsewhere is another column's)
            got = chosen.get(col.name)
            if got is not None and (
                got.xpath.startswith(f"{items}[") or of_name[col.name] == {(items, key)}
            ):
                del chosen[col.name]  # (a key of the list on every page: the list reads it)
        f = FieldSpec("keys", "text", items, None, None, True, False, keys=KeyList(key, value))
        fill[id(f)] = max(c.fill for c in cols)
        out.append(f)
    return out, fill


_NUMBERED = re.compile(r"^(?P<base>.+)_(?P<k>[2-9]|[1-9]\d+)$")
#: the companions a column's name carries along (``price_2_currency``, ``date_2_raw``)
_TWINS = ("currency", "unit", "max", "raw")


def _renumber(fields: list[FieldSpec], fill: dict[str, float], mined: set[str]) -> dict[str, float]:
    """Number the fields that share a base name as mining numbers a page's columns: the
    fullest keeps the base name, the others get ``_2``, ``_3``... in order. A sample page
    numbers after its own fill (``found_3`` on one page is ``found`` on another), so the
    wrapper's numbers are the template's, not its first page's. Only numbers mining gave
    (the base is a column of some sample page), not a class's own digits; companions
    (``_currency``, ``_raw``) follow their field. Returns ``fill`` under the new names."""
    names = [f.name for f in fields]
    twins = {f"{n}_{t}" for n in names for t in _TWINS} & set(names)
    groups: dict[str, list[int]] = {}
    for k, name in enumerate(names):
        if name in twins:
            continue
        m = _NUMBERED.match(name)
        base = m["base"] if m is not None and m["base"] in mined else name
        groups.setdefault(base, []).append(k)
    new = dict(zip(names, names))
    for base, ks in groups.items():
        if len(ks) == 1 and names[ks[0]] != base and base in names:
            continue  # the base name is another field's (a twin or another group)
        ranked = sorted(ks, key=lambda k: -fill.get(names[k], 0.0))
        order = [ranked[0]] + [k for k in ks if k != ranked[0]]
        for j, k in enumerate(order):
            new[names[k]] = base if j == 0 else f"{base}_{j + 1}"
    if len(set(new.values())) < len(new):
        return fill  # a renamed field would meet another's name: keep the mined ones
    for f in fields:
        if f.name in twins:
            for n in names:
                if n not in twins and f.name.startswith(f"{n}_") and f.name[len(n) + 1 :] in _TWINS:
                    f.name = new[n] + f.name[len(n) :]
                    break
        else:
            f.name = new[f.name]
    return {f.name: fill[old] for f, old in zip(fields, names)}


def _rank(col: Column) -> int:
    return EVIDENCE_RANK.get(col.evidence or "", 9)


def _one_per_selector(
    chosen: dict[str, FieldSpec], columns: dict[str, Column], order: list[str]
) -> None:
    """Columns two sample pages named differently (``author`` where a "By:" label names
    it, ``text_2`` where nothing does) that are read by one selector are one field: the
    better-named one (its evidence's rank, then the first page's order) stays."""
    best: dict[tuple[str, str | None, str], str] = {}
    for name in order:
        f = chosen.get(name)
        if f is None or columns[name].evidence == "raw":
            continue
        key = (f.xpath, f.attribute, f.type)
        other = best.get(key)
        if other is None or _rank(columns[name]) < _rank(columns[other]):
            best[key] = name
    keep = set(best.values())
    for name in [n for n, f in chosen.items() if columns[n].evidence != "raw"]:
        if name not in keep:
            del chosen[name]


def _score_page(
    page: Page,
    region: Region,
    record: RecordSelector,
    cands: list[FieldSpec],
    owner: dict[str, str],
    wrapper_cls: type[Wrapper],
    scores: dict[tuple[str, str], list[float]],
    mixed: set[str],
    compiled: dict[str, CompiledWrapper],
) -> tuple[set[str], dict[str, list[dict[str, Any]]]]:
    """Add one sample page's agreement of each candidate with each column to ``scores``;
    return the candidates that read one value in every record of the page: for a column
    not mined on this page that is text mining calls template text (a "web" badge on
    every result), no field of the template; and the candidates' values per record."""
    records = sample(region.records)  # (those mined_regions aligned)
    sampled = records if len(records) < len(region.records) else None
    got = _apply_candidates(page, record, cands, wrapper_cls, sampled, compiled)
    mined = {r.xpaths[0]: r.fields for r in records if r.xpaths}
    page_types = {c.name: c.type for c in schema_columns(region)}
    values = _PageValues(got, mined, cands, page_types)
    constant: set[str] = set()
    for spec in cands:
        col = owner[spec.name]
        if len(mined) >= 2 and len(got) == len(mined):
            vals = {str(rows[0].get(spec.name)) for rows in got.values()}
            if len(vals) == 1 and vals != {"None"}:
                constant.add(spec.name)
        for name in page_types if not col else [col]:
            if name not in page_types:
                continue
            convert = page_types[name] if spec.type == "text" else None
            same, either = values.agreement(spec.name, name, convert, name in mixed)
            scores.setdefault((name, spec.name), []).append(same / either if either else 1.0)
    return constant, got


def _scored_fill_rates(
    fields: list[FieldSpec],
    cands: list[FieldSpec],
    gots: list[dict[str, list[dict[str, Any]]]],
) -> dict[str, float] | None:
    """:func:`_fill_rates` from the candidates' values the scoring read (``gots``, each
    page's, over the same records): a field holds a value where the candidate reading it
    alike (same XPath, attribute, type and shape) does. ``None`` when some field has no
    such candidate, or a price's companion (``p_currency``) could meet a field's name."""
    like = {}
    for c in reversed(cands):
        like[c.xpath, c.attribute, c.type, c.multiple] = c.name
    names = {f.name for f in fields}
    keys: dict[str, str] = {}
    for f in fields:
        key = like.get((f.xpath, f.attribute, f.type, f.multiple))
        if key is None or (f.type == "price" and any(f"{f.name}_{t}" in names for t in _TWINS)):
            return None
        keys[f.name] = key
    total = sum(len(got) for got in gots)
    filled = {
        f.name: sum(keys[f.name] in rows[0] for got in gots for rows in got.values())
        for f in fields
    }
    fill = {name: (n / total if total else 0.0) for name, n in filled.items()}
    for f in fields:
        f.optional = fill[f.name] < 1.0
    return fill


def _fill_rates(
    pages: Sequence[Page],
    regions: Sequence[Region | None],
    record: RecordSelector,
    fields: list[FieldSpec],
    wrapper_cls: type[Wrapper],
) -> dict[str, float]:
    """Share of the sample records holding each field; a field every record holds is not
    optional."""
    total = 0
    filled: dict[str, int] = {f.name: 0 for f in fields}
    for page, region in zip(pages, regions):
        if region is None:
            continue
        records = sample(region.records)
        sampled = records if len(records) < len(region.records) else None
        for rows in _apply_candidates(page, record, fields, wrapper_cls, sampled).values():
            total += 1
            for f in fields:
                filled[f.name] += f.name in rows[0]
    fill = {name: (n / total if total else 0.0) for name, n in filled.items()}
    for f in fields:
        f.optional = fill[f.name] < 1.0
    return fill

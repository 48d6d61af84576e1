"""Wrapper application: compiled XPaths over a parsed tree, values typed as mining types them.

The fast path of every crawl that reuses a wrapper: :class:`CompiledWrapper` (built once per
wrapper) evaluates each field path once over all records of a page (``$recs/F | $recs``) and
reads texts without building the page model. Entry point: ``CompiledWrapper(w).apply(root,
url, page=None)``; :func:`parse_source` parses what ``Wrapper.extract`` is given.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lxml import etree

from scrapy_records import page as page_mod
from scrapy_records.fields.text import IMAGE_ATTRS, image_source, inline_text, strip_separators
from scrapy_records.results import Column, PageResult, Record, Region
from scrapy_records.wrappers.budget import BATCH_MAX_RECORDS, ApplyBudget, FieldTotals
from scrapy_records.wrappers.idpaths import IdIndex, id_path, ids_xpath
from scrapy_records.wrappers.keyed import KeyReader, key_columns, read_keys
from scrapy_records.wrappers.labels import label_hits
from scrapy_records.wrappers.model import WRAPPER_VERSION, ListSpec
from scrapy_records.wrappers.reading import (
    DROPPED_TAGS,
    LABEL_FIELD_RX,
    NOT_BATCHABLE,
    FieldReader,
    dirty_set,
    group_text,
    record_texts,
    scan_page,
    text_until,
    to_value,
)
from scrapy_records.wrappers.safe_xpath import check_xpath, compile_xpath
from scrapy_records.wrappers.scans import read_single
from scrapy_records.wrappers.shared import drop_shared, drop_shared_items
from scrapy_records.wrappers.typed import type_values

if TYPE_CHECKING:
    from scrapy_records.wrappers.wrapper import Wrapper


def _record_paths(tree: Any, groups: list[list[Any]]) -> list[list[str]]:
    """``tree.getpath`` of every record element, computed once per parent (same strings:
    ``tag`` or ``tag[n]`` after the parent's path, as lxml writes them) in one pass over
    its children (``getpath`` counts the siblings of every element: quadratic)."""
    tables: dict[Any, tuple[str, dict[Any, int], dict[str, int]]] = {}
    out = []
    for els in groups:
        paths = []
        for x in els:
            p = x.getparent()
            if p is None:
                paths.append(tree.getpath(x))
                continue
            table = tables.get(p)
            if table is None:
                table = tables[p] = (tree.getpath(p), *page_mod.document_positions(p))
            k = table[1].get(x)
            if k is None:
                paths.append(tree.getpath(x))
                continue
            t = x.tag
            paths.append(f"{table[0]}/{t}" if table[2][t] == 1 else f"{table[0]}/{t}[{k}]")
        out.append(paths)
    return out


_TYPED = frozenset({"number", "price", "date"})
#: a page fits only if at least this share of the required values is there
MIN_REQUIRED_FILL = 0.5


def _eval_one(
    fields: list[FieldReader], first: Any, base: str | None, dirty: Any, out: dict[str, Any]
) -> None:
    """:func:`_eval_fields` for a single record: each distinct path read once (a typed
    field and its ``_raw`` twin share it; :func:`~scrapy_records.wrappers.scans.read_single`)."""
    seen = read_single(fields, first, base, dirty)
    for f in fields:
        v = seen[f.key]
        if v is not None:
            out[f.name] = v


def _batched_found(
    f: FieldReader, root: Any, firsts: list[Any], budget: ApplyBudget | None
) -> list[Any]:
    """Field ``f``'s nodes over all records in one evaluation, each record's first element
    as a marker before its own nodes (document order); charged to ``budget`` first (``None``:
    charged already)."""
    if budget is not None:
        budget.batched(f.info, len(firsts), f"field {f.name}")
    assert f.batch is not None  # the caller reads a field without one record by record
    try:
        return f.batch(root, recs=firsts)
    except etree.XPathEvalError:
        return []


def _by_record(found: list[Any], first_index: dict[Any, int]) -> dict[int, list[Any]]:
    """The nodes of ``found`` (:func:`_batched_found`) per record number."""
    per: dict[int, list[Any]] = {}
    nodes: list[Any] | None = None
    get = first_index.get
    for node in found:
        k = get(node)  # (a string is no key)
        if k is not None:
            nodes = per[k] = []  # a record marker
        elif nodes is not None:
            nodes.append(node)
    return per


def _eval_fields(
    fields: list[FieldReader],
    firsts: list[Any],
    root: Any,
    base: str | None,
    dirty: set[Any] | None,
    values: list[dict[str, Any]],
    budget: ApplyBudget,
    totals: FieldTotals | None = None,
) -> None:
    """Fill ``values[k]`` with the fields of record ``k`` (first elements ``firsts``).

    Batched: one XPath evaluation per distinct field path over all records (``$recs/F |
    $recs``, the record elements acting as document-order markers), shared by fields with
    the same path (a link's URL and its text); record by record above
    :data:`~scrapy_records.wrappers.budget.BATCH_MAX_RECORDS` records; with a single record
    (a detail page) each distinct path is read once too (a typed field and its ``_raw``
    twin). Each evaluation is charged to ``budget`` first (``totals``: the fields'
    :class:`~scrapy_records.wrappers.budget.FieldTotals`).
    """
    n_rec = len(firsts)
    if n_rec == 1:
        budget.fields(fields, 1, totals)
        _eval_one(fields, firsts[0], base, dirty, values[0])
        return
    first_index = {x: k for k, x in enumerate(firsts)}
    found_cache: dict[str, list[Any]] = {}
    charged = budget.all_fields(_charges(fields, n_rec), n_rec)
    for f in fields:
        if not charged:
            budget.values(n_rec, f"field {f.name}")
        if f.batch is None or n_rec > BATCH_MAX_RECORDS:
            if not charged:
                budget.per_record(f.info, n_rec, f"field {f.name}")
            for k, e in enumerate(firsts):
                v = f.read(e, base, dirty)
                if v is not None:
                    values[k][f.name] = v
            continue
        if f.path == ".":  # the record itself
            if not f.multiple:
                _first_values(f, zip(values, firsts), base)
                continue
            per = {k: [e] for k, e in enumerate(firsts)}
        else:
            found = found_cache.get(f.path)
            if found is None:
                found = found_cache[f.path] = _batched_found(
                    f, root, firsts, None if charged else budget
                )
            if not f.multiple:
                _first_values(f, _pairs(found, firsts, first_index, values), base)
                continue
            per = _by_record(found, first_index)
        for k, nodes in per.items():
            v = f.value(nodes, base, dirty)
            if v is not None:
                values[k][f.name] = v


def _charges(fields: list[FieldReader], n_rec: int) -> list[tuple[Any, bool]]:
    """What :func:`_eval_fields` charges for each field (:meth:`ApplyBudget.all_fields`):
    its path, evaluated over all records at once or from each; ``None`` for a path read
    already (fields sharing it) or for the record itself."""
    out: list[tuple[Any, bool]] = []
    seen = set()
    for f in fields:
        if f.batch is None or n_rec > BATCH_MAX_RECORDS:
            out.append((f.info, False))
        elif f.path == "." or f.path in seen:
            out.append((None, True))
        else:
            seen.add(f.path)
            out.append((f.info, True))
    return out


def _after_markers(
    found: list[Any], first_index: dict[Any, int], values: list[dict[str, Any]]
) -> list[tuple[dict[str, Any], Any]]:
    """``(values of its record, node)`` of each node of ``found`` that follows a record's
    marker, in order."""
    out = []
    row: dict[str, Any] | None = None
    get = first_index.get
    for node in found:
        if not isinstance(node, str):
            k = get(node)  # (only elements mark records)
            if k is not None:  # a record marker
                row = values[k]
                continue
        if row is not None:
            out.append((row, node))
    return out


def _pairs(
    found: list[Any], firsts: list[Any], first_index: dict[Any, int], values: list[dict[str, Any]]
) -> Any:
    """``(values of its record, node)`` of each node of ``found`` (a field's nodes over all
    records, after their record's marker, in document order)."""
    if len(found) == 2 * len(firsts) and found[::2] == firsts:
        return zip(values, found[1::2])  # one node after each marker (most fields)
    return _after_markers(found, first_index, values)


def _first_values(f: FieldReader, pairs: Any, base: str | None) -> None:
    """A single-valued field: the first non-empty value of each record (``pairs``: its
    nodes, each with its record's values, in document order)."""
    name, attr, ftype = f.name, f.attr, f.type
    link = ftype in ("url", "image")
    lazy = ftype == "image" and attr in IMAGE_ATTRS  # src or data-src: as mining reads it
    norm = page_mod.normalize_space
    for row, node in pairs:
        if name in row:
            continue  # (the record has its value)
        is_text = isinstance(node, str)
        if attr is not None:
            raw = None if is_text else (node.get(attr) if not lazy else image_source(node)[0])
            if raw is None:
                continue
            v = to_value(ftype, raw, base) if link else norm(raw)
        else:
            # value_text, its common cases inline: a text node, an element of one text
            if is_text:
                v = strip_separators(norm(node))
            elif len(node):
                v = strip_separators(inline_text(node))  # (normalised already)
            else:
                t = node.text
                v = strip_separators(norm(t)) if t else ""
            if link and v:
                v = to_value(ftype, v, base)
        if v:
            row[name] = v


class _List:
    """One compiled nested list: its record selector, fields and sub-lists."""

    __slots__ = (
        "name",
        "xp",
        "batch",
        "size",
        "fields",
        "totals",
        "lists",
        "optional",
        "typed",
        "info",
    )

    def __init__(self, spec: ListSpec):
        self.name = spec.name
        self.info = check_xpath(spec.record.xpath)
        self.xp = compile_xpath(spec.record.xpath)
        self.batch = None
        if self.info.contained and not NOT_BATCHABLE.search(spec.record.xpath):
            try:
                self.batch = compile_xpath(f"$recs/{spec.record.xpath} | $recs")
            except etree.XPathSyntaxError:
                self.batch = None
        self.size = spec.record.size
        self.fields = [FieldReader(f, spec.record.xpath) for f in spec.fields]
        self.totals = FieldTotals([f.info for f in self.fields])
        self.lists = [_List(x) for x in spec.lists]
        self.optional = spec.optional
        self.typed = [f for f in self.fields if f.type in _TYPED]

    def read_many(
        self,
        parents: list[Any],
        root: Any,
        base: str | None,
        dirty: set[Any] | None,
        budget: ApplyBudget,
    ) -> list[list[dict[str, Any]]]:
        """Rows of this list inside each of ``parents`` (batched like record fields)."""
        per_parent: list[list[Any]] = [[] for _ in parents]
        if self.batch is not None and 1 < len(parents) <= BATCH_MAX_RECORDS:
            budget.batched(self.info, len(parents), f"list {self.name}")
            index = {x: k for k, x in enumerate(parents)}
            try:
                found = self.batch(root, recs=parents)
            except etree.XPathEvalError:
                found = []
            k = -1
            for node in found:
                if not isinstance(node, etree._Element):
                    continue
                kk = index.get(node)
                if kk is not None:
                    k = kk
                elif k >= 0:
                    per_parent[k].append(node)
        else:
            budget.per_record(self.info, len(parents), f"list {self.name}")
            for k, e in enumerate(parents):
                try:
                    per_parent[k] = [x for x in self.xp(e) if isinstance(x, etree._Element)]
                except etree.XPathEvalError:
                    per_parent[k] = []
        insts = [x for lst in per_parent for x in lst]
        if not insts:
            return [[] for _ in parents]
        rows: list[dict[str, Any]] = [{} for _ in insts]
        _eval_fields(self.fields, insts, root, base, dirty, rows, budget, self.totals)
        for sub in self.lists:
            nested = sub.read_many(insts, root, base, dirty, budget)
            for row, vals in zip(rows, nested):
                if vals:
                    row[sub.name] = vals
        if self.typed:
            type_values(self.typed, rows)
        out: list[list[dict[str, Any]]] = []
        at = 0
        for lst in per_parent:
            out.append([r for r in rows[at : at + len(lst)] if r])
            at += len(lst)
        return out


def _siblings(first: Any, size: int, stop: set[Any] | None = None) -> list[Any]:
    """The record's elements: ``first`` and following element siblings, ``size`` at most,
    ending before the next record's first element when ``stop`` (those firsts) is given.
    Siblings are counted as the page model counts them (no script, no empty ``<b>``)."""
    if size == 1:
        return [first]
    out = [first]
    s = first.getnext()
    while s is not None:
        t = s.tag
        if isinstance(t, str) and t.lower() not in DROPPED_TAGS and not page_mod.empty_inline(s):
            if stop is not None and s in stop:
                break
            out.append(s)
            if len(out) == size:
                break
        s = s.getnext()
    return out


def _record_text(els: list[Any], nxt: Any, dirty: set[Any] | None) -> str:
    """A record's text; ``nxt`` is the next record's first element (or None)."""
    if (
        nxt is not None
        and nxt.getparent() is not els[0].getparent()
        and any(a is els[-1] for a in nxt.iterancestors())
    ):  # the next record nests inside this one (libxml2's unclosed list items)
        return text_until(els[0], nxt) if len(els) == 1 else group_text(els, dirty)
    return group_text(els, dirty)


def _values_text(fields: dict[str, Any]) -> str:
    """The text of a record that is the whole document (a detail page's ``/html``): its
    field values, text ones, in field order. The page's own text would repeat its menus and
    footers, and costs as much as its parse."""
    parts: list[str] = []
    for v in fields.values():
        if isinstance(v, str):
            parts.append(v)
            continue
        if not isinstance(v, list):
            continue  # (a number)
        for x in v:
            if isinstance(x, dict):
                for y in x.values():
                    if isinstance(y, str):
                        parts.append(y)
            elif isinstance(x, str):
                parts.append(x)
    text = " ".join(parts)
    # the values are mostly normalised already (one space between words, none at the
    # ends): the text is then as split() and join() give it, without splitting a long
    # description into its words again (a printable text holds no white space but " ")
    if text.isprintable() and "  " not in text and text[:1] != " " and text[-1:] != " ":
        return text
    return " ".join(text.split())


def _page_index(page: Any, el: Any) -> int:
    """``page.index(el)``, -1 when the page model does not hold the element."""
    try:
        return page.index(el)
    except KeyError:
        return -1


class CompiledWrapper:
    """Compiled XPath objects of one wrapper (built once, cached on the wrapper)."""

    def __init__(self, w: Wrapper):
        self.w = w
        rec = w.record
        self.record_info = check_xpath(rec.xpath) if rec else None
        self.record = compile_xpath(rec.xpath) if rec else None
        self.record_id = id_path(rec.xpath) if rec else None
        #: the record is the document's root element (a detail page's ``/html``), read
        #: from the tree without an XPath evaluation
        self.record_is_root = rec is not None and rec.xpath.strip() == "/html"
        self.size = rec.size if rec else 1
        self.until_next = rec is not None and rec.span == "until_next"
        self.fields = [FieldReader(f, rec.xpath if rec else None) for f in w.fields if not f.keys]
        self.totals = FieldTotals([f.info for f in self.fields])
        #: lists of keys and values, each key a column (:mod:`~scrapy_records.wrappers.keyed`)
        self.keyed = [KeyReader(f) for f in w.fields if f.keys]
        self.typed = [f for f in self.fields if f.type in _TYPED]
        self.required = [f for f in self.fields if not f.optional]
        #: links and images one value in every record leaves out (``shared.drop_shared``);
        #: an inducer's draft reads them all (it judges template text itself)
        self.shared = [f for f in self.fields if f.type in ("url", "image") and not f.multiple]
        #: lists: an item every record's list holds at one place is left out
        #: (``shared.drop_shared_items``; a draft too: mining's lists never hold it)
        self.shared_items = [f for f in self.fields if f.multiple]
        self.order = [
            x
            for f in self.fields
            for x in (
                (f.name, f.name + "_currency", f.name + "_unit", f.name + "_max")
                if f.type == "price"
                else (f.name,)
            )
        ]
        #: values are read in field order; only a price's currency is added after them
        self.reorder = any(f.type == "price" for f in self.fields)
        #: the record texts need the elements holding scripts (``dirty_set``), unless the
        #: one record is the whole page (a detail page's ``/html``: its text is its values);
        #: ``_records`` lists them itself when a page belies this
        self.texts = rec is not None and rec.xpath.strip() != "/html"
        self.lists = [_List(x) for x in w.lists]
        self.page_fields = [FieldReader(f) for f in w.page_fields]
        #: the names the wrapper's own fields and lists give (keys take other names)
        self.taken = {*self.order, *(f.name for f in w.fields), *(x.name for x in w.lists)}
        self.taken |= {f"{f.name}_{t}" for f in self.typed for t in ("currency", "unit", "max")}
        #: the ids the id-anchored selectors name, and the XPath listing only those
        self.id_values = frozenset(
            x.id for x in [self.record_id, *(f.idpath for f in self.page_fields)] if x is not None
        )
        self.ids_xp = ids_xpath(set(self.id_values))
        self.page_typed = [f for f in self.page_fields if f.type in _TYPED]
        # label-anchored page fields (see inducers.intersect._label_fields) share one
        # pass over the page's text nodes instead of one document scan each
        self.labels: dict[str, list[tuple[str, FieldReader]]] = {}
        for reader, spec in zip(self.page_fields, w.page_fields):
            m = LABEL_FIELD_RX.match(spec.xpath)
            if m:
                label = m.group(3) if m.group(3) is not None else m.group(4)
                self.labels.setdefault(label, []).append((m.group(1).lower(), reader))
        self.label_names = {f.name for lst in self.labels.values() for _t, f in lst}
        self.label_tags = {t for lst in self.labels.values() for t, _f in lst}
        #: the page fields read by their own XPath (charged before they are evaluated)
        self.page_infos = [f.info for f in self.page_fields if f.name not in self.label_names]
        self.columns = []
        for spec in w.fields:
            if spec.keys:
                continue
            fill = float(w.health.fill_rates.get(spec.name, 1.0))
            self.columns.append(Column(spec.name, spec.type, fill, spec.xpath, "wrapper"))
            if spec.type == "price":
                self.columns.append(
                    Column(spec.name + "_currency", "text", fill, spec.xpath, "wrapper")
                )

    def _label_values(self, root: Any, base: str | None) -> dict[str, Any]:
        """Values of the label-anchored page fields, from the texts that read as a label
        (:func:`~scrapy_records.wrappers.labels.label_hits`).

        Same result as each field's XPath ``//tag[normalize-space(.)='L']/following::
        text()[normalize-space()][not(parent::script or parent::style)][1]`` for labels
        that are the only text of their element (how the inducer builds them), the first
        such label's value; in one pass over the texts of the labels' tags, where libxml2
        scans the rest of the page from every label element.
        """
        out: dict[str, Any] = {}
        labels = self.labels
        for n, ptag, nxt in label_hits(root, labels, self.label_tags):
            for tag, f in labels[n]:
                if f.name not in out and (tag == "*" or tag == ptag):
                    v = f.value([nxt], base)
                    if v is not None:
                        out[f.name] = v
        return out

    def apply(
        self, root: Any, url: str | None, page: Any = None, budget: ApplyBudget | None = None
    ) -> PageResult:
        """The wrapper's result on a parsed page (``page``: its page model, when built).

        :param budget: the page's work budget (default: the default budgets,
            :mod:`scrapy_records.wrappers.budget`).
        :raises PageTooLargeError, BudgetExceededError: the page is over its budget.
        """
        w = self.w
        if budget is None:
            budget = ApplyBudget(root)
        if page is None:
            dirty, base = scan_page(root, url, self.texts)
        else:
            base = page.base_url
            dirty = dirty_set(root) if self.texts else set()
        tree = root.getroottree()
        # (id-anchored selectors share one pass over the page's ids, those they name)
        ids = IdIndex(root, self.id_values, self.ids_xp)
        records, firsts, type_errors = self._records(root, tree, base, page, budget, ids, dirty)
        page_vals, page_missing, page_errors = self._page_values(root, base, budget, ids)
        health, fit = self._health(records, page_vals, page_missing, type_errors + page_errors)
        for rec in records:
            rec.confidence = fit
        parent_el = firsts[0].getparent() if firsts else None
        region = Region(
            extractor=f"wrapper:{w.id}",
            records=records,
            confidence=fit,
            xpath=tree.getpath(parent_el) if parent_el is not None else "/",
            columns=[*self.columns, *(key_columns(records, self.taken) if self.keyed else ())],
            meta={
                "health": health,
                "page": page_vals,
                "wrapper": {"id": w.id, "version": WRAPPER_VERSION},
            },
            parent=(
                _page_index(page, parent_el) if page is not None and parent_el is not None else -1
            ),
        )
        return PageResult(url=url, regions=[region])

    def _records(
        self,
        root: Any,
        tree: Any,
        base: str | None,
        page: Any,
        budget: ApplyBudget,
        ids: IdIndex | None = None,
        dirty: set[Any] | None = None,
    ) -> tuple[list[Record], list[Any], int]:
        """The records, their first elements and the number of values that did not type
        (``dirty``: :func:`~scrapy_records.wrappers.reading.dirty_set` of ``root``, when
        listed: :attr:`texts`)."""
        if self.record is None or self.record_info is None:
            return [], [], 0
        budget.top(self.record_info, "the record selector", ids)
        try:
            found = self.record_id.nodes(ids) if ids is not None and self.record_id else None
            if found is None and self.record_is_root:
                top = tree.getroot()  # (what /html selects: the root element, if html)
                found = [top] if top is not None and top.tag == "html" else []
            elif found is None:
                found = self.record(root)
            firsts = [e for e in found if isinstance(e, etree._Element)]
        except etree.XPathEvalError:
            firsts = []
        stop = set(firsts) if self.until_next else None
        groups = [_siblings(e, self.size, stop) for e in firsts]
        n_rec = len(groups)
        if dirty is None or (
            n_rec and not self.texts and not (n_rec == 1 and firsts[0].getparent() is None)
        ):
            dirty = dirty_set(root)
        values: list[dict[str, Any]] = [{} for _ in range(n_rec)]
        if n_rec:
            _eval_fields(self.fields, firsts, root, base, dirty, values, budget, self.totals)
        type_errors = type_values(self.typed, values)
        if n_rec >= 2 and self.shared:
            drop_shared(self.shared, values)
        if n_rec >= 2 and self.shared_items:
            drop_shared_items(self.shared_items, values)
        keyed = read_keys(self.keyed, firsts, values, self.taken, budget) if self.keyed else None
        list_rows = (
            [(sub.name, sub.read_many(firsts, root, base, dirty, budget)) for sub in self.lists]
            if n_rec
            else []
        )
        paths = _record_paths(tree, groups)
        texts = (
            record_texts(groups, dirty, root)
            if 1 < n_rec <= BATCH_MAX_RECORDS and all(x.getparent() is not None for x in firsts)
            else None
        )
        records: list[Record] = []
        for k, els in enumerate(groups):
            fields = values[k]
            if self.reorder:  # keep the wrapper's field order (currency after its price)
                fields = {name: fields[name] for name in self.order if name in fields}
            for sub_name, per_rec in list_rows:
                if per_rec[k]:
                    fields[sub_name] = per_rec[k]
            if keyed is not None:
                fields.update((n, v) for n, v in keyed[k].items() if n not in fields)
            nodes: tuple[int, ...] = ()
            if page is not None:
                try:
                    nodes = tuple(page.index(x) for x in els)
                except KeyError:
                    nodes = ()
            nxt = firsts[k + 1] if k + 1 < n_rec else None
            if texts is not None:
                text = texts[k]
            elif len(els) == 1 and els[0].getparent() is None:
                text = _values_text(fields)  # the whole page: the record is its values
            else:
                text = _record_text(els, nxt, dirty)
            records.append(Record(paths[k], text, fields, 1.0, nodes))
        return records, firsts, type_errors

    def _page_values(
        self, root: Any, base: str | None, budget: ApplyBudget, ids: IdIndex | None = None
    ) -> tuple[dict[str, Any], list[str], int]:
        """The page fields' values, the required ones missing, the values that did not type."""
        if not self.page_fields:
            return {}, [], 0
        page_vals: dict[str, Any] = {}
        labelled: dict[str, Any] = {}
        if self.labels:
            budget.charge(0, "the labelled page fields", per_node=1)
            labelled = self._label_values(root, base)
        ids = ids or IdIndex(root)
        charged = budget.top_all(self.page_infos)
        for f in self.page_fields:
            if f.name in self.label_names:
                v = labelled.get(f.name)
            else:
                if not charged:
                    budget.top(f.info, f"page field {f.name}", ids)
                v = f.read(root, base, ids=ids)
            if v is not None:
                page_vals[f.name] = v
        type_errors = type_values(self.page_typed, [page_vals])
        missing = [f.name for f in self.page_fields if f.name not in page_vals and not f.optional]
        return page_vals, missing, type_errors

    def _health(
        self,
        records: list[Record],
        page_vals: dict[str, Any],
        page_missing: list[str],
        type_errors: int,
    ) -> tuple[dict[str, Any], float]:
        """The page's health dict and fit (the rule is documented on ``Wrapper.check``)."""
        filled = 0
        missing: dict[str, int] = {}
        for rec in records:
            for f in self.required:
                if f.name in rec.fields:
                    filled += 1
                else:
                    missing[f.name] = missing.get(f.name, 0) + 1
        n = len(records)
        lo, hi = self.w.health.expected_records
        if self.record is None:
            rfit = 1.0
        elif n == 0:
            rfit = 0.0
        elif n < lo:
            rfit = n / lo
        elif n > hi > 0:
            rfit = hi / n
        else:
            rfit = 1.0
        page_required = sum(1 for f in self.page_fields if not f.optional)
        slots = n * len(self.required) + page_required
        got = filled + (page_required - len(page_missing))
        rfill = got / slots if slots else (1.0 if (n or self.record is None) else 0.0)
        fit = 0.0 if (self.record is not None and n == 0) else 0.5 * rfit + 0.5 * rfill
        if self.record is None and not page_vals and self.page_fields:
            fit = 0.0
        health = {
            "records": n,
            "expected_records": [lo, hi],
            "records_fit": round(rfit, 4),
            "required_fill": round(rfill, 4),
            "missing_required": sorted(set(missing) | set(page_missing)),
            "type_errors": type_errors,
            "fit": round(fit, 4),
            # a page whose records lack most required values does not fit, whatever its count
            "fits": fit >= self.w.health.min_fit and (not slots or rfill >= MIN_REQUIRED_FILL),
        }
        return health, fit

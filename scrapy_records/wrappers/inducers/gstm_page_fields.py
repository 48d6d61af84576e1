"""The page fields of a G-STM pattern: data slots outside the record list, selected from
the document root (the non-list slots of a detail page).

A slot is data when its value varies across the sample pages (or is missing from some);
one page cannot tell data from template text, so a wrapper induced from one page has no
page fields. Key/value lists (``tr+`` of a details table) become one field per row: by
position when every page holds the same rows, else anchored on each row's label.
"""

from __future__ import annotations

from typing import Any

from scrapy_records.fields.values import guess_type
from scrapy_records.selectors import same_tag_index, tag_step
from scrapy_records.treematch import TEXT
from scrapy_records.wrappers.inducers.gstm_pattern import ATTR_SLOTS, PList, PNode
from scrapy_records.wrappers.inducers.gstm_selectors import (
    PatternSelectors,
    label_slug,
)
from scrapy_records.wrappers.model import FieldSpec

#: the element items of a list's records by instance: (sample page, node) -> template item
Items = dict[tuple[int, int], PNode]
#: the element nodes of a list's records on each sample page, in document order
Rows = dict[int, list[int]]

#: at most this many page fields
MAX_PAGE_FIELDS = 80
#: a key/value list of at most this many rows becomes one field per row position
MAX_TUPLE_ROWS = 60


def _text(el: Any) -> str:
    return " ".join("".join(el.itertext()).split())


def _first_value(nodes: Any, attribute: str | None) -> str | None:
    """The first non-empty value among XPath results (an attribute, or normalised text)."""
    for nd in nodes if isinstance(nodes, list) else []:
        if attribute:
            v = nd.get(attribute) if hasattr(nd, "get") else None
        else:
            v = " ".join(("".join(nd.itertext()) if hasattr(nd, "itertext") else str(nd)).split())
        if v:
            return v
    return None


class PatternPageFields:
    """Page fields of a pattern (module docstring), named through ``sel``."""

    def __init__(self, sel: PatternSelectors) -> None:
        self.sel = sel
        self.P = sel.P
        self.pages = sel.pages
        #: field -> the row selector it was read from (names it after the row's label)
        self._row: dict[int, str] = {}
        #: emit multi-valued page fields for variable-length lists without labels (noisy)
        self.multi_fields = True

    def build(self, exclude: PList | None) -> list[FieldSpec]:
        """The page fields of the pattern, outside the record list ``exclude``."""
        out: list[FieldSpec] = []
        stack: list[tuple[Any, bool, str | None, bool]] = [(self.P.root, False, None, False)]
        multi = self.P.pages >= 2
        while stack and len(out) < MAX_PAGE_FIELDS:
            it, opt, up, inlist = stack.pop()
            if isinstance(it, PList):
                if multi and it is not exclude:
                    out.extend(self._list_fields(it, opt))
                    # key/value lists may sit inside its records
                    for c in reversed(it.record):
                        if isinstance(c, PList) or c.tag != TEXT:
                            stack.append((c, True, up, True))
                continue
            if inlist:
                for c in reversed(it.children):
                    if isinstance(c, PList) or c.tag != TEXT:
                        stack.append((c, True, up, True))
                continue
            own = it.classes[0] if it.classes else it.ident
            hint = own or (f"{up}_{it.tag}" if up else it.tag)
            up = own or up
            if multi:
                out.extend(self._node_fields(it, opt, hint))
            for c in reversed(it.children):
                if isinstance(c, PList) or c.tag != TEXT:
                    stack.append((c, opt or c.optional, up, False))
        return self._drop_constants(out[:MAX_PAGE_FIELDS])

    def _node_fields(self, it: PNode, opt: bool, hint: str) -> list[FieldSpec]:
        """Fields of a node's data slots: attributes, then text leaves."""
        texts = [c for c in it.children if isinstance(c, PNode) and c.tag == TEXT]
        has_el = any(not (isinstance(c, PNode) and c.tag == TEXT) for c in it.children)
        data = [
            (j, t.text)
            for j, t in enumerate(texts, 1)
            if t.text is not None and not t.text.constant and t.text.samples
        ]
        attrs = [(k, s) for k, s in it.attrs.items() if not s.constant and s.samples]
        if not data and not attrs:
            return []
        out = []
        base = self.sel.abs_path(it)
        for name, slot in attrs:
            ftype = ATTR_SLOTS.get(it.tag, (name, "url"))[1]
            optional = opt or slot.count < self.P.pages
            out.append(
                FieldSpec(
                    self.sel.name(f"{hint}_{ftype}"), ftype, base, None, name, optional, False
                )
            )
        for j, text in data:
            one = len(texts) == 1 and not has_el
            xp = base if one else f"{base}/text()[normalize-space()][{j}]"
            optional = opt or texts[j - 1].optional or text.count < self.P.pages
            out.append(
                FieldSpec(
                    self.sel.name(hint), guess_type(text.samples), xp, None, None, optional, False
                )
            )
        return out

    # ------------------------------------------------------------ key/value lists
    def _list_items(self, L: PList) -> tuple[Items, bool]:
        """The element items of ``L``'s records by instance (page, node), and whether ``L``
        holds lists of its own."""
        items: Items = {}
        stack: list[PList] = [L]
        nested = False
        while stack:
            x = stack.pop()
            for it in x.record:
                if isinstance(it, PList):
                    nested = True
                    stack.append(it)
                elif it.tag != TEXT:
                    for key in it.inst:
                        items[key] = it
        return items, nested

    def _list_fields(self, L: PList, opt: bool) -> list[FieldSpec]:
        """Page fields from a list that is not the record list (on a detail page a key/value
        table is a ``tr+``, often ``(tr tr?)+`` with spacer rows).

        When every sample page holds the list once with the same number of elements and
        position ``k`` has the same item template on every page, the list is a tuple: one
        field per position and slot (``container/tr[k]/...``), named later after the row's
        constant label. Otherwise rows are anchored on their labels; failing that each slot
        of a simple record is a multi-valued field.
        """
        items, nested = self._list_items(L)
        if not items:
            return []
        seqs: Rows = {}
        parents: dict[int, set[int]] = {}
        for pg, nodes in L.inst:
            if pg >= len(self.pages):
                return []
            for n in nodes:
                if n >= 0:
                    seqs.setdefault(pg, []).append(n)
                    parents.setdefault(pg, set()).add(self.pages[pg].parent[n])
        lens = {len(v) for v in seqs.values()}
        fixed = (
            len(seqs) == self.P.pages
            and len(lens) == 1
            and all(len(v) == 1 for v in parents.values())
        )
        par = next((self.sel.parent.get(id(x)) for x in items.values()), None)
        if fixed and par is not None and lens.pop() <= MAX_TUPLE_ROWS:
            return self._tuple_fields(items, seqs, par, opt)
        if par is not None and len(seqs) == self.P.pages:
            anchored = self._label_rows(items, seqs, par, opt)
            if anchored:
                return anchored
        if nested or not self.multi_fields:
            return []
        rs, r0, R0 = self.sel.record_selector(L)
        fields, _ = self.sel.list_fields(L, r0, R0)
        return [
            FieldSpec(
                f.name,
                f.type,
                rs.xpath + ("" if f.xpath == "." else "/" + f.xpath),
                None,
                f.attribute,
                True,
                True,
            )
            for f in fields
        ]

    def _tuple_fields(self, items: Items, seqs: Rows, par: PNode, opt: bool) -> list[FieldSpec]:
        """One field per row position and slot (``container/tr[k]/...``) of a list with the
        same rows on every page."""
        out: list[FieldSpec] = []
        cpath = self.sel.abs_path(par)
        for k in range(len(seqs[0])):
            temps = {id(items.get((pg, seqs[pg][k]))) for pg in seqs}
            T = items.get((0, seqs[0][k]))
            if T is None or len(temps) != 1:
                continue
            idx = {same_tag_index(self.pages[pg].el[seq[k]]) for pg, seq in seqs.items()}
            if len(idx) != 1:
                continue
            prefix = f"{cpath}/{tag_step(T.tag)}[{idx.pop()}]"
            fields, _ = self.sel.list_fields(PList([T], False, [], 1), 0, T)
            for f in fields:
                f2 = FieldSpec(
                    f"{f.name}_{k + 1}",
                    f.type,
                    prefix + ("" if f.xpath == "." else "/" + f.xpath),
                    None,
                    f.attribute,
                    opt or f.optional or T.optional,
                    False,
                )
                self._row[id(f2)] = prefix
                out.append(f2)
        return out

    def _label_rows(self, items: Items, seqs: Rows, par: PNode, opt: bool) -> list[FieldSpec]:
        """Label-anchored fields of a variable-length key/value list: a row whose first text
        (its label) occurs once on every sample page gives fields selected by that label
        (``tr[.//text()[normalize-space()='Born:']]/td[2]``); values equal on every page are
        template text and dropped."""
        cpath = self.sel.abs_path(par)
        tfields: dict[int, list[FieldSpec]] = {}
        rows: dict[tuple[int, str], dict[int, Any]] = {}
        for pg, seq in seqs.items():
            page = self.pages[pg]
            seen: dict[tuple[int, str], int] = {}
            for n in seq:
                T = items.get((pg, n))
                if T is None or page.leaf_lo[n] >= page.leaf_hi[n]:
                    continue
                label = page.leaves[page.leaf_lo[n]]
                if len(label) > 40 or "'" in label or not any(ch.isalpha() for ch in label):
                    continue
                key = (id(T), label)
                seen[key] = seen.get(key, 0) + 1
                rows.setdefault(key, {})[pg] = (T, page.el[n])
            for key, cnt in seen.items():
                if cnt > 1:
                    rows[key][pg] = None  # ambiguous label on this page
        out: list[FieldSpec] = []
        for (tid, label), per in rows.items():
            if len(per) != self.P.pages or any(v is None for v in per.values()):
                continue
            T = next(iter(per.values()))[0]
            if tid not in tfields:
                tfields[tid] = self.sel.list_fields(PList([T], False, [], 1), 0, T)[0]
            n_before = len(out)
            self._label_fields(label, per, cpath, T, tfields[tid], opt, out)
            if len(out) == n_before:
                self._label_cell(label, per, cpath, T, opt, out)
        return out

    def _label_cell(
        self, label: str, per: dict[int, Any], cpath: str, T: PNode, opt: bool, out: list[Any]
    ) -> None:
        """The cell after the label's cell, when it is the same cell on every page."""
        where = set()
        vals = []
        for _, el in per.values():
            kids = [c for c in el if isinstance(c.tag, str)]
            j = next((x for x, c in enumerate(kids) if label in _text(c)), None)
            if j is None:
                return
            nxt = next((c for c in kids[j + 1 :] if _text(c)), None)
            if nxt is None:
                return
            where.add((nxt.tag, same_tag_index(nxt)))
            vals.append(_text(nxt))
        if len(where) != 1 or len(set(vals)) == 1 or not isinstance(next(iter(where))[0], str):
            return
        tag, idx = where.pop()
        row = f"{cpath}/{tag_step(T.tag)}[.//text()[normalize-space()='{label}']]"
        xp = f"({row})[1]/{tag_step(tag)}[{idx}]"
        name = self.sel.name(label_slug(label) or "value")
        out.append(FieldSpec(name, guess_type(vals), xp, None, None, opt, False))

    def _label_fields(
        self,
        label: str,
        per: dict[int, Any],
        cpath: str,
        T: PNode,
        fields: list[FieldSpec],
        opt: bool,
        out: list[Any],
    ) -> None:
        """The row template's fields, read in the row labelled ``label``: those with data."""
        for f in fields:
            vals = []
            for _, el in per.values():
                try:
                    nodes = el.xpath(f.xpath)
                except Exception:
                    nodes = []
                vals.append(_first_value(nodes, f.attribute))
            if not any(vals) or (all(vals) and len(set(vals)) == 1):
                continue  # absent, or template text (the label itself)
            xp = f"({cpath}/{tag_step(T.tag)}[.//text()[normalize-space()='{label}']])[1]"
            name = label_slug(label) or f.name
            if f.attribute:
                name = f"{name}_{f.attribute}"
            out.append(
                FieldSpec(
                    self.sel.name(name),
                    f.type,
                    xp + ("" if f.xpath == "." else "/" + f.xpath),
                    None,
                    f.attribute,
                    opt or not all(vals),
                    False,
                )
            )

    def _drop_constants(self, fields: list[FieldSpec]) -> list[FieldSpec]:
        """Evaluate page fields on the samples: a field with the same value on every page is
        a template label: dropped, and used to name the data fields of its row."""
        if self.P.pages < 2 or not fields:
            return fields
        keep = []
        labels: dict[str, str] = {}
        for f in fields:
            got = []
            for p in self.pages:
                try:
                    nodes = p.root.xpath(f.xpath)
                except Exception:
                    nodes = []
                got.append(_first_value(nodes, f.attribute))
            present = [g for g in got if g]
            if not present:
                continue  # selects nothing on the samples
            if len(present) == len(got) and len(set(present)) == 1 and not f.multiple:
                row = self._row.get(id(f))
                if row is not None:
                    labels.setdefault(row, present[0])
                continue
            keep.append(f)
        for f in keep:
            lab = labels.get(self._row.get(id(f), ""))
            if lab:
                slug = label_slug(lab)
                if slug:
                    self.sel.rename(f, slug)
        return keep

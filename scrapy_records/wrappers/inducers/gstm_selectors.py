"""Selectors for the nodes of a G-STM pattern, verified on the sample pages, and the
fields of the pattern's record lists.

:class:`PatternSelectors` finds each template node's instances on the sample pages and
picks, step by step from the root, the most robust step (id, stable class, tag, position)
that selects exactly those instances; it chooses the main record list and turns a list's
record template into a record selector, fields and nested lists.
"""

from __future__ import annotations

import math
import re
from typing import Any

from scrapy_records.fields.values import guess_type
from scrapy_records.page import Page
from scrapy_records.selectors import (
    class_predicate,
    same_tag_index,
    stable_token,
    tag_step,
)
from scrapy_records.treematch import TEXT
from scrapy_records.wrappers.inducers.gstm_pattern import (
    ATTR_SLOTS,
    MAX_SAMPLES,
    Pattern,
    PList,
    PNode,
    Slot,
)
from scrapy_records.wrappers.model import FieldSpec, ListSpec, RecordSelector

_NAME_BAD = re.compile(r"[^A-Za-z0-9_\-]+")


def label_slug(label: str) -> str | None:
    """A field name from a template label (``Born:`` -> ``born``); None if it has none."""
    slug = _NAME_BAD.sub("_", label.lower()).strip("_-")[:30]
    return slug if slug and slug[0].isalpha() else None


def is_element(x: Any) -> bool:
    """An element item of a template (not a text leaf, not a list)."""
    return isinstance(x, PNode) and x.tag != TEXT


class PatternSelectors:
    """Selectors for a :class:`Pattern`'s nodes on its sample pages (Jindal & Liu 2010 reuse
    a pattern on a site's other pages, section 5.2.1; the selectors are this library's)."""

    def __init__(self, pattern: Pattern, pages: list[Page]) -> None:
        self.P = pattern
        self.pages = pages
        self.parent: dict[int, PNode | None] = {}
        self._abs: dict[int, str] = {}
        self._names: set[str] = set()
        stack: list[tuple[Any, PNode | None]] = [(pattern.root, None)]
        while stack:
            it, par = stack.pop()
            if isinstance(it, PList):
                for c in it.record:
                    stack.append((c, par))
            else:
                self.parent[id(it)] = par
                for c in it.children:
                    stack.append((c, it))

    # ------------------------------------------------------------ instances
    def elems(self, node: PNode) -> list[Any]:
        """The lxml elements of ``node``'s instances on the sample pages."""
        out = []
        for pg, x in node.inst:
            if x >= 0 and pg < len(self.pages):
                out.append(self.pages[pg].el[x])
        return out

    def step(self, node: PNode, contexts: list[Any]) -> tuple[str, bool]:
        """The most robust child step from ``contexts`` selecting exactly ``node``'s instances."""
        want = self.elems(node)
        by_parent: dict[Any, set[Any]] = {}
        for e in want:
            by_parent.setdefault(e.getparent(), set()).add(e)
        tag = tag_step(node.tag)
        cands = []
        if node.ident:
            cands.append(f"{tag}[@id='{node.ident}']")
        for c in node.classes[:4]:
            cands.append(f"{tag}[{class_predicate(c)}]")
        idx = {same_tag_index(e) for e in want}
        cands.append(tag)
        if len(idx) == 1:
            cands.append(f"{tag}[{idx.pop()}]")
        best, best_err = tag, None
        for c in cands:
            miss = extra = 0
            for ctx in contexts:
                try:
                    got = {x for x in ctx.xpath(c) if hasattr(x, "tag")}
                except Exception:
                    got = set()
                exp = by_parent.get(ctx, set())
                miss += len(exp - got)
                extra += len(got - exp)
            if miss == 0 and extra == 0:
                return c, True
            err = (miss, extra)
            if best_err is None or err < best_err:
                best, best_err = c, err
        return best, False

    def abs_path(self, node: PNode) -> str:
        """Absolute XPath of a template element node, step by step from the root."""
        chain = []
        x: PNode | None = node
        while x is not None and id(x) not in self._abs:
            chain.append(x)
            x = self.parent.get(id(x))
        for n in reversed(chain):
            par = self.parent.get(id(n))
            if par is None:
                self._abs[id(n)] = "/" + tag_step(n.tag)
                continue
            if n.ident and self._unique_id(n):
                self._abs[id(n)] = f"//{tag_step(n.tag)}[@id='{n.ident}']"
                continue
            st, _ = self.step(n, self.elems(par))
            self._abs[id(n)] = self._abs[id(par)] + "/" + st
        return self._abs[id(node)]

    def _unique_id(self, n: PNode) -> bool:
        """True when ``n``'s id selects exactly its instances on every sample page."""
        want = set(self.elems(n))
        got: set[Any] = set()
        for p in self.pages:
            try:
                got.update(p.root.xpath(f"//*[@id='{n.ident}']"))
            except Exception:
                return False
        return got == want

    # ------------------------------------------------------------ naming
    def name(self, hint: str) -> str:
        """A field or list name from ``hint``, unique within the wrapper."""
        base = _NAME_BAD.sub("_", hint).strip("_-") or "field"
        if not (base[0].isalpha() or base[0] == "_"):
            base = "f_" + base
        base = base[:40]
        name, k = base, 2
        while name in self._names:
            name = f"{base}_{k}"
            k += 1
        self._names.add(name)
        return name

    def rename(self, f: FieldSpec, hint: str) -> None:
        """Give ``f`` a new unique name from ``hint`` (its old name becomes free)."""
        self._names.discard(f.name)
        f.name = self.name(hint)

    # ------------------------------------------------------------ lists
    def _list_info(self, L: PList) -> float:
        """How much data a list's records hold: varying texts (longer ones more) and
        attributes."""
        info = 0.0
        # only slots inside element items count: bare text between records (``(#text br)+``)
        # cannot be selected as a record
        stack = [x for x in L.record if isinstance(x, PList) or x.tag != TEXT]
        while stack:
            it = stack.pop()
            if isinstance(it, PList):
                stack.extend(it.record)
                continue
            if it.text is not None and not it.text.constant and it.text.samples:
                avg = sum(len(s) for s in it.text.samples) / len(it.text.samples)
                info += 1.0 + min(avg, 100.0) / 20.0
            for s in it.attrs.values():
                if not s.constant:
                    info += 0.5
            stack.extend(it.children)
        return info

    def _record_share(self, L: PList) -> float:
        """Mean share of its page's text held by one record of ``L``."""
        tot = 0.0
        cnt = 0
        for pg, nodes in L.inst:
            if pg >= len(self.pages):
                continue
            page = self.pages[pg]
            body = sum(len(x) for x in page.leaves) or 1
            n = 0
            for x in nodes:
                if x >= 0:
                    n += sum(len(page.leaves[k]) for k in range(page.leaf_lo[x], page.leaf_hi[x]))
                else:
                    n += len(page.leaves[-x - 1])
            tot += n / body
            cnt += 1
        return tot / cnt if cnt else 0.0

    def main_list(self) -> PList | None:
        """The record list: the list with the most data, weighted by records per page."""
        best, best_s = None, 0.0
        npages = max(1, self.P.pages)
        for L in self.P.lists():
            per_page = L.records / npages
            if L.records < 2 or not any(is_element(x) for x in L.record):
                continue
            if any(isinstance(x, PList) for x in L.record):
                continue  # same-level nested lists ((a(bc)+)+) have no fixed-size record selector
            if self._fixed_arity(L):
                continue  # the cells of a row (td+ of fixed length) are columns
            # a list with about one record per page is a page part, not a record list
            s = self._list_info(L) * math.log2(1 + per_page) * (1.0 if per_page >= 1.5 else 0.1)
            # "records" holding a large share of their page are page parts (as in the extractor)
            share = self._record_share(L)
            cells = all(x.tag in ("td", "th") for x in L.record if is_element(x))
            if cells and share > 0.2:
                continue  # the columns of a layout table, not records (a grid's cells are small)
            s *= 1.0 if share <= 0.25 else max(0.1, 1.0 - 2.0 * (share - 0.25))
            if s > best_s:
                best, best_s = L, s
        return best

    def record_selector(
        self, L: PList, contexts: list[Any] | None = None
    ) -> tuple[RecordSelector, int, PNode]:
        """The selector of ``L``'s records (absolute, or relative to ``contexts``: the
        enclosing record's instances), the index of the record's first element item in the
        record template, and that item. A record spans the required element items that
        follow it."""
        items = L.record
        r0 = next(
            (k for k, x in enumerate(items) if is_element(x) and not x.optional),
            None,
        )
        if r0 is None:
            r0 = next(k for k, x in enumerate(items) if is_element(x))
        R0 = items[r0]
        if contexts is None:
            xp = self.abs_path(R0)
        else:
            par = self.parent.get(id(R0))
            rel = self.rel_path(par, contexts) if par is not None else ""
            st, _ = self.step(R0, self.elems(par) if par is not None else contexts)
            xp = (rel + "/" if rel and rel != "." else "") + st
        size = 1
        for x in items[r0 + 1 :]:
            if is_element(x) and not x.optional:
                size += 1
            else:
                break
        return RecordSelector(xp, None, size), r0, R0

    def rel_path(self, node: PNode, contexts: list[Any]) -> str:
        """Relative path from an ancestor (whose instances are ``contexts``) down to ``node``."""
        chain = []
        x: PNode | None = node
        ctx_set = set(contexts)
        while x is not None and not (set(self.elems(x)) & ctx_set):
            chain.append(x)
            x = self.parent.get(id(x))
        steps = []
        for n in reversed(chain):
            par = self.parent.get(id(n))
            st, _ = self.step(n, self.elems(par) if par is not None else contexts)
            steps.append(st)
        return "/".join(steps) if steps else "."

    def list_fields(self, L: PList, r0: int, R0: PNode) -> tuple[list[FieldSpec], list[ListSpec]]:
        """Fields and nested lists of one list's records, relative to the record's first
        element ``R0`` (item ``r0`` of the record template)."""
        fields: list[FieldSpec] = []
        lists: list[ListSpec] = []
        n_rec = max(1, L.records)
        up0 = self._container_hint(R0)
        for k, it in enumerate(L.record):
            prefix = self._item_prefix(L.record, k, r0)
            if prefix is not None:
                self._item_fields(it, prefix, up0, n_rec, fields, lists)
        return fields, lists

    def _container_hint(self, R0: PNode) -> str | None:
        """Name hint from the list's container (``ul.features`` -> ``features_li``)."""
        anc = self.parent.get(id(R0))
        for _ in range(3):
            if anc is None:
                break
            if anc.classes or anc.ident:
                return anc.classes[0] if anc.classes else anc.ident
            anc = self.parent.get(id(anc))
        return None

    @staticmethod
    def _item_prefix(items: list[Any], k: int, r0: int) -> str | None:
        """The axis step from the record's first element to element item ``k`` of the record
        template (None: not an element item, or out of reach)."""
        it = items[k]
        if not is_element(it):
            return None
        if k == r0:
            return ""
        if k > r0:
            if all(is_element(b) and not b.optional for b in items[r0 + 1 : k]):
                return f"following-sibling::*[{k - r0}][self::{tag_step(it.tag)}]"
            return f"following-sibling::{tag_step(it.tag)}[1]"
        if k == r0 - 1:
            return f"preceding-sibling::*[1][self::{tag_step(it.tag)}]"
        return None

    def _item_fields(
        self,
        it: PNode,
        prefix: str,
        up0: str | None,
        n_rec: int,
        fields: list[FieldSpec],
        lists: list[ListSpec],
    ) -> None:
        """Walk an item's sub-template: its data slots become fields, its lists nested
        lists (or one field per cell for a row of fixed arity)."""
        stack: list[tuple[PNode, str, bool, str | None]] = [(it, prefix, it.optional, up0)]
        while stack:
            node, path, opt, up = stack.pop()
            ctxs = self.elems(node)
            own = node.classes[0] if node.classes else node.ident
            hint = own or (f"{up}_{node.tag}" if up else node.tag)
            up = own or up
            fields.extend(self._slot_fields(node, path, opt, hint, n_rec))
            for c in reversed(node.children):
                if isinstance(c, PList):
                    if not any(is_element(x) for x in c.record):
                        continue
                    arity = self._fixed_arity(c)
                    if arity:
                        fields.extend(self._arity_fields(c, arity, path, opt, up))
                        continue
                    rs, cr0, CR0 = self.record_selector(c, ctxs)
                    rs.xpath = (path + "/" if path else "") + rs.xpath
                    sub_f, sub_l = self.list_fields(c, cr0, CR0)
                    if sub_f or sub_l:
                        hint_l = (CR0.classes[0] if CR0.classes else None) or f"{CR0.tag}_list"
                        lists.append(ListSpec(self.name(hint_l), rs, sub_f, sub_l, True))
                elif c.tag != TEXT:
                    st, _ = self.step(c, ctxs)
                    stack.append((c, (path + "/" if path else "") + st, opt or c.optional, up))

    def _slot_fields(
        self, node: PNode, path: str, opt: bool, hint: str, n_rec: int
    ) -> list[FieldSpec]:
        """Fields of a node's data slots: its attributes, then its text leaves."""
        out = []
        texts = [c for c in node.children if isinstance(c, PNode) and c.tag == TEXT]
        has_el = any(not (isinstance(c, PNode) and c.tag == TEXT) for c in node.children)
        for name, slot in node.attrs.items():
            if slot.constant or not slot.samples:
                continue
            ftype = ATTR_SLOTS.get(node.tag, (name, "url"))[1]
            fname = self.name(f"{hint}_{'url' if ftype == 'url' else 'image'}")
            optional = opt or slot.count < n_rec
            out.append(FieldSpec(fname, ftype, path or ".", None, name, optional, False))
        for j, t in enumerate(texts, 1):
            text: Slot | None = t.text
            if text is None or text.constant or not text.samples:
                continue
            if len(texts) == 1 and not has_el:
                xp = path or "."
            else:
                xp = (path + "/" if path else "") + f"text()[normalize-space()][{j}]"
            optional = opt or t.optional or text.count < n_rec
            out.append(
                FieldSpec(
                    self.name(hint), guess_type(text.samples), xp, None, None, optional, False
                )
            )
        return out

    def _fixed_arity(self, L: PList, max_arity: int = 8) -> int:
        """The arity of a primitive inner list (one leaf-like element per record) whose every
        instance has the same length: a row of columns, not a nested list (0: not one)."""
        if len(L.record) != 1 or not isinstance(L.record[0], PNode):
            return 0
        r = L.record[0]
        if r.tag == TEXT or any(not (isinstance(c, PNode) and c.tag == TEXT) for c in r.children):
            return 0
        counts: dict[Any, int] = {}
        for pg, nodes in L.inst:
            if not nodes or nodes[0] < 0 or pg >= len(self.pages):
                return 0
            par = self.pages[pg].parent[nodes[0]]
            counts[(pg, par)] = counts.get((pg, par), 0) + 1
        vals = set(counts.values())
        if len(vals) != 1:
            return 0
        c = vals.pop()
        return c if 2 <= c <= max_arity else 0

    def _arity_fields(
        self, L: PList, arity: int, path: str, opt: bool, up: str | None
    ) -> list[Any]:
        r = L.record[0]
        by_pos: list[list[Any]] = [[] for _ in range(arity)]
        seen: dict[Any, int] = {}
        for pg, nodes in L.inst:
            page = self.pages[pg]
            key = (pg, page.parent[nodes[0]])
            k = seen.get(key, 0)
            seen[key] = k + 1
            by_pos[k].append(page.el[nodes[0]])
        out = []
        tag = tag_step(r.tag)
        for k, els in enumerate(by_pos, 1):
            common = None
            for e in els:
                cl = {c for c in (e.get("class") or "").split() if stable_token(c)}
                common = cl if common is None else common & cl
            cls = sorted(common or ())
            step = f"{tag}[{class_predicate(cls[0])}]" if cls else f"{tag}[{k}]"
            samples = [" ".join(" ".join(e.itertext()).split()) for e in els[:MAX_SAMPLES]]
            hint = cls[0] if cls else (f"{up}_{r.tag}{k}" if up else f"{r.tag}{k}")
            out.append(
                FieldSpec(
                    self.name(hint),
                    guess_type([x for x in samples if x]),
                    (path + "/" if path else "") + step,
                    None,
                    None,
                    opt or L.optional or r.optional,
                    False,
                )
            )
        return out

"""Repeated parts of a record as list columns: several comments, tags or sub-links of one
record are one column holding a list, not ``comments``, ``comments_2``, ``comments_3``.

Partial tree alignment gives each occurrence of a repeated element its own template node
(the most any record has). :func:`merge_repeats` finds runs of sibling template nodes with
the same tag and class signature, and merges the slots at the same place under each of them
into one slot whose value is the list of the record's values, in document order. Slots with
a label of their own ("Color:", "Size:" in each occurrence) are distinct fields and stay
apart, and so are parts one of which a caption names ("Response Rate") where another
holds a count that varies; a list of links whose texts are the template's is one URL
column per text (:func:`label_value_columns`).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from scrapy_records.fields.naming import label_name, slug
from scrapy_records.fields.records import page_data
from scrapy_records.fields.slots import Slot
from scrapy_records.fields.template import Layout, TemplateNode
from scrapy_records.fields.text import inline_text, is_label_text, xpath_literal, xpath_string
from scrapy_records.page import Page

_POSITION = re.compile(r"\[\d+\]")


def _runs(t: TemplateNode) -> list[list[TemplateNode]]:
    """Runs of >= 2 consecutive children of ``t`` with the same tag and class signature."""
    out: list[list[TemplateNode]] = []
    cur: list[TemplateNode] = []
    for c in t.children:
        if cur and c.label == cur[0].label and c.sig == cur[0].sig and c.label >= 0:
            cur.append(c)
        else:
            if len(cur) >= 2:
                out.append(cur)
            cur = [c]
    if len(cur) >= 2:
        out.append(cur)
    return out


def _relative_key(
    s: Slot, head: TemplateNode, layout: Layout
) -> tuple[tuple[int, int, int], ...] | None:
    """The slot's place under ``head``: (label, signature, rank among same-signature
    siblings) per step, then its kind."""
    steps: list[tuple[int, int, int]] = []
    t: TemplateNode | None = s.t
    while t is not None and t is not head:
        p = layout.parent.get(t)
        if p is None:
            return None
        before = p.children[: p.children.index(t)]
        rank = sum(1 for c in before if (c.label, c.sig) == (t.label, t.sig))
        steps.append((t.label, t.sig, rank))
        t = p
    if t is None:
        return None
    return (*reversed(steps), (hash(s.kind), int(s.collapsed), 0))


def merge_repeats(
    data: list[Slot],
    layout: Layout,
    n: int,
    labelled: set[int],
    static: list[Slot] | None = None,
    members: dict[int, str] | None = None,
) -> list[Slot]:
    """Merge the slots of repeated template siblings into list slots (module docstring);
    ``labelled``: ``id()`` of the slots a label names; ``static``: the template's text
    slots (captions); ``members``: names by ``id()`` of slots a label names that may be
    items of a list, which that name then names ("by" before the names of a list)."""
    by_node = _under(data, layout)
    captions = _under(static or [], layout)
    merged: dict[int, Slot] = {}  # id(member) -> its list slot
    for t in layout.order:
        for run in _runs(t):
            if _fixed(run, by_node, n):
                continue  # as many in every record: distinct parts, their insides may repeat
            if _captioned(run, by_node, captions, layout):
                _reseat(run, by_node, captions, layout, n)
                continue
            for group in _groups(run, by_node, layout):
                if any(id(s) in merged for s in group):
                    continue
                if any(id(s) in labelled for s in group):
                    continue
                lst = _list_slot(group, n, layout, run[0])
                if lst is not None:
                    for s in group:
                        merged[id(s)] = lst
                    names = {members[id(s)] for s in group if id(s) in members} if members else ()
                    if len(names) == 1 and not lst.name:
                        lst.name, lst.evidence = next(iter(names)), "label"
    out: list[Slot] = []
    emitted: set[int] = set()
    for s in data:
        lst = merged.get(id(s))
        if lst is None:
            out.append(s)
        elif id(lst) not in emitted:
            emitted.add(id(lst))
            out.append(lst)
    return out


def _under(slots: list[Slot], layout: Layout) -> dict[TemplateNode, list[Slot]]:
    """Template node -> the slots in its sub-tree."""
    by_node: dict[TemplateNode, list[Slot]] = {}
    for s in slots:
        p: TemplateNode | None = s.t
        while p is not None:
            by_node.setdefault(p, []).append(s)
            p = layout.parent.get(p)
    return by_node


def _captioned(
    run: list[TemplateNode],
    by_node: dict[TemplateNode, list[Slot]],
    captions: dict[TemplateNode, list[Slot]],
    layout: Layout,
) -> bool:
    """A node of ``run`` holds the template's text (a caption, "Response Rate") beside a
    text of its own, where another node of the run holds data that varies ("1
    Transaction", "82 Transactions"): the nodes are distinct parts of the record, each a
    column, not items of one list. (Links whose texts are the template's, "Product
    manuals", stay a list: their data is the link, :func:`label_value_columns`; so do
    items whose texts are a few captions in any order.) So are two nodes that each hold
    a caption of their own at one place beside a text of their own ("View all <a>..</a>",
    "Learn more about working at <a>..</a>")."""
    keyed = [{_relative_key(s, h, layout): s for s in by_node.get(h, ())} for h in run]
    capts = [
        {_relative_key(c, h, layout): c for c in captions.get(h, ()) if c.kind == "text"}
        for h in run
    ]
    data = [
        any(s.kind == "text" and k not in f for k, s in o.items()) for o, f in zip(keyed, capts)
    ]
    for own, fixed, has in zip(keyed, capts, data):
        if not has:
            continue
        for key, cap in fixed.items():
            text = _first(cap)
            for other, ofixed, ohas in zip(keyed, capts, data):
                if other is own:
                    continue
                slot = other.get(key)
                if slot is not None and _varied(slot, text):
                    return True
                oc = ofixed.get(key)
                if ohas and oc is not None and _first(oc) != text:
                    return True
    return False


def _first(s: Slot) -> Any:
    return next((v for v in s.values if v is not None), None)


def _varied(s: Slot, caption: Any) -> bool:
    """``s`` holds data: at least two values other than ``caption``, one in three of them
    or more distinct (a count that repeats, not two captions taking turns)."""
    vals = [v for v in s.values if v is not None and v != caption]
    return len(vals) >= 2 and len({str(v) for v in vals}) * 3 >= len(vals)


def _reseat(
    run: list[TemplateNode],
    by_node: dict[TemplateNode, list[Slot]],
    captions: dict[TemplateNode, list[Slot]],
    layout: Layout,
    n: int,
) -> None:
    """A record showing fewer of the run's parts has them aligned from the first on (the
    matching reads shapes, not texts): a part that reads another part's caption ("Response
    Rate" where the others read "1 Transaction") is that part, its values move there.
    The parts' XPaths find them by their captions, not by their positions."""
    anchors: dict[TemplateNode, str] = {}
    for dst_head in run:
        caps = {}
        for c in captions.get(dst_head, ()):
            vals = {v for v in c.values if v is not None}
            if c.kind == "text" and len(vals) == 1:
                caps[_relative_key(c, dst_head, layout)] = vals.pop()
        dst = {_relative_key(x, dst_head, layout): x for x in by_node.get(dst_head, ())}
        for src_head in run:
            if src_head is dst_head or not caps:
                continue
            src = {_relative_key(x, src_head, layout): x for x in by_node.get(src_head, ())}
            for key, text in caps.items():
                cap = src.get(key)
                if cap is None:
                    continue
                for r in range(n):
                    if cap.values[r] == text and _movable(src, dst, r):
                        _move(src, dst, r)
        if caps:
            anchors[dst_head] = min(caps.values())
    _anchor_parts(run, by_node, anchors, layout)


def _anchor_parts(
    run: list[TemplateNode],
    by_node: dict[TemplateNode, list[Slot]],
    anchors: dict[TemplateNode, str],
    layout: Layout,
) -> None:
    """The XPath of each slot under ``run``: a captioned part's step finds the item holding
    its caption; another part's, the items holding no caption, by its rank among them."""
    lits = {h: xpath_string(c) for h, c in anchors.items()}
    free = [h for h in run if h not in anchors]
    for h in run:
        if h in lits:
            cond = f"[.//text()[normalize-space(.)={lits[h]}]]"
        else:
            cond = "".join(f"[not(.//text()[normalize-space(.)={x}])]" for x in lits.values())
            cond += f"[{free.index(h) + 1}]" if len(free) > 1 else ""
        for x in by_node.get(h, ()):
            free_path = _list_xpath(x.xpath, layout.depth[h])
            if free_path is not None:  # (else the positional XPath stays)
                x.xpath = _step_condition(free_path, layout.depth[h], cond)


def _step_condition(xpath: str, head_depth: int, cond: str) -> str:
    """``xpath`` with ``cond`` after the step of template depth ``head_depth`` (as
    :func:`_list_xpath` counts)."""
    steps = xpath.split("/")
    k = head_depth - 2 + (1 if steps[0].startswith("following-sibling::") else 0)
    steps[k] += cond
    return "/".join(steps)


def _movable(src: dict[Any, Slot], dst: dict[Any, Slot], r: int) -> bool:
    """Record ``r`` has nothing in ``dst``'s slots, and each of its values in ``src``
    has a slot of its type there (a caption, none)."""
    if any(x.values[r] is not None for x in dst.values()):
        return False
    for key, x in src.items():
        if x.values[r] is not None and key in dst and dst[key].type != x.type:
            return False
    return True


def _move(src: dict[Any, Slot], dst: dict[Any, Slot], r: int) -> None:
    """Move record ``r``'s values from the slots ``src`` to the same places ``dst``."""
    for key, a in src.items():
        b = dst.get(key)
        if a.values[r] is None:
            continue
        if b is not None:
            b.values[r], b.refs[r], b.attr[r] = a.values[r], a.refs[r], a.attr[r]
            if b.raw is not None:
                b.raw[r] = a.raw[r] if a.raw is not None else a.values[r]
        a.values[r], a.refs[r], a.attr[r] = None, None, None
        if a.raw is not None:
            a.raw[r] = None


def _fixed(run: list[TemplateNode], by_node: dict[TemplateNode, list[Slot]], n: int) -> bool:
    """Every record holds data under as many nodes of ``run`` (two blocks "genres" and
    "moods" of one class, each a list of its own)."""
    counts = set()
    for r in range(n):
        counts.add(sum(1 for h in run if any(s.values[r] is not None for s in by_node.get(h, ()))))
        if len(counts) > 1:
            return False
    return True


def _groups(
    run: list[TemplateNode], by_node: dict[TemplateNode, list[Slot]], layout: Layout
) -> list[list[Slot]]:
    """The slots at the same place under each node of ``run`` (in run order)."""
    keyed: dict[Any, list[Slot]] = {}
    for head in run:
        for s in by_node.get(head, ()):
            key = _relative_key(s, head, layout)
            if key is not None:
                keyed.setdefault(key, []).append(s)
    return [g for g in keyed.values() if len(g) >= 2]


def _list_slot(group: list[Slot], n: int, layout: Layout, head: TemplateNode) -> Slot | None:
    """One slot holding each record's values of ``group`` as a list, or ``None`` when the
    members are distinct fields: never repeated in a record, repeated as many times in
    every record (a table row's cells), or typed differently."""
    if len({s.type for s in group}) != 1:
        return None
    values: list[Any] = [None] * n
    counts = set()
    for r in range(n):
        items = [s.values[r] for s in group if s.values[r] is not None]
        counts.add(len(items))
        if items:
            values[r] = items
    if max(counts) < 2 or len(counts) < 2:
        return None  # never repeated, or as many in every record: distinct columns
    label = _leading_label(values)
    if label is not None:  # "by" before the authors: template, not a list item
        values = [(v[1:] or None) if v and v[0] == label else v for v in values]
    first = group[0]
    lst = Slot(first.t, first.kind, first.order, n, collapsed=first.collapsed)
    lst.values = values
    lst.refs = list(first.refs)
    lst.type = first.type
    lst.xpath = _list_xpath(first.xpath, layout.depth[head], label)
    lst.multiple = True
    if label is not None and label_name(label):
        lst.name, lst.evidence = label_name(label) or "", "label"  # kept by the namer
    return lst


def _leading_label(values: list[Any]) -> str | None:
    """The label most records' lists start with ("by" before the authors), if any; none
    when the items are labels all through: a list of keys ("Place of Origin:", "Brand
    Name:" in any order) keeps its first key."""
    firsts = Counter(v[0] for v in values if v and isinstance(v[0], str))
    if not firsts:
        return None
    items = [x for v in values if v for x in v]
    if sum(1 for x in items if isinstance(x, str) and is_label_text(x)) >= 0.9 * len(items):
        return None
    first, k = firsts.most_common(1)[0]
    return first if k >= 2 and 2 * k >= sum(firsts.values()) and is_label_text(first) else None


def _list_xpath(xpath: str | None, head_depth: int, label: str | None = None) -> str | None:
    """The first member's XPath without the position of the repeated step (template
    depth ``head_depth``: record roots are at depth 1); without the member that is the
    list's ``label``."""
    if not xpath:
        return None
    steps = xpath.split("/")
    k = head_depth - 2 + (1 if steps[0].startswith("following-sibling::") else 0)
    if not 0 <= k < len(steps) or steps[k].startswith("@"):
        return None
    steps[k] = _POSITION.sub("", steps[k])
    if label is not None:
        steps[k] += f"[not(normalize-space()={xpath_string(label)})]"
    return "/".join(steps)


#: at most this many label-named columns come from one pair of key and value lists
MAX_LABEL_COLUMNS = 30


def label_value_columns(data: list[Slot], n: int) -> list[Slot]:
    """A list of labels beside a list of values ("Brand Name:" / "TIGERKING", "Color:" /
    "White", in another order in every record) becomes one column per label, named after
    it and read by an XPath anchored on the label's text."""
    out: list[Slot] = []
    k = 0
    while k < len(data):
        keys = data[k]
        vals = data[k + 1] if k + 1 < len(data) else None
        cols = None
        if vals is not None:
            cols = _link_columns(keys, vals, n) or _pair_columns(keys, vals, n)
        if cols is None:
            out.append(keys)
            k += 1
        else:
            out.extend(cols)
            k += 2
    return out


#: at most this many links of a list named by their texts ("Product manuals")
MAX_NAMED_LINKS = 8


def _link_columns(texts: Slot, urls: Slot, n: int) -> list[Slot] | None:
    """A list of links whose texts are the template's ("Software & driver downloads",
    "Product manuals": each text in at least half the records holding the list, never
    twice in one) is not a list but that many links a record shows some of: one URL column
    per text, named after it as a lone such link is (``product_manuals_url``) and read by an
    XPath anchored on the text, so a page whose records show one of them names it alike."""
    if texts.kind != "text" or urls.kind != "url" or not (texts.multiple and urls.multiple):
        return None
    holding = 0
    count: dict[str, int] = {}
    for r in range(n):
        ts, us = texts.values[r] or [], urls.values[r] or []
        if len(ts) != len(us) or not all(isinstance(t, str) for t in ts):
            return None
        if len({t.strip() for t in ts}) < len(ts):
            return None
        holding += bool(ts)
        for t in ts:
            count[t.strip()] = count.get(t.strip(), 0) + 1
    if not 2 <= len(count) <= MAX_NAMED_LINKS or min(count.values()) * 2 < max(holding, 4):
        return None
    names = [label_name(t) for t in count]
    if None in names or len(set(names)) < len(names) or not texts.xpath or not urls.xpath:
        return None
    cols = []
    for text, name in zip(count, names):
        lit = xpath_literal(text)
        if lit is None or not urls.xpath.startswith(texts.xpath + "/"):
            return None
        s = Slot(urls.t, "url", urls.order, n)
        for r in range(n):
            for t, u in zip(texts.values[r] or [], urls.values[r] or []):
                if t.strip() == text:
                    s.values[r] = u
        s.refs = list(urls.refs)
        s.name, s.evidence = f"{name}_url", "label"
        s.xpath = f"{texts.xpath}[normalize-space(.)={lit}]{urls.xpath[len(texts.xpath) :]}"
        cols.append(s)
    return cols


def key_name(key: str) -> str | None:
    """The name a key of a list of keys and values gives: its label name, or, for a key
    too long to read as a label on its own ("2D code recognition software embedding:"),
    the key itself as an identifier. Among the keys of a list it is a key however long:
    one long key must not turn the whole list back into two lists of texts."""
    return label_name(key) or slug(key.strip().rstrip(":：").strip()) or None


def _pair_columns(keys: Slot, vals: Slot, n: int) -> list[Slot] | None:
    if keys.kind != "text" or vals.kind != "text":
        return None
    if not (keys.multiple and vals.multiple):
        return _pair_positional(keys, vals, n)
    labels: list[str] = []
    for r in range(n):
        ks, vs = keys.values[r] or [], vals.values[r] or []
        if len(ks) != len(vs):
            return None
        labels.extend(ks)
    if not all(isinstance(x, str) for x in labels):
        return None  # typed values (a list of prices beside a list of names): no labels
    named = [key_name(x) for x in labels if is_label_text(x)]
    if not labels or len(named) < 0.9 * len(labels) or None in named:
        return None
    return _label_columns(keys, vals, labels, n, listed=True)


def _label_columns(
    keys: Slot, vals: Slot, labels: list[str], n: int, listed: bool = False
) -> list[Slot]:
    """One column per label (the most frequent, in first-seen order), holding the value
    beside that label in each record; ``listed``: the labels are a list of keys, whose
    XPaths (:func:`key_paths`) each column keeps, so a wrapper reads whatever keys a later
    page shows."""
    paths = key_paths(keys.xpath, vals.xpath) if listed else None
    order: dict[str, int] = {}
    for x in labels:
        order[x.strip()] = order.get(x.strip(), 0) + 1
    kept = sorted(order, key=lambda x: -order[x])[:MAX_LABEL_COLUMNS]
    kept.sort(key=lambda x: labels.index(next(y for y in labels if y.strip() == x)))
    cols = []
    for label in kept:
        s = Slot(vals.t, "text", vals.order, n)
        for r in range(n):
            for kk, vv in zip(keys.values[r] or [], vals.values[r] or []):
                if kk.strip() == label:
                    s.values[r] = vv
                    break
        s.refs = list(vals.refs)
        s.name, s.evidence = key_name(label) or "value", "label"
        s.xpath = _label_xpath(keys.xpath, vals.xpath, label)
        s.keys = paths
        cols.append(s)
    return cols


def _pair_positional(keys: Slot, vals: Slot, n: int) -> list[Slot] | None:
    """One label cell and one value cell at the same place of every record, the label
    changing from record to record ("Civil:" / "Residence:" in a table's second row): one
    column per label, as for lists of labels (:func:`_pair_columns`). Every label ends
    with ":" and has a value beside it."""
    if keys.multiple or vals.multiple:
        return None
    pairs = [(k, v) for k, v in zip(keys.values, vals.values) if k is not None]
    if not pairs or any(
        v is None or not isinstance(k, str) or not k.rstrip().endswith((":", "："))
        for k, v in pairs
    ):
        return None
    labels = {k.strip() for k, _v in pairs}
    names = {label_name(k) for k in labels}
    if len(labels) < 2 or None in names or len(names) < len(labels):
        return None  # (one label in several spellings, "By:" / "Von:", names one column)
    wrapped = Slot(vals.t, "text", vals.order, n)
    wrapped.values = [None if k is None else [v] for k, v in zip(keys.values, vals.values)]
    keyed = Slot(keys.t, "text", keys.order, n)
    keyed.values = [None if k is None else [k] for k in keys.values]
    keyed.xpath, wrapped.xpath = keys.xpath, vals.xpath
    wrapped.refs = list(vals.refs)
    return _label_columns(keyed, wrapped, [k for k, _v in pairs], n, listed=True)


def _label_xpath(key_xpath: str | None, value_xpath: str | None, label: str) -> str | None:
    """The value's XPath with the repeated step anchored on its label's text:
    ``div/div[starts-with(normalize-space(.), 'Color:')]/b``."""
    lit = xpath_literal(label.strip())
    if not key_xpath or not value_xpath or lit is None:
        return None
    ks, vs = key_xpath.split("/"), value_xpath.split("/")
    k = 0
    while k < min(len(ks), len(vs)) and ks[k] == vs[k]:
        k += 1
    if k == 0:
        return None
    step = re.sub(r"\[\d+\]$", "", vs[k - 1])  # the label, not the position, finds the row
    item = f"{step}[starts-with(normalize-space(.), {lit})]"
    return "/".join([*vs[: k - 1], item, *vs[k:]])


def key_paths(key_xpath: str | None, value_xpath: str | None) -> tuple[str, str, str] | None:
    """The XPaths of a list of keys and values: its items (the repeated step both paths
    share, its position dropped), and under each item the key and the value:
    ``("div/ul/li", "span[1]", "span[2]")``."""
    if not key_xpath or not value_xpath:
        return None
    ks, vs = key_xpath.split("/"), value_xpath.split("/")
    k = 0
    while k < min(len(ks), len(vs)) and ks[k] == vs[k]:
        k += 1
    if k == 0 or "|" in key_xpath or "|" in value_xpath or ks[k - 1].startswith("@"):
        return None
    items = "/".join([*vs[: k - 1], re.sub(r"\[\d+\]$", "", vs[k - 1])])
    return items, "/".join(ks[k:]) or ".", "/".join(vs[k:]) or "."


def key_rows(page: Page, data: list[Slot]) -> None:
    """A value a constant label names in a row of a list of keys ("Description:" in the
    third row of the one record that shows it) is read as the list's other keys are: by
    its label, not by the row's position (a record showing that key in another row reads
    it all the same), and a wrapper's list of keys reads it (the slot's ``keys``)."""
    lists = dict.fromkeys(s.keys for s in data if s.keys is not None)
    for paths in lists:
        items, key, value = paths
        if any(x.startswith(("@", "text()")) or "(" in x for x in value.split("/")):
            continue
        row = re.compile(rf"{re.escape(items)}\[\d+\]/{re.escape(value)}")
        up = 0 if value == "." else value.count("/") + 1
        for s in data:
            if s.keys is not None or s.evidence != "label" or s.kind != "text" or s.multiple:
                continue
            if not s.xpath or not row.fullmatch(s.xpath):
                continue
            label = _row_key(page, s, key, up)
            lit = xpath_literal(label) if label else None
            if label is None or lit is None or key_name(label) != s.name:
                continue
            s.xpath = f"{items}[starts-with(normalize-space(.), {lit})]/{value}"
            s.keys = paths


def _row_key(page: Page, s: Slot, key: str, up: int) -> str | None:
    """The key text of the rows holding ``s``'s values (the same in every record), the
    row being ``up`` levels above each value's element."""
    found: set[str] = set()
    pd = page_data(page)
    for ref in s.refs:
        if ref is None:
            continue
        el = page.el[ref if ref >= 0 else pd.owner(ref)]  # (a text: the element holding it)
        for _ in range(up):
            el = el.getparent()
            if el is None:
                return None
        got = el.xpath(key)
        if not got or not isinstance(getattr(got[0], "tag", None), str):
            return None
        found.add(inline_text(got[0]).strip())
    if len(found) != 1:
        return None
    label = found.pop()
    return label if is_label_text(label) else None

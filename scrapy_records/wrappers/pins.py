"""The names a template's wrapper already had survive its re-induction.

A template's schema is its wrapper's field list: when the wrapper is induced again (the
site changed, it went stale), :func:`carry_over` gives each new field the name of the old
field that read the same slot (the same selector, the same last steps of it, e.g. the same
classed element under a new wrapper element, or the same values on the sample pages),
so a crawl's columns stay put, and names a person gave (``scrapy wrappers rename``, or an
edited wrapper document) are kept; fields a person dropped (``scrapy wrappers drop``) stay
out. :func:`rename_field` and :func:`drop_field` make those edits on a wrapper.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scrapy_records.errors import WrapperError
from scrapy_records.page import Page
from scrapy_records.results import Region
from scrapy_records.wrappers.apply import CompiledWrapper
from scrapy_records.wrappers.wrapper import Wrapper

#: a new field reads an old field's slot when their values agree on this share of records
MIN_AGREEMENT = 0.8


#: companion columns named after their base column (``price`` -> ``price_currency``)
_COMPANIONS = {"currency": "_currency", "unit": "_unit", "max": "_max", "raw": "_raw"}


def adopt_schema(mined: Region, wrapped: Region | None) -> dict[str, str]:
    """Name a page's mined columns after the template's wrapper fields that read the same
    values on it, in place (the columns, their companions and every record's fields).

    A template's schema is its wrapper's field list: a page of the template the wrapper
    does not fit is mined, and its records must carry the schema's names wherever the
    wrapper still reads the same slot (values agree on ``MIN_AGREEMENT`` of the records
    holding either, over the records both find, matched by their first XPath). Returns
    ``{old: new}``."""
    if wrapped is None or not mined.columns:
        return {}
    rows = {r.xpaths[0]: r.fields for r in wrapped.records if r.xpaths}
    records = [r for r in mined.records if r.xpaths and r.xpaths[0] in rows]
    keys = [r.xpaths[0] for r in records]
    names = {k for r in rows.values() for k in r}
    wanted = names - {b + suffix for b in names for suffix in _COMPANIONS.values()}
    pairs: list[tuple[float, str, str]] = []
    for col in mined.columns:
        mine = [r.fields.get(col.name) for r in records]
        if col.evidence in _COMPANIONS or sum(v is not None for v in mine) < 2:
            continue
        for name in wanted:
            score = _agreement(mine, [rows.get(k, {}).get(name) for k in keys])
            if score >= MIN_AGREEMENT:
                pairs.append((score, col.name, name))
    mapping: dict[str, str] = {}
    for _score, old, new in sorted(pairs, reverse=True):
        if old not in mapping and new not in mapping.values():
            mapping[old] = new
    kept = {c.name for c in mined.columns} - set(mapping)
    mapping = {old: new for old, new in mapping.items() if old != new and new not in kept}
    for col in mined.columns:  # companions follow their base column
        suffix = _COMPANIONS.get(col.evidence or "", "")
        base = col.name.removesuffix(suffix) if suffix and col.name.endswith(suffix) else ""
        if base in mapping:
            mapping[col.name] = mapping[base] + suffix
    for col in mined.columns:
        col.name = mapping.get(col.name, col.name)
    for rec in mined.records:
        rec.fields = {mapping.get(k, k): v for k, v in rec.fields.items()}
    return mapping


def rename_field(w: Wrapper, old: str, new: str) -> None:
    """Rename field ``old`` to ``new`` and pin it (re-induction keeps the name). A name no
    field has is a key column of the wrapper's lists of keys, when it has some (the
    column of "Fuel:" is ``fuel``): that key's column is named ``new`` from now on."""
    field = next((f for f in w.fields if f.name == old), None)
    keyed = [f.keys for f in w.fields if f.keys is not None]
    if field is None and not keyed:
        names = ", ".join(f.name for f in w.fields) or "none"
        raise WrapperError(f"wrapper {w.id} has no field {old!r} (fields: {names})")
    if new != old and any(f.name == new for f in w.fields):
        raise WrapperError(f"wrapper {w.id} already has a field {new!r}")
    if field is None:  # a key column
        for keys in keyed:
            keys.names[_key_of(keys.names, old)] = new
        w.validate()
        return
    field.name, field.pinned = new, True
    if old in w.health.fill_rates:
        w.health.fill_rates[new] = w.health.fill_rates.pop(old)
    w.validate()


def _key_of(names: dict[str, str], column: str) -> str:
    """The key column a person's name ``column`` stands for (itself when not renamed)."""
    return next((k for k, v in names.items() if v == column), column)


def drop_field(w: Wrapper, name: str) -> None:
    """Remove field ``name`` and remember it, so re-induction leaves it out; a name no field
    has is a key column of the wrapper's lists of keys (see :func:`rename_field`)."""
    field = next((f for f in w.fields if f.name == name), None)
    keyed = [f.keys for f in w.fields if f.keys is not None]
    if field is None and keyed:
        for keys in keyed:
            key = _key_of(keys.names, name)
            keys.names.pop(key, None)
            if key not in keys.dropped:
                keys.dropped.append(key)
        w.validate()
        return
    if field is None:
        names = ", ".join(f.name for f in w.fields) or "none"
        raise WrapperError(f"wrapper {w.id} has no field {name!r} (fields: {names})")
    w.fields.remove(field)
    w.health.fill_rates.pop(name, None)
    w.dropped.append({"name": name, "xpath": field.xpath, "attribute": field.attribute})
    w.validate()


def _values(w: Wrapper, pages: Sequence[Page], key_columns: bool = False) -> dict[str, list[Any]]:
    """Each field's value on every record of the pages (records keyed by page and XPath);
    ``key_columns``: the columns of the wrapper's lists of keys instead, as pages show them."""
    out: dict[str, dict[tuple[int, str], Any]] = (
        {} if key_columns else {f.name: {} for f in w.fields}
    )
    plain = {f.name for f in w.fields}
    for k, page in enumerate(pages):
        res = CompiledWrapper(w).apply(page.root, page.url, page)
        records = res.regions[0].records if res.regions else []
        if key_columns:
            for r in records:
                for name in r.fields:
                    if name not in plain:
                        out.setdefault(name, {})
        for r in records:
            for name in out:
                out[name][(k, r.xpaths[0] if r.xpaths else "")] = r.fields.get(name)
    keys = sorted({key for per in out.values() for key in per})
    return {name: [per.get(key) for key in keys] for name, per in out.items()}


def _steps(xpath: str) -> list[str]:
    """An XPath's steps (``/`` inside predicates and string literals left alone)."""
    steps: list[str] = []
    cur: list[str] = []
    depth, quote = 0, ""
    for ch in xpath:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif ch == "/" and depth == 0:
            steps.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    steps.append("".join(cur))
    return steps


def same_slot(a: tuple[str, str | None], b: tuple[str, str | None]) -> int:
    """How surely two selectors ``(xpath, attribute)`` read the same slot after a redesign:
    the number of equal last steps, when they say enough (two steps, or a step with a
    predicate such as a class test); 0 otherwise."""
    if a[1] != b[1]:
        return 0
    sa, sb = _steps(a[0]), _steps(b[0])
    n = 0
    while n < min(len(sa), len(sb)) and sa[-1 - n] == sb[-1 - n]:
        n += 1
    return n if n >= 2 or (n == 1 and "[" in sa[-1]) else 0


def _agreement(a: list[Any], b: list[Any]) -> float:
    either = sum(1 for x, y in zip(a, b) if x is not None or y is not None)
    same = sum(1 for x, y in zip(a, b) if x is not None and str(x) == str(y))
    return same / either if either else 0.0


def carry_over(new: Wrapper, old: Wrapper, pages: Sequence[Page]) -> Wrapper:
    """Name ``new``'s fields after ``old``'s where they read the same slot, keep ``old``'s
    pins and dropped fields (module docstring); returns ``new``."""
    new.fields = [
        f
        for f in new.fields
        if not any(
            f.name == d["name"] or same_slot((f.xpath, f.attribute), (d["xpath"], d["attribute"]))
            for d in old.dropped
        )
    ]
    new.dropped = [dict(d) for d in old.dropped]
    pairs: list[tuple[float, int, int]] = []
    new_vals = old_vals = None
    for i, f in enumerate(new.fields):
        by_selector = [
            (same_slot((f.xpath, f.attribute), (g.xpath, g.attribute)), j)
            for j, g in enumerate(old.fields)
        ]
        best = max(by_selector, default=(0, -1))
        if best[0]:
            pairs.append((1.0 + best[0], i, best[1]))
            continue
        if new_vals is None:
            new_vals, old_vals = _values(new, pages), _values(old, pages)
        assert old_vals is not None
        for j, g in enumerate(old.fields):
            score = _agreement(new_vals[f.name], old_vals[g.name])
            if score >= MIN_AGREEMENT:
                pairs.append((score, i, j))
    used = _rename(new, old, sorted(pairs, reverse=True))
    _carry_keys(new, old, used, pages)
    new.validate()
    return new


def _carry_keys(new: Wrapper, old: Wrapper, used: set[int], pages: Sequence[Page]) -> None:
    """The key columns a person renamed or dropped stay so in ``new``'s lists of keys: the
    old lists' names and drops, and the old wrapper's pinned or dropped fields no new field
    took whose values a key column of ``new`` reads on the sample pages (a column of one
    key that re-induction turned into a list of keys)."""
    keyed = [f.keys for f in new.fields if f.keys is not None]
    if not keyed:
        return
    names: dict[str, str] = {}
    dropped: list[str] = []
    for g in old.fields:
        if g.keys is not None:
            names.update(g.keys.names)
            dropped += [k for k in g.keys.dropped if k not in dropped]
    plain = {f.name for f in new.fields}
    dropped += [d["name"] for d in old.dropped if d["name"] not in plain | set(dropped)]
    pinned = [g for j, g in enumerate(old.fields) if g.pinned and g.keys is None and j not in used]
    if pinned:
        mine = _values(new, pages, key_columns=True)
        theirs = _values(old, pages)
        for g in pinned:
            best = max(
                ((_agreement(vals, theirs[g.name]), col) for col, vals in mine.items()),
                default=(0.0, ""),
            )
            if best[0] >= MIN_AGREEMENT and best[1] not in plain:
                names[best[1]] = g.name
    for keys in keyed:
        keys.names = {**names, **keys.names}
        keys.dropped += [k for k in dropped if k not in keys.dropped]


def _rename(new: Wrapper, old: Wrapper, pairs: list[tuple[float, int, int]]) -> set[int]:
    """Apply the best pairs (one old name per new field, each old name once); returns the
    old fields taken."""
    names: dict[int, tuple[str, bool]] = {}
    used_old: set[int] = set()
    for _score, i, j in pairs:
        if i in names or j in used_old:
            continue
        names[i] = (old.fields[j].name, old.fields[j].pinned)
        used_old.add(j)
    taken = {name for name, _ in names.values()}
    fill: dict[str, float] = {}
    for i, f in enumerate(new.fields):
        before = f.name
        if i in names:
            f.name, f.pinned = names[i]
        elif f.name in taken:  # a kept name another slot now holds: this one gets a new one
            k = 2
            while f"{before}_{k}" in taken:
                k += 1
            f.name = f"{before}_{k}"
        taken.add(f.name)
        fill[f.name] = new.health.fill_rates.get(before, 1.0)
    new.health.fill_rates = fill
    return used_old

"""Values every wrapped record holds alike: the template's, left out of the records as
mining leaves them out (``fields.slot_names.mark_static``), so that a page reads alike mined
and wrapped."""

from __future__ import annotations

from typing import Any

from scrapy_records.wrappers.reading import FieldReader

__all__ = ["drop_shared", "drop_shared_items"]


def drop_shared(fields: list[FieldReader], values: list[dict[str, Any]]) -> None:
    """A link or image with one value in every record, or in three records or more wherever
    present, is the template's (an icon, a placeholder image every record shows, a link all
    share): mining calls it template text, no column (``fields.slot_names.mark_static``),
    and the records do not hold it either, so a page reads alike mined and wrapped."""
    n = len(values)  # (two at least)
    for f in fields:
        name, first, count = f.name, None, 0
        for r in values:  # (stops at the second value: one per record, as a rule)
            v = r.get(name)
            if v is None:
                continue
            if first is None:
                first = v
            elif v != first:
                break
            count += 1
        else:
            if count == n or count >= 3:
                for r in values:
                    r.pop(name, None)


def drop_shared_items(fields: list[FieldReader], values: list[dict[str, Any]]) -> None:
    """The same for lists: the item at one place of every record's list with one value
    there ("Jobs in Leeds" second among each job's links) is the template's, as mining
    leaves that slot out of the list (``fields.slot_names.mark_static``): in every record,
    or, for links and images, in three lists or more wherever there is one. A list left
    empty is no value. Tags every record shares at different places stay, as in mining."""
    n = len(values)
    for f in fields:
        name = f.name
        lists = [v for r in values if isinstance(v := r.get(name), list) and v]
        if len(lists) < n and (len(lists) < 3 or f.type not in ("url", "image")):
            continue
        first = lists[0]
        drop = {k for k in range(min(map(len, lists))) if all(v[k] == first[k] for v in lists)}
        if not drop:
            continue
        for r in values:
            v = r.get(name)
            if isinstance(v, list) and v:
                kept = [x for k, x in enumerate(v) if k not in drop]
                if kept:
                    r[name] = kept
                else:
                    del r[name]

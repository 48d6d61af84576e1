"""The names of a DCADE wrapper's fields, once it is known which columns became fields (our
addition: Yuliana & Chang 2019 name no column, section 2).

:mod:`names` names every column of ``TableA``; the wrapper keeps only some of them (not
the copies of the title, not the columns no selector reproduces). Two things are then
decided on the fields kept:

* **the object's title**: with no field named ``title`` (no ``h1``), the heading that the
  page's ``<title>`` repeats on every induction page names the object ("Firewall
  Engineer" in "'Firewall Engineer' in Alexandria, VA job posting"), else the page title
  itself;
* **numbering**: ``address_2`` is the second column labelled "Address"; when the first
  one is no field (a column the alignment mixed), the second is ``address``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from scrapy_records.wrappers.inducers.dcade.schema import Schema, SchemaColumn
from scrapy_records.wrappers.model import FieldSpec

_NUMBERED = re.compile(r"^(.+)_(\d+)$")


def _repeats_in(part: SchemaColumn, whole: SchemaColumn) -> bool:
    """``part``'s text stands inside ``whole``'s on every page where it has one, with at
    least two distinct values."""
    pairs = [(v, whole.values[r]) for r, v in enumerate(part.values) if isinstance(v, str)]
    return (
        len({v for v, _w in pairs}) >= 2
        and all(isinstance(w, str) and v.strip().lower() in w.lower() for v, w in pairs)
        and 2 * len(pairs) >= len(part.values)
    )


def _title_field(schema: Schema, fields: list[FieldSpec]) -> FieldSpec | None:
    cols = {c.name: c for c in schema.columns if c.data and c.kind == "text"}
    single = [f for f in fields if not f.multiple and f.name in cols]
    page_title = next((f for f in single if f.name == "page_title"), None)
    pt_col = cols.get("page_title")
    if pt_col is not None:
        for f in single:
            c = cols[f.name]
            if c.evidence == "tag" and c.name.startswith("heading") and _repeats_in(c, pt_col):
                return f
    return page_title


def name_object_title(schema: Schema, fields: list[FieldSpec], taken: Iterable[str]) -> None:
    """With no field or list named ``title``, the heading the page title repeats (else the
    page title) becomes ``title``, in place."""
    if "title" in taken or any(f.name == "title" for f in fields):
        return
    f = _title_field(schema, fields)
    if f is not None:
        _rename(fields, f.name, "title")


def _rename(fields: list[FieldSpec], old: str, new: str) -> None:
    for f in fields:
        if f.name == old:
            f.name = new
        elif f.name == old + "_raw":
            f.name = new + "_raw"


def compact_numbering(schema: Schema, fields: list[FieldSpec], taken: Iterable[str]) -> None:
    """Renumber the fields whose names differ by a ``_2``, ``_3`` suffix given to columns
    of one name (:func:`names.name_columns`) so that the first field kept has the plain
    name, in place. ``taken``: names of the lists, never reused."""
    col_names = {c.name for c in schema.columns}
    stems: dict[str, list[tuple[int, FieldSpec]]] = {}
    for f in fields:
        if f.name.endswith("_raw") and f.name[:-4] in {g.name for g in fields}:
            continue  # a typed field's twin follows it
        m = _NUMBERED.match(f.name)
        if m and m.group(1) in col_names:
            stems.setdefault(m.group(1), []).append((int(m.group(2)), f))
        else:
            stems.setdefault(f.name, []).append((1, f))
    used = {f.name for f in fields} | set(taken)
    for stem, members in stems.items():
        members.sort(key=lambda x: x[0])
        for i, (_k, f) in enumerate(members):
            want = stem if i == 0 else f"{stem}_{i + 1}"
            if want == f.name or want in used or want + "_raw" in used:
                continue
            used.discard(f.name)
            used.add(want)
            _rename(fields, f.name, want)

"""Feed exporters: a CSV a spreadsheet opens, one row per record and one column per field.

:class:`RecordsCsvItemExporter` (the add-on installs it for the ``csv`` format) writes a
:class:`~scrapy_records.scrapy.items.RecordItem` as one flat row: ``page_url``, ``template``,
then the record's fields (a list value joined with `` | ``; a list of sub-records, such as
a detail page's set of authors, as one such column per sub-field), and leaves
:class:`~scrapy_records.scrapy.items.WrapperItem`\\ s out (wrappers are in the store, and in
JSON feeds). Other items are written as they are, a ``dict``/``list`` value as a JSON cell.
The header is the union of every row's columns, in first-seen order: rows are spooled to a
temporary file and the file is written at the end, so a field that first appears in a late
record still gets its column. ``FEED_EXPORT_FIELDS`` fixes the columns instead.

``RECORDS_FEED_FLAT = False`` keeps the nested form (``fields`` as one JSON cell, with the
record's metadata columns), as :class:`JsonCellCsvItemExporter` writes it.
"""

from __future__ import annotations

import csv
import json
import os
import tempfile
from collections.abc import Collection, Iterable, Iterator
from io import TextIOWrapper
from typing import IO, Any

from itemadapter import ItemAdapter
from scrapy.exporters import BaseItemExporter, CsvItemExporter

from scrapy_records.scrapy.items import RecordItem, WrapperItem

#: what joins the items of a list value in one CSV cell
LIST_SEPARATOR = " | "
#: the columns before a record's fields in a flat row
FLAT_COLUMNS = ("page_url", "template")


def json_cell(value: Any) -> Any:
    """``value`` as a CSV cell: containers as compact JSON, anything else unchanged."""
    if isinstance(value, (dict, list, tuple)):
        return json.dumps(value, ensure_ascii=False, default=str)
    return value


def _cell_text(v: Any) -> Any:
    """A whole number read as a float (a price of "$40") written as a person writes it:
    ``40``, not ``40.0``."""
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
        return int(v)
    return v


def flat_value(value: Any) -> Any:
    """A field value as a cell: a list of plain values joined, anything else as JSON;
    whole numbers without ``.0``."""
    if isinstance(value, (list, tuple)) and all(not isinstance(v, (dict, list)) for v in value):
        return LIST_SEPARATOR.join("" if v is None else str(_cell_text(v)) for v in value)
    return json_cell(_cell_text(value))


def _is_plain(value: Any) -> bool:
    return not isinstance(value, (dict, list, tuple))


def sublist_columns(name: str, value: Any, taken: Collection[str] = ()) -> dict[str, str] | None:
    """A list of sub-records (``[{"cuisine": "Bagels", "cuisine_url": ...}, ...]``, a
    detail page's set) as parallel columns, one per sub-field, the items' values joined in
    order with :data:`LIST_SEPARATOR` (an item without the sub-field leaves its place
    empty): a sub-field named like the list, or after it (``cuisine_url``), is a column of
    that name unless the record has a field of that name (``taken``); the others are
    ``<list>.<sub-field>``. ``None`` when ``value`` is not such a list."""
    if not isinstance(value, (list, tuple)) or not value:
        return None
    if not all(isinstance(v, dict) and all(map(_is_plain, v.values())) for v in value):
        return None
    keys = dict.fromkeys(k for v in value for k in v)

    def column(k: str) -> str:
        own = k == name or (k.startswith(name + "_") and k not in taken)
        return k if own else f"{name}.{k}"

    return {
        column(k): LIST_SEPARATOR.join("" if v.get(k) is None else str(v.get(k)) for v in value)
        for k in keys
    }


def flat_record(item: Any, prefix: str = "") -> dict[str, Any]:
    """A record as one flat row: ``page_url``, ``template``, then its fields (``prefix``
    before each field name; a field named like one of the first columns gets ``record_``;
    a list of sub-records gives one column per sub-field, :func:`sublist_columns`)."""
    a = ItemAdapter(item)
    row: dict[str, Any] = {
        "page_url": a.get("url"),
        "template": a.get("template_name") or a.get("template"),
    }
    fields = a.get("fields") or {}
    for name, value in fields.items():
        key = f"{prefix}{name}"
        key = key if key not in FLAT_COLUMNS else f"record_{key}"
        columns = sublist_columns(key, value, fields)
        if columns is None:
            row[key] = flat_value(value)
        else:
            row.update(columns)
    return row


class JsonCellCsvItemExporter(CsvItemExporter):
    """Scrapy's CSV exporter writing ``dict``/``list`` values as JSON cells (the nested form)."""

    def serialize_field(self, field: Any, name: str, value: Any) -> Any:
        serializer = field.get("serializer") if hasattr(field, "get") else None
        if serializer is None:
            value = json_cell(value)
        return super().serialize_field(field, name, value)


class RowSpool:
    """Rows of a CSV whose columns are only known at the end: rows wait in a temporary file
    (one JSON line each, bounded memory) and :meth:`write` writes the header then the rows.

    The header does not depend on the order pages arrived in: the first columns, then each
    template's columns (templates by name, a template's columns in the order its records
    give them).

    :param path: keep the rows in this file instead, each flushed as it is added, so a
        crawl stopped without closing (Ctrl-C twice, a killed process) leaves them there;
        rows the file already holds (such a crawl's) are the spool's first rows.
    """

    def __init__(self, first: Iterable[str] = FLAT_COLUMNS, path: str | None = None) -> None:
        self.first = list(first)
        self.groups: dict[str, dict[str, None]] = {}
        self.path = path
        self.rows = 0
        if path is None:
            self._file: IO[str] = tempfile.TemporaryFile("w+", encoding="utf-8")  # noqa: SIM115
            return
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        self._file = open(path, "a+", encoding="utf-8")  # noqa: SIM115
        for row in self.read():
            self._columns(row)
            self.rows += 1

    def _columns(self, row: dict[str, Any]) -> None:
        cols = self.groups.setdefault(str(row.get("template") or ""), {})
        for k in row:
            if k not in cols:
                cols[k] = None

    @property
    def columns(self) -> list[str]:
        out = dict.fromkeys(self.first)
        for group in sorted(self.groups):
            out.update(self.groups[group])
        return list(out)

    def add(self, row: dict[str, Any]) -> None:
        self._columns(row)
        self._file.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")
        if self.path is not None:
            self._file.flush()
        self.rows += 1

    def read(self) -> Iterator[dict[str, Any]]:
        self._file.seek(0)
        for line in self._file:
            try:
                yield json.loads(line)
            except ValueError:  # the last line of a process killed while writing it
                continue

    def write(self, stream: IO[str], columns: Iterable[str] | None = None, **csv_kw: Any) -> None:
        header = list(columns) if columns is not None else self.columns
        writer = csv.writer(stream, **csv_kw)
        writer.writerow(header)
        for row in self.read():
            writer.writerow(["" if row.get(c) is None else row.get(c) for c in header])

    def close(self, remove: bool = False) -> None:
        """Close the spool (``remove``: delete its file too)."""
        self._file.close()
        if remove and self.path is not None and os.path.exists(self.path):
            os.remove(self.path)


def read_csv_rows(path: str, encoding: str = "utf-8") -> Iterator[dict[str, Any]]:
    """The rows of an existing CSV file as dicts (a resumed crawl's earlier rows)."""
    if not os.path.exists(path) or not os.path.getsize(path):
        return
    with open(path, newline="", encoding=encoding) as f:
        yield from csv.DictReader(f)


class RecordsCsvItemExporter(BaseItemExporter):
    """One row per record, one column per field (see the module docstring)."""

    def __init__(self, file: IO[bytes], flat: bool = True, **kwargs: Any) -> None:
        errors = kwargs.pop("errors", None)
        kwargs.pop("include_headers_line", None)
        kwargs.pop("join_multivalued", None)
        super().__init__(dont_fail=True, **kwargs)
        self.encoding = self.encoding or "utf-8"
        self.file = file
        self.errors = errors
        self.flat = flat
        self.spool = RowSpool()

    @classmethod
    def from_crawler(cls, crawler: Any, file: IO[bytes], **kwargs: Any) -> RecordsCsvItemExporter:
        kwargs.setdefault("flat", crawler.settings.getbool("RECORDS_FEED_FLAT", True))
        return cls(file, **kwargs)

    def row(self, item: Any) -> dict[str, Any] | None:
        """The CSV row of ``item`` (``None``: not written)."""
        if isinstance(item, WrapperItem):
            return None
        if isinstance(item, RecordItem) and self.flat:
            return flat_record(item)
        return {k: json_cell(v) for k, v in ItemAdapter(item).items()}

    def export_item(self, item: Any) -> None:
        row = self.row(item)
        if row is not None:
            self.spool.add(row)

    def finish_exporting(self) -> None:
        stream = TextIOWrapper(self.file, encoding=self.encoding, newline="", errors=self.errors)
        try:
            columns = list(self.fields_to_export) if self.fields_to_export else None
            if self.spool.rows or columns:
                self.spool.write(stream, columns)
            stream.flush()
        finally:
            stream.detach()  # the feed storage closes the file
            self.spool.close()

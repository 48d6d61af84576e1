"""``scrapy wrappers list|show|export|delete|rename|drop``: inspect and manage the wrapper store.

* ``list [SITE]``: one line per stored wrapper (id, version, update time, record selector, fields);
* ``show SITE/TEMPLATE [--history]``: the wrapper's JSON document (``--history``: its versions);
* ``export DIR [SITE]``: write every wrapper (of a site) to a directory-of-JSON store;
* ``delete SITE[/TEMPLATE]``: remove wrappers (they are re-induced on the next crawl);
* ``rename SITE/TEMPLATE FIELD NEW_NAME``: rename a field; the name is pinned, so it
  survives re-induction of the template;
* ``drop SITE/TEMPLATE FIELD``: remove a field; re-induction leaves it out.

The store is ``RECORDS_WRAPPER_STORE`` of the project (``--store URI`` overrides it).
"""

from __future__ import annotations

import json
import sys
import time
from argparse import ArgumentParser, Namespace
from collections.abc import Callable
from typing import Any

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from scrapy_records.errors import WrapperError
from scrapy_records.scrapy.commands.records import format_table
from scrapy_records.scrapy.store import StoreError, open_store
from scrapy_records.scrapy.store.directory import DirectoryStore
from scrapy_records.wrappers.pins import drop_field, rename_field
from scrapy_records.wrappers.wrapper import Wrapper


def _summary(document: str) -> tuple[str, str]:
    try:
        d = json.loads(document)
        rec = (d.get("record") or {}).get("xpath") or "-"
        fields = ", ".join(f.get("name", "?") for f in d.get("fields") or []) or "-"
        return rec, fields
    except (ValueError, AttributeError):
        return "(corrupt document)", "-"


class Command(ScrapyCommand):
    requires_project = False
    requires_crawler_process = False
    default_settings = {"LOG_LEVEL": "WARNING"}

    def syntax(self) -> str:
        return (
            "list [SITE] | show SITE/TEMPLATE [--history] | export DIR [SITE] |"
            " delete SITE[/TEMPLATE] | rename SITE/TEMPLATE FIELD NEW | drop SITE/TEMPLATE FIELD"
        )

    def short_desc(self) -> str:
        return "List, show, export, delete or edit the stored scrapy_records wrappers"

    def add_options(self, parser: ArgumentParser) -> None:
        super().add_options(parser)
        parser.add_argument("--store", help="wrapper store URI (default: RECORDS_WRAPPER_STORE)")
        parser.add_argument(
            "--history", action="store_true", help="show: list every stored version"
        )

    def _store(self, opts: Namespace) -> Any:
        uri = (
            opts.store
            or (self.settings.get("RECORDS_WRAPPER_STORE") if self.settings else None)
            or "sqlite"
        )
        return open_store(uri)

    def run(self, args: list[str], opts: Namespace) -> None:
        if not args:
            raise UsageError("missing sub-command: list, show, export, delete, rename or drop")
        cmd, rest = args[0], args[1:]
        store = self._store(opts)
        try:
            if cmd == "list":
                self._list(store, rest[0] if rest else None)
            elif cmd == "show" and len(rest) == 1:
                self._show(store, rest[0], opts.history)
            elif cmd == "export" and rest:
                self._export(store, rest[0], rest[1] if len(rest) > 1 else None)
            elif cmd == "delete" and len(rest) == 1:
                site, _, template = rest[0].partition("/")
                n = store.delete(site, template or None)
                print(f"deleted {n} wrapper(s)")
                if not n:
                    self.exitcode = 1
            elif cmd == "rename" and len(rest) == 3:
                self._edit(store, rest[0], lambda w: rename_field(w, rest[1], rest[2]))
            elif cmd == "drop" and len(rest) == 2:
                self._edit(store, rest[0], lambda w: drop_field(w, rest[1]))
            else:
                raise UsageError(f"bad sub-command or arguments: {' '.join(args)}")
        finally:
            store.close()

    def _list(self, store: Any, site: str | None) -> None:
        entries = store.list(site)
        if not entries:
            print(f"no wrappers in {store.uri}", file=sys.stderr)
            return

        rows = []
        for w in entries:
            rec, fields = _summary(w.document)
            rows.append(
                [
                    w.wrapper_id,
                    str(w.version),
                    time.strftime("%Y-%m-%d %H:%M", time.localtime(w.updated)),
                    rec,
                    fields,
                ]
            )
        print(format_table(rows, ["wrapper", "version", "updated", "record", "fields"], width=60))

    def _stored(self, store: Any, wid: str) -> tuple[str, str, Any] | None:
        """``(site, template, stored wrapper)`` of ``SITE/TEMPLATE``; ``None`` (reported,
        exit code 1) when the store has no such wrapper."""
        site, _, template = wid.partition("/")
        sw = store.get(site, template)
        if sw is None:
            print(f"no wrapper {wid} in {store.uri}", file=sys.stderr)
            self.exitcode = 1
            return None
        return site, template, sw

    def _show(self, store: Any, wid: str, history: bool) -> None:
        found = self._stored(store, wid)
        if found is None:
            return
        site, template, w = found
        if history and hasattr(store, "history"):
            for version, updated, _doc in store.history(site, template):
                when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(updated))
                print(f"version {version}  {when}")
            return
        try:
            print(json.dumps(json.loads(w.document), indent=2, sort_keys=True, ensure_ascii=False))
        except ValueError:
            print(w.document)

    def _edit(self, store: Any, wid: str, change: Callable[[Wrapper], None]) -> None:
        """Apply ``change`` to a stored wrapper and store it (compare-and-set)."""
        found = self._stored(store, wid)
        if found is None:
            return
        site, template, sw = found
        try:
            w = Wrapper.from_json(sw.document)
            change(w)
            version = store.put(
                site, template, w.to_json(), expected_version=sw.version, signature=sw.signature
            )
        except (WrapperError, StoreError) as exc:
            print(f"scrapy wrappers: {exc}", file=sys.stderr)
            self.exitcode = 2
            return
        print(f"{wid}: version {version}, fields {', '.join(f.name for f in w.fields) or '-'}")
        for f in w.fields:  # the columns of a list of keys are named on each page
            if f.keys is not None and (f.keys.names or f.keys.dropped):
                renamed = ", ".join(f"{k} -> {v}" for k, v in sorted(f.keys.names.items()))
                print(
                    f"  key columns of {f.name} (one per key a page shows): renamed"
                    f" {renamed or '-'}; dropped {', '.join(f.keys.dropped) or '-'}"
                )

    def _export(self, store: Any, directory: str, site: str | None) -> None:
        out = DirectoryStore(directory)
        n = 0
        for w in store.list(site):
            cur = out.get(w.site, w.template)
            if cur is not None:
                out.delete(w.site, w.template)
            out.put(w.site, w.template, w.document, signature=w.signature)
            n += 1
        print(f"exported {n} wrapper(s) to {out.root}")

"""Command line: ``python -m scrapy_records COMMAND ...`` (also installed as ``scrapy-records``).

Commands:

``extract PATH_OR_URL [--extractor NAME] [--format json|jsonl|csv] [--all] [--url URL]``
    print the main region's records (``--all``: every region).
``induce PAGE... -o wrapper.json [--extractor NAME]``
    induce a wrapper from pages of one template.
``apply wrapper.json PAGE... [--format ...]``
    extract records from pages with a stored wrapper.

A ``PAGE`` is a file path, ``-`` (standard input) or an ``http(s)://`` URL (fetched with the
standard library; for crawls use Scrapy), read up to ``max_bytes`` (10 MiB, ``--options``).
Errors are printed as one line and exit with 2; a bad ``--options`` too (not a JSON
object, an option the extractor or inducer refuses). ``apply`` warns on standard error
for each page the wrapper does not fit, and exits with 1 when it fits none.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import urllib.request
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import unquote, urlsplit

from scrapy_records.api import extract
from scrapy_records.errors import OptionError, PageTooLargeError, RecordsError
from scrapy_records.page import DEFAULT_MAX_BYTES
from scrapy_records.results import PageResult
from scrapy_records.wrappers.induce import induce
from scrapy_records.wrappers.wrapper import Wrapper


def read_source(
    spec: str, timeout: float = 30.0, max_bytes: int | None = DEFAULT_MAX_BYTES
) -> tuple[bytes, str | None]:
    """Bytes and URL of a page given as a path, ``-`` or an http(s) URL, read up to
    ``max_bytes`` (a larger page raises :class:`PageTooLargeError` without being read
    whole: ``/dev/zero``, a URL serving gigabytes)."""
    if spec == "-":
        return _read_at_most(sys.stdin.buffer, max_bytes, "standard input"), None
    if spec.startswith(("http://", "https://")):
        req = urllib.request.Request(
            spec, headers={"User-Agent": "scrapy-records (+https://scrapy.org)"}
        )
        with urllib.request.urlopen(req, timeout=timeout) as resp:  # noqa: S310 - user-given URL
            return _read_at_most(resp, max_bytes, spec), resp.geturl()
    if spec.startswith("file://"):
        path = Path(unquote(urlsplit(spec).path))
        url: str | None = spec
    else:
        path = Path(spec)
        url = path.resolve().as_uri()
    with path.open("rb") as f:
        return _read_at_most(f, max_bytes, spec), url


def _read_at_most(stream: Any, max_bytes: int | None, what: str) -> bytes:
    if max_bytes is None:
        return stream.read()
    data = stream.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise PageTooLargeError(f"{what} holds more than max_bytes={max_bytes} bytes")
    return data


def _options(text: str | None) -> dict[str, Any]:
    """The ``--options`` JSON object."""
    if not text:
        return {}
    try:
        options = json.loads(text)
    except ValueError as exc:
        raise OptionError(f"--options is not valid JSON: {exc}") from None
    if not isinstance(options, dict):
        raise OptionError(f"--options must be a JSON object, not {type(options).__name__}")
    return options


def _cell(value: Any) -> Any:
    """A CSV cell: a list of plain values joined with `` | ``, other lists and objects as
    JSON (a detail-page wrapper's nested rows)."""
    if isinstance(value, list) and all(not isinstance(v, (dict, list)) for v in value):
        return " | ".join("" if v is None else str(v) for v in value)
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    return value


def _rows(result: PageResult, all_regions: bool) -> list[dict[str, Any]]:
    """One row per record: the main region's, or every region's with ``all_regions``."""
    main = result.main
    regions = result.regions if all_regions else ([main] if main else [])
    rows = []
    for rno, region in enumerate(regions):
        for k, rec in enumerate(region.records):
            # "page_url", not "url": record fields are often named url (links)
            row: dict[str, Any] = {"page_url": result.url}
            if all_regions:
                row["region"] = rno
                row["extractor"] = region.extractor
            row["index"] = k
            row["confidence"] = round(rec.confidence, 4)
            row.update(rec.fields or {"text": rec.text})
            row["xpaths"] = rec.xpaths
            rows.append(row)
    return rows


def write_rows(rows: list[dict[str, Any]], fmt: str, out: TextIO) -> None:
    """Write ``rows`` as ``json``, ``jsonl`` or ``csv`` (list values joined by `` | ``)."""
    if fmt == "json":
        json.dump(rows, out, ensure_ascii=False, indent=2)
        out.write("\n")
    elif fmt == "jsonl":
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    elif fmt == "csv":
        columns: list[str] = []
        for row in rows:
            for key in row:
                if key not in columns:
                    columns.append(key)
        w = csv.DictWriter(out, fieldnames=columns, extrasaction="ignore")
        w.writeheader()
        for row in rows:
            w.writerow({k: _cell(v) for k, v in row.items()})
    else:  # pragma: no cover - argparse restricts choices
        raise ValueError(fmt)


def cmd_extract(args: argparse.Namespace) -> int:
    options = _options(args.options)
    body, url = read_source(args.source, max_bytes=options.get("max_bytes", DEFAULT_MAX_BYTES))
    result = extract(body, url=args.url or url, extractor=args.extractor, **options)
    if args.format == "summary":
        _summary(result, sys.stdout)
    else:
        write_rows(_rows(result, args.all), args.format, sys.stdout)
    return 0


def _summary(result: PageResult, out: TextIO) -> None:
    """One line per region (``*`` marks the main one), with its columns."""
    out.write(f"{result.url}: {len(result.regions)} region(s)\n")
    for i, r in enumerate(result.regions):
        mark = "*" if i == 0 and result.main is not None else " "
        cols = ", ".join(c.name for c in r.columns)
        out.write(
            f"{mark}{i:>3} {r.extractor:<8} conf={r.confidence:.2f} "
            f"records={len(r.records):<4} {r.xpath}\n"
        )
        if cols:
            out.write(f"       columns: {cols}\n")
        for why in r.meta.get("rank_reasons", []):
            out.write(f"       - {why}\n")
    if result.regions and result.main is None:
        out.write(
            f"no main region: the best confidence {result.regions[0].confidence:.2f} is below "
            f"the threshold {result.main_threshold:.2f}\n"
        )


def cmd_induce(args: argparse.Namespace) -> int:
    options = _options(args.options)
    pages = []
    for spec in args.pages:
        body, url = read_source(spec, max_bytes=options.get("max_bytes", DEFAULT_MAX_BYTES))
        pages.append((url, body))
    wrapper = induce(pages, extractor=args.extractor, **options)
    text = wrapper.to_json()
    if args.output and args.output != "-":
        Path(args.output).write_text(text, encoding="utf-8")
        print(f"wrapper {wrapper.id} written to {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text + "\n")
    return 0


def cmd_apply(args: argparse.Namespace) -> int:
    wrapper = Wrapper.from_json(Path(args.wrapper).read_bytes())  # (not UTF-8: WrapperError)
    rows: list[dict[str, Any]] = []
    fitting = 0
    for spec in args.pages:
        body, url = read_source(spec)
        result = wrapper.extract(body, url=url)
        health = wrapper.check(result)
        if health["fits"]:
            fitting += 1
        else:
            print(
                f"scrapy-records: warning: {spec} does not fit wrapper {wrapper.id}"
                f" (site {wrapper.site or '?'}; fit {health['fit']:.2f},"
                f" {health['records']} records)",
                file=sys.stderr,
            )
        rows.extend(_rows(result, False))
    write_rows(rows, args.format, sys.stdout)
    return 0 if fitting else 1


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="scrapy-records",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = ap.add_subparsers(dest="command", required=True)
    e = sub.add_parser("extract", help="print the records of a page")
    e.add_argument("source", help="file path, - or http(s) URL")
    e.add_argument("--extractor", default="auto")
    e.add_argument("--format", choices=["json", "jsonl", "csv", "summary"], default="json")
    e.add_argument("--all", action="store_true", help="every region, not only the main one")
    e.add_argument("--url", default=None, help="URL of the page (for absolute links)")
    e.add_argument("--options", default=None, help="JSON dict of extractor options")
    e.set_defaults(func=cmd_extract)
    i = sub.add_parser("induce", help="induce a wrapper from pages of one template")
    i.add_argument("pages", nargs="+")
    i.add_argument("-o", "--output", default="-")
    i.add_argument("--extractor", default="auto")
    i.add_argument("--options", default=None, help="JSON dict of inducer options")
    i.set_defaults(func=cmd_induce)
    a = sub.add_parser("apply", help="extract records with a wrapper")
    a.add_argument("wrapper")
    a.add_argument("pages", nargs="+")
    a.add_argument("--format", choices=["json", "jsonl", "csv"], default="json")
    a.set_defaults(func=cmd_apply)
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except BrokenPipeError:  # piped into head: stop quietly, as Unix tools do
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # (the interpreter's final flush fails too)
        return 0
    except (RecordsError, OSError) as exc:
        print(f"scrapy-records: error: {exc}", file=sys.stderr)
        return 2
    except (TypeError, ValueError) as exc:
        if not getattr(args, "options", None):
            raise  # not the user's options: a bug, shown with its traceback
        # extractors and inducers refuse options they do not know or take with TypeError /
        # ValueError (their documented protocol)
        print(f"scrapy-records: error: bad --options: {exc}", file=sys.stderr)
        return 2

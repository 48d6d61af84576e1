#!/usr/bin/env python
"""Bad input at scale (issue 18): every family of hostile input the library takes, with the
outcome of each case classified.

    python benchmarks/fuzz.py [--seed N] [--family NAME] [--show N]

Families: ``extract-size`` (huge bytes, millions of drawing elements, comments, deep and
wide trees), ``extract-encoding`` (UTF-16/32 with and without BOM and declaration, wrong
and bogus charsets, invalid bytes, lone surrogates, NULs), ``extract-content`` (binary
formats, random bytes, JSON, XML, text, broken markup), ``extract-api`` (wrong types, bad
options), ``wrapper-apply`` (a wrapper applied to the pages above, bad options, allowed
but costly selectors on large pages), ``wrapper-docs`` (hostile wrapper documents:
nested location paths, unions, functions, huge literals, nesting, wrong types, bad
bytes), ``induce`` (degenerate page sets, large tables, distinct nested blocks for
G-STM, bad options).

Each case runs in this process; its outcome is a *clear error* (a ``RecordsError``, or the
``TypeError`` that names what a page may be), a *sane result* (a value of the documented
type), or a *crash* (anything else). Per case the seconds and the peak resident memory
(``VmHWM``, reset before each case through ``/proc/self/clear_refs``; Linux) are measured.
A case over :data:`MAX_SECONDS` is reported as unbounded. The exit status is 1 on a crash
or an unbounded case.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from lxml import etree  # noqa: E402

from scrapy_records import RecordsError, Wrapper, extract, induce  # noqa: E402
from scrapy_records.results import PageResult  # noqa: E402

#: a case slower than this is unbounded (the budgets must stop every case before)
MAX_SECONDS = 30.0

Case = tuple[str, str, Callable[[], Any]]


# ------------------------------------------------------------------------ pages
def shop(n: int, start: int = 0) -> str:
    rows = "".join(
        f'<li class="item"><h3><a href="/p/{i}">Product {i}</a></h3>'
        f'<span class="price">${10 + i % 90}.99</span><p>Ships in {i % 5 + 1} days</p></li>'
        for i in range(start, start + n)
    )
    return f"<html><body><ul id='results'>{rows}</ul><p>Copyright</p></body></html>"


def table(n: int, start: int = 0) -> str:
    rows = "".join(
        f"<tr><td><a href='/p/{i}'>Item {i}</a></td><td>{i % 97}.{i % 100:02d} EUR</td></tr>"
        for i in range(start, start + n)
    )
    return f"<html><body><table id='t'>{rows}</table></body></html>"


def blocks(n: int, k: int) -> str:
    tags = ["div", "span", "p", "section", "article", "ul", "li", "em", "b", "i"]

    def block(i: int) -> str:
        ts = [tags[int(d)] for d in str(i)]
        return "".join(f"<{t}>" for t in ts) + f"x{i}" + "".join(f"</{t}>" for t in ts[::-1])

    return "<html><body>" + "".join(f"<div>{block(i * 7 + k)}</div>" for i in range(n)) + "</body>"


MB = 1024 * 1024


def size_pages() -> Iterator[tuple[str, Any]]:
    yield "11 MB of markup", b"<html><body>" + b"<p>x</p>" * (11 * MB // 8)
    yield "2.5M svg elements in 10 MB", b"<html><body><svg>" + b"<g/>" * 2_500_000 + b"</svg>"
    yield "600k comments", b"<html><body>" + b"<!--c-->" * 600_000 + b"<p>x</p></body></html>"
    yield "200k elements in a template", "<template>" + "<b></b>" * 200_000 + "</template>"
    yield "100k MathML elements", "<html><body><math>" + "<mi>x</mi>" * 100_000 + "</math>"
    yield "60,000-deep nesting", "<html><body>" + "<div>" * 60_000 + "deep" + "</div>" * 60_000
    yield "5,000-deep nesting", "<html><body>" + "<span>" * 5_000 + "x" + "</span>" * 5_000
    yield "150k siblings", "<html><body><ul>" + "<li>x</li>" * 150_000 + "</ul></body></html>"
    yield "140k list items", shop(14_000)
    yield "one 9 MB text node", "<html><body><p>" + "word " * (9 * MB // 5) + "</p></body>"
    yield "100k attributes", "<html><body><p " + " ".join(f"a{i}=x" for i in range(100_000)) + ">"
    yield "a 5 MB attribute", "<html><body><a href='" + "x" * (5 * MB) + "'>x</a></body>"
    yield "1M '<' in a script", "<html><body><script>" + "a<b;" * 1_000_000 + "</script><p>x</p>"
    yield "10 MB of '<'", b"<" * (10 * MB - 1)
    yield "100k unclosed <p>", "<html><body>" + "<p>x" * 100_000
    yield "100k unclosed <li> in <dl>", "<dl>" + "<dd>x<p>y" * 50_000
    yield "str of 6M non-ASCII chars", "<html><body><p>" + "é" * 6_000_000 + "</p></body>"
    yield "a 30k-record table", table(30_000)


def encoding_pages() -> Iterator[tuple[str, Any, dict[str, Any]]]:
    page = shop(12)
    for codec in ("utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"):
        data = page.encode(codec)
        yield f"{codec} no BOM, undeclared", data, {}
        yield f"{codec} no BOM, encoding=", data, {"encoding": codec}
        bom = {"utf-16-le": b"\xff\xfe", "utf-16-be": b"\xfe\xff"}.get(codec)
        if bom:
            yield f"{codec} with BOM", bom + data, {}
    meta = page.replace("<html>", "<html><head><meta charset='{}'></head>")
    for cs in ("utf-16", "utf-16le", "utf-32", "bogus-charset", "x-user-defined", "ebcdic-cp-us"):
        yield f"<meta charset={cs}>", meta.format(cs).encode("ascii"), {}
    yield "invalid UTF-8", page.encode() + b"\xff\xfe\xfd\xc3\x28" * 1000, {}
    yield "cp1252 declared UTF-8", meta.format("utf-8").replace("1", "é").encode("cp1252"), {}
    yield "UTF-8 BOM + UTF-16 body", b"\xef\xbb\xbf" + page.encode("utf-16-le"), {}
    yield "UTF-16 BOM + UTF-8 body", b"\xff\xfe" + page.encode(), {}
    yield "lone surrogates (str)", page.replace("Product", "P\ud800r\udfffod"), {}
    yield "NULs (str)", page.replace("Product", "Pro\x00duct"), {}
    yield "NULs (bytes)", page.encode().replace(b"Product", b"Pro\x00duct"), {}
    yield "control characters", page.replace("Product", "\x01\x02\x1b"), {}
    yield "encoding=bogus", page.encode(), {"encoding": "bogus"}
    yield "encoding=5", page.encode(), {"encoding": 5}
    yield "encoding=utf-7", page.encode(), {"encoding": "utf-7"}
    yield "Shift_JIS declared, cp1252 bytes", meta.format("shift_jis").encode("ascii"), {}
    yield "gb18030 body", page.replace("Product", "产品").encode("gb18030"), {}


def content_pages(rng: random.Random) -> Iterator[tuple[str, Any]]:
    for name, magic in (
        ("PNG", b"\x89PNG\r\n\x1a\n"),
        ("PDF", b"%PDF-1.7\n"),
        ("ZIP", b"PK\x03\x04"),
        ("GZIP", b"\x1f\x8b\x08"),
        ("ELF", b"\x7fELF"),
        ("JPEG", b"\xff\xd8\xff\xe0"),
    ):
        yield name, magic + bytes(rng.randrange(256) for _ in range(4000))
    yield "random bytes", bytes(rng.randrange(256) for _ in range(100_000))
    yield "random ASCII", "".join(rng.choice("<>/ab =\"'\n") for _ in range(100_000))
    yield "empty", b""
    yield "whitespace", b" \n\t " * 100
    yield "JSON", json.dumps({"items": [{"a": i} for i in range(100)]}).encode()
    yield "XML", b"<?xml version='1.0'?><rss><channel><item>x</item></channel></rss>"
    yield "plain text", b"just some text, no markup at all\n" * 100
    yield "only a comment", b"<!-- nothing -->"
    yield "only a doctype", b"<!DOCTYPE html>"
    yield "a lone '<'", b"<"
    yield "unclosed tags", "<html><body><div><table><tr><td><ul><li>x" * 1000
    yield "premature </html>", shop(5).replace("<ul", "</html><ul")
    yield "script-only page", "<html><head><script>var x = 1;</script></head></html>"
    yield "frameset", "<html><frameset><frame src='a'><frame src='b'></frameset></html>"
    yield "CDATA and PIs", "<html><body><![CDATA[x]]><?php echo 1 ?><p>y</p></body></html>"
    yield "entity flood", "<html><body><p>" + "&amp;&lt;&#x1F600;&bogus;" * 100_000 + "</p>"
    yield (
        "external entity",
        (
            '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>'
            "<html><body><p>&e;</p></body></html>"
        ),
    )
    ld = '<script type="application/ld+json">{}</script>'
    items = [
        {"@type": "Product", "name": f"Product {i}", "offers": {"price": i}} for i in range(20_000)
    ]
    yield (
        "JSON-LD: 20,000 listed items",
        shop(40).replace(
            "<body>",
            "<body>" + ld.format(json.dumps({"@type": "ItemList", "itemListElement": items})),
        ),
    )
    yield (
        "JSON-LD: nested 100,000 deep",
        shop(40).replace("<body>", "<body>" + ld.format("[" * 100_000 + "]" * 100_000)),
    )
    yield (
        "JSON-LD: 2,000 broken scripts",
        shop(40).replace("<body>", "<body>" + ld.format('{"@type": "Product", "name": ') * 2000),
    )
    yield (
        "billion laughs",
        (
            '<!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
            '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>'
            "<html><body><p>&c;&c;&c;</p></body></html>"
        ),
    )


# ------------------------------------------------------------------------ cases
def extract_cases(rng: random.Random) -> Iterator[Case]:
    for name, html in size_pages():
        yield "extract-size", name, lambda h=html: extract(h)
    for name, data, opts in encoding_pages():
        yield "extract-encoding", name, lambda d=data, o=opts: extract(d, **o)
    for name, data in content_pages(rng):
        yield "extract-content", name, lambda d=data: extract(d)
    page = shop(12)
    for name, src in (
        ("None", None),
        ("an int", 123),
        ("a list", [page]),
        ("a dict", {"html": page}),
        ("an object", object()),
        ("bytearray", bytearray(page.encode())),
        ("memoryview", memoryview(page.encode())),
        ("an lxml element", etree.fromstring(page, etree.HTMLParser())),
    ):
        yield "extract-api", f"source: {name}", lambda s=src: extract(s)
    for name, opts in (
        ("unknown option", {"nope": 1}),
        ("max_nodes='x'", {"max_nodes": "x"}),
        ("max_nodes=0", {"max_nodes": 0}),
        ("max_nodes=True", {"max_nodes": True}),
        ("max_bytes=-1", {"max_bytes": -1}),
        ("max_bytes=1.5", {"max_bytes": 1.5}),
        ("max_depth=None", {"max_depth": None}),
        ("max_depth=1", {"max_depth": 1}),
        ("mdr K=-5", {"extractor": "mdr", "K": -5}),
        ("mdr T='x'", {"extractor": "mdr", "T": "x"}),
        ("stem alpha=7", {"extractor": "stem", "alpha": 7}),
        ("gstm max_cells=-1", {"extractor": "gstm", "max_cells": -1}),
        ("unknown extractor", {"extractor": "nope"}),
        ("fields='bogus'", {"fields": "bogus"}),
        ("min_records='x'", {"min_records": "x"}),
    ):
        yield "extract-api", name, lambda o=opts: extract(page, **o)


def wrapper_apply_cases() -> Iterator[Case]:
    w = induce([("http://shop.example/1", shop(12)), ("http://shop.example/2", shop(12, 50))])
    for name, html in size_pages():
        yield "wrapper-apply", name, lambda h=html: w.extract(h)
    for name, data, opts in encoding_pages():
        yield "wrapper-apply", name, lambda d=data, o=opts: w.extract(d, **o)
    for name, opts in (
        ("max_byts=1", {"max_byts": 1}),
        ("max_work=-1", {"max_work": -1}),
        ("max_work='x'", {"max_work": "x"}),
        ("max_seconds=0", {"max_seconds": 0}),
        ("max_nodes=10", {"max_nodes": 10}),
        ("max_work=10", {"max_work": 10}),
    ):
        yield "wrapper-apply", name, lambda o=opts: w.extract(shop(12), **o)
    doc = json.loads(w.to_json())
    big = shop(20_000)
    for xp in (
        "//li/following-sibling::*[1][self::li]",
        "//li//a//text()/..//a",
        "//*[.//text()[normalize-space()='x']]",
        "//li/following::text()[normalize-space()][1]",
        "//li/../li/../li/../li",
        "(//li)[position() >= 2]/following-sibling::li[1]",
    ):
        d = dict(doc, record=dict(doc["record"], xpath=xp))
        yield "wrapper-apply", f"costly {xp}", lambda d=d: Wrapper.from_dict(d).extract(big)


def hostile_documents(doc: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    def with_xpath(xp: str) -> dict[str, Any]:
        return dict(doc, record=dict(doc["record"], xpath=xp))

    nested = "//*[count(//*[count(//*[count(//*[count(//*)>0])>0])>0])>0]"
    for name, xp in (
        ("nested count()", nested),
        ("count(//*)", "count(//*)"),
        ("true()", "true()"),
        ("a string", "'x'"),
        ("absolute path in a predicate", "//li[//a]"),
        ("two nested levels", "//li[.//a[.//b]]"),
        ("ancestor axis", "//li/ancestor::*"),
        ("preceding axis", "//li/preceding::li"),
        ("unbounded sibling scan", "//li/following-sibling::li"),
        ("string-length()", "//li[string-length(.) > 1]"),
        ("id()", "id('x')"),
        ("document()", "document('file:///etc/passwd')"),
        ("variable", "$recs"),
        ("NUL", "//li\x00"),
        ("control char", "//li\x07"),
        ("1000-path union", "//a" + " | //a" * 999),
        ("1001-path union", "//a" + " | //a" * 1000),
        ("65-step path", "/" + "/a" * 65),
        ("9 predicates", "//li" + "[1]" * 9),
        ("2 kB literal", "//li[@title='" + "x" * 2048 + "']"),
        ("40 kB XPath", "//li[@title='x']" * 2600),
        ("deep parentheses", "(" * 500 + "//li" + ")" * 500),
        ("syntax error", "//li[@class='x'"),
        ("empty", " "),
        ("unicode names", "//é[@ü='ß']"),
        ("huge position", "//li[99999999999]"),
        ("exslt function", "//li[re:test(., 'x')]"),
        ("namespace axis", "//li/namespace::*"),
    ):
        yield f"record {name}", with_xpath(xp)
    field = dict(doc["fields"][0])
    for name, xp in (("field count()", "count(.)"), ("field NUL", "a\x00"), ("field //", "//*")):
        yield name, dict(doc, fields=[dict(field, xpath=xp)])
    yield "10,000 fields", dict(doc, fields=[dict(field, name=f"f{i}") for i in range(10_000)])
    yield "duplicate field names", dict(doc, fields=[field, field])
    yield "record size 10**9", dict(doc, record=dict(doc["record"], size=10**9))
    yield "record size -1", dict(doc, record=dict(doc["record"], size=-1))
    yield "record size 1.0", dict(doc, record=dict(doc["record"], size=1.0))
    yield "version true", dict(doc, version=True)
    yield "version 99", dict(doc, version=99)
    yield "format other", dict(doc, format="other")
    yield "fill rate NaN", dict(doc, health=dict(doc["health"], fill_rates={"x": float("nan")}))
    yield "min_fit 2", dict(doc, health=dict(doc["health"], min_fit=2))
    yield "unknown key", dict(doc, extra=1)
    yield "fields a dict", dict(doc, fields={"a": 1})
    yield "id a list", dict(doc, id=["x"])
    lists = []
    for _ in range(40):
        lists = [{"name": "l", "record": doc["record"], "fields": [], "lists": lists}]
        lists[0]["optional"] = True
    yield "lists 40 deep", dict(doc, lists=lists)
    yield "a JSON list", [doc]
    yield "JSON null", None


def wrapper_doc_cases() -> Iterator[Case]:
    w = induce([("http://shop.example/1", shop(12)), ("http://shop.example/2", shop(12, 50))])
    doc = json.loads(w.to_json())
    page = shop(200)

    def load_and_apply(d: Any) -> Any:
        wrapper = Wrapper.from_json(json.dumps(d, allow_nan=True))
        return wrapper.extract(page)

    for name, d in hostile_documents(doc):
        yield "wrapper-docs", name, lambda d=d: load_and_apply(d)
    for name, raw in (
        ("not UTF-8", b"\xff\xfe{}"),
        ("truncated JSON", w.to_json()[:100]),
        ("100k nested arrays", "[" * 100_000 + "]" * 100_000),
        ("1 MB of spaces", " " * MB),
        ("an int", 5),
        ("JSON with NaN", '{"format": NaN}'),
    ):
        yield "wrapper-docs", name, lambda r=raw: Wrapper.from_json(r)


GSTM = {"extractor": "gstm"}


def induce_cases() -> Iterator[Case]:
    lists = [shop(12), shop(12, 50)]
    for name, pages, opts in (
        ("no pages", [], {}),
        ("one page", lists[:1], {}),
        ("pages without records", ["<html><body><p>x</p></body></html>"] * 2, {}),
        ("two different templates", [lists[0], table(20)], {}),
        ("binary pages", [b"\x89PNG\r\n\x1a\n" + b"x" * 100] * 2, {}),
        ("a page that is None", [lists[0], None], {}),
        ("unknown option", lists, {"zzz": 1}),
        ("unknown inducer", lists, {"extractor": "nope"}),
        ("gstm on lists", lists, {"extractor": "gstm"}),
        ("dcade on 2 pages", lists, {"extractor": "dcade"}),
        ("regions of the wrong length", lists, {"regions": [[]]}),
        ("2 x 20,000-row tables", [table(20_000), table(20_000, 20_000)], {}),
        ("5 x 5,000 nested blocks, gstm", [blocks(5000, k) for k in range(5)], GSTM),
        ("5 x 1,000 nested blocks, gstm", [blocks(1000, k) for k in range(5)], GSTM),
    ):
        yield "induce", name, lambda p=pages, o=opts: induce(p, **o)


# ------------------------------------------------------------------------ running
def classify(value: Any = None, exc: BaseException | None = None) -> str:
    if exc is None:
        return "sane" if value is None or isinstance(value, (PageResult, Wrapper)) else "crash"
    if isinstance(exc, RecordsError):
        return "clear"
    if isinstance(exc, TypeError) and "a page must be" in str(exc):
        return "clear"  # the API's own message for a source of the wrong type
    return "crash"


def peak_mb() -> float:
    """Peak resident memory since the last reset (Linux ``VmHWM``), in MB."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def reset_peak() -> None:
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pass


def run(case: Case) -> tuple[str, float, float, str]:
    _family, _name, fn = case
    reset_peak()
    t0 = time.perf_counter()
    value = exc = None
    try:
        value = fn()
    except Exception as e:  # every outcome is recorded
        exc = e
    seconds = time.perf_counter() - t0
    kind = classify(value, exc)
    detail = f"{type(exc).__name__}: {str(exc)[:120]}" if exc is not None else type(value).__name__
    return kind, seconds, peak_mb(), detail


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--seed", type=int, default=18)
    ap.add_argument("--family", default=None, help="run one family only")
    ap.add_argument("--show", type=int, default=0, help="list every case of the families")
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    makers: list[Callable[[], Iterator[Case]]] = [
        lambda: extract_cases(rng),
        wrapper_apply_cases,
        wrapper_doc_cases,
        induce_cases,
    ]
    rows: dict[str, list[tuple[str, str, float, float, str]]] = {}
    for make in makers:
        for case in make():
            family, name, _fn = case
            if args.family and family != args.family:
                continue
            kind, seconds, mb, detail = run(case)
            rows.setdefault(family, []).append((name, kind, seconds, mb, detail))
            if args.show or kind == "crash" or seconds > MAX_SECONDS:
                print(f"  {family:<17}{kind:<6}{seconds:>7.2f}s{mb:>7.0f}MB  {name}: {detail}")
    print(
        f"{'family':<18}{'cases':>6}{'clear errors':>13}{'sane results':>13}{'crashes':>8}"
        f"{'max s':>8}{'peak MB':>8}"
    )
    bad = 0
    for family, cases in rows.items():
        kinds = [c[1] for c in cases]
        crashes = kinds.count("crash")
        slow = sum(1 for c in cases if c[2] > MAX_SECONDS)
        bad += crashes + slow
        print(
            f"{family:<18}{len(cases):>6}{kinds.count('clear'):>13}{kinds.count('sane'):>13}"
            f"{crashes:>8}{max(c[2] for c in cases):>8.2f}{max(c[3] for c in cases):>8.0f}"
        )
    total = [c for cases in rows.values() for c in cases]
    print(
        f"{'all':<18}{len(total):>6}{sum(c[1] == 'clear' for c in total):>13}"
        f"{sum(c[1] == 'sane' for c in total):>13}{sum(c[1] == 'crash' for c in total):>8}"
        f"{max(c[2] for c in total):>8.2f}{max(c[3] for c in total):>8.0f}"
    )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

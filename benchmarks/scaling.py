#!/usr/bin/env python
"""STEM scaling benchmark: is the cost per node flat as pages grow? (digest §4, issue "Must show").

Two families of pages:

* ``template``: one record template repeated 10, 100, 1,000 and 10,000 times in a list;
* ``padded``: a real page (the first TBDW page of ``../shared/datasets/lists/yamada.zip`` when
  present, else a built-in result page) padded with pseudo-random, non-repeating noise markup to
  about 1x, 10x, 30x and 100x its size.

For every page: nodes, lxml's parse time (parsel's ``create_root_node``, as Scrapy parses a
response; best of 3, same run), the page model build, and STEM itself (``analyze`` + region
building without field alignment, best of 3), reported per node and as a multiple of the lxml
parse. The fitted exponent is the slope of log(time) against log(nodes) (1.0 = linear).

``--induction`` measures :func:`scrapy_records.induce` instead (issue 18 item 6), on two
families of two to five pages of one template:

* ``table``: two pages of one table of 1,250, 5,000 and 20,000 rows, ``induce(pages)``
  (mining included) and ``induce(pages, regions=...)`` (the regions already mined, as a
  crawl passes them);
* ``gstm``: five pages of 100, 1,000 and 5,000 distinct nested blocks, ``induce(pages,
  extractor="gstm")``.

    python benchmarks/scaling.py [--data PATH] [--profile paper|recommended] [--induction]
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
import zipfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import lxml.html  # noqa: E402
from parsel.selector import create_root_node  # noqa: E402
from timing import best_time  # noqa: E402

from scrapy_records.extractors.stem import STEMExtractor, analyze  # noqa: E402
from scrapy_records.page import Page, decode_html  # noqa: E402

RECORD = (
    "<li class='result'><h3><a href='/item/{i}'>Result number {i}</a></h3>"
    "<cite>www.site{i}.example</cite><p>Snippet of result {i} with <b>bold</b> words</p>"
    "<span class='date'>2024-01-{d:02d}</span></li>"
)
FALLBACK_PAGE = (
    "<html><head><title>results</title></head><body><div id='nav'><a href='/'>Home</a> "
    "<a href='/about'>About</a></div><ol>"
    + "".join(RECORD.format(i=i, d=i % 28 + 1) for i in range(10))
    + "</ol><div id='footer'><p>Copyright</p></div></body></html>"
)
NOISE_TAGS = [
    "div",
    "span",
    "p",
    "section",
    "article",
    "em",
    "strong",
    "ul",
    "form",
    "label",
    "small",
    "aside",
    "nav",
    "header",
    "footer",
    "main",
    "figure",
    "figcaption",
    "blockquote",
    "pre",
    "code",
    "kbd",
    "var",
    "abbr",
    "cite",
    "dfn",
    "q",
    "mark",
    "time",
    "data",
    "output",
    "details",
    "summary",
    "fieldset",
    "legend",
    "address",
    "h4",
    "h5",
    "h6",
    "del",
    "ins",
    "sub",
    "sup",
]


def template_page(k: int) -> str:
    recs = "".join(RECORD.format(i=i, d=i % 28 + 1) for i in range(k))
    return (
        f"<html><head><title>t</title></head><body><div id='header'><h1>Results</h1></div>"
        f"<ol>{recs}</ol><div id='footer'><p>end</p></div></body></html>"
    )


def noise(n_elements: int, seed: int) -> str:
    """Random nesting of random tags: no long exact repeats, so it stresses the suffix structure
    and the filters without adding records."""
    rng = random.Random(seed)
    out: list[str] = []
    stack: list[str] = []
    for _ in range(n_elements):
        if stack and (len(stack) > 10 or rng.random() < 0.5):
            out.append(f"</{stack.pop()}>")
        t = rng.choice(NOISE_TAGS)
        out.append(f"<{t}>w{rng.randint(0, 999)}")
        stack.append(t)
    out.extend(f"</{t}>" for t in reversed(stack))
    return "".join(out)


def real_page(data: Path | None) -> str:
    root = data or (HERE.parent.parent / "shared" / "datasets")
    zpath = Path(root) / "lists" / "yamada.zip"
    if zpath.is_file():
        with zipfile.ZipFile(zpath) as z:
            names = sorted(n for n in z.namelist() if n.endswith((".html", ".htm")))
            if names:
                return decode_html(z.read(names[0]))[0]
    return FALLBACK_PAGE


def measure(html: str, profile: str) -> dict[str, float]:
    t_lxml = best_time(lambda: create_root_node(html, lxml.html.HTMLParser))
    t0 = time.perf_counter()
    page = Page(html, max_nodes=None)
    t_page = time.perf_counter() - t0
    repeat = 3 if page.n < 30_000 else 1
    t_stem = best_time(lambda: analyze(page, profile=profile), repeat)
    regions: list = []

    def run() -> None:
        regions[:] = STEMExtractor().extract(page, profile=profile, align=False)

    t_full = best_time(run, repeat)
    best = max(regions, key=lambda r: len(r.records), default=None)
    return {
        "nodes": page.n,
        "lxml": t_lxml,
        "page": t_page,
        "stem": t_stem,
        "full": t_full,
        "records": len(best.records) if best else 0,
    }


def table_page(n: int, start: int) -> str:
    rows = "".join(
        f"<tr><td><a href='/p/{i}'>Item {i}</a></td><td>{i * 3 % 97}.{i % 100:02d} EUR</td>"
        f"<td>cat {i % 7}</td></tr>"
        for i in range(start, start + n)
    )
    return f"<html><body><h1>Table</h1><table id='t'>{rows}</table><p>Footer</p></body></html>"


_BLOCK_TAGS = ["div", "span", "p", "section", "article", "ul", "li", "em", "b", "i"]


def blocks_page(n: int, k: int) -> str:
    """``n`` nested chains whose tags spell their number: no two blocks share a shape."""

    def block(i: int) -> str:
        tags = [_BLOCK_TAGS[int(d)] for d in str(i)]
        inner = "".join(f"<{t}>" for t in tags) + f"text {i}"
        return inner + "".join(f"</{t}>" for t in reversed(tags))

    body = "".join(f"<div class='blk'>{block(i * 7 + k)}</div>" for i in range(n))
    return f"<html><body>{body}</body></html>"


def induction() -> None:
    """The ``--induction`` table (module docstring)."""
    from scrapy_records import extract, induce

    def timed(fn: Any) -> tuple[float, float]:
        w0, c0 = time.perf_counter(), time.process_time()
        fn()
        return time.perf_counter() - w0, time.process_time() - c0

    print("# induce() scaling: wall / CPU seconds, one run (the pages are built first)")
    print(f"{'family':<8}{'case':<22}{'nodes/page':>11}{'induce s':>14}{'given regions s':>17}")
    points: dict[str, list[tuple[int, float]]] = {}
    for n in (1_250, 5_000, 20_000):
        pages = [Page(table_page(n, 0), "http://t.example/1", max_nodes=None)]
        pages.append(Page(table_page(n, n), "http://t.example/2", max_nodes=None))
        full = timed(lambda pages=pages: induce(pages))
        regions = [extract(p).regions for p in pages]
        given = timed(lambda pages=pages, regions=regions: induce(pages, regions=regions))
        points.setdefault("table", []).append((n, full[1]))
        case = f"2 pages x {n} rows"
        print(
            f"{'table':<8}{case:<22}{pages[0].n:>11}{full[0]:>8.2f}/{full[1]:<5.2f}"
            f"{given[0]:>11.2f}/{given[1]:<5.2f}"
        )
    for n in (100, 1_000, 5_000):
        pages = [Page(blocks_page(n, k), f"http://g.example/{k}", max_nodes=None) for k in range(5)]
        full = timed(lambda pages=pages: induce(pages, extractor="gstm"))
        points.setdefault("gstm", []).append((n, full[1]))
        case = f"5 pages x {n} blocks"
        print(f"{'gstm':<8}{case:<22}{pages[0].n:>11}{full[0]:>8.2f}/{full[1]:<5.2f}")
    for fam, pts in points.items():
        print(f"fitted exponent ({fam}, CPU time): {fit_exponent(pts):.2f}")


def fit_exponent(points: list[tuple[int, float]]) -> float:
    xs = [math.log(n) for n, _ in points]
    ys = [math.log(t) for _, t in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else float("nan")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--data", default=None, help="datasets folder (default ../shared/datasets)")
    ap.add_argument("--profile", default="recommended", choices=["recommended", "paper"])
    ap.add_argument("--induction", action="store_true", help="induce() scaling instead")
    args = ap.parse_args(argv)
    if args.induction:
        induction()
        return 0

    cases: list[tuple[str, str, str]] = []
    for k in (10, 100, 1_000, 10_000):
        cases.append(("template", f"{k} records", template_page(k)))
    base = real_page(Path(args.data) if args.data else None)
    base_nodes = Page(base, max_nodes=None).n
    for mult in (1, 10, 30, 100):
        pad = noise(base_nodes * (mult - 1), seed=mult) if mult > 1 else ""
        html = (
            base.replace("</body>", f"<div class='pad'>{pad}</div></body>", 1)
            if "</body>" in base
            else base + pad
        )
        cases.append(("padded", f"real x{mult}", html))

    print(
        f"# STEM scaling, profile={args.profile}. "
        "stem = analyze() (WPS, suffix array, filters, record"
    )
    print(
        "# cutting); +regions = extract(align=False), "
        "which adds the core's XPaths and texts per record."
    )
    print(
        f"{'family':<10}{'case':<14}{'nodes':>8}{'lxml ms':>9}{'page ms':>9}{'stem ms':>9}"
        f"{'us/node':>8}{'x lxml':>8}{'+regions ms':>12}{'x lxml':>8}{'records':>8}"
    )
    by_family: dict[str, list[tuple[int, float]]] = {}
    full_family: dict[str, list[tuple[int, float]]] = {}
    for fam, label, html in cases:
        m = measure(html, args.profile)
        n = int(m["nodes"])
        by_family.setdefault(fam, []).append((n, m["stem"]))
        full_family.setdefault(fam, []).append((n, m["full"]))
        print(
            f"{fam:<10}{label:<14}{n:>8}"
            f"{m['lxml'] * 1e3:>9.2f}{m['page'] * 1e3:>9.2f}{m['stem'] * 1e3:>9.2f}"
            f"{m['stem'] / n * 1e6:>8.2f}{m['stem'] / m['lxml']:>8.1f}{m['full'] * 1e3:>12.2f}"
            f"{m['full'] / m['lxml']:>8.1f}{int(m['records']):>8}"
        )
    for fam in by_family:
        print(
            f"fitted exponent ({fam}): stem {fit_exponent(by_family[fam]):.2f}, "
            f"stem+regions {fit_exponent(full_family[fam]):.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

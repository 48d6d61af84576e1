#!/usr/bin/env python
"""Wrapper benchmarks (issue 5 "Must show").

    python benchmarks/wrappers.py [--data PATH] [--inducer auto] [--sections exalg,lists]
                                  [--limit N]

* ``exalg`` -- ``templates/exalg.zip``: per site, a wrapper induced from the first 2 pages
  (numeric order) is applied to the other pages. Reported per site: how many of the manual
  schema's data attributes (those realised by ExAlg attribute ids) and sets the wrapper
  covers, and the value accuracy on the attributes flagged ``(c)``, whose per-page values in
  ``values/v<i-1>.xml`` serve as gold. An attribute is *covered* by the wrapper column
  (record field, nested-list field or page field) that matches most of its gold values;
  a gold value matches an output value when its tokens are a subset of the value's tokens
  and the value has at most twice as many tokens + 1; *covered* means >= 50% of the
  attribute's gold values on the test pages are matched; *accuracy* is that share. A set
  is covered when the wrapper has a record selector and at least half of the set's
  attributes are covered by record-level columns. ``[FIXED=...]``-only attributes are
  template constants and not counted.
* ``lists`` -- ``lists/*.zip``: ``Wrapper.from_region`` on the main region of each page
  (``scrapy_records.extract``) re-extracts the same records from the same page (round
  trip: identical record XPaths), and ``Wrapper.from_json(w.to_json()).to_json()`` is
  unchanged.
* ``estuka`` -- ``modern/estuka-dev.zip``: per site, a wrapper induced from query pages
  1-2 applied to page 3 (how many fit, and the speed below).
* speed -- per page, best of 5: applying the wrapper to the raw bytes (decode, parse,
  selectors, health), applying it to an already parsed tree (what a Scrapy response whose
  tree exists costs), and computing the template signature of an already built
  :class:`Page`, each divided by ``lxml.html.document_fromstring`` of the same bytes (of
  the decoded text where libxml2 alone cannot read them, :func:`lxml_parse_time`);
  medians are reported, and per section the mean (targets: application <= 2x, grouping
  <= 1x).

Datasets are read from ``../shared/datasets`` (or ``--data``); absent folders are skipped.
"""

from __future__ import annotations

import argparse
import html as html_mod
import re
import statistics
import sys
import time
import traceback
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import lxml.html  # noqa: E402
from datasets import dataset_root  # noqa: E402
from lxml import etree  # noqa: E402
from timing import best_time  # noqa: E402

import scrapy_records  # noqa: E402
import scrapy_records.errors  # noqa: E402
from scrapy_records.page import (  # noqa: E402
    Page,
    decode_html,
    parse_html,
)
from scrapy_records.wrappers.templates import page_signature  # noqa: E402
from scrapy_records.wrappers.wrapper import Wrapper  # noqa: E402

#: application to an already parsed tree (a Scrapy response whose tree exists), per page
TREE_RATIOS: list[float] = []

_TOK = re.compile(r"\w+", re.U)


def lxml_parse_time(body: bytes, repeat: int = 5) -> float:
    """lxml's parse of the raw bytes (libxml2's own charset detection), best of ``repeat``.

    Where libxml2 alone cannot read the bytes (a declared charset iconv does not know,
    e.g. ``ks_c_5601-1987``: a tree of a few elements), the parse of the decoded text
    instead, as ``run.py`` times every page: a parse that stops at the first byte is no
    baseline."""
    t = best_time(lambda: lxml.html.document_fromstring(body), repeat)
    n_bytes = sum(1 for _ in lxml.html.document_fromstring(body).iter())
    text = decode_html(body)[0]
    n_text = sum(1 for _ in lxml.html.document_fromstring(text).iter())
    if n_bytes < 0.5 * n_text:
        t = best_time(lambda: lxml.html.document_fromstring(text), repeat)
    return t


def toks(s: str) -> list[str]:
    return [t.lower() for t in _TOK.findall(s or "")]


# ------------------------------------------------------------------ ExAlg schema
_ATTR_RX = re.compile(r"^\s*(\d+(?:\.[a-z])?)\.?\s+([A-Za-z][^\t(\[]*)")


def parse_manschema(text: str) -> tuple[list[dict], int]:
    """Attributes ``{num, name, ids, flag, sets, fixed}`` and the number of sets."""
    attrs: list[dict] = []
    stack: list[int] = []
    nsets = 0
    last = None
    for line in text.splitlines():
        if line.strip().startswith("---"):
            break  # the summary table
        for ch in line:
            if ch == "{":
                stack.append(nsets)
                nsets += 1
            elif ch == "}" and stack:
                stack.pop()
        m = _ATTR_RX.match(line)
        flag = re.findall(r"\(([crst])\)", line)
        if m:
            rest = line[m.end() :]
            rest_nofixed = re.sub(r"\[FIXED[^\]]*\]", " ", rest)
            ids = [int(x) for x in re.findall(r"\((\d+)\)(?!\s*=)", rest_nofixed)]
            last = {
                "num": m.group(1),
                "name": m.group(2).strip().rstrip(","),
                "ids": ids,
                "flag": flag[-1] if flag else None,
                "sets": tuple(stack),
                "fixed": "[FIXED" in rest and not ids,
            }
            attrs.append(last)
        elif last is not None and line.strip().startswith("["):
            last["ids"] += [int(x) for x in re.findall(r"\((\d+)\)\s*=", line)]
            if flag and not last["flag"]:
                last["flag"] = flag[-1]
        elif (
            last is not None
            and flag
            and not last["flag"]
            and not line.strip().startswith(("{", "}", "<", ">"))
        ):
            last["flag"] = flag[-1]
    return attrs, nsets


def parse_values(data: bytes) -> dict[int, list[str]]:
    """ExAlg id -> the page's values (tags inside CDATA removed, whitespace normalised)."""
    out: dict[int, list[str]] = {}
    try:
        root = etree.fromstring(data, etree.XMLParser(recover=True, huge_tree=True))
    except etree.XMLSyntaxError:
        return out
    if root is None:
        return out
    for v in root.iter("value"):
        try:
            n = int(v.get("instanceof"))
        except (TypeError, ValueError):
            continue
        txt = v.text or ""
        txt = " ".join(html_mod.unescape(re.sub(r"<[^>]*>", " ", txt)).split())
        if txt and toks(txt):
            out.setdefault(n, []).append(txt)
    return out


def output_columns(result, wrapper: Wrapper) -> dict[tuple[str, str], list[str]]:
    """(level, column) -> values on the page; level ``record`` or ``page``."""
    cols: dict[tuple[str, str], list[str]] = {}

    def add(level, name, v):
        if isinstance(v, list):
            for x in v:
                add(level, name, x)
        elif isinstance(v, dict):
            for k, x in v.items():
                add(level, f"{name}.{k}", x)
        elif v is not None:
            cols.setdefault((level, name), []).append(v)

    for r in result.records if result.regions else []:
        for k, v in r.fields.items():
            add("record", k, v)
    if result.regions:
        for k, v in result.regions[0].meta.get("page", {}).items():
            add("page", k, v)
    return cols


def _gold_number(gold: str) -> float | None:
    from scrapy_records.fields import values as V

    pr = V.parse_price(gold)
    if pr is not None:
        return pr[0]
    n = V.parse_number(gold)
    return float(n) if n is not None else None


def _matches(gold: str, vals_toks: list[set[str]], vals_len: list[int], nums: set[float]) -> bool:
    """Token containment for strings; numeric equality for typed (number/price) values."""
    g = set(toks(gold))
    if not g:
        return False
    if nums:
        gn = _gold_number(gold)
        if gn is not None and any(abs(gn - x) < 1e-6 for x in nums):
            return True
    ng = len(toks(gold))
    return any(g <= vt and vl <= 2 * ng + 1 for vt, vl in zip(vals_toks, vals_len))


def bench_exalg(root: Path, inducer: str, limit: int | None) -> list[float]:
    zpath = root / "templates" / "exalg.zip"
    if not zpath.exists():
        print("exalg: templates/exalg.zip absent, skipped")
        return []
    z = zipfile.ZipFile(zpath)
    names = z.namelist()
    sites = sorted({n.split("/")[1] for n in names if n.count("/") >= 2 and n.split("/")[1]})
    print(
        "\n== templates/exalg.zip: wrapper induced from 2 pages "
        f"(inducer={inducer}), applied to the rest"
    )
    print(
        f"{'site':<22}{'test':>5}{'attrs':>7}{'cov':>5}{'sets':>6}{'cov':>4}"
        f"{'acc(c)':>8}{'fields':>7}{'recs/pg':>8}{'fit':>6}{'ms':>7}{'x lxml':>8}"
    )
    ratios: list[float] = []
    tot = {"attrs": 0, "cov": 0, "sets": 0, "scov": 0, "acc": [], "pages": 0}
    for site in sites:
        pfx = f"exalg/{site}/"
        src = sorted(
            (n for n in names if n.startswith(pfx + "sources/") and n.endswith(".html")),
            key=lambda n: int(re.sub(r"\D", "", n.rsplit("/", 1)[1]) or 0),
        )
        if len(src) < 3:
            continue
        if limit:
            src = src[: limit + 2]
        attrs, nsets = parse_manschema(z.read(pfx + "manschema.txt").decode("latin-1"))
        data_attrs = [a for a in attrs if a["ids"]]
        bodies = [z.read(n) for n in src]
        urls = [f"http://{site}.example/{n.rsplit('/', 1)[1]}" for n in src]
        try:
            wrapper = scrapy_records.induce(list(zip(urls[:2], bodies[:2])), extractor=inducer)
        except Exception as exc:
            print(f"{site:<22} induction failed: {type(exc).__name__}: {exc}")
            continue
        assert Wrapper.from_json(wrapper.to_json()).to_json() == wrapper.to_json()
        per_page_cols = []
        recs, fits, ms = [], [], []
        gold_pages = []
        for n, body, url in zip(src[2:], bodies[2:], urls[2:]):
            i = int(re.sub(r"\D", "", n.rsplit("/", 1)[1]))
            vname = f"{pfx}values/v{i - 1}.xml"
            gold_pages.append(parse_values(z.read(vname)) if vname in names else {})
            res = wrapper.extract(body, url=url)
            t_apply = best_time(lambda w=wrapper, b=body, u=url: w.extract(b, url=u), 5)
            base = lxml_parse_time(body)
            ratios.append(t_apply / base)
            tree = parse_html(body, url, max_bytes=None, parser_cls=etree.HTMLParser)[0]
            compiled = wrapper._compile()
            TREE_RATIOS.append(best_time(lambda c=compiled, t=tree, u=url: c.apply(t, u), 5) / base)
            ms.append(t_apply * 1000)
            recs.append(len(res.records))
            fits.append(res.regions[0].meta["health"]["fits"])
            cols = output_columns(res, wrapper)
            per_page_cols.append(
                {
                    k: (
                        [set(toks(str(v))) for v in vs],
                        [len(toks(str(v))) for v in vs],
                        {
                            float(v)
                            for v in vs
                            if isinstance(v, (int, float)) and not isinstance(v, bool)
                        },
                    )
                    for k, vs in cols.items()
                }
            )
        wrapper.stale = False
        col_names = sorted({k for d in per_page_cols for k in d})
        covered = 0
        covered_record = set()
        accs = []
        for a in data_attrs:
            total = 0
            hits = {c: 0 for c in col_names}
            for gp, cols in zip(gold_pages, per_page_cols):
                gold = [v for i in a["ids"] for v in gp.get(i, [])]
                total += len(gold)
                for c in col_names:
                    if c in cols:
                        vt, vl, vn = cols[c]
                        hits[c] += sum(1 for g in gold if _matches(g, vt, vl, vn))
            if not total:
                continue
            best_c = max(col_names, key=lambda c: (hits[c], c)) if col_names else None
            share = hits[best_c] / total if best_c else 0.0
            if share >= 0.5:
                covered += 1
                if best_c[0] == "record":
                    covered_record.add(a["num"])
            if a["flag"] == "c":
                accs.append(share)
        set_ids = sorted({s for a in attrs for s in a["sets"]})
        scov = 0
        for s in set_ids:
            members = [a for a in data_attrs if s in a["sets"]]
            if (
                wrapper.record is not None
                and members
                and sum(1 for a in members if a["num"] in covered_record) * 2 >= len(members)
            ):
                scov += 1
        measurable = sum(
            1 for a in data_attrs if any(gp.get(i) for gp in gold_pages for i in a["ids"])
        )
        acc = statistics.mean(accs) if accs else float("nan")
        nfields = len(wrapper.fields) + len(wrapper.page_fields)
        print(
            f"{site:<22}{len(src) - 2:>5}{measurable:>7}{covered:>5}{len(set_ids):>6}{scov:>4}"
            f"{acc:>8.2f}{nfields:>7}{statistics.median(recs) if recs else 0:>8.1f}"
            f"{sum(fits) / len(fits) if fits else 0:>6.2f}"
            f"{statistics.median(ms) if ms else 0:>7.2f}"
            f"{statistics.median(ratios[-len(ms) :]) if ms else 0:>8.2f}"
        )
        tot["attrs"] += measurable
        tot["cov"] += covered
        tot["sets"] += len(set_ids)
        tot["scov"] += scov
        tot["acc"] += accs
        tot["pages"] += len(src) - 2
    if tot["pages"]:
        print(
            f"{'TOTAL':<22}{tot['pages']:>5}{tot['attrs']:>7}{tot['cov']:>5}{tot['sets']:>6}{tot['scov']:>4}"
            f"{statistics.mean(tot['acc']) if tot['acc'] else float('nan'):>8.2f}"
        )
    return ratios


# -------------------------------------------------------------------- lists
def bench_lists(root: Path, limit: int | None) -> tuple[list[float], list[float]]:
    print("\n== lists/: Wrapper.from_region on the main region, applied to the same page")
    print(
        f"{'dataset':<10}{'pages':>6}{'main':>6}{'exact':>7}{'same text':>10}{'json rt':>8}"
        f"{'errors':>7}{'apply x':>9}{'group x':>9}"
    )
    apply_r: list[float] = []
    group_r: list[float] = []
    for name in ("yamada", "zhao1", "zhao3"):
        zpath = root / "lists" / f"{name}.zip"
        if not zpath.exists():
            continue
        z = zipfile.ZipFile(zpath)
        members = set(z.namelist())
        rels = [
            r.strip()
            for r in z.read(f"{name}.txt").decode("utf-8", "replace").splitlines()
            if r.strip()
        ]
        rels = [r for r in rels if r in members]
        if limit:
            rels = rels[:limit]
        n_main = exact = json_ok = errors = 0
        same_text: list[float] = []
        ar: list[float] = []
        gr: list[float] = []
        for rel in rels:
            body = z.read(rel)
            url = "file:///" + rel
            try:
                page = Page(body, url)
                result = scrapy_records.extract(page)
                if not result.regions:
                    continue
                main = result.regions[0]
                n_main += 1
                w = Wrapper.from_region(main, page)
                text = w.to_json()
                json_ok += Wrapper.from_json(text).to_json() == text
                res = w.extract(body, url=url)
                got = [r.xpaths for r in res.records]
                want = [r.xpaths for r in main.records]
                exact += got == want
                gt = {r.text for r in res.records}
                same_text.append(
                    sum(1 for r in main.records if r.text in gt) / max(1, len(main.records))
                )
                base = lxml_parse_time(body)
                ar.append(best_time(lambda w=w, b=body, u=url: w.extract(b, url=u), 5) / base)
                tree = parse_html(body, url, max_bytes=None, parser_cls=etree.HTMLParser)[0]
                compiled = w._compile()
                TREE_RATIOS.append(
                    best_time(lambda c=compiled, t=tree, u=url: c.apply(t, u), 5) / base
                )
                gr.append(best_time(lambda p=page: page_signature(p), 5) / base)
            except Exception as exc:
                errors += 1
                _report(rel, exc)
        apply_r += ar
        group_r += gr
        print(
            f"{name:<10}{len(rels):>6}{n_main:>6}{exact:>7}"
            f"{statistics.mean(same_text) if same_text else 0:>10.3f}{json_ok:>8}{errors:>7}"
            f"{statistics.median(ar) if ar else 0:>9.2f}{statistics.median(gr) if gr else 0:>9.2f}"
        )
    return apply_r, group_r


def _report(where: str, exc: Exception) -> None:
    """One line for a wrapper the library refuses to build (an expected outcome, counted in
    ``errors``); the traceback for anything else."""
    if isinstance(exc, scrapy_records.errors.WrapperError):
        print(f"  {where}: {type(exc).__name__}: {exc}", file=sys.stderr)
    else:
        traceback.print_exc(limit=3, file=sys.stderr)


# ------------------------------------------------------------------- estuka
def bench_estuka(root: Path, limit: int | None) -> list[float]:
    """Per site of ``modern/estuka-dev.zip``: a wrapper induced from query pages 1-2
    (``scrapy_records.induce``), applied to page 3; its cost against lxml's parse."""
    from datasets import load_estuka

    by_site: dict[str, list] = {}
    for s in load_estuka(root):
        by_site.setdefault(s.meta["site"], []).append(s)
    if not by_site:
        print("estuka: modern/estuka-dev.zip absent, skipped")
        return []
    print("\n== modern/estuka-dev.zip: wrapper induced from pages 1-2, applied to page 3")
    sites = sorted(by_site)[:limit] if limit else sorted(by_site)
    ratios: list[float] = []
    fits = errors = 0
    mine_s = induce_s = 0.0
    for site in sites:
        samples = sorted(by_site[site], key=lambda s: s.meta["query"])
        if len(samples) < 3:
            continue
        test = samples[2]
        # induction as a crawl runs it: from the parsed sample pages and their mined
        # regions, against mining those pages (the same run: the machine's load cancels)
        pages = [Page(s.body, url=s.url) for s in samples[:2]]
        t0 = time.perf_counter()
        regs = [scrapy_records.extract(p).regions for p in pages]
        t1 = time.perf_counter()
        try:
            scrapy_records.induce(pages, regions=regs)
        except Exception:
            pass  # (counted as an error below)
        mine_s += t1 - t0
        induce_s += time.perf_counter() - t1
        try:
            w = scrapy_records.induce([(s.url, s.body) for s in samples[:2]])
            res = w.extract(test.body, url=test.url)
        except Exception as exc:
            errors += 1
            _report(site, exc)
            continue
        fits += bool(res.regions and res.regions[0].meta["health"]["fits"])
        base = lxml_parse_time(test.body)
        ratios.append(best_time(lambda w=w, s=test: w.extract(s.body, url=s.url), 5) / base)
        tree = parse_html(test.body, test.url, max_bytes=None, parser_cls=etree.HTMLParser)[0]
        compiled = w._compile()
        TREE_RATIOS.append(
            best_time(lambda c=compiled, t=tree, s=test: c.apply(t, s.url), 5) / base
        )
    print(f"{'sites':>6}{'fits':>6}{'errors':>7}{'apply x':>9}{'mean x':>8}")
    print(
        f"{len(sites):>6}{fits:>6}{errors:>7}"
        f"{statistics.median(ratios) if ratios else 0:>9.2f}"
        f"{statistics.mean(ratios) if ratios else 0:>8.2f}"
    )
    if mine_s:
        print(
            f"induction cost vs mining the samples: mine 2 pages/site {mine_s:.2f}s, induce "
            f"from them {induce_s:.2f}s: {induce_s / mine_s:.2f}x (target <= 1x)"
        )
    return ratios


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--data", default=None)
    ap.add_argument("--inducer", default="auto", help="extractor/inducer for induce() on exalg")
    ap.add_argument("--sections", default="exalg,lists,estuka")
    ap.add_argument("--limit", type=int, default=None, help="pages per site / dataset (quick runs)")
    args = ap.parse_args(argv)
    root = dataset_root(args.data)
    if root is None:
        print("datasets not found (../shared/datasets or --data): skipped")
        return 0
    sections = set(args.sections.split(","))
    apply_all: list[float] = []
    group_all: list[float] = []
    if "exalg" in sections:
        apply_all += bench_exalg(root, args.inducer, args.limit)
    per_section: dict[str, list[float]] = {}
    if "lists" in sections:
        a, g = bench_lists(root, args.limit)
        apply_all += a
        group_all += g
        per_section["lists"] = a
    if "estuka" in sections:
        per_section["estuka"] = bench_estuka(root, args.limit)
        apply_all += per_section["estuka"]
    print("\n== speed (median, per page, vs lxml.html.document_fromstring of the same bytes)")
    if apply_all:
        print(
            f"wrapper application from raw bytes (decode + parse + selectors + health): "
            f"{statistics.median(apply_all):.2f}x lxml parse over {len(apply_all)} pages"
            " (target <= 2x)"
        )
    for name, rs in per_section.items():
        if rs:
            print(
                f"  {name:<8} median {statistics.median(rs):.2f}x  mean {statistics.mean(rs):.2f}x"
                f"  over {len(rs)} pages"
            )
    if TREE_RATIOS:
        print(
            f"wrapper application to a parsed tree (selectors + values + health):      "
            f"{statistics.median(TREE_RATIOS):.2f}x lxml parse over {len(TREE_RATIOS)} pages"
        )
    if group_all:
        print(
            f"template signature:  {statistics.median(group_all):.2f}x lxml parse"
            f" over {len(group_all)} pages (target <= 1x)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python
"""Field alignment on modern list pages: the table a user gets, scored cell by cell.

    python benchmarks/fields.py [--data DIR] [--extractor auto] [--sites N] [--show]

On ``modern/estuka-dev.zip`` (the datasets README's field convention): the first-ranked
region's records are matched to the gold rows with the record rule; a cell is correct when
the gold cell's and the predicted value's token bags overlap by >= 80% both ways (a typed
field is scored on its ``<name>_raw`` text; a list on its items joined by spaces); each gold
column maps to the predicted field with the most correct cells (greedy, one field per
column). It prints:

* cell precision / recall / F1 (summed over pages);
* fields emitted per gold column (fields with a value in some record, ``_raw`` twins not
  counted; median over pages);
* schema stability: the share of sites whose wrapper induced on pages 1-2 gives page 3 the
  same set of field names as mining page 3 (Jaccard >= 0.9), and the median Jaccard; under
  the table, the same count over the sites whose three pages a crawl's template grouping
  (:class:`~scrapy_records.wrappers.templates.TemplateGrouper`) puts in one template: a
  page 3 of another template never meets the wrapper of pages 1-2 in a crawl;
* record F1 of the same pages (README rule).

``--show`` prints, per page, each gold column's mapped field name and its correct cells, and
the field names of mining and of the wrapper on page 3: the names a person would read.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from datasets import dataset_root, load_estuka  # noqa: E402
from scoring import _overlap, match, prf, tokens  # noqa: E402

import scrapy_records  # noqa: E402

CELL_OVERLAP = 0.8
STABLE_JACCARD = 0.9


def value_text(fields: dict, name: str) -> str:
    """The text a field is scored on: its ``_raw`` twin when it has one, lists joined."""
    v = fields.get(f"{name}_raw", fields.get(name))
    if isinstance(v, list):
        return " ".join(str(x) for x in v if x is not None)
    return "" if v is None else str(v)


def field_names(records: list[dict]) -> list[str]:
    """Fields with a value in some record, ``_raw`` twins not counted, in first-seen order."""
    out: dict[str, None] = {}
    for fields in records:
        for k, v in fields.items():
            if k.endswith("_raw") and k[:-4] in fields:
                continue
            if v not in (None, "", []):
                out.setdefault(k, None)
    return list(out)


def cell_ok(gold: str, pred: str) -> bool:
    g, p = tokens(gold), tokens(pred)
    ng, np_ = sum(g.values()), sum(p.values())
    if not ng or not np_:
        return False
    ov = _overlap(g, p)
    return ov / ng >= CELL_OVERLAP and ov / np_ >= CELL_OVERLAP


def score_page(records: list[dict], texts: list[str], rows: list[list[str]]) -> dict:
    """Cell counts of one page (see the module docstring)."""
    gold_texts = [" ".join(c for c in row if c.strip()) for row in rows]
    pairs = match(texts, gold_texts).pairs
    ncols = max((len(r) for r in rows), default=0)
    gold_cols = [c for c in range(ncols) if any(c < len(r) and r[c].strip() for r in rows)]
    names = field_names(records)
    counts: dict[tuple[int, str], int] = defaultdict(int)
    for i, j in pairs:
        row = rows[j]
        for c in gold_cols:
            if c < len(row) and row[c].strip():
                for f in names:
                    if cell_ok(row[c], value_text(records[i], f)):
                        counts[(c, f)] += 1
    mapping: dict[int, str] = {}
    used: set[str] = set()
    for (c, f), _n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0][0], kv[0][1])):
        if c not in mapping and f not in used:
            mapping[c] = f
            used.add(f)
    correct = sum(counts[(c, f)] for c, f in mapping.items())
    predicted = sum(
        1 for i, _j in pairs for f in mapping.values() if value_text(records[i], f).strip()
    )
    gold = sum(1 for r in rows for c in gold_cols if c < len(r) and r[c].strip())
    return {
        "correct": correct,
        "predicted": predicted,
        "gold": gold,
        "gold_columns": len(gold_cols),
        "fields": names,
        "mapping": {str(c): (f, counts[(c, f)]) for c, f in sorted(mapping.items())},
        "records_tp": len(pairs),
        "records_pred": len(texts),
        "records_gold": len(rows),
    }


def _mined(body: bytes, url: str, extractor: str) -> tuple[list[dict], list[str]]:
    res = scrapy_records.extract(body, url=url, extractor=extractor)
    main = res.main
    if main is None:
        return [], []
    return [dict(r.fields) for r in main.records], [r.text for r in main.records]


def _one_template(samples: list) -> bool:
    """Whether a crawl's template grouping puts the pages in one template."""
    from scrapy_records.wrappers.templates import TemplateGrouper

    grouper = TemplateGrouper()
    return len({grouper.assign(s.body, s.url) for s in samples}) == 1


def run_site(job: tuple) -> dict:
    site, samples, extractor = job
    out: dict = {"site": site, "pages": []}
    if True:
        mined = {}
        for s in samples:
            try:
                records, texts = _mined(s.body, s.url, extractor)
            except Exception as exc:
                records, texts = [], []
                out.setdefault("errors", []).append(f"{s.name}: {type(exc).__name__}: {exc}")
            mined[s.name] = records
            page = score_page(records, texts, s.meta["rows"])
            page["name"] = s.name
            out["pages"].append(page)
        if len(samples) >= 3:
            out["other_template"] = not _one_template(samples[:3])
            train, test = samples[:2], samples[2]
            try:
                w = scrapy_records.induce([(s.url, s.body) for s in train], extractor=extractor)
                res = w.extract(test.body, url=test.url)
                wrapped = [dict(r.fields) for r in res.records]
            except Exception as exc:
                wrapped = []
                out["induce_error"] = f"{type(exc).__name__}: {exc}"
            a, b = set(field_names(mined[test.name])), set(field_names(wrapped))
            out["jaccard"] = len(a & b) / len(a | b) if a | b else 1.0
            out["mined_names"], out["wrapper_names"] = sorted(a), sorted(b)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", help="datasets folder (default ../shared/datasets)")
    ap.add_argument("--extractor", default="auto")
    ap.add_argument("--sites", type=int, help="only the first N sites (a quick run)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--show", action="store_true", help="print the field names per page")
    ap.add_argument("--json", help="write the per-site details here")
    args = ap.parse_args(argv)
    root = dataset_root(args.data)
    if root is None or not (root / "modern" / "estuka-dev.zip").exists():
        print(
            "modern/estuka-dev.zip not found (give --data or set SCRAPY_RECORDS_DATASETS); skipping"
        )
        return 0
    by_site: dict[str, list] = defaultdict(list)
    for s in load_estuka(root):
        by_site[s.meta["site"]].append(s)
    jobs = [
        (site, sorted(samples, key=lambda s: s.meta["query"]), args.extractor)
        for site, samples in sorted(by_site.items())
    ][: args.sites]
    with ProcessPoolExecutor(args.workers) as pool:
        sites = list(pool.map(run_site, jobs))
    pages = [p for s in sites for p in s["pages"]]
    c = sum(p["correct"] for p in pages)
    pr = sum(p["predicted"] for p in pages)
    g = sum(p["gold"] for p in pages)
    cp, cr, cf = prf(c, pr, g)
    rp, rr, rf = prf(
        sum(p["records_tp"] for p in pages),
        sum(p["records_pred"] for p in pages),
        sum(p["records_gold"] for p in pages),
    )
    per_col = [len(p["fields"]) / p["gold_columns"] for p in pages if p["gold_columns"]]
    jac = [s["jaccard"] for s in sites if "jaccard" in s]
    stable = sum(1 for j in jac if j >= STABLE_JACCARD)
    if args.show:
        for s in sites:
            print(f"\n== {s['site']}")
            for p in s["pages"]:
                m = ", ".join(f"{c}->{f}({n})" for c, (f, n) in p["mapping"].items())
                print(f"  {p['name'].rsplit('/', 1)[-1]}: fields={p['fields']}\n     mapped: {m}")
            if "jaccard" in s:
                print(
                    f"  page 3 mined:   {s['mined_names']}\n  page 3 wrapper: {s['wrapper_names']}"
                    f"  (Jaccard {s['jaccard']:.2f}) {s.get('induce_error', '')}"
                )
    print(f"# extractor={args.extractor} scrapy_records {scrapy_records.__version__}")
    print(
        f"{'dataset':<16}{'pages':>6}{'cellP':>7}{'cellR':>7}{'cellF1':>8}{'fields/col':>11}"
        f"{'stable':>10}{'medJacc':>9}{'recF1':>7}"
    )
    print(
        f"{'modern/estuka':<16}{len(pages):>6}{cp:>7.3f}{cr:>7.3f}{cf:>8.3f}"
        f"{statistics.median(per_col) if per_col else 0:>11.2f}"
        f"{stable:>4}/{len(jac):<5}{statistics.median(jac) if jac else 0:>9.2f}{rf:>7.3f}"
    )
    other = [s["site"] for s in sites if s.get("other_template")]
    if other:
        same = [s["jaccard"] for s in sites if "jaccard" in s and not s.get("other_template")]
        print(
            f"stable where a crawl groups the 3 pages in one template:"
            f" {sum(1 for j in same if j >= STABLE_JACCARD)}/{len(same)}"
            f" (page 3 another template: {', '.join(other)})"
        )
    errors = [e for s in sites for e in s.get("errors", [])]
    if errors:
        print(f"{len(errors)} page errors, e.g. {errors[0]}")
    if args.json:
        Path(args.json).write_text(json.dumps(sites, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())

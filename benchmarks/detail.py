#!/usr/bin/env python
"""Detail pages: wrappers induced from a few pages of a site, applied to the others
(``detail/swde-dev.zip``: SWDE, Hao et al. 2011; 6 sites, 4 attributes each, 15 pages each).

    python benchmarks/detail.py [--data ../shared/datasets] [--inducer auto] [--train 5]
        [--sites a,b] [--naive] [--fields] [--no-timing]

Scoring (the datasets README, "Detail pages"): per site, induce on the first ``--train``
pages (page-id order) with ``scrapy_records.induce(pages, extractor=...)``, apply the
wrapper (``Wrapper.extract`` on the raw bytes) to the other pages; the record is the first
record of the first region, its fields are the record's fields (a nested list contributes
one field per list field, ``list.field``, whose value is the list of the rows' values) and
the region's page fields. Values are normalised (HTML-unescaped, lower-cased, whitespace
collapsed, punctuation stripped at both ends). A field is correct on a page when each of
its values equals one of the page's gold values, or its values joined by a space equal all
gold values joined by a space. Each attribute is mapped to the field with the most correct
test pages (greedy, one field per attribute: an oracle mapping, so names do not change the
score; the mapped names are printed, with ``=other`` for fields exactly as good).
Attribute precision = correct / test pages where the mapped field has a value, recall =
correct / test pages with a gold value; a site scores the mean F1 over its attributes; the
total is the mean over sites.

Also per site: ``fields`` the fields emitted per test page (median; the ``_raw`` and
``_currency`` twins of typed fields not counted, as the README counts fields), ``const``
the fields whose value is the same on every training page where they occur (template text
that leaked into the record, or data coinciding on the sample; ``--fields`` marks those
whose values differ on the test pages), ``nav`` the link fields
whose links' text is the same on every training page (navigation, whatever the URL),
``ind_s`` the induction time (5 pages, parsing included) and
``x_lxml`` the application cost relative to lxml's parse of the same bytes (median over
the test pages, best of 3 each).

``--naive``: the reference wrapper of the issue, every text node keyed by its parent's
path, kept when its text differs between the training pages. ``--fields``: list every
field the wrapper emits with its values on the training pages. ``--drop-constant``: score
without the fields constant on the training pages, what the literal rule "text identical on
all sample pages is template" would emit (label/value pairs that coincide on the sample go).

The dataset is read from ``../shared/datasets`` (or ``--data``); without it the script
prints a notice and exits 0.
"""

from __future__ import annotations

import argparse
import html
import logging
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import lxml.html  # noqa: E402
from datasets import dataset_root, load_swde  # noqa: E402
from lxml import etree  # noqa: E402
from timing import best_time  # noqa: E402

import scrapy_records  # noqa: E402


def norm(v: Any) -> str:
    """The README's normalisation: unescape, lower-case, collapse spaces, strip punctuation."""
    s = " ".join(html.unescape(str(v)).lower().split())
    a, b = 0, len(s)
    while a < b and not s[a].isalnum():
        a += 1
    while b > a and not s[b - 1].isalnum():
        b -= 1
    return s[a:b]


def _flat(value: Any) -> list[str]:
    if isinstance(value, list):
        return [x for v in value for x in _flat(v)]
    if isinstance(value, dict):
        return [x for v in value.values() for x in _flat(v)]
    return [str(value)] if value is not None and str(value).strip() else []


def record_fields(result: Any) -> dict[str, list[str]]:
    """``{field: [values]}`` of the first record of the first region, plus page fields."""
    out: dict[str, list[str]] = {}
    if not result.regions:
        return out
    region = result.regions[0]
    if region.records:
        for name, v in region.records[0].fields.items():
            if isinstance(v, list) and v and isinstance(v[0], dict):
                sub: dict[str, list[str]] = defaultdict(list)
                for row in v:
                    for k, x in row.items():
                        sub[f"{name}.{k}"].extend(_flat(x))
                out.update(sub)
            else:
                vals = _flat(v)
                if vals:
                    out[name] = vals
    for name, v in (region.meta.get("page") or {}).items():
        vals = _flat(v)
        if vals:
            out[f"page.{name}"] = vals
    return out


def correct(values: list[str], gold: list[str]) -> bool:
    g = [norm(x) for x in gold]
    g = [x for x in g if x]
    if not g or not values:
        return False
    vs = [norm(x) for x in values]
    if all(v in g for v in vs):
        return True
    return norm(" ".join(values)) == norm(" ".join(gold))


def score_site(
    preds: list[dict[str, list[str]]], golds: list[dict[str, list[str]]], attrs: list[str]
) -> tuple[float, dict[str, tuple[str | None, float, float, float]], dict[str, list[str]]]:
    """Mean attribute F1, ``{attr: (field, P, R, F1)}`` for the test pages, and per
    attribute the other fields exactly as good as the mapped one (same correct pages, same
    pages with a value). Ties in the mapping go to the first field in record order."""
    fields: list[str] = []
    for p in preds:
        fields += [f for f in p if f not in fields]
    order = {f: i for i, f in enumerate(fields)}
    hits: dict[tuple[str, str], int] = {}
    for a in attrs:
        for f in fields:
            n = sum(1 for p, g in zip(preds, golds) if f in p and g.get(a) and correct(p[f], g[a]))
            if n:
                hits[(a, f)] = n
    mapping: dict[str, str] = {}
    used: set[str] = set()
    n_pred = {f: sum(1 for p in preds if f in p) for f in fields}
    ranked = sorted(hits.items(), key=lambda kv: (-kv[1], n_pred[kv[0][1]], order[kv[0][1]]))
    for (a, f), _n in ranked:
        if a in mapping or f in used:
            continue
        mapping[a] = f
        used.add(f)
    per: dict[str, tuple[str | None, float, float, float]] = {}
    for a in attrs:
        f = mapping.get(a)
        n_gold = sum(1 for g in golds if any(norm(x) for x in g.get(a, [])))
        if f is None:
            per[a] = (None, 0.0, 0.0, 0.0)
            continue
        c = hits[(a, f)]
        P = c / n_pred[f] if n_pred[f] else 0.0
        R = c / n_gold if n_gold else 0.0
        per[a] = (f, P, R, 2 * P * R / (P + R) if P + R else 0.0)
    ties = {
        a: [
            g
            for g in fields
            if g != f and hits.get((a, g)) == hits[(a, f)] and n_pred[g] == n_pred[f]
        ]
        for a, f in mapping.items()
    }
    return (statistics.mean(x[3] for x in per.values()) if per else 0.0), per, ties


# ----------------------------------------------------------------- naive reference
class NaiveWrapper:
    """Every text node keyed by its parent's path; the keys whose text varies across the
    training pages are the fields (the issue's deliberately naive reference)."""

    def __init__(self, bodies: list[bytes]) -> None:
        seen: dict[str, set[str]] = defaultdict(set)
        for b in bodies:
            for k, v in self._texts(b).items():
                seen[k].add(v)
        self.keys = {k for k, vs in seen.items() if len(vs) > 1}

    @staticmethod
    def _texts(body: bytes) -> dict[str, str]:
        root = lxml.html.document_fromstring(body)
        tree = root.getroottree()
        out: dict[str, list[str]] = defaultdict(list)
        for t in root.xpath("//text()[normalize-space()]"):
            p = t.getparent()
            if p is None or p.tag in ("script", "style") or not isinstance(p.tag, str):
                continue
            out[tree.getpath(p)].append(" ".join(t.split()))
        return {k: " ".join(v) for k, v in out.items()}

    def extract(self, body: bytes) -> dict[str, list[str]]:
        return {k: [v] for k, v in self._texts(body).items() if k in self.keys}


# ------------------------------------------------------------------------ report
def _twin(name: str) -> bool:
    """A derived twin of a typed field: its text as written, its currency."""
    return name.endswith(("_raw", "_currency"))


def _template_fields(
    train_preds: list[dict[str, list[str]]], w: Any, train: list[Any]
) -> tuple[list[str], list[str]]:
    """Fields constant on all training pages where they occur (>= 2 of them), and link
    fields (record or page level) whose links' text is the same on every training page
    (navigation: the URL may still vary with a session id)."""
    const, nav = [], []
    names = sorted({f for p in train_preds for f in p if not _twin(f)})
    for f in names:
        vals = [tuple(p[f]) for p in train_preds if f in p]
        if len(vals) >= 2 and len(set(vals)) == 1:
            const.append(f)
    if w is None:
        return const, nav
    specs = [(f.name, f) for f in w.fields] + [(f"page.{f.name}", f) for f in w.page_fields]
    roots = [lxml.html.document_fromstring(s.body) for s in train]
    for name, f in specs:
        if f.attribute != "href":
            continue
        try:
            xp = etree.XPath(f.xpath)
        except etree.XPathSyntaxError:
            continue
        texts = []
        for root in roots:
            try:
                nodes = xp(root)
            except etree.XPathEvalError:
                nodes = []
            els = [n for n in (nodes if isinstance(nodes, list) else []) if hasattr(n, "itertext")]
            if els:
                texts.append(tuple(" ".join(" ".join(e.itertext()).split()) for e in els))
        if len(texts) >= 2 and len(set(texts)) == 1:
            nav.append(name)
    return const, nav


def _timing(w: Any, tests: list[Any]) -> float:
    ratios = []
    for s in tests:
        t_w = best_time(lambda s=s: w.extract(s.body, s.url), 3)
        t_l = best_time(lambda s=s: lxml.html.document_fromstring(s.body), 3)
        ratios.append(t_w / t_l if t_l > 0 else 0.0)
    return statistics.median(ratios) if ratios else float("nan")


def run_site(site: str, samples: list[Any], args: argparse.Namespace) -> dict[str, Any]:
    train, tests = samples[: args.train], samples[args.train :]
    attrs = sorted(samples[0].meta["attributes"])
    golds = [s.meta["attributes"] for s in tests]
    t0 = time.perf_counter()
    if args.naive:
        nw = NaiveWrapper([s.body for s in train])
        t_ind = time.perf_counter() - t0
        preds = [nw.extract(s.body) for s in tests]
        train_preds = [nw.extract(s.body) for s in train]
        ratio = float("nan")
        w = None
    else:
        w = scrapy_records.induce([(s.url, s.body) for s in train], extractor=args.inducer)
        t_ind = time.perf_counter() - t0
        preds = [record_fields(w.extract(s.body, s.url)) for s in tests]
        train_preds = [record_fields(w.extract(s.body, s.url)) for s in train]
        ratio = float("nan") if args.no_timing else _timing(w, tests)
    const, nav = _template_fields(train_preds, w, train)
    if args.drop_constant:  # the literal rule: a value the sample pages share is template
        preds = [{f: v for f, v in p.items() if f.removesuffix("_raw") not in const} for p in preds]
    f1, per, ties = score_site(preds, golds, attrs)
    # a value the five training pages happened to share ("Private", one posting date) is
    # data when the held-out pages show other values: name those apart
    varies = [f for f in const if len({tuple(p[f]) for p in train_preds + preds if f in p}) > 1]
    n_fields = statistics.median(sum(1 for f in p if not _twin(f)) for p in preds) if preds else 0
    return {
        "site": site,
        "f1": f1,
        "per": per,
        "ties": ties,
        "fields": n_fields,
        "const": const,
        "const_varies": varies,
        "nav": nav,
        "t_ind": t_ind,
        "ratio": ratio,
        "wrapper": w,
        "train_preds": train_preds,
        "records": [
            len(r.regions[0].records) if r.regions else 0
            for r in ([w.extract(s.body, s.url) for s in tests] if w is not None else [])
        ],
    }


def print_fields(res: dict[str, Any]) -> None:
    """Every field of the site's wrapper with its values on the training pages."""
    names: list[str] = []
    for p in res["train_preds"]:
        for f in p:
            if f not in names:
                names.append(f)
    for f in names:
        vals = [" | ".join(p[f]) if f in p else "-" for p in res["train_preds"]]
        shown = " || ".join(v[:40] for v in vals)
        print(f"    {f:34} {shown}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=None)
    ap.add_argument("--inducer", default="auto")
    ap.add_argument("--train", type=int, default=5)
    ap.add_argument("--sites", default="")
    ap.add_argument("--naive", action="store_true")
    ap.add_argument("--fields", action="store_true")
    ap.add_argument("--no-timing", action="store_true")
    ap.add_argument(
        "--drop-constant",
        action="store_true",
        help="score without the fields constant on the training pages (what the literal "
        "'text identical on all sample pages is template' rule would emit)",
    )
    args = ap.parse_args()
    root = dataset_root(args.data)
    if root is None or not (root / "detail" / "swde-dev.zip").exists():
        print("detail/swde-dev.zip not found: skipped (see ../shared/datasets/README.md)")
        return 0
    by_site: dict[str, list[Any]] = defaultdict(list)
    for s in load_swde(root):
        by_site[s.meta["site"]].append(s)
    wanted = [x for x in args.sites.split(",") if x]
    label = "naive text paths" if args.naive else f"induce(extractor={args.inducer!r})"
    print(f"# detail pages (SWDE swde-dev), {label}, train {args.train} pages per site")
    print(
        f"{'site':26} {'F1':>5} {'fields':>6} {'const':>5} {'nav':>4} {'recs':>4} "
        f"{'ind_s':>5} {'x_lxml':>6}  attribute->field (F1)"
    )
    results = []
    # libxml2's parse messages ("ID already defined") go to a silenced logger
    logging.getLogger("detail.libxml2").setLevel(logging.CRITICAL + 1)
    etree.use_global_python_log(etree.PyErrorLog("detail.libxml2"))
    for site in sorted(by_site):
        if wanted and not any(w in site for w in wanted):
            continue
        res = run_site(site, by_site[site], args)
        results.append(res)
        mapped = ", ".join(
            f"{a}->{f or '-'}"
            + (f"={'='.join(res['ties'][a][:3])}" if res["ties"].get(a) else "")
            + f" ({F:.2f})"
            for a, (f, _P, _R, F) in res["per"].items()
        )
        recs = Counter(res["records"])
        rec_s = "/".join(str(k) for k in sorted(recs)) if recs else "-"
        print(
            f"{site:26} {res['f1']:5.3f} {res['fields']:6.0f} {len(res['const']):5d} "
            f"{len(res['nav']):4d} {rec_s:>4} {res['t_ind']:5.2f} {res['ratio']:6.2f}  {mapped}"
        )
        if args.fields:
            print_fields(res)
            if res["const"]:
                print(
                    "    constant on the training pages: "
                    + ", ".join(
                        f + (" (varies on the test pages)" if f in res["const_varies"] else "")
                        for f in res["const"]
                    )
                )
    if not results:
        return 0
    mean_f1 = statistics.mean(r["f1"] for r in results)
    all_attr = [x for r in results for x in r["per"].values()]
    P = statistics.mean(x[1] for x in all_attr)
    R = statistics.mean(x[2] for x in all_attr)
    ratios = [r["ratio"] for r in results if r["ratio"] == r["ratio"]]
    print(
        f"{'TOTAL':26} {mean_f1:5.3f} {statistics.median(r['fields'] for r in results):6.0f} "
        f"{sum(len(r['const']) for r in results):5d} {sum(len(r['nav']) for r in results):4d} "
        f"{'':>4} {max(r['t_ind'] for r in results):5.2f} "
        f"{(max(ratios) if ratios else float('nan')):6.2f}  "
        f"attribute P {P:.3f} R {R:.3f} (F1 mean over sites; fields: median of the sites' "
        "medians; ind_s, x_lxml: the worst site)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

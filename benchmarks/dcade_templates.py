#!/usr/bin/env python
"""DCADE on the ExAlg template collections (``templates/exalg.zip``, 9 sites).

    python benchmarks/dcade_templates.py [--data ../shared/datasets] [--pages 20] [--sites a,b]

For each site: induce a schema (and a wrapper) from the first ``--pages`` pages (sorted by
number), then score against the manual schema ``manschema.txt`` and the per-page values
``values/v<i-1>.xml`` of the attributes flagged ``(c)`` (datasets README):

* attributes are split into *data* (not inside a ``{ }`` set) and *set* attributes, in
  the spirit of the paper's F_D and F_S (digest §5.2);
* a cell is correct when its character similarity (eq. 2, LCS / max length) to the gold
  value exceeds 0.85, the paper's threshold for DCADE;
* per gold attribute, the best-matching extracted column gives ``acc`` = correct pages /
  pages with a gold value (data) or correct values / gold values (sets): the per-page
  value accuracy; an attribute is *found* when ``acc >= 0.5``;
* per extracted data column (TableA MD/OD for data, recordset data columns for sets),
  ``P_c`` = correct cells / its non-null cells against its best gold attribute;
  ``P = mean P_c``, ``R = mean acc``, ``F = 2PR/(P+R)`` (eq. 10-11). The manual schemas
  only list the attributes their authors cared about, so extracted columns for page chrome
  (menus, ads) count as false positives here: P is a lower bound. Link-target columns
  (``href`` leaves) are left out of P: the manual schemas never list them.
* ``attrP``/``attrR``: attribute level, share of extracted data columns matched to some
  gold attribute / share of gold attributes found.

Timing: induction wall time for the sample (20 pages), and the per-page cost of applying
the induced wrapper (``Wrapper.extract`` on the raw bytes) relative to lxml's parse of the
same bytes, median over the site's pages, measured in the same run.

Wrapper accuracy ``wR_D``: the induced wrapper is applied to the site's pages beyond the
sample (all pages when there are none) and, per gold data attribute, the best field's
per-page accuracy is averaged; ``wR_S`` is the same for the set attributes with the
wrapper's nested lists (value recall, as R_S).

Data is read from ``../shared/datasets`` relative to the repo root (or ``--data``); the
script prints a notice and exits 0 when it is absent.
"""

from __future__ import annotations

import argparse
import html
import io
import re
import statistics
import sys
import time
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import lxml.html  # noqa: E402
from lxml import etree  # noqa: E402
from rapidfuzz.distance import LCSseq  # noqa: E402

from scrapy_records.dcade import induce_schema, schema_to_wrapper  # noqa: E402
from scrapy_records.page import Page  # noqa: E402

SITES = ["amazoncars", "amazonpopartist", "baseballplayerlist", "ebay", "netflix",
         "rpmpackage", "tennis", "uefanationalteaminfo", "uefaplayerslist"]
THRESHOLD = 0.85


def norm(s: str | None) -> str:
    return " ".join(html.unescape(s or "").split())


def sim(a: str, b: str) -> float:
    if not a and not b:
        return 1.0
    return LCSseq.normalized_similarity(a, b)


def ok(a: str | None, b: str | None) -> bool:
    return a is not None and b is not None and sim(norm(a), norm(b)) > THRESHOLD


# ------------------------------------------------------------------ ground truth
_ATTR = re.compile(r"^\s*(\d+)(\.[a-z])?\.?\s*(.*)$")


def parse_manschema(text: str) -> list[dict]:
    """Attributes: number, name, ExAlg ids, flag, in_set, fixed (datasets README)."""
    attrs: list[dict] = []
    depth = 0
    cur = None
    for line in text.splitlines():
        s = line.strip()
        if not s or s.startswith("---") or s.startswith("//") or s.startswith("Manual"):
            continue
        if s.startswith("{"):
            depth += 1
            continue
        if s.startswith("}"):
            depth = max(0, depth - 1)
            continue
        if s in ("<", ">", "(", ")?", ")", "<>"):
            continue
        m = _ATTR.match(line)
        if m and re.match(r"^\s*\d+[.a-z]*\.?\s*[A-Za-z(]", line):
            cur = {"num": m.group(1) + (m.group(2) or ""), "name": m.group(3).split("\t")[0].strip(),
                   "text": m.group(3), "in_set": depth > 0}
            attrs.append(cur)
        elif cur is not None:
            cur["text"] += " " + s
    out = []
    for a in attrs:
        t = a["text"]
        body = re.sub(r"\[[^\]]*\]", " ", t)   # drop [FIXED=..], [disj ..] notes
        ids = [int(x) for x in re.findall(r"\((\d+)\)", body)]
        flags = re.findall(r"\(([crst]\d?)\)", t)
        a["ids"] = ids
        a["flag"] = flags[-1] if flags else ""
        a["fixed"] = "FIXED" in t and not ids
        out.append(a)
    return out


def parse_values(xml: bytes) -> list[tuple[int, str]]:
    """``(instanceof, text)`` of every valued element, in document order."""
    try:
        root = etree.fromstring(b"<root>" + re.sub(rb"<\?xml[^>]*\?>", b"", xml) + b"</root>")
    except etree.XMLSyntaxError:
        root = etree.fromstring(b"<root>" + xml + b"</root>", etree.XMLParser(recover=True))
    out = []
    for v in root.iter("value"):
        # some gold values are HTML fragments (ebay "<b> $3.20 </b>"): keep their text
        t = norm(re.sub(r"<[^>]*>", " ", html.unescape(v.text or "")))
        if t:
            try:
                out.append((int(v.get("instanceof")), t))
            except (TypeError, ValueError):
                pass
    return out


# --------------------------------------------------------------------- scoring
def score_site(schema, attrs, gold_vals, m):
    """Returns dict with data/set P, R, F, attribute-level P/R and per-attribute accuracy."""
    res = {}
    # extracted columns
    # link targets are never attributes of the ExAlg manual schemas: only text columns count
    data_cols = [c.values for c in schema.columns if c.data and c.kind == "text"]
    set_cols = []
    for rs in schema.recordsets:
        for c in rs.columns:
            if c.data and c.kind == "text":
                per = [[] for _ in range(m)]
                for (r, _k), v in zip(rs.rows, c.values):
                    if v is not None:
                        per[r].append(v)
                set_cols.append(per)
    for kind in ("data", "set"):
        gold = [a for a in attrs if a["flag"] == "c" and a["ids"] and (a["in_set"] == (kind == "set"))]
        if kind == "data":
            cols = data_cols
            gvals = []
            for a in gold:
                ids = set(a["ids"])
                gvals.append([next((t for i, t in pv if i in ids), None) for pv in gold_vals])
            acc = []
            pcs = [0.0] * len(cols)
            matched_cols = set()
            for gv in gvals:
                n = sum(1 for g in gv if g is not None)
                best = 0.0
                for ci, cv in enumerate(cols):
                    corr = sum(1 for g, v in zip(gv, cv) if ok(g, v))
                    if n:
                        best = max(best, corr / n)
                    nv = sum(1 for v in cv if v is not None)
                    if nv:
                        pc = corr / nv
                        if pc > pcs[ci]:
                            pcs[ci] = pc
                        if pc >= 0.5:
                            matched_cols.add(ci)
                acc.append(best)
        else:
            # set attributes: gold multiset per page; extracted: recordset columns, and
            # also TableA data columns (one value per page) when no set was found
            cols = set_cols + [[[v] if v is not None else [] for v in c] for c in data_cols]
            n_set_cols = len(set_cols)
            gvals = []
            for a in gold:
                ids = set(a["ids"])
                gvals.append([[t for i, t in pv if i in ids] for pv in gold_vals])
            acc = []
            pcs = [0.0] * n_set_cols
            matched_cols = set()
            for gv in gvals:
                total = sum(len(x) for x in gv)
                best = 0.0
                for ci, cv in enumerate(cols):
                    corr = 0
                    for g, v in zip(gv, cv):
                        corr += _multiset_match(g, v)
                    if total:
                        best = max(best, corr / total)
                    if ci < n_set_cols:
                        nv = sum(len(x) for x in cv)
                        if nv:
                            pc = corr / nv
                            if pc > pcs[ci]:
                                pcs[ci] = pc
                            if pc >= 0.5:
                                matched_cols.add(ci)
                acc.append(best)
            cols = set_cols
        P = statistics.mean(pcs) if pcs else (1.0 if not gold else 0.0)
        R = statistics.mean(acc) if acc else None
        F = (2 * P * R / (P + R) if (P + R) else 0.0) if R is not None else None
        res[kind] = {
            "n_gold": len(gold), "n_cols": len(cols), "P": P, "R": R, "F": F,
            "attrP": (len(matched_cols) / len(cols)) if cols else (1.0 if not gold else 0.0),
            "attrR": (sum(1 for x in acc if x >= 0.5) / len(acc)) if acc else None,
            "acc": R,
            "per_attr": [(a["num"], a["name"], round(x, 3)) for a, x in zip(gold, acc)],
        }
    return res


def _multiset_match(gold: list[str], got: list[str]) -> int:
    if not gold or not got:
        return 0
    left = [norm(x) for x in got]
    n = 0
    for g in gold:
        g = norm(g)
        for i, v in enumerate(left):
            if v is not None and sim(g, v) > THRESHOLD:
                left[i] = None
                n += 1
                break
    return n


# --------------------------------------------------------------------------- main
def load_page(body: bytes, url: str) -> Page:
    page = Page(body, url=url)
    if len(page) < 10 and b"<noscript" in body.lower():
        # amazoncars pages open with <noscript><html>...<body></body></html></noscript>
        # before the real <HTML>: libxml2 ends the document there (browsers do not); drop
        # that block for this benchmark (the page model issue is reported, not fixed here)
        fixed = re.sub(rb"<noscript.*?</noscript>", b"", body, flags=re.I | re.S)
        page = Page(fixed, url=url)
    return page


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=str(HERE.parent.parent / "shared" / "datasets"))
    ap.add_argument("--pages", type=int, default=20)
    ap.add_argument("--sites", default=",".join(SITES))
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--opt", action="append", default=[], metavar="NAME=VALUE",
                    help="a DCADE option (Python literal value), e.g. --opt theta_den=0.5")
    args = ap.parse_args(argv)
    zpath = Path(args.data) / "templates" / "exalg.zip"
    if not zpath.exists():
        print(f"dataset not found: {zpath} (skipping)")
        return 0
    import ast

    opts = {}
    for kv in args.opt:
        k, _, v = kv.partition("=")
        try:
            opts[k] = ast.literal_eval(v)
        except (ValueError, SyntaxError):
            opts[k] = v
    zf = zipfile.ZipFile(zpath)
    names = zf.namelist()
    rows = []
    print(f"{'site':22} {'pg':>3} {'ind_s':>6} {'x_lxml':>6} {'cols':>5} {'dtxt':>5} {'sets':>4} | "
          f"{'F_D':>5} {'P_D':>5} {'R_D':>5} {'aP_D':>5} {'aR_D':>5} | "
          f"{'F_S':>5} {'P_S':>5} {'R_S':>5} {'aP_S':>5} {'aR_S':>5} | {'wR_D':>5} {'wR_S':>5} {'held':>4}")
    for site in args.sites.split(","):
        prefix = f"exalg/{site}/"
        srcs = [n for n in names if n.startswith(prefix + "sources/") and n.endswith(".html")]
        srcs.sort(key=lambda n: int(re.findall(r"(\d+)\.html$", n)[0]))
        if not srcs:
            print(f"{site}: no pages")
            continue
        attrs = parse_manschema(zf.read(prefix + "manschema.txt").decode("latin-1"))
        sample = srcs[: args.pages]
        bodies = [zf.read(n) for n in sample]
        gold_vals = []
        for n in sample:
            i = int(re.findall(r"(\d+)\.html$", n)[0])
            vname = f"{prefix}values/v{i - 1}.xml"
            gold_vals.append(parse_values(zf.read(vname)) if vname in names else [])
        urls = [f"http://{site}.example/{Path(n).name}" for n in sample]
        t0 = time.perf_counter()
        pages = [load_page(b, u) for b, u in zip(bodies, urls)]
        schema = induce_schema(pages, **opts)
        t_ind = time.perf_counter() - t0
        try:
            wrapper = schema_to_wrapper(schema)
        except Exception as exc:  # report, keep scoring the schema
            print(f"{site}: wrapper failed: {exc!r}")
            wrapper = None
        ratios = []
        if wrapper is not None:
            for b in bodies:
                best_l = best_w = float("inf")
                for _ in range(3):
                    t = time.perf_counter()
                    lxml.html.document_fromstring(b)
                    best_l = min(best_l, time.perf_counter() - t)
                    t = time.perf_counter()
                    wrapper.extract(b)
                    best_w = min(best_w, time.perf_counter() - t)
                ratios.append(best_w / best_l if best_l > 0 else 0.0)
        s = score_site(schema, attrs, gold_vals, len(pages))
        d, st = s["data"], s["set"]
        # the wrapper on pages it was not induced from (all pages when there are none)
        held = srcs[args.pages:] or srcs
        wacc = None
        if wrapper is not None:
            gold_attrs = [a for a in attrs if a["flag"] == "c" and a["ids"] and not a["in_set"]]
            vals_by_field: dict[str, list] = {}
            set_vals: dict[tuple[str, str], list] = {}
            golds = []
            for k, n in enumerate(held):
                i = int(re.findall(r"(\d+)\.html$", n)[0])
                vname = f"{prefix}values/v{i - 1}.xml"
                golds.append(parse_values(zf.read(vname)) if vname in names else [])
                res = wrapper.extract(load_page(zf.read(n), f"http://{site}.example/{Path(n).name}"))
                rec = res.regions[0].records[0].fields if res.regions and res.regions[0].records else {}
                for fname in [x.name for x in wrapper.fields]:
                    v = rec.get(fname)
                    vals_by_field.setdefault(fname, [None] * len(held))[k] = None if v is None else str(v)
                for lst in wrapper.lists:
                    for row in rec.get(lst.name) or []:
                        for fname, v in row.items():
                            if isinstance(v, (str, int, float)):
                                set_vals.setdefault((lst.name, fname), [[] for _ in held])[k].append(str(v))
            accs = []
            for a in gold_attrs:
                ids = set(a["ids"])
                gv = [next((t for i, t in pv if i in ids), None) for pv in golds]
                n = sum(1 for g in gv if g is not None)
                best = max((sum(1 for g, v in zip(gv, cv) if ok(g, v)) / n
                            for cv in vals_by_field.values()), default=0.0) if n else None
                if best is not None:
                    accs.append(best)
            wacc = (statistics.mean(accs), len(held)) if accs else None
            saccs = []
            for a in [a for a in attrs if a["flag"] == "c" and a["ids"] and a["in_set"]]:
                ids = set(a["ids"])
                gv = [[t for i, t in pv if i in ids] for pv in golds]
                total = sum(len(x) for x in gv)
                if total:
                    saccs.append(max((sum(_multiset_match(g, v) for g, v in zip(gv, cv)) / total
                                      for cv in set_vals.values()), default=0.0))
            s["wrapper_set"] = statistics.mean(saccs) if saccs else None
        s["wrapper"] = wacc
        rows.append((site, s))

        def f(x):
            return f"{x:5.3f}" if x is not None else "  -  "

        print(f"{site:22} {len(pages):3d} {t_ind:6.2f} {statistics.median(ratios) if ratios else float('nan'):6.1f} "
              f"{len(schema.columns):5d} {sum(1 for c in schema.data_columns() if c.kind == 'text'):5d} "
              f"{len(schema.recordsets):4d} | "
              f"{f(d['F'])} {f(d['P'])} {f(d['R'])} {f(d['attrP'])} {f(d['attrR'])} | "
              f"{f(st['F'])} {f(st['P'])} {f(st['R'])} {f(st['attrP'])} {f(st['attrR'])} | "
              f"{f(wacc[0]) if wacc else '  -  '} {f(s.get('wrapper_set'))} {wacc[1] if wacc else 0:4d}")
        if args.verbose:
            print("   data:", d["per_attr"])
            print("   set: ", st["per_attr"])
    if rows:
        def avg(kind, key):
            xs = [s[kind][key] for _, s in rows if s[kind][key] is not None and s[kind]["n_gold"]]
            return statistics.mean(xs) if xs else float("nan")
        print(f"{'AVERAGE':22} {'':3} {'':6} {'':6} {'':5} {'':5} {'':4} | "
              f"{avg('data','F'):5.3f} {avg('data','P'):5.3f} {avg('data','R'):5.3f} "
              f"{avg('data','attrP'):5.3f} {avg('data','attrR'):5.3f} | "
              f"{avg('set','F'):5.3f} {avg('set','P'):5.3f} {avg('set','R'):5.3f} "
              f"{avg('set','attrP'):5.3f} {avg('set','attrR'):5.3f} | "
              f"{statistics.mean([s['wrapper'][0] for _, s in rows if s.get('wrapper')] or [float('nan')]):5.3f} "
              f"{statistics.mean([s['wrapper_set'] for _, s in rows if s.get('wrapper_set') is not None] or [float('nan')]):5.3f}")
        print("(averages over sites having gold attributes of that kind; ind_s = induction seconds; "
              "x_lxml = wrapper application / lxml parse, median; wR_D = per-page accuracy of the "
              "wrapper's fields for the data attributes (wR_S: value recall of its nested lists for "
              "the set attributes) on the 'held' pages not used for induction, "
              "all pages when the site has no more)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

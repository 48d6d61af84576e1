#!/usr/bin/env python
"""What the extra data columns of DCADE on ExAlg are: the columns that lower P_D and P_S in
``benchmarks/dcade_templates.py`` (matched to no gold attribute), each with a reason.

    python benchmarks/dcade_extras.py [--data ../shared/datasets] [--pages 20] [--sites a,b]
        [--examples 2]

A column is *extra* when fewer than half of its cells match its best gold attribute in the
strict view (``P_c < 0.5``: the scoring of ``dcade_templates.py``). Reasons, first that
applies (a cell lies inside a value when it is the value (LCS-similar > 0.85) or whole words
of it; of the page's ExAlg values holding it, the shortest is its owner):

* ``sub-leaf``: the lenient view matches it: the gold value is cut out of the leaf
  ("Feb-02-02 17:09:30" of "Feb-02-02 17:09:30 PST");
* ``unscored <attr>(<flag>)``: half its cells lie inside the page's values of ExAlg ids
  that only attributes flagged (r), (s), (t)... list: the manual schema names the attribute
  but ExAlg's values for it are wrong or merged, so it has no gold (netflix' actors);
* ``inside <attr>``: inside the value of a scored attribute that joins several leaves
  (tennis HEIGHT "1.8 11" of "1.8 metres ( 5 ft. 11 in. )", a list of links);
* ``exalg id``: inside a value the manual schema does not list (an ExAlg id it does not
  name, or a value of a listed id that none of its attributes' conditions selects);
* ``fixed <attr>``: one text, the constant of a ``[FIXED=..]`` attribute (ebay QUANTITY);
* ``variants``: at most three texts, each on two rows or more (template texts of page
  variants aligned in one column, "Country/Region" and "Country");
* ``-``: none of these (the page chrome the manual schema leaves out, or our alignment).

Only a diagnosis: nothing here changes the scores.
"""

from __future__ import annotations

import argparse
import re
import sys
import zipfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import dcade_templates as T  # noqa: E402

from scrapy_records.page import Page  # noqa: E402
from scrapy_records.wrappers.inducers.dcade import induce_schema  # noqa: E402

_FIXED = re.compile(r"\[FIXED=([^\]]+)\]")


def _inside(cell: str, value: str) -> bool:
    """The cell's text is the value, or whole words of it."""
    c, v = T.norm(cell), T.norm(value)
    return bool(c) and (T.sim(c, v) > T.THRESHOLD or T._token_re(c).search(v) is not None)


def _owner(cell: str, values: list) -> tuple | None:
    """The ExAlg id and context of the page's shortest value that holds the cell."""
    best = None
    for i, t, ctx, *_ in values:
        if t and _inside(cell, t) and (best is None or len(t) < best[0]):
            best = (len(t), i, ctx)
    return best[1:] if best else None


def _owner_name(attrs: list[dict], i: int, ctx: frozenset) -> str:
    """What the manual schema calls the value of id ``i`` in context ``ctx``."""
    mine = [a for a in attrs if i in a["ids"] and T._holds(a["conds"], ctx)]
    for a in mine:
        if a["flag"] == "c":
            return f"inside {a['name']}"
    return f"unscored {mine[0]['name']}({mine[0]['flag']})" if mine else "exalg id"


def reason(cells: list[tuple[int, str]], gold_vals: list, attrs: list[dict]) -> str:
    """Why an extra column (``cells``: its (page, text) pairs) is no gold attribute."""
    fixed = {T.norm(x): a["name"] for a in attrs if a["fixed"] for x in _FIXED.findall(a["text"])}
    texts = Counter(T.norm(v) for _r, v in cells)
    if len(texts) == 1 and next(iter(texts)) in fixed:
        return f"fixed {fixed[next(iter(texts))]}"
    got: Counter[str] = Counter()
    for r, v in cells:
        own = _owner(v, gold_vals[r])
        if own is not None:
            got[_owner_name(attrs, *own)] += 1
    if got and 2 * got.most_common(1)[0][1] >= len(cells):
        return got.most_common(1)[0][0]
    if len(texts) <= 3 and all(n >= 2 for n in texts.values()):
        return "variants"
    return "-"


def extras(schema, attrs: list[dict], gold_vals: list, m: int) -> list[tuple[str, str, list]]:
    """``(kind, reason, first texts)`` of each extra data and set column."""
    gold, _ = T.gold_attributes(attrs, gold_vals)
    out = []

    def cells_of(c):
        return [(v, len(lv) if lv else 0) for v, lv in zip(c.values, c.leaves or [()] * m)]

    for c in schema.columns:
        if not (c.data and c.kind == "text"):
            continue
        cv = cells_of(c)
        nv = sum(1 for v, _ in cv if v is not None)
        best = {False: 0.0, True: 0.0}
        for g in (g for g in gold if not g["in_set"]):
            gv = [vals[0] if vals else None for vals in g["pages"]]
            for len_ in best:
                best[len_] = max(best[len_], T.data_correct(g, gv, cv, len_) / nv)
        if best[False] < 0.5:
            got = [(r, v) for r, (v, _n) in enumerate(cv) if v is not None]
            why = "sub-leaf" if best[True] >= 0.5 else reason(got, gold_vals, attrs)
            out.append(("data", why, [v for _r, v in got]))
    for rs in schema.recordsets:
        for c in rs.columns:
            if not (c.data and c.kind == "text"):
                continue
            per: list[list] = [[] for _ in range(m)]
            for (r, _k), cell in zip(rs.rows, cells_of(c)):
                if cell[0] is not None:
                    per[r].append(cell)
            nv = sum(len(x) for x in per)
            best = {False: 0.0, True: 0.0}
            for g in (g for g in gold if g["in_set"]):
                for len_ in best:
                    n = sum(T._multiset_match(x, v, len_) for x, v in zip(g["pages"], per))
                    best[len_] = max(best[len_], n / nv)
            if nv and best[False] < 0.5:
                got = [(r, v) for r in range(m) for v, _n in per[r]]
                why = "sub-leaf" if best[True] >= 0.5 else reason(got, gold_vals, attrs)
                out.append(("set", why, [v for _r, v in got]))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=str(HERE.parent.parent / "shared" / "datasets"))
    ap.add_argument("--pages", type=int, default=20)
    ap.add_argument("--sites", default=",".join(T.SITES))
    ap.add_argument("--examples", type=int, default=2, help="texts shown per column")
    args = ap.parse_args(argv)
    zpath = Path(args.data) / "templates" / "exalg.zip"
    if not zpath.exists():
        print(f"dataset not found: {zpath} (skipping)")
        return 0
    zf = zipfile.ZipFile(zpath)
    names = zf.namelist()
    total: Counter[str] = Counter()
    for site in args.sites.split(","):
        prefix = f"exalg/{site}/"
        srcs = [n for n in names if n.startswith(prefix + "sources/") and n.endswith(".html")]
        srcs.sort(key=lambda n: int(re.findall(r"(\d+)\.html$", n)[0]))
        sample = srcs[: args.pages]
        attrs = T.parse_manschema(zf.read(prefix + "manschema.txt").decode("latin-1"))
        gold_vals = []
        for n in sample:
            i = int(re.findall(r"(\d+)\.html$", n)[0])
            v = f"{prefix}values/v{i - 1}.xml"
            gold_vals.append(T.parse_values(zf.read(v)) if v in names else [])
        pages = [Page(zf.read(n), url=f"http://{site}.example/{Path(n).name}") for n in sample]
        rows = extras(induce_schema(pages), attrs, gold_vals, len(pages))
        kinds = Counter(f"{k}: {why.split()[0]}" for k, why, _v in rows)
        total.update(kinds)
        print(
            f"{site}: {len(rows)} extra columns " + ", ".join(f"{k} {n}" for k, n in kinds.items())
        )
        for kind, why, vals in rows:
            shown = " | ".join(repr(v[:50]) for v in vals[: args.examples])
            print(f"    {kind:4} {why:40} {shown}")
    print("TOTAL " + ", ".join(f"{k} {n}" for k, n in sorted(total.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())

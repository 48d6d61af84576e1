#!/usr/bin/env python
"""The cost of ``extract()`` before and after a change, page by page in one process.

    python benchmarks/ab.py --base REF [--datasets modern,lists] [--rounds 3] [--show N]

On a shared machine two benchmark runs a minute apart differ by 5-10%, more than most
changes are worth. This script imports the working tree's ``scrapy_records`` and a copy of
git commit ``REF``'s (``git archive``, renamed ``scrapy_records_ab_base``) side by side and
times both on every page in turn, the cheaper of ``--rounds`` alternating runs each, CPU
time, the text caches emptied before every run (as ``run.py`` does). Each page's times are
ratios to lxml's parse of the same page, as ``run.py`` reports them. It prints, per
dataset, the median and mean ratio of each side and the ratio of their totals (new/base):
below 1 is faster. A run of a commit against itself reads 0.99-1.01.

``--show N`` lists the N pages with the largest base ratio (the heavy tail) per dataset.
"""

from __future__ import annotations

import argparse
import importlib
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from datasets import LOADERS, dataset_root  # noqa: E402
from timing import clear_text_caches  # noqa: E402

BASE = "scrapy_records_ab_base"
_NAME = re.compile(r"\bscrapy_records\b")


def materialise(ref: str, into: Path) -> None:
    """``ref``'s package under ``into/scrapy_records_ab_base``, every reference to the
    package's name in its modules renamed (imports and dotted names in strings)."""
    tar = subprocess.run(
        ["git", "-C", str(HERE.parent), "archive", ref, "scrapy_records"],
        check=True,
        capture_output=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=tar, check=True)
    (into / "scrapy_records").rename(into / BASE)
    for py in (into / BASE).rglob("*.py"):
        py.write_text(_NAME.sub(BASE, py.read_text(encoding="utf-8")), encoding="utf-8")


def _cpu(fn, *args, **kw) -> float:
    t = time.process_time()
    fn(*args, **kw)
    return time.process_time() - t


def page_ratios(sample, base, new, rounds: int) -> tuple[float, float]:
    """Base and new ``extract()`` CPU time on one page, each the cheaper of ``rounds``
    alternating runs, as ratios to lxml's parse of the page (the cheapest of three).

    The parse is ``run.py``'s baseline: parsel's ``create_root_node`` on the page decoded
    first (outside the timing). libxml2 given the raw bytes mis-parses pages in encodings
    it does not know: a cp949 page of 721 elements became 3 in 0.01 ms, a ratio of 2,000x
    that made the mean of ``lists`` 32x (19x with this baseline)."""
    import lxml.html
    from parsel.selector import create_root_node

    from scrapy_records.page import decode_html

    text = decode_html(sample.body)[0]
    parse = min(_cpu(create_root_node, text, lxml.html.HTMLParser) for _ in range(3))
    ta = tb = float("inf")
    for _ in range(rounds):
        clear_text_caches(BASE)
        ta = min(ta, _cpu(base.extract, sample.body, url=sample.url))
        clear_text_caches()
        tb = min(tb, _cpu(new.extract, sample.body, url=sample.url))
    parse = max(parse, 1e-6)
    return ta / parse, tb / parse


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", required=True, help="git commit (or branch) to compare with")
    ap.add_argument("--datasets", default="modern,lists", help=f"of {','.join(LOADERS)}")
    ap.add_argument("--data", help="datasets folder (default ../shared/datasets)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--show", type=int, default=0, help="list the N heaviest pages")
    args = ap.parse_args(argv)
    root = dataset_root(args.data)
    if root is None:
        print("datasets not found (give --data or set SCRAPY_RECORDS_DATASETS); skipping")
        return 0
    import scrapy_records as new

    with tempfile.TemporaryDirectory() as tmp:
        materialise(args.base, Path(tmp))
        sys.path.insert(0, tmp)
        base = importlib.import_module(BASE)
        print(f"# new: working tree {new.__file__}; base: {args.base}")
        for name in args.datasets.split(","):
            rows = []
            for sample in LOADERS[name](root):
                rows.append((*page_ratios(sample, base, new, args.rounds), sample.name))
            a, b = [r[0] for r in rows], [r[1] for r in rows]
            print(
                f"{name:10} pages {len(rows):4}  base median {statistics.median(a):6.2f}x "
                f"mean {statistics.mean(a):6.2f}x | new median {statistics.median(b):6.2f}x "
                f"mean {statistics.mean(b):6.2f}x | new/base {sum(b) / sum(a):.3f}"
            )
            for ra, rb, page in sorted(rows, key=lambda r: -r[0])[: args.show]:
                print(f"    {ra:7.1f}x {rb:7.1f}x  {page}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python
"""Cost of building the page model relative to lxml's parse of the same bytes (same run).

    python benchmarks/page_model.py [--data DIR]

Prints the median and 90th percentile of ``Page(bytes)`` / lxml's parse of the decoded page
(parsel's ``create_root_node``) and of the flattening step alone (``Page(lxml_root)`` /
parse) over every development page.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import lxml.html  # noqa: E402
from datasets import LOADERS, dataset_root  # noqa: E402
from parsel.selector import create_root_node  # noqa: E402
from timing import best_time  # noqa: E402

from scrapy_records import Page, RecordsError  # noqa: E402
from scrapy_records.page import decode_html  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data")
    args = ap.parse_args()
    root = dataset_root(args.data)
    if root is None:
        print("datasets folder not found; skipping")
        return 0
    full, flat, nodes = [], [], []
    for name in ("lists", "forums", "negative", "reviews"):
        for s in LOADERS[name](root):
            text = decode_html(s.body)[0]
            tree = create_root_node(text, lxml.html.HTMLParser)
            # the loop variables are bound as defaults (B023); each lambda is timed at once
            base = best_time(lambda text=text: create_root_node(text, lxml.html.HTMLParser))
            try:
                page = Page(s.body, s.url)
                t_full = best_time(lambda s=s: Page(s.body, s.url))
                t_flat = best_time(lambda tree=tree: Page(tree))
            except RecordsError:
                continue
            full.append(t_full / base)
            flat.append(t_flat / base)
            nodes.append(len(page))

    def q(xs, p):
        return sorted(xs)[int(p * (len(xs) - 1))]

    print(f"pages={len(full)} median nodes={statistics.median(nodes):.0f}")
    print(f"Page(bytes)/lxml parse: median {statistics.median(full):.2f}x  p90 {q(full, 0.9):.2f}x")
    print(
        f"flatten only/lxml parse: median {statistics.median(flat):.2f}x  p90 {q(flat, 0.9):.2f}x"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

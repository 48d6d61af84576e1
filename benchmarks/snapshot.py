#!/usr/bin/env python
"""Dump everything the library outputs on the development pages, or compare two dumps.

    python benchmarks/snapshot.py --out before.json          # before a refactor
    python benchmarks/snapshot.py --out after.json --compare before.json

A refactor that must not change behaviour is checked with it: every extractor's regions
(records, XPaths, texts, fields, columns, confidences, meta) on every list, negative, forum,
review and modern page; wrappers made from each main region and applied to its page; wrappers
induced on the template sets (ExAlg, estuka, SWDE) and applied to their other pages. Relative
dates are frozen to one base, so two runs on different days compare equal.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import traceback
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from datasets import (  # noqa: E402
    LOADERS,  # noqa: E402
    dataset_root,
    load_estuka,
    load_swde,
)

import scrapy_records  # noqa: E402

FROZEN = datetime(2026, 1, 15, 12, 0, tzinfo=timezone.utc)
EXTRACTORS = ("auto", "mdr", "stem", "mibat", "gstm")


def _wrapper_doc(w) -> dict:
    doc = json.loads(w.to_json())
    doc.get("provenance", {}).pop("created", None)
    doc.get("provenance", {}).pop("library_version", None)
    return doc


def _safe(fn):
    try:
        return fn()
    except Exception as exc:  # the error itself is part of the behaviour
        return {"error": f"{type(exc).__name__}: {exc}"}


def _page_job(job: tuple[str, str, bytes]) -> tuple[str, dict]:
    from scrapy_records.fields.dates import relative_to

    key, url, body = job
    out: dict = {}
    with relative_to(FROZEN):
        for name in EXTRACTORS:
            fields = "all" if name == "auto" else "main"
            out[name] = _safe(
                lambda name=name, fields=fields: scrapy_records.extract(
                    body, url=url, extractor=name, fields=fields
                ).to_dict()
            )

        def roundtrip():
            res = scrapy_records.extract(body, url=url)
            if res.main is None:
                return None
            page = scrapy_records.Page(body, url=url)
            w = scrapy_records.Wrapper.from_region(res.main, page)
            return {"wrapper": _wrapper_doc(w), "applied": w.extract(body, url=url).to_dict()}

        out["from_region"] = _safe(roundtrip)
    return key, out


def _template_job(
    job: tuple[str, list[tuple[str, bytes]], int, tuple[str, ...]],
) -> tuple[str, dict]:
    from scrapy_records.fields.dates import relative_to

    key, pages, n_train, inducers = job
    out: dict = {}
    with relative_to(FROZEN):
        for inducer in inducers:

            def run(inducer=inducer):
                w = scrapy_records.induce(pages[:n_train], extractor=inducer)
                return {
                    "wrapper": _wrapper_doc(w),
                    "applied": [w.extract(b, url=u).to_dict() for u, b in pages[n_train:]],
                }

            out[inducer] = _safe(run)
    return key, out


def collect(root: Path, limit: int | None) -> tuple[list, list]:
    page_jobs: list = []
    for loader in LOADERS.values():
        samples = list(loader(root))[:limit]
        page_jobs += [(f"{s.dataset}/{s.name}", s.url, s.body) for s in samples]
    estuka = list(load_estuka(root))

    template_jobs: list = []
    by_site: dict = defaultdict(list)
    for s in estuka:
        by_site[s.meta["site"]].append(s)
    for site, samples in sorted(by_site.items())[:limit]:
        samples.sort(key=lambda s: s.meta["query"])
        template_jobs.append((f"estuka/{site}", [(s.url, s.body) for s in samples], 2, ("auto",)))
    swde: dict = defaultdict(list)
    for s in load_swde(root):
        swde[s.meta["site"]].append(s)
    for site, samples in sorted(swde.items())[:limit]:
        template_jobs.append(
            (f"swde/{site}", [(s.url, s.body) for s in samples], 5, ("auto", "dcade"))
        )
    import re
    import zipfile

    zpath = root / "templates" / "exalg.zip"
    if zpath.exists():
        z = zipfile.ZipFile(zpath)
        names = z.namelist()
        sites = sorted({n.split("/")[1] for n in names if n.count("/") >= 2 and "/sources/" in n})
        for site in sites[:limit]:
            pfx = f"exalg/{site}/sources/"
            src = sorted(
                (n for n in names if n.startswith(pfx) and n.endswith(".html")),
                key=lambda n: int(re.sub(r"\D", "", n.rsplit("/", 1)[1]) or 0),
            )
            pages = [(f"http://{site}.example/{n.rsplit('/', 1)[1]}", z.read(n)) for n in src[:10]]
            template_jobs.append((f"exalg/{site}/2", pages, 2, ("auto", "gstm")))
            template_jobs.append((f"exalg/{site}/5", pages, 5, ("dcade",)))
    return page_jobs, template_jobs


def digest(obj) -> str:
    return hashlib.sha1(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()[:12]


def compare(a: dict, b: dict, show: int = 10) -> int:
    diffs = 0
    for key in sorted(set(a) | set(b)):
        if key not in a or key not in b:
            diffs += 1
            print(f"only in {'before' if key in a else 'after'}: {key}")
            continue
        for part in sorted(set(a[key]) | set(b[key])):
            x, y = a[key].get(part), b[key].get(part)
            if digest(x) != digest(y):
                diffs += 1
                if diffs <= show:
                    sx = json.dumps(x, sort_keys=True, default=str)
                    sy = json.dumps(y, sort_keys=True, default=str)
                    i = next(
                        (i for i, (p, q) in enumerate(zip(sx, sy)) if p != q), min(len(sx), len(sy))
                    )
                    print(
                        f"DIFF {key} [{part}] at char {i}:\n"
                        f"  before: ...{sx[max(0, i - 150) : i + 150]}\n"
                        f"  after:  ...{sy[max(0, i - 150) : i + 150]}"
                    )
    print(f"{diffs} difference(s) over {len(set(a) | set(b))} keys")
    return diffs


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", help="datasets folder (default ../shared/datasets)")
    ap.add_argument("--out", help="write the dump here (JSON)")
    ap.add_argument("--compare", help="compare with this earlier dump")
    ap.add_argument("--limit", type=int, help="at most this many pages per dataset (a quick run)")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args(argv)
    root = dataset_root(args.data)
    if root is None:
        print("datasets folder not found (give --data or set SCRAPY_RECORDS_DATASETS); skipping")
        return 0
    page_jobs, template_jobs = collect(root, args.limit)
    result: dict = {}
    with ProcessPoolExecutor(args.workers) as pool:
        for key, out in pool.map(_template_job, template_jobs):
            result[key] = out
        print(f"{len(template_jobs)} template sets", file=sys.stderr)
        for i, (key, out) in enumerate(pool.map(_page_job, page_jobs, chunksize=4), 1):
            result[key] = out
            if i % 50 == 0:
                print(f"{i}/{len(page_jobs)} pages", file=sys.stderr)
    if args.out:
        Path(args.out).write_text(json.dumps(result, sort_keys=True, default=str))
        print(f"wrote {args.out}: {len(result)} keys, digest {digest(result)}")
    if args.compare:
        try:
            before = json.loads(Path(args.compare).read_text())
        except Exception:
            traceback.print_exc()
            return 2
        return 1 if compare(before, result) else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())

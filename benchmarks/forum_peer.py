#!/usr/bin/env python
"""Forum posts: scrapy_records (MiBAT / auto) side by side with the harvest-webforum peer.

    python benchmarks/forum_peer.py                     # mibat and auto vs harvest
    python benchmarks/forum_peer.py --ours mibat --data /path/to/datasets -v

Reads the WEB-FORUM-52 gold documents (``forums/*.json``, see the datasets README) and
runs, on the same HTML:

* ours: ``scrapy_records.extract(html, url, extractor=...)`` (records of the main region;
  ``auto`` routes date-anchored user content to MiBAT,
  :func:`scrapy_records.extractors.mibat.ugc_regions`);
* the peer: ``harvest.extract_data(html, url)`` from ``pip install harvest-webforum``
  (Weichselbraun et al., built on this corpus). Skipped with a note when not installed.

Scoring reuses the integrator's functions (``benchmarks/scoring.py``: the README's token
matching; ``benchmarks/run.py``: ``forum_fields_ok`` and the lxml baseline). Two views
for our records, because the gold is the post *body*:

* ``record``: ``Record.text``, what ``run.py`` scores: for MiBAT the post without its
  profile box, signature and action bars (header with author and date kept; option
  ``record_text="block"`` gives the whole post sub-tree);
* ``body``: the ``text`` field (post body without header / signature chrome), which is
  what harvest outputs and what the gold holds.

Fields: ``date`` right (run.py's rule) and ``author`` right, where ``author_ok`` is
run.py's rule (profile URL equals the gold href) and ``author_ok*`` also accepts the name
when the gold "user" is a plain name (FluxBB pages have no profile links) and resolves
relative gold hrefs against the page's ``<base href>``.

Cost: ``ms`` is wall-clock per page, ``x lxml`` its median ratio to lxml's parse
(run.py's baseline, wall-clock), ``cpu x`` the same ratio in CPU time
(``time.process_time``, best of 3 parses), which a loaded machine inflates less.
"""

from __future__ import annotations

import argparse
import json
import re
import signal
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import urljoin, urlsplit

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from datasets import dataset_root  # noqa: E402
from run import forum_fields_ok, lxml_baseline  # noqa: E402
from scoring import match  # noqa: E402
from timing import install_page_timeout  # noqa: E402

import scrapy_records  # noqa: E402

_BASE_RE = re.compile(r"<base\s[^>]*href\s*=\s*[\"']([^\"']+)", re.I)


def _norm(url: str | None, base: str) -> str:
    if not url:
        return ""
    u = urlsplit(urljoin(base, url.strip()))
    return (u.path.rstrip("/") + ("?" + u.query if u.query else "")).lower()


def author_ok_star(
    pred_name: str | None, pred_url: str | None, gold: str | None, page_url: str, html: str
) -> bool | None:
    """Author right: the profile URL (gold href resolved against ``<base href>`` too) or,
    when the gold is a plain name, the name."""
    if not gold:
        return None
    if not re.search(r"[/?=.]", gold):  # a name, not an href
        return bool(pred_name) and pred_name.strip().lower() == gold.strip().lower()
    m = _BASE_RE.search(html[:20000])
    bases = [page_url] + ([urljoin(page_url, m.group(1))] if m else [])
    p = _norm(pred_url, page_url)
    return any(p == _norm(gold, b) for b in bases) if p else False


def cpu_baseline(body: bytes, repeat: int = 3) -> float:
    """Best-of-``repeat`` CPU time (``time.process_time``) of lxml's parse, as run.py's
    :func:`lxml_baseline` (decoded first, parsed the way Scrapy parses)."""
    import lxml.html
    from parsel.selector import create_root_node

    from scrapy_records.page import decode_html

    text = decode_html(body)[0]
    best = float("inf")
    for _ in range(repeat):
        t = time.process_time()
        create_root_node(text, lxml.html.HTMLParser)
        best = min(best, time.process_time() - t)
    return best


def load(root: Path):
    for path in sorted((root / "forums").glob("*.json")):
        d = json.loads(path.read_text(encoding="utf-8"))
        gold = d.get("gold_standard_annotation", [])
        yield path.name, d.get("url") or "", d["html"], gold


class Tally:
    def __init__(self, name: str) -> None:
        self.name = name
        self.tp = self.pred = self.gold = self.perfect = self.pages = 0
        self.d_ok = self.d_n = self.a_ok = self.a_n = self.a2_ok = self.a2_n = 0
        self.ms: list[float] = []
        self.x: list[float] = []
        self.cx: list[float] = []
        self.errors = 0

    def add(self, sc, fields_list, gold, url, html, names=None) -> None:
        self.tp += sc.tp
        self.pred += sc.predicted
        self.gold += sc.gold
        self.perfect += sc.perfect
        self.pages += 1
        for i, j in sc.pairs:
            g = gold[j]
            extra = {
                "date": (g.get("datetime") or {}).get("surface_form"),
                "user": (g.get("user") or {}).get("surface_form"),
            }
            d_ok, a_ok = forum_fields_ok(fields_list[i], extra, url)
            if d_ok is not None:
                self.d_n += 1
                self.d_ok += d_ok
            if a_ok is not None:
                self.a_n += 1
                self.a_ok += a_ok
            a2 = author_ok_star(
                fields_list[i].get("author"),
                fields_list[i].get("author_url"),
                extra["user"],
                url,
                html,
            )
            if a2 is not None:
                self.a2_n += 1
                self.a2_ok += a2

    def line(self) -> str:
        p = self.tp / self.pred if self.pred else 0.0
        r = self.tp / self.gold if self.gold else 0.0
        f = 2 * p * r / (p + r) if p + r else 0.0
        ms = statistics.median(self.ms) if self.ms else 0.0
        x = statistics.median(self.x) if self.x else 0.0
        cx = statistics.median(self.cx) if self.cx else 0.0
        return (
            f"{self.name:<18} {self.pages:>5} {p:6.3f} {r:6.3f} {f:6.3f} "
            f"{self.perfect:>4}/{self.pages:<3} "
            f"{self.errors:>6} {ms:8.1f} {x:7.1f} {cx:7.1f}  "
            f"date_ok={self.d_ok / max(1, self.d_n):.3f} "
            f"author_ok={self.a_ok / max(1, self.a_n):.3f} "
            f"author_ok*={self.a2_ok / max(1, self.a2_n):.3f}"
        )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=None, help="datasets folder (default ../shared/datasets)")
    ap.add_argument("--ours", default="mibat,auto", help="comma list of our extractors")
    ap.add_argument("--no-peer", action="store_true", help="skip harvest-webforum")
    ap.add_argument("--timeout", type=int, default=60)
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    root = dataset_root(args.data)
    if root is None or not (root / "forums").is_dir():
        print("forums dataset not found (give --data); skipping")
        return 0
    harvest = None
    if not args.no_peer:
        try:
            import harvest  # type: ignore[import-not-found]  # noqa: F811
        except Exception as e:  # pragma: no cover - optional peer
            print(f"# harvest-webforum not available ({e}); pip install harvest-webforum")
    ours = [n for n in args.ours.split(",") if n]
    tallies = {}
    for n in ours:
        tallies[n + ":record"] = Tally(n + ":record")
        tallies[n + ":body"] = Tally(n + ":body")
    if harvest is not None:
        tallies["harvest"] = Tally("harvest")
    install_page_timeout()
    for name, url, html, gold in load(root):
        gold_texts = [g["post_text"]["surface_form"] for g in gold]
        fallback = [(g.get("datetime") or {}).get("surface_form") for g in gold]
        base = lxml_baseline(html.encode("utf-8"))
        cbase = cpu_baseline(html.encode("utf-8"))
        line = [f"{name[:48]:<48} gold={len(gold):>3}"]
        for n in ours:
            t0, c0 = time.perf_counter(), time.process_time()
            signal.alarm(args.timeout)
            try:
                res = scrapy_records.extract(html.encode("utf-8"), url, extractor=n)
                recs = res.records
                err = None
            except Exception as e:  # count, do not stop the run
                recs, err = [], repr(e)
            finally:
                signal.alarm(0)
            dt, dc = time.perf_counter() - t0, time.process_time() - c0
            fields = [dict(r.fields) for r in recs]
            for view in ("record", "body"):
                t = tallies[f"{n}:{view}"]
                texts = (
                    [r.text for r in recs]
                    if view == "record"
                    else [r.fields.get("text") or r.text for r in recs]
                )
                sc = match(texts, gold_texts, fallback)
                t.add(sc, fields, gold, url, html)
                t.ms.append(dt * 1000)
                t.x.append(dt / base if base else 0.0)
                t.cx.append(dc / cbase if cbase else 0.0)
                t.errors += err is not None
                if view == "record":
                    line.append(f"{n}={sc.tp}/{sc.predicted}")
        if harvest is not None:
            t0, c0 = time.perf_counter(), time.process_time()
            signal.alarm(args.timeout)
            try:
                posts = harvest.extract_data(html, url)["posts"]
                err = None
            except Exception as e:
                posts, err = [], repr(e)[:80]
            finally:
                signal.alarm(0)
            dt, dc = time.perf_counter() - t0, time.process_time() - c0
            t = tallies["harvest"]
            fields = []
            for p in posts:
                user = p.get("user") or ""
                is_url = bool(re.search(r"[/?=]", user))
                fields.append(
                    {
                        "date_raw": str(p.get("datetime") or ""),
                        "date": str(p.get("datetime") or ""),
                        "author_url": user if is_url else None,
                        "author": None if is_url else user,
                    }
                )
            sc = match([p.get("post_text") or "" for p in posts], gold_texts, fallback)
            t.add(sc, fields, gold, url, html)
            t.ms.append(dt * 1000)
            t.x.append(dt / base if base else 0.0)
            t.cx.append(dc / cbase if cbase else 0.0)
            t.errors += err is not None
            line.append(f"harvest={sc.tp}/{sc.predicted}" + (f" ERR {err}" if err else ""))
        if args.verbose:
            print("  " + " ".join(line))
    print(
        f"{'system':<18} {'pages':>5} {'P':>6} {'R':>6} {'F1':>6} {'perfect':>8} "
        f"{'errors':>6} {'ms':>8} {'x lxml':>7} {'cpu x':>7}  fields"
    )
    for t in tallies.values():
        print(t.line())
    return 0


if __name__ == "__main__":
    sys.exit(main())

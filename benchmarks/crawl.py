"""Crawl benchmark of the Scrapy integration: the bundled demo site, or a folder of saved pages.

With ``--pages DIR`` (a folder, or a ``.zip`` such as the datasets' ``modern/estuka-dev.zip``),
the saved pages are served on 127.0.0.1 through a local HTTP proxy, each site under its own
host name (``http://<site>.example/...``), so that the add-on sees one site per folder as on
the web. A page's site is its folder, or its folder's parent when every folder holds a
single page (``site/query/page.htm``). Modes there: ``plain`` (the callback does nothing),
``unsupervised`` (``RECORDS_WRAPPERS = False``), ``defaults`` (the add-on as installed),
``workers1``/``workers2``/... (defaults with N worker processes), ``inthread``
(``RECORDS_WORKERS = 0``), ``idle`` (defaults with ``RECORDS_INDUCE_WHEN_IDLE``: the
templates that got their samples and no further page are induced and stored at the end;
``RECORDS_MAX_SAMPLES`` raised to the number of pages, so that no template's samples are
cut by the cap of 100 held pages) and
``recrawl`` (the next crawl of the same sites: the same settings on the store an untimed
``idle`` crawl filled; the stored wrappers extract the pages that fit them); each ratio is
to ``plain`` in the same run.

On the demo site:

Every mode crawls the same pages in its own subprocess (the Twisted reactor starts once per
process), in the same run, and reports pages per second:

* ``plain``: no add-on (Scrapy alone, the spider's own parsing);
* ``plain_items``: no add-on, the spider yields 5 more items per page (about as many items as
  the add-on's records): Scrapy's own cost of handling that many items;
* ``unsupervised``: add-on with ``RECORDS_WRAPPERS = False`` (every page mined by the extractors);
* ``wrappers``: add-on with a fresh wrapper store (induce after 2 pages, then reuse);
* ``reuse``: add-on again on the store the ``wrappers`` run filled (reuse from the first page);
* ``inline``: like ``wrappers`` but ``RECORDS_THREADED = False`` (mining in the reactor thread);
* ``reuse_inline``: like ``reuse`` but ``RECORDS_THREADED = False``.

It also reports the largest reactor stall (a 10 ms ``LoopingCall``'s worst lateness), the
number that decides whether mining must leave the reactor thread; ``--stalls DIR`` writes
what every thread of the crawl's process was doing during the stalls of 40 ms or more.

    python benchmarks/crawl.py [--repeat 4] [--rounds 3]
        [--modes plain,plain_items,unsupervised,wrappers,reuse,inline]
    python benchmarks/crawl.py --pages ../shared/datasets/modern/estuka-dev.zip [--rounds 2]
        [--modes plain,unsupervised,defaults,workers1,workers2]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "example_project"))
sys.path.insert(0, str(REPO))

from demo.site import N_POSTS, N_PRODUCTS, PER_PAGE, POSTS_PER_PAGE, DemoSite  # noqa: E402
from saved_site import SavedSite  # noqa: E402

RUNNER = textwrap.dedent(
    """
    import json, sys, time
    import scrapy
    from scrapy.crawler import CrawlerProcess
    from twisted.internet import task

    cfg = json.load(open(sys.argv[1]))

    class Bench(scrapy.Spider):
        name = "bench"

        async def start(self):
            meta = {"proxy": cfg["proxy"]} if cfg.get("proxy") else {}
            for r in range(cfg["repeat"]):
                for path in cfg["paths"]:
                    yield scrapy.Request(cfg["base"] + path, callback=self.parse, dont_filter=True,
                                         meta=meta)

        def parse(self, response):
            if cfg.get("bare"):  # the callback does nothing
                return
            # the spider's own light parsing, as a user's spider would do
            yield {"url": response.url, "title": response.css("title::text").get()}
            for k in range(cfg.get("extra_items", 0)):  # baseline: as many items as records
                yield {"url": response.url, "k": k}

    lag = {"max": 0.0, "last": None}

    def tick():
        now = time.perf_counter()
        if lag["last"] is not None:
            lag["max"] = max(lag["max"], now - lag["last"] - 0.01)
        lag["last"] = now

    settings = {"LOG_LEVEL": "ERROR", "TELNETCONSOLE_ENABLED": False, "ROBOTSTXT_OBEY": False,
                "CONCURRENT_REQUESTS": 16, "CONCURRENT_REQUESTS_PER_DOMAIN": 16,
                "HTTPCACHE_ENABLED": False, "COOKIES_ENABLED": False}
    settings.update(cfg["settings"])
    process = CrawlerProcess(settings)
    crawler = process.create_crawler(Bench)
    process.crawl(crawler)
    loop = task.LoopingCall(tick)
    loop.start(0.01)
    stalls = {}
    if cfg.get("stalls"):  # what every thread was doing while the reactor was 40 ms late
        import threading, traceback

        def where(frame):
            return " < ".join(
                f"{f.filename.rsplit('/', 1)[-1]}:{f.lineno}:{f.name}"
                for f in reversed([f for f in traceback.extract_stack(frame)
                                   if not f.filename.startswith("<frozen")][-5:])
            )

        def watch():
            main, me = threading.main_thread().ident, threading.get_ident()
            while True:
                time.sleep(0.005)
                last = lag["last"]
                if last is None or time.perf_counter() - last < 0.04:
                    continue
                frames = sys._current_frames()
                key = tuple(sorted(("MAIN " if i == main else "thread ") + where(f)
                                   for i, f in frames.items() if i != me))
                stalls[key] = stalls.get(key, 0) + 1

        threading.Thread(target=watch, daemon=True).start()
    t0 = time.perf_counter()
    process.start()
    dt = time.perf_counter() - t0
    if cfg.get("stalls"):
        with open(cfg["stalls"], "w") as f:
            for key, n in sorted(stalls.items(), key=lambda kv: -kv[1])[:10]:
                f.write(f"{n} samples (5 ms apart) of a stall of 40 ms or more:{chr(10)}")
                f.write("".join(f"   {line}{chr(10)}" for line in key) + chr(10))
    st = crawler.stats.get_stats()
    pages = st.get("response_received_count", 0)
    import resource
    cpu = resource.getrusage(resource.RUSAGE_SELF)
    json.dump({"pages": pages, "seconds": dt, "max_lag": lag["max"],
               "cpu": cpu.ru_utime + cpu.ru_stime,
               "stats": {k: v for k, v in st.items() if k.startswith("records/")}},
              open(cfg["out"], "w"), default=str)
    """
)

ADDON = {"ADDONS": {"scrapy_records.Addon": 300}}


def paths() -> list[str]:
    lists = [f"shop/page/{k}" for k in range(1, (N_PRODUCTS + PER_PAGE - 1) // PER_PAGE + 1)]
    details = [f"shop/product/{k}" for k in range(1, N_PRODUCTS + 1)]
    forum = [
        f"forum/thread/1?page={k}"
        for k in range(1, (N_POSTS + POSTS_PER_PAGE - 1) // POSTS_PER_PAGE + 1)
    ]
    return lists + details + forum


#: ``--py-spy DIR``: where each mode's samples of the crawl's process go (collapsed stacks)
PROFILE_DIR: Path | None = None
#: ``--gil``: py-spy samples only the thread holding the GIL (where the process's CPU goes)
PROFILE_GIL = False
#: ``--stalls DIR``: where each mode's reactor stalls go (every thread's stack, sampled)
STALLS_DIR: Path | None = None


def run_mode(
    site: DemoSite | None,
    workdir: Path,
    name: str,
    settings: dict,
    repeat: int,
    urls: list[str] | None = None,
    proxy: str | None = None,
) -> dict:
    runner = workdir / "runner.py"
    runner.write_text(RUNNER)
    cfg = {
        "base": site.url if site is not None else "",
        "paths": paths() if urls is None else urls,
        "repeat": repeat,
        "settings": settings,
        "out": str(workdir / f"{name}.json"),
        "extra_items": 5 if name == "plain_items" else 0,
        "proxy": proxy,
        "bare": urls is not None,
        "stalls": str(STALLS_DIR / f"{name}.txt") if STALLS_DIR is not None else None,
    }
    (workdir / f"{name}.cfg").write_text(json.dumps(cfg))
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cmd = [sys.executable, str(runner), str(workdir / f"{name}.cfg")]
    if PROFILE_DIR is not None:  # sample every thread of the crawl's process (py-spy)
        out = PROFILE_DIR / f"{name}.txt"
        cmd = [
            "py-spy",
            "record",
            "--format",
            "raw",
            "--rate",
            "200",
            "--threads",
            *(["--gil"] if PROFILE_GIL else []),
            "-o",
            str(out),
            "--",
            *cmd,
        ]
    proc = subprocess.run(
        cmd,
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    if proc.returncode != 0:
        raise SystemExit(f"{name} failed:\n{proc.stderr[-4000:]}")
    return json.loads((workdir / f"{name}.json").read_text())


def mining_cost(repeat: int = 3) -> dict[str, float]:
    """Median over the demo pages of the best of ``repeat`` runs, in ms, of
    :meth:`RecordsRuntime.mine` in this process (no crawl, no threads): unsupervised
    extraction versus wrapper application."""
    import statistics
    import time

    from demo.site import route
    from scrapy.http import HtmlResponse, Request

    from scrapy_records.scrapy.runtime import RecordsRuntime
    from scrapy_records.scrapy.settings import RecordsConfig

    bodies = []
    for p in paths():
        path, _, q = p.partition("?")
        from urllib.parse import parse_qs

        bodies.append(("http://127.0.0.1/" + p, route("/" + path, parse_qs(q))[2]))

    def responses():
        return [HtmlResponse(u, body=b, encoding="utf-8", request=Request(u)) for u, b in bodies]

    out = {}
    for name, cfg in (
        ("unsupervised", RecordsConfig(wrapper_store="memory:", wrappers=False)),
        ("wrappers", RecordsConfig(wrapper_store="memory:", induction_samples=2)),
    ):
        rt = RecordsRuntime(cfg)
        for r in responses():  # warm up; induces the wrappers in "wrappers" mode
            rt.mine(r)
        # per page the best of `repeat` runs (a shared machine only ever adds time), then
        # the median over the pages; each response's tree is built first, as the spider
        # middleware builds it in the reactor thread before mining
        best = [float("inf")] * len(bodies)
        sources = {}
        for _ in range(repeat):
            for k, r in enumerate(responses()):
                r.selector  # noqa: B018
                t = time.perf_counter()
                o = rt.mine(r)
                best[k] = min(best[k], time.perf_counter() - t)
                sources[o.source] = sources.get(o.source, 0) + 1
        out[name] = statistics.median(best) * 1000
        out[name + "_sources"] = sources
        rt.close()  # (its induction started worker processes: stop them before exiting)
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=None, help="times every page is crawled")
    ap.add_argument("--modes", default=None, help="comma-separated; see the module docstring")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds (best run per mode)")
    ap.add_argument("--pages", help="a folder or .zip of saved pages to crawl instead of the demo")
    ap.add_argument(
        "--stalls",
        metavar="DIR",
        help="write, per mode, what every thread of the crawl's process was doing while the"
        " reactor was 40 ms or more late (sampled every 5 ms) into DIR/<mode>.txt",
    )
    ap.add_argument(
        "--py-spy",
        metavar="DIR",
        help="record each mode's crawl process with py-spy (installed separately) into DIR",
    )
    ap.add_argument(
        "--gil",
        action="store_true",
        help="with --py-spy: sample only the thread that holds the GIL (the process's CPU)",
    )
    args = ap.parse_args(argv)
    if args.py_spy:
        global PROFILE_DIR, PROFILE_GIL
        PROFILE_GIL = args.gil
        PROFILE_DIR = Path(args.py_spy).resolve()
        PROFILE_DIR.mkdir(parents=True, exist_ok=True)
    if args.stalls:
        global STALLS_DIR
        STALLS_DIR = Path(args.stalls).resolve()
        STALLS_DIR.mkdir(parents=True, exist_ok=True)
    if args.repeat is None:
        args.repeat = 1 if args.pages else 4
    if args.pages:
        return saved_pages(args)
    modes = (args.modes or "plain,plain_items,unsupervised,wrappers,reuse,inline").split(",")
    with tempfile.TemporaryDirectory() as tmp, DemoSite() as site:
        work = Path(tmp)
        store = f"sqlite:///{work / 'wrappers.sqlite'}"
        conf = {
            "plain": {},
            "plain_items": {},
            "unsupervised": dict(ADDON, RECORDS_WRAPPERS=False),
            "wrappers": dict(ADDON, RECORDS_WRAPPER_STORE=store, RECORDS_INDUCTION_SAMPLES=2),
            "reuse": dict(ADDON, RECORDS_WRAPPER_STORE=store, RECORDS_INDUCTION_SAMPLES=2),
            "reuse_inline": dict(
                ADDON,
                RECORDS_WRAPPER_STORE=store,
                RECORDS_INDUCTION_SAMPLES=2,
                RECORDS_THREADED=False,
            ),
            "inline": dict(
                ADDON,
                RECORDS_WRAPPER_STORE=f"sqlite:///{work / 'inline.sqlite'}",
                RECORDS_INDUCTION_SAMPLES=2,
                RECORDS_THREADED=False,
            ),
        }
        res: dict[str, dict] = {}
        for rnd in range(args.rounds):  # interleaved rounds; the fastest run of each mode counts
            for m in modes:
                if m == "wrappers" and rnd:  # a fresh store again, so this mode induces
                    (work / "wrappers.sqlite").unlink(missing_ok=True)
                if m == "inline":
                    (work / "inline.sqlite").unlink(missing_ok=True)
                r = run_mode(site, work, m, conf[m], args.repeat)
                if m not in res or r["seconds"] < res[m]["seconds"]:
                    res[m] = r
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"demo site crawl, {len(paths())} distinct pages x {args.repeat}, best of {args.rounds}"
        f" rounds; CPUs: {os.cpu_count()}, load average {load:.1f}"
    )
    print(
        f"{'mode':<14}{'pages':>7}{'seconds':>9}{'pages/s':>9}{'vs plain':>10}{'max lag ms':>12}"
        f"{'mining cpu s':>13}{'records':>9}{'induced':>9}{'reused':>8}"
    )
    base = res.get("plain")
    for m, r in res.items():
        pps = r["pages"] / r["seconds"] if r["seconds"] else 0.0
        ratio = f"{pps / (base['pages'] / base['seconds']):.2f}x" if base else "-"
        s = r["stats"]
        print(
            f"{m:<14}{r['pages']:>7}{r['seconds']:>9.2f}{pps:>9.1f}{ratio:>10}"
            f"{r['max_lag'] * 1000:>12.1f}"
            f"{s.get('records/mining_seconds', 0):>13.2f}{s.get('records/records', 0):>9}"
            f"{s.get('records/wrapper/induced', 0):>9}"
            f"{s.get('records/wrapper/reused', 0):>8}"
        )
    cost = mining_cost(5)
    print(
        "mining cost per page (in-process, best of 5, median): "
        f"unsupervised {cost['unsupervised']:.2f} ms, "
        f"wrapper reuse {cost['wrappers']:.2f} ms "
        f"({cost['unsupervised'] / cost['wrappers']:.2f}x faster;"
        f" sources {cost['wrappers_sources']})"
    )
    if "wrappers" in res and "unsupervised" in res:
        a = res["wrappers"]["pages"] / res["wrappers"]["seconds"]
        b = res["unsupervised"]["pages"] / res["unsupervised"]["seconds"]
        print(
            f"wrapper reuse on vs off: {a:.1f} vs {b:.1f} pages/s ({a / b:.2f}x); "
            f"mining CPU seconds {res['wrappers']['stats'].get('records/mining_seconds')} vs "
            f"{res['unsupervised']['stats'].get('records/mining_seconds')}"
        )


def saved_pages(args: argparse.Namespace) -> None:
    """Crawl a folder of saved pages in every mode; print pages/s as ratios to plain."""
    modes = (args.modes or "plain,unsupervised,defaults,workers1,workers2,inthread").split(",")
    with tempfile.TemporaryDirectory() as tmp, SavedSite(args.pages) as site:
        work = Path(tmp)
        res: dict[str, dict] = {}
        for rnd in range(args.rounds):  # interleaved; the fastest run of each mode counts
            for m in modes:
                store = work / f"{m}-{rnd}.sqlite"  # a fresh store each time: induction included
                conf: dict = dict(ADDON, RECORDS_WRAPPER_STORE=f"sqlite:///{store}")
                if m in ("idle", "recrawl"):  # (and every page may wait as a sample)
                    conf["RECORDS_INDUCE_WHEN_IDLE"] = True
                    conf["RECORDS_MAX_SAMPLES"] = max(100, len(site.urls))
                if m == "recrawl":  # an untimed first crawl fills the store
                    run_mode(None, work, "prime", conf, 1, site.urls, site.proxy)
                if m == "plain":
                    conf = {}
                elif m == "unsupervised":
                    conf["RECORDS_WRAPPERS"] = False
                elif m.startswith("workers"):
                    conf["RECORDS_WORKERS"] = int(m[len("workers") :])
                elif m == "inthread":
                    conf["RECORDS_WORKERS"] = 0
                elif m not in ("defaults", "idle", "recrawl"):
                    raise SystemExit(f"unknown mode {m!r}")
                r = run_mode(None, work, m, conf, args.repeat, site.urls, site.proxy)
                if m not in res or r["seconds"] < res[m]["seconds"]:
                    res[m] = r
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    n_sites = len({u.split("/")[2] for u in site.urls})
    print(
        f"saved pages crawl: {len(site.urls)} pages of {n_sites} sites"
        f" ({site.total_bytes / len(site.urls) / 1024:.0f} KB mean) x {args.repeat},"
        f" best of {args.rounds} rounds; CPUs: {os.cpu_count()}, load average {load:.1f}"
    )
    print(
        f"{'mode':<14}{'pages':>7}{'seconds':>9}{'pages/s':>9}{'vs plain':>10}"
        f"{'max lag ms':>12}{'crawl cpu s':>12}{'records':>9}{'induced':>9}{'by wrapper':>11}"
        f"{'errors':>8}{'in workers':>11}"
    )
    base = res.get("plain")
    for m, r in res.items():
        pps = r["pages"] / r["seconds"] if r["seconds"] else 0.0
        ratio = f"{pps / (base['pages'] / base['seconds']):.3f}x" if base else "-"
        s = r["stats"]
        print(
            f"{m:<14}{r['pages']:>7}{r['seconds']:>9.2f}{pps:>9.1f}{ratio:>10}"
            f"{r['max_lag'] * 1000:>12.1f}{r['cpu']:>12.2f}{s.get('records/records', 0):>9}"
            f"{s.get('records/wrapper/induced', 0):>9}"
            f"{s.get('records/wrapper/reused', 0):>11}{s.get('records/errors', 0):>8}"
            f"{s.get('records/pages_in_workers', 0):>11}"
        )


if __name__ == "__main__":
    main()

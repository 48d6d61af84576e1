"""Timing helpers shared by the benchmarks (best-of-N wall time, a per-page time limit)."""

from __future__ import annotations

import signal
import time
from collections.abc import Callable
from typing import Any


def best_time(fn: Callable[[], Any], repeat: int = 3) -> float:
    """Best of ``repeat`` wall-clock runs of ``fn``, in seconds (the least disturbed one)."""
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


class PageTimeout(Exception):
    """A page took longer than the benchmark's per-page limit (counted as an error)."""


def _alarm(signum, frame):  # pragma: no cover - only on a hang
    raise PageTimeout()


def install_page_timeout() -> None:
    """Make ``signal.alarm(seconds)`` raise :class:`PageTimeout` in the main thread."""
    signal.signal(signal.SIGALRM, _alarm)


def clear_text_caches(package: str = "scrapy_records") -> None:
    """Empty the library's per-text memo caches (class-token names, date anchors, parsed
    dates), so a repeated timing of one page pays for its text as the first run did
    instead of finding it cached. (Parser objects and other per-process set-up stay warm,
    as they are on every page of a crawl.) ``package``: the library's import name (another
    for the copy of an older commit ``ab.py`` compares with)."""
    import importlib

    anchors = importlib.import_module(f"{package}.extractors.mibat.anchors")
    dates = importlib.import_module(f"{package}.fields.dates")
    naming = importlib.import_module(f"{package}.fields.naming")
    naming._TOKEN_CACHE.clear()
    anchors._leaf_is_date.cache_clear()
    dates._parse_cached.cache_clear()

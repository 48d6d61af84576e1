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

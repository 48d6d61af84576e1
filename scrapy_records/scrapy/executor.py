"""Where mining runs: worker processes (``RECORDS_WORKERS`` > 0) or the calling thread.

:class:`Executor` runs the plain-data functions of :mod:`scrapy_records.scrapy.worker`.
With workers, a page's CPU work happens in another process: the reactor thread never waits
on the GIL for it and throughput grows with the cores. A call blocks only the Twisted
pool thread that made it. A worker that crashes, or a page that runs past
``RECORDS_WORKER_TIMEOUT``, costs that page (:class:`WorkerError`), never the crawl: the pool
is replaced and the next pages go to fresh workers.

The workers start in the background (:meth:`Executor.start`; the forkserver imports the
library once and forks them with it loaded); until they are up, pages are mined in the
calling thread, so a short crawl never waits a second or two for processes to start.
"""

from __future__ import annotations

import gc
import logging
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from types import SimpleNamespace
from typing import Any, TypeVar

from scrapy_records.scrapy.worker import MINERS

logger = logging.getLogger(__name__)

#: Seconds the worker processes may take to start (the warm-up's budget, whatever
#: ``RECORDS_WORKER_TIMEOUT`` a page gets).
STARTUP_TIMEOUT = 60.0

T = TypeVar("T")
R = TypeVar("R")


#: what the forkserver imports once, so that every worker starts with it loaded
PRELOAD = ["scrapy_records.scrapy.worker", *MINERS]


def _up() -> bool:
    """A job that tells a worker is up (its imports done)."""
    return True


class WorkerError(RuntimeError):
    """A page's work was lost: its worker crashed or it ran past the time budget."""


class _Timeout(Exception):
    """Raised in a worker by its alarm (a page past its budget)."""


def _alarm(signum: int, frame: Any) -> None:
    raise _Timeout()


#: How much lower the workers' scheduling priority is than the crawl's process (``nice``):
#: with as many workers as cores, the reactor would otherwise wait for a core.
WORKER_NICENESS = 5


def _init_worker() -> None:
    # a worker ignores Ctrl-C (the crawl stops it) and aborts a page by its own alarm
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGALRM, _alarm)
    try:  # the crawl's process (reactor, downloads, items) goes first when cores are short
        os.nice(WORKER_NICENESS)
    except (AttributeError, OSError):  # (no nice() on Windows)
        pass
    # the modules every page uses are never traversed by a full collection again
    gc.freeze()


def _call(fn: Callable[[T], R], arg: T, seconds: float) -> R:
    """Run ``fn(arg)`` in a worker with an alarm after ``seconds`` (Python code between
    two steps of the page's work sees it). The cyclic garbage collector waits until the
    page is done: a page's model and regions are thousands of small containers without
    cycles, which reference counting frees, and the worker's one thread is the only one
    allocating (about 4% of mining's CPU time)."""
    signal.setitimer(signal.ITIMER_REAL, seconds)
    gc.disable()
    try:
        return fn(arg)
    except _Timeout:
        raise WorkerError(f"page ran past its {seconds:g} s budget") from None
    finally:
        gc.enable()
        signal.setitimer(signal.ITIMER_REAL, 0)


@contextmanager
def _main_not_imported() -> Iterator[None]:
    """Start worker processes without importing the crawl's ``__main__`` in them.

    multiprocessing re-imports the parent's main script in every new process; a crawl
    started from a script without an ``if __name__ == "__main__"`` guard (a common way to
    run ``CrawlerProcess``) would then crawl again in each worker. A main module whose
    spec is named ``__main__`` is the one case multiprocessing does not import again. The
    workers only need the library's own modules, which they import by name."""
    main = sys.modules.get("__main__")
    if main is None:
        yield
        return
    saved = main.__dict__.get("__spec__", _MISSING)
    main.__spec__ = SimpleNamespace(name="__main__")  # type: ignore[assignment]
    try:
        yield
    finally:
        if saved is _MISSING:
            del main.__spec__
        else:
            main.__spec__ = saved


_MISSING = object()


class Executor:
    """Runs a function on a job in ``workers`` processes, or in the calling thread (0)."""

    def __init__(self, workers: int, timeout: float = 60.0) -> None:
        self.workers = max(0, int(workers))
        self.timeout = float(timeout)
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.RLock()  # the pool and the start-up state
        # submits, which may start worker processes (the first waits for the forkserver's
        # imports, half a second): under their own lock, so that calling threads do not
        # queue up behind the start-up instead of mining here meanwhile
        self._submitting = threading.Lock()
        self._ready = threading.Event()  # the workers are up: jobs go to them
        self._starting = False
        self._here = threading.Semaphore(1)  # jobs run in a calling thread while starting
        self.restarts = 0

    def start(self) -> None:
        """Start the worker processes in the background (once; again after a broken pool is
        replaced). Until they are up, :meth:`run` works in the calling thread."""
        if not self.workers:
            return
        with self._lock:
            if self._starting or self._ready.is_set():
                return
            self._starting = True
        threading.Thread(target=self._warm_up, name="scrapy_records-workers", daemon=True).start()

    def ready(self, timeout: float | None = None) -> bool:
        """Start the workers if needed and wait up to ``timeout`` seconds for them; whether
        jobs now go to them (``True`` at once without workers: jobs run here)."""
        if not self.workers:
            return True
        self.start()
        return self._ready.wait(timeout)

    def _warm_up(self) -> None:
        try:
            pool = self._get_pool()
            with self._submitting, _main_not_imported():
                ups = [pool.submit(_up) for _ in range(self.workers)]
            for f in ups:
                # starting processes on a loaded machine may take longer than a page may
                f.result(timeout=max(self.timeout, STARTUP_TIMEOUT))
        except Exception as exc:  # the calling thread keeps mining
            logger.warning("scrapy_records: worker processes did not start: %s", exc)
            with self._lock:
                self._starting = False
            return
        self._ready.set()
        with self._lock:
            self._starting = False

    def _get_pool(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                # forkserver: never fork the crawl's process (its threads and reactor)
                methods = multiprocessing.get_all_start_methods()
                method = "forkserver" if "forkserver" in methods else "spawn"
                ctx = multiprocessing.get_context(method)
                if method == "forkserver":
                    ctx.set_forkserver_preload(PRELOAD)
                self._pool = ProcessPoolExecutor(
                    self.workers, mp_context=ctx, initializer=_init_worker
                )
            return self._pool

    def run(self, fn: Callable[[T], R], job: T, here: bool = False) -> R:
        """``fn(job)``, in a worker process when there are workers (``here``: in this
        thread anyway, for a job smaller than its round trip to a worker).

        :raises WorkerError: the worker crashed or the job ran past the time budget.
        """
        if not self.workers or here:
            return fn(job)
        if not self._ready.is_set():
            self.start()
            # until the workers are up, one calling thread at a time works here (several
            # would only contend for the GIL and stall the reactor); the others wait
            while not self._ready.wait(0.02):
                if self._here.acquire(blocking=False):
                    try:
                        return fn(job)
                    finally:
                        self._here.release()
                if not self._starting and not self._ready.is_set():
                    return fn(job)  # the workers did not start: this thread mines
        pool = self._get_pool()
        try:
            with self._submitting, _main_not_imported():  # it may start a worker process
                future: Future[R] = pool.submit(_call, fn, job, self.timeout)
        except (BrokenProcessPool, RuntimeError):
            self._replace(pool, "the worker pool was broken")
            raise WorkerError("the worker pool was broken; the next pages get a new one") from None
        try:
            # a page stuck in C code never sees its alarm: give up on it a little later
            return future.result(timeout=self.timeout * 1.5 + 5)
        except BrokenProcessPool:
            self._replace(pool, "a worker process died")
            raise WorkerError("its worker process died") from None
        except FutureTimeout:
            self._replace(pool, f"a page ran past {self.timeout:g} s in C code")
            raise WorkerError(f"page ran past its {self.timeout:g} s budget") from None

    def _replace(self, pool: ProcessPoolExecutor, why: str) -> None:
        """Drop a broken or stuck pool (its processes are killed); the next call starts a
        new one. (After any submit under way: a process it starts meanwhile would find the
        pool's queues gone.)"""
        with self._submitting, self._lock:
            if self._pool is not pool:
                return  # another thread replaced it already
            self._pool = None
            self._ready.clear()  # the next pages start new workers, and wait in this thread
            self.restarts += 1
        logger.warning("scrapy_records: %s: starting new worker processes", why)
        for proc in list(getattr(pool, "_processes", {}).values()):
            try:
                proc.kill()
            except (OSError, AttributeError):
                pass
        pool.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        with self._submitting, self._lock:  # (after the workers' start, when under way)
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


def default_workers() -> int:
    """The machine's cores (the CPUs this process may use)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1

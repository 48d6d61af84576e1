"""Worker processes (``RECORDS_WORKERS``): what runs where, and what a crash or a page past
its budget costs (that job only)."""

from __future__ import annotations

import os
import threading
import time

import pytest

from scrapy_records.scrapy.executor import Executor, WorkerError


def pid(_job: object) -> int:
    return os.getpid()


def crash(_job: object) -> int:
    os._exit(3)  # a worker dying in C code or by the OOM killer looks the same


def collector(_job: object) -> tuple[bool, bool]:
    import gc

    return gc.isenabled(), gc.get_freeze_count() > 0


def spin(seconds: float) -> int:
    end = time.monotonic() + seconds
    n = 0
    while time.monotonic() < end:  # Python code: the worker's alarm interrupts it
        n += 1
    return n


@pytest.fixture
def executor():
    ex = Executor(2, timeout=1.0)
    yield ex
    ex.close()


def test_jobs_run_here_until_the_workers_are_up_then_in_them(executor, monkeypatch):
    # the workers' start is held back until the first job has run (a warm forkserver left by
    # an earlier test starts them within the first job's 20 ms wait otherwise)
    gate = threading.Event()
    warm_up = executor._warm_up
    monkeypatch.setattr(executor, "_warm_up", lambda: (gate.wait(60), warm_up()))
    assert executor.run(pid, None) == os.getpid()  # the workers are still starting
    gate.set()
    assert executor.ready(timeout=60)
    pids = {executor.run(pid, None) for _ in range(8)}
    assert os.getpid() not in pids and 1 <= len(pids) <= 2


def test_jobs_go_on_running_here_while_the_workers_start(executor, monkeypatch):
    """The workers' start waits in a submit for the forkserver (its imports take half a
    second): meanwhile one job after another runs here, none queues up behind the start."""
    gate = threading.Event()
    pool = executor._get_pool()
    submit = pool.submit

    def slow_submit(*args, **kwargs):
        gate.wait(60)  # the forkserver starting
        return submit(*args, **kwargs)

    monkeypatch.setattr(pool, "submit", slow_submit)
    ran: list[int] = []
    jobs = threading.Thread(target=lambda: ran.extend(executor.run(pid, None) for _ in range(3)))
    jobs.start()
    jobs.join(30)
    started = not jobs.is_alive()
    gate.set()
    jobs.join()
    assert started and ran == [os.getpid()] * 3
    assert executor.ready(timeout=60)
    assert os.getpid() not in {executor.run(pid, None) for _ in range(4)}


def test_closing_while_the_workers_start_waits_for_the_start(executor, monkeypatch):
    """A crawl may end while its workers start (a short crawl whose induction started them):
    the pool closes once the start's submits are through (a process launched after its
    queues are gone fails in the forkserver, with a traceback on the crawl's stderr)."""
    gate, submitting = threading.Event(), threading.Event()
    pool = executor._get_pool()
    submit = pool.submit

    def slow_submit(*args, **kwargs):
        submitting.set()
        gate.wait(60)  # the forkserver starting
        return submit(*args, **kwargs)

    monkeypatch.setattr(pool, "submit", slow_submit)
    executor.start()
    assert submitting.wait(60)
    closing = threading.Thread(target=executor.close)
    closing.start()
    closing.join(0.5)
    waited = closing.is_alive()
    gate.set()
    closing.join(60)
    assert waited and not closing.is_alive()


def test_without_workers_everything_runs_here():
    ex = Executor(0)
    assert ex.ready() and ex.run(pid, None) == os.getpid()


def test_a_crashed_worker_costs_its_job_only(executor):
    assert executor.ready(timeout=60)
    with pytest.raises(WorkerError, match="died"):
        executor.run(crash, None)
    assert executor.restarts == 1
    # the next job is not lost: it runs here while new workers start, then in them
    assert executor.run(spin, 0.0) >= 0
    assert executor.ready(timeout=60) and executor.run(pid, None) != os.getpid()


def test_a_job_past_its_budget_is_stopped_and_the_pool_goes_on(executor):
    assert executor.ready(timeout=60)
    with pytest.raises(WorkerError, match="budget"):
        executor.run(spin, 30.0)  # stopped by the worker's alarm after 1 s
    assert executor.run(pid, None) != os.getpid()  # the same workers serve on
    assert executor.restarts == 0


def test_a_worker_collects_garbage_between_pages_not_during_one(executor):
    import gc

    assert executor.ready(timeout=60)
    # in the worker: no collection while the page is worked on, the imports frozen out of
    # full collections; the crawl's own process is left as it was
    assert executor.run(collector, None) == (False, True)
    assert gc.isenabled()
    assert executor.run(pid, None) != os.getpid()

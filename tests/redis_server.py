"""A throw-away ``redis-server`` for the tests: a real server binary on 127.0.0.1 (and,
optionally, a Unix socket), on a free port, in its own temporary directory, without
persistence. ``.ci/run`` / ``scripts/bootstrap`` install the binary from Debian packages.

Use it as a context manager or through the :func:`redis_server` fixture::

    from redis_server import RedisServer, redis_server  # noqa: F401 (fixture)

    def test_something(redis_server):
        store = open_store(redis_server.url)

:meth:`RedisServer.stop` then :meth:`RedisServer.start` restarts an empty server on the
same port (an outage and a recovery); :meth:`RedisServer.kill` stops it with SIGKILL.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time

import pytest


def free_port() -> int:
    """A TCP port nobody listens on right now on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def redis_server_binary() -> str:
    """Path of ``redis-server`` (``$REDIS_SERVER``, ``PATH``, ``/usr/bin``)."""
    path = os.environ.get("REDIS_SERVER") or shutil.which("redis-server") or "/usr/bin/redis-server"
    if not os.path.exists(path):
        raise RuntimeError(
            "redis-server is not installed: the Redis wrapper store tests need it"
            " (Debian/Ubuntu: apt-get install redis-server, or run scripts/bootstrap)"
        )
    return path


class RedisServer:
    """One ``redis-server`` process (see the module docstring).

    :param port: TCP port (a free one by default; kept across :meth:`stop`/:meth:`start`).
    :param password: ``requirepass`` (the URLs then carry it).
    :param unix_socket: also listen on ``<tmpdir>/redis.sock`` (:attr:`unix_url`).
    """

    def __init__(
        self, port: int | None = None, *, password: str | None = None, unix_socket: bool = False
    ) -> None:
        self.port = port or free_port()
        self.password = password
        self.dir = tempfile.mkdtemp(prefix="records-redis-")
        self.socket_path = os.path.join(self.dir, "redis.sock") if unix_socket else None
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        auth = f":{self.password}@" if self.password else ""
        return f"redis://{auth}127.0.0.1:{self.port}/0"

    @property
    def unix_url(self) -> str:
        assert self.socket_path, "RedisServer(unix_socket=True) needed"
        auth = f":{self.password}@" if self.password else ""
        return f"unix://{auth}{self.socket_path}?db=0"

    def client(self, db: int = 0):
        """A redis-py client of this server (for assertions on the raw keys)."""
        import redis

        return redis.Redis(
            host="127.0.0.1", port=self.port, db=db, password=self.password, socket_timeout=5
        )

    def start(self) -> RedisServer:
        args = [
            redis_server_binary(),
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--dir",
            self.dir,
            "--save",
            "",
            "--appendonly",
            "no",
            "--daemonize",
            "no",
            "--protected-mode",
            "no",
            "--logfile",
            os.path.join(self.dir, "redis.log"),
        ]
        if self.password:
            args += ["--requirepass", self.password]
        if self.socket_path:
            args += ["--unixsocket", self.socket_path, "--unixsocketperm", "700"]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"redis-server exited at start: {self.log()[-2000:]}")
            try:
                if self.client().ping():
                    return self
            except Exception:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError("redis-server did not answer PING within 15 s")

    def log(self) -> str:
        try:
            with open(os.path.join(self.dir, "redis.log"), encoding="utf-8", errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL after 10 s); it can be started again."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:  # pragma: no cover
                self.proc.kill()
                self.proc.wait(10)
        self.proc = None

    def kill(self) -> None:
        """Stop the server at once (SIGKILL): connections drop without a goodbye."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        self.proc = None

    def cleanup(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.cleanup()


@pytest.fixture
def redis_server():
    """A fresh, empty ``redis-server`` for one test."""
    with RedisServer() as server:
        yield server

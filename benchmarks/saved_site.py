"""Saved pages (a folder or a ``.zip``) served on 127.0.0.1 as the sites they came from.

The server is an HTTP proxy: a crawl sends ``GET http://<site>.example/<path>`` to it
(``meta["proxy"]``), so every site keeps its own host name, as on the web, without DNS.
"""

from __future__ import annotations

import http.server
import re
import threading
import zipfile
from collections import defaultdict
from pathlib import Path, PurePosixPath
from urllib.parse import quote, urlsplit

PAGE_SUFFIXES = (".htm", ".html", ".xhtml")


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "page"


def read_pages(source: str | Path) -> dict[PurePosixPath, bytes]:
    """Every saved page under ``source`` (a folder or a ``.zip``), by relative path."""
    source = Path(source)
    pages: dict[PurePosixPath, bytes] = {}
    if source.suffix == ".zip":
        with zipfile.ZipFile(source) as zf:
            for name in zf.namelist():
                if name.lower().endswith(PAGE_SUFFIXES) and "__MACOSX" not in name:
                    pages[PurePosixPath(name)] = zf.read(name)
    else:
        for f in sorted(source.rglob("*")):
            if f.is_file() and f.suffix.lower() in PAGE_SUFFIXES:
                pages[PurePosixPath(f.relative_to(source).as_posix())] = f.read_bytes()
    if not pages:
        raise SystemExit(f"no saved pages (*.htm, *.html) under {source}")
    return pages


def site_urls(pages: dict[PurePosixPath, bytes]) -> dict[str, bytes]:
    """The page bodies by URL: a site per folder, or per folder's parent when every folder
    holds one page (``site/query/page.htm``, as saved search results are laid out)."""
    by_dir: dict[PurePosixPath, list[PurePosixPath]] = defaultdict(list)
    for path in pages:
        by_dir[path.parent].append(path)
    one_each = all(len(v) == 1 for v in by_dir.values())
    out = {}
    for path, body in sorted(pages.items()):
        site_dir = path.parent.parent if one_each else path.parent
        host = re.sub(r"^\d+-", "", _slug(site_dir.name or "site"))[:50] + ".example"
        *dirs, name = path.relative_to(site_dir).parts
        stem = PurePosixPath(name)
        parts = [_slug(d) for d in dirs] + [_slug(stem.stem) + stem.suffix.lower()]
        out[f"http://{host}/" + "/".join(quote(p) for p in parts)] = body
    return out


class SavedSite:
    """``with SavedSite(source) as site``: ``site.urls`` to crawl through ``site.proxy``."""

    def __init__(self, source: str | Path) -> None:
        self.pages = site_urls(read_pages(source))
        self.urls = list(self.pages)
        pages = self.pages

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:  # noqa: N802 - the http.server API
                url = self.path
                if not urlsplit(url).scheme:  # a direct request: the Host header names the site
                    url = f"http://{self.headers.get('Host', '')}{url}"
                body = pages.get(url)
                self.send_response(200 if body is not None else 404)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body or b"")))
                self.end_headers()
                self.wfile.write(body or b"")

            def log_message(self, *args: object) -> None:
                pass

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.proxy = f"http://127.0.0.1:{self._server.server_port}"

    def __enter__(self) -> SavedSite:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    @property
    def total_bytes(self) -> int:
        return sum(map(len, self.pages.values()))

"""A directory of JSON files (``dir:///path``): one file per wrapper, for export and review.

Layout: ``<root>/<site>/<template>.json`` (names escaped one to one: ``a:b`` is
``a%3Ab``) holding ``{"site", "template", "version", "updated", "signature", "document"}``
where ``document`` is the wrapper's JSON (parsed, so the file is readable and diffable).
Writes go to a temporary file renamed over the old one (atomic on POSIX); the
compare-and-set check holds an exclusive ``flock`` on ``<root>/.lock``, so several
processes can share the directory.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import unquote, urlparse

from scrapy_records.scrapy.store.base import StoredWrapper, VersionConflict, WrapperStore

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def _safe(name: str) -> str:
    """``name`` as one file name, one to one (``a:b`` and ``a_b`` are two files): other
    characters than ``[A-Za-z0-9._-]``, and a leading dot, as ``%XX`` of their UTF-8
    bytes; a long name keeps 100 characters and a hash of the whole."""
    out = _UNSAFE.sub(
        lambda m: "".join(f"%{b:02X}" for b in m.group().encode("utf-8", "surrogatepass")), name
    )
    if out.startswith("."):
        out = "%2E" + out[1:]
    if len(out) > 120:
        digest = hashlib.blake2b(name.encode("utf-8", "surrogatepass"), digest_size=8)
        out = f"{out[:100]}~{digest.hexdigest()}"
    return out or "%"


class DirectoryStore(WrapperStore):
    @classmethod
    def from_uri(cls, uri: str) -> DirectoryStore:
        """``dir:///path``, ``file:///path`` or a plain directory path."""
        if uri.startswith("file://"):
            return cls(urlparse(uri).path)
        return cls(uri.split("://", 1)[1] if "://" in uri else uri)

    def __init__(self, root: str) -> None:
        self.root = os.path.abspath(root)
        self.uri = f"dir://{self.root}"
        os.makedirs(self.root, exist_ok=True)
        self._tlock = threading.RLock()

    @contextmanager
    def _locked(self) -> Iterator[None]:
        with self._tlock:
            fd = os.open(os.path.join(self.root, ".lock"), os.O_RDWR | os.O_CREAT, 0o644)
            try:
                try:
                    import fcntl

                    fcntl.flock(fd, fcntl.LOCK_EX)
                except ImportError:  # pragma: no cover - Windows: thread lock only
                    pass
                yield
            finally:
                os.close(fd)

    def _path(self, site: str, template: str) -> str:
        return os.path.join(self.root, _safe(site), _safe(template) + ".json")

    def _load(self, path: str) -> StoredWrapper | None:
        try:
            with open(path, encoding="utf-8") as f:
                raw = f.read()
        except FileNotFoundError:
            return None
        try:
            data = json.loads(raw)
            doc = data["document"]
            return StoredWrapper(
                site=str(data["site"]),
                template=str(data["template"]),
                version=int(data["version"]),
                document=doc if isinstance(doc, str) else json.dumps(doc, ensure_ascii=False),
                signature=data.get("signature"),
                updated=float(data.get("updated", 0.0)),
            )
        except (ValueError, KeyError, TypeError):
            # A damaged file: hand back its raw text as the document so the caller's
            # wrapper validation reports it (and re-induction replaces it).
            parts = [unquote(p) for p in os.path.normpath(path).split(os.sep)[-2:]]
            return StoredWrapper(parts[0], parts[1][:-5], 0, raw, None, os.path.getmtime(path))

    def get(self, site: str, template: str) -> StoredWrapper | None:
        return self._load(self._path(site, template))

    def put(self, site, template, document, *, expected_version=None, signature=None) -> int:
        path = self._path(site, template)
        try:
            doc: Any = json.loads(document)
        except ValueError:
            doc = document
        with self._locked():
            cur = self._load(path)
            actual = cur.version if cur else None
            if actual != expected_version:
                raise VersionConflict(site, template, expected_version, actual)
            version = (actual or 0) + 1
            data = {
                "site": site,
                "template": template,
                "version": version,
                "updated": time.time(),
                "signature": signature,
                "document": doc,
            }
            os.makedirs(os.path.dirname(path), exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    json.dump(data, f, ensure_ascii=False, indent=2, sort_keys=False)
                os.replace(tmp, path)
            except BaseException:
                if os.path.exists(tmp):
                    os.unlink(tmp)
                raise
            return version

    def list(self, site: str | None = None) -> list[StoredWrapper]:
        out: list[StoredWrapper] = []
        if not os.path.isdir(self.root):
            return out
        sites = [_safe(site)] if site is not None else sorted(os.listdir(self.root))
        for s in sites:
            d = os.path.join(self.root, s)
            if not os.path.isdir(d):
                continue
            for name in sorted(os.listdir(d)):
                if name.endswith(".json"):
                    w = self._load(os.path.join(d, name))
                    if w is not None:
                        out.append(w)
        return sorted(out, key=lambda w: (w.site, w.template))

    def delete(self, site: str, template: str | None = None) -> int:
        n = 0
        with self._locked():
            for w in self.list(site):
                if template is None or w.template == template:
                    try:
                        os.unlink(self._path(w.site, w.template))
                        n += 1
                    except FileNotFoundError:
                        pass
        return n

    def acquire_lease(self, site: str, template: str, owner: str, ttl: float = 60.0) -> bool:
        path = self._path(site, template)[:-5] + ".lease"
        now = time.time()
        with self._locked():
            try:
                with open(path, encoding="utf-8") as f:
                    held_owner, expires = f.read().split("\n", 1)
                if held_owner != owner and float(expires) > now:
                    return False
            except (FileNotFoundError, ValueError):
                pass
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(f"{owner}\n{now + ttl}")
            return True

    def release_lease(self, site: str, template: str, owner: str) -> None:
        path = self._path(site, template)[:-5] + ".lease"
        with self._locked():
            try:
                with open(path, encoding="utf-8") as f:
                    if f.read().split("\n", 1)[0] == owner:
                        os.unlink(path)
            except (FileNotFoundError, ValueError):
                pass

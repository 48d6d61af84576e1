"""Loaders for the development datasets (``../shared/datasets`` by default).

Never copy the datasets into the repository: these loaders read them where they are, and
:func:`dataset_root` returns ``None`` when the folder is absent so benchmarks skip cleanly.

Each loader yields :class:`Sample` objects: the raw page bytes (decoded by the library, as
a crawl would), the URL and the gold records as token lists (see :mod:`scoring`).
"""

from __future__ import annotations

import html as html_mod
import json
import os
import re
import warnings
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
DEFAULT_ROOT = REPO.parent / "shared" / "datasets"
ENV_VAR = "SCRAPY_RECORDS_DATASETS"

_CTRL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")


def dataset_root(path: str | os.PathLike | None = None) -> Path | None:
    """The datasets folder: ``path``, ``$SCRAPY_RECORDS_DATASETS`` or ``../shared/datasets``
    (``None`` when the first of them that is given is no folder: a wrong ``--data`` must
    not fall back to another folder)."""
    if path:
        return Path(path) if Path(path).is_dir() else None
    for cand in (os.environ.get(ENV_VAR), DEFAULT_ROOT):
        if cand and Path(cand).is_dir():
            return Path(cand)
    return None


@dataclass
class GoldRecord:
    text: str
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class Sample:
    dataset: str
    name: str
    url: str
    body: bytes
    gold: list[GoldRecord] | None  # None: no ground truth (negative pages)
    meta: dict[str, Any] = field(default_factory=dict)


# --------------------------------------------------------------------------- lists
def _all(doc, xp):
    from lxml import etree

    if not xp:
        return []
    try:
        return [e for e in doc.xpath(xp) if isinstance(e, etree._Element)]
    except etree.XPathError:
        return []


def _first(doc, xp):
    found = _all(doc, xp)
    return found[0] if found else None


def _gold_text(el) -> str:
    parts = []
    for node in el.iter():
        if not isinstance(node.tag, str) or node.tag in ("script", "style", "noscript"):
            if node is not el and node.tail:
                parts.append(node.tail)
            continue
        if node.text:
            parts.append(node.text)
        if node is not el and node.tail:
            parts.append(node.tail)
    return " ".join(" ".join(parts).split())


_URL_TOKEN = re.compile(r"\S*://\S*")


def _strip_link_targets(text: str) -> str:
    r"""The annotated ``<text>`` without the link and image targets the annotation tool wrote
    into it (``http://click.example/?id=1&target=... Title``; the datasets README: it
    "includes link targets"). A URL is no text of the page, and its many ``\w+`` tokens made
    a record that holds the whole visible text fail the 80 % rule."""
    return " ".join(_URL_TOKEN.sub(" ", text).split())


def load_lists(root: Path, names=("yamada", "zhao1", "zhao3")) -> Iterator[Sample]:
    """TBDW / ViNTs pages: gold records resolved with an html5 parser (browser DOM, tbody)."""
    import html5lib
    from lxml import etree

    for name in names:
        zpath = root / "lists" / f"{name}.zip"
        if not zpath.exists():
            continue
        z = zipfile.ZipFile(zpath)
        members = set(z.namelist())
        gt = etree.fromstring(
            z.read(f"{name}_groundtruth.xml"), etree.XMLParser(recover=True, huge_tree=True)
        )
        notes = _annotator_notes(z, name)
        for page in gt.iter("page"):
            rel = page.get("id")
            if rel not in members:
                continue
            body = z.read(rel)
            srrs = list(page.iter("srr"))
            from scrapy_records.page import decode_html

            text = _CTRL.sub(" ", decode_html(body)[0])
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                doc = html5lib.parse(text, treebuilder="lxml", namespaceHTMLElements=False)
            gold: list[GoldRecord] = []
            # 1. the absolute XPath of each record; 2. when some do not resolve (the
            # annotator's browser built another tree), the page-level XPath if it selects
            # exactly as many nodes; 3. else the annotated text (escaped twice).
            resolved = [_first(doc, s.findtext("xpath")) for s in srrs]
            if None in resolved:
                alt = _all(doc, page.get("xpath"))
                if len(alt) == len(srrs):
                    resolved = alt
            for s, el in zip(srrs, resolved):
                if el is not None:
                    gold.append(GoldRecord(_gold_text(el)))
                else:
                    raw = html_mod.unescape(html_mod.unescape(s.findtext("text") or ""))
                    gold.append(GoldRecord(_strip_link_targets(raw), {"from_text": True}))
            note = next((v for k, v in notes if rel.startswith(k)), "")
            yield Sample(f"lists/{name}", rel, "file:///" + rel, body, gold, {"note": note})


#: annotator notes saying the gold record is only a part of the visible record
PART_RECORD_NOTES = ("title only", "link only")


def _annotator_notes(z: zipfile.ZipFile, name: str) -> list[tuple[str, str]]:
    """``(page path prefix, note)`` pairs from ``<name>_comments.txt`` (the annotators'
    notes: "title only", "blended results"...). Keys are written ``4`` (TBDW: the page
    folder) or ``zhao1/education/cuny`` (ViNTs: the path); both become path prefixes."""
    try:
        raw = z.read(f"{name}_comments.txt").decode("utf-8", "replace")
    except KeyError:
        return []
    notes = []
    for line in raw.splitlines():
        key, _, note = line.partition("\t")
        key, note = key.strip(), note.strip()
        if not key or not note:
            continue
        prefix = key if key.startswith(name + "/") else f"{name}/{key}"
        notes.append((prefix.rstrip("/") + "/", note.lower()))
    return notes


# ------------------------------------------------------------------------ negative
def load_negative(root: Path) -> Iterator[Sample]:
    zpath = root / "negative" / "unstructured.zip"
    if not zpath.exists():
        return
    z = zipfile.ZipFile(zpath)
    for member in sorted(z.namelist()):
        if member.endswith("/"):
            continue
        body = z.read(member)
        yield Sample("negative", member, "file:///negative/" + member, body, None)


# -------------------------------------------------------------------------- forums
def load_forums(root: Path) -> Iterator[Sample]:
    folder = root / "forums"
    if not folder.is_dir():
        return
    for path in sorted(folder.glob("*.json")):
        d = json.loads(path.read_text(encoding="utf-8"))
        gold = []
        for ann in d.get("gold_standard_annotation", []):
            post = ann.get("post_text", {}).get("surface_form", "")
            extra = {
                "date": (ann.get("datetime") or {}).get("surface_form"),
                "user": (ann.get("user") or {}).get("surface_form"),
                "post_link": (ann.get("post_link") or {}).get("surface_form"),
            }
            gold.append(GoldRecord(post, extra))
        yield Sample("forums", path.name, d.get("url") or "", d["html"].encode("utf-8"), gold)


# ------------------------------------------------------------------------- reviews
def load_reviews(root: Path) -> Iterator[Sample]:
    folder = root / "reviews"
    if not folder.is_dir():
        return
    for page in sorted(folder.glob("*.html"), key=lambda p: int(p.stem) if p.stem.isdigit() else 0):
        gt = folder / f"{page.stem}.txt"
        gold = None
        if gt.exists():
            gold = [
                GoldRecord(html_mod.unescape(" ".join(line.split("\t"))))
                for line in gt.read_text(encoding="utf-8", errors="replace").splitlines()
                if line.strip()
            ]
        yield Sample("reviews", page.name, "file:///reviews/" + page.name, page.read_bytes(), gold)


# ------------------------------------------------------------------- modern (estuka)
def _read_csv_rows(data: bytes) -> list[list[str]]:
    import csv
    import io

    for enc in ("utf-8-sig", "cp1252"):
        try:
            text = data.decode(enc)
            break
        except UnicodeDecodeError:
            continue
    else:
        text = data.decode("utf-8", "replace")
    return [row for row in csv.reader(io.StringIO(text)) if any(c.strip() for c in row)]


def load_estuka(root: Path) -> Iterator[Sample]:
    """Estuka & Miller's modern testbed: one page per query, gold rows of aligned cells.

    ``meta``: ``site`` (the site folder, shared by its three query pages), ``query`` (1-3, the
    folder's number) and ``rows`` (the gold cells of each record, in the page's order).
    """
    zpath = root / "modern" / "estuka-dev.zip"
    if not zpath.exists():
        return
    z = zipfile.ZipFile(zpath)
    names = z.namelist()
    pages = sorted(n for n in names if n.lower().endswith((".htm", ".html")))
    for page in pages:
        folder = page.rsplit("/", 1)[0]
        csv_name = folder + "/data records.csv"
        if csv_name not in names:
            continue
        parts = folder.split("/")
        site, query = parts[-2], parts[-1]
        rows = _read_csv_rows(z.read(csv_name))
        gold = [
            GoldRecord(html_mod.unescape(" ".join(c for c in row if c.strip()))) for row in rows
        ]
        qn = int(re.match(r"\d+", query).group()) if re.match(r"\d+", query) else 0
        url = "http://" + re.sub(r"^\d+-\s*", "", site).lower() + "/" + re.sub(r"\W+", "-", query)
        yield Sample(
            "modern/estuka",
            folder,
            url,
            z.read(page),
            gold,
            {"site": parts[-3] + "/" + site, "query": qn, "rows": rows},
        )


# ------------------------------------------------------------------- detail (swde)
def load_swde(root: Path) -> Iterator[Sample]:
    """SWDE detail pages: ``meta['attributes']`` maps each attribute to this page's gold values;
    ``meta['site']`` groups the pages of one site (in page-id order)."""
    zpath = root / "detail" / "swde-dev.zip"
    if not zpath.exists():
        return
    z = zipfile.ZipFile(zpath)
    names = z.namelist()
    for gt_name in sorted(n for n in names if n.endswith("/groundtruth.json")):
        folder = gt_name.rsplit("/", 1)[0]
        gt = json.loads(z.read(gt_name))
        for page in sorted(n for n in names if n.startswith(folder + "/") and n.endswith(".htm")):
            pid = page.rsplit("/", 1)[1][:-4]
            attrs = {a: v.get(pid, []) for a, v in gt.get("attributes", {}).items()}
            url = gt.get("urls", {}).get(pid) or f"http://{folder}.example/{pid}"
            yield Sample(
                "detail/swde",
                page,
                url,
                z.read(page),
                None,
                {"site": folder, "page_id": pid, "attributes": attrs},
            )


LOADERS = {
    "lists": load_lists,
    "negative": load_negative,
    "forums": load_forums,
    "reviews": load_reviews,
    "modern": load_estuka,
}

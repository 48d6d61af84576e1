"""Reading one field: a compiled field path, its nodes' text as a browser shows it, the
value typed (URLs joined to the page's base), and the page's source parsed once.

:class:`FieldReader` is what :mod:`scrapy_records.wrappers.apply` evaluates per field;
DCADE's XPath builder uses it to read a candidate path the way application will.
"""

from __future__ import annotations

import codecs
import re
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin

from lxml import etree

from scrapy_records import page as page_mod
from scrapy_records.fields.text import IMAGE_ATTRS, image_source, inline_text, strip_separators
from scrapy_records.page import (
    DROPPED_TAGS,
    Page,
    PlainHtmlParser,
    base_url_of,
    normalize_space,
    parse_html,
)
from scrapy_records.page.decode import ASCII_SAFE
from scrapy_records.page.parse import base_url_from
from scrapy_records.wrappers.budget import nodes_bound
from scrapy_records.wrappers.gaps import parse_gap
from scrapy_records.wrappers.idpaths import IdIndex, id_path
from scrapy_records.wrappers.model import FieldSpec
from scrapy_records.wrappers.safe_xpath import check_xpath, compile_xpath
from scrapy_records.wrappers.scans import scan_parts

if TYPE_CHECKING:
    pass

_TEXT_XP = compile_xpath(
    "descendant-or-self::text()[not(parent::script or parent::style or parent::noscript"
    " or parent::template)]"
)
ALL_TEXT_XP = compile_xpath(
    "//text()[normalize-space()][not(parent::script or parent::style)]", True
)
LABEL_FIELD_RX = re.compile(
    r"^//([A-Za-z][\w-]*|\*)\[normalize-space\("
    r"(?:\.|translate\(\., '[\u200b\u2060\ufeff]+', ''\))\)=('([^']*)'|\"([^\"]*)\")\]"
    r"/following::text\(\)\[normalize-space\(\)\]\[not\(parent::script or parent::style\)\]\[1\]$"
)


def dirty_set(root: Any) -> set[Any]:
    """Elements with a script/style/noscript/template inside (their text needs filtering)."""
    dirty: set[Any] = set()
    for s in root.iter("script", "style", "noscript", "template"):
        for a in s.iterancestors():
            if a in dirty:
                break
            dirty.add(a)
        dirty.add(s)
    return dirty


#: what :func:`scan_page` looks for: the elements of :func:`dirty_set` and ``<base>``
_SCAN_TAGS = ("script", "style", "noscript", "template", "base")


def scan_page(root: Any, url: str | None, texts: bool = True) -> tuple[set[Any], str | None]:
    """``(dirty_set(root), base_url_of(root, url))`` from one C-level iteration over the
    page (each is a pass over the whole tree); without ``texts``, ``(set(), base)``."""
    dirty: set[Any] = set()
    bases = []
    for s in root.iter(*_SCAN_TAGS) if texts else root.iter("base"):
        if s.tag == "base":  # ``.//head/base[@href]``: a base whose parent is a head below root
            p = s.getparent()
            if p is not None and p is not root and p.tag == "head" and s.get("href") is not None:
                bases.append(s)
            continue
        for a in s.iterancestors():
            if a in dirty:
                break
            dirty.add(a)
        dirty.add(s)
    if len(bases) > 1 and any(b.getparent() is not bases[0].getparent() for b in bases):
        return dirty, base_url_of(root, url)  # (ElementPath's order: by head, then child)
    return dirty, base_url_from(bases[0] if bases else None, url)


def group_text(els: list[Any], dirty: set[Any] | None) -> str:
    """Text of a record's elements, with the text between siblings (their tails) as
    :meth:`scrapy_records.page.Page.record_text` has it."""
    if len(els) == 1:
        return node_text(els[0], dirty)
    parts = []
    for k, x in enumerate(els):
        parts.append(node_text(x, dirty))
        if k < len(els) - 1 and x.tail:
            parts.append(normalize_space(x.tail))
    return " ".join(t for t in parts if t)


#: every text node inside the records ``$recs`` (passed as a node-set), each record element
#: just before its own texts, in document order: :func:`record_texts` (not those of XPath
#: whitespace only, which normalize_space drops: fewer strings to build)
_RECORD_TEXTS_XP = compile_xpath("$recs/descendant::text()[normalize-space()] | $recs")
_RECORD_TEXTS_CLEAN_XP = compile_xpath(
    "$recs/descendant::text()[normalize-space()][not(parent::script or parent::style"
    " or parent::noscript or parent::template)] | $recs"
)


def record_texts(groups: list[list[Any]], dirty: set[Any], root: Any) -> list[str] | None:
    """:func:`group_text` of every record (``groups``: each record's elements), from one
    C-level XPath evaluation instead of a walk per record; ``None`` when the records are
    not disjoint sub-trees in document order (nested, overlapping) or a record holds a
    script it would not filter, the caller then reads them one by one.

    The record elements come back as markers before their own texts (as in the batched
    field paths), so a record element's text is the slice of texts up to the next marker,
    joined with spaces: what ``itertext`` (or :data:`_TEXT_XP` for a ``dirty`` element)
    gives, since libxml2 never leaves two text nodes side by side."""
    flat = [x for els in groups for x in els]
    prev = prev_parent = None
    for x in flat:  # disjoint: no element inside the one before it (document order below)
        parent = x.getparent()
        if prev is not None and parent is not prev_parent:
            if any(a is prev for a in x.iterancestors()):
                return None
        prev, prev_parent = x, parent
    xp = _RECORD_TEXTS_XP
    if not dirty.isdisjoint(flat):
        # the filtered texts; an element outside ``dirty`` holds no script only when
        # dirty_set saw the whole document
        if (
            root.getparent() is not None
            or any(isinstance(t.tag, str) for t in root.itersiblings(preceding=True))
            or any(isinstance(t.tag, str) for t in root.itersiblings())
        ):
            return None
        xp = _RECORD_TEXTS_CLEAN_XP
    try:
        found = xp(root, recs=flat)
    except etree.XPathEvalError:
        return None
    # the markers, in the order of ``flat`` (document order, each once), and their slices
    at = []
    pos = -1
    try:
        for x in flat:
            pos = found.index(x, pos + 1)
            at.append(pos)
    except ValueError:
        return None
    at.append(len(found))
    out = []
    j = 0
    for els in groups:
        if len(els) == 1:
            out.append(normalize_space(" ".join(found[at[j] + 1 : at[j + 1]])))
            j += 1
            continue
        parts = []
        for k, x in enumerate(els):
            parts.extend(found[at[j] + 1 : at[j + 1]])
            j += 1
            if k < len(els) - 1 and x.tail:
                parts.append(x.tail)
        out.append(normalize_space(" ".join(parts)))
    return out


def text_until(node: Any, stop: Any) -> str:
    """Text of ``node`` up to where the element ``stop`` (a descendant) starts.

    libxml2 nests an unclosed list item in the one before it (``<dd>1 <p>.. <dd>2``), so a
    record element of such a list holds every later record; the page model reads them as
    siblings (:data:`scrapy_records.page.IMPLIED_CLOSE`) and a record is its own text only.
    """
    parts: list[str] = []
    walker = etree.iterwalk(node, events=("start", "end", "comment", "pi"))
    for event, el in walker:
        if el is stop:
            break
        if event == "start":
            if isinstance(el.tag, str) and el.tag in DROPPED_TAGS:
                walker.skip_subtree()
                continue
            if el.text:
                parts.append(el.text)
        elif el is not node and el.tail:
            parts.append(el.tail)
    return normalize_space(" ".join(parts))


def node_text(node: Any, dirty: set[Any] | None = None) -> str:
    """Whitespace-normalised text of an element (script/style excluded) or a text node.

    ``dirty`` (from :func:`dirty_set`) enables the fast path: an element with no script
    inside is read with ``itertext`` (comment text skipped, as in the page model).
    """
    if isinstance(node, str):
        return normalize_space(node)
    if dirty is not None and node not in dirty:
        if not len(node):
            t = node.text
            return normalize_space(t) if t else ""
        return normalize_space(" ".join(node.itertext(etree.Element)))
    return normalize_space(" ".join(_TEXT_XP(node)))


def value_text(node: Any) -> str:
    """A field value's text: a text node's, or an element's read as mining reads a column
    (:func:`~scrapy_records.fields.text.inline_text`: inline markup never splits it)."""
    if isinstance(node, str):
        return strip_separators(normalize_space(node))
    return strip_separators(inline_text(node))


def parse_source(
    source: Any, url: str | None, page_options: dict[str, Any]
) -> tuple[Any, str | None, Page | None, int | None]:
    """``(root element, url, Page or None, nodes at most)`` of what ``Wrapper.extract`` was
    given; the bound of the nodes (:func:`~scrapy_records.wrappers.budget.nodes_bound`)
    when it was parsed from bytes of an encoding that reads each character from a byte
    or more, else ``None``."""
    if isinstance(source, Page):
        return source.root, url or source.url, source, None
    # Parsed as the page model parses (same validation, decoding and libxml2 parser, so the
    # same tree and XPaths), without flattening and with plain lxml elements: lxml.html's
    # per-element Python class lookup costs more than the selectors themselves; no table of
    # ids either (no selector calls id()). A Scrapy response's existing selector tree is reused.
    root, url, enc = parse_html(
        source,
        url,
        encoding=page_options.get("encoding"),
        max_bytes=page_options.get("max_bytes", page_mod.DEFAULT_MAX_BYTES),
        max_nodes=page_options.get("max_nodes", page_mod.DEFAULT_MAX_NODES),
        parser_cls=PlainHtmlParser,
    )
    bound = None
    if isinstance(source, (bytes, bytearray)) and enc and codecs.lookup(enc).name in ASCII_SAFE:
        bound = nodes_bound(len(source))
    return root, url, None, bound


_ORIGIN_RX = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*://[^/?#]*)")


#: base URL -> (origin, directory URL), None when the base is not a plain http(s) URL
_BASE_PARTS: dict[str, tuple[str, str] | None] = {}


def _base_parts(base: str) -> tuple[str, str] | None:
    parts = None
    m = _ORIGIN_RX.match(base)
    if m:
        rest = base[m.end() :].split("#", 1)[0].split("?", 1)[0]
        if "/." not in rest:
            directory = rest[: rest.rfind("/") + 1] if "/" in rest else "/"
            parts = (m.group(1), m.group(1) + (directory or "/"))
    if len(_BASE_PARTS) > 256:
        _BASE_PARTS.clear()
    _BASE_PARTS[base] = parts
    return parts


#: base URL -> (``scheme://host``, its path's segments without the last) when ``urljoin``
#: reads it as those two parts alone (:func:`_http_base`), else None
_HTTP_BASES: dict[str, tuple[str, list[str]] | None] = {}


def _http_base(base: str) -> tuple[str, list[str]] | None:
    """``(origin, directory segments)`` of a plain http(s) URL: lower-case scheme, ASCII,
    no ``;`` (parameters) and no ``[`` (IPv6 hosts), where ``urlparse`` holds no surprise."""
    try:
        return _HTTP_BASES[base]
    except KeyError:
        pass
    got = None
    m = _ORIGIN_RX.match(base)
    if (
        m
        and base.startswith(("http://", "https://"))
        and base.isascii()
        and base.isprintable()
        and not any(c in base for c in " ;[]\\")
    ):
        path = base[m.end() :].split("#", 1)[0].split("?", 1)[0]
        segments = path.split("/")
        if segments[-1] != "":
            del segments[-1]
        got = (m.group(1), segments)
    if len(_HTTP_BASES) > 256:
        _HTTP_BASES.clear()
    _HTTP_BASES[base] = got
    return got


def _dot_join(base: str, raw: str) -> str | None:
    """``urljoin`` of a query (``?page=2``) or a path with dot segments (``../a.html``) on
    an http(s) base (:func:`_http_base`), as Python's ``urljoin`` resolves them (empty
    segments dropped, ``..`` above the root ignored); None for other shapes (a fragment, a
    scheme, a host, parameters)."""
    parts = _http_base(base)
    if parts is None or "#" in raw or ";" in raw or raw.startswith("//") or not raw.isprintable():
        return None
    origin, directory = parts
    path, _q, query = raw.partition("?")
    if not path:
        if not query:
            return None  # (a lone "?" keeps the base's query)
        return base.split("#", 1)[0].split("?", 1)[0] + raw
    if ":" in path.split("/", 1)[0]:
        return None  # (a scheme, or what urlparse may read as one)
    if path[0] == "/":
        segments = path.split("/")
    else:
        segments = directory + path.split("/")
        segments[1:-1] = [x for x in segments[1:-1] if x]
    resolved: list[str] = []
    for seg in segments:
        if seg == "..":
            if resolved:
                resolved.pop()
        elif seg != ".":
            resolved.append(seg)
    if segments[-1] in (".", ".."):
        resolved.append("")
    joined = "/".join(resolved) or "/"
    if joined[0] != "/":
        joined = "/" + joined
    return origin + joined + ("?" + query if query else "")


def _fast_join(base: str, raw: str) -> str | None:
    """``urljoin`` for the common shapes (root-relative and plain relative paths), else None."""
    try:
        parts = _BASE_PARTS[base]
    except KeyError:
        parts = _base_parts(base)
    if parts is None or " " in raw or "\\" in raw:
        return None
    if "/." in raw or raw.startswith("."):
        return _dot_join(base, raw)
    c = raw[0]
    if c == "/":
        return None if raw.startswith("//") else parts[0] + raw
    if c in "?#":
        return _dot_join(base, raw) if c == "?" else None
    head = raw.split("/", 1)[0].split("?", 1)[0]
    if ":" in head:
        return None  # a scheme (mailto:, http:...): let urljoin decide
    return parts[1] + raw


def attribute_value(node: Any, attr: str, ftype: str) -> str | None:
    """Attribute ``attr`` of a selected node (``None`` for a text node); an image field's
    URL attribute (``src``, ``data-src``...) reads the image as mining does: the first of
    them holding a URL (:func:`~scrapy_records.fields.text.image_source`)."""
    if not isinstance(node, etree._Element):
        return None
    if ftype == "image" and attr in IMAGE_ATTRS:
        return image_source(node)[0]
    return node.get(attr)


#: a URL scheme, and the common ones
_SCHEME_RX = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*")
_WEB_SCHEMES = frozenset({"http", "https"})
#: what no link value starts with (lower-cased), and the longest of them
_NOT_LINKS = ("javascript:", "data:")
_NOT_LINKS_LEN = max(map(len, _NOT_LINKS))
#: the web schemes :func:`_plain_absolute` reads without a look at the scheme
_HTTP = ("http://", "https://")


def _plain_absolute(raw: str) -> bool:
    """``raw`` is an absolute URL ``urljoin`` returns unchanged: a lower-case scheme
    (:data:`_SCHEME_RX`) and ``://``, no space, no ``..``, not ending with ``#`` or ``?``,
    no ``?#``."""
    k = raw.find(":")
    if k <= 0 or not raw.startswith("//", k + 1):
        return False
    scheme = raw[:k]
    if scheme not in _WEB_SCHEMES and not (_SCHEME_RX.fullmatch(scheme) and scheme.islower()):
        return False
    # (an empty query before a fragment, "/?#f", is one urljoin drops: "/#f")
    return " " not in raw and ".." not in raw and raw[-1] not in "#?" and "?#" not in raw


def to_value(ftype: str, raw: str, base: str | None) -> Any:
    """A raw value as the field type reads it: url/image values made absolute."""
    if ftype != "url" and ftype != "image":
        return raw
    raw = raw.strip()
    if (
        raw.startswith(_HTTP)  # (the commonest: an absolute link urljoin leaves as it is)
        and raw.isprintable()
        and " " not in raw
        and ".." not in raw
        and raw[-1] not in "#?"
        and "?#" not in raw
    ):
        return raw
    # (the prefix alone is lower-cased: a page's long data: URIs are images)
    if not raw or raw[:_NOT_LINKS_LEN].lower().startswith(_NOT_LINKS):
        return None
    if not raw.isprintable() and ("\t" in raw or "\n" in raw or "\r" in raw):
        return urljoin(base or "", raw)  # (urljoin drops them, as mining's join)
    if _plain_absolute(raw):
        return raw  # already absolute (urljoin would return it unchanged)
    if base:
        j = _fast_join(base, raw)
        if j is not None:
            return j
    return urljoin(base or "", raw)


#: field paths that cannot be evaluated from a node-set of records (absolute, upward or
#: positional over the whole set, or a string expression such as ``normalize-space(..)``):
#: read record by record
NOT_BATCHABLE = re.compile(
    r"^\s*[/(]|^\s*[\w-]+\(|\.\.|ancestor|preceding|parent::|\||\$|last\(\)|position\(\)"
)


#: what joins the two branches of a guarded XPath (:func:`guarded_first`)
_GUARD = " | /html[not("


def guarded_first(xpath: str) -> str | None:
    """``P`` of a guarded XPath ``P | /html[not(P)]/...`` (DCADE's absolute path checked by
    a label, and the anchored scan taken when it selects nothing:
    :mod:`~scrapy_records.wrappers.inducers.dcade.xpaths`), else ``None``. Where ``P``
    selects nodes they are the XPath's result (the guard empties the other branch), so
    they are read with ``P`` alone: libxml2 evaluates ``P`` twice in the whole XPath, and
    a guarded path costs twice an absolute one (half of a detail page's field reading)."""
    parts = guarded_parts(xpath)
    return parts[0] if parts is not None else None


def guarded_parts(xpath: str) -> tuple[str, str] | None:
    """``(P, S)`` of a guarded XPath ``P | /html[not(P)]S``: where ``P`` selects nothing,
    the XPath's result is ``/html`` + ``S`` (the guard holds), read without evaluating
    ``P`` twice more; else ``None``."""
    k = xpath.find(_GUARD)
    if k <= 0:
        return None
    first, rest = xpath[:k], xpath[k + len(_GUARD) :]
    if not rest.startswith(first + ")]"):
        return None
    tail = rest[len(first) + 2 :]
    return (first, tail) if tail.startswith("/") and "|" not in tail else None


_ROOT_STEP = re.compile(r"/html/(?=[A-Za-z*@])")


def root_relative(xpath: str) -> str | None:
    """``X`` of an XPath ``/html/X``: what it selects from the document's root element
    ``html`` (where libxml2 skips the document node and its children: a tenth of an
    absolute path's evaluation), else ``None``. The rest of the expression (a union's
    other branches, a comparison) reads the same from there."""
    x = xpath.strip()
    return x[len("/html/") :] if _ROOT_STEP.match(x) else None


class FieldReader:
    """One compiled field: its XPath per record, and batched over all records when it can."""

    __slots__ = (
        "name",
        "type",
        "xp",
        "attr",
        "multiple",
        "optional",
        "batch",
        "textual",
        "path",
        "info",
        "idpath",
        "first",
        "rest",
        "key",
        "plain",
        "scan",
        "of_scan",
        "gap",
        "rel",
    )

    def __init__(self, f: FieldSpec, record_xpath: str | None = None):
        self.name = f.name
        self.path = f.xpath.strip()
        self.type = f.type
        self.textual = "text()" in f.xpath or "node()" in f.xpath
        self.info = check_xpath(f.xpath)  # (an allowed form: a hand-built wrapper too)
        self.xp = compile_xpath(f.xpath)
        self.attr = f.attribute
        self.multiple = f.multiple
        self.optional = f.optional
        #: what a value depends on: fields with the same key read the same value (a typed
        #: field and its ``_raw`` twin)
        self.key = (self.path, self.attr, self.multiple, self.type in ("url", "image"))
        #: one text value, read as :func:`value_text` reads it (no attribute, no link)
        self.plain = self.attr is None and not self.multiple and self.type not in ("url", "image")
        #: an id-anchored path, read through the page's id index (page fields)
        self.idpath = id_path(f.xpath) if record_xpath is None else None
        #: a value cut out of the text of a path another field reads (``(P, steps)``,
        #: :func:`~scrapy_records.wrappers.gaps.parse_gap`)
        self.gap = parse_gap(self.path) if self.attr is None else None
        #: a guarded XPath's first branch, read first (:func:`guarded_first`)
        self.first = self.rest = None
        parts = guarded_parts(self.path)
        if parts is not None:
            try:
                self.first = compile_xpath(parts[0])
                self.rest = compile_xpath("/html" + parts[1])
            except etree.XPathSyntaxError:
                self.first = self.rest = None
        #: what :func:`~scrapy_records.wrappers.scans.read_single` evaluates first (the
        #: path, or a guarded path's first branch) from the root element ``html``, when it
        #: starts there (:func:`root_relative`)
        rel = root_relative(parts[0] if self.first is not None and parts else self.path)
        self.rel = None
        if rel is not None:
            try:
                self.rel = compile_xpath(rel)
            except etree.XPathSyntaxError:
                self.rel = None
        #: the guarded scan ``//T[L]R`` as (T, L, R), and ``$s[L]R`` over a scan for several
        #: labels at once (:mod:`~scrapy_records.wrappers.scans`)
        self.scan: tuple[str, str, str] | None = None
        self.of_scan = None
        if self.first is not None and parts is not None:
            scan = scan_parts(parts[1])
            if scan is not None:
                try:
                    self.of_scan = compile_xpath(f"$s[{scan[1]}]{scan[2]}")
                    self.scan = scan
                except etree.XPathSyntaxError:
                    pass
        self.batch: etree.XPath | None = None
        # one evaluation over all records instead of one per record (application speed):
        # "$recs/F" selects the same nodes as F from every record, in document order;
        if record_xpath is not None and self.info.contained and not NOT_BATCHABLE.search(f.xpath):
            try:
                # $recs: the record elements, passed as a node-set (R is not re-evaluated)
                # "| $recs": the record elements come back as markers, in document order
                # just before their own field nodes, so assigning a node to its record
                # is one dictionary lookup (records are disjoint sub-trees)
                self.batch = compile_xpath(f"$recs/{f.xpath} | $recs")
            except etree.XPathSyntaxError:
                self.batch = None

    def read(
        self, ctx: Any, base: str | None, dirty: set[Any] | None = None, ids: IdIndex | None = None
    ) -> Any:
        """The field's value under ``ctx`` (a record's first element, or the root; ``ids``:
        the page's id index, for a page field's id-anchored path)."""
        try:
            nodes = None
            if ids is not None and self.idpath is not None:
                nodes = self.idpath.nodes(ids)
            if nodes is None and self.first is not None and self.rest is not None:
                nodes = self.first(ctx)
                if not (isinstance(nodes, list) and nodes):
                    nodes = self.rest(ctx)  # nothing there: the guarded scan
            if nodes is None:
                nodes = self.xp(ctx)
        except etree.XPathEvalError:
            return None
        if not isinstance(nodes, list):  # a string()/count() style expression
            nodes = [str(nodes)] if nodes not in (None, "") else []
        return self.value(nodes, base, dirty)

    def value(self, nodes: list[Any], base: str | None, dirty: set[Any] | None = None) -> Any:
        """The value of selected nodes: the first non-empty one, or the list of them."""
        if self.plain:  # (the common case: value_text inline, one call per node less)
            for n in nodes:
                if isinstance(n, str):
                    v = strip_separators(normalize_space(n))
                elif len(n):
                    v = strip_separators(inline_text(n))
                else:
                    t = n.text
                    v = strip_separators(normalize_space(t)) if t else ""
                if v:
                    return v
            return None
        vals = []
        for n in nodes:
            if self.attr is not None:
                raw = attribute_value(n, self.attr, self.type)
                if raw is None:
                    continue
                v = (
                    to_value(self.type, raw, base)
                    if self.type in ("url", "image")
                    else normalize_space(raw)
                )
            else:
                v = value_text(n)
                if self.type in ("url", "image"):
                    v = to_value(self.type, v, base)
            if v:
                if not self.multiple:
                    return v
                vals.append(v)
        return vals if (self.multiple and vals) else None

"""The page model: parse once, share with every extractor.

A :class:`Page` wraps one lxml tree (built exactly as parsel/Scrapy build it, so every
XPath the library emits selects the same nodes in ``response.xpath(...)``) and flattens
the elements the algorithms care about into parallel arrays indexed by pre-order
position. Extractors read these arrays; none of them walks the lxml tree again.

What is dropped for the algorithms (the lxml tree itself is never modified):

* ``script``, ``style``, ``noscript``, ``template`` elements with their sub-trees,
  comments and processing instructions (their *tail* text is kept: it belongs to the
  parent); a ``noscript`` that holds the page's content (a crawler view of a JavaScript
  application: a ``<body>`` or more than 20 elements) is kept;
* the inside of ``svg`` and ``math`` (the element stays, as a leaf).

Mis-nesting is repaired in the arrays the way a browser's parser repairs it. libxml2
(Scrapy's parser) nests an unclosed ``<li>``, ``<dd>``, ``<tr>``... inside its predecessor
when any other element is still open in it (``<dd>1 <p>text <dd>2`` or ``<li><b>1 <li>2``),
so a list of 160 results becomes a chain 160 levels deep. A browser closes the open item
at the next one (WHATWG tree construction; see :data:`IMPLIED_CLOSE`). The page model
does the same: the later item becomes the earlier one's sibling in ``parent``,
``children``, ``depth`` and ``path_id``. Pre-order positions do not change (the later item
was the last thing inside the earlier one), and :meth:`Page.xpath` still gives each
element's path in the real tree, so every XPath still selects it in ``response.xpath``.
Likewise, elements libxml2 leaves after ``</body>`` (a ``<form>`` wrapped around the
results, closed after the body) are children of ``body`` in the arrays, as in a browser.

Node ``i`` exposes ``tag[i]``, ``tag_id[i]`` (small int, for C-level edit distances),
``parent[i]``, ``children[i]``, ``depth[i]``, ``end[i]`` (the last pre-order index of its
sub-tree, so the sub-tree is the slice ``i..end[i]`` and its pre-order tag string is
``tag_id[i:end[i] + 1]``), ``path_id[i]`` (interned root-to-node tag path),
and the element itself ``el[i]``. Text is kept as *leaves*: whitespace-normalised
strings in document order, each owned by the element whose direct content it is;
``leaf_lo[i]:leaf_hi[i]`` is the range of leaves inside node ``i``'s sub-tree.

The paper-specific views (MDR tag strings, STEM tag-path sequences, MiBAT anchor
candidates, DCADE leaf sequences) are all derived from these arrays.
"""

from __future__ import annotations

import codecs
import re
import sys
from collections import deque
from collections.abc import Iterable, Iterator
from itertools import chain, islice
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin

import lxml.html
from lxml import etree
from parsel.selector import create_root_node

from scrapy_records.errors import EmptyDocumentError, NotHTMLError, PageTooLargeError

if TYPE_CHECKING:  # pragma: no cover
    pass

__all__ = [
    "Page",
    "as_page",
    "parse_html",
    "decode_html",
    "sniff_encoding",
    "DROPPED_TAGS",
    "LEAF_TAGS",
]

#: Elements removed with their whole sub-tree before any algorithm sees the page.
DROPPED_TAGS = frozenset({"script", "style", "noscript", "template"})
#: Elements kept as leaves: their inside is drawing markup, not page structure.
LEAF_TAGS = frozenset({"svg", "math"})

#: HTML elements of the WHATWG "special" category (tree construction, 13.2.4.2).
_SPECIAL = frozenset(
    "address applet area article aside base basefont bgsound blockquote body br button caption "
    "center col colgroup dd details dir div dl dt embed fieldset figcaption figure footer form "
    "frame frameset h1 h2 h3 h4 h5 h6 head header hgroup hr html iframe img input keygen li link "
    "listing main marquee menu meta nav noembed noframes noscript object ol p param plaintext pre "
    "script search section select source style summary table tbody td template textarea tfoot th "
    "thead title tr track ul wbr xmp".split()
)
_LIST_STOP = _SPECIAL - {"address", "div", "p"}
_TABLE_SCOPE = frozenset({"html", "table", "template"})
#: Start tags that close an open element of the same kind, as a browser's parser does
#: and libxml2 does not when other elements are open inside it: ``tag -> (closes, stops)``.
#: The scan goes from the innermost open element outwards and gives up at a ``stops``
#: element. (HTML5 "li"/"dd"/"dt" start tags, and the table-scope rules for rows and cells.)
IMPLIED_CLOSE: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "li": (frozenset({"li"}), _LIST_STOP),
    "dd": (frozenset({"dd", "dt"}), _LIST_STOP),
    "dt": (frozenset({"dd", "dt"}), _LIST_STOP),
    "tr": (frozenset({"tr"}), _TABLE_SCOPE | {"tbody", "thead", "tfoot"}),
    "td": (frozenset({"td", "th"}), _TABLE_SCOPE | {"tr"}),
    "th": (frozenset({"td", "th"}), _TABLE_SCOPE | {"tr"}),
    "option": (frozenset({"option"}), frozenset({"select", "datalist", "html"})),
    # a link inside a link (``<a href=1><b>x <a href=2>y``), when no block sits between
    "a": (frozenset({"a"}), _SPECIAL),
}
# block start tags close an open ``<p>`` ("close a p element" in button scope)
_P_ONLY = frozenset({"p"})
_BUTTON_SCOPE = frozenset("applet caption html table td th marquee object template button".split())
for _t in (
    "address article aside blockquote center details dialog dir div dl fieldset figcaption "
    "figure footer header hgroup main menu nav ol p search section summary ul h1 h2 h3 h4 "
    "h5 h6 pre listing form hr xmp"
).split():
    IMPLIED_CLOSE.setdefault(_t, (_P_ONLY, _BUTTON_SCOPE))
#: How many open elements a start tag looks through for one it closes. Real markup closes
#: an item within a few levels; the bound keeps hostile nesting linear (a failed look-up
#: costs at most this much, whatever the depth).
_SCAN_LIMIT = 48

#: Default budgets. They bound time and memory on hostile input; see the README.
DEFAULT_MAX_BYTES = 10 * 1024 * 1024
DEFAULT_MAX_NODES = 150_000
DEFAULT_MAX_DEPTH = 512

_BINARY_MAGIC: tuple[bytes, ...] = (
    b"\x89PNG",
    b"GIF8",
    b"\xff\xd8\xff",
    b"%PDF",
    b"PK\x03\x04",
    b"\x1f\x8b",
    b"BM",
    b"RIFF",
    b"\x00\x00\x01\x00",
    b"OggS",
    b"ID3",
    b"fLaC",
    b"wOFF",
    b"wOF2",
    b"\x7fELF",
    b"MZ",
)
_TAG_RE = re.compile(r"<\s*[a-zA-Z!?/]")
_XML_DECL_RE = re.compile(r"^\s*<\?xml[^>]*>", re.I)
_HTML_HINT_RE = re.compile(r"<\s*(html|head|body|div|table|p|span|a|ul|li|!doctype\s+html)\b", re.I)


_CTRL_BYTES = bytes(b for b in range(32) if b < 9 or 13 < b < 32)
_HIGH_BYTES = bytes(range(0x80, 0x100))
_BOMS = (codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def _looks_binary(data: bytes) -> bool:
    head = data[:1024]
    if head.startswith(_BOMS):
        return False
    if head.startswith(_BINARY_MAGIC) or b"\x00" in head:
        return True
    # a high share of control characters: not a text document (counted in C)
    ctrl = len(head) - len(head.translate(None, _CTRL_BYTES))
    return bool(head) and ctrl / len(head) > 0.1


def _mostly_ascii(data: bytes) -> bool:
    sample = data[:32768]
    return len(sample) - len(sample.translate(None, _HIGH_BYTES)) <= 0.05 * len(sample)


def decode_html(data: bytes, content_type: str | None = None) -> tuple[str, str]:
    """Decode raw HTML bytes as a browser would and return ``(text, encoding)``.

    Order of evidence (the WHATWG encoding sniffing algorithm, simplified):
    byte-order mark, the HTTP ``Content-Type`` charset when given, a ``<meta charset>`` /
    ``http-equiv`` declaration, then valid UTF-8, then windows-1252 when at most 5% of the
    bytes are non-ASCII (what a Western browser assumes for an undeclared page), else
    charset-normalizer's guess. Implemented with :func:`w3lib.encoding.html_to_unicode`,
    the routine Scrapy's ``TextResponse`` uses.
    """
    from w3lib.encoding import html_to_unicode

    def _auto_detect(body: bytes) -> str | None:
        try:
            body.decode("utf-8")
            return "utf-8"
        except UnicodeDecodeError:
            pass
        if _mostly_ascii(body):
            # Mostly ASCII with a few accented letters: what a Western browser assumes.
            return "cp1252"
        try:
            from charset_normalizer import from_bytes

            best = from_bytes(body[:32768], steps=3, chunk_size=4096).best()
            if best is not None:
                return best.encoding
        except Exception:  # pragma: no cover - detector failure is not fatal
            pass
        return "cp1252"

    ct = (
        f"text/html; charset={content_type}"
        if content_type and "/" not in content_type
        else content_type
    )
    encoding, text = html_to_unicode(ct, data, auto_detect_fun=_auto_detect)
    return text, encoding


def sniff_encoding(data: bytes) -> str | None:
    """The encoding :func:`decode_html` would choose, found without decoding to text.

    ``None`` when only its slower branches can tell (a BOM, UTF-16/32, the
    charset-normalizer guess); callers then use :func:`decode_html` itself.
    """
    return _sniff(data)[0]


def _sniff(data: bytes) -> tuple[str | None, bool]:
    """:func:`sniff_encoding`, and whether it found that ``data`` decodes with it."""
    from w3lib.encoding import html_body_declared_encoding

    if data.startswith(_BOMS):
        return None, False
    enc = html_body_declared_encoding(data)
    if enc is not None:
        return (None if enc.startswith(("utf-16", "utf-32")) else enc), False
    if data.isascii():
        return "utf-8", True
    try:
        data.decode("utf-8")
        return "utf-8", True
    except UnicodeDecodeError:
        pass
    return ("cp1252" if _mostly_ascii(data) else None), False


#: Codecs that decode every ASCII byte to that character, in Python and in libxml2's
#: iconv alike (not Shift_JIS: iconv reads 0x5C as a yen sign): pure-ASCII input in one
#: of them is the same text as UTF-8.
_ASCII_SAFE = frozenset(
    codecs.lookup(_n).name
    for _n in (
        "utf-8 ascii cp1250 cp1251 cp1252 cp1253 cp1254 cp1255 cp1256 cp1257 cp1258 "
        "latin-1 iso-8859-2 iso-8859-3 iso-8859-4 iso-8859-5 iso-8859-6 iso-8859-7 iso-8859-8 "
        "iso-8859-9 iso-8859-10 iso-8859-13 iso-8859-14 iso-8859-15 iso-8859-16 koi8-r koi8-u "
        "gb18030 gbk gb2312 big5 euc-jp euc-kr cp949"
    ).split()
)


class HtmlElementParser(etree.HTMLParser):
    """libxml2's HTML parser (the tree parsel builds) whose elements are ``lxml.html``
    elements (``text_content()``, ``cssselect()``...) chosen by a C-level lookup.

    ``lxml.html.HTMLParser`` chooses each element's class with a Python callback (forms and
    inputs get their own classes), which costs more than the rest of the page model's walk
    over the elements; this parser gives every element ``HtmlElement``."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.set_element_class_lookup(_HTML_LOOKUP)


_HTML_LOOKUP = etree.ElementDefaultClassLookup(
    element=lxml.html.HtmlElement,
    comment=lxml.html.HtmlComment,
    pi=lxml.html.HtmlProcessingInstruction,
    entity=lxml.html.HtmlEntity,
)

_PARSERS: dict[tuple[type, str], Any] = {}


def _parser(parser_cls: type, encoding: str) -> Any:
    key = (parser_cls, encoding)
    p = _PARSERS.get(key)
    if p is None:
        p = _PARSERS[key] = parser_cls(recover=True, encoding=encoding, huge_tree=True)
    return p


def parse_html(
    source: Any,
    url: str | None = None,
    *,
    encoding: str | None = None,
    max_bytes: int | None = DEFAULT_MAX_BYTES,
    parser_cls: type = lxml.html.HTMLParser,
) -> tuple[Any, str | None, str | None]:
    """Validate and parse a page the way parsel/Scrapy parse it: ``(root, url, encoding)``.

    The one parsing routine of the library (the page model and wrapper application both
    use it), so every XPath the library emits selects the same nodes everywhere.

    * a Scrapy ``Response``: its selector tree (built here when nobody has yet), so the
      spider's selectors and the library share one parse (refused when not HTML);
    * a parsel ``Selector``, an lxml element or tree: used as is;
    * ``bytes``: refused when binary or empty; when the encoding is known without
      decoding (given, or :func:`sniff_encoding`) libxml2 decodes the bytes itself,
      which saves a decode and re-encode; otherwise :func:`decode_html`;
    * ``str``: parsed as parsel does (UTF-8 bytes to libxml2).

    ``parser_cls`` is ``lxml.html.HTMLParser`` (what parsel uses) or ``lxml.etree.HTMLParser``
    (same tree, plain elements: cheaper when only XPaths are evaluated).

    :raises EmptyDocumentError, NotHTMLError, PageTooLargeError:
    """
    # Scrapy Response (duck-typed so scrapy stays an optional import here)
    if hasattr(source, "body") and hasattr(source, "url") and hasattr(source, "headers"):
        body = source.body
        if max_bytes is not None and len(body) > max_bytes:
            raise PageTooLargeError(f"response is {len(body)} bytes, over max_bytes={max_bytes}")
        if not body.strip():
            raise EmptyDocumentError("empty response body")
        if not hasattr(type(source), "selector"):  # (the class: do not build it yet)
            raise NotHTMLError(f"{type(source).__name__} is not a text response")
        if _looks_binary(body):
            raise NotHTMLError("response body is binary data, not HTML")
        if getattr(source.selector, "type", "html") != "html":
            raise NotHTMLError(f"response is {source.selector.type}, not HTML")
        return source.selector.root, url or source.url, getattr(source, "encoding", None)
    # parsel Selector
    if hasattr(source, "root") and hasattr(source, "xpath") and hasattr(source, "type"):
        return source.root, url, encoding
    if isinstance(source, etree._ElementTree):
        return source.getroot(), url, encoding
    if isinstance(source, etree._Element):
        return source, url, encoding
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        if max_bytes is not None and len(data) > max_bytes:
            raise PageTooLargeError(f"input is {len(data)} bytes, over max_bytes={max_bytes}")
        if not data or data.isspace():  # (all ASCII whitespace: ``not data.strip()``)
            raise EmptyDocumentError("empty document")
        if _looks_binary(data):
            raise NotHTMLError("input is binary data, not HTML")
        enc, checked = (encoding, False) if encoding else _sniff(data)
        codec = text = None
        if enc:
            try:  # libxml2 (iconv) stops at bytes a codec leaves undefined: Python decides
                codec = codecs.lookup(enc).name
                if not checked and not (codec in _ASCII_SAFE and data.isascii()):
                    text = data.decode(enc)
            except (UnicodeDecodeError, LookupError):
                enc = None
        head = data[:4096].decode("latin-1")
        if enc and b"\x00" not in data and _TAG_RE.search(head) and not _XML_DECL_RE.match(head):
            if _premature_end(data):
                data = _END_BODY_HTML_BRE.sub(b"", data)
                text = None
            # libxml2 decodes other encodings through iconv, slower than Python's codecs:
            # pure ASCII, and windows-1252 (decoded here anyway), go in as UTF-8, the same
            # characters
            src, src_enc = data, enc
            if codec in _ASCII_SAFE and data.isascii():
                src_enc = "utf-8"
            elif codec == "cp1252" and not data.startswith(_BOMS):
                src = (data.decode(enc) if text is None else text).encode("utf-8")
                src_enc = "utf-8"
            try:
                root = etree.fromstring(src.strip(), _parser(parser_cls, src_enc), base_url=url)
            except (LookupError, ValueError, etree.LxmlError):
                root = None
            if root is not None:
                return root, url, enc
        if encoding:
            text, enc = data.decode(encoding, errors="replace"), encoding
        else:
            text, enc = decode_html(data)
    elif isinstance(source, str):
        text, enc = source, encoding
        if max_bytes is not None and len(text) > max_bytes:
            raise PageTooLargeError(f"input is {len(text)} characters, over max_bytes={max_bytes}")
    else:
        raise TypeError(
            "a page must be str, bytes, a Scrapy Response, a parsel Selector or an "
            f"lxml element, not {type(source).__name__}"
        )
    if not text.strip():
        raise EmptyDocumentError("empty document")
    head = text[:4096]
    if not _TAG_RE.search(head) and not _TAG_RE.search(text[:65536]):
        raise NotHTMLError("input holds no markup: plain text, not HTML")
    if _XML_DECL_RE.match(head) and not _HTML_HINT_RE.search(text[:65536]):
        raise NotHTMLError("input is an XML document, not HTML")
    text = _XML_DECL_RE.sub("", text, count=1)
    text = _drop_premature_end_tags(text)
    return create_root_node(text, parser_cls, base_url=url), url, enc


_END_HTML_RE = re.compile(r"</html\s*>", re.I)
_END_BODY_HTML_RE = re.compile(r"</(?:html|body)\s*>", re.I)
_START_TAG_RE = re.compile(r"<[a-zA-Z]")


_END_HTML_BRE = re.compile(rb"</html\s*>", re.I)
_END_BODY_HTML_BRE = re.compile(rb"</(?:html|body)\s*>", re.I)
_START_TAG_BRE = re.compile(rb"<[a-zA-Z]")


def _premature_end(data: bytes) -> bool:
    m = _END_HTML_BRE.search(data)
    if m is None:
        return False
    n = 0
    for _ in _START_TAG_BRE.finditer(data, m.end()):
        n += 1
        if n >= 20:
            return True
    return False


def _drop_premature_end_tags(text: str) -> str:
    """Remove ``</body>``/``</html>`` when real markup follows the first ``</html>``.

    Browsers ignore these end tags (content after them is parsed into the body; WHATWG
    "after body" insertion mode), but libxml2 stops at ``</html>``: a page that starts
    with ``<noscript><html>...</html></noscript>`` (an old JavaScript probe) loses its
    whole content. Only done when at least 20 start tags follow, so ordinary pages are
    parsed exactly as Scrapy parses them.
    """
    m = _END_HTML_RE.search(text)
    if m is None:
        return text
    tail = text[m.end() :]
    n = 0
    for _ in _START_TAG_RE.finditer(tail):
        n += 1
        if n >= 20:
            return _END_BODY_HTML_RE.sub("", text)
    return text


def base_url_of(root: Any, url: str | None) -> str | None:
    """The URL relative links of the document resolve against: its ``<base href>`` (made
    absolute against ``url``) or ``url``."""
    base = root.find(".//head/base[@href]") if root is not None else None
    if base is None:
        return url
    return urljoin(url or "", base.get("href", "").strip())


def holds_content(noscript: Any) -> bool:
    """True for a ``<noscript>`` that holds the page rather than a notice or a pixel.

    JavaScript applications (Discourse, for one) serve their crawler view inside
    ``<noscript>``, and old pages wrap a JavaScript probe's ``<html>`` around the real
    body (see :func:`_drop_premature_end_tags`). What a crawler without JavaScript gets
    is that content, so a noscript with a ``<body>`` or at least 20 elements is kept.
    """
    n = 0
    for el in noscript.iter():
        if isinstance(el.tag, str):
            if el.tag == "body":
                return True
            n += 1
            if n > 20:
                return True
    return False


#: :class:`Page` start-tag kinds (what else a start tag does besides being added)
_K_P, _K_LEAF, _K_BODY, _K_HEAD = 1, 2, 3, 4
_KINDS = {"p": _K_P, "body": _K_BODY, "head": _K_HEAD, **dict.fromkeys(LEAF_TAGS, _K_LEAF)}
#: implied-close rule -> {tag: True when the rule closes it, False when it stops the scan}
_SCAN_MAPS: dict[tuple[frozenset[str], frozenset[str]], dict[str, bool]] = {}
#: (tag, tag id, scan map or None, scan without an open <p>, kind)
_TagInfo = tuple[str, int, "dict[str, bool] | None", bool, int]


def _tag_info(t: str, tag_names: dict[str, int]) -> _TagInfo:
    """What :meth:`Page._build` needs for a start tag ``t``; gives ``t`` its page id."""
    tid = tag_names.get(t)
    if tid is None:
        tid = tag_names[t] = len(tag_names)
    rule = IMPLIED_CLOSE.get(t)
    scan = None
    if rule is not None:
        scan = _SCAN_MAPS.get(rule)
        if scan is None:
            closes, stops = rule
            # a tag in both sets closes: the scan tested ``closes`` first
            scan = _SCAN_MAPS[rule] = {**dict.fromkeys(stops, False), **dict.fromkeys(closes, True)}
    always = rule is not None and rule[0] is not _P_ONLY
    return t, tid, scan, always, _KINDS.get(t, 0)


class _EndOfNodes:
    """What :meth:`Page._build` meets after the last node: no parent, so every open node
    closes."""

    __slots__ = ()
    tag = None

    def getparent(self) -> None:
        return None


_END = _EndOfNodes()


def _skip_descendants(nodes: Iterator[Any], node: Any) -> None:
    """Advance ``nodes``, a pre-order iterator that just gave ``node``, past its sub-tree."""
    n = sum(1 for _ in node.iterdescendants())
    deque(islice(nodes, n), maxlen=0)


def _folded_texts(node: Any) -> list[str | None]:
    """The texts and tails inside ``node``'s sub-tree in document order (of a dropped
    element inside, only its tail), as a node folded at the depth limit keeps them."""
    out = []
    walker = etree.iterwalk(node, events=("start", "end", "comment", "pi"))
    next(walker)  # the node's own start
    for event, x in walker:
        if event == "start":
            t = x.tag
            if isinstance(t, str) and t.lower() not in DROPPED_TAGS:
                out.append(x.text)
            else:
                walker.skip_subtree()  # its "end" event still arrives: its tail is kept
        elif x is not node:  # the end of a descendant, or a comment / PI: its tail
            out.append(x.tail)
    return out


class Page:
    """One parsed HTML page shared by every extractor (see the module docstring).

    Build it from ``str``, ``bytes`` (charset detected as browsers do), a Scrapy
    ``Response`` (its encoding and its already-parsed selector tree are reused: the page
    is not parsed twice), a parsel ``Selector``, or an lxml element / tree.

    :param url: the page URL, used to make link and image URLs absolute.
    :param max_bytes: refuse larger inputs with :class:`PageTooLargeError` (``None``: no limit).
    :param max_nodes: refuse pages with more elements (after dropping scripts etc.).
    :param max_depth: deeper elements are folded into their ancestor at this depth
        (their text is kept, their structure is not), so 50,000-deep nesting costs
        linear time and no recursion. (libxml2 itself discards content nested deeper
        than its own limit, a few thousand levels, before the page model sees it.)
    """

    __slots__ = (
        "root",
        "url",
        "base_url",
        "encoding",
        "el",
        "tag",
        "tag_id",
        "parent",
        "children",
        "depth",
        "end",
        "path_id",
        "leaves",
        "leaf_owner",
        "leaf_elem",
        "leaf_lo",
        "leaf_hi",
        "tag_names",
        "path_keys",
        "body",
        "_index",
        "_xpaths",
        "_treeroot",
        "_classes",
        "_rparent",
        "_rchildren",
        "truncated",
        "__weakref__",
    )

    def __init__(
        self,
        source: Any,
        url: str | None = None,
        *,
        encoding: str | None = None,
        max_bytes: int | None = DEFAULT_MAX_BYTES,
        max_nodes: int | None = DEFAULT_MAX_NODES,
        max_depth: int = DEFAULT_MAX_DEPTH,
    ) -> None:
        root, url, enc = self._parse(source, url, encoding, max_bytes)
        self.root: etree._Element = root
        self.url: str | None = url
        self.encoding: str | None = enc
        self.base_url: str | None = base_url_of(root, url)
        self._treeroot = root.getroottree()
        self._build(max_nodes, max_depth)
        self._xpaths: dict[int, str] = {}
        self._index: dict[Any, int] | None = None
        self._classes: dict[int, tuple[str, ...]] = {}

    # ------------------------------------------------------------------ parsing
    @staticmethod
    def _parse(source: Any, url: str | None, encoding: str | None, max_bytes: int | None):
        # a Scrapy response: its selector's tree, built once and shared with the spider;
        # raw markup: parsed here, with the C-level element class lookup
        response = hasattr(source, "body") and hasattr(source, "url") and hasattr(source, "headers")
        return parse_html(
            source,
            url,
            encoding=encoding,
            max_bytes=max_bytes,
            parser_cls=lxml.html.HTMLParser if response else HtmlElementParser,
        )

    # ----------------------------------------------------------------- flatten
    def _build(self, max_nodes: int | None, max_depth: int) -> None:
        el: list[Any] = []
        tag: list[str] = []
        tag_id: list[int] = []
        parent: list[int] = []
        children: list[list[int]] = []
        depth: list[int] = []
        end: list[int] = []
        path_id: list[int] = []
        leaves: list[str] = []
        leaf_owner: list[int] = []
        leaf_elem: list[int] = []
        leaf_lo: list[int] = []
        leaf_hi: list[int] = []
        tag_names: dict[str, int] = {}
        path_keys: dict[tuple[int, int], int] = {}
        truncated = False
        limit = sys.maxsize if max_nodes is None else max_nodes
        # what a start tag needs, worked out once per tag name (lxml's tag -> _TagInfo):
        # every start tag then costs one dict look-up instead of several set tests
        known: dict[Any, _TagInfo] = {}

        stack: list[int] = []  # open kept nodes, as a browser would have them open
        # open kept nodes as libxml2 nested them: the same as `stack` until the first repair,
        # so it is only kept (and parents compared) from then on
        real_stack: list[int] = []
        repaired = False
        body_i = -1
        open_p = 0  # <p> elements open in `stack` (most start tags close one: skip the scan)
        moved: dict[int, int] = {}  # node -> its real parent, where that is not `parent`
        last = -1  # the last node added (len(el) - 1)
        top = None  # the innermost open node as libxml2 nests it: el[real_stack[-1]]

        # One pre-order pass over the tree (lxml's iter(): elements, comments, PIs and
        # entities), cheaper than an iterwalk's start and end events. The "end" of the open
        # nodes comes when a node's parent is not the innermost open one: they are closed,
        # innermost first, before it. _END, after the last node, closes the ones left.
        nodes = chain(self.root.iter(), (_END,))
        for node in nodes:
            par = node.getparent()
            if par is not top:
                if not repaired:
                    while stack:
                        i = stack.pop()
                        end[i] = last
                        leaf_hi[i] = len(leaves)
                        if open_p and tag[i] == "p":
                            open_p -= 1
                        if stack:
                            s = top.tail  # (its tail belongs to the parent)
                            if s and not s.isspace():
                                leaves.append(" ".join(s.split()))
                                leaf_owner.append(stack[-1])
                                leaf_elem.append(last + 1)
                            top = el[stack[-1]]
                            if top is par:
                                break
                        else:
                            top = None
                else:
                    while real_stack:
                        i = real_stack.pop()
                        if stack[-1] == i:
                            stack.pop()
                            end[i] = last
                            leaf_hi[i] = len(leaves)
                            if tag[i] == "p":
                                open_p -= 1
                        elif i in stack:  # a body reopened inside i (else a later item closed i)
                            while True:
                                j = stack.pop()
                                end[j] = last
                                leaf_hi[j] = len(leaves)
                                if j == i:
                                    break
                        s = top.tail
                        if s and stack and not s.isspace():
                            leaves.append(" ".join(s.split()))
                            leaf_owner.append(stack[-1])
                            leaf_elem.append(last + 1)
                        if real_stack:
                            top = el[real_stack[-1]]
                            if top is par:
                                break
                        else:
                            top = None
            info = known.get(node.tag)
            if info is None:
                t = node.tag
                if not isinstance(t, str):
                    if node is _END:
                        break
                    if t is etree.Comment or t is etree.PI:  # only the tail matters
                        s = node.tail
                        if s and stack and not s.isspace():
                            leaves.append(" ".join(s.split()))
                            leaf_owner.append(stack[-1])
                            leaf_elem.append(last + 1)
                    continue  # (entities: nothing)
                t = t.lower()
                if t in DROPPED_TAGS:
                    if not (t == "noscript" and holds_content(node)):
                        # dropped with its sub-tree; its tail belongs to the open parent
                        if len(node):
                            _skip_descendants(nodes, node)
                        s = node.tail
                        if s and stack and not s.isspace():
                            leaves.append(" ".join(s.split()))
                            leaf_owner.append(stack[-1])
                            leaf_elem.append(last + 1)
                        continue
                    info = _tag_info(t, tag_names)  # (not cached: the next may be dropped)
                else:
                    info = known[node.tag] = _tag_info(t, tag_names)
            t, tid, scan, always, kind = info
            i = last + 1
            if i >= limit:
                raise PageTooLargeError(f"page has more than max_nodes={max_nodes} elements")
            n_open = len(stack)
            if n_open > 1:
                # most start tags close nothing: the scan stops at the innermost open
                # element (td under tr, li under ul), so that one is tested first
                if (
                    scan is not None
                    and (always or open_p)
                    and scan.get(tag[stack[-1]]) is not False
                ):
                    # the innermost open element this tag closes, unless a stop comes first
                    k = n_open - 1
                    floor = k - _SCAN_LIMIT if k > _SCAN_LIMIT else 0
                    while k > floor:
                        c = scan.get(tag[stack[k]])
                        if c is not None:
                            if not c:
                                k = floor
                            break
                        k -= 1
                    if k > floor:  # close stack[k:] here, as a browser does
                        if not repaired:
                            real_stack = stack[:]
                            repaired = True
                        for j in stack[k:]:
                            end[j] = last
                            leaf_hi[j] = len(leaves)
                            if tag[j] == "p":
                                open_p -= 1
                        del stack[k:]
                        n_open = k
            elif n_open and body_i >= 0 and kind < _K_BODY:
                # content after </body> (not a head or body): a browser parses it into the body
                if not repaired:
                    real_stack = stack[:]
                    repaired = True
                stack.append(body_i)
                n_open = 2
            if n_open:
                # (depth[p] == len(stack) - 1: `stack` is always p's ancestor chain)
                p = stack[-1]
                key = (path_id[p], tid)
                children[p].append(i)
            else:
                p = -1
                key = (-1, tid)
            if repaired:
                rp = real_stack[-1] if real_stack else -1
                if rp != p:
                    moved[i] = rp
                real_stack.append(i)
            last = i
            top = node
            el.append(node)
            tag.append(t)
            tag_id.append(tid)
            parent.append(p)
            children.append([])
            depth.append(n_open)
            end.append(i)
            pid = path_keys.get(key)
            if pid is None:
                pid = path_keys[key] = len(path_keys)
            path_id.append(pid)
            nl = len(leaves)
            leaf_lo.append(nl)
            leaf_hi.append(nl)
            stack.append(i)
            s = node.text
            if s and not s.isspace():
                leaves.append(" ".join(s.split()))
                leaf_owner.append(i)
                leaf_elem.append(i + 1)
            if kind:
                if kind == _K_P:
                    open_p += 1
                elif kind == _K_BODY:
                    if body_i < 0 and n_open == 1:
                        body_i = i
                elif kind == _K_LEAF:
                    if len(node):
                        _skip_descendants(nodes, node)
                    continue
            if n_open >= max_depth:
                # folded: the sub-tree's text is the node's own, its structure is dropped
                truncated = True
                if len(node):
                    for s in _folded_texts(node):
                        if s and not s.isspace():
                            leaves.append(" ".join(s.split()))
                            leaf_owner.append(i)
                            leaf_elem.append(i + 1)
                    _skip_descendants(nodes, node)
        # leaves added after a node closed but inside its ancestors: fix ancestors' hi
        # (handled by setting leaf_hi at close time, which is after all descendants' tails
        # except the node's own tail, which belongs to the parent -> correct).
        self.el = el
        self.tag = tag
        self.tag_id = tag_id
        self.parent = parent
        self.children = children
        self.depth = depth
        self.end = end
        self.path_id = path_id
        self.leaves = leaves
        self.leaf_owner = leaf_owner
        self.leaf_elem = leaf_elem
        self.leaf_lo = leaf_lo
        self.leaf_hi = leaf_hi
        self.tag_names = tag_names
        self.path_keys = path_keys
        self.truncated = truncated
        # the real (libxml2) tree, for XPaths: differs only where a nesting was repaired
        self._rparent = parent
        self._rchildren = children
        if moved:
            rparent = list(parent)
            for j, rp in moved.items():
                rparent[j] = rp
            rchildren: list[list[int]] = [[] for _ in parent]
            for j, rp in enumerate(rparent):
                if rp >= 0:
                    rchildren[rp].append(j)
            self._rparent = rparent
            self._rchildren = rchildren
        body = 0
        for i in range(min(len(tag), 256)):
            if tag[i] == "body":
                body = i
                break
        self.body = body

    # ------------------------------------------------------------------ access
    def __len__(self) -> int:
        return len(self.el)

    def __repr__(self) -> str:
        return f"<Page {self.url or '(no url)'} nodes={len(self.el)} leaves={len(self.leaves)}>"

    def index(self, element: Any) -> int:
        """Pre-order index of an lxml element of this page (``KeyError`` if dropped)."""
        if self._index is None:
            self._index = {e: i for i, e in enumerate(self.el)}
        return self._index[element]

    def xpath(self, i: int) -> str:
        """Absolute XPath of node ``i`` in the *original* document (scripts counted).

        Same string as lxml's ``getpath`` (a positional ``[n]`` only where a parent has
        several children of that tag), computed from the page arrays and cached per
        parent: lxml's ``getpath`` scans every sibling, which is quadratic on a
        10,000-item list. Dropped elements (script, style...) never share a tag with a
        kept one, so positions among kept siblings are positions in the document (the one
        exception, a kept ``noscript`` beside dropped ones, takes lxml's path).
        """
        x = self._xpaths.get(i)
        if x is not None:
            return x
        chain = []
        j = i
        while j >= 0 and j not in self._xpaths:
            chain.append(j)
            j = self._rparent[j]
        for k in reversed(chain):
            p = self._rparent[k]
            if p < 0:
                self._xpaths[k] = self._treeroot.getpath(self.el[k])
                continue
            self._name_children(p)
        return self._xpaths[i]

    def _name_children(self, p: int) -> None:
        xpaths, el = self._xpaths, self.el
        base = xpaths[p]
        kids = self._rchildren[p]
        tags = [el[c].tag for c in kids]  # (lxml builds a new str per access: read once)
        counts: dict[str, int] = {}
        for t in tags:
            counts[t] = counts.get(t, 0) + 1
        seen: dict[str, int] = {}
        for c, t in zip(kids, tags):
            if t == "noscript":
                # a kept noscript (it holds the page) can have dropped noscript siblings,
                # which count in the position: lxml's own path (rare)
                xpaths[c] = self._treeroot.getpath(el[c])
            elif counts[t] > 1:
                n = seen.get(t, 0) + 1
                seen[t] = n
                xpaths[c] = f"{base}/{t}[{n}]"
            else:
                xpaths[c] = f"{base}/{t}"

    def text(self, i: int, sep: str = " ") -> str:
        """Whitespace-normalised text of node ``i``'s sub-tree."""
        return sep.join(self.leaves[self.leaf_lo[i] : self.leaf_hi[i]])

    def texts(self, nodes: Iterable[int], sep: str = " ") -> str:
        """Text of several sub-trees, joined (text between them is not included)."""
        return sep.join(t for t in (self.text(i) for i in nodes) if t)

    def record_text(self, nodes: Iterable[int], sep: str = " ") -> str:
        """Text of a record made of ``nodes`` (pre-order indices, document order).

        For siblings (a generalized node, a run of elements), everything from the start of
        the first to the end of the last: the text *between* them too, such as a search
        snippet that is the tail of a ``<br>`` (``<a>Title</a><br>snippet<br><small>url``),
        or a ``<b>`` an extractor left out of the run. Roots under different parents (a
        non-contiguous record) give the texts of their sub-trees only.
        """
        if not isinstance(nodes, (tuple, list)):
            nodes = list(nodes)
        if len(nodes) == 1:  # (most records: the text of one sub-tree)
            i = nodes[0]
            return sep.join(self.leaves[self.leaf_lo[i] : self.leaf_hi[i]])
        if len(nodes) > 1:
            parent = self.parent
            p = parent[nodes[0]]
            for i in nodes:
                if parent[i] != p:
                    break
            else:
                return sep.join(self.leaves[self.leaf_lo[nodes[0]] : self.leaf_hi[nodes[-1]]])
        return self.texts(nodes, sep)

    def own_text(self, i: int) -> str:
        """Text directly inside node ``i`` (its ``text`` and its children's tails)."""
        lo, hi = self.leaf_lo[i], self.leaf_hi[i]
        owner = self.leaf_owner
        return " ".join(self.leaves[k] for k in range(lo, hi) if owner[k] == i)

    def attr(self, i: int, name: str, default: str | None = None) -> str | None:
        return self.el[i].get(name, default)

    def classes(self, i: int) -> tuple[str, ...]:
        c = self._classes.get(i)
        if c is None:
            c = self._classes[i] = tuple((self.el[i].get("class") or "").split())
        return c

    def tag_path(self, i: int) -> str:
        """``html/body/div/ul/li`` style root-to-node tag path."""
        parts = []
        while i >= 0:
            parts.append(self.tag[i])
            i = self.parent[i]
        return "/".join(reversed(parts))

    def subtree(self, i: int) -> range:
        """Pre-order indices of node ``i``'s sub-tree (``i`` included)."""
        return range(i, self.end[i] + 1)

    def tag_string(self, i: int) -> list[int]:
        """MDR tag string: pre-order tag ids of the sub-tree (opening tags only)."""
        return self.tag_id[i : self.end[i] + 1]

    def is_ancestor(self, a: int, b: int) -> bool:
        """True when ``a`` is ``b`` or one of its ancestors (O(1) by pre-order ranges)."""
        return a <= b <= self.end[a]

    def absolute(self, href: str | None) -> str | None:
        """Resolve a link against the page's base URL; ``None`` for empty or script links."""
        if href is None:
            return None
        href = href.strip()
        if not href or href.lower().startswith(("javascript:", "data:", "#")):
            return (
                None if not href or not href.startswith("#") else urljoin(self.base_url or "", href)
            )
        return urljoin(self.base_url or "", href)

    @property
    def n(self) -> int:
        return len(self.el)


def as_page(source: Any, url: str | None = None, **options: Any) -> Page:
    """Return ``source`` if it is a :class:`Page`, else build one (parse once)."""
    if isinstance(source, Page):
        if url and not source.url:
            source.url = source.base_url = url
        return source
    return Page(source, url, **options)

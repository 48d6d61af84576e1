"""Validate a page and parse it the way parsel/Scrapy parse it: :func:`parse_html`.

The one parsing routine of the library (the page model and wrapper application both use
it), so every XPath the library emits selects the same nodes in ``response.xpath(...)``.
Also :func:`base_url_of` (what relative links resolve against) and
:class:`HtmlElementParser` (lxml.html elements, chosen at C level).
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import urljoin

import lxml.html
from lxml import etree
from parsel.selector import create_root_node

from scrapy_records.errors import EmptyDocumentError, NotHTMLError, OptionError, PageTooLargeError
from scrapy_records.page.decode import (
    ASCII_SAFE,
    BOMS,
    decode_html,
    looks_binary,
    sniff,
    utf8_despite,
)
from scrapy_records.page.repairs import drop_premature_end_tags

#: Default input budget (bytes, or characters of a ``str``); see the README.
DEFAULT_MAX_BYTES = 10 * 1024 * 1024

#: Before parsing, input with more than this many start tags per ``max_nodes`` is refused
#: (the parse alone would take memory the node budget exists to bound; a start tag is a
#: ``<`` that is not ``</``: text and scripts holding ``<`` make the count an overestimate).
TAGS_PER_NODE = 4
#: Most attributes one element may have: libxml2 checks each new attribute against the
#: element's others, so its parse is quadratic in them (100,000 attributes: 40 s).
MAX_ATTRIBUTES = 4096
_LONG_TAG = re.compile(r"<[A-Za-z][^<>]{32768,}")
_LONG_TAG_B = re.compile(rb"<[A-Za-z][^<>]{32768,}")
#: Characters of the shortest match of :data:`_LONG_TAG_B`.
_LONG_TAG_MIN = 32770
_SURROGATE_RE = re.compile("[\ud800-\udfff]")
_TAG_RE = re.compile(r"<\s*[a-zA-Z!?/]")
_XML_DECL_RE = re.compile(r"^\s*<\?xml[^>]*>", re.I)
_HTML_HINT_RE = re.compile(r"<\s*(html|head|body|div|table|p|span|a|ul|li|!doctype\s+html)\b", re.I)


class HtmlElementParser(etree.HTMLParser):
    """libxml2's HTML parser (the tree parsel builds) whose elements are ``lxml.html``
    elements (``text_content()``, ``cssselect()``...) chosen by a C-level lookup.

    ``lxml.html.HTMLParser`` chooses each element's class with a Python callback (forms and
    inputs get their own classes), which costs more than the rest of the page model's walk
    over the elements; this parser gives every element ``HtmlElement``."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.set_element_class_lookup(_HTML_LOOKUP)


class PlainHtmlParser(etree.HTMLParser):
    """libxml2's HTML parser with plain lxml elements and no table of ``id`` attributes
    (``collect_ids=False``): the same tree, parsed and freed a few percent faster. Only
    XPath's ``id()`` reads that table, and no wrapper selector may call it
    (:mod:`scrapy_records.wrappers.safe_xpath`); wrapper application parses with it."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(collect_ids=False, **kwargs)


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


def check_budget(name: str, value: Any, none_ok: bool = True) -> None:
    """Raise :class:`OptionError` unless ``value`` is a positive int (or ``None``)."""
    if value is None and none_ok:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        want = "a positive integer" + (" or None" if none_ok else "")
        raise OptionError(f"{name} must be {want}, not {value!r}")


def check_encoding(encoding: Any) -> str | None:
    """``encoding`` when Python knows it (``None`` stays ``None``), else :class:`OptionError`."""
    if encoding is None:
        return None
    if not isinstance(encoding, str):
        raise OptionError(f"encoding must be a string, not {type(encoding).__name__}")
    try:
        codecs.lookup(encoding)
    except LookupError:
        raise OptionError(f"unknown encoding {encoding!r}") from None
    return encoding


def long_spans(data: bytes) -> list[tuple[int, int]]:
    """The stretches ``[a, b)`` of ``data`` between two ``>`` (or an end) of at least
    :data:`_LONG_TAG_MIN` bytes: a tag that long holds no ``>``, so it lies in one of
    them. Such a stretch holds a whole aligned block of half that length, so one
    ``bytes.find`` per block says whether there is any (most pages have none: a few C-level
    scans that stop at the block's first ``>``), and a block without one is grown to its
    stretch by two more (splitting the page at every ``>`` costs a tenth of its parse);
    the regex would read every tag."""
    need = _LONG_TAG_MIN
    n = len(data)
    if n < need:
        return []
    half = need // 2
    find = data.find
    out = []
    end = -1  # where the last stretch examined ends: the blocks before it are in it
    for k in range(0, n - half + 1, half):
        if k < end or find(b">", k, k + half) >= 0:
            continue
        a = data.rfind(b">", 0, k) + 1
        end = find(b">", k + half)
        if end < 0:
            end = n
        if end - a >= need:
            out.append((a, end))
    return out


def check_tag_count(data: bytes | str, max_nodes: int | None) -> None:
    """Refuse input holding far more start tags than ``max_nodes``, or an element with
    more than :data:`MAX_ATTRIBUTES` attributes, before it is parsed."""
    matches: Iterator[re.Match[Any]]
    if isinstance(data, str):
        matches = _LONG_TAG.finditer(data)
        eq: Any = "="
    else:
        matches = (m for a, b in long_spans(data) for m in _LONG_TAG_B.finditer(data, a, b))
        eq = b"="
    for m in matches:
        n = m.group().count(eq)
        if n > MAX_ATTRIBUTES:
            raise PageTooLargeError(
                f"input has an element of about {n} attributes, over {MAX_ATTRIBUTES}"
            )
    if max_nodes is None or len(data) <= TAGS_PER_NODE * max_nodes:
        return
    lt, end = ("<", "</") if isinstance(data, str) else (b"<", b"</")
    n = data.count(lt) - data.count(end)  # type: ignore[arg-type]
    if n > TAGS_PER_NODE * max_nodes:
        raise PageTooLargeError(
            f"input holds {n} start tags, more than max_nodes={max_nodes} allows"
        )


def checked_text(text: str, max_bytes: int | None) -> str:
    """``text`` within ``max_bytes`` UTF-8 bytes, its lone surrogates (which no encoding
    can write) replaced by U+FFFD."""
    if max_bytes is not None and len(text) > max_bytes:  # (at least a byte a character)
        raise PageTooLargeError(f"input is {len(text)} characters, over max_bytes={max_bytes}")
    if _SURROGATE_RE.search(text):
        text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if max_bytes is not None and 4 * len(text) > max_bytes and not text.isascii():
        size = len(text.encode("utf-8"))
        if size > max_bytes:
            raise PageTooLargeError(f"input is {size} bytes, over max_bytes={max_bytes}")
    return text


def is_response(source: Any) -> bool:
    """A Scrapy ``Response`` (duck-typed: scrapy stays out of the page model's imports)."""
    return hasattr(source, "body") and hasattr(source, "url") and hasattr(source, "headers")


def parse_html(
    source: Any,
    url: str | None = None,
    *,
    encoding: str | None = None,
    max_bytes: int | None = DEFAULT_MAX_BYTES,
    parser_cls: type = lxml.html.HTMLParser,
    max_nodes: int | None = None,
) -> tuple[Any, str | None, str | None]:
    """Validate and parse a page the way parsel/Scrapy parse it: ``(root, url, encoding)``.

    * a Scrapy ``Response``: its selector tree (built here when nobody has yet), so the
      spider's selectors and the library share one parse (refused when not HTML);
    * a parsel ``Selector``, an lxml element or tree: used as is;
    * ``bytes``: refused when binary or empty; a Latin-1-family charset (given or
      declared) gives way to UTF-8 when the bytes are valid UTF-8 with non-ASCII text
      (:func:`~scrapy_records.page.decode.utf8_despite`); when the encoding is known without
      decoding (given, or :func:`~scrapy_records.page.decode.sniff_encoding`) libxml2
      decodes the bytes itself, which saves a decode and re-encode; otherwise
      :func:`~scrapy_records.page.decode.decode_html`;
    * ``str``: parsed as parsel does (UTF-8 bytes to libxml2); ``max_bytes`` counts its
      UTF-8 bytes.

    Raw input holding more than :data:`TAGS_PER_NODE` start tags per ``max_nodes`` is
    refused before it is parsed. ``parser_cls`` is ``lxml.html.HTMLParser`` (what parsel
    uses), ``lxml.etree.HTMLParser`` or :class:`PlainHtmlParser` (same tree, plain elements:
    cheaper when only XPaths are evaluated).

    :raises EmptyDocumentError, NotHTMLError, PageTooLargeError:
    :raises OptionError: an unknown ``encoding`` or a budget that is not a positive int.
    """
    check_budget("max_bytes", max_bytes)
    check_budget("max_nodes", max_nodes)
    encoding = check_encoding(encoding)
    if is_response(source):
        return (
            _response_root(source, max_bytes, max_nodes),
            url or source.url,
            getattr(source, "encoding", None),
        )
    if hasattr(source, "root") and hasattr(source, "xpath") and hasattr(source, "type"):
        return source.root, url, encoding  # a parsel Selector
    if isinstance(source, etree._ElementTree):
        return source.getroot(), url, encoding
    if isinstance(source, etree._Element):
        return source, url, encoding
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = _checked_bytes(bytes(source), max_bytes, max_nodes, encoding)
        if utf8_despite(data, encoding):  # (a crawl passes the response's charset)
            encoding = "utf-8"
        root, enc, data = _parse_bytes(data, url, encoding, parser_cls)
        if root is not None:
            return root, url, enc
        if encoding:
            text, enc = data.decode(encoding, errors="replace"), encoding
        else:
            text, enc = decode_html(data)
    elif isinstance(source, str):
        text, enc = checked_text(source, max_bytes), encoding
        check_tag_count(text, max_nodes)
    else:
        raise TypeError(
            "a page must be str, bytes, a Scrapy Response, a parsel Selector or an "
            f"lxml element, not {type(source).__name__}"
        )
    return _parse_text(text, url, parser_cls), url, enc


def _response_root(response: Any, max_bytes: int | None, max_nodes: int | None) -> Any:
    """The root of a Scrapy response's selector tree, once the body is known to be HTML."""
    body = response.body
    if max_bytes is not None and len(body) > max_bytes:
        raise PageTooLargeError(f"response is {len(body)} bytes, over max_bytes={max_bytes}")
    if not body.strip():
        raise EmptyDocumentError("empty response body")
    if not hasattr(type(response), "selector"):  # (the class: do not build it yet)
        raise NotHTMLError(f"{type(response).__name__} is not a text response")
    if looks_binary(body, getattr(response, "encoding", None)):
        raise NotHTMLError("response body is binary data, not HTML")
    check_tag_count(body, max_nodes)
    if _is_json(response):
        raise NotHTMLError("response is json, not HTML")
    if getattr(response.selector, "type", "html") != "html":
        raise NotHTMLError(f"response is {response.selector.type}, not HTML")
    return response.selector.root


def _is_json(response: Any) -> bool:
    """A JSON response (by its Content-Type, or a body that parses as a JSON array or
    object). Recent Scrapy types such a selector "json" itself; older Scrapy reads it as
    HTML (a page of one paragraph)."""
    ctype = (response.headers.get(b"Content-Type") or b"").split(b";")[0].strip().lower()
    if ctype == b"application/json" or ctype.endswith(b"+json"):
        return True
    head = response.body.lstrip()[:1]
    if head not in (b"[", b"{"):
        return False
    try:
        json.loads(response.body)
    except ValueError:
        return False
    return True


def _checked_bytes(
    data: bytes, max_bytes: int | None, max_nodes: int | None, encoding: str | None
) -> bytes:
    """``data``, unless it is too large, empty or binary (for its declared ``encoding``)."""
    if max_bytes is not None and len(data) > max_bytes:
        raise PageTooLargeError(f"input is {len(data)} bytes, over max_bytes={max_bytes}")
    if not data or data.isspace():  # (all ASCII whitespace: ``not data.strip()``)
        raise EmptyDocumentError("empty document")
    if looks_binary(data, encoding):
        raise NotHTMLError("input is binary data, not HTML")
    check_tag_count(data, max_nodes)
    return data


def _parse_bytes(
    data: bytes, url: str | None, encoding: str | None, parser_cls: type
) -> tuple[Any, str | None, bytes]:
    """libxml2's parse of the bytes themselves: ``(root, encoding, data)``; the root is
    ``None`` when the encoding is not known without decoding or the bytes are not plainly
    HTML (then the text path decides, on ``data`` as returned)."""
    enc, checked = (encoding, False) if encoding else sniff(data)
    codec = text = None
    if enc:
        try:  # libxml2 (iconv) stops at bytes a codec leaves undefined: Python decides
            codec = codecs.lookup(enc).name
            if not checked and not (codec in ASCII_SAFE and data.isascii()):
                text = data.decode(enc)
        except (UnicodeDecodeError, LookupError):
            enc = None
    if not enc or b"\x00" in data:
        return None, None, data
    head = data[:4096].decode("latin-1")
    if not _TAG_RE.search(head) or _XML_DECL_RE.match(head):
        return None, None, data
    stripped = drop_premature_end_tags(data)
    if stripped is not data:
        data, text = stripped, None
    # libxml2 decodes other encodings through iconv, slower than Python's codecs: pure
    # ASCII, and windows-1252 (decoded here anyway), go in as UTF-8, the same characters
    src, src_enc = data, enc
    if codec in ASCII_SAFE and data.isascii():
        src_enc = "utf-8"
    elif codec == "cp1252" and not data.startswith(BOMS):
        src = (data.decode(enc) if text is None else text).encode("utf-8")
        src_enc = "utf-8"
    try:
        root = etree.fromstring(src.strip(), _parser(parser_cls, src_enc), base_url=url)
    except (LookupError, ValueError, etree.LxmlError):
        return None, None, data
    return root, enc, data


def _parse_text(text: str, url: str | None, parser_cls: type) -> Any:
    """parsel's parse of a decoded page, once it is known to hold HTML markup."""
    if not text.strip():
        raise EmptyDocumentError("empty document")
    head = text[:4096]
    if not _TAG_RE.search(head) and not _TAG_RE.search(text[:65536]):
        raise NotHTMLError("input holds no markup: plain text, not HTML")
    if _XML_DECL_RE.match(head) and not _HTML_HINT_RE.search(text[:65536]):
        raise NotHTMLError("input is an XML document, not HTML")
    text = _XML_DECL_RE.sub("", text, count=1)
    text = drop_premature_end_tags(text)
    return create_root_node(text, parser_cls, base_url=url)


def base_url_of(root: Any, url: str | None) -> str | None:
    """The URL relative links of the document resolve against: its ``<base href>`` (made
    absolute against ``url``) or ``url``."""
    return base_url_from(root.find(".//head/base[@href]") if root is not None else None, url)


#: an absolute URL that ``urljoin`` returns unchanged whatever the base: a lower-case
#: scheme, a host, and no whitespace, query, fragment, backslash or bracket to re-parse
_PLAIN_ABSOLUTE = re.compile(r"[a-z][a-z0-9+.\-]*://[^/\s?#\\\[\]]+[^\s?#\\\[\]]*\Z")


def base_url_from(base: Any, url: str | None) -> str | None:
    """:func:`base_url_of` given the document's ``<base href>`` element (or ``None``)."""
    if base is None:
        return url
    href = base.get("href", "").strip()
    if url and _PLAIN_ABSOLUTE.match(href):
        return href  # (urljoin's parse and re-assembly cost a detail page's field reads)
    return urljoin(url or "", href)

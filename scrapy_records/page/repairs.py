"""Where a browser's HTML parser builds a different tree than libxml2, and how to follow it.

libxml2 (Scrapy's parser) nests an unclosed ``<li>``, ``<dd>``, ``<tr>``... inside its
predecessor when any other element is still open in it (``<li><b>1 <li>2``), so a list of
160 items becomes a chain 160 levels deep; a browser closes the open item at the next one
(WHATWG HTML, tree construction). :data:`IMPLIED_CLOSE` holds those rules and
:func:`close_point` applies one to the open elements. :func:`drop_premature_end_tags` and
:func:`holds_content` keep content that libxml2 would cut off or that only a crawler
without JavaScript sees.
"""

from __future__ import annotations

import re
from itertools import islice
from typing import Any, AnyStr

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
SCAN_LIMIT = 48

#: implied-close rule -> {tag: True when the rule closes it, False when it stops the scan}
_SCAN_MAPS: dict[tuple[frozenset[str], frozenset[str]], dict[str, bool]] = {}


def close_rule(t: str) -> tuple[dict[str, bool] | None, bool]:
    """The implied-close rule of start tag ``t`` as a scan map ``{tag: closes?}`` (``None``:
    no rule), and whether the scan is worth doing when no ``<p>`` is open."""
    rule = IMPLIED_CLOSE.get(t)
    if rule is None:
        return None, False
    scan = _SCAN_MAPS.get(rule)
    if scan is None:
        closes, stops = rule
        # a tag in both sets closes: the scan tested ``closes`` first
        scan = _SCAN_MAPS[rule] = {**dict.fromkeys(stops, False), **dict.fromkeys(closes, True)}
    return scan, rule[0] is not _P_ONLY


def close_point(scan: dict[str, bool], stack: list[int], tag: list[str]) -> int:
    """Where a start tag with scan map ``scan`` closes the open nodes ``stack``: the
    position of the innermost one it closes (everything from there on closes), or 0 when
    a stop comes first or none lies within :data:`SCAN_LIMIT` levels."""
    k = len(stack) - 1
    floor = k - SCAN_LIMIT if k > SCAN_LIMIT else 0
    while k > floor:
        c = scan.get(tag[stack[k]])
        if c is not None:
            return k if c else 0
        k -= 1
    return 0


#: (the first ``</html>``, the end tags to drop, a start tag) in text and in bytes
_TEXT_RES = (
    re.compile(r"</html\s*>", re.I),
    re.compile(r"</(?:html|body)\s*>", re.I),
    re.compile(r"<[a-zA-Z]"),
)
_BYTES_RES = (
    re.compile(rb"</html\s*>", re.I),
    re.compile(rb"</(?:html|body)\s*>", re.I),
    re.compile(rb"<[a-zA-Z]"),
)
#: How many start tags after the first ``</html>`` make it premature.
_AFTER_END = 20


def drop_premature_end_tags(doc: AnyStr) -> AnyStr:
    """Remove ``</body>``/``</html>`` when real markup follows the first ``</html>``.

    Browsers ignore these end tags (content after them is parsed into the body; WHATWG
    "after body" insertion mode), but libxml2 stops at ``</html>``: a page that starts
    with ``<noscript><html>...</html></noscript>`` (an old JavaScript probe) loses its
    whole content. Only done when at least 20 start tags follow, so ordinary pages are
    parsed exactly as Scrapy parses them. ``doc`` (text or bytes) is returned itself when
    nothing is removed.
    """
    end_html, end_tags, start_tag = _BYTES_RES if isinstance(doc, bytes) else _TEXT_RES
    m: Any = end_html.search(doc)
    if m is None or len(list(islice(start_tag.finditer(doc, m.end()), _AFTER_END))) < _AFTER_END:
        return doc
    return end_tags.sub(doc[:0], doc)


def holds_content(noscript: Any) -> bool:
    """True for a ``<noscript>`` that holds the page rather than a notice or a pixel.

    JavaScript applications (Discourse, for one) serve their crawler view inside
    ``<noscript>``, and old pages wrap a JavaScript probe's ``<html>`` around the real
    body (see :func:`drop_premature_end_tags`). What a crawler without JavaScript gets
    is that content, so a noscript with a ``<body>`` or more than 20 elements is kept.
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

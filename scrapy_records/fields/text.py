"""The text of one field value, read as a browser lays it out inline.

Mining (the aligned columns) and wrapper application read a value element with the same
function, :func:`inline_text`, so a page gives the same value whichever path produced it.
Inline formatting never splits or spaces a value: ``Micro<b>soft</b>`` is ``Microsoft``
(whitespace comes from the page, not from element boundaries); block elements, ``br`` and
an empty element with a class (a spacer or an icon the style sheet draws) separate words,
and superscript cents after a number are decimals (``$19<sup>97</sup>`` is
``$19.97``). Text a browser does not draw (a ``hidden`` element, ``display: none``, the
screen-reader-only classes) does not extend a visible value; it stays when it is all there is.
"""

from __future__ import annotations

import re
from typing import Any

from lxml import etree

from scrapy_records.page import normalize_space

#: elements that start a new line: their boundaries separate words
BLOCK_TAGS = frozenset(
    "address article aside blockquote br dd div dl dt fieldset figcaption figure footer form"
    " h1 h2 h3 h4 h5 h6 header hr li main nav ol p pre section table tbody td tfoot th thead"
    " tr ul".split()
)
#: elements whose text is not page text
SKIPPED_TAGS = frozenset({"script", "style", "noscript", "template"})

#: class tokens that hide an element from sighted readers (screen-reader text, JS-toggled)
HIDDEN_CLASSES = frozenset(
    "sr-only visually-hidden visuallyhidden screen-reader-text screenreader-only a11y-hidden"
    " is-hidden u-hidden hidden d-none".split()
)
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)

_CENTS = re.compile(r"^\s*\d\d\s*$")
_ENDS_WITH_DIGIT = re.compile(r"\d$")


def is_cents(sup_text: str | None, before: str) -> bool:
    """A ``sup`` holding two digits right after a digit (markup whitespace between them
    aside): the cents of a price."""
    return bool(sup_text and _CENTS.match(sup_text) and _ENDS_WITH_DIGIT.search(before.rstrip()))


#: separators around a value that belong to the layout, not to the value ("344,", "· 3 min")
_EDGE_SEPARATORS = " ,;|·•"
#: the characters :func:`strip_separators` may remove at a value's ends
_EDGE_CHARS = frozenset(_EDGE_SEPARATORS + "-\u2013\u2014")


#: a dash set off by a space at a value's end separates it from its neighbour ("- May 3")
_EDGE_DASHES = re.compile(r"^[-\u2013\u2014]\s+|\s+[-\u2013\u2014]$")


#: a text that is only one of these joins two parts around it (the "and" between two
#: linked author names): layout, not a value
_JOINERS = frozenset({"and", "&", "or", "und", "et"})


def strip_separators(text: str) -> str:
    """``text`` without the list separators at its ends ("344," -> "344", "Politics —" ->
    "Politics"); a dash touching a word or digit stays ("-5", "A-"). A lone joining word
    ("and" between two linked names) is no value: ``""``; one that ends a value of two
    words or more ("Dennis Ojima and", the next name being a link) is cut off."""
    t = text
    if not t or t[0] in _EDGE_CHARS or t[-1] in _EDGE_CHARS:  # (else nothing to strip)
        t = t.strip(_EDGE_SEPARATORS)
        if t[:1] in "-\u2013\u2014" or t[-1:] in "-\u2013\u2014":
            t = _EDGE_DASHES.sub("", t).strip(_EDGE_SEPARATORS)
    if len(t) <= 3:
        return "" if t.casefold() in _JOINERS else t
    k = t.rfind(" ")
    if k < 0 or len(t) - k > 4:  # no last word of three letters at most: no joiner
        return t
    head, sep, last = t.rpartition(" ")
    if sep and len(last) <= 3 and last.casefold() in _JOINERS and " " in head.strip():
        return head.rstrip(_EDGE_SEPARATORS)  # "Dennis Ojima and" before the next linked name
    return t


def is_hidden(el: Any) -> bool:
    """An element a browser does not draw: ``hidden``, ``display: none``, ``visibility:
    hidden`` or a screen-reader-only / hidden class."""
    if el.get("hidden") is not None:
        return True
    style = el.get("style")
    if style and _HIDDEN_STYLE.search(style):
        return True
    cls = el.get("class")
    if not cls:
        return False
    tokens = cls.split()
    return not HIDDEN_CLASSES.isdisjoint(tokens) and not any(map(_SHOWN_AT.match, tokens))


#: a class that shows the element again on wider screens ("d-md-block", Tailwind's
#: "md:inline", "visible-lg"): "hidden" beside it hides it on phones only
_SHOWN_AT = re.compile(r"d-\w+-(?!none)|\w+:(?!hidden)|visible-")


def inline_text(el: Any) -> str:
    """Whitespace-normalised text of element ``el`` (see the module docstring)."""
    if not len(el):
        t = el.text
        return normalize_space(t) if t else ""
    parts: list[str] = []
    if _walk(el, parts, skip_hidden=True):
        visible = normalize_space("".join(parts))
        if visible:
            return visible
        parts = []
        _walk(el, parts)
    return normalize_space("".join(parts))


def inline_part_text(el: Any, lo: int, hi: int) -> str:
    """:func:`inline_text` of a part of element ``el``: the pieces ``lo`` to ``hi`` of its
    content, numbered ``0`` for ``el.text``, ``2j+1`` for child ``j`` (comments count) and
    ``2j+2`` for that child's tail ("Then the <b>Lord</b> God" before a block of links)."""
    kids = list(el)
    parts: list[str] = []
    for pos in range(lo, hi + 1):
        if pos == 0:
            t = el.text
        elif pos % 2:
            kid = kids[(pos - 1) // 2]
            if isinstance(kid.tag, str):
                if _drawn_gap(kid):
                    parts.append(" ")
                _walk(kid, parts)
            continue
        else:
            t = kids[(pos - 2) // 2].tail
        if t:
            parts.append(t)
    return normalize_space("".join(parts))


def _walk(el: Any, parts: list[str], skip_hidden: bool = False) -> bool:
    """Append the text pieces of ``el``'s sub-tree (not its tail) to ``parts``; with
    ``skip_hidden``, not those of hidden descendants. Returns whether one was skipped.

    A walk over the children (what ``etree.iterwalk`` with start, end, comment and pi
    events gives, without its set-up cost: value elements hold a few nodes)."""
    if el.tag in SKIPPED_TAGS:
        return False
    _start_text(el, el.tag, parts)
    skipped = False
    stack = [(el, iter(el))]
    while stack:
        parent, it = stack[-1]
        for node in it:
            tag = node.tag
            if tag is _COMMENT or tag is _PI:
                if node.tail:
                    parts.append(node.tail)
                continue
            if tag in SKIPPED_TAGS:
                pass  # the sub-tree is skipped, its end (and tail) is not
            elif skip_hidden and is_hidden(node):
                skipped = True
            else:
                if tag in BLOCK_TAGS or _drawn_gap(node):
                    parts.append(" ")
                _start_text(node, tag, parts)
                if len(node):
                    stack.append((node, iter(node)))
                    break
            if tag in BLOCK_TAGS:
                parts.append(" ")
            if node.tail:
                parts.append(node.tail)
        else:
            stack.pop()
            if parent is not el:
                if parent.tag in BLOCK_TAGS:
                    parts.append(" ")
                if parent.tail:
                    parts.append(parent.tail)
    return skipped


_COMMENT = etree.Comment
_PI = etree.ProcessingInstruction


def _drawn_gap(node: Any) -> bool:
    """An empty element the site's style sheet draws (a class, no content): a spacer or an
    icon between two words ("$35.99<span class="letter-space"></span>used") parts them as
    the browser does. An empty element without a class draws nothing."""
    return not len(node) and not node.text and node.get("class") is not None


def _start_text(node: Any, tag: Any, parts: list[str]) -> None:
    """Append the text of ``node`` at its start (a ``sup`` of cents after a number: a
    decimal point, then the cents)."""
    text = node.text
    if tag == "sup" and is_cents(text, "".join(parts[-2:])):
        while parts and parts[-1].isspace():
            parts.pop()  # "24 <sup>99</sup>" is 24.99 as well
        if parts:
            parts[-1] = parts[-1].rstrip()
        parts.append(".")
        text = text.strip() if text else text
    if text:
        parts.append(text)


#: words that label the value after them ("By <b>Jane</b>"): the author, in several languages
BY_WORDS = frozenset("by von par por di written posted".split())

#: elements whose short text reads as the label of the value beside it ("<th>Colour")
LABEL_TAGS = frozenset({"label", "dt", "th", "b", "strong", "legend", "caption", "em"})


def is_label_text(text: str) -> bool:
    """A text piece that labels the value after it: it ends with a colon ("Price:") or is a
    "by" word."""
    t = text.strip()
    return t.endswith((":", "：")) or t.lower().rstrip(".") in BY_WORDS


def is_byline_label(text: str) -> bool:
    """A label text (:func:`is_label_text`) or a short phrase ending in a "by" word
    ("Written by", "Blog Entry By"). Only for a whole slot's text: inside one value,
    "Get it by <b>Friday</b>" stays one value."""
    if is_label_text(text):
        return True
    if len(text) > 40:
        return False
    words = text.strip().lower().rstrip(".").split()
    return 0 < len(words) <= 3 and words[-1] in BY_WORDS


def xpath_literal(s: str) -> str | None:
    """``s`` as an XPath string literal (``None`` when it holds both kinds of quote)."""
    if "'" not in s:
        return f"'{s}'"
    if '"' not in s:
        return f'"{s}"'
    return None


def xpath_string(s: str) -> str:
    """``s`` as an XPath string expression: its literal, or a ``concat()`` of literals when
    it holds both kinds of quote."""
    lit = xpath_literal(s)
    if lit is not None:
        return lit
    return "concat(" + ', "\'", '.join(f"'{p}'" for p in s.split("'")) + ")"


#: image URL attributes, by preference (lazy loaders keep the real URL in ``data-*``)
IMAGE_ATTRS = ("src", "data-src", "data-original", "data-lazy-src", "data-lazy", "data-url")
_PLACEHOLDER_RE = re.compile(
    r"(?:blank|spacer|placeholder|transparent|pixel|1x1|loading|lazy)[^/]*\.(?:gif|png|svg)", re.I
)


def image_source(el: Any) -> tuple[str | None, str | None]:
    """An ``img`` element's URL as written and the attribute it came from: the first of
    :data:`IMAGE_ATTRS` holding one (no ``data:`` URL; a placeholder ``src`` when a lazy
    loader's attribute is there too), ``(None, None)`` when none does. Mining reads an
    image so, and a wrapper's image field so reads any of these attributes: records that
    keep the URL in ``data-src`` until they scroll into view read like those that do not."""
    for a in IMAGE_ATTRS:
        v = el.get(a)
        if v and v.strip() and not v.strip().lower().startswith("data:"):
            if a == "src" and _PLACEHOLDER_RE.search(v) and any(el.get(b) for b in IMAGE_ATTRS[1:]):
                continue
            return v, a
    return None, None

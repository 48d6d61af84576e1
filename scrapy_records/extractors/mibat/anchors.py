"""Pluggable anchors for MiBAT (Song et al. 2010, section 4.2; other kinds than dates are
ours).

An anchor classifier marks the *candidate pivots* of a page: the lowest nodes holding a
piece of structured data that occurs once in every record (the paper's "domain
constraint"). MiBAT's Algorithms 2 and 3 are unchanged whatever the anchor; only the
candidate set changes, and candidates of different kinds never match each other because
MiBAT runs once per kind.

Built-in kinds:

* ``date`` (default): post dates in text (:func:`scrapy_records.fields.dates.is_date_candidate`),
  ``<time>`` elements and ``datetime`` / ``title`` / ``data-*`` timestamp attributes;
* ``author``: profile links (``memberlist.php?mode=viewprofile``, ``/members/``, ``/u/`` ...)
  or links whose class says user / author;
* ``permalink``: links to one post (``#post123``, ``#p123``, ``#comment-5``, ``?p=12``,
  ``rel=bookmark``);
* ``reply``: reply / quote links in the seven languages (often hidden to logged-out
  crawlers: never the only anchor).

A third-party anchor is any object with a ``kind`` string and ``candidates(page) ->
list[int]`` (sorted pre-order indices); pass it in ``MiBATExtractor.extract(page,
anchors=[...])``.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from functools import lru_cache
from itertools import accumulate
from operator import add
from typing import Any, Protocol, runtime_checkable

from lxml import etree

from scrapy_records.fields.dates import (
    DATE_WORDS,
    KEYWORD_WORDS,
    MAX_TEXT,
    PUNCT_TO_SPACE,
    TIME_ONLY_MAX,
    is_date_candidate,
)
from scrapy_records.page import Page

__all__ = [
    "AnchorClassifier",
    "DateAnchor",
    "AuthorLinkAnchor",
    "PermalinkAnchor",
    "ReplyLinkAnchor",
    "BUILTIN_ANCHORS",
    "get_anchor",
    "lowest",
    "links_of",
    "in_sorted",
    "DATE_ATTRS",
    "PROFILE_HREF_RE",
    "PERMALINK_HREF_RE",
    "REPLY_HREF_RE",
    "REPLY_TEXT_RE",
]

#: Attributes that may carry a machine timestamp.
DATE_ATTRS = (
    "datetime",
    "data-time",
    "data-timestamp",
    "data-datetime",
    "data-date",
    "data-utime",
    "title",
)
_DATE_ATTR_SET = frozenset(DATE_ATTRS)
#: an element's attribute names (lxml's ``keys``, unbound: one C call per element)
_KEYS = etree._Element.keys

PROFILE_HREF_RE = re.compile(
    r"member\.php|memberlist\.php\?mode=viewprofile|mode=viewprofile|showuser=|viewprofile|"
    r"profile\.php|/members?/|/users?/|/u/|/profile|/people/|/author/|/benutzer/|/utilisateur|"
    r"action=profile|[?&;](?:u|uid|userid|user_id|user|memberid|showuser)=\d+|/~\w",
    re.I,
)
PERMALINK_HREF_RE = re.compile(
    r"#(?:post|p|msg|comment|reply|entry|answer|c|r|m)[-_]?\d+\b|#\d+$|"
    r"[?&](?:p|pid|post|postid|comment_id|commentid|msg)=\d+|"
    r"/(?:post|posts|comment|comments|msg)/\d+|showpost\.php|/permalink|/discussion/comment/\d+|"
    r"#(?:post|comment|msg)[-_][\w-]+$",
    re.I,
)
#: Lower-case substrings one of which every :data:`PROFILE_HREF_RE` match of an ASCII href
#: holds (the query-key branch ends in ``u=``, ``d=`` or ``r=``): C-level ``in`` tests
#: settle most links before the case-insensitive alternation scans them.
_PROFILE_HINTS = (
    "member",
    "profile",
    "showuser",
    "/user",
    "/u/",
    "/people/",
    "/author/",
    "/benutzer/",
    "/utilisateur",
    "/~",
    "u=",
    "d=",
    "r=",
)
_PROFILE_LOWER_RE = re.compile(PROFILE_HREF_RE.pattern)
REPLY_HREF_RE = re.compile(
    r"newreply|mode=quote|mode=reply|replytocom=|[?&]quote=|/reply\b|action=reply|do=quote", re.I
)
REPLY_TEXT_RE = re.compile(
    r"^\W*(?:reply|quote|report|permalink|antworten|zitieren|melden|répondre|repondre|citer|"
    r"signaler|responder|citar|rispondi|cita|segnala|reageren|citeren|beantwoorden|ответить|"
    r"цитировать|回复|引用)\W*$",
    re.I,
)
_USER_CLASS_RE = re.compile(r"user|author|poster|member|nick|byline", re.I)
_PERMA_CLASS_RE = re.compile(r"permalink|post-?link|postnumber|post-?num|share", re.I)


@runtime_checkable
class AnchorClassifier(Protocol):
    """Marks candidate pivots: ``candidates(page)`` returns sorted pre-order indices."""

    kind: str

    def candidates(self, page: Page) -> list[int]:  # pragma: no cover
        ...


def is_profile_href(href: str) -> bool:
    """``PROFILE_HREF_RE.search(href)`` as a bool, faster: an ASCII href is lower-cased
    once and matched case-sensitively (the pattern is lower-case ASCII, so that is the same
    test) after the :data:`_PROFILE_HINTS` pre-check; other hrefs take the regex itself
    (``re.I`` also folds a few non-ASCII letters, such as the Kelvin sign, to ASCII)."""
    if not href.isascii():
        return PROFILE_HREF_RE.search(href) is not None
    s = href.lower()
    for hint in _PROFILE_HINTS:
        if hint in s:
            return _PROFILE_LOWER_RE.search(s) is not None
    return False


def lowest(page: Page, nodes: list[int] | set[int]) -> list[int]:
    """Keep the lowest candidates: drop a node when one of its descendants is a candidate
    (the pivot is "the lowest tree node that contains post-date", Song et al. 2010, section 4)."""
    s = sorted(set(nodes))
    out = []
    end = page.end
    for k, c in enumerate(s):
        if k + 1 < len(s) and s[k + 1] <= end[c]:
            continue
        out.append(c)
    return out


#: A clock reading alone, without a day or an am/pm mark: ``1:28:08``, ``(4:12)``, ``03:45``.
_BARE_CLOCK = re.compile(r"^\W*\d{1,2}(?::\d{2}){1,2}\W*$")


@lru_cache(maxsize=16384)
def _leaf_is_date(text: str) -> bool:
    """A post-date candidate: a date or time in the text, but not a bare clock reading (a
    video's length, a track's duration: it names no day, so it cannot date a post)."""
    return is_date_candidate(text) and not _BARE_CLOCK.match(text)


#: a digit or a non-ASCII character, and the rest of its text (texts joined by NULs)
_DIGIT_OR_WIDE_RE = re.compile("[0-9\x80-\U0010ffff][^\x00]*")
_SEP = " \x00 "  # joins texts: their words stay apart, and no text holds a NUL
#: ASCII bytes as the keyword gate reads them: lower case, punctuation and what
#: ``str.split`` takes for whitespace (\x1c-\x1f too) made spaces
_WORD_BYTES = bytes(
    32 if c in PUNCT_TO_SPACE or chr(c).isspace() else c for c in bytes(range(256)).lower()
)
_KEYWORD_BYTES = frozenset(w.encode("ascii") for w in KEYWORD_WORDS if w.isascii())
_SPACE_BYTES = frozenset(b" \t\n\r\x0b\x0c")
_SPACE = frozenset(b" ")
#: ASCII bytes as the date-word gate reads them: letters lower-cased, all else a space
_LETTER_BYTES = bytes(c + 32 if 65 <= c <= 90 else c if 97 <= c <= 122 else 32 for c in range(256))
_DATE_WORD_BYTES = frozenset(w.encode("ascii") for w in DATE_WORDS if w.isascii())
#: the date gate's two equal separators between digits (group 1 set), or its clock
#: reading (looked ahead: it must not hide a date mark), on lower-cased ASCII bytes
_MARK_BYTES = re.compile(rb"\d(?:([-/.])\d{1,2}\1\d|(?=[:h][0-5]\d))")


def _starts(texts: list[str]) -> list[int]:
    """Where each of ``texts`` starts once they are joined by :data:`_SEP`, and where the
    last one ends (``len(texts) + 1`` offsets)."""
    return list(
        map(
            add,
            accumulate(map(len, texts), initial=0),
            range(0, len(_SEP) * len(texts) + 1, len(_SEP)),
        )
    )


def _whole_words(words: bytes, found: Iterable[bytes], starts: list[int], space: Any) -> set[int]:
    """Indices of the texts (joined in ``words``, starting at ``starts``) where a word of
    ``found`` stands alone, bounded by bytes of ``space`` (a set of ints) or the ends."""
    out = set()
    for w in found:
        i = words.find(w)
        while i >= 0:
            j = i + len(w)
            if (i == 0 or words[i - 1] in space) and (j == len(words) or words[j] in space):
                out.add(bisect.bisect_right(starts, i) - 1)
            i = words.find(w, j)
    return out


def _may_be_dates(texts: list[str]) -> set[int]:
    """Indices of the ASCII ``texts`` for which the date gate of
    :func:`~scrapy_records.fields.dates.is_date_candidate` (``_may_be_date``) may hold:
    two equal date separators between digits, a clock reading in a short text, or a date
    word (a month, "yesterday", "ago"...) standing alone; by C-level scans of the texts
    joined."""
    raw, starts = _SEP.join(texts).encode("ascii"), _starts(texts)
    at = bisect.bisect_right
    may = set()
    for m in _MARK_BYTES.finditer(raw.lower()):
        k = at(starts, m.start()) - 1
        if m.group(1) is not None or len(" ".join(texts[k][:MAX_TEXT].split())) <= TIME_ONLY_MAX:
            may.add(k)
    letters = raw.translate(_LETTER_BYTES)
    found = _DATE_WORD_BYTES.intersection(letters.split())
    return may | _whole_words(letters, found, starts, _SPACE)


def maybe_dates(texts: list[str]) -> list[int]:
    """Indices of ``texts`` for which :func:`is_date_candidate` may hold, in order (it is
    False for the others): its first checks, for a whole page in a few C-level scans of
    the texts joined. An ASCII text without a digit and without a date keyword holds no
    date, nor does one without a date mark or a date word (:func:`_may_be_dates`: counts,
    prices, "Results 1 - 10 of 2,340"); most of a page's texts are such. ``texts`` are at
    most :data:`~scrapy_records.fields.dates.MAX_TEXT` long (a longer text is cut first,
    and the cut may end in a keyword)."""
    joined = _SEP.join(texts)
    starts = _starts(texts)
    at = bisect.bisect_right
    keep = {at(starts, m.start()) - 1 for m in _DIGIT_OR_WIDE_RE.finditer(joined)}
    # the ASCII texts' words (the others are kept): a byte a character, so offsets hold
    words = joined.encode("ascii", "replace").translate(_WORD_BYTES)
    keep |= _whole_words(words, _KEYWORD_BYTES.intersection(words.split()), starts, _SPACE_BYTES)
    kept = sorted(keep)
    # of those, the ASCII texts must pass the date gate too (NFKC may make anything of
    # the others)
    ascii_kept = kept if joined.isascii() else [k for k in kept if texts[k].isascii()]
    if not ascii_kept:
        return kept
    may = _may_be_dates([texts[k] for k in ascii_kept])
    if len(may) == len(ascii_kept):
        return kept
    drop = {k for n, k in enumerate(ascii_kept) if n not in may}
    return [k for k in kept if k not in drop]


class DateAnchor:
    """Post-date candidates (the paper's "pivot format classifier").

    :param max_text: leaves longer than this are UGC, never pivots (default 200).
    :param attributes: also accept ``<time>`` and timestamp attributes.
    """

    kind = "date"

    def __init__(self, max_text: int = 200, attributes: bool = True) -> None:
        self.max_text = max_text
        self.attributes = attributes

    def candidates(self, page: Page) -> list[int]:
        hits: set[int] = set()
        owner = page.leaf_owner
        mx = self.max_text
        leaves = page.leaves
        if mx <= MAX_TEXT:  # the texts no ASCII digit or date keyword rules out
            short = [k for k, text in enumerate(leaves) if len(text) <= mx]
            for i in maybe_dates([leaves[k] for k in short]):
                if _leaf_is_date(leaves[short[i]]):
                    hits.add(owner[short[i]])
        else:
            for k, text in enumerate(leaves):
                if len(text) <= mx and _leaf_is_date(text):
                    hits.add(owner[k])
        if self.attributes:
            tag, els = page.tag, page.el
            if "time" in tag:
                hits.update(i for i, t in enumerate(tag) if t == "time")
            # the page's own elements (those in dropped sub-trees never count): one C-level
            # keys() per element, 7 look-ups only where a timestamp attribute is present
            # (an XPath over the whole tree for them costs more than this)
            isdisjoint = _DATE_ATTR_SET.isdisjoint
            for i, keys in enumerate(map(_KEYS, els)):
                if not keys or isdisjoint(keys) or tag[i] == "time":
                    continue
                attrib = els[i].attrib
                for name in DATE_ATTRS:
                    v = attrib.get(name)
                    if not v or len(v) > 64:
                        continue
                    if (v.isdigit() and len(v) in (10, 13) and name != "title") or _leaf_is_date(v):
                        hits.add(i)
                        break
        return lowest(page, hits)


def links_of(page: Page) -> list[int]:
    """The page's ``<a>`` elements, in document order."""
    return [i for i, t in enumerate(page.tag) if t == "a"]


class _LinkAnchor:
    """Candidates among the page's links: those :meth:`accepts` takes, the lowest kept."""

    kind = ""

    def accepts(self, page: Page, i: int) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    def candidates(self, page: Page) -> list[int]:
        return lowest(page, [i for i in links_of(page) if self.accepts(page, i)])


class AuthorLinkAnchor(_LinkAnchor):
    """Author / profile links."""

    kind = "author"

    def accepts(self, page: Page, i: int) -> bool:
        href = page.el[i].get("href") or ""
        return bool(is_profile_href(href) or _USER_CLASS_RE.search(page.el[i].get("class") or ""))


class PermalinkAnchor(_LinkAnchor):
    """Permalinks to one post."""

    kind = "permalink"

    def accepts(self, page: Page, i: int) -> bool:
        el = page.el[i]
        href = el.get("href") or ""
        return bool(
            PERMALINK_HREF_RE.search(href)
            or (el.get("rel") or "").lower() == "bookmark"
            or _PERMA_CLASS_RE.search(el.get("class") or "")
        ) and not REPLY_HREF_RE.search(href)


class ReplyLinkAnchor(_LinkAnchor):
    """Reply / quote links (never use them as the only anchor)."""

    kind = "reply"

    def accepts(self, page: Page, i: int) -> bool:
        href = page.el[i].get("href") or ""
        return bool(REPLY_HREF_RE.search(href) or REPLY_TEXT_RE.match(page.text(i)))


BUILTIN_ANCHORS: dict[str, type[AnchorClassifier]] = {
    "date": DateAnchor,
    "author": AuthorLinkAnchor,
    "permalink": PermalinkAnchor,
    "reply": ReplyLinkAnchor,
}


def get_anchor(spec: str | AnchorClassifier) -> AnchorClassifier:
    """An anchor classifier from a built-in name or an object with ``kind``/``candidates``."""
    if isinstance(spec, str):
        try:
            return BUILTIN_ANCHORS[spec]()
        except KeyError:
            raise TypeError(
                f"unknown anchor kind {spec!r}; built-in: {', '.join(BUILTIN_ANCHORS)}"
            ) from None
    if not hasattr(spec, "candidates") or not hasattr(spec, "kind"):
        raise TypeError(f"{spec!r} is not an anchor classifier (needs kind and candidates(page))")
    return spec


def in_sorted(sorted_nodes: list[int], lo: int, hi: int) -> list[int]:
    """Members of ``sorted_nodes`` within ``[lo, hi]`` (a sub-tree's pre-order range)."""
    a = bisect.bisect_left(sorted_nodes, lo)
    b = bisect.bisect_right(sorted_nodes, hi)
    return sorted_nodes[a:b]

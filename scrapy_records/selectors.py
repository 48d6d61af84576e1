"""Selector building blocks: which class and id tokens are stable enough for a selector, and
the XPath/CSS pieces built from them (used by the column XPaths of field alignment and by
every wrapper inducer)."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit

#: state classes come and go with interaction (a hovered or selected item): never selected on
_STATE = frozenset(
    {
        "active",
        "selected",
        "current",
        "odd",
        "even",
        "first",
        "last",
        "hover",
        "focus",
        "open",
        "closed",
        "hidden",
        "visible",
        "show",
        "in",
        "collapsed",
        "expanded",
        "disabled",
        "is-active",
        "is-selected",
        "is-open",
        "highlight",
        "highlighted",
        "new",
        "alt",
    }
)
#: machine-generated tokens differ from page to page or from build to build
_GENERATED = [
    re.compile(r"\d{3,}"),  # post-12345, id4711
    re.compile(r"^(css|sc|jsx|emotion|styled|svelte|astro|ng-tns|ember|tw)[-_]", re.I),
    re.compile(r"__[A-Za-z0-9_-]{4,}$"),  # CSS modules
    re.compile(r"^[A-Za-z0-9_-]{5,}$(?<=[0-9])"),  # ends with a digit, long
]
_MIXED_HASH = re.compile(r"^(?=.*\d)(?=.*[A-Z])(?=.*[a-z])[A-Za-z0-9_-]{5,}$")
_QUOTE_SAFE = re.compile(r"^[^'\"\s\\]+$")
_TAG_OK = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")


@lru_cache(maxsize=1 << 16)
def stable_token(tok: str) -> bool:
    """True for a class token fit for a selector (not generated-looking, not a state);
    memoized: a page's few hundred class names are asked about for every element."""
    if not tok or len(tok) > 48 or not _QUOTE_SAFE.match(tok) or tok.lower() in _STATE:
        return False
    if any(rx.search(tok) for rx in _GENERATED):
        return False
    if _MIXED_HASH.match(tok) and not re.match(r"^[A-Za-z]+[A-Z][a-z]+([A-Z][a-z]+)*$", tok):
        return False  # sc-bdVaJa-like hashes; camelCase words are fine
    return True


def stable_id(v: str | None) -> bool:
    """True for an id fit for an anchor (same rules as class tokens, state words allowed)."""
    if not v or len(v) > 64 or not _QUOTE_SAFE.match(v):
        return False
    if any(rx.search(v) for rx in _GENERATED[:3]) or _MIXED_HASH.match(v) and re.search(r"\d", v):
        return False
    return True


def class_predicate(c: str) -> str:
    """XPath predicate: the element's ``class`` attribute holds the token ``c``."""
    return f"contains(concat(' ', normalize-space(@class), ' '), ' {c} ')"


def css_ident_ok(s: str) -> bool:
    """True when ``s`` can be written in a CSS selector without escaping."""
    return bool(re.match(r"^-?[A-Za-z_][A-Za-z0-9_-]*$", s))


def tag_step(tag: str) -> str:
    """The XPath step of a tag name; a name XPath cannot spell goes through ``name()``."""
    return tag if _TAG_OK.match(tag) else f"*[name()='{tag}']"


def same_tag_index(el: Any) -> int:
    """1-based position of an lxml element among its siblings of the same tag (``tag[k]``)."""
    return 1 + sum(1 for sib in el.itersiblings(preceding=True) if sib.tag == el.tag)


def site_of(url: str | None) -> str | None:
    """The site key of a wrapper induced from ``url``: its host."""
    if not url:
        return None
    return urlsplit(url).hostname or None

"""Selector building blocks shared by the inducers: stable class/id tokens, XPath and CSS pieces."""

from __future__ import annotations

import logging
import re

logger = logging.getLogger(__name__)


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
_GENERATED = [
    re.compile(r"\d{3,}"),  # post-12345, id4711
    re.compile(r"^(css|sc|jsx|emotion|styled|svelte|astro|ng-tns|ember|tw)[-_]", re.I),
    re.compile(r"__[A-Za-z0-9_-]{4,}$"),  # CSS modules
    re.compile(r"^[A-Za-z0-9_-]{5,}$(?<=[0-9])"),  # ends with a digit, long
]
_MIXED_HASH = re.compile(r"^(?=.*\d)(?=.*[A-Z])(?=.*[a-z])[A-Za-z0-9_-]{5,}$")
_QUOTE_SAFE = re.compile(r"^[^'\"\s\\]+$")


def stable_token(tok: str) -> bool:
    """True for a class token fit for a selector (not generated-looking, not a state)."""
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
    return f"contains(concat(' ', normalize-space(@class), ' '), ' {c} ')"


def css_ident_ok(s: str) -> bool:
    return bool(re.match(r"^-?[A-Za-z_][A-Za-z0-9_-]*$", s))

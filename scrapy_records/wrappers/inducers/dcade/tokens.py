"""Token types and sequence similarities, the primitives of DCADE's encoding
(Yuliana & Chang 2019, section 3.1: eq. 1-3, Fig. 3).

The paper names four parent types and 13 fine types but prints only two of them; the fine
types below are ours (``docs/algorithms/dcade.md``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from rapidfuzz.distance import LCSseq

TOKEN_TYPES = (
    "URL",
    "EMAIL",
    "DATE",
    "TIME",
    "INTEGER",
    "DECIMAL",
    "CURRENCY",
    "PERCENT",
    "FIRST_CAP",
    "ALL_CAPS",
    "LOWER",
    "MIXED",
    "PUNCT",
)
PARENT_TYPES = ("ADDRESS", "DATETIME", "NUMBER", "MIXTURE")
_PARENT = {
    "URL": 0,
    "EMAIL": 0,
    "DATE": 1,
    "TIME": 1,
    "INTEGER": 2,
    "DECIMAL": 2,
    "CURRENCY": 2,
    "PERCENT": 2,
    "FIRST_CAP": 3,
    "ALL_CAPS": 3,
    "LOWER": 3,
    "MIXED": 3,
    "PUNCT": 3,
}
_T = {name: i for i, name in enumerate(TOKEN_TYPES)}
_URL_RE = re.compile(r"^(?:(?:https?|ftp)://|www\.|/\S+|\S+\.(?:html?|php|aspx?|jsp)\b)", re.I)
_EMAIL_RE = re.compile(r"^[^@\s]+@[^@\s]+\.\w+$")
_MONTHS = (
    "jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|january|february|march|april|"
    "june|july|august|september|october|november|december|monday|tuesday|wednesday|"
    "thursday|friday|saturday|sunday|mon|tue|wed|thu|fri|sat|sun"
)
_DATE_RE = re.compile(rf"^(?:\d{{1,4}}[-/.]\d{{1,2}}[-/.]\d{{1,4}}|(?:{_MONTHS})\.?,?)$", re.I)
_TIME_RE = re.compile(r"^(?:\d{1,2}:\d{2}(?::\d{2})?(?:am|pm)?|am|pm|a\.m\.|p\.m\.)$", re.I)
_CUR_RE = re.compile(
    r"^(?:[$€£¥]\s?[\d.,]*\d[\d.,]*|[\d.,]*\d[\d.,]*[$€£¥]|(?:usd|eur|gbp)\d[\d.,]*)$", re.I
)
_PCT_RE = re.compile(r"^[+-]?\d+(?:[.,]\d+)?%$")
_INT_RE = re.compile(r"^(?:[#(\[]?[+-]?\d+[.)\]:]?|\d{1,3}(?:,\d{3})+)$")  # "12", "1.", "(3)", "#4"
_DEC_RE = re.compile(r"^[+-]?\d*[.,]\d+$")

#: fine types of leaves that are numbers or punctuation only
NUMERIC_MASK = sum(1 << _T[t] for t in ("INTEGER", "DECIMAL", "CURRENCY", "PERCENT", "PUNCT"))


#: the types a pattern recognises, in the order they are tried
_PATTERN_TYPES = (
    ("URL", _URL_RE),
    ("EMAIL", _EMAIL_RE),
    ("DATE", _DATE_RE),
    ("TIME", _TIME_RE),
    ("CURRENCY", _CUR_RE),
    ("PERCENT", _PCT_RE),
    ("INTEGER", _INT_RE),
    ("DECIMAL", _DEC_RE),
)


def token_type(w: str) -> str:
    """Fine token type of one whitespace-free token (the first rule that matches wins)."""
    for name, rx in _PATTERN_TYPES:
        if rx.match(w):
            return name
    if w.isalpha():
        if len(w) > 1 and w[0].isupper() and w[1:].islower():
            return "FIRST_CAP"
        if w.isupper():
            return "ALL_CAPS"
        if w.islower():
            return "LOWER"
        return "MIXED"
    if not any(c.isalnum() for c in w):
        return "PUNCT"
    return "MIXED"


def type_sets(content: str) -> tuple[frozenset[str], frozenset[str]]:
    """``(TypeSet, PTypeSet)`` of a leaf's content (eq. 1): sets of fine / parent types."""
    fine = frozenset(token_type(w) for w in content.split())
    return fine, frozenset(PARENT_TYPES[_PARENT[t]] for t in fine)


def type_masks(content: str) -> tuple[int, int]:
    """:func:`type_sets` as bit masks (bit ``i``: ``TOKEN_TYPES[i]`` / ``PARENT_TYPES[i]``)."""
    fm = pm = 0
    for w in content.split():
        t = _T[token_type(w)]
        fm |= 1 << t
        pm |= 1 << _PARENT[TOKEN_TYPES[t]]
    return fm, pm


def seq_sim(a: Sequence[Any], b: Sequence[Any]) -> float:
    """``Sim(s1, s2) = |LCS| / max(|s1|, |s2|)`` (eq. 2); two empty sequences are equal."""
    if not a and not b:
        return 1.0
    return LCSseq.similarity(list(a), list(b)) / max(len(a), len(b))


def sim_tec(
    a: tuple[Sequence[Any], Sequence[Any], Sequence[Any]],
    b: tuple[Sequence[Any], Sequence[Any], Sequence[Any]],
    w_path: float = 0.5,
    w_id: float = 0.25,
    w_class: float = 0.25,
) -> float:
    """``simTEC`` of two (Path, IDSeq, ClassSeq) triples (eq. 3, Def. 3)."""
    return w_path * seq_sim(a[0], b[0]) + w_id * seq_sim(a[1], b[1]) + w_class * seq_sim(a[2], b[2])

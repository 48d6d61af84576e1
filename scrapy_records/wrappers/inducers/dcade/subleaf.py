"""Template text inside one leaf: the constant words around a varying value
("MSRP: $61,550", "1 - 12 of 40", ": Jove Books").

The paper aligns whole leaves (Yuliana & Chang 2019, section 3.1: "DCADE does not split
inside a leaf"), so a label glued to its value, or two values written in one text node,
stay one data cell. :func:`leaf_skeleton` applies DCADE's own rule one level down: the words
a data column's values share, in the same order on every page, are template; the runs of
words between them are the data. It splits only where the shared words read as template
(a label ending in ``:``, or a separator word: ``-``, ``|``, ``&``..., or a lowercase lead-in
before a name: "by Acura"), and only short values,
so that names sharing a word ("University of ...") and free text stay whole; plain words
the values share between two of their parts ("BMW" in "Also Available: 2010 BMW Z4" when
every sample car is a BMW) stay in the value.

:func:`split_value` cuts one value the way the wrapper's XPath does it
(``substring-after``/``substring-before`` on the space-padded text), so what the schema
shows and what a wrapper later reads are the same strings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from scrapy_records.fields.text import xpath_string

#: values longer than this (in words) are free text: never split
MAX_WORDS = 24
#: a template word longer than this is no label or separator
MAX_TEMPLATE_WORD = 24
#: at most this many data runs per leaf
MAX_SLOTS = 4


@dataclass(frozen=True)
class LeafSkeleton:
    """The template runs of a column's leaves, and which gaps between them hold data.

    ``runs[i]`` is a run of template words (joined by single spaces); gap ``g`` lies before
    ``runs[g]`` (gap ``len(runs)`` after the last run); ``slots`` are the gaps that hold
    a value on some page.
    """

    runs: tuple[str, ...]
    slots: tuple[int, ...]

    def label_of(self, gap: int) -> str | None:
        """The run right before gap ``gap`` when it reads as a label ("MSRP:")."""
        if gap == 0:
            return None
        run = self.runs[gap - 1]
        return run if run.endswith((":", "：")) else None


def _lcs(a: Sequence[str], b: Sequence[str]) -> list[str]:
    """Longest common subsequence of two word lists (short lists: plain DP)."""
    n, m = len(a), len(b)
    dp = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        ai, row, nxt = a[i], dp[i], dp[i + 1]
        for j in range(m - 1, -1, -1):
            row[j] = nxt[j + 1] + 1 if ai == b[j] else max(nxt[j], row[j + 1])
    out = []
    i = j = 0
    while i < n and j < m:
        if a[i] == b[j]:
            out.append(a[i])
            i += 1
            j += 1
        elif dp[i + 1][j] >= dp[i][j + 1]:
            i += 1
        else:
            j += 1
    return out


def _embed(skel: Sequence[str], words: Sequence[str]) -> list[int] | None:
    """Leftmost positions of the skeleton words in ``words`` (None: not a subsequence)."""
    pos, j = [], 0
    for w in skel:
        while j < len(words) and words[j] != w:
            j += 1
        if j == len(words):
            return None
        pos.append(j)
        j += 1
    return pos


#: a bracket alone separates no values: it opens or closes a remark on the value before it
_BRACKETS = "()[]{}"


def _reads_as_template(word: str) -> bool:
    """A label ("Posted:") or a separator ("-", "|", "&"): what a template writes between
    values. (A word with a comma or a bracket attached, "City," or "(Ends", is not enough:
    "17 mpg City, 24 mpg Hwy" is one value.)"""
    if len(word) > MAX_TEMPLATE_WORD:
        return False
    if word.endswith((":", "：")):
        return True
    return not any(ch.isalnum() for ch in word) and bool(word.strip(_BRACKETS))


def _balanced(s: str) -> bool:
    """Brackets open and close inside ``s``."""
    depth = 0
    for ch in s:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def leaf_skeleton(values: Sequence[str]) -> LeafSkeleton | None:
    """The template runs shared by ``values`` (one leaf text per page), or None when the
    values hold no template words worth splitting on (see the module docstring)."""
    texts = [" ".join(v.split()) for v in values if v and v.strip()]
    if len(set(texts)) < 2:
        return None
    words = [t.split() for t in texts]
    if max(len(w) for w in words) > MAX_WORDS:
        return None
    skel = list(words[0])
    for w in words[1:]:
        skel = _lcs(skel, w)
        if not skel:
            return None
    embeds = [_embed(skel, w) for w in words]
    if any(e is None for e in embeds):  # pragma: no cover - an LCS is a subsequence
        return None
    # runs: skeleton words adjacent on every page
    runs: list[list[str]] = [[skel[0]]]
    for i in range(1, len(skel)):
        if all(e[i] == e[i - 1] + 1 for e in embeds if e is not None):
            runs[-1].append(skel[i])
        else:
            runs.append([skel[i]])
    slots = _slots(texts, runs)
    if slots is None:
        return None
    run_text = tuple(" ".join(r) for r in runs)
    byline = _byline(runs, slots, [split_value(t, run_text, 1) for t in texts])
    if not byline and not any(_cuts(run, i, slots) for i, run in enumerate(runs)):
        return None
    # a run of plain words between two values that reads as neither template nor a
    # connective is words the sample's values share ("2010 BMW Z4", "2011 BMW 1 Series"
    # after "Also Available:"): part of the value
    cut = [run for i, run in enumerate(runs) if not _shared_words(run, i, slots)]
    if len(cut) < len(runs):
        runs, slots = cut, _slots(texts, cut)
        if slots is None:
            return None
    return LeafSkeleton(tuple(" ".join(r) for r in runs), tuple(slots))


def _slots(texts: Sequence[str], runs: Sequence[Sequence[str]]) -> list[int] | None:
    """The gaps between ``runs`` that hold a value on some page; ``None`` when there are
    none or too many, or when a run sits inside brackets of a value."""
    run_text = tuple(" ".join(r) for r in runs)
    slots = []
    for g in range(len(runs) + 1):
        parts = [split_value(t, run_text, g) for t in texts]
        if any(not _balanced(x) for x in parts):
            return None  # the template words sit inside brackets: "(50,000 - 249,999)"
        if any(parts):
            slots.append(g)
    return slots if slots and len(slots) <= MAX_SLOTS else None


def _shared_words(run: Sequence[str], i: int, slots: Sequence[int]) -> bool:
    """Run ``i`` lies between two values and is words a name may hold ("BMW" in "2010 BMW
    Z4"): no label or separator, no punctuation ("(Ends"), no lowercase connective ("12
    of 40")."""
    return (
        i in slots
        and i + 1 in slots
        and all(w.isalnum() for w in run)
        and not all(w.isalpha() and w.islower() for w in run)
    )


def _byline(runs: Sequence[Sequence[str]], slots: Sequence[int], names: Sequence[str]) -> bool:
    """The leaf opens with lowercase words every value shares, then a name: "by Acura",
    "by Jane Austen" (``names``: the text after those words on each page). Such words are
    no name of their own (a name shared by the values, "University of ...", is
    capitalised) but the template's lead-in to the value ("grade 2" stays whole)."""
    return (
        bool(runs)
        and 0 not in slots
        and 1 in slots
        and len(runs[0]) <= 2
        and all(w.isalpha() and w.islower() for w in runs[0])
        and all(n[:1].isupper() for n in names)
    )


def _cuts(run: Sequence[str], i: int, slots: Sequence[int]) -> bool:
    """Run ``i`` (between gaps ``i`` and ``i + 1``) is template a value is cut at: a label
    or a separator that introduces something, a value or more template words ("X - Best
    College - US News"). (A "+" closing every value, as in "4 days, 7 hours +",
    introduces nothing: the value stays whole.)"""
    return any(
        _reads_as_template(x) and (i + 1 in slots or j < len(run) - 1) for j, x in enumerate(run)
    )


def split_value(text: str, runs: Sequence[str], gap: int) -> str:
    """The words of ``text`` in gap ``gap`` between the template ``runs`` ('' when a run is
    missing), as the wrapper's XPath reads them (:func:`xpath_of_gap`)."""
    s = " " + " ".join(text.split()) + " "
    for r in runs[:gap]:
        d = " " + r + " "
        k = s.find(d)
        if k < 0:
            return ""
        s = " " + s[k + len(d) :]
    if gap < len(runs):
        d = " " + runs[gap] + " "
        k = s.find(d)
        if k < 0:
            return ""
        s = s[:k]
    return " ".join(s.split())


def xpath_of_gap(node_xpath: str, runs: Sequence[str], gap: int) -> str:
    """An XPath string expression reading gap ``gap`` of the text selected by
    ``node_xpath`` (its first node), mirroring :func:`split_value`. No-break spaces read
    as spaces."""
    s = f"concat(' ', normalize-space(translate({node_xpath}, '\u00a0', ' ')), ' ')"
    for r in runs[:gap]:
        s = f"concat(' ', substring-after({s}, {xpath_string(' ' + r + ' ')}))"
    if gap < len(runs):
        s = f"substring-before({s}, {xpath_string(' ' + runs[gap] + ' ')})"
    return f"normalize-space({s})"

"""The scoring convention of ``shared/datasets/README.md``.

A predicted record matches a gold record when it contains at least 80% of the gold record's
word tokens (lower-cased ``\\w+``, HTML entities unescaped) and at least 20% of its own tokens
are tokens of that gold record. Matching is one-to-one, greedy by score. A page is perfect
when every gold record is matched and nothing else is predicted.

Token containment is counted on multisets (``Counter``), so a record that repeats a word
does not match a gold record that has it once.

The second rule for lists/ (``rule="contain"``): the 20% test is replaced by "does not also
hold a second gold record": a prediction matches a gold record when it holds >= 80% of its
tokens and no other gold record is held with it (the two records' tokens taken together are
not >= 80% covered). A whole search result then matches a title-only annotation, and a merge
of two records still does not match.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

_TOKEN = re.compile(r"\w+", re.UNICODE)

GOLD_CONTAINED = 0.8
OWN_IN_GOLD = 0.2


def tokens(text: str) -> Counter:
    return Counter(_TOKEN.findall(html.unescape(text or "").lower()))


@dataclass
class PageScore:
    tp: int
    predicted: int
    gold: int
    pairs: list[tuple[int, int]]  # (predicted index, gold index)

    @property
    def perfect(self) -> bool:
        return self.tp == self.gold == self.predicted

    def f1(self) -> float:
        return f1(self.tp, self.predicted, self.gold)


def _overlap(a: Counter, b: Counter) -> int:
    if len(a) > len(b):
        a, b = b, a
    return sum(min(c, b[t]) for t, c in a.items() if t in b)


def _holds_two(p: Counter, j: int, gt: list[Counter], gs: list[int], ov: list[int]) -> bool:
    """Does prediction ``p`` hold gold ``j`` together with another gold record ``k``: once
    ``j``'s tokens are taken, are >= 80% of ``k``'s tokens left in ``p`` as well?

    (Read literally, "the two records' tokens taken together are >= 80% covered" would call
    any gold record four times smaller than ``j`` "held", token or not; this reading asks
    that both records be covered at once, which is what a merge of two records does.)"""
    for k, g in enumerate(gt):
        if k == j or not gs[k] or ov[k] < GOLD_CONTAINED * gs[k]:
            continue  # p does not even hold k alone
        if _overlap(p, gt[j] + g) - ov[j] >= GOLD_CONTAINED * gs[k]:
            return True
    return False


def match(
    predicted: Sequence[str],
    gold: Sequence[str],
    gold_fallback: Sequence[str | None] | None = None,
    rule: str = "readme",
) -> PageScore:
    """Match predicted record texts against gold record texts (one-to-one, greedy).

    ``gold_fallback[j]``, when given and gold ``j`` has no tokens (the forum placeholder
    posts ``.``), is a text (the post's date) that the prediction must contain instead; the
    20% rule is then not applied.
    """
    pt = [tokens(p) for p in predicted]
    gt = [tokens(g) for g in gold]
    ps = [sum(c.values()) for c in pt]
    gs = [sum(c.values()) for c in gt]
    cands: list[tuple[float, int, int]] = []
    if rule == "contain":
        for i, p in enumerate(pt):
            if not ps[i]:
                continue
            ov = [_overlap(p, g) if gs[j] else 0 for j, g in enumerate(gt)]
            for j in range(len(gt)):
                if gs[j] and ov[j] >= GOLD_CONTAINED * gs[j] and not _holds_two(p, j, gt, gs, ov):
                    cands.append((ov[j] / gs[j] + ov[j] / ps[i], i, j))
    for j, g in enumerate(gt) if rule != "contain" else ():
        fallback = None
        if not gs[j] and gold_fallback is not None and gold_fallback[j]:
            fallback = tokens(gold_fallback[j])
        for i, p in enumerate(pt):
            if not ps[i]:
                continue
            if fallback is not None:
                n = sum(fallback.values())
                if n and _overlap(p, fallback) / n >= GOLD_CONTAINED:
                    cands.append((0.5, i, j))
                continue
            if not gs[j]:
                continue
            ov = _overlap(p, g)
            rec = ov / gs[j]
            prec = ov / ps[i]
            if rec >= GOLD_CONTAINED and prec >= OWN_IN_GOLD:
                cands.append((rec + prec, i, j))
    cands.sort(key=lambda c: -c[0])
    used_p: set[int] = set()
    used_g: set[int] = set()
    pairs = []
    for _, i, j in cands:
        if i in used_p or j in used_g:
            continue
        used_p.add(i)
        used_g.add(j)
        pairs.append((i, j))
    return PageScore(len(pairs), len(predicted), len(gold), pairs)


def prf(tp: int, predicted: int, gold: int) -> tuple[float, float, float]:
    p = tp / predicted if predicted else (1.0 if not gold else 0.0)
    r = tp / gold if gold else 1.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def f1(tp: int, predicted: int, gold: int) -> float:
    return prf(tp, predicted, gold)[2]

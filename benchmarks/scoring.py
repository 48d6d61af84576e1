"""The scoring convention of ``shared/datasets/README.md``.

A predicted record matches a gold record when it contains at least 80% of the gold record's
word tokens (lower-cased ``\\w+``, HTML entities unescaped) and at least 20% of its own tokens
are tokens of that gold record. Matching is one-to-one, greedy by score. A page is perfect
when every gold record is matched and nothing else is predicted.

Token containment is counted on multisets (``Counter``), so a record that repeats a word
does not match a gold record that has it once.
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


def match(
    predicted: Sequence[str],
    gold: Sequence[str],
    gold_fallback: Sequence[str | None] | None = None,
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
    for j, g in enumerate(gt):
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

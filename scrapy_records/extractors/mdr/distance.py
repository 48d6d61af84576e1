"""Tag strings and their normalized edit distance (Liu et al. 2003, section 3.2.2).

The tag string of a node is its pre-order sequence of tag ids (``page.tag_id[i:end[i] + 1]``);
that of adjacent siblings is one contiguous slice. The normalized edit distance is
``ND = 2 d / (|s1| + |s2|)`` with ``d`` the token-level Levenshtein distance (rapidfuzz, C),
so it may exceed 1. Given a threshold ``T``, pairs that are provably dissimilar are
answered ``inf`` without the full computation: the exact length bound ``2 |l1 - l2| / (l1 +
l2) > T`` first, then Levenshtein with ``score_cutoff = floor(T (l1 + l2) / 2)``.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from rapidfuzz.distance import Levenshtein

__all__ = ["normalized_distance", "INF", "EPS"]

INF = float("inf")
#: Tolerance of the threshold comparisons.
EPS = 1e-9


def normalized_distance(
    x: Sequence[Hashable] | str, y: Sequence[Hashable] | str, T: float | None = None
) -> float:
    """ND of two token sequences: ``d / mean length``; may exceed 1.

    With ``T`` given, returns ``inf`` as soon as the pair is provably dissimilar (length
    bound, then the Levenshtein cut-off), so only "ND <= T" results are exact.
    """
    L = len(x) + len(y)
    if L == 0:
        return 0.0
    if T is None:
        return 2.0 * Levenshtein.distance(x, y) / L
    diff = abs(len(x) - len(y))
    if 2 * diff > T * L + EPS:
        return INF
    cut = int(T * L / 2 + EPS)
    d = Levenshtein.distance(x, y, score_cutoff=cut)
    if d > cut:
        return INF
    return 2.0 * d / L

"""Mandatory-template (MT) landmarks: the CECIds that occur exactly once on every page, in
one order on all pages, mined again inside each segment they cut
(Yuliana & Chang 2019, section 3.2.1).

Entry point: :func:`mine_landmarks`. Option ``lis``: ``"paper"`` (default) keeps the
candidates whose first positions increase on every page by a longest increasing
subsequence page after page; ``"exact"`` finds the longest chain over all pages at once.
"""

from __future__ import annotations

import bisect
from collections import Counter
from typing import Any

import numpy as np

from scrapy_records.wrappers.inducers.dcade.encoding import Encoding
from scrapy_records.wrappers.inducers.dcade.tokens import NUMERIC_MASK


def mine_landmarks(enc: Encoding, opts: dict[str, Any]) -> list[list[int]]:
    """The MT landmarks in page order, each as its leaf index on every page."""
    m = enc.m
    begin = [-1] * m
    end = list(enc.n)
    found: list[list[int]] = []
    stack = [(begin, end)]
    while stack:
        u, v = stack.pop()
        chain = _chain(enc, opts, u, v)
        if not chain:
            continue
        found.extend(chain)
        bounds = [u] + chain + [v]
        for a, b in zip(bounds, bounds[1:]):
            if min(b[r] - a[r] for r in range(m)) > 2:
                stack.append((a, b))
    found.sort(key=lambda x: x[0])
    return found


def _candidates(
    enc: Encoding, opts: dict[str, Any], u: list[int], v: list[int]
) -> list[dict[int, int]]:
    """Per page, the position of every CECId that occurs once between ``u`` and ``v`` on
    every page (empty when there is none)."""
    cec = enc.cec
    cands: set[int] | None = None
    for r in range(enc.m):
        cnt = Counter(cec[r][u[r] + 1 : v[r]])
        singles = {c for c, k in cnt.items() if k == 1}
        cands = singles if cands is None else (cands & singles)
        if not cands:
            return []
    assert cands is not None
    if opts["mt_exclude_numeric"]:
        tsof = enc.typeset_of_cec
        cands = {c for c in cands if tsof.get(c, 0) & ~NUMERIC_MASK}
        if not cands:
            return []
    firstpos: list[dict[int, int]] = []
    for r in range(enc.m):
        base = u[r] + 1
        d = {}
        for k, c in enumerate(cec[r][u[r] + 1 : v[r]]):
            if c in cands:
                d[c] = base + k
        firstpos.append(d)
    return firstpos


def _chain(enc: Encoding, opts: dict[str, Any], u: list[int], v: list[int]) -> list[list[int]]:
    """The landmarks between ``u`` and ``v``: the longest consistent chain of candidates."""
    firstpos = _candidates(enc, opts, u, v)
    if not firstpos:
        return []
    items = sorted(firstpos[0], key=lambda c: firstpos[0][c])
    if opts["lis"] == "exact" and len(items) <= 3000:
        items = _chain_exact(items, firstpos)
    else:
        for r in range(1, enc.m):
            items = lis(items, [firstpos[r][c] for c in items])
    return [[firstpos[r][c] for r in range(enc.m)] for c in items]


def _chain_exact(items: list[int], fp: list[dict[int, int]]) -> list[int]:
    """The longest chain of ``items`` whose positions increase on every page (O(k^2 m))."""
    k = len(items)
    P = np.array([[fp[r][c] for c in items] for r in range(len(fp))], dtype=np.int64)
    best = np.ones(k, dtype=np.int64)
    prev = np.full(k, -1, dtype=np.int64)
    for j in range(1, k):
        ok = np.all(P[:, :j] < P[:, j : j + 1], axis=0)
        if ok.any():
            cand = np.where(ok, best[:j], 0)
            i = int(np.argmax(cand))
            best[j] = cand[i] + 1
            prev[j] = i
    j = int(np.argmax(best))
    out = []
    while j >= 0:
        out.append(items[j])
        j = int(prev[j])
    return out[::-1]


def lis(items: list[int], vals: list[int]) -> list[int]:
    """Items whose ``vals`` form a longest strictly increasing subsequence (O(k log k))."""
    tails: list[int] = []
    tails_idx: list[int] = []
    prev = [-1] * len(vals)
    for i, x in enumerate(vals):
        j = bisect.bisect_left(tails, x)
        if j == len(tails):
            tails.append(x)
            tails_idx.append(i)
        else:
            tails[j] = x
            tails_idx[j] = i
        prev[i] = tails_idx[j - 1] if j > 0 else -1
    out = []
    i = tails_idx[-1] if tails_idx else -1
    while i >= 0:
        out.append(items[i])
        i = prev[i]
    return out[::-1]

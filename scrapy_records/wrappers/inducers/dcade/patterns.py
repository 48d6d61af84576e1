"""Frequent unit-length patterns of a segment and their sub-landmarks
(Yuliana & Chang 2019, section 3.2.2).

A pattern is a code found on at least ``theta_ot`` of the pages of a segment: an ST (single
template) or RT (repeat template) by its CECId, an SD or RD (single / repeat data) by its
TECId; a repeat occurs at least ``repeat_min`` times on some page. :func:`mine_patterns`
drops the STs that are really data (an SD covers them) and the RT/RDs whose gaps are
irregular (:func:`filter_repeats`); :func:`align_frequent` aligns the occurrences of the
chosen patterns into sub-landmarks.
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass
from typing import Any

from scrapy_records.wrappers.inducers.dcade.align import center_star
from scrapy_records.wrappers.inducers.dcade.encoding import Encoding


@dataclass
class Pattern:
    """A frequent code: its level (0 CECId, 1 TECId) and positions per page (``PosMatrix``)."""

    code: int
    level: int
    pos: dict[int, list[int]]

    @property
    def maxrep(self) -> int:
        return max(len(v) for v in self.pos.values())


@dataclass
class Patterns:
    """The patterns of one segment by type, with the RefGap and the NSD bound of RT and RD."""

    ST: list[Pattern]
    RT: list[Pattern]
    RD: list[Pattern]
    gap: dict[str, int]
    nsd: dict[str, float]


def filter_repeats(pats: list[Pattern], opts: dict[str, Any]) -> tuple[list[Pattern], int, float]:
    """Drop the false repeats: NSD above the (adaptive) bound, then a modal gap other than
    the RefGap, the modal gap over all repeats.

    Returns ``(kept, RefGap, theta_NSD used)``; RefGap 0 when nothing is kept.
    """
    if not pats:
        return [], 0, opts["theta_nsd"]
    stats = []
    for p in pats:
        gaps: list[int] = []
        for v in p.pos.values():
            gaps.extend(b - a for a, b in zip(v, v[1:]))
        mu = sum(gaps) / len(gaps) if gaps else 0.0
        nsd = statistics.pstdev(gaps) / mu if gaps and mu else 0.0
        modal = min(Counter(gaps).items(), key=lambda kv: (-kv[1], kv[0]))[0] if gaps else 0
        stats.append((p, gaps, nsd, modal))
    theta = opts["theta_nsd"]
    if opts["nsd_adaptive"] and any(s[2] == 0 for s in stats):
        theta = 0.0
    stats = [s for s in stats if s[2] <= theta]
    if not stats:
        return [], 0, theta
    glob: Counter[int] = Counter()
    for s in stats:
        glob.update(s[1])
    ref = min(glob.items(), key=lambda kv: (-kv[1], kv[0]))[0]
    return [s[0] for s in stats if s[3] == ref], ref, theta


def _occurrences(
    codes: list[list[int]], left: list[int], right: list[int], active: list[int]
) -> dict[int, dict[int, list[int]]]:
    """code -> page -> positions strictly between ``left`` and ``right``."""
    occ: dict[int, dict[int, list[int]]] = {}
    for r in active:
        L = codes[r]
        for k in range(left[r] + 1, right[r]):
            occ.setdefault(L[k], {}).setdefault(r, []).append(k)
    return occ


def _single_and_repeat(
    occ: dict[int, dict[int, list[int]]], level: int, need: float, rep_min: int
) -> tuple[list[Pattern], list[Pattern]]:
    """The frequent codes occurring once per page, and those repeated ``rep_min`` times."""
    single, repeat = [], []
    for code, pos in occ.items():
        if len(pos) >= need - 1e-9:
            rep = max(len(x) for x in pos.values())
            if rep == 1:
                single.append(Pattern(code, level, pos))
            elif rep >= rep_min:
                repeat.append(Pattern(code, level, pos))
    return single, repeat


def _remove_false_st(enc: Encoding, ST: list[Pattern], SD: list[Pattern]) -> list[Pattern]:
    """The STs not strictly subsumed by an SD of their TECId (a value that recurs on some
    pages, not a template)."""
    sd_by = {t.code: t for t in SD}
    keep = []
    for e in ST:
        tecs = {enc.tec[r][v[0]] for r, v in e.pos.items()}
        t = sd_by.get(next(iter(tecs))) if len(tecs) == 1 else None
        if (
            t is not None
            and len(t.pos) > len(e.pos)
            and all(t.pos.get(r) == v for r, v in e.pos.items())
        ):
            continue
        keep.append(e)
    return keep


def _nsd(p: Pattern) -> float:
    """The normalised standard deviation of the pattern's gaps (0 without gaps)."""
    gaps = [b - a for v in p.pos.values() for a, b in zip(v, v[1:])]
    mu = sum(gaps) / len(gaps) if gaps else 0.0
    return statistics.pstdev(gaps) / mu if gaps and mu else 0.0


def _remove_false_rt(enc: Encoding, RT: list[Pattern], RD: list[Pattern]) -> list[Pattern]:
    """The RTs that are not data coinciding: an RT strictly inside an RD of its TECId
    whose gaps are more regular is one value among the values of its role (the
    rating "R" among the "PG-13", "NR"... of a list's records), as :func:`_remove_false_st`
    says of single templates. ("More Like This" in every record shares its TECId with the
    titles, but that RD alternates the two: less regular, the RT stays.)"""
    rd_by = {t.code: t for t in RD}
    keep = []
    for e in RT:
        tecs = {enc.tec[r][k] for r, v in e.pos.items() for k in v}
        t = rd_by.get(next(iter(tecs))) if len(tecs) == 1 else None
        if (
            t is not None
            and sum(map(len, t.pos.values())) > sum(map(len, e.pos.values()))
            and all(set(v) <= set(t.pos.get(r, ())) for r, v in e.pos.items())
            and _nsd(t) < _nsd(e)
        ):
            continue
        keep.append(e)
    return keep


def _leading(p: Pattern, RD: list[Pattern], st_at: set[tuple[int, int]]) -> dict[int, list[int]]:
    """Per page, the occurrences of ``p`` before the first of the other repeats (their
    first occurrence that is no ST's)."""
    out = {}
    for r, v in p.pos.items():
        firsts = [
            next((k for k in q.pos[r] if (r, k) not in st_at), v[-1] + 1)
            for q in RD
            if q is not p and r in q.pos
        ]
        if firsts:
            out[r] = [k for k in v if k < min(firsts)]
    return out


def _without_templates(
    RD: list[Pattern], ST: list[Pattern], need: float, rep_min: int
) -> list[Pattern]:
    """The RDs without an optional template before the first record: where an occurrence
    of the repeat precedes the other repeats only on the pages having it, at most half of
    them, and it is an ST's there, it is a constant text of the template (CECId) that
    shares the data's TECId (rpmpackage's "Search" menu link, on 8 of 20 pages, has the
    package links' path and types), not a record's divider; kept, it misaligns the
    sub-landmarks of those pages by one. Where every page has such an occurrence (a genre
    link, constant on the pages of one genre) it is a value coinciding, and stays; where
    most pages have it, the pages lacking it are the exceptions (ebay's bid form, whose
    "repeats" are form texts). Section 3.2.2, definitions 4-5: CECIds find template,
    TECIds data."""
    if len(RD) < 2:
        return RD
    st_at = {(r, v[0]) for e in ST for r, v in e.pos.items()}
    out = []
    for p in RD:
        lead = _leading(p, RD, st_at)
        extra = {r for r, ks in lead.items() if ks}
        if (
            not extra
            or 2 * len(extra) > len(lead)
            or not all((r, k) in st_at for r in extra for k in lead[r])
        ):
            out.append(p)
            continue
        pos = {r: [k for k in v if k not in lead.get(r, ())] for r, v in p.pos.items()}
        pos = {r: v for r, v in pos.items() if v}
        if len(pos) >= need - 1e-9 and max(map(len, pos.values())) >= rep_min:
            out.append(Pattern(p.code, p.level, pos))
    return out


def drop_intruders(pats: list[Pattern], ref_gap: int) -> list[Pattern]:
    """The repeats without the occurrences that fall inside one record: an occurrence
    between two (the previous kept, the next) exactly ``ref_gap`` apart is a value sharing
    the divider's code ("WWW-Browser" among filenames), not a record boundary.
    Section 3.2.2: a segment holds one recordset, its records RefGap apart."""
    out = []
    for p in pats:
        pos = {}
        for r, v in p.pos.items():
            kept = v[:1]
            for i in range(1, len(v)):
                if not (i + 1 < len(v) and v[i + 1] - kept[-1] == ref_gap):
                    kept.append(v[i])
            pos[r] = kept
        out.append(Pattern(p.code, p.level, pos))
    return out


def mine_patterns(
    enc: Encoding,
    opts: dict[str, Any],
    rep_min: int,
    left: list[int],
    right: list[int],
    active: list[int],
) -> Patterns:
    """The patterns of the pages ``active`` between the bounds ``left`` and ``right``."""
    need = opts["theta_ot"] * len(active)
    ST, RT = _single_and_repeat(_occurrences(enc.cec, left, right, active), 0, need, rep_min)
    SD, RD = _single_and_repeat(_occurrences(enc.tec, left, right, active), 1, need, rep_min)
    if ST and SD:
        ST = _remove_false_st(enc, ST, SD)
    if RT and RD and opts["remove_false_rt"]:
        RT = _remove_false_rt(enc, RT, RD)
    if ST and RD:
        RD = _without_templates(RD, ST, need, rep_min)
    RT, g_rt, n_rt = filter_repeats(RT, opts)
    RD, g_rd, n_rd = filter_repeats(RD, opts)
    return Patterns(ST, RT, RD, {"RT": g_rt, "RD": g_rd}, {"RT": n_rt, "RD": n_rd})


def align_frequent(enc: Encoding, opts: dict[str, Any], pats: list[Pattern]) -> list[list[int]]:
    """Sub-landmarks: the occurrences of ``pats`` aligned by centre-star, one leaf index
    per page (-1: none) per aligned column."""
    level = pats[0].level
    seqs: dict[int, list[int]] = {}
    for p in pats:
        for r, v in p.pos.items():
            seqs.setdefault(r, []).extend(v)
    for r in seqs:
        seqs[r].sort()
    cols = center_star(enc, seqs, opts, "cec" if level == 0 else "tec")
    out = []
    for c in cols:
        vec = [-1] * enc.m
        for r, ks in c.cells.items():
            vec[r] = ks[0]
        out.append(vec)
    return out

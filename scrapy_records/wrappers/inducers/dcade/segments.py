"""The divide-and-conquer alignment: MT landmarks cut the pages into segments, frequent
patterns cut the segments into subsegments, recursively, and what is left is aligned by
centre-star (Yuliana & Chang 2019, sections 3.2.2 and 3.3, Algorithms 1-3).

Entry point: :meth:`SegmentAligner.run`. At the top of each segment the ST, RT and RD
splits are all tried (each with and without a record profile) and the alignment with the
fewest columns is kept. Options: ``trial_cost`` ("output": columns after record
detection; "aligned": before it, the paper), ``trial_plain`` (off; also try no split),
``inner_repeats`` (off; mine repeats inside one record of a data region), ``max_depth``
(60; deeper subsegments are aligned by centre-star).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from scrapy_records.wrappers.inducers.dcade.align import center_star, nw_align
from scrapy_records.wrappers.inducers.dcade.columns import Column, ListColumn, column_codes
from scrapy_records.wrappers.inducers.dcade.encoding import Encoding
from scrapy_records.wrappers.inducers.dcade.landmarks import mine_landmarks
from scrapy_records.wrappers.inducers.dcade.options import repeat_min
from scrapy_records.wrappers.inducers.dcade.patterns import (
    Pattern,
    Patterns,
    align_frequent,
    drop_intruders,
    mine_patterns,
)
from scrapy_records.wrappers.inducers.dcade.profile import RecordProfile, record_profile
from scrapy_records.wrappers.inducers.dcade.rearrange import rearrange
from scrapy_records.wrappers.inducers.dcade.records import DataRegion, detect_records

#: tie-break between trials with as many columns: a repeat split that found a recordset,
#: then (none found) the template split, whose sub-landmarks are labels
_TRIAL_RANK = {"RT": 0, "RD": 1, "ST": 2}
_TRIAL_RANK_NO_SET = {"ST": 0, "RT": 1, "RD": 2}


@dataclass
class SegmentState:
    """One trial's alignment of a segment.

    ``S_L``: the left bound per page; ``postpone``: the pages lacking the current
    sub-landmark, aligned later against the columns made after ``pending_after[r]``.
    """

    S_L: list[int]
    postpone: set[int] = field(default_factory=set)
    pending_after: dict[int, Column | None] = field(default_factory=dict)
    regions: list[DataRegion] = field(default_factory=list)
    seg: list[Column] = field(default_factory=list)
    dropped: list[Column] = field(default_factory=list)
    aligned: int = 0
    by_fields: bool = False  # records found by record-profile fields, not by codes


def _landmark_column(enc: Encoding, vec: list[int], kind: str) -> Column:
    c = Column(kind)
    for r in range(enc.m):
        if vec[r] >= 0:
            c.add(enc, r, vec[r])
    return c


def _cost(enc: Encoding, how: str, st: SegmentState) -> int:
    """Columns of a trial; the trial strategy keeps the one with "the smallest number of
    aligned columns" (section 3.3). ``trial_cost`` "aligned" counts them before record
    detection (the paper); "output" counts TableA columns plus each recordset's record
    width, where the extra columns folded into no field count as the fields they need
    (one per code), so that a trial does not win by losing text."""
    if how == "aligned":
        return st.aligned
    own = sum(1 + (c.ref_gap if isinstance(c, ListColumn) else 0) for c in st.seg)
    return own + len({frozenset(column_codes(enc, c, 1)) for c in st.dropped})


def _fields_variant(st: SegmentState) -> SegmentState:
    """A copy of an aligned trial, to be finished with its record-profile fields kept
    apart (the paper's disjunctive merging can give one record a layout of its own:
    rpmpackage's vendor and distribution cells). Of the two, the one whose records were
    found by those fields and that has fewer output columns wins, as between trials."""
    copies = {id(c): c.copy() for c in st.seg}
    kept = SegmentState(S_L=st.S_L)
    kept.seg = [copies[id(c)] for c in st.seg]
    kept.regions = [
        g._replace(first=copies.get(id(g.first), g.first), last=copies.get(id(g.last), g.last))
        for g in st.regions
    ]
    return kept


def _pick(p: Patterns) -> str | None:
    """The pattern type a subsegment splits on: a perfectly regular repeat (RT, then RD),
    else ST, RT, RD, whichever exists."""
    if p.gap["RT"] and p.nsd["RT"] == 0 and p.RT:
        return "RT"
    if p.gap["RD"] and p.nsd["RD"] == 0 and p.RD:
        return "RD"
    for t in ("ST", "RT", "RD"):
        if getattr(p, t):
            return t
    return None


class SegmentAligner:
    """Aligns all pages of an :class:`Encoding` into one table of columns."""

    def __init__(self, enc: Encoding, opts: dict[str, Any]) -> None:
        self.enc = enc
        self.o = opts
        self.m = enc.m
        self.rep_min = repeat_min(opts)
        # record profiles in the current trial: allowed, and whether a region took one
        self.use_profile = bool(opts["record_profile"])
        self.profile_used = False
        self.profiles = 0  # record profiles made so far: their columns' role tag

    def run(self) -> tuple[list[Column], list[list[int]]]:
        """The aligned table and the MT landmarks (Algorithm 1)."""
        m = self.m
        mts = mine_landmarks(self.enc, self.o)
        bounds = [[-1] * m] + mts + [list(self.enc.n)]
        table: list[Column] = []
        for idx, (u, v) in enumerate(zip(bounds, bounds[1:])):
            g = max(v[r] - u[r] for r in range(m))
            if g == 2:
                table += rearrange(self.enc, self.o, self.align_infrequent(u, v, range(m)))
            elif g > 2:
                table += self.mining_segment(u, v)
            if idx + 1 < len(bounds) - 1:
                table.append(_landmark_column(self.enc, v, "MT"))
        return table, mts

    def align_infrequent(self, u: list[int], v: list[int], active: Iterable[int]) -> list[Column]:
        """Centre-star alignment of the leaves between ``u`` and ``v``."""
        seqs = {r: list(range(u[r] + 1, v[r])) for r in active if v[r] - u[r] > 1}
        return center_star(self.enc, seqs, self.o, "both")

    def mine(self, left: list[int], right: list[int], active: list[int]) -> Patterns:
        return mine_patterns(self.enc, self.o, self.rep_min, left, right, active)

    def mining_segment(self, u: list[int], v: list[int]) -> list[Column]:
        """The segment between two MT landmarks, by the trial with fewest columns
        (Algorithm 2)."""
        docs = list(range(self.m))
        pats = self.mine(u, v, docs)
        if not (pats.ST or pats.RT or pats.RD):
            return rearrange(self.enc, self.o, self.align_infrequent(u, v, docs))
        best: SegmentState | None = None
        best_key: tuple[int, ...] | None = None
        if self.o["trial_plain"]:
            # no split at all; it wins only with strictly fewer columns (free text whose
            # inline leaves form a spurious regular repeat)
            best = SegmentState(S_L=list(u))
            best.seg = rearrange(self.enc, self.o, self.align_infrequent(u, v, docs))
            best.aligned = len(best.seg)
            best_key = (_cost(self.enc, self.o["trial_cost"], best) + 1, True, 3, 0)
        # a record profile is one more alignment variant: each pattern type is tried with
        # and without it, fewest columns wins (ties: with)
        variants = (True, False) if self.o["record_profile"] else (False,)
        for t in ("ST", "RT", "RD"):
            if not getattr(pats, t):
                continue
            for vi, with_profile in enumerate(variants):
                if vi and not self.profile_used:
                    break  # no region took a profile: the other variant is identical
                st = self.trial(t, pats, u, v, with_profile)
                has_set = any(isinstance(c, ListColumn) for c in st.seg)
                rank = _TRIAL_RANK[t] if has_set else _TRIAL_RANK_NO_SET[t]
                key = (_cost(self.enc, self.o["trial_cost"], st), not has_set, rank, vi)
                if best_key is None or key < best_key:
                    best, best_key = st, key
        self.use_profile = bool(self.o["record_profile"])
        assert best is not None
        return best.seg

    def trial(
        self, t: str, pats: Patterns, u: list[int], v: list[int], with_profile: bool
    ) -> SegmentState:
        """The segment split on the patterns of type ``t``, re-arranged, records split out."""
        self.use_profile = with_profile
        self.profile_used = False
        st = SegmentState(S_L=list(u))
        gap = 0 if t == "ST" else pats.gap[t]
        lms = align_frequent(self.enc, self.o, getattr(pats, t)) + [v]
        if gap and with_profile and self.o["drop_intruders"] and len(lms) >= 3:
            lms = self.divider_landmarks(getattr(pats, t), gap, lms, v)
        self.split_sub(t, gap, lms, st, 0)
        kept = _fields_variant(st) if self.profile_used else None
        if kept is not None:
            self.finish(kept, keep_fields=True)
        self.finish(st, keep_fields=False)
        cost = self.o["trial_cost"]
        if (
            kept is not None
            and kept.by_fields
            and _cost(self.enc, cost, kept) < _cost(self.enc, cost, st)
        ):
            return kept
        return st

    def divider_landmarks(
        self, pats: list[Pattern], gap: int, lms: list[list[int]], v: list[int]
    ) -> list[list[int]]:
        """The sub-landmarks of a repeat split, without the occurrences inside a record
        when those refuse the record profile (values sharing the divider's code, section
        3.2.2) and their removal allows one; else ``lms`` as they are."""
        level = pats[0].level
        if record_profile(self.enc, self.o, self.rep_min, lms, level, gap) is not None:
            return lms
        cleaned = drop_intruders(pats, gap)
        if all(p.pos == q.pos for p, q in zip(pats, cleaned)):
            return lms
        alt = align_frequent(self.enc, self.o, cleaned) + [v]
        if len(alt) >= 3 and record_profile(self.enc, self.o, self.rep_min, alt, level, gap):
            return alt
        return lms

    def finish(self, st: SegmentState, keep_fields: bool) -> None:
        """Re-arrange the trial's columns and split its recordsets out; with
        ``keep_fields`` the record profile's fields stay apart and may find the records."""
        st.seg = rearrange(self.enc, self.o, st.seg, keep_fields)
        st.aligned = len(st.seg)
        st.seg, st.dropped, st.by_fields = detect_records(
            self.enc, self.o, self.rep_min, st.seg, st.regions, keep_fields
        )

    def split_sub(
        self, ptype: str, gap: int, LM: list[list[int]], st: SegmentState, depth: int
    ) -> None:
        """Align the subsegments between the sub-landmarks ``LM`` (the last one is the
        right bound), postponing the pages that lack one (Algorithm 3)."""
        lm_cols = [_landmark_column(self.enc, lm, "LM") for lm in LM[:-1]]
        prof = (
            record_profile(self.enc, self.o, self.rep_min, LM, 0 if ptype == "RT" else 1, gap)
            if gap and self.use_profile and len(LM) >= 3
            else None
        )
        self.profile_used |= prof is not None
        self.profiles += prof is not None
        if gap and lm_cols:
            # with a record profile every record spans 1 + |profile| columns: that is the
            # column period record detection needs, whatever the leaf RefGap
            period = gap if prof is None else prof[0]
            st.regions.append(DataRegion(ptype, period, lm_cols[0], lm_cols[-1], LM[-1]))
        last = len(LM) - 1
        for ci, lm in enumerate(LM):
            self.postpone(st, lm)
            active = [r for r in range(self.m) if r not in st.postpone]
            inner = 0 < ci < last
            if prof is not None and inner:
                st.seg += self.profile_columns(prof, ci, st.postpone)
            elif active and any(lm[r] - st.S_L[r] > 1 for r in active):
                self.subsegment(st, lm, active, inner_record=bool(gap) and inner, depth=depth)
            self.align_pending(st, lm)
            for r in range(self.m):
                if lm[r] != -1:
                    st.S_L[r] = lm[r]
            if ci < last:
                st.seg.append(lm_cols[ci])

    def postpone(self, st: SegmentState, lm: list[int]) -> None:
        """Postpone the pages without this sub-landmark; they are aligned later against the
        columns made from here on."""
        for r in range(self.m):
            if lm[r] == -1 and r not in st.postpone:
                st.postpone.add(r)
                st.pending_after[r] = st.seg[-1] if st.seg else None

    def profile_columns(self, prof: RecordProfile, ci: int, postponed: set[int]) -> list[Column]:
        """The columns of subsegment ``ci`` from the region's record profile."""
        width, cells, kind = prof[1].get(ci, (0, [], -1))
        cols = [Column() for _ in range(width)]
        for j, c in enumerate(cols):
            c.roles = frozenset(((self.profiles, kind, j),))
        for j, r, k in cells:
            if r not in postponed:
                cols[j].add(self.enc, r, k)
        return cols

    def subsegment(
        self, st: SegmentState, lm: list[int], active: list[int], inner_record: bool, depth: int
    ) -> None:
        """Split the subsegment before ``lm`` on its own patterns, or align it by centre-star."""
        pick = None
        p = None
        if depth < self.o["max_depth"]:
            p = self.mine(st.S_L, lm, active)
            if inner_record and not self.o["inner_repeats"]:
                # one record lies between two sub-landmarks of a data region, and one
                # segment holds one recordset: a "repeat" here is a value recurring inside
                # the record ("-" cells of a results row), not a nested set
                p.RT, p.RD = [], []
            pick = _pick(p)
        if pick is not None and p is not None:
            sub = align_frequent(self.enc, self.o, getattr(p, pick)) + [lm]
            self.split_sub(pick, 0 if pick == "ST" else p.gap[pick], sub, st, depth + 1)
        else:
            st.seg += self.align_infrequent(st.S_L, lm, active)

    def align_pending(self, st: SegmentState, lm: list[int]) -> None:
        """Align each postponed page that has ``lm`` against the columns made since it was
        postponed."""
        for r in sorted(st.postpone):
            if lm[r] == -1:
                continue
            after = st.pending_after.pop(r, None)
            start = 0
            if after is not None:
                for idx in range(len(st.seg) - 1, -1, -1):
                    if st.seg[idx] is after:
                        start = idx + 1
                        break
            seq = list(range(st.S_L[r] + 1, lm[r]))
            if seq:
                st.seg[start:] = nw_align(st.seg[start:], self.enc, r, seq, self.o, "both")
            st.postpone.discard(r)

"""Data records in data regions, contiguous and not (Liu et al. 2003, sections 3.3 and 3.4).

A generalized node of one element whose children are all similar (and that is no data
table row) holds one record per child (FindRecords-1); a generalized node of several
elements whose elements have the same number of similar children holds non-contiguous
records, the k-th record made of the k-th child of each (FindRecords-n); otherwise a
generalized node is one record. Regions that are the non-contiguous halves of one list
under consecutive sibling parents are merged (:func:`merge_adjacent_regions`), and siblings
outside every region that match a record are records too (:meth:`RecordMiner.recover_orphans`).

Ours (``resplit``, off in ``mode="paper"``): a region whose generalized nodes repeat with
a smaller tag period is re-expressed with it (:meth:`RecordMiner.resplit_period`).
"""

from __future__ import annotations

from typing import Any

from scrapy_records.extractors.mdr.distance import EPS, normalized_distance
from scrapy_records.extractors.mdr.regions import DataRegion, RegionMiner
from scrapy_records.page import Page

__all__ = ["RecordMiner", "merge_adjacent_regions"]

_CELL_TAGS = frozenset({"td", "th"})


class RecordMiner(RegionMiner):
    """:class:`RegionMiner` with the record step: FindRecords-1/-n, resplitting, orphans."""

    def __init__(self, page: Page, **options: Any) -> None:
        super().__init__(page, **options)
        self._pos_cache: dict[int, dict[int, int]] = {}

    def position(self, p: int, v: int) -> int:
        """Position of ``v`` among the children of ``p`` (cached per parent)."""
        cache = self._pos_cache
        m = cache.get(p)
        if m is None:
            m = cache[p] = {c: k for k, c in enumerate(self.children[p])}
        return m[v]

    # ---------------------------------------------------------- FindRecords
    def children_similar(self, x: int) -> bool:
        """Line 1 of FindRecords-1/-n: every adjacent pair of ``x``'s children has ND <= T.

        Recommended: at least 2 children, and with ``split_guard`` only when
        ``TreeDepth(x) >= 3``. Paper-literal ``vacuous_split``: a single child counts.
        """
        c = self.children[x]
        if len(c) < 2:
            return self.vacuous_split and len(c) == 1
        if self.split_guard and self.height[x] < 3:
            return False
        T = self.T + EPS
        d = self.dist.get(x)
        if d is not None and len(d) > 1:
            return all(v <= T for v in d[1])
        nd = self.nd_nodes
        return all(nd(c[k], c[k + 1]) <= T for k in range(len(c) - 1))

    def is_data_table_row(self, x: int) -> bool:
        """A data table row: a ``tr`` whose children are td/th each holding <= 1 piece of
        text (its cells are the fields of one record, not records)."""
        page = self.page
        if page.tag[x] != "tr":
            return False
        lo, hi = page.leaf_lo, page.leaf_hi
        tag = page.tag
        for c in self.children[x]:
            if tag[c] not in _CELL_TAGS or hi[c] - lo[c] > 1:
                return False
        return True

    def resplit_period(self, r: DataRegion) -> int:
        """``resplit`` (ours): the smallest period g' < g into which ``r``'s generalized
        nodes (g > 1) fall apart, or 0.

        g' must divide g, the sequence of the region's component tags must repeat with
        period g', and adjacent g'-combinations must be within ND <= 2T, all but a share
        ``resplit_outliers`` of the pairs (an odd record breaks the two pairs it is in). Then
        the generalized nodes are harmonics of smaller records whose tag strings vary a
        little too much for T (query highlighting, optional fields): IdentDRs took the
        longer combinations because combining averages the differences out. The paper
        reports "generalized nodes of the smallest length that cover a data region", so
        such a region is re-expressed with g'.
        """
        ch = self.children[r.parent]
        span = ch[r.start : r.start + r.covered]
        tags = [self.tid[x] for x in span]
        end = self.end
        T2 = 2 * self.T
        lim = T2 + EPS
        for gp in range(1, r.g):
            if r.g % gp or any(tags[k] != tags[k - gp] for k in range(gp, len(tags))):
                continue
            # every g'-unit must carry text: a unit without any is a separator or a
            # spacer of a longer record, not a record of its own
            lo, hi = self.page.leaf_lo, self.page.leaf_hi
            if any(hi[span[a + gp - 1]] == lo[span[a]] for a in range(0, len(span), gp)):
                continue
            pairs = range(0, len(span) - 2 * gp + 1, gp)
            allowed = int(self.resplit_outliers * len(pairs))
            bad = 0
            for a in pairs:
                if (
                    self.nd_range(
                        span[a],
                        end[span[a + gp - 1]] + 1,
                        span[a + gp],
                        end[span[a + 2 * gp - 1]] + 1,
                        T2,
                    )
                    > lim
                ):
                    bad += 1
                    if bad > allowed:
                        break
            ok = bad <= allowed
            if ok and (gp == 1 or not self.noncontiguous(span[:gp])):
                return gp
        return 0

    def noncontiguous(self, G: list[int]) -> bool:
        """FindRecords-n line 1 (Fig. 15): every node of ``G`` has the same number
        m >= 2 of children and those children are similar."""
        children = self.children
        m = len(children[G[0]])
        return (
            m >= 2
            and all(len(children[x]) == m for x in G)
            and all(self.children_similar(x) for x in G)
        )

    def find_records(self, r: DataRegion) -> None:
        """FindRecords-1 / FindRecords-n for every generalized node of ``r``: sets its
        ``groups`` and ``kind`` (``gnode``, ``children``, ``noncontiguous`` or ``mixed``)."""
        ch = self.children[r.parent]
        if r.g > 1 and self.resplit and not self.noncontiguous(ch[r.start : r.start + r.g]):
            gp = self.resplit_period(r)
            if gp:
                r.resplit_from = r.g
                r.g = gp
        groups: list[tuple[int, ...]] = []
        kinds: set[str] = set()
        for s in range(r.start, r.start + r.covered, r.g):
            G = ch[s : s + r.g]
            if r.g == 1:
                x = G[0]
                if self.children_similar(x) and not self.is_data_table_row(x):
                    groups.extend((c,) for c in self.children[x])  # Fig. 11
                    kinds.add("children")
                else:
                    groups.append((x,))  # Fig. 13 / Fig. 14
                    kinds.add("gnode")
            elif self.noncontiguous(G):
                # Fig. 17/18: record k = k-th child of every node of G
                m = len(self.children[G[0]])
                groups.extend(tuple(self.children[x][k] for x in G) for k in range(m))
                kinds.add("noncontiguous")
            else:
                groups.append(tuple(G))  # Fig. 16
                kinds.add("gnode")
        r.groups = groups
        r.kinds = kinds
        r.kind = next(iter(kinds)) if len(kinds) == 1 else "mixed"

    def recover_orphans(self, r: DataRegion, covered_pos: set[int]) -> None:
        """Records outside data regions: g == 1 only; siblings not covered by any region of
        the same parent (``covered_pos``: their positions); their children when the region
        was split."""
        if r.g != 1 or not r.groups:
            return
        p = r.parent
        ch = self.children[p]
        split = r.kind in ("children", "mixed")
        end = self.end
        tid = self.tid
        exemplars: dict[tuple[int, ...], tuple[int, int]] = {}
        for grp in r.groups:
            x = grp[0]
            key = tuple(tid[x : end[x] + 1])
            if key not in exemplars:
                exemplars[key] = (x, end[x] + 1)
        ex = list(exemplars.values())
        T = self.T + EPS
        found: list[int] = []
        for k, S in enumerate(ch):
            if r.start <= k < r.start + r.covered or k in covered_pos:
                continue
            cands = self.children[S] if split else [S]
            for x in cands:
                xe = end[x] + 1
                for q0, q1 in ex:
                    if self.nd_range(x, xe, q0, q1) <= T:
                        found.append(x)
                        break
        if found:
            r.groups.extend((x,) for x in found)
            r.groups.sort(key=lambda g: g[0])
            r.recovered = found

    def group_string(self, grp: tuple[int, ...]) -> list[int]:
        """The tag string of a record of several roots."""
        tid, end = self.tid, self.end
        out: list[int] = []
        for x in grp:
            out.extend(tid[x : end[x] + 1])
        return out


def merge_adjacent_regions(miner: RecordMiner, regions: list[DataRegion]) -> list[DataRegion]:
    """Non-contiguous case 2: merge chains R1..Rm (m >= 2) where the parents
    are consecutive siblings, each Ri spans all children of its parent, all have the same
    number of records and consecutive first records are dissimilar (ND > T)."""
    page = miner.page
    children = page.children
    parent = page.parent
    full: dict[int, DataRegion] = {}
    nper: dict[int, int] = {}
    for r in regions:
        nper[r.parent] = nper.get(r.parent, 0) + 1
    for r in regions:
        if (
            nper[r.parent] == 1
            and r.start == 0
            and r.covered == len(children[r.parent])
            and r.groups
            and not r.recovered
        ):
            full[r.parent] = r
    if len(full) < 2:
        return regions
    T = miner.T + EPS
    merged_away: set[int] = set()
    out_new: list[DataRegion] = []
    done: set[int] = set()
    for p in sorted(full):
        if p in done:
            continue
        gp = parent[p]
        if gp < 0:
            continue
        sibs = children[gp]
        k = miner.position(gp, p)
        chain = [full[p]]
        j = k + 1
        while j < len(sibs) and sibs[j] in full:
            nxt = full[sibs[j]]
            prev = chain[-1]
            if len(nxt.groups) != len(prev.groups):
                break
            d = normalized_distance(
                miner.group_string(prev.groups[0]), miner.group_string(nxt.groups[0]), miner.T
            )
            if d <= T:
                break
            chain.append(nxt)
            j += 1
        for r in chain:
            done.add(r.parent)
        if len(chain) < 2:
            continue
        groups = [tuple(x for r in chain for x in r.groups[i]) for i in range(len(chain[0].groups))]
        m = DataRegion(
            gp,
            1,
            k,
            len(chain),
            score=sum(r.score for r in chain) / len(chain),
            groups=groups,
            kinds={"merged_regions"},
            kind="merged_regions",
        )
        for r in chain:
            merged_away.add(id(r))
            m.nested.extend(r.nested)
        out_new.append(m)
    if not out_new:
        return regions
    res = [r for r in regions if id(r) not in merged_away] + out_new
    res.sort(key=lambda r: r.groups[0][0] if r.groups else r.parent)
    return res

"""Column re-arrangement after the alignment of a segment (Yuliana & Chang 2019, section
3.2.3): disjunctive columns merge at the most specific shared encoding level above 0, then
low-density blocks (eq. 7) collapse into one column.

Entry point: :func:`rearrange`. Options: ``merge_max_level`` (6), ``merge_window`` (200),
``merge_partner`` (``"best"``: lowest merge level, or the paper's ``"first"``),
``theta_den`` (0.7), ``density_pages`` (``"present"`` or ``"all"``), ``density_scope``
(``"container"``: a run merges only when it fills one element, or ``"block"``).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from scrapy_records.wrappers.inducers.dcade.columns import Column, is_template
from scrapy_records.wrappers.inducers.dcade.encoding import LEVELS, Encoding


def rearrange(
    enc: Encoding, opts: dict[str, Any], seg: list[Column], keep_fields: bool = False
) -> list[Column]:
    """Disjunctive merging, then low-density merging, of one aligned segment.

    ``keep_fields``: two columns of one record profile that hold different fields (its own
    merging kept them apart) do not merge here, so that every record keeps its layout."""
    seg = _DisjunctiveMerge(enc, opts, seg, keep_fields).run()
    return merge_low_density(enc, opts, seg)


def _single_codes(enc: Encoding, c: Column) -> tuple[int | None, ...]:
    """Per level, the code all the column's leaves share, ``None`` where they differ (one
    pass over the leaves instead of a set per level)."""
    lv = enc.lv
    out: list[int | None] | None = None
    for r, ks in c.cells.items():
        codes = lv[r]
        for k in ks:
            if out is None:
                out = [codes[L][k] for L in range(LEVELS)]
                continue
            for L in range(LEVELS):
                if out[L] is not None and out[L] != codes[L][k]:
                    out[L] = None
    return tuple(out) if out is not None else (None,) * LEVELS


def _other_fields(a: Column, b: Column) -> bool:
    """Both columns come from record profiles, and from no common profile column."""
    return bool(a.roles and b.roles and not a.roles & b.roles)


class _DisjunctiveMerge:
    """Left to right, a data column (or a sub-landmark holding data) missing on some pages
    takes the cells of a later data column of other pages, with no cell of those pages in
    between, at the lowest level where their cells share one code; until it is full or no
    partner is left."""

    def __init__(
        self, enc: Encoding, opts: dict[str, Any], seg: list[Column], keep_fields: bool = False
    ) -> None:
        self.enc = enc
        self.keep_fields = keep_fields
        self.seg = seg
        self.full = (1 << enc.m) - 1
        self.max_level = opts["merge_max_level"]
        self.window = opts["merge_window"]
        self.best_partner = opts["merge_partner"] == "best"
        self.alive = [True] * len(seg)
        self.masks = [c.mask() for c in seg]
        # pages of the columns from j on: a superset of the alive ones' as merging goes on
        # (a merge moves a later column's pages to an earlier one), so once they all lie
        # on pages already taken no partner can follow
        self.later = [0] * (len(seg) + 1)
        for j in range(len(seg) - 1, -1, -1):
            self.later[j] = self.later[j + 1] | self.masks[j]
        self.cache: dict[int, tuple[int | None, ...]] = {}
        self.shared: dict[int, int] = {}  # column -> first level where its leaves share one code

    def run(self) -> list[Column]:
        seg, masks, full = self.seg, self.masks, self.full
        for i in range(len(seg)):
            if not self.alive[i] or not self.mergeable(i) or masks[i] == full:
                continue
            while masks[i] != full:
                pick = self.partner(i)
                if pick is None:
                    break
                self.merge(i, pick[1])
        return [c for c, a in zip(seg, self.alive) if a]

    def mergeable(self, i: int) -> bool:
        """A data column, or a sub-landmark whose content varies: section 3.2.3 merges the
        columns of support below one, and a sub-landmark holding several texts (an ST's
        column the postponed pages' values joined, "Not Available" and the features)
        holds data leaves like any other column. It keeps its place as a landmark and
        takes the cells of a later data column (``run`` never merges it away)."""
        c = self.seg[i]
        return c.kind == "D" or (c.kind == "LM" and len(c.c0) > 1)

    def codes(self, i: int) -> tuple[int | None, ...]:
        """Per level, the one code all the column's leaves share there, else ``None``."""
        x = self.cache.get(i)
        if x is None:
            x = self.cache[i] = _single_codes(self.enc, self.seg[i])
        return x

    def shared_level(self, i: int) -> int:
        x = self.shared.get(i)
        if x is None:
            codes = self.codes(i)
            x = self.shared[i] = next((L for L in range(LEVELS) if codes[L] is not None), LEVELS)
        return x

    def partner(self, i: int) -> tuple[int, int] | None:
        """``(merge level, column)`` of the partner of column ``i``, if any."""
        seg, masks, alive, later = self.seg, self.masks, self.alive, self.later
        mi, keep_fields = masks[i], self.keep_fields
        ci_codes, lo_i = self.codes(i), max(1, self.shared_level(i))
        between = 0
        pick: tuple[int, int] | None = None
        for j in range(i + 1, min(len(seg), i + 1 + self.window)):
            if not alive[j]:
                continue
            if not later[j] & ~(mi | between):
                break
            mj = masks[j]
            if (
                seg[j].kind != "D"
                or mi & mj
                or mj & between
                or (keep_fields and _other_fields(seg[i], seg[j]))
            ):
                between |= mj
                continue
            cj_codes = self.codes(j)
            lo = max(lo_i, self.shared_level(j))
            merged_level = None
            for L in range(lo, self.max_level + 1):
                if ci_codes[L] is not None and ci_codes[L] == cj_codes[L]:
                    merged_level = L
                    break
            if merged_level is not None and (pick is None or merged_level < pick[0]):
                pick = (merged_level, j)
                if not self.best_partner or merged_level <= lo:
                    break
            between |= masks[j]
        return pick

    def merge(self, i: int, j: int) -> None:
        ci_codes, cj_codes = self.codes(i), self.codes(j)
        self.seg[i].absorb(self.seg[j])
        self.masks[i] |= self.masks[j]
        self.cache[i] = tuple(a if a == b else None for a, b in zip(ci_codes, cj_codes))
        self.shared.pop(i, None)
        self.alive[j] = False


def merge_low_density(enc: Encoding, opts: dict[str, Any], seg: list[Column]) -> list[Column]:
    """Collapse the runs of data columns of each low-density block (the columns between
    two landmarks) into one column; template columns stay as separators, except inside
    free text written into ``body`` (:func:`_merge_body_text`)."""
    if len(seg) < 2:
        return seg
    inside = _segment_leaves(enc, seg)
    seen = Counter(x for c in seg if c.kind == "LM" for x in c.c0)
    single = {id(c) for c in seg if c.kind == "LM" and all(seen[x] == 1 for x in c.c0)}
    out: list[Column] = []
    block: list[Column] = []
    left: Column | None = None
    for c in seg + [Column("MT")]:
        if c.kind in ("MT", "LM", "L"):
            bounds = [b for b in (left, c) if b is not None and id(b) in single]
            _flush_block(enc, opts, block, out, inside, bounds)
            block = []
            out.append(c)
            left = c
        else:
            block.append(c)
    return _merge_body_text(enc, opts, out[:-1])


def _without(inside: list[set[int]], bounds: list[Column]) -> list[set[int]]:
    """The segment's leaves per page without those of the single sub-landmarks (an ST's
    own column, no repeat's divider) bounding a block: like the segment's landmarks they
    are template beside the block's text, no other value (section 3.2.3 merges the
    low-density columns between two sub-landmarks)."""
    cells = [b.cells for b in bounds]
    if not cells:
        return inside
    return [s - {k for c in cells for k in c.get(r, ())} for r, s in enumerate(inside)]


def _merge_body_text(enc: Encoding, opts: dict[str, Any], seg: list[Column]) -> list[Column]:
    """Collapse free text written straight into ``body`` across the optional template
    columns inside it: the widgets sellers paste (a counter, a payment button) repeat on
    some pages, become sub-landmarks and cut the text into pieces. Eq. 7's density is the
    share of non-null cells, so a sub-landmark on at most ``theta_den`` of the pages is a
    low-density column itself; the stretch between the others (and the MTs) merges when it
    is low-density text of body (:func:`_text_of_body`) holding data (section 3.2.3)."""
    out: list[Column] = []
    stretch: list[Column] = []
    for c in seg + [Column("MT")]:
        if c.kind in ("MT", "L") or (c.kind == "LM" and len(c.cells) > opts["theta_den"] * enc.m):
            # the sub-landmarks merged are those inside the text; one at either end bounds
            # it (rpmpackage's optional "Search" menu link before the heading)
            lo, hi = _bounding_landmarks(enc, stretch)
            text = stretch[lo:hi]
            if (
                len(text) >= 2
                and any(x.kind == "B" or not is_template(enc, opts, x) for x in text)
                and _density(enc, opts, text) <= opts["theta_den"]
                and _text_of_body(enc, text)
            ):
                out.extend(stretch[:lo])
                out.append(_merge_run(text))
                out.extend(stretch[hi:])
            else:
                out.extend(stretch)
            stretch = []
            out.append(c)
        else:
            stretch.append(c)
    return out[:-1]


def _bounding_landmarks(enc: Encoding, stretch: list[Column]) -> tuple[int, int]:
    """``(lo, hi)``: the stretch without the sub-landmark columns at its ends that belong to
    the template block beside it: on every page having them their leaves come before
    (after) all the other leaves of the stretch, inside the element of ``body`` holding
    the leaf before (after) them (the menu table whose other links are landmarks, with
    rpmpackage's optional "Search" link before the heading). A widget pasted into a
    seller's text has an element of its own and stays inside the text. Section 3.2.3: the
    low-density columns between two landmarks merge, not the landmarks bounding them."""

    def bounds(c: Column, rest: list[Column], before: bool) -> bool:
        for r, ks in c.cells.items():
            other = [k for x in rest for k in x.cells.get(r, ())]
            if other and (max(ks) > min(other) if before else min(ks) < max(other)):
                return False
            edge = min(ks) if before else max(ks)
            if not _same_block(enc, r, edge, edge - 1 if before else edge + 1):
                return False
        return True

    lo, hi = 0, len(stretch)
    while lo < hi and stretch[lo].kind == "LM" and bounds(stretch[lo], stretch[lo + 1 : hi], True):
        lo += 1
    while (
        hi > lo
        and stretch[hi - 1].kind == "LM"
        and bounds(stretch[hi - 1], stretch[lo : hi - 1], False)
    ):
        hi -= 1
    return lo, hi


def _same_block(enc: Encoding, r: int, k: int, j: int) -> bool:
    """Leaf ``j`` of page ``r`` lies in the child of ``body`` (or of the root) holding leaf
    ``k``."""
    if not 0 <= j < enc.n[r]:
        return False
    page, nodes = enc.pages[r], enc.leaves[r].node
    top = nodes[k]
    while top >= 0 and page.parent[top] >= 0 and page.tag[page.parent[top]] not in ("body", "html"):
        top = page.parent[top]
    return top >= 0 and page.tag[top] not in ("body", "html") and page.is_ancestor(top, nodes[j])


def _segment_leaves(enc: Encoding, seg: list[Column]) -> list[set[int]]:
    """Per page, the leaves of the segment's columns (the leaves next to them outside
    are the landmarks that bound the segment)."""
    inside: list[set[int]] = [set() for _ in range(enc.m)]
    for c in seg:
        for r, ks in c.cells.items():
            inside[r].update(ks)
    return inside


def _flush_block(
    enc: Encoding,
    opts: dict[str, Any],
    block: list[Column],
    out: list[Column],
    inside: list[set[int]],
    bounds: list[Column],
) -> None:
    if not (len(block) >= 2 and _density(enc, opts, block) <= opts["theta_den"]):
        out.extend(block)
        return
    inside = _without(inside, bounds)
    run: list[Column] = []
    for c in block:
        if not is_template(enc, opts, c):
            run.append(c)
            continue
        _flush_run(enc, opts, run, out, inside)
        run = []
        out.append(c)
    _flush_run(enc, opts, run, out, inside)


def _flush_run(
    enc: Encoding,
    opts: dict[str, Any],
    run: list[Column],
    out: list[Column],
    inside: list[set[int]],
) -> None:
    if len(run) >= 2 and (
        fills_one_element(enc, opts, run, segment=inside) or _text_of_body(enc, run)
    ):
        out.append(_merge_run(run))
    else:
        out.extend(run)


def fills_one_element(
    enc: Encoding,
    opts: dict[str, Any],
    run: list[Column],
    strict_run: bool = True,
    segment: list[set[int]] | None = None,
) -> bool:
    """On every page the run's leaves fill one element: their lowest common ancestor holds
    no leaf of a neighbouring column, as a comment or a free-text body does (optional
    label/value rows stay apart). ``strict_run``: the run must also be contiguous, and
    ``density_scope="block"`` accepts any run. ``segment``: per page, the leaves of the
    segment; when given, a neighbouring leaf outside it (the landmark that bounds the
    segment) does not break the element around a run of free text, whose leaves are its
    own text or inside paragraphs and inline elements (a synopsis with inline titles in one ``font``
    with its "Synopsis" heading: section 3.2.3 merges the low-density data columns
    between two landmarks, and a landmark is template, no other value)."""
    if strict_run and opts["density_scope"] == "block":
        return True
    for r in {r for c in run for r in c.cells}:
        ks = sorted(k for c in run for k in c.cells.get(r, ()))
        if len(ks) < 2:
            continue
        page = enc.pages[r]
        nodes = enc.leaves[r].node
        a = _leaves_lca(page, nodes, ks)
        if a < 0:
            return False
        inside = set(ks)
        lo, hi = ks[0], ks[-1]
        for k in (lo - 1, hi + 1):
            if 0 <= k < enc.n[r] and k not in inside and page.is_ancestor(a, nodes[k]):
                if segment is not None and k not in segment[r] and _inline(page, nodes, ks, a):
                    continue  # the landmark before or after the segment, beside free text
                return False
        if strict_run and any(k not in inside for k in range(lo, hi + 1)):
            return False
    return True


def _leaves_lca(page: Any, nodes: list[int], ks: list[int]) -> int:
    """The lowest common ancestor of leaves ``ks`` (``nodes``: each leaf's node), ``-1``
    when there is none."""
    a = nodes[ks[0]]
    for k in ks[1:]:
        b = nodes[k]
        while a >= 0 and not page.is_ancestor(a, b):
            a = page.parent[a]
        if a < 0:
            return -1
    return a


def _text_of_body(enc: Encoding, run: list[Column]) -> bool:
    """The run is free text with no element of its own, written straight into ``body`` (an
    eBay seller's description): on every page its leaves follow each other with no other
    leaf in between, their lowest common ancestor is ``body``, and the pages hold different
    numbers of them. Section 3.2.3 merges a low-density run between two landmarks into one
    column; the landmarks and values beside it in ``body`` do not make it a label/value row,
    whose values do not vary in count (TC8)."""
    counts = set()
    for r in {r for c in run for r in c.cells}:
        ks = sorted(k for c in run for k in c.cells.get(r, ()))
        if not ks:
            continue
        counts.add(len(ks))
        if ks[-1] - ks[0] + 1 != len(set(ks)):
            return False
        if len(ks) < 2:
            continue
        page, nodes = enc.pages[r], enc.leaves[r].node
        a = _leaves_lca(page, nodes, ks)
        if a < 0 or page.tag[a] != "body":
            return False
    return len(counts) > 1


#: elements of running text: paragraphs and what formats text inside them
_INLINE = frozenset(
    "a abbr b big cite code em font i p q s small span strike strong sub sup tt u".split()
)


def _inline(page: Any, nodes: list[int], ks: list[int], top: int) -> bool:
    """Every leaf ``ks`` is text of ``top`` itself or of paragraphs and inline elements
    inside it."""
    for k in ks:
        i = nodes[k]
        while i != top:
            if i < 0 or page.tag[i] not in _INLINE:
                return False
            i = page.parent[i]
    return True


def _density(enc: Encoding, opts: dict[str, Any], block: list[Column]) -> float:
    """Eq. 7: the leaves of the block over (most leaves on a page x pages)."""
    cnt: Counter[int] = Counter()
    for c in block:
        for r, ks in c.cells.items():
            cnt[r] += len(ks)
    if not cnt:
        return 1.0
    mpages = len(cnt) if opts["density_pages"] == "present" else enc.m
    return sum(cnt.values()) / (max(cnt.values()) * mpages)


def _merge_run(run: list[Column]) -> Column:
    b = Column("B")
    for c in run:
        for r, ks in c.cells.items():
            b.cells.setdefault(r, []).extend(ks)
        b.c0 |= c.c0
        b.c1 |= c.c1
    for ks in b.cells.values():
        ks.sort()
    return b

"""Card grids: when each record a list extractor cut is a row of cards, the records are the
cards.

Product and recipe grids lay their items out in rows (``<div class=row>`` of 3-12
``<li>`` cards). The rows repeat, so MDR and STEM may take a row for the record: one record
then holds several products, and field alignment makes a column of every product field of
every card (78-100 columns). :func:`split_card_rows` recognises the case from the records'
structure alone and returns the region of the cards.

A record is a row of cards when, at its roots or a few wrappers below, the element
children with text (at least two) are all of one tag, are alike each other (within a
normalised tag-string distance of :data:`CARD_DISTANCE`, Liu et al. 2003, section 3.2.2;
a variant with an optional badge is alike a card of another row), each looks like a
record of its own (some text in at least :data:`CARD_LEAVES` pieces and a link) and
together they hold most of the record's text (:data:`CARD_TEXT`; a block of results under
a heading is a row of cards too). A table row of field cells fails the test: its cells
differ from each other, or hold one piece of text each.
"""

from __future__ import annotations

from scrapy_records.extractors.base import build_region
from scrapy_records.extractors.evidence import PageText
from scrapy_records.extractors.mdr.distance import normalized_distance
from scrapy_records.page import Page
from scrapy_records.results import Region

__all__ = [
    "split_card_rows",
    "CARD_DISTANCE",
    "CARD_LEAVES",
    "CARD_ROW_SHARE",
    "CARD_DEPTH",
    "CARD_TEXT",
]

#: Largest normalised tag-string distance of a card from its nearest card in the row.
CARD_DISTANCE = 0.6
#: Pieces of text a card holds at least (a title and a price, a name and a date).
CARD_LEAVES = 2
#: Share of the records that must be rows of cards.
CARD_ROW_SHARE = 0.8
#: How far below a record's roots its cards may sit (wrappers around a row).
CARD_DEPTH = 4
#: Share of a record's text its cards hold at least.
CARD_TEXT = 0.6
#: Cards in one region, at most (the family test compares pairs).
_MAX_CARDS = 400


def split_card_rows(page: Page, region: Region, text: PageText) -> Region | None:
    """The region of the cards when ``region``'s records are rows (or blocks) of cards,
    else ``None``.

    The new region keeps the extractor, parent and confidence, and says in
    ``meta["cards_from"]`` how many records it was cut from."""
    recs = region.records
    if len(recs) < 2:
        return None
    allowed = len(recs) - CARD_ROW_SHARE * len(recs)  # records that may be no row
    rows: list[list[int] | None] = []
    misses = 0
    memo = text.card_rows  # (regions of several extractors share records: read only)
    for rec in recs:
        g = tuple(rec.nodes)
        row = memo[g] if g in memo else memo.setdefault(g, _row_of(page, g, text))
        rows.append(row)
        if row is None:
            misses += 1
            if misses > allowed:
                return None  # most regions stop at their first record
    found = [row for row in rows if row is not None]
    if sum(map(len, found)) > _MAX_CARDS:
        return None
    within = {row[0]: _alike(page, row) for row in found}
    rows = [row if row is not None and _is_row(row, within[row[0]]) else None for row in rows]
    good = [row for row in rows if row is not None]
    if len(good) < CARD_ROW_SHARE * len(recs):
        return None
    # a card unlike the others of its row must be a variant of a card of another row
    odd = {c for row in good for c in row if c not in within[row[0]]}
    if odd and not _variants(page, odd, [c for row in good for c in row]):
        rows = [row if row is None or not odd & set(row) else None for row in rows]
        if sum(row is not None for row in rows) < CARD_ROW_SHARE * len(recs):
            return None
    cards: list[tuple[int, ...]] = []
    for rec, row in zip(recs, rows):
        if row is None:
            cards.append(rec.nodes)
        else:
            cards.extend((c,) for c in row)
    if len(cards) <= len(recs):
        return None
    meta = {**region.meta, "cards_from": len(recs)}
    return build_region(
        page,
        region.extractor,
        region.parent,
        cards,
        region.confidence,
        meta=meta,
        align=bool(region.columns),
    )


def _row_of(page: Page, group: tuple[int, ...], text: PageText) -> list[int] | None:
    """The would-be cards of the record made of ``group``: the children with text (two or
    more) of the element that holds at least :data:`CARD_TEXT` of the record's text (a
    root, or at most :data:`CARD_DEPTH` wrappers below one; a block's heading,
    "Products: 12 results", stays out), when they are all of one tag and each a card
    (:func:`_is_card`)."""
    lo, hi = page.leaf_lo, page.leaf_hi
    if sum(hi[x] - lo[x] for x in group) < 2 * CARD_LEAVES:
        return None  # too little text for two cards
    total = sum(text.size(x) for x in group)
    need = CARD_TEXT * total
    v = next((x for x in group if text.size(x) >= need), -1) if total else -1
    tag = page.tag
    for _ in range(CARD_DEPTH + 1):
        if v < 0:
            return None
        kids = [c for c in page.children[v] if hi[c] > lo[c]]
        if len(kids) >= 2 and all(tag[c] == tag[kids[0]] and _is_card(page, c) for c in kids):
            return kids if sum(text.size(c) for c in kids) >= need else None
        v = next((c for c in kids if text.size(c) >= need), -1)
    return None


def _alike(page: Page, cards: list[int]) -> set[int]:
    """The members of ``cards`` alike another one (normalised tag-string distance at most
    :data:`CARD_DISTANCE`)."""
    chars, end = page.tag_chars, page.end  # (tag strings as str: rapidfuzz's quick path)
    strings = [chars[c : end[c] + 1] for c in cards]
    out = set()
    for i, si in enumerate(strings):
        for j, sj in enumerate(strings):
            if j != i and normalized_distance(si, sj, CARD_DISTANCE) <= CARD_DISTANCE:
                out.add(cards[i])
                break
    return out


def _is_row(row: list[int], within: set[int]) -> bool:
    """Cards alike each other within the row: at least two, and half of the row. The
    fields of a record differ from each other: a title block and a snippet block are no
    row."""
    return len(within) >= 2 and 2 * len(within) >= len(row)


def _variants(page: Page, odd: set[int], cards: list[int]) -> bool:
    """Is every card of ``odd`` alike some other card of ``cards`` (an optional badge or
    seller line makes a variant of the family, not another kind of thing)?"""
    chars, end = page.tag_chars, page.end
    for c in odd:
        sc = chars[c : end[c] + 1]
        if not any(
            normalized_distance(sc, chars[o : end[o] + 1], CARD_DISTANCE) <= CARD_DISTANCE
            for o in cards
            if o != c
        ):
            return False
    return True


def _is_card(page: Page, node: int) -> bool:
    """Some text in at least :data:`CARD_LEAVES` pieces, and a link."""
    if page.leaf_hi[node] - page.leaf_lo[node] < CARD_LEAVES:
        return False
    return "a" in page.tag[node : page.end[node] + 1]

"""Why each region ranks where it does, in words: ``region.meta["rank_reasons"]``.

Entry point: :func:`explain`, run on the ranked regions of every extractor run
(:func:`scrapy_records.extractors.auto.run_extractor`). The reasons are read back from
what the ranking kept in ``meta``: the score terms (:func:`~scrapy_records.extractors.
ranking.score_terms`), the agreement of the list extractors, a demotion (page chrome,
records without text) and the routing to the post extractor. ``extract --format summary``
and the HTML preview print them.
"""

from __future__ import annotations

from scrapy_records.results import DEMOTIONS, Region

__all__ = ["explain", "reasons_of", "DEMOTIONS"]


def explain(ranked: list[Region]) -> list[Region]:
    """Set ``meta["rank_reasons"]`` (a list of sentences) on every region of ``ranked``
    (best first); return ``ranked``."""
    top = next((r for r in ranked if not _demoted(r)), None)
    for k, r in enumerate(ranked):
        r.meta["rank_reasons"] = [_position(ranked, k, top), *reasons_of(r)]
    return ranked


def reasons_of(region: Region) -> list[str]:
    """The evidence about one region, in words (without its position in the ranking)."""
    m = region.meta
    out = []
    if "chrome" in m:
        out.append(f"demoted as page chrome: inside {_landmark(str(m['chrome']))}")
    if "no_text" in m:
        empty, _, n = str(m["no_text"]).partition("/")
        out.append(f"demoted: {empty} of its {n} records have no text")
    if "links_only" in m:
        out.append(
            f"demoted: {float(m['links_only']):.0%} of its text is link text, and the page has "
            "more text of its own elsewhere (related links, not the page's records)"
        )
    if "controls" in m:
        out.append(
            f"demoted: {float(m['controls']):.0%} of its text labels form controls (legends, "
            "buttons, checkbox labels), and the page has more text elsewhere (the page's "
            "filters, not its records)"
        )
    if "cards_from" in m:
        out.append(
            f"each of the {m['cards_from']} records found was a row of cards: the records "
            "are the cards"
        )
    if "ugc_evidence" in m and m.get("teaser_posts"):
        out.append(
            f"user posts with headlines: {float(m['ugc_evidence']):.0%} of the records hold "
            "an author and a free-text body; taken because the list extractors found no "
            "list above the main threshold"
        )
    elif "ugc_evidence" in m:
        out.append(
            f"user posts: {float(m['ugc_evidence']):.0%} of the records hold an author or "
            "reply structure and a free-text body, and they are no list of headlines"
        )
    if "agreement" in m and "extractor_confidence" in m:
        out.append(_agreement(region))
    if len(region.records) == 2:
        out.append("only 2 records: a pair is weak evidence of a list")
    terms = m.get("score_terms")
    if terms:
        out.append(_score(terms))
    return out


def _demoted(r: Region) -> bool:
    return any(k in r.meta for k in DEMOTIONS)


def _position(ranked: list[Region], k: int, top: Region | None) -> str:
    r = ranked[k]
    if k == 0:
        if _demoted(r):
            return "ranked first, but demoted: no region on this page escaped a demotion"
        return f"ranked first of {len(ranked)}: the highest score"
    if _demoted(r) and top is not None:
        return f"ranked {k + 1}: after every region that was not demoted"
    first = ranked[0]
    return (
        f"ranked {k + 1}: score {r.score:.1f} below {first.score:.1f} of the first region "
        f"({first.extractor}, {len(first.records)} records)"
    )


def _agreement(region: Region) -> str:
    m = region.meta
    a = float(m["agreement"])
    if m.get("inner_lists"):
        return (
            "records alike but for the length of their inner lists, which STEM cannot "
            f"cut: confidence {float(m['extractor_confidence']):.2f} x 0.75, not halved"
        )
    others = ", ".join(m.get("confirmed_by", [])) or "the other list extractor"
    if a >= 0.999:
        return f"{others} found the same records: confidence kept"
    if a > 0:
        return (
            f"{others} found {a:.0%} of the same records: confidence "
            f"{float(m['extractor_confidence']):.2f} x {0.5 + 0.5 * a:.2f}"
        )
    return "no other extractor found these records: confidence halved"


def _score(t: dict[str, float]) -> str:
    exp = t.get("count_exponent", 1.0)
    count = f"log2(1 + {int(t['records'])} records)" + (f"^{exp:g}" if exp != 1 else "")
    return (
        f"score {t['score']:.1f} = sqrt(confidence {t['confidence']:.2f} x "
        f"{int(t['chars'])} characters of text) x {count} x link factor "
        f"{t['link_factor']:.2f} ({t['link_share']:.0%} of the text in links)"
    )


def _landmark(where: str) -> str:
    if where.startswith("role="):
        return f"an element of role {where[5:]}"
    return f"<{where}>"

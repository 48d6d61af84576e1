"""DCADE's options: the paper's parameters and our switches, with their defaults.

The paper's behaviour is the default wherever the two readings differ, except for the
switches that measured better on the ExAlg development pages (``benchmarks/dcade_templates.py``);
``docs/algorithms/dcade.md`` lists which is which.
"""

from __future__ import annotations

from typing import Any

DEFAULT_OPTIONS: dict[str, Any] = {
    "theta_path": 0.7,  # PathId: Sim(path) > theta (Def. 2)
    "theta_tec": 0.7,  # SimSeqId: simTEC > theta (Def. 3)
    "w_path": 0.5,  # simTEC weights (eq. 3)
    "w_id": 0.25,
    "w_class": 0.25,
    "theta_ot": 0.3,  # support of a frequent pattern (eq. 4)
    "theta_rp": 2,  # RT/RD iff MaxRep > theta_rp
    # smallest MaxRep of a repeat: None = theta_rp + 1 (paper); 2 makes 2-item lists sets
    "repeat_min_maxrep": None,
    "theta_nsd": 0.5,  # NSD bound when no repeat pattern is perfectly regular
    "nsd_adaptive": True,  # theta_NSD = 0 when some RT/RD has NSD == 0 (paper's footnote 2)
    "theta_den": 0.7,  # low-density merging (eq. 7)
    # eq. 7's m: "present" (pages with leaves in the block) or "all" (paper)
    "density_pages": "present",
    # merge a low-density run only when it fills one element ("block": always)
    "density_scope": "container",
    "match_cec": 2,  # eq. 6
    "match_tec": 1,
    "mismatch": -4,
    "gap": -2,  # eq. 5
    # score of a match at nw_weak_level in centre-star/pending alignment (None: paper, off)
    "nw_weak": 0,
    "nw_weak_level": 5,
    "lis": "paper",  # MT chain: "paper" (pairwise LIS) or "exact" (multi-page chain DP)
    "mt_exclude_numeric": True,  # numbers and punctuation never become MT landmarks (paper: off)
    # also try "no split" at the top of a segment (fewest columns wins); off by default:
    # with low-density merging it swallows long lists
    "trial_plain": False,
    # a trial's columns: "aligned" (paper: before record detection) or "output" (TableA
    # columns plus record widths, a dropped extra column counted as the field it needs)
    "trial_cost": "output",
    # a column with one value is template ("literal", paper section 2: its cells have the
    # same text) or only when it reads as a label ("label")
    "single_value_rule": "literal",
    "merge_max_level": 6,  # highest encoding level used by disjunctive merging
    "merge_window": 200,  # disjunctive partners are searched this many columns ahead
    # disjunctive partner: the "first" mergeable one (paper's greedy) or the "best" (lowest level)
    "merge_partner": "best",
    "record_match_levels": (1, 2, 4, 5),  # levels at which RecDetection's match() may hold
    "record_min_score": 0.5,  # eq. 9 score needed to accept the first record boundary
    "record_resync": True,  # re-synchronise the record period over extra columns
    # among equally scored record starts prefer records that fill one element
    "record_tiebreak": True,
    # the extra columns of a record that fold into none of its fields: "fields" of their
    # own, one per code (every leaf stays in some column), or "drop"
    "record_leftovers": "fields",
    # when the record profile is refused, a repeat's occurrence between two that are one
    # RefGap apart is a value, not a record boundary (our reading of section 3.2.2)
    "drop_intruders": True,
    "record_profile": True,  # align all record bodies of a data region together (False: paper)
    "inner_repeats": False,
    # an RT strictly inside an RD of its TECId is data coinciding (False: paper, STs only)
    "remove_false_rt": True,  # mine RT/RD inside one record of a data region (True: paper)
    "link_leaves": True,  # a/@href leaves
    "image_leaves": False,  # img/@src leaves (off: spacer images join URL patterns)
    "max_depth": 60,  # recursion bound of the subsegment splitting (then centre-star)
    "max_cells": 3_000_000,  # largest NW matrix; above it a C-level LCS aligns
    "max_leaves": 20_000,  # leaves kept per page (the rest is ignored, logged)
    "max_cluster_items": 4000,  # distinct paths/structures clustered (more: exact ids only)
}

#: options whose value is one of a few names
_CHOICES: dict[str, tuple[str, ...]] = {
    "density_pages": ("present", "all"),
    "density_scope": ("container", "block"),
    "merge_partner": ("first", "best"),
    "lis": ("paper", "exact"),
    "trial_cost": ("aligned", "output"),
    "record_leftovers": ("fields", "drop"),
}


def resolve_options(options: dict[str, Any]) -> dict[str, Any]:
    """:data:`DEFAULT_OPTIONS` updated with ``options``; unknown names raise ``TypeError``,
    invalid choices ``ValueError``."""
    unknown = set(options) - set(DEFAULT_OPTIONS)
    if unknown:
        raise TypeError(f"unknown DCADE option(s): {', '.join(sorted(unknown))}")
    o = dict(DEFAULT_OPTIONS)
    o.update(options)
    for name, allowed in _CHOICES.items():
        if o[name] not in allowed:
            raise ValueError(f"{name} must be " + " or ".join(f"'{a}'" for a in allowed))
    return o


def repeat_min(opts: dict[str, Any]) -> int:
    """The smallest MaxRep that makes a pattern a repeat (RT/RD) and a run of records a set."""
    rm = opts["repeat_min_maxrep"]
    return int(rm) if rm is not None else int(opts["theta_rp"]) + 1

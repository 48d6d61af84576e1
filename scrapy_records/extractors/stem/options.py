"""STEM's options, its two profiles, and their validation.

Every option is accepted by :meth:`~scrapy_records.extractors.stem.STEMExtractor.extract`
and by :func:`~scrapy_records.extractors.stem.analyze`; an explicit option overrides the
profile's value (``profile``: ``"recommended"``, the default, or ``"paper"``).

Algorithm (paper defaults): ``L`` (100, longest pattern), ``alpha`` (0.6, record validation
rate), ``beta`` (0.6, pattern validation rate), ``min_length`` (2), ``min_frequency`` (2),
``decorative`` (``"paper"``: b, i, u, em; ``"extended"``, ``"none"`` or a set of tags).

Profile switches (paper / recommended):

* ``gap_denominator`` (``"nf"`` / ``"nf"``): ``nf`` (Eq. 5), ``nf_minus_1`` (accepts
  two-record lists) or ``pf`` (Eq. 4);
* ``rotation_mode`` (``"truncate"`` in both; or ``"delete_all_other"``): the tree filter's
  rotation keeps one period of the pattern, or drops the other copies of its root;
* ``recheck_pf`` (off / on): a canonical rotation needs two non-overlapping matches;
* ``strict_case_check`` (off / on): a pattern's roots are one element or siblings;
* ``nested_min_unit`` (1 / 2): shortest unit of a nested repetition (2 keeps table rows);
* ``repetition_postpass`` (off / on): the repetition filter against every DRP, in any order;
* ``chunk_gaps`` (off / on): a gap is cut at the DRP's first identifier, so a page header is
  not swallowed into a gap record;
* ``gap_min_length`` (0 / 4): gap records only for DRPs of at least that many identifiers;
* ``dedupe_regions`` (off / off): drop DRPs whose records lie inside another DRP's;
* ``split_regions`` (off / on): one region per record parent; ``merge_grids`` (off / on):
  except the cells of one table grid;
* ``trim_edges`` (None / 0.5), ``demote_fillers`` (None / 0.25), ``attach_gaps`` (None /
  0.8): the region refinements of :mod:`scrapy_records.extractors.stem.extractor` and
  :mod:`scrapy_records.extractors.stem.records`.

Run time: ``backend`` (``"auto"``: the suffix array's builder), ``align`` (True: field
alignment), ``max_regions`` (5: only the best regions are built; ``None`` for all),
``min_confidence`` (0.05: weaker regions are not reported).
"""

from __future__ import annotations

from typing import Any

from scrapy_records.extractors.stem.sequence import DECORATIVE_EXTENDED, DECORATIVE_PAPER

__all__ = ["PROFILES", "DEFAULTS", "OPTION_NAMES", "resolve_options"]

#: The paper-literal and the recommended settings of the switches (module docstring).
PROFILES: dict[str, dict[str, Any]] = {
    "paper": {
        "gap_denominator": "nf",
        "rotation_mode": "truncate",
        "recheck_pf": False,
        "strict_case_check": False,
        "nested_min_unit": 1,
        "repetition_postpass": False,
        "chunk_gaps": False,
        "gap_min_length": 0,
        "dedupe_regions": False,
        "split_regions": False,
        "merge_grids": False,
        "trim_edges": None,
        "demote_fillers": None,
        "attach_gaps": None,
    },
    "recommended": {
        "gap_denominator": "nf",
        "rotation_mode": "truncate",
        "recheck_pf": True,
        "strict_case_check": True,
        "nested_min_unit": 2,
        "repetition_postpass": True,
        "chunk_gaps": True,
        "gap_min_length": 4,
        "dedupe_regions": False,
        "split_regions": True,
        "merge_grids": True,
        "trim_edges": 0.5,
        "demote_fillers": 0.25,
        "attach_gaps": 0.8,
    },
}

#: The options both profiles share.
DEFAULTS: dict[str, Any] = {
    "L": 100,
    "alpha": 0.6,
    "beta": 0.6,
    "min_length": 2,
    "min_frequency": 2,
    "decorative": "paper",
    "backend": "auto",
    "align": True,
    "max_regions": 5,
    "min_confidence": 0.05,
}
OPTION_NAMES = frozenset(DEFAULTS) | frozenset(PROFILES["paper"]) | {"profile"}

_DECORATIVE_PRESETS = {
    "paper": DECORATIVE_PAPER,
    "extended": DECORATIVE_EXTENDED,
    "none": frozenset(),
}


def resolve_options(options: dict[str, Any]) -> dict[str, Any]:
    """The options over the profile's values over :data:`DEFAULTS` (``None`` values do not
    override); ``decorative`` becomes a frozenset of tag names.

    :raises TypeError: for an unknown option name.
    :raises ValueError: for an unknown profile, preset or mode, or a value out of range.
    """
    unknown = set(options) - OPTION_NAMES
    if unknown:
        raise TypeError(f"stem got unknown option(s): {', '.join(sorted(unknown))}")
    profile = options.get("profile", "recommended")
    if profile not in PROFILES:
        raise ValueError(f"unknown STEM profile {profile!r}; choose from {sorted(PROFILES)}")
    opts = dict(DEFAULTS)
    opts.update(PROFILES[profile])
    opts.update({k: v for k, v in options.items() if v is not None})
    opts["profile"] = profile
    if opts["gap_denominator"] not in ("nf", "nf_minus_1", "pf"):
        raise ValueError(f"unknown gap_denominator {opts['gap_denominator']!r}")
    if opts["rotation_mode"] not in ("truncate", "delete_all_other"):
        raise ValueError(f"unknown rotation_mode {opts['rotation_mode']!r}")
    if not 0 < float(opts["alpha"]) <= 1 or not 0 < float(opts["beta"]) <= 1:
        raise ValueError("alpha and beta must be in (0, 1]")
    if int(opts["L"]) < 2:
        raise ValueError("L must be >= 2")
    deco = opts["decorative"]
    if isinstance(deco, str):
        if deco not in _DECORATIVE_PRESETS:
            raise ValueError(
                f"unknown decorative preset {deco!r} (paper, extended, none, or a set of tags)"
            )
        deco = _DECORATIVE_PRESETS[deco]
    opts["decorative"] = frozenset(deco)
    return opts

"""The benchmark gate: numbers a run is compared with, kept in ``benchmarks/baseline.json``.

A benchmark that takes ``--baseline`` prints each metric next to its baseline value and
fails (exit status 1) when an accuracy metric dropped by more than ``TOLERANCE``; costs are
printed but never fail a run (this machine is shared, its timings move by +-10%).
``--write-baseline`` stores the run's numbers as the new baseline, a change to commit with
the change that earned them.

The file maps ``"<benchmark>/<extractor>/<dataset>"`` to ``{metric: value}``.
"""

from __future__ import annotations

import json
from pathlib import Path

DEFAULT = Path(__file__).resolve().parent / "baseline.json"
#: an accuracy metric may drop this much before a run fails (rounding, tie-breaking)
TOLERANCE = 0.005
#: metrics where lower is better, reported only
COSTS = ("x_lxml", "mean_x")


def load(path: str | Path = DEFAULT) -> dict[str, dict[str, float]]:
    p = Path(path)
    return json.loads(p.read_text()) if p.exists() else {}


def compare(current: dict[str, dict[str, float]], path: str | Path = DEFAULT) -> int:
    """Print every metric against the baseline; return how many accuracy metrics dropped
    by more than :data:`TOLERANCE`."""
    base = load(path)
    worse = 0
    print(f"\n# against {path}")
    for key, metrics in sorted(current.items()):
        old = base.get(key)
        if old is None:
            print(f"{key:<40} (no baseline)")
            continue
        cells = []
        for name, value in metrics.items():
            if name not in old:
                continue
            delta = value - old[name]
            flag = ""
            if name not in COSTS and delta < -TOLERANCE:
                flag = " WORSE"
                worse += 1
            cells.append(f"{name} {value:.3f} ({delta:+.3f}){flag}")
        print(f"{key:<40} " + ", ".join(cells))
    print(f"# {worse} metric(s) worse than the baseline" if worse else "# no metric worse")
    return worse


def write(current: dict[str, dict[str, float]], path: str | Path = DEFAULT) -> None:
    """Merge the run's metrics into the baseline file (other keys are kept)."""
    base = load(path)
    base.update({k: {m: round(v, 4) for m, v in ms.items()} for k, ms in current.items()})
    Path(path).write_text(json.dumps(dict(sorted(base.items())), indent=1) + "\n")
    print(f"# wrote {len(current)} entries to {path}")

#!/usr/bin/python3
"""The series of `kvlab gate --history`: one figure per cell, a panel per timing (and per counter
that changed), the values run by run, the levels between change points as steps, and each change
marked where it began.

Usage: /usr/bin/python3 plot_trend.py TREND-INPUT.json OUTDIR [MAX_PLOTS]

TREND-INPUT.json is written by kvlab gate (gate/history.h, HistoryPlotInput): the runs, and per
cell its metrics' values, with the change points kvlab found (E-divisive means, its own analysis
library). Nothing here computes a statistic. Writes OUTDIR/trend-<cell>.png and prints their
names, one per line. Exit status: 0 done; 2 bad arguments or input; 3 matplotlib missing.
"""

import json
import math
import os
import sys

try:
    import matplotlib

    matplotlib.use("Agg")  # no display
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator
except ImportError as e:
    print("plot_trend: matplotlib is not available to %s (%s); install python3-matplotlib and "
          "run with /usr/bin/python3" % (sys.executable, e), file=sys.stderr)
    sys.exit(3)

WORSE = "#c0392b"
BETTER = "#1e8449"
NEUTRAL = "#555555"
LEVEL = "#2e86c1"


def slug(text):
    s = "".join(c if c.isalnum() else "-" for c in text.lower())
    while "--" in s:
        s = s.replace("--", "-")
    return s.strip("-")[:80]


def scale_of(unit, values):
    """Times in the unit that fits the series (µs rather than 15700 ns)."""
    if unit != "ns" or not values:
        return 1.0, unit
    top = max(abs(v) for v in values)
    for factor, name in ((1e9, "s"), (1e6, "ms"), (1e3, "µs")):
        if top >= factor:
            return factor, name
    return 1.0, "ns"


def levels(metric, n_values):
    """The segment medians between changes, as (first index, last index, level) by position."""
    runs = metric["runs"]
    changes = sorted(metric["changes"], key=lambda c: c["run"])
    if not changes:
        return []
    out = []
    start = 0
    for c in changes:
        pos = runs.index(c["run"])
        out.append((start, pos - 1, c["before"]))
        start = pos
    out.append((start, n_values - 1, changes[-1]["after"]))
    return out


def shown(metric):
    """Timings always; a counter when it changed (a flat exact counter says nothing)."""
    return not metric["counter"] or bool(metric["changes"])


def plot_cell(cell, runs, path):
    metrics = [m for m in cell["metrics"] if shown(m)]
    if not metrics:
        return False
    cols = min(3, len(metrics))
    rows = int(math.ceil(len(metrics) / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(4.6 * cols, 3.0 * rows), squeeze=False)
    for i, m in enumerate(metrics):
        ax = axes[i // cols][i % cols]
        factor, unit = scale_of(m["unit"], m["values"])
        x = m["runs"]
        y = [v / factor for v in m["values"]]
        ax.plot([r + 1 for r in x], y, marker="o", markersize=3, linewidth=0.8, color=NEUTRAL)
        for first, last, level in levels(m, len(x)):
            ax.hlines(level / factor, x[first] + 1 - 0.4, x[last] + 1 + 0.4, colors=LEVEL,
                      linewidth=2)
        for c in m["changes"]:
            color = WORSE if c["worse"] and c["large"] else BETTER if c["large"] else NEUTRAL
            ax.axvline(c["run"] + 0.5, color=color, linestyle="--", linewidth=1)
            label = "%+.1f%%" % (100 * (c["after"] / c["before"] - 1)) if c["before"] else "new"
            ax.annotate(label, (c["run"] + 0.6, ax.get_ylim()[1]), color=color, fontsize=7,
                        va="top")
        ax.set_title(m["metric"], fontsize=9)
        ax.set_xlabel("run", fontsize=8)
        ax.set_ylabel("%s (%s)" % ("per call" if m["counter"] else "median",
                                   unit or "value"), fontsize=8)
        ax.tick_params(labelsize=7)
        ax.set_xlim(0.5, len(runs) + 0.5)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    for j in range(len(metrics), rows * cols):
        axes[j // cols][j % cols].axis("off")
    first, last = runs[0], runs[-1]
    fig.suptitle(cell["name"], fontsize=10)
    fig.text(0.01, 0.005, "kvlab gate --history · %d runs, %s (%s) .. %s (%s) · steps: levels "
                          "between change points (E-divisive means)" % (
                              len(runs), first["name"], first["commit"] or "?", last["name"],
                              last["commit"] or "?"), fontsize=6, color=NEUTRAL)
    fig.tight_layout(rect=(0, 0.03, 1, 0.95))
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return True


def main(argv):
    if len(argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 2
    try:
        with open(argv[1]) as f:
            data = json.load(f)
        limit = int(argv[3]) if len(argv) == 4 else 40
    except (OSError, ValueError) as e:
        print("plot_trend: cannot read %s: %s" % (argv[1], e), file=sys.stderr)
        return 2
    if data.get("schema") != "kvlab-trend-plot":
        print("plot_trend: %s is not a kvlab trend plot input" % argv[1], file=sys.stderr)
        return 2
    os.makedirs(argv[2], exist_ok=True)
    names = set()
    for cell in data["cells"][:limit]:
        name = "trend-%s.png" % slug(cell["name"])
        while name in names:
            name = name[:-4] + "-x.png"
        if plot_cell(cell, data["runs"], os.path.join(argv[2], name)):
            names.add(name)
            print(name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

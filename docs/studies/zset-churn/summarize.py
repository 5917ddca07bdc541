#!/usr/bin/python3
"""Summarizes zset-churn results (docs/studies/zset-churn/study.md): per cell and probe command,
the no-churn cost, and the median over repetitions of each sample's cost relative to it.

usage: summarize.py RESULT.json [RESULT.json ...] [--every N]   (prints Markdown)
"""
import json
import statistics
import sys
from collections import defaultdict

SKIPPED = "rocksdb.internal_delete_skipped_count"


def median_range(values):
    values = [v for v in values if v is not None]
    if not values:
        return "-"
    m = statistics.median(values)
    return f"{m:.2f} [{min(values):.2f}-{max(values):.2f}]"


def main(argv):
    every = 1
    files = []
    args = iter(argv)
    for a in args:
        if a == "--every":
            every = int(next(args))
        else:
            files.append(a)
    # (cell, command) -> list over repetitions of the probe entry
    series = defaultdict(list)
    cells = []
    for path in files:
        with open(path) as f:
            result = json.load(f)
        if result.get("schema") != "kvlab-bench-result" or result.get("partial"):
            sys.exit(f"{path}: not a complete kvlab bench result")
        for w in result["workloads"]:
            for run in w["runs"]:
                cell = f'{run["backend"]} {run["profile_label"]}'.strip()
                if cell not in cells:
                    cells.append(cell)
                for probe in run.get("probes", []):
                    series[(cell, probe["command"])].append(probe)
    commands = sorted({c for _, c in series})
    print("| cell | command | reps | no-churn p50 µs | p50 ratio at the end | largest median p50 ratio "
          "(at) | skipped tombstones per call: start, end |")
    print("|---|---|---|---|---|---|---|")
    for cell in cells:
        for command in commands:
            reps = series.get((cell, command))
            if not reps:
                continue
            n = min(len(r["at"]) for r in reps)
            at = reps[0]["at"][:n]
            medians = [statistics.median(r["p50_ratio"][i] for r in reps) for i in range(n)]
            worst = max(range(n), key=lambda i: medians[i])
            skipped = [r["counters_per_call"].get(SKIPPED) for r in reps]
            skip_text = "-"
            if all(s is not None for s in skipped):
                skip_text = (f"{statistics.median(s[0] for s in skipped):.0f}, "
                             f"{statistics.median(s[n - 1] for s in skipped):.0f}")
            print(f"| {cell} | {command} | {len(reps)} | "
                  f"{median_range([r['p50_ns'][0] / 1000 for r in reps])} | "
                  f"{median_range([r['p50_ratio'][n - 1] for r in reps])} | "
                  f"{medians[worst]:.2f} ({at[worst]}) | {skip_text} |")
    print()
    for command in commands:
        print(f"{command}: median p50 ratio to the no-churn sample, by updates done\n")
        present = [c for c in cells if (c, command) in series]
        print("| updates | " + " | ".join(present) + " |")
        print("|---|" + "---|" * len(present))
        n = min(min(len(r["at"]) for r in series[(c, command)]) for c in present)
        at = series[(present[0], command)][0]["at"]
        for i in range(n):
            if i % every and i != n - 1:
                continue
            row = []
            for c in present:
                reps = series[(c, command)]
                row.append(f'{statistics.median(r["p50_ratio"][i] for r in reps):.2f}')
            print(f"| {at[i]} | " + " | ".join(row) + " |")
        print()


if __name__ == "__main__":
    main(sys.argv[1:])

#!/usr/bin/python3
"""Plots probes.json (or a whole zset-churn result): ZRANGE 0 9's median p50 over its no-churn
p50 by updates done, per cell, and RocksDB's tombstones skipped per call.

usage: plot.py RESULT.json OUT.png
"""
import json
import statistics
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SKIPPED = "rocksdb.internal_delete_skipped_count"

result = json.load(open(sys.argv[1]))
ratios = defaultdict(list)
skipped = {}
at = {}
for w in result["workloads"]:
    for run in w["runs"]:
        for p in run.get("probes", []):
            if p["command"] != "ZRANGE":
                continue
            ratios[run["backend"]].append(p["p50_ratio"])
            at[run["backend"]] = p["at"]
            if SKIPPED in p["counters_per_call"]:
                skipped[run["backend"]] = p["counters_per_call"][SKIPPED]
fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 8), sharex=True)
for cell, reps in ratios.items():
    n = min(len(r) for r in reps)
    top.plot([a / 1000 for a in at[cell][:n]],
             [statistics.median(r[i] for r in reps) for i in range(n)], label=cell)
top.axhline(1.5, color="grey", linestyle="--", linewidth=1)
top.set_ylabel("ZRANGE 0 9 p50 / no-churn p50 (median)")
top.legend(fontsize=8)
for cell, values in skipped.items():
    bottom.plot([a / 1000 for a in at[cell][:len(values)]], values, label=cell)
bottom.set_ylabel("RocksDB tombstones skipped per ZRANGE")
bottom.set_xlabel("score updates done (thousands)")
bottom.legend(fontsize=8)
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=80)

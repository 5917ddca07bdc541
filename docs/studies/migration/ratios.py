#!/usr/bin/python3
"""Latency ratios of a `kvlab bench --migration-from` result, side by side.

For each workload, backend, run phase and command: every cell's p50, p99 and max (median over
the repetitions, [min-max]), and its p50 and p99 ratio to the plain cell of the same versions, taken within each
repetition (the cells of one repetition ran back to back) and summarised as the median ratio
[min-max] over the repetitions. KV operations per call are exact (the last repetition's).

Usage: ratios.py RESULT.json[.gz]  (prints Markdown)
"""
import gzip
import json
import statistics
import sys


def label_base(label):
    """The plain cell's label of a migration cell ("hkvrocks half-hardb keep" -> "hkvrocks")."""
    return label.split(" half-")[0]


def fmt(v):
    return f"{v:.3g}" if v < 100 else f"{v:.0f}"


def summary(values):
    if not values:
        return "-"
    return f"{fmt(statistics.median(values))} [{fmt(min(values))}–{fmt(max(values))}]"


def kv_text(kv):
    if not kv:
        return "-"
    parts = [f"{k}={fmt(v)}" for k, v in kv.items()
             if v and not k.startswith("bytes")]
    return " ".join(parts) if parts else "none"


def main(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        result = json.load(f)
    for workload in result["workloads"]:
        print(f"### {workload['name']}\n")
        cells = {}  # (backend, label) -> {repetition: run}
        for run in workload["runs"]:
            if run.get("error"):
                continue
            key = (run["backend"], run["profile_label"])
            cells.setdefault(key, {})[run["repetition"]] = run
        phases = []
        for runs in cells.values():
            for run in runs.values():
                for p in run["phases"]:
                    if p["name"] not in phases and p["name"] != "load":
                        phases.append(p["name"])
        print("| phase | command | cell | p50 µs | p99 µs | max µs | p50 / plain cell "
              "| p99 / plain cell | KV per call |")
        print("|---|---|---|---|---|---|---|---|---|")
        for phase in phases:
            commands = sorted({c for runs in cells.values() for run in runs.values()
                               for p in run["phases"] if p["name"] == phase
                               for c in p["commands"]})
            for command in commands:
                for (backend, label), runs in cells.items():
                    base = cells.get((backend, label_base(label)), {})

                    def stat(run, q):
                        for p in run["phases"]:
                            if p["name"] == phase and command in p["commands"]:
                                return p["commands"][command]["latency_ns"][q] / 1000.0
                        return None

                    p50 = [v for v in (stat(r, "p50") for r in runs.values()) if v is not None]
                    p99 = [v for v in (stat(r, "p99") for r in runs.values()) if v is not None]
                    mx = [v for v in (stat(r, "max") for r in runs.values()) if v is not None]
                    ratios50, ratios99 = [], []
                    for rep, run in runs.items():
                        if rep in base and base[rep] is not run:
                            a, b = stat(run, "p50"), stat(base[rep], "p50")
                            if a and b:
                                ratios50.append(a / b)
                            a, b = stat(run, "p99"), stat(base[rep], "p99")
                            if a and b:
                                ratios99.append(a / b)
                    last = runs[max(runs)]
                    kv = None
                    for p in last["phases"]:
                        if p["name"] == phase and command in p["commands"]:
                            kv = p["commands"][command].get("kv_per_call")
                    is_base = label_base(label) == label
                    print(f"| {phase} | {command} | {backend} {label} | {summary(p50)} | "
                          f"{summary(p99)} | {summary(mx)} | {'(plain)' if is_base else summary(ratios50) + '×'} | "
                          f"{'(plain)' if is_base else summary(ratios99) + '×'} | {kv_text(kv)} |")
        print()


if __name__ == "__main__":
    main(sys.argv[1])

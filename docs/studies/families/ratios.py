#!/usr/bin/python3
"""The three families side by side, from a `kvlab study` bench result.

For each workload, backend and command of the run phase: every version's p50 and p99 (median
over the repetitions [min-max]), its p50 ratio to the reference version (default: Camellia's v0,
"h0" or "z0") taken within each repetition (the cells of one repetition ran back to back) as
the median ratio [min-max], and its exact KV reads and writes per call. A ratio whose [min-max]
range holds 1 is no difference.

Usage: ratios.py STUDY-BENCH.json[.gz] [REFERENCE-LABEL]  (prints Markdown)
"""
import gzip
import json
import statistics
import sys


def fmt(v):
    return f"{v:.3g}" if v < 100 else f"{v:.0f}"


def summary(values):
    if not values:
        return "-"
    return f"{fmt(statistics.median(values))} [{fmt(min(values))}–{fmt(max(values))}]"


def kv_reads(kv):
    return sum(kv.get(k, 0) for k in ("gets", "multiget_keys", "seeks", "nexts", "prevs"))


def kv_writes(kv):
    return sum(kv.get(k, 0) for k in ("puts", "deletes", "range_deletes", "batch_records"))


def main(path, reference):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        result = json.load(f)
    for workload in result["workloads"]:
        print(f"### {workload['name']}\n")
        cells = {}  # (backend, label) -> {repetition: run}
        for run in workload["runs"]:
            if run.get("error"):
                continue
            cells.setdefault((run["backend"], run["profile_label"]), {})[run["repetition"]] = run
        labels = []
        for (_, label) in cells:
            if label not in labels:
                labels.append(label)
        ref = reference or labels[0]
        print(f"Ratios against {ref}, within each repetition.\n")
        print("| backend | command | version | p50 µs | p99 µs | p50 / " + ref +
              " | KV reads/call | KV writes/call |")
        print("|---|---|---|---|---|---|---:|---:|")
        backends = []
        for (backend, _) in cells:
            if backend not in backends:
                backends.append(backend)
        for backend in backends:
            commands = sorted({c for (b, _), runs in cells.items() if b == backend
                               for run in runs.values() for p in run["phases"]
                               if p["name"] == "run" for c in p["commands"]})
            for command in commands:
                for label in labels:
                    runs = cells.get((backend, label), {})
                    base = cells.get((backend, ref), {})

                    def stat(run, q):
                        for p in run["phases"]:
                            if p["name"] == "run" and command in p["commands"]:
                                return p["commands"][command]["latency_ns"][q] / 1000.0
                        return None

                    p50 = [v for v in (stat(r, "p50") for r in runs.values()) if v is not None]
                    p99 = [v for v in (stat(r, "p99") for r in runs.values()) if v is not None]
                    ratios = []
                    for rep, run in runs.items():
                        if rep in base:
                            a, b = stat(run, "p50"), stat(base[rep], "p50")
                            if a and b:
                                ratios.append(a / b)
                    kv = None
                    for p in runs[max(runs)]["phases"] if runs else []:
                        if p["name"] == "run" and command in p["commands"]:
                            kv = p["commands"][command].get("kv_per_call")
                    ratio = "(reference)" if label == ref else summary(ratios) + "×"
                    reads = fmt(kv_reads(kv)) if kv else "-"
                    writes = fmt(kv_writes(kv)) if kv else "-"
                    print(f"| {backend} | {command} | {label} | {summary(p50)} | {summary(p99)} "
                          f"| {ratio} | {reads} | {writes} |")
        print()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None)

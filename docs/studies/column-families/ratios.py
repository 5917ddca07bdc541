#!/usr/bin/python3
"""Column families against one keyspace, side by side, from one `kvlab bench` result.

The result's matrix has backend columns NAME and NAME:cf (`--backends rocksdb,rocksdb:cf`). For
each workload, backend, version, run phase and command: the p50 and p99 of the plain cell and
of the :cf cell (medians over the repetitions, [min-max]) and the :cf/plain ratio of each,
taken within each repetition (the cells of one repetition ran back to back) and summarised as
the median ratio [min-max]. Then per cell: run throughput, disk bytes after Flush and, where the
backend reports them, the physical counters per call. KV operations per call are exact and the
same in both columns (the encodings do not see the key spaces); the last column checks it.

Usage: ratios.py RESULT.json[.gz] ...  (prints Markdown)
"""
import gzip
import json
import statistics
import sys


def fmt(v):
    return f"{v:.3g}" if abs(v) < 100 else f"{v:.0f}"


def summary(values):
    if not values:
        return "-"
    return f"{fmt(statistics.median(values))} [{fmt(min(values))}–{fmt(max(values))}]"


def verdict(ratios):
    """A ratio whose whole range is on one side of 1 is a difference; else none."""
    if not ratios:
        return ""
    if min(ratios) > 1:
        return " (slower)"
    if max(ratios) < 1:
        return " (faster)"
    return " (no difference)"


def command_stats(run, phase, command):
    for p in run["phases"]:
        if p["name"] == phase and command in p["commands"]:
            return p["commands"][command]
    return None


def main(paths):
    for path in paths:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt") as f:
            result = json.load(f)
        for workload in result["workloads"]:
            print(f"### {workload['name']}\n")
            cells = {}  # (backend, label) -> {repetition: run}
            for run in workload["runs"]:
                if run.get("error"):
                    continue
                cells.setdefault((run["backend"], run["profile_label"]), {})[
                    run["repetition"]] = run
            pairs = [(b, label) for (b, label) in cells if not b.endswith(":cf")
                     and (b + ":cf", label) in cells]
            print("| phase | command | backend | version | p50 µs plain | p50 µs :cf | "
                  "p50 :cf/plain | p99 :cf/plain | KV per call equal |")
            print("|---|---|---|---|---|---|---|---|---|")
            for backend, label in pairs:
                plain, spaced = cells[(backend, label)], cells[(backend + ":cf", label)]
                any_run = next(iter(plain.values()))
                for p in any_run["phases"]:
                    if p["name"] == "load":
                        continue
                    for command in sorted(p["commands"]):
                        p50p, p50c, r50, r99 = [], [], [], []
                        kv_equal = True
                        for rep, run in plain.items():
                            a = command_stats(run, p["name"], command)
                            b = command_stats(spaced.get(rep, {"phases": []}), p["name"],
                                              command)
                            if a is None or b is None:
                                continue
                            p50p.append(a["latency_ns"]["p50"] / 1000.0)
                            p50c.append(b["latency_ns"]["p50"] / 1000.0)
                            r50.append(b["latency_ns"]["p50"] / a["latency_ns"]["p50"])
                            r99.append(b["latency_ns"]["p99"] / a["latency_ns"]["p99"])
                            kv_equal = kv_equal and a.get("kv_per_call") == b.get("kv_per_call")
                        print(f"| {p['name']} | {command} | {backend} | {label} | "
                              f"{summary(p50p)} | {summary(p50c)} | "
                              f"{summary(r50)}{verdict(r50)} | {summary(r99)}{verdict(r99)} | "
                              f"{'yes' if kv_equal else 'NO'} |")
            print()
            print("| backend | version | run ops/s plain | run ops/s :cf | ops/s :cf/plain | "
                  "data MiB plain | data MiB :cf |")
            print("|---|---|---|---|---|---|---|")
            for backend, label in pairs:
                plain, spaced = cells[(backend, label)], cells[(backend + ":cf", label)]

                def ops(run):
                    for p in run["phases"]:
                        if p["name"] != "load" and p.get("throughput_per_s"):
                            return p["throughput_per_s"]
                    return None

                def mib(run):
                    b = run.get("disk_bytes")
                    return b / 2**20 if b is not None else None

                op_p = [v for v in (ops(r) for r in plain.values()) if v]
                op_c = [v for v in (ops(r) for r in spaced.values()) if v]
                ratios = [ops(spaced[rep]) / ops(run) for rep, run in plain.items()
                          if rep in spaced and ops(run) and ops(spaced[rep])]
                mb_p = [v for v in (mib(r) for r in plain.values()) if v is not None]
                mb_c = [v for v in (mib(r) for r in spaced.values()) if v is not None]
                print(f"| {backend} | {label} | {summary(op_p)} | {summary(op_c)} | "
                      f"{summary(ratios)}{verdict([1 / r for r in ratios])} | "
                      f"{summary(mb_p)} | {summary(mb_c)} |")
            print()


if __name__ == "__main__":
    main(sys.argv[1:])

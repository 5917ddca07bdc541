#!/usr/bin/python3
"""The reclaim study's tables and plot, from `kvlab bench --reclaim` results.

Usage: plot.py RESULT.json[.gz] ... [-o DIR]

Prints, per workload, backend and mechanism, medians [min-max] over repetitions: rounds, records
reclaimed per second of the mechanism's work, the foreground p50 and p99 (and the p99 over the
same repetition's reclaim=none cell: a ratio taken within one repetition, so the drift of the
shared machine between repetitions cancels), the garbage left at the end, and the disk at the
end and at its peak (data and log files). Writes DIR/disk-over-time.png (default: beside the
first result): the store's bytes on disk against time, one panel per workload and backend, one line per mechanism and
repetition.
"""
import argparse
import gzip
import json
import os
import statistics
import sys

MIB = 1 << 20


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def median_range(values, fmt="{:.3g}"):
    values = [v for v in values if v is not None]
    if not values:
        return "-"
    m = fmt.format(statistics.median(values))
    if len(values) == 1:
        return m
    return f"{m} [{fmt.format(min(values))}–{fmt.format(max(values))}]"


def cells(documents):
    """(workload, backend, profile without the reclaim part, mechanism) -> runs."""
    out = {}
    for doc in documents:
        for w in doc["workloads"]:
            for run in w["runs"]:
                r = run.get("reclaim")
                if r is None or run.get("error"):
                    continue
                base = run["profile_label"].replace("reclaim=" + r["mechanism"], "").strip()
                key = (w["name"], run["backend"], base, r["mechanism"])
                out.setdefault(key, []).append(run)
    return out


def disk(sample):
    """MiB of the store's files: data and log (RocksDB keeps what it has not flushed in its WAL)."""
    return (sample["disk_bytes"] + sample["disk_log_bytes"]) / MIB


def table(groups):
    print("| workload | cell | mechanism | rounds | reclaimed/s | p50 µs | p99 µs | read p99 µs | "
          "p99 / none (same rep) | garbage records after the drain | disk MiB at end | "
          "disk MiB peak |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for key in sorted(groups, key=lambda k: (k[0], k[1], k[2], ORDER.get(k[3], 9))):
        workload, backend, base, mechanism = key
        runs = groups[key]
        none = {r["repetition"]: r for r in groups.get((workload, backend, base, "none"), [])}
        ratios = [r["reclaim"]["foreground"]["p99_us"] /
                  none[r["repetition"]]["reclaim"]["foreground"]["p99_us"]
                  for r in runs if r["repetition"] in none and mechanism != "none"]
        disk_end = [disk(r["reclaim"]["timeline"][-1]) for r in runs]
        disk_peak = [max(disk(s) for s in r["reclaim"]["timeline"]) for r in runs]
        persistent = not backend.startswith("memory")
        read_p99 = [r["reclaim"]["foreground"]["ops"].get("read", {}).get("p99_us") for r in runs]
        print(f"| {workload} | {backend} {base} | {mechanism} | "
              f"{median_range([r['reclaim']['rounds'] for r in runs], '{:.0f}')} | "
              f"{median_range([r['reclaim']['records_per_second'] for r in runs])} | "
              f"{median_range([r['reclaim']['foreground']['p50_us'] for r in runs])} | "
              f"{median_range([r['reclaim']['foreground']['p99_us'] for r in runs])} | "
              f"{median_range(read_p99)} | "
              f"{'(baseline)' if mechanism == 'none' else median_range(ratios, '{:.2f}')} | "
              f"{median_range([(r['reclaim']['garbage_end'] or {}).get('records') for r in runs], '{:.0f}')} | "
              f"{median_range(disk_end, '{:.2f}') if persistent else '-'} | "
              f"{median_range(disk_peak, '{:.2f}') if persistent else '-'} |")


ORDER = {"none": 0, "scan": 1, "compaction": 2, "ttl-index": 3}
COLORS = {"none": "#7f7f7f", "scan": "#1f77b4", "compaction": "#d62728", "ttl-index": "#2ca02c"}


def plot(groups, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    panels = sorted({(k[0], k[1], k[2]) for k in groups if not k[1].startswith("memory")})
    if not panels:
        print("no persistent cell: no plot", file=sys.stderr)
        return
    cols = 2
    rows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(6 * cols, 3.2 * rows), squeeze=False)
    for ax, (workload, backend, base) in zip(axes.flat, panels):
        for mechanism in sorted({k[3] for k in groups}, key=lambda m: ORDER.get(m, 9)):
            for i, run in enumerate(groups.get((workload, backend, base, mechanism), [])):
                t = [s["t"] for s in run["reclaim"]["timeline"]]
                d = [disk(s) for s in run["reclaim"]["timeline"]]
                ax.plot(t, d, color=COLORS.get(mechanism, "black"), alpha=0.8, linewidth=1,
                        label=mechanism if i == 0 else None)
        ax.set_title(f"{workload}, {backend} {base}", fontsize=9)
        ax.set_xlabel("seconds since the load ended")
        ax.set_ylabel("MiB on disk (data + log)")
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    print(f"plot: {path}", file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="+")
    parser.add_argument("-o", "--out", help="directory of the plot")
    args = parser.parse_args()
    groups = cells([load(p) for p in args.results])
    if not groups:
        sys.exit("no run of the reclaim axis in these results (kvlab bench --reclaim)")
    table(groups)
    out = args.out or os.path.dirname(os.path.abspath(args.results[0]))
    plot(groups, os.path.join(out, "disk-over-time.png"))


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Plots of a `kvlab bench` result (docs/results-schema.md).

Usage: /usr/bin/python3 reports/plot_bench.py RESULT.json PREFIX

Writes PREFIX-throughput.png, PREFIX-latency.png, PREFIX-sweep-<type>.png and PREFIX-rtt.png
(each only when the result has the data), and prints "wrote <file>" for each. Times are
medians across repetitions; KV steps per call are exact.

Run it with Debian's /usr/bin/python3 and python3-matplotlib (scripts/bootstrap installs it):
the python3 first on PATH may be a pyenv without Debian's packages. Exit status: 0 done,
2 bad arguments or an unreadable result, 3 matplotlib missing.
"""

import json
import math
import statistics
import sys

try:
    import matplotlib

    matplotlib.use("Agg")  # no display needed
    import matplotlib.pyplot as plt
except ImportError as e:
    print(f"plot_bench: matplotlib is not available to {sys.executable} ({e}); "
          "install python3-matplotlib and run with /usr/bin/python3", file=sys.stderr)
    sys.exit(3)

SCHEMA = "kvlab-bench-result"
SCHEMA_VERSIONS = (1, 2)  # 1 is read by upgrading it to 2's shape (docs/results-schema.md)


def _pair_profile(entry):
    """Schema 1's hash_version/zset_version as schema 2's profile and label."""
    profile, parts = {}, []
    for member, type_name, letter in (("hash_version", "hash", "h"), ("zset_version", "zset", "z")):
        if entry.get(member) is not None:
            profile[type_name] = str(entry[member])
            parts.append(f"{letter}{entry[member]}")
    return profile, " ".join(parts)


def upgrade(result):
    """Rewrites a schema 1 result into schema 2's shape, as ReadResultFile does."""
    if result.get("schema_version") != 1:
        return result
    for w in result.get("workloads", []):
        for run in w.get("runs", []):
            run["profile"], run["profile_label"] = _pair_profile(run)
    for p in result.get("sweeps", []):
        p["profile"], p["profile_label"] = _pair_profile(p)
    for g in result.get("growth", []):
        g["version"] = str(g.get("version"))
    result["schema_version"] = 2
    return result


def version_color(result, type_name, version):
    """The registry's colour of a version (context.encodings), or None (matplotlib picks)."""
    encodings = result.get("context", {}).get("encodings", {})
    for row in encodings.get(type_name, {}).get("versions", []):
        if row.get("name") == version:
            return row.get("color")
    return None


def cell_label(run):
    parts = [run.get("backend", "?")]
    if run.get("target") == "resp":
        parts[0] = "resp " + parts[0]
    if run.get("profile_label"):
        parts.append(run["profile_label"])
    return " ".join(parts)


def group_runs(runs):
    """Runs by cell label, in first-appearance order (repetitions together)."""
    groups = {}
    for run in runs:
        groups.setdefault(cell_label(run), []).append(run)
    return groups


def phase(run, name):
    for p in run.get("phases", []):
        if p.get("name") == name:
            return p
    return None


def first_run_phase(workload):
    phases = workload.get("definition", {}).get("run", [])
    return phases[0].get("name", "run") if phases else None


def grid(n):
    cols = min(3, max(1, n))
    rows = math.ceil(n / cols)
    return rows, cols


def save(fig, path):
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print(f"wrote {path}")


def plot_throughput(result, prefix):
    workloads = [w for w in result.get("workloads", []) if w.get("runs")]
    if not workloads:
        return
    rows, cols = grid(len(workloads))
    fig, axes = plt.subplots(rows, cols, figsize=(5 * cols, 3.6 * rows), squeeze=False)
    for ax, w in zip(axes.flat, workloads):
        name = first_run_phase(w)
        labels, medians, lows, highs = [], [], [], []
        for label, runs in group_runs(w["runs"]).items():
            values = [phase(r, name).get("throughput_per_s", 0) for r in runs if phase(r, name)]
            if not values:
                continue
            m = statistics.median(values)
            labels.append(label)
            medians.append(m)
            lows.append(m - min(values))
            highs.append(max(values) - m)
        ax.bar(range(len(labels)), medians, yerr=[lows, highs], capsize=3, color="#4c72b0")
        positive = [m for m in medians if m > 0]
        if positive and max(positive) > 100 * min(positive):
            ax.set_yscale("log")  # e.g. HLEN with and without a count: orders of magnitude
        ax.set_xticks(range(len(labels)))
        ax.set_xticklabels(labels, rotation=45, ha="right", fontsize=8)
        ax.set_title(f"{w.get('name')} ({name})", fontsize=10)
        ax.set_ylabel("ops/s (median, min-max)")
    for ax in list(axes.flat)[len(workloads):]:
        ax.axis("off")
    save(fig, f"{prefix}-throughput.png")


def plot_latency(result, prefix):
    workloads = [w for w in result.get("workloads", []) if w.get("runs")]
    if not workloads:
        return
    rows, cols = grid(len(workloads))
    fig, axes = plt.subplots(rows, cols, figsize=(5 * cols, 3.8 * rows), squeeze=False)
    for ax, w in zip(axes.flat, workloads):
        name = first_run_phase(w)
        groups = group_runs(w["runs"])
        commands = sorted({c for runs in groups.values() for r in runs
                           for c in (phase(r, name) or {}).get("commands", {})})
        width = 0.8 / max(1, len(groups))
        for i, (label, runs) in enumerate(groups.items()):
            p99 = []
            p50 = []
            for c in commands:
                stats = [phase(r, name)["commands"][c]["latency_ns"] for r in runs
                         if phase(r, name) and c in phase(r, name).get("commands", {})]
                p50.append(statistics.median(s["p50"] for s in stats) / 1000 if stats else 0)
                p99.append(statistics.median(s["p99"] for s in stats) / 1000 if stats else 0)
            xs = [x + i * width for x in range(len(commands))]
            bars = ax.bar(xs, p99, width, alpha=0.35)
            ax.bar(xs, p50, width, color=bars.patches[0].get_facecolor()[:3] if bars.patches
                   else None, label=label)
        ax.set_xticks([x + 0.4 - width / 2 for x in range(len(commands))])
        ax.set_xticklabels(commands, fontsize=7, rotation=20, ha="right")
        ax.set_yscale("log")
        ax.set_ylabel("µs: p50 (solid), p99 (light)")
        ax.set_title(f"{w.get('name')} ({name})", fontsize=10)
        ax.legend(fontsize=6)
    for ax in list(axes.flat)[len(workloads):]:
        ax.axis("off")
    save(fig, f"{prefix}-latency.png")


def plot_sweeps(result, prefix):
    growth = result.get("growth", [])
    for kind in sorted({g.get("type") for g in growth}):
        series = [g for g in growth if g.get("type") == kind]
        probes = []
        for g in series:
            key = (g["probe"], g["command"])
            if key not in probes:
                probes.append(key)
        rows, cols = grid(len(probes))
        fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.2 * rows), squeeze=False)
        for ax, (probe, command) in zip(axes.flat, probes):
            twin = ax.twinx()
            kv_drawn = set()
            for g in series:
                if (g["probe"], g["command"]) != (probe, command):
                    continue
                version = f"v{g['version']}"
                if g.get("cache", "none") != "none":
                    version += " " + g["cache"]
                if version not in kv_drawn:  # counts are the same on every backend
                    kv_drawn.add(version)
                    # KV steps plus Redis-tier commands: the whole cost of a tier version.
                    ax.plot(g["sizes"], g.get("cost_steps_per_call", g["kv_steps_per_call"]),
                            color=version_color(result, g["type"], g["version"]) or "black",
                            marker="os^D"[len(kv_drawn) % 4], linewidth=1.5,
                            linestyle=":" if g.get("cache") == "warm" else "-",
                            label=f"{version} ({g.get('cost_class', g['kv_class'])})")
                twin.plot(g["sizes"], [v / 1000 for v in g["p50_ns"]], linestyle="--",
                          alpha=0.6, label=f"{g['backend']} {version}")
            ax.set_xscale("log")
            ax.set_yscale("log")
            twin.set_yscale("log")
            ax.set_xlabel("collection size")
            ax.set_ylabel("KV steps + tier commands per call")
            twin.set_ylabel("p50 µs (dashed)")
            ax.set_title(f"{probe}: {command}" if probe != command else command, fontsize=9)
            ax.legend(fontsize=6, loc="upper left")
            twin.legend(fontsize=5, loc="lower right")
        for ax in list(axes.flat)[len(probes):]:
            ax.axis("off")
        save(fig, f"{prefix}-sweep-{kind}.png")


def plot_rtt(result, prefix):
    points = [p for p in result.get("sweeps", []) if p.get("kind") == "rtt"]
    if not points:
        return
    lines = {}
    for p in points:
        version = p.get("profile", {}).get(p["type"])
        cache = p.get("cache", "none")
        for ph in p.get("phases", []):
            if ph.get("kind") == "load":
                continue
            for command, c in ph.get("commands", {}).items():
                key = (p["backend"], p["type"], ph["name"], command, version, cache)
                by_rtt = lines.setdefault(key, {})
                by_rtt.setdefault(p["rtt_us"], []).append(c["latency_ns"]["mean"] / 1000)
    fig, ax = plt.subplots(figsize=(8, 5))
    for (backend, kind, probe, command, version, cache), by_rtt in sorted(lines.items()):
        xs = sorted(by_rtt)
        # The median over repetitions.
        ax.plot(xs, [statistics.median(by_rtt[x]) for x in xs], marker="o",
                label=f"{backend} {kind} {probe} {command} v{version}" +
                ("" if cache == "none" else f" {cache}"))
    ax.set_xlabel("round-trip delay (µs)")
    ax.set_ylabel("mean time per call (µs)")
    ax.set_yscale("log")
    ax.legend(fontsize=6, ncol=2)
    save(fig, f"{prefix}-rtt.png")


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        with open(argv[1], encoding="utf-8") as f:
            result = json.load(f)
    except (OSError, ValueError) as e:
        print(f"plot_bench: cannot read {argv[1]}: {e}", file=sys.stderr)
        return 2
    if result.get("schema") != SCHEMA or result.get("schema_version") not in SCHEMA_VERSIONS:
        print(f"plot_bench: {argv[1]} is not a {SCHEMA} result of schema version "
              f"{' or '.join(map(str, SCHEMA_VERSIONS))}", file=sys.stderr)
        return 2
    result = upgrade(result)
    prefix = argv[2]
    plot_throughput(result, prefix)
    plot_latency(result, prefix)
    plot_sweeps(result, prefix)
    plot_rtt(result, prefix)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

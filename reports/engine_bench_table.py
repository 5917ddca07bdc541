#!/usr/bin/python3
"""Markdown table of an engine_bench run (workloads/engine_bench.cc).

Usage:
  build/workloads/engine_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \\
      --benchmark_format=json --benchmark_out=engine.json
  /usr/bin/python3 reports/engine_bench_table.py engine.json > table.md

Uses the median aggregate of each benchmark (falls back to single runs). Columns: the KV
operations per call (exact, from the user counters), the engine's and the raw floor's CPU time
per call, their ratio (the engine's own overhead; issue 3's target is <= 1.5), the Redis-tier
round trips per call, and Google Benchmark's wall time per call. The floor replays only the KV
calls: for a command that also talks to Redis (hash v2/v3, zset v1-v3 when they reach the tier)
the engine's time includes the client side of its Redis round trips, so the target does not
apply ("n/a"). Needs only the standard library.
"""

import json
import sys

TARGET = 1.5
KV_ORDER = [("gets", "get"), ("multiget_calls", "multiget"), ("multiget_keys", "mget key"),
            ("seeks", "seek"), ("nexts", "next"), ("prevs", "prev"), ("puts", "put"),
            ("deletes", "delete"), ("batches", "batch"), ("batch_records", "rec")]


def fmt(v):
    if v == int(v):
        return str(int(v))
    return f"{v:.3g}" if abs(v) < 10 else f"{v:.0f}"


def kv(b):
    parts = [f"{fmt(b[k])} {name}" for k, name in KV_ORDER if b.get(k, 0)]
    return " · ".join(parts) or "none"


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        with open(argv[1], encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        print(f"engine_bench_table: cannot read {argv[1]}: {e}", file=sys.stderr)
        return 2
    rows = {}
    for b in data.get("benchmarks", []):
        agg = b.get("aggregate_name")
        if agg not in (None, "median"):
            continue
        name = b.get("run_name", b["name"])
        if agg is None and name in rows:
            continue  # a median aggregate, if any, wins over single repetitions
        rows[name] = b
    ctx = data.get("context", {})
    reps = max((b.get("repetitions", 1) for b in data.get("benchmarks", [])), default=1)
    print(f"Run {ctx.get('date', '?')} on {ctx.get('host_name', '?')}, "
          f"{ctx.get('num_cpus', '?')} CPUs, commit {ctx.get('kvlab_commit', '?')[:12]}, "
          f"{ctx.get('kvlab_build_type', '?')} build, timing valid: "
          f"{ctx.get('kvlab_timing_valid', '?')}; medians of {reps} repetitions.\n")
    print("| command | version | backend | KV ops per call | engine CPU ns | floor CPU ns | "
          "ratio | <= 1.5 | Redis round trips | wall ns/op |")
    print("|---|---|---|---|---:|---:|---:|---|---:|---:|")
    for name, b in rows.items():
        parts = name.split("/")
        if len(parts) < 4:
            continue
        _, command, version, backend = parts[:4]
        ratio = b.get("ratio", 0)
        trips = b.get("tier_round_trips", 0)
        verdict = "n/a" if trips > 0 else ("yes" if ratio <= TARGET else "no")
        print(f"| {command} | {version} | {backend} | {kv(b)} | {fmt(b.get('engine_cpu_ns', 0))} | "
              f"{fmt(b.get('floor_cpu_ns', 0))} | {ratio:.2f} | {verdict} | {fmt(trips)} | "
              f"{fmt(b.get('real_time', 0))} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

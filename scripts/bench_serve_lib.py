"""Helpers of scripts/bench-serve: the commands measured, the servers started beside kvlab
(redis-server, Ardb), the run context, the tables and the Google-Benchmark-style JSON.

Kept apart from bench-serve so that the script reads as its measurement loop.
"""
import csv
import datetime
import io
import json
import os
import platform
import re
import socket
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "server", "tests"))
import serverlib  # noqa: E402

SCHEMA_VERSION = 3

# A small set for SMEMBERS: ten members, filled once per server before the first round.
SMALL_SET = ["SADD", "smallset"] + ["member:%d" % i for i in range(10)]

# name -> redis-benchmark arguments, and the commands run once on each server before the first
# round. Writes come before the reads of the same structure (the reads use what they filled:
# redis-benchmark's `myhash`, `myzset`, `myset` and `mylist`).
COMMANDS = [
    ("SET", ["-t", "set"], []),
    ("GET", ["-t", "get"], []),
    ("HSET", ["-t", "hset"], []),
    ("HGET", ["HGET", "myhash", "element:__rand_int__"], []),
    ("ZADD", ["-t", "zadd"], []),
    ("ZRANGE", ["ZRANGE", "myzset", "0", "9"], []),
    ("SADD", ["-t", "sadd"], []),
    ("SISMEMBER", ["SISMEMBER", "myset", "element:__rand_int__"], []),
    ("SMEMBERS", ["SMEMBERS", "smallset"], [SMALL_SET]),
    ("LPUSH", ["-t", "lpush"], []),
    # redis-benchmark's LRANGE_100 is LRANGE mylist 0 99 over the list its LPUSH filled.
    ("LRANGE", ["LRANGE", "mylist", "0", "9"], []),
]
WRITES = {"SET", "HSET", "ZADD", "SADD", "LPUSH"}


def redis_target(backend, command, pipeline):
    """The ratio kvlab/redis an issue asks for, or None (issues 4 and 20)."""
    if pipeline == 1:
        return 0.5
    if command in WRITES:
        return 0.15 if backend == "rocksdb" else 0.6
    return 0.3 if backend in ("memory", "lmdb") else None


ARDB_TARGET = 1.0  # issue 40: kvlab/Ardb >= 1.0 in every round of every cell


def run_benchmark(port, args, requests, clients, pipeline, keyspace):
    """One redis-benchmark run; returns its requests per second."""
    cmd = ["redis-benchmark", "-p", str(port), "--csv", "-n", str(requests), "-c", str(clients),
           "-r", str(keyspace), "-P", str(pipeline)] + args
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    # redis-benchmark warns on stderr when a server has no CONFIG GET (Ardb): not an error of
    # the measured command, whose error replies it prints on stdout.
    if out.returncode != 0 or "rror" in out.stdout:
        raise RuntimeError("%s failed: %s %s" % (" ".join(cmd), out.stdout, out.stderr))
    rows = list(csv.DictReader(io.StringIO(out.stdout)))
    return float(rows[0]["rps"])


def redis_cli(port, *words):
    out = subprocess.run(["redis-cli", "-p", str(port)] + list(words), capture_output=True,
                         text=True, timeout=30)
    if out.returncode != 0 or out.stdout.startswith(("ERR", "(error)")):
        raise RuntimeError("redis-cli %s: %s %s" % (" ".join(words), out.stdout, out.stderr))
    return out.stdout


def config_set(port, name, value):
    if redis_cli(port, "CONFIG", "SET", name, value).strip() != "OK":
        raise RuntimeError("CONFIG SET %s %s failed" % (name, value))


def info_fields(port, section="server"):
    """INFO's `name:value` lines as a dict."""
    fields = {}
    for line in redis_cli(port, "INFO", section).splitlines():
        if ":" in line and not line.startswith("#"):
            name, value = line.split(":", 1)
            fields[name.strip()] = value.strip()
    return fields


class ArdbServer(serverlib._Process):
    """An Ardb binary on a free loopback port, with a fresh home (data) directory.

    The configuration is the ardb.conf build-ardb writes beside the binaries (Ardb's shipped
    one) with only the home directory, the listen address and, when asked, thread-pool-size
    changed. Ardb picks its storage engine at compile time; INFO server names it.
    """

    name = "ardb"

    def __init__(self, binary, base_conf, threads=None):
        super().__init__()
        self.binary = binary
        self.base_conf = base_conf
        self.threads = threads  # None: the configuration's own thread-pool-size

    def command(self, port):
        with open(self.base_conf) as f:
            conf = f.read()
        conf = re.sub(r"(?m)^home\s.*$", "home %s" % self.workdir, conf)
        conf = re.sub(r"(?m)^server\[0\]\.listen\s.*$", "server[0].listen 127.0.0.1:%d" % port,
                      conf)
        if self.threads is not None:
            conf = re.sub(r"(?m)^thread-pool-size\s.*$", "thread-pool-size %d" % self.threads,
                          conf)
        path = os.path.join(self.workdir, "ardb.conf")
        with open(path, "w") as f:
            f.write(conf)
        return [self.binary, path]


def ardb_conf_for(binary, explicit):
    """The ardb.conf a run is based on: --ardb-conf, else the one build-ardb wrote beside the
    binary."""
    path = explicit or os.path.join(os.path.dirname(os.path.abspath(binary)), "ardb.conf")
    if not os.path.isfile(path):
        raise SystemExit("bench-serve: no ardb.conf for %s (looked at %s; pass --ardb-conf)" %
                         (binary, path))
    return path


def probe_ardb(binary, explicit_conf):
    """Starts an Ardb binary once and returns what it says about itself: its engine (the
    backend whose column it joins), version and, when build-ardb's stamp is beside it, the
    commit it was built from."""
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        raise SystemExit("bench-serve: --ardb %s is not an executable file" % binary)
    conf = ardb_conf_for(binary, explicit_conf)
    server = ArdbServer(os.path.abspath(binary), conf)
    try:
        server.start()
        fields = info_fields(server.port)
    finally:
        server.stop()
        server.cleanup()
    engine = fields.get("engine", "").lower()
    if not engine:
        raise SystemExit("bench-serve: %s names no engine in INFO server: is it Ardb?" % binary)
    info = {"binary": os.path.abspath(binary), "engine": engine,
            "version": fields.get("ardb_version", ""), "conf": conf}
    stamp = os.path.join(os.path.dirname(os.path.abspath(binary)), ".stamp-" + engine)
    if os.path.isfile(stamp):
        with open(stamp) as f:
            info["commit"] = f.read().split()[0]
    return info


def _output(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout.strip()
    except OSError:
        return ""


def context(args, kvlab, ardbs):
    """The context block: Google Benchmark's fields (date, host_name, num_cpus, load_avg...)
    plus the schema version, every binary's version and the options of the run."""
    mhz = 0
    try:
        with open("/proc/cpuinfo") as f:
            m = re.search(r"cpu MHz\s*:\s*([\d.]+)", f.read())
            mhz = int(float(m.group(1))) if m else 0
    except OSError:
        pass
    return {
        "schema_version": SCHEMA_VERSION,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "host_name": socket.gethostname(),
        "executable": os.path.join(ROOT, "scripts", "bench-serve"),
        "num_cpus": os.cpu_count(),
        "mhz_per_cpu": mhz,
        "machine": {"kernel": platform.release(), "arch": platform.machine()},
        "load_avg": list(os.getloadavg()),
        "kvlab_commit": _output(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"]),
        "binaries": {
            "kvlab": {"path": kvlab, "version": _output([kvlab, "--version"])},
            "redis-server": {"version": _output(["redis-server", "--version"])},
            "redis-benchmark": {"version": _output(["redis-benchmark", "--version"])},
            "ardb": ardbs,
        },
        "options": {k: v for k, v in sorted(vars(args).items()) if not k.endswith("_list")},
    }


def spread(values):
    """'[lo-hi]' of a list of ratios."""
    return "[%.2f-%.2f]" % (min(values), max(values))


def ratio_cell(mine, theirs, goal, every_round=False):
    """'0.93 [0.88-1.01] ✓': the ratio of the medians, the spread of the per-round ratios and
    whether the goal is met (by the ratio of the medians, or by every round's ratio)."""
    rounds = [a / b for a, b in zip(mine, theirs)]
    ratio = statistics.median(mine) / statistics.median(theirs)
    text = "%.2f %s" % (ratio, spread(rounds))
    if goal is None:
        return text, None
    met = (min(rounds) if every_round else ratio) >= goal
    return text + (" ✓" if met else " ✗"), met


def tables(results, backends, threads_list, pipelines, commands, has_ardb, extra=None):
    """The markdown tables (one per worker count and pipeline depth) and the targets' tally."""
    out = []
    tally = {"redis": [0, 0], "ardb": [0, 0]}
    for threads in threads_list:
        for pipeline in pipelines:
            out.append("\n**%s worker thread(s), -P %d**: requests/s, medians over the rounds; "
                       "ratios are of the medians [spread of the per-round ratios]\n" %
                       (threads, pipeline))
            header = "| backend | command | redis | kvlab |"
            if has_ardb:
                header += " Ardb |"
            header += " kvlab/redis |"
            if has_ardb:
                header += " kvlab/Ardb |"
            if extra:
                header += extra["header"](pipeline)
            out.append(header)
            out.append("|---|---|" + "---:|" * (header.count("|") - 3))
            for backend in backends:
                for name in commands:
                    get = lambda who: results.get((backend, threads, name, pipeline, who))  # noqa
                    r, k, a = get("redis"), get("kvlab"), get("ardb")
                    row = "| %s | %s | %.0f | %.0f |" % (backend, name, statistics.median(r),
                                                         statistics.median(k))
                    if has_ardb:
                        row += " %s |" % ("%.0f" % statistics.median(a) if a else "-")
                    text, met = ratio_cell(k, r, redis_target(backend, name, pipeline))
                    row += " %s |" % text
                    if met is not None:
                        tally["redis"][0] += met
                        tally["redis"][1] += 1
                    if has_ardb:
                        if a:
                            text, met = ratio_cell(k, a, ARDB_TARGET, every_round=True)
                            tally["ardb"][0] += met
                            tally["ardb"][1] += 1
                        else:
                            text = "-"
                        row += " %s |" % text
                    if extra:
                        row += extra["cell"](backend, threads, name, pipeline)
                    out.append(row)
    out.append("\nkvlab/redis targets (issues 4 and 20, on the ratio of the medians) met in %d "
               "of %d cells" % tuple(tally["redis"]))
    if has_ardb:
        out.append("kvlab/Ardb >= %.1f in every round met in %d of %d cells" %
                   ((ARDB_TARGET,) + tuple(tally["ardb"])))
    return "\n".join(out)


def write_json(path, ctx, results, requests_of):
    """Google Benchmark's layout: one `iteration` entry per round and server (items_per_second,
    real_time in ns per request), a `median` aggregate per cell, and the per-round ratios.
    `kvlab gate` reads it as Google Benchmark JSON (the cell is in the run name; every other
    member is a string so that the gate compares only the rates)."""
    benchmarks = []
    ratios = []
    for (backend, threads, name, pipeline, who), values in sorted(results.items()):
        run_name = "serve/%s/threads:%s/%s/P%d/%s" % (backend, threads, name, pipeline, who)
        common = {"run_name": run_name, "repetitions": len(values), "threads": 1,
                  "time_unit": "ns", "label": "backend=%s workers=%s command=%s pipeline=%d "
                  "server=%s" % (backend, threads, name, pipeline, who)}
        for i, rps in enumerate(values):
            benchmarks.append(dict(common, name=run_name, run_type="iteration",
                                   repetition_index=i, iterations=requests_of(pipeline),
                                   real_time=1e9 / rps, items_per_second=rps))
        med = statistics.median(values)
        benchmarks.append(dict(common, name=run_name + "_median", run_type="aggregate",
                               aggregate_name="median", aggregate_unit="time",
                               iterations=len(values), real_time=1e9 / med,
                               items_per_second=med))
        if who != "kvlab":
            mine = results[(backend, threads, name, pipeline, "kvlab")]
            ratios.append({"backend": backend, "worker_threads": threads, "command": name,
                           "pipeline": pipeline, "kvlab_over": who,
                           "per_round": [a / b for a, b in zip(mine, values)],
                           "of_medians": statistics.median(mine) / med})
    with open(path, "w") as f:
        json.dump({"context": ctx, "benchmarks": benchmarks, "ratios": ratios}, f, indent=1)

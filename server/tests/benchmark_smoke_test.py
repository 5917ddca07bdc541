#!/usr/bin/python3
"""redis-benchmark against `kvlab serve`, as a smoke run: small request counts, with and
without pipelining, its built-in tests that kvlab has and a custom command. Checks that every
run completes without an error reply and that the data it wrote is there. Speed is measured by
scripts/bench-serve, never here.

Run: /usr/bin/python3 benchmark_smoke_test.py --kvlab build/kvlab
"""
import csv
import io
import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import redis  # noqa: E402
import serverlib  # noqa: E402

KVLAB = serverlib.kvlab_binary(sys.argv)


def benchmark(port, args):
    result = subprocess.run(["redis-benchmark", "-p", str(port), "--csv"] + args,
                            capture_output=True, text=True, timeout=300)
    return result


class BenchmarkSmoke(unittest.TestCase):
    def check(self, result):
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertNotIn("rror", result.stdout + result.stderr)
        rows = list(csv.DictReader(io.StringIO(result.stdout)))
        self.assertTrue(rows, result.stdout)
        for row in rows:
            self.assertGreater(float(row["rps"]), 0, row)
        return rows

    def test_benchmark_runs(self):
        for backend in ("memory", "lmdb"):
            with self.subTest(backend=backend):
                server = serverlib.KvlabServer(KVLAB, backend=backend).start()
                try:
                    tests = "ping_inline,ping_mbulk,set,get,hset,zadd,zpopmin,mset"
                    rows = self.check(benchmark(server.port,
                                                ["-n", "2000", "-c", "8", "-t", tests]))
                    self.assertEqual(len(rows), 8)
                    self.check(benchmark(server.port,
                                         ["-n", "4000", "-c", "8", "-P", "16", "-t", "set,get,hset"]))
                    self.check(benchmark(server.port, ["-n", "1000", "-r", "1000", "-c", "4",
                                                       "ZADD", "myzset", "__rand_int__",
                                                       "element:__rand_int__"]))
                    self.check(benchmark(server.port, ["-n", "1000", "-c", "4", "-P", "16",
                                                       "ZRANGE", "myzset", "0", "9"]))
                    client = redis.Redis(port=server.port)
                    self.assertEqual(len(client.get("key:__rand_int__")), 3)  # -d 3
                    self.assertEqual(len(client.hget("myhash", "element:__rand_int__")), 3)
                    self.assertGreater(client.zcard("myzset"), 1)
                    self.assertEqual(len(client.zrange("myzset", 0, 9)), 10)
                    client.close()
                finally:
                    self.assertEqual(server.stop(), 0, server.log())
                    server.cleanup()

    def test_bench_serve_runs(self):
        """scripts/bench-serve end to end on tiny counts: its tables and its JSON."""
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts",
                              "bench-serve")
        out_json = os.path.join(os.environ.get("TMPDIR", "/tmp"),
                                "kvlab-bench-serve-%d.json" % os.getpid())
        result = subprocess.run(
            ["/usr/bin/python3", script, "--kvlab", KVLAB, "--backends", "memory", "--reps", "2",
             "--requests", "300", "--clients", "4", "--threads", "1,default",
             "--commands", "SET,SMEMBERS,LRANGE", "--compare-group-commit", "--json", out_json],
            capture_output=True, text=True, timeout=600)
        try:
            self.assertEqual(result.returncode, 0, result.stderr[-3000:])
            self.assertIn("[72/72]", result.stderr)  # 2 threads x 2 reps x 2 pipelines x 3 x 3
            self.assertIn("1 worker thread(s), -P 16", result.stdout)
            self.assertIn("| memory | LRANGE |", result.stdout)
            self.assertIn("group gain", result.stdout)
            self.assertIn("load average", result.stdout)
            self.assertNotIn("Ardb", result.stdout)  # no --ardb: no Ardb column
            with open(out_json) as f:
                doc = json.load(f)
            ctx = doc["context"]
            self.assertEqual(ctx["schema_version"], 3)
            self.assertEqual(len(ctx["load_avg"]), 3)
            self.assertEqual(ctx["options"]["reps"], 2)
            self.assertIn("redis-server", ctx["binaries"])
            runs = [b for b in doc["benchmarks"] if b["run_type"] == "iteration"]
            medians = [b for b in doc["benchmarks"] if b["run_type"] == "aggregate"]
            # 2 thread settings x 3 commands x 2 pipelines x 3 servers, 2 rounds each.
            self.assertEqual(len(medians), 36)
            self.assertEqual(len(runs), 72)
            self.assertTrue(all(r["items_per_second"] > 0 for r in runs))
            # SMEMBERS read the ten-member set filled before the first round.
            self.assertIn("serve/memory/threads:1/SMEMBERS/P16/redis", {r["run_name"] for r in runs})
            # kvlab/redis and kvlab/nogroup per round, for each cell.
            self.assertEqual(len(doc["ratios"]), 24)
            self.assertTrue(all(len(r["per_round"]) == 2 for r in doc["ratios"]))
            # The gate reads it as Google Benchmark JSON.
            gate = subprocess.run([KVLAB, "gate", "--baseline", out_json, "--current", out_json,
                                   "--timings", "report"], capture_output=True, text=True,
                                  timeout=120)
            self.assertEqual(gate.returncode, 0, gate.stdout + gate.stderr)
            self.assertIn("Google Benchmark JSON", gate.stdout)
        finally:
            if os.path.exists(out_json):
                os.remove(out_json)
        no_ardb = subprocess.run(["/usr/bin/python3", script, "--ardb", "/nonexistent/ardb"],
                                 capture_output=True, text=True, timeout=60)
        self.assertEqual(no_ardb.returncode, 1)
        self.assertIn("--ardb /nonexistent/ardb is not an executable file", no_ardb.stderr)
        bad = subprocess.run(["/usr/bin/python3", script, "--commands", "NOPE"],
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(bad.returncode, 2)
        self.assertIn("unknown command 'NOPE'", bad.stderr)
        bad = subprocess.run(["/usr/bin/python3", script, "--pipelines", "1,0"],
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(bad.returncode, 2)
        self.assertIn("--pipelines takes positive depths", bad.stderr)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=1)

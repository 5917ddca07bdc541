#!/usr/bin/python3
"""Shutdown and restart: SIGTERM, SIGINT and SHUTDOWN stop `kvlab serve` while clients are
writing; the server exits 0 with its store closed, and a server restarted on the same
directory serves exactly what the clients were told was written.

Writers pipeline SET, HINCRBY and ZADD over raw sockets and count the replies they receive.
The server finishes every command it started and delivers its reply before closing, so the
commands acknowledged are exactly the commands in the store: the counter, the zset and the
strings must match the acknowledgements, with nothing lost and nothing extra.

SIGKILL gives the server no time to finish: then every acknowledged write must be in the
store (a pipeline's writes are committed as one group before any of their replies is sent,
docs/server.md), and what the store holds is a prefix of each writer's command stream, never a
torn one; commands run but not yet acknowledged may be there too.

TierCrash does the same to the Redis-tier versions (hash v2/v3, zset v1/v2/v3, set v2/v3:
crashlib.py says how): SIGKILL under pipelined writers, a restart on the same directory, store
and cache, and every key read back in full: no acknowledged write lost, no key unreadable. CI
runs a few kills; a big run by hand, with its table (docs/engine.md, "Crash recovery"):

  /usr/bin/python3 durability_test.py --kvlab build/kvlab --tier-kills 200 TierCrash

Run: /usr/bin/python3 durability_test.py --kvlab build/kvlab
"""
import os
import random
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import crashlib  # noqa: E402
import redis  # noqa: E402
import serverlib  # noqa: E402

KVLAB = serverlib.kvlab_binary(sys.argv)
# TierCrash's SIGKILLs, spread over its lanes (CI: one each): every backend with an external
# store and cache, and RocksDB with kvlab's private ones.
TIER_KILLS = int(sys.argv[sys.argv.index("--tier-kills") + 1]) if "--tier-kills" in sys.argv else 4
TIER_LANES = (("rocksdb", False), ("lmdb", False), ("wiredtiger", False), ("rocksdb", True))
WRITERS = 3
OPS_PER_BATCH = 50


def command(*args):
    out = "*%d\r\n" % len(args)
    for a in args:
        a = str(a)
        out += "$%d\r\n%s\r\n" % (len(a.encode()), a)
    return out


class Writer(threading.Thread):
    """Pipelines batches of (SET, HINCRBY, ZADD) until the server goes away."""

    def __init__(self, port, index):
        super().__init__()
        self.port = port
        self.index = index
        self.replies = 0  # replies received, in command order
        self.error = None

    def run(self):
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=30) as s:
                seq = 0
                pending = b""
                while True:
                    batch = ""
                    for _ in range(OPS_PER_BATCH):
                        t = self.index
                        batch += command("SET", "k:%d:%d" % (t, seq), seq)
                        batch += command("HINCRBY", "counters", "c%d" % t, 1)
                        batch += command("ZADD", "z:%d" % t, seq, "m%d" % seq)
                        seq += 1
                    try:
                        s.sendall(batch.encode())
                    except OSError:
                        return
                    want = self.replies + 3 * OPS_PER_BATCH
                    while self.replies < want:
                        try:
                            chunk = s.recv(65536)
                        except OSError:
                            return
                        if not chunk:
                            return
                        pending += chunk
                        while b"\r\n" in pending:
                            line, pending = pending.split(b"\r\n", 1)
                            if line.startswith(b"-"):
                                raise AssertionError("error reply: %r" % line)
                            self.replies += 1
        except Exception as e:  # reported by the test
            self.error = e


class Durability(unittest.TestCase):
    def run_case(self, backend, stop):
        store = tempfile.mkdtemp(prefix="kvlab-durability-")
        server = serverlib.KvlabServer(KVLAB, backend=backend, store_dir=store).start()
        try:
            before = redis.Redis(port=server.port, db=7)
            before.hset("big", mapping={"f%d" % i: i for i in range(1000)})
            before.set("plain", "value")
            before.close()

            writers = [Writer(server.port, i) for i in range(WRITERS)]
            for w in writers:
                w.start()
            # Stop only once every writer has had replies: under load a fixed sleep may end before
            # a thread's first batch was answered, and the test would check nothing for it.
            deadline = time.monotonic() + 60
            while (not all(w.replies > 0 or not w.is_alive() for w in writers)
                   and time.monotonic() < deadline):
                time.sleep(0.05)
            time.sleep(0.2)
            if stop == "SIGKILL":
                # Groups committed, as INFO says, so that the kill lands among them.
                info = redis.Redis(port=server.port).info("kvlab")
                self.assertGreater(info["group_commits"], 0, info)
            if stop == "SHUTDOWN":
                with socket.create_connection(("127.0.0.1", server.port)) as s:
                    s.sendall(b"SHUTDOWN\r\n")
                    self.assertEqual(s.recv(100), b"")  # closed without a reply
                code = server.wait(60)
            else:
                code = server.stop(getattr(signal, stop))
            for w in writers:
                w.join(60)
                self.assertIsNone(w.error)
            if stop == "SIGKILL":
                self.assertEqual(code, -signal.SIGKILL, server.log())
            else:
                self.assertEqual(code, 0, server.log())
                self.assertIn("store closed", server.log())
            self.assertTrue(all(w.replies > 0 for w in writers), [w.replies for w in writers])
            print("%s %s: replies per writer %s" % (backend, stop, [w.replies for w in writers]),
                  file=sys.stderr)

            server.port = None
            server.start()
            c = redis.Redis(port=server.port, decode_responses=True)
            for w in writers:
                t = w.index
                # The store's state as a count of the writer's commands: a prefix of
                # (SET, HINCRBY, ZADD)* is sets, incrs, zadds with sets >= incrs >= zadds >=
                # sets - 1.
                incrs = int(c.hget("counters", "c%d" % t) or 0)
                zadds = c.zcard("z:%d" % t)
                keys = sorted(c.scan_iter(match="k:%d:*" % t, count=1000),
                              key=lambda k: int(k.split(":")[2]))
                sets = len(keys)
                self.assertTrue(sets >= incrs >= zadds >= sets - 1, (sets, incrs, zadds))
                self.assertEqual(keys, ["k:%d:%d" % (t, i) for i in range(sets)])
                if sets > 0:
                    self.assertEqual(c.get("k:%d:%d" % (t, sets - 1)), str(sets - 1))
                stored = sets + incrs + zadds
                if stop == "SIGKILL":
                    self.assertGreaterEqual(stored, w.replies, (backend, "acknowledged lost"))
                else:
                    self.assertEqual(stored, w.replies, (backend, stop))
            db7 = redis.Redis(port=server.port, db=7, decode_responses=True)
            self.assertEqual(db7.hlen("big"), 1000)
            self.assertEqual(db7.hget("big", "f999"), "999")
            self.assertEqual(db7.get("plain"), "value")
            c.close()
            db7.close()
            self.assertEqual(server.stop(), 0, server.log())
        finally:
            server.cleanup()
            shutil.rmtree(store, ignore_errors=True)

    def test_all(self):
        for backend in ("rocksdb", "lmdb", "wiredtiger"):
            for stop in ("SIGTERM", "SIGINT", "SHUTDOWN", "SIGKILL"):
                with self.subTest(backend=backend, stop=stop):
                    self.run_case(backend, stop)


class TierCrash(unittest.TestCase):
    def test_sigkill_under_pipelined_writers(self):
        rng = random.Random(int(os.environ.get("KVLAB_CRASH_SEED", time.time())))
        lanes = []
        try:
            for backend, private in TIER_LANES:
                store = tempfile.mkdtemp(prefix="kvlab-tier-crash-")
                self.addCleanup(shutil.rmtree, store, True)
                lanes.append(crashlib.Lane(KVLAB, backend, 4, store, private))
                lanes[-1].create_keys()
            start = time.monotonic()
            for kill in range(TIER_KILLS):
                lanes[kill % len(lanes)].kill_round(rng)
            elapsed = time.monotonic() - start
        finally:
            for lane in lanes:
                lane.close()
        print(crashlib.table(lanes, elapsed), file=sys.stderr)
        problems = [p for lane in lanes for p in lane.problems]
        self.assertEqual(problems, [])


if __name__ == "__main__":
    # Our own options out; test names (TierCrash) stay for unittest.
    args = sys.argv[1:]
    for option in ("--kvlab", "--tier-kills"):
        if option in args:
            i = args.index(option)
            del args[i:i + 2]
    unittest.main(argv=sys.argv[:1] + args, verbosity=1)

#!/usr/bin/python3
"""Python's redis client (Debian's python3-redis) against `kvlab serve`, every command family.

Each check runs the same calls on kvlab and on a real redis-server started beside it, and
compares what the client library returns; where Redis's order is unspecified (hash fields,
SCAN), the comparison is order-free. Then what only kvlab has (the kvlab INFO section) and
what only a server can show (CLIENT LIST across connections, SHUTDOWN).

Run: /usr/bin/python3 python_client_test.py --kvlab build/kvlab
"""
import os
import sys
import threading
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import redis  # noqa: E402  (Debian's python3-redis)
import serverlib  # noqa: E402

KVLAB = serverlib.kvlab_binary(sys.argv)


class Session(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.kvlab_server = serverlib.KvlabServer(KVLAB, args=["--threads", "2"]).start()
        cls.redis_server = serverlib.RedisServer().start()
        cls.k = redis.Redis(port=cls.kvlab_server.port, decode_responses=True)
        cls.r = redis.Redis(port=cls.redis_server.port, decode_responses=True)

    @classmethod
    def tearDownClass(cls):
        cls.k.close()
        cls.r.close()
        cls.redis_server.stop()
        cls.redis_server.cleanup()
        assert cls.kvlab_server.stop() == 0, cls.kvlab_server.log()
        cls.kvlab_server.cleanup()

    def setUp(self):
        self.k.flushall()
        self.r.flushall()

    def same(self, call, normalize=lambda x: x):
        """Runs call(client) on both servers; the results (or errors) must be equal."""
        def run(client):
            try:
                return ("ok", normalize(call(client)))
            except redis.ResponseError as e:
                return ("error", str(e))
        want, got = run(self.r), run(self.k)
        self.assertEqual(got, want)
        return got[1]

    def test_connection(self):
        self.same(lambda c: c.ping())
        self.same(lambda c: c.echo("héllo\r\n\x00"))
        self.same(lambda c: c.execute_command("HELLO", "2")[:6])  # then id, which differs
        # HELLO 3 would switch the connection to RESP3, which this redis-py (RESP2 only) cannot
        # read: protocol_test compares RESP3 replies with redis-server byte for byte.
        self.same(lambda c: c.execute_command("HELLO", "4"))
        self.same(lambda c: c.client_setname("app one"))
        self.same(lambda c: [c.client_setname("app"), c.client_getname()])
        self.assertIsInstance(self.k.client_id(), int)
        self.same(lambda c: c.execute_command("AUTH", "secret"))
        self.same(lambda c: c.execute_command("NOSUCHCOMMAND", "a"))
        self.same(lambda c: c.execute_command("GET"))
        # SELECT through a client bound to another database.
        for port, name in ((self.kvlab_server.port, "kvlab"), (self.redis_server.port, "redis")):
            with redis.Redis(port=port, db=5, decode_responses=True) as db5:
                db5.set("in5", name)
                self.assertEqual(db5.get("in5"), name)
        self.same(lambda c: [c.get("in5"), c.dbsize()])
        self.same(lambda c: c.execute_command("SELECT", "16"))

    def test_strings(self):
        self.same(lambda c: [c.set("s", "v"), c.get("s"), c.set("s", "w", nx=True),
                             c.set("s", "w", xx=True, get=True), c.strlen("s"),
                             c.setnx("s2", "x"), c.setex("e", 100, "v"), c.psetex("p", 100000, "v"),
                             c.mset({"a": "1", "b": "2"}), c.mget("a", "b", "nope"),
                             c.set("k", "v", keepttl=True)])
        self.same(lambda c: c.set("s", "v", ex=0))
        self.same(lambda c: c.hset("h", "f", "v") and c.get("h"))

    def test_keyspace(self):
        def run(c):
            c.mset({"a": "1", "b": "2", "c": "3"})
            c.hset("h", "f", "v")
            c.zadd("z", {"m": 1})
            return [c.exists("a", "b", "nope"), c.type("a"), c.type("h"), c.type("z"),
                    c.type("nope"), c.expire("a", 100), c.ttl("a"), c.pexpire("b", 100000),
                    c.pttl("b") > 99000, c.persist("a"), c.ttl("a"), c.ttl("nope"),
                    c.expireat("c", 4000000000), c.execute_command("EXPIRETIME", "c"),
                    c.execute_command("PEXPIRETIME", "c"), c.delete("a", "nope"),
                    c.unlink("b"), sorted(c.keys("*")), sorted(c.keys("[hz]")), c.dbsize()]
        self.same(run)
        self.same(lambda c: c.expire("c", "abc"))

    def test_scan_family(self):
        def fill(c):
            for i in range(250):
                c.set("key:%d" % i, i)
            c.hset("hash", mapping={"f%d" % i: i for i in range(300)})
            c.zadd("zset", {"m%d" % i: i for i in range(300)})
            return True
        self.same(fill)
        self.same(lambda c: sorted(c.scan_iter(match="key:1*", count=7)))
        self.same(lambda c: sorted(c.scan_iter(_type="hash")))
        self.same(lambda c: sorted(c.scan_iter(count=1000)))
        self.same(lambda c: sorted(c.hscan_iter("hash", match="f2*", count=10)))
        self.same(lambda c: sorted(c.zscan_iter("zset", count=5)))
        self.same(lambda c: c.scan(0, _type="zset", count=1000)[1])
        self.same(lambda c: c.execute_command("SCAN", "abc"))

    def test_hashes(self):
        def run(c):
            return [c.hset("h", mapping={"a": "1", "b": "2", "c": "3"}), c.hget("h", "a"),
                    c.hmget("h", "a", "x", "c"), c.hlen("h"), sorted(c.hkeys("h")),
                    sorted(c.hvals("h")), c.hgetall("h"), c.hexists("h", "b"),
                    c.hstrlen("h", "a"), c.hincrby("h", "n", 5), c.hincrby("h", "n", -7),
                    c.hincrbyfloat("h", "f", "1.5"), c.hincrbyfloat("h", "f", "0.25"),
                    c.hsetnx("h", "a", "x"), c.hsetnx("h", "new", "x"), c.hdel("h", "a", "zz"),
                    c.execute_command("HMSET", "h2", "x", "1"), c.hgetall("nope")]
        self.same(run)
        self.same(lambda c: c.hincrby("h", "b", 1) and c.hincrby("h", "new", 1))
        self.same(lambda c: c.hincrbyfloat("h", "new", "abc"))

    def test_sorted_sets(self):
        def run(c):
            return [c.zadd("z", {"a": 1, "b": 2, "c": 3, "d": 4.5}), c.zadd("z", {"a": 5}, ch=True),
                    c.zadd("z", {"a": 0}, gt=True), c.zadd("z", {"e": 1}, xx=True),
                    c.zadd("z", {"a": 2}, incr=True), c.zincrby("z", -1.5, "b"), c.zcard("z"),
                    c.zscore("z", "a"), c.zmscore("z", ["a", "nope"]), c.zcount("z", 1, "(4.5"),
                    c.zlexcount("z", "-", "+"), c.zrange("z", 0, -1, withscores=True),
                    c.zrange("z", "(1", "+inf", byscore=True, offset=1, num=2),
                    c.zrange("z", 0, 1, desc=True),
                    c.zrangebyscore("z", "-inf", "+inf", withscores=True),
                    c.zrevrangebyscore("z", 10, 2), c.zrevrange("z", 0, -1),
                    # Lexicographic ranges are defined on members of equal score.
                    c.zadd("lex", {m: 0 for m in "abcdefg"}), c.zlexcount("lex", "[b", "(f"),
                    c.zrange("lex", "[b", "[d", bylex=True), c.zrangebylex("lex", "-", "(c"),
                    c.zrevrangebylex("lex", "+", "[e"),
                    c.zrank("z", "c"), c.zrevrank("z", "c"), c.zrank("z", "nope"),
                    c.zrem("z", "b", "nope"), c.zpopmin("z"), c.zpopmax("z", 2),
                    c.zadd("y", {"m%d" % i: i for i in range(20)}),
                    c.zremrangebyrank("y", 0, 2), c.zremrangebyscore("y", 3, 5),
                    c.zremrangebylex("lex", "[f", "+"), c.zrange("y", 0, -1), c.zrange("lex", 0, -1)]
        self.same(run)
        self.same(lambda c: c.zadd("z", {"a": "nan"}))
        self.same(lambda c: c.execute_command("ZADD", "z", "NX", "XX", 1, "a"))

    def test_server_commands(self):
        self.same(lambda c: [c.set("x", 1), c.dbsize(), c.flushdb(), c.dbsize()])
        self.same(lambda c: [c.set("x", 1), c.flushall(), c.dbsize()])
        self.same(lambda c: c.config_get("save"))
        self.same(lambda c: c.config_get("appendonly"))
        self.same(lambda c: c.config_get("*max-bulk*"))
        self.same(lambda c: c.config_set("nosuchparam", 1))
        self.same(lambda c: [c.config_set("proto-max-bulk-len", "2mb"),
                             c.config_get("proto-max-bulk-len")])
        self.same(lambda c: [c.config_set("proto-max-bulk-len", "512mb"),
                             c.config_get("proto-max-bulk-len")])
        self.same(lambda c: c.config_set("save", ""))
        # The encoding of new keys is a runtime parameter.
        # (one parameter per type of the encoding registry, each at its default v0)
        encodings = self.k.config_get("*encoding")
        self.assertEqual(set(encodings.values()), {"0"})
        self.assertLessEqual({"hash-encoding", "zset-encoding", "list-encoding"}, set(encodings))
        self.assertTrue(self.k.config_set("hash-encoding", 1))
        self.k.hset("blind", "f", "v")
        self.assertEqual(self.k.config_get("kv.hash.key.meta.version"),
                         {"kv.hash.key.meta.version": "1"})
        self.assertTrue(self.k.config_set("hash-encoding", 0))
        self.assertTrue(self.k.config_resetstat())
        self.k.hset("h", "f", "v")
        seconds, micros = self.k.time()
        self.assertGreater(seconds, 1600000000)
        self.assertLess(micros, 1000000)
        info = self.k.info()
        self.assertEqual(info["redis_version"], "7.0.15")
        self.assertEqual(info["connected_clients"], 1)
        self.assertEqual(info["db0"], {"keys": 2, "expires": 0, "avg_ttl": 0})
        kv = self.k.info("kvlab")
        self.assertEqual(kv["backend"], "memory")
        self.assertEqual(kv["kvstat_hset"]["calls"], 1)
        self.assertEqual(kv["kvstat_hset"]["failed_calls"], 0)
        self.assertEqual(kv["kvstat_hset"]["batches"], 1)
        self.assertIn("cmdstat_hset", self.k.info("commandstats"))
        self.same(lambda c: c.info("nosuchsection"))

    def test_command_introspection(self):
        # redis-py's own parsing of COMMAND must work on kvlab's reply.
        commands = self.k.command()
        self.assertEqual(self.k.command_count(), len(commands))
        self.assertEqual(commands["get"]["arity"], 2)
        self.assertEqual(commands["mset"]["step_count"], 2)
        # Arity and key positions are Redis's, for every command kvlab has.
        reference = self.r.command()
        fields = ("name", "arity", "first_key_pos", "last_key_pos", "step_count")
        for name, info in commands.items():
            if name.startswith("kvlab."):
                continue  # kvlab's own (KVLAB.GC): Redis has none to compare with
            self.assertEqual({f: info[f] for f in fields},
                             {f: reference[name][f] for f in fields}, name)
        # The flags kvlab's table models are Redis's, for every command: write, readonly,
        # denyoom, admin, blocking, fast, no_auth, no_multi, movablekeys; a container (CLIENT, CONFIG,
        # MEMORY, OBJECT) has none. Redis's others (loading, stale, noscript, ...) concern
        # features kvlab does not have, and kvlab does not report them.
        modelled = {"write", "readonly", "denyoom", "admin", "blocking", "fast", "no_auth",
                    "no_multi", "movablekeys"}
        for name, info in commands.items():
            if name.startswith("kvlab."):
                continue
            self.assertEqual(set(info["flags"]), set(reference[name]["flags"]) & modelled, name)
        self.assertIn("denyoom", commands["hset"]["flags"])
        self.assertEqual(commands["get"]["flags"], reference["get"]["flags"])
        self.same(lambda c: c.command_getkeys("MSET", "a", "1", "b", "2"))
        self.same(lambda c: c.execute_command("COMMAND DOCS", "get")[1][:6])
        self.assertEqual(sorted(self.k.command_list(pattern="zrange*")),
                         ["zrange", "zrangebylex", "zrangebyscore", "zrangestore"])
        # A numkeys command's keys, as Redis finds them.
        self.same(lambda c: c.command_getkeys("ZUNIONSTORE", "d", "2", "a", "b", "WEIGHTS", "1", "2"))

    def test_transactions(self):
        # A command's own error is its element; the others run (redis-py raises the first).
        self.same(lambda c: c.pipeline().set("s", "x").incr("s").set("t", 1).execute(
            raise_on_error=False), normalize=lambda r: [str(x) for x in r])
        self.same(lambda c: c.get("t"))
        # An error while queueing aborts the whole transaction.
        def queue_error(c):
            pipe = c.pipeline()
            pipe.set("u", 1).execute_command("NOSUCHCOMMAND")
            return pipe.execute()
        self.same(queue_error, normalize=str)
        self.same(lambda c: c.exists("u"))
        # Optimistic locking: WATCH, a write by another client, and the EXEC that fails.
        for port, server in ((self.kvlab_server.port, "kvlab"), (self.redis_server.port, "redis")):
            client = redis.Redis(port=port, decode_responses=True)
            other = redis.Redis(port=port, decode_responses=True)
            client.set("balance", 10)
            with client.pipeline() as pipe:
                pipe.watch("balance")
                current = int(pipe.get("balance"))
                other.incr("balance")
                pipe.multi()
                pipe.set("balance", current - 1)
                with self.assertRaises(redis.WatchError, msg=server):
                    pipe.execute()
            # redis-py's transaction() helper retries until no watched key changed.
            def debit(pipe):
                current = int(pipe.get("balance"))
                pipe.multi()
                pipe.set("balance", current - 1)
            client.transaction(debit, "balance")
            self.assertEqual(client.get("balance"), "10", server)
            client.close()
            other.close()

    def test_clients_across_connections(self):
        other = redis.Redis(port=self.kvlab_server.port, decode_responses=True)
        other.client_setname("second")
        other.execute_command("SELECT", 4)
        listing = self.k.client_list()
        names = {c["name"]: c for c in listing}
        self.assertIn("second", names)
        self.assertEqual(names["second"]["db"], "4")
        self.assertEqual(names["second"]["cmd"], "select")
        self.assertEqual(self.k.client_info()["cmd"], "client|info")
        self.assertEqual(len(self.k.client_list(client_id=[names["second"]["id"]])), 1)
        other.close()

    def test_pipelines_and_threads(self):
        pipe = self.k.pipeline(transaction=False)
        for i in range(2000):
            pipe.hincrby("counter", "n", 1)
            pipe.zadd("z", {"m%d" % i: i})
        results = pipe.execute()
        self.assertEqual(results[-2], 2000)
        # redis-py's default pipeline is a transaction: MULTI, the commands, EXEC.
        self.same(lambda c: c.pipeline().set("a", 1).incr("a").hset("h", "f", "v")
                  .hgetall("h").get("a").execute())
        self.same(lambda c: c.pipeline().delete("a", "h").exists("a", "h").execute())

        pool = redis.ConnectionPool(port=self.kvlab_server.port, max_connections=16)

        def work():
            client = redis.Redis(connection_pool=pool)
            for _ in range(200):
                client.hincrby("shared", "f", 1)
        threads = [threading.Thread(target=work) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(self.k.hget("shared", "f"), "1600")
        pool.disconnect()

    def test_quit_closes_only_that_connection(self):
        c = redis.Redis(port=self.kvlab_server.port, single_connection_client=True)
        self.assertTrue(c.execute_command("QUIT"))
        with self.assertRaises(redis.ConnectionError):
            c.connection.read_response()
        self.assertTrue(self.k.ping())


class Shutdown(unittest.TestCase):
    def test_shutdown_command(self):
        server = serverlib.KvlabServer(KVLAB).start()
        c = redis.Redis(port=server.port)
        c.set("a", 1)
        c.shutdown(nosave=True)  # redis-py expects, and hides, the closed connection
        self.assertEqual(server.wait(30), 0)
        self.assertIn("store closed", server.log())
        server.cleanup()


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=1)

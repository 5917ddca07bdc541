#!/usr/bin/python3
"""redis-cli, scripted, against `kvlab serve` and a real redis-server: the same invocations
must print the same output. Covers argument mode, stdin scripts, --no-raw formatting, -n,
--scan, --bigkeys, --pipe mass insertion, -r repeats, errors, the unix socket and SHUTDOWN.

Run: /usr/bin/python3 redis_cli_test.py --kvlab build/kvlab
"""
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serverlib  # noqa: E402

KVLAB = serverlib.kvlab_binary(sys.argv)

# (arguments, stdin); run in order on both servers, starting empty.
SCRIPT = [
    (["SET", "k", "v"], None),
    (["GET", "k"], None),
    (["--no-raw", "GET", "k"], None),
    (["--no-raw", "GET", "nope"], None),
    (["HSET", "h", "a", "1", "b", "2"], None),
    (["--no-raw", "HGETALL", "h"], None),
    (["--no-raw", "HINCRBYFLOAT", "h", "a", "0.5"], None),
    (["ZADD", "z", "1", "x", "2.5", "y", "-3", "w"], None),
    (["--no-raw", "ZRANGE", "z", "0", "-1", "WITHSCORES"], None),
    (["--no-raw", "ZRANGEBYSCORE", "z", "(1", "+inf"], None),
    (["--no-raw", "TTL", "nope"], None),
    (["--no-raw", "NOSUCH", "arg"], None),
    (["--no-raw", "GET"], None),
    (["--no-raw", "HGET", "z", "f"], None),
    (["-n", "3", "SET", "x", "y"], None),
    (["-n", "3", "DBSIZE"], None),
    (["DBSIZE"], None),
    (["-r", "3", "PING"], None),
    (["--no-raw", "CONFIG", "GET", "save"], None),
    (["--no-raw", "COMMAND", "GETKEYS", "MSET", "a", "1", "b", "2"], None),
    ([], "SET s1 \"two words\"\nGET s1\nECHO 'single quoted'\nHSET h2 f \"\\x41\\n\"\n"
         "HGET h2 f\nNOPE\nZADD z2 1 a\nZSCORE z2 a\nEXISTS s1 h2 z2 nope\n"),
    (["--no-raw"], "HMGET h a b c\nZCARD z\nTYPE h\nSCAN 0 MATCH nothing\n"),
    (["--pipe"], "".join("*3\r\n$3\r\nSET\r\n$%d\r\nmass:%d\r\n$1\r\nv\r\n" % (len("mass:%d" % i), i)
                         for i in range(5000))),
    (["DBSIZE"], None),
    (["INFO", "keyspace"], None),
]


def redis_cli(port, args, stdin=None):
    result = subprocess.run(["redis-cli", "-p", str(port)] + args, input=stdin,
                            capture_output=True, text=True, timeout=60)
    return result.returncode, result.stdout


def tail_from(text, marker):
    """The part of `text` from the line starting with `marker` (the order-free summary)."""
    at = text.find(marker)
    return text[at:] if at >= 0 else text


class RedisCli(unittest.TestCase):
    def test_same_output_as_redis(self):
        kvlab = serverlib.KvlabServer(KVLAB).start()
        redis = serverlib.RedisServer().start()
        try:
            for args, stdin in SCRIPT:
                want = redis_cli(redis.port, args, stdin)
                got = redis_cli(kvlab.port, args, stdin)
                self.assertEqual(got, want, "redis-cli %s" % " ".join(args))
            # --scan and --bigkeys walk in server order; their results must agree as sets.
            want = sorted(redis_cli(redis.port, ["--scan", "--pattern", "mass:1*"])[1].split())
            got = sorted(redis_cli(kvlab.port, ["--scan", "--pattern", "mass:1*"])[1].split())
            self.assertEqual(len(got), 1111)
            self.assertEqual(got, want)
            want = tail_from(redis_cli(redis.port, ["--bigkeys"])[1], "Total key length")
            got = tail_from(redis_cli(kvlab.port, ["--bigkeys"])[1], "Total key length")
            self.assertIn("strings with", got)
            self.assertEqual(got, want)
        finally:
            redis.stop()
            redis.cleanup()
            self.assertEqual(kvlab.stop(), 0, kvlab.log())
            kvlab.cleanup()

    def test_unix_socket_and_shutdown(self):
        kvlab = serverlib.KvlabServer(KVLAB)
        socket_path = os.path.join(kvlab.workdir, "kvlab.sock")
        kvlab.args = ["--unixsocket", socket_path]
        kvlab.start()
        try:
            self.assertIn("serving RESP2 and RESP3 (HELLO 3) on 127.0.0.1:%d, %s"
                          % (kvlab.port, socket_path),
                          kvlab.log())
            out = subprocess.run(["redis-cli", "-s", socket_path, "SET", "via", "unix"],
                                 capture_output=True, text=True, timeout=30)
            self.assertEqual(out.stdout, "OK\n")
            self.assertEqual(redis_cli(kvlab.port, ["GET", "via"]), (0, "unix\n"))
            # redis-cli's SHUTDOWN expects the connection to close without a reply.
            code, output = redis_cli(kvlab.port, ["SHUTDOWN"])
            self.assertEqual((code, output), (0, ""))
            self.assertEqual(kvlab.wait(30), 0)
            self.assertFalse(os.path.exists(socket_path))
            self.assertIn("store closed", kvlab.log())
        finally:
            kvlab.cleanup()


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=1)

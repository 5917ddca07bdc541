#!/usr/bin/python3
"""kvlab serve's private redis-servers (the Redis tier's cache and zset store), from outside:

- they listen on unix sockets in directories only this user can enter, require a password, and
  INFO does not publish where they are;
- one that dies (SIGKILL, as the OOM killer would) is reaped, logged and restarted, INFO shows
  its state, and zset v3 works again without restarting kvlab;
- their directories go when kvlab exits, and when kvlab was killed with SIGKILL, when the next
  kvlab starts.

Every kvlab here runs with TMPDIR set to a directory of this test, so the test only ever looks
at, and kills, processes and directories it created.

Run: /usr/bin/python3 private_redis_test.py --kvlab build/kvlab
"""
import glob
import os
import shutil
import signal
import socket
import stat
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import redis  # noqa: E402
import serverlib  # noqa: E402

KVLAB = serverlib.kvlab_binary(sys.argv)


def info_text(port, section):
    """INFO's raw text (redis-py parses it into a dict)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(("INFO %s\r\n" % section).encode())
        f = s.makefile("rb")
        length = int(f.readline()[1:])
        return f.read(length).decode()


def wait_for(condition, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def zombie(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return False


class PrivateRedisTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="kvlab-private-redis-test-")
        self.env = dict(os.environ, TMPDIR=self.tmp)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def start(self):
        server = serverlib.KvlabServer(
            KVLAB, args=["--hash-encoding", "2", "--zset-encoding", "3"], env=self.env).start()
        self.addCleanup(server.cleanup)
        client = redis.Redis(port=server.port, decode_responses=True)
        self.addCleanup(client.close)
        return server, client

    def runtime_dirs(self):
        return sorted(glob.glob(os.path.join(self.tmp, "kvlab-redis-*")))

    def owners(self):
        """{runtime dir: redis-server pid} of every private server's directory."""
        out = {}
        for d in self.runtime_dirs():
            with open(os.path.join(d, "owner")) as f:
                out[d] = int(f.read().split()[3])
        return out

    def test_private_servers_are_private_supervised_and_cleaned_up(self):
        server, k = self.start()
        k.hset("h", "f", "v")
        self.assertEqual(k.hget("h", "f"), "v")  # the cache starts
        k.zadd("z", {"a": 1})                    # the store starts
        self.assertEqual(k.zscore("z", "a"), 1.0)

        # Private: unix sockets in 0700 directories, a password, and no address in INFO.
        dirs = self.runtime_dirs()
        self.assertEqual(len(dirs), 2, dirs)
        for d in dirs:
            self.assertEqual(stat.S_IMODE(os.stat(d).st_mode), 0o700, d)
            sock = os.path.join(d, "redis.sock")
            with socket.socket(socket.AF_UNIX) as s:
                s.connect(sock)
                s.sendall(b"PING\r\n")
                self.assertEqual(s.recv(100), b"-NOAUTH Authentication required.\r\n")
        info = info_text(server.port, "kvlab")
        self.assertIn("redis_cache:private redis-server\r\n", info)
        self.assertIn("redis_store:private redis-server\r\n", info)
        self.assertIn("redis_store_state:running\r\n", info)
        whole = info_text(server.port, "everything")
        for leak in ["kvlab-redis-", "redis.sock", "unix://", self.tmp]:
            self.assertNotIn(leak, whole)

        # Supervised: a store killed from outside is reaped, logged and restarted.
        store_dir = [d for d in dirs if os.path.exists(os.path.join(d, "appendonlydir"))]
        self.assertEqual(len(store_dir), 1, dirs)
        victim = self.owners()[store_dir[0]]
        os.kill(victim, signal.SIGKILL)
        self.assertTrue(wait_for(
            lambda: "redis_store_restarts:1\r\nredis_store_identity_changes" in
            info_text(server.port, "kvlab") and
            "redis_store_state:running\r\n" in info_text(server.port, "kvlab")),
            info_text(server.port, "kvlab"))
        self.assertFalse(zombie(victim), "the dead redis-server was never reaped")
        self.assertIn("the private zset store redis-server (pid %d) exited: signal 9; "
                      "restarting in 100 ms" % victim, server.log())
        self.assertTrue(wait_for(lambda: self._zadd_works(k)), server.log())

        # A clean exit removes the directories.
        k.shutdown(nosave=True)
        self.assertEqual(server.wait(), 0)
        self.assertEqual(self.runtime_dirs(), [])

    def _zadd_works(self, k):
        try:
            k.zadd("z2", {"b": 2})
            return k.zscore("z2", "b") == 2.0
        except redis.ResponseError:
            return False

    def test_directories_of_a_killed_kvlab_go_at_the_next_start(self):
        server, k = self.start()
        k.hset("h", "f", "v")
        k.hget("h", "f")
        k.zadd("z", {"a": 1})
        children = self.owners()
        self.assertEqual(len(children), 2)
        server.stop(signal.SIGKILL)
        # The servers die with kvlab (their parent-death signal); their directories stay.
        self.assertTrue(wait_for(lambda: not any(alive(p) for p in children.values())))
        self.assertEqual(self.runtime_dirs(), sorted(children))
        second, k2 = self.start()
        self.assertEqual(k2.ping(), True)
        # The killed kvlab's directories are gone; what remains is the second kvlab's own
        # (it starts its servers at start, to check that --hash-encoding 2 has its tier).
        self.assertEqual(set(self.runtime_dirs()) & set(children), set())
        for d, pid in self.owners().items():
            self.assertNotIn(pid, children.values(), d)
        k2.shutdown(nosave=True)
        second.wait()
        self.assertEqual(self.runtime_dirs(), [])


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]])

"""SIGKILL `kvlab serve` under pipelined writers on the Redis-tier versions, restart it, and check
that no acknowledged write was lost and every key still reads (durability_test.py's TierCrash).

One lane per KV backend: a store redis-server (AOF everysec, as the private one) and a cache
redis-server that outlive every kvlab of the lane, and one KV directory. Every kvlab of a lane
holds keys of all seven Redis-tier versions at once (hash v2/v3, zset v1/v2/v3, set v2/v3: a
key keeps the version it was created with), so every kill hits all of them.

Each writer owns one key per version and sends, per key, a deterministic stream of writes
(seq 0, 1, 2, ...: adds, updates, removals, long zset members that need an i# record), 16
commands per pipelined batch, with a read now and then so that the caches are warm when the
kill comes. It counts the write replies it received per key: the acknowledged writes. After the
restart, each key is read in full, twice (the first read refills the caches, the second reads
them) and by point reads; the state must equal the stream's model after some prefix k of the
writes sent, with k at least the acknowledged count (an unacknowledged write may be there or
not: the largest such k is taken, and the stream goes on from there). A key whose read fails is
unreadable; a key whose state is no prefix at or after the acknowledged one lost writes.
"""
import os
import random
import signal
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import redis  # noqa: E402
import serverlib  # noqa: E402

# (type, version) of every Redis-tier version.
VERSIONS = [("hash", "2"), ("hash", "3"), ("zset", "1"), ("zset", "2"), ("zset", "3"),
            ("set", "2"), ("set", "3")]
BATCH = 16
BASE = "base"  # an element every key is created with and no stream touches: keys never empty


def command(*args):
    out = b"*%d\r\n" % len(args)
    for a in args:
        a = str(a).encode()
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    return out


# --- the streams and their models ----------------------------------------------------------

def zset_member(i):
    # Every third member is 15 bytes or more: zset v2/v3 refer to it by md5 and keep an i#.
    return "long-member-name-%08d" % i if i % 3 == 0 else "m%d" % i


def stream(kind, key, i):
    """The write of sequence number i on `key`: (argv, update), update(model) applies it."""
    if kind == "zset":
        if i % 5 == 4:
            m = zset_member(i - 2)
            return ("ZREM", key, m), lambda s: s.pop(m, None)
        if i % 7 == 6:
            m = zset_member(i - 1)
            return ("ZINCRBY", key, 1, m), lambda s: s.__setitem__(m, s.get(m, 0.0) + 1)
        m = zset_member(i)
        return ("ZADD", key, i, m), lambda s: s.__setitem__(m, float(i))
    if kind == "hash":
        if i % 4 == 3:
            f = "f%d" % ((i - 1) % 40)
            return ("HDEL", key, f), lambda s: s.pop(f, None)
        if i % 6 == 5:
            return ("HINCRBY", key, "ctr", 1), lambda s: s.__setitem__(
                "ctr", str(int(s.get("ctr", "0")) + 1))
        f = "f%d" % (i % 40)
        return ("HSET", key, f, i), lambda s: s.__setitem__(f, str(i))
    m = "m%d" % ((i * 7) % 30) if i % 3 == 2 else "m%d" % (i % 30)
    if i % 3 == 2:
        return ("SREM", key, m), lambda s: s.pop(m, None)
    return ("SADD", key, m), lambda s: s.__setitem__(m, True)


def reads(kind, key):
    """A read that goes through the version's cache (or zset v3's store)."""
    return {"zset": ("ZRANGE", key, 0, 4, "WITHSCORES"), "hash": ("HGETALL", key),
            "set": ("SMEMBERS", key)}[kind]


class KeyStream:
    """One key's stream: the model after `base` writes, and what this round sent and had
    acknowledged."""

    def __init__(self, kind, version, key):
        self.kind, self.version, self.key = kind, version, key
        self.model = {}  # after `base` writes
        self.base = 0
        self.sent = 0  # writes sent this round (seq base .. base + sent - 1)
        self.acked = 0  # of them, replies received
        self.errors = 0  # error replies to this key's commands this round

    def next_write(self):
        argv, _ = stream(self.kind, self.key, self.base + self.sent)
        self.sent += 1
        return argv

    def settle(self, state):
        """Matches the state read after a restart against the model after base + j writes,
        j = 0..sent. Returns (j matched or None, writes lost): the largest j matched; the
        stream goes on from there."""
        model = dict(self.model)
        matched = 0 if model == state else None
        for j in range(1, self.sent + 1):
            stream(self.kind, self.key, self.base + j - 1)[1](model)
            if len(model) == len(state) and model == state:
                matched = j
                best = dict(model)
        if matched is None:
            return None, self.acked
        if matched > 0:
            self.model = best
        self.base += matched
        lost = max(0, self.acked - matched)
        self.sent = self.acked = 0
        return matched, lost


class RespCounter:
    """Counts complete RESP2 replies in a byte stream, and keeps the error replies."""

    def __init__(self):
        self.buf = b""
        self.errors = []

    def feed(self, data):
        """Returns, for each reply `data` completed, whether it is an error."""
        self.buf += data
        done = []
        pos = 0
        while True:
            end = self._skip(pos)
            if end is None:
                break
            error = self.buf[pos:pos + 1] == b"-"
            if error:
                self.errors.append(self.buf[pos + 1:self.buf.index(b"\r\n", pos)].decode())
            done.append(error)
            pos = end
        self.buf = self.buf[pos:]
        return done

    def _skip(self, pos):
        """The end of the reply at pos, or None when it is incomplete."""
        eol = self.buf.find(b"\r\n", pos)
        if eol < 0:
            return None
        kind, head = self.buf[pos:pos + 1], self.buf[pos + 1:eol]
        if kind in (b"+", b"-", b":"):
            return eol + 2
        n = int(head)
        if kind == b"$":
            if n < 0:
                return eol + 2
            end = eol + 2 + n + 2
            return end if len(self.buf) >= end else None
        pos = eol + 2
        for _ in range(max(n, 0)):
            pos = self._skip(pos)
            if pos is None:
                return None
        return pos


class Writer(threading.Thread):
    """Pipelines batches of writes (and a read per batch) over its keys until the server goes."""

    def __init__(self, port, streams):
        super().__init__()
        self.port, self.streams = port, streams
        self.errors = []
        self.replies = 0

    def run(self):
        rng = random.Random(self.port * 131 + len(self.streams))
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=30) as s:
                resp = RespCounter()
                n = 0
                while True:
                    batch, owners = b"", []  # (the KeyStream, whether a write) per command
                    for _ in range(BATCH):
                        ks = self.streams[n % len(self.streams)]
                        n += 1
                        batch += command(*ks.next_write())
                        owners.append((ks, True))
                    ks = rng.choice(self.streams)
                    batch += command(*reads(ks.kind, ks.key))
                    owners.append((ks, False))
                    try:
                        s.sendall(batch)
                    except OSError:
                        return
                    got = 0
                    while got < len(owners):
                        try:
                            chunk = s.recv(65536)
                        except OSError:
                            return
                        if not chunk:
                            return
                        errors = len(resp.errors)
                        for error in resp.feed(chunk):
                            ks, write = owners[got]
                            if error:
                                ks.errors += 1
                            elif write:
                                ks.acked += 1
                            got += 1
                            self.replies += 1
                        if len(resp.errors) > errors:
                            self.errors += resp.errors[errors:]
                            return
        except Exception as e:  # reported by the test
            self.errors.append(repr(e))


# --- reading a key back --------------------------------------------------------------------

def read_state(c, kind, key):
    """The key's elements, read in full twice (cold, then through the cache) and by point reads,
    which must all agree. Raises on an error reply or a disagreement."""
    if kind == "zset":
        full = [dict(c.zrange(key, 0, -1, withscores=True)) for _ in range(2)]
        card = c.zcard(key)
        byscore = dict(c.zrangebyscore(key, "-inf", "+inf", withscores=True))
        some = list(full[0])[:: max(1, len(full[0]) // 8)]
        points = {m: c.zscore(key, m) for m in some}
        ranks = [c.zrank(key, m) for m in some]
        order = {m: r for r, m in enumerate(sorted(full[0], key=lambda m: (full[0][m], m)))}
        want_ranks = [order[m] for m in some]
        agree = (full[0] == full[1] == byscore and card == len(full[0])
                 and all(points[m] == full[0][m] for m in some) and ranks == want_ranks)
    elif kind == "hash":
        full = [c.hgetall(key) for _ in range(2)]
        fields = sorted(full[0])
        point = dict(zip(fields, c.hmget(key, fields))) if fields else {}
        agree = (full[0] == full[1] == point and c.hlen(key) == len(full[0])
                 and all(c.hget(key, f) == full[0][f] for f in fields[:5]))
    else:
        full = [{m: True for m in c.smembers(key)} for _ in range(2)]
        probe = ["m%d" % i for i in range(30)] + [BASE]
        member = dict(zip(probe, c.smismember(key, probe)))
        agree = (full[0] == full[1] and c.scard(key) == len(full[0])
                 and all(bool(member[m]) == (m in full[0]) for m in probe))
    if not agree:
        raise AssertionError("reads of %s %s disagree: %r" % (kind, key, full))
    state = full[0]
    if BASE not in state:
        raise AssertionError("%s %s lost its base element" % (kind, key))
    del state[BASE]
    return state


# --- the servers of a lane -----------------------------------------------------------------

class StoreRedis(serverlib.RedisServer):
    """The zset store: AOF everysec, never evicting, as kvlab's private store."""
    name = "store-redis"

    def command(self, port):
        return ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                "--appendonly", "yes", "--appendfsync", "everysec", "--maxmemory-policy",
                "noeviction", "--daemonize", "no", "--dir", self.workdir]


class Lane:
    """One backend's KV directory, store and cache, and the kvlab restarted on them. With
    `private`, the store and the cache are kvlab's own private redis-servers (the store's AOF in
    the KV directory): a killed kvlab's store gets SIGTERM from the kernel (parent death) and
    the next kvlab starts another on the same AOF."""

    def __init__(self, kvlab, backend, writers, store_dir, private=False):
        self.kvlab, self.backend, self.store_dir, self.private = kvlab, backend, store_dir, private
        self.name = backend + (" (private store)" if private else "")
        self.store = None if private else StoreRedis().start()
        self.cache = None if private else serverlib.RedisServer().start()
        self.server = None
        self.streams = [[KeyStream(kind, v, "%s:v%s:w%d" % (kind, v, w)) for kind, v in VERSIONS]
                        for w in range(writers)]
        self.stats = {v: {"kills": 0, "writes": 0, "lost": 0, "unreadable": 0, "errors": 0}
                      for v in VERSIONS}
        self.reconciled = 0
        self.unreadable = set()  # keys found unreadable after some restart
        self.problems = []

    def start_kvlab(self):
        args = [] if self.private else ["--store-redis", "127.0.0.1:%d" % self.store.port,
                                        "--cache-redis", "127.0.0.1:%d" % self.cache.port]
        if self.server is None:
            # Private servers' runtime directories under the lane's own TMPDIR: kvlab cleans up
            # after the ones it killed, and nothing else is looked at.
            tmp = os.path.join(self.store_dir, "tmp")
            os.makedirs(tmp, exist_ok=True)
            self.server = serverlib.KvlabServer(self.kvlab, backend=self.backend,
                                                store_dir=os.path.join(self.store_dir, "kv"),
                                                args=args, env=dict(os.environ, TMPDIR=tmp))
        self.server.port = None
        self.server.start()
        return redis.Redis(port=self.server.port, decode_responses=True)

    def create_keys(self):
        c = self.start_kvlab()
        for kind, v in VERSIONS:
            c.config_set("kv.%s.key.meta.version" % kind, v)
            for per_writer in self.streams:
                key = [ks for ks in per_writer if (ks.kind, ks.version) == (kind, v)][0].key
                {"zset": lambda: c.zadd(key, {BASE: -1}), "hash": lambda: c.hset(key, BASE, 1),
                 "set": lambda: c.sadd(key, BASE)}[kind]()
        c.close()

    def kill_round(self, rng):
        """Writers, a SIGKILL while they write, a restart, and every key checked."""
        port = self.server.port
        writers = [Writer(port, s) for s in self.streams]
        for w in writers:
            w.start()
        deadline = time.monotonic() + 60
        while (not all(w.replies > 0 or not w.is_alive() for w in writers)
               and time.monotonic() < deadline):
            time.sleep(0.02)
        time.sleep(rng.uniform(0.1, 0.8))
        code = self.server.stop(signal.SIGKILL)
        for w in writers:
            w.join(60)
        if code != -signal.SIGKILL:
            self.problems.append("%s: kvlab exited %s before the kill: %s" %
                                 (self.name, code, self.server.log()))
        c = self.start_kvlab()
        for w, per_writer in zip(writers, self.streams):
            for e in w.errors:
                self.problems.append("%s: a writer got %s" % (self.name, e))
            for ks in per_writer:
                st = self.stats[(ks.kind, ks.version)]
                st["writes"] += ks.acked
                st["errors"] += ks.errors
                ks.errors = 0
                try:
                    state = read_state(c, ks.kind, ks.key)
                except Exception as e:
                    if ks.key not in self.unreadable:
                        st["unreadable"] += 1
                        self.unreadable.add(ks.key)
                    self.problems.append("%s %s unreadable after the restart: %s" %
                                         (self.name, ks.key, e))
                    ks.sent = ks.acked = 0  # nothing to go on from: keep the last known state
                    continue
                acked = ks.acked
                matched, lost = ks.settle(state)
                if lost:
                    st["lost"] += lost
                    self.problems.append(
                        "%s %s: %s of %d acknowledged writes are in the store" %
                        (self.name, ks.key, "none of the prefixes" if matched is None
                         else "only %d" % matched, acked))
        for v in VERSIONS:
            self.stats[v]["kills"] += 1
        info = c.info("kvlab")
        self.reconciled += int(info.get("zset_store_reconciled", 0))
        c.close()

    def close(self):
        if self.server is not None:
            self.server.stop()
            self.server.cleanup()
        for s in (self.store, self.cache):
            if s is not None:
                s.cleanup()


def table(lanes, elapsed):
    """The Markdown tables of a run: per version, then per lane: kills, acknowledged writes,
    writes lost, keys unreadable after some restart, error replies to the writers."""
    def row(name, kills, stats, extra=""):
        t = {k: sum(st[k] for st in stats) for k in ("writes", "lost", "unreadable", "errors")}
        return "| %s | %d | %d | %d | %d | %d |%s" % (name, kills, t["writes"], t["lost"],
                                                    t["unreadable"], t["errors"], extra)
    head = "| %s | kills | acknowledged writes | lost | unreadable keys | error replies |"
    kills = [lane.stats[VERSIONS[0]]["kills"] for lane in lanes]
    rows = [head % "version", "|---|---|---|---|---|---|"]
    for v in VERSIONS:
        rows.append(row("%s v%s" % v, sum(kills), [lane.stats[v] for lane in lanes]))
    rows += ["", head % "lane" + " zset v3 keys reconciled |", "|---|---|---|---|---|---|---|"]
    for lane, n in zip(lanes, kills):
        rows.append(row(lane.name, n, [lane.stats[v] for v in VERSIONS], " %d |" % lane.reconciled))
    rows += ["", "%d kills in %.0f s" % (sum(kills), elapsed)]
    return "\n".join(rows)

// MULTI/EXEC/DISCARD/WATCH/UNWATCH (engine/transaction.cc): queueing and its errors, EXECABORT,
// WATCH's modification detection (another session, a blind write, expiry, FLUSHALL), blocking
// commands inside EXEC, and isolation: a concurrent client never observes a half-applied EXEC.
// The replies' bytes are also checked against redis-server by the corpus (transactions.txt).
#include <gtest/gtest.h>

#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

#include "backends/kv_store_wrapper.h"
#include "engine/command_table.h"
#include "testing/engine_test_util.h"

namespace kvlab::engine {

using backends::KvStore;
using resp::Reply;
using testing::EngineHarness;

namespace {

// Runs command lines on a second session of the harness's engine (another client).
std::string RunOn(EngineHarness& e, Session& session, const std::string& line) {
  std::vector<std::string> argv;
  EXPECT_TRUE(resp::SplitArgs(line, &argv));
  return e.engine().Execute(session, argv).Describe();
}

TEST(Transaction, QueuesAndRunsWithEachCommandsReplyOrError) {
  EngineHarness e;
  EXPECT_EQ(e.Run("MULTI"), "OK");
  EXPECT_EQ(e.Run("MULTI"), "(error) ERR MULTI calls can not be nested");
  EXPECT_EQ(e.Run("WATCH a"), "(error) ERR WATCH inside MULTI is not allowed");
  EXPECT_EQ(e.Run("SET a v"), "QUEUED");
  EXPECT_EQ(e.Run("INCR a"), "QUEUED");
  EXPECT_EQ(e.Run("HSET h f 1"), "QUEUED");
  EXPECT_EQ(e.Run("GET a"), "QUEUED");
  // Nothing ran yet.
  Session other;
  EXPECT_EQ(RunOn(e, other, "EXISTS a h"), "(integer) 0");
  // The failing command's error is its element; the others ran.
  EXPECT_EQ(e.Run("EXEC"),
            "[OK, (error) ERR value is not an integer or out of range, (integer) 1, \"v\"]");
  EXPECT_EQ(RunOn(e, other, "EXISTS a h"), "(integer) 2");
  EXPECT_EQ(e.Run("EXEC"), "(error) ERR EXEC without MULTI");
  EXPECT_EQ(e.Run("DISCARD"), "(error) ERR DISCARD without MULTI");
  EXPECT_EQ(e.Run("MULTI"), "OK");
  EXPECT_EQ(e.Run("EXEC"), "[]");
  EXPECT_EQ(e.Run("MULTI"), "OK");
  EXPECT_EQ(e.Run("DEL a"), "QUEUED");
  EXPECT_EQ(e.Run("DISCARD"), "OK");
  EXPECT_EQ(e.Run("EXISTS a"), "(integer) 1");
}

TEST(Transaction, AnErrorWhileQueueingAbortsTheExec) {
  EngineHarness e;
  for (const char* bad : {"NOSUCHCOMMAND x", "SET a", "EXEC junk"}) {
    EXPECT_EQ(e.Run("MULTI"), "OK");
    EXPECT_EQ(e.Run("SET a 1"), "QUEUED");
    const std::string reply = e.Run(bad);
    if (std::string_view(bad) == "EXEC junk") {
      // An EXEC rejected so discards the transaction at once and says why.
      EXPECT_EQ(reply,
                "(error) EXECABORT Transaction discarded because of: wrong number of arguments "
                "for 'exec' command");
    } else {
      EXPECT_TRUE(reply.starts_with("(error) ERR ")) << reply;
      EXPECT_EQ(e.Run("SET b 1"), "QUEUED");
      EXPECT_EQ(e.Run("EXEC"),
                "(error) EXECABORT Transaction discarded because of previous errors.");
    }
    EXPECT_EQ(e.Run("EXEC"), "(error) ERR EXEC without MULTI");
    EXPECT_EQ(e.Run("EXISTS a b"), "(integer) 0");
  }
  // A command's own error at EXEC does not abort the others (only queueing errors do).
  EXPECT_EQ(e.Run("MULTI"), "OK");
  EXPECT_EQ(e.Run("KVLAB.GC"), "(error) ERR Command not allowed inside a transaction");
  // SHUTDOWN is Redis's NO_MULTI: queued, EXEC would stop the server (Redis's multi.tcl).
  EXPECT_EQ(e.Run("SHUTDOWN"), "(error) ERR Command not allowed inside a transaction");
  EXPECT_EQ(e.Run("EXEC"), "(error) EXECABORT Transaction discarded because of previous errors.");
  // A container's unknown subcommand, or a subcommand's wrong arity, is a queueing error, as
  // Redis's lookupSubcommand: it is not queued to fail at EXEC.
  EXPECT_EQ(e.Run("MULTI"), "OK");
  EXPECT_EQ(e.Run("OBJECT NOSUCH k"), "(error) ERR unknown subcommand 'NOSUCH'. Try OBJECT HELP.");
  EXPECT_EQ(e.Run("SET a 1"), "QUEUED");
  EXPECT_EQ(e.Run("EXEC"), "(error) EXECABORT Transaction discarded because of previous errors.");
  EXPECT_EQ(e.Run("MULTI"), "OK");
  EXPECT_EQ(e.Run("MEMORY USAGE"),
            "(error) ERR wrong number of arguments for 'memory|usage' command");
  EXPECT_EQ(e.Run("EXEC"), "(error) EXECABORT Transaction discarded because of previous errors.");
}

TEST(Transaction, WatchedKeyModifiedByAnotherClientFailsTheExec) {
  EngineHarness e;
  Session other;
  EXPECT_EQ(e.Run("SET k 1"), "OK");
  EXPECT_EQ(e.Run("WATCH k"), "OK");
  EXPECT_EQ(RunOn(e, other, "INCR k"), "(integer) 2");
  EXPECT_EQ(e.Run("MULTI"), "OK");
  EXPECT_EQ(e.Run("SET k 10"), "QUEUED");
  EXPECT_EQ(e.Run("EXEC"), "(nil array)");
  EXPECT_EQ(e.Run("GET k"), "\"2\"");
  // EXEC unwatched: the next transaction runs.
  EXPECT_EQ(RunOn(e, other, "INCR k"), "(integer) 3");
  EXPECT_EQ(e.Run("MULTI"), "OK");
  EXPECT_EQ(e.Run("SET k 10"), "QUEUED");
  EXPECT_EQ(e.Run("EXEC"), "[OK]");
}

TEST(Transaction, UnmodifiedOrUnchangedWatchedKeysLetTheExecRun) {
  EngineHarness e;
  Session other;
  EXPECT_EQ(e.Run("SET k 1"), "OK");
  EXPECT_EQ(e.Run("WATCH k nokey"), "OK");
  // Writes that change nothing (a DEL of a missing key, an error), reads, and other keys.
  EXPECT_EQ(RunOn(e, other, "DEL nokey"), "(integer) 0");
  EXPECT_EQ(RunOn(e, other, "HSET k f v"),
            "(error) WRONGTYPE Operation against a key holding the wrong kind of value");
  EXPECT_EQ(RunOn(e, other, "GET k"), "\"1\"");
  EXPECT_EQ(RunOn(e, other, "SET unrelated 1"), "OK");
  EXPECT_EQ(RunOn(e, other, "SELECT 1"), "OK");
  EXPECT_EQ(RunOn(e, other, "SET k other-db"), "OK");
  EXPECT_EQ(e.Run("MULTI"), "OK");
  EXPECT_EQ(e.Run("INCR k"), "QUEUED");
  EXPECT_EQ(e.Run("EXEC"), "[(integer) 2]");
}

TEST(Transaction, UnwatchAndDiscardForgetTheWatches) {
  EngineHarness e;
  Session other;
  EXPECT_EQ(e.Run("WATCH k"), "OK");
  EXPECT_EQ(e.Run("UNWATCH"), "OK");
  EXPECT_EQ(RunOn(e, other, "SET k 1"), "OK");
  EXPECT_EQ(e.Run("MULTI"), "OK");
  EXPECT_EQ(e.Run("GET k"), "QUEUED");
  EXPECT_EQ(e.Run("EXEC"), "[\"1\"]");

  EXPECT_EQ(e.Run("WATCH k"), "OK");
  EXPECT_EQ(e.Run("MULTI"), "OK");
  EXPECT_EQ(e.Run("DISCARD"), "OK");
  EXPECT_EQ(RunOn(e, other, "SET k 2"), "OK");
  EXPECT_EQ(e.Run("MULTI"), "OK");
  EXPECT_EQ(e.Run("GET k"), "QUEUED");
  EXPECT_EQ(e.Run("EXEC"), "[\"2\"]");

  // A client's own write to a key it watches counts too, as in Redis.
  EXPECT_EQ(e.Run("WATCH k"), "OK");
  EXPECT_EQ(e.Run("SET k 3"), "OK");
  EXPECT_EQ(e.Run("MULTI"), "OK");
  EXPECT_EQ(e.Run("GET k"), "QUEUED");
  EXPECT_EQ(e.Run("EXEC"), "(nil array)");
}

// Hash v1's HSET is blind: it writes the field's sub-key and leaves the key-meta as it was. The
// modification is still seen (it is tracked per key, not read from the meta).
TEST(Transaction, ABlindWriteThatLeavesTheMetaUnchangedIsSeen) {
  EngineHarness e;
  Session other;
  EXPECT_EQ(e.Run("CONFIG SET hash-encoding 1"), "OK");
  EXPECT_EQ(e.Run("HSET h f 1"), "(integer) 1");
  std::string meta_before;
  ASSERT_TRUE(e.store()->Get(e.engine().codec().MetaKey(0, "h"), &meta_before).ok());
  EXPECT_EQ(e.Run("WATCH h"), "OK");
  EXPECT_EQ(RunOn(e, other, "HSET h f 2"), "(integer) 1");
  std::string meta_after;
  ASSERT_TRUE(e.store()->Get(e.engine().codec().MetaKey(0, "h"), &meta_after).ok());
  ASSERT_EQ(meta_before, meta_after) << "the test needs a write that leaves the meta unchanged";
  EXPECT_EQ(e.Run("MULTI"), "OK");
  EXPECT_EQ(e.Run("HGET h f"), "QUEUED");
  EXPECT_EQ(e.Run("EXEC"), "(nil array)");
}

TEST(Transaction, AWatchedKeyThatExpiresFailsTheExec) {
  EngineHarness e;
  EXPECT_EQ(e.Run("SET k 1 PX 100"), "OK");
  EXPECT_EQ(e.Run("WATCH k"), "OK");
  e.clock().AdvanceMillis(50);
  EXPECT_EQ(e.Run("MULTI"), "OK");
  EXPECT_EQ(e.Run("GET k"), "QUEUED");
  EXPECT_EQ(e.Run("EXEC"), "[\"1\"]");  // not yet expired

  EXPECT_EQ(e.Run("WATCH k"), "OK");
  e.clock().AdvanceMillis(100);
  EXPECT_EQ(e.Run("MULTI"), "OK");
  EXPECT_EQ(e.Run("SET other 1"), "QUEUED");
  EXPECT_EQ(e.Run("EXEC"), "(nil array)");
  EXPECT_EQ(e.Run("EXISTS other"), "(integer) 0");

  // A key already expired when watched is absent, and stays absent: no change.
  EXPECT_EQ(e.Run("WATCH k"), "OK");
  e.clock().AdvanceMillis(1000);
  EXPECT_EQ(e.Run("MULTI"), "OK");
  EXPECT_EQ(e.Run("EXISTS k"), "QUEUED");
  EXPECT_EQ(e.Run("EXEC"), "[(integer) 0]");
}

TEST(Transaction, FlushModifiesTheWatchedKeysThatExisted) {
  EngineHarness e;
  Session other;
  EXPECT_EQ(e.Run("SET k 1"), "OK");
  EXPECT_EQ(e.Run("WATCH k"), "OK");
  EXPECT_EQ(RunOn(e, other, "FLUSHALL"), "OK");
  EXPECT_EQ(e.Run("MULTI"), "OK");
  EXPECT_EQ(e.Run("SET k 2"), "QUEUED");
  EXPECT_EQ(e.Run("EXEC"), "(nil array)");

  // A watched key that did not exist is not modified by a flush (Redis 7.0).
  EXPECT_EQ(e.Run("WATCH k"), "OK");
  EXPECT_EQ(RunOn(e, other, "FLUSHDB"), "OK");
  EXPECT_EQ(e.Run("MULTI"), "OK");
  EXPECT_EQ(e.Run("SET k 2"), "QUEUED");
  EXPECT_EQ(e.Run("EXEC"), "[OK]");

  // FLUSHDB of another database leaves this one's keys.
  EXPECT_EQ(e.Run("WATCH k"), "OK");
  EXPECT_EQ(RunOn(e, other, "SELECT 3"), "OK");
  EXPECT_EQ(RunOn(e, other, "FLUSHDB"), "OK");
  EXPECT_EQ(e.Run("MULTI"), "OK");
  EXPECT_EQ(e.Run("GET k"), "QUEUED");
  EXPECT_EQ(e.Run("EXEC"), "[\"2\"]");
}

TEST(Transaction, RenameAndCopyDestinationsAreModified) {
  EngineHarness e;
  Session other;
  EXPECT_EQ(e.Run("SET src 1"), "OK");
  for (const char* command : {"COPY src dst", "RENAME src dst"}) {
    EXPECT_EQ(e.Run("WATCH dst"), "OK");
    RunOn(e, other, command);
    EXPECT_EQ(e.Run("MULTI"), "OK");
    EXPECT_EQ(e.Run("GET dst"), "QUEUED");
    EXPECT_EQ(e.Run("EXEC"), "(nil array)") << command;
    EXPECT_EQ(e.Run("DEL dst"), "(integer) 1");
  }
}

TEST(Transaction, BlockingCommandsInsideExecTimeOutAtOnce) {
  EngineHarness e;
  EXPECT_EQ(e.Run("SET s v"), "OK");
  EXPECT_EQ(e.Run("MULTI"), "OK");
  EXPECT_EQ(e.Run("BLPOP l 0"), "QUEUED");
  EXPECT_EQ(e.Run("BLMOVE l m LEFT LEFT 0"), "QUEUED");
  EXPECT_EQ(e.Run("BLMOVE s m LEFT LEFT 0"), "QUEUED");
  EXPECT_EQ(e.Run("RPUSH l a"), "QUEUED");
  EXPECT_EQ(e.Run("BLPOP l 0"), "QUEUED");
  EXPECT_EQ(e.Run("EXEC"),
            "[(nil array), (nil), (error) WRONGTYPE Operation against a key holding the wrong kind "
            "of value, (integer) 1, [\"l\", \"a\"]]");
  // Outside a transaction, the in-process engine still says it cannot block.
  EXPECT_TRUE(e.Run("BLPOP l 0").starts_with("(error) ERR BLPOP would block"))
      << e.Run("BLPOP l 0");
}

TEST(Transaction, SelectInsideMultiMovesTheLaterCommands) {
  EngineHarness e;
  EXPECT_EQ(e.Run("MULTI"), "OK");
  EXPECT_EQ(e.Run("SELECT 1"), "QUEUED");
  EXPECT_EQ(e.Run("SET b 1"), "QUEUED");
  EXPECT_EQ(e.Run("SELECT 0"), "QUEUED");
  EXPECT_EQ(e.Run("GET b"), "QUEUED");
  EXPECT_EQ(e.Run("EXEC"), "[OK, OK, OK, (nil)]");
  EXPECT_EQ(e.Run("SELECT 1"), "OK");
  EXPECT_EQ(e.Run("GET b"), "\"1\"");
}

// Each queued command is accounted as itself; EXEC's own statistics hold none of their KV
// operations (the engine's totals count each once), while the caller's cost has them all.
TEST(Transaction, AccountingStaysPerCommand) {
  EngineHarness e;
  EXPECT_EQ(e.Run("MULTI"), "OK");
  EXPECT_EQ(e.Run("SET a 1"), "QUEUED");
  EXPECT_EQ(e.Run("GET a"), "QUEUED");
  const backends::OpCounts before = e.engine().TotalKvOps();
  CommandCost cost;
  EXPECT_EQ(e.Exec("EXEC", &cost).Describe(), "[OK, \"1\"]");
  const backends::OpCounts after = e.engine().TotalKvOps();
  EXPECT_EQ(after.gets - before.gets, cost.kv.gets);
  EXPECT_EQ(after.batches - before.batches, cost.kv.batches);
  EXPECT_GE(cost.kv.batches, 1u);
  const CommandTable& table = e.engine().commands();
  EXPECT_EQ(e.engine().stats(table.IndexOf(*table.Find("exec"))).kv.Snapshot().batches, 0u);
  EXPECT_EQ(e.engine().stats(table.IndexOf(*table.Find("set"))).calls.load(), 1u);
  EXPECT_EQ(e.engine().stats(table.IndexOf(*table.Find("get"))).calls.load(), 1u);
}

// Forwards to a store; the first Get of an armed key waits until Open().
class GateStore final : public backends::KvStoreWrapper {
 public:
  explicit GateStore(KvStore* base) : KvStoreWrapper(base) {}
  void Arm(std::string key) {
    std::lock_guard lock(mu_);
    armed_ = std::move(key);
  }
  void WaitHeld() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return held_; });
  }
  void Open() {
    std::lock_guard lock(mu_);
    open_ = true;
    cv_.notify_all();
  }
  Status Get(std::string_view key, std::string* value) override {
    bool hold = false;
    {
      std::lock_guard lock(mu_);
      if (!armed_.empty() && key == armed_) {
        armed_.clear();
        hold = true;
      }
    }
    if (hold) {
      std::unique_lock lock(mu_);
      held_ = true;
      cv_.notify_all();
      cv_.wait(lock, [&] { return open_; });
    }
    return target()->Get(key, value);
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::string armed_;
  bool held_ = false;
  bool open_ = false;
};

// The commands of an EXEC read each other's writes, and the store sees one write for them all;
// when that write fails, nothing of the transaction is in the store and every command says so.
TEST(Transaction, ExecIsOneAtomicWriteOnKvOnlyVersions) {
  testing::CountedWritesEngine e("rocksdb");
  testing::WriteCountingStore& counted = *e.counted;
  auto run = [&](const std::string& line) { return e.Run(line); };
  ASSERT_EQ(run("SET keep 1"), "OK");
  ASSERT_EQ(run("MULTI"), "OK");
  for (const char* line :
       {"SET a 1", "INCR a", "HSET h f v g w", "HDEL h f", "HGETALL h", "ZADD z 1 x 2 y",
        "ZREVRANGE z 0 -1", "RPUSH l p q", "LPOP l", "DEL keep", "KEYS *"}) {
    ASSERT_EQ(run(line), "QUEUED");
  }
  counted.writes = 0;
  EXPECT_EQ(run("EXEC"),
            "[OK, (integer) 2, (integer) 2, (integer) 1, [\"g\", \"w\"], (integer) 2, [\"y\", "
            "\"x\"], (integer) 2, \"p\", (integer) 1, [\"a\", \"h\", \"l\", \"z\"]]");
  EXPECT_EQ(counted.writes, 1);
  EXPECT_EQ(run("MGET a keep"), "[\"2\", (nil)]");
  EXPECT_EQ(run("LRANGE l 0 -1"), "[\"q\"]");

  // The one write fails: the store is as before the EXEC, and every command replies the error.
  ASSERT_EQ(run("MULTI"), "OK");
  for (const char* line : {"SET b 1", "GET b", "DEL a", "ZADD z 3 w"}) {
    ASSERT_EQ(run(line), "QUEUED");
  }
  counted.fail_next = true;
  const std::string error = "(error) ERR storage error: IOError: injected write failure";
  EXPECT_EQ(run("EXEC"), "[" + error + ", " + error + ", " + error + ", " + error + "]");
  EXPECT_EQ(run("MGET a b"), "[\"2\", (nil)]");
  EXPECT_EQ(run("ZCARD z"), "(integer) 2");
  // A queued command's own error writes nothing and leaves the others' write whole.
  ASSERT_EQ(run("MULTI"), "OK");
  ASSERT_EQ(run("SET c 1"), "QUEUED");
  ASSERT_EQ(run("LPUSH a x"), "QUEUED");
  ASSERT_EQ(run("INCR c"), "QUEUED");
  counted.writes = 0;
  EXPECT_EQ(run("EXEC"),
            "[OK, (error) WRONGTYPE Operation against a key holding the wrong kind of value, "
            "(integer) 2]");
  EXPECT_EQ(counted.writes, 1);
  EXPECT_EQ(run("GET c"), "\"2\"");
}

// An EXEC held between its two commands (the second one's read waits at the gate): a reader of
// both keys waits for the whole EXEC, and then sees both writes.
TEST(Transaction, NoClientSeesAHalfAppliedExec) {
  testing::ScratchDir scratch;
  backends::StoreSpec spec;
  spec.backend = "memory";
  spec.options.dir = scratch.Sub("store");
  std::unique_ptr<backends::OpenedStore> store;
  ASSERT_TRUE(backends::OpenStore(spec, &store).ok());
  GateStore gate(store->store());
  Engine engine(&gate, EngineOptions{});
  auto run = [&engine](Session& s, std::vector<std::string> argv) {
    return engine.Execute(s, argv).Describe();
  };
  Session writer;
  ASSERT_EQ(run(writer, {"MULTI"}), "OK");
  ASSERT_EQ(run(writer, {"INCR", "a"}), "QUEUED");
  ASSERT_EQ(run(writer, {"INCR", "b"}), "QUEUED");
  gate.Arm(engine.codec().MetaKey(0, "b"));
  auto exec = std::async(std::launch::async, [&] { return run(writer, {"EXEC"}); });
  gate.WaitHeld();  // INCR a's write is pending; INCR b is stuck in its read, under EXEC's locks
  auto reader = std::async(std::launch::async, [&] {
    Session s;
    return run(s, {"MGET", "a", "b"});
  });
  EXPECT_EQ(reader.wait_for(std::chrono::milliseconds(300)), std::future_status::timeout)
      << "a reader ran in the middle of an EXEC";
  gate.Open();
  ASSERT_EQ(exec.wait_for(std::chrono::seconds(20)), std::future_status::ready);
  EXPECT_EQ(exec.get(), "[(integer) 1, (integer) 1]");
  ASSERT_EQ(reader.wait_for(std::chrono::seconds(20)), std::future_status::ready);
  EXPECT_EQ(reader.get(), "[\"1\", \"1\"]");
}

// Threads run transactions that move one unit between two counters while others read both:
// every read sees the sum unchanged.
TEST(Transaction, ConcurrentReadersAlwaysSeeWholeTransactions) {
  EngineHarness e;
  EXPECT_EQ(e.Run("MSET a 1000 b 0"), "OK");
  std::atomic<bool> torn{false};
  std::atomic<int> writers_left{2};
  std::vector<std::thread> threads;
  for (int w = 0; w < 2; ++w) {
    threads.emplace_back([&] {
      Session s;
      for (int i = 0; i < 300; ++i) {
        for (const char* line : {"MULTI", "DECR a", "INCR b", "EXEC"}) RunOn(e, s, line);
      }
      writers_left.fetch_sub(1);
    });
  }
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back([&] {
      Session s;
      while (writers_left.load() > 0) {
        const Reply reply = e.engine().Execute(s, {"MGET", "a", "b"});
        const int64_t sum =
            std::stoll(reply.elements()[0].str()) + std::stoll(reply.elements()[1].str());
        if (sum != 1000) torn = true;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_FALSE(torn.load());
  EXPECT_EQ(e.Run("MGET a b"), "[\"400\", \"600\"]");
}

}  // namespace
}  // namespace kvlab::engine

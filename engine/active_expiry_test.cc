// The TTL index and the active expiry cycle (engine/active_expiry.h): every key-meta with an
// expiry has its index entry, whatever the commands did; a cycle reaps every expired key with
// its sub-keys and deletes the stale entries, on every backend and every version of every type;
// a cycle stops at its budget and the next one goes on; and the cycle running beside concurrent
// writers, DEL and EXPIRE never loses live data.
#include "engine/active_expiry.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "backends/registry.h"
#include "encodings/coding.h"
#include "encodings/key_meta.h"
#include "encodings/registry.h"
#include "testing/engine_test_util.h"
#include "testing/gc_test_util.h"
#include "testing/kv_test_util.h"
#include "testing/model_test_util.h"

namespace kvlab::engine {
namespace {

using encodings::KeyMeta;
using testing::EngineHarness;
using testing::FillKey;
using testing::GcCommandsByType;
using testing::GcTypeCommands;

EngineOptions Indexed() {
  EngineOptions options;
  options.keys.ttl_index = true;
  return options;
}

// (db, key, expiry) of every TTL index entry, and of every stored key-meta with an expiry.
using Expiries = std::set<std::tuple<int, std::string, int64_t>>;

Expiries IndexEntries(Engine& engine) {
  Expiries out;
  std::unique_ptr<backends::Iterator> it = engine.store()->NewIterator({});
  for (it->Seek("t#"); it->Valid() && it->key().starts_with("t#"); it->Next()) {
    bool decoded = false;
    for (int db = 0; db < engine.databases() && !decoded; ++db) {
      int64_t expire_ms = 0;
      std::string key;
      if (engine.codec().DecodeTtlIndexKey(static_cast<uint8_t>(db), it->key(), &expire_ms, &key)) {
        out.emplace(db, key, expire_ms);
        decoded = true;
      }
    }
    EXPECT_TRUE(decoded) << "not an index entry: " << it->key();
  }
  EXPECT_TRUE(it->status().ok());
  return out;
}

Expiries MetaExpiries(Engine& engine) {
  Expiries out;
  for (int db = 0; db < engine.databases(); ++db) {
    const std::string prefix = engine.codec().MetaPrefix(static_cast<uint8_t>(db));
    std::unique_ptr<backends::Iterator> it = engine.store()->NewIterator({});
    for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
      std::string key;
      KeyMeta meta;
      EXPECT_TRUE(engine.codec().DecodeMetaKey(static_cast<uint8_t>(db), it->key(), &key));
      EXPECT_TRUE(KeyMeta::Decode(it->value(), engine.registry(), &meta).ok());
      if (meta.has_expire()) out.emplace(db, key, meta.expire_ms);
    }
  }
  return out;
}

// Every expiring meta has its entry (the index may also hold stale ones).
void ExpectIndexCoversMetas(Engine& engine, const std::string& after) {
  const Expiries index = IndexEntries(engine);
  for (const auto& e : MetaExpiries(engine)) {
    EXPECT_TRUE(index.count(e)) << "after " << after << ": no index entry for db " << std::get<0>(e)
                                << " key '" << std::get<1>(e) << "' expiring at " << std::get<2>(e);
  }
}

GcStats RunUntilIdle(Engine& engine, size_t batch = 3) {
  ActiveExpiryOptions options;
  options.batch_entries = batch;  // small: several batches, and reaps of several keys each
  options.purge_records = 7;      // batches end inside one key's sub-keys
  options.budget = std::chrono::microseconds(0);
  GcStats stats;
  const Status s = ActiveExpiry(&engine).RunUntilIdle(options, &stats);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return stats;
}

class ActiveExpiryMatrix : public ::testing::TestWithParam<testing::GcCell> {};

// The only garbage in the store is what expiry left (strings stand in for the deleted and
// overwritten keys, which have no sub-keys): after the cycles, a scan of the whole store finds
// no orphan and no expired meta, the index holds exactly the entries of the keys still
// expiring, and every live key reads as before.
TEST_P(ActiveExpiryMatrix, ReapsExpiredKeysWithTheirSubKeysAndKeepsEveryLiveKey) {
  const testing::GcCell& c = GetParam();
  auto commands = GcCommandsByType().find(c.type);
  ASSERT_NE(commands, GcCommandsByType().end())
      << "active_expiry_test does not know how to fill a " << c.type;
  const GcTypeCommands& t = commands->second;
  EngineHarness h(c.backend, Indexed());
  ASSERT_EQ(h.Run("CONFIG SET kv." + c.type + ".key.meta.version " + c.version), "OK");
  auto run = [&](const std::string& line) {
    const resp::Reply r = h.Exec(line);
    EXPECT_FALSE(r.is_error()) << line << ": " << r.Describe();
  };
  for (const char* key : {"live", "exp", "big", "ttl", "persisted", "moved"}) {
    run(FillKey(t.fill, key));
  }
  run(FillKey(t.fill_big, "big"));
  run("PEXPIRE exp 100");
  run("PEXPIRE big 200");
  run("PEXPIRE ttl 100000");  // expires later: live
  run("PEXPIRE persisted 100");
  run("PERSIST persisted");  // its entry goes
  run("PEXPIRE moved 100");
  run("PEXPIRE moved 300000");  // the entry moves
  run("SET blind x PX 100");
  run("SET blind y");  // a blind write: the entry stays, stale
  run("SET gone x PX 100");
  run("DEL gone");  // its entry goes
  h.clock().AdvanceMillis(1000);
  ExpectIndexCoversMetas(h.engine(), "the setup");
  // exp, big, ttl, moved, and blind's stale entry.
  EXPECT_EQ(IndexEntries(h.engine()).size(), 5u);

  const std::vector<std::string> live = {"live", "ttl", "persisted", "moved", "blind"};
  auto contents = [&](const std::string& key) {
    if (key == "blind") return h.Run("GET blind");
    const std::string read = FillKey(t.read, key);
    return testing::SortedIfUnordered({read.substr(0, read.find(' '))}, h.Exec(read));
  };
  std::map<std::string, std::string> before;
  for (const std::string& key : live) before[key] = contents(key);
  const testing::Garbage dirty = testing::ScanForGarbage(h.engine());
  EXPECT_EQ(dirty.expired_metas, 2u);

  const GcStats stats = RunUntilIdle(h.engine());
  EXPECT_EQ(stats.reclaimed_metas, 2u) << stats.Line();
  EXPECT_EQ(stats.stale_index_entries, 1u) << stats.Line();
  EXPECT_EQ(stats.index_entries, 3u) << stats.Line();  // only the due ones are read
  const auto& registry = h.engine().registry();
  const auto* row = registry.Find(registry.FindType(c.type)->type, c.version);
  ASSERT_NE(row, nullptr);
  // An Ardb key's records go with its meta, in the reap; a zset v3 keeps its members in the
  // store Redis (KV holds the long member's ref).
  if (!row->eager_delete) {
    EXPECT_GE(stats.reclaimed_sub_keys, row->tier == encodings::TierUse::kStore ? 2u : 28u)
        << stats.Line();
  }
  EXPECT_EQ(stats.reclaimed_tier, row->tier == encodings::TierUse::kStore ? 2u : 0u);
  const testing::Garbage clean = testing::ScanForGarbage(h.engine());
  EXPECT_EQ(clean.orphans, 0u) << stats.Line();
  EXPECT_EQ(clean.expired_metas, 0u);
  EXPECT_EQ(IndexEntries(h.engine()), MetaExpiries(h.engine()));
  for (const std::string& key : live) EXPECT_EQ(contents(key), before[key]) << key;
  EXPECT_EQ(h.Run("EXISTS exp big gone"), "(integer) 0");

  // Nothing more is due.
  const GcStats again = RunUntilIdle(h.engine());
  EXPECT_EQ(again.index_entries + again.reclaimed(), 0u) << again.Line();
}

INSTANTIATE_TEST_SUITE_P(AllBackendsAllVersions, ActiveExpiryMatrix,
                         ::testing::ValuesIn(testing::GcCells({"memory", "rocksdb", "lmdb",
                                                               "wiredtiger"})),
                         testing::GcCellName);

// Random commands that set, change, keep and drop expiries, on keys of every type, in two
// databases, inside and outside MULTI: after each, every expiring meta has its index entry; and
// after the cycles, no expired meta is left anywhere (the index found them all).
TEST(TtlIndex, CoversEveryExpiringKeyWhateverTheCommands) {
  EngineHarness h("memory", Indexed());
  std::mt19937 rng(20261124);
  const std::vector<std::string> keys = {"a", "b", "c", "d"};
  auto key = [&] { return keys[rng() % keys.size()]; };
  auto ttl = [&] { return std::to_string(1 + rng() % 400); };
  const std::vector<std::function<std::string()>> steps = {
      [&] { return "SET " + key() + " v PX " + ttl(); },
      [&] { return "SET " + key() + " v"; },
      [&] { return "SET " + key() + " w KEEPTTL"; },
      [&] { return "SETEX " + key() + " 2 v"; },
      [&] { return "GETEX " + key() + " PX " + ttl(); },
      [&] { return "GETEX " + key() + " PERSIST"; },
      [&] { return "PEXPIRE " + key() + " " + ttl(); },
      [&] { return "PEXPIRE " + key() + " " + ttl() + " GT"; },
      [&] { return "EXPIREAT " + key() + " 1"; },  // in the past: deletes the key
      [&] { return "PERSIST " + key(); },
      [&] { return "DEL " + key() + " " + key(); },
      [&] { return "HSET " + key() + " f " + ttl(); },
      [&] { return "HDEL " + key() + " f"; },
      [&] { return "ZADD " + key() + " 1 m"; },
      [&] { return "SADD " + key() + " m n"; },
      [&] { return "SPOP " + key(); },
      [&] { return "RPUSH " + key() + " x"; },
      [&] { return "LPOP " + key(); },
      [&] { return "APPEND " + key() + " x"; },
      [&] { return "INCR " + key(); },
      [&] { return "RENAME " + key() + " " + key(); },
      [&] { return "COPY " + key() + " " + key() + " REPLACE"; },
      [&] { return "MOVE " + key() + " 1"; },
      [&] { return "SINTERSTORE " + key() + " " + key() + " " + key(); },
      [&] { return "SUNIONSTORE " + key() + " " + key(); },
      [&] { return "LMOVE " + key() + " " + key() + " LEFT RIGHT"; },
      [&] { return "GETDEL " + key(); },
      [&] { return "MSET " + key() + " 1 " + key() + " 2"; },
      [&] { return "SELECT " + std::to_string(rng() % 2); },
      [&] { return std::string("MULTI"); },
      [&] { return std::string("EXEC"); },
      [&] { return std::string(rng() % 8 == 0 ? "FLUSHDB" : "PING"); },
  };
  int reaped = 0;
  for (int i = 0; i < 6000; ++i) {
    const std::string line = steps[rng() % steps.size()]();
    h.Exec(line);  // WRONGTYPE and friends are fine: the index must hold whatever happened
    if (h.session().multi.active) continue;  // queued: nothing ran yet
    ExpectIndexCoversMetas(h.engine(), "step " + std::to_string(i) + " `" + line + "`");
    if (::testing::Test::HasFailure()) return;
    h.clock().AdvanceMillis(rng() % 40);
    if (i % 50 == 49) {
      reaped += static_cast<int>(RunUntilIdle(h.engine()).reclaimed_metas);
      for (uint8_t db : {0, 1}) {
        EXPECT_EQ(testing::ScanForGarbage(h.engine(), db).expired_metas, 0u) << "step " << i;
      }
    }
  }
  EXPECT_GT(reaped, 20);  // the cycles had expired keys to find
}

// A cycle stops at its budget, between batches, and the next one goes on where it stopped.
TEST(ActiveExpiry, StopsAtItsBudgetAndTheNextCycleGoesOn) {
  EngineHarness h("memory", Indexed());
  for (int i = 0; i < 100; ++i) {
    h.Run("HSET k" + std::to_string(i) + " a 1 b 2");
    h.Run("PEXPIRE k" + std::to_string(i) + " 10");
  }
  h.clock().AdvanceMillis(100);
  ActiveExpiryOptions options;
  options.batch_entries = 10;
  options.budget = std::chrono::microseconds(1);  // spent after the first batch
  ActiveExpiry expiry(&h.engine());
  GcStats first;
  bool idle = true;
  ASSERT_TRUE(expiry.RunCycle(options, &first, &idle).ok());
  EXPECT_FALSE(idle);
  EXPECT_EQ(first.reclaimed_metas, 10u) << first.Line();
  EXPECT_EQ(h.Run("DBSIZE"), "(integer) 0");  // expired keys are absent all the same
  GcStats rest;
  int cycles = 1;
  while (!idle && cycles < 5000) {
    ASSERT_TRUE(expiry.RunCycle(options, &rest, &idle).ok());
    ++cycles;
  }
  EXPECT_TRUE(idle) << cycles << " cycles: " << rest.Line();
  EXPECT_EQ(first.reclaimed_metas + rest.reclaimed_metas, 100u);
  EXPECT_EQ(first.reclaimed_sub_keys + rest.reclaimed_sub_keys, 200u);
  EXPECT_GE(cycles, 10);
  EXPECT_EQ(testing::ScanForGarbage(h.engine()).records, 0u);
  EXPECT_TRUE(IndexEntries(h.engine()).empty());
}

// An entry whose meta is not kvlab's is left alone, and does not keep the cycles from ending
// (a kept entry stays due: every cycle reads it again).
TEST(ActiveExpiry, EntriesItCannotJudgeAreLeftAndTheCyclesEnd) {
  EngineHarness h("memory", Indexed());
  h.Run("HSET k a 1");
  h.Run("PEXPIRE k 10");
  const encodings::KeyCodec& codec = h.engine().codec();
  ASSERT_TRUE(h.engine().store()->Put(codec.MetaKey(0, "alien"), "\xff not a meta").ok());
  const std::string alien_entry = codec.TtlIndexKey(0, 1000, "alien");
  ASSERT_TRUE(h.engine().store()->Put(alien_entry, "").ok());
  h.clock().AdvanceMillis(100);
  const GcStats stats = RunUntilIdle(h.engine());
  EXPECT_EQ(stats.reclaimed_metas, 1u) << stats.Line();
  EXPECT_EQ(stats.stale_index_entries, 0u) << stats.Line();
  std::string value;
  EXPECT_TRUE(h.engine().store()->Get(alien_entry, &value).ok());
  EXPECT_EQ(IndexEntries(h.engine()).size(), 1u);
}

// `kvlab serve`'s background cycle reaps keys as they expire, while writers create, grow,
// overwrite, delete and expire their own keys and the clock moves; at the end every key holds
// what its writer's model says, and the index covers every expiring key.
TEST(ActiveExpiry, ConcurrentWritersDeletesAndExpiriesLoseNothing) {
  EngineHarness h("rocksdb", Indexed());
  Engine& engine = h.engine();
  std::atomic<bool> done{false};
  std::thread clock([&] {
    while (!done) {
      h.clock().AdvanceMillis(1);
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  });
  ActiveExpiryOptions options;
  options.batch_entries = 4;
  std::unique_ptr<BackgroundCollector> cycle =
      StartActiveExpiry(&engine, std::chrono::milliseconds(1), options);

  testing::ModelWriters writers;
  writers.Run(engine, h.clock());
  done = true;
  clock.join();
  const GcStats during = cycle->totals();
  cycle.reset();
  EXPECT_GT(during.reclaimed_metas, 0u) << during.Line();
  h.clock().AdvanceMillis(100);  // every deadline passed

  ExpectIndexCoversMetas(engine, "the writers");
  RunUntilIdle(engine, 64);
  const testing::Garbage g = testing::ScanForGarbage(engine);
  EXPECT_EQ(g.expired_metas, 0u);
  writers.ExpectEveryKeyAsModelled(engine);
}

// The index is part of the store's format: a store written with it is refused without it, and
// the other way round, so that no expiring key is ever missing from an index.
TEST(TtlIndex, AStoreKeepsItsIndexSetting) {
  testing::ScratchDir scratch;
  auto open = [&](bool ttl_index, std::unique_ptr<backends::OpenedStore>* out) {
    backends::StoreSpec spec;
    spec.backend = "rocksdb";
    spec.options.dir = scratch.Sub("store");
    encodings::KeyCodecOptions keys;
    keys.ttl_index = ttl_index;
    spec.format = encodings::StoreFormatRecord(keys);
    return backends::OpenStore(spec, out);
  };
  std::unique_ptr<backends::OpenedStore> store;
  ASSERT_TRUE(open(true, &store).ok());
  store->Close();
  store.reset();
  Status s = open(false, &store);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("ttl_index=yes"), std::string::npos) << s.ToString();
  ASSERT_TRUE(open(true, &store).ok());
}

}  // namespace
}  // namespace kvlab::engine

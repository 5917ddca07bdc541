// What GC leaves: a scan of a whole store for the records a pass of the collector
// (engine/collector.h) should have reclaimed. Used by the collector's tests.
#pragma once

#include <gtest/gtest.h>

#include <cctype>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "encodings/key_meta.h"
#include "encodings/registry.h"
#include "engine/engine.h"

namespace kvlab::testing {

// How the reclaim tests (collector, compaction filter, active expiry) fill and read a key of
// each registry type. A registry type missing here fails them: a new type must say how
// reclaiming is checked on it.
struct GcTypeCommands {
  std::string fill;      // "%k" is the key; adds a few elements
  std::string fill_big;  // adds 50 (a list, a set: 25) elements ("%k")
  std::string read;      // the whole contents (an unordered reply is compared sorted)
};

// `pattern` with every "%k" replaced by `key`.
inline std::string FillKey(std::string pattern, const std::string& key) {
  for (size_t at; (at = pattern.find("%k")) != std::string::npos;) pattern.replace(at, 2, key);
  return pattern;
}

// `head` followed by n elements: "f<i> v<i>" pairs, or "<i> m<i>" when scored.
inline std::string GcElements(const std::string& head, int n, bool scored) {
  std::string out = head;
  for (int i = 0; i < n; ++i) {
    out += scored ? " " + std::to_string(i) + " m" + std::to_string(i)
                  : " f" + std::to_string(i) + " v" + std::to_string(i);
  }
  return out;
}

// Type name -> its commands.
inline const std::map<std::string, GcTypeCommands>& GcCommandsByType() {
  static const auto* table = new std::map<std::string, GcTypeCommands>{
      {"hash", {"HSET %k a 1 b 2 c 3", GcElements("HSET %k", 50, false), "HGETALL %k"}},
      {"zset",
       // A long member too: zset v2/v3 keep it behind a ref (i#).
       {"ZADD %k 1 a 2 b 3 " + std::string(300, 'L'), GcElements("ZADD %k", 50, true),
        "ZRANGE %k 0 -1 WITHSCORES"}},
      {"set", {"SADD %k a b c", GcElements("SADD %k", 25, false), "SMEMBERS %k"}},
      {"list", {"RPUSH %k a b c", GcElements("RPUSH %k", 25, false), "LRANGE %k 0 -1"}},
  };
  return *table;
}

// One cell of the reclaim tests' matrices: a backend, and a version of a registry type.
struct GcCell {
  std::string backend;
  std::string type;
  std::string version;
};

// Every version of every type of kvlab's registry, on each of `backends`.
inline std::vector<GcCell> GcCells(const std::vector<std::string>& backends) {
  std::vector<GcCell> out;
  const auto& registry = encodings::EncodingRegistry::Builtin();
  for (const std::string& backend : backends) {
    for (const encodings::EncodingSpec& row : registry.rows()) {
      out.push_back(
          {backend, std::string(registry.FindType(row.type)->name), std::string(row.name)});
    }
  }
  return out;
}

// "rocksdb_hash_v0": a cell's test name.
inline std::string GcCellName(const ::testing::TestParamInfo<GcCell>& p) {
  std::string name = p.param.backend + "_" + p.param.type + "_v" + p.param.version;
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

// What a scan of the whole store finds that GC should have reclaimed: sub-keys whose key has no
// meta or a meta of another key-version, and expired metas. Also counts the records seen.
struct Garbage {
  uint64_t orphans = 0;
  uint64_t expired_metas = 0;
  uint64_t records = 0;
};

inline Garbage ScanForGarbage(engine::Engine& engine, uint8_t db = 0) {
  Garbage g;
  const encodings::KeyCodec& codec = engine.codec();
  std::unique_ptr<backends::Iterator> it = engine.store()->NewIterator({});
  const int64_t now = engine.clock().NowMillis();
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const std::string k(it->key());
    std::string key;
    encodings::KeyMeta meta;
    if (codec.DecodeMetaKey(db, k, &key)) {
      ++g.records;
      EXPECT_TRUE(encodings::KeyMeta::Decode(it->value(), engine.registry(), &meta).ok());
      if (meta.ExpiredAt(now)) ++g.expired_metas;
      continue;
    }
    if (codec.DecodeArdbKey(db, k, &key)) {
      // An Ardb record (no key-version): an orphan unless its key's meta is an Ardb one.
      ++g.records;
      std::string bytes;
      const Status s = engine.store()->Get(codec.MetaKey(db, key), &bytes);
      if (s.IsNotFound() || !encodings::KeyMeta::Decode(bytes, engine.registry(), &meta).ok() ||
          !meta.ardb_layout()) {
        ++g.orphans;
      }
      continue;
    }
    for (encodings::SubKeyTag tag : engine.registry().AllSubKeyTags()) {
      uint64_t version = 0;
      size_t prefix = 0;
      if (!codec.DecodeSubKey(tag, db, k, &key, &version, &prefix)) continue;
      ++g.records;
      std::string bytes;
      const Status s = engine.store()->Get(codec.MetaKey(db, key), &bytes);
      if (s.IsNotFound() || !encodings::KeyMeta::Decode(bytes, engine.registry(), &meta).ok() ||
          meta.key_version != version) {
        ++g.orphans;
      }
      break;
    }
  }
  EXPECT_TRUE(it->status().ok()) << it->status().ToString();
  return g;
}

// Writers that create, grow, overwrite, delete and expire hashes and strings on an engine while
// something reclaims space beside them (the collector, a compacting store), each keeping a
// model of its keys; then every key must hold what its writer's model says.
class ModelWriters {
 public:
  static constexpr int kWriters = 4;
  static constexpr int kKeysPerWriter = 6;
  static constexpr int kSteps = 1500;

  // Runs the writers to the end. `clock` is the engine's; a PEXPIREAT'ed key is waited for
  // until the clock passes its deadline (someone else advances it).
  void Run(engine::Engine& engine, const encodings::ManualClock& clock) {
    models_.assign(kWriters, {});
    std::vector<std::thread> writers;
    for (int w = 0; w < kWriters; ++w) {
      writers.emplace_back([&, w] { Write(engine, clock, w); });
    }
    for (std::thread& t : writers) t.join();
  }

  // REQUIRES: every deadline given has passed on the engine's clock.
  void ExpectEveryKeyAsModelled(engine::Engine& engine) {
    engine::Session session;
    for (int w = 0; w < kWriters; ++w) {
      for (auto& [key, m] : models_[w]) {
        const bool gone = !m.exists || m.deadline >= 0;
        if (gone) {
          EXPECT_EQ(engine.Execute(session, {"EXISTS", key}).integer(), 0) << key;
        } else if (m.string) {
          EXPECT_EQ(engine.Execute(session, {"GET", key}).str(), m.fields[""]) << key;
        } else {
          const resp::Reply r = engine.Execute(session, {"HGETALL", key});
          std::map<std::string, std::string> got;
          for (size_t i = 0; i + 1 < r.elements().size(); i += 2) {
            got[r.elements()[i].str()] = r.elements()[i + 1].str();
          }
          EXPECT_EQ(got, m.fields) << key;
        }
      }
    }
  }

 private:
  // A key: a hash's fields, or a string's value under "" with string=true.
  struct Model {
    bool exists = false;
    bool string = false;
    std::map<std::string, std::string> fields;
    int64_t deadline = -1;  // PEXPIREAT given, still in the future when set
  };

  void Write(engine::Engine& engine, const encodings::ManualClock& clock, int w) {
    engine::Session session;
    std::mt19937 rng(1000 + w);
    auto exec = [&](std::vector<std::string> argv) {
      const resp::Reply r = engine.Execute(session, argv);
      EXPECT_FALSE(r.is_error()) << argv[0] << ": " << r.Describe();
      return r;
    };
    for (int step = 0; step < kSteps; ++step) {
      const std::string key =
          "w" + std::to_string(w) + "k" + std::to_string(rng() % kKeysPerWriter);
      Model& m = models_[w][key];
      if (m.deadline >= 0) {
        // Wait until the key has surely expired: every later command sees it gone.
        while (clock.NowMillis() <= m.deadline) std::this_thread::yield();
        m = Model();
      }
      switch (rng() % 10) {
        case 0:
          exec({"DEL", key});
          m = Model();
          break;
        case 1:
          exec({"SET", key, "s" + std::to_string(step)});
          m = Model();
          m.exists = m.string = true;
          m.fields[""] = "s" + std::to_string(step);
          break;
        case 2:
          if (m.exists) {
            const int64_t deadline = clock.NowMillis() + 1 + static_cast<int64_t>(rng() % 5);
            exec({"PEXPIREAT", key, std::to_string(deadline)});
            m.deadline = deadline;
          }
          break;
        default: {
          if (m.string) {
            exec({"DEL", key});
            m = Model();
          }
          std::vector<std::string> argv = {"HSET", key};
          for (int i = 0; i < 1 + static_cast<int>(rng() % 8); ++i) {
            const std::string f = "f" + std::to_string(rng() % 20);
            argv.push_back(f);
            argv.push_back(std::to_string(step));
            m.fields[f] = std::to_string(step);
          }
          exec(argv);
          m.exists = true;
        }
      }
    }
  }

  std::vector<std::map<std::string, Model>> models_;
};

}  // namespace kvlab::testing

// What GC leaves: a scan of a whole store for the records a pass of the collector
// (engine/collector.h) should have reclaimed. Used by the collector's tests.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "encodings/key_meta.h"
#include "engine/engine.h"

namespace kvlab::testing {

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

}  // namespace kvlab::testing

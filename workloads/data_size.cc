#include "workloads/data_size.h"

#include <algorithm>
#include <cstdio>

#include "workloads/open_loop.h"

namespace kvlab::workloads {

namespace {

using Type = KeyspaceSpec::Type;

// The total number of decimal digits of 0, 1, ..., n-1.
uint64_t DigitsOfIds(uint64_t n) {
  uint64_t total = 0;
  uint64_t low = 0, high = 10;
  for (uint64_t digits = 1; low < n; ++digits) {
    total += (std::min(n, high) - low) * digits;
    low = high;
    if (high > UINT64_MAX / 10) break;
    high *= 10;
  }
  return total;
}

bool LoadsElements(const Workload& w) {
  for (const CommandTemplate& c : w.load.commands) {
    if (c.UsesElements()) return true;
  }
  return false;
}

bool LoadsValue(const Workload& w) {
  for (const CommandTemplate& c : w.load.commands) {
    if (c.Uses(TemplatePart::Kind::kValue)) return true;
  }
  return false;
}

const char* ElementNoun(Type t) {
  switch (t) {
    case Type::kHash:
      return "hash fields";
    case Type::kZset:
      return "zset members";
    case Type::kSet:
      return "set members";
    case Type::kList:
      return "list items";
    case Type::kString:
      return "strings";
  }
  return "elements";
}

const char* WhatBytes(Type t) {
  switch (t) {
    case Type::kHash:
      return "keys, fields and values";
    case Type::kZset:
      return "keys, members and scores";
    case Type::kSet:
      return "keys and members";
    case Type::kList:
      return "keys and items";
    case Type::kString:
      return "keys and values";
  }
  return "data";
}

std::string Bytes(uint64_t b) {
  char buf[32];
  if (b >= (uint64_t{1} << 30)) {
    std::snprintf(buf, sizeof(buf), "%.1f GB", static_cast<double>(b) / (1 << 30));
  } else if (b >= (1u << 20)) {
    std::snprintf(buf, sizeof(buf), "%.1f MB", static_cast<double>(b) / (1 << 20));
  } else if (b >= 1024) {
    std::snprintf(buf, sizeof(buf), "%.1f KB", static_cast<double>(b) / 1024);
  } else {
    std::snprintf(buf, sizeof(buf), "%llu bytes", static_cast<unsigned long long>(b));
  }
  return buf;
}

}  // namespace

DataSize EstimateDataSize(const Workload& w) {
  const KeyspaceSpec& k = w.keyspace;
  DataSize out;
  if (w.load.commands.empty()) return out;
  out.keys = k.records;
  const uint64_t key_bytes = k.records * k.key_prefix.size() + DigitsOfIds(k.records);
  if (k.type == Type::kString) {
    out.sized = LoadsValue(w);
    out.bytes = key_bytes + (out.sized ? k.records * k.value_bytes : 0);
    return out;
  }
  out.sized = LoadsElements(w);
  if (!out.sized) return out;
  out.elements = k.records * k.elements;
  // Per key: its elements' names (prefix + index), and per element what goes beside the name.
  const uint64_t names = k.elements * w.ElementPrefix().size() + DigitsOfIds(k.elements);
  uint64_t beside = 0;
  if (k.type == Type::kHash) beside = k.value_bytes;
  if (k.type == Type::kZset) beside = 8;  // a double score
  out.bytes = key_bytes + k.records * (names + k.elements * beside);
  return out;
}

std::string DescribeDataSize(const Workload& w) {
  const DataSize d = EstimateDataSize(w);
  const KeyspaceSpec& k = w.keyspace;
  if (d.keys == 0) return w.name + ": no load phase";
  if (!d.sized) {
    return w.name + ": loads " + WithThousands(d.keys) + " keys (" +
           std::to_string(w.load.commands.size()) + " load command(s) each) per cell";
  }
  if (k.type == Type::kString) {
    return w.name + ": loads " + WithThousands(d.keys) + " strings of " +
           WithThousands(k.value_bytes) + " bytes (~" + Bytes(d.bytes) + " of " +
           WhatBytes(k.type) + ") per cell";
  }
  return w.name + ": loads " + WithThousands(d.elements) + " " + ElementNoun(k.type) + " in " +
         WithThousands(d.keys) + " keys (~" + Bytes(d.bytes) + " of " + WhatBytes(k.type) +
         ") per cell";
}

bool UsesValues(const Workload& w) {
  auto uses = [&](const CommandTemplate& c) {
    return c.Uses(TemplatePart::Kind::kValue) ||
           (c.UsesElements() && w.keyspace.type == Type::kHash);
  };
  for (const CommandTemplate& c : w.load.commands) {
    if (uses(c)) return true;
  }
  for (const PhaseSpec& p : w.phases) {
    for (const OpSpec& op : p.ops) {
      for (const CommandTemplate& c : op.commands) {
        if (uses(c)) return true;
      }
    }
  }
  return false;
}

}  // namespace kvlab::workloads

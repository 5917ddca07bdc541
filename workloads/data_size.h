// What a workload loads, said before it runs: `--records 1000` on leaderboard (boards of 10,000
// players) means 10 million zset members per cell, which a user should see before waiting for it.
#pragma once

#include <cstdint>
#include <string>

#include "workloads/workload.h"

namespace kvlab::workloads {

struct DataSize {
  uint64_t keys = 0;      // records loaded
  uint64_t elements = 0;  // fields, members or items loaded over all keys (0: a string keyspace)
  // The logical bytes of what the load writes, as runs[].space.logical counts them (key names;
  // field names and values, members plus 8 bytes per zset score, items, string values).
  // Estimated from the keyspace: exact for the load of `{elements}` and of one `{value}` per
  // string key, which every catalogue workload uses.
  uint64_t bytes = 0;
  // False when the load does not write {elements} (or a string's {value}): then only the keys
  // are known.
  bool sized = false;
};

DataSize EstimateDataSize(const Workload& w);

// "leaderboard: loads 10,000,000 zset members in 1,000 keys (~250 MB of keys, members and
// scores) per cell".
std::string DescribeDataSize(const Workload& w);

// Whether {value} (or a hash's field values from {elements}) appears in what the workload runs:
// --data-size changes nothing otherwise.
bool UsesValues(const Workload& w);

}  // namespace kvlab::workloads

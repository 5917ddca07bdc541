// Key spaces: one ordered keyspace kept as several physical ones (StoreOptions::key_spaces).
//
// A backend with column families, named databases or tables keeps the records under each key
// prefix apart, and everything else in a default space. This file holds what every such backend
// shares, so that each of them only maps a space index onto its own handle:
// - KeySpaceMap routes a key to its space and clips ranges and bounds to a space;
// - NewSpacedIterator gives one iterator over all spaces, in key order, from one iterator per
//   space.
//
// Records keep their whole key in their space, prefix included. Stripping the prefix would save
// its bytes, but a key equal to a prefix would become the empty key, which LMDB refuses; and
// RocksDB's and WiredTiger's prefix-compressed blocks store the shared prefix about once per
// restart interval anyway. Only LMDB, which stores every key whole, pays the prefix's bytes per
// record, as it does without key spaces.
//
// Because a space holds exactly the keys under its prefix, [prefix, successor(prefix)), and the
// default space holds none of those, a range or a bound clipped to each space's interval gives
// every space its part, and the parts never overlap: an iterator over all spaces is a merge of
// disjoint sequences, and a range delete is one range delete per space.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backends/kv_store.h"
#include "base/status.h"

namespace kvlab::backends {

class KeySpaceMap {
 public:
  // Space 0 is the default space; space i >= 1 holds the keys under prefixes[i - 1].
  // Fails with InvalidArgument when a prefix is empty, repeated, or a prefix of another.
  static Status Make(const std::vector<std::string>& prefixes, KeySpaceMap* out);

  KeySpaceMap() = default;

  // The number of spaces, the default one included (1 without prefixes).
  size_t size() const { return prefixes_.size() + 1; }
  bool partitioned() const { return !prefixes_.empty(); }
  // The space of a key: the one whose prefix starts it, else 0.
  size_t SpaceOf(std::string_view key) const;
  // The prefix of a space ("" for the default space).
  const std::string& prefix(size_t space) const;
  // A name for the space's column family, database or table, made of [A-Za-z0-9_-] only:
  // "default" for space 0, else "kv_" and the prefix's bytes, letters and digits as themselves
  // and every other byte as "-" and two hex digits ("m#" -> "kv_m-23").
  std::string Name(size_t space) const;

  // The part of [begin, end) that lies in `space` (a bound absent: unbounded on that side).
  // Returns false when that part is empty. The default space's part is the range itself: it
  // holds no key of another space, so nothing needs cutting out.
  bool Clip(size_t space, std::optional<std::string_view> begin,
            std::optional<std::string_view> end, std::optional<std::string>* clipped_begin,
            std::optional<std::string>* clipped_end) const;
  // The single space that can hold keys of [begin, end), or nullopt when more than one can:
  // a range inside one prefix's interval belongs to that space alone.
  std::optional<size_t> SoleSpace(std::optional<std::string_view> begin,
                                  std::optional<std::string_view> end) const;

 private:
  std::vector<std::string> prefixes_;  // sorted
  // successor_[i]: the first key after every key under prefixes_[i]; nullopt when none is.
  std::vector<std::optional<std::string>> successors_;
};

// The first key greater than every key that starts with `prefix`: the prefix with its last
// byte below 0xff incremented and the rest dropped; nullopt when the prefix is all 0xff bytes.
std::optional<std::string> PrefixSuccessor(std::string_view prefix);

// An iterator over every space of `map`, in key order, within `options`' bounds. `open(space,
// bounds)` opens the space's own iterator with the bounds already clipped to it; it is called
// once per space that can hold keys in the bounds, and when only one can (an encoding's scan
// of one record kind), its iterator is returned as is, without a merge.
// REQUIRES: the spaces' iterators support reverse scan (they are the backend's own).
std::unique_ptr<Iterator> NewSpacedIterator(
    const KeySpaceMap& map, const IteratorOptions& options,
    const std::function<std::unique_ptr<Iterator>(size_t space, const IteratorOptions&)>& open);

// The names comma-separated, in order: how a backend's error names the column families or
// tables it found against those it was asked for.
std::string JoinNames(const std::vector<std::string>& names);

// An iterator over the union of `children`, in key order. REQUIRES: no key appears in two
// children, and every child supports reverse scan.
std::unique_ptr<Iterator> NewMergingIterator(std::vector<std::unique_ptr<Iterator>> children);

}  // namespace kvlab::backends

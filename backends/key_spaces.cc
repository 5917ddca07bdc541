#include "backends/key_spaces.h"

#include <algorithm>

namespace kvlab::backends {

const char* KeySpaceKindName(KeySpaceKind kind) {
  switch (kind) {
    case KeySpaceKind::kPrefix:
      return "prefix";
    case KeySpaceKind::kColumnFamilies:
      return "column families";
    case KeySpaceKind::kNamedDatabases:
      return "named databases";
    case KeySpaceKind::kTables:
      return "tables";
  }
  return "?";
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}

std::optional<std::string> PrefixSuccessor(std::string_view prefix) {
  std::string s(prefix);
  while (!s.empty()) {
    auto& last = reinterpret_cast<unsigned char&>(s.back());
    if (last != 0xff) {
      ++last;
      return s;
    }
    s.pop_back();
  }
  return std::nullopt;
}

Status KeySpaceMap::Make(const std::vector<std::string>& prefixes, KeySpaceMap* out) {
  std::vector<std::string> sorted = prefixes;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (sorted[i].empty()) return Status::InvalidArgument("key spaces: an empty prefix");
    // Sorted, a prefix of another comes right before one of the keys it starts.
    if (i + 1 < sorted.size() && sorted[i + 1].compare(0, sorted[i].size(), sorted[i]) == 0) {
      return Status::InvalidArgument(
          "key spaces: prefix '" + sorted[i] + "' " +
          (sorted[i] == sorted[i + 1] ? "is repeated" : "starts '" + sorted[i + 1] + "'"));
    }
  }
  KeySpaceMap map;
  map.prefixes_ = std::move(sorted);
  for (const std::string& p : map.prefixes_) map.successors_.push_back(PrefixSuccessor(p));
  *out = std::move(map);
  return Status::OK();
}

size_t KeySpaceMap::SpaceOf(std::string_view key) const {
  // The candidate is the last prefix <= key: any prefix of the key sorts at or before it, and
  // no two prefixes nest, so no other prefix can start the key.
  auto it = std::upper_bound(prefixes_.begin(), prefixes_.end(), key,
                             [](std::string_view k, const std::string& p) { return k < p; });
  if (it == prefixes_.begin()) return 0;
  --it;
  return key.substr(0, it->size()) == *it ? static_cast<size_t>(it - prefixes_.begin()) + 1 : 0;
}

const std::string& KeySpaceMap::prefix(size_t space) const {
  static const std::string kNone;
  return space == 0 ? kNone : prefixes_.at(space - 1);
}

std::string KeySpaceMap::Name(size_t space) const {
  if (space == 0) return "default";
  static const char kHex[] = "0123456789abcdef";
  std::string name = "kv_";
  for (unsigned char c : prefix(space)) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
      name += static_cast<char>(c);
    } else {
      name += '-';
      name += kHex[c >> 4];
      name += kHex[c & 15];
    }
  }
  return name;
}

bool KeySpaceMap::Clip(size_t space, std::optional<std::string_view> begin,
                       std::optional<std::string_view> end,
                       std::optional<std::string>* clipped_begin,
                       std::optional<std::string>* clipped_end) const {
  clipped_begin->reset();
  clipped_end->reset();
  if (begin) clipped_begin->emplace(*begin);
  if (end) clipped_end->emplace(*end);
  if (space != 0) {
    const std::string& lo = prefixes_.at(space - 1);
    const std::optional<std::string>& hi = successors_.at(space - 1);
    if (!*clipped_begin || **clipped_begin < lo) *clipped_begin = lo;
    if (hi && (!*clipped_end || *hi < **clipped_end)) *clipped_end = *hi;
  }
  return !*clipped_begin || !*clipped_end || **clipped_begin < **clipped_end;
}

std::optional<size_t> KeySpaceMap::SoleSpace(std::optional<std::string_view> begin,
                                             std::optional<std::string_view> end) const {
  if (!partitioned()) return 0;
  if (!begin || !end) return std::nullopt;
  const size_t space = SpaceOf(*begin);
  if (space == 0) return std::nullopt;
  const std::optional<std::string>& hi = successors_[space - 1];
  if (hi && *end > *hi) return std::nullopt;
  return space;
}

namespace {

// LevelDB's MergingIterator (table/merger.cc), for children whose keys never repeat across
// children: the current child is the one with the smallest key (forward) or the largest
// (reverse); a change of direction repositions every other child on the other side of key().
class MergingIterator final : public Iterator {
 public:
  explicit MergingIterator(std::vector<std::unique_ptr<Iterator>> children)
      : children_(std::move(children)) {}

  bool Valid() const override { return current_ != nullptr && current_->Valid(); }
  void Seek(std::string_view target) override {
    for (auto& c : children_) c->Seek(target);
    FindSmallest();
  }
  void SeekForPrev(std::string_view target) override {
    for (auto& c : children_) c->SeekForPrev(target);
    FindLargest();
  }
  void SeekToFirst() override {
    for (auto& c : children_) c->SeekToFirst();
    FindSmallest();
  }
  void SeekToLast() override {
    for (auto& c : children_) c->SeekToLast();
    FindLargest();
  }
  void Next() override {
    if (!Valid()) return Misuse("Next");
    if (!forward_) {
      // Every other child is at its last key < key() (or off the front); no child holds key()
      // but the current one, so a Seek puts each on its first key > key().
      const std::string key(current_->key());
      for (auto& c : children_) {
        if (c.get() != current_) c->Seek(key);
      }
    }
    current_->Next();
    FindSmallest();
  }
  void Prev() override {
    if (!Valid()) return Misuse("Prev");
    if (forward_) {
      const std::string key(current_->key());
      for (auto& c : children_) {
        if (c.get() != current_) c->SeekForPrev(key);
      }
    }
    current_->Prev();
    FindLargest();
  }
  std::string_view key() const override { return Valid() ? current_->key() : std::string_view(); }
  std::string_view value() const override {
    return Valid() ? current_->value() : std::string_view();
  }
  Status status() const override {
    if (!misuse_.ok()) return misuse_;
    for (const auto& c : children_) {
      Status s = c->status();
      if (!s.ok()) return s;
    }
    return Status::OK();
  }

 private:
  void FindSmallest() {
    misuse_ = Status::OK();
    forward_ = true;
    current_ = nullptr;
    for (auto& c : children_) {
      if (c->Valid() && (current_ == nullptr || c->key() < current_->key())) current_ = c.get();
    }
  }
  void FindLargest() {
    misuse_ = Status::OK();
    forward_ = false;
    current_ = nullptr;
    for (auto& c : children_) {
      if (c->Valid() && (current_ == nullptr || c->key() > current_->key())) current_ = c.get();
    }
  }
  void Misuse(const char* op) {
    misuse_ = Status::InvalidArgument(std::string("iterator ") + op +
                                      " called while not positioned on an entry");
  }

  std::vector<std::unique_ptr<Iterator>> children_;
  Iterator* current_ = nullptr;
  bool forward_ = true;
  Status misuse_;
};

}  // namespace

std::unique_ptr<Iterator> NewMergingIterator(std::vector<std::unique_ptr<Iterator>> children) {
  if (children.size() == 1) return std::move(children[0]);
  return std::make_unique<MergingIterator>(std::move(children));
}

std::unique_ptr<Iterator> NewSpacedIterator(
    const KeySpaceMap& map, const IteratorOptions& options,
    const std::function<std::unique_ptr<Iterator>(size_t space, const IteratorOptions&)>& open) {
  auto bound = [](const std::optional<std::string>& b) {
    return b ? std::optional<std::string_view>(*b) : std::nullopt;
  };
  const std::optional<std::string_view> begin = bound(options.lower_bound);
  const std::optional<std::string_view> end = bound(options.upper_bound);
  if (std::optional<size_t> sole = map.SoleSpace(begin, end)) return open(*sole, options);
  std::vector<std::unique_ptr<Iterator>> children;
  for (size_t space = 0; space < map.size(); ++space) {
    IteratorOptions clipped;
    if (!map.Clip(space, begin, end, &clipped.lower_bound, &clipped.upper_bound)) continue;
    children.push_back(open(space, clipped));
  }
  // An empty range still needs an iterator: the default space's, which yields nothing in it.
  if (children.empty()) return open(0, options);
  return NewMergingIterator(std::move(children));
}

}  // namespace kvlab::backends

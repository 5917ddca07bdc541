#include "backends/counting_store.h"

#include <map>

namespace kvlab::backends {
namespace {

constexpr auto kRelaxed = std::memory_order_relaxed;

constexpr const char* kFieldNames[] = {
    "gets",          "multiget_calls", "multiget_keys", "puts",  "deletes",
    "range_deletes", "batches",        "batch_records", "seeks", "nexts",
    "prevs",         "bytes_read",     "bytes_written",
};
static_assert(std::size(kFieldNames) == kNumOpCountFields);

}  // namespace

OpCounts& OpCounts::operator+=(const OpCounts& o) {
  for (auto f : kOpCountFields) this->*f += o.*f;
  return *this;
}

OpCounts& OpCounts::operator-=(const OpCounts& o) {
  for (auto f : kOpCountFields) this->*f -= o.*f;
  return *this;
}

std::vector<std::pair<const char*, uint64_t>> OpCounts::Fields() const {
  std::vector<std::pair<const char*, uint64_t>> out;
  for (size_t i = 0; i < std::size(kOpCountFields); ++i)
    out.emplace_back(kFieldNames[i], this->*kOpCountFields[i]);
  return out;
}

std::string OpCounts::Describe() const {
  std::string out;
  for (const auto& [name, value] : Fields()) {
    std::string_view n(name);
    if (value == 0 || n.starts_with("bytes_")) continue;
    if (!out.empty()) out += ", ";
    out += std::to_string(value);
    out += ' ';
    out += n;
  }
  return out.empty() ? "no operations" : out;
}

OpCounts OpCounters::Snapshot() const {
  OpCounts out;
  for (size_t i = 0; i < kNumOpCountFields; ++i) out.*kOpCountFields[i] = values_[i].load(kRelaxed);
  return out;
}

void OpCounters::Add(const OpCounts& delta) {
  for (size_t i = 0; i < kNumOpCountFields; ++i) {
    if (uint64_t n = delta.*kOpCountFields[i]; n != 0) values_[i].fetch_add(n, kRelaxed);
  }
}

void OpCounters::Reset() {
  for (auto& v : values_) v.store(0, kRelaxed);
}

// Counts positioning calls and the bytes of every entry it lands on.
class CountingIterator final : public IteratorWrapper {
 public:
  CountingIterator(std::unique_ptr<Iterator> base, CountSink sink)
      : IteratorWrapper(std::move(base)), sink_(sink) {}

  void Seek(std::string_view key) override {
    target()->Seek(key);
    Landed<&OpCounts::seeks>();
  }
  void SeekForPrev(std::string_view key) override {
    target()->SeekForPrev(key);
    Landed<&OpCounts::seeks>();
  }
  void SeekToFirst() override {
    target()->SeekToFirst();
    Landed<&OpCounts::seeks>();
  }
  void SeekToLast() override {
    target()->SeekToLast();
    Landed<&OpCounts::seeks>();
  }
  void Next() override {
    target()->Next();
    Landed<&OpCounts::nexts>();
  }
  void Prev() override {
    target()->Prev();
    Landed<&OpCounts::prevs>();
  }

 private:
  template <uint64_t OpCounts::*op>
  void Landed() {
    sink_.Increment<op>();
    if (target()->Valid()) {
      sink_.Increment<&OpCounts::bytes_read>(target()->key().size() + target()->value().size());
    }
  }

  CountSink sink_;
};

Status CountingStore::Get(std::string_view key, std::string* value) {
  Status s = target()->Get(key, value);
  sink_.Increment<&OpCounts::gets>();
  sink_.Increment<&OpCounts::bytes_read>(key.size() + (s.ok() ? value->size() : 0));
  return s;
}

Status CountingStore::MultiGet(const std::vector<std::string_view>& keys,
                               std::vector<std::optional<std::string>>* values) {
  Status s = target()->MultiGet(keys, values);
  sink_.Increment<&OpCounts::multiget_calls>();
  sink_.Increment<&OpCounts::multiget_keys>(keys.size());
  uint64_t bytes = 0;
  for (size_t i = 0; i < keys.size(); ++i) {
    bytes += keys[i].size();
    if (s.ok() && i < values->size() && (*values)[i]) bytes += (*values)[i]->size();
  }
  sink_.Increment<&OpCounts::bytes_read>(bytes);
  return s;
}

Status CountingStore::Put(std::string_view key, std::string_view value) {
  sink_.Increment<&OpCounts::puts>();
  sink_.Increment<&OpCounts::bytes_written>(key.size() + value.size());
  return target()->Put(key, value);
}

Status CountingStore::Delete(std::string_view key) {
  sink_.Increment<&OpCounts::deletes>();
  sink_.Increment<&OpCounts::bytes_written>(key.size());
  return target()->Delete(key);
}

Status CountingStore::DeleteRange(std::string_view begin, std::string_view end) {
  sink_.Increment<&OpCounts::range_deletes>();
  sink_.Increment<&OpCounts::bytes_written>(begin.size() + end.size());
  return target()->DeleteRange(begin, end);
}

Status CountingStore::Write(const WriteBatch& batch) {
  uint64_t ranges = 0;
  for (const auto& r : batch.records()) ranges += r.op == WriteBatch::Op::kDeleteRange;
  sink_.Increment<&OpCounts::batches>();
  sink_.Increment<&OpCounts::batch_records>(batch.size() - ranges);
  if (ranges > 0) sink_.Increment<&OpCounts::range_deletes>(ranges);
  sink_.Increment<&OpCounts::bytes_written>(batch.bytes());
  return target()->Write(batch);
}

std::unique_ptr<Iterator> CountingStore::NewIterator(const IteratorOptions& options) {
  return std::make_unique<CountingIterator>(target()->NewIterator(options), sink_);
}

PhysicalCounters SubtractPhysical(const PhysicalCounters& b, const PhysicalCounters& a) {
  std::map<std::string, uint64_t> before(a.begin(), a.end());
  PhysicalCounters out;
  out.reserve(b.size());
  for (const auto& [name, value] : b) {
    auto it = before.find(name);
    out.emplace_back(name, value - (it == before.end() ? 0 : it->second));
  }
  return out;
}

}  // namespace kvlab::backends

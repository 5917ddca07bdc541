#include "workloads/op_expander.h"

#include <algorithm>

namespace kvlab::workloads {
namespace {

// Random printable bytes that {value} slices are cut from (YCSB's RandomByteIterator also
// draws printable characters). Large enough that slices rarely repeat exactly.
constexpr size_t kValuePoolBytes = 64 * 1024;

}  // namespace

OpExpander::OpExpander(const Workload& workload, uint64_t stream, int thread, int threads,
                       InsertCounter* inserts)
    : w_(workload),
      thread_(thread),
      threads_(threads),
      inserts_(inserts),
      rng_(Rng::StreamSeed(workload.seed, stream)),
      element_prefix_(workload.ElementPrefix()) {
  value_pool_.resize(kValuePoolBytes + w_.keyspace.value_bytes);
  for (char& c : value_pool_) c = static_cast<char>(' ' + 1 + rng_.Uniform(94));  // '!'..'~'
  UseLoad();
}

void OpExpander::UseLoad() {
  DistributionSpec uniform;
  element_chooser_ = std::make_unique<Chooser>(uniform, w_.keyspace.elements, w_.keyspace.elements,
                                               thread_, threads_);
  key_chooser_.reset();
  scan_chooser_.reset();
}

void OpExpander::UsePhase(const PhaseSpec& phase) {
  const uint64_t limit = inserts_ != nullptr ? inserts_->limit() : w_.keyspace.records;
  key_chooser_ =
      std::make_unique<Chooser>(phase.key_distribution, limit, w_.MaxRecords(), thread_, threads_);
  element_chooser_ = std::make_unique<Chooser>(phase.element_distribution, w_.keyspace.elements,
                                               w_.keyspace.elements, thread_, threads_);
  scan_chooser_ = std::make_unique<Chooser>(phase.scan_length_distribution, phase.scan_length_max,
                                            phase.scan_length_max, thread_, threads_);
  scan_max_ = phase.scan_length_max;
}

void OpExpander::BeginLoadOp(uint64_t key_id, uint64_t elements_begin, uint64_t elements_end) {
  BeginRunOp(0);
  load_op_ = true;
  key_id_ = key_id;
  elements_begin_ = elements_begin;
  elements_end_ = elements_end;
}

void OpExpander::BeginRunOp(int64_t now) {
  load_op_ = false;
  now_ = now;
  elements_begin_ = 0;
  elements_end_ = w_.keyspace.elements;
  key_id_.reset();
  new_key_id_.reset();
  element_id_.reset();
  scan_length_.reset();
  score_.reset();
  value_.reset();
  ints_.clear();
}

size_t OpExpander::PickOp(const std::vector<double>& cumulative_weights) {
  const double u = rng_.NextDouble() * cumulative_weights.back();
  const auto it = std::upper_bound(cumulative_weights.begin(), cumulative_weights.end(), u);
  return std::min<size_t>(it - cumulative_weights.begin(), cumulative_weights.size() - 1);
}

uint64_t OpExpander::KeyId() {
  if (!key_id_) {
    const uint64_t limit = inserts_ != nullptr ? inserts_->limit() : w_.keyspace.records;
    key_id_ = key_chooser_->Next(rng_, std::max<uint64_t>(1, limit));
  }
  return *key_id_;
}

uint64_t OpExpander::NewKeyId() {
  if (!new_key_id_) new_key_id_ = inserts_->Claim();
  return *new_key_id_;
}

uint64_t OpExpander::ElementId() {
  if (!element_id_) element_id_ = element_chooser_->Next(rng_, w_.keyspace.elements);
  return *element_id_;
}

std::string_view OpExpander::RandomValue() {
  const size_t n = w_.keyspace.value_bytes;
  const size_t offset = rng_.Uniform(value_pool_.size() - n + 1);
  return std::string_view(value_pool_).substr(offset, n);
}

const std::string& OpExpander::Value() {
  if (!value_) value_ = std::string(RandomValue());
  return *value_;
}

int64_t OpExpander::Int(int64_t a, int64_t b) {
  for (const auto& [x, y, v] : ints_) {
    if (x == a && y == b) return v;
  }
  const uint64_t span = static_cast<uint64_t>(b) - static_cast<uint64_t>(a);
  const int64_t v = span == UINT64_MAX ? static_cast<int64_t>(rng_.Next())
                                       : a + static_cast<int64_t>(rng_.Uniform(span + 1));
  ints_.emplace_back(a, b, v);
  return v;
}

void OpExpander::AppendPart(const TemplatePart& p, std::string* out) {
  using K = TemplatePart::Kind;
  switch (p.kind) {
    case K::kLiteral:
      out->append(p.literal);
      return;
    case K::kKey:
      out->append(w_.keyspace.key_prefix).append(std::to_string(KeyId()));
      return;
    case K::kKeyId:
      out->append(std::to_string(KeyId()));
      return;
    case K::kNewKey:
      out->append(w_.keyspace.key_prefix).append(std::to_string(NewKeyId()));
      return;
    case K::kNewKeyId:
      out->append(std::to_string(NewKeyId()));
      return;
    case K::kElement:
      out->append(element_prefix_).append(std::to_string(ElementId()));
      return;
    case K::kElementId:
      out->append(std::to_string(ElementId()));
      return;
    case K::kValue:
      out->append(Value());
      return;
    case K::kScore:
      if (!score_) score_ = rng_.Uniform(w_.keyspace.score_range);
      out->append(std::to_string(*score_));
      return;
    case K::kInt:
      out->append(std::to_string(Int(p.a, p.b)));
      return;
    case K::kNow:
      out->append(std::to_string(now_ + p.a));
      return;
    case K::kScanLength:
      if (!scan_length_) scan_length_ = 1 + scan_chooser_->Next(rng_, scan_max_);
      out->append(std::to_string(*scan_length_));
      return;
  }
}

void OpExpander::AppendElements(std::vector<std::string>* argv) {
  const bool zset = w_.keyspace.type == KeyspaceSpec::Type::kZset;
  const bool list = w_.keyspace.type == KeyspaceSpec::Type::kList;
  const bool index_scores = w_.keyspace.load_score == KeyspaceSpec::LoadScore::kIndex;
  for (uint64_t j = elements_begin_; j < elements_end_; ++j) {
    std::string name = element_prefix_ + std::to_string(j);
    if (zset) {
      argv->push_back(std::to_string(index_scores ? j : rng_.Uniform(w_.keyspace.score_range)));
      argv->push_back(std::move(name));
    } else if (list || w_.keyspace.type == KeyspaceSpec::Type::kSet) {
      // A list's elements are values (item0, item1, ...); a set's are members alone.
      argv->push_back(std::move(name));
    } else {
      argv->push_back(std::move(name));
      argv->emplace_back(RandomValue());
    }
  }
}

void OpExpander::Expand(const CommandTemplate& t, std::vector<std::string>* argv) {
  argv->clear();
  argv->push_back(t.name);
  for (const TemplateArg& arg : t.args) {
    if (arg.expand_elements) {
      AppendElements(argv);
      continue;
    }
    std::string s;
    for (const TemplatePart& p : arg.parts) AppendPart(p, &s);
    argv->push_back(std::move(s));
  }
}

}  // namespace kvlab::workloads

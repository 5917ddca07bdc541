#include "workloads/op_expander.h"

#include <algorithm>
#include <cmath>

namespace kvlab::workloads {
namespace {

// Random printable bytes that {value} slices are cut from (YCSB's RandomByteIterator also
// draws printable characters). Large enough that slices rarely repeat exactly.
constexpr size_t kValuePoolBytes = 64 * 1024;

// The number of a synthetic key: its trailing decimal digits (at most 18), or a hash of it.
uint64_t KeyNumber(const std::string& key, bool* numbered) {
  size_t i = key.size();
  while (i > 0 && key.size() - i < 18 && key[i - 1] >= '0' && key[i - 1] <= '9') --i;
  *numbered = i < key.size();
  if (!*numbered) return MixHash(key);
  return std::stoull(key.substr(i));
}

double Frac(double x) { return x - std::floor(x); }

// A coordinate of `micro` millionths of a degree, as text with 6 decimals ("-12.000345").
std::string MicroDegrees(int64_t micro) {
  const uint64_t abs = static_cast<uint64_t>(micro < 0 ? -micro : micro);
  std::string frac = std::to_string(abs % 1000000);
  frac.insert(0, 6 - frac.size(), '0');
  return (micro < 0 ? "-" : "") + std::to_string(abs / 1000000) + "." + frac;
}

}  // namespace

SyntheticCollection::SyntheticCollection(const std::string& key, const EmpiricalDistribution& size,
                                         const EmpiricalDistribution& length)
    : length_(length) {
  bool numbered = false;
  const uint64_t n = KeyNumber(key, &numbered);
  // Consecutive keys take consecutive points of the golden-ratio sequence, so the sizes of any
  // run of keys follow the distribution; members of one key take their own sequence.
  const double u = numbered ? WeylPoint(n, 0.5) : static_cast<double>(n >> 11) * 0x1.0p-53;
  size_ = std::max<uint64_t>(1, size.Quantile(u));
  member_offset_ = Frac(static_cast<double>(n % 1000003) * 1.4142135623730951);
  value_offset_ = Frac(static_cast<double>(n % 1000003) * 1.7320508075688772 + 0.25);
}

std::string SyntheticCollection::Member(uint64_t index) const {
  std::string name = std::to_string(index);
  const uint64_t length = length_.Quantile(WeylPoint(index, member_offset_));
  if (length > name.size()) {
    name.push_back('_');
    for (uint64_t i = name.size(); i < length; ++i) {
      name.push_back(static_cast<char>('a' + (index + i) % 26));
    }
  }
  return name;
}

uint64_t SyntheticCollection::ValueLength(uint64_t index,
                                          const EmpiricalDistribution& value_length) const {
  return value_length.Quantile(WeylPoint(index, value_offset_));
}

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
  draws_.clear();
  bytes_.clear();
  member_draws_.clear();
}

const EmpiricalDistribution& OpExpander::Dist(const std::string& name) const {
  // Validate() checked that every distribution a template names exists.
  return w_.distributions.at(name);
}

std::string OpExpander::RandomBytes(uint64_t n) {
  std::string out;
  out.reserve(n);
  while (out.size() < n) {
    const size_t chunk = std::min<uint64_t>(n - out.size(), kValuePoolBytes);
    const size_t offset = rng_.Uniform(value_pool_.size() - chunk + 1);
    out.append(value_pool_, offset, chunk);
  }
  return out;
}

void OpExpander::AppendCollection(const CollectionExpansion& c, const std::string& key,
                                  std::vector<std::string>* argv) {
  using K = CollectionExpansion::Kind;
  const SyntheticCollection coll(key, Dist(c.size), Dist(c.length));
  for (uint64_t i = 0; i < coll.size(); ++i) {
    if (c.kind == K::kScored)
      argv->push_back(std::to_string(rng_.Uniform(w_.keyspace.score_range)));
    argv->push_back(coll.Member(i));
    if (c.kind == K::kFields)
      argv->push_back(RandomBytes(coll.ValueLength(i, Dist(c.value_length))));
  }
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

void OpExpander::AppendPart(const TemplatePart& p, const std::string& key, std::string* out) {
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
    case K::kDraw: {
      const std::string& d = p.distributions[0];
      auto it =
          std::find_if(draws_.begin(), draws_.end(), [&](const auto& x) { return x.first == d; });
      if (it == draws_.end()) it = draws_.insert(draws_.end(), {d, Dist(d).Next(rng_)});
      out->append(std::to_string(it->second));
      return;
    }
    case K::kBytes: {
      const std::string& d = p.distributions[0];
      auto it =
          std::find_if(bytes_.begin(), bytes_.end(), [&](const auto& x) { return x.first == d; });
      if (it == bytes_.end())
        it = bytes_.insert(bytes_.end(), {d, RandomBytes(Dist(d).Next(rng_))});
      out->append(it->second);
      return;
    }
    case K::kMember: {
      // The index is drawn as a point of [0, 1) once per operation, so that two commands of one
      // operation on the same key reach the same member.
      const std::string id = p.distributions[0] + ":" + p.distributions[1];
      auto it = std::find_if(member_draws_.begin(), member_draws_.end(),
                             [&](const auto& x) { return x.first == id; });
      if (it == member_draws_.end()) {
        it = member_draws_.insert(member_draws_.end(), {id, rng_.NextDouble()});
      }
      const SyntheticCollection coll(key, Dist(p.distributions[0]), Dist(p.distributions[1]));
      const auto index = std::min<uint64_t>(
          coll.size() - 1, static_cast<uint64_t>(it->second * static_cast<double>(coll.size())));
      out->append(coll.Member(index));
      return;
    }
  }
}

void OpExpander::AppendElements(std::vector<std::string>* argv) {
  const bool zset = w_.keyspace.type == KeyspaceSpec::Type::kZset;
  const bool list = w_.keyspace.type == KeyspaceSpec::Type::kList;
  const bool index_scores = w_.keyspace.load_score == KeyspaceSpec::LoadScore::kIndex;
  const bool lonlat = w_.keyspace.load_score == KeyspaceSpec::LoadScore::kLonLat;
  for (uint64_t j = elements_begin_; j < elements_end_; ++j) {
    std::string name = element_prefix_ + std::to_string(j);
    if (zset && lonlat) {
      // GEOADD's triples, uniform over Redis's grid: longitude in [-180, 180], latitude in
      // [-85.051128, 85.051128] (its limit is +-85.05112878), in millionths of a degree.
      argv->push_back(MicroDegrees(static_cast<int64_t>(rng_.Uniform(360000001)) - 180000000));
      argv->push_back(MicroDegrees(static_cast<int64_t>(rng_.Uniform(170102257)) - 85051128));
      argv->push_back(std::move(name));
    } else if (zset) {
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
    // The command's key, for synthetic collections: its first argument (Validate() keeps them
    // out of it).
    const std::string& key = argv->size() > 1 ? (*argv)[1] : t.name;
    if (arg.expand_elements) {
      AppendElements(argv);
      continue;
    }
    if (arg.collection.kind != CollectionExpansion::Kind::kNone) {
      const std::string key_copy = key;  // argv grows below
      AppendCollection(arg.collection, key_copy, argv);
      continue;
    }
    std::string s;
    for (const TemplatePart& p : arg.parts) AppendPart(p, key, &s);
    argv->push_back(std::move(s));
  }
}

}  // namespace kvlab::workloads

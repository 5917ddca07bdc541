// OpExpander: turns command templates into argument vectors for one worker thread, drawing the
// placeholders of each operation once (command_template.h lists them).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "workloads/generators.h"
#include "workloads/workload.h"

namespace kvlab::workloads {

// Synthetic collections (docs/workloads.md, "Synthetic collections"): what a profile workload's
// keys hold is a function of the key's number (its trailing decimal digits; a key without
// them is hashed) and of the member's index, so a load and every later read agree.
struct SyntheticCollection {
  // REQUIRES: the distributions outlive it.
  SyntheticCollection(const std::string& key, const EmpiricalDistribution& size,
                      const EmpiricalDistribution& length);
  uint64_t size() const { return size_; }
  // The name of member `index`: its decimal digits, then '_' and filler letters up to the length
  // drawn for it (never shorter than the digits: names stay distinct).
  std::string Member(uint64_t index) const;
  // The length of the value of member `index` under `value_length`.
  uint64_t ValueLength(uint64_t index, const EmpiricalDistribution& value_length) const;

 private:
  const EmpiricalDistribution& length_;
  double member_offset_;
  double value_offset_;
  uint64_t size_;
};

}  // namespace kvlab::workloads

namespace kvlab::workloads {

class OpExpander {
 public:
  // Streams: the worker's random stream comes from (seed, stream). `inserts` is shared by the
  // run's workers and may be null when no template uses {new_key}.
  // REQUIRES: workload and inserts outlive the expander.
  OpExpander(const Workload& workload, uint64_t stream, int thread, int threads,
             InsertCounter* inserts);

  // Sets the distributions of a run phase (key, element, scan length).
  void UsePhase(const PhaseSpec& phase);
  // Sets the distributions of the load phase (uniform elements).
  void UseLoad();

  // Starts an operation: forgets the previous draws. `now` is the value of {now}. A load
  // operation fixes the record and the element range {elements} covers; a run operation draws
  // its record and {elements} covers all elements of the record.
  void BeginLoadOp(uint64_t key_id, uint64_t elements_begin, uint64_t elements_end);
  void BeginRunOp(int64_t now);

  // Appends the command's arguments (name first) to *argv, which it clears first.
  void Expand(const CommandTemplate& t, std::vector<std::string>* argv);

  // The record {new_key} inserted in this operation, if any: the caller acknowledges it to the
  // insert counter once the operation's commands are done.
  std::optional<uint64_t> inserted_id() const { return new_key_id_; }

  // Picks an operation index by weight.
  size_t PickOp(const std::vector<double>& cumulative_weights);

  Rng& rng() { return rng_; }

 private:
  uint64_t KeyId();
  uint64_t NewKeyId();
  uint64_t ElementId();
  const std::string& Value();
  int64_t Int(int64_t a, int64_t b);
  // A fresh value_bytes slice of the random pool.
  std::string_view RandomValue();
  void AppendPart(const TemplatePart& p, const std::string& key, std::string* out);
  void AppendElements(std::vector<std::string>* argv);
  // {fields:N:L:V}, {members:N:L}, {scored:N:L} of `key`.
  void AppendCollection(const CollectionExpansion& c, const std::string& key,
                        std::vector<std::string>* argv);
  // n random printable bytes.
  std::string RandomBytes(uint64_t n);
  const EmpiricalDistribution& Dist(const std::string& name) const;

  const Workload& w_;
  const int thread_;
  const int threads_;
  InsertCounter* inserts_;
  Rng rng_;
  std::string value_pool_;
  std::string element_prefix_;

  std::unique_ptr<Chooser> key_chooser_;
  std::unique_ptr<Chooser> element_chooser_;
  std::unique_ptr<Chooser> scan_chooser_;
  uint64_t scan_max_ = 1;

  // The current operation's draws.
  bool load_op_ = false;
  int64_t now_ = 0;
  uint64_t elements_begin_ = 0;
  uint64_t elements_end_ = 0;
  std::optional<uint64_t> key_id_;
  std::optional<uint64_t> new_key_id_;
  std::optional<uint64_t> element_id_;
  std::optional<uint64_t> scan_length_;
  std::optional<uint64_t> score_;
  std::optional<std::string> value_;
  std::vector<std::tuple<int64_t, int64_t, int64_t>> ints_;  // (a, b, drawn)
  // {draw:D} and {bytes:D} by D, {member:N:L}'s draw of u by "N:L".
  std::vector<std::pair<std::string, uint64_t>> draws_;
  std::vector<std::pair<std::string, std::string>> bytes_;
  std::vector<std::pair<std::string, double>> member_draws_;
};

}  // namespace kvlab::workloads

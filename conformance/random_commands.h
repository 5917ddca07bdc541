// Randomized differential testing: a seeded generator of command sequences.
//
// Sequences draw from small alphabets of keys, fields, members and scores, so that commands
// collide: the same fields are set, deleted and re-set, keys change type (WRONGTYPE), expire
// and come back. Every command of the engine's table is generated, with valid arguments most of
// the time and invalid ones (bad numbers, bad options, wrong arity) otherwise.
//
// Transactions: MULTI is followed by a few commands and then EXEC (or DISCARD); the commands
// the harness cannot judge inside a transaction (the SCAN family, random choices, DBSIZE) are
// not generated there.
//
// Two things are kept out on purpose, because Redis leaves them unspecified or racy, so a
// mismatch would say nothing about kvlab:
// - lex ranges run only on a few keys ("l1", and keys that are mostly of other types) whose
//   zset members always have score 0: Redis's lex order on unequal scores is unspecified and
//   differs even between its own encodings;
// - GT/LT expiry comparisons use absolute far-future times (EXPIREAT, PEXPIREAT): with relative
//   times two servers reading their clocks a millisecond apart may compare differently. There
//   are no short TTLs either: the curated corpus tests real expiry with @sleep.
//
// The generator is deterministic for a seed on every platform (its own arithmetic on
// std::mt19937_64, no std distributions), so `kvlab conform --random --seed N` replays a run.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "conformance/case_file.h"

namespace kvlab::conformance {

class RandomCommandGenerator {
 public:
  explicit RandomCommandGenerator(uint64_t seed) : rng_(seed) {}
  std::vector<std::string> Next();

  // Every command the generator produces (lower case), for the coverage test.
  static std::vector<std::string> Commands();

  // Helpers for the per-command generators (random_commands.cc).
  uint64_t Below(uint64_t n) { return n == 0 ? 0 : rng_() % n; }
  bool Chance(int percent) { return Below(100) < static_cast<uint64_t>(percent); }
  template <typename T>
  const T& Pick(const std::vector<T>& v) {
    return v[Below(v.size())];
  }

 private:
  // One command, with the arity mutations; inside a transaction only queueable ones.
  std::vector<std::string> Draw();
  // Whether the harness can judge argv between MULTI and EXEC (differential.cc).
  static bool QueueableInSequence(const std::vector<std::string>& argv);

  std::mt19937_64 rng_;
  bool in_multi_ = false;  // a MULTI was generated and accepted, and no EXEC or DISCARD since
};

// The seed of sequence `index` of a run seeded with `run_seed` (splitmix64, so neighbouring
// run seeds give unrelated sequences).
uint64_t SequenceSeed(uint64_t run_seed, uint64_t index);

// A case of `steps` generated commands, named "random-<run_seed>-<index>"; step lines are the
// 1-based positions.
CaseFile RandomSequence(uint64_t run_seed, uint64_t index, size_t steps);

}  // namespace kvlab::conformance

// The pieces the verdict's sentences are built from (verdict.cc) and the terminal summary
// (terminal.cc): a sentence that records the facts it states, pointers into study.json, and the
// sentences every (workload, type) shares. Internal to study/.
#pragma once

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace kvlab::study {

// A sentence under construction: text plus the facts it states.
class Sentence {
 public:
  Sentence& Text(const std::string& s) {
    text_ += s;
    return *this;
  }
  // Appends the number at `pointer` of `doc`, formatted (FormatNumber), and records it as a fact.
  Sentence& Fact(const nlohmann::json& doc, const std::string& pointer);
  // Appends another sentence's text and facts.
  Sentence& Append(const Sentence& other);
  bool empty() const { return text_.empty(); }
  nlohmann::json Json() const { return {{"text", text_}, {"facts", facts_}}; }

 private:
  std::string text_;
  nlohmann::json facts_ = nlohmann::json::array();
};

// "a", "a and b", "a, b and c".
std::string JoinWords(const std::vector<std::string>& items);
// "/rankings/<ranking>/rows/<row>/<rest>".
std::string Ptr(size_t ranking, size_t row, const std::string& rest);
// The row index of `label` in a ranking, or -1.
int RowOf(const nlohmann::json& ranking, const std::string& label);
// Whether row/<pointer_in_row> is a number.
bool HasNumber(const nlohmann::json& row, const std::string& pointer_in_row);
// The rankings grouped by (workload, type), in first-appearance order.
std::vector<std::vector<size_t>> Groups(const nlohmann::json& rankings);

// One clause per command whose exact KV reads or writes per call differ between rows a and b of
// ranking k: "HLEN: 1 KV read and 0 writes per call on h0, against 12 and 0 on hardb". Each
// pair compared is added to *stated (when not null) as "CMD a b" and "CMD b a".
std::vector<Sentence> KvClauses(const nlohmann::json& study, size_t k, size_t a, size_t b,
                                std::set<std::string>* stated);

// The sentences a (workload, type) states once, from ranking `ref` where `winner_row` ranks
// first: the exact KV cost of the winner against the first version after it that differs, the
// commands whose cost differs tenfold between versions, the Redis tier's work, the deviations,
// and space.
void SharedSentences(const nlohmann::json& study, size_t ref, int winner_row,
                     const std::string& type, nlohmann::json* out);
// Ranking k's timing: the version with the lowest p50 on its store and every other's ratio to
// it, "≈ … (not significant)" when the interval holds 1.
void TimingSentence(const nlohmann::json& study, size_t k, nlohmann::json* out);

}  // namespace kvlab::study

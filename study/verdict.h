// The verdict of a study: plain sentences drawn from the rankings' numbers, and the one-screen
// summary printed on the terminal.
//
// Every number a sentence states is one of the rankings' own numbers, formatted by
// FormatNumber, and the sentence lists it as a fact: {"pointer": JSON pointer into study.json,
// "text": the number as printed}. study_test checks each fact against the table it points to,
// and that a sentence states no number that is not a fact. Nothing in a sentence is written in
// advance: which version wins, which tie, what separates them, where the answer would change and
// by how much all come from the measurements.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kvlab::study {

// 3 significant digits, thousands without separators, no exponent: "0.5", "12.3", "1234".
std::string FormatNumber(double v);

// The verdict of study.json's `rankings` (which must sit at `/rankings` of the document the
// pointers refer to): {"sentences": [{"text", "facts": [...]}, ...]}, in reading order: per
// workload and type, the recommendation on each store (the first place, or the versions tied for
// it and what separates them), where it would change (break_even.h), then the exact costs, the
// Redis tier, exactness, space and the timings behind it.
nlohmann::json MakeVerdict(const nlohmann::json& study);

// Checks a study's verdict against its tables: every fact's pointer resolves to a number whose
// FormatNumber is the fact's text, the sentence contains that text, and the sentence states no
// other number (version labels, command, backend, workload and deviation names aside). Returns
// one line per problem; empty when the verdict is consistent.
std::vector<std::string> CheckVerdict(const nlohmann::json& study);

// The terminal summary: per workload and type, the ranking table (rank and score per backend,
// p50 per backend, the exact criteria), aligned for any label length and in rank order; then
// the study's warnings and the verdict's sentences.
std::string TerminalVerdict(const nlohmann::json& study);

}  // namespace kvlab::study

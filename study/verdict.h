// The verdict of a study: plain sentences drawn from the rankings' numbers, and the one-screen
// table printed on the terminal.
//
// Every number a sentence states is one of the rankings' own numbers, formatted by
// FormatNumber, and the sentence lists it as a fact: {"pointer": JSON pointer into study.json,
// "text": the number as printed}. study_test checks each fact against the table it points to,
// and that a sentence states no number that is not a fact. Nothing in a sentence is written in
// advance: which version wins, what differs and by how much all come from the measurements.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kvlab::study {

// 3 significant digits, thousands without separators, no exponent: "0.5", "12.3", "1234".
std::string FormatNumber(double v);

// The verdict of study.json's `rankings` (which must sit at `/rankings` of the document the
// pointers refer to): {"sentences": [{"text", "facts": [...]}, ...]}, in reading order.
nlohmann::json MakeVerdict(const nlohmann::json& study);

// Checks a study's verdict against its tables: every fact's pointer resolves to a number whose
// FormatNumber is the fact's text, the sentence contains that text, and the sentence states no
// other number (version labels, command, backend, workload and deviation names aside). Returns
// one line per problem; empty when the verdict is consistent.
std::vector<std::string> CheckVerdict(const nlohmann::json& study);

// The terminal summary: per workload and type, the ranking table (rank and score per backend,
// p50 per backend, the exact criteria), then the verdict's sentences. Fits a screen for up to
// four backends and four versions per type.
std::string TerminalVerdict(const nlohmann::json& study);

}  // namespace kvlab::study

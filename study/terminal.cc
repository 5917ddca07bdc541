// TerminalVerdict (verdict.h): the one-screen summary `kvlab study` prints.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "study/verdict.h"
#include "study/verdict_text.h"

namespace kvlab::study {
namespace {

using nlohmann::json;

// Display width: UTF-8 code points ("µ" is one column).
size_t Width(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// A table of text cells laid out in columns as wide as their widest cell, two spaces apart;
// columns marked right-aligned hold numbers.
class Table {
 public:
  explicit Table(std::vector<bool> right) : right_(std::move(right)) {}
  void Add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  std::string Render() const {
    std::vector<size_t> width(right_.size(), 0);
    for (const auto& row : rows_) {
      for (size_t i = 0; i < row.size() && i < width.size(); ++i) {
        width[i] = std::max(width[i], Width(row[i]));
      }
    }
    std::string out;
    for (const auto& row : rows_) {
      std::string line;
      for (size_t i = 0; i < row.size() && i < width.size(); ++i) {
        const std::string pad(width[i] - Width(row[i]), ' ');
        line += (i > 0 ? "  " : "") + (right_[i] ? pad + row[i] : row[i] + pad);
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out += line + "\n";
    }
    return out;
  }

 private:
  std::vector<bool> right_;
  std::vector<std::vector<std::string>> rows_;
};

std::string Number(const json& row, const std::string& pointer) {
  return HasNumber(row, pointer) ? FormatNumber(row.at(json::json_pointer("/" + pointer)))
                                 : std::string("-");
}

}  // namespace

std::string TerminalVerdict(const json& study) {
  std::string out;
  const json& rankings = study["rankings"];
  const std::vector<std::pair<std::string, std::string>> exact = {
      {"kv_ops", "KV ops"}, {"kv_bytes", "KV B"},          {"round_trips", "RTs"},
      {"space", "B/elem"},  {"write_bytes", "write B/el"}, {"redis_memory", "Redis B/el"}};
  for (const auto& g : Groups(rankings)) {
    const json& first = rankings[g[0]];
    std::string fixed;
    for (auto it = first["fixed"].begin(); it != first["fixed"].end(); ++it) {
      fixed += std::string(fixed.empty() ? "" : ", ") + it.key() + " at " +
               it.value()["label"].get<std::string>();
    }
    out += "\n" + first["workload"].get<std::string>() + ": " + first["type"].get<std::string>() +
           " versions" + (fixed.empty() ? "" : " (" + fixed + " fixed)") + "\n";
    // Columns: version; rank and score per store; p50 per store; the exact criteria; deviations.
    std::vector<bool> right = {false};
    std::vector<std::string> h1 = {""}, h2 = {"version"};
    for (size_t k : g) {
      right.insert(right.end(), {true, true});
      h1.insert(h1.end(), {rankings[k]["backend"].get<std::string>(), ""});
      h2.insert(h2.end(), {"rank", "score [range]"});
    }
    for (size_t k : g) {
      right.push_back(true);
      h1.push_back(rankings[k]["backend"].get<std::string>());
      h2.push_back("p50 µs");
    }
    for (const auto& [name, title] : exact) {
      right.push_back(true);
      h1.push_back("");
      h2.push_back(title);
    }
    right.push_back(false);
    h1.push_back("");
    h2.push_back("deviations");
    Table table(right);
    table.Add(h1);
    table.Add(h2);
    // Rows in the first store's rank order; a version another store has and it lacks goes last.
    std::vector<std::string> labels;
    std::set<std::string> seen;
    for (size_t k : g) {
      for (const json& row : rankings[k]["rows"]) {
        if (seen.insert(row["label"].get<std::string>()).second) labels.push_back(row["label"]);
      }
    }
    for (const std::string& label : labels) {
      std::vector<std::string> line = {label};
      const json* any = nullptr;
      for (size_t k : g) {
        const int i = RowOf(rankings[k], label);
        if (i < 0) {
          line.insert(line.end(), {"-", "-"});
          continue;
        }
        const json& row = rankings[k]["rows"][i];
        if (any == nullptr) any = &row;
        if (!row["rank"].is_number()) {
          line.insert(line.end(), {"failed", ""});
          continue;
        }
        line.push_back(std::to_string(row["rank"].get<int>()));
        line.push_back(FormatNumber(row["score"]) + " [" + FormatNumber(row["score_low"]) + "-" +
                       FormatNumber(row["score_high"]) + "]");
      }
      for (size_t k : g) {
        const int i = RowOf(rankings[k], label);
        std::string cell = "-";
        if (i >= 0 && HasNumber(rankings[k]["rows"][i], "criteria/latency/value")) {
          const json& c = rankings[k]["rows"][i]["criteria"]["latency"];
          cell = FormatNumber(c["value"].get<double>());
          if (!c.value("best", false) && !c.value("significant", false)) cell = "≈" + cell;
        }
        line.push_back(cell);
      }
      for (const auto& [name, title] : exact) {
        line.push_back(any != nullptr ? Number(*any, "criteria/" + name + "/value") : "-");
      }
      std::string devs;
      if (any != nullptr) {
        for (const json& d : (*any)["deviations"]) {
          devs += std::string(devs.empty() ? "" : ",") + d["id"].get<std::string>();
        }
      }
      line.push_back(devs.empty() ? "-" : devs);
      table.Add(line);
    }
    out += table.Render();
  }
  out += "\n";
  for (const json& w : study.value("warnings", json::array())) {
    out += "  ! " + w.get<std::string>() + "\n";
  }
  for (const json& s : study.value("verdict", json::object()).value("sentences", json::array())) {
    const std::string text = s["text"].get<std::string>();
    // A group's heading ("game's hash commands (...):") stands alone; its sentences follow.
    out += (!text.empty() && text.back() == ':' ? "\n" : "  * ") + text + "\n";
  }
  return out;
}

}  // namespace kvlab::study

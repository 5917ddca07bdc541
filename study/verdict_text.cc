#include "study/verdict_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "study/verdict.h"

namespace kvlab::study {

using nlohmann::json;

namespace {

std::string Plural(double n, const std::string& one, const std::string& many) {
  return n == 1 ? one : many;
}

// The first measured row other than `skip`, or -1.
int OtherRow(const json& ranking, int skip) {
  for (size_t i = 0; i < ranking["rows"].size(); ++i) {
    if (static_cast<int>(i) != skip && ranking["rows"][i]["rank"].is_number()) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

json Merge(const std::string& head, const std::vector<Sentence>& clauses) {
  Sentence s;
  s.Text(head);
  for (size_t k = 0; k < clauses.size(); ++k) {
    if (k > 0) s.Text("; ");
    s.Append(clauses[k]);
  }
  s.Text(".");
  return s.Json();
}

}  // namespace

Sentence& Sentence::Fact(const json& doc, const std::string& pointer) {
  const json& v = doc.at(json::json_pointer(pointer));
  const std::string text = FormatNumber(v.get<double>());
  text_ += text;
  facts_.push_back({{"pointer", pointer}, {"text", text}});
  return *this;
}

Sentence& Sentence::Append(const Sentence& other) {
  text_ += other.text_;
  for (const json& f : other.facts_) facts_.push_back(f);
  return *this;
}

std::string JoinWords(const std::vector<std::string>& items) {
  std::string s;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) s += i + 1 == items.size() ? " and " : ", ";
    s += items[i];
  }
  return s;
}

std::string Ptr(size_t ranking, size_t row, const std::string& rest) {
  return "/rankings/" + std::to_string(ranking) + "/rows/" + std::to_string(row) + "/" + rest;
}

int RowOf(const json& ranking, const std::string& label) {
  const json& rows = ranking["rows"];
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].value("label", "") == label) return static_cast<int>(i);
  }
  return -1;
}

bool HasNumber(const json& row, const std::string& pointer_in_row) {
  try {
    return row.at(json::json_pointer("/" + pointer_in_row)).is_number();
  } catch (...) {
    return false;
  }
}

std::vector<std::vector<size_t>> Groups(const json& rankings) {
  std::vector<std::vector<size_t>> groups;
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < rankings.size(); ++i) {
    const std::string key =
        rankings[i].value("workload", "") + "\n" + rankings[i].value("type", "");
    if (!index.count(key)) {
      index[key] = groups.size();
      groups.emplace_back();
    }
    groups[index[key]].push_back(i);
  }
  return groups;
}

std::vector<Sentence> KvClauses(const json& study, size_t k, size_t a, size_t b,
                                std::set<std::string>* stated) {
  const json& ranking = study["rankings"][k];
  const json& ar = ranking["rows"][a];
  const json& br = ranking["rows"][b];
  const std::string al = ar["label"], bl = br["label"];
  auto apart = [](double x, double y) {
    return std::fabs(x - y) > 0.01 * std::max(std::fabs(x), std::fabs(y)) &&
           std::fabs(x - y) > 1e-9;
  };
  std::vector<Sentence> clauses;
  for (const std::string& cmd : ranking["commands"].get<std::vector<std::string>>()) {
    const std::string base = "commands/" + cmd + "/";
    if (!HasNumber(ar, base + "kv_reads") || !HasNumber(br, base + "kv_reads")) continue;
    const double a_r = ar["commands"][cmd]["kv_reads"], a_w = ar["commands"][cmd]["kv_writes"];
    const double b_r = br["commands"][cmd]["kv_reads"], b_w = br["commands"][cmd]["kv_writes"];
    if (!apart(a_r, b_r) && !apart(a_w, b_w)) continue;
    if (stated != nullptr) {
      stated->insert(cmd + " " + al + " " + bl);
      stated->insert(cmd + " " + bl + " " + al);
    }
    Sentence c;
    c.Text(cmd + ": ")
        .Fact(study, Ptr(k, a, base + "kv_reads"))
        .Text(" KV " + Plural(a_r, "read", "reads") + " and ")
        .Fact(study, Ptr(k, a, base + "kv_writes"))
        .Text(" " + Plural(a_w, "write", "writes") + " per call on " + al + ", against ")
        .Fact(study, Ptr(k, b, base + "kv_reads"))
        .Text(" and ")
        .Fact(study, Ptr(k, b, base + "kv_writes"))
        .Text(" on " + bl);
    clauses.push_back(c);
  }
  return clauses;
}

void SharedSentences(const json& study, size_t ref, int w_row, const std::string& type, json* out) {
  const json& ranking = study["rankings"][ref];
  const json& rows = ranking["rows"];
  if (w_row < 0) return;
  const int o_row = OtherRow(ranking, w_row);
  if (o_row < 0) return;
  const json& wr = rows[w_row];
  const std::string winner = wr["label"];
  // 1. Exact KV cost per command against the first version after the winner that differs.
  std::set<std::string> stated;
  std::vector<std::string> same;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (static_cast<int>(i) == w_row || !rows[i]["rank"].is_number()) continue;
    const std::vector<Sentence> clauses = KvClauses(study, ref, w_row, i, &stated);
    if (clauses.empty()) {
      same.push_back(rows[i]["label"]);
      continue;
    }
    out->push_back(Merge(
        "Exact KV cost of " + winner + " against " + rows[i]["label"].get<std::string>() + " — ",
        clauses));
    break;
  }
  if (!same.empty()) {
    Sentence s;
    s.Text(winner + " and " + JoinWords(same) + " issue the same KV operations for every " + type +
           " command of the workload.");
    out->push_back(s.Json());
  }
  // 2. Commands whose KV reads differ tenfold between versions: the cheapest and the costliest.
  {
    std::vector<Sentence> clauses;
    for (const std::string& cmd : ranking["commands"].get<std::vector<std::string>>()) {
      const std::string field = "commands/" + cmd + "/kv_reads";
      int lo = -1, hi = -1;
      for (size_t i = 0; i < rows.size(); ++i) {
        if (!HasNumber(rows[i], field)) continue;
        const double v = rows[i]["commands"][cmd]["kv_reads"];
        if (lo < 0 || v < rows[lo]["commands"][cmd]["kv_reads"].get<double>()) lo = i;
        if (hi < 0 || v > rows[hi]["commands"][cmd]["kv_reads"].get<double>()) hi = i;
      }
      if (lo < 0 || hi < 0 || lo == hi) continue;
      const double vlo = rows[lo]["commands"][cmd]["kv_reads"];
      const double vhi = rows[hi]["commands"][cmd]["kv_reads"];
      if (vhi < 10 * std::max(vlo, 1.0) || vhi - vlo < 10) continue;
      const std::string hl = rows[hi]["label"], ll = rows[lo]["label"];
      if (stated.count(cmd + " " + hl + " " + ll)) continue;
      Sentence c;
      c.Text(cmd + " reads ")
          .Fact(study, Ptr(ref, hi, field))
          .Text(" KV records per call on " + hl + " against ")
          .Fact(study, Ptr(ref, lo, field))
          .Text(" on " + ll);
      clauses.push_back(c);
    }
    if (!clauses.empty()) out->push_back(Merge("Where versions differ most: ", clauses));
  }
  // 3. The Redis tier's work and memory, for the winner and the other, when they use it.
  for (const int i : {w_row, o_row}) {
    const json& row = rows[i];
    if (!HasNumber(row, "criteria/round_trips/value")) continue;
    if (row["criteria"]["round_trips"]["value"].get<double>() <= 0) continue;
    Sentence s;
    s.Text(row["label"].get<std::string>() + " adds ")
        .Fact(study, Ptr(ref, i, "criteria/round_trips/value"))
        .Text(" Redis round trips per " + type + " command");
    if (HasNumber(row, "criteria/redis_memory/value") &&
        row["criteria"]["redis_memory"]["value"].get<double>() > 0) {
      s.Text(" and keeps ")
          .Fact(study, Ptr(ref, i, "criteria/redis_memory/value"))
          .Text(" bytes of Redis memory per element");
    }
    s.Text(".");
    out->push_back(s.Json());
  }
  // 4. Exactness: the deviations every version has, once; then those that set versions apart.
  {
    std::map<std::string, int> count;
    std::map<std::string, std::set<std::string>> commands;
    for (const json& row : rows) {
      for (const json& d : row["deviations"]) {
        ++count[d["id"].get<std::string>()];
        for (const json& c : d["commands"]) commands[d["id"]].insert(c.get<std::string>());
      }
    }
    const int n = static_cast<int>(rows.size());
    for (const auto& [id, k] : count) {
      if (k != n) continue;
      Sentence s;
      s.Text("Every " + type + " version may reply differently from Redis to " +
             JoinWords(std::vector<std::string>(commands[id].begin(), commands[id].end())) + " (" +
             id + ", docs/deviations.json); it does not set them apart.");
      out->push_back(s.Json());
    }
    for (const json& row : rows) {
      std::set<std::string> cmds;
      std::vector<std::string> ids;
      for (const json& d : row["deviations"]) {
        if (count[d["id"].get<std::string>()] == n) continue;
        ids.push_back(d["id"]);
        for (const json& c : d["commands"]) cmds.insert(c.get<std::string>());
      }
      if (ids.empty()) continue;
      Sentence s;
      s.Text(JoinWords(std::vector<std::string>(cmds.begin(), cmds.end())) +
             " replies may differ from Redis on " + row["label"].get<std::string>() + " (" +
             JoinWords(ids) + ", docs/deviations.json).");
      out->push_back(s.Json());
    }
  }
  // 5. Space: what keeping the loaded data costs.
  if (HasNumber(wr, "criteria/space/value") && HasNumber(rows[o_row], "criteria/space/value")) {
    Sentence s;
    s.Text(winner + " keeps ")
        .Fact(study, Ptr(ref, w_row, "criteria/space/value"))
        .Text(" bytes per element (live keys and values at the end of the load), " +
              rows[o_row]["label"].get<std::string>() + " ")
        .Fact(study, Ptr(ref, o_row, "criteria/space/value"))
        .Text(".");
    out->push_back(s.Json());
  }
}

void TimingSentence(const json& study, size_t k, json* out) {
  const json& r = study["rankings"][k];
  if (!r["criteria"].contains("latency")) return;
  const std::string best = r["criteria"]["latency"]["best_label"];
  const int b_row = RowOf(r, best);
  if (b_row < 0) return;
  Sentence s;
  s.Text("On " + r["backend"].get<std::string>() + ", " + best + " has the lowest p50 (")
      .Fact(study, Ptr(k, b_row, "criteria/latency/value"))
      .Text(" µs)");
  // The smallest ratio that counts in the ranking (ranking.h: a significant ratio inside the
  // noise is no difference there), when p50 counts.
  const json latency_noise =
      r.value("timed_criteria", json::object()).value("latency", json::object());
  const bool counts = r.value("timings_count", true) && latency_noise.value("counts", true);
  bool any = false, inside_noise = false;
  for (size_t i = 0; i < r["rows"].size(); ++i) {
    if (static_cast<int>(i) == b_row) continue;
    const json& row = r["rows"][i];
    if (!HasNumber(row, "criteria/latency/ratio")) continue;
    const bool sig = row["criteria"]["latency"].value("significant", false);
    // As the ranking decided it (ranking.cc marks a cost it zeroed inside the noise).
    const bool inside = counts && sig && row["criteria"]["latency"].value("inside_noise", false);
    inside_noise = inside_noise || inside;
    s.Text(any ? "; " : ": ");
    any = true;
    s.Text(row["label"].get<std::string>() + (sig ? " is " : " is ≈ "))
        .Fact(study, Ptr(k, i, "criteria/latency/ratio"))
        .Text(sig ? (inside ? "× slower*" : "× slower") : "× (not significant)");
  }
  if (!r.value("timings_count", true)) {
    s.Text(" (too few repetitions: timings do not count)");
  } else if (!latency_noise.value("counts", true)) {
    s.Text(" (too noisy on this machine: p50 does not count)");
  } else if (inside_noise) {
    s.Text(" (* inside this run's noise: p50 ratios up to ")
        .Fact(study, "/rankings/" + std::to_string(k) + "/timed_criteria/latency/noise")
        .Text("× do not count in the ranking)");
  }
  s.Text(".");
  out->push_back(s.Json());
}

std::string FormatNumber(double v) {
  if (!std::isfinite(v)) return "inf";
  if (v == 0) return "0";
  const double a = std::fabs(v);
  char buf[64];
  if (a >= 100) {
    std::snprintf(buf, sizeof(buf), "%.0f", v);
  } else if (a >= 10) {
    std::snprintf(buf, sizeof(buf), "%.1f", v);
  } else if (a >= 1) {
    std::snprintf(buf, sizeof(buf), "%.2f", v);
  } else if (a >= 0.01) {
    std::snprintf(buf, sizeof(buf), "%.3f", v);
  } else {
    std::snprintf(buf, sizeof(buf), "%.2g", v);
  }
  std::string s = buf;
  // Drop trailing zeros of a fraction: "2.00" -> "2", "0.50" -> "0.5".
  if (s.find('.') != std::string::npos && s.find('e') == std::string::npos) {
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
  }
  return s;
}

std::vector<std::string> CheckVerdict(const json& study) {
  std::vector<std::string> problems;
  // Names that may contain digits and are not numbers of the tables.
  std::vector<std::string> names;
  for (const json& r : study.value("rankings", json::array())) {
    names.push_back(r.value("workload", ""));
    names.push_back(r.value("backend", ""));
    for (const json& c : r.value("commands", json::array())) names.push_back(c);
    for (const json& row : r["rows"]) {
      names.push_back(row.value("label", ""));
      for (const json& d : row.value("deviations", json::array())) names.push_back(d["id"]);
    }
    const json fixed = r.value("fixed", json::object());
    for (const auto& [t, f] : fixed.items()) {
      names.push_back(f.value("label", ""));
    }
  }
  std::sort(names.begin(), names.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  const json& sentences = study.value("verdict", json::object()).value("sentences", json::array());
  if (sentences.empty()) problems.push_back("the verdict has no sentence");
  for (const json& s : sentences) {
    const std::string text = s.value("text", "");
    std::set<std::string> fact_texts;
    for (const json& f : s.value("facts", json::array())) {
      const std::string pointer = f.value("pointer", "");
      const std::string ftext = f.value("text", "");
      fact_texts.insert(ftext);
      try {
        const json& v = study.at(json::json_pointer(pointer));
        if (!v.is_number()) {
          problems.push_back("'" + text + "': " + pointer + " is not a number");
        } else if (FormatNumber(v.get<double>()) != ftext) {
          problems.push_back("'" + text + "': states " + ftext + " where the table (" + pointer +
                             ") has " + FormatNumber(v.get<double>()));
        }
      } catch (const std::exception& e) {
        problems.push_back("'" + text + "': " + pointer + " does not resolve: " + e.what());
      }
      if (text.find(ftext) == std::string::npos) {
        problems.push_back("'" + text + "': does not state its fact " + ftext);
      }
    }
    // Every number in the text is a fact.
    std::string scrubbed = text;
    for (const std::string& n : names) {
      if (n.empty()) continue;
      for (size_t at = scrubbed.find(n); at != std::string::npos; at = scrubbed.find(n, at)) {
        scrubbed.replace(at, n.size(), std::string(n.size(), ' '));
      }
    }
    for (size_t i = 0; i < scrubbed.size(); ++i) {
      const unsigned char c = scrubbed[i];
      const bool starts =
          std::isdigit(c) || (c == '-' && i + 1 < scrubbed.size() && std::isdigit(scrubbed[i + 1]));
      const unsigned char prev = i > 0 ? scrubbed[i - 1] : ' ';
      if (!starts || std::isalnum(prev) || prev == '.' || prev == '_') continue;
      size_t j = i + 1;
      while (j < scrubbed.size() &&
             (std::isdigit(static_cast<unsigned char>(scrubbed[j])) ||
              (scrubbed[j] == '.' && j + 1 < scrubbed.size() &&
               std::isdigit(static_cast<unsigned char>(scrubbed[j + 1]))) ||
              (scrubbed[j] == 'e' && j + 1 < scrubbed.size() &&
               (scrubbed[j + 1] == '-' || scrubbed[j + 1] == '+')) ||
              ((scrubbed[j] == '-' || scrubbed[j] == '+') && scrubbed[j - 1] == 'e'))) {
        ++j;
      }
      const std::string number = scrubbed.substr(i, j - i);
      if (!fact_texts.count(number)) {
        problems.push_back("'" + text + "': states " + number + ", which is not a fact of it");
      }
      i = j;
    }
  }
  return problems;
}

}  // namespace kvlab::study

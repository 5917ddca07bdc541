#include "study/verdict.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <vector>

#include "study/ranking.h"

namespace kvlab::study {
namespace {

using nlohmann::json;

// A sentence under construction: text plus the facts it states.
class Sentence {
 public:
  Sentence& Text(const std::string& s) {
    text_ += s;
    return *this;
  }
  // Appends the number at `pointer` of `doc`, formatted, and records it as a fact.
  Sentence& Fact(const json& doc, const std::string& pointer) {
    const json& v = doc.at(json::json_pointer(pointer));
    const std::string text = FormatNumber(v.get<double>());
    text_ += text;
    facts_.push_back({{"pointer", pointer}, {"text", text}});
    return *this;
  }
  bool empty() const { return text_.empty(); }
  json Json() const { return {{"text", text_}, {"facts", facts_}}; }

 private:
  std::string text_;
  json facts_ = json::array();
};

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

// The row index of `label` in a ranking, or -1.
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

std::string Plural(double n, const std::string& one, const std::string& many) {
  return n == 1 ? one : many;
}

// The sentences of one (workload, type): its rankings are `indices` into study["rankings"].
void SentencesFor(const json& study, const std::vector<size_t>& indices, json* out) {
  const json& rankings = study["rankings"];
  const json& first = rankings[indices[0]];
  const std::string workload = first.value("workload", "");
  const std::string type = first.value("type", "");
  // 1. Who wins where.
  std::map<std::string, std::vector<std::string>> winners;  // label -> backends
  std::vector<std::string> winner_order;
  for (size_t k : indices) {
    const json& r = rankings[k];
    for (const json& row : r["rows"]) {
      if (row.value("rank", json()).is_number() && row["rank"].get<int>() == 1) {
        const std::string label = row["label"];
        if (!winners.count(label)) winner_order.push_back(label);
        winners[label].push_back(r["backend"]);
      }
    }
  }
  if (winner_order.empty()) return;
  std::sort(winner_order.begin(), winner_order.end(),
            [&](const auto& a, const auto& b) { return winners[a].size() > winners[b].size(); });
  std::string fixed;
  for (auto it = first["fixed"].begin(); it != first["fixed"].end(); ++it) {
    fixed += std::string(fixed.empty() ? "" : ", ") + it.key() + " at " +
             it.value()["label"].get<std::string>();
  }
  {
    Sentence s;
    s.Text("For " + workload + "'s " + type + " commands (" +
           JoinWords(first["commands"].get<std::vector<std::string>>()) + ")");
    if (!fixed.empty()) s.Text(", with " + fixed);
    s.Text(", ");
    std::vector<std::string> parts;
    for (size_t i = 0; i < winner_order.size(); ++i) {
      const std::string& w = winner_order[i];
      parts.push_back(w + (i == 0 ? " ranks first on " : " on ") + JoinWords(winners[w]));
    }
    s.Text(JoinWords(parts) + ".");
    out->push_back(s.Json());
  }
  // The winner and the version it is compared with: the runner-up where the winner won (on the
  // first such backend).
  const std::string winner = winner_order[0];
  size_t ref = indices[0];
  for (size_t k : indices) {
    if (rankings[k]["backend"] == winners[winner][0]) ref = k;
  }
  const json& ranking = rankings[ref];
  const int w_row = RowOf(ranking, winner);
  int o_row = -1;
  for (size_t i = 0; i < ranking["rows"].size(); ++i) {
    if (static_cast<int>(i) != w_row && ranking["rows"][i]["rank"].is_number()) {
      o_row = static_cast<int>(i);
      break;
    }
  }
  if (w_row < 0 || o_row < 0) return;
  const json& wr = ranking["rows"][w_row];
  const json& orow = ranking["rows"][o_row];
  const std::string other = orow["label"];
  // 2. What each command costs in KV operations, against the first version after the winner
  // whose KV operations differ (exact counts).
  std::set<std::string> stated;  // "CMD a b": a command's KV reads already compared for a, b
  {
    auto apart = [](double a, double b) {
      return std::fabs(a - b) > 0.01 * std::max(std::fabs(a), std::fabs(b)) &&
             std::fabs(a - b) > 1e-9;
    };
    auto clauses_against = [&](int p_row) {
      const json& prow = ranking["rows"][p_row];
      const std::string partner = prow["label"];
      std::vector<Sentence> clauses;
      for (const std::string& cmd : ranking["commands"].get<std::vector<std::string>>()) {
        const std::string base = "commands/" + cmd + "/";
        if (!HasNumber(wr, base + "kv_reads") || !HasNumber(prow, base + "kv_reads")) continue;
        const double wr_r = wr["commands"][cmd]["kv_reads"];
        const double wr_w = wr["commands"][cmd]["kv_writes"];
        const double pr_r = prow["commands"][cmd]["kv_reads"];
        const double pr_w = prow["commands"][cmd]["kv_writes"];
        if (!apart(wr_r, pr_r) && !apart(wr_w, pr_w)) continue;
        stated.insert(cmd + " " + winner + " " + partner);
        stated.insert(cmd + " " + partner + " " + winner);
        Sentence c;
        c.Text(cmd + ": ")
            .Fact(study, Ptr(ref, w_row, base + "kv_reads"))
            .Text(" KV " + Plural(wr_r, "read", "reads") + " and ")
            .Fact(study, Ptr(ref, w_row, base + "kv_writes"))
            .Text(" " + Plural(wr_w, "write", "writes") + " per call on " + winner + ", against ")
            .Fact(study, Ptr(ref, p_row, base + "kv_reads"))
            .Text(" and ")
            .Fact(study, Ptr(ref, p_row, base + "kv_writes"))
            .Text(" on " + partner);
        clauses.push_back(c);
      }
      return clauses;
    };
    std::vector<std::string> same;  // versions ranked after the winner with its KV cost
    bool said = false;
    for (size_t i = 0; i < ranking["rows"].size() && !said; ++i) {
      const int p_row = static_cast<int>(i);
      if (p_row == w_row || !ranking["rows"][i]["rank"].is_number()) continue;
      const std::vector<Sentence> clauses = clauses_against(p_row);
      if (clauses.empty()) {
        same.push_back(ranking["rows"][i]["label"]);
        continue;
      }
      json merged = {{"text", ""}, {"facts", json::array()}};
      std::string text = "Exact KV cost of " + winner + " against " +
                         ranking["rows"][i]["label"].get<std::string>() + " — ";
      for (size_t k = 0; k < clauses.size(); ++k) {
        const json c = clauses[k].Json();
        text += (k > 0 ? "; " : "") + c["text"].get<std::string>();
        for (const json& f : c["facts"]) merged["facts"].push_back(f);
      }
      merged["text"] = text + ".";
      out->push_back(merged);
      said = true;
    }
    if (!same.empty()) {
      Sentence s;
      s.Text(winner + " and " + JoinWords(same) + " issue the same KV operations for every " +
             type + " command of the workload.");
      out->push_back(s.Json());
    }
  }
  // 2b. Commands whose KV reads differ by 10x or more between versions (a scan where another
  // version does a get): the cheapest and the costliest version of each.
  {
    std::vector<Sentence> clauses;
    for (const std::string& cmd : ranking["commands"].get<std::vector<std::string>>()) {
      const std::string field = "commands/" + cmd + "/kv_reads";
      int lo = -1, hi = -1;
      for (size_t i = 0; i < ranking["rows"].size(); ++i) {
        if (!HasNumber(ranking["rows"][i], field)) continue;
        const double v = ranking["rows"][i]["commands"][cmd]["kv_reads"];
        if (lo < 0 || v < ranking["rows"][lo]["commands"][cmd]["kv_reads"].get<double>()) {
          lo = static_cast<int>(i);
        }
        if (hi < 0 || v > ranking["rows"][hi]["commands"][cmd]["kv_reads"].get<double>()) {
          hi = static_cast<int>(i);
        }
      }
      if (lo < 0 || hi < 0 || lo == hi) continue;
      const double vlo = ranking["rows"][lo]["commands"][cmd]["kv_reads"];
      const double vhi = ranking["rows"][hi]["commands"][cmd]["kv_reads"];
      if (vhi < 10 * std::max(vlo, 1.0) || vhi - vlo < 10) continue;
      if (stated.count(cmd + " " + ranking["rows"][hi]["label"].get<std::string>() + " " +
                       ranking["rows"][lo]["label"].get<std::string>())) {
        continue;
      }
      Sentence c;
      c.Text(cmd + " reads ")
          .Fact(study, Ptr(ref, hi, field))
          .Text(" KV records per call on " + ranking["rows"][hi]["label"].get<std::string>() +
                " against ")
          .Fact(study, Ptr(ref, lo, field))
          .Text(" on " + ranking["rows"][lo]["label"].get<std::string>());
      clauses.push_back(c);
    }
    if (!clauses.empty()) {
      json merged = {{"text", ""}, {"facts", json::array()}};
      std::string text = "Where versions differ most: ";
      for (size_t k = 0; k < clauses.size(); ++k) {
        const json c = clauses[k].Json();
        text += (k > 0 ? "; " : "") + c["text"].get<std::string>();
        for (const json& f : c["facts"]) merged["facts"].push_back(f);
      }
      merged["text"] = text + ".";
      out->push_back(merged);
    }
  }
  // 3. Redis-tier work and memory, when either uses the tier.
  for (const auto& [row_index, row] : {std::pair{w_row, &wr}, std::pair{o_row, &orow}}) {
    if (!HasNumber(*row, "criteria/round_trips/value")) continue;
    if ((*row)["criteria"]["round_trips"]["value"].get<double>() <= 0) continue;
    Sentence s;
    s.Text((*row)["label"].get<std::string>() + " adds ")
        .Fact(study, Ptr(ref, row_index, "criteria/round_trips/value"))
        .Text(" Redis round trips per " + type + " command");
    if (HasNumber(*row, "criteria/redis_memory/value") &&
        (*row)["criteria"]["redis_memory"]["value"].get<double>() > 0) {
      s.Text(" and keeps ")
          .Fact(study, Ptr(ref, row_index, "criteria/redis_memory/value"))
          .Text(" bytes of Redis memory per element");
    }
    s.Text(".");
    out->push_back(s.Json());
  }
  // 4. Exactness: deviations every version has once, then those that set versions apart.
  {
    std::map<std::string, int> count;  // id -> versions that have it
    std::map<std::string, std::set<std::string>> commands;
    for (const json& row : ranking["rows"]) {
      for (const json& d : row["deviations"]) {
        ++count[d["id"].get<std::string>()];
        for (const json& c : d["commands"]) {
          commands[d["id"].get<std::string>()].insert(c.get<std::string>());
        }
      }
    }
    const int n = static_cast<int>(ranking["rows"].size());
    for (const auto& [id, k] : count) {
      if (k != n) continue;
      Sentence s;
      s.Text("Every " + type + " version may reply differently from Redis to " +
             JoinWords(std::vector<std::string>(commands[id].begin(), commands[id].end())) + " (" +
             id + ", docs/deviations.json); it does not set them apart.");
      out->push_back(s.Json());
    }
    for (const json& row : ranking["rows"]) {
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
  // 5. Space.
  if (HasNumber(wr, "criteria/space/value") && HasNumber(orow, "criteria/space/value")) {
    Sentence s;
    s.Text(winner + " writes ")
        .Fact(study, Ptr(ref, w_row, "criteria/space/value"))
        .Text(" bytes of data per element loaded, " + other + " ")
        .Fact(study, Ptr(ref, o_row, "criteria/space/value"))
        .Text(".");
    out->push_back(s.Json());
  }
  // 6. Timing per backend, against the fastest version there.
  for (size_t k : indices) {
    const json& r = rankings[k];
    if (!r["criteria"].contains("latency")) continue;
    const std::string best = r["criteria"]["latency"]["best_label"];
    const int b_row = RowOf(r, best);
    if (b_row < 0) continue;
    Sentence s;
    s.Text("On " + r["backend"].get<std::string>() + ", " + best + " has the lowest p50 (")
        .Fact(study, Ptr(k, b_row, "criteria/latency/value"))
        .Text(" µs)");
    std::vector<std::string> others;
    bool any = false;
    for (size_t i = 0; i < r["rows"].size(); ++i) {
      if (static_cast<int>(i) == b_row) continue;
      const json& row = r["rows"][i];
      if (!HasNumber(row, "criteria/latency/ratio")) continue;
      const bool sig = row["criteria"]["latency"].value("significant", false);
      s.Text(any ? "; " : ": ");
      any = true;
      s.Text(row["label"].get<std::string>() + (sig ? " is " : " is ≈ "))
          .Fact(study, Ptr(k, i, "criteria/latency/ratio"))
          .Text(sig ? "× slower" : "× (not significant)");
    }
    s.Text(".");
    out->push_back(s.Json());
  }
}

std::string Pad(const std::string& s, size_t width) {
  // Display width: count UTF-8 code points.
  size_t cps = 0;
  for (unsigned char c : s) cps += (c & 0xC0) != 0x80;
  return cps >= width ? s : s + std::string(width - cps, ' ');
}

std::string RTrim(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

std::string PadLeft(const std::string& s, size_t width) {
  size_t cps = 0;
  for (unsigned char c : s) cps += (c & 0xC0) != 0x80;
  return cps >= width ? s : std::string(width - cps, ' ') + s;
}

// Groups rankings by (workload, type), in first-appearance order.
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

}  // namespace

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

json MakeVerdict(const json& study) {
  json sentences = json::array();
  for (const auto& g : Groups(study["rankings"])) SentencesFor(study, g, &sentences);
  return {{"sentences", sentences}};
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

std::string TerminalVerdict(const json& study) {
  std::string out;
  const json& rankings = study["rankings"];
  for (const auto& g : Groups(rankings)) {
    const json& first = rankings[g[0]];
    std::string fixed;
    for (auto it = first["fixed"].begin(); it != first["fixed"].end(); ++it) {
      fixed += std::string(fixed.empty() ? "" : ", ") + it.key() + " fixed at " +
               it.value()["label"].get<std::string>();
    }
    out += "\n" + first["workload"].get<std::string>() + ": " + first["type"].get<std::string>() +
           " versions" + (fixed.empty() ? "" : " (" + fixed + ")") + "\n";
    // Header.
    std::string h1 = Pad("", 5), h2 = Pad("", 5);
    const size_t col = 12;
    for (size_t k : g) {
      h1 += Pad(rankings[k]["backend"].get<std::string>(), col);
      h2 += Pad("rank score", col);
    }
    for (size_t k : g) {
      h1 += PadLeft(rankings[k]["backend"].get<std::string>().substr(0, 10), 11);
      h2 += PadLeft("p50 µs", 11);
    }
    const std::vector<std::pair<std::string, std::string>> exact = {{"kv_ops", "KV ops"},
                                                                    {"kv_bytes", "KV B"},
                                                                    {"round_trips", "RTs"},
                                                                    {"space", "B/el"},
                                                                    {"redis_memory", "Redis B/el"}};
    for (const auto& [name, title] : exact) {
      h1 += PadLeft("", 11);
      h2 += PadLeft(title, 11);
    }
    h2 += "  deviations";
    out += RTrim(h1) + "\n" + RTrim(h2) + "\n";
    for (const json& row0 : first["rows"]) {
      const std::string label = row0["label"];
      std::string line = Pad(label, 5);
      for (size_t k : g) {
        const int i = RowOf(rankings[k], label);
        std::string cell = "-";
        if (i >= 0) {
          const json& row = rankings[k]["rows"][i];
          cell = row["rank"].is_number() ? std::to_string(row["rank"].get<int>()) + "    " +
                                               FormatNumber(row["score"].get<double>())
                                         : "failed";
        }
        line += Pad(cell, col);
      }
      for (size_t k : g) {
        const int i = RowOf(rankings[k], label);
        std::string cell = "-";
        if (i >= 0 && HasNumber(rankings[k]["rows"][i], "criteria/latency/value")) {
          const json& c = rankings[k]["rows"][i]["criteria"]["latency"];
          cell = FormatNumber(c["value"].get<double>());
          if (!c.value("best", false) && !c.value("significant", false)) cell = "≈" + cell;
        }
        line += PadLeft(cell, 11);
      }
      for (const auto& [name, title] : exact) {
        std::string cell = "-";
        if (HasNumber(row0, "criteria/" + name + "/value")) {
          cell = FormatNumber(row0["criteria"][name]["value"].get<double>());
        }
        line += PadLeft(cell, 11);
      }
      std::string devs;
      for (const json& d : row0["deviations"]) {
        devs += std::string(devs.empty() ? "" : ",") + d["id"].get<std::string>();
      }
      line += "  " + (devs.empty() ? "-" : devs);
      out += line + "\n";
    }
  }
  out += "\n";
  for (const json& s : study.value("verdict", json::object()).value("sentences", json::array())) {
    out += "  * " + s["text"].get<std::string>() + "\n";
  }
  return out;
}

}  // namespace kvlab::study

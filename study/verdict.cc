#include "study/verdict.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <vector>

#include "study/criteria.h"
#include "study/verdict_text.h"

namespace kvlab::study {
namespace {

using nlohmann::json;

// The recommendation on one store (ranking k): the first place, or the versions tied for it and
// what separates them; with a single first place, what it leads the runner-up on most.
void Recommendation(const json& study, size_t k, json* out) {
  const json& r = study["rankings"][k];
  const json& rows = r["rows"];
  std::vector<size_t> first;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].value("first", false)) first.push_back(i);
  }
  if (first.empty()) return;
  const std::string backend = r.value("backend", "");
  const std::string leader = rows[first[0]]["label"];
  Sentence s;
  if (first.size() == 1) {
    s.Text("On " + backend + ", " + leader + " ranks first (score ")
        .Fact(study, Ptr(k, first[0], "score"))
        .Text(")");
    // The runner-up, and the criterion where it falls furthest behind.
    size_t runner = rows.size();
    for (size_t i = 0; i < rows.size(); ++i) {
      if (i != first[0] && rows[i]["rank"].is_number()) {
        runner = i;
        break;
      }
    }
    if (runner < rows.size()) {
      const json& lr = rows[first[0]]["criteria"];
      const json& rr = rows[runner]["criteria"];
      std::string deciding;
      double gap = 0;
      for (const Criterion& c : Criteria()) {
        if (!lr.contains(c.name) || !rr.contains(c.name)) continue;
        const double g = rr[c.name].value("cost", 0.0) - lr[c.name].value("cost", 0.0);
        if (g > gap + 1e-12) {
          gap = g;
          deciding = c.name;
        }
      }
      const std::string other = rows[runner]["label"];
      s.Text(", ahead of " + other + " (")
          .Fact(study, Ptr(k, runner, "score"))
          .Text(r.value("timings_count", true) ? ") beyond the noise and the margin"
                                               : ") on the exact criteria alone");
      if (!deciding.empty()) {
        const Criterion& c = *FindCriterion(deciding);
        s.Text(", most on " + std::string(c.title) + ": ");
        if (deciding == "needs") {
          s.Text(other + " needs " +
                 JoinWords(rows[runner]["needs"].get<std::vector<std::string>>()));
        } else {
          s.Fact(study, Ptr(k, first[0], "criteria/" + deciding + "/value"))
              .Text(" against ")
              .Fact(study, Ptr(k, runner, "criteria/" + deciding + "/value"))
              .Text(std::string(*c.unit ? " " : "") + c.unit);
        }
      }
    }
    s.Text(".");
    out->push_back(s.Json());
    return;
  }
  std::vector<std::string> labels;
  for (size_t i : first) labels.push_back(rows[i]["label"]);
  s.Text("On " + backend + ": " + leader + ", or any of " + JoinWords(labels) +
         ", tied for first (scores ");
  for (size_t j = 0; j < first.size(); ++j) {
    if (j > 0) s.Text(j + 1 == first.size() ? " and " : ", ");
    s.Fact(study, Ptr(k, first[j], "score"));
  }
  s.Text(r.value("timings_count", true)
             ? "; none beats another beyond the noise and the margin of "
             : "; on the exact criteria alone, none beats another by the margin of ")
      .Fact(study, "/rankings/" + std::to_string(k) + "/tie_margin")
      .Text(")");
  // What separates them: exact KV cost per command, space, Redis and deviations, against the
  // one with the lowest score.
  std::vector<Sentence> clauses;
  for (size_t j = 1; j < first.size() && clauses.size() < 3; ++j) {
    for (Sentence& c : KvClauses(study, k, first[0], first[j], nullptr)) {
      if (clauses.size() < 3) clauses.push_back(std::move(c));
    }
  }
  const json& l = rows[first[0]];
  for (size_t j = 1; j < first.size(); ++j) {
    const json& o = rows[first[j]];
    if (HasNumber(l, "criteria/space/value") && HasNumber(o, "criteria/space/value") &&
        o["criteria"]["space"].value("material", false)) {
      Sentence c;
      c.Text("space ")
          .Fact(study, Ptr(k, first[0], "criteria/space/value"))
          .Text(" B/elem on " + l["label"].get<std::string>() + " against ")
          .Fact(study, Ptr(k, first[j], "criteria/space/value"))
          .Text(" on " + o["label"].get<std::string>());
      clauses.push_back(c);
      break;
    }
  }
  for (size_t j = 1; j < first.size(); ++j) {
    const json& o = rows[first[j]];
    if (HasNumber(l, "criteria/redis_memory/value") &&
        HasNumber(o, "criteria/redis_memory/value") &&
        (l["criteria"]["redis_memory"].value("material", false) ||
         o["criteria"]["redis_memory"].value("material", false)) &&
        l["criteria"]["redis_memory"]["value"] != o["criteria"]["redis_memory"]["value"]) {
      Sentence c;
      c.Text("Redis memory ")
          .Fact(study, Ptr(k, first[0], "criteria/redis_memory/value"))
          .Text(" B/elem on " + l["label"].get<std::string>() + " against ")
          .Fact(study, Ptr(k, first[j], "criteria/redis_memory/value"))
          .Text(" on " + o["label"].get<std::string>());
      clauses.push_back(c);
      break;
    }
  }
  // Needs set versions apart only when they differ among those tied.
  bool same_needs = true;
  for (size_t j = 1; j < first.size(); ++j) same_needs &= rows[first[j]]["needs"] == l["needs"];
  for (size_t j = 0; j < first.size(); ++j) {
    const json& o = rows[first[j]];
    if (!same_needs && !o["needs"].empty() && o["criteria"].contains("needs") &&
        o["criteria"]["needs"].value("value", 0.0) > 0) {
      Sentence c;
      c.Text(o["label"].get<std::string>() + " needs " +
             JoinWords(o["needs"].get<std::vector<std::string>>()));
      clauses.push_back(c);
    }
    if (!o["deviations"].empty() && o["criteria"].contains("exactness") &&
        o["criteria"]["exactness"].value("cost", 0.0) > 0) {
      std::vector<std::string> ids;
      for (const json& d : o["deviations"]) ids.push_back(d["id"]);
      Sentence c;
      c.Text(o["label"].get<std::string>() + " may reply differently from Redis (" +
             JoinWords(ids) + ")");
      clauses.push_back(c);
    }
  }
  if (!clauses.empty()) {
    s.Text("; what separates them: ");
    for (size_t j = 0; j < clauses.size(); ++j) {
      if (j > 0) s.Text("; ");
      s.Append(clauses[j]);
    }
  } else {
    s.Text("; their exact KV costs, space and needs are the same");
  }
  s.Text(".");
  out->push_back(s.Json());
}

// Where the first place on one store (ranking k) changes: the nearest command shares and the
// smallest KV round trip (break_even.h).
void BreakEvenSentence(const json& study, size_t k, json* out) {
  const json& r = study["rankings"][k];
  const json& be = r.value("break_even", json());
  if (!be.is_object() || !be.value("agrees", false)) return;
  const std::string type = r.value("type", "");
  const std::string base = "/rankings/" + std::to_string(k) + "/break_even/points/";
  std::vector<std::pair<double, size_t>> shares;  // distance, index
  int rtt = -1;
  for (size_t i = 0; i < be["points"].size(); ++i) {
    const json& p = be["points"][i];
    if (p["kind"] == "share") {
      shares.push_back({std::fabs(p["at"].get<double>() - p["now"].get<double>()), i});
    } else if (p["kind"] == "rtt" && rtt < 0) {
      rtt = static_cast<int>(i);
    }
  }
  std::sort(shares.begin(), shares.end());
  // The axes searched: shares when the type has two commands or more, round trips when timings
  // count.
  const bool share_axis = r.value("commands", json::array()).size() > 1;
  // A round trip moves p50 and p99: the axis is searched when either counts.
  const json timed = r.value("timed_criteria", json::object());
  const bool rtt_axis = timed.is_object() && !timed.empty()
                            ? timed.value("latency", json::object()).value("counts", false) ||
                                  timed.value("tail_latency", json::object()).value("counts", false)
                            : r.value("timings_count", true);
  if (!share_axis && !rtt_axis) return;
  Sentence s;
  s.Text("Break-even on " + r.value("backend", "") + ": ");
  if (shares.empty() && rtt < 0) {
    s.Text(std::string(share_axis ? "no share of one " + type + " command" : "") +
           (share_axis && rtt_axis ? " and " : ""));
    if (rtt_axis) {
      s.Text("no KV round trip up to ")
          .Fact(study, "/rankings/" + std::to_string(k) + "/break_even/rtt_max_us")
          .Text(" µs");
    }
    s.Text(" changes the first place (" + be.value("model_leader", "") + ").");
    out->push_back(s.Json());
    return;
  }
  bool any = false;
  for (size_t j = 0; j < shares.size() && j < 2; ++j) {
    const size_t i = shares[j].second;
    const json& p = be["points"][i];
    if (any) s.Text("; ");
    any = true;
    const bool below = p["direction"] == "below";
    s.Text(p["to"].get<std::string>() + " ranks first instead of " + p["from"].get<std::string>() +
           " when " + p["command"].get<std::string>() + (below ? " falls below " : " rises above "))
        .Fact(study, base + std::to_string(i) + "/at_percent")
        .Text("% of " + type + " commands (now ")
        .Fact(study, base + std::to_string(i) + "/now_percent")
        .Text("%)");
  }
  if (rtt >= 0) {
    const json& p = be["points"][rtt];
    if (any) s.Text("; ");
    s.Text(p["to"].get<std::string>() + " ranks first instead of " + p["from"].get<std::string>() +
           " from a round trip of ")
        .Fact(study, base + std::to_string(rtt) + "/at_us")
        .Text(" µs per KV call (a remote store)");
  } else if (rtt_axis) {
    s.Text("; no KV round trip up to ")
        .Fact(study, "/rankings/" + std::to_string(k) + "/break_even/rtt_max_us")
        .Text(" µs changes it");
  }
  s.Text(".");
  out->push_back(s.Json());
}

// The sentences of one (workload, type): its rankings are `indices` into study["rankings"].
void SentencesFor(const json& study, const std::vector<size_t>& indices, json* out) {
  const json& rankings = study["rankings"];
  const json& first = rankings[indices[0]];
  const std::string workload = first.value("workload", "");
  const std::string type = first.value("type", "");
  std::string fixed;
  for (auto it = first["fixed"].begin(); it != first["fixed"].end(); ++it) {
    fixed += std::string(fixed.empty() ? "" : ", ") + it.key() + " at " +
             it.value()["label"].get<std::string>();
  }
  {
    Sentence s;
    s.Text(workload + "'s " + type + " commands (" +
           JoinWords(first["commands"].get<std::vector<std::string>>()) + ")");
    if (!fixed.empty()) s.Text(", with " + fixed);
    s.Text(":");
    out->push_back(s.Json());
  }
  for (size_t k : indices) {
    Recommendation(study, k, out);
    BreakEvenSentence(study, k, out);
  }
  // The version named first on most stores, against the first version after it whose exact KV
  // cost differs, on the first store where it ranks first.
  std::map<std::string, int> firsts;
  for (size_t k : indices) {
    const json& rows = rankings[k]["rows"];
    if (!rows.empty() && rows[0]["rank"].is_number()) ++firsts[rows[0]["label"].get<std::string>()];
  }
  if (firsts.empty()) return;
  std::string winner;
  int most = 0;
  for (size_t k : indices) {
    const std::string l = rankings[k]["rows"][0]["label"];
    if (firsts[l] > most) {
      most = firsts[l];
      winner = l;
    }
  }
  size_t ref = indices[0];
  for (size_t k : indices) {
    if (rankings[k]["rows"][0]["label"] == winner) {
      ref = k;
      break;
    }
  }
  const json& ranking = rankings[ref];
  const int w_row = RowOf(ranking, winner);
  SharedSentences(study, ref, w_row, type, out);
  // Timing per store, against the fastest version there.
  for (size_t k : indices) TimingSentence(study, k, out);
}

}  // namespace

json MakeVerdict(const json& study) {
  json sentences = json::array();
  for (const auto& g : Groups(study["rankings"])) SentencesFor(study, g, &sentences);
  return {{"sentences", sentences}};
}

}  // namespace kvlab::study

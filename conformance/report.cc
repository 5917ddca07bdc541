#include "conformance/report.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "conformance/redis_commands.h"
#include "engine/command_table.h"

namespace kvlab::conformance {

using engine::CommandSpec;
using engine::CommandTable;
using engine::kCmdAboutServer;

namespace {

using nlohmann::json;

constexpr size_t kFailuresInSummary = 50;

json TallyJson(const Tally& t) {
  json j = {{"pass", t.pass}, {"deviation", t.deviation}, {"fail", t.fail}};
  if (!t.deviation_ids.empty()) j["deviations"] = t.deviation_ids;
  return j;
}

json ProfileJson(const Profile& p) {
  json j = {{"label", p.Label()}, {"tier_state", std::string(TierStateName(p.tier))}};
  // Type name -> version name, as the bench results' "profile" (docs/results-schema.md).
  json versions = json::object();
  for (const auto& [type, version] : p.encodings.versions) {
    versions[type] = version ? json(*version) : json(nullptr);
  }
  j["profile"] = versions;
  if (!p.migrate_with.versions.empty()) {
    // A migration run: the versions the configured ones alternated with.
    json with = json::object();
    for (const auto& [type, version] : p.migrate_with.versions) {
      with[type] = version ? json(*version) : json(nullptr);
    }
    j["migrate_with"] = with;
  }
  return j;
}

// Markdown table cells: no pipes, no line breaks.
std::string Cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::string Code(const std::string& s) {
  // A code span cannot hold a backtick run of its own length; a double one suffices here.
  return s.find('`') == std::string::npos ? "`" + Cell(s) + "`" : "`` " + Cell(s) + " ``";
}

std::string CountCell(const Tally& t) {
  if (t.total() == 0) return "–";
  if (t.fail > 0) {
    return "**" + std::to_string(t.fail) + " FAIL** · " + std::to_string(t.pass + t.deviation);
  }
  if (t.deviation > 0) return std::to_string(t.pass) + " · " + std::to_string(t.deviation) + " dev";
  return std::to_string(t.pass);
}

std::string TotalsRow(const std::string& name, const Tally& t) {
  return "| " + name + " | " + std::to_string(t.total()) + " | " + std::to_string(t.pass) + " | " +
         std::to_string(t.deviation) + " | " + std::to_string(t.fail) + " |\n";
}

// Version labels of a subject and group, in the order the profiles ran.
std::vector<std::string> Columns(const MatrixResult& r, const std::string& subject,
                                 const std::string& group) {
  std::vector<std::string> out;
  for (const ProfileRun& run : r.runs) {
    if (run.subject != subject) continue;
    const std::string label = GroupVersionLabel(group, run.profile);
    if (std::find(out.begin(), out.end(), label) == out.end()) out.push_back(label);
  }
  return out;
}

// Every command in the cells, in command-table order (commands outside the table last).
std::vector<std::string> CommandsInOrder(const MatrixResult& r) {
  std::set<std::string> seen;
  for (const auto& [key, tally] : r.cells) seen.insert(std::get<2>(key));
  std::vector<std::string> out;
  for (const CommandSpec& spec : CommandTable::Get().all()) {
    if (seen.erase(std::string(spec.name)) > 0) out.emplace_back(spec.name);
  }
  out.insert(out.end(), seen.begin(), seen.end());
  return out;
}

std::string VerdictWord(const MatrixResult& r) { return r.totals.fail == 0 ? "PASS" : "FAIL"; }

}  // namespace

std::vector<std::string> UncoveredCommands(const MatrixResult& result, const MatrixPlan& plan) {
  std::vector<std::string> out;
  if (plan.corpus.empty()) return out;
  for (const CommandSpec& spec : CommandTable::Get().all()) {
    if (spec.flags & kCmdAboutServer) continue;  // not comparable with Redis (command_table.h)
    if (result.corpus_commands.count(std::string(spec.name)) == 0) out.emplace_back(spec.name);
  }
  return out;
}

std::vector<GroupCompatibility> CompatibilityTable(const MatrixResult& r,
                                                   const std::string& subject) {
  // Command -> its tally over every profile of the subject.
  std::map<std::string, Tally> commands;
  for (const auto& [key, tally] : r.cells) {
    if (std::get<0>(key) == subject) commands[std::get<2>(key)].Add(tally);
  }
  auto group_of = [](const std::string& command) {
    const std::string_view group = RedisGroupOf(command);
    return group.empty() ? std::string("other") : std::string(group);
  };
  std::vector<std::string> order;
  for (std::string_view g : RedisGroupsInOrder()) order.emplace_back(g);
  order.push_back("other");
  std::vector<GroupCompatibility> rows;
  for (const std::string& group : order) {
    GroupCompatibility row;
    row.group = group;
    for (const auto& [command, tally] : commands) {
      if (group_of(command) != group) continue;
      (tally.fail > 0 ? row.failing : row.passing).push_back(command);
      row.replies_pass += tally.pass + tally.deviation;
      row.replies_total += tally.total();
    }
    if (IsDataGroup(group)) {
      for (std::string_view command : RedisCommandsOf(group)) {
        if (commands.count(std::string(command)) == 0) row.not_run.emplace_back(command);
      }
    }
    if (row.replies_total > 0 || IsDataGroup(group)) rows.push_back(std::move(row));
  }
  return rows;
}

std::string CompatibilityMarkdown(const std::vector<GroupCompatibility>& rows) {
  std::string md =
      "| group | commands passing | commands failing | not run | replies passing / total |\n"
      "|---|---:|---:|---:|---:|\n";
  GroupCompatibility total;
  auto line = [&md](const std::string& group, const GroupCompatibility& row) {
    md += "| " + group + " | " + std::to_string(row.passing.size()) + " | " +
          std::to_string(row.failing.size()) + " | " + std::to_string(row.not_run.size()) + " | " +
          std::to_string(row.replies_pass) + " / " + std::to_string(row.replies_total) + " |\n";
  };
  for (const GroupCompatibility& row : rows) {
    line(row.group, row);
    total.passing.insert(total.passing.end(), row.passing.begin(), row.passing.end());
    total.failing.insert(total.failing.end(), row.failing.begin(), row.failing.end());
    total.not_run.insert(total.not_run.end(), row.not_run.begin(), row.not_run.end());
    total.replies_pass += row.replies_pass;
    total.replies_total += row.replies_total;
  }
  line("**total**", total);
  return md;
}

std::string MatrixJson(const MatrixResult& r, const ReportContext& ctx) {
  json j;
  // 2: a failure's reply of the subject is "subject_reply" (was "kvlab", whatever the
  // subject was); "compatibility", "skipped", "disconnects" and "stopped" were added.
  j["schema_version"] = 2;
  j["tool"] = "kvlab conform";
  j["verdict"] = VerdictWord(r) == "PASS" ? "pass" : "fail";
  // A verdict over part of the plan: the run was interrupted (partial) or is still going, or
  // was killed (not complete).
  j["complete"] = ctx.complete;
  j["partial"] = r.partial || !ctx.complete;
  j["partial_reason"] = !ctx.complete ? json(
                                            "incomplete: the run had not finished when this file "
                                            "was written (if it is not running any more, it "
                                            "was killed)")
                        : r.partial ? json(r.partial_reason)
                                    : json(nullptr);
  j["units"] = {{"planned", r.units_planned}, {"done", r.units_done}};
  j["reference"] = ctx.reference;
  j["command_line"] = ctx.command_line;
  j["started"] = ctx.started;
  j["seconds"] = r.seconds;
  j["subjects"] = r.subjects;
  j["compare"] = {{"ttl_tolerance_ms", ctx.plan->compare.ttl_tolerance_ms},
                  {"ttl_tolerance_s", ctx.plan->compare.ttl_tolerance_s},
                  {"time_tolerance_s", ctx.plan->compare.time_tolerance_s},
                  {"unordered", {"hgetall", "hkeys", "hvals", "keys", "config get"}},
                  {"scan_family", "whole iterations compared as sets"}};
  j["pairing"] = ctx.plan->pairing == VersionPairing::kCross ? "cross" : "lockstep";
  j["corpus"] = {{"cases", r.corpus_cases}};
  if (ctx.plan->random) {
    const RandomPlan& rp = *ctx.plan->random;
    j["random"] = {{"seed", rp.seed},
                   {"fresh_seed", rp.fresh_seed},
                   {"sequences", rp.sequences},
                   {"steps", rp.steps},
                   {"replay", RandomReplayCommand(rp)}};
  } else {
    j["random"] = nullptr;
  }
  j["totals"] = TallyJson(r.totals);
  json runs = json::array();
  for (const ProfileRun& run : r.runs) {
    runs.push_back({{"subject", run.subject},
                    {"profile", ProfileJson(run.profile)},
                    {"totals", TallyJson(run.totals)},
                    {"seconds", run.seconds}});
  }
  j["runs"] = runs;
  json cells = json::array();
  for (const auto& [key, tally] : r.cells) {
    json c = TallyJson(tally);
    c["subject"] = std::get<0>(key);
    c["version"] = std::get<1>(key);
    c["command"] = std::get<2>(key);
    c["group"] = CommandGroup(std::get<2>(key));
    cells.push_back(std::move(c));
  }
  j["matrix"] = cells;
  json failures = json::array();
  for (const FailureRecord& f : r.failures) {
    failures.push_back({{"subject", f.subject},
                        {"profile", f.profile},
                        {"source", f.source},
                        {"line", f.line},
                        {"command", f.command_line},
                        {"redis", f.redis},
                        {"subject_reply", f.subject_reply},
                        {"explanation", f.explanation},
                        {"reproducer", f.reproducer}});
  }
  j["failures"] = failures;
  j["failures_total"] = r.failures_total;
  j["reproducers"] = r.reproducers;
  json compatibility = json::object();
  for (const std::string& subject : r.subjects) {
    json rows = json::array();
    for (const GroupCompatibility& row : CompatibilityTable(r, subject)) {
      rows.push_back({{"group", row.group},
                      {"commands_passing", row.passing},
                      {"commands_failing", row.failing},
                      {"commands_not_run", row.not_run},
                      {"replies_pass", row.replies_pass},
                      {"replies_total", row.replies_total}});
    }
    compatibility[subject] = rows;
  }
  j["compatibility"] = compatibility;
  json skipped = json::object();
  for (const auto& [subject, s] : r.skipped) {
    skipped[subject] = {{"cases", s.cases}, {"commands", s.commands}, {"steps", s.steps}};
  }
  j["skipped"] = skipped;
  json disconnects = json::array();
  for (const DisconnectRecord& d : r.disconnects) {
    disconnects.push_back({{"subject", d.subject},
                           {"profile", d.profile},
                           {"source", d.source},
                           {"line", d.line},
                           {"what", d.what},
                           {"not_run", d.not_run}});
  }
  j["disconnects"] = disconnects;
  j["not_run_after_disconnect"] = r.not_run_after_disconnect;
  j["stopped"] = r.stopped;
  j["deviations_seen"] = r.totals.deviation_ids;
  j["corpus_uncovered_commands"] = UncoveredCommands(r, *ctx.plan);
  // Invalid UTF-8 (binary arguments, replies) is replaced rather than failing the report.
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string MatrixMarkdown(const MatrixResult& r, const ReportContext& ctx) {
  std::string md = "# kvlab conformance matrix\n\n";
  md += "Reference: " + ctx.reference + ". Verdict: **" + VerdictWord(r) + "**.\n\n";
  md +=
      "Each cell counts the executions of a command against the reference: a plain number "
      "when all passed, `n · m dev` when m replies differed as the deviations catalogue "
      "(docs/deviations.json) allows, `**k FAIL** · n` when k replies differed otherwise. "
      "Hash and zset commands are columned by their type's encode-version, other commands by "
      "the profile (hash version h, zset version z); Redis-tier versions add the tier state.\n";
  const std::vector<std::string> commands = CommandsInOrder(r);
  const std::vector<std::pair<std::string, std::string>> groups = {{"hash", "Hash commands"},
                                                                   {"zset", "Zset commands"},
                                                                   {"other",
                                                                    "Keyspace, string and "
                                                                    "server commands"}};
  for (const std::string& subject : r.subjects) {
    md += "\n## " + subject + "\n";
    for (const auto& [group, title] : groups) {
      const std::vector<std::string> columns = Columns(r, subject, group);
      std::string rows;
      for (const std::string& cmd : commands) {
        if (CommandGroup(cmd) != group) continue;
        std::string row = "| " + cmd + " |";
        bool any = false;
        for (const std::string& col : columns) {
          auto it = r.cells.find({subject, col, cmd});
          const Tally t = it == r.cells.end() ? Tally() : it->second;
          any = any || t.total() > 0;
          row += " " + CountCell(t) + " |";
        }
        if (any) rows += row + "\n";
      }
      if (rows.empty()) continue;
      md += "\n### " + title + "\n\n| command |";
      for (const std::string& col : columns) md += " " + col + " |";
      md += "\n|---|";
      for (size_t i = 0; i < columns.size(); ++i) md += "---:|";
      md += "\n" + rows;
    }
  }
  return md;
}

std::string SummaryMarkdown(const MatrixResult& r, const ReportContext& ctx) {
  const MatrixPlan& plan = *ctx.plan;
  std::string md = "# kvlab conformance summary\n\n";
  if (!ctx.complete) {
    md +=
        "> **Incomplete**: the run had not finished when this was written (if it is not running "
        "any more, it was killed). The verdict covers what ran so far.\n\n";
  } else if (r.partial) {
    md += "> **Partial**: " + r.partial_reason + ". The verdict covers what ran.\n\n";
  }
  md += "**Verdict: " + VerdictWord(r) + "**";
  if (r.totals.fail > 0) md += " (" + std::to_string(r.totals.fail) + " failing replies)";
  md += "\n\n";
  md += "- Reference: " + ctx.reference + "\n";
  md += "- Started " + ctx.started + ", took " + std::to_string(static_cast<int>(r.seconds + 0.5)) +
        " s: `" + Cell(ctx.command_line) + "`\n";
  md += "- Subjects: ";
  for (size_t i = 0; i < r.subjects.size(); ++i) md += (i ? ", " : "") + r.subjects[i];
  md += "; " + std::to_string(r.runs.size()) + " subject × profile runs (" +
        (plan.pairing == VersionPairing::kCross ? "cross" : "lockstep") + " version pairing)\n";
  md += "- Corpus: " + std::to_string(r.corpus_cases) + " case files\n";
  if (plan.random) {
    const RandomPlan& rp = *plan.random;
    md += "- Random: seed " + std::to_string(rp.seed) + (rp.fresh_seed ? " (fresh)" : "") + ", " +
          std::to_string(rp.sequences) + " sequences × " + std::to_string(rp.steps) +
          " commands per run; replay with `" + RandomReplayCommand(rp) + "`\n";
  }
  md += "\n| | commands | pass | deviation | fail |\n|---|---:|---:|---:|---:|\n";
  for (const ProfileRun& run : r.runs) {
    md += TotalsRow(run.subject + " " + run.profile.Label(), run.totals);
  }
  md += TotalsRow("**total**", r.totals);
  for (const auto& [subject, why] : r.stopped) {
    md += "\n**Stopped testing " + Cell(subject) + "**: " + Cell(why) + ".\n";
  }

  md += "\n## Compatibility by command group\n\n";
  md +=
      "Differential against the reference: a command passes when every reply of it matched "
      "Redis's (or deviated as catalogued), and fails when one did not; \"not run\" counts the "
      "Redis 7.0 commands of a data group that never ran on the subject (not served, so their "
      "cases were skipped; after a lost connection; or in no case).\n";
  for (const std::string& subject : r.subjects) {
    md += "\n### " + Cell(subject) + "\n\n" + CompatibilityMarkdown(CompatibilityTable(r, subject));
  }

  md += "\n## Cases skipped (commands the subject does not serve)\n\n";
  if (r.skipped.empty()) md += "None.\n";
  for (const auto& [subject, s] : r.skipped) {
    md += "- " + Cell(subject) + ": " + std::to_string(s.cases.size()) + " case files (" +
          std::to_string(s.steps) + " commands) not run; unserved commands:";
    for (const auto& [command, n] : s.commands)
      md += " " + command + " (" + std::to_string(n) + ")";
    md += "\n";
  }

  md += "\n## Lost connections\n\n";
  if (r.disconnects.empty()) md += "None.\n";
  for (const DisconnectRecord& d : r.disconnects) {
    md += "- " + Cell(d.subject) + " " + Cell(d.profile) + ", " + Cell(d.source) + ":" +
          std::to_string(d.line) + ": " + Code(d.what) + "; " + std::to_string(d.not_run) +
          " later commands of the case not run\n";
  }

  md += "\n## Declared comparison rules\n\n";
  md += "- Replies are compared by type and bytes; float text as Redis prints it.\n";
  md +=
      "- Order is ignored only where Redis leaves it unspecified: HGETALL and CONFIG GET (as "
      "pairs), HKEYS, HVALS, KEYS; SCAN, HSCAN and ZSCAN are run to the end on both sides and "
      "compared as sets.\n";
  md += "- TTL tolerance: PTTL and PEXPIRETIME ±" + std::to_string(plan.compare.ttl_tolerance_ms) +
        " ms, TTL and EXPIRETIME ±" + std::to_string(plan.compare.ttl_tolerance_s) + " s; TIME ±" +
        std::to_string(plan.compare.time_tolerance_s) + " s.\n";
  md +=
      "- DBSIZE goes to Redis after a whole SCAN, which reaps keys that have expired but that "
      "Redis's expiry cycle has not yet noticed (Redis counts those; they are gone to every "
      "other command).\n";
  md +=
      "- Redis-tier versions: cold (cache emptied at each case start), warm (each read run "
      "twice, both judged), flushed (cache emptied before every command).\n";

  md += "\n## Deviations seen\n\n";
  if (r.totals.deviation_ids.empty()) md += "None.\n";
  for (const auto& [id, n] : r.totals.deviation_ids) {
    std::string reason;  // a combined id ("a+b") gets the reasons of its parts
    if (ctx.catalogue != nullptr) {
      for (const Deviation& d : ctx.catalogue->entries()) {
        if (d.id == id || ("+" + id + "+").find("+" + d.id + "+") != std::string::npos) {
          reason += (reason.empty() ? "" : " ") + d.reason;
        }
      }
    }
    md += "- `" + id + "`: " + std::to_string(n) + " replies. " + reason + "\n";
  }

  md += "\n## Failures\n\n";
  if (r.failures_total == 0) md += "None.\n";
  if (r.failures_total > 0) {
    md +=
        "| subject | profile | where | command | redis | subject's reply |\n"
        "|---|---|---|---|---|---|\n";
    for (size_t i = 0; i < r.failures.size() && i < kFailuresInSummary; ++i) {
      const FailureRecord& f = r.failures[i];
      md += "| " + Cell(f.subject) + " | " + Cell(f.profile) + " | " + Cell(f.source) + ":" +
            std::to_string(f.line) + " | " + Code(f.command_line) + " | " + Code(f.redis) + " | " +
            Code(f.subject_reply) + " |\n";
    }
    if (r.failures_total > kFailuresInSummary) {
      md += "\n" + std::to_string(r.failures_total - kFailuresInSummary) +
            " more in conform.json (up to " + std::to_string(MatrixResult::kMaxRecordedFailures) +
            " are recorded).\n";
    }
  }
  if (!r.reproducers.empty()) {
    md += "\nShrunk reproducers (copy into conformance/cases/ to keep them):\n\n";
    for (const std::string& p : r.reproducers) md += "- " + p + "\n";
  }

  md += "\n## Corpus coverage\n\n";
  const std::vector<std::string> uncovered = UncoveredCommands(r, plan);
  if (plan.corpus.empty()) {
    md += "No corpus ran.\n";
  } else if (uncovered.empty()) {
    md += "The corpus runs every command of the engine's command table (" +
          std::to_string(CommandTable::Get().all().size()) + ").\n";
  } else {
    md += "Commands of the engine's table the corpus never runs:";
    for (const std::string& c : uncovered) md += " " + c;
    md += "\n";
  }
  return md;
}

Status WriteReports(const std::string& dir, const MatrixResult& result,
                    const ReportContext& context, std::vector<std::string>* written) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::IOError("cannot create " + dir + ": " + ec.message());
  const std::vector<std::pair<std::string, std::string>> files = {
      {"conform.json", MatrixJson(result, context)},
      {"matrix.md", MatrixMarkdown(result, context)},
      {"summary.md", SummaryMarkdown(result, context)}};
  for (const auto& [name, text] : files) {
    const std::string path = (std::filesystem::path(dir) / name).string();
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) return Status::IOError("cannot write " + path);
    written->push_back(path);
  }
  return Status::OK();
}

}  // namespace kvlab::conformance

#include "testing/amplification_table.h"

#include <cctype>
#include <fstream>
#include <set>

#include "engine/command_table.h"

namespace kvlab::testing {
namespace {

std::string Trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t");
  const size_t b = s.find_last_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// A recursive-descent evaluator: expr := term (('+'|'-') term)*; term := factor ('*' factor)*;
// factor := integer | n | min(expr,expr) | max(expr,expr) | '(' expr ')'.
class Evaluator {
 public:
  Evaluator(std::string text, int64_t n) : s_(std::move(text)), n_(n) {}
  bool Evaluate(int64_t* out) {
    if (!Expr(out)) return false;
    Skip();
    return pos_ == s_.size();
  }

 private:
  void Skip() {
    while (pos_ < s_.size() && s_[pos_] == ' ') ++pos_;
  }
  bool Eat(char c) {
    Skip();
    if (pos_ < s_.size() && s_[pos_] == c) return ++pos_, true;
    return false;
  }
  bool Expr(int64_t* v) {
    if (!Term(v)) return false;
    while (true) {
      int64_t rhs = 0;
      if (Eat('+')) {
        if (!Term(&rhs)) return false;
        *v += rhs;
      } else if (Eat('-')) {
        if (!Term(&rhs)) return false;
        *v -= rhs;
      } else {
        return true;
      }
    }
  }
  bool Term(int64_t* v) {
    if (!Factor(v)) return false;
    while (Eat('*')) {
      int64_t rhs = 0;
      if (!Factor(&rhs)) return false;
      *v *= rhs;
    }
    return true;
  }
  bool Factor(int64_t* v) {
    Skip();
    if (Eat('(')) return Expr(v) && Eat(')');
    if (s_.compare(pos_, 4, "min(") == 0 || s_.compare(pos_, 4, "max(") == 0) {
      const bool is_min = s_[pos_ + 1] == 'i';
      pos_ += 4;
      int64_t a = 0, b = 0;
      if (!Expr(&a) || !Eat(',') || !Expr(&b) || !Eat(')')) return false;
      *v = is_min ? std::min(a, b) : std::max(a, b);
      return true;
    }
    if (pos_ < s_.size() && s_[pos_] == 'n') {
      ++pos_;
      *v = n_;
      return true;
    }
    if (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
      *v = 0;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
        *v = *v * 10 + (s_[pos_++] - '0');
      }
      return true;
    }
    return false;
  }

  std::string s_;
  size_t pos_ = 0;
  int64_t n_;
};

// Removes `marker` from t, returning whether it was there.
bool TakeMarker(std::string* t, const std::string& marker) {
  const size_t p = t->find(marker);
  if (p == std::string::npos) return false;
  *t = Trim(t->erase(p, marker.size()));
  return true;
}

Status ParseEncoding(const std::string& text, AmplificationRow* row) {
  std::string t = text;
  row->no_reverse_scan = TakeMarker(&t, "(no reverse scan)");
  row->ttl_index = TakeMarker(&t, "(ttl index)");
  if (TakeMarker(&t, "(cold)")) row->cache = AmplificationRow::CacheState::kCold;
  if (TakeMarker(&t, "(warm)")) row->cache = AmplificationRow::CacheState::kWarm;
  if (t == "string") {
    row->type = "string";
    return Status::OK();
  }
  const size_t space = t.find(' ');
  row->type = t.substr(0, space);
  if (space == std::string::npos) return Status::InvalidArgument("bad encoding '" + text + "'");
  std::string versions = t.substr(space + 1);
  size_t pos = 0;
  while (pos < versions.size()) {
    size_t comma = versions.find(',', pos);
    if (comma == std::string::npos) comma = versions.size();
    const std::string v = Trim(versions.substr(pos, comma - pos));
    // "v0", or "vNAME" for a named version: the registry's version name after the 'v'.
    if (v.size() < 2 || v[0] != 'v') {
      return Status::InvalidArgument("bad version '" + v + "' in '" + text + "'");
    }
    row->versions.push_back(v.substr(1));
    pos = comma + 1;
  }
  return Status::OK();
}

}  // namespace

Status LoadAmplificationTable(const std::string& path, std::vector<AmplificationRow>* rows) {
  std::ifstream in(path);
  if (!in) return Status::IOError("cannot read " + path);
  rows->clear();
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.starts_with("| `")) continue;
    std::vector<std::string> cells;
    size_t pos = 1;
    while (pos < line.size()) {
      const size_t bar = line.find('|', pos);
      if (bar == std::string::npos) break;
      cells.push_back(Trim(line.substr(pos, bar - pos)));
      pos = bar + 1;
    }
    const std::string where = path + ":" + std::to_string(lineno) + ": ";
    if (cells.size() != 5) return Status::InvalidArgument(where + "expected 5 cells");
    AmplificationRow row;
    row.line = lineno;
    row.command = cells[0].substr(1, cells[0].size() - 2);
    Status s = ParseEncoding(cells[1], &row);
    if (!s.ok()) return Status::InvalidArgument(where + s.message());
    const std::string& d = cells[2];
    if (d == "empty") {
      row.dataset = AmplificationRow::Dataset::kEmpty;
    } else if (d == "string s") {
      row.dataset = AmplificationRow::Dataset::kString;
    } else if (d == "string s, expiring") {
      row.dataset = AmplificationRow::Dataset::kStringExpiring;
    } else if (d == "hash h of n fields") {
      row.dataset = AmplificationRow::Dataset::kHash;
    } else if (d == "hash h of n fields, expiring") {
      row.dataset = AmplificationRow::Dataset::kHashExpiring;
    } else if (d == "zset z of n members") {
      row.dataset = AmplificationRow::Dataset::kZset;
    } else if (d == "zset z of n members, equal scores") {
      row.dataset = AmplificationRow::Dataset::kZsetEqualScores;
    } else if (d == "zset z of n long members") {
      row.dataset = AmplificationRow::Dataset::kZsetLong;
    } else if (d == "list l of n elements") {
      row.dataset = AmplificationRow::Dataset::kList;
    } else if (d == "list l of 2n+1 elements, m in the middle") {
      row.dataset = AmplificationRow::Dataset::kListMiddle;
    } else if (d == "list l of n elements, one inserted") {
      row.dataset = AmplificationRow::Dataset::kListInserted;
    } else if (d == "set s of n members") {
      row.dataset = AmplificationRow::Dataset::kSet;
    } else if (d == "sets a of n and b of 2n members") {
      row.dataset = AmplificationRow::Dataset::kSetPair;
    } else if (d == "string s, then MULTI with GET s and SET s x queued") {
      row.dataset = AmplificationRow::Dataset::kStringInMulti;
    } else if (d == "hll p") {
      row.dataset = AmplificationRow::Dataset::kHll;
    } else if (d == "hll p, counted") {
      row.dataset = AmplificationRow::Dataset::kHllCounted;
    } else if (d == "list l of n elements, weights w_e and hashes o_e") {
      row.dataset = AmplificationRow::Dataset::kListWeighted;
    } else {
      return Status::InvalidArgument(where + "unknown dataset '" + d + "'");
    }
    row.operations = cells[3];
    row.tier_operations = cells[4];
    std::map<std::string, int64_t> probe;
    s = EvaluateOperations(row.operations, 10, &probe);
    if (s.ok()) s = EvaluateOperations(row.tier_operations, 10, &probe);
    if (!s.ok()) return Status::InvalidArgument(where + s.message());
    rows->push_back(std::move(row));
  }
  return Status::OK();
}

Status EvaluateOperations(const std::string& operations, int64_t n,
                          std::map<std::string, int64_t>* counts) {
  counts->clear();
  if (operations == "none") return Status::OK();
  size_t pos = 0;
  while (pos < operations.size()) {
    while (pos < operations.size() && operations[pos] == ' ') ++pos;
    if (pos == operations.size()) break;
    // A term ends at the next space that is not inside parentheses.
    size_t end = pos;
    int depth = 0;
    while (end < operations.size() && (operations[end] != ' ' || depth > 0)) {
      depth += operations[end] == '(' ? 1 : operations[end] == ')' ? -1 : 0;
      ++end;
    }
    const std::string term = operations.substr(pos, end - pos);
    const size_t eq = term.find('=');
    if (eq == std::string::npos)
      return Status::InvalidArgument("'" + term + "' is not counter=expr");
    int64_t value = 0;
    if (!Evaluator(term.substr(eq + 1), n).Evaluate(&value)) {
      return Status::InvalidArgument("cannot evaluate '" + term + "'");
    }
    (*counts)[term.substr(0, eq)] = value;
    pos = end;
  }
  return Status::OK();
}

std::vector<std::vector<std::string>> DatasetCommands(AmplificationRow::Dataset dataset,
                                                      int64_t n) {
  std::vector<std::string> cmd;
  switch (dataset) {
    case AmplificationRow::Dataset::kEmpty:
      return {};
    case AmplificationRow::Dataset::kString:
      return {{"SET", "s", "v"}};
    case AmplificationRow::Dataset::kStringInMulti:
      return {{"SET", "s", "v"}, {"MULTI"}, {"GET", "s"}, {"SET", "s", "x"}};
    case AmplificationRow::Dataset::kStringExpiring:
      return {{"SET", "s", "v"}, {"PEXPIRE", "s", "100000"}};
    case AmplificationRow::Dataset::kHll:
      return {{"PFADD", "p", "a", "b", "c"}};
    case AmplificationRow::Dataset::kHllCounted:
      return {{"PFADD", "p", "a", "b", "c"}, {"PFCOUNT", "p"}};
    case AmplificationRow::Dataset::kHash:
    case AmplificationRow::Dataset::kHashExpiring:
      cmd = {"HSET", "h"};
      for (int64_t i = 1; i <= n; ++i) {
        cmd.push_back("f" + std::to_string(i));
        cmd.push_back("v" + std::to_string(i));
      }
      if (dataset == AmplificationRow::Dataset::kHashExpiring) {
        return {cmd, {"PEXPIRE", "h", "100000"}};
      }
      return {cmd};
    case AmplificationRow::Dataset::kZset:
    case AmplificationRow::Dataset::kZsetEqualScores:
    case AmplificationRow::Dataset::kZsetLong:
      cmd = {"ZADD", "z"};
      for (int64_t i = 1; i <= n; ++i) {
        cmd.push_back(dataset == AmplificationRow::Dataset::kZsetEqualScores ? "0"
                                                                             : std::to_string(i));
        cmd.push_back(dataset == AmplificationRow::Dataset::kZsetLong ? LongMemberName(i)
                                                                      : "m" + std::to_string(i));
      }
      return {cmd};
    case AmplificationRow::Dataset::kList:
    case AmplificationRow::Dataset::kListMiddle:
    case AmplificationRow::Dataset::kListInserted:
      cmd = {"RPUSH", "l"};
      for (int64_t i = 1; i <= n; ++i) cmd.push_back("e" + std::to_string(i));
      if (dataset == AmplificationRow::Dataset::kListMiddle) {
        cmd.push_back("m");
        for (int64_t i = 1; i <= n; ++i) cmd.push_back("f" + std::to_string(i));
      }
      if (dataset == AmplificationRow::Dataset::kListInserted) {
        return {cmd, {"LINSERT", "l", "BEFORE", "e2", "i"}};
      }
      return {cmd};
    case AmplificationRow::Dataset::kListWeighted: {
      std::vector<std::vector<std::string>> out = {{"RPUSH", "l"}, {"MSET"}};
      for (int64_t i = 1; i <= n; ++i) {
        const std::string e = "e" + std::to_string(i);
        out[0].push_back(e);
        out[1].insert(out[1].end(), {"w_" + e, std::to_string(n + 1 - i)});
        out.push_back({"HSET", "o_" + e, "name", "n" + std::to_string(i)});
      }
      return out;
    }
    case AmplificationRow::Dataset::kSet:
    case AmplificationRow::Dataset::kSetPair: {
      // s (or a) holds m1..mn; b holds m1..m2n.
      std::vector<std::vector<std::string>> out;
      for (const auto& [key, size] :
           dataset == AmplificationRow::Dataset::kSet
               ? std::vector<std::pair<std::string, int64_t>>{{"s", n}}
               : std::vector<std::pair<std::string, int64_t>>{{"a", n}, {"b", 2 * n}}) {
        cmd = {"SADD", key};
        for (int64_t i = 1; i <= size; ++i) cmd.push_back("m" + std::to_string(i));
        out.push_back(cmd);
      }
      return out;
    }
  }
  return {};
}

std::string LongMemberName(int64_t i) { return "long-member-name-" + std::to_string(i); }

std::vector<std::vector<std::string>> WarmUpCommands(AmplificationRow::Dataset dataset, int64_t n) {
  switch (dataset) {
    case AmplificationRow::Dataset::kHash: {
      std::vector<std::string> hmget = {"HMGET", "h"};
      for (int64_t i = 1; i <= n; ++i) hmget.push_back("f" + std::to_string(i));
      return {{"HGETALL", "h"}, hmget};
    }
    case AmplificationRow::Dataset::kZset:
    case AmplificationRow::Dataset::kZsetEqualScores:
    case AmplificationRow::Dataset::kZsetLong:
      return {{"ZRANGE", "z", "0", "-1"}};
    case AmplificationRow::Dataset::kSet:
      return {{"SMEMBERS", "s"}};
    case AmplificationRow::Dataset::kSetPair:
      return {{"SMEMBERS", "a"}, {"SMEMBERS", "b"}};
    default:
      return {};
  }
}

}  // namespace kvlab::testing

namespace kvlab::testing {

std::vector<std::string> AmplificationCoverageGaps(const std::vector<AmplificationRow>& rows,
                                                   const encodings::EncodingRegistry& registry) {
  std::vector<std::string> gaps;
  std::set<std::string> covered;          // "command" and "command/type/version"
  std::set<std::string> without_reverse;  // "type/version" with a "(no reverse scan)" row
  for (const AmplificationRow& row : rows) {
    std::string name = row.command.substr(0, row.command.find(' '));
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    covered.insert(name);
    if (row.type != "string" && registry.FindType(row.type) == nullptr) {
      gaps.push_back("docs/amplification.md:" + std::to_string(row.line) + ": type " + row.type +
                     " is not a type of the encoding registry");
      continue;
    }
    for (const std::string& v : row.versions) {
      covered.insert(name + "/" + row.type + "/" + v);
      const encodings::TypeSpec* type = registry.FindType(row.type);
      const encodings::EncodingSpec* spec = registry.Find(type->type, v);
      if (spec == nullptr) {
        gaps.push_back("docs/amplification.md:" + std::to_string(row.line) + ": " + row.type +
                       " v" + v + " is not a version of the encoding registry");
      } else if ((spec->tier != encodings::TierUse::kNone) !=
                 (row.cache != AmplificationRow::CacheState::kNone)) {
        gaps.push_back("docs/amplification.md:" + std::to_string(row.line) +
                       ": the Redis-tier versions, and only they, name a cache state: (cold) "
                       "or (warm) (" +
                       row.type + " v" + v + ")");
      } else if (row.no_reverse_scan && !spec->uses_reverse_scan) {
        gaps.push_back("docs/amplification.md:" + std::to_string(row.line) + ": " + row.type +
                       " v" + v +
                       " has a (no reverse scan) row but its registry row does not use reverse "
                       "scan");
      }
      if (row.no_reverse_scan) without_reverse.insert(row.type + "/" + v);
    }
  }
  for (const engine::CommandSpec& spec : engine::CommandTable::Get().all()) {
    if (spec.flags & engine::kCmdAboutServer) continue;  // no data: see command_table.h
    const std::string name(spec.name);
    if (!covered.count(name)) gaps.push_back("no row for " + name);
    const encodings::TypeSpec* type = registry.FindTypeByGroup(spec.group);
    if (type == nullptr) continue;
    for (const encodings::EncodingSpec* version : registry.VersionsOf(type->type)) {
      const std::string key = std::string(type->name) + "/" + std::string(version->name);
      if (!covered.count(name + "/" + key)) {
        gaps.push_back("no row for " + name + " on " + version->DisplayName(*type));
      }
    }
  }
  for (const encodings::EncodingSpec& version : registry.rows()) {
    const encodings::TypeSpec& type = *registry.FindType(version.type);
    if (version.uses_reverse_scan &&
        !without_reverse.count(std::string(type.name) + "/" + std::string(version.name))) {
      gaps.push_back("no (no reverse scan) row for " + version.DisplayName(type) +
                     ", whose registry row uses reverse scan");
    }
  }
  return gaps;
}

}  // namespace kvlab::testing

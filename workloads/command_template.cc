#include "workloads/command_template.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "resp/split_args.h"

namespace kvlab::workloads {

using resp::SplitArgs;

namespace {

bool ParseInt(std::string_view s, int64_t* out) {
  if (s.empty()) return false;
  const char* first = s.data();
  if (*first == '+') ++first;  // from_chars takes '-' but not '+'
  auto [ptr, ec] = std::from_chars(first, s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

std::vector<std::string> SplitColons(std::string_view s) {
  std::vector<std::string> out;
  for (;;) {
    const size_t colon = s.find(':');
    out.emplace_back(s.substr(0, colon));
    if (colon == std::string_view::npos) return out;
    s = s.substr(colon + 1);
  }
}

// "{fields:N:L:V}", "{members:N:L}", "{scored:N:L}": a whole argument. False when arg is none.
bool ParseCollection(const std::string& arg, CollectionExpansion* out) {
  using K = CollectionExpansion::Kind;
  if (arg.size() < 2 || arg.front() != '{' || arg.back() != '}') return false;
  std::vector<std::string> names = SplitColons(std::string_view(arg).substr(1, arg.size() - 2));
  const std::string kind = names[0];
  names.erase(names.begin());
  if (kind == "fields" && names.size() == 3) {
    out->kind = K::kFields;
  } else if ((kind == "members" || kind == "scored") && names.size() == 2) {
    out->kind = kind == "members" ? K::kMembers : K::kScored;
  } else {
    return false;
  }
  for (const std::string& n : names) {
    if (n.empty()) return false;
  }
  out->size = names[0];
  out->length = names[1];
  if (names.size() == 3) out->value_length = names[2];
  return true;
}

// Parses the name inside braces into a part. Returns false for an unknown placeholder.
bool ParsePlaceholder(std::string_view name, TemplatePart* part) {
  using K = TemplatePart::Kind;
  static constexpr std::pair<std::string_view, K> kSimple[] = {
      {"key", K::kKey},
      {"key_id", K::kKeyId},
      {"new_key", K::kNewKey},
      {"new_key_id", K::kNewKeyId},
      {"element", K::kElement},
      {"element_id", K::kElementId},
      {"value", K::kValue},
      {"score", K::kScore},
      {"scan_length", K::kScanLength},
  };
  for (const auto& [n, k] : kSimple) {
    if (name == n) {
      part->kind = k;
      return true;
    }
  }
  if (name.starts_with("now")) {
    std::string_view rest = name.substr(3);
    part->kind = K::kNow;
    part->a = 0;
    if (rest.empty()) return true;
    if (rest[0] != '+' && rest[0] != '-') return false;
    return ParseInt(rest, &part->a);
  }
  if (name.starts_with("draw:") || name.starts_with("bytes:")) {
    const size_t colon = name.find(':');
    part->kind = name[0] == 'd' ? K::kDraw : K::kBytes;
    part->distributions = {std::string(name.substr(colon + 1))};
    return !part->distributions[0].empty() && part->distributions[0].find(':') == std::string::npos;
  }
  if (name.starts_with("member:")) {
    std::vector<std::string> names = SplitColons(name.substr(7));
    part->kind = K::kMember;
    part->distributions = names;
    return names.size() == 2 && !names[0].empty() && !names[1].empty();
  }
  if (name.starts_with("int:")) {
    std::string_view rest = name.substr(4);
    const size_t colon = rest.find(':');
    if (colon == std::string_view::npos) return false;
    part->kind = K::kInt;
    return ParseInt(rest.substr(0, colon), &part->a) &&
           ParseInt(rest.substr(colon + 1), &part->b) && part->a <= part->b;
  }
  return false;
}

Status CompileArg(const std::string& arg, const std::string& where, TemplateArg* out) {
  out->parts.clear();
  out->expand_elements = false;
  if (arg == "{elements}") {
    out->expand_elements = true;
    return Status::OK();
  }
  if (ParseCollection(arg, &out->collection)) return Status::OK();
  std::string literal;
  size_t i = 0;
  while (i < arg.size()) {
    if (arg[i] != '{') {
      literal.push_back(arg[i++]);
      continue;
    }
    const size_t close = arg.find('}', i);
    if (close == std::string::npos) {
      return Status::InvalidArgument(where + ": unclosed '{' in argument '" + arg + "'");
    }
    const std::string name = arg.substr(i + 1, close - i - 1);
    if (name == "elements" || name.starts_with("fields:") || name.starts_with("members:") ||
        name.starts_with("scored:")) {
      if (name != "elements") {
        return Status::InvalidArgument(where + ": {" + name +
                                       "} must be a whole argument on its own, with its "
                                       "distributions (fields:N:L:V, members:N:L, scored:N:L), "
                                       "in '" +
                                       arg + "'");
      }
      return Status::InvalidArgument(where +
                                     ": {elements} must be a whole argument on its own, not "
                                     "part of '" +
                                     arg + "'");
    }
    TemplatePart part;
    if (!ParsePlaceholder(name, &part)) {
      return Status::InvalidArgument(where + ": unknown placeholder {" + name + "} in '" + arg +
                                     "' (see docs/workloads.md)");
    }
    if (!literal.empty()) {
      out->parts.push_back({TemplatePart::Kind::kLiteral, literal, 0, 0, {}});
      literal.clear();
    }
    out->parts.push_back(std::move(part));
    i = close + 1;
  }
  if (!literal.empty() || out->parts.empty()) {
    out->parts.push_back({TemplatePart::Kind::kLiteral, literal, 0, 0, {}});
  }
  return Status::OK();
}

}  // namespace

bool CommandTemplate::Uses(TemplatePart::Kind kind) const {
  return std::any_of(args.begin(), args.end(), [kind](const TemplateArg& a) {
    return std::any_of(a.parts.begin(), a.parts.end(),
                       [kind](const TemplatePart& p) { return p.kind == kind; });
  });
}

bool CommandTemplate::UsesCollection() const {
  return std::any_of(args.begin(), args.end(), [](const TemplateArg& a) {
    return a.collection.kind != CollectionExpansion::Kind::kNone;
  });
}

std::vector<std::string> CommandTemplate::Distributions() const {
  std::vector<std::string> out;
  for (const TemplateArg& a : args) {
    if (a.collection.kind != CollectionExpansion::Kind::kNone) {
      for (const std::string* n :
           {&a.collection.size, &a.collection.length, &a.collection.value_length}) {
        if (!n->empty()) out.push_back(*n);
      }
    }
    for (const TemplatePart& p : a.parts) {
      out.insert(out.end(), p.distributions.begin(), p.distributions.end());
    }
  }
  return out;
}

bool CommandTemplate::UsesElements() const {
  return std::any_of(args.begin(), args.end(),
                     [](const TemplateArg& a) { return a.expand_elements; });
}

Status CompileTemplate(const std::vector<std::string>& argv, const std::string& where,
                       CommandTemplate* out) {
  *out = CommandTemplate();
  if (argv.empty()) return Status::InvalidArgument(where + ": empty command");
  if (argv[0].find('{') != std::string::npos) {
    return Status::InvalidArgument(where + ": the command name '" + argv[0] +
                                   "' cannot be a placeholder");
  }
  for (size_t i = 0; i < argv.size(); ++i) {
    if (i > 0) out->text.push_back(' ');
    out->text += argv[i];
  }
  out->name = argv[0];
  for (char& c : out->name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (size_t i = 1; i < argv.size(); ++i) {
    TemplateArg arg;
    KVLAB_RETURN_IF_ERROR(CompileArg(argv[i], where, &arg));
    out->args.push_back(std::move(arg));
  }
  return Status::OK();
}

Status CompileTemplateLine(const std::string& line, const std::string& where,
                           CommandTemplate* out) {
  std::vector<std::string> argv;
  if (!SplitArgs(line, &argv)) {
    return Status::InvalidArgument(where + ": unbalanced quotes in '" + line + "'");
  }
  return CompileTemplate(argv, where, out);
}

}  // namespace kvlab::workloads

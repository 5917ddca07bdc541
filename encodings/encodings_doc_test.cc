// Keeps docs/encodings.md true: every ```kvlab-record block in it is run on a fresh engine, and
// the records in the store must match the block's key/value templates one to one.
//
// Block lines:
//   option: namespace-prefix P | option: md5-prefix     engine options
//   config: NAME VALUE                                  CONFIG SET before the setup
//   setup: COMMAND LINE                                 run in order
//   key: TEMPLATE / value: TEMPLATE                     one record (value may be empty)
// Template tokens: "ascii text", hex bytes (2 digits), {name:N} (N bytes, bound by name).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <tuple>

#include "testing/engine_test_util.h"

namespace kvlab::encodings {

using engine::EngineOptions;
using redis::TierCounts;
using redis::TierRole;
using resp::Reply;

namespace {

struct Token {
  enum Kind { kBytes, kCapture } kind;
  std::string bytes;  // kBytes
  std::string name;   // kCapture
  size_t size = 0;    // kCapture
};
using Template = std::vector<Token>;

struct Block {
  int line = 0;
  std::vector<std::string> options, configs, setups;
  std::vector<std::pair<Template, Template>> records;
  // Keys expected in the cache and store Redis (names only), when the block lists any.
  std::vector<std::pair<Template, Template>> cache_keys, store_keys;
};

bool ParseTemplate(const std::string& text, Template* out, std::string* error) {
  out->clear();
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == ' ' || c == '\t') {
      ++i;
    } else if (c == '"') {
      const size_t end = text.find('"', i + 1);
      if (end == std::string::npos) return *error = "unterminated string", false;
      out->push_back({Token::kBytes, text.substr(i + 1, end - i - 1), "", 0});
      i = end + 1;
    } else if (c == '{') {
      const size_t end = text.find('}', i);
      const size_t colon = text.find(':', i);
      if (end == std::string::npos || colon > end) return *error = "bad capture", false;
      out->push_back({Token::kCapture, "", text.substr(i + 1, colon - i - 1),
                      std::stoul(text.substr(colon + 1, end - colon - 1))});
      i = end + 1;
    } else if (std::isxdigit(static_cast<unsigned char>(c)) && i + 1 < text.size() &&
               std::isxdigit(static_cast<unsigned char>(text[i + 1]))) {
      out->push_back({Token::kBytes,
                      std::string(1, static_cast<char>(std::stoi(text.substr(i, 2), nullptr, 16))),
                      "", 0});
      i += 2;
    } else {
      return *error = "unexpected '" + std::string(1, c) + "'", false;
    }
  }
  return true;
}

std::vector<Block> ParseDoc(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << "cannot read " << path;
  std::vector<Block> blocks;
  std::string line;
  int lineno = 0;
  bool inside = false;
  Template pending_key;
  bool has_key = false;
  while (std::getline(in, line)) {
    ++lineno;
    if (!inside) {
      if (line == "```kvlab-record") {
        inside = true;
        blocks.emplace_back();
        blocks.back().line = lineno;
      }
      continue;
    }
    if (line == "```") {
      inside = false;
      EXPECT_FALSE(has_key) << path << ":" << lineno << ": key without value";
      continue;
    }
    Block& b = blocks.back();
    const size_t colon = line.find(':');
    EXPECT_NE(colon, std::string::npos) << path << ":" << lineno;
    if (colon == std::string::npos) continue;
    const std::string field = line.substr(0, colon);
    std::string rest = line.substr(colon + 1);
    rest.erase(0, rest.find_first_not_of(' ') == std::string::npos ? rest.size()
                                                                   : rest.find_first_not_of(' '));
    std::string error;
    if (field == "option") {
      b.options.push_back(rest);
    } else if (field == "config") {
      b.configs.push_back(rest);
    } else if (field == "setup") {
      b.setups.push_back(rest);
    } else if (field == "key") {
      EXPECT_TRUE(ParseTemplate(rest, &pending_key, &error))
          << path << ":" << lineno << ": " << error;
      has_key = true;
    } else if (field == "value") {
      Template value;
      EXPECT_TRUE(ParseTemplate(rest, &value, &error)) << path << ":" << lineno << ": " << error;
      EXPECT_TRUE(has_key) << path << ":" << lineno << ": value without key";
      b.records.emplace_back(pending_key, value);
      has_key = false;
    } else if (field == "cache-key" || field == "store-key") {
      Template key;
      EXPECT_TRUE(ParseTemplate(rest, &key, &error)) << path << ":" << lineno << ": " << error;
      (field == "cache-key" ? b.cache_keys : b.store_keys).emplace_back(key, Template());
    } else {
      ADD_FAILURE() << path << ":" << lineno << ": unknown line '" << field << "'";
    }
  }
  return blocks;
}

using Bindings = std::map<std::string, std::string>;

// Matches bytes against a template, extending `bindings`. False leaves bindings unspecified.
bool Match(const Template& t, std::string_view bytes, Bindings* bindings) {
  size_t pos = 0;
  for (const Token& tok : t) {
    if (tok.kind == Token::kBytes) {
      if (bytes.substr(pos, tok.bytes.size()) != tok.bytes) return false;
      pos += tok.bytes.size();
    } else {
      if (pos + tok.size > bytes.size()) return false;
      const std::string got(bytes.substr(pos, tok.size));
      auto [it, inserted] = bindings->emplace(tok.name, got);
      if (!inserted && it->second != got) return false;
      pos += tok.size;
    }
  }
  return pos == bytes.size();
}

// Finds a one-to-one assignment of records to templates, consistent in its bindings.
bool Assign(const std::vector<std::pair<Template, Template>>& templates,
            const std::vector<std::pair<std::string, std::string>>& records, size_t next,
            std::vector<bool>* used, Bindings bindings) {
  if (next == records.size()) return true;
  for (size_t t = 0; t < templates.size(); ++t) {
    if ((*used)[t]) continue;
    Bindings b = bindings;
    if (!Match(templates[t].first, records[next].first, &b) ||
        !Match(templates[t].second, records[next].second, &b)) {
      continue;
    }
    (*used)[t] = true;
    if (Assign(templates, records, next + 1, used, b)) return true;
    (*used)[t] = false;
  }
  return false;
}

std::string Hex(std::string_view s) {
  std::string out;
  char buf[4];
  for (unsigned char c : s) {
    std::snprintf(buf, sizeof(buf), "%02x ", c);
    out += buf;
  }
  return out;
}

TEST(EncodingsDoc, EveryRecordBlockMatchesTheStore) {
  const std::vector<Block> blocks = ParseDoc(KVLAB_SOURCE_DIR "/docs/encodings.md");
  ASSERT_GE(blocks.size(), 8u);
  for (const Block& block : blocks) {
    SCOPED_TRACE("docs/encodings.md block at line " + std::to_string(block.line));
    EngineOptions options;
    for (const std::string& o : block.options) {
      if (o.starts_with("namespace-prefix ")) {
        options.keys.ns_prefix = o.substr(17);
      } else if (o == "md5-prefix") {
        options.keys.md5_prefix = true;
      } else {
        ADD_FAILURE() << "unknown option " << o;
      }
    }
    testing::EngineHarness e("memory", options);
    for (const std::string& c : block.configs) {
      EXPECT_EQ(e.Run("CONFIG SET " + c), "OK");
    }
    for (const std::string& s : block.setups) {
      EXPECT_FALSE(e.Exec(s).is_error()) << s;
    }
    std::vector<std::pair<std::string, std::string>> records;
    auto it = e.store()->NewIterator();
    for (it->SeekToFirst(); it->Valid(); it->Next()) records.emplace_back(it->key(), it->value());
    std::string listing;
    for (const auto& [k, v] : records) listing += "  key " + Hex(k) + "\n  value " + Hex(v) + "\n";
    ASSERT_EQ(records.size(), block.records.size()) << "the store holds:\n" << listing;
    // KV records and Redis keys are matched together, so that a capture ({kv:8}) binds the
    // same bytes in both.
    std::vector<std::pair<Template, Template>> templates = block.records;
    std::vector<std::pair<std::string, std::string>> actual = records;
    for (auto [role, expected, tag] : {std::tuple{TierRole::kCache, &block.cache_keys, "cache"},
                                       std::tuple{TierRole::kStore, &block.store_keys, "store"}}) {
      if (expected->empty()) continue;
      std::vector<Reply> replies;
      TierCounts counts;
      ASSERT_TRUE(e.engine().tier()->Pipeline(role, {{"KEYS", "*"}}, &replies, &counts).ok());
      std::vector<std::string> keys;
      for (const Reply& k : replies[0].elements()) keys.push_back(k.str());
      ASSERT_EQ(keys.size(), expected->size()) << tag << " Redis holds " << keys.size() << " keys";
      templates.insert(templates.end(), expected->begin(), expected->end());
      for (const std::string& k : keys) {
        actual.emplace_back(k, "");
        listing += std::string("  ") + tag + "-key " + Hex(k) + "\n";
      }
    }
    std::vector<bool> used(templates.size(), false);
    EXPECT_TRUE(Assign(templates, actual, 0, &used, {}))
        << "the records do not match the templates; the store holds:\n"
        << listing;
  }
}

}  // namespace
}  // namespace kvlab::encodings

// The server's CONFIG parameters, in the engine's one parameter table (engine/config.h), so that
// CONFIG GET/SET, `kvlab serve --config FILE` and the command-line flags all reach them.
//
// The listening addresses and the thread count are fixed once the server has started: CONFIG
// SET on them then fails with Redis's "can't set immutable config". The limits change at once.
// "save" and "appendonly" exist for tools that read them (redis-benchmark asks both): kvlab
// writes every command through to the store, so there is no snapshot and no AOF to turn on.
#include <strings.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <sstream>

#include "base/memory_value.h"
#include "engine/config.h"
#include "server/server.h"

namespace kvlab::server {

using engine::EngineConfig;
using engine::IntegerValidator;
using engine::MemoryValidator;

namespace {

std::vector<std::string> SplitSpaces(std::string_view text) {
  std::vector<std::string> out;
  std::istringstream in{std::string(text)};
  std::string word;
  while (in >> word) out.push_back(word);
  return out;
}

uint64_t MemoryValue(std::string_view text) {
  uint64_t v = 0;
  ParseMemoryValue(text, &v);
  return v;
}

// The normal class's client-output-buffer-limit.
struct OutputLimit {
  uint64_t hard = 0;
  uint64_t soft = 0;
  uint64_t soft_seconds = 0;
};

// client-output-buffer-limit: "<class> <hard> <soft> <soft seconds>" groups, as in Redis. kvlab
// has only normal clients: the replica and pubsub classes are accepted (a redis.conf may set
// them) and have no clients.
Status ParseOutputBufferLimit(std::string_view text, OutputLimit* normal) {
  const std::vector<std::string> words = SplitSpaces(text);
  if (words.empty() || words.size() % 4 != 0) {
    return Status::InvalidArgument("Wrong number of arguments in buffer limit configuration.");
  }
  for (size_t i = 0; i < words.size(); i += 4) {
    const char* cls = words[i].c_str();
    const bool is_normal = !strcasecmp(cls, "normal");
    if (!is_normal && strcasecmp(cls, "replica") && strcasecmp(cls, "slave") &&
        strcasecmp(cls, "pubsub")) {
      return Status::InvalidArgument(
          "Invalid client class specified in buffer limit configuration.");
    }
    uint64_t hard = 0, soft = 0;
    int64_t seconds = 0;
    if (!ParseMemoryValue(words[i + 1], &hard) || !ParseMemoryValue(words[i + 2], &soft) ||
        !IntegerValidator(0, INT64_MAX)(words[i + 3]).ok()) {
      return Status::InvalidArgument(
          "Error in hard, soft or soft_seconds setting in buffer limit configuration.");
    }
    seconds = std::stoll(words[i + 3]);
    if (is_normal && normal != nullptr) {
      *normal = {hard, soft, static_cast<uint64_t>(seconds)};
    }
  }
  return Status::OK();
}

// maxmemory-clients: a memory value, or a percentage of the machine's physical memory (Redis
// takes a percentage of maxmemory, which kvlab does not have).
bool ParseClientMemory(std::string_view text, uint64_t* bytes) {
  if (!text.empty() && text.back() == '%') {
    int64_t percent = 0;
    if (!IntegerValidator(0, 100)(text.substr(0, text.size() - 1)).ok()) return false;
    percent = std::stoll(std::string(text.substr(0, text.size() - 1)));
    const uint64_t physical = static_cast<uint64_t>(::sysconf(_SC_PHYS_PAGES)) *
                              static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
    *bytes = physical / 100 * static_cast<uint64_t>(percent);
    return true;
  }
  return ParseMemoryValue(text, bytes);
}

}  // namespace

void Server::RegisterConfig() {
  EngineConfig& config = engine_->config();
  // A parameter fixed once the server listens.
  auto startup_only = [this, &config](const char* name, std::function<std::string()> get,
                                      std::function<Status(std::string_view)> validate,
                                      std::function<void(std::string_view)> apply) {
    EngineConfig::Param p;
    p.name = name;
    p.get = std::move(get);
    p.validate = [this, validate = std::move(validate)](std::string_view v) {
      if (started_) return Status::InvalidArgument("can't set immutable config");
      return validate(v);
    };
    p.apply = std::move(apply);
    config.Add(std::move(p));
  };
  auto runtime = [&config](const char* name, std::function<std::string()> get,
                           std::function<Status(std::string_view)> validate,
                           std::function<void(std::string_view)> apply) {
    EngineConfig::Param p;
    p.name = name;
    p.get = std::move(get);
    p.validate = std::move(validate);
    p.apply = std::move(apply);
    config.Add(std::move(p));
  };

  startup_only(
      "port", [this] { return std::to_string(options_.port); }, IntegerValidator(0, 65535),
      [this](std::string_view v) { options_.port = std::stoi(std::string(v)); });
  startup_only(
      "bind",
      [this] {
        std::string out;
        for (const std::string& a : options_.bind) out += (out.empty() ? "" : " ") + a;
        return out;
      },
      [](std::string_view v) {
        if (SplitSpaces(v).empty()) return Status::InvalidArgument("bind needs an address");
        return Status::OK();
      },
      [this](std::string_view v) { options_.bind = SplitSpaces(v); });
  startup_only(
      "unixsocket", [this] { return options_.unix_socket; },
      [](std::string_view) { return Status::OK(); },
      [this](std::string_view v) { options_.unix_socket = std::string(v); });
  startup_only(
      "unixsocketperm",
      [this] {
        char buf[16];
        std::snprintf(buf, sizeof(buf), "%o", options_.unix_socket_perm);
        return std::string(buf);
      },
      [](std::string_view v) {
        if (v.empty() || v.size() > 4 || v.find_first_not_of("01234567") != std::string::npos) {
          return Status::InvalidArgument("argument must be an octal number between 0 and 777");
        }
        return Status::OK();
      },
      [this](std::string_view v) {
        options_.unix_socket_perm = static_cast<uint32_t>(std::stoul(std::string(v), nullptr, 8));
      });
  startup_only(
      "worker-threads", [this] { return std::to_string(options_.threads); },
      IntegerValidator(1, 1024),
      [this](std::string_view v) { options_.threads = std::stoi(std::string(v)); });
  runtime(
      "protected-mode", [this] { return std::string(protected_mode_.load() ? "yes" : "no"); },
      [](std::string_view v) {
        const std::string s(v);
        if (strcasecmp(s.c_str(), "yes") != 0 && strcasecmp(s.c_str(), "no") != 0) {
          return Status::InvalidArgument("argument must be 'yes' or 'no'");
        }
        return Status::OK();
      },
      [this](std::string_view v) {
        protected_mode_.store(strcasecmp(std::string(v).c_str(), "yes") == 0);
      });
  // kvlab's own: how many pipelined writes may share one store write (Engine::ExecuteGroup).
  runtime(
      "group-commit-max-commands", [this] { return std::to_string(group_commit_max_.load()); },
      IntegerValidator(0, 1 << 20),
      [this](std::string_view v) { group_commit_max_.store(std::stoull(std::string(v))); });
  runtime(
      "maxclients", [this] { return std::to_string(max_clients_.load()); },
      IntegerValidator(1, 4294967295ll),
      [this](std::string_view v) { max_clients_.store(std::stoull(std::string(v))); });
  // proto-max-bulk-len is the engine's (Engine::RegisterConfig): Server::max_bulk_len reads it.
  runtime(
      "client-query-buffer-limit", [this] { return std::to_string(query_limit_.load()); },
      MemoryValidator(1 << 20, INT64_MAX),
      [this](std::string_view v) { query_limit_.store(MemoryValue(v)); });
  runtime(
      "client-output-buffer-limit",
      [this] {
        return "normal " + std::to_string(output_limit_.load()) + " " +
               std::to_string(output_soft_limit_.load()) + " " +
               std::to_string(output_soft_seconds_.load());
      },
      [](std::string_view v) { return ParseOutputBufferLimit(v, nullptr); },
      [this](std::string_view v) {
        OutputLimit normal{output_limit_.load(), output_soft_limit_.load(),
                           output_soft_seconds_.load()};
        // The validator above parsed the same text successfully; apply cannot fail.
        ParseOutputBufferLimit(v, &normal).IgnoreError();
        output_limit_.store(normal.hard);
        output_soft_limit_.store(normal.soft);
        output_soft_seconds_.store(normal.soft_seconds);
      });
  runtime(
      "maxmemory-clients",
      [this] {
        std::lock_guard lock(clients_mu_);
        return max_client_memory_text_;
      },
      [](std::string_view v) {
        uint64_t bytes = 0;
        return ParseClientMemory(v, &bytes)
                   ? Status::OK()
                   : Status::InvalidArgument("argument must be a memory or percent value");
      },
      [this](std::string_view v) {
        uint64_t bytes = 0;
        ParseClientMemory(v, &bytes);
        std::lock_guard lock(clients_mu_);
        max_client_memory_text_ = std::string(v);
        max_client_memory_.store(bytes);
      });
  runtime(
      "save", [] { return std::string(); },
      [](std::string_view v) {
        if (!v.empty()) {
          return Status::InvalidArgument(
              "kvlab writes every command to the store and takes no snapshots; only \"\" is "
              "accepted");
        }
        return Status::OK();
      },
      [](std::string_view) {});
  runtime(
      "appendonly", [] { return std::string("no"); },
      [](std::string_view v) {
        if (strcasecmp(std::string(v).c_str(), "no") != 0) {
          return Status::InvalidArgument(
              "kvlab writes every command to the store and keeps no append-only file; only "
              "\"no\" is accepted");
        }
        return Status::OK();
      },
      [](std::string_view) {});
}

}  // namespace kvlab::server

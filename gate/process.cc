#include "gate/process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

extern char** environ;

namespace kvlab::gate {

namespace fs = std::filesystem;

std::string SelfPath(std::string* error) {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) {
    *error = "cannot find the kvlab binary (/proc/self/exe): " + ec.message();
    return "";
  }
  return self.string();
}

int RunProgram(const std::string& binary, const std::vector<std::string>& args,
               const std::string& log, std::string* error) {
  const int pid = StartProgram(binary, args, log, error);
  return pid < 0 ? -1 : WaitProgram(pid, error);
}

int StartProgram(const std::string& binary, const std::vector<std::string>& args,
                 const std::string& log, std::string* error) {
  std::vector<std::string> argv_storage = {binary};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (log.empty()) {
    posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO);
  } else {
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  }
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    *error = fmt::format("cannot start {}: {}", binary, std::strerror(rc));
    return -1;
  }
  return pid;
}

int WaitProgram(int pid, std::string* error) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      *error = fmt::format("waitpid: {}", std::strerror(errno));
      return -1;
    }
  }
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

std::string FileTail(const std::string& path, size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  if (s.size() > max_bytes) s = "..." + s.substr(s.size() - max_bytes);
  return s;
}

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = std::string(base && *base ? base : "/tmp") + "/kvlab-gate-XXXXXX";
  if (::mkdtemp(pattern.data()) != nullptr) path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ec;
  if (!path_.empty()) fs::remove_all(path_, ec);
}

std::vector<std::string> Without(const std::vector<std::string>& args,
                                 const std::vector<std::string>& options,
                                 const std::vector<std::string>& flags) {
  std::vector<std::string> out;
  for (size_t i = 0; i < args.size(); ++i) {
    bool drop = false;
    for (const std::string& o : options) {
      if (args[i] == o) {
        drop = true;
        ++i;  // and its value
        break;
      }
      if (args[i].starts_with(o + "=")) drop = true;
    }
    for (const std::string& f : flags) drop = drop || args[i] == f;
    if (!drop) out.push_back(args[i]);
  }
  return out;
}

bool Gives(const std::vector<std::string>& args, const std::string& option) {
  for (const std::string& a : args) {
    if (a == option || a.starts_with(option + "=")) return true;
  }
  return false;
}

std::string Quote(const std::string& s) {
  if (!s.empty() && s.find_first_of(" \t'\"$\\`;&|<>()*?") == std::string::npos) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string CommandLine(const std::string& program, const std::vector<std::string>& args) {
  std::string out = program;
  for (const std::string& a : args) out += " " + Quote(a);
  return out;
}

Status WriteFile(const std::string& path, const std::string& text, bool append) {
  std::error_code ec;
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty()) fs::create_directories(parent, ec);
  std::ofstream out(path, append ? std::ios::app : std::ios::trunc);
  out << text;
  out.close();
  if (!out) return Status::IOError(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  return Status::OK();
}

Status CopyFile(const std::string& from, const std::string& to) {
  std::ifstream in(from, std::ios::binary);
  if (!in) return Status::IOError("cannot read " + from);
  std::stringstream text;
  text << in.rdbuf();
  const std::string tmp = to + ".tmp." + std::to_string(::getpid());
  KVLAB_RETURN_IF_ERROR(WriteFile(tmp, text.str(), false));
  std::error_code ec;
  fs::rename(tmp, to, ec);
  if (ec) return Status::IOError("cannot rename " + tmp + " to " + to + ": " + ec.message());
  return Status::OK();
}

std::string FindResultFile(const std::string& dir) {
  std::error_code ec;
  std::string found;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".json") found = entry.path().string();
  }
  return found;
}

}  // namespace kvlab::gate

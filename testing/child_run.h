// Child processes for the end-to-end CLI tests: run build/kvlab (or any program) as a user
// would, with its stdout and stderr captured in files of a scratch directory.
//
// REQUIRES: the test target defines KVLAB_BINARY (the path of the kvlab binary under test) to
// use the Kvlab helpers; Spawn and Wait work without it.
#pragma once

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace kvlab::testing {

// The whole file, or "" when it cannot be read.
inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct SpawnOptions {
  // Replaces PATH in the child when not empty.
  std::string path;
  // The child's working directory is `dir` (otherwise it inherits the test's).
  bool chdir_to_dir = true;
};

// Starts args (args[0] a path, not searched in PATH) with stdout and stderr to dir/stdout and
// dir/stderr. Returns the child's pid. Exit 126: chdir failed; 127: exec failed.
inline pid_t Spawn(const std::vector<std::string>& args, const std::string& dir,
                   const SpawnOptions& options = {}) {
  const pid_t pid = fork();
  if (pid == 0) {
    const int out = open((dir + "/stdout").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = open((dir + "/stderr").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(out, STDOUT_FILENO);
    dup2(err, STDERR_FILENO);
    if (options.chdir_to_dir && chdir(dir.c_str()) != 0) _exit(126);
    if (!options.path.empty()) setenv("PATH", options.path.c_str(), 1);
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

// Waits for the child; its exit status, or 128 + the signal that ended it.
inline int Wait(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

struct ChildRun {
  int exit_code;
  std::string out;
  std::string err;
};

#ifdef KVLAB_BINARY
// Starts `kvlab args...` in dir (see Spawn).
inline pid_t SpawnKvlab(std::vector<std::string> args, const std::string& dir,
                        const SpawnOptions& options = {}) {
  args.insert(args.begin(), KVLAB_BINARY);
  return Spawn(args, dir, options);
}

// Runs `kvlab args...` in dir to its end; `path` replaces PATH when not empty.
inline ChildRun Kvlab(const std::vector<std::string>& args, const std::string& dir,
                      const std::string& path = "") {
  SpawnOptions options;
  options.path = path;
  const int code = Wait(SpawnKvlab(args, dir, options));
  return {code, ReadFile(dir + "/stdout"), ReadFile(dir + "/stderr")};
}
#endif

}  // namespace kvlab::testing

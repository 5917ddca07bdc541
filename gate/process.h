// What `kvlab gate` needs of the operating system to run workloads itself (--run, and the paired
// runs of --baseline-binary): starting a kvlab binary, a scratch directory, files written through
// a rename, and shell quoting for the commands it prints.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace kvlab::gate {

// The running kvlab binary (/proc/self/exe); "" with *error set when it cannot be found.
std::string SelfPath(std::string* error);

// Runs `binary` with `args`. Its stdout and stderr go to `log` (a file, truncated) when given,
// else its stdout to our stderr (ours carries the report). Returns the exit status (128 + the
// signal when killed), or -1 with *error set when it could not start.
int RunProgram(const std::string& binary, const std::vector<std::string>& args,
               const std::string& log, std::string* error);

// RunProgram in two steps, so that two programs can run at once: StartProgram returns the
// child's pid (-1 with *error set when it could not start); WaitProgram its exit status as
// RunProgram's.
int StartProgram(const std::string& binary, const std::vector<std::string>& args,
                 const std::string& log, std::string* error);
int WaitProgram(int pid, std::string* error);

// The last `max_bytes` of a file ("" when unreadable), for error messages.
std::string FileTail(const std::string& path, size_t max_bytes = 1500);

// A fresh private directory under $TMPDIR (or /tmp), removed with everything in it when the
// object goes. path() is "" when it could not be made.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The argument list with `option VALUE` / `option=VALUE` removed (and flags in `flags`).
std::vector<std::string> Without(const std::vector<std::string>& args,
                                 const std::vector<std::string>& options,
                                 const std::vector<std::string>& flags);
// Whether `args` give `option` (as `option VALUE` or `option=VALUE`).
bool Gives(const std::vector<std::string>& args, const std::string& option);

// `s` quoted for a POSIX shell when it needs it.
std::string Quote(const std::string& s);
// "kvlab bench run ..." from a program name and arguments, each quoted when needed.
std::string CommandLine(const std::string& program, const std::vector<std::string>& args);

Status WriteFile(const std::string& path, const std::string& text, bool append);
// Copies through a temporary file and a rename, so that an interrupted copy leaves `to` as it
// was.
Status CopyFile(const std::string& from, const std::string& to);

// The first *.json file in `dir` (a bench run's result), or "".
std::string FindResultFile(const std::string& dir);

}  // namespace kvlab::gate

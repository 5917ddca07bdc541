// What every kvlab subcommand shares on the command line: one exit-status convention, usage
// errors, the validators of numeric options, and the handling of Ctrl-C.
//
// Exit status, for every subcommand (docs/workloads.md, "Exit status"):
//   0    done, and nothing failed;
//   1    the run was made and found a failure: a bench cell that failed, a conformance failure,
//        a server that stopped on an error;
//   2    usage: bad arguments or input (an unknown or misspelt option, a value out of range,
//        conflicting flags, a workload file with errors, an unusable --dir or --results);
//        nothing was run;
//   3    the run could not be made on this machine or build: a debug or sanitizer build asked
//        to time without --allow-invalid-timing, a reference redis-server that would not start,
//        a Redis tier that cannot be reached at `serve`'s start;
//   4    `kvlab gate` only: inconclusive: no regression found, but the timings it was asked to
//        gate cannot be judged (too few repetitions or pairs for the family of timing rows; an
//        unpaired comparison on a loaded machine or with a machine-wide shift). Never a pass,
//        and not bad input (gate/gate_command.h, docs/gate.md);
//   130  interrupted (Ctrl-C or SIGTERM); what was measured is still written, marked partial.
#pragma once

#include <CLI/CLI.hpp>
#include <csignal>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>

namespace kvlab::flags {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitCannotRun = 3;
inline constexpr int kExitInterrupted = 130;

// Thrown by a subcommand's callback, before it has run anything, when the arguments are wrong in
// a way the parser could not see (conflicting flags, an unknown backend). kvlab's main prints it
// like a parse error and exits kExitUsage.
class UsageError : public CLI::ParseError {
 public:
  explicit UsageError(const std::string& message)
      : CLI::ParseError("UsageError", message, kExitUsage) {}
};

// --dir of a subcommand that makes one fresh store per cell under it (bench, study): a new or
// empty directory it can write in, created here. Throws UsageError naming the problem (a file,
// a kvlab store, a directory with something in it, no permission); `tool` names the subcommand.
void CheckFreshStoreParent(const std::string& dir, const std::string& tool);

// Rejects a negative number before CLI11 converts it: CLI11 reads "-5" into an unsigned option
// as 2^64 - 5, and kvlab's "not given" defaults must never be reachable by typing a value.
// Text that is no number at all is "not a number (got abc)".
const CLI::Validator& NonNegative();
// A number > 0 (integer or not).
const CLI::Validator& Positive();

// "not a number (got abc)" for text that is no number; empty when `text` reads as one.
std::string NotANumber(const std::string& text);

// A number from `min` to `max` of the option's type, in kvlab's words rather than CLI11's Range
// ("Value abc not in range 1 to 18446744073709551615"): "not a number (got abc)", "must not be
// negative (got -5)", "must be a whole number (got 1.5)", "must be at least 1 (got 0)", "must be
// from 1 to 256 (got 300)". Its help text is CLI11's Range's ("INT in [1 - 256]").
template <typename T>
CLI::Validator InRange(T min, T max) {
  auto text = [](T v) {
    std::ostringstream out;
    out << +v;
    return out.str();
  };
  std::ostringstream description;
  description << CLI::detail::type_name<T>() << " in [" << +min << " - " << +max << "]";
  return CLI::Validator(
      [=](std::string& value) -> std::string {
        if (std::string e = NotANumber(value); !e.empty()) return e;
        const size_t first = value.find_first_not_of(" \t");
        if (std::is_unsigned_v<T> && value[first] == '-') {
          return "must not be negative (got " + value + ")";
        }
        T v{};
        if (!CLI::detail::lexical_cast(value, v)) {
          if (std::is_integral_v<T> && value.find_first_of(".eE") != std::string::npos) {
            return "must be a whole number (got " + value + ")";
          }
          return "must be from " + text(min) + " to " + text(max) + " (got " + value + ")";
        }
        if (v >= min && v <= max) return "";
        if (max == std::numeric_limits<T>::max()) {
          return "must be at least " + text(min) + " (got " + value + ")";
        }
        return "must be from " + text(min) + " to " + text(max) + " (got " + value + ")";
      },
      description.str());
}

// Installs the SIGINT and SIGTERM handlers of a long run: the first signal asks for a clean
// stop (InterruptFlag() becomes non-zero: the run finishes what it is in, writes what it has,
// marked partial, and exits kExitInterrupted); SA_RESETHAND makes a second one kill the process
// as usual.
void InstallInterruptHandlers();
// The flag the handlers set: the one piece of global mutable state kvlab allows, because a
// signal handler can reach nothing else. Runs read it through this pointer.
const volatile std::sig_atomic_t* InterruptFlag();

}  // namespace kvlab::flags

// How kvlab reports a command line it cannot run: the error, the nearest option or subcommand
// to each unknown argument, and where to find the options; exit status 2 (flags/conventions.h).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace kvlab::cli {

// The names among `candidates` nearest to `typo` (optimal string alignment distance at most
// about a third of its length, at least 2, or `typo` a prefix of the name), best first, at most
// three; empty when none is near.
std::vector<std::string> NearestNames(const std::string& typo,
                                      const std::vector<std::string>& candidates);

// Prints a parse or usage error of `app`'s command line to stderr ("kvlab bench run: ..."), with
// the nearest option or subcommand to each unknown argument and where to find the options, and
// returns the exit status: 0 for --help and --version (which CLI11 also reports as errors) when
// every other argument was understood, kExitUsage otherwise (`kvlab nosuch --help` is an error).
int ReportParseError(CLI::App& app, const CLI::ParseError& error);

}  // namespace kvlab::cli

// `kvlab study` and `kvlab report` on the command line.
//
//   kvlab study [WORKLOAD|FILE ...] [--backends LIST] [--types hash,zset] [--quick] [-o DIR]
//               [--weights latency=2,space=1,...] [--cross] [--repetitions N] ...
//     runs every encode-version of the types the workloads use on the chosen backends (default:
//     the embedded ones, rocksdb, lmdb and wiredtiger), ranks them (ranking.h), prints the
//     verdict and writes DIR/study.json, DIR/index.html, DIR/study.md and the plots.
//   kvlab report RESULT... [-o DIR]
//     the HTML page and Markdown of bench, conform and study results; two or more results are
//     compared side by side.
//
// Exit status: 0 done; 1 a cell or the report failed (what was measured is still written);
// 2 bad arguments, or a build whose times mean nothing without --allow-invalid-timing;
// 130 interrupted (the study of the cells so far is written, marked partial).
#pragma once

#include <CLI/CLI.hpp>

namespace kvlab::flags {
struct TestHooks;  // flags/common_flags.h
}  // namespace kvlab::flags

namespace kvlab::study {

// `hooks`: the test-only switches the binary supplies (flags::TestHooks); copied while adding.
void AddStudyCommand(CLI::App& app, const flags::TestHooks& hooks, int* exit_code);
void AddReportCommand(CLI::App& app, int* exit_code);

}  // namespace kvlab::study

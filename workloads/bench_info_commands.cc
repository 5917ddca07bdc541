#include "workloads/bench_info_commands.h"

#include <cstdio>

#include "flags/conventions.h"
#include "workloads/catalogue.h"
#include "workloads/report.h"
#include "workloads/workload.h"

namespace kvlab::workloads {

using flags::UsageError;

void AddBenchInfoCommands(CLI::App* bench, BenchInfoCommands* c) {
  c->list = bench->add_subcommand("list", "List the built-in workloads");
  c->show = bench->add_subcommand("show", "Print a built-in workload as a workload file");
  c->show->add_option("name", c->name, "Workload name")->required();
  // `kvlab report` is the report command (HTML and Markdown of any result, several side by
  // side). This one, which rewrites a bench result's own Markdown report and plots beside it,
  // stays for the scripts that call it, out of the help, and says where to go.
  c->report = bench->add_subcommand(
      "report", "Rewrite a bench result's own Markdown report (use kvlab report instead)");
  c->report->group("");
  c->report->add_option("result", c->result_path, "A result JSON file")
      ->required()
      ->check(CLI::ExistingFile);
  c->report->add_flag("--no-plots", c->no_plots, "Write the Markdown report without plots");
}

bool RunBenchInfoCommand(const BenchInfoCommands& c) {
  if (c.list->parsed()) {
    for (const CatalogueEntry& e : Catalogue()) {
      Workload w;
      Status s = ParseWorkload(e.json, e.name, &w);
      std::printf("%-14s %s\n", e.name, s.ok() ? w.description.c_str() : s.message().c_str());
    }
    return true;
  }
  if (c.show->parsed()) {
    for (const CatalogueEntry& e : Catalogue()) {
      if (c.name == e.name) {
        std::printf("%s\n", e.json);
        return true;
      }
    }
    throw UsageError("no built-in workload '" + c.name + "' (see kvlab bench list)");
  }
  if (c.report->parsed()) {
    std::string path, note;
    Status s = WriteReport(c.result_path, !c.no_plots, &path, &note);
    if (!s.ok()) throw UsageError(s.message());
    if (!note.empty()) std::fprintf(stderr, "kvlab bench: %s\n", note.c_str());
    std::printf("report: %s\n", path.c_str());
    std::fprintf(stderr,
                 "kvlab bench report: rewrote the result's Markdown report; kvlab report "
                 "writes the HTML page and Markdown of any result (kvlab report --help)\n");
    return true;
  }
  return false;
}

}  // namespace kvlab::workloads

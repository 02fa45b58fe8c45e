// sluice-bench: benchmarks that print figures, and ratios against curl.
// Main thread only: parse, dispatch to one subcommand.

#include <csignal>
#include <cstdio>
#include <string_view>

#include "bench/bench_options.hpp"
#include "bench/report.hpp"
#include "bench/subcommands.hpp"

int main(int argc, char** argv) {
  using namespace sluice::bench;
  // A peer or a reader that goes away must surface as an error value, not a kill.
  std::signal(SIGPIPE, SIG_IGN);

  std::string_view name = argc > 1 ? argv[1] : "";
  if (name == "help" || name == "--help" || name == "-h") {
    std::fputs(usage_text().c_str(), stdout);
    return kExitOk;
  }
  Subcommand subcommand;
  if (name == "throughput") {
    subcommand = Subcommand::throughput;
  } else if (name == "held") {
    subcommand = Subcommand::held;
  } else if (name == "many") {
    subcommand = Subcommand::many;
  } else if (name == "upload-burst") {
    subcommand = Subcommand::upload_burst;
  } else if (name == "file-burst") {
    subcommand = Subcommand::file_burst;
  } else if (name == "append-growth") {
    subcommand = Subcommand::append_growth;
  } else if (name == "download") {
    subcommand = Subcommand::download;
  } else {
    print_note(name.empty() ? "no subcommand given (try 'sluice-bench help')"
                            : "unknown subcommand '" + std::string(name) +
                                  "' (try 'sluice-bench help')");
    return kExitUsage;
  }
  sluice::Result<BenchOptions> options = parse_bench_options(subcommand, argc - 2, argv + 2);
  if (!options) {
    print_note(options.error().message());
    return kExitUsage;
  }
  if (options->show_help) {
    std::fputs(usage_text().c_str(), stdout);
    return kExitOk;
  }
  switch (subcommand) {
    case Subcommand::throughput: return run_throughput(*options);
    case Subcommand::held: return run_held(*options);
    case Subcommand::many: return run_many(*options);
    case Subcommand::upload_burst: return run_upload_burst(*options);
    case Subcommand::file_burst: return run_file_burst(*options);
    case Subcommand::append_growth: return run_append_growth(*options);
    case Subcommand::download: return run_download(*options);
  }
  return kExitUsage;
}

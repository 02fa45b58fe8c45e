// sluice-bench: benchmarks that print figures, and ratios against curl.
// Main thread only: parse, dispatch to one subcommand.

#include <csignal>
#include <cstdio>
#include <optional>
#include <string_view>

#include "bench/bench_options.hpp"
#include "bench/delay_route.hpp"
#include "bench/report.hpp"
#include "bench/subcommands.hpp"

namespace {

std::optional<sluice::bench::Subcommand> subcommand_named(std::string_view name) {
  using sluice::bench::Subcommand;
  if (name == "throughput") return Subcommand::throughput;
  if (name == "held") return Subcommand::held;
  if (name == "many") return Subcommand::many;
  if (name == "upload-burst") return Subcommand::upload_burst;
  if (name == "append-growth") return Subcommand::append_growth;
  if (name == "download") return Subcommand::download;
  if (name == "resumption") return Subcommand::resumption;
  if (name == "link") return Subcommand::link;
  if (name == "latency") return Subcommand::latency;
  return std::nullopt;
}

int dispatch(sluice::bench::Subcommand subcommand, const sluice::bench::BenchOptions& options) {
  using namespace sluice::bench;
  switch (subcommand) {
    case Subcommand::throughput: return run_throughput(options);
    case Subcommand::held: return run_held(options);
    case Subcommand::many: return run_many(options);
    case Subcommand::upload_burst: return run_upload_burst(options);
    case Subcommand::append_growth: return run_append_growth(options);
    case Subcommand::download: return run_download(options);
    case Subcommand::resumption: return run_resumption(options);
    case Subcommand::link: return run_link(options);
    case Subcommand::latency: return run_latency(options);
  }
  return kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace sluice::bench;
  // A peer or a reader that goes away must surface as an error value, not a kill.
  std::signal(SIGPIPE, SIG_IGN);

  std::string_view name = argc > 1 ? argv[1] : "";
  if (name == "help" || name == "--help" || name == "-h") {
    std::fputs(usage_text().c_str(), stdout);
    return kExitOk;
  }
  std::optional<Subcommand> subcommand = subcommand_named(name);
  if (!subcommand) {
    print_note(name.empty()
                   ? "no subcommand given (try 'sluice-bench help')"
                   : "unknown subcommand '" + std::string(name) + "' (try 'sluice-bench help')");
    return kExitUsage;
  }
  sluice::Result<BenchOptions> options = parse_bench_options(*subcommand, argc - 2, argv + 2);
  if (!options) {
    print_note(options.error().message());
    return kExitUsage;
  }
  if (options->show_help) {
    std::fputs(usage_text().c_str(), stdout);
    return kExitOk;
  }
  // With --rtt every contender runs through the links on a rewritten URL. They start
  // here, before the benchmark has any thread, as they run in a fork()ed process.
  sluice::Result<DelayRoute> route = DelayRoute::start(*options);
  if (!route) {
    print_note(route.error().message());
    return kExitFailed;
  }
  route->print_figures();
  const int status = dispatch(*subcommand, route->options());
  route->finish();
  return status;
}

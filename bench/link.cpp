// sluice-bench link: the delay links of --rtt, kept up for a client run by hand
// (`sluice -v`, curl, gtlsclient) on the same path the benchmarks use.
// Main thread only.

#include <csignal>
#include <cstdio>

#include "bench/report.hpp"
#include "bench/subcommands.hpp"

namespace sluice::bench {

int run_link(const BenchOptions& options) {
  // main() started the links and rewrote the URL; this only waits.
  print_text("link_url", options.url);
  std::fflush(stdout);
  print_note("the links run until SIGINT or SIGTERM (Ctrl-C)");
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  // Blocked first, so a signal that comes early waits for sigwait instead of killing
  // the process before the links are stopped.
  sigprocmask(SIG_BLOCK, &stop, nullptr);
  int received = 0;
  sigwait(&stop, &received);
  return kExitOk;
}

}  // namespace sluice::bench

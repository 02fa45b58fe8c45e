#pragma once
// Peers: other programs (curl) run on the same URL so that a figure of ours comes
// with the same figure for a well-known client measured on the same machine at the
// same moment. Main thread only (it waits for its child).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bench/bench_options.hpp"
#include "sluice/error.hpp"

namespace sluice::bench {

/// One finished child process.
struct PeerRun {
  int exit_code = -1;  ///< -1 when a signal ended it
  int term_signal = 0;
  double wall_s = 0;   ///< spawn to reap, wall clock
  double cpu_s = 0;    ///< the child's user + system time (wait4)
  std::string output;  ///< everything it wrote to stdout
};

/// Runs argv[0], searched on PATH, with stdin from /dev/null, stdout captured and
/// stderr inherited (so its error messages reach the person running the bench).
/// Fails (category io) only when the program could not be started.
Result<PeerRun> run_peer(const std::vector<std::string>& argv);

/// Whether `program` is an executable file in one of PATH's directories.
bool on_path(std::string_view program);

/// One `curl -s -o /dev/null` download of options.url.
struct CurlRun {
  double wall_s = 0;
  double cpu_s = 0;
  std::uint64_t bytes = 0;  ///< %{size_download}: bytes on the wire, before decoding
};

/// Downloads options.url once with curl, mapping --http1.1, --cacert, -k and
/// --compressed. Fails (category protocol) when curl fails or the status is not 2xx,
/// with curl's exit code in the message.
Result<CurlRun> run_curl(const BenchOptions& options);

}  // namespace sluice::bench

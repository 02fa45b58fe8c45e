#pragma once
// Peers: other programs (curl, h2load) run on the same URL so that a figure of ours comes
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
/// `extra_env` ("NAME=value" entries) is added to this process's environment for the
/// child, replacing variables of the same name.
/// Fails (category io) only when the program could not be started.
Result<PeerRun> run_peer(const std::vector<std::string>& argv,
                         const std::vector<std::string>& extra_env = {});

/// Whether `program` is an executable file in one of PATH's directories.
bool on_path(std::string_view program);

/// One `curl -s -o /dev/null` download of options.url.
struct CurlRun {
  double wall_s = 0;
  double cpu_s = 0;
  std::uint64_t bytes = 0;   ///< %{size_download}: bytes on the wire, before decoding
  std::string http_version;  ///< %{http_version}: "1.1", "2"
};

/// Downloads options.url once with curl, mapping the version option, --cacert, -k
/// and --compressed. Fails (category protocol) when curl fails or the status is not 2xx,
/// with curl's exit code in the message.
Result<CurlRun> run_curl(const BenchOptions& options);

/// One curl process that fetched options.url several times in a row, reusing its
/// connection (curl_sequence_peer.cpp).
struct CurlSequence {
  /// Each transfer's %{time_total}: for a reused connection, from the transfer's start
  /// to its end; the first also includes connecting (and the TLS handshake).
  std::vector<double> seconds;
  std::uint64_t connects = 0;  ///< %{num_connects} summed: 1 when every transfer reused the first
  std::string http_version;    ///< %{http_version} of the first transfer
};

/// Runs one `curl -K FILE` whose config file names options.url `requests` times, each
/// written to /dev/null, with the option mapping of run_curl. Fails (category
/// protocol) when curl fails or a status is not 2xx; (category io) when the config
/// file cannot be written.
Result<CurlSequence> run_curl_sequence(const BenchOptions& options, std::size_t requests);

/// h2load's "time for request" line: each request from its start to its end, the
/// connection's set-up not included.
struct H2loadRequestTimes {
  double min_s = 0;
  double max_s = 0;
  double mean_s = 0;
  double sd_s = 0;
};

/// One `h2load` run of options.url: N requests with C in flight.
struct H2loadRun {
  double wall_s = 0;          ///< its "finished in" time: first connect to last response
  double requests_per_s = 0;  ///< its "req/s" figure
  std::uint64_t succeeded = 0;
  double cpu_s = 0;                  ///< the child's user + system time (wait4)
  std::string protocol;              ///< its "Application protocol" line: h2, h2c, http/1.1
  H2loadRequestTimes request_times;  ///< its "time for request" line
};

/// Runs `h2load -n N -c 1 -m C URL` (HTTP/2: C streams on one connection), or with
/// `http1`, `h2load --h1 -n N -c C -m 1 URL` (C connections, one request each at a
/// time). h2load does not verify certificates and has no --cacert. Fails (category
/// protocol) when it cannot run, prints no result, or fewer than N requests
/// succeeded (a non-2xx status counts as a failure), with its counts in the message.
Result<H2loadRun> run_h2load(const BenchOptions& options, bool http1);

/// Whether Node's fetch can be the peer of `held` for these options: it speaks
/// HTTP/1.1 only, so the options must ask for HTTP/1.1 (--http1.1) or leave it to a
/// plain http:// URL (no version option, or --http2, which needs TLS ALPN).
bool node_held_applies(const BenchOptions& options);

/// What held_node_peer.mjs printed: MiB per held response.
struct NodeHeldRun {
  double rss_mib_per_response = 0;  ///< node_held_rss_mib_per_response: VmRSS growth
  double js_mib_per_response = 0;   ///< node_held_js_mib_per_response: V8 heap + external
};

/// Runs bench/held_node_peer.mjs (its path in the source tree is built in) with
/// `node --expose-gc` on options.url and options.count, with --cacert as
/// NODE_EXTRA_CA_CERTS and -k as NODE_TLS_REJECT_UNAUTHORIZED=0. Fails (category io)
/// when the script is not where it was built from, (category protocol) when it fails
/// or prints no figure.
Result<NodeHeldRun> run_node_held(const BenchOptions& options);

/// One gtlsclient download of options.url (HTTP/3), body discarded. gtlsclient
/// reports nothing useful on failure, so check once with verify_gtlsclient.
Result<PeerRun> run_gtlsclient(const BenchOptions& options);
/// Downloads options.url once with gtlsclient into a scratch directory and checks the
/// file has `expected_bytes`; the scratch is removed.
Result<void> verify_gtlsclient(const BenchOptions& options, std::uint64_t expected_bytes);

}  // namespace sluice::bench

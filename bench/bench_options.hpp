#pragma once
// The options every sluice-bench subcommand shares, parsed into plain data before
// anything touches the network, and the Client and Request they describe. A typo
// must fail with exit 2 and a message that names the option, never run a benchmark
// that measures something other than what was asked.
// Ownership: BenchOptions is a value owned by main's thread.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/client.hpp"
#include "sluice/error.hpp"
#include "sluice/request.hpp"

namespace sluice::bench {

enum class Subcommand {
  throughput,
  held,
  many,
  upload_burst,
  append_growth,
  download,
  link,
  resumption,
  latency,
};

struct BenchOptions {
  std::string url;  ///< required, except upload-burst (optional) and the local benchmarks
  int runs = 0;     ///< throughput, many, download: runs per contender (0 until parsed: 3, 1, 3)
  /// --http1.1, --http2, --http2-prior-knowledge (at most one); automatic otherwise.
  VersionPolicy version = VersionPolicy::automatic;
  std::string ca_file;
  bool insecure = false;
  bool compressed = false;
  /// held: responses held at once (required); upload-burst: bodies in the burst
  /// (default 300).
  std::size_t count = 0;
  /// upload-burst: bytes per body (default 1 MiB); append-growth:
  /// the payload (default 64 MiB). 0 until parsed.
  std::size_t size = 0;
  /// --initial-allowance, --max-allowance: Request::allowance; unset: the library's.
  std::optional<std::size_t> initial_allowance;
  std::optional<std::size_t> max_allowance;
  bool reads_one_chunk = false;  ///< held: --reads 1
  bool no_sweep = false;         ///< held: --no-sweep (memory rule 3 off, for comparison)
  /// throughput: --copy reads with BodyReader::read into a buffer instead of borrowing
  /// the staged bytes with BodyReader::next.
  bool copy_reads = false;
  /// many: requests in all (required); latency: sequential requests (0 until
  /// parsed: 1000)
  std::size_t requests = 0;
  std::size_t concurrency = 0;  ///< many: requests in flight at once (required)
  unsigned split = 1;           ///< download, resumption: DownloadOptions::ranges (--split N)
  std::string dir;  ///< download, resumption: where files go (--dir; empty: $TMPDIR or /tmp)
  /// download: other URLs of the same file (--mirror URL, repeatable): sluice gets
  /// them as DownloadOptions::mirrors, aria2c as more URIs, curl and wget sit out.
  std::vector<std::string> mirrors;
  /// --rtt MS: throughput, held, many, download run through delay links with this
  /// round-trip time (0 allowed: the link without delay); unset: straight to the URL.
  std::optional<double> rtt_ms;
  std::uint64_t link_mbit = 0;  ///< --link-mbit: the link's rate per direction; 0: unlimited
  std::size_t read_first = 0;   ///< held --read-first: bytes read of each body, then held
  bool show_help = false;
};

/// Parses the options after the subcommand name (argv[0] is the first option).
/// Errors have category usage and name the offending option.
Result<BenchOptions> parse_bench_options(Subcommand subcommand, int argc, const char* const* argv);

/// The Client these options ask for (CA file, -k); the connection limit is the
/// library's default, which a subcommand may change.
ClientOptions client_options(const BenchOptions& options);
/// A GET for options.url with the version, decoding and allowance the options ask for.
Request make_request(const BenchOptions& options);

/// curl's option for `version` (--http1.1, --http2, --http2-prior-knowledge), or
/// nullptr for automatic.
const char* curl_version_option(VersionPolicy version);

/// The text `sluice-bench help` prints.
std::string usage_text();

}  // namespace sluice::bench

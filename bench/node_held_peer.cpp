// Runs the Node peer of `sluice-bench held` (bench/held_node_peer.mjs) and reads
// its figure. Main thread only.

#include <unistd.h>

#include <charconv>
#include <string>
#include <string_view>
#include <vector>

#include "bench/peer.hpp"
#include "sluice/url.hpp"

// Set by bench/CMakeLists.txt: the bench sources, where the script is. A built-in
// path, because the script is not installed beside the binary.
#ifndef SLUICE_BENCH_SOURCE_DIR
#error "SLUICE_BENCH_SOURCE_DIR must name the bench/ source directory"
#endif

namespace sluice::bench {
namespace {

std::string script_path() { return std::string(SLUICE_BENCH_SOURCE_DIR) + "/held_node_peer.mjs"; }

Error node_error(const std::string& what) {
  return Error(ErrorCategory::protocol, "node (held_node_peer.mjs): " + what);
}

// The value on the script's line `name value`.
Result<double> parse_figure(std::string_view output, std::string_view name) {
  const std::string prefix = std::string(name) + " ";
  const std::size_t at = output.find(prefix);
  if (at == std::string_view::npos || (at > 0 && output[at - 1] != '\n')) {
    return node_error("no '" + std::string(name) + "' line in its output");
  }
  const std::string_view text = output.substr(at + prefix.size());
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc()) return node_error("unreadable '" + std::string(name) + "' line");
  return value;
}

}  // namespace

bool node_held_applies(const BenchOptions& options) {
  switch (options.version) {
    case VersionPolicy::http1_0:
    case VersionPolicy::http1_only: return true;
    case VersionPolicy::automatic:
    case VersionPolicy::http2: {
      Result<Url> url = Url::parse(options.url);
      return url && !url->is_https();
    }
    case VersionPolicy::http2_prior_knowledge:
    case VersionPolicy::http3:
    case VersionPolicy::http3_only: return false;
  }
  return false;
}

Result<NodeHeldRun> run_node_held(const BenchOptions& options) {
  const std::string script = script_path();
  if (::access(script.c_str(), R_OK) != 0) {
    return Error(ErrorCategory::io, "cannot read " + script + " (the Node peer's script)");
  }
  std::vector<std::string> env;
  if (!options.ca_file.empty()) env.push_back("NODE_EXTRA_CA_CERTS=" + options.ca_file);
  if (options.insecure) env.emplace_back("NODE_TLS_REJECT_UNAUTHORIZED=0");
  Result<PeerRun> run =
      run_peer({"node", "--expose-gc", script, options.url, std::to_string(options.count)}, env);
  if (!run) return std::move(run).error();
  if (run->exit_code != 0) {
    return node_error(run->term_signal != 0 ? "killed by signal " + std::to_string(run->term_signal)
                                            : "exit status " + std::to_string(run->exit_code));
  }
  Result<double> rss = parse_figure(run->output, "node_held_rss_mib_per_response");
  if (!rss) return std::move(rss).error();
  Result<double> js = parse_figure(run->output, "node_held_js_mib_per_response");
  if (!js) return std::move(js).error();
  return NodeHeldRun{*rss, *js};
}

}  // namespace sluice::bench

// Runs h2load (nghttp2's load generator) as the peer of `sluice-bench many` and
// reads its summary. Main thread only.

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bench/peer.hpp"

namespace sluice::bench {
namespace {

// What the library sends with --compressed, so that both contenders ask the same.
constexpr std::string_view kAcceptEncoding = "accept-encoding: gzip, deflate, br, zstd";

// The line of `text` that starts with `prefix`, without the prefix.
std::optional<std::string_view> line_after(std::string_view text, std::string_view prefix) {
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    if (line.starts_with(prefix)) return line.substr(prefix.size());
    at = end + 1;
  }
  return std::nullopt;
}

// A number at the start of `text`, and what follows it.
template <typename Number>
std::optional<std::pair<Number, std::string_view>> leading_number(std::string_view text) {
  Number value{};
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc()) return std::nullopt;
  return std::pair{value, text.substr(static_cast<std::size_t>(end - text.data()))};
}

// The seconds a unit of h2load's durations ("s", "ms", "us") stands for, 0 when
// `rest` starts with none of them.
double unit_scale(std::string_view rest) {
  if (rest.starts_with("s")) return 1;
  if (rest.starts_with("ms")) return 1e-3;
  if (rest.starts_with("us")) return 1e-6;
  return 0;
}

// "20.46ms, 48880.63 req/s, 28.58MB/s": h2load prints the duration in s, ms or us.
bool parse_finished(std::string_view text, H2loadRun& run) {
  auto duration = leading_number<double>(text);
  if (!duration) return false;
  auto [value, rest] = *duration;
  const double scale = unit_scale(rest);
  std::size_t comma = rest.find(", ");
  if (scale == 0 || comma == std::string_view::npos) return false;
  auto rate = leading_number<double>(rest.substr(comma + 2));
  if (!rate || !rate->second.starts_with(" req/s")) return false;
  run.wall_s = value * scale;
  run.requests_per_s = rate->first;
  return true;
}

// "      46us      4.31ms        97us       370us    98.50%": min, max, mean and
// standard deviation, each with its unit.
std::optional<H2loadRequestTimes> parse_request_times(std::string_view text) {
  double seconds[4] = {};
  for (double& value : seconds) {
    text.remove_prefix(std::min(text.find_first_not_of(' '), text.size()));
    auto number = leading_number<double>(text);
    if (!number) return std::nullopt;
    const double scale = unit_scale(number->second);
    if (scale == 0) return std::nullopt;
    value = number->first * scale;
    text = number->second.substr(std::min(number->second.find(' '), number->second.size()));
  }
  return H2loadRequestTimes{seconds[0], seconds[1], seconds[2], seconds[3]};
}

// The count just before `word` in "1000 total, ..., 998 succeeded, 2 failed, ...".
std::optional<std::uint64_t> count_before(std::string_view text, std::string_view word) {
  std::size_t at = text.find(word);
  if (at == std::string_view::npos || at < 2) return std::nullopt;
  std::size_t start = text.rfind(' ', at - 2);
  start = start == std::string_view::npos ? 0 : start + 1;
  auto count = leading_number<std::uint64_t>(text.substr(start, at - 1 - start));
  if (!count) return std::nullopt;
  return count->first;
}

std::vector<std::string> h2load_argv(const BenchOptions& options, bool http1) {
  const std::string requests = std::to_string(options.requests);
  const std::string concurrency = std::to_string(options.concurrency);
  std::vector<std::string> argv = {"h2load"};
  if (http1) {
    argv.insert(argv.end(), {"--h1", "-n", requests, "-c", concurrency, "-m", "1"});
  } else {
    argv.insert(argv.end(), {"-n", requests, "-c", "1", "-m", concurrency});
  }
  if (options.compressed) argv.insert(argv.end(), {"-H", std::string(kAcceptEncoding)});
  argv.push_back(options.url);
  return argv;
}

Error h2load_error(const std::string& what, const BenchOptions& options) {
  return Error(ErrorCategory::protocol, "h2load on " + options.url + ": " + what);
}

}  // namespace

Result<H2loadRun> run_h2load(const BenchOptions& options, bool http1) {
  Result<PeerRun> peer = run_peer(h2load_argv(options, http1));
  if (!peer) return std::move(peer).error();
  if (peer->exit_code != 0) {
    return h2load_error(peer->term_signal != 0
                            ? "killed by signal " + std::to_string(peer->term_signal)
                            : "exit status " + std::to_string(peer->exit_code),
                        options);
  }
  H2loadRun run;
  run.cpu_s = peer->cpu_s;
  std::optional<std::string_view> finished = line_after(peer->output, "finished in ");
  std::optional<std::string_view> requests = line_after(peer->output, "requests: ");
  if (!finished || !requests || !parse_finished(*finished, run)) {
    return h2load_error("no 'finished in' and 'requests:' summary in its output", options);
  }
  std::optional<std::uint64_t> succeeded = count_before(*requests, "succeeded");
  if (!succeeded) return h2load_error("unreadable 'requests:' line in its output", options);
  run.succeeded = *succeeded;
  if (run.succeeded != options.requests) {
    // h2load exits 0 when requests fail: its own counts say what went wrong. It does
    // not reconnect, so a server's limit of requests per connection ends it early.
    const bool errored = count_before(*requests, "errored").value_or(0) > 0;
    return h2load_error(std::to_string(run.succeeded) + " of " + std::to_string(options.requests) +
                            " requests succeeded (requests: " + std::string(*requests) + ")" +
                            (errored ? "; h2load does not reconnect: does the server close a "
                                       "connection after some requests (nginx: keepalive_requests)?"
                                     : ""),
                        options);
  }
  run.protocol = std::string(line_after(peer->output, "Application protocol: ").value_or("?"));
  std::optional<std::string_view> times = line_after(peer->output, "time for request:");
  std::optional<H2loadRequestTimes> request_times =
      times ? parse_request_times(*times) : std::nullopt;
  if (!request_times)
    return h2load_error("no readable 'time for request' line in its output", options);
  run.request_times = *request_times;
  return run;
}

}  // namespace sluice::bench

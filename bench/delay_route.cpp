// DelayRoute: delay links in front of the benchmark's URL. Main thread only.

#include "bench/delay_route.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bench/report.hpp"
#include "sluice/url.hpp"

namespace sluice::bench {
namespace {

bool is_http3(VersionPolicy version) {
  return version == VersionPolicy::http3 || version == VersionPolicy::http3_only;
}

LinkShape shape_of(const BenchOptions& options) {
  LinkShape shape;
  shape.one_way = std::chrono::nanoseconds(std::llround(*options.rtt_ms * 1e6 / 2));
  shape.bits_per_second = options.link_mbit * 1'000'000;
  return shape;
}

// "TCP link: 3 connections, 0.1 MiB to the server, 192.0 MiB to the client, 0 reset"
std::string describe(const LinkCounters& counters, bool tcp) {
  constexpr double kMiB = 1024.0 * 1024.0;
  char line[200];
  std::snprintf(line, sizeof line,
                "%s link: %llu %s, %.1f MiB to the server, %.1f MiB to the client, %llu %s",
                tcp ? "TCP" : "UDP", static_cast<unsigned long long>(counters.connections),
                tcp ? "connections" : "client addresses",
                static_cast<double>(counters.bytes_to_server) / kMiB,
                static_cast<double>(counters.bytes_to_client) / kMiB,
                static_cast<unsigned long long>(tcp ? counters.resets : counters.dropped),
                tcp ? "reset" : "datagrams dropped");
  return line;
}

// The host's count of UDP datagrams dropped for a full receive buffer: the "Udp:"
// header line of /proc/net/snmp names the columns, the next one holds the values.
std::optional<std::uint64_t> udp_receive_buffer_errors() {
  std::ifstream snmp("/proc/net/snmp");
  std::string line;
  std::vector<std::string> names;
  while (std::getline(snmp, line)) {
    if (!line.starts_with("Udp: ")) continue;
    std::istringstream fields(line.substr(5));
    std::vector<std::string> values;
    for (std::string field; fields >> field;) values.push_back(field);
    if (names.empty()) {
      names = std::move(values);
      continue;
    }
    for (std::size_t i = 0; i < names.size() && i < values.size(); ++i) {
      if (names[i] != "RcvbufErrors") continue;
      std::uint64_t count = 0;
      const std::string& text = values[i];
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), count);
      if (ec != std::errc()) return std::nullopt;
      return count;
    }
    return std::nullopt;
  }
  return std::nullopt;
}

std::string milliseconds_text(double ms) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", ms);
  return text;
}

}  // namespace

DelayRoute::~DelayRoute() = default;

Result<DelayRoute> DelayRoute::start(const BenchOptions& options) {
  DelayRoute route;
  route.routed_ = options;
  if (!options.rtt_ms) return route;
  Result<Url> url = Url::parse(options.url);
  if (!url) return std::move(url).error();
  const bool with_udp = is_http3(options.version);
  Result<LinkProcess> links = LinkProcess::start(url->port, shape_of(options), with_udp);
  if (!links) return std::move(links).error();
  route.links_.emplace(std::move(*links));
  if (with_udp) route.udp_buffer_errors_ = udp_receive_buffer_errors();
  url->port = route.links_->port();
  route.routed_.url = url->to_string();
  print_note("through a delay link of " + milliseconds_text(*options.rtt_ms) +
             " ms RTT: " + route.routed_.url);
  if (options.version == VersionPolicy::automatic) {
    // An Alt-Svc header names the server's own port, which is not behind the link.
    print_note("note: without a version option a client may follow Alt-Svc around the link");
  }
  return route;
}

void DelayRoute::print_figures() const {
  if (!links_) return;
  print_figure("rtt_ms", *routed_.rtt_ms, 3);
  print_figure("link_mbit", static_cast<double>(routed_.link_mbit), 0);
}

void DelayRoute::finish() {
  if (!links_) return;
  Result<LinkReport> report = links_->stop();
  links_.reset();
  if (!report) {
    print_note(report.error().message());
    return;
  }
  char cpu[80];
  std::snprintf(cpu, sizeof cpu, "the link process used %.2f s of CPU", report->cpu_s);
  print_note(cpu);
  print_note(describe(report->tcp, true));
  if (!report->with_udp) return;
  print_note(describe(report->udp, false));
  const std::optional<std::uint64_t> errors_now = udp_receive_buffer_errors();
  if (udp_buffer_errors_ && errors_now && *errors_now > *udp_buffer_errors_) {
    print_note("note: the kernel dropped " + std::to_string(*errors_now - *udp_buffer_errors_) +
               " UDP datagrams for a full receive buffer meanwhile (RcvbufErrors, any socket "
               "on this host; the link's own buffers are 8 MiB): a receiver that fell behind");
  }
}

}  // namespace sluice::bench

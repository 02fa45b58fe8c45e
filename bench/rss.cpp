// Reads VmRSS and VmHWM from /proc/self/status.

#include "bench/rss.hpp"

#include <charconv>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>

namespace sluice::bench {
namespace {

// "VmRSS:\t  123456 kB" -> bytes; the kernel always reports these in kB.
std::optional<std::uint64_t> parse_kb_line(std::string_view line, std::string_view key) {
  if (!line.starts_with(key)) return std::nullopt;
  std::string_view rest = line.substr(key.size());
  std::size_t start = rest.find_first_of("0123456789");
  if (start == std::string_view::npos) return std::nullopt;
  std::uint64_t kib = 0;
  auto [end, ec] = std::from_chars(rest.data() + start, rest.data() + rest.size(), kib);
  if (ec != std::errc() || std::string_view(end, rest.data() + rest.size()) != " kB") {
    return std::nullopt;
  }
  return kib * 1024;
}

}  // namespace

Result<MemoryStatus> read_memory_status() {
  std::ifstream status("/proc/self/status");
  if (!status) {
    return Error(ErrorCategory::io, "memory: cannot open /proc/self/status (is /proc mounted?)");
  }
  std::optional<std::uint64_t> rss;
  std::optional<std::uint64_t> hwm;
  for (std::string line; std::getline(status, line);) {
    if (!rss) rss = parse_kb_line(line, "VmRSS:");
    if (!hwm) hwm = parse_kb_line(line, "VmHWM:");
  }
  if (!rss || !hwm) {
    return Error(ErrorCategory::io, "memory: /proc/self/status has no VmRSS/VmHWM lines in kB");
  }
  return MemoryStatus{*rss, *hwm};
}

}  // namespace sluice::bench

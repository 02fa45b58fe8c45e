// CPU time and body-length checks shared by the benchmarks.

#include "bench/measure.hpp"

#include <sys/resource.h>

#include <charconv>
#include <string>
#include <string_view>

namespace sluice::bench {

double process_cpu_seconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  auto secs = [](const timeval& tv) { return tv.tv_sec + tv.tv_usec / 1e6; };
  return secs(usage.ru_utime) + secs(usage.ru_stime);
}

std::optional<std::uint64_t> expected_length(const Response& response) {
  if (response.headers.contains("Content-Encoding")) return std::nullopt;
  std::optional<std::string_view> text = response.headers.get("Content-Length");
  if (!text) return std::nullopt;
  std::uint64_t length = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), length);
  if (ec != std::errc() || end != text->data() + text->size()) return std::nullopt;
  return length;
}

Error length_mismatch(std::uint64_t got, std::uint64_t expected) {
  return Error(ErrorCategory::protocol, "body had " + std::to_string(got) +
                                            " bytes but Content-Length said " +
                                            std::to_string(expected));
}

}  // namespace sluice::bench

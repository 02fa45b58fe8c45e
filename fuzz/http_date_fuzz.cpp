// Fuzz target: parse_http_date and format_http_date (src/web/http_date), which
// read Retry-After and Last-Modified from a server, and -z's argument.
// Input: the date text.
// Invariants checked: a parsed date lies in 1601..9999; formatting it gives an
// IMF-fixdate of 29 bytes that parses back to the same instant, and formatting that
// gives the same text (format is a fixed point of parse); parse_retry_after of the
// text, when it is a date, is a wait between 0 and 60 s.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_input.hpp"
#include "sluice/http_date.hpp"
#include "sluice/retry.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace std::chrono;
  using sluice::fuzz::check;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto when = sluice::parse_http_date(text);
  if (!when) return 0;
  check(*when >= sys_days{year{1601} / January / 1}, "a date is not before 1601");
  check(*when < sys_days{year{10000} / January / 1}, "a date is before 10000");
  const std::string formatted = sluice::format_http_date(*when);
  check(formatted.size() == 29, "an IMF-fixdate is 29 bytes");
  const auto again = sluice::parse_http_date(formatted);
  check(again.has_value() && *again == *when, "format(parse(x)) parses to the same time");
  check(sluice::format_http_date(*again) == formatted, "formatting is stable");
  const auto wait = sluice::parse_retry_after(text, system_clock::time_point{});
  if (wait) check(*wait >= milliseconds{0} && *wait <= seconds{60}, "Retry-After waits 0..60 s");
  return 0;
}

// Fuzz target: parse_control, the reader of a download's control file (PATH.sluice,
// src/download/file/download_control). The file sits on disk beside a partial download, so
// anything may be in it: a crash, a cut write, another program's file.
// Input: the whole file's text.
// Invariants checked: what parses is what format_control() could have written (ranges
// in order, not overlapping, inside the size, done within each range; an unknown
// size has one open range), and formatting it then parsing again gives it back.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "download/file/download_control.hpp"
#include "fuzz_input.hpp"

namespace {

using sluice::ControlFile;
using sluice::fuzz::check;

void check_ranges(const ControlFile& control) {
  check(!control.ranges.empty(), "a parsed control file has a range");
  if (!control.size) {
    check(control.ranges.size() == 1 && !control.ranges[0].end,
          "an unknown size has one open range");
    return;
  }
  std::uint64_t previous_end = 0;
  for (const auto& range : control.ranges) {
    check(range.end.has_value(), "a known size has closed ranges");
    check(range.start >= previous_end, "ranges are in order and do not overlap");
    check(*range.end >= range.start && *range.end <= *control.size, "a range lies in the file");
    check(range.done <= *range.end - range.start, "done stays inside its range");
    previous_end = *range.end;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto control = sluice::parse_control(text, "fuzz.sluice");
  if (!control) {
    check(!control.error().message().empty(), "a refused control file says why");
    return 0;
  }
  check(!control->url.empty(), "a parsed control file has a URL");
  check_ranges(*control);
  const std::string again_text = sluice::format_control(*control);
  auto again = sluice::parse_control(again_text, "fuzz.sluice");
  check(again.ok(), "format_control output parses");
  check(*again == *control, "format_control then parse_control gives the same control");
  return 0;
}

#pragma once
// What curl's state files (the Alt-Svc cache, the HSTS cache) share: one entry a
// line, fields separated by spaces, '#' comments, and times as "YYYYMMDD HH:MM:SS"
// in UTC, in double quotes. Pure functions, any thread: the files' parsers are fuzzed.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sluice {

/// A line a parser did not take, and why (for tests, and for -v to say).
struct SkippedLine {
  std::size_t line = 0;  ///< 1-based
  std::string reason;
};

/// Seconds since 1970-01-01 UTC.
using UnixSeconds = std::int64_t;

/// Calls `take(line_number, line)` for each line of `text` that is neither empty nor a
/// comment, without its CR LF; `take` returns the reason it skipped the line, or "".
/// The skipped lines come back.
template <class Take>
std::vector<SkippedLine> for_each_state_line(std::string_view text, Take&& take) {
  std::vector<SkippedLine> skipped;
  std::size_t number = 0;
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    ++number;
    if (line.ends_with('\r')) line.remove_suffix(1);
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos || line[first] == '#') continue;
    if (std::string reason = take(number, line.substr(first)); !reason.empty()) {
      skipped.push_back({number, std::move(reason)});
    }
  }
  return skipped;
}

/// for_each_state_line with a line parser: `parse_line(line, entry)` returns "" and
/// fills `entry` for an entry (appended to `entries`), else the reason it skipped.
template <class Entry, class ParseLine>
std::vector<SkippedLine> parse_state_entries(std::string_view text, std::vector<Entry>& entries,
                                             ParseLine&& parse_line) {
  return for_each_state_line(text, [&](std::size_t, std::string_view line) {
    Entry entry;
    std::string reason = parse_line(line, entry);
    if (reason.empty()) entries.push_back(std::move(entry));
    return reason;
  });
}

/// Splits a line at runs of spaces and tabs; a field in double quotes may hold spaces
/// (the quotes are not kept). nullopt for an unterminated quote.
std::optional<std::vector<std::string_view>> split_state_fields(std::string_view line);

/// "YYYYMMDD HH:MM:SS" (UTC) to seconds; nullopt unless the date exists and the
/// shape is exact. Years 1970..9999.
std::optional<UnixSeconds> parse_state_time(std::string_view text);
/// Seconds to "YYYYMMDD HH:MM:SS" (UTC), without quotes; clamped to 1970..9999.
std::string format_state_time(UnixSeconds seconds);

/// A port field: 1..65535 in decimal, nothing else.
std::optional<std::uint16_t> parse_state_port(std::string_view text);

}  // namespace sluice

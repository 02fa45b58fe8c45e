#include "core/state_lines.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace sluice {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t'; }

// Exactly `width` decimal digits.
std::optional<int> digits(std::string_view text, std::size_t at, std::size_t width) {
  if (at + width > text.size()) return std::nullopt;
  int value = 0;
  for (std::size_t i = at; i < at + width; ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

constexpr UnixSeconds kLatest = 253402300799;  // 9999-12-31 23:59:59

}  // namespace

std::optional<std::vector<std::string_view>> split_state_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t at = 0;
  while (true) {
    while (at < line.size() && is_blank(line[at])) ++at;
    if (at == line.size()) return fields;
    if (line[at] == '"') {
      const std::size_t close = line.find('"', at + 1);
      if (close == std::string_view::npos) return std::nullopt;
      fields.push_back(line.substr(at + 1, close - at - 1));
      at = close + 1;
      continue;
    }
    const std::size_t start = at;
    while (at < line.size() && !is_blank(line[at])) ++at;
    fields.push_back(line.substr(start, at - start));
  }
}

std::optional<UnixSeconds> parse_state_time(std::string_view text) {
  // "YYYYMMDD HH:MM:SS": 17 bytes, the separators where they belong.
  if (text.size() != 17 || text[8] != ' ' || text[11] != ':' || text[14] != ':') {
    return std::nullopt;
  }
  const auto year = digits(text, 0, 4), month = digits(text, 4, 2), day = digits(text, 6, 2);
  const auto hour = digits(text, 9, 2), minute = digits(text, 12, 2), second = digits(text, 15, 2);
  if (!year || !month || !day || !hour || !minute || !second) return std::nullopt;
  if (*year < 1970 || *hour > 23 || *minute > 59 || *second > 59) return std::nullopt;
  const std::chrono::year_month_day date{std::chrono::year(*year),
                                         std::chrono::month(static_cast<unsigned>(*month)),
                                         std::chrono::day(static_cast<unsigned>(*day))};
  if (!date.ok()) return std::nullopt;
  const auto days = std::chrono::sys_days(date).time_since_epoch().count();
  return static_cast<UnixSeconds>(days) * 86400 + *hour * 3600 + *minute * 60 + *second;
}

std::string format_state_time(UnixSeconds seconds) {
  seconds = std::clamp<UnixSeconds>(seconds, 0, kLatest);
  const std::chrono::sys_days day{std::chrono::days(seconds / 86400)};
  const std::chrono::year_month_day date{day};
  const auto in_day = seconds % 86400;
  char out[32];
  std::snprintf(out, sizeof out, "%04d%02u%02u %02d:%02d:%02d", static_cast<int>(date.year()),
                static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()),
                static_cast<int>(in_day / 3600), static_cast<int>(in_day / 60 % 60),
                static_cast<int>(in_day % 60));
  return out;
}

std::optional<std::uint16_t> parse_state_port(std::string_view text) {
  if (text.empty() || text.size() > 5) return std::nullopt;
  const auto value = digits(text, 0, text.size());
  if (!value || *value < 1 || *value > 65535) return std::nullopt;
  return static_cast<std::uint16_t>(*value);
}

}  // namespace sluice

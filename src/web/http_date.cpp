// parse_http_date and format_http_date (include/sluice/http_date.hpp). The strict
// forms are recognised by their shape only; the numbers are then read, and checked
// for a date that exists, by the cookie-date algorithm (web/cookie_date), which is
// also the lenient fallback, so there is one date tokenizer in the library.
#include "sluice/http_date.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>

#include "web/cookie_date.hpp"

namespace sluice {
namespace {

using std::chrono::sys_seconds;

constexpr std::array<std::string_view, 7> kDays = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
constexpr std::array<std::string_view, 7> kLongDays = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                                       "Thursday", "Friday", "Saturday"};
constexpr std::array<std::string_view, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

template <std::size_t N>
bool take_name(std::string_view& text, const std::array<std::string_view, N>& names) {
  for (std::string_view name : names) {
    if (text.starts_with(name)) {
      text.remove_prefix(name.size());
      return true;
    }
  }
  return false;
}

// Whether `text` has the shape of `pattern`: 'w' a short weekday, 'W' a long one,
// 'm' a month, 'd' a digit, '_' a digit or a space (asctime's day), anything else
// itself. Names are case-sensitive, as the grammar's are.
bool has_shape(std::string_view text, std::string_view pattern) {
  for (char want : pattern) {
    switch (want) {
      case 'w':
        if (!take_name(text, kDays)) return false;
        continue;
      case 'W':
        if (!take_name(text, kLongDays)) return false;
        continue;
      case 'm':
        if (!take_name(text, kMonths)) return false;
        continue;
      default: break;
    }
    if (text.empty()) return false;
    const char got = text.front();
    const bool fits = want == 'd'   ? is_digit(got)
                      : want == '_' ? is_digit(got) || got == ' '
                                    : got == want;
    if (!fits) return false;
    text.remove_prefix(1);
  }
  return text.empty();
}

// The four-digit year of a strict form sits at a fixed offset; "0069" must not
// become 2069 as a cookie's two-digit year would.
bool four_digit_year_in_range(std::string_view digits) {
  unsigned year = 0;
  for (char c : digits) year = year * 10 + static_cast<unsigned>(c - '0');
  return year >= 1601;
}

bool iequals_ascii(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if ((a[i] | 0x20) != (b[i] | 0x20)) return false;
  }
  return true;
}

template <std::size_t N>
bool starts_with_name(std::string_view word, const std::array<std::string_view, N>& names) {
  if (word.size() < 3) return false;
  for (std::string_view name : names) {
    if (iequals_ascii(word.substr(0, 3), name)) return true;
  }
  return false;
}

// The lenient algorithm ignores words it does not know, so "08:49:37 PST" or
// "08:49:37 +0100" would be read as UTC: those are refused instead. A word of
// letters must be a month, a weekday, GMT, UTC or UT; a sign after a space or a
// digit and before four digits is a numeric offset.
bool names_other_timezone(std::string_view text) {
  for (std::size_t pos = 0; pos < text.size();) {
    if (is_letter(text[pos])) {
      std::size_t end = pos;
      while (end < text.size() && is_letter(text[end])) ++end;
      const std::string_view word = text.substr(pos, end - pos);
      if (!starts_with_name(word, kMonths) && !starts_with_name(word, kDays) &&
          !iequals_ascii(word, "GMT") && !iequals_ascii(word, "UTC") &&
          !iequals_ascii(word, "UT")) {
        return true;
      }
      pos = end;
      continue;
    }
    const bool sign = text[pos] == '+' || text[pos] == '-';
    const bool after_space_or_digit = pos == 0 || text[pos - 1] == ' ' || is_digit(text[pos - 1]);
    if (sign && after_space_or_digit && pos + 4 < text.size() && is_digit(text[pos + 1]) &&
        is_digit(text[pos + 2]) && is_digit(text[pos + 3]) && is_digit(text[pos + 4])) {
      return true;
    }
    ++pos;
  }
  return false;
}

std::optional<sys_seconds> from_cookie_date(std::string_view text) {
  if (auto seconds = parse_cookie_date(text)) return sys_seconds{std::chrono::seconds{*seconds}};
  return std::nullopt;
}

}  // namespace

std::optional<sys_seconds> parse_http_date(std::string_view text) {
  // A strict shape decides: its numbers are valid or the text is no date at all.
  if (has_shape(text, "w, dd m dddd dd:dd:dd GMT")) {
    if (!four_digit_year_in_range(text.substr(12, 4))) return std::nullopt;
    return from_cookie_date(text);
  }
  if (has_shape(text, "w m _d dd:dd:dd dddd")) {
    if (!four_digit_year_in_range(text.substr(20, 4))) return std::nullopt;
    return from_cookie_date(text);
  }
  if (has_shape(text, "W, dd-m-dd dd:dd:dd GMT")) return from_cookie_date(text);
  if (names_other_timezone(text)) return std::nullopt;
  return from_cookie_date(text);
}

std::string format_http_date(sys_seconds when) {
  using namespace std::chrono;
  constexpr sys_seconds kFirst = sys_days{year{1601} / January / 1};
  constexpr sys_seconds kLast = sys_days{year{9999} / December / 31} + seconds{86399};
  when = std::clamp(when, kFirst, kLast);
  const sys_days day = floor<days>(when);
  const year_month_day date{day};
  const hh_mm_ss time{when - day};
  char text[32];
  const int length = std::snprintf(
      text, sizeof text, "%.3s, %02u %.3s %04d %02d:%02d:%02d GMT",
      kDays[weekday{day}.c_encoding()].data(), static_cast<unsigned>(date.day()),
      kMonths[static_cast<unsigned>(date.month()) - 1].data(), static_cast<int>(date.year()),
      static_cast<int>(time.hours().count()), static_cast<int>(time.minutes().count()),
      static_cast<int>(time.seconds().count()));
  return std::string(text, static_cast<std::size_t>(length));
}

}  // namespace sluice

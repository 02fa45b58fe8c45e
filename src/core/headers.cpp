// Headers: an ordered field list with ASCII case-insensitive names, and the checks
// applied to every header sluice sends.
//
// Ownership: Headers is a plain value; whoever holds it owns it, on one thread at a
// time. The validation functions are pure and callable from any thread.

#include "sluice/headers.hpp"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <optional>
#include <string>

#include "core/http_token.hpp"
#include "core/message_text.hpp"

namespace sluice {
namespace {

char ascii_lower(char c) noexcept {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

std::string hex_byte(unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02X", static_cast<unsigned>(c));
  return buf;
}

// A person reads these in an error message, so each byte gets a name rather than
// being printed raw (a raw CR or LF would break the log line that shows it).
std::string describe_byte(unsigned char c) {
  switch (c) {
    case ' ': return "space";
    case '\t': return "tab (HTAB)";
    case '\r': return "carriage return (CR)";
    case '\n': return "line feed (LF)";
    case '\0': return "NUL byte";
    case ':': return "colon ':'";
    case 0x7F: return "DEL byte (0x7F)";
    default: break;
  }
  if (c < 0x20) return "control byte " + hex_byte(c);
  if (c >= 0x80) return "non-ASCII byte " + hex_byte(c);
  return std::string("character '") + static_cast<char>(c) + "'";
}

// What is wrong with a value, or nothing. Phrased to follow "value ".
std::optional<std::string> value_problem(std::string_view value) {
  for (char ch : value) {
    const auto c = static_cast<unsigned char>(ch);
    // HTAB is field content; obs-text (>= 0x80) is allowed by RFC 9110.
    if ((c < 0x20 && c != '\t') || c == 0x7F) return "contains a " + describe_byte(c);
  }
  if (!value.empty()) {
    const char first = value.front();
    const char last = value.back();
    if (first == ' ' || first == '\t') {
      return "starts with whitespace (receivers trim it; remove it)";
    }
    if (last == ' ' || last == '\t') {
      return "ends with whitespace (receivers trim it; remove it)";
    }
  }
  return std::nullopt;
}

bool same_name(const Header& field, std::string_view name) { return iequals(field.name, name); }

}  // namespace

bool iequals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
  }
  return true;
}

void Headers::add(std::string name, std::string value) {
  fields_.push_back(Header{std::move(name), std::move(value)});
}

void Headers::set(std::string name, std::string value) {
  // The new field takes the place of the first old one, so a set() does not move a
  // header to the end of the block.
  auto first = std::find_if(fields_.begin(), fields_.end(),
                            [&](const Header& f) { return same_name(f, name); });
  if (first == fields_.end()) {
    add(std::move(name), std::move(value));
    return;
  }
  const auto rest = std::remove_if(std::next(first), fields_.end(),
                                   [&](const Header& f) { return same_name(f, name); });
  fields_.erase(rest, fields_.end());
  first->name = std::move(name);
  first->value = std::move(value);
}

std::size_t Headers::remove(std::string_view name) {
  const auto rest = std::remove_if(fields_.begin(), fields_.end(),
                                   [&](const Header& f) { return same_name(f, name); });
  const auto removed = static_cast<std::size_t>(fields_.end() - rest);
  fields_.erase(rest, fields_.end());
  return removed;
}

std::optional<std::string_view> Headers::get(std::string_view name) const {
  for (const Header& field : fields_) {
    if (same_name(field, name)) return std::string_view(field.value);
  }
  return std::nullopt;
}

std::vector<std::string_view> Headers::get_all(std::string_view name) const {
  std::vector<std::string_view> values;
  for (const Header& field : fields_) {
    if (same_name(field, name)) values.emplace_back(field.value);
  }
  return values;
}

Result<void> validate_header_name(std::string_view name) {
  if (name.empty()) {
    return Error(ErrorCategory::usage, "invalid header name '': a name cannot be empty");
  }
  for (char ch : name) {
    const auto c = static_cast<unsigned char>(ch);
    if (!is_token_char(c)) {
      return Error(ErrorCategory::usage, "invalid header name '" + printable(name) + "': " +
                                             describe_byte(c) + " is not allowed in a name");
    }
  }
  return {};
}

Result<void> validate_header_value(std::string_view value) {
  if (auto problem = value_problem(value)) {
    return Error(ErrorCategory::usage, "invalid header value: value " + *problem);
  }
  return {};
}

Result<void> validate_header(std::string_view name, std::string_view value) {
  if (auto name_ok = validate_header_name(name); !name_ok) return name_ok;
  if (auto problem = value_problem(value)) {
    return Error(ErrorCategory::usage, "header '" + std::string(name) + "': value " + *problem);
  }
  return {};
}

}  // namespace sluice

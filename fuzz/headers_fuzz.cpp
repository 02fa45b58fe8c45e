// Fuzz target: header name and value validation (validate_header_name,
// validate_header_value, validate_header), the case-insensitive Headers list, and
// ResponseFieldBlock (the h2/h3 response field collector with its size limit and
// :status parse).
// Input: one byte, the field block limit in units of 64 bytes (0: 64 KiB); then
// fields, one a line, "name:value" split at the first ':' after the first byte (so
// ":status:200" is the pseudo-header ":status" with value "200").
// Invariants checked: the validators agree with an independent reading of RFC 9110
// (name: 1*tchar; value: no CTL but HTAB, no leading or trailing SP/HTAB); lookups
// agree with a plain scan under ASCII case folding; the field block never accepts
// more than its limit and only a three-digit :status of at least 100.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fuzz_input.hpp"
#include "mux/multiplexed_fields.hpp"
#include "sluice/headers.hpp"

namespace {

using sluice::fuzz::check;

bool oracle_tchar(unsigned char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos;
}

bool oracle_name(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!oracle_tchar(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

bool oracle_value(std::string_view value) {
  for (char ch : value) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && c != '\t') || c == 0x7f) return false;
  }
  const auto blank = [](char c) { return c == ' ' || c == '\t'; };
  return value.empty() || (!blank(value.front()) && !blank(value.back()));
}

char fold(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }

bool oracle_iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (fold(a[i]) != fold(b[i])) return false;
  }
  return true;
}

std::pair<std::string_view, std::string_view> split_field(std::string_view line) {
  const std::size_t colon = line.find(':', 1);
  if (colon == std::string_view::npos) return {line, {}};
  return {line.substr(0, colon), line.substr(colon + 1)};
}

void check_validators(std::string_view name, std::string_view value) {
  check(sluice::validate_header_name(name).ok() == oracle_name(name),
        "validate_header_name accepts exactly 1*tchar");
  check(sluice::validate_header_value(value).ok() == oracle_value(value),
        "validate_header_value agrees with RFC 9110 field-value rules");
  check(sluice::validate_header(name, value).ok() == (oracle_name(name) && oracle_value(value)),
        "validate_header is both checks");
}

void check_lookups(sluice::Headers& headers, std::string_view name) {
  std::size_t expected = 0;
  std::string_view first;
  for (const auto& field : headers) {
    const bool same = oracle_iequals(field.name, name);
    check(sluice::iequals(field.name, name) == same, "iequals is ASCII case folding");
    if (same && expected++ == 0) first = field.value;
  }
  check(headers.get_all(name).size() == expected, "get_all finds every field of a name");
  const auto got = headers.get(name);
  check(got.has_value() == (expected != 0), "get finds a field exactly when one exists");
  if (got) check(*got == first, "get returns the first value");
  sluice::Headers copy = headers;
  check(copy.remove(name) == expected, "remove counts what it removed");
  check(!copy.contains(name), "nothing of a removed name remains");
  copy.set(std::string(name), "x");
  check(copy.get_all(name).size() == 1, "set leaves one field");
}

void check_block(sluice::ResponseFieldBlock& block, std::string_view name, std::string_view value) {
  const auto before = block.status();
  const auto added = block.add(name, value);
  if (added) check(block.size() <= block.max_bytes(), "an accepted field block fits its limit");
  if (!name.empty() && name.front() == ':') {
    check(!added || name == ":status", "only :status is accepted among pseudo-headers");
    if (added) {
      check(value.size() == 3 && block.status() && *block.status() >= 100 && *block.status() <= 999,
            ":status is three digits, at least 100");
    } else {
      check(block.status() == before, "a refused :status leaves the status alone");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  sluice::fuzz::FuzzInput input(data, size);
  const std::size_t units = input.byte();
  sluice::ResponseFieldBlock block("HTTP/2", units == 0 ? 64 * 1024 : units * 64);
  sluice::Headers headers;
  std::vector<std::string_view> names;
  while (!input.empty()) {
    const auto [name, value] = split_field(input.line());
    check_validators(name, value);
    check_block(block, name, value);
    headers.add(std::string(name), std::string(value));
    if (names.size() < 64) names.push_back(name);  // lookups scan: keep runs fast
  }
  for (std::string_view name : names) check_lookups(headers, name);
  if (auto length = sluice::content_length_of(headers)) {
    check(std::to_string(*length).size() <= headers.get("content-length")->size(),
          "content_length_of reads digits only");
  }
  return 0;
}

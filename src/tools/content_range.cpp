// Content-Range and resuming (see content_range.hpp).
// Pure functions: any thread.

#include "tools/content_range.hpp"

#include <charconv>

namespace sluice {
namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

}  // namespace

std::optional<ContentRange> parse_content_range(std::string_view value) {
  value = trim(value);
  constexpr std::string_view kUnit = "bytes ";
  if (value.size() < kUnit.size() || value.substr(0, kUnit.size()) != kUnit) return std::nullopt;
  value.remove_prefix(kUnit.size());
  const std::size_t slash = value.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  const std::string_view span = trim(value.substr(0, slash));
  const std::string_view total = trim(value.substr(slash + 1));
  ContentRange range;
  if (total != "*") {
    range.total = parse_decimal(total);
    if (!range.total) return std::nullopt;
  }
  if (span == "*") {
    if (!range.total) return std::nullopt;  // "*/*" says nothing
    return range;
  }
  const std::size_t dash = span.find('-');
  if (dash == std::string_view::npos) return std::nullopt;
  range.first = parse_decimal(span.substr(0, dash));
  range.last = parse_decimal(span.substr(dash + 1));
  if (!range.first || !range.last || *range.last < *range.first) return std::nullopt;
  if (range.total && *range.last >= *range.total) return std::nullopt;
  return range;
}

std::string resume_validator(const Headers& response_headers) {
  if (auto etag = response_headers.get("etag");
      etag && !etag->empty() && !etag->starts_with("W/")) {
    return std::string(*etag);
  }
  return std::string(response_headers.get("last-modified").value_or(""));
}

bool is_same_resource(const Headers& response_headers, std::string_view validator,
                      std::optional<std::uint64_t> size) {
  if (!validator.empty()) {
    return response_headers.get("etag") == validator ||
           response_headers.get("last-modified") == validator;
  }
  const auto length = response_headers.get("content-length");
  return size.has_value() && length && parse_decimal(*length) == size;
}

std::optional<std::uint64_t> parse_decimal(std::string_view text) {
  std::uint64_t value = 0;
  if (text.empty()) return std::nullopt;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace sluice

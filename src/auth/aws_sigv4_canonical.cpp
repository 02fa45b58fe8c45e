#include "auth/aws_sigv4_canonical.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include "core/ascii_case.hpp"

namespace sluice {
namespace {

bool is_unreserved(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~';
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void append_encoded(std::string& out, char c) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  if (is_unreserved(c)) {
    out.push_back(c);
    return;
  }
  const auto byte = static_cast<unsigned char>(c);
  out.push_back('%');
  out.push_back(kHex[byte >> 4]);
  out.push_back(kHex[byte & 0x0f]);
}

// Percent-encoded text written the one canonical way: each valid %XX decoded and
// encoded again, every other byte encoded (a '%' without two hex digits is a '%').
// With `keep_slash`, a literal '/' separates path segments and stays.
std::string normalise_escapes(std::string_view text, bool keep_slash) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '%' && i + 2 < text.size() && hex_value(text[i + 1]) >= 0 &&
        hex_value(text[i + 2]) >= 0) {
      append_encoded(out, static_cast<char>(hex_value(text[i + 1]) * 16 + hex_value(text[i + 2])));
      i += 2;
    } else if (c == '/' && keep_slash) {
      out.push_back('/');
    } else {
      append_encoded(out, c);
    }
  }
  return out;
}

// RFC 3986 section 5.2.4 on a path's segments, and empty segments dropped as AWS
// does ("//a//" is "/a/"). A path that ended in '/', "." or ".." keeps its final '/'.
std::string without_dot_segments(std::string_view path) {
  std::vector<std::string_view> kept;
  bool trailing_slash = false;
  std::size_t start = path.empty() || path.front() != '/' ? 0 : 1;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    const std::string_view segment = path.substr(start, end - start);
    trailing_slash = segment.empty() || segment == "." || segment == "..";
    if (segment == "..") {
      if (!kept.empty()) kept.pop_back();
    } else if (!segment.empty() && segment != ".") {
      kept.push_back(segment);
    }
    start = end + 1;
  }
  std::string out = "/";
  for (std::size_t i = 0; i < kept.size(); ++i) {
    if (i > 0) out += '/';
    out += kept[i];
  }
  if (trailing_slash && !kept.empty()) out += '/';
  return out;
}

// A header value with its ends trimmed and each run of blanks inside made one space.
std::string collapsed(std::string_view value) {
  std::string out;
  bool blank = false;
  for (const char c : value) {
    if (c == ' ' || c == '\t') {
      blank = true;
      continue;
    }
    if (blank && !out.empty()) out.push_back(' ');
    blank = false;
    out.push_back(c);
  }
  return out;
}

}  // namespace

std::string aws_uri_encode(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (const char c : bytes) append_encoded(out, c);
  return out;
}

std::string aws_canonical_uri(std::string_view path, bool s3) {
  if (path.empty()) return "/";
  if (s3) return normalise_escapes(path, true);
  const std::string normalised = without_dot_segments(path);
  std::string out;
  out.reserve(normalised.size());
  for (const char c : normalised) {
    if (c == '/') {
      out.push_back('/');
    } else {
      append_encoded(out, c);
    }
  }
  return out;
}

std::string aws_canonical_query(std::string_view query) {
  std::vector<std::pair<std::string, std::string>> params;
  std::size_t start = 0;
  while (start <= query.size()) {
    std::size_t end = query.find('&', start);
    if (end == std::string_view::npos) end = query.size();
    const std::string_view param = query.substr(start, end - start);
    if (!param.empty()) {
      const std::size_t equals = param.find('=');
      const std::string_view name = param.substr(0, equals);
      const std::string_view value =
          equals == std::string_view::npos ? std::string_view() : param.substr(equals + 1);
      params.emplace_back(normalise_escapes(name, false), normalise_escapes(value, false));
    }
    start = end + 1;
  }
  std::sort(params.begin(), params.end());
  std::string out;
  for (const auto& [name, value] : params) {
    if (!out.empty()) out += '&';
    out += name;
    out += '=';
    out += value;
  }
  return out;
}

AwsCanonicalHeaders aws_canonical_headers(const std::vector<Header>& fields) {
  std::map<std::string, std::string> values;  // sorted by name, as the spec orders them
  for (const Header& field : fields) {
    auto [it, added] = values.try_emplace(ascii_lowercase(field.name));
    if (!added) it->second += ',';
    it->second += collapsed(field.value);
  }
  AwsCanonicalHeaders canonical;
  for (const auto& [name, value] : values) {
    canonical.block += name + ':' + value + '\n';
    if (!canonical.names.empty()) canonical.names += ';';
    canonical.names += name;
  }
  return canonical;
}

}  // namespace sluice

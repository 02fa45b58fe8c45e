#include "download/file/file_names.hpp"

#include <utility>
#include <vector>

#include "sluice/download.hpp"
#include "sluice/headers.hpp"

namespace sluice {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t'; }

std::string_view trim(std::string_view text) {
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

struct Parameter {
  std::string name;
  std::string value;
};

// A quoted-string starting at text[0] == '"': its unescaped content, and how many
// characters it took. An unterminated one takes the rest (senders get this wrong).
std::pair<std::string, std::size_t> read_quoted(std::string_view text) {
  std::string value;
  std::size_t i = 1;
  while (i < text.size() && text[i] != '"') {
    if (text[i] == '\\' && i + 1 < text.size()) ++i;
    value.push_back(text[i]);
    ++i;
  }
  return {std::move(value), i < text.size() ? i + 1 : i};
}

// "type; name=value; name="quoted"": the parameters after the disposition type.
// Lenient the way browsers are: an unquoted value runs to the next ';'.
std::vector<Parameter> parse_parameters(std::string_view value) {
  std::vector<Parameter> parameters;
  std::size_t i = value.find(';');
  while (i != std::string_view::npos && i < value.size()) {
    ++i;  // past ';'
    const std::size_t eq = value.find('=', i);
    const std::size_t semi = value.find(';', i);
    if (eq == std::string_view::npos || (semi != std::string_view::npos && semi < eq)) {
      i = semi;
      continue;
    }
    Parameter parameter{std::string(trim(value.substr(i, eq - i))), {}};
    std::size_t at = eq + 1;
    while (at < value.size() && is_space(value[at])) ++at;
    if (at < value.size() && value[at] == '"') {
      auto [text, used] = read_quoted(value.substr(at));
      parameter.value = std::move(text);
      at += used;
      i = value.find(';', at);
    } else {
      i = value.find(';', at);
      const std::size_t stop = i == std::string_view::npos ? value.size() : i;
      parameter.value = std::string(trim(value.substr(at, stop - at)));
    }
    parameters.push_back(std::move(parameter));
  }
  return parameters;
}

std::string latin1_to_utf8(std::string_view text) {
  std::string out;
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x80) {
      out.push_back(c);
    } else {
      out.push_back(static_cast<char>(0xc0 | (byte >> 6)));
      out.push_back(static_cast<char>(0x80 | (byte & 0x3f)));
    }
  }
  return out;
}

// RFC 8187 ext-value: charset'language'percent-encoded.
std::optional<std::string> decode_ext_value(std::string_view value) {
  const std::size_t first = value.find('\'');
  if (first == std::string_view::npos) return std::nullopt;
  const std::size_t second = value.find('\'', first + 1);
  if (second == std::string_view::npos) return std::nullopt;
  const std::string_view charset = value.substr(0, first);
  auto decoded = percent_decode(value.substr(second + 1));
  if (!decoded) return std::nullopt;
  if (iequals(charset, "utf-8")) return decoded;
  if (iequals(charset, "iso-8859-1")) return latin1_to_utf8(*decoded);
  return std::nullopt;
}

// RFC 3629: well-formed sequences only (no overlongs, surrogates or code points past
// U+10FFFF).
bool is_valid_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    const std::size_t length = lead < 0x80                    ? 1
                               : lead >= 0xC2 && lead <= 0xDF ? 2
                               : lead >= 0xE0 && lead <= 0xEF ? 3
                               : lead >= 0xF0 && lead <= 0xF4 ? 4
                                                              : 0;
    if (length == 0 || i + length > text.size()) return false;
    for (std::size_t k = 1; k < length; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return false;
    }
    const auto second = length > 1 ? static_cast<unsigned char>(text[i + 1]) : 0;
    if ((lead == 0xE0 && second < 0xA0) || (lead == 0xED && second > 0x9F) ||
        (lead == 0xF0 && second < 0x90) || (lead == 0xF4 && second > 0x8F)) {
      return false;
    }
    i += length;
  }
  return true;
}

const Parameter* find_parameter(const std::vector<Parameter>& parameters, std::string_view name) {
  for (const auto& parameter : parameters) {
    if (iequals(parameter.name, name)) return &parameter;
  }
  return nullptr;
}

}  // namespace

std::optional<std::string> percent_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out.push_back(text[i]);
      continue;
    }
    if (i + 2 >= text.size()) return std::nullopt;
    const int high = hex_value(text[i + 1]);
    const int low = hex_value(text[i + 2]);
    if (high < 0 || low < 0) return std::nullopt;
    out.push_back(static_cast<char>(high * 16 + low));
    i += 2;
  }
  return out;
}

std::optional<std::string> safe_file_name(std::string_view name) {
  const std::size_t slash = name.find_last_of("/\\");
  if (slash != std::string_view::npos) name.remove_prefix(slash + 1);
  if (name.empty() || name.front() == '.') return std::nullopt;  // also "." and ".."
  for (char c : name) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) return std::nullopt;
  }
  return std::string(name);
}

std::optional<std::string> content_disposition_file_name(std::string_view value) {
  const auto parameters = parse_parameters(value);
  if (const Parameter* extended = find_parameter(parameters, "filename*")) {
    if (auto decoded = decode_ext_value(extended->value)) {
      if (auto safe = safe_file_name(*decoded)) return safe;
    }
  }
  if (const Parameter* plain = find_parameter(parameters, "filename")) {
    return safe_file_name(plain->value);
  }
  return std::nullopt;
}

std::optional<std::string> url_path_file_name(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  const std::string_view segment = slash == std::string_view::npos ? path : path.substr(slash + 1);
  auto decoded = percent_decode(segment);
  // A stray '%' is just a character; escapes that decode to bytes that are not UTF-8
  // (%FF) stay escaped, so the name stays printable and the bytes stay recoverable.
  if (!decoded || !is_valid_utf8(*decoded)) return safe_file_name(segment);
  return safe_file_name(*decoded);
}

std::string file_name_for(const Url& url, const Headers& headers, bool use_content_disposition) {
  if (use_content_disposition) {
    if (auto value = headers.get("content-disposition")) {
      if (auto name = content_disposition_file_name(*value)) return *name;
    }
  }
  if (auto name = url_path_file_name(url.path)) return *name;
  return "index.html";
}

}  // namespace sluice

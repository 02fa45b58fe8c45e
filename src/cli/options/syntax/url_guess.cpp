#include "cli/options/syntax/url_guess.hpp"

namespace sluice::cli {

std::string with_guessed_scheme(std::string_view url) {
  // A scheme is letters (then letters, digits, + - .) before "://" (RFC 3986
  // section 3.1); "host:8080/a://b" has none.
  const std::size_t marker = url.find("://");
  bool has_scheme = marker != std::string_view::npos && marker > 0;
  for (std::size_t i = 0; has_scheme && i < marker; ++i) {
    const char c = url[i];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    const bool other = (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.';
    has_scheme = letter || (i > 0 && other);
  }
  if (has_scheme || url.empty()) return std::string(url);
  return "http://" + std::string(url);
}

}  // namespace sluice::cli

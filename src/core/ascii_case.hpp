#pragma once
// ASCII case folding for protocol names (hosts, schemes, header names): never the
// locale's, which would fold differently under a Turkish locale.

#include <string>
#include <string_view>

namespace sluice {

inline std::string ascii_lowercase(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

inline std::string ascii_uppercase(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return out;
}

}  // namespace sluice

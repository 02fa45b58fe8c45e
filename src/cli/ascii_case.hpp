#pragma once
// ASCII case folding for the command's protocol text (schemes, header names): never
// the locale's, which folds differently under a Turkish locale. The library's own
// (core/ascii_case.hpp) is out of reach: src/cli includes only cli/ headers and the
// public API (tests/tools/check_layers.sh).

#include <string>
#include <string_view>

namespace sluice::cli {

inline std::string ascii_lowercase(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace sluice::cli

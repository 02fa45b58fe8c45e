// Text for error messages (see message_text.hpp).
// Pure functions: any thread.

#include "core/message_text.hpp"

#include <cstdio>

namespace sluice {

std::string printable(std::string_view text) {
  std::string out;
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7F) {
      out += ch;
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", static_cast<unsigned>(c));
      out += buf;
    }
  }
  return out;
}

std::string joined_names(const std::vector<std::string>& names, std::size_t most) {
  std::string joined;
  for (std::size_t i = 0; i < names.size() && i < most; ++i) {
    if (i > 0) joined += ", ";
    joined += names[i];
  }
  if (names.size() > most) joined += " and " + std::to_string(names.size() - most) + " more";
  return joined;
}

}  // namespace sluice

#pragma once
// What a credential may hold to travel in a header value: no control character (a CR
// or LF would split the request head). Shared by the schemes of src/auth.
// Ownership: free function; any thread.

#include <string_view>

namespace sluice {

inline bool has_control_character(std::string_view text) {
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7F) return true;
  }
  return false;
}

}  // namespace sluice

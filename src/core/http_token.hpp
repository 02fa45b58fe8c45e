#pragma once
// RFC 9110 section 5.6.2's tchar, the characters of a token (header names, methods,
// auth schemes and parameters, Alt-Svc protocol ids): one definition for every
// parser that reads tokens. Pure; any thread.

namespace sluice {

constexpr bool is_token_char(char c) noexcept {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  switch (c) {
    case '!':
    case '#':
    case '$':
    case '%':
    case '&':
    case '\'':
    case '*':
    case '+':
    case '-':
    case '.':
    case '^':
    case '_':
    case '`':
    case '|':
    case '~': return true;
    default: return false;
  }
}

}  // namespace sluice

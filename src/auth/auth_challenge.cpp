#include "auth/auth_challenge.hpp"

#include <cctype>

#include "core/http_token.hpp"

namespace sluice {
namespace {

bool is_token68_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_' ||
         c == '~' || c == '+' || c == '/';
}

std::string lowercase(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// A position in one header value; every read either advances or leaves it alone.
class Cursor {
 public:
  explicit Cursor(std::string_view text) : text_(text) {}

  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }
  std::size_t pos() const { return pos_; }
  void rewind(std::size_t pos) { pos_ = pos; }
  void skip_ows() {
    while (!at_end() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
  }
  void skip_ows_and_commas() {
    while (!at_end() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == ',')) ++pos_;
  }
  std::string_view read_while(bool (*accept)(char)) {
    const std::size_t start = pos_;
    while (!at_end() && accept(text_[pos_])) ++pos_;
    return text_.substr(start, pos_ - start);
  }
  // A quoted-string with its escapes undone; nullopt when it is not closed.
  std::optional<std::string> read_quoted() {
    std::string out;
    for (++pos_; !at_end(); ++pos_) {
      const char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        return out;
      }
      if (c == '\\' && pos_ + 1 < text_.size()) ++pos_;
      out += text_[pos_];
    }
    return std::nullopt;
  }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
};

// True at the end of the value or of the current list element.
bool at_element_end(Cursor& cursor) {
  const std::size_t start = cursor.pos();
  cursor.skip_ows();
  const bool end = cursor.at_end() || cursor.peek() == ',';
  cursor.rewind(start);
  return end;
}

// "abc==" standing alone after the scheme.
bool read_token68(Cursor& cursor, AuthChallenge& challenge) {
  const std::size_t start = cursor.pos();
  std::string token(cursor.read_while(is_token68_char));
  while (cursor.peek() == '=') {
    token += '=';
    cursor.rewind(cursor.pos() + 1);
  }
  if (token.empty() || !at_element_end(cursor)) {
    cursor.rewind(start);
    return false;
  }
  challenge.token68 = std::move(token);
  return true;
}

enum class ParamRead { param, not_a_param, malformed };

// name BWS "=" BWS ( token / quoted-string ). A token without "=" is the scheme of
// the next challenge: the cursor is left at it.
ParamRead read_param(Cursor& cursor, AuthChallenge& challenge) {
  const std::size_t start = cursor.pos();
  const std::string_view name = cursor.read_while(is_token_char);
  if (name.empty()) return ParamRead::malformed;
  cursor.skip_ows();
  if (cursor.peek() != '=') {
    cursor.rewind(start);
    return ParamRead::not_a_param;
  }
  cursor.rewind(cursor.pos() + 1);
  cursor.skip_ows();
  std::string value;
  if (cursor.peek() == '"') {
    auto quoted = cursor.read_quoted();
    if (!quoted) return ParamRead::malformed;
    value = std::move(*quoted);
  } else {
    value = std::string(cursor.read_while(is_token_char));
    if (value.empty()) return ParamRead::malformed;
  }
  if (!at_element_end(cursor)) return ParamRead::malformed;
  challenge.params.emplace_back(lowercase(name), std::move(value));
  return ParamRead::param;
}

// The parameters (or token68) after a scheme. False when the value is malformed.
bool read_challenge_body(Cursor& cursor, AuthChallenge& challenge) {
  cursor.skip_ows();
  if (cursor.at_end() || cursor.peek() == ',') return true;
  if (read_token68(cursor, challenge)) return true;
  for (;;) {
    switch (read_param(cursor, challenge)) {
      case ParamRead::malformed: return false;
      case ParamRead::not_a_param: return true;
      case ParamRead::param: break;
    }
    cursor.skip_ows_and_commas();
    if (cursor.at_end()) return true;
  }
}

}  // namespace

std::optional<std::string_view> AuthChallenge::param(std::string_view name) const {
  for (const auto& [key, value] : params) {
    if (key == name) return std::string_view(value);
  }
  return std::nullopt;
}

std::vector<AuthChallenge> parse_auth_challenges(std::string_view value) {
  std::vector<AuthChallenge> challenges;
  Cursor cursor(value);
  for (;;) {
    cursor.skip_ows_and_commas();
    if (cursor.at_end()) break;
    AuthChallenge challenge;
    challenge.scheme = std::string(cursor.read_while(is_token_char));
    if (challenge.scheme.empty()) break;
    // A scheme is followed by a space, a comma or the end; "Basic=x" is no challenge.
    const char next = cursor.peek();
    if (next != ' ' && next != '\t' && next != ',' && next != '\0') break;
    if (!read_challenge_body(cursor, challenge)) break;
    challenges.push_back(std::move(challenge));
  }
  return challenges;
}

std::vector<AuthChallenge> auth_challenges_of(const Headers& headers) {
  std::vector<AuthChallenge> all;
  for (const std::string_view value : headers.get_all("www-authenticate")) {
    for (auto& challenge : parse_auth_challenges(value)) all.push_back(std::move(challenge));
  }
  return all;
}

}  // namespace sluice

#include "auth/netrc.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "sluice/headers.hpp"

namespace sluice {
namespace {

struct Token {
  std::string text;
  int line = 0;
  bool quoted = false;
};

// Splits a netrc file into tokens, dropping comments and macro bodies.
class NetrcLexer {
 public:
  NetrcLexer(std::string_view text, std::string_view file_name)
      : text_(text), file_name_(file_name) {}

  // The next token; nullopt at the end of the text.
  Result<std::optional<Token>> next() {
    for (;;) {
      skip_blanks();
      if (pos_ >= text_.size()) return std::optional<Token>();
      if (text_[pos_] == '#') {
        skip_line();
        continue;
      }
      if (text_[pos_] == '"') return quoted();
      const std::size_t start = pos_;
      while (pos_ < text_.size() && !is_separator(text_[pos_])) ++pos_;
      return std::optional<Token>(
          Token{std::string(text_.substr(start, pos_ - start)), line_, false});
    }
  }

  // After `macdef NAME`: the rest of its line and every line up to a blank one.
  void skip_macro() {
    skip_line();
    while (pos_ < text_.size()) {
      const std::size_t end = text_.find('\n', pos_);
      std::string_view line = text_.substr(pos_, end == std::string_view::npos ? end : end - pos_);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      skip_line();
      if (line.find_first_not_of(" \t") == std::string_view::npos) return;
    }
  }

  Error error(int line, const std::string& what) const {
    return Error(ErrorCategory::usage,
                 "netrc: " + std::string(file_name_) + ":" + std::to_string(line) + ": " + what);
  }

 private:
  static bool is_separator(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

  void skip_blanks() {
    while (pos_ < text_.size() && is_separator(text_[pos_])) {
      if (text_[pos_] == '\n') ++line_;
      ++pos_;
    }
  }

  void skip_line() {
    while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
    if (pos_ < text_.size()) {
      ++pos_;
      ++line_;
    }
  }

  Result<std::optional<Token>> quoted() {
    Token token{{}, line_, true};
    for (++pos_; pos_ < text_.size(); ++pos_) {
      char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        return std::optional<Token>(std::move(token));
      }
      if (c == '\n') break;  // curl's quoted tokens do not span lines
      if (c == '\\' && pos_ + 1 < text_.size()) {
        c = text_[++pos_];
        if (c == 'n')
          c = '\n';
        else if (c == 'r')
          c = '\r';
        else if (c == 't')
          c = '\t';
      }
      token.text += c;
    }
    return error(token.line, "a quoted token is not closed (a '\"' is missing)");
  }

  std::string_view text_;
  std::string_view file_name_;
  std::size_t pos_ = 0;
  int line_ = 1;
};

bool is_keyword(const Token& token, std::string_view word) {
  return !token.quoted && token.text == word;
}

}  // namespace

Result<Netrc> Netrc::parse(std::string_view text, std::string_view file_name) {
  NetrcLexer lexer(text, file_name);
  Netrc netrc;
  bool in_entry = false;
  // The value after a keyword; its absence is an error naming the keyword's line.
  auto value_after = [&](const Token& keyword) -> Result<std::string> {
    auto next = lexer.next();
    if (!next) return std::move(next).error();
    if (!*next) return lexer.error(keyword.line, "'" + keyword.text + "' needs a value");
    return std::move((*next)->text);
  };
  for (;;) {
    auto next = lexer.next();
    if (!next) return std::move(next).error();
    if (!*next) break;
    const Token token = std::move(**next);
    if (is_keyword(token, "default")) {
      netrc.entries_.push_back(NetrcEntry{std::nullopt, std::nullopt, std::nullopt, token.line});
      in_entry = true;
      continue;
    }
    const bool machine = is_keyword(token, "machine");
    const bool login = is_keyword(token, "login");
    const bool password = is_keyword(token, "password");
    const bool account = is_keyword(token, "account");
    const bool macdef = is_keyword(token, "macdef");
    if (!machine && !login && !password && !account && !macdef) {
      return lexer.error(token.line, "unexpected '" + token.text +
                                         "' (expected machine, default, login, password, "
                                         "account or macdef)");
    }
    auto value = value_after(token);
    if (!value) return std::move(value).error();
    if (machine) {
      netrc.entries_.push_back(
          NetrcEntry{std::move(*value), std::nullopt, std::nullopt, token.line});
      in_entry = true;
    } else if (macdef) {
      lexer.skip_macro();
      in_entry = false;  // a macro ends the entry it follows, as in curl
    } else if (!in_entry) {
      return lexer.error(token.line,
                         "'" + token.text + "' comes before any 'machine' or 'default'");
    } else if (login) {
      netrc.entries_.back().login = std::move(*value);
    } else if (password) {
      netrc.entries_.back().password = std::move(*value);
    }
  }
  return netrc;
}

std::optional<NetrcCredentials> Netrc::find(std::string_view host,
                                            std::optional<std::string_view> user) const {
  auto matches = [&](const NetrcEntry& entry) {
    if (user && entry.login != *user) return false;
    return entry.login.has_value() || entry.password.has_value();
  };
  const NetrcEntry* found = nullptr;
  for (const NetrcEntry& entry : entries_) {
    if (entry.machine && iequals(*entry.machine, host) && matches(entry)) {
      found = &entry;
      break;
    }
  }
  if (!found) {
    for (const NetrcEntry& entry : entries_) {
      if (!entry.machine && matches(entry)) {
        found = &entry;
        break;
      }
    }
  }
  if (!found) return std::nullopt;
  return NetrcCredentials{found->login.value_or(""), found->password.value_or("")};
}

Result<std::optional<Netrc>> load_netrc(const ClientOptions& options) {
  if (options.netrc == NetrcMode::off) return std::optional<Netrc>();
  std::string path = options.netrc_file;
  const bool named = !path.empty();
  if (!named) {
    const char* home = std::getenv("HOME");
    if (home == nullptr || *home == '\0') return std::optional<Netrc>();
    path = std::string(home) + "/.netrc";
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int error = errno;
    if (error == ENOENT && !(named && options.netrc == NetrcMode::required)) {
      return std::optional<Netrc>();
    }
    // usage: the file was named by the caller (or ~/.netrc exists but cannot be read).
    return Error(ErrorCategory::usage, "netrc: cannot read " + path + ": " + std::strerror(error));
  }
  std::ostringstream text;
  text << in.rdbuf();
  auto netrc = Netrc::parse(text.str(), path);
  if (!netrc) return std::move(netrc).error();
  return std::optional<Netrc>(std::move(*netrc));
}

}  // namespace sluice

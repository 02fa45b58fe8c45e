#pragma once
// The netrc file (curl's -n, --netrc-file, --netrc-optional): `machine NAME login L
// password P` entries, a `default` entry for every other host, `account` values
// (read, unused), `macdef NAME` macros skipped up to the next blank line, and `#`
// comments to the end of the line. Tokens are separated by blanks and newlines; a
// token may be quoted ("my pass") with \" \\ \n \r \t escapes, as curl 7.84+ reads it.
// Ownership: Netrc is a value, immutable once parsed; shared read-only by the
// Client's callers (any thread).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/client.hpp"
#include "sluice/error.hpp"

namespace sluice {

struct NetrcEntry {
  std::optional<std::string> machine;  ///< nullopt: the `default` entry
  std::optional<std::string> login;
  std::optional<std::string> password;
  int line = 0;  ///< where the entry starts (1-based)
};

struct NetrcCredentials {
  std::string login;
  std::string password;
};

class Netrc {
 public:
  /// Parses `text`; errors (usage) name `file_name` and the line: "FILE:3: ...".
  static Result<Netrc> parse(std::string_view text, std::string_view file_name);

  /// The credentials for `host` (no case), from the first `machine` entry naming it,
  /// else from `default`. With `user`, only an entry whose login is `user` matches
  /// (its password is the one wanted). nullopt when nothing matches.
  std::optional<NetrcCredentials> find(std::string_view host,
                                       std::optional<std::string_view> user) const;

  const std::vector<NetrcEntry>& entries() const noexcept { return entries_; }

 private:
  std::vector<NetrcEntry> entries_;
};

/// The file ClientOptions::netrc asks for, parsed: nullopt with netrc off, or when
/// the file is missing and that is allowed (the default ~/.netrc, or optional mode).
Result<std::optional<Netrc>> load_netrc(const ClientOptions& options);

}  // namespace sluice

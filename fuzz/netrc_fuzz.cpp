// Fuzz target: the netrc parser (Netrc::parse) and its lookup (Netrc::find), which
// read a file the user names but that other programs write.
// Input: the first line is "HOST[:USER]" to look up, the rest is the file.
// Invariants: parsing is deterministic; an error names the file and a line that
// exists; every entry starts on a line that exists; a lookup's answer is the login
// and password of an entry for that host or of a default entry, and with a user name
// only an entry with that login answers.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "auth/netrc.hpp"
#include "fuzz_input.hpp"
#include "sluice/headers.hpp"

namespace {

using sluice::fuzz::check;

int line_count(std::string_view text) {
  int lines = 1;
  for (const char c : text) lines += c == '\n' ? 1 : 0;
  return lines;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  sluice::fuzz::FuzzInput input(data, size);
  const std::string_view query = input.line();
  const std::string_view text = input.rest();
  const std::size_t colon = query.find(':');
  const std::string_view host = query.substr(0, colon);
  std::optional<std::string_view> user;
  if (colon != std::string_view::npos) user = query.substr(colon + 1);

  auto parsed = sluice::Netrc::parse(text, "fuzz");
  auto again = sluice::Netrc::parse(text, "fuzz");
  check(parsed.ok() == again.ok(), "parsing is deterministic");
  const int lines = line_count(text);
  if (!parsed) {
    const std::string& message = parsed.error().message();
    check(message.rfind("netrc: fuzz:", 0) == 0, "an error names the file");
    const int line = std::atoi(message.c_str() + 12);
    check(line >= 1 && line <= lines, "an error names a line that exists");
    return 0;
  }
  check(parsed->entries().size() == again->entries().size(), "parsing is deterministic");
  for (const auto& entry : parsed->entries()) {
    check(entry.line >= 1 && entry.line <= lines, "an entry starts on a line that exists");
  }
  const auto found = parsed->find(host, user);
  if (!found) return 0;
  if (user) check(found->login == *user, "a user name only matches its own login");
  bool from_an_entry = false;
  for (const auto& entry : parsed->entries()) {
    const bool for_host = !entry.machine || sluice::iequals(*entry.machine, host);
    if (for_host && entry.login.value_or("") == found->login &&
        entry.password.value_or("") == found->password) {
      from_an_entry = true;
    }
  }
  check(from_an_entry, "an answer is an entry's login and password for the host or default");
  return 0;
}

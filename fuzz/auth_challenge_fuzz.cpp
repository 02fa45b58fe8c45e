// Fuzz target: WWW-Authenticate challenge lists (parse_auth_challenges, server
// bytes) and the Digest answer computed from them (DigestChallenge::from,
// digest_authorization) and AuthRetry's choice.
// Input: the whole input is one header value.
// Invariants: every challenge has a scheme and lowercase, non-empty parameter names;
// a Digest challenge that is accepted is answered, and the Authorization value holds
// no CR, LF or NUL whatever the value held (a server cannot split the next request).

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "auth/auth_challenge.hpp"
#include "auth/auth_retry.hpp"
#include "auth/digest_auth.hpp"
#include "fuzz_input.hpp"

namespace {

using sluice::fuzz::check;

bool has_line_break(std::string_view text) {
  return text.find_first_of(std::string_view("\r\n\0", 3)) != std::string_view::npos;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  sluice::fuzz::FuzzInput input(data, size);
  const std::string_view value = input.rest();
  for (const auto& challenge : sluice::parse_auth_challenges(value)) {
    check(!challenge.scheme.empty(), "every challenge has a scheme");
    for (const auto& [name, param] : challenge.params) {
      check(!name.empty(), "parameter names are not empty");
      for (const char c : name) {
        check(!std::isupper(static_cast<unsigned char>(c)), "parameter names are lowercase");
      }
    }
    auto digest = sluice::DigestChallenge::from(challenge);
    if (!digest) continue;
    auto answer = sluice::digest_authorization(
        *digest, {"user", "pw", "GET", "/p", "c0ffee", 1, std::string_view()});
    check(answer.ok(), "an accepted challenge is answered");
    check(!has_line_break(*answer), "the answer cannot split a request");
  }
  sluice::Headers headers;
  headers.add("WWW-Authenticate", std::string(value));
  sluice::AuthRetry retry(sluice::Authentication::any("user", "pw"));
  if (auto answer = retry.answer(headers, "GET", "/p", std::string_view());
      answer && answer->ok()) {
    check(!has_line_break(**answer), "AuthRetry's answer cannot split a request");
  }
  return 0;
}

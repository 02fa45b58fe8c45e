#include "auth/auth_retry.hpp"

#include "auth/auth_challenge.hpp"
#include "auth/credentials.hpp"

namespace sluice {
namespace {

// The strongest Digest challenge sluice can answer (SHA-512-256 > SHA-256 > MD5), or
// nullopt. Among equals the first one offered wins. Without the body, one that needs
// it (auth-int only) counts only when nothing else is offered: its answer then fails
// and says why.
std::optional<DigestChallenge> strongest_digest(const std::vector<AuthChallenge>& challenges,
                                                bool body_known) {
  std::optional<DigestChallenge> best;
  const auto rank = [body_known](const DigestChallenge& digest) {
    return (body_known || !digest.needs_body() ? 4 : 0) + digest.strength();
  };
  for (const AuthChallenge& challenge : challenges) {
    auto digest = DigestChallenge::from(challenge);
    if (digest && (!best || rank(*digest) > rank(*best))) best = std::move(digest);
  }
  return best;
}

bool offers_basic(const std::vector<AuthChallenge>& challenges) {
  for (const AuthChallenge& challenge : challenges) {
    if (iequals(challenge.scheme, "basic")) return true;
  }
  return false;
}

}  // namespace

bool AuthRetry::active() const {
  const bool answering =
      auth_.scheme == Authentication::Scheme::digest || auth_.scheme == Authentication::Scheme::any;
  return answering && !(auth_.user.empty() && auth_.password.empty());
}

std::optional<Result<std::string>> AuthRetry::answer(const Headers& headers,
                                                     std::string_view method,
                                                     std::string_view target,
                                                     std::optional<std::string_view> entity_body) {
  if (!active()) return std::nullopt;
  const auto challenges = auth_challenges_of(headers);
  if (auto digest = strongest_digest(challenges, entity_body.has_value())) {
    // After an answer only a stale nonce earns another: the credentials were right.
    if (answers_ > 0 && !(digest->stale && !stale_answered_)) return std::nullopt;
    if (answers_ > 0) stale_answered_ = true;
    return answer_digest(*digest, method, target, entity_body);
  }
  if (auth_.scheme != Authentication::Scheme::any || answers_ > 0 || !offers_basic(challenges)) {
    return std::nullopt;
  }
  if (auth_.user.find(':') != std::string::npos) {
    return Result<std::string>(
        Error(ErrorCategory::usage,
              "Basic: the user name '" + auth_.user + "' contains ':', which Basic cannot carry"));
  }
  ++answers_;
  last_scheme_ = "Basic";
  return Result<std::string>("Basic " + base64(auth_.user + ":" + auth_.password));
}

std::optional<Result<std::string>> AuthRetry::answer_digest(
    const DigestChallenge& challenge, std::string_view method, std::string_view target,
    std::optional<std::string_view> entity_body) {
  auto cnonce = new_cnonce();
  if (!cnonce) {
    return Result<std::string>(
        Error(ErrorCategory::io, "Digest: the system's random generator gave no client nonce"));
  }
  // The nonce count says how often this nonce was used (RFC 7616 section 3.4).
  nonce_count_ = challenge.nonce == nonce_ ? nonce_count_ + 1 : 1;
  nonce_ = challenge.nonce;
  DigestInput input{auth_.user,         auth_.password, std::string(method), std::string(target),
                    std::move(*cnonce), nonce_count_,   entity_body};
  auto value = digest_authorization(challenge, input);
  if (!value) return Result<std::string>(std::move(value).error());
  ++answers_;
  last_scheme_ = "Digest " + challenge.algorithm_name + (challenge.needs_body() ? " auth-int" : "");
  return Result<std::string>(std::move(*value));
}

void AuthRetry::on_redirect(bool other_origin) {
  answers_ = 0;
  stale_answered_ = false;
  if (other_origin) auth_ = Authentication{};
}

}  // namespace sluice

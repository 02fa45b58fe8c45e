#include "auth/digest_auth.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "auth/header_text.hpp"

namespace sluice {
namespace {

struct AlgorithmName {
  std::string_view name;
  HashAlgorithm algorithm;
  int strength;
};

constexpr AlgorithmName kAlgorithms[] = {
    {"MD5", HashAlgorithm::md5, 1},
    {"SHA-256", HashAlgorithm::sha256, 2},
    {"SHA-512-256", HashAlgorithm::sha512_256, 3},
};

bool ends_with_sess(std::string_view name) {
  constexpr std::string_view kSess = "-sess";
  return name.size() > kSess.size() && iequals(name.substr(name.size() - kSess.size()), kSess);
}

// qop is a quoted comma list: "auth,auth-int".
void read_qop(std::string_view list, DigestChallenge& out) {
  out.qop_offered = true;
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    std::string_view item = list.substr(0, comma);
    while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.remove_prefix(1);
    while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
    if (iequals(item, "auth")) out.qop_auth = true;
    if (iequals(item, "auth-int")) out.qop_auth_int = true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
}

// A quoted-string for the header: '"' and '\' escaped (RFC 9110 section 5.6.4).
std::string quoted(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  out += '"';
  return out;
}

std::string to_hex(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (const char ch : bytes) {
    const auto c = static_cast<unsigned char>(ch);
    out += kHex[c >> 4];
    out += kHex[c & 0xF];
  }
  return out;
}

}  // namespace

std::optional<DigestChallenge> DigestChallenge::from(const AuthChallenge& challenge) {
  if (!iequals(challenge.scheme, "digest")) return std::nullopt;
  auto realm = challenge.param("realm");
  auto nonce = challenge.param("nonce");
  if (!realm || !nonce) return std::nullopt;
  const auto opaque = challenge.param("opaque");
  // Echoed into the next request's head: a control byte there could split it.
  if (has_control_character(*realm) || has_control_character(*nonce) ||
      (opaque && has_control_character(*opaque))) {
    return std::nullopt;
  }
  DigestChallenge out;
  out.realm = std::string(*realm);
  out.nonce = std::string(*nonce);
  if (opaque) out.opaque = std::string(*opaque);
  std::string_view name = challenge.param("algorithm").value_or("MD5");
  out.algorithm_name = std::string(name);
  out.session = ends_with_sess(name);
  if (out.session) name.remove_suffix(5);
  bool known = false;
  for (const AlgorithmName& entry : kAlgorithms) {
    if (iequals(name, entry.name)) {
      out.algorithm = entry.algorithm;
      known = true;
    }
  }
  if (!known) return std::nullopt;
  if (auto qop = challenge.param("qop")) {
    read_qop(*qop, out);
    if (!out.qop_auth && !out.qop_auth_int) return std::nullopt;
  }
  out.stale = iequals(challenge.param("stale").value_or(""), "true");
  out.userhash = iequals(challenge.param("userhash").value_or(""), "true");
  return out;
}

int DigestChallenge::strength() const {
  for (const AlgorithmName& entry : kAlgorithms) {
    if (entry.algorithm == algorithm) return entry.strength;
  }
  return 0;
}

namespace {

// RFC 7616 section 3.4.4: a name that is not ASCII goes as username*, an RFC 8187
// ext-value (UTF-8, every byte outside attr-char percent-encoded); the hashes use
// the name's own bytes either way.
std::string username_parameter(std::string_view user) {
  const bool ascii = std::all_of(user.begin(), user.end(),
                                 [](char c) { return static_cast<unsigned char>(c) < 0x80; });
  if (ascii) return "username=" + quoted(user);
  static constexpr std::string_view kAttrPunctuation = "!#$&+-.^_`|~";
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out = "username*=UTF-8''";
  for (const char c : user) {
    const auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) != 0 && byte < 0x80) {
      out += c;
    } else if (kAttrPunctuation.find(c) != std::string_view::npos) {
      out += c;
    } else {
      out += '%';
      out += kHex[byte >> 4];
      out += kHex[byte & 0x0f];
    }
  }
  return out;
}

}  // namespace

Result<std::string> digest_authorization(const DigestChallenge& challenge,
                                         const DigestInput& input) {
  if (has_control_character(input.user) || has_control_character(input.password)) {
    return Error(ErrorCategory::usage,
                 "Digest: the user name or password holds a control character");
  }
  const auto hash = [&](std::string_view text) { return hex_digest(challenge.algorithm, text); };
  std::string ha1 = hash(input.user + ":" + challenge.realm + ":" + input.password);
  if (ha1.empty()) {
    return Error(ErrorCategory::usage,
                 "Digest: the crypto library cannot compute " + challenge.algorithm_name);
  }
  if (challenge.session) ha1 = hash(ha1 + ":" + challenge.nonce + ":" + input.cnonce);
  // RFC 7616 section 3.4.3: auth-int adds H(entity-body) to A2.
  const bool integrity = challenge.needs_body();
  if (integrity && !input.entity_body) {
    return Error(ErrorCategory::usage,
                 "Digest: the server accepts only qop=auth-int, which hashes the request body, "
                 "and this body is a file or a stream that is not in memory; send it as bytes");
  }
  const std::string ha2 =
      integrity ? hash(input.method + ":" + input.uri + ":" + hash(*input.entity_body))
                : hash(input.method + ":" + input.uri);
  const std::string qop = integrity ? "auth-int" : "auth";
  char nc[9];
  std::snprintf(nc, sizeof nc, "%08x", static_cast<unsigned>(input.nonce_count));
  // RFC 2069's form, without qop, is what a server that offers no qop expects.
  const std::string response = challenge.qop_offered
                                   ? hash(ha1 + ":" + challenge.nonce + ":" + nc + ":" +
                                          input.cnonce + ":" + qop + ":" + ha2)
                                   : hash(ha1 + ":" + challenge.nonce + ":" + ha2);
  const std::string user =
      challenge.userhash ? hash(input.user + ":" + challenge.realm) : input.user;
  std::string value = "Digest " + username_parameter(user) + ", realm=" + quoted(challenge.realm) +
                      ", uri=" + quoted(input.uri) + ", algorithm=" + challenge.algorithm_name +
                      ", nonce=" + quoted(challenge.nonce);
  if (challenge.qop_offered) {
    value += ", nc=" + std::string(nc) + ", cnonce=" + quoted(input.cnonce) + ", qop=" + qop;
  }
  value += ", response=" + quoted(response);
  if (challenge.opaque) value += ", opaque=" + quoted(*challenge.opaque);
  if (challenge.userhash) value += ", userhash=true";
  return value;
}

std::optional<std::string> new_cnonce() {
  auto bytes = random_bytes(16);
  if (!bytes) return std::nullopt;
  return to_hex(*bytes);
}

}  // namespace sluice

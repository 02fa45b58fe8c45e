// Digest (RFC 7616): the examples of section 3.9.1 as test vectors, the -sess and
// userhash variants, which challenges are answered, and AuthRetry's choices (the
// strongest scheme, one answer, one more for a stale nonce, nc counting).
#include "auth/digest_auth.hpp"

#include <gtest/gtest.h>

#include "auth/auth_retry.hpp"

namespace sluice {
namespace {

constexpr const char* kRfcChallenge =
    "Digest realm=\"http-auth@example.org\", qop=\"auth, auth-int\", algorithm=%s, "
    "nonce=\"7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v\", "
    "opaque=\"FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS\"";

DigestChallenge rfc_challenge(const std::string& algorithm) {
  std::string text = kRfcChallenge;
  text.replace(text.find("%s"), 2, algorithm);
  const auto parsed = parse_auth_challenges(text);
  EXPECT_EQ(parsed.size(), 1u);
  auto challenge = DigestChallenge::from(parsed.at(0));
  EXPECT_TRUE(challenge);
  return *challenge;
}

DigestInput rfc_input() {
  return {"Mufasa",
          "Circle of Life",
          "GET",
          "/dir/index.html",
          "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ",
          1,
          {}};
}

// The value of `name` in an Authorization header sluice made (quoted or not).
std::string field(const std::string& header, const std::string& name) {
  const std::size_t at = header.find(" " + name + "=");
  if (at == std::string::npos) return "<absent>";
  std::size_t start = at + name.size() + 2;
  if (header[start] == '"')
    return header.substr(start + 1, header.find('"', start + 1) - start - 1);
  return header.substr(start, header.find(',', start) - start);
}

TEST(DigestAuth, Rfc7616Md5Example) {
  auto value = digest_authorization(rfc_challenge("MD5"), rfc_input());
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(field(*value, "response"), "8ca523f5e9506fed4657c9700eebdbec");
  EXPECT_EQ(value->rfind("Digest username=\"Mufasa\", realm=\"http-auth@example.org\"", 0), 0u);
  EXPECT_EQ(field(*value, "uri"), "/dir/index.html");
  EXPECT_EQ(field(*value, "algorithm"), "MD5");
  EXPECT_EQ(field(*value, "nc"), "00000001");
  EXPECT_EQ(field(*value, "qop"), "auth");
  EXPECT_EQ(field(*value, "cnonce"), "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ");
  EXPECT_EQ(field(*value, "opaque"), "FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS");
  EXPECT_EQ(field(*value, "userhash"), "<absent>");
}

TEST(DigestAuth, Rfc7616Sha256Example) {
  auto value = digest_authorization(rfc_challenge("SHA-256"), rfc_input());
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(field(*value, "response"),
            "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1");
  EXPECT_EQ(field(*value, "algorithm"), "SHA-256");
}

TEST(DigestAuth, SessionVariantHashesTheNoncesIntoA1) {
  // H(H(user:realm:pw):nonce:cnonce) replaces H(user:realm:pw) (RFC 7616 3.4.2).
  const DigestChallenge challenge = rfc_challenge("SHA-256-sess");
  EXPECT_TRUE(challenge.session);
  const DigestInput in = rfc_input();
  const auto h = [](const std::string& text) { return hex_digest(HashAlgorithm::sha256, text); };
  const std::string ha1 = h(h(in.user + ":" + challenge.realm + ":" + in.password) + ":" +
                            challenge.nonce + ":" + in.cnonce);
  const std::string expected = h(ha1 + ":" + challenge.nonce + ":00000001:" + in.cnonce +
                                 ":auth:" + h("GET:/dir/index.html"));
  auto value = digest_authorization(challenge, in);
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(field(*value, "response"), expected);
  EXPECT_EQ(field(*value, "algorithm"), "SHA-256-sess");
}

TEST(DigestAuth, UserhashSendsTheHashedNameAndSaysSo) {
  auto parsed = parse_auth_challenges(
      "Digest realm=\"api@example.org\", qop=auth, algorithm=SHA-512-256, nonce=\"n\", "
      "userhash=true");
  auto challenge = DigestChallenge::from(parsed.at(0));
  ASSERT_TRUE(challenge);
  auto value = digest_authorization(
      *challenge, {"J\xC3\xA4s\xC3\xB8n Doe", "Secret, or not?", "GET", "/doe.json", "c", 1, {}});
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(field(*value, "username"),
            hex_digest(HashAlgorithm::sha512_256, "J\xC3\xA4s\xC3\xB8n Doe:api@example.org"));
  EXPECT_EQ(field(*value, "username").size(), 64u);
  EXPECT_EQ(field(*value, "userhash"), "true");
}

TEST(DigestAuth, WithoutQopTheRfc2069FormIsUsed) {
  auto challenge = DigestChallenge::from(parse_auth_challenges("Digest realm=r, nonce=n").at(0));
  ASSERT_TRUE(challenge);
  auto value = digest_authorization(*challenge, {"u", "p", "GET", "/", "c", 1, {}});
  ASSERT_TRUE(value.ok());
  const auto h = [](const std::string& text) { return hex_digest(HashAlgorithm::md5, text); };
  EXPECT_EQ(field(*value, "response"), h(h("u:r:p") + ":n:" + h("GET:/")));
  EXPECT_EQ(field(*value, "nc"), "<absent>");
}

TEST(DigestAuth, ChallengesSluiceCannotAnswerAreSkipped) {
  auto from = [](const char* text) {
    return DigestChallenge::from(parse_auth_challenges(text).at(0));
  };
  EXPECT_FALSE(from("Digest realm=r, nonce=n, algorithm=SHA-1"));
  EXPECT_FALSE(from("Digest realm=r, nonce=n, qop=auth-conf"));
  EXPECT_FALSE(from("Digest realm=r"));
  EXPECT_FALSE(from("Basic realm=r"));
  EXPECT_TRUE(from("digest REALM=r, NONCE=n, ALGORITHM=sha-256, qop=\"auth-int, auth\""));
}

// RFC 7616 section 3.4.3: A2 = method:uri:H(entity-body). The expected responses
// were computed apart from sluice (Python's hashlib).
TEST(DigestAuth, AuthIntHashesTheBodyWhenItIsTheOnlyQop) {
  auto challenge = DigestChallenge::from(
      parse_auth_challenges("Digest realm=\"r\", nonce=\"n\", qop=\"auth-int\"").at(0));
  ASSERT_TRUE(challenge);
  EXPECT_TRUE(challenge->needs_body());
  DigestInput input{"u", "p", "POST", "/upload", "c", 1, std::string_view("hello")};
  auto value = digest_authorization(*challenge, input);
  ASSERT_TRUE(value.ok()) << value.error().message();
  EXPECT_EQ(field(*value, "qop"), "auth-int");
  EXPECT_EQ(field(*value, "response"), "d862ffeb58cfae54ed7f3acc1740594c");
  // No body: the hash of nothing.
  auto empty = digest_authorization(*challenge, {"u", "p", "GET", "/", "c", 1, std::string_view()});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(field(*empty, "response"), "7eeb55b7f6f7bbb156ec8ed04a13f5a5");
  // A body sluice cannot hash in advance (a file, a stream): a clear refusal.
  auto unknown = digest_authorization(*challenge, {"u", "p", "PUT", "/", "c", 1, std::nullopt});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().category(), ErrorCategory::usage);
  EXPECT_NE(unknown.error().message().find("auth-int"), std::string::npos);
}

TEST(DigestAuth, AuthIsPreferredWhenBothAreOffered) {
  auto challenge = DigestChallenge::from(
      parse_auth_challenges("Digest realm=r, nonce=n, qop=\"auth-int,auth\"").at(0));
  ASSERT_TRUE(challenge);
  EXPECT_FALSE(challenge->needs_body());
  auto value = digest_authorization(*challenge, {"u", "p", "PUT", "/", "c", 1, std::nullopt});
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(field(*value, "qop"), "auth");
}

TEST(DigestAuth, ACredentialThatCouldSplitTheHeaderIsRefused) {
  auto value =
      digest_authorization(rfc_challenge("MD5"), {"a\r\nX: y", "p", "GET", "/", "c", 1, {}});
  ASSERT_FALSE(value.ok());
  EXPECT_EQ(value.error().category(), ErrorCategory::usage);
}

TEST(DigestAuth, QuotesInTheUserNameAreEscaped) {
  auto value = digest_authorization(rfc_challenge("MD5"), {"a\"b\\c", "p", "GET", "/", "c", 1, {}});
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(value->rfind("Digest username=\"a\\\"b\\\\c\", ", 0), 0u);
}

// RFC 7616 section 3.4.4 and its example name (section 3.9.2): a name that is not
// ASCII goes as an RFC 8187 ext-value; the response hashes the name's UTF-8 bytes.
TEST(DigestAuth, ANameThatIsNotAsciiGoesAsUsernameStar) {
  const std::string name = "J\xc3\xa4s\xc3\xb8n Doe";
  auto value = digest_authorization(rfc_challenge("MD5"), {name, "p", "GET", "/", "c", 1, {}});
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(value->rfind("Digest username*=UTF-8''J%C3%A4s%C3%B8n%20Doe, realm=", 0), 0u) << *value;
  EXPECT_EQ(value->find("username="), std::string::npos);
}

TEST(DigestAuth, AHashedNameNeedsNoUsernameStar) {
  auto challenge = rfc_challenge("MD5");
  challenge.userhash = true;
  auto value =
      digest_authorization(challenge, {"J\xc3\xa4s\xc3\xb8n", "p", "GET", "/", "c", 1, {}});
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(value->rfind("Digest username=\"", 0), 0u) << *value;
}

TEST(DigestAuth, ClientNoncesAreFreshHex) {
  auto a = new_cnonce();
  auto b = new_cnonce();
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->size(), 32u);
  EXPECT_NE(*a, *b);
}

Headers challenge_headers(std::initializer_list<const char*> values) {
  Headers headers;
  for (const char* value : values) headers.add("WWW-Authenticate", value);
  return headers;
}

TEST(AuthRetry, TheStrongestDigestIsAnsweredOnceAndASecond401Stands) {
  AuthRetry retry(Authentication::digest("u", "p"));
  const Headers headers =
      challenge_headers({"Digest realm=r, nonce=md, algorithm=MD5, qop=auth",
                         "Digest realm=r, nonce=sha, algorithm=SHA-256, qop=auth, Basic realm=r"});
  auto answer = retry.answer(headers, "GET", "/x", "");
  ASSERT_TRUE(answer && answer->ok());
  EXPECT_EQ(field(**answer, "algorithm"), "SHA-256");
  EXPECT_EQ(field(**answer, "nonce"), "sha");
  EXPECT_EQ(retry.last_scheme(), "Digest SHA-256");
  EXPECT_FALSE(retry.answer(headers, "GET", "/x", ""));  // wrong password: the 401 is returned
}

TEST(AuthRetry, AStaleNonceEarnsOneMoreAnswerWithTheNewNonce) {
  AuthRetry retry(Authentication::digest("u", "p"));
  ASSERT_TRUE(
      retry.answer(challenge_headers({"Digest realm=r, nonce=one, qop=auth"}), "GET", "/", ""));
  const Headers stale = challenge_headers({"Digest realm=r, nonce=two, qop=auth, stale=true"});
  auto again = retry.answer(stale, "GET", "/", "");
  ASSERT_TRUE(again && again->ok());
  EXPECT_EQ(field(**again, "nonce"), "two");
  EXPECT_EQ(field(**again, "nc"), "00000001");
  EXPECT_FALSE(retry.answer(stale, "GET", "/", ""));
}

TEST(AuthRetry, TheNonceCountGrowsWhileTheNonceStays) {
  AuthRetry retry(Authentication::digest("u", "p"));
  const Headers headers = challenge_headers({"Digest realm=r, nonce=same, qop=auth"});
  ASSERT_TRUE(retry.answer(headers, "GET", "/", ""));
  retry.on_redirect(false);  // the same origin: credentials kept, a new URL to answer
  auto second = retry.answer(headers, "GET", "/next", "");
  ASSERT_TRUE(second && second->ok());
  EXPECT_EQ(field(**second, "nc"), "00000002");
  EXPECT_EQ(field(**second, "uri"), "/next");
}

TEST(AuthRetry, AnyPrefersDigestAndFallsBackToBasic) {
  AuthRetry digest(Authentication::any("u", "p"));
  auto answered = digest.answer(
      challenge_headers({"Basic realm=r", "Digest realm=r, nonce=n, qop=auth"}), "GET", "/", "");
  ASSERT_TRUE(answered && answered->ok());
  EXPECT_EQ(answered->value().rfind("Digest ", 0), 0u);
  AuthRetry basic(Authentication::any("u", "p"));
  auto basic_answer = basic.answer(challenge_headers({"Basic realm=\"r\""}), "GET", "/", "");
  ASSERT_TRUE(basic_answer && basic_answer->ok());
  EXPECT_EQ(**basic_answer, "Basic dTpw");
  EXPECT_FALSE(basic.answer(challenge_headers({"Basic realm=\"r\""}), "GET", "/", ""));
}

TEST(AuthRetry, WithoutTheBodyAChallengeThatNeedsNoBodyIsChosen) {
  const Headers headers =
      challenge_headers({"Digest realm=r, nonce=int, algorithm=SHA-256, qop=auth-int",
                         "Digest realm=r, nonce=plain, algorithm=MD5, qop=auth"});
  AuthRetry streamed(Authentication::digest("u", "p"));
  auto answer = streamed.answer(headers, "PUT", "/", std::nullopt);
  ASSERT_TRUE(answer && answer->ok());
  EXPECT_EQ(field(**answer, "nonce"), "plain");
  AuthRetry in_memory(Authentication::digest("u", "p"));
  auto stronger = in_memory.answer(headers, "PUT", "/", std::string_view("body"));
  ASSERT_TRUE(stronger && stronger->ok());
  EXPECT_EQ(field(**stronger, "nonce"), "int");
  EXPECT_EQ(in_memory.last_scheme(), "Digest SHA-256 auth-int");
}

TEST(AuthRetry, WhatTheRequestDoesNotAllowIsNotAnswered) {
  const Headers basic_only = challenge_headers({"Basic realm=r"});
  EXPECT_FALSE(AuthRetry(Authentication::digest("u", "p")).answer(basic_only, "GET", "/", ""));
  EXPECT_FALSE(AuthRetry(Authentication::basic("u", "p")).answer(basic_only, "GET", "/", ""));
  EXPECT_FALSE(AuthRetry(Authentication::any("", "")).answer(basic_only, "GET", "/", ""));
  AuthRetry moved(Authentication::any("u", "p"));
  moved.on_redirect(true);  // another origin: the credentials are gone
  EXPECT_FALSE(moved.answer(basic_only, "GET", "/", ""));
}

}  // namespace
}  // namespace sluice

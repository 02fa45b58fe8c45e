// WWW-Authenticate challenge lists: several challenges in one value and across
// headers, quoted strings with escapes and commas, token68, names without case, and
// what a malformed value keeps.
#include "auth/auth_challenge.hpp"

#include <gtest/gtest.h>

namespace sluice {
namespace {

TEST(AuthChallenge, OneValueHoldsSeveralChallengesAndTheirParameters) {
  const auto challenges = parse_auth_challenges(
      "Newauth realm=\"apps\", type=1, title=\"Login to \\\"apps\\\"\", Basic realm=\"simple\"");
  ASSERT_EQ(challenges.size(), 2u);
  EXPECT_EQ(challenges[0].scheme, "Newauth");
  EXPECT_EQ(challenges[0].param("realm"), "apps");
  EXPECT_EQ(challenges[0].param("type"), "1");
  EXPECT_EQ(challenges[0].param("title"), "Login to \"apps\"");
  EXPECT_EQ(challenges[1].scheme, "Basic");
  EXPECT_EQ(challenges[1].param("realm"), "simple");
}

TEST(AuthChallenge, CommasInsideQuotesAndCaseOfNamesDoNotMatter) {
  const auto challenges =
      parse_auth_challenges("DIGEST REALM=\"a, b\" ,  QOP=\"auth,auth-int\",NONCE=abc ,, Basic");
  ASSERT_EQ(challenges.size(), 2u);
  EXPECT_EQ(challenges[0].param("realm"), "a, b");
  EXPECT_EQ(challenges[0].param("qop"), "auth,auth-int");
  EXPECT_EQ(challenges[0].param("nonce"), "abc");
  EXPECT_EQ(challenges[1].scheme, "Basic");
  EXPECT_TRUE(challenges[1].params.empty());
}

TEST(AuthChallenge, Token68StandsAloneAfterItsScheme) {
  const auto challenges = parse_auth_challenges("Negotiate abc+/d==, Bearer realm=x");
  ASSERT_EQ(challenges.size(), 2u);
  EXPECT_EQ(challenges[0].token68, "abc+/d==");
  EXPECT_EQ(challenges[1].param("realm"), "x");
}

TEST(AuthChallenge, SpacesAroundEqualsAreAllowed) {
  const auto challenges = parse_auth_challenges("Digest realm = \"r\" , nonce= n");
  ASSERT_EQ(challenges.size(), 1u);
  EXPECT_EQ(challenges[0].param("realm"), "r");
  EXPECT_EQ(challenges[0].param("nonce"), "n");
}

TEST(AuthChallenge, AMalformedChallengeEndsTheValueAndKeepsWhatCameBefore) {
  EXPECT_EQ(parse_auth_challenges("Basic realm=x, Digest realm=\"unclosed").size(), 1u);
  EXPECT_EQ(parse_auth_challenges("Basic realm=x, Digest realm=\"r\", nonce=").size(), 1u);
  // "realm=" alone after a scheme is a token68 by the grammar, not a parameter.
  EXPECT_EQ(parse_auth_challenges("Digest realm=").at(0).token68, "realm=");
  EXPECT_EQ(parse_auth_challenges("Basic realm=x y").size(), 0u);
  EXPECT_TRUE(parse_auth_challenges("").empty());
  EXPECT_TRUE(parse_auth_challenges(" , ,").empty());
  EXPECT_TRUE(parse_auth_challenges("=x").empty());
}

TEST(AuthChallenge, EveryWwwAuthenticateHeaderCounts) {
  Headers headers;
  headers.add("WWW-Authenticate", "Digest realm=\"r\", algorithm=SHA-256, nonce=\"1\"");
  headers.add("Content-Type", "text/html");
  headers.add("www-authenticate", "Digest realm=\"r\", algorithm=MD5, nonce=\"2\", Basic realm=r");
  const auto challenges = auth_challenges_of(headers);
  ASSERT_EQ(challenges.size(), 3u);
  EXPECT_EQ(challenges[0].param("algorithm"), "SHA-256");
  EXPECT_EQ(challenges[1].param("nonce"), "2");
  EXPECT_EQ(challenges[2].scheme, "Basic");
}

}  // namespace
}  // namespace sluice

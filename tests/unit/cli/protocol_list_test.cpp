// curl's protocol lists (--proto, --proto-redir) read left to right from a start.
#include "cli/options/syntax/protocol_list.hpp"

#include <gtest/gtest.h>

namespace sluice::cli {
namespace {

ProtocolSet parsed(std::string_view text, ProtocolSet start = {}) {
  Result<ProtocolSet> set = parse_protocol_list("--proto", text, start);
  EXPECT_TRUE(set.ok()) << set.error().message();
  return set.ok() ? *set : ProtocolSet{};
}

TEST(ProtocolList, EqualsKeepsOnlyTheNamedOnes) {
  const ProtocolSet set = parsed("=https");
  EXPECT_FALSE(set.http);
  EXPECT_TRUE(set.https);
}

TEST(ProtocolList, ItemsApplyLeftToRight) {
  const ProtocolSet set = parsed("-all,https");
  EXPECT_FALSE(set.http);
  EXPECT_TRUE(set.https);
  const ProtocolSet back = parsed("-http,+http");
  EXPECT_TRUE(back.http);
  const ProtocolSet added = parsed("+http", ProtocolSet{false, true});
  EXPECT_TRUE(added.http);
  EXPECT_TRUE(added.https);
  const ProtocolSet plain = parsed("http", ProtocolSet{false, false});
  EXPECT_TRUE(plain.http);
  EXPECT_FALSE(plain.https);
}

TEST(ProtocolList, ProtocolsSluiceDoesNotSpeakChangeNothing) {
  const ProtocolSet set = parsed("=https,ftp,-file,,HTTP");
  EXPECT_TRUE(set.http);
  EXPECT_TRUE(set.https);
}

TEST(ProtocolList, ANameThatIsNoProtocolIsAUsageError) {
  Result<ProtocolSet> set = parse_protocol_list("--proto", "=ht tp", {});
  ASSERT_FALSE(set.ok());
  EXPECT_EQ(set.error().category(), ErrorCategory::usage);
  EXPECT_NE(set.error().message().find("--proto"), std::string::npos);
}

TEST(ProtocolList, FirstRefusedUrlNamesItsScheme) {
  const std::vector<std::string> urls{"https://a/", "http://b/"};
  EXPECT_FALSE(first_refused_url(urls, ProtocolSet{}).has_value());
  const std::optional<std::string> refused = first_refused_url(urls, ProtocolSet{false, true});
  ASSERT_TRUE(refused.has_value());
  EXPECT_NE(refused->find("\"http\""), std::string::npos) << *refused;
  EXPECT_NE(refused->find("http://b/"), std::string::npos) << *refused;
}

}  // namespace
}  // namespace sluice::cli

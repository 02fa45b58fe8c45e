// --proto, --proto-redir, --post301/302/303 and --location-trusted through the parser.
#include <gtest/gtest.h>

#include <vector>

#include "cli/options/cli_options.hpp"

namespace sluice::cli {
namespace {

Result<CliOptions> parse(std::vector<const char*> args) {
  args.insert(args.begin(), "sluice");
  return parse_command_line(static_cast<int>(args.size()), args.data());
}

TEST(RedirectOptions, ProtoRedirAllowsTheHttpsDowngradeOnlyWhenItNamesHttp) {
  Result<CliOptions> plain = parse({"http://h/"});
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->redirect_to_http);
  EXPECT_TRUE(plain->redirect_protocols.http);
  Result<CliOptions> named = parse({"--proto-redir", "=http,https", "http://h/"});
  ASSERT_TRUE(named.ok());
  EXPECT_TRUE(named->redirect_to_http);
  Result<CliOptions> https_only = parse({"--proto-redir", "=https", "http://h/"});
  ASSERT_TRUE(https_only.ok());
  EXPECT_FALSE(https_only->redirect_to_http);
  EXPECT_FALSE(https_only->redirect_protocols.http);
  Result<CliOptions> no_https = parse({"--proto-redir", "-https", "http://h/"});
  ASSERT_TRUE(no_https.ok());
  EXPECT_FALSE(no_https->redirect_protocols.https);
  EXPECT_TRUE(no_https->redirect_protocols.http);
}

TEST(RedirectOptions, ProtoListsAccumulate) {
  Result<CliOptions> options = parse({"--proto", "-all", "--proto", "+https", "https://h/"});
  ASSERT_TRUE(options.ok());
  EXPECT_FALSE(options->protocols.http);
  EXPECT_TRUE(options->protocols.https);
}

TEST(RedirectOptions, PostFlagsAndLocationTrusted) {
  Result<CliOptions> options =
      parse({"--post301", "--post303", "--location-trusted", "-d", "a=1", "http://h/"});
  ASSERT_TRUE(options.ok());
  EXPECT_TRUE(options->keep_post_on_301);
  EXPECT_FALSE(options->keep_post_on_302);
  EXPECT_TRUE(options->keep_post_on_303);
  EXPECT_TRUE(options->credentials_to_other_origins);
  EXPECT_TRUE(options->follow_redirects);
}

}  // namespace
}  // namespace sluice::cli

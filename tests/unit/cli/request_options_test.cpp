// --url, -e/--referer, -#, --no-progress-meter, -N and --http1.0 through the parser.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/options/cli_options.hpp"

namespace sluice::cli {
namespace {

Result<CliOptions> parse(std::vector<const char*> args) {
  args.insert(args.begin(), "sluice");
  return parse_command_line(static_cast<int>(args.size()), args.data());
}

TEST(RequestOptions, UrlOptionAddsUrlsInOrderWithBareOnes) {
  Result<CliOptions> options = parse({"--url", "http://h/1", "http://h/2", "--url=h/3"});
  ASSERT_TRUE(options.ok()) << options.error().message();
  EXPECT_EQ(options->urls, (std::vector<std::string>{"http://h/1", "http://h/2", "http://h/3"}));
}

TEST(RequestOptions, RefererTakesTheTextBeforeAuto) {
  Result<CliOptions> plain = parse({"-e", "http://from/", "http://h/"});
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->referer, "http://from/");
  EXPECT_FALSE(plain->referer_auto);
  Result<CliOptions> automatic = parse({"--referer", "http://from/;auto", "http://h/"});
  ASSERT_TRUE(automatic.ok());
  EXPECT_EQ(automatic->referer, "http://from/");
  EXPECT_TRUE(automatic->referer_auto);
  Result<CliOptions> only_auto = parse({"-e", ";auto", "http://h/"});
  ASSERT_TRUE(only_auto.ok());
  EXPECT_FALSE(only_auto->referer.has_value());
  EXPECT_TRUE(only_auto->referer_auto);
}

TEST(RequestOptions, RefererWithALineBreakIsRefused) {
  Result<CliOptions> options = parse({"-e", "http://a/\r\nX: y", "http://h/"});
  ASSERT_FALSE(options.ok());
  EXPECT_EQ(options.error().category(), ErrorCategory::usage);
}

TEST(RequestOptions, ProgressChoicesDoNotMakeADownload) {
  Result<CliOptions> bar = parse({"-#", "http://h/"});
  ASSERT_TRUE(bar.ok());
  EXPECT_EQ(bar->download.progress, ProgressChoice::bar);
  EXPECT_FALSE(bar->download.asked);
  Result<CliOptions> none = parse({"-#", "--no-progress-meter", "-N", "http://h/"});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->download.progress, ProgressChoice::none);
  EXPECT_FALSE(none->download.asked);
}

TEST(RequestOptions, Http10AndItsShortFormChooseHttp10) {
  for (const char* flag : {"--http1.0", "-0"}) {
    Result<CliOptions> options = parse({flag, "http://h/"});
    ASSERT_TRUE(options.ok()) << flag << ": " << options.error().message();
    EXPECT_EQ(options->version, VersionPolicy::http1_0) << flag;
  }
  Result<CliOptions> last = parse({"-0", "--http1.1", "http://h/"});
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(last->version, VersionPolicy::http1_only) << "the last version option wins";
}

}  // namespace
}  // namespace sluice::cli

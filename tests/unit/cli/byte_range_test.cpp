// -r/--range values in curl's syntax, and -C, -r and --no-clobber through the parser.
#include "cli/options/syntax/byte_range.hpp"

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

TEST(ByteRange, TakesCurlsThreeFormsAndTheirLists) {
  Result<ByteRanges> ranges = parse_byte_ranges("-r", "0-499,500-,-500");
  ASSERT_TRUE(ranges.ok()) << ranges.error().message();
  EXPECT_EQ(ranges->ranges,
            (std::vector<ByteRange>{{0, 499}, {500, std::nullopt}, {std::nullopt, 500}}));
  EXPECT_EQ(ranges->text, "0-499,500-,-500");
}

TEST(ByteRange, ABareNumberMeansFromThereToTheEndAsInCurl) {
  Result<ByteRanges> ranges = parse_byte_ranges("-r", "700");
  ASSERT_TRUE(ranges.ok());
  EXPECT_EQ(ranges->ranges, (std::vector<ByteRange>{{700, std::nullopt}}));
  EXPECT_EQ(ranges->text, "700-");
}

TEST(ByteRange, BadValuesNameTheOptionAndTheFault) {
  const std::vector<std::pair<const char*, const char*>> bad = {
      {"", "empty"},
      {"-", "empty"},
      {"0-1,", "empty"},
      {"5-2", "after its last"},
      {"1-2-3", "two '-'"},
      {"-0", "last 0 bytes"},
      {"a-b", "'a' is not a digit"},
      {" 1-2", "' ' is not a digit"},
      {"99999999999999999999-", "too large"},
  };
  for (const auto& [text, why] : bad) {
    Result<ByteRanges> ranges = parse_byte_ranges("-r", text);
    ASSERT_FALSE(ranges.ok()) << text;
    EXPECT_EQ(ranges.error().category(), ErrorCategory::usage);
    EXPECT_TRUE(ranges.error().message().starts_with("-r: '")) << ranges.error().message();
    EXPECT_NE(ranges.error().message().find(why), std::string::npos) << ranges.error().message();
  }
}

TEST(ByteRange, ContinueAtTakesADashOrAnOffsetWithoutMakingADownload) {
  Result<CliOptions> dash = parse({"-C", "-", "-o", "f", "http://h/"});
  ASSERT_TRUE(dash.ok());
  EXPECT_TRUE(dash->download.resume);
  EXPECT_FALSE(dash->continue_at);
  EXPECT_FALSE(dash->download.asked);
  Result<CliOptions> offset = parse({"--continue-at", "1000", "http://h/"});
  ASSERT_TRUE(offset.ok());
  EXPECT_EQ(offset->continue_at, 1000u);
  EXPECT_FALSE(offset->download.resume);
  Result<CliOptions> bad = parse({"-C", "12k", "http://h/"});
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(bad.error().message().starts_with("-C: '12k'")) << bad.error().message();
}

TEST(ByteRange, RangeAndNoClobberAreParsedAndClobberUndoesIt) {
  Result<CliOptions> options = parse({"-r", "0-9", "--no-clobber", "http://h/"});
  ASSERT_TRUE(options.ok());
  ASSERT_TRUE(options->range);
  EXPECT_EQ(options->range->text, "0-9");
  EXPECT_TRUE(options->no_clobber);
  EXPECT_FALSE(options->download.asked);
  Result<CliOptions> clobber = parse({"--no-clobber", "--clobber", "http://h/"});
  ASSERT_TRUE(clobber.ok());
  EXPECT_FALSE(clobber->no_clobber);
  EXPECT_FALSE(parse({"--range", "9-0", "http://h/"}).ok());
}

}  // namespace
}  // namespace sluice::cli

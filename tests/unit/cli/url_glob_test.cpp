// URL globbing as curl documents it (url_glob.cpp), and what it does to a parsed
// command line (url_glob_options.cpp): the URLs each pattern makes, their order, the
// #N texts of -o, and the errors that name the position instead of sending anything.
// The expected URLs and positions are what curl 7.88 makes of the same arguments.
#include "cli/options/syntax/url_glob.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/options/cli_options.hpp"

namespace sluice::cli {
namespace {

std::vector<std::string> urls_of(std::string_view pattern, std::size_t max = kMaxGlobbedUrls) {
  Result<std::vector<GlobbedUrl>> expanded = expand_url_glob(pattern, max);
  EXPECT_TRUE(expanded.ok()) << (expanded ? "" : expanded.error().message());
  std::vector<std::string> urls;
  if (expanded) {
    for (const GlobbedUrl& one : *expanded) urls.push_back(one.url);
  }
  return urls;
}

std::string error_of(std::string_view pattern, std::size_t max = kMaxGlobbedUrls) {
  Result<std::vector<GlobbedUrl>> expanded = expand_url_glob(pattern, max);
  EXPECT_FALSE(expanded.ok()) << pattern;
  if (expanded) return {};
  EXPECT_EQ(expanded.error().category(), ErrorCategory::usage);
  return expanded.error().message();
}

using Urls = std::vector<std::string>;

TEST(UrlGlob, AUrlWithoutPatternsIsItself) {
  EXPECT_EQ(urls_of("http://h/a?b=c#d"), Urls{"http://h/a?b=c#d"});
  EXPECT_EQ(urls_of(""), Urls{""});
}

TEST(UrlGlob, SetGivesEachTextInOrder) {
  EXPECT_EQ(urls_of("http://h/f?x={a,b,c}"),
            (Urls{"http://h/f?x=a", "http://h/f?x=b", "http://h/f?x=c"}));
  EXPECT_EQ(urls_of("http://h/{a,}"), (Urls{"http://h/a", "http://h/"}));
  EXPECT_EQ(urls_of("http://h/{one}"), Urls{"http://h/one"});
}

TEST(UrlGlob, NumberRangeCountsUpAndPadsToTheFirstNumbersWidth) {
  EXPECT_EQ(urls_of("h/[9-11]"), (Urls{"h/9", "h/10", "h/11"}));
  EXPECT_EQ(urls_of("h/[01-3]"), (Urls{"h/01", "h/02", "h/03"}));
  EXPECT_EQ(urls_of("h/[098-101]"), (Urls{"h/098", "h/099", "h/100", "h/101"}));
  EXPECT_EQ(urls_of("h/[0-2]"), (Urls{"h/0", "h/1", "h/2"}));
  EXPECT_EQ(urls_of("h/[1-1]"), Urls{"h/1"});
  EXPECT_EQ(urls_of("h/[1-100]").size(), 100u);
}

TEST(UrlGlob, LetterRangesOfEitherCase) {
  EXPECT_EQ(urls_of("h/[a-c]"), (Urls{"h/a", "h/b", "h/c"}));
  EXPECT_EQ(urls_of("h/[X-Z]"), (Urls{"h/X", "h/Y", "h/Z"}));
  EXPECT_EQ(urls_of("h/[a-z]").size(), 26u);
}

TEST(UrlGlob, StepSkipsAndStopsAtTheLastValueReached) {
  EXPECT_EQ(urls_of("h/[0-100:25]"), (Urls{"h/0", "h/25", "h/50", "h/75", "h/100"}));
  EXPECT_EQ(urls_of("h/[1-3:2]"), (Urls{"h/1", "h/3"}));
  EXPECT_EQ(urls_of("h/[1-10:4]"), (Urls{"h/1", "h/5", "h/9"}));
  EXPECT_EQ(urls_of("h/[a-e:2]"), (Urls{"h/a", "h/c", "h/e"}));
}

TEST(UrlGlob, SeveralPatternsMakeEveryCombinationRightmostFastest) {
  EXPECT_EQ(urls_of("http://{a,b}/[1-2]/{x,y}"),
            (Urls{"http://a/1/x", "http://a/1/y", "http://a/2/x", "http://a/2/y", "http://b/1/x",
                  "http://b/1/y", "http://b/2/x", "http://b/2/y"}));
}

TEST(UrlGlob, PatternTextsAreRecordedPerUrlInPatternOrder) {
  Result<std::vector<GlobbedUrl>> expanded = expand_url_glob("h/{a,b}/x[01-02]", 100);
  ASSERT_TRUE(expanded.ok());
  ASSERT_EQ(expanded->size(), 4u);
  EXPECT_EQ((*expanded)[1].pattern_texts, (std::vector<std::string>{"a", "02"}));
  EXPECT_EQ((*expanded)[2].pattern_texts, (std::vector<std::string>{"b", "01"}));
}

TEST(UrlGlob, BracketedIpv6HostAndEmptyBracketsAreText) {
  EXPECT_EQ(urls_of("http://[::1]:8080/"), Urls{"http://[::1]:8080/"});
  EXPECT_EQ(urls_of("http://[2001:db8::a:1]/x"), Urls{"http://[2001:db8::a:1]/x"});
  EXPECT_EQ(urls_of("http://[::ffff:192.0.2.1]/"), Urls{"http://[::ffff:192.0.2.1]/"});
  EXPECT_EQ(urls_of("http://[fe80::1%25eth0]/"), Urls{"http://[fe80::1%25eth0]/"});
  EXPECT_EQ(urls_of("http://[::1]:9/[1-2]"), (Urls{"http://[::1]:9/1", "http://[::1]:9/2"}));
  EXPECT_EQ(urls_of("http://h/[]"), Urls{"http://h/[]"});
}

TEST(UrlGlob, BackslashEscapesTheGlobCharacters) {
  EXPECT_EQ(urls_of("h/\\{a\\}\\[1\\]"), Urls{"h/{a}[1]"});
  EXPECT_EQ(urls_of("h/a\\b"), Urls{"h/a\\b"});  // any other backslash is text
  EXPECT_EQ(urls_of("h/{a\\,b,c\\}d}"), (Urls{"h/a,b", "h/c}d"}));
}

// Positions count from 1, at the character curl's caret points to or the pattern's
// opening bracket.
TEST(UrlGlobErrors, NameWhatIsWrongAndWhere) {
  EXPECT_EQ(error_of("http://127.0.0.1:9/{a"), "position 20: unmatched brace");
  EXPECT_EQ(error_of("http://127.0.0.1:9/a}"), "position 21: unmatched close brace/bracket");
  EXPECT_EQ(error_of("http://127.0.0.1:9/a]"), "position 21: unmatched close brace/bracket");
  EXPECT_EQ(error_of("http://127.0.0.1:9/{}"), "position 21: empty string within braces");
  EXPECT_EQ(error_of("http://127.0.0.1:9/{a,{b}}"), "position 23: nested brace");
  EXPECT_EQ(error_of("http://127.0.0.1:9/{a,[1-2]}"), "position 23: nested brace");
  EXPECT_EQ(error_of("http://127.0.0.1:9/{a,b]}"), "position 24: unexpected close bracket");
}

TEST(UrlGlobErrors, BadRangesPointAtTheirBracket) {
  for (const char* range :
       {"[5-1]", "[a-Z]", "[z-a]", "[1-10:20]", "[a-a:2]", "[1-3:0]", "[1-x]", "[1-2", "[12]",
        "[1-]", "[-3]", "[1-2:]", "[aa-b]", "[1-1000000000000000000000]"}) {
    const std::string message = error_of(std::string("http://h/") + range);
    EXPECT_TRUE(message.starts_with("position 10: bad range")) << range << ": " << message;
  }
}

TEST(UrlGlobErrors, TooManyUrlsFailsBeforeMakingThem) {
  EXPECT_EQ(urls_of("h/[1-10]{a,b}", 20).size(), 20u);
  EXPECT_EQ(error_of("h/[1-10]{a,b,c}", 20),
            "position 9: the URL would expand to more than 20 URLs");
  EXPECT_EQ(error_of("h/[1-99999999999999]"),
            "position 3: the URL would expand to more than 100000 URLs");
}

TEST(UrlGlobOutputNames, HashNumberIsThatPatternsText) {
  const std::vector<std::string> texts{"a", "07"};
  EXPECT_EQ(with_glob_texts("out_#1_#2.txt", texts), "out_a_07.txt");
  EXPECT_EQ(with_glob_texts("#2#1", texts), "07a");
  EXPECT_EQ(with_glob_texts("#0 #3 # #x #", texts), "#0 #3 # #x #");  // not a pattern: text
  EXPECT_EQ(with_glob_texts("#12", texts), "#12");
  EXPECT_EQ(with_glob_texts("plain", {}), "plain");
}

// Through the parser: -g wherever it stands, -o's names, and the -o refusal.
Result<CliOptions> parse(std::vector<const char*> args) {
  args.insert(args.begin(), "sluice");
  return parse_command_line(static_cast<int>(args.size()), args.data());
}

TEST(CommandLineGlob, ExpandsEachUrlArgumentAndNamesEachOutput) {
  Result<CliOptions> options = parse({"-o", "out_#1_#2", "http://h/{a,b}/[1-2]"});
  ASSERT_TRUE(options.ok()) << options.error().message();
  EXPECT_EQ(options->urls, (Urls{"http://h/a/1", "http://h/a/2", "http://h/b/1", "http://h/b/2"}));
  EXPECT_EQ(options->output_paths, (Urls{"out_a_1", "out_a_2", "out_b_1", "out_b_2"}));
}

TEST(CommandLineGlob, OneUrlFromAGlobKeepsASingleOutputWithItsText) {
  Result<CliOptions> options = parse({"-o", "f_#1", "http://h/{only}"});
  ASSERT_TRUE(options.ok()) << options.error().message();
  EXPECT_EQ(options->urls, Urls{"http://h/only"});
  EXPECT_EQ(options->output_path, "f_only");
  EXPECT_TRUE(options->output_paths.empty());
}

TEST(CommandLineGlob, GloboffKeepsUrlsAndOutputAsGiven) {
  Result<CliOptions> options = parse({"http://h/{a,b}", "-o", "f_#1", "-g"});
  ASSERT_TRUE(options.ok()) << options.error().message();
  EXPECT_EQ(options->urls, Urls{"http://h/{a,b}"});
  EXPECT_EQ(options->output_path, "f_#1");
}

TEST(CommandLineGlob, OneOutputNameForSeveralUrlsIsRefused) {
  Result<CliOptions> options = parse({"-o", "same.txt", "http://h/{a,b}"});
  ASSERT_FALSE(options.ok());
  EXPECT_EQ(options.error().category(), ErrorCategory::usage);
  EXPECT_NE(options.error().message().find("same.txt"), std::string::npos);
}

TEST(CommandLineGlob, BadGlobIsAUsageErrorNamingUrlAndPosition) {
  Result<CliOptions> options = parse({"http://h/x[1-"});
  ASSERT_FALSE(options.ok());
  EXPECT_EQ(options.error().category(), ErrorCategory::usage);
  EXPECT_EQ(options.error().message(),
            "bad URL glob in 'http://h/x[1-': position 11: bad range: no closing ']' "
            "(-g/--globoff sends {} and [] as they are)");
}

TEST(CommandLineGlob, GetDataIsAddedAfterGlobbingAndNeverGlobbed) {
  Result<CliOptions> options = parse({"-G", "-d", "q={x}", "http://h/[1-2]"});
  ASSERT_TRUE(options.ok()) << options.error().message();
  ASSERT_EQ(options->urls.size(), 2u);
  EXPECT_TRUE(options->urls[1].starts_with("http://h/2?q=")) << options->urls[1];
}

}  // namespace
}  // namespace sluice::cli

// Config files as curl documents them for -K (config_file.cpp): the separators, the
// quoted values and their escapes, comments, dashed and undashed options, and errors
// that name the file and the line. Then the command line (cli_options.cpp): a file's
// options go where -K stood, the default file first unless -q is the first argument.
#include "cli/options/syntax/config_file.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli/options/cli_options.hpp"

namespace sluice::cli {
namespace {

using Arguments = std::vector<std::vector<std::string>>;

Arguments arguments_of(std::string_view text) {
  Result<std::vector<ConfigLine>> lines = parse_config_text(text, "my.cfg");
  EXPECT_TRUE(lines.ok()) << (lines ? "" : lines.error().message());
  Arguments arguments;
  if (lines) {
    for (const ConfigLine& line : *lines) arguments.push_back(line.arguments);
  }
  return arguments;
}

std::string error_of(std::string_view text) {
  Result<std::vector<ConfigLine>> lines = parse_config_text(text, "my.cfg");
  EXPECT_FALSE(lines.ok()) << text;
  if (lines) return {};
  EXPECT_EQ(lines.error().category(), ErrorCategory::usage);
  return lines.error().message();
}

TEST(ConfigFile, UndashedOptionsTakeEqualsColonOrBlanksAsSeparator) {
  EXPECT_EQ(
      arguments_of("output = a.txt\noutput: b.txt\noutput c.txt\noutput=d\n"),
      (Arguments{
          {"--output", "a.txt"}, {"--output", "b.txt"}, {"--output", "c.txt"}, {"--output", "d"}}));
}

TEST(ConfigFile, UrlLineIsTheUrlOption) {
  EXPECT_EQ(arguments_of("url = \"http://example.org/a b\""),
            (Arguments{{"--url", "http://example.org/a b"}}));
}

TEST(ConfigFile, DashedOptionsAreSeparatedByBlanksOnly) {
  EXPECT_EQ(arguments_of("-o out\n--header \"X-A: 1\"\n-sS\n--progress=line\n"),
            (Arguments{{"-o", "out"}, {"--header", "X-A: 1"}, {"-sS"}, {"--progress=line"}}));
}

TEST(ConfigFile, OptionWithoutValueIsOneArgument) {
  EXPECT_EQ(arguments_of("silent\n  location  \n"), (Arguments{{"--silent"}, {"--location"}}));
}

TEST(ConfigFile, CommentsAndBlankLinesAreSkipped) {
  EXPECT_EQ(arguments_of("# a comment\n\n   \t\n  # indented\nsilent # why\n"
                         "output = x.txt   # the file\n"),
            (Arguments{{"--silent"}, {"--output", "x.txt"}}));
}

TEST(ConfigFile, QuotedValuesKeepBlanksSeparatorsAndEscapes) {
  EXPECT_EQ(arguments_of(R"(data = "a=b: c # not a comment")"),
            (Arguments{{"--data", "a=b: c # not a comment"}}));
  EXPECT_EQ(arguments_of(R"(data = "\\ \" \t \n \r \v")"),
            (Arguments{{"--data", "\\ \" \t \n \r \v"}}));
  // curl drops a backslash before any other character.
  EXPECT_EQ(arguments_of(R"(data = "\x\y")"), (Arguments{{"--data", "xy"}}));
  EXPECT_EQ(arguments_of("output = \"\""), (Arguments{{"--output", ""}}));
}

TEST(ConfigFile, CrlfLineEndsAreBlanks) {
  EXPECT_EQ(arguments_of("silent\r\noutput = o\r\n"), (Arguments{{"--silent"}, {"--output", "o"}}));
}

TEST(ConfigFile, LineNumbersCountEveryLine) {
  Result<std::vector<ConfigLine>> lines = parse_config_text("# c\n\nsilent\n", "f");
  ASSERT_TRUE(lines.ok());
  ASSERT_EQ(lines->size(), 1u);
  EXPECT_EQ((*lines)[0].number, 3u);
}

TEST(ConfigFile, ErrorsNameTheFileAndTheLine) {
  EXPECT_EQ(error_of("silent\n\nheader = X-A: b\n").rfind("my.cfg:3: ", 0), 0u);
  EXPECT_NE(error_of("header = X-A: b").find("double quotes"), std::string::npos);
  EXPECT_NE(error_of("data = \"open").find("no closing"), std::string::npos);
  EXPECT_NE(error_of("data = \"a\" b").find("after the closing"), std::string::npos);
  EXPECT_EQ(error_of("= x").rfind("my.cfg:1: no option name", 0), 0u);
  EXPECT_EQ(error_of("ok\n--\n").rfind("my.cfg:2: '--' is not an option", 0), 0u);
}

TEST(ConfigFile, DefaultPathPrefersAnAbsoluteXdgConfigHome) {
  EXPECT_EQ(default_config_path("/x", "/h"), "/x/sluice/config");
  EXPECT_EQ(default_config_path("relative", "/h"), "/h/.config/sluice/config");
  EXPECT_EQ(default_config_path("", "/h"), "/h/.config/sluice/config");
  EXPECT_EQ(default_config_path(nullptr, "/h"), "/h/.config/sluice/config");
  EXPECT_EQ(default_config_path(nullptr, nullptr), "");
}

// Every test of this program that calls parse_command_line reads the default config
// file: a developer's own (~/.config/sluice/config) must not change what they parse,
// so for the whole program it is looked for in a directory that does not exist.
class NoDefaultConfig : public ::testing::Environment {
 public:
  void SetUp() override { ::setenv("XDG_CONFIG_HOME", kNowhere, 1); }
  static constexpr const char* kNowhere = "/nonexistent/sluice-unit-cli";
};
const ::testing::Environment* const kNoDefaultConfig =
    ::testing::AddGlobalTestEnvironment(new NoDefaultConfig);

// parse_command_line with XDG_CONFIG_HOME pointing at a scratch directory.
class ConfigCommandLine : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("sluice-config-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_ / "sluice");
    ::setenv("XDG_CONFIG_HOME", dir_.c_str(), 1);
  }
  void TearDown() override {
    ::setenv("XDG_CONFIG_HOME", NoDefaultConfig::kNowhere, 1);
    std::filesystem::remove_all(dir_);
  }

  std::string write(const std::string& name, const std::string& text) {
    std::filesystem::path path = dir_ / name;
    std::ofstream(path, std::ios::binary) << text;
    return path.string();
  }

  Result<CliOptions> parse(std::vector<std::string> arguments) {
    std::vector<const char*> argv{"sluice"};
    for (const std::string& argument : arguments) argv.push_back(argument.c_str());
    return parse_command_line(static_cast<int>(argv.size()), argv.data());
  }

  std::filesystem::path dir_;
};

TEST_F(ConfigCommandLine, FileOptionsGoWhereTheKStood) {
  std::string file = write("a.cfg", "url = http://b.example/\nuser-agent = from-file\n");
  Result<CliOptions> options =
      parse({"http://a.example/", "-K", file, "http://c.example/", "-A", "from-command-line"});
  ASSERT_TRUE(options.ok()) << options.error().message();
  EXPECT_EQ(options->urls, (std::vector<std::string>{"http://a.example/", "http://b.example/",
                                                     "http://c.example/"}));
  EXPECT_EQ(options->user_agent, "from-command-line");
}

TEST_F(ConfigCommandLine, OptionTakesItsValueOnlyFromItsOwnLine) {
  std::string file = write("a.cfg", "output\nsilent\n");
  Result<CliOptions> options = parse({"-K", file, "http://a.example/"});
  ASSERT_FALSE(options.ok());
  EXPECT_EQ(options.error().message().rfind(file + ":1: ", 0), 0u) << options.error().message();
  EXPECT_EQ(options.error().category(), ErrorCategory::usage);
}

TEST_F(ConfigCommandLine, FlagGivenAValueIsRefusedNamingTheLine) {
  std::string file = write("a.cfg", "# c\nsilent yes\n");
  Result<CliOptions> options = parse({"-K", file});
  ASSERT_FALSE(options.ok());
  EXPECT_EQ(options.error().message().rfind(file + ":2: '--silent' takes no value", 0), 0u)
      << options.error().message();
}

TEST_F(ConfigCommandLine, UnknownOptionNamesTheLine) {
  std::string file = write("a.cfg", "silent\nno-such-option = 1\n");
  Result<CliOptions> options = parse({"-K", file});
  ASSERT_FALSE(options.ok());
  EXPECT_EQ(options.error().message().rfind(file + ":2: unknown option '--no-such-option'", 0), 0u)
      << options.error().message();
}

TEST_F(ConfigCommandLine, UnreadableFileIsAnIoError) {
  Result<CliOptions> options = parse({"-K", (dir_ / "missing").string()});
  ASSERT_FALSE(options.ok());
  EXPECT_EQ(options.error().category(), ErrorCategory::io);
}

TEST_F(ConfigCommandLine, AFileThatReadsItselfStops) {
  std::string file = (dir_ / "self.cfg").string();
  write("self.cfg", "config = " + file + "\n");
  Result<CliOptions> options = parse({"-K", file});
  ASSERT_FALSE(options.ok());
  EXPECT_NE(options.error().message().find("nest more than"), std::string::npos);
}

TEST_F(ConfigCommandLine, DefaultFileComesFirstUnlessQIsTheFirstArgument) {
  write("sluice/config", "user-agent = default-agent\nurl = http://default.example/\n");
  Result<CliOptions> with_default = parse({"-A", "mine", "http://a.example/"});
  ASSERT_TRUE(with_default.ok()) << with_default.error().message();
  EXPECT_EQ(with_default->user_agent, "mine");
  EXPECT_EQ(with_default->urls,
            (std::vector<std::string>{"http://default.example/", "http://a.example/"}));

  for (const char* disable : {"-q", "--disable"}) {
    Result<CliOptions> skipped = parse({disable, "http://a.example/"});
    ASSERT_TRUE(skipped.ok()) << skipped.error().message();
    EXPECT_EQ(skipped->urls, (std::vector<std::string>{"http://a.example/"}));
    EXPECT_EQ(skipped->user_agent, std::nullopt);
  }
  // Later, -q is too late: the default file has been read.
  Result<CliOptions> late = parse({"http://a.example/", "-q"});
  ASSERT_TRUE(late.ok());
  EXPECT_EQ(late->user_agent, "default-agent");
}

TEST_F(ConfigCommandLine, BadDefaultFileNamesItsPathAndLine) {
  std::string file = write("sluice/config", "silent\nheader = X-A: b\n");
  Result<CliOptions> options = parse({"http://a.example/"});
  ASSERT_FALSE(options.ok());
  EXPECT_EQ(options.error().message().rfind(file + ":2: ", 0), 0u) << options.error().message();
}

}  // namespace
}  // namespace sluice::cli

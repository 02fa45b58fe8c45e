// -H @FILE: headers read from a file, one a line, as -H takes each.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "cli/options/cli_options.hpp"

namespace sluice::cli {
namespace {

Result<CliOptions> parse(std::vector<const char*> args) {
  args.insert(args.begin(), "sluice");
  return parse_command_line(static_cast<int>(args.size()), args.data());
}

// A file in the test's temporary directory, removed at the end of the test.
struct TempFile {
  explicit TempFile(const std::string& text)
      : path(testing::TempDir() + "sluice_header_file_" +
             testing::UnitTest::GetInstance()->current_test_info()->name()) {
    std::ofstream(path, std::ios::binary) << text;
  }
  ~TempFile() { std::remove(path.c_str()); }
  std::string path;
};

TEST(HeaderFile, EachLineIsAHeaderAndEmptyLinesAreSkipped) {
  TempFile file("X-One: 1\r\n\nX-Two:  two words \nAccept:\nX-Empty;");
  const std::string arg = "@" + file.path;
  Result<CliOptions> options = parse({"-H", arg.c_str(), "-H", "X-Three: 3", "http://h/"});
  ASSERT_TRUE(options.ok()) << options.error().message();
  ASSERT_EQ(options->headers.size(), 4u);
  EXPECT_EQ(options->headers[0].name, "X-One");
  EXPECT_EQ(options->headers[0].value, "1");
  EXPECT_EQ(options->headers[1].value, "two words");
  EXPECT_EQ(options->headers[2].name, "X-Empty");
  EXPECT_EQ(options->headers[2].value, "");
  EXPECT_EQ(options->headers[3].name, "X-Three");
  EXPECT_EQ(options->removed_headers, std::vector<std::string>{"Accept"});
}

TEST(HeaderFile, ABadLineIsRefusedNamingIt) {
  TempFile file("X-Good: 1\nno colon here\n");
  const std::string arg = "@" + file.path;
  Result<CliOptions> options = parse({"-H", arg.c_str(), "http://h/"});
  ASSERT_FALSE(options.ok());
  EXPECT_EQ(options.error().category(), ErrorCategory::usage);
  EXPECT_NE(options.error().message().find("no colon here"), std::string::npos);
}

// curl warns and runs the transfer without the file's headers.
TEST(HeaderFile, AMissingFileAddsNothing) {
  Result<CliOptions> options = parse({"-H", "@/nonexistent/sluice-headers", "http://h/"});
  ASSERT_TRUE(options.ok());
  EXPECT_TRUE(options->headers.empty());
}

}  // namespace
}  // namespace sluice::cli

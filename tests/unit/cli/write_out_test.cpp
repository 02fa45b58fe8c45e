// src/cli/output/write_out.cpp: -w formats expand as curl documents its variables.

#include "cli/output/write_out.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

namespace sluice::cli {
namespace {

WriteOutText expand(std::string_view format, const TransferReport& report) {
  Result<WriteOutFormat> parsed = WriteOutFormat::parse(format);
  EXPECT_TRUE(parsed.ok()) << format;
  if (!parsed) return {};
  return parsed->expand(report);
}

TransferReport redirect_report() {
  TransferReport report;
  report.http_code = 302;
  report.url = "http://example.org/a/b";
  report.url_effective = "http://example.org/a/b";
  report.method = "POST";
  report.filename_effective = "out.html";
  report.headers.add("Location", "../c?x=1");
  report.headers.add("Set-Cookie", "a=1");
  report.headers.add("Content-Length", "0");
  report.headers.add("set-cookie", "b=\"2\"");
  return report;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(WriteOut, ResponseCodeIsHttpCode) {
  EXPECT_EQ(expand("%{response_code} %{http_code}", redirect_report()).out(), "302 302");
  EXPECT_EQ(expand("%{response_code}", TransferReport{}).out(), "000");
}

TEST(WriteOut, UrlMethodFilenameAndHeaderCount) {
  EXPECT_EQ(
      expand("%{url} %{method} %{filename_effective} %{num_headers}", redirect_report()).out(),
      "http://example.org/a/b POST out.html 4");
}

TEST(WriteOut, RedirectUrlResolvesTheLocationOfAnUnfollowedRedirect) {
  EXPECT_EQ(expand("%{redirect_url}", redirect_report()).out(), "http://example.org/c?x=1");
  TransferReport followed = redirect_report();
  followed.http_code = 200;
  EXPECT_EQ(expand("%{redirect_url}", followed).out(), "");
}

TEST(WriteOut, HeaderJsonGroupsRepeatedFieldsUnderTheirLowercasedName) {
  EXPECT_EQ(expand("%{header_json}", redirect_report()).out(),
            "{\"location\":[\"../c?x=1\"],\n"
            "\"set-cookie\":[\"a=1\",\"b=\\\"2\\\"\"],\n"
            "\"content-length\":[\"0\"]\n"
            "}");
  EXPECT_EQ(expand("%{header_json}", TransferReport{}).out(), "{\n}");
}

TEST(WriteOut, JsonHasTheNewVariablesButNotTheDirectives) {
  const std::string json = expand("%{json}", redirect_report()).out();
  EXPECT_NE(json.find("\"response_code\":302"), std::string::npos) << json;
  EXPECT_NE(json.find("\"method\":\"POST\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"redirect_url\":\"http://example.org/c?x=1\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"num_headers\":4"), std::string::npos) << json;
  EXPECT_EQ(json.find("onerror"), std::string::npos) << json;
  EXPECT_EQ(json.find("header_json"), std::string::npos) << json;
}

TEST(WriteOut, UnknownVariableIsKeptAsAWarningAndPrintsNothing) {
  Result<WriteOutFormat> parsed = WriteOutFormat::parse("a%{nope}b%{http_code}");
  ASSERT_TRUE(parsed.ok());
  const WriteOutText text = parsed->expand(redirect_report());
  EXPECT_EQ(text.out(), "ab302");
  ASSERT_EQ(text.unknown_variables.size(), 1u);
  EXPECT_EQ(text.unknown_variables.front(), "nope");
}

TEST(WriteOut, UnterminatedBracesAreStillUsageErrors) {
  for (std::string_view format : {"x %{http_code", "%header{", "%header{}", "%output{x"}) {
    Result<WriteOutFormat> parsed = WriteOutFormat::parse(format);
    ASSERT_FALSE(parsed.ok()) << format;
    EXPECT_EQ(parsed.error().category(), ErrorCategory::usage) << format;
  }
}

TEST(WriteOut, OnErrorPrintsTheRestOnlyAfterAFailure) {
  TransferReport ok = redirect_report();
  EXPECT_EQ(expand("a%{onerror}b %{exitcode}", ok).out(), "a");
  TransferReport failed = ok;
  failed.exit_code = 7;
  EXPECT_EQ(expand("a%{onerror}b %{exitcode}", failed).out(), "ab 7");
}

TEST(WriteOut, StderrAndStdoutSwitchTheTarget) {
  const WriteOutText text = expand("1%{stderr}2%{stdout}3", redirect_report());
  EXPECT_EQ(text.out(), "13");
  EXPECT_EQ(text.err(), "2");
}

TEST(WriteOut, OutputFileTakesTheRestAndAppendsWithTwoAngles) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("sluice-write-out-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string file = (dir / "w.txt").string();
  {
    std::ofstream old(file);
    old << "old\n";
  }
  Result<WriteOutFormat> truncate = WriteOutFormat::parse("%output{" + file + "}%{http_code}\\n");
  ASSERT_TRUE(truncate.ok());
  const WriteOutText text = truncate->expand(redirect_report());
  EXPECT_EQ(text.out(), "");
  ASSERT_TRUE(truncate->print(redirect_report()).ok());
  EXPECT_EQ(read_file(file), "302\n");

  Result<WriteOutFormat> append = WriteOutFormat::parse("%output{>>" + file + "}%{method}");
  ASSERT_TRUE(append.ok());
  ASSERT_TRUE(append->print(redirect_report()).ok());
  EXPECT_EQ(read_file(file), "302\nPOST");
  std::filesystem::remove_all(dir);
}

TEST(WriteOut, OutputFileThatCannotBeOpenedIsAnIoError) {
  Result<WriteOutFormat> parsed = WriteOutFormat::parse("%output{/nonexistent-dir/x}1");
  ASSERT_TRUE(parsed.ok());
  Result<void> printed = parsed->print(TransferReport{});
  ASSERT_FALSE(printed.ok());
  EXPECT_EQ(printed.error().category(), ErrorCategory::io);
}

}  // namespace
}  // namespace sluice::cli

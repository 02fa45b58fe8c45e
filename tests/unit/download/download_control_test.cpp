#include "download/file/download_control.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace sluice {
namespace {

ControlFile sample() {
  ControlFile control;
  control.url = "https://example.org/big file.iso?x=1";
  control.size = 1000;
  control.validator = "\"etag with spaces\"";
  control.ranges = {RangeSpec{0, 250, 250}, RangeSpec{250, 500, 17}, RangeSpec{500, 1000, 0}};
  return control;
}

std::string temp_path(const char* name) {
  return ::testing::TempDir() + "/sluice-control-" + std::to_string(::getpid()) + "-" + name;
}

std::string error_of(std::string_view text) {
  auto parsed = parse_control(text, "f.sluice");
  EXPECT_FALSE(parsed.ok()) << "accepted:\n" << text;
  if (parsed.ok()) return {};
  EXPECT_EQ(parsed.error().category(), ErrorCategory::io);
  return parsed.error().message();
}

TEST(DownloadControl, RoundTripsThroughText) {
  const ControlFile control = sample();
  auto parsed = parse_control(format_control(control), "x");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message();
  EXPECT_EQ(*parsed, control);
}

TEST(DownloadControl, RoundTripsAnUnknownSizeAndNoValidator) {
  ControlFile control;
  control.url = "http://h/stream";
  control.ranges = {RangeSpec{0, std::nullopt, 12345}};
  auto parsed = parse_control(format_control(control), "x");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message();
  EXPECT_EQ(*parsed, control);
  EXPECT_FALSE(parsed->size.has_value());
  EXPECT_TRUE(parsed->validator.empty());
}

TEST(DownloadControl, RoundTripsAResumeThatBeganPastByteZero) {
  ControlFile control = sample();
  control.ranges = {RangeSpec{400, 700, 3}, RangeSpec{700, 1000, 300}};
  auto parsed = parse_control(format_control(control), "x");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message();
  EXPECT_EQ(*parsed, control);
}

// A range download's file starts at the range's first byte: the control file says
// so, and its ranges may not reach below it.
TEST(DownloadControl, RoundTripsTheOriginOfARangeDownload) {
  ControlFile control = sample();
  control.origin = 250;
  control.ranges = {RangeSpec{250, 500, 17}, RangeSpec{500, 1000, 0}};
  const std::string text = format_control(control);
  EXPECT_NE(text.find("\norigin 250\nrange 250 500 17\n"), std::string::npos) << text;
  auto parsed = parse_control(text, "x");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message();
  EXPECT_EQ(*parsed, control);
  control.ranges.front().start = 100;
  error_of(format_control(control));
  EXPECT_EQ(format_control(sample()).find("origin"), std::string::npos);
}

TEST(DownloadControl, SavesAtomicallyAndLoadsBack) {
  const std::string path = temp_path("save");
  ASSERT_TRUE(save_control(path, sample()).ok());
  EXPECT_NE(::access((path + ".tmp").c_str(), F_OK), 0) << "the temporary file stays behind";
  auto loaded = load_control(path);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message();
  ASSERT_TRUE(loaded->has_value());
  EXPECT_EQ(**loaded, sample());
  ASSERT_TRUE(remove_control(path).ok());
  auto missing = load_control(path);
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->has_value());
  EXPECT_TRUE(remove_control(path).ok()) << "removing a missing control file is not an error";
}

TEST(DownloadControl, LoadRejectsACorruptFileWithItsName) {
  const std::string path = temp_path("corrupt");
  {
    std::ofstream out(path);
    out << "garbage\n";
  }
  auto loaded = load_control(path);
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.error().message().find(path), std::string::npos) << loaded.error().message();
  EXPECT_NE(loaded.error().message().find("remove it"), std::string::npos);
  std::remove(path.c_str());
}

TEST(DownloadControl, RejectsAnotherVersion) {
  std::string text = format_control(sample());
  text.replace(text.find(" 1\n"), 3, " 2\n");
  EXPECT_NE(error_of(text).find("version"), std::string::npos);
}

TEST(DownloadControl, RejectsACutFile) {
  const std::string text = format_control(sample());
  EXPECT_NE(error_of(text.substr(0, text.size() - 4)).find("ends before"), std::string::npos);
  error_of(text.substr(0, text.size() - 1));  // "end" without its newline
  error_of(text.substr(0, text.find("range")));
}

TEST(DownloadControl, RejectsTextAfterEnd) { error_of(format_control(sample()) + "range 0 1 0\n"); }

TEST(DownloadControl, RejectsMalformedLines) {
  const std::string good = format_control(sample());
  const auto with = [&](std::string_view from, std::string_view to) {
    std::string text = good;
    text.replace(text.find(from), from.size(), to);
    return text;
  };
  error_of(with("size 1000", "size 10x0"));
  error_of(with("size 1000", "length 1000"));
  error_of(with("url https", "url\nhttps"));
  error_of(with("range 250 500 17", "range 250 500"));
  error_of(with("range 250 500 17", "range 250 500 -17"));
  error_of(with("range 250 500 17", "range 250 500 251"));  // more done than the range holds
  error_of(with("validator ", "valid "));
}

TEST(DownloadControl, RejectsRangesThatDoNotFitTheSize) {
  const std::string good = format_control(sample());
  const auto with = [&](std::string_view from, std::string_view to) {
    std::string text = good;
    text.replace(text.find(from), from.size(), to);
    return text;
  };
  error_of(with("range 500 1000 0", "range 500 1001 0"));  // past the size
  error_of(with("range 250 500 17", "range 200 500 17"));  // overlaps range 1
  error_of(with("range 500 1000 0", "range 500 - 0"));     // open range with a known size
  ControlFile unknown;
  unknown.url = "http://h/x";
  unknown.ranges = {RangeSpec{0, std::nullopt, 0}, RangeSpec{5, std::nullopt, 0}};
  error_of(format_control(unknown));
  ControlFile none = sample();
  none.ranges.clear();
  error_of(format_control(none));
}

}  // namespace
}  // namespace sluice

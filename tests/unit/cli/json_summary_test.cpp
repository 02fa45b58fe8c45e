// json_string: every byte a server can put in a file name or message comes out as a
// JSON string that parses (RFC 8259), and valid UTF-8 comes out unchanged.
#include "cli/output/json_summary.hpp"

#include <gtest/gtest.h>

#include <string>

#include "sluice/download.hpp"

namespace sluice::cli {
namespace {

TEST(JsonString, EscapesQuotesBackslashesAndControls) {
  EXPECT_EQ(json_string("a\"b\\c\n\t\x01\x7f"), "\"a\\\"b\\\\c\\n\\t\\u0001\\u007f\"");
}

TEST(JsonString, KeepsValidUtf8) {
  EXPECT_EQ(json_string("caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x98\x80"),
            "\"caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x98\x80\"");
}

TEST(JsonString, BytesThatAreNotUtf8BecomeTheReplacementCharacter) {
  EXPECT_EQ(json_string("a\xff"
                        "b"),
            "\"a\\ufffdb\"");
  EXPECT_EQ(json_string("\xc3"), "\"\\ufffd\"");                        // cut short
  EXPECT_EQ(json_string("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\"");  // a surrogate
}

TEST(JsonString, C1ControlsAreEscaped) {
  EXPECT_EQ(json_string("x\xc2\x9b"
                        "y"),
            "\"x\\u009by\"");
}

TEST(JsonSummary, ADownloadReportsItsRangesRetriesAndSteals) {
  DownloadResult done;
  done.path = "f.bin";
  done.first_response.status = 206;
  done.size = 10;
  done.transferred = 10;
  done.ranges = 4;
  done.retries = 1;
  done.steals = 2;
  const std::string line = json_summary("http://h/f.bin", done, 0, nullptr);
  EXPECT_NE(line.find("\"ranges\":4,\"retries\":1,\"steals\":2,"), std::string::npos) << line;
}

TEST(JsonSummary, MirrorsAreListedWithTheirBytesAndWhyOneWasDropped) {
  DownloadResult done;
  EXPECT_EQ(json_summary("http://h/f", done, 0, nullptr).find("\"sources\""), std::string::npos)
      << "no mirrors, no list";
  done.sources = {{"http://h/f", 7, ""}, {"http://m/f", 0, "refused"}};
  const std::string line = json_summary("http://h/f", done, 0, nullptr);
  EXPECT_NE(line.find("\"sources\":[{\"url\":\"http://h/f\",\"bytes\":7,\"dropped\":null},"
                      "{\"url\":\"http://m/f\",\"bytes\":0,\"dropped\":\"refused\"}],"),
            std::string::npos)
      << line;
}

}  // namespace
}  // namespace sluice::cli

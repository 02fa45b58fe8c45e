// The --trace and --trace-ascii file formats, byte for byte.
#include "cli/output/wire_dump.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace sluice::cli {
namespace {

std::vector<std::byte> bytes_of(std::string_view text) {
  std::vector<std::byte> out;
  for (char c : text) out.push_back(static_cast<std::byte>(c));
  return out;
}

TEST(WireDump, HexLinesHoldSixteenBytesWithTheirPrintableColumn) {
  const auto bytes = bytes_of(std::string("PRI * HTTP/2.0\r\n\r\nSM\x00\x7f", 22));
  EXPECT_EQ(dump_bytes(bytes, DumpStyle::hex),
            "0000: 50 52 49 20 2a 20 48 54 54 50 2f 32 2e 30 0d 0a PRI * HTTP/2.0..\n"
            "0010: 0d 0a 53 4d 00 7f                               ..SM..\n");
}

TEST(WireDump, AsciiEndsALineAtCrlfAndWrapsAtSixtyFour) {
  const std::string long_line(70, 'x');
  const auto bytes = bytes_of("GET / HTTP/1.1\r\nHost: a\r\n\r\n" + long_line + "\tz");
  EXPECT_EQ(dump_bytes(bytes, DumpStyle::ascii),
            "0000: GET / HTTP/1.1\n"
            "0010: Host: a\n"
            "0019: \n"
            "001b: " +
                std::string(64, 'x') +
                "\n"
                "005b: xxxxxx.z\n");
}

TEST(WireDump, ARecordHasCurlsTitle) {
  const auto bytes = bytes_of("hi\r\n");
  const WireChunk sent{1, WireDirection::sent, false, bytes};
  EXPECT_EQ(dump_chunk(sent, DumpStyle::ascii), "=> Send data, 4 bytes (0x4)\n0000: hi\n");
  const WireChunk received{1, WireDirection::received, true, bytes};
  EXPECT_EQ(dump_chunk(received, DumpStyle::hex),
            "<= Recv data, 4 bytes (0x4)\n"
            "0000: 68 69 0d 0a                                     hi..\n");
  EXPECT_EQ(dump_info("c1 h1: GET /"), "== Info: c1 h1: GET /\n");
  const WireChunk on_stream{1, WireDirection::sent, true, bytes, 4};
  EXPECT_EQ(dump_chunk(on_stream, DumpStyle::ascii),
            "=> Send data, 4 bytes (0x4), stream 4\n0000: hi\n");
  EXPECT_EQ(dump_bytes({}, DumpStyle::hex), "");
}

TEST(WireDump, TimestampIsHoursToMicroseconds) {
  const std::string stamp = trace_timestamp();
  ASSERT_EQ(stamp.size(), 16u) << stamp;
  EXPECT_EQ(stamp[2], ':');
  EXPECT_EQ(stamp[5], ':');
  EXPECT_EQ(stamp[8], '.');
  EXPECT_EQ(stamp[15], ' ');
}

}  // namespace
}  // namespace sluice::cli

// The TLS session file: what is written reads back byte for byte, bad lines are
// skipped with a reason (never a crash), and a session cache refuses bytes that are
// not a resumable session.
#include "tls/tls_session_file.hpp"

#include <gtest/gtest.h>

#include "tls/tls_session_cache.hpp"

namespace sluice {
namespace {

TEST(TlsSessionFile, WhatIsWrittenReadsBack) {
  const std::vector<TlsSessionFileEntry> entries = {
      {TlsSessionFileEntry::Kind::tcp, "0123abcd", "example.com:443", 1900000000,
       std::string("\x30\x82\x00\xff", 4), ""},
      {TlsSessionFileEntry::Kind::quic, "0123abcd", "::1:8443", 1900000001, "ticket", "params"},
      {TlsSessionFileEntry::Kind::quic, "99", "a.example:443", 1900000002, "t", ""},
  };
  const std::string text = format_tls_session_file(entries);
  EXPECT_EQ(text.find("secret"), std::string::npos);
  EXPECT_NE(text.find("tcp 0123abcd example.com:443 1900000000 308200ff\n"), std::string::npos);
  EXPECT_NE(text.find("quic 99 a.example:443 1900000002 74 -\n"), std::string::npos);
  const TlsSessionFileContents contents = parse_tls_session_file(text);
  EXPECT_TRUE(contents.skipped.empty());
  ASSERT_EQ(contents.entries.size(), 3u);
  EXPECT_EQ(contents.entries[0].session, entries[0].session);
  EXPECT_EQ(contents.entries[1].origin, "::1:8443");
  EXPECT_EQ(contents.entries[1].transport_params, "params");
  EXPECT_EQ(contents.entries[2].transport_params, "");
  EXPECT_EQ(format_tls_session_file(contents.entries), text);
}

TEST(TlsSessionFile, BadLinesAreSkippedWithTheirReasons) {
  const TlsSessionFileContents contents = parse_tls_session_file(
      "udp 00 a:443 1 00\n"      // kind
      "tcp 00 a:443 1\n"         // 4 fields
      "quic 00 a:443 1 00\n"     // 5 fields for quic
      "tcp XY a:443 1 00\n"      // settings
      "tcp 00 a 1 00\n"          // no port
      "tcp 00 a:0 1 00\n"        // port 0
      "tcp 00 a:443 -5 00\n"     // expiry
      "tcp 00 a:443 1 0\n"       // odd hex
      "tcp 00 a:443 1 zz\n"      // not hex
      "tcp 00 a:443 1 \"\"\n"    // empty session
      "quic 00 a:443 1 00 0g\n"  // transport parameters
      "tcp 00 ok.example:443 1900000000 00\n");
  ASSERT_EQ(contents.entries.size(), 1u);
  ASSERT_EQ(contents.skipped.size(), 11u);
  EXPECT_EQ(contents.skipped[0].reason, "unknown kind");
  EXPECT_EQ(contents.skipped[1].reason, "expected 5 fields, found 4");
  EXPECT_EQ(contents.skipped[2].reason, "expected 6 fields, found 5");
  EXPECT_EQ(contents.skipped[3].reason, "bad settings name");
  EXPECT_EQ(contents.skipped[4].reason, "bad origin");
  EXPECT_EQ(contents.skipped[5].reason, "bad origin");
  EXPECT_EQ(contents.skipped[6].reason, "bad expiry time");
  EXPECT_EQ(contents.skipped[7].reason, "bad session");
  EXPECT_EQ(contents.skipped[8].reason, "bad session");
  EXPECT_EQ(contents.skipped[9].reason, "bad session");
  EXPECT_EQ(contents.skipped[10].reason, "bad transport parameters");
}

// Found by fuzz_tls_session_file (fuzz/corpus/tls_session_file/crash-origin-with-blank):
// a quoted origin with a blank was kept, then written unquoted, so the saved file
// lost the session (and the line read back as other fields).
TEST(TlsSessionFile, AnOriginThatCannotBeWrittenBackIsSkipped) {
  const TlsSessionFileContents contents = parse_tls_session_file(
      "tcp 00 \"a b:443\" 1900000000 00\n"
      "tcp 00 \"a\tb:443\" 1900000000 00\n"
      "tcp 00 \"a\x01"
      "b:443\" 1900000000 00\n"
      "tcp 00 a\"b:443 1900000000 00\n"
      "tcp 00 \"a.example:443\" 1900000000 00\n");
  ASSERT_EQ(contents.skipped.size(), 4u);
  for (const SkippedLine& skipped : contents.skipped) EXPECT_EQ(skipped.reason, "bad origin");
  ASSERT_EQ(contents.entries.size(), 1u);
  EXPECT_EQ(contents.entries[0].origin, "a.example:443");
  EXPECT_EQ(parse_tls_session_file(format_tls_session_file(contents.entries)).entries.size(), 1u);
}

TEST(TlsSessionFile, GarbageNeverCrashes) {
  for (const std::string& input :
       {std::string(), std::string("\"\n"), std::string(3000, 'f'),
        std::string("tcp 0 a:1 99999999999999999999 00"), std::string("tcp\0 0 a:1 1 00", 15)}) {
    EXPECT_TRUE(parse_tls_session_file(input).entries.empty());
  }
}

TEST(TlsSessionFile, ACacheKeepsOnlyBytesThatAreASession) {
  TlsSessionCache cache(4);
  cache.restore("a.example:443", "not DER at all");
  cache.restore("b.example:443", "");
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_TRUE(cache.saved().empty());
}

}  // namespace
}  // namespace sluice

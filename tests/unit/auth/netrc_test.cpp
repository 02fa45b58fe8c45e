// The netrc parser (tokens, quoting, default, macdef, comments, errors naming the
// file and line) and the lookup rules curl applies to it.
#include "auth/netrc.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace sluice {
namespace {

Netrc parsed(std::string_view text) {
  auto netrc = Netrc::parse(text, "test.netrc");
  EXPECT_TRUE(netrc.ok()) << netrc.error().message();
  return netrc.ok() ? std::move(*netrc) : Netrc{};
}

std::string error_of(std::string_view text) {
  auto netrc = Netrc::parse(text, "test.netrc");
  EXPECT_FALSE(netrc.ok());
  return netrc.ok() ? std::string() : netrc.error().message();
}

TEST(Netrc, EntriesOnOneLineOrManyAndTheFirstMachineWins) {
  const Netrc netrc = parsed(
      "machine a.example login alice password one\n"
      "machine b.example\n"
      "  login bob\n"
      "\tpassword two\n"
      "machine a.example login carol password three\n");
  auto a = netrc.find("a.example", std::nullopt);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->login, "alice");
  EXPECT_EQ(a->password, "one");
  auto b = netrc.find("B.Example", std::nullopt);  // host names have no case
  ASSERT_TRUE(b);
  EXPECT_EQ(b->login, "bob");
  EXPECT_EQ(b->password, "two");
  EXPECT_FALSE(netrc.find("c.example", std::nullopt));
  ASSERT_EQ(netrc.entries().size(), 3u);
  EXPECT_EQ(netrc.entries()[1].line, 2);
}

// curl's CVE-2022-35260 read past a buffer on a long netrc line. Here a token of
// megabytes (a quoted one with an open quote too) is a string like any other: the
// entries around it keep their meaning and line numbers.
TEST(Netrc, TokensOfMegabytesDoNotDisturbTheEntriesAroundThem) {
  const std::string huge(8u << 20, 'x');
  const Netrc netrc = parsed("machine big.example login " + huge + " password \"" + huge +
                             "\"\nmachine a.example login alice password one\n");
  auto a = netrc.find("a.example", std::nullopt);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->login, "alice");
  EXPECT_EQ(netrc.entries().back().line, 2);
  EXPECT_EQ(netrc.find("big.example", std::nullopt)->login.size(), huge.size());
  EXPECT_NE(error_of("machine m login \"" + huge), "");
}

TEST(Netrc, AUserNameFromTheUrlPicksTheEntryWithThatLogin) {
  const Netrc netrc = parsed(
      "machine a.example login alice password one\n"
      "machine a.example login carol password three\n"
      "default login anon password guest\n");
  auto carol = netrc.find("a.example", std::string_view("carol"));
  ASSERT_TRUE(carol);
  EXPECT_EQ(carol->password, "three");
  // No machine entry with that login: the default's, only if its login matches too.
  EXPECT_FALSE(netrc.find("a.example", std::string_view("dave")));
  auto anon = netrc.find("a.example", std::string_view("anon"));
  ASSERT_TRUE(anon);
  EXPECT_EQ(anon->password, "guest");
}

TEST(Netrc, DefaultAnswersEveryOtherHostWhereverItStands) {
  const Netrc netrc = parsed(
      "default login anon password guest\n"
      "machine a.example login alice password one\n");
  EXPECT_EQ(netrc.find("a.example", std::nullopt)->login, "alice");
  EXPECT_EQ(netrc.find("other.example", std::nullopt)->login, "anon");
}

TEST(Netrc, QuotedTokensCarryBlanksQuotesAndEscapes) {
  const Netrc netrc = parsed(
      "machine a.example login \"al ice\" password \"p\\\"w\\\\d\\tx\\ny\"\n"
      "machine b.example login bob password \"#not a comment\"\n");
  auto a = netrc.find("a.example", std::nullopt);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->login, "al ice");
  EXPECT_EQ(a->password, "p\"w\\d\tx\ny");
  EXPECT_EQ(netrc.find("b.example", std::nullopt)->password, "#not a comment");
}

TEST(Netrc, CommentsAccountsAndCrlfLinesAreSkipped) {
  const Netrc netrc = parsed(
      "# a comment line\r\n"
      "machine a.example # the rest is a comment\r\n"
      "  login alice account acct password one\r\n");
  auto a = netrc.find("a.example", std::nullopt);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->login, "alice");
  EXPECT_EQ(a->password, "one");
}

TEST(Netrc, AMacroRunsToTheNextBlankLineAndEndsItsEntry) {
  const Netrc netrc = parsed(
      "machine a.example login alice\n"
      "macdef init\n"
      "cd /pub\n"
      "machine b.example login mallory password nope\n"
      "\n"
      "machine c.example login carol password three\n");
  EXPECT_FALSE(netrc.find("b.example", std::nullopt));  // inside the macro
  EXPECT_EQ(netrc.find("a.example", std::nullopt)->login, "alice");
  EXPECT_EQ(netrc.find("a.example", std::nullopt)->password, "");
  EXPECT_EQ(netrc.find("c.example", std::nullopt)->password, "three");
}

TEST(Netrc, AnEmptyFileHasNoEntries) {
  EXPECT_TRUE(parsed("").entries().empty());
  EXPECT_TRUE(parsed("\n\n# only a comment\n").entries().empty());
}

TEST(Netrc, ErrorsNameTheFileAndTheLine) {
  EXPECT_EQ(error_of("machine a.example\n  login \"alice\n"),
            "netrc: test.netrc:2: a quoted token is not closed (a '\"' is missing)");
  EXPECT_EQ(error_of("machine a.example login alice\npassword"),
            "netrc: test.netrc:2: 'password' needs a value");
  EXPECT_EQ(error_of("\nlogin alice password one\n"),
            "netrc: test.netrc:2: 'login' comes before any 'machine' or 'default'");
  EXPECT_EQ(error_of("machine a.example\nusername alice\n"),
            "netrc: test.netrc:2: unexpected 'username' (expected machine, default, login, "
            "password, account or macdef)");
  EXPECT_EQ(error_of("machine"), "netrc: test.netrc:1: 'machine' needs a value");
}

class NetrcFile : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = ::testing::TempDir() + "sluice-netrc-test-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name();
  }
  void TearDown() override { std::remove(path_.c_str()); }
  void write(const std::string& text) { std::ofstream(path_) << text; }
  std::string path_;
};

TEST_F(NetrcFile, AMissingNamedFileIsAnErrorOnlyWhenRequired) {
  ClientOptions options;
  options.netrc_file = path_;  // not written
  options.netrc = NetrcMode::required;
  auto required = load_netrc(options);
  ASSERT_FALSE(required.ok());
  EXPECT_NE(required.error().message().find(path_), std::string::npos)
      << required.error().message();
  options.netrc = NetrcMode::optional;
  auto optional = load_netrc(options);
  ASSERT_TRUE(optional.ok());
  EXPECT_FALSE(optional->has_value());
}

TEST_F(NetrcFile, AMalformedFileFailsWithItsPathAndLine) {
  write("machine a.example\nlogin\n");
  ClientOptions options;
  options.netrc_file = path_;
  options.netrc = NetrcMode::optional;
  auto loaded = load_netrc(options);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().message(), "netrc: " + path_ + ":2: 'login' needs a value");
}

TEST_F(NetrcFile, OffReadsNothing) {
  write("this is not a netrc file");
  ClientOptions options;
  options.netrc_file = path_;
  auto loaded = load_netrc(options);
  ASSERT_TRUE(loaded.ok());
  EXPECT_FALSE(loaded->has_value());
}

}  // namespace
}  // namespace sluice

// ClientOptions::state's files: what load_state_files reads goes into the caches with
// its expiry moved from the wall clock to the loop's, a snapshot writes it back the
// same, expired and bad lines are dropped, and a missing file is an empty start.
#include "client/state_files.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/state_file.hpp"
#include "sluice/url.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;

constexpr UnixSeconds kWallNow = 1'900'000'000;  // 2030-03-17
const TimePoint kNow = TimePoint{} + 1000h;

struct StateFiles : ::testing::Test {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      ("sluice-state-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
       ::testing::UnitTest::GetInstance()->current_test_info()->name());
  AltSvcCache alt_svc;
  HstsStore hsts;
  StateFileOptions options;
  std::vector<std::string> lines;
  Trace trace{[this](std::string_view line) { lines.emplace_back(line); }};

  StateFiles() {
    std::filesystem::create_directories(dir);
    options.alt_svc_file = (dir / "alt-svc").string();
    options.hsts = true;
    options.hsts_file = (dir / "hsts").string();
  }
  ~StateFiles() override { std::filesystem::remove_all(dir); }

  void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }
  StateCaches caches() { return {alt_svc, &hsts}; }
};

TEST_F(StateFiles, AMissingFileIsAnEmptyStart) {
  load_state_files(options, caches(), kNow, kWallNow, trace);
  EXPECT_EQ(alt_svc.origin_count(), 0u);
  EXPECT_EQ(hsts.size(), 0u);
  EXPECT_TRUE(lines.empty());
}

TEST_F(StateFiles, EntriesComeBackWithTheirExpiryAndGoOutTheSame) {
  const std::string alt_svc_text =
      "# comment\n"
      "h2 a.example 443 h3 a.example 8443 \"20300317 18:46:40\" 0 0\n"     // wall + 3600
      "h2 [::1] 8443 h3 alt.example 443 \"20300317 18:20:00\" 0 0\n"       // wall + 2000
      "h2 old.example 443 h3 old.example 443 \"20200101 00:00:00\" 0 0\n"  // expired
      "junk\n";
  write(options.alt_svc_file, alt_svc_text);
  write(options.hsts_file,
        ".secure.example \"20300317 18:46:40\"\nold.example \"20200101 00:00:00\"\n");
  load_state_files(options, caches(), kNow, kWallNow, trace);
  auto a = alt_svc.lookup("https://a.example", kNow);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->host, "");
  EXPECT_EQ(a->port, 8443);
  EXPECT_EQ(a->expires, kNow + 3600s);
  auto v6 = alt_svc.lookup("https://[::1]:8443", kNow);
  ASSERT_TRUE(v6.has_value());
  EXPECT_EQ(v6->host, "alt.example");
  EXPECT_FALSE(alt_svc.lookup("https://old.example", kNow).has_value());
  EXPECT_TRUE(hsts.applies_to("www.secure.example", kWallNow));
  EXPECT_EQ(hsts.size(), 1u);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0],
            "alt-svc file " + options.alt_svc_file + ":5: skipped: expected 9 fields, found 1");

  const auto files = snapshot_state_files(options, caches(), kNow, kWallNow);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_NE(files[0].text.find("h2 a.example 443 h3 a.example 8443 \"20300317 18:46:40\" 0 0\n"),
            std::string::npos);
  EXPECT_NE(files[0].text.find("h2 [::1] 8443 h3 alt.example 443 \"20300317 18:20:00\" 0 0\n"),
            std::string::npos);
  EXPECT_EQ(files[0].text.find("old.example"), std::string::npos);
  EXPECT_NE(files[1].text.find(".secure.example \"20300317 18:46:40\"\n"), std::string::npos);
  ASSERT_TRUE(write_state_files(files).ok());
  auto written = read_state_file("test", options.alt_svc_file);
  ASSERT_TRUE(written.ok());
  EXPECT_EQ(**written, files[0].text);
  EXPECT_EQ(std::filesystem::status(options.hsts_file).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
}

// A lookup keys the origin as a request's URL writes it; an address the file spells
// otherwise (a zero group kept) must be found all the same. (Upper case was already
// folded by the file's parser: that half guards against losing it.)
TEST_F(StateFiles, AnAddressSpelledOtherwiseIsFoundAsARequestWritesIt) {
  write(options.alt_svc_file,
        "h2 [2001:db8::0] 443 h3 [2001:db8::2] 443 \"20300317 18:46:40\" 0 0\n"
        "h2 [2001:DB8::5] 8443 h3 alt.example 443 \"20300317 18:46:40\" 0 0\n");
  load_state_files(options, caches(), kNow, kWallNow, trace);
  auto zero = alt_svc.lookup(Url::parse("https://[2001:db8::0]/").value().origin(), kNow);
  ASSERT_TRUE(zero.has_value());
  EXPECT_EQ(zero->port, 443);
  auto upper = alt_svc.lookup(Url::parse("https://[2001:DB8::5]:8443/").value().origin(), kNow);
  ASSERT_TRUE(upper.has_value());
  EXPECT_EQ(upper->host, "alt.example");
}

// The year 9999 (curl writes such dates, and the file is anyone's text) lasts as
// long as a header's longest "ma" (2^31 s), not past the steady clock's range.
TEST_F(StateFiles, AFarFutureExpiryIsCappedAtTheLongestMaxAge) {
  write(options.alt_svc_file, "h2 far.example 443 h3 far.example 443 \"99991231 23:59:59\" 0 0\n");
  load_state_files(options, caches(), kNow, kWallNow, trace);
  auto far = alt_svc.lookup("https://far.example", kNow);
  ASSERT_TRUE(far.has_value());
  EXPECT_EQ(far->expires, kNow + std::chrono::seconds(std::int64_t{1} << 31));
}

TEST_F(StateFiles, AFileThatCannotBeWrittenIsAnErrorNamingIt) {
  options.alt_svc_file = (dir / "no-such-dir" / "alt-svc").string();
  const auto files = snapshot_state_files(options, caches(), kNow, kWallNow);
  auto written = write_state_files(files);
  ASSERT_FALSE(written.ok());
  EXPECT_NE(written.error().message().find(options.alt_svc_file), std::string::npos);
  // The other file was written all the same.
  EXPECT_TRUE(std::filesystem::exists(options.hsts_file));
}

TEST_F(StateFiles, NoFileNamedNothingWritten) {
  options = StateFileOptions{};
  EXPECT_TRUE(snapshot_state_files(options, {alt_svc, nullptr}, kNow, kWallNow).empty());
}

}  // namespace
}  // namespace sluice

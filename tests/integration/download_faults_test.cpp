// sluice::download() against a scripted server (RangeFileServer): no range support,
// a file that changes between runs, bodies cut short with and without retries,
// statuses worth a retry, the rate limit, names from Content-Disposition.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "download/file/download_control.hpp"
#include "integration/download_test_server.hpp"
#include "sluice/download.hpp"
#include "support/make_client.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;
using test::file_exists;
using test::sha256_of_file;

constexpr std::size_t k8m = 8u << 20;

bool has_note(const DownloadResult& result, std::string_view part) {
  for (const auto& note : result.notes) {
    if (note.find(part) != std::string::npos) return true;
  }
  return false;
}

std::string notes_of(const DownloadResult& result) {
  std::string all;
  for (const auto& note : result.notes) all += "[" + note + "] ";
  return all;
}

class DownloadFaults : public ::testing::Test {
 protected:
  DownloadOptions options_for(const std::string& path) const {
    DownloadOptions options;
    options.request = Request::get(server_.url());
    options.target.path = path;
    options.retry.delay = 10ms;
    return options;
  }

  Client client_ = test::make_client();
  const std::string body_ = test::pseudo_random_bytes(k8m, 7);
  test::RangeFileServer server_{body_};
  test::ScratchDir dir_;
};

TEST_F(DownloadFaults, ServerWithoutRangesGetsOneRangeAndANote) {
  server_.set_ranges(false);
  const std::string path = dir_.file("f");
  auto options = options_for(path);
  options.ranges = 4;
  auto result = download(client_, options);
  ASSERT_TRUE(result.ok()) << result.error().message();
  EXPECT_EQ(result->ranges, 1u);
  EXPECT_EQ(result->first_response.status, 200);
  EXPECT_TRUE(has_note(*result, "does not answer ranges")) << notes_of(*result);
  EXPECT_EQ(server_.seen().size(), 1u);
  EXPECT_EQ(sha256_of_file(path), test::sha256_hex(body_));
  EXPECT_FALSE(file_exists(control_file_path(path)));
}

TEST_F(DownloadFaults, ServerIgnoringTheResumeRangeRestartsFromByteZero) {
  server_.set_ranges(false);
  const std::string path = dir_.file("f");
  test::write_file(path, "stale bytes that are not the file");
  auto options = options_for(path);
  options.resume = true;
  auto result = download(client_, options);
  ASSERT_TRUE(result.ok()) << result.error().message();
  EXPECT_TRUE(has_note(*result, "ignored the range")) << notes_of(*result);
  EXPECT_EQ(result->resumed_from, 0u);
  EXPECT_EQ(sha256_of_file(path), test::sha256_hex(body_));
}

TEST_F(DownloadFaults, CutBodyWithoutRetriesFailsAndIsResumable) {
  const std::size_t cut = (3u << 20) + 100;
  server_.set_cut(
      [](int index, std::uint64_t) { return index == 0 ? static_cast<long long>(cut) : -1; });
  const std::string path = dir_.file("f");
  auto options = options_for(path);
  auto failed = download(client_, options);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().category(), ErrorCategory::protocol) << failed.error().message();
  EXPECT_TRUE(file_exists(path));
  ASSERT_TRUE(file_exists(control_file_path(path))) << "an incomplete file keeps its control file";
  auto control = load_control(control_file_path(path));
  ASSERT_TRUE(control.ok() && control->has_value());
  EXPECT_EQ((*control)->ranges.at(0).done, cut);
  EXPECT_EQ((*control)->validator, "\"v1\"");

  options.resume = true;
  auto resumed = download(client_, options);
  ASSERT_TRUE(resumed.ok()) << resumed.error().message();
  EXPECT_EQ(resumed->resumed_from, cut);
  EXPECT_EQ(resumed->transferred, k8m - cut);
  EXPECT_EQ(server_.seen().back().range,
            "bytes=" + std::to_string(cut) + "-" + std::to_string(k8m - 1));
  EXPECT_EQ(server_.seen().back().if_range, "\"v1\"");
  EXPECT_EQ(sha256_of_file(path), test::sha256_hex(body_));
  EXPECT_FALSE(file_exists(control_file_path(path)));
}

// control_file_path() is where the downloader keeps its control file: a program (the
// command's -C -) looks there to know whether a file is incomplete.
TEST_F(DownloadFaults, AnIncompleteDownloadKeepsItsControlFileAtControlFilePath) {
  server_.set_cut([](int index, std::uint64_t) { return index == 0 ? 1000LL : -1LL; });
  const std::string path = dir_.file("data.bin");
  ASSERT_FALSE(download(client_, options_for(path)).ok());
  std::set<std::string> left;
  for (const auto& entry : std::filesystem::directory_iterator(dir_.path())) {
    left.insert(entry.path().string());
  }
  EXPECT_EQ(left, (std::set<std::string>{path, control_file_path(path)}));
  EXPECT_EQ(control_file_path(path), path + ".sluice");
}

TEST_F(DownloadFaults, CutBodyIsRetriedFromTheBytesWritten) {
  const std::size_t cut = (3u << 20) + 100;
  server_.set_cut(
      [](int index, std::uint64_t) { return index == 0 ? static_cast<long long>(cut) : -1; });
  const std::string path = dir_.file("f");
  auto options = options_for(path);
  options.retry.retries = 2;
  options.sha256 = test::sha256_hex(body_);
  auto result = download(client_, options);
  ASSERT_TRUE(result.ok()) << result.error().message();
  EXPECT_EQ(result->retries, 1);
  EXPECT_EQ(result->transferred, k8m) << "nothing fetched twice";
  const auto seen = server_.seen();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[1].range, "bytes=" + std::to_string(cut) + "-" + std::to_string(k8m - 1));
  EXPECT_EQ(sha256_of_file(path), test::sha256_hex(body_));
}

// A server that stops answering ranges: the retry's 200 is the same file (same
// ETag), so its first bytes are read past and the download completes, as -C - would.
TEST_F(DownloadFaults, RetryAnsweredWithTheWholeFileSkipsWhatWasWritten) {
  const std::size_t cut = (3u << 20) + 100;
  server_.set_ranges(false);
  server_.set_cut(
      [](int index, std::uint64_t) { return index == 0 ? static_cast<long long>(cut) : -1; });
  const std::string path = dir_.file("f");
  auto options = options_for(path);
  options.retry.retries = 1;
  options.sha256 = test::sha256_hex(body_);
  auto result = download(client_, options);
  ASSERT_TRUE(result.ok()) << result.error().message();
  EXPECT_EQ(result->retries, 1);
  EXPECT_EQ(result->transferred, k8m + cut) << "the skipped bytes came over the network too";
  const auto seen = server_.seen();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[1].range, "bytes=" + std::to_string(cut) + "-" + std::to_string(k8m - 1));
  EXPECT_EQ(sha256_of_file(path), test::sha256_hex(body_));
}

// Interrupted with one range, resumed with --split 4: the rest is split, and the
// first request's answer stops where its shortened range ends.
TEST_F(DownloadFaults, ResumingWithALargerSplitSplitsTheRest) {
  const std::size_t cut = (1u << 20) + 7;
  server_.set_cut(
      [](int index, std::uint64_t) { return index == 0 ? static_cast<long long>(cut) : -1; });
  const std::string path = dir_.file("f");
  auto first = options_for(path);
  ASSERT_FALSE(download(client_, first).ok());
  ASSERT_TRUE(file_exists(control_file_path(path)));
  auto again = options_for(path);
  again.resume = true;
  again.ranges = 4;
  again.sha256 = test::sha256_hex(body_);
  auto result = download(client_, again);
  ASSERT_TRUE(result.ok()) << result.error().message();
  EXPECT_EQ(result->ranges, 4u);
  EXPECT_TRUE(has_note(*result, "split the rest into 4 ranges")) << notes_of(*result);
  EXPECT_EQ(result->resumed_from, cut);
  EXPECT_EQ(server_.seen().size(), 5u) << "the cut request, the resumed one and three more ranges";
  EXPECT_EQ(sha256_of_file(path), test::sha256_hex(body_));
  EXPECT_FALSE(file_exists(control_file_path(path)));
}

TEST_F(DownloadFaults, CutRangeOfASegmentedDownloadIsRetriedAlone) {
  const std::uint64_t third = 2u << 20;  // 8 MiB in 4 ranges: range 3 starts at 4 MiB
  std::atomic<bool> cut_once{false};
  server_.set_cut([&cut_once](int, std::uint64_t start) -> long long {
    if (start == 2 * third && !cut_once.exchange(true)) return 1000;
    return -1;
  });
  const std::string path = dir_.file("f");
  auto options = options_for(path);
  options.ranges = 4;
  // No range can give up half its rest (that needs two minimums, 3 MiB, of a 2 MiB
  // range): the requests are exactly the four ranges and the retry.
  options.min_range_size = 3u << 19;
  options.retry.retries = 2;
  auto result = download(client_, options);
  ASSERT_TRUE(result.ok()) << result.error().message();
  EXPECT_EQ(result->ranges, 4u);
  EXPECT_EQ(result->retries, 1);
  EXPECT_EQ(result->transferred, k8m);
  bool resumed_range = false;
  for (const auto& seen : server_.seen()) {
    if (seen.range ==
        "bytes=" + std::to_string(2 * third + 1000) + "-" + std::to_string(3 * third - 1)) {
      resumed_range = true;
      EXPECT_EQ(seen.if_range, "\"v1\"");
    }
  }
  EXPECT_TRUE(resumed_range);
  EXPECT_EQ(sha256_of_file(path), test::sha256_hex(body_));
}

TEST_F(DownloadFaults, BusyStatusIsRetried) {
  server_.set_status([](int index) { return index == 0 ? 503 : 0; });
  const std::string path = dir_.file("f");
  auto options = options_for(path);
  options.retry.retries = 1;
  options.retry.delay = 0ms;  // Retry-After: 0 decides
  auto result = download(client_, options);
  ASSERT_TRUE(result.ok()) << result.error().message();
  EXPECT_EQ(result->retries, 1);
  EXPECT_EQ(sha256_of_file(path), test::sha256_hex(body_));
}

TEST_F(DownloadFaults, BusyStatusWithoutRetriesNamesTheStatus) {
  server_.set_status([](int) { return 503; });
  const std::string path = dir_.file("f");
  auto result = download(client_, options_for(path));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().message(), "HTTP 503 from " + server_.url());
  EXPECT_FALSE(file_exists(path));
}

TEST_F(DownloadFaults, ChangedFileRestartsFromByteZero) {
  server_.set_cut([](int index, std::uint64_t) { return index == 0 ? 1'000'000LL : -1LL; });
  const std::string path = dir_.file("f");
  auto options = options_for(path);
  options.ranges = 2;
  ASSERT_FALSE(download(client_, options).ok());
  ASSERT_TRUE(file_exists(control_file_path(path)));

  const std::string changed = test::pseudo_random_bytes(k8m + 12345, 99);
  server_.set_body(changed, "\"v2\"");
  server_.set_cut(nullptr);
  options.resume = true;
  auto result = download(client_, options);
  ASSERT_TRUE(result.ok()) << result.error().message();
  EXPECT_TRUE(has_note(*result, "changed on the server")) << notes_of(*result);
  EXPECT_EQ(result->resumed_from, 0u);
  EXPECT_EQ(result->size, changed.size());
  EXPECT_EQ(sha256_of_file(path), test::sha256_hex(changed));
  EXPECT_FALSE(file_exists(control_file_path(path)));
}

TEST_F(DownloadFaults, RateLimitHoldsOverAllRanges) {
  const std::string four_mib = test::pseudo_random_bytes(4u << 20, 3);
  server_.set_body(four_mib, "\"r\"");
  const std::string path = dir_.file("f");
  auto options = options_for(path);
  options.ranges = 2;
  options.max_bytes_per_second = 1u << 20;
  auto result = download(client_, options);
  ASSERT_TRUE(result.ok()) << result.error().message();
  EXPECT_EQ(result->ranges, 2u);
  // The limit is a ceiling: never above it. The floor is loose, since the seconds
  // count the connects and first requests too, and a loaded machine adds to them.
  const double rate = static_cast<double>(result->transferred) / result->seconds;
  EXPECT_GT(rate, 0.75 * (1u << 20)) << result->seconds << " s";
  EXPECT_LT(rate, 1.1 * (1u << 20)) << result->seconds << " s";
  EXPECT_EQ(sha256_of_file(path), test::sha256_hex(four_mib));
}

TEST_F(DownloadFaults, NameFromContentDispositionIsMadeSafe) {
  server_.set_content_disposition("attachment; filename=\"../../evil.bin\"");
  DownloadOptions options = options_for("");
  options.target.directory = dir_.path();
  options.target.name_from_content_disposition = true;
  auto result = download(client_, options);
  ASSERT_TRUE(result.ok()) << result.error().message();
  EXPECT_EQ(result->path, dir_.file("evil.bin"));
  EXPECT_EQ(sha256_of_file(dir_.file("evil.bin")), test::sha256_hex(body_));
}

TEST_F(DownloadFaults, NameFromContentDispositionResumesAPartialFile) {
  server_.set_content_disposition("attachment; filename*=UTF-8''part%20ial.bin");
  test::write_file(dir_.file("part ial.bin"), std::string_view(body_).substr(0, 5000));
  DownloadOptions options = options_for("");
  options.target.directory = dir_.path();
  options.target.name_from_content_disposition = true;
  options.resume = true;
  auto result = download(client_, options);
  ASSERT_TRUE(result.ok()) << result.error().message();
  EXPECT_EQ(result->path, dir_.file("part ial.bin"));
  EXPECT_EQ(result->resumed_from, 5000u);
  EXPECT_EQ(sha256_of_file(dir_.file("part ial.bin")), test::sha256_hex(body_));
}

// curl's -J: the server chose the name, so a file of that name is not the caller's
// to lose. It stays as it was and the download fails before writing a byte, unless
// the caller asked to overwrite it (or for NAME.1, keep_existing).
TEST_F(DownloadFaults, NameFromContentDispositionNeverReplacesAFileUnlessAsked) {
  server_.set_content_disposition("attachment; filename=\"kept.txt\"");
  test::write_file(dir_.file("kept.txt"), "precious");
  DownloadOptions options = options_for("");
  options.target.directory = dir_.path();
  options.target.name_from_content_disposition = true;
  auto refused = download(client_, options);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().category(), ErrorCategory::io);
  EXPECT_NE(refused.error().message().find("'" + dir_.file("kept.txt") + "' exists"),
            std::string::npos)
      << refused.error().message();
  EXPECT_EQ(sha256_of_file(dir_.file("kept.txt")), test::sha256_hex("precious"));
  EXPECT_FALSE(file_exists(control_file_path(dir_.file("kept.txt"))));

  options.target.overwrite_server_named_file = true;
  auto replaced = download(client_, options);
  ASSERT_TRUE(replaced.ok()) << replaced.error().message();
  EXPECT_EQ(replaced->path, dir_.file("kept.txt"));
  EXPECT_EQ(sha256_of_file(dir_.file("kept.txt")), test::sha256_hex(body_));
}

TEST_F(DownloadFaults, ControlFileOfAnotherUrlIsNotUsed) {
  const std::string path = dir_.file("f");
  ControlFile other{"http://elsewhere.invalid/x", 10, "", {RangeSpec{0, 10, 0}}};
  ASSERT_TRUE(save_control(control_file_path(path), other).ok());
  auto options = options_for(path);
  options.resume = true;
  auto result = download(client_, options);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().category(), ErrorCategory::usage);
  EXPECT_NE(result.error().message().find("http://elsewhere.invalid/x"), std::string::npos);
  EXPECT_TRUE(server_.seen().empty());
}

TEST_F(DownloadFaults, ControlFileWithoutItsBytesRestartsFromByteZero) {
  server_.set_cut([](int index, std::uint64_t) { return index == 0 ? 2'000'000LL : -1LL; });
  const std::string path = dir_.file("f");
  auto options = options_for(path);
  ASSERT_FALSE(download(client_, options).ok());
  ASSERT_TRUE(file_exists(control_file_path(path)));
  std::filesystem::remove(path);
  server_.set_cut(nullptr);
  options.resume = true;
  auto result = download(client_, options);
  ASSERT_TRUE(result.ok()) << result.error().message();
  EXPECT_TRUE(has_note(*result, "lacks bytes")) << notes_of(*result);
  EXPECT_EQ(result->resumed_from, 0u);
  EXPECT_EQ(sha256_of_file(path), test::sha256_hex(body_));
}

TEST_F(DownloadFaults, FileLargerThanTheServersIsNotResumed) {
  const std::string path = dir_.file("f");
  test::write_file(path, body_ + "more");
  auto options = options_for(path);
  options.resume = true;
  auto result = download(client_, options);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().message().find("not resuming"), std::string::npos)
      << result.error().message();
  EXPECT_EQ(test::read_file(path).size(), k8m + 4) << "the file is left alone";
}

}  // namespace
}  // namespace sluice

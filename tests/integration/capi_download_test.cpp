// sluice_download through the C API against nginx: a file in several ranges, verified
// by its checksum, with progress; a cancel from another thread keeps the file and its
// control file, and a resume completes it from where it stopped.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>

#include "integration/download_test_server.hpp"
#include "sluice/download.hpp"
#include "sluice/sluice.h"
#include "support/capi_calls.hpp"
#include "support/test_env.hpp"

namespace sluice {
namespace {

struct Progress {
  std::atomic<std::uint64_t> bytes_done{0};
  std::atomic<bool> finished{false};
  std::atomic<std::int64_t> total{-1};
};

void on_progress(void* user_data, uint64_t bytes_done, int64_t total, double, int finished) {
  auto* progress = static_cast<Progress*>(user_data);
  progress->bytes_done = bytes_done;
  progress->total = total;
  if (finished != 0) progress->finished = true;
}

using test::describe;

class CapiDownload : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(sluice_client_new(nullptr, &client_), SLUICE_OK); }
  void TearDown() override { sluice_client_free(client_); }

  // Options for nginx's `file` into `path`.
  sluice_download_options* options_for(const std::string& file, const std::string& path) {
    const std::string url = env_.get("SLUICE_NGINX_HTTP_URL") + "/" + file;
    sluice_request* request = nullptr;
    EXPECT_EQ(sluice_request_new("GET", 3, url.data(), url.size(), &request), SLUICE_OK);
    sluice_download_options* options = nullptr;
    EXPECT_EQ(sluice_download_options_new(request, &options), SLUICE_OK);
    sluice_request_free(request);  // the options keep their own copy
    EXPECT_EQ(sluice_download_options_set_path(options, path.data(), path.size()), SLUICE_OK);
    return options;
  }

  test::TestEnv env_;
  test::ScratchDir dir_;
  sluice_client* client_ = nullptr;
};

TEST_F(CapiDownload, AFileInRangesArrivesVerifiedWithProgress) {
  const std::string path = dir_.file("64m.bin");
  sluice_download_options* options = options_for("64m.bin", path);
  ASSERT_EQ(sluice_download_options_set_ranges(options, 4), SLUICE_OK);
  const std::string sha = env_.sha256_of("64m.bin");
  ASSERT_EQ(sluice_download_options_set_sha256(options, sha.data(), sha.size()), SLUICE_OK);
  Progress progress;
  ASSERT_EQ(sluice_download_options_set_progress(options, on_progress, &progress, 50), SLUICE_OK);
  sluice_download_result* result = nullptr;
  const sluice_code code = sluice_download(client_, options, &result);
  sluice_download_options_free(options);
  ASSERT_EQ(code, SLUICE_OK) << describe(code);
  EXPECT_EQ(sluice_download_result_size(result), 64u << 20);
  EXPECT_EQ(sluice_download_result_ranges(result), 4u);
  EXPECT_EQ(sluice_download_result_status(result), 206);
  const char* written = nullptr;
  size_t written_len = 0;
  ASSERT_EQ(sluice_download_result_path(result, &written, &written_len), SLUICE_OK);
  EXPECT_EQ(std::string(written, written_len), path);
  sluice_download_result_free(result);
  EXPECT_TRUE(progress.finished);
  EXPECT_EQ(progress.total.load(), std::int64_t{64} << 20);
  EXPECT_EQ(test::sha256_of_file(path), sha);
  EXPECT_FALSE(test::file_exists(control_file_path(path)));
}

TEST_F(CapiDownload, ACancelledDownloadKeepsItsFileAndResumes) {
  const std::string path = dir_.file("64m.bin");
  sluice_download_options* options = options_for("64m.bin", path);
  // Slow enough that the cancel lands in the middle.
  ASSERT_EQ(sluice_download_options_set_max_bytes_per_second(options, 8u << 20), SLUICE_OK);
  Progress progress;
  ASSERT_EQ(sluice_download_options_set_progress(options, on_progress, &progress, 10), SLUICE_OK);
  sluice_code code = SLUICE_OK;
  std::thread downloading([&] {
    sluice_download_result* result = nullptr;
    code = sluice_download(client_, options, &result);
    sluice_download_result_free(result);
  });
  ASSERT_TRUE(test::eventually([&] { return progress.bytes_done > 0; })) << "no byte arrived";
  ASSERT_EQ(sluice_download_options_cancel(options), SLUICE_OK);
  downloading.join();
  sluice_download_options_free(options);
  EXPECT_EQ(code, SLUICE_E_CANCELLED);
  ASSERT_TRUE(test::file_exists(control_file_path(path)))
      << "the control file went with the cancel";

  options = options_for("64m.bin", path);
  ASSERT_EQ(sluice_download_options_set_resume(options, 1), SLUICE_OK);
  sluice_download_result* result = nullptr;
  code = sluice_download(client_, options, &result);
  sluice_download_options_free(options);
  ASSERT_EQ(code, SLUICE_OK) << describe(code);
  EXPECT_GT(sluice_download_result_resumed_from(result), 0u) << "the resume started over";
  EXPECT_EQ(
      sluice_download_result_resumed_from(result) + sluice_download_result_transferred(result),
      64u << 20);
  sluice_download_result_free(result);
  EXPECT_EQ(test::sha256_of_file(path), env_.sha256_of("64m.bin"));
}

TEST_F(CapiDownload, BadOptionsAreRefused) {
  sluice_download_options* options = options_for("small.txt", dir_.file("small.txt"));
  EXPECT_EQ(sluice_download_options_set_ranges(options, 0), SLUICE_E_INVALID_ARGUMENT);
  EXPECT_EQ(sluice_download_options_set_ranges(options, 17), SLUICE_E_INVALID_ARGUMENT);
  EXPECT_EQ(sluice_download_options_set_sha256(options, "ABC", 3), SLUICE_E_INVALID_ARGUMENT);
  EXPECT_EQ(sluice_download_options_set_retries(options, -1), SLUICE_E_INVALID_ARGUMENT);
  EXPECT_EQ(sluice_download(client_, nullptr, nullptr), SLUICE_E_INVALID_ARGUMENT);
  sluice_download_options_free(options);
}

// The scripted server holds the second range's request until the first range, done,
// has asked for half of its rest: the result counts the steal.
TEST_F(CapiDownload, AStealIsCounted) {
  const std::string body = test::pseudo_random_bytes(8u << 20, 5);
  test::RangeFileServer server(body);
  server.set_hold(
      [](int, std::uint64_t start) -> std::size_t { return start == (4u << 20) ? 3 : 0; });
  const std::string url = server.url();
  const std::string path = dir_.file("f");
  sluice_request* request = nullptr;
  ASSERT_EQ(sluice_request_new("GET", 3, url.data(), url.size(), &request), SLUICE_OK);
  sluice_download_options* options = nullptr;
  ASSERT_EQ(sluice_download_options_new(request, &options), SLUICE_OK);
  sluice_request_free(request);
  ASSERT_EQ(sluice_download_options_set_path(options, path.data(), path.size()), SLUICE_OK);
  ASSERT_EQ(sluice_download_options_set_ranges(options, 2), SLUICE_OK);
  sluice_download_result* result = nullptr;
  const sluice_code code = sluice_download(client_, options, &result);
  sluice_download_options_free(options);
  ASSERT_EQ(code, SLUICE_OK) << describe(code);
  EXPECT_GE(sluice_download_result_steals(result), 1u);
  EXPECT_EQ(test::read_file(path), body);
  sluice_download_result_free(result);
  EXPECT_EQ(sluice_download_result_steals(nullptr), 0u);
}

}  // namespace
}  // namespace sluice

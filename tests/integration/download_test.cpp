// sluice::download() against real servers: nginx over HTTP/1.1 and HTTP/2, caddy
// over HTTP/3, whole and in ranges, resumed after a truncation, a cancel and a
// process exit, with checksums and errors. Every file is checked byte for byte by
// its SHA-256.
#include "sluice/download.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <memory>
#include <thread>

#include "download/file/download_control.hpp"
#include "integration/download_test_server.hpp"
#include "support/make_client.hpp"
#include "support/test_env.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;
using test::file_exists;
using test::sha256_of_file;

constexpr std::uint64_t k64m = 64u << 20;

class DownloadNginx : public ::testing::Test {
 protected:
  Client make_client(std::size_t connections = 6) const {
    ClientOptions options;
    options.tls.ca_file = env_.get("SLUICE_TEST_CA");
    options.pool.max_connections_per_origin = connections;
    return test::make_client(options);
  }
  std::string nginx(std::string_view path) const {
    return env_.get("SLUICE_NGINX_HTTP_URL") + std::string(path);
  }
  DownloadOptions options_for(const std::string& url, const std::string& path) const {
    DownloadOptions options;
    options.request = Request::get(url);
    options.target.path = path;
    return options;
  }
  void expect_complete(const std::string& path, std::string_view served) const {
    EXPECT_EQ(sha256_of_file(path), env_.sha256_of(served)) << path;
    EXPECT_FALSE(file_exists(control_file_path(path))) << "a complete file keeps no control file";
  }

  test::TestEnv env_;
  test::ScratchDir dir_;
};

TEST_F(DownloadNginx, OneRangeOverHttp1MatchesTheFile) {
  auto client = make_client();
  auto options = options_for(nginx("/64m.bin"), dir_.file("64m.bin"));
  options.sha256 = env_.sha256_of("64m.bin");  // hashed as it arrives
  auto result = download(client, options);
  ASSERT_TRUE(result.ok()) << result.error().message();
  EXPECT_EQ(result->first_response.status, 200);
  EXPECT_EQ(result->size, k64m);
  EXPECT_EQ(result->transferred, k64m);
  EXPECT_EQ(result->ranges, 1u);
  EXPECT_EQ(result->path, dir_.file("64m.bin"));
  expect_complete(dir_.file("64m.bin"), "64m.bin");
}

TEST_F(DownloadNginx, FourRangesOverHttp1MatchTheFile) {
  auto client = make_client();
  auto options = options_for(nginx("/64m.bin"), dir_.file("64m.bin"));
  options.ranges = 4;
  // Ranges of 16 MiB with a minimum above half of one: no range can take half of
  // another's rest, so what each fetched is exact (tests/integration/
  // download_steal_test.cpp covers stealing, on a server that holds a range).
  options.min_range_size = (8u << 20) + 1;
  options.sha256 = env_.sha256_of("64m.bin");  // read back: four ranges
  auto result = download(client, options);
  ASSERT_TRUE(result.ok()) << result.error().message();
  EXPECT_EQ(result->first_response.status, 206);
  EXPECT_EQ(result->ranges, 4u);
  EXPECT_EQ(result->size, k64m);
  EXPECT_EQ(result->steals, 0u);
  EXPECT_EQ(result->transferred, k64m) << "range 0 stops at its end";
  EXPECT_TRUE(result->notes.empty()) << result->notes.front();
  expect_complete(dir_.file("64m.bin"), "64m.bin");
}

TEST_F(DownloadNginx, FourRangesOverHttp2MatchTheFile) {
  auto client = make_client();
  auto options = options_for(env_.get("SLUICE_NGINX_H2_URL") + "/64m.bin", dir_.file("64m.bin"));
  options.request.version = VersionPolicy::http2;
  options.ranges = 4;
  auto result = download(client, options);
  ASSERT_TRUE(result.ok()) << result.error().message();
  EXPECT_EQ(result->first_response.version, HttpVersion::http2);
  EXPECT_EQ(result->ranges, 4u);
  expect_complete(dir_.file("64m.bin"), "64m.bin");
}

TEST_F(DownloadNginx, FourRangesOverHttp3FromCaddyMatchTheFile) {
  auto client = make_client();
  auto options = options_for(env_.get("SLUICE_CADDY_URL") + "/64m.bin", dir_.file("64m.bin"));
  options.request.version = VersionPolicy::http3_only;
  options.ranges = 4;
  auto result = download(client, options);
  ASSERT_TRUE(result.ok()) << result.error().message();
  EXPECT_EQ(result->first_response.version, HttpVersion::http3);
  EXPECT_EQ(result->ranges, 4u);
  expect_complete(dir_.file("64m.bin"), "64m.bin");
}

TEST_F(DownloadNginx, ResumesATruncatedFileFromItsSize) {
  const std::string path = dir_.file("64m.bin");
  test::write_file(path, test::read_file(env_.file_path("64m.bin")).substr(0, 10u << 20));
  auto client = make_client();
  auto options = options_for(nginx("/64m.bin"), path);
  options.resume = true;
  auto result = download(client, options);
  ASSERT_TRUE(result.ok()) << result.error().message();
  EXPECT_EQ(result->resumed_from, 10u << 20);
  EXPECT_EQ(result->transferred, k64m - (10u << 20));
  EXPECT_EQ(result->first_response.status, 206);
  expect_complete(path, "64m.bin");
}

TEST_F(DownloadNginx, ResumesATruncatedFileInFourRanges) {
  const std::string path = dir_.file("64m.bin");
  test::write_file(path, test::read_file(env_.file_path("64m.bin")).substr(0, 10u << 20));
  auto client = make_client();
  auto options = options_for(nginx("/64m.bin"), path);
  options.resume = true;
  options.ranges = 4;
  auto result = download(client, options);
  ASSERT_TRUE(result.ok()) << result.error().message();
  EXPECT_EQ(result->resumed_from, 10u << 20);
  EXPECT_EQ(result->ranges, 4u);
  EXPECT_EQ(result->transferred, k64m - (10u << 20));
  expect_complete(path, "64m.bin");
}

TEST_F(DownloadNginx, WithoutResumeAnExistingFileIsOverwritten) {
  const std::string path = dir_.file("small.txt");
  test::write_file(path, std::string(1000, 'x'));
  auto client = make_client();
  auto result = download(client, options_for(nginx("/small.txt"), path));
  ASSERT_TRUE(result.ok()) << result.error().message();
  EXPECT_EQ(result->resumed_from, 0u);
  expect_complete(path, "small.txt");
}

TEST_F(DownloadNginx, ACompleteFileIsLeftAsItIs) {
  const std::string path = dir_.file("1m.bin");
  test::write_file(path, test::read_file(env_.file_path("1m.bin")));
  auto client = make_client();
  auto options = options_for(nginx("/1m.bin"), path);
  options.resume = true;
  options.sha256 = env_.sha256_of("1m.bin");
  auto result = download(client, options);
  ASSERT_TRUE(result.ok()) << result.error().message();
  EXPECT_EQ(result->transferred, 0u);
  EXPECT_EQ(result->size, 1u << 20);
  EXPECT_EQ(result->resumed_from, 1u << 20);
  expect_complete(path, "1m.bin");
}

TEST_F(DownloadNginx, AnEmptyFileDownloadsInRanges) {
  auto client = make_client();
  auto options = options_for(nginx("/empty.bin"), dir_.file("empty.bin"));
  options.ranges = 4;
  auto result = download(client, options);
  ASSERT_TRUE(result.ok()) << result.error().message();
  EXPECT_EQ(result->size, 0u);
  expect_complete(dir_.file("empty.bin"), "empty.bin");
}

// Stops a 4-range download once `stop_after` bytes are on disk, by `stop`. The rate
// keeps it running long enough to stop midway: about a second after the stop is due.
Result<DownloadResult> download_until(Client& client, DownloadOptions options,
                                      std::uint64_t stop_after, std::atomic<bool>& stop) {
  options.progress_interval = 10ms;
  options.max_bytes_per_second = 16u << 20;
  options.cancel = &stop;
  options.on_progress = [&stop, stop_after](const DownloadProgress& progress) {
    if (progress.bytes_done >= stop_after) stop.store(true);
  };
  return download(client, std::move(options));
}

TEST_F(DownloadNginx, CancelledSegmentedDownloadKeepsItsControlFileAndResumes) {
  const std::string path = dir_.file("64m.bin");
  auto client = make_client();
  auto options = options_for(nginx("/64m.bin"), path);
  options.ranges = 4;
  std::atomic<bool> stop{false};
  // Cancelled past three quarters: whichever ranges got the bytes (a range whose
  // connection started late may have none), the control file must say which.
  constexpr std::uint64_t kStopAfter = k64m - k64m / 4 + (1u << 20);
  auto stopped = download_until(client, options, kStopAfter, stop);
  ASSERT_FALSE(stopped.ok());
  EXPECT_EQ(stopped.error().category(), ErrorCategory::cancelled) << stopped.error().message();
  ASSERT_TRUE(file_exists(control_file_path(path)));
  auto control = load_control(control_file_path(path));
  ASSERT_TRUE(control.ok()) << control.error().message();
  ASSERT_TRUE(control->has_value());
  // Four ranges, or more where one that finished early took half of a slower one's
  // rest (work stealing). How far each got depends on how its connection was
  // scheduled (under ASan on a loaded machine one had none when CI cancelled), so
  // only the total is checked, and the resume below must fill in exactly the rest.
  ASSERT_GE((*control)->ranges.size(), 4u);
  EXPECT_EQ((*control)->size, k64m);
  std::uint64_t recorded = 0;
  for (const auto& range : (*control)->ranges) {
    ASSERT_TRUE(range.end.has_value());
    recorded += range.done;
  }
  EXPECT_GE(recorded, kStopAfter);
  EXPECT_LT(recorded, k64m);

  options.resume = true;
  auto resumed = download(client, options);
  ASSERT_TRUE(resumed.ok()) << resumed.error().message();
  EXPECT_EQ(resumed->resumed_from, recorded);
  EXPECT_EQ(resumed->transferred, k64m - recorded);
  expect_complete(path, "64m.bin");
}

// The bytes a control file records as done, over all its ranges; 0 when there is
// none (yet).
std::uint64_t recorded_on_disk(const std::string& control_path) {
  auto control = load_control(control_path);
  if (!control.ok() || !control->has_value()) return 0;
  std::uint64_t done = 0;
  for (const auto& range : (*control)->ranges) done += range.done;
  return done;
}

TEST_F(DownloadNginx, SegmentedDownloadKilledMidwayResumes) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  test::ScratchDir::share_with_children();
  const std::string path = dir_.file("64m.bin");
  const std::string url = nginx("/64m.bin");
  // The child process downloads and is killed (SIGKILL: no destructor, no last save,
  // no exit handler) once a control file is on disk and 16 MiB are written. An
  // _exit() here let ThreadSanitizer's exit check see the range threads the kill
  // leaves behind, and change the exit status.
  EXPECT_EXIT(
      {
        auto client = make_client();
        auto options = options_for(url, path);
        options.ranges = 4;
        options.progress_interval = 10ms;
        options.max_bytes_per_second = 12u << 20;
        // Exits once the control file on disk records progress (it is saved once a
        // second), so the resume below has something to resume from.
        options.on_progress = [&](const DownloadProgress& progress) {
          if (progress.bytes_done >= (16u << 20) && recorded_on_disk(control_file_path(path)) > 0) {
            ::kill(::getpid(), SIGKILL);
          }
        };
        (void)download(client, options);
        _exit(1);  // finished before the kill: the test fails, saying exit 1
      },
      ::testing::KilledBySignal(SIGKILL), "");
  test::ScratchDir::stop_sharing();
  ASSERT_TRUE(file_exists(control_file_path(path)));
  auto client = make_client();
  auto options = options_for(url, path);
  options.ranges = 4;
  options.resume = true;
  auto resumed = download(client, options);
  ASSERT_TRUE(resumed.ok()) << resumed.error().message();
  EXPECT_GT(resumed->resumed_from, 0u);
  EXPECT_LT(resumed->transferred, k64m);
  EXPECT_EQ(resumed->ranges, 4u);
  expect_complete(path, "64m.bin");
}

TEST_F(DownloadNginx, ChecksumMismatchKeepsTheBytesAsideAndPresentsNothing) {
  const std::string path = dir_.file("1m.bin");
  auto client = make_client();
  for (unsigned ranges : {1u, 2u}) {
    auto options = options_for(nginx("/1m.bin"), path);
    options.ranges = ranges;
    options.min_range_size = 256 * 1024;
    options.sha256 = std::string(64, '0');
    auto result = download(client, options);
    ASSERT_FALSE(result.ok()) << ranges;
    EXPECT_EQ(result.error().category(), ErrorCategory::protocol);
    EXPECT_EQ(result.error().message(),
              "checksum: SHA-256 of " + path + " is " + env_.sha256_of("1m.bin") + ", expected " +
                  std::string(64, '0') + "; the bytes are kept in " + path + ".sluice-bad");
    EXPECT_FALSE(file_exists(path));
    EXPECT_FALSE(file_exists(control_file_path(path)));
    EXPECT_EQ(sha256_of_file(path + ".sluice-bad"), env_.sha256_of("1m.bin"));
  }
}

TEST_F(DownloadNginx, NotFoundIsAnErrorAndLeavesNoFile) {
  const std::string path = dir_.file("missing");
  // Counts the requests sent (the trace's "c1 h1: GET /no-such-file" lines).
  auto requests_sent = std::make_shared<std::atomic<int>>(0);
  ClientOptions client_options;
  client_options.trace = [requests_sent](std::string_view line) {
    if (line.find(": GET /no-such-file") != std::string_view::npos) ++*requests_sent;
  };
  auto client = test::make_client(std::move(client_options));
  auto options = options_for(nginx("/no-such-file"), path);
  options.ranges = 4;
  options.retry.retries = 3;  // a 404 is not retried
  auto result = download(client, options);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(requests_sent->load(), 1) << "a 404 was retried";
  EXPECT_EQ(result.error().message(), "HTTP 404 from " + nginx("/no-such-file"));
  EXPECT_FALSE(file_exists(path));
  EXPECT_FALSE(file_exists(control_file_path(path)));
}

TEST_F(DownloadNginx, ProgressIsReportedOnTheCallingThreadAndEndsFinished) {
  auto client = make_client();
  auto options = options_for(nginx("/64m.bin"), dir_.file("64m.bin"));
  options.ranges = 2;
  options.progress_interval = 20ms;
  options.max_bytes_per_second = 96u << 20;
  std::vector<DownloadProgress> reports;
  const auto caller = std::this_thread::get_id();
  bool elsewhere = false;
  options.on_progress = [&](const DownloadProgress& progress) {
    if (std::this_thread::get_id() != caller) elsewhere = true;
    reports.push_back(progress);
  };
  auto result = download(client, options);
  ASSERT_TRUE(result.ok()) << result.error().message();
  EXPECT_FALSE(elsewhere);
  ASSERT_GE(reports.size(), 3u);
  EXPECT_TRUE(reports.back().finished);
  EXPECT_EQ(reports.back().bytes_done, k64m);
  EXPECT_EQ(reports.back().total, k64m);
  EXPECT_EQ(reports.back().path, dir_.file("64m.bin"));
  for (std::size_t i = 0; i + 1 < reports.size(); ++i) {
    EXPECT_FALSE(reports[i].finished);
    EXPECT_LE(reports[i].bytes_done, reports[i + 1].bytes_done);
  }
  bool saw_speed = false, saw_two_ranges = false;
  for (const auto& report : reports) {
    saw_speed = saw_speed || report.bytes_per_second > 0;
    saw_two_ranges = saw_two_ranges || report.active_ranges == 2;
  }
  EXPECT_TRUE(saw_speed);
  EXPECT_TRUE(saw_two_ranges);
}

TEST_F(DownloadNginx, NameComesFromTheUrlIntoTheDirectoryMadeForIt) {
  auto client = make_client();
  DownloadOptions options;
  options.request = Request::get(nginx("/small.txt"));
  options.target.directory = dir_.file("a/b");
  options.target.create_directories = true;
  auto result = download(client, options);
  ASSERT_TRUE(result.ok()) << result.error().message();
  EXPECT_EQ(result->path, dir_.file("a/b/small.txt"));
  expect_complete(dir_.file("a/b/small.txt"), "small.txt");
}

TEST_F(DownloadNginx, MissingDirectoryIsAnIoErrorNamingIt) {
  auto client = make_client();
  auto options = options_for(nginx("/small.txt"), dir_.file("no/such/dir/small.txt"));
  auto result = download(client, options);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().category(), ErrorCategory::io);
  EXPECT_NE(result.error().message().find(dir_.file("no/such/dir/small.txt")), std::string::npos)
      << result.error().message();
  EXPECT_NE(result.error().message().find("No such file or directory"), std::string::npos)
      << result.error().message();
}

TEST_F(DownloadNginx, UsageErrorsAreCaughtBeforeAnyRequest) {
  auto client = make_client();
  auto options = options_for(nginx("/small.txt"), dir_.file("x"));
  options.ranges = 17;
  EXPECT_EQ(download(client, options).error().category(), ErrorCategory::usage);
  options.ranges = 1;
  options.request.method = "POST";
  EXPECT_EQ(download(client, options).error().category(), ErrorCategory::usage);
  options.request.method = "GET";
  options.request.headers.set("Range", "bytes=1-");
  EXPECT_EQ(download(client, options).error().category(), ErrorCategory::usage);
  options.request.headers.remove("Range");
  options.sha256 = "abc";
  EXPECT_EQ(download(client, options).error().category(), ErrorCategory::usage);
  EXPECT_FALSE(file_exists(dir_.file("x")));
}

}  // namespace
}  // namespace sluice

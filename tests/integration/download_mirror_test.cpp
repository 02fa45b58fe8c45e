// Mirrors in sluice::download(): ranges spread over the URL and its mirrors, and a
// mirror that fails, or serves another version of the file, dropped with a note while
// its range continues on the URL. Two scripted servers (RangeFileServer) are the URL
// and the mirror.
#include <gtest/gtest.h>

#include <algorithm>

#include "integration/download_test_server.hpp"
#include "sluice/download.hpp"
#include "support/make_client.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;
using test::file_exists;

constexpr std::size_t k8m = 8u << 20;

class DownloadMirror : public ::testing::Test {
 protected:
  DownloadOptions options_for(const std::string& path) const {
    DownloadOptions options;
    options.request = Request::get(primary_.url());
    options.target.path = path;
    options.mirrors = {mirror_.url()};
    // Two ranges of 4 MiB with a 3 MiB minimum: no range can take half of another's
    // rest, so each source serves exactly the range it was given.
    options.min_range_size = 3u << 20;
    options.sha256 = test::sha256_hex(body_);
    return options;
  }
  // options_for with `retries` retries 1 ms apart.
  DownloadOptions retrying(const std::string& path, int retries) const {
    DownloadOptions options = options_for(path);
    options.retry.retries = retries;
    options.retry.delay = std::chrono::milliseconds(1);
    return options;
  }
  static bool has_range_request(const test::RangeFileServer& server) {
    const auto seen = server.seen();
    return std::any_of(seen.begin(), seen.end(),
                       [](const test::RangeRequestSeen& one) { return !one.range.empty(); });
  }
  std::string note_about_mirror(const DownloadResult& result) const {
    for (const auto& note : result.notes) {
      if (note.find("mirror " + mirror_.url() + " dropped") == 0) return note;
    }
    return "";
  }

  Client client_ = test::make_client();
  const std::string body_ = test::pseudo_random_bytes(k8m, 21);
  test::RangeFileServer primary_{body_};
  test::RangeFileServer mirror_{body_};
  test::ScratchDir dir_;
};

TEST_F(DownloadMirror, RangesAreSpreadOverTheUrlAndTheMirror) {
  const std::string path = dir_.file("f");
  auto result = download(client_, options_for(path));
  ASSERT_TRUE(result.ok()) << result.error().message();
  EXPECT_EQ(result->ranges, 2u) << "one range per source, though ranges was 1";
  EXPECT_TRUE(has_range_request(mirror_));
  ASSERT_EQ(result->sources.size(), 2u);
  EXPECT_EQ(result->sources[0].url, primary_.url());
  EXPECT_EQ(result->sources[1].url, mirror_.url());
  EXPECT_EQ(result->sources[0].bytes, k8m / 2);
  EXPECT_EQ(result->sources[1].bytes, k8m / 2);
  EXPECT_TRUE(result->sources[1].dropped.empty());
  EXPECT_EQ(test::read_file(path), body_);
}

// If-Range with the URL's ETag makes a mirror with another version answer 200: that
// is another file, so the mirror is dropped and the URL serves its range.
TEST_F(DownloadMirror, MirrorWithAnotherVersionIsDroppedAndTheUrlServesItsRange) {
  mirror_.set_body(body_, "\"other\"");
  const std::string path = dir_.file("f");
  auto result = download(client_, options_for(path));
  ASSERT_TRUE(result.ok()) << result.error().message();
  EXPECT_NE(note_about_mirror(*result).find("another file"), std::string::npos)
      << note_about_mirror(*result);
  ASSERT_EQ(result->sources.size(), 2u);
  EXPECT_EQ(result->sources[0].bytes, k8m);
  EXPECT_EQ(result->sources[1].bytes, 0u);
  EXPECT_EQ(result->retries, 0) << "moving to another source is not a retry";
  EXPECT_EQ(test::read_file(path), body_);
}

// A mirror that answers ranges whatever If-Range says, with another ETag: its 206 is
// refused by the validator check, never written.
TEST_F(DownloadMirror, MirrorThatIgnoresIfRangeIsCheckedByItsValidator) {
  mirror_.set_body(std::string(k8m, 'x'), "\"other\"");
  mirror_.set_ignore_if_range(true);
  const std::string path = dir_.file("f");
  auto result = download(client_, options_for(path));
  ASSERT_TRUE(result.ok()) << result.error().message();
  EXPECT_NE(
      note_about_mirror(*result).find("the mirror's ETag is '\"other\"', not the URL's '\"v1\"'"),
      std::string::npos)
      << note_about_mirror(*result);
  EXPECT_EQ(result->sources[1].bytes, 0u);
  EXPECT_EQ(test::read_file(path), body_);
}

TEST_F(DownloadMirror, MirrorThatCannotBeReachedIsDropped) {
  const std::string path = dir_.file("f");
  auto options = options_for(path);
  // Nothing listens on port 1: the connection is refused at once.
  options.mirrors = {"http://127.0.0.1:1/file.bin"};
  auto result = download(client_, options);
  ASSERT_TRUE(result.ok()) << result.error().message();
  ASSERT_EQ(result->sources.size(), 2u);
  EXPECT_FALSE(result->sources[1].dropped.empty());
  EXPECT_EQ(result->sources[0].bytes, k8m);
  EXPECT_EQ(test::read_file(path), body_);
  EXPECT_FALSE(file_exists(control_file_path(path)));
}

// Credentials were given for the URL's server: a mirror of another origin (another
// port) never sees them.
TEST_F(DownloadMirror, CredentialsStayWithTheUrlsOrigin) {
  const std::string path = dir_.file("f");
  auto options = options_for(path);
  options.request.auth = Authentication::basic("user", "secret");
  auto result = download(client_, options);
  ASSERT_TRUE(result.ok()) << result.error().message();
  for (const auto& seen : primary_.seen()) EXPECT_FALSE(seen.authorization.empty());
  ASSERT_TRUE(has_range_request(mirror_));
  for (const auto& seen : mirror_.seen()) EXPECT_EQ(seen.authorization, "") << seen.range;
}

// The URL redirects to another origin (another port): the ranges go to the
// redirect's target, and like the redirected request itself they carry none of the
// credentials given for the URL.
TEST_F(DownloadMirror, RangesAfterARedirectToAnotherOriginCarryNoCredentials) {
  test::TestServer redirector([this](test::ServerConnection& conn) {
    while (conn.read_request()) {
      if (!conn.write("HTTP/1.1 302 Found\r\nLocation: " + mirror_.url() +
                      "\r\nContent-Length: 0\r\n\r\n")) {
        return;
      }
    }
  });
  const std::string path = dir_.file("f");
  DownloadOptions options = options_for(path);
  options.request = Request::get(redirector.url("/file.bin"));
  options.request.redirects.follow = true;
  options.request.auth = Authentication::basic("user", "secret");
  options.request.headers.add("Cookie", "session=for-the-url");
  options.mirrors.clear();
  options.ranges = 4;
  options.min_range_size = 1u << 20;
  auto result = download(client_, options);
  ASSERT_TRUE(result.ok()) << result.error().message();
  EXPECT_EQ(result->first_response.effective_url, mirror_.url());
  ASSERT_TRUE(has_range_request(mirror_));
  for (const auto& seen : mirror_.seen()) EXPECT_EQ(seen.authorization, "") << seen.range;
  EXPECT_EQ(test::read_file(path), body_);
}

// The URL cuts range 1 after 1 MiB and then answers 503 to every request: after its
// one retry there, the range goes on from the mirror, from where the cut left it.
TEST_F(DownloadMirror, RangeThatFailsOnTheUrlMovesToTheMirror) {
  primary_.set_cut([](int index, std::uint64_t) { return index == 0 ? 1ll << 20 : -1; });
  primary_.set_status([](int index) { return index == 0 ? 0 : 503; });
  const std::string path = dir_.file("f");
  auto result = download(client_, retrying(path, 1));
  ASSERT_TRUE(result.ok()) << result.error().message();
  EXPECT_EQ(test::read_file(path), body_);
  ASSERT_EQ(result->sources.size(), 2u);
  EXPECT_EQ(result->sources[0].bytes, 1u << 20);
  EXPECT_EQ(result->sources[1].bytes, k8m - (1u << 20));
  EXPECT_TRUE(result->sources[1].dropped.empty()) << result->sources[1].dropped;
  EXPECT_EQ(result->retries, 1) << "one retry on the URL; the move itself is not one";
  const std::string move =
      "range 1 moved from " + primary_.url() + " to the mirror " + mirror_.url();
  const auto noted = std::find_if(result->notes.begin(), result->notes.end(),
                                  [&](const std::string& note) { return note.find(move) == 0; });
  ASSERT_NE(noted, result->notes.end()) << "no note begins '" << move << "'";
  EXPECT_NE(noted->find("HTTP 503"), std::string::npos) << *noted;
  EXPECT_NE(noted->find("(after 1 retry)"), std::string::npos) << *noted;
  EXPECT_FALSE(file_exists(control_file_path(path)));
}

// A mirror whose body is cut once is asked again (a transient failure, with a retry
// left), not dropped: it still serves its whole range.
TEST_F(DownloadMirror, MirrorCutOnceIsRetriedNotDropped) {
  mirror_.set_cut([](int index, std::uint64_t) { return index == 0 ? 1ll << 20 : -1; });
  const std::string path = dir_.file("f");
  auto result = download(client_, retrying(path, 1));
  ASSERT_TRUE(result.ok()) << result.error().message();
  EXPECT_EQ(test::read_file(path), body_);
  ASSERT_EQ(result->sources.size(), 2u);
  EXPECT_TRUE(result->sources[1].dropped.empty()) << result->sources[1].dropped;
  EXPECT_EQ(result->sources[1].bytes, k8m / 2);
  EXPECT_EQ(result->retries, 1);
  EXPECT_EQ(mirror_.seen().size(), 2u);
}

// A mirror that cuts every body is dropped once its retries are used, and the URL
// serves its range.
TEST_F(DownloadMirror, MirrorThatKeepsFailingIsDroppedAfterItsRetries) {
  mirror_.set_cut([](int, std::uint64_t) { return 0ll; });
  const std::string path = dir_.file("f");
  auto result = download(client_, retrying(path, 2));
  ASSERT_TRUE(result.ok()) << result.error().message();
  EXPECT_EQ(test::read_file(path), body_);
  EXPECT_NE(note_about_mirror(*result).find("(after 2 retries)"), std::string::npos)
      << note_about_mirror(*result);
  EXPECT_EQ(result->sources[0].bytes, k8m);
  EXPECT_EQ(result->sources[1].bytes, 0u);
  EXPECT_EQ(mirror_.seen().size(), 3u) << "the first request and its two retries";
}

// When the URL and the mirror have both failed a range, the download fails (there is
// nowhere left to go), says why each source is out, and keeps what it has for a
// resume. Which failure comes last depends on which range reaches the mirror first.
TEST_F(DownloadMirror, DownloadFailsWhenEverySourceFailedARange) {
  primary_.set_cut([](int index, std::uint64_t) { return index == 0 ? 1ll << 20 : -1; });
  primary_.set_status([](int index) { return index == 0 ? 0 : 404; });
  mirror_.set_status([](int) { return 404; });
  const std::string path = dir_.file("f");
  auto result = download(client_, options_for(path));
  ASSERT_FALSE(result.ok());
  const std::string& message = result.error().message();
  EXPECT_TRUE(result.error().category() == ErrorCategory::http ||
              result.error().category() == ErrorCategory::protocol)
      << message;
  EXPECT_NE(message.find("; no source is left for this range (mirror " + mirror_.url() +
                         " dropped: HTTP 404"),
            std::string::npos)
      << message;
  EXPECT_TRUE(file_exists(control_file_path(path)));
}

TEST_F(DownloadMirror, BadMirrorUrlIsRefusedBeforeAnyRequest) {
  auto options = options_for(dir_.file("f"));
  options.mirrors = {"ftp://example.org/f"};
  auto result = download(client_, options);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().category(), ErrorCategory::usage);
  EXPECT_NE(result.error().message().find("mirror 'ftp://example.org/f'"), std::string::npos)
      << result.error().message();
  EXPECT_TRUE(primary_.seen().empty());
}

}  // namespace
}  // namespace sluice

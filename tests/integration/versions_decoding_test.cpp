// Content decoding of a decompression bomb over every version (versions.hpp). The
// bomb is /bomb.bin sent as Content-Encoding: gzip: 250 KiB that inflate to 256 MiB
// of zeros (1030:1, what deflate does at best). It ends in too_large at
// max_decoded_size or at the ratio limit (1000:1 by default), never in memory the
// size of the inflated body: a held bomb inflates no further than its mark.
// Servers: nginx (gzip_static) for h1, h1 over TLS and h2; caddy (precompressed) for
// h3; nghttpd has no Content-Encoding, so h2c gets the same bytes from the in-process
// H2TestServer.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <memory>

#include "integration/versions.hpp"
#include "sluice/sluice.hpp"
#include "support/h2_test_server.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;
using test::kPastTheAllowance;
using test::Need;
using test::read_until_end;
using test::ReadOutcome;
using test::wait_until;

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

class VersionsDecoding : public test::VersionsTest {
 protected:
  void SetUp() override {
    origin_ = base_url(Need::bomb);
    if (origin_.empty()) serve_in_process();
  }

  // What nginx and caddy answer for /bomb.bin and /small.txt, over h2c.
  void serve_in_process() {
    auto bomb = std::make_shared<const std::string>(file_bytes(env_.file_path("bomb.bin.gz")));
    auto small = std::make_shared<const std::string>(file_bytes(env_.file_path("small.txt")));
    ASSERT_FALSE(bomb->empty()) << "no " << env_.file_path("bomb.bin.gz");
    h2c_server_ = std::make_unique<test::H2TestServer>([bomb, small](test::H2ServerStream& stream) {
      if (stream.path() == "/bomb.bin") {
        stream.respond(
            200, {{"content-encoding", "gzip"}, {"content-length", std::to_string(bomb->size())}});
        stream.send_body(*bomb, true);
      } else if (stream.path() == "/small.txt") {
        stream.respond(200, {{"content-length", std::to_string(small->size())}});
        stream.send_body(*small, true);
      } else {
        stream.respond(404, {}, true);
      }
    });
    origin_ = "http://127.0.0.1:" + std::to_string(h2c_server_->port());
  }

  Request bomb_request() const {
    Request request = request_to(origin_ + "/bomb.bin");
    request.decode.enabled = true;
    // Fixed, so that what may be staged at any time is one known number however
    // promptly the reader reads (a growing allowance lets a prompt reader hold more).
    request.allowance.max_bytes = request.allowance.initial_bytes;
    return request;
  }

  // Reads the bomb and expects it to end in too_large, with `message`, having
  // inflated no more than `most` bytes and staged no more than its allowance at any time.
  void expect_stopped(Client& client, const Request& request, const std::string& message,
                      std::uint64_t most) {
    auto response = client.fetch(request);
    ASSERT_TRUE(response.ok()) << response.error().describe();
    EXPECT_EQ(response->version, test::spoken_by(wire()));
    EXPECT_EQ(response->headers.get("content-encoding"), "gzip");
    const ReadOutcome read = read_until_end(response->body);
    ASSERT_TRUE(read.error.has_value())
        << "the bomb was read to its end: " << read.bytes << " bytes";
    EXPECT_EQ(read.error->category(), ErrorCategory::too_large) << read.error->describe();
    EXPECT_EQ(read.error->message(), message);
    EXPECT_LE(read.bytes, most);
    EXPECT_LE(read.max_buffered, request.allowance.initial_bytes + kPastTheAllowance);
    EXPECT_TRUE(wait_until(client, [&] { return client.stats().in_flight == 0; }));
    EXPECT_EQ(client.stats().staged_bytes, 0u);
    expect_origin_still_answers(client);
  }

  void expect_origin_still_answers(Client& client) {
    auto next = client.fetch(request_to(origin_ + "/small.txt"));
    ASSERT_TRUE(next.ok()) << next.error().describe();
    expect_file(next->body, "small.txt");
  }

  std::unique_ptr<test::H2TestServer> h2c_server_;  // h2c only
  std::string origin_;
};

TEST_P(VersionsDecoding, BombStopsAtMaxDecodedSizeWithTooLarge) {
  auto client = make_client();
  Request request = bomb_request();
  request.decode.max_decoded_size = 4u << 20;
  request.decode.max_ratio = 0;  // only the size limit
  expect_stopped(client, request, "decoded body exceeds the limit of 4194304 bytes", 4u << 20);
}

TEST_P(VersionsDecoding, BombStopsAtTheDefaultRatioWithTooLarge) {
  auto client = make_client();
  Request request = bomb_request();
  ASSERT_EQ(request.decode.max_ratio, 1000u);
  ASSERT_EQ(request.decode.max_decoded_size, 0u);
  // The ratio counts past the first MiB; 1030:1 gets a few MiB further at most.
  expect_stopped(client, request,
                 "decoded body exceeds 1000:1 compression ratio (possible decompression bomb)",
                 16u << 20);
}

// Without any limit, a reader that holds the bomb holds at most its mark of inflated
// bytes: decoding waits for room like the transport does. The hold is the HTTP
// thread's time: its clock freezes once the body is paused and moves as the test
// says, so whatever that thread does over time runs while the reader holds.
TEST_P(VersionsDecoding, HeldBombInflatesNoFurtherThanTheMark) {
  test::FreezableClock clock;
  auto client = make_client_on(clock);
  Request request = bomb_request();
  request.decode.max_ratio = 0;
  {
    auto response = client.fetch(request);
    ASSERT_TRUE(response.ok()) << response.error().describe();
    EXPECT_EQ(response->headers.get("content-encoding"), "gzip");
    ASSERT_TRUE(wait_until(client, [&] { return client.stats().paused_receivers == 1; }))
        << "the bomb never filled its mark";
    clock.freeze();
    // Held on for 5 s of the HTTP thread's time, past a sweep (every 4 s by
    // default), each turn run: nothing more may inflate.
    ASSERT_TRUE(test::advance_in_steps(clock, client, 5s, 100ms)) << "the HTTP thread is stuck";
    EXPECT_LE(client.stats().staged_bytes, request.allowance.initial_bytes + kPastTheAllowance);
    EXPECT_LE(response->body.buffered(), request.allowance.initial_bytes + kPastTheAllowance);
    EXPECT_EQ(client.stats().paused_receivers, 1u);
    ASSERT_TRUE(test::thaw(clock, client));
  }  // dropped over the mark: abandoned, not inflated to the end
  EXPECT_TRUE(wait_until(client, [&] { return client.stats().in_flight == 0; }))
      << "the dropped bomb went on inflating";
  EXPECT_EQ(client.stats().staged_bytes, 0u);
  expect_origin_still_answers(client);
}

INSTANTIATE_TEST_SUITE_P(Versions, VersionsDecoding, ::testing::ValuesIn(test::all_wires()),
                         test::wire_test_name);

}  // namespace
}  // namespace sluice

// Uploads to a server that reads slowly, over every version (versions.hpp): 8 MiB
// (more than the socket buffers and windows on the way take at once, so the client
// has to wait for the server) go through a slowed path (versions_path.hpp: 32 KiB at
// a time into a TCP server, 20 ms each way to h3), as owned bytes and as a stream
// from a producer thread, and arrive whole.
// Servers: nginx stores PUT /upload/NAME (h1, h1 over TLS, h2) and the test reads it
// back with GET; caddy hands /upload/* to that nginx (h3); nghttpd echoes the body
// it received (h2c), which the test compares instead.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <future>
#include <memory>
#include <thread>

#include "integration/versions.hpp"
#include "integration/versions_path.hpp"
#include "sluice/sluice.hpp"
#include "support/test_server.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;
using test::HeldPath;
using test::Need;
using test::read_until_end;
using test::ReadOutcome;
using test::Wire;

constexpr std::size_t kUploadSize = 8u << 20;

class VersionsUpload : public test::VersionsTest {
 protected:
  void SetUp() override {
    path_ = std::make_unique<HeldPath>(wire(), base_url(Need::uploads));
    path_->slow_uploads();
  }

  bool echoes() const { return wire() == Wire::h2c; }  // nghttpd --echo-upload

  std::string target(std::string_view name) const {
    return "/upload/versions-" + std::string(test::wire_name(wire())) + "-" + std::string(name);
  }

  // A PUT of `body` through the slow path.
  Request put(std::string_view name, RequestBody body) const {
    Request request = request_to(path_->url(target(name)));
    request.method = "PUT";
    request.body = std::move(body);
    return request;
  }

  // The answer to the PUT, then what the server kept: nginx's stored file (read back
  // over the same version, not through the slow path) or nghttpd's echo.
  void expect_arrived(Client& client, Result<Response> response, std::string_view name,
                      const std::string& sent_sha256) {
    ASSERT_TRUE(response.ok()) << response.error().describe();
    EXPECT_EQ(response->version, test::spoken_by(wire()));
    EXPECT_LT(response->status, 300) << response->status;
    const ReadOutcome answer = read_until_end(response->body);
    ASSERT_FALSE(answer.error.has_value()) << answer.error->describe();
    if (echoes()) {
      EXPECT_EQ(response->headers.get("nghttpd-response"), "echo");
      EXPECT_EQ(answer.bytes, kUploadSize);
      EXPECT_EQ(answer.sha256, sent_sha256);
      return;
    }
    auto back = client.fetch(request_for(Need::uploads, target(name)));
    ASSERT_TRUE(back.ok()) << back.error().describe();
    EXPECT_EQ(back->status, 200);
    const ReadOutcome stored = read_until_end(back->body);
    ASSERT_FALSE(stored.error.has_value()) << stored.error->describe();
    EXPECT_EQ(stored.bytes, kUploadSize);
    EXPECT_EQ(stored.sha256, sent_sha256);
  }

  std::unique_ptr<HeldPath> path_;
};

TEST_P(VersionsUpload, OwnedBytesToASlowServerArriveWhole) {
  auto client = make_client();
  const std::string payload = test::pseudo_random_bytes(kUploadSize, 21);
  const std::string sha = test::sha256_hex(payload);
  auto response = client.fetch(put("bytes.bin", BytesBody{payload}));
  expect_arrived(client, std::move(response), "bytes.bin", sha);
  EXPECT_EQ(client.stats().request_body_bytes_held, 0u) << "the sent body was kept";
}

// The producer writes as fast as it can; write() makes it wait while it is a mark
// ahead of what the slow server took.
TEST_P(VersionsUpload, StreamedBodyToASlowServerArrivesWhole) {
  auto client = make_client();
  const std::string payload = test::pseudo_random_bytes(kUploadSize, 22);
  auto writer = BodyWriter::create(256 * 1024);
  PendingResponse pending = client.send(put("stream.bin", StreamBody{writer, kUploadSize}));
  auto produced = std::async(std::launch::async, [&] {
    const std::string_view all(payload);
    for (std::size_t at = 0; at < all.size(); at += 100 * 1024) {
      auto wrote = writer->write(all.substr(at, 100 * 1024));
      if (!wrote.ok()) return wrote;
    }
    writer->close();
    return Result<void>();
  });
  auto response = pending.wait();
  const Result<void> producer = produced.get();
  ASSERT_TRUE(producer.ok()) << producer.error().describe();
  expect_arrived(client, std::move(response), "stream.bin", test::sha256_hex(payload));
}

// A PartsBody (what MultipartForm sends): bytes, a file read on the file pool, bytes
// again, and an empty file, one after another with one Content-Length; the file's
// read pieces are all that is held.
TEST_P(VersionsUpload, PartsOfBytesAndFilesArriveInOrder) {
  auto client = make_client();
  const std::string middle = test::pseudo_random_bytes(kUploadSize - 2000, 23);
  const std::string head = test::pseudo_random_bytes(1000, 24);
  const std::string tail = test::pseudo_random_bytes(1000, 25);
  const std::string dir = ::testing::TempDir();
  const std::string file = dir + "/sluice_parts_" + std::string(test::wire_name(wire())) + ".bin";
  const std::string empty = file + ".empty";
  { std::ofstream(file, std::ios::binary) << middle; }
  { std::ofstream(empty, std::ios::binary); }
  PartsBody body;
  body.parts = {BytesBody{head}, FileBody{file}, BytesBody{tail}, FileBody{empty}};
  auto response = client.fetch(put("parts.bin", std::move(body)));
  expect_arrived(client, std::move(response), "parts.bin", test::sha256_hex(head + middle + tail));
  std::remove(file.c_str());
  std::remove(empty.c_str());
}

INSTANTIATE_TEST_SUITE_P(Versions, VersionsUpload, ::testing::ValuesIn(test::all_wires()),
                         test::wire_test_name);

}  // namespace
}  // namespace sluice

// The client's flow control against servers that wait for window instead of sending
// what it allows (H2TestServer with a send policy): one that sends only whole units
// of 32,750 bytes, one that sends nothing while less than a minimum window is open,
// and one that does both. Prompt, slow, pausing and callback readers must each
// receive every byte: the client has to give credit back for what its reader took
// even when no more DATA comes to prompt it.
//
// Each test has a hang guard (the request's idle and total timeouts, and a read
// deadline), so a stall fails the test with the byte count it stalled at.

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "sluice/sluice.hpp"
#include "support/h2_test_server.hpp"
#include "support/make_client.hpp"
#include "support/test_body.hpp"
#include "support/test_server.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;
using test::H2ServerStream;
using test::H2TestServer;
using test::H2TestServerOptions;

constexpr std::uint64_t k64MiB = 64u << 20;
constexpr std::uint64_t kSeed = 41;
// Nothing arriving for this long is a stall (a healthy 64 MiB transfer over
// loopback never pauses for a fraction of it, even in a sanitizer build).
constexpr auto kStall = 10s;
constexpr auto kWholeTransfer = 180s;

Client make_client() { return test::make_client(); }

// What a reader got: every byte hashed as it arrives, nothing kept.
struct Received {
  std::uint64_t bytes = 0;
  std::string sha256;
  std::string failure;  ///< empty when the body ended normally
};

// How the test's reader takes the body.
enum class ReaderKind {
  prompt,     ///< reads as fast as it can, 256 KiB at a time
  slow,       ///< 16 KiB at a time, resting after every 512 KiB until 16 KiB wait
  pausing,    ///< reads 4 MiB, stops until a quarter of the window waits, and again
  callbacks,  ///< callback mode on the HTTP thread, taking every chunk
};

std::string reader_name(ReaderKind kind) {
  switch (kind) {
    case ReaderKind::prompt: return "Prompt";
    case ReaderKind::slow: return "Slow";
    case ReaderKind::pausing: return "Pausing";
    case ReaderKind::callbacks: return "Callbacks";
  }
  return "?";
}

std::string reader_param_name(const ::testing::TestParamInfo<ReaderKind>& param) {
  return reader_name(param.param);
}

// A rest ends on an event, never after a time: once `staged` bytes wait unread (the
// server sent into the window while the reader took nothing), or the body ended.
// Every policy below lets at least a quarter of the 256 KiB window (64 KiB) arrive
// once the client has given credit for what its reader took, so a rest that never
// ends is the client withholding credit: the failure this suite looks for.
bool rest_until_staged(const BodyReader& body, std::size_t staged) {
  return test::eventually([&] { return body.buffered() >= staged || body.ended_at(); });
}

// Whether the reader rests after taking the bytes from `before` to `after`, and
// until how much waits; 0: no rest.
std::size_t rest_after(ReaderKind kind, std::uint64_t before, std::uint64_t after) {
  if (kind == ReaderKind::slow && before / (512 * 1024) != after / (512 * 1024)) return 16 * 1024;
  if (kind == ReaderKind::pausing && before / (4 << 20) != after / (4 << 20)) return 64 * 1024;
  return 0;
}

Received read_body(BodyReader& body, ReaderKind kind) {
  Received received;
  test::Sha256 sha;
  std::vector<std::byte> buffer(kind == ReaderKind::slow ? 16 * 1024 : 256 * 1024);
  const auto give_up = std::chrono::steady_clock::now() + kWholeTransfer;
  for (;;) {
    // Longer than the request's idle timeout, which should fire first and say so.
    auto n = body.read_for(buffer, kStall + 5s);
    if (!n.ok()) {
      received.failure = n.error().message();
      return received;
    }
    if (!n->has_value()) {
      received.failure = "nothing arrived for " + std::to_string((kStall + 5s).count()) + " s";
      return received;
    }
    if (**n == 0) break;
    sha.update(std::span<const std::byte>(buffer.data(), **n));
    const std::size_t rest = rest_after(kind, received.bytes, received.bytes + **n);
    received.bytes += **n;
    if (rest > 0 && !rest_until_staged(body, rest)) {
      received.failure = "the reader rested, and " + std::to_string(rest) +
                         " bytes never arrived: the client withheld the credit it owed";
      return received;
    }
    if (std::chrono::steady_clock::now() > give_up) {
      received.failure = "the transfer took longer than the guard allows";
      return received;
    }
  }
  received.sha256 = sha.hex_digest();
  return received;
}

// Callback mode: chunks arrive on the HTTP thread; the end is waited for here.
Received read_by_callbacks(BodyReader& body) {
  struct Shared {
    std::mutex mu;
    std::condition_variable ended_cv;
    bool ended = false;
    Received received;
    test::Sha256 sha;
  };
  auto shared = std::make_shared<Shared>();
  (void)std::move(body).on_data(
      [shared](std::span<const std::byte> chunk) {
        std::lock_guard lock(shared->mu);
        shared->sha.update(chunk);
        shared->received.bytes += chunk.size();
        return true;
      },
      [shared](Result<void> status) {
        std::lock_guard lock(shared->mu);
        if (status.ok()) {
          shared->received.sha256 = shared->sha.hex_digest();
        } else {
          shared->received.failure = status.error().message();
        }
        shared->ended = true;
        shared->ended_cv.notify_all();
      });
  std::unique_lock lock(shared->mu);
  if (!shared->ended_cv.wait_for(lock, kWholeTransfer, [&] { return shared->ended; })) {
    shared->received.failure = "the transfer took longer than the guard allows";
  }
  return shared->received;
}

// GETs a 64 MiB generated body over h2c from a server with `options`, the response
// staged up to `mark` (the stream's window), and checks it arrived whole.
void expect_whole_body(H2TestServerOptions options, ReaderKind kind,
                       std::size_t mark = 256 * 1024) {
  H2TestServer server(
      [](H2ServerStream& stream) {
        stream.respond(200, {{"content-length", std::to_string(k64MiB)}});
        stream.send_body_generated(k64MiB, kSeed);
      },
      std::move(options));
  auto client = make_client();
  Request request = Request::get(server.url("/64m.bin"));
  request.version = VersionPolicy::http2_prior_knowledge;
  request.allowance = {mark, mark};
  request.timeouts.idle = std::chrono::duration_cast<std::chrono::milliseconds>(kStall);
  request.timeouts.total = std::chrono::duration_cast<std::chrono::milliseconds>(kWholeTransfer);
  auto response = client.send(std::move(request)).wait();
  ASSERT_TRUE(response.ok()) << response.error().message();
  EXPECT_EQ(response->version, HttpVersion::http2);
  const Received received = kind == ReaderKind::callbacks ? read_by_callbacks(response->body)
                                                          : read_body(response->body, kind);
  EXPECT_EQ(received.failure, "") << "stalled after " << received.bytes << " of " << k64MiB
                                  << " bytes";
  EXPECT_EQ(received.bytes, k64MiB);
  if (received.failure.empty()) {
    EXPECT_EQ(received.sha256, test::generated_sha256(k64MiB, kSeed));
  }
}

// --- Servers that send only whole units -----------------------------------------

// 262,144 bytes of stream window hold 8 units (262,000 bytes) with 144 to spare: the
// server waits for a whole unit of window after each batch, and the reader stays
// below its mark. A client that gives credit back only when DATA arrives or a paused
// reader resumes stalls after the first batch (unless its reader happened to take
// most of it while the batch was still arriving over several receives).
class ClientFlowControlUnits : public ::testing::TestWithParam<ReaderKind> {};

TEST_P(ClientFlowControlUnits, A64MiBBodyInWholeUnitsOf32750ArrivesComplete) {
  H2TestServerOptions options;
  options.peer.data_unit = 32750;
  expect_whole_body(std::move(options), GetParam());
}

INSTANTIATE_TEST_SUITE_P(Readers, ClientFlowControlUnits,
                         ::testing::Values(ReaderKind::prompt, ReaderKind::slow,
                                           ReaderKind::pausing, ReaderKind::callbacks),
                         reader_param_name);

// The same with a 64 KiB mark: two units (65,500 bytes) fill the window, and they
// come in one receive, before the reader can take any of them; the client must
// still give their window back once the reader has taken them.
TEST(ClientFlowControl, A64MiBBodyInWholeUnitsArrivesCompleteWithA64KiBMark) {
  H2TestServerOptions options;
  options.peer.data_unit = 32750;
  expect_whole_body(std::move(options), ReaderKind::prompt, 64 * 1024);
}

// --- Servers that wait for a minimum window -------------------------------------

// Nothing goes until 192 KiB of window is open (three quarters of the client's 256
// KiB stream window), then what the window allows.
class ClientFlowControlMinimumWindow : public ::testing::TestWithParam<ReaderKind> {};

TEST_P(ClientFlowControlMinimumWindow, A64MiBBodyFromAServerWaitingFor192KiBArrivesComplete) {
  H2TestServerOptions options;
  options.peer.min_send_window = 192 * 1024;
  expect_whole_body(std::move(options), GetParam());
}

INSTANTIATE_TEST_SUITE_P(Readers, ClientFlowControlMinimumWindow,
                         ::testing::Values(ReaderKind::prompt, ReaderKind::slow,
                                           ReaderKind::pausing),
                         reader_param_name);

// Units of 16 KiB, each only while 192 KiB of window is open: the server stops with
// a quarter of the window received, below the half-window step, and waits. Only the
// quiet rule (credit for what was taken once nothing arrives for a moment) frees it.
class ClientFlowControlQuiet : public ::testing::TestWithParam<ReaderKind> {};

TEST_P(ClientFlowControlQuiet, A64MiBBodyFromAServerThatStopsAQuarterInArrivesComplete) {
  H2TestServerOptions options;
  options.peer.data_unit = 16 * 1024;
  options.peer.min_send_window = 192 * 1024;
  expect_whole_body(std::move(options), GetParam());
}

INSTANTIATE_TEST_SUITE_P(Readers, ClientFlowControlQuiet,
                         ::testing::Values(ReaderKind::prompt, ReaderKind::slow,
                                           ReaderKind::pausing),
                         reader_param_name);

}  // namespace
}  // namespace sluice

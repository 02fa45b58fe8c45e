#include "net/stream_driver.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/byte_queue.hpp"
#include "net/transport.hpp"
#include "support/manual_clock.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;

// A StreamCodec that records what its driver tells it and does what the test sets,
// in the shape of H1Connection / H2Connection: it may close the driver from inside
// on_input or on the end, stop wanting input after a receive, keep one deadline, and
// move output toward the socket through the send queue or write_direct.
class FakeCodec final : public StreamCodec {
 public:
  std::span<std::byte> input_space(std::size_t max) override {
    asked_for_space.push_back(max);
    return std::span(space).first(std::min(max, space.size()));
  }
  void on_input(std::span<const std::byte> bytes) override {
    ++input_calls;
    if (!space.empty()) inputs_in_space += bytes.data() == space.data() ? 1 : 0;
    // An h1 sink that cancels from its body callback closes the driver while llhttp
    // is still parsing `bytes`: they must outlive the close until on_input returns.
    if (close_from_on_input) driver->close();
    received.append(as_text(bytes));
    if (pause_after_input) wants = false;
    if (deadline_after_input) deadline = deadline_after_input;
  }
  void on_input_end() override {
    ends.push_back(received.size());
    if (close_on_end) driver->close();
  }
  void on_transport_error(Error error) override {
    errors.push_back(std::move(error));
    closed_when_told.push_back(driver->closed());
  }
  bool wants_input() const override { return wants; }
  std::size_t input_limit() const override { return limit; }
  bool produce_output(StreamDriver& out) override {
    if (sent == outgoing.size()) return false;
    const auto piece = as_bytes(outgoing).subspan(sent, std::min(chunk, outgoing.size() - sent));
    if (!direct) {
      out.output().append(piece);
      sent += piece.size();
      return true;
    }
    const std::size_t taken = out.write_direct(piece);
    direct_results.push_back(taken);
    sent += taken;
    return taken > 0;
  }
  void after_event() override { ++after_events; }
  std::optional<TimePoint> next_deadline() const override { return deadline; }
  // As a real codec does, a call before the deadline (the timer fired early) finds
  // nothing due; a due one is handled and the deadline cleared.
  void on_deadline(TimePoint now) override {
    deadline_calls.push_back(now);
    if (!deadline || now < *deadline) return;
    due_at.push_back(now);
    deadline.reset();
  }

  std::vector<std::byte> space;  // offered by input_space when not empty
  std::vector<std::size_t> asked_for_space;
  int inputs_in_space = 0;  // on_input calls whose bytes start at space.data()

  /// Everything the driver told it but after_event: what a closed driver must not add to.
  std::size_t heard() const {
    return static_cast<std::size_t>(input_calls) + ends.size() + errors.size() +
           deadline_calls.size();
  }

  StreamDriver* driver = nullptr;
  // What the test sets.
  bool wants = true;
  std::size_t limit = SIZE_MAX;  // input_limit(): an allowance's room
  bool close_from_on_input = false;
  bool close_on_end = false;
  bool pause_after_input = false;
  std::optional<TimePoint> deadline;
  std::optional<TimePoint> deadline_after_input;
  std::string outgoing;  // produced from the front, `chunk` bytes a call
  std::size_t chunk = 64 * 1024;
  bool direct = false;  // write_direct instead of output()
  // What it heard.
  int input_calls = 0;
  std::string received;
  std::vector<std::size_t> ends;  // received.size() at each on_input_end
  std::vector<Error> errors;
  std::vector<bool> closed_when_told;  // driver->closed() at each on_transport_error
  std::vector<TimePoint> deadline_calls;
  std::vector<TimePoint> due_at;  // the calls at or after the deadline
  std::vector<std::size_t> direct_results;
  std::size_t sent = 0;  // bytes of `outgoing` handed to the driver
  int after_events = 0;
};

// Bytes whose order shows: a reordered, lost or repeated piece changes the string.
std::string pattern(std::size_t size) {
  std::string bytes(size, '\0');
  for (std::size_t i = 0; i < size; ++i) bytes[i] = static_cast<char>('a' + (i / 7 + i) % 26);
  return bytes;
}

// A driver over a real socket on a loop of a manual clock. The test is the peer: it
// writes and reads `peer_` itself, and runs the loop turn by turn on this thread.
class StreamDriverTest : public ::testing::Test {
 protected:
  StreamDriverTest() {
    int fds[2];
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds), 0);
    peer_ = fds[1];
    start(fds[0]);
  }
  ~StreamDriverTest() override {
    driver_.reset();
    close_peer();
  }

  void start(int fd) {
    driver_ = std::make_unique<StreamDriver>(loop_, make_plain_transport(fd), codec_);
    codec_.driver = driver_.get();
  }

  // Replaces the socketpair with a loopback TCP connection: only TCP can be reset.
  void connect_over_tcp() {
    driver_.reset();
    close_peer();
    const int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    auto* raw = reinterpret_cast<sockaddr*>(&address);
    ASSERT_EQ(bind(listener, raw, length), 0);
    ASSERT_EQ(listen(listener, 1), 0);
    ASSERT_EQ(getsockname(listener, raw, &length), 0);
    const int ours = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ASSERT_EQ(connect(ours, raw, length), 0);  // blocking: returns once established
    peer_ = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    close(listener);
    ASSERT_GE(peer_, 0);
    ASSERT_EQ(fcntl(ours, F_SETFL, O_NONBLOCK), 0);
    start(ours);
  }

  // Runs the loop a turn at a time until `done()` holds (checked at the start of each
  // turn) or `max_turns` have run. A turn does not sleep: the check re-posts itself,
  // so epoll reports the sockets ready now and returns. An AF_UNIX write is readable
  // on the other end before send() returns, so a turn sees what the test just did.
  bool run_until(const std::function<bool()>& done, int max_turns = 1000) {
    bool met = false;
    int turns = 0;
    std::function<void()> check = [&] {
      met = done();
      if (met || ++turns > max_turns) {
        loop_.stop();
        return;
      }
      loop_.post(check);
    };
    loop_.post(check);
    loop_.run();
    return met;
  }
  void run_turns(int turns) {
    run_until([] { return false; }, turns);
  }

  void close_peer() {
    if (peer_ >= 0) close(peer_);
    peer_ = -1;
  }
  void send_to_driver(std::string_view bytes) {
    ASSERT_EQ(send(peer_, bytes.data(), bytes.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(bytes.size()));
  }
  // Sends all of `bytes`, running the loop whenever the socket is full, so the driver
  // makes room by reading.
  void send_all_to_driver(std::string_view bytes) {
    std::size_t offset = 0;
    ASSERT_TRUE(run_until([&] {
      const ssize_t sent = send(peer_, bytes.data() + offset, bytes.size() - offset, MSG_NOSIGNAL);
      if (sent > 0) offset += static_cast<std::size_t>(sent);
      return offset == bytes.size();
    })) << "the driver stopped reading at "
        << offset << " of " << bytes.size() << " bytes";
  }
  // What the driver wrote and the peer has not read yet, read now.
  std::string drain_peer() {
    std::string got;
    char buffer[64 * 1024];
    for (;;) {
      const ssize_t n = recv(peer_, buffer, sizeof buffer, 0);
      if (n <= 0) return got;
      got.append(buffer, static_cast<std::size_t>(n));
    }
  }
  // Reads as the peer, a socketful a turn, until `size` bytes came.
  std::string drain_peer_until(std::size_t size) {
    std::string got;
    EXPECT_TRUE(run_until([&] {
      got += drain_peer();
      return got.size() >= size;
    })) << "the rest never came: "
        << got.size() << " of " << size << " bytes";
    return got;
  }
  // The codec heard `message` once, from a driver already closed, and nothing else
  // since, even as time and turns passed (its deadline was armed).
  void expect_one_transport_error(const std::string& message) {
    ASSERT_EQ(codec_.errors.size(), 1u);
    EXPECT_EQ(codec_.errors[0].category(), ErrorCategory::io);
    EXPECT_EQ(codec_.errors[0].message(), message);
    EXPECT_EQ(codec_.closed_when_told, std::vector<bool>{true});
    EXPECT_TRUE(driver_->closed());
    EXPECT_EQ(driver_->scratch_bytes(), 0u);
    clock_.advance(2s);
    run_turns(5);
    EXPECT_EQ(codec_.heard(), 1u) << "only the error: no input, no end, no deadline";
  }
  // Bytes in the driver's socket that it has not read.
  int unread_by_driver() const {
    int waiting = -1;
    EXPECT_EQ(ioctl(driver_->transport().fd(), FIONREAD, &waiting), 0);
    return waiting;
  }
  // Runs one event that moves `codec_.outgoing` (set by the caller) toward the
  // socket until the socket takes no more. The socket's buffer is made small so that
  // a megabyte overfills it whatever the machine's default.
  void produce_until_the_socket_is_full() {
    const int small = 64 * 1024;
    ASSERT_EQ(setsockopt(driver_->transport().fd(), SOL_SOCKET, SO_SNDBUF, &small, sizeof small),
              0);
    driver_->event([] {});
    const std::size_t written = codec_.sent - driver_->output().size();
    ASSERT_GT(written, 0u);
    ASSERT_LT(written, codec_.outgoing.size()) << "the socket took everything: send more";
    int waiting = -1;
    ASSERT_EQ(ioctl(peer_, FIONREAD, &waiting), 0);
    EXPECT_EQ(static_cast<std::size_t>(waiting), written) << "written bytes the peer cannot see";
  }

  test::ManualClock clock_;
  EventLoop loop_{clock_};
  FakeCodec codec_;
  int peer_ = -1;  // the test's end of the connection
  std::unique_ptr<StreamDriver> driver_;
};

// --- Input --------------------------------------------------------------------------

// d11575b: close() inside on_input freed the receive the codec was still reading
// (ASan: heap-use-after-free in on_input, below close()).
TEST_F(StreamDriverTest, CloseFromInsideOnInputLeavesTheBytesReadableUntilTheCodecReturns) {
  codec_.close_from_on_input = true;
  codec_.deadline = clock_.now() + 1s;
  driver_->prime();  // arms the deadline: closing must cancel it
  const std::string response = pattern(20000);
  send_to_driver(response);
  ASSERT_TRUE(run_until([&] { return codec_.input_calls > 0; }));
  EXPECT_EQ(codec_.received, response) << "on_input read its bytes after they were freed";
  EXPECT_TRUE(driver_->closed());
  EXPECT_EQ(driver_->scratch_bytes(), 0u);

  const std::size_t heard = codec_.heard();
  close_peer();
  clock_.advance(2s);
  run_turns(5);
  EXPECT_EQ(codec_.heard(), heard) << "a closed driver told its codec more";
  EXPECT_EQ(codec_.input_calls, 1);
}

// HTTP/1.1 offers the reader's staging room for a body: the receive lands there and
// on_input sees it in place, a receive at most the room's size.
TEST_F(StreamDriverTest, ReceivesIntoTheCodecsOwnMemoryWhereItOffersSome) {
  codec_.space.resize(10);
  send_to_driver("hello world, in place");  // 21 bytes: three receives of at most 10
  ASSERT_TRUE(run_until([&] { return codec_.received.size() == 21; }));
  EXPECT_EQ(codec_.received, "hello world, in place");
  EXPECT_EQ(codec_.input_calls, 3);
  EXPECT_EQ(codec_.inputs_in_space, 3);
  ASSERT_FALSE(codec_.asked_for_space.empty());
  EXPECT_EQ(codec_.asked_for_space.front(), 256u * 1024) << "asked for one in-place receive";
}

// An HTTP/1.1 exchange bounds each receive by the room below its allowance: the
// driver never reads more than the codec's limit, in place or into its scratch, and
// reads nothing at a limit of 0.
TEST_F(StreamDriverTest, NoReceiveIsLargerThanTheCodecsLimit) {
  codec_.limit = 4;
  send_to_driver("0123456789");
  ASSERT_TRUE(run_until([&] { return codec_.received.size() == 10; }));
  EXPECT_EQ(codec_.input_calls, 3) << "receives of 4, 4 and 2 bytes";
  codec_.space.resize(100);
  send_to_driver("abcdef");
  ASSERT_TRUE(run_until([&] { return codec_.received.size() == 16; }));
  EXPECT_EQ(codec_.asked_for_space.back(), 4u) << "the space asked for is the limit";
  codec_.limit = 0;
  send_to_driver("held");
  run_turns(5);
  EXPECT_EQ(codec_.received, "0123456789abcdef");
  EXPECT_EQ(unread_by_driver(), 4) << "the driver read past a limit of 0";
}

TEST_F(StreamDriverTest, BytesStayInTheSocketWhileTheCodecWantsNoInput) {
  codec_.pause_after_input = true;  // as HTTP/1.1 does a mark behind its reader
  send_to_driver("first");
  ASSERT_TRUE(run_until([&] { return codec_.input_calls == 1; }));
  send_to_driver("second");
  run_turns(5);
  EXPECT_EQ(codec_.input_calls, 1);
  EXPECT_EQ(codec_.received, "first");
  EXPECT_EQ(unread_by_driver(), 6) << "the driver read bytes its codec did not want";

  codec_.wants = true;  // the reader caught up; its connection resumes the driver
  driver_->event([&] { driver_->read(); });
  EXPECT_EQ(codec_.input_calls, 2);
  EXPECT_EQ(codec_.received, "firstsecond");
  EXPECT_EQ(unread_by_driver(), 0);
}

TEST_F(StreamDriverTest, PeerCloseIsReportedOnceAfterEveryByteInOrder) {
  codec_.close_on_end = true;                    // as H1Connection and H2Connection do
  const std::string body = pattern(300 * 1024);  // several receives of 64 KiB
  send_all_to_driver(body);
  close_peer();
  ASSERT_TRUE(run_until([&] { return !codec_.ends.empty(); }));
  EXPECT_EQ(codec_.received, body);
  EXPECT_GE(codec_.input_calls, 5);
  EXPECT_EQ(codec_.ends, std::vector<std::size_t>{body.size()}) << "the end came before the bytes";
  run_turns(5);
  EXPECT_EQ(codec_.ends.size(), 1u);
  EXPECT_TRUE(codec_.errors.empty());
}

// The peer hangs up while the codec holds its input (epoll reports a hang-up even
// with no interest, and the driver stops watching the socket): the bytes and then the
// end arrive once reading resumes.
TEST_F(StreamDriverTest, PeerCloseWhileInputIsHeldIsReportedAfterTheRestOnResume) {
  codec_.pause_after_input = true;
  codec_.close_on_end = true;
  send_to_driver("head");
  ASSERT_TRUE(run_until([&] { return codec_.input_calls == 1; }));
  send_to_driver("tail");
  close_peer();
  run_turns(5);
  EXPECT_EQ(codec_.received, "head");
  EXPECT_TRUE(codec_.ends.empty());

  codec_.pause_after_input = false;
  codec_.wants = true;
  driver_->event([&] { driver_->read(); });
  EXPECT_EQ(codec_.received, "headtail");
  EXPECT_EQ(codec_.ends, std::vector<std::size_t>{8});
  EXPECT_TRUE(driver_->closed());
}

// A codec that stays open after on_input_end and still wants input hears the end
// once: the socket stays readable at EOF (level-triggered), so a driver that kept
// reading would call on_input_end every turn and spin instead of sleeping.
// (H1Connection and H2Connection close on the end, so they never met it.)
TEST_F(StreamDriverTest, PeerCloseIsReportedOnceEvenToACodecThatStaysOpen) {
  send_to_driver("last words");
  close_peer();
  ASSERT_TRUE(run_until([&] { return !codec_.ends.empty(); }));
  run_turns(5);
  EXPECT_EQ(codec_.received, "last words");
  EXPECT_EQ(codec_.ends.size(), 1u);
}

// --- The deadline -------------------------------------------------------------------

TEST_F(StreamDriverTest, DeadlineFiresOnceWhenTheClockPassesIt) {
  const TimePoint due = clock_.now() + 10s;
  codec_.deadline = due;
  driver_->event([] {});  // every event ends by asking next_deadline
  clock_.advance(10s - 1ms);
  run_turns(5);
  EXPECT_TRUE(codec_.deadline_calls.empty()) << "fired before the deadline";

  clock_.advance(1ms);
  ASSERT_TRUE(run_until([&] { return !codec_.deadline_calls.empty(); }));
  EXPECT_GE(codec_.deadline_calls[0], due);
  clock_.advance(1h);
  run_turns(5);
  EXPECT_EQ(codec_.deadline_calls.size(), 1u);
  EXPECT_EQ(codec_.due_at.size(), 1u);
}

// A deadline that a read event moved earlier (an HTTP/2 PING's answer now due) is
// re-armed at the end of that event, with no call from the codec's owner.
TEST_F(StreamDriverTest, DeadlineMovedEarlierByAReadIsRearmed) {
  const TimePoint start = clock_.now();
  codec_.deadline = start + 10s;
  driver_->event([] {});
  codec_.deadline_after_input = start + 2s;
  send_to_driver("ping ack");
  ASSERT_TRUE(run_until([&] { return codec_.input_calls == 1; }));

  clock_.advance(2s);
  ASSERT_TRUE(run_until([&] { return !codec_.due_at.empty(); }));
  EXPECT_GE(codec_.due_at[0], start + 2s);
  EXPECT_LT(codec_.due_at[0], start + 10s);
  clock_.advance(10s);
  run_turns(5);
  EXPECT_EQ(codec_.due_at.size(), 1u) << "the replaced timer fired too";
}

// A deadline moved later may wake the codec early (on_deadline's contract: check
// `now`), but it is handled at the new time, once.
TEST_F(StreamDriverTest, DeadlineMovedLaterIsHandledAtTheNewTime) {
  const TimePoint start = clock_.now();
  codec_.deadline = start + 2s;
  driver_->event([] {});
  codec_.deadline = start + 10s;
  driver_->event([] {});

  clock_.advance(10s - 1ms);
  run_turns(5);
  EXPECT_TRUE(codec_.due_at.empty());
  for (const TimePoint call : codec_.deadline_calls) EXPECT_LT(call, start + 10s);

  clock_.advance(1ms);
  ASSERT_TRUE(run_until([&] { return !codec_.due_at.empty(); }))
      << "the timer that fired early was not re-armed for the later deadline";
  EXPECT_GE(codec_.due_at[0], start + 10s);
  run_turns(5);
  EXPECT_EQ(codec_.due_at.size(), 1u);
}

// --- Output -------------------------------------------------------------------------

TEST_F(StreamDriverTest, QueuedOutputReachesThePeer) {
  codec_.outgoing = "GET / HTTP/1.1\r\nHost: peer.test\r\n\r\n";
  driver_->event([] {});
  EXPECT_EQ(drain_peer(), codec_.outgoing);
  EXPECT_TRUE(driver_->output().empty());
  EXPECT_EQ(codec_.after_events, 1);
}

// The peer reads nothing until the socket is full; the rest leaves as it drains
// (write interest), in order. Meanwhile the codec is not asked for more: a writer
// faster than the peer is held back with at most one piece queued.
TEST_F(StreamDriverTest, OutputTheSocketCannotTakeFollowsAsThePeerDrains) {
  codec_.outgoing = pattern(1024 * 1024);
  produce_until_the_socket_is_full();
  EXPECT_FALSE(driver_->output().empty()) << "a blocked write must keep the rest queued";
  EXPECT_LE(driver_->output().size(), codec_.chunk) << "produce_output ran on a full socket";
  EXPECT_EQ(drain_peer_until(codec_.outgoing.size()), codec_.outgoing);
  EXPECT_TRUE(driver_->output().empty());
}

TEST_F(StreamDriverTest, WriteDirectReturnsZeroWhenTheSocketIsFullThenResumesAsThePeerDrains) {
  codec_.direct = true;  // a request body written straight from its bytes
  codec_.outgoing = pattern(1024 * 1024);
  produce_until_the_socket_is_full();
  ASSERT_GE(codec_.direct_results.size(), 2u);
  EXPECT_EQ(codec_.direct_results.back(), 0u);
  EXPECT_GT(codec_.direct_results.front(), 0u);
  EXPECT_EQ(driver_->write_direct(as_bytes(std::string_view("more"))), 0u);
  EXPECT_TRUE(driver_->output().empty()) << "write_direct copies nothing into the queue";

  EXPECT_EQ(drain_peer_until(codec_.outgoing.size()), codec_.outgoing);
  EXPECT_FALSE(driver_->closed());
}

// --- Scratch ------------------------------------------------------------------------

TEST_F(StreamDriverTest, ReleaseScratchFreesTheIdleBuffersAndSaysHowMuch) {
  send_to_driver("response");
  ASSERT_TRUE(run_until([&] { return codec_.input_calls == 1; }));
  codec_.outgoing = "request";
  driver_->event([] {});
  ASSERT_EQ(drain_peer(), "request");

  const std::size_t idle = driver_->scratch_bytes();
  EXPECT_GE(idle, 64u * 1024) << "a receive's scratch and the send queue's block";
  EXPECT_EQ(driver_->release_scratch(), idle);
  EXPECT_EQ(driver_->scratch_bytes(), 0u);
  EXPECT_EQ(driver_->release_scratch(), 0u);

  send_to_driver(" again");  // the driver allocates anew
  ASSERT_TRUE(run_until([&] { return codec_.input_calls == 2; }));
  EXPECT_EQ(codec_.received, "response again");
}

TEST_F(StreamDriverTest, ReleaseScratchKeepsASendQueueThatStillHoldsBytes) {
  send_to_driver("response");
  ASSERT_TRUE(run_until([&] { return codec_.input_calls == 1; }));
  codec_.outgoing = pattern(1024 * 1024);
  produce_until_the_socket_is_full();
  const std::size_t queued = driver_->output().size();
  ASSERT_GT(queued, 0u);

  const std::size_t idle = driver_->scratch_bytes();  // the receive scratch alone
  EXPECT_GE(idle, 64u * 1024);
  EXPECT_EQ(driver_->release_scratch(), idle);
  EXPECT_EQ(driver_->scratch_bytes(), 0u);
  EXPECT_EQ(driver_->output().size(), queued);
  EXPECT_EQ(drain_peer_until(codec_.outgoing.size()), codec_.outgoing);
}

// --- Transport errors ---------------------------------------------------------------

TEST_F(StreamDriverTest, ResetByThePeerReachesTheCodecOnceWithTheDriverClosed) {
  connect_over_tcp();
  codec_.deadline = clock_.now() + 1s;
  driver_->prime();
  const linger abort_on_close{1, 0};  // close() sends RST
  ASSERT_EQ(setsockopt(peer_, SOL_SOCKET, SO_LINGER, &abort_on_close, sizeof abort_on_close), 0);
  close_peer();
  // The RST reaches the driver's socket asynchronously: wait for it (10 s is only a
  // safety net against a hang), then let the loop see it.
  pollfd ready{driver_->transport().fd(), POLLIN, 0};
  ASSERT_EQ(poll(&ready, 1, 10000), 1) << "the reset never arrived";
  ASSERT_TRUE(run_until([&] { return !codec_.errors.empty(); }));
  expect_one_transport_error("connection reset by peer");
}

TEST_F(StreamDriverTest, WritingAfterThePeerClosedReachesTheCodecOnceWithTheDriverClosed) {
  codec_.wants = false;  // not reading: the write, not a read, meets the close
  codec_.deadline = clock_.now() + 1s;
  driver_->prime();
  close_peer();
  codec_.outgoing = "too late";
  driver_->event([] {});
  EXPECT_TRUE(driver_->output().empty());
  expect_one_transport_error("connection closed by peer");
}

}  // namespace
}  // namespace sluice

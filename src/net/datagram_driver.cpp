// DatagramDriver (see datagram_driver.hpp): reading datagrams in batches, sending the
// codec's batch in runs, the one timer, and closing.
// Ownership: HTTP thread only.

#include "net/datagram_driver.hpp"

#include <sys/epoll.h>

namespace sluice {
namespace {

// Rounds of finish_event before yielding the loop (each may add output).
constexpr int kEventRounds = 8;
// Receive batches per readiness event before other connections get a turn.
constexpr int kReceiveRounds = 4;

}  // namespace

DatagramDriver::DatagramDriver(EventLoop& loop, UdpSocket socket)
    : loop_(loop), socket_(std::move(socket)) {}

DatagramDriver::~DatagramDriver() {
  *alive_ = false;
  close();
}

Result<void> DatagramDriver::start(DatagramCodec& codec) {
  codec_ = &codec;
  auto watched = loop_.watch(socket_->fd(), EPOLLIN, this);
  if (!watched) {
    socket_.reset();
    return std::move(watched).error();
  }
  schedule_write();  // the codec's first datagrams leave at the end of this turn
  return {};
}

// ---- events -----------------------------------------------------------------

void DatagramDriver::on_fd_ready(std::uint32_t events) {
  event([&] {
    if ((events & EPOLLOUT) != 0) flush();
    if ((events & (EPOLLIN | EPOLLERR | EPOLLHUP)) != 0 && !closed()) read_ready();
  });
}

void DatagramDriver::read_ready() {
  for (int round = 0; round < kReceiveRounds; ++round) {
    auto batch = socket_->receive_batch();
    if (!batch) {
      fail(std::move(batch).error());  // the socket is dead (an ICMP error)
      return;
    }
    const std::span<const UdpDatagram> datagrams = *batch;
    const TimePoint now = loop_.now();  // one receive: one arrival time
    for (const UdpDatagram& datagram : datagrams) {
      codec_->on_datagram(datagram.bytes, now);
      if (closed()) return;  // the batch's memory went with the socket
    }
    if (datagrams.size() < UdpSocket::kMaxBatch) return;
  }
}

// Every event ends here: the codec writes while the socket takes it all, then the
// timer follows the codec's next deadline.
void DatagramDriver::finish_event() {
  bool again = false;
  for (int round = 0; round < kEventRounds && !closed(); ++round) {
    (void)nesting_.take_again();
    if (batch_.empty()) codec_->write_datagrams(batch_, loop_.now());
    flush();
    again = nesting_.take_again();
    if (!again) break;
  }
  if (closed()) return;
  if (again) schedule_write();  // more next turn
  arm_timer();
}

void DatagramDriver::request_write() {
  if (closed()) return;
  if (nesting_.in_event()) {
    nesting_.ask_again();  // this event's finish writes
    return;
  }
  schedule_write();
}

void DatagramDriver::schedule_write() {
  if (write_scheduled_ || closed()) return;
  write_scheduled_ = true;
  loop_.at_turn_end([this, alive = std::weak_ptr<bool>(alive_)] {
    const auto still = alive.lock();
    if (!still || !*still) return;
    write_scheduled_ = false;
    if (!closed()) event([] {});
  });
}

// One timer follows the codec's deadline, re-armed whenever it moves: QUIC's moves
// with every packet (loss detection, pacing), and a timer firing early for nothing
// would cost a turn each time.
void DatagramDriver::arm_timer() {
  const std::optional<TimePoint> due = codec_->next_deadline();
  if (timer_ != 0 && due == timer_at_) return;
  if (timer_ != 0) loop_.cancel_timer(timer_);
  timer_ = 0;
  timer_at_ = due;
  if (!due) return;
  timer_ = loop_.add_timer(*due, [this] {
    timer_ = 0;
    timer_at_.reset();
    event([this] { codec_->on_deadline(loop_.now()); });
  });
}

// ---- sending ----------------------------------------------------------------

// Sends the batch's runs in order; what the socket refuses waits for EPOLLOUT.
void DatagramDriver::flush() {
  while (!closed() && !batch_.empty()) {
    const DatagramBatch::Run& run = batch_.runs().front();
    auto sent = socket_->send_batch(batch_.bytes_of(run), run.segment);
    if (!sent) {
      fail(std::move(sent).error());
      return;
    }
    const bool whole = *sent == run.length;
    batch_.sent(*sent);
    if (!whole) {
      watch_writable(true);
      return;
    }
  }
  if (!closed()) watch_writable(false);
}

void DatagramDriver::watch_writable(bool writable) {
  if (writable == watching_writable_) return;
  watching_writable_ = writable;
  (void)loop_.modify(socket_->fd(), writable ? EPOLLIN | EPOLLOUT : EPOLLIN);
}

bool DatagramDriver::send_now(std::span<const std::uint8_t> datagram) {
  if (closed()) return false;
  auto sent = socket_->send_batch(datagram, datagram.size());
  return sent && *sent == datagram.size();
}

// ---- closing ----------------------------------------------------------------

void DatagramDriver::fail(Error error) {
  close();
  codec_->on_port_error(std::move(error));
}

void DatagramDriver::close() {
  if (timer_ != 0) loop_.cancel_timer(timer_);
  timer_ = 0;
  timer_at_.reset();
  if (socket_) {
    if (codec_ != nullptr) loop_.unwatch(socket_->fd());
    socket_.reset();
  }
  batch_.clear();
  (void)batch_.release_if_empty();
}

std::size_t DatagramDriver::release_scratch() {
  const std::size_t freed = socket_ ? socket_->release_scratch() : 0;
  return freed + batch_.release_if_empty();
}

std::size_t DatagramDriver::scratch_bytes() const noexcept {
  return (socket_ ? socket_->scratch_bytes() : 0) + (batch_.empty() ? batch_.capacity() : 0);
}

}  // namespace sluice

// UdpDelayLink's relay: one socket facing the clients and, per client address (a
// flow), one socket connected to the target, on one thread under a LinkLoop. Each
// direction is one queue of datagrams in arrival order, each due one way later
// (after the link's serialisation clock, with a rate); a datagram is always
// forwarded as one datagram.
//
// QUIC at a few hundred MB/s is a few hundred thousand datagrams a second; two
// system calls for each would cost the link more than the end points spend. So
// recvmmsg and sendmmsg move them in batches, and a run of same-sized datagrams a
// sender wrote at once with GSO is received as one buffer (UDP_GRO) and sent on as
// one (UDP_SEGMENT): the receiver still gets each datagram as the sender wrote it.

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <optional>
#include <thread>
#include <unordered_map>
#include <vector>

#include "bench/delay_link.hpp"
#include "bench/link_loop.hpp"
#include "bench/link_socket.hpp"

namespace sluice::bench {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kBatch = 64;  // datagrams per recvmmsg or sendmmsg
constexpr std::size_t kMaxDatagram = 65536;
constexpr std::size_t kReadBatches = 8;  // per readable event, then the others' turn
// Beyond this backlog in one direction, new datagrams are dropped, as a router's
// full queue drops them (QUIC then sees a loss).
constexpr std::size_t kMaxBacklogBytes = 128 * 1024 * 1024;
constexpr int kSocketBufferBytes = 8 * 1024 * 1024;
// A client address silent this long (with nothing queued) loses its upstream
// socket; it gets a new one (a new source port at the server) if it sends again.
constexpr std::chrono::seconds kFlowIdle{120};
constexpr std::chrono::seconds kSweepEvery{1};

enum Lane : int { kToServer = 0, kToClient = 1 };

// One client address and its socket to the target.
struct Flow {
  sockaddr_in client{};
  int fd = -1;
  std::uint32_t watched = 0;
  LinkTime last_active{};
  std::size_t queued = 0;  // its datagrams in either lane: it is not freed before they go
};

// One datagram, or a GRO run of datagrams of `segment` bytes (the last may be
// shorter) that one sender wrote together.
struct Datagram {
  LinkTime due{};
  Flow* flow = nullptr;
  const char* data = nullptr;  // in the lane's ByteFifo
  std::size_t size = 0;
  std::uint16_t segment = 0;  // 0: one datagram
};

struct LaneQueue {
  ByteFifo bytes;
  std::deque<Datagram> queue;  // in arrival order; due times never decrease
  bool blocked = false;        // the sending socket is full: wait for its EPOLLOUT
};

std::uint64_t flow_key(const sockaddr_in& address) {
  return (static_cast<std::uint64_t>(address.sin_addr.s_addr) << 16) | address.sin_port;
}

}  // namespace

// Owned by UdpDelayLink. The constructor and destructor on the owner's thread; every
// other member on the relay's thread, except counters() (any thread).
class UdpDelayLink::Relay {
 public:
  Relay(int listen_fd, std::uint16_t target_port, LinkShape shape, std::unique_ptr<LinkLoop> loop)
      : listen_fd_(listen_fd),
        port_(local_port(listen_fd)),
        target_port_(target_port),
        loop_(std::move(loop)),
        clocks_{LinkClock(shape), LinkClock(shape)} {}
  ~Relay();
  Result<void> start_thread();

  std::uint16_t port() const noexcept { return port_; }
  LinkCounters counters() const { return counters_.snapshot(); }

 private:
  void run();
  void receive(int fd, Lane lane, Flow* flow);
  Flow* flow_for(const sockaddr_in& client, LinkTime now);
  void enqueue(Lane lane, Flow* flow, const msghdr& message, std::size_t size, LinkTime now);
  void flush(Lane lane, LinkTime now);
  std::size_t gather(Lane lane, LinkTime now);
  void sent(Lane lane, std::size_t count);
  void set_watch(int fd, std::uint32_t* watched, std::uint32_t want, void* tag);
  void sweep_flows(LinkTime now);
  std::optional<LinkTime> after_events(LinkTime now);

  int listen_fd_;
  std::uint16_t port_;
  std::uint16_t target_port_;
  std::unique_ptr<LinkLoop> loop_;
  LinkClock clocks_[2];
  LaneQueue lanes_[2];
  std::unordered_map<std::uint64_t, std::unique_ptr<Flow>> flows_;
  Flow* blocked_flow_ = nullptr;  // whose socket kToServer waits for
  std::uint32_t listen_watched_ = 0;
  char listen_tag_ = 0;
  LinkTime next_sweep_{};
  // Scratch for recvmmsg and sendmmsg, reused for every batch.
  std::vector<char> scratch_ = std::vector<char>(kBatch * kMaxDatagram);
  mmsghdr messages_[kBatch]{};
  iovec iovs_[kBatch]{};
  sockaddr_in names_[kBatch]{};
  char controls_[kBatch][kUdpControlBytes]{};
  LinkCounterCells counters_;
  std::thread thread_;
};

Result<void> UdpDelayLink::Relay::start_thread() {
  set_watch(listen_fd_, &listen_watched_, EPOLLIN, &listen_tag_);
  if (listen_watched_ == 0) return link_error("cannot watch the UDP socket");
  thread_ = std::thread([this] { run(); });
  return {};
}

UdpDelayLink::Relay::~Relay() {
  if (thread_.joinable()) {
    loop_->stop();
    thread_.join();
  }
  for (auto& [key, flow] : flows_) {
    loop_->unwatch(flow->fd);
    ::close(flow->fd);
  }
  loop_->unwatch(listen_fd_);
  ::close(listen_fd_);
}

// Every pass ends the same way: what is due is sent, the sockets' watched events are
// brought up to date, and the next due time bounds the next wait. What is due goes out
// before anything is read, so it does not wait behind a long read.
void UdpDelayLink::Relay::run() {
  prefer_link_thread();
  std::optional<LinkTime> deadline;
  while (!loop_->stopping()) {
    const std::span<const LinkLoop::Ready> ready_set = loop_->wait(deadline);
    const LinkTime now = Clock::now();
    flush(kToServer, now);
    flush(kToClient, now);
    for (const LinkLoop::Ready& ready : ready_set) {
      Flow* flow = ready.tag == &listen_tag_ ? nullptr : static_cast<Flow*>(ready.tag);
      if ((ready.events & (EPOLLOUT | EPOLLERR)) != 0) {
        lanes_[flow == nullptr ? kToClient : kToServer].blocked = false;
      }
      if ((ready.events & (EPOLLIN | EPOLLERR)) != 0) {
        receive(flow == nullptr ? listen_fd_ : flow->fd, flow == nullptr ? kToServer : kToClient,
                flow);
      }
    }
    deadline = after_events(Clock::now());
  }
}

// Reads batches from one socket: the clients' (flow == nullptr, each datagram's
// source picks its flow) or one flow's. Errors a datagram socket reports (an ICMP
// unreachable from an earlier send) end the batch; the socket stays open.
void UdpDelayLink::Relay::receive(int fd, Lane lane, Flow* flow) {
  for (std::size_t batch = 0; batch < kReadBatches; ++batch) {
    for (std::size_t i = 0; i < kBatch; ++i) {
      iovs_[i] = iovec{scratch_.data() + i * kMaxDatagram, kMaxDatagram};
      messages_[i].msg_hdr = msghdr{};
      messages_[i].msg_hdr.msg_iov = &iovs_[i];
      messages_[i].msg_hdr.msg_iovlen = 1;
      messages_[i].msg_hdr.msg_name = flow == nullptr ? &names_[i] : nullptr;
      messages_[i].msg_hdr.msg_namelen = flow == nullptr ? sizeof names_[i] : 0;
      messages_[i].msg_hdr.msg_control = controls_[i];
      messages_[i].msg_hdr.msg_controllen = sizeof controls_[i];
    }
    const int n = ::recvmmsg(fd, messages_, kBatch, MSG_DONTWAIT, nullptr);
    if (n <= 0) return;
    const LinkTime now = Clock::now();
    for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) {
      if ((messages_[i].msg_hdr.msg_flags & MSG_TRUNC) != 0) {  // cannot be: kMaxDatagram
        counters_.dropped.fetch_add(1, std::memory_order_relaxed);
        continue;
      }
      Flow* from = flow != nullptr ? flow : flow_for(names_[i], now);
      if (from == nullptr) continue;
      enqueue(lane, from, messages_[i].msg_hdr, messages_[i].msg_len, now);
    }
    if (static_cast<std::size_t>(n) < kBatch) return;  // drained
  }
}

// The flow of a client address, made on its first datagram.
Flow* UdpDelayLink::Relay::flow_for(const sockaddr_in& client, LinkTime now) {
  const std::uint64_t key = flow_key(client);
  if (auto found = flows_.find(key); found != flows_.end()) return found->second.get();
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  const sockaddr_in target = loopback_address(target_port_);
  if (fd < 0 || ::connect(fd, reinterpret_cast<const sockaddr*>(&target), sizeof target) != 0) {
    if (fd >= 0) ::close(fd);
    counters_.dropped.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
  enlarge_socket_buffers(fd, kSocketBufferBytes);
  enable_udp_gro(fd);
  auto flow = std::make_unique<Flow>();
  flow->client = client;
  flow->fd = fd;
  flow->last_active = now;
  Flow* made = flow.get();
  flows_.emplace(key, std::move(flow));
  counters_.connections.fetch_add(1, std::memory_order_relaxed);
  set_watch(fd, &made->watched, EPOLLIN, made);
  return made;
}

void UdpDelayLink::Relay::enqueue(Lane lane, Flow* flow, const msghdr& message, std::size_t size,
                                  LinkTime now) {
  LaneQueue& queue = lanes_[lane];
  flow->last_active = now;
  if (queue.bytes.size() + size > kMaxBacklogBytes) {
    counters_.dropped.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  const std::span<char> space = queue.bytes.tail_space(size);
  std::memcpy(space.data(), message.msg_iov[0].iov_base, size);
  queue.bytes.commit(size);
  queue.queue.push_back(Datagram{clocks_[lane].arrival(now, size), flow, space.data(), size,
                                 gro_segment_size(message)});
  ++flow->queued;
}

// Sends the due datagrams in batches until none is due or the socket is full. A
// datagram the kernel refuses for another reason (a pending ICMP error) is dropped.
void UdpDelayLink::Relay::flush(Lane lane, LinkTime now) {
  LaneQueue& queue = lanes_[lane];
  while (!queue.blocked) {
    const std::size_t count = gather(lane, now);
    if (count == 0) return;
    const int fd = lane == kToClient ? listen_fd_ : queue.queue.front().flow->fd;
    const int n = ::sendmmsg(fd, messages_, static_cast<unsigned>(count), MSG_DONTWAIT);
    if (n > 0) {
      sent(lane, static_cast<std::size_t>(n));
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      queue.blocked = true;
      blocked_flow_ = lane == kToServer ? queue.queue.front().flow : nullptr;
    } else if (n < 0 && errno != EINTR) {
      counters_.dropped.fetch_add(1, std::memory_order_relaxed);
      sent(lane, 1);
    }
  }
}

// Fills messages_ with the due datagrams at the head of `lane`, up to a batch; towards
// the server only those of the head's flow (one connected socket per sendmmsg).
std::size_t UdpDelayLink::Relay::gather(Lane lane, LinkTime now) {
  const std::deque<Datagram>& queue = lanes_[lane].queue;
  std::size_t count = 0;
  for (const Datagram& datagram : queue) {
    if (count == kBatch || datagram.due > now) break;
    if (lane == kToServer && datagram.flow != queue.front().flow) break;
    iovs_[count] = iovec{const_cast<char*>(datagram.data), datagram.size};
    msghdr& header = messages_[count].msg_hdr;
    header = msghdr{};
    header.msg_iov = &iovs_[count];
    header.msg_iovlen = 1;
    if (lane == kToClient) {
      header.msg_name = &datagram.flow->client;
      header.msg_namelen = sizeof datagram.flow->client;
    }
    if (datagram.segment > 0 && datagram.size > datagram.segment) {
      set_gso_segment_size(header, controls_[count], datagram.segment);
    }
    ++count;
  }
  return count;
}

// Drops the first `count` datagrams of `lane`: they went (or were given up).
void UdpDelayLink::Relay::sent(Lane lane, std::size_t count) {
  LaneQueue& queue = lanes_[lane];
  auto& forwarded = lane == kToServer ? counters_.bytes_to_server : counters_.bytes_to_client;
  for (std::size_t i = 0; i < count; ++i) {
    const Datagram& datagram = queue.queue.front();
    queue.bytes.consume(datagram.size);
    forwarded.fetch_add(datagram.size, std::memory_order_relaxed);
    --datagram.flow->queued;
    queue.queue.pop_front();
  }
}

void UdpDelayLink::Relay::set_watch(int fd, std::uint32_t* watched, std::uint32_t want, void* tag) {
  if (want == *watched) return;
  if (loop_->watch(fd, want, tag)) *watched = want;
}

void UdpDelayLink::Relay::sweep_flows(LinkTime now) {
  if (now < next_sweep_) return;
  next_sweep_ = now + kSweepEvery;
  std::erase_if(flows_, [&](const auto& entry) {
    const Flow& flow = *entry.second;
    if (flow.queued > 0 || now - flow.last_active < kFlowIdle || &flow == blocked_flow_) {
      return false;
    }
    loop_->unwatch(flow.fd);
    ::close(flow.fd);
    return true;
  });
}

std::optional<LinkTime> UdpDelayLink::Relay::after_events(LinkTime now) {
  flush(kToServer, now);
  flush(kToClient, now);
  const std::uint32_t in = EPOLLIN;
  const std::uint32_t in_out = EPOLLIN | EPOLLOUT;
  set_watch(listen_fd_, &listen_watched_, lanes_[kToClient].blocked ? in_out : in, &listen_tag_);
  for (auto& [key, flow] : flows_) {
    const bool waits = lanes_[kToServer].blocked && flow.get() == blocked_flow_;
    set_watch(flow->fd, &flow->watched, waits ? in_out : in, flow.get());
  }
  sweep_flows(now);
  std::optional<LinkTime> deadline;
  for (const LaneQueue& lane : lanes_) {
    if (lane.blocked || lane.queue.empty()) continue;
    if (!deadline || lane.queue.front().due < *deadline) deadline = lane.queue.front().due;
  }
  if (!flows_.empty() && (!deadline || next_sweep_ < *deadline)) deadline = next_sweep_;
  return deadline;
}

Result<std::unique_ptr<UdpDelayLink>> UdpDelayLink::start(std::uint16_t target_port,
                                                          LinkShape shape,
                                                          std::uint16_t listen_port) {
  Result<int> listen_fd = bound_loopback_socket(SOCK_DGRAM, listen_port);
  if (!listen_fd) return std::move(listen_fd).error();
  enlarge_socket_buffers(*listen_fd, kSocketBufferBytes);
  enable_udp_gro(*listen_fd);
  Result<std::unique_ptr<LinkLoop>> loop = LinkLoop::create();
  if (!loop) {
    ::close(*listen_fd);
    return std::move(loop).error();
  }
  auto relay = std::make_unique<Relay>(*listen_fd, target_port, shape, std::move(*loop));
  if (Result<void> ok = relay->start_thread(); !ok) return std::move(ok).error();
  return std::unique_ptr<UdpDelayLink>(new UdpDelayLink(std::move(relay)));
}

UdpDelayLink::UdpDelayLink(std::unique_ptr<Relay> relay) : relay_(std::move(relay)) {}
UdpDelayLink::~UdpDelayLink() = default;
std::uint16_t UdpDelayLink::port() const noexcept { return relay_->port(); }
LinkCounters UdpDelayLink::counters() const { return relay_->counters(); }

}  // namespace sluice::bench

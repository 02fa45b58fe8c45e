// UdpSocket: batched receive and send on a connected UDP socket (see udp_socket.hpp).
//
// Ownership: HTTP thread only.

#include "net/udp_socket.hpp"

#include <netinet/in.h>
#include <netinet/udp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

namespace sluice {
namespace {

// The kernel's limits for one GSO send (UDP_MAX_SEGMENTS, and one IP packet's
// worth of payload, headers included).
constexpr std::size_t kMaxGsoSegments = 64;
constexpr std::size_t kMaxGsoBytes = 65000;
// Kernel buffers sized for a fast download: the default (~200 KiB) overflows while
// the HTTP thread is busy elsewhere for a moment, and every drop costs QUIC a
// retransmission. The kernel caps them at net.core.[rw]mem_max.
constexpr int kReceiveBuffer = 4 * 1024 * 1024;
constexpr int kSendBuffer = 1024 * 1024;
// Transient receive errors (EINTR, an ICMP "fragmentation needed") retried per call.
constexpr int kReceiveAttempts = 4;

bool is_unreachable(int err) {
  switch (err) {
    case ECONNREFUSED:
    case ENETUNREACH:
    case EHOSTUNREACH:
    case EHOSTDOWN:
    case ENETDOWN:
    case EADDRNOTAVAIL:
    case EAFNOSUPPORT: return true;
    default: return false;
  }
}

bool would_block(int err) { return err == EAGAIN || err == EWOULDBLOCK; }

// The kernel dropped the datagram at once (no qdisc room, or larger than the path
// MTU with DF set): lost, as far as the sender can tell, not a socket failure.
bool dropped_by_kernel(int err) { return err == ENOBUFS || err == EMSGSIZE; }

// Errors with which a kernel or device turns down UDP GSO itself.
bool gso_refused(int err) {
  return err == EIO || err == EINVAL || err == EOPNOTSUPP || err == ENOPROTOOPT;
}

void set_socket_options(int fd, int family) {
  // Best effort: a smaller buffer or no DF bit only costs speed or MTU discovery.
  (void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &kReceiveBuffer, sizeof kReceiveBuffer);
  (void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &kSendBuffer, sizeof kSendBuffer);
  if (family == AF_INET) {
    const int mode = IP_PMTUDISC_DO;
    (void)setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &mode, sizeof mode);
  } else {
    const int mode = IPV6_PMTUDISC_DO;
    (void)setsockopt(fd, IPPROTO_IPV6, IPV6_MTU_DISCOVER, &mode, sizeof mode);
  }
}

bool kernel_has_gso(int fd) {
  int value = 0;
  socklen_t length = sizeof value;
  return getsockopt(fd, SOL_UDP, UDP_SEGMENT, &value, &length) == 0;
}

std::size_t datagrams_in(std::size_t size, std::size_t segment_size) {
  return (size + segment_size - 1) / segment_size;
}

}  // namespace

// What one send attempt achieved: `sent` bytes, then `err` (0: all of them).
struct UdpSocket::SendOutcome {
  std::size_t sent = 0;
  int err = 0;
};

Result<UdpSocket> UdpSocket::connect(const SocketAddress& remote, std::string label,
                                     const LocalBinding& binding) {
  const int family = remote.storage.ss_family;
  const int fd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_UDP);
  if (fd < 0) {
    const int err = errno;
    return Error(is_unreachable(err) ? ErrorCategory::connect : ErrorCategory::io,
                 label + ": cannot create a UDP socket for " + remote.to_string() + ": " +
                     std::strerror(err));
  }
  set_socket_options(fd, family);
  if (auto bound = bind_local(fd, family, binding); !bound) {
    ::close(fd);
    return Error(ErrorCode::local_bind_failed, label + ": " + bound.error().message());
  }
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&remote.storage), remote.length) != 0) {
    const int err = errno;
    ::close(fd);
    return Error(
        is_unreachable(err) ? ErrorCategory::connect : ErrorCategory::io,
        label + ": cannot reach " + remote.to_string() + " over UDP: " + std::strerror(err));
  }
  SocketAddress local;
  local.length = sizeof local.storage;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&local.storage), &local.length) != 0) {
    const int err = errno;
    ::close(fd);
    return Error(ErrorCategory::io,
                 label + ": cannot read the local address of a UDP socket: " + std::strerror(err));
  }
  UdpSocket socket(fd, local, remote, std::move(label));
  socket.gso_ = kernel_has_gso(fd);
  return socket;
}

UdpSocket::UdpSocket(int fd, SocketAddress local, SocketAddress remote, std::string label)
    : fd_(fd), local_(local), remote_(remote), label_(std::move(label)) {}

UdpSocket::UdpSocket(UdpSocket&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      local_(other.local_),
      remote_(other.remote_),
      label_(std::move(other.label_)),
      gso_(other.gso_),
      scratch_(std::move(other.scratch_)),
      received_(std::move(other.received_)) {}

UdpSocket& UdpSocket::operator=(UdpSocket&& other) noexcept {
  if (this == &other) return *this;
  close_fd();
  fd_ = std::exchange(other.fd_, -1);
  local_ = other.local_;
  remote_ = other.remote_;
  label_ = std::move(other.label_);
  gso_ = other.gso_;
  scratch_ = std::move(other.scratch_);
  received_ = std::move(other.received_);
  return *this;
}

UdpSocket::~UdpSocket() { close_fd(); }

void UdpSocket::close_fd() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

Error UdpSocket::error(const char* action, int err) const {
  return Error(
      is_unreachable(err) ? ErrorCategory::connect : ErrorCategory::io,
      label_ + ": UDP " + action + " " + remote_.to_string() + " failed: " + std::strerror(err));
}

std::size_t UdpSocket::release_scratch() noexcept {
  if (!scratch_) return 0;
  const std::size_t freed = scratch_bytes();
  scratch_.reset();
  received_.reset();
  return freed;
}

Result<std::span<const UdpDatagram>> UdpSocket::receive_batch() {
  if (!scratch_) {
    scratch_ = std::make_unique<std::uint8_t[]>(kMaxBatch * kMaxDatagram);
    received_ = std::make_unique<UdpDatagram[]>(kMaxBatch);
  }
  mmsghdr messages[kMaxBatch] = {};
  iovec slots[kMaxBatch];
  for (std::size_t i = 0; i < kMaxBatch; ++i) {
    slots[i].iov_base = scratch_.get() + i * kMaxDatagram;
    slots[i].iov_len = kMaxDatagram;
    messages[i].msg_hdr.msg_iov = &slots[i];
    messages[i].msg_hdr.msg_iovlen = 1;
  }
  for (int attempt = 0; attempt < kReceiveAttempts; ++attempt) {
    const int count = recvmmsg(fd_, messages, kMaxBatch, MSG_DONTWAIT, nullptr);
    if (count < 0) {
      const int err = errno;
      if (would_block(err)) return std::span<const UdpDatagram>();
      // EMSGSIZE: an ICMP "fragmentation needed" reported on the socket; the path
      // MTU is lower than a probe, which QUIC notices by itself.
      if (err == EINTR || err == EMSGSIZE) continue;
      return error("receive from", err);
    }
    std::size_t kept = 0;
    for (int i = 0; i < count; ++i) {
      const msghdr& header = messages[i].msg_hdr;
      if ((header.msg_flags & MSG_TRUNC) != 0) continue;  // larger than we announced
      received_[kept++].bytes = {static_cast<const std::uint8_t*>(slots[i].iov_base),
                                 messages[i].msg_len};
    }
    return std::span<const UdpDatagram>(received_.get(), kept);
  }
  return std::span<const UdpDatagram>();
}

Result<std::size_t> UdpSocket::send_batch(std::span<const std::uint8_t> bytes,
                                          std::size_t segment_size) {
  if (segment_size == 0) segment_size = bytes.size();
  std::size_t offset = 0;
  while (offset < bytes.size()) {
    const std::size_t remaining = bytes.size() - offset;
    SendOutcome outcome;
    if (gso_ && remaining > segment_size) {
      const std::size_t segments =
          std::min({datagrams_in(remaining, segment_size), kMaxGsoSegments,
                    std::max<std::size_t>(1, kMaxGsoBytes / segment_size)});
      const std::size_t run = std::min(remaining, segments * segment_size);
      outcome = send_gso_run(bytes.data() + offset, run, segment_size);
      if (outcome.sent == 0 && gso_refused(outcome.err)) {
        gso_ = false;  // this kernel or device does not segment UDP; send each
        continue;
      }
    } else {
      outcome = send_each(bytes.data() + offset, remaining, segment_size);
    }
    offset += outcome.sent;
    if (would_block(outcome.err)) return offset;
    if (outcome.err != 0) return error("send to", outcome.err);
  }
  return offset;
}

UdpSocket::SendOutcome UdpSocket::send_gso_run(const std::uint8_t* data, std::size_t size,
                                               std::size_t segment_size) {
  iovec vector{const_cast<std::uint8_t*>(data), size};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(std::uint16_t))] = {};
  msghdr header{};
  header.msg_iov = &vector;
  header.msg_iovlen = 1;
  header.msg_control = control;
  header.msg_controllen = sizeof control;
  cmsghdr* option = CMSG_FIRSTHDR(&header);
  option->cmsg_level = SOL_UDP;
  option->cmsg_type = UDP_SEGMENT;
  option->cmsg_len = CMSG_LEN(sizeof(std::uint16_t));
  const auto segment = static_cast<std::uint16_t>(segment_size);
  std::memcpy(CMSG_DATA(option), &segment, sizeof segment);
  for (;;) {
    if (sendmsg(fd_, &header, 0) >= 0) return {size, 0};
    const int err = errno;
    if (err == EINTR) continue;
    if (err == ENOBUFS) return {size, 0};  // dropped whole: lost
    // One datagram of the run exceeds the path MTU: send them one by one so that
    // only that one is lost.
    if (err == EMSGSIZE) return send_each(data, size, segment_size);
    return {0, err};
  }
}

UdpSocket::SendOutcome UdpSocket::send_each(const std::uint8_t* data, std::size_t size,
                                            std::size_t segment_size) {
  mmsghdr messages[kMaxBatch];
  iovec vectors[kMaxBatch];
  std::size_t sent = 0;
  while (sent < size) {
    const std::size_t count = std::min(kMaxBatch, datagrams_in(size - sent, segment_size));
    std::size_t offset = sent;
    for (std::size_t i = 0; i < count; ++i) {
      const std::size_t length = std::min(segment_size, size - offset);
      vectors[i] = {const_cast<std::uint8_t*>(data + offset), length};
      messages[i] = {};
      messages[i].msg_hdr.msg_iov = &vectors[i];
      messages[i].msg_hdr.msg_iovlen = 1;
      offset += length;
    }
    const int done = sendmmsg(fd_, messages, static_cast<unsigned>(count), 0);
    if (done < 0) {
      const int err = errno;
      if (err == EINTR) continue;
      if (dropped_by_kernel(err)) {
        sent += vectors[0].iov_len;  // that one is lost; the rest go on
        continue;
      }
      return {sent, err};
    }
    for (int i = 0; i < done; ++i) sent += vectors[i].iov_len;
  }
  return {sent, 0};
}

}  // namespace sluice

#pragma once
// UdpSocket: one connected, non-blocking UDP socket (QUIC's transport), receiving
// datagrams in batches (recvmmsg into one scratch block) and sending runs of
// equal-size datagrams in one call (UDP GSO where the kernel takes it, sendmmsg
// otherwise).
// Ownership: owned by one connection; HTTP thread only. Movable, not copyable; the
// destructor closes the socket (the owner unwatches it first).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "net/local_binding.hpp"
#include "net/socket_address.hpp"
#include "sluice/error.hpp"

namespace sluice {

/// One received datagram; its bytes live in the socket's scratch block until the
/// next receive_batch() or release_scratch().
struct UdpDatagram {
  std::span<const std::uint8_t> bytes;
};

class UdpSocket {
 public:
  /// Datagrams taken per receive_batch() (and at most sent per system call).
  static constexpr std::size_t kMaxBatch = 64;
  /// The largest datagram received whole; a longer one is dropped. QUIC advertises
  /// it as its max_udp_payload_size, so a conforming peer never sends one.
  static constexpr std::size_t kMaxDatagram = 2048;

  /// A socket connected to `remote`, bound to an ephemeral local port, or as `local`
  /// says. `label` starts every error message ("QUIC" -> "QUIC: UDP send to
  /// 127.0.0.1:4433 failed: ..."). Errors: category connect when the address is
  /// unreachable (ErrorCode::local_bind_failed for `local`), io otherwise.
  static Result<UdpSocket> connect(const SocketAddress& remote, std::string label,
                                   const LocalBinding& local = {});

  UdpSocket(UdpSocket&& other) noexcept;
  UdpSocket& operator=(UdpSocket&& other) noexcept;
  UdpSocket(const UdpSocket&) = delete;
  UdpSocket& operator=(const UdpSocket&) = delete;
  ~UdpSocket();

  int fd() const noexcept { return fd_; }
  const SocketAddress& local() const noexcept { return local_; }
  const SocketAddress& remote() const noexcept { return remote_; }

  /// Up to kMaxBatch waiting datagrams; an empty span when none are waiting. Valid
  /// until the next call or release_scratch(). A pending ICMP error (port
  /// unreachable: "Connection refused") is an Error of category connect.
  Result<std::span<const UdpDatagram>> receive_batch();

  /// Sends `bytes` as consecutive datagrams of `segment_size` bytes (the last may be
  /// shorter). Returns how many bytes the kernel took: all of them, or fewer (a
  /// multiple of segment_size, possibly 0) when the socket buffer is full; wait for
  /// EPOLLOUT and send the rest. A datagram the kernel drops at once (ENOBUFS, or
  /// EMSGSIZE for a path MTU probe) counts as sent: QUIC treats it as lost.
  Result<std::size_t> send_batch(std::span<const std::uint8_t> bytes, std::size_t segment_size);

  /// Whether runs go out as one GSO send (true until the kernel refuses one).
  bool gso_enabled() const noexcept { return gso_; }
  /// Sends every run with sendmmsg from now on (tests use it to cover that path).
  void disable_gso() noexcept { gso_ = false; }

  /// Frees the receive scratch block (it is allocated again on the next receive);
  /// returns the bytes freed.
  std::size_t release_scratch() noexcept;
  /// The receive scratch currently allocated (what release_scratch() would free).
  std::size_t scratch_bytes() const noexcept {
    return scratch_ ? kMaxBatch * (kMaxDatagram + sizeof(UdpDatagram)) : 0;
  }

 private:
  UdpSocket(int fd, SocketAddress local, SocketAddress remote, std::string label);
  struct SendOutcome;
  SendOutcome send_gso_run(const std::uint8_t* data, std::size_t size, std::size_t segment_size);
  SendOutcome send_each(const std::uint8_t* data, std::size_t size, std::size_t segment_size);
  Error error(const char* action, int err) const;
  void close_fd() noexcept;

  int fd_ = -1;
  SocketAddress local_;
  SocketAddress remote_;
  std::string label_;
  bool gso_ = false;
  std::unique_ptr<std::uint8_t[]> scratch_;  // kMaxBatch slots of kMaxDatagram bytes
  std::unique_ptr<UdpDatagram[]> received_;  // the last batch, pointing into scratch_
};

}  // namespace sluice

#pragma once
// Socket helpers the TCP and UDP delay links share: loopback addresses, a socket
// bound to a port, the port it got. Any thread; no state.

#include <netinet/in.h>
#include <sys/socket.h>

#include <cstddef>
#include <cstdint>
#include <span>

#include "sluice/error.hpp"

namespace sluice::bench {

/// 127.0.0.1:port.
sockaddr_in loopback_address(std::uint16_t port);

/// A non-blocking, close-on-exec socket of `type` (SOCK_STREAM, SOCK_DGRAM) bound to
/// 127.0.0.1:port (0: an ephemeral port); SO_REUSEADDR for TCP, so a port just
/// used by a closed listener can be taken again. Fails (category io) naming the port.
Result<int> bound_loopback_socket(int type, std::uint16_t port);

/// The local port `fd` is bound to (0 when the kernel will not say).
std::uint16_t local_port(int fd);

/// An io error "delay link: WHAT: strerror(errno)".
Error link_error(const char* what);

/// Best effort: larger kernel buffers on a UDP socket, so a burst is not lost in
/// the kernel before the link reads it (SO_RCVBUFFORCE where permitted).
void enlarge_socket_buffers(int fd, int bytes);

/// Room for the one control message a UDP link sends or receives (a GSO size).
inline constexpr std::size_t kUdpControlBytes = CMSG_SPACE(sizeof(int));

/// Best effort: lets a UDP socket receive a run of same-sized datagrams of one
/// sender as one buffer (UDP_GRO; QUIC senders write such runs with GSO), with
/// their size in a control message. Without it every datagram is a receive.
void enable_udp_gro(int fd);

/// The datagram size of a run received with UDP_GRO, from `message`'s control
/// messages; 0 when the buffer is one datagram.
std::uint16_t gro_segment_size(const msghdr& message);

/// Makes `message` send its buffer as datagrams of `segment` bytes each (the last
/// may be shorter; UDP_SEGMENT), using `control` (kUdpControlBytes) for the control
/// message, so the receiver sees the datagrams the sender wrote.
void set_gso_segment_size(msghdr& message, std::span<char> control, std::uint16_t segment);

}  // namespace sluice::bench

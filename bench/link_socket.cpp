// Socket helpers of the delay links.

#include "bench/link_socket.hpp"

#include <arpa/inet.h>
#include <netinet/udp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace sluice::bench {

sockaddr_in loopback_address(std::uint16_t port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return address;
}

Error link_error(const char* what) {
  return Error(ErrorCategory::io, std::string("delay link: ") + what + ": " + std::strerror(errno));
}

Result<int> bound_loopback_socket(int type, std::uint16_t port) {
  const int fd = ::socket(AF_INET, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return link_error("cannot create a socket");
  if (type == SOCK_STREAM) {
    const int on = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  }
  const sockaddr_in address = loopback_address(port);
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    const std::string what = "cannot bind 127.0.0.1:" + std::to_string(port);
    Error error = link_error(what.c_str());
    ::close(fd);
    return error;
  }
  return fd;
}

std::uint16_t local_port(int fd) {
  sockaddr_in address{};
  socklen_t length = sizeof address;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) return 0;
  return ntohs(address.sin_port);
}

void enlarge_socket_buffers(int fd, int bytes) {
  // The FORCE variants pass net.core.rmem_max/wmem_max (root only); the plain ones
  // are capped by it, which is still better than the default.
  if (::setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof bytes) != 0) {
    ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes);
  }
  if (::setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &bytes, sizeof bytes) != 0) {
    ::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof bytes);
  }
}

void enable_udp_gro(int fd) {
  const int on = 1;
  ::setsockopt(fd, IPPROTO_UDP, UDP_GRO, &on, sizeof on);
}

std::uint16_t gro_segment_size(const msghdr& message) {
  for (const cmsghdr* header = CMSG_FIRSTHDR(&message); header != nullptr;
       header = CMSG_NXTHDR(const_cast<msghdr*>(&message), const_cast<cmsghdr*>(header))) {
    if (header->cmsg_level != IPPROTO_UDP || header->cmsg_type != UDP_GRO) continue;
    int size = 0;
    std::memcpy(&size, CMSG_DATA(header), sizeof size);
    return static_cast<std::uint16_t>(size);
  }
  return 0;
}

void set_gso_segment_size(msghdr& message, std::span<char> control, std::uint16_t segment) {
  message.msg_control = control.data();
  message.msg_controllen = CMSG_SPACE(sizeof segment);
  cmsghdr* header = CMSG_FIRSTHDR(&message);
  header->cmsg_level = IPPROTO_UDP;
  header->cmsg_type = UDP_SEGMENT;
  header->cmsg_len = CMSG_LEN(sizeof segment);
  std::memcpy(CMSG_DATA(header), &segment, sizeof segment);
}

}  // namespace sluice::bench

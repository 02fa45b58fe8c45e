// SocketAddress: formatting and parsing of the addresses sockets connect to.

#include "net/socket_address.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/un.h>

#include <cstring>

namespace sluice {

bool is_ip_literal(std::string_view host) {
  const std::string text(host);
  unsigned char address[16];
  return inet_pton(AF_INET, text.c_str(), address) == 1 ||
         inet_pton(AF_INET6, text.c_str(), address) == 1;
}
namespace {

std::string bare_host(const std::string& host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    return host.substr(1, host.size() - 2);
  return host;
}

std::string unix_path(const SocketAddress& address) {
  const auto& un = reinterpret_cast<const sockaddr_un&>(address.storage);
  const std::size_t room = address.length > offsetof(sockaddr_un, sun_path)
                               ? address.length - offsetof(sockaddr_un, sun_path)
                               : 0;
  return std::string(un.sun_path, strnlen(un.sun_path, std::min(room, sizeof un.sun_path)));
}

// getpeername or getsockname into a SocketAddress.
template <class Query>
std::optional<SocketAddress> ask_kernel(int fd, Query query) {
  SocketAddress address;
  address.length = sizeof address.storage;
  if (query(fd, reinterpret_cast<sockaddr*>(&address.storage), &address.length) != 0) {
    return std::nullopt;
  }
  return address;
}

}  // namespace

std::string SocketAddress::ip() const {
  char text[INET6_ADDRSTRLEN] = {};
  if (family() == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(storage);
    inet_ntop(AF_INET, &v4.sin_addr, text, sizeof text);
    return text;
  }
  if (family() == AF_INET6) {
    const auto& v6 = reinterpret_cast<const sockaddr_in6&>(storage);
    inet_ntop(AF_INET6, &v6.sin6_addr, text, sizeof text);
    return v6.sin6_scope_id != 0 ? text + ("%" + std::to_string(v6.sin6_scope_id)) : text;
  }
  return {};
}

std::uint16_t SocketAddress::port() const {
  if (family() == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in&>(storage).sin_port);
  if (family() == AF_INET6) return ntohs(reinterpret_cast<const sockaddr_in6&>(storage).sin6_port);
  return 0;
}

SocketAddress SocketAddress::with_port(std::uint16_t port) const {
  SocketAddress copy = *this;
  if (family() == AF_INET) reinterpret_cast<sockaddr_in&>(copy.storage).sin_port = htons(port);
  if (family() == AF_INET6) reinterpret_cast<sockaddr_in6&>(copy.storage).sin6_port = htons(port);
  return copy;
}

bool SocketAddress::operator==(const SocketAddress& other) const noexcept {
  return length == other.length && std::memcmp(&storage, &other.storage, length) == 0;
}

std::string SocketAddress::to_string() const {
  if (family() == AF_INET) return ip() + ":" + std::to_string(port());
  if (family() == AF_INET6) return "[" + ip() + "]:" + std::to_string(port());
  if (family() == AF_UNIX) return "unix:" + unix_path(*this);
  return "(address family " + std::to_string(family()) + ")";
}

std::optional<SocketAddress> SocketAddress::peer_of(int fd) {
  return ask_kernel(fd, ::getpeername);
}

std::optional<SocketAddress> SocketAddress::local_of(int fd) {
  return ask_kernel(fd, ::getsockname);
}

std::optional<SocketAddress> SocketAddress::from_ip(const std::string& host, std::uint16_t port) {
  const std::string bare = bare_host(host);
  SocketAddress address;
  auto& v4 = reinterpret_cast<sockaddr_in&>(address.storage);
  if (inet_pton(AF_INET, bare.c_str(), &v4.sin_addr) == 1) {
    v4.sin_family = AF_INET;
    v4.sin_port = htons(port);
    address.length = sizeof(sockaddr_in);
    return address;
  }
  address = SocketAddress{};
  auto& v6 = reinterpret_cast<sockaddr_in6&>(address.storage);
  if (inet_pton(AF_INET6, bare.c_str(), &v6.sin6_addr) == 1) {
    v6.sin6_family = AF_INET6;
    v6.sin6_port = htons(port);
    address.length = sizeof(sockaddr_in6);
    return address;
  }
  return std::nullopt;
}

std::optional<SocketAddress> SocketAddress::from_unix_path(const std::string& path) {
  SocketAddress address;
  auto& un = reinterpret_cast<sockaddr_un&>(address.storage);
  // sun_path keeps a terminating NUL: the kernel takes the path up to it.
  if (path.empty() || path.size() >= sizeof un.sun_path) return std::nullopt;
  un.sun_family = AF_UNIX;
  std::memcpy(un.sun_path, path.data(), path.size());
  address.length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + path.size() + 1);
  return address;
}

}  // namespace sluice

#pragma once
// SocketAddress: where a socket connects (IPv4, IPv6 or a Unix socket path), as the
// kernel takes it. A value type; any thread.

#include <sys/socket.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sluice {

/// An IPv4 or IPv6 address literal, without brackets ("127.0.0.1", "::1"): such a
/// host is matched as an address (certificates, cookies, HSTS), never as a name.
bool is_ip_literal(std::string_view host);

struct SocketAddress {
  sockaddr_storage storage{};
  socklen_t length = 0;
  int family() const noexcept { return storage.ss_family; }
  std::string to_string() const;  ///< "127.0.0.1:80", "[::1]:443", "unix:/run/x.sock"
  std::string ip() const;         ///< "127.0.0.1", "::1" (no brackets, no port)
  std::uint16_t port() const;
  /// The same address with another port (IP addresses; a Unix path is returned as is).
  SocketAddress with_port(std::uint16_t port) const;
  bool operator==(const SocketAddress& other) const noexcept;
  /// The address a connected socket talks to; nullopt if the kernel cannot say.
  static std::optional<SocketAddress> peer_of(int fd);
  /// The address a socket is bound to (its local end); nullopt if the kernel cannot say.
  static std::optional<SocketAddress> local_of(int fd);
  /// Parses an IPv4 or IPv6 literal ("127.0.0.1", "::1", "[::1]"); nullopt otherwise.
  static std::optional<SocketAddress> from_ip(const std::string& host, std::uint16_t port);
  /// A Unix domain socket; nullopt when the path is empty or longer than sun_path.
  static std::optional<SocketAddress> from_unix_path(const std::string& path);
};

}  // namespace sluice

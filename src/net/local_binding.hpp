#pragma once
// LocalBinding: where an outgoing socket leaves from (curl's --interface and
// --local-port): a network interface by name or a local IP address, and a range of
// local ports to take the first free one of. Applied between socket() and
// connect(), for TCP (each Happy Eyeballs attempt) and QUIC's UDP socket alike.
// A value type; bind_local runs on the thread that owns the socket (the HTTP thread).

#include <cstdint>
#include <string>

#include "sluice/error.hpp"

namespace sluice {

struct LocalBinding {
  /// An interface name ("eth0", "lo") or an IP literal; "" leaves the choice to the
  /// kernel's routing.
  std::string interface;
  /// The first local port to try, and how many ports from it (at least 1); port 0:
  /// any free port.
  std::uint16_t port = 0;
  std::uint16_t port_range = 1;

  bool empty() const noexcept { return interface.empty() && port == 0; }
};

/// Binds `fd` (a socket of `family`, AF_INET or AF_INET6) as `binding` says. An
/// interface name gives its first address of that family; with root rights the
/// socket is also tied to the device (SO_BINDTODEVICE), so traffic leaves through it
/// whatever the routes say. Errors (ErrorCode::local_bind_failed): "no network
/// interface named eth9", "interface lo has no IPv6 address", "local address
/// 192.0.2.1 is not an IPv6 address", "no free local port in 40000-40009".
Result<void> bind_local(int fd, int family, const LocalBinding& binding);

/// Whether `interface` can be used (a name of a present interface or an IP
/// literal); for a clear error before any request. Same messages as bind_local.
Result<void> check_interface(const std::string& interface);

}  // namespace sluice

// LocalBinding: binding outgoing sockets to an interface and a local port range
// (see local_binding.hpp). Ownership: free functions; the caller's thread.

#include "net/local_binding.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "net/socket_address.hpp"

namespace sluice {
namespace {

Error bind_error(std::string message) {
  return Error(ErrorCode::local_bind_failed, std::move(message));
}

const char* family_name(int family) { return family == AF_INET6 ? "IPv6" : "IPv4"; }

// The interface's first address of `family`; an IPv6 link-local one only when it
// has no other (a link-local source cannot reach beyond the link).
std::optional<SocketAddress> interface_address(const std::string& name, int family, bool* exists) {
  ifaddrs* list = nullptr;
  *exists = false;
  if (getifaddrs(&list) != 0) return std::nullopt;
  std::optional<SocketAddress> found;
  std::optional<SocketAddress> link_local;
  for (ifaddrs* entry = list; entry != nullptr; entry = entry->ifa_next) {
    if (entry->ifa_name == nullptr || name != entry->ifa_name) continue;
    *exists = true;
    if (entry->ifa_addr == nullptr || entry->ifa_addr->sa_family != family) continue;
    SocketAddress address;
    address.length = family == AF_INET6 ? sizeof(sockaddr_in6) : sizeof(sockaddr_in);
    std::memcpy(&address.storage, entry->ifa_addr, address.length);
    if (family == AF_INET6) {
      const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&address.storage);
      if (IN6_IS_ADDR_LINKLOCAL(&v6->sin6_addr)) {
        if (!link_local) link_local = address;
        continue;
      }
    }
    found = address;
    break;
  }
  freeifaddrs(list);
  return found ? found : link_local;
}

bool interface_exists(const std::string& name) { return if_nametoindex(name.c_str()) != 0; }

// Where the socket binds, without its port: the interface's or the literal's
// address, or the family's wildcard.
Result<SocketAddress> local_address(const std::string& interface, int family, bool* is_device) {
  *is_device = false;
  if (interface.empty()) {
    auto any = SocketAddress::from_ip(family == AF_INET6 ? "::" : "0.0.0.0", 0);
    return *any;
  }
  if (auto literal = SocketAddress::from_ip(interface, 0)) {
    if (literal->family() != family) {
      return bind_error("local address " + interface + " is not an " + family_name(family) +
                        " address");
    }
    return *literal;
  }
  bool exists = false;
  auto address = interface_address(interface, family, &exists);
  if (!exists && !interface_exists(interface))
    return bind_error("no network interface named " + interface);
  if (!address) {
    return bind_error("interface " + interface + " has no " + family_name(family) + " address");
  }
  *is_device = true;
  return *address;
}

}  // namespace

Result<void> bind_local(int fd, int family, const LocalBinding& binding) {
  if (binding.empty()) return {};
  bool is_device = false;
  auto address = local_address(binding.interface, family, &is_device);
  if (!address) return std::move(address).error();
  if (is_device) {
    // Needs CAP_NET_RAW; without it the source address alone says where from.
    (void)setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, binding.interface.c_str(),
                     static_cast<socklen_t>(binding.interface.size()));
  }
  const std::uint32_t first = binding.port;
  const std::uint32_t count =
      binding.port == 0 ? 1 : std::max<std::uint32_t>(1, binding.port_range);
  int last_error = 0;
  for (std::uint32_t i = 0; i < count && first + i <= 65535; ++i) {
    const SocketAddress at = address->with_port(static_cast<std::uint16_t>(first + i));
    if (::bind(fd, reinterpret_cast<const sockaddr*>(&at.storage), at.length) == 0) return {};
    last_error = errno;
    if (last_error != EADDRINUSE && last_error != EACCES) break;
  }
  const std::string where = binding.interface.empty() ? std::string() : " on " + binding.interface;
  if (first != 0 && (last_error == EADDRINUSE || last_error == EACCES)) {
    const std::uint32_t last = std::min<std::uint32_t>(65535, first + count - 1);
    return bind_error("no free local port in " + std::to_string(first) +
                      (last != first ? "-" + std::to_string(last) : std::string()) + where);
  }
  return bind_error("cannot bind to " + address->ip() + where + ": " + std::strerror(last_error));
}

Result<void> check_interface(const std::string& interface) {
  if (interface.empty() || SocketAddress::from_ip(interface, 0)) return {};
  if (!interface_exists(interface)) return bind_error("no network interface named " + interface);
  return {};
}

}  // namespace sluice

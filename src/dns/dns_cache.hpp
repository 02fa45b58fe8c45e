#pragma once
// DnsCache: the addresses a name resolved to, kept for as long as the answer's TTL
// allows (capped), in a bounded table. Sans-IO: the caller passes `now`.
// Ownership: the Resolver's, HTTP thread only.

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/time_source.hpp"
#include "net/socket_address.hpp"

namespace sluice {

class DnsCache {
 public:
  struct Limits {
    std::size_t max_entries = 512;
    /// An answer is kept for its TTL, but never longer than this (curl keeps every
    /// name 60 s): a name that moves is seen within it even if its TTL says a day.
    std::chrono::seconds max_ttl{60};
  };
  explicit DnsCache(Limits limits) : limits_(limits) {}

  /// The addresses of `host` (any case), if an answer for it is still fresh at `now`.
  std::optional<std::vector<SocketAddress>> find(const std::string& host, TimePoint now);
  /// Keeps `addresses` for min(ttl, max_ttl) from `now`; an answer with no TTL (0:
  /// /etc/hosts, or a server that says "do not cache") is not kept. A full table
  /// first drops what has expired, then the entry that would expire soonest.
  void store(const std::string& host, std::vector<SocketAddress> addresses,
             std::chrono::seconds ttl, TimePoint now);
  std::size_t size() const noexcept { return entries_.size(); }

 private:
  struct Entry {
    std::vector<SocketAddress> addresses;
    TimePoint expires;
  };
  void make_room(TimePoint now);

  Limits limits_;
  std::unordered_map<std::string, Entry> entries_;  // keyed by the lowercase name
};

}  // namespace sluice

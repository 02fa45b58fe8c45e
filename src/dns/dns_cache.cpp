// DnsCache: answers kept for their TTL in a bounded table.

#include "dns/dns_cache.hpp"

#include <algorithm>

#include "core/ascii_case.hpp"

namespace sluice {

std::optional<std::vector<SocketAddress>> DnsCache::find(const std::string& host, TimePoint now) {
  auto found = entries_.find(ascii_lowercase(host));
  if (found == entries_.end()) return std::nullopt;
  if (found->second.expires <= now) {
    entries_.erase(found);
    return std::nullopt;
  }
  return found->second.addresses;
}

void DnsCache::store(const std::string& host, std::vector<SocketAddress> addresses,
                     std::chrono::seconds ttl, TimePoint now) {
  const auto keep = std::min(ttl, limits_.max_ttl);
  if (keep.count() <= 0 || addresses.empty() || limits_.max_entries == 0) return;
  std::string key = ascii_lowercase(host);
  if (entries_.find(key) == entries_.end()) make_room(now);
  entries_[std::move(key)] = Entry{std::move(addresses), now + keep};
}

void DnsCache::make_room(TimePoint now) {
  if (entries_.size() < limits_.max_entries) return;
  std::erase_if(entries_, [now](const auto& entry) { return entry.second.expires <= now; });
  if (entries_.size() < limits_.max_entries) return;
  auto soonest = std::min_element(
      entries_.begin(), entries_.end(),
      [](const auto& a, const auto& b) { return a.second.expires < b.second.expires; });
  entries_.erase(soonest);
}

}  // namespace sluice

#pragma once
// Resolver: host names to addresses for the HTTP thread, through, in order: the
// user's fixed entries (--resolve), IP literals, the DNS cache, and c-ares on the
// loop (DnsChannel, started at the first name that needs it). Lookups of one name at
// once share one query; each has a deadline.
// Ownership: HTTP thread only. Destroying a Lookup cancels it: its callback never fires.

#include <sys/socket.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/event_loop.hpp"
#include "dns/dns_cache.hpp"
#include "dns/dns_channel.hpp"
#include "dns/host_overrides.hpp"
#include "net/socket_address.hpp"
#include "sluice/error.hpp"

namespace sluice {

struct ResolverOptions {
  std::string servers;     ///< DnsChannel::Options::servers (already checked)
  int family = AF_UNSPEC;  ///< AF_INET or AF_INET6: only that family (-4, -6)
  std::vector<ResolveOverride> overrides;
  DnsCache::Limits cache;
  /// A lookup not answered within this fails with ErrorCode::dns_timeout (0: none).
  std::chrono::milliseconds timeout{0};
};

struct LookupState;

class Resolver {
 public:
  using Callback = std::function<void(Result<std::vector<SocketAddress>>)>;
  explicit Resolver(EventLoop& loop, ResolverOptions options = {});
  ~Resolver();  // lookups still waiting never hear back
  Resolver(const Resolver&) = delete;
  Resolver& operator=(const Resolver&) = delete;

  class Lookup;  // cancel by destroying
  /// Addresses for host:port. `done` fires once, on the HTTP thread, never from
  /// inside resolve(); it may destroy the Lookup. Errors are category dns ("DNS:
  /// cannot resolve 'x': no such name"), or ErrorCode::dns_timeout.
  std::unique_ptr<Lookup> resolve(const std::string& host, std::uint16_t port, Callback done);

  struct Stats {
    std::uint64_t queries = 0;     ///< names asked of DNS (/etc/hosts included)
    std::uint64_t cache_hits = 0;  ///< lookups the cache answered
  };
  Stats stats() const noexcept;

 private:
  struct Query;  // one name in flight, with everyone waiting for it
  /// Hands `result` to one waiter, through the loop.
  void deliver(const std::shared_ptr<LookupState>& state,
               Result<std::vector<SocketAddress>> result);
  /// The channel answered the query `id` for `key`.
  void on_answer(const std::string& key, std::uint64_t id, Result<DnsChannel::Answer> answer);
  void on_deadline(const std::string& key, std::uint64_t id);
  /// Ends the query for `key`, giving each waiter `result` (ports set per waiter).
  void finish(const std::string& key, Result<std::vector<SocketAddress>> result);
  Result<void> ensure_channel();
  /// Keeps the addresses of the family asked for; an error naming it when none is left.
  Result<std::vector<SocketAddress>> of_family(const std::string& host,
                                               std::vector<SocketAddress> addresses) const;

  EventLoop& loop_;
  ResolverOptions options_;
  DnsCache cache_;
  std::unique_ptr<DnsChannel> channel_;  // made at the first name that needs DNS
  std::unordered_map<std::string, std::unique_ptr<Query>> queries_;  // by lowercase name
  std::uint64_t next_query_id_ = 1;
  std::uint64_t cache_hits_ = 0;
};

/// What a Lookup shares with its posted result. HTTP thread only.
struct LookupState {
  Resolver::Callback done;
  std::uint16_t port = 0;
  bool cancelled = false;
};

class Resolver::Lookup {
 public:
  explicit Lookup(std::shared_ptr<LookupState> state) : state_(std::move(state)) {}
  ~Lookup();
  Lookup(const Lookup&) = delete;
  Lookup& operator=(const Lookup&) = delete;

 private:
  std::shared_ptr<LookupState> state_;
};

}  // namespace sluice

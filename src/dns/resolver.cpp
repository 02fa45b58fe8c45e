// Resolver: overrides, literals, the cache, then c-ares on the loop; one query per
// name in flight, shared by every lookup of it.
// Ownership: HTTP thread only.

#include "dns/resolver.hpp"

#include <algorithm>

#include "core/ascii_case.hpp"

namespace sluice {
namespace {

Error dns_error(const std::string& host, const std::string& reason) {
  return Error(ErrorCategory::dns, "DNS: cannot resolve '" + host + "': " + reason);
}

// RFC 6761 6.4: names under .invalid never resolve, and resolvers should say so at
// once rather than ask the network.
bool is_invalid_name(const std::string& key) {
  constexpr std::string_view suffix = ".invalid";
  std::string_view name = key;
  if (!name.empty() && name.back() == '.') name.remove_suffix(1);
  return name == suffix.substr(1) ||
         (name.size() > suffix.size() && name.substr(name.size() - suffix.size()) == suffix);
}

const char* family_name(int family) { return family == AF_INET ? "IPv4" : "IPv6"; }

}  // namespace

struct Resolver::Query {
  std::uint64_t id = 0;
  std::string host;  // as first asked, for messages
  std::vector<std::shared_ptr<LookupState>> waiting;
  EventLoop::TimerId deadline = 0;
};

Resolver::Lookup::~Lookup() {
  state_->cancelled = true;
  state_->done = nullptr;  // release what the callback captured, now
}

Resolver::Resolver(EventLoop& loop, ResolverOptions options)
    : loop_(loop), options_(std::move(options)), cache_(options_.cache) {}

Resolver::~Resolver() {
  for (auto& [key, query] : queries_) {
    if (query->deadline != 0) loop_.cancel_timer(query->deadline);
  }
}

Resolver::Stats Resolver::stats() const noexcept {
  return Stats{channel_ ? channel_->queries() : 0, cache_hits_};
}

void Resolver::deliver(const std::shared_ptr<LookupState>& state,
                       Result<std::vector<SocketAddress>> result) {
  if (result) {
    for (auto& address : *result) address = address.with_port(state->port);
  }
  loop_.post([state, result = std::move(result)]() mutable {
    if (state->cancelled || !state->done) return;
    // Moved out first: the callback may destroy the Lookup, which clears `done`.
    Callback done = std::move(state->done);
    state->done = nullptr;
    done(std::move(result));
  });
}

Result<std::vector<SocketAddress>> Resolver::of_family(const std::string& host,
                                                       std::vector<SocketAddress> addresses) const {
  if (options_.family == AF_UNSPEC) return addresses;
  std::erase_if(addresses,
                [this](const SocketAddress& a) { return a.family() != options_.family; });
  if (addresses.empty()) {
    return dns_error(host, std::string("no ") + family_name(options_.family) + " address (only " +
                               family_name(options_.family) + " is allowed)");
  }
  return addresses;
}

std::unique_ptr<Resolver::Lookup> Resolver::resolve(const std::string& host, std::uint16_t port,
                                                    Callback done) {
  auto state = std::make_shared<LookupState>();
  state->done = std::move(done);
  state->port = port;
  auto lookup = std::make_unique<Lookup>(state);
  const std::string key = ascii_lowercase(host);
  if (const auto* fixed = find_resolve(options_.overrides, host, port)) {
    deliver(state, of_family(host, fixed->addresses));
    return lookup;
  }
  if (auto literal = SocketAddress::from_ip(host, port)) {
    deliver(state, of_family(host, {*literal}));
    return lookup;
  }
  if (host.empty()) {
    deliver(state, dns_error(host, "the host name is empty"));
    return lookup;
  }
  if (is_invalid_name(key)) {
    deliver(state, dns_error(host, "no such name (.invalid names never resolve, RFC 6761)"));
    return lookup;
  }
  if (auto cached = cache_.find(key, loop_.now())) {
    ++cache_hits_;
    deliver(state, std::move(*cached));
    return lookup;
  }
  if (auto found = queries_.find(key); found != queries_.end()) {
    found->second->waiting.push_back(std::move(state));  // the same name is on its way
    return lookup;
  }
  if (auto ready = ensure_channel(); !ready) {
    deliver(state, std::move(ready).error());
    return lookup;
  }
  auto query = std::make_unique<Query>();
  const std::uint64_t id = query->id = next_query_id_++;
  query->host = host;
  query->waiting.push_back(std::move(state));
  if (options_.timeout.count() > 0) {
    query->deadline =
        loop_.add_timer(loop_.now() + options_.timeout, [this, key, id] { on_deadline(key, id); });
  }
  queries_.emplace(key, std::move(query));
  // May answer at once (/etc/hosts): the query is registered by then.
  channel_->query(host, [this, key, id](Result<DnsChannel::Answer> answer) {
    on_answer(key, id, std::move(answer));
  });
  return lookup;
}

Result<void> Resolver::ensure_channel() {
  if (channel_) return {};
  auto made = DnsChannel::create(loop_, DnsChannel::Options{options_.servers, options_.family});
  if (!made) return std::move(made).error();
  channel_ = std::move(*made);
  return {};
}

void Resolver::on_answer(const std::string& key, std::uint64_t id,
                         Result<DnsChannel::Answer> answer) {
  auto found = queries_.find(key);
  if (found == queries_.end() || found->second->id != id) return;  // it timed out already
  if (!answer) {
    finish(key, std::move(answer).error());
    return;
  }
  cache_.store(key, answer->addresses, answer->ttl, loop_.now());
  finish(key, std::move(answer->addresses));
}

void Resolver::on_deadline(const std::string& key, std::uint64_t id) {
  auto found = queries_.find(key);
  if (found == queries_.end() || found->second->id != id) return;
  found->second->deadline = 0;
  finish(key,
         Error(ErrorCode::dns_timeout, "DNS: no answer for '" + found->second->host + "' within " +
                                           std::to_string(options_.timeout.count()) + " ms"));
}

void Resolver::finish(const std::string& key, Result<std::vector<SocketAddress>> result) {
  auto found = queries_.find(key);
  std::unique_ptr<Query> query = std::move(found->second);
  queries_.erase(found);
  if (query->deadline != 0) loop_.cancel_timer(query->deadline);
  for (const auto& state : query->waiting) {
    if (state->cancelled) continue;
    deliver(state, result ? Result<std::vector<SocketAddress>>(*result)
                          : Result<std::vector<SocketAddress>>(result.error()));
  }
}

}  // namespace sluice

// DnsChannel: c-ares driven by the HTTP thread's epoll loop and timer heap.
// Ownership: HTTP thread only.

#include "dns/dns_channel.hpp"

#include <ares.h>
#include <sys/epoll.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <mutex>

namespace sluice {
namespace {

Error dns_error(const std::string& host, const std::string& reason) {
  return Error(ErrorCategory::dns, "DNS: cannot resolve '" + host + "': " + reason);
}

std::string reason_for(int status) {
  switch (status) {
    case ARES_ENOTFOUND: return "no such name";
    case ARES_ENODATA: return "the name has no address of the family asked for";
    case ARES_ESERVFAIL: return "the name server failed (SERVFAIL)";
    case ARES_EREFUSED: return "the name server refused the query";
    case ARES_ECONNREFUSED: return "cannot reach the name server (connection refused)";
    case ARES_ETIMEOUT: return "the name server did not answer";
    default: return ares_strerror(status);
  }
}

Result<void> init_library() {
  // ares_library_init is not thread-safe and counts its calls: once per process.
  static std::once_flag once;
  static int status = ARES_SUCCESS;
  std::call_once(once, [] { status = ares_library_init(ARES_LIB_INIT_ALL); });
  if (status != ARES_SUCCESS) {
    return Error(ErrorCategory::dns,
                 std::string("DNS: cannot start c-ares: ") + ares_strerror(status));
  }
  return {};
}

}  // namespace

class DnsChannel::SocketWatch final : public FdWatcher {
 public:
  SocketWatch(DnsChannel& channel, int fd) : channel_(channel), fd_(fd) {}
  // Nothing after the call: c-ares may retire this watch while it runs.
  void on_fd_ready(std::uint32_t events) override { channel_.on_socket_ready(fd_, events); }

 private:
  DnsChannel& channel_;
  int fd_;
};

struct DnsChannel::Pending {
  DnsChannel* channel;
  std::string host;
  Callback done;
};

Result<std::unique_ptr<DnsChannel>> DnsChannel::create(EventLoop& loop, const Options& options) {
  if (auto ready = init_library(); !ready) return std::move(ready).error();
  std::unique_ptr<DnsChannel> channel(new DnsChannel(loop));
  channel->family_ = options.family;
  ares_options settings{};
  settings.sock_state_cb = &DnsChannel::on_socket_state;
  settings.sock_state_cb_data = channel.get();
  const int status = ares_init_options(&channel->channel_, &settings, ARES_OPT_SOCK_STATE_CB);
  if (status != ARES_SUCCESS) {
    channel->channel_ = nullptr;
    return Error(ErrorCategory::dns,
                 std::string("DNS: cannot start c-ares: ") + ares_strerror(status));
  }
  if (!options.servers.empty()) {
    const int set = ares_set_servers_ports_csv(channel->channel_, options.servers.c_str());
    if (set != ARES_SUCCESS) {
      return Error(ErrorCode::usage, "DNS: cannot use the name servers '" + options.servers +
                                         "': " + ares_strerror(set) +
                                         " (expected addresses like 192.0.2.1,[2001:db8::1]:5353)");
    }
  }
  return channel;
}

DnsChannel::DnsChannel(EventLoop& loop) : loop_(loop) {}

DnsChannel::~DnsChannel() {
  closing_ = true;
  if (channel_ != nullptr) ares_destroy(channel_);  // answers with ARES_EDESTRUCTION: dropped
  for (auto& [fd, watch] : watches_) loop_.unwatch(fd);
  if (timer_ != 0) loop_.cancel_timer(timer_);
}

void DnsChannel::query(const std::string& host, Callback done) {
  ++queries_;
  ares_addrinfo_hints hints{};
  hints.ai_family = family_;
  hints.ai_socktype = SOCK_STREAM;
  auto* pending = new Pending{this, host, std::move(done)};
  ares_getaddrinfo(channel_, host.c_str(), nullptr, &hints, &DnsChannel::on_answer, pending);
  rearm();
}

void DnsChannel::on_answer(void* arg, int status, int, ares_addrinfo* result) noexcept {
  std::unique_ptr<Pending> pending(static_cast<Pending*>(arg));
  std::unique_ptr<ares_addrinfo, void (*)(ares_addrinfo*)> owned(result, ares_freeaddrinfo);
  if (status == ARES_EDESTRUCTION || pending->channel->closing_) return;
  if (status != ARES_SUCCESS) {
    Error error = dns_error(pending->host, reason_for(status));
    if (status == ARES_ETIMEOUT) error = Error(ErrorCode::dns_timeout, error.message());
    pending->done(std::move(error));
    return;
  }
  Answer answer;
  int ttl = std::numeric_limits<int>::max();
  for (const ares_addrinfo_node* node = result != nullptr ? result->nodes : nullptr;
       node != nullptr; node = node->ai_next) {
    if (node->ai_addr == nullptr || node->ai_addrlen > sizeof(sockaddr_storage)) continue;
    if (node->ai_family != AF_INET && node->ai_family != AF_INET6) continue;
    SocketAddress address;
    std::memcpy(&address.storage, node->ai_addr, node->ai_addrlen);
    address.length = node->ai_addrlen;
    answer.addresses.push_back(address);
    ttl = std::min(ttl, std::max(node->ai_ttl, 0));
  }
  if (answer.addresses.empty()) {
    pending->done(dns_error(pending->host, "no IPv4 or IPv6 address"));
    return;
  }
  answer.ttl = std::chrono::seconds(ttl);
  pending->done(std::move(answer));
}

void DnsChannel::on_socket_state(void* data, int fd, int readable, int writable) noexcept {
  static_cast<DnsChannel*>(data)->socket_state(fd, readable != 0, writable != 0);
}

void DnsChannel::socket_state(int fd, bool readable, bool writable) {
  auto found = watches_.find(fd);
  if (!readable && !writable) {
    if (found == watches_.end()) return;
    loop_.unwatch(fd);
    retired_.push_back(std::move(found->second));
    watches_.erase(found);
    return;
  }
  if (closing_) return;
  const std::uint32_t events = (readable ? EPOLLIN : 0u) | (writable ? EPOLLOUT : 0u);
  if (found != watches_.end()) {
    (void)loop_.modify(fd, events);  // an fd the loop already holds: cannot fail for want of room
    return;
  }
  auto watch = std::make_unique<SocketWatch>(*this, fd);
  // A socket the loop refuses (out of memory) is never read: its query times out.
  if (loop_.watch(fd, events, watch.get())) watches_.emplace(fd, std::move(watch));
}

void DnsChannel::on_socket_ready(int fd, std::uint32_t events) {
  retired_.clear();  // none of them is the watch running now (unwatch stops its events)
  const bool readable = (events & (EPOLLIN | EPOLLERR | EPOLLHUP)) != 0;
  const bool writable = (events & EPOLLOUT) != 0;
  ares_process_fd(channel_, readable ? fd : ARES_SOCKET_BAD, writable ? fd : ARES_SOCKET_BAD);
  rearm();
}

void DnsChannel::on_timer() {
  timer_ = 0;
  retired_.clear();
  ares_process_fd(channel_, ARES_SOCKET_BAD, ARES_SOCKET_BAD);  // retransmits, times out
  rearm();
}

void DnsChannel::rearm() {
  if (closing_) return;
  if (timer_ != 0) {
    loop_.cancel_timer(timer_);
    timer_ = 0;
  }
  timeval wait{};
  if (ares_timeout(channel_, nullptr, &wait) == nullptr) return;  // nothing pending
  const auto delay = std::chrono::seconds(wait.tv_sec) + std::chrono::microseconds(wait.tv_usec);
  timer_ = loop_.add_timer(loop_.now() + delay, [this] { on_timer(); });
}

}  // namespace sluice

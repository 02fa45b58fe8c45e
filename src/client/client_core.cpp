#include "client/client_core.hpp"

#include <algorithm>
#if __has_include(<malloc.h>)
#include <malloc.h>
#endif
#include <pthread.h>
#include <vector>

#include "client/fetch/transfer.hpp"
#include "client/tls_settings.hpp"

namespace sluice {

namespace {
// A receiver is swept only once its reader has held it paused this long (or one
// sweep interval, if that is shorter): a prompt reader that happens to be at its
// allowance at the moment of the sweep keeps its buffers.
constexpr std::chrono::milliseconds kSweepMinPause{1'000};
}  // namespace

ClientCore::ClientCore(ClientOptions options, std::shared_ptr<TlsContext> tls,
                       const TimeSource& clock, std::shared_ptr<HostDispatch> host,
                       ProxySettings proxies, NetworkSettings network,
                       std::shared_ptr<TlsContext> proxy_tls)
    : options_(std::move(options)),
      proxies_(std::move(proxies)),
      network_(std::move(network)),
      host_(std::move(host)),
      trace_(options_.trace),
      loop_(clock),
      poster_(std::make_shared<HttpPoster>(loop_)),
      staged_budget_(std::make_shared<StagedBudget>(
          options_.memory.staged_bytes_budget,
          // Posted through the poster: a reader may take bytes after the Client is gone.
          [poster = poster_, this] { poster->post([this] { resume_under_budget(); }); })),
      upload_budget_(std::make_shared<UploadBudget>(
          options_.memory.owned_upload_budget,
          [poster = poster_, this] { poster->post([this] { watch_upload_stall(); }); })),
      file_pool_(options_.file_threads),
      resolver_(loop_, network_.resolver),
      tls_(std::move(tls)),
      proxy_tls_(std::move(proxy_tls)),
      // The staged-bytes budget caps the windows granted too: no stream grows past it.
      window_ledger_(options_.memory.staged_bytes_budget),
      // Each request brings its own maximum (Request::allowance): no cap here.
      window_policy_{UINT64_MAX, std::chrono::milliseconds(1), &window_ledger_},
      pool_(PoolServices{loop_, resolver_, trace_, options_, network_, alt_svc_, window_policy_,
                         tls_.get(), proxy_tls_.get(), [this] { return quic_tls(); }}) {
  if (options_.state.hsts || !options_.state.hsts_file.empty()) hsts_.emplace();
  if (!options_.state.tls_session_file.empty() && options_.tls.session_cache) {
    tls_sessions_.emplace(tls_settings_name(options_.tls));
  }
  // The HTTP thread does not run yet: its caches may be filled from here.
  load_state_files(options_.state, state_caches(), loop_.now(), wall_clock_now(), trace_);
}

ClientCore::~ClientCore() { shutdown(); }

Result<std::shared_ptr<const QuicTlsContext>> ClientCore::quic_tls() {
  if (!quic_tls_) {
    if (auto allowed = check_quic_allowed(options_); !allowed) return std::move(allowed).error();
    auto made = QuicTlsContext::create(options_.tls);
    if (!made) return std::move(made).error();
    quic_tls_ = std::move(*made);
    if (tls_sessions_) tls_sessions_->adopt_quic(quic_tls_->tickets(), wall_clock_now());
  }
  return quic_tls_;
}

void ClientCore::start() {
  thread_ = std::thread([this] {
    // A name shows in top and gdb, and lets the failure-injection tests
    // (tests/fault_injection) fail system calls of this thread only.
    pthread_setname_np(pthread_self(), "sluice-http");
    arm_sweep();
    loop_.run();
    // From here a post fails, and its sender acts on its own thread (a request is
    // refused, a callback body delivers where it was resumed): a task posted after
    // the loop's last drain would otherwise be dropped unseen, and a body paused at
    // shutdown would never hear its end. What was posted before the close still runs.
    poster_->close();
    loop_.run_remaining();
    cancel_everything();  // and anything those tasks started
    loop_.run_remaining();
  });
}

void ClientCore::shutdown() {
  if (!thread_.joinable()) return;
  poster_->post([this] {
    cancel_everything();
    loop_.stop();
  });
  thread_.join();
}

void ClientCore::cancel_everything() {
  std::vector<std::shared_ptr<Transfer>> live;
  live.reserve(transfers_.size());
  for (auto& [raw, transfer] : transfers_) live.push_back(transfer);
  for (auto& transfer : live) {
    transfer->fail(Error(ErrorCategory::cancelled, "the client was destroyed"));
  }
  pool_.close_all();
}

TransferServices ClientCore::transfer_services() {
  return {loop_,    pool_,          trace_,   options_,
          proxies_, network_,       alt_svc_, hsts_ ? &*hsts_ : nullptr,
          poster_,  staged_budget_, host_,    *this};
}

void ClientCore::adopt(std::shared_ptr<Transfer> transfer) {
  Transfer* raw = transfer.get();
  transfers_.emplace(raw, std::move(transfer));
  ++transfers_adopted_;
  raw->begin();
}

void ClientCore::transfer_done(Transfer& transfer) {
  auto found = transfers_.find(&transfer);
  if (found == transfers_.end()) return;
  // Usually called from inside the transfer's own events: destroy it afterwards.
  auto doomed = std::move(found->second);
  transfers_.erase(found);
  budget_held_.erase(&transfer);
  loop_.post([doomed] {});
  poll_before_sleep_if_alone();  // its caller often sends the next request at once
}

void ClientCore::poll_before_sleep_if_alone() {
  if (transfers_.size() <= 1) loop_.poll_before_sleep();
}

StateCaches ClientCore::state_caches() noexcept {
  StateCaches caches{alt_svc_, hsts_ ? &*hsts_ : nullptr};
  if (tls_sessions_ && tls_) {
    caches.tls_sessions = &*tls_sessions_;
    caches.tcp_sessions = &tls_->sessions();
    if (quic_tls_) caches.quic_sessions = &quic_tls_->tickets();
  }
  return caches;
}

std::vector<StateFileText> ClientCore::state_snapshot(bool only_if_used) {
  if (only_if_used && transfers_adopted_ == adopted_at_last_snapshot_) return {};
  adopted_at_last_snapshot_ = transfers_adopted_;
  return snapshot_state_files(options_.state, state_caches(), loop_.now(), wall_clock_now());
}

ClientStats ClientCore::stats() const {
  ClientStats stats;
  // Bodies that ended but are not read yet are staged too: the budget's total.
  stats.staged_bytes = staged_budget_->staged();
  for (const auto& [raw, transfer] : transfers_) {
    const TransferStats one = transfer->stats();
    ++stats.in_flight;
    if (one.paused) ++stats.paused_receivers;
    stats.retained_scratch_bytes += one.scratch_bytes;
    stats.request_body_bytes_held += one.request_body_bytes;
  }
  stats.retained_scratch_bytes += pool_.scratch_bytes();
  stats.connections = pool_.connection_count();
  stats.budget_waits = staged_budget_->waits();
  stats.sweep_releases = sweep_releases_;
  stats.sweep_bytes_released = sweep_bytes_released_;
  stats.allowance_bytes = static_cast<std::size_t>(window_ledger_.granted());
  const Resolver::Stats dns = resolver_.stats();
  stats.dns_queries = dns.queries;
  stats.dns_cache_hits = dns.cache_hits;
  const TlsHandshakeCounts handshakes = tls_->handshakes();
  stats.tls_full_handshakes = handshakes.full;
  stats.tls_resumed_handshakes = handshakes.resumed;
  stats.tls_handshake_cpu_ns = handshakes.cpu_ns;
  if (quic_tls_) {
    stats.quic_full_handshakes = quic_tls_->tickets().full;
    stats.quic_resumed_handshakes = quic_tls_->tickets().resumed;
    stats.quic_early_data_accepted = quic_tls_->tickets().early_accepted;
    stats.quic_early_data_rejected = quic_tls_->tickets().early_rejected;
    stats.quic_early_requests = quic_tls_->tickets().early_requests;
  }
  stats.owned_upload_bytes = upload_budget_->held();
  stats.owned_upload_waits = upload_budget_->waits();
  return stats;
}

// While sends wait for the upload budget: one check per stall window, run after the
// turn's socket events, so bytes a transport could take count before the check.
void ClientCore::watch_upload_stall() {
  loop_.add_timer(loop_.now() + upload_budget_->stall_window(), [this] {
    if (upload_budget_->check_stall()) watch_upload_stall();
  });
}

void ClientCore::arm_sweep() {
  const auto interval = std::max(options_.memory.sweep_interval, std::chrono::milliseconds(1));
  loop_.add_timer(loop_.now() + interval, [this] {
    sweep();
    arm_sweep();
  });
}

// Memory rule 3 (docs/architecture.md): frees the empty scratch of receivers held paused, and of idle
// pooled connections.
void ClientCore::sweep() {
  const auto min_pause = std::min(kSweepMinPause, options_.memory.sweep_interval);
  const auto paused_before = loop_.now() - min_pause;
  auto count = [this](std::size_t freed) {
    if (freed == 0) return;
    ++sweep_releases_;
    sweep_bytes_released_ += freed;
  };
  const std::uint64_t before = sweep_bytes_released_;
  std::unordered_set<Connection*> paused_connections;
  for (auto& [raw, transfer] : transfers_)
    count(transfer->sweep(paused_before, paused_connections));
  // Each asks its streams once whether any still receives.
  for (Connection* conn : paused_connections) count(conn->release_scratch(paused_before));
  count(pool_.release_idle_scratch());
#ifdef __GLIBC__
  // Freed blocks below glibc's mmap threshold stay in the process's heap, resident,
  // until something reuses them: give their whole pages back, so that what the
  // sweep frees leaves the process (and a held response costs its allowance, not
  // its allowance plus the holes its scratch left).
  if (sweep_bytes_released_ != before) malloc_trim(0);
#endif
}

void ClientCore::resume_under_budget() {
  std::vector<std::shared_ptr<Transfer>> held;
  held.reserve(budget_held_.size());
  for (const Transfer* raw : budget_held_) {
    if (auto found = transfers_.find(raw); found != transfers_.end()) held.push_back(found->second);
  }
  budget_held_.clear();
  // One at a time, by owning pointer: a resumed transfer may finish and leave the map
  // (and one the budget holds again goes back into the set).
  for (auto& transfer : held) transfer->on_consumer_activity();
}

}  // namespace sluice

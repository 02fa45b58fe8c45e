#pragma once
// ClientCore: what one Client runs on its HTTP thread: the event loop, the resolver,
// the file pool, the TLS context, the connection pool and the transfers in flight.
// Ownership: created and destroyed by Client (on the user's thread, with the HTTP
// thread not running); between start() and shutdown() everything but poster() and
// the constructor's inputs belongs to the HTTP thread.

#include <memory>
#include <optional>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "auth/proxy_choice.hpp"
#include "body/host_dispatch.hpp"
#include "body/staged_budget.hpp"
#include "body/upload_budget.hpp"
#include "client/fetch/transfer_services.hpp"
#include "client/http_poster.hpp"
#include "client/state_files.hpp"
#include "core/event_loop.hpp"
#include "core/trace.hpp"
#include "core/worker_pool.hpp"
#include "dns/resolver.hpp"
#include "mux/stream_credit.hpp"
#include "pool/connection_pool.hpp"
#include "pool/network_settings.hpp"
#include "quic/quic_tls.hpp"
#include "sluice/client.hpp"
#include "tls/tls.hpp"
#include "web/alt_svc.hpp"

namespace sluice {

class ClientCore final : public TransferOwner {
 public:
  /// `clock` (which outlives the core) is the HTTP thread's time.
  /// `host`: the callback queue of a host-dispatch Client (null otherwise).
  ClientCore(ClientOptions options, std::shared_ptr<TlsContext> tls, const TimeSource& clock,
             std::shared_ptr<HostDispatch> host = nullptr, ProxySettings proxies = {},
             NetworkSettings network = {}, std::shared_ptr<TlsContext> proxy_tls = nullptr);
  ~ClientCore();

  /// Starts the HTTP thread.
  void start();
  /// Cancels everything in flight, stops and joins the HTTP thread. Not from it
  /// (a Client may not be destroyed from its own callbacks).
  void shutdown();
  bool on_http_thread() const noexcept { return std::this_thread::get_id() == thread_.get_id(); }

  const ClientOptions& options() const noexcept { return options_; }
  /// Which proxy each request goes through (read-only after construction).
  const ProxySettings& proxies() const noexcept { return proxies_; }
  /// Where connections go: --connect-to, --unix-socket, Happy Eyeballs (read-only).
  const NetworkSettings& network() const noexcept { return network_; }
  const std::shared_ptr<HttpPoster>& poster() const noexcept { return poster_; }
  WorkerPool& file_pool() noexcept { return file_pool_; }
  /// Where user callbacks run with ClientOptions::host_dispatch; null without it.
  const std::shared_ptr<HostDispatch>& host_dispatch() const noexcept { return host_; }

  // --- HTTP thread ---
  EventLoop& loop() noexcept { return loop_; }
  Resolver& resolver() noexcept { return resolver_; }
  TlsContext* tls() noexcept { return tls_.get(); }
  /// Trust for https:// proxies (proxy.ca_file, proxy.insecure).
  TlsContext* proxy_tls() noexcept { return proxy_tls_.get(); }
  ConnectionPool& pool() noexcept { return pool_; }
  AltSvcCache& alt_svc() noexcept { return alt_svc_; }
  /// The Client's staged-bytes total and budget, shared with every staging buffer.
  const std::shared_ptr<StagedBudget>& staged_budget() const noexcept { return staged_budget_; }
  /// The owned request bodies not yet taken by a transport (ClientOptions::
  /// memory.owned_upload_budget); send() acquires, each body's source gives back.
  const std::shared_ptr<UploadBudget>& upload_budget() const noexcept { return upload_budget_; }
  /// The window policy every HTTP/2 and HTTP/3 session of this Client uses; its
  /// ledger sums their streams' windows (ClientStats::allowance_bytes).
  const WindowPolicy& window_policy() const noexcept { return window_policy_; }
  /// The QUIC trust settings, made on first use (GnuTLS loads the store then).
  Result<std::shared_ptr<const QuicTlsContext>> quic_tls();
  const Trace& trace() const noexcept { return trace_; }
  /// What a new Transfer is given of this core. Any thread: the references and
  /// pointers it copies are set by the constructor and never change.
  TransferServices transfer_services();
  void adopt(std::shared_ptr<Transfer> transfer);
  ClientStats stats() const;
  /// The state files' new contents (ClientOptions::state); HTTP thread, or after
  /// shutdown(). `only_if_used`: none unless a request was sent since the last one.
  std::vector<StateFileText> state_snapshot(bool only_if_used);

  // TransferOwner (HTTP thread).
  void transfer_done(Transfer& transfer) override;
  void note_budget_held(const Transfer& transfer) override { budget_held_.insert(&transfer); }
  void awaiting_answer() override { poll_before_sleep_if_alone(); }

 private:
  /// With one transfer in flight at most, the loop polls before its next sleep
  /// (EventLoop::poll_before_sleep): a lone request's answer, or its caller's next
  /// request once it ended, usually comes sooner than a sleeping thread wakes. With
  /// more, their own events keep the loop busy, and a poll would take the core their
  /// readers need (docs/architecture.md, "Threads").
  void poll_before_sleep_if_alone();
  void watch_upload_stall();
  void arm_sweep();
  void sweep();
  /// Readers brought the staged total under the budget: streams held back resume.
  void resume_under_budget();
  void cancel_everything();

  StateCaches state_caches() noexcept;

  const ClientOptions options_;
  const ProxySettings proxies_;
  const NetworkSettings network_;
  const std::shared_ptr<HostDispatch> host_;
  const Trace trace_;
  EventLoop loop_;
  std::shared_ptr<HttpPoster> poster_;
  std::shared_ptr<StagedBudget> staged_budget_;
  std::shared_ptr<UploadBudget> upload_budget_;  // any thread (its own mutex)
  WorkerPool file_pool_;
  Resolver resolver_;
  std::shared_ptr<TlsContext> tls_;
  std::shared_ptr<TlsContext> proxy_tls_;
  WindowLedger window_ledger_;                      // HTTP thread
  WindowPolicy window_policy_;                      // points at window_ledger_
  AltSvcCache alt_svc_;                             // HTTP thread
  std::optional<HstsStore> hsts_;                   // HTTP thread; set when HSTS is on
  std::optional<TlsSessionState> tls_sessions_;     // HTTP thread; with a session file
  std::shared_ptr<const QuicTlsContext> quic_tls_;  // HTTP thread; made on first use
  ConnectionPool pool_;
  std::unordered_map<const Transfer*, std::shared_ptr<Transfer>> transfers_;  // HTTP thread
  std::unordered_set<const Transfer*> budget_held_;  // HTTP thread; held back by the budget
  std::uint64_t sweep_releases_ = 0;                 // HTTP thread
  std::uint64_t sweep_bytes_released_ = 0;           // HTTP thread
  std::uint64_t transfers_adopted_ = 0;              // HTTP thread
  std::uint64_t adopted_at_last_snapshot_ = 0;       // HTTP thread
  std::thread thread_;
};

}  // namespace sluice

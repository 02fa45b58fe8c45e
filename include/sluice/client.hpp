#pragma once
/// @file
/// sluice::Client: owns one HTTP thread that runs every connection of this client.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/client_options.hpp"
#include "sluice/cookies.hpp"
#include "sluice/error.hpp"
#include "sluice/export.h"
#include "sluice/request.hpp"
#include "sluice/response.hpp"

namespace sluice {

/// What a Client holds right now; see Client::stats().
struct ClientStats {
  std::size_t in_flight = 0;                ///< requests not yet ended
  std::size_t paused_receivers = 0;         ///< of those, held at their allowance
  std::size_t staged_bytes = 0;             ///< body bytes waiting for readers
  std::size_t retained_scratch_bytes = 0;   ///< empty buffers kept for reuse (bytes)
  std::size_t request_body_bytes_held = 0;  ///< request body copies not yet freed
  std::size_t connections = 0;              ///< open connections, busy or idle
  std::uint64_t sweep_releases = 0;  ///< receivers and connections the sweep freed scratch of
  std::uint64_t sweep_bytes_released = 0;
  std::uint64_t budget_waits = 0;  ///< times memory.staged_bytes_budget held streams back
  /// The allowances of open responses, summed (Request::allowance; over HTTP/2 and
  /// HTTP/3 their streams' receive windows): what their servers may send beyond
  /// what readers took. memory.staged_bytes_budget bounds it.
  std::size_t allowance_bytes = 0;
  std::uint64_t dns_queries = 0;     ///< names asked of DNS (or /etc/hosts) so far
  std::uint64_t dns_cache_hits = 0;  ///< lookups the DNS cache answered
  /// TLS handshakes over TCP since the Client was made: full ones, and those that
  /// resumed a cached session (see ClientOptions::tls.session_cache).
  std::uint64_t tls_full_handshakes = 0;
  std::uint64_t tls_resumed_handshakes = 0;
  /// CPU time the HTTP thread spent in those handshakes (nanoseconds; the TLS
  /// library's work only, measured around each handshake step).
  std::uint64_t tls_handshake_cpu_ns = 0;
  /// QUIC (HTTP/3) handshakes: full ones, and those that resumed a session ticket.
  std::uint64_t quic_full_handshakes = 0;
  std::uint64_t quic_resumed_handshakes = 0;
  /// QUIC connections that sent requests as 0-RTT early data, by whether the server
  /// accepted them (ClientOptions::tls.early_data), and the requests sent so.
  std::uint64_t quic_early_data_accepted = 0;
  std::uint64_t quic_early_data_rejected = 0;
  std::uint64_t quic_early_requests = 0;
  /// Owned request bodies no transport has taken whole yet (memory.owned_upload_budget
  /// bounds them), and how many send() calls waited for that bound so far.
  std::size_t owned_upload_bytes = 0;
  std::uint64_t owned_upload_waits = 0;
};

/// Thread-safe: send() from any thread. Destroying a Client cancels what is in
/// flight and joins its threads; readers of bodies still alive then fail with
/// category cancelled. Never destroy a Client inside one of its own callbacks
/// (then, on_data, on_end, trace): they run on the thread it would have to join.
class SLUICE_API Client {
 public:
  /// Fails when an option is unusable (an unreadable CA file, ...).
  static Result<Client> create(ClientOptions options = {});
  Client(Client&&) noexcept;
  Client& operator=(Client&&) noexcept;
  ~Client();

  /// Starts a request; never blocks on the network.
  PendingResponse send(Request request);
  /// send(request).wait().
  Result<Response> fetch(Request request) { return send(std::move(request)).wait(); }

  /// With ClientOptions::host_dispatch: a file descriptor (an eventfd) that is
  /// readable while callbacks wait for dispatch(); add it to the host's loop for
  /// reading. Owned by the Client: never close it. -1 without host dispatch.
  int dispatch_fd() const noexcept;
  /// With ClientOptions::host_dispatch: runs the waiting callbacks on this thread and
  /// returns how many ran (0 without host dispatch). Call it from one thread at a
  /// time, whenever dispatch_fd() is readable; a callback may call it again. When the
  /// Client is destroyed, the callbacks still waiting run on the destroying thread,
  /// so each then() still fires once.
  std::size_t dispatch();

  /// A snapshot taken on the HTTP thread (this call waits for it; not from a
  /// callback running on that thread).
  ClientStats stats() const;

  /// Writes the files ClientOptions::state names, now, each replaced whole (a
  /// temporary file renamed over it); nothing when none is named. Fails with
  /// ErrorCategory::io naming the file that could not be written (the others are
  /// still written). The destructor writes them too when requests went since the
  /// last save, ignoring failures: call this to learn of them.
  Result<void> save_state();

 private:
  struct SLUICE_INTERNAL Impl;
  // Tests reach the core and make a Client on a manual clock through it
  // (src/client/client_access.hpp); nothing of the public API does.
  friend struct ClientAccess;
  explicit Client(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sluice

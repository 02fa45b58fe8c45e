#pragma once
// PoolServices: everything the pool, its ConnectionFactory, OriginConnectors and
// Http3Attempts use, named one by one, instead of the whole Client core: the pool
// opens and keeps connections, and knows nothing of fetches beyond ConnectionWaiter.
// Ownership: the references point into the Client's core, which outlives its pool;
// HTTP thread only, like the pool.

#include <functional>
#include <memory>

#include "core/event_loop.hpp"
#include "core/trace.hpp"
#include "dns/resolver.hpp"
#include "mux/stream_credit.hpp"
#include "pool/network_settings.hpp"
#include "quic/quic_tls.hpp"
#include "sluice/client.hpp"
#include "tls/tls.hpp"
#include "web/alt_svc.hpp"

namespace sluice {

struct PoolServices {
  EventLoop& loop;
  Resolver& resolver;
  const Trace& trace;
  /// Read for the pool's limits (pool.max_connections_per_origin, pool.idle_timeout), the
  /// HTTP/3 timing (http3_fallback_after, http3_broken_for), the TLS maximum and the
  /// wire tap.
  const ClientOptions& options;
  /// Where connections go: --connect-to, --unix-socket, Happy Eyeballs.
  const NetworkSettings& network;
  /// Where HTTP/3 was announced, and which origins' h3 is broken for now.
  AltSvcCache& alt_svc;
  /// The window policy every HTTP/2 and HTTP/3 session uses.
  const WindowPolicy& window;
  TlsContext* tls;
  /// Trust for https:// proxies.
  TlsContext* proxy_tls;
  /// The QUIC trust settings, made on first use (GnuTLS loads the store then).
  std::function<Result<std::shared_ptr<const QuicTlsContext>>()> quic_tls;
};

}  // namespace sluice

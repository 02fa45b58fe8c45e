#pragma once
// TlsShared: what a TlsContext and every TLS transport it made share: the session
// cache, the pins, the key log and the handshake counts. A transport may outlive its
// context's owner for a moment (a connection closing at shutdown), so both hold it
// by shared_ptr; OpenSSL callbacks reach it through their transport.
// Ownership: HTTP thread only, after TlsContext::create.

#include "tls/tls.hpp"
#include "tls/tls_key_log.hpp"
#include "tls/tls_pins.hpp"
#include "tls/tls_session_cache.hpp"

namespace sluice {

/// Origins whose sessions a Client keeps: a crawler's spread of hosts is bounded.
inline constexpr std::size_t kTlsSessionCacheOrigins = 256;

struct TlsShared {
  explicit TlsShared(bool session_cache) : sessions(session_cache ? kTlsSessionCacheOrigins : 0) {}

  TlsSessionCache sessions;
  PublicKeyPins pins;
  TlsKeyLog key_log;
  TlsHandshakeCounts handshakes;
};

}  // namespace sluice

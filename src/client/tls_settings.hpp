#pragma once
// The TLS settings of ClientOptions, turned into what TCP TLS (src/tls, OpenSSL) and
// QUIC (src/quic, GnuTLS) each take.
// Ownership: pure functions; any thread.

#include "quic/quic_tls.hpp"
#include "sluice/client.hpp"
#include "tls/tls.hpp"

namespace sluice {

/// The key log file is ClientOptions::tls.key_log_file, else $SSLKEYLOGFILE.
TlsContextSettings tls_options_of(const ClientOptions& options);

/// Fails (category usage) when the options rule QUIC out: a TLS maximum of 1.2.
Result<QuicTlsOptions> quic_tls_options_of(const ClientOptions& options);

}  // namespace sluice

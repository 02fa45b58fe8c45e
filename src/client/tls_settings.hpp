#pragma once
// ClientOptions' TLS group, as TCP TLS (src/tls, OpenSSL) and QUIC (src/quic, GnuTLS)
// take it: both read TlsOptions itself; these add what only the Client decides.
// Ownership: pure functions; any thread.

#include "sluice/client.hpp"
#include "sluice/error.hpp"

namespace sluice {

/// The origins' TLS options, with the key log file defaulting to $SSLKEYLOGFILE
/// (read when the Client is made, as curl reads it at start-up).
TlsOptions origin_tls_options(const ClientOptions& options);

/// An https:// proxy's TLS: its own trust (proxy.ca_file, proxy.insecure), nothing
/// else of the origins'.
TlsOptions proxy_tls_options(const ClientOptions& options);

/// Fails (category usage) when the options rule QUIC out: a TLS maximum of 1.2.
Result<void> check_quic_allowed(const ClientOptions& options);

}  // namespace sluice

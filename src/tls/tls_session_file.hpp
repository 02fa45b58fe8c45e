#pragma once
// The TLS session file (ClientOptions::state.tls_session_file, --ssl-sessions), one
// session a line:
//   tcp  SETTINGS host:port EXPIRES SESSION
//   quic SETTINGS host:port EXPIRES SESSION TRANSPORT_PARAMS
// SETTINGS names the TLS settings the session was made under (a hash: trust, client
// certificate, versions, ciphers, -k), host:port the origin it may be offered to,
// EXPIRES the end of its life in seconds since 1970 (UTC), SESSION the session in hex
// (OpenSSL's DER for TCP, GnuTLS's session data for QUIC) and TRANSPORT_PARAMS the
// QUIC server's parameters in hex ("-" when not known). The format is sluice's own:
// curl's is an internal binary one that changes between its versions.
// Pure functions, any thread (fuzzed: the file is input).

#include <string>
#include <string_view>
#include <vector>

#include "core/state_lines.hpp"

namespace sluice {

struct TlsSessionFileEntry {
  enum class Kind { tcp, quic };
  Kind kind = Kind::tcp;
  std::string settings;  ///< the settings' name, [0-9a-f]+
  std::string origin;    ///< "host:port", as the session caches key origins
  UnixSeconds expires = 0;
  std::string session;           ///< raw bytes
  std::string transport_params;  ///< raw bytes, QUIC only; "" when not known
};

struct TlsSessionFileContents {
  std::vector<TlsSessionFileEntry> entries;
  std::vector<SkippedLine> skipped;  ///< lines that were not entries, with the reason
};

/// Parses a whole file. Never fails: a line of another shape, bad hex, an empty
/// session or an origin without a port is skipped and named. Expiry is not checked.
TlsSessionFileContents parse_tls_session_file(std::string_view text);

/// The file for `entries`, with a header that says it holds secrets.
std::string format_tls_session_file(const std::vector<TlsSessionFileEntry>& entries);

}  // namespace sluice

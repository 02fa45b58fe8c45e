#pragma once
// The TLS session file of one Client (ClientOptions::state.tls_session_file): which
// of the file's sessions go to this Client's caches, and what goes back. A session
// is offered only to the origin it was made with ("host:port", the caches' key) and
// only under the TLS settings it was made under (tls_settings_name); sessions of
// other settings (another run's -k, another --cacert) are carried through the file
// untouched. QUIC sessions wait here until the Client makes its QUIC context (on its
// first HTTP/3 attempt).
// Ownership: the client core's; filled before the HTTP thread runs, then HTTP thread.

#include <string>
#include <vector>

#include "core/state_lines.hpp"
#include "quic/quic_ticket_store.hpp"
#include "sluice/client_options.hpp"
#include "tls/tls_session_cache.hpp"
#include "tls/tls_session_file.hpp"

namespace sluice {

/// A short name of the settings a TLS session depends on: trust, client certificate,
/// versions, ciphers, pins and -k (a SHA-256 over them, 16 hex digits).
std::string tls_settings_name(const TlsOptions& options);

class TlsSessionState {
 public:
  explicit TlsSessionState(std::string settings) : settings_(std::move(settings)) {}

  /// The file's entries: this Client's TCP sessions go into `tcp`, its QUIC ones wait
  /// for adopt_quic, others are kept for text(); expired ones are dropped.
  void load(std::vector<TlsSessionFileEntry> entries, TlsSessionCache& tcp, UnixSeconds wall_now);
  /// The QUIC context was made: the waiting sessions go into its store.
  void adopt_quic(QuicTicketStore& store, UnixSeconds wall_now);
  /// The file's new contents: the live sessions of both caches (`quic` null before
  /// any HTTP/3: the QUIC sessions still waiting), and those carried through.
  std::string text(const TlsSessionCache& tcp, const QuicTicketStore* quic,
                   UnixSeconds wall_now) const;

 private:
  std::string settings_;
  std::vector<TlsSessionFileEntry> waiting_quic_;
  std::vector<TlsSessionFileEntry> carried_;
};

}  // namespace sluice

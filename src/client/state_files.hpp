#pragma once
// ClientOptions::state's files for one Client: read into its caches when the core is
// made, and written from a snapshot the HTTP thread takes (Client::save_state, and
// the Client's destructor). The caches keep the loop's steady time; the files keep
// wall-clock time (UTC), so each crossing converts through the two clocks' "now".
// Policy on parallel runs: each write replaces the whole file atomically
// (replace_state_file), and the last run to write wins. No lock: a lock held by a
// run that hangs (or a lock file a killed run left) would stall every later run, for
// a cache whose lost entries cost one more round trip.
// Free functions; each says its thread.

#include <string>
#include <vector>

#include "client/tls_session_state.hpp"
#include "core/event_loop.hpp"
#include "core/state_lines.hpp"
#include "core/trace.hpp"
#include "sluice/client_options.hpp"
#include "sluice/error.hpp"
#include "web/alt_svc.hpp"
#include "web/hsts.hpp"

namespace sluice {

/// The caches a Client keeps in files (members of its core).
struct StateCaches {
  AltSvcCache& alt_svc;
  HstsStore* hsts = nullptr;  ///< null when HSTS is off
  /// With a TLS session file: what it holds for this Client, and the caches.
  TlsSessionState* tls_sessions = nullptr;
  TlsSessionCache* tcp_sessions = nullptr;
  const QuicTicketStore* quic_sessions = nullptr;  ///< null before any HTTP/3
};

/// One file's new contents, made on the HTTP thread, written on any.
struct StateFileText {
  std::string what;  ///< "alt-svc file", for errors
  std::string path;
  std::string text;
};

/// The wall clock, in seconds since 1970 (UTC).
UnixSeconds wall_clock_now();

/// Reads the files `options` names into `caches`, dropping what has expired by
/// `wall_now`. A missing file is an empty start; an unreadable one and skipped lines
/// are traced, never fatal (curl ignores them too). Before the HTTP thread runs.
void load_state_files(const StateFileOptions& options, StateCaches caches, TimePoint now,
                      UnixSeconds wall_now, const Trace& trace);

/// The files' new contents. HTTP thread (or after it ended).
std::vector<StateFileText> snapshot_state_files(const StateFileOptions& options, StateCaches caches,
                                                TimePoint now, UnixSeconds wall_now);

/// Writes each file (all are tried); the first failure comes back. Any thread.
Result<void> write_state_files(const std::vector<StateFileText>& files);

}  // namespace sluice

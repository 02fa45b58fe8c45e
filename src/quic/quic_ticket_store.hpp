#pragma once
// QuicTicketStore: each origin's latest TLS 1.3 session (GnuTLS's session data, with
// the server's ticket) for a Client's QUIC connections, so the next connection to
// the origin resumes (no certificate exchange), and the transport parameters of the
// connection that received the ticket beside it: a client may send 0-RTT early data
// only within the limits the server announced on that connection (RFC 9000 section
// 7.4.1). Only tickets make entries, so an origin's entry always resumes. Bounded like the TCP
// cache: the least recently stored origin goes first.
// Ownership: held by the QuicTlsContext (shared_ptr); HTTP thread only.

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace sluice {

/// What a new connection to an origin may resume with.
struct QuicSavedSession {
  std::string session_data;      ///< gnutls_session_get_data2's bytes
  std::string transport_params;  ///< the server's, as ngtcp2 encodes them; "" if unknown
  /// Seconds since 1970 when it stops being offered: set for a session read back from
  /// a file; 0 for one of this run (a file gives it the 7 days TLS 1.3 allows).
  std::int64_t expires = 0;
};

class QuicTicketStore {
 public:
  explicit QuicTicketStore(std::size_t capacity) : capacity_(capacity) {}

  /// The session to resume `key` ("host:port") with, or nullptr.
  const QuicSavedSession* find(const std::string& key) const;
  /// A new ticket arrived, with its connection's server transport parameters ("" if
  /// not known yet): it replaces the origin's session.
  void store(const std::string& key, QuicSavedSession saved);
  /// Every origin's session, for a file (ClientOptions::state.tls_session_file).
  std::vector<std::pair<std::string, QuicSavedSession>> saved() const;

  /// Handshakes completed by the connections of this store's context.
  std::uint64_t full = 0;
  std::uint64_t resumed = 0;
  /// Connections that sent requests as 0-RTT early data, by the server's answer,
  /// and the requests sent so (those of a rejected connection went again).
  std::uint64_t early_accepted = 0;
  std::uint64_t early_rejected = 0;
  std::uint64_t early_requests = 0;

 private:
  struct Entry {
    QuicSavedSession saved;
    std::uint64_t stored = 0;
  };
  Entry* slot(const std::string& key);

  std::size_t capacity_;
  std::uint64_t clock_ = 0;
  std::map<std::string, Entry> entries_;
};

}  // namespace sluice

#pragma once
// QuicTicketStore: each origin's latest TLS 1.3 session (GnuTLS's session data, with
// the server's ticket) for a Client's QUIC connections, so the next connection to
// the origin resumes (no certificate exchange). No 0-RTT: early data would need the
// server's transport parameters kept too, and a policy for which requests may be
// replayed. Bounded like the TCP cache: the least recently stored origin goes first.
// Ownership: held by the QuicTlsContext (shared_ptr); HTTP thread only.

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

namespace sluice {

class QuicTicketStore {
 public:
  explicit QuicTicketStore(std::size_t capacity) : capacity_(capacity) {}

  /// The session data to resume `key` ("host:port") with, or nullptr.
  const std::string* find(const std::string& key) const;
  void store(const std::string& key, std::string session_data);

  /// Handshakes completed by the connections of this store's context.
  std::uint64_t full = 0;
  std::uint64_t resumed = 0;

 private:
  struct Entry {
    std::string data;
    std::uint64_t stored = 0;
  };
  std::size_t capacity_;
  std::uint64_t clock_ = 0;
  std::map<std::string, Entry> entries_;
};

}  // namespace sluice

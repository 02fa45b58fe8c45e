#pragma once
// TlsSessionCache: the TLS sessions (TLS 1.3 tickets, TLS 1.2 sessions) a Client may
// resume, one per origin, so a second connection to an origin skips the certificate
// exchange and the key agreement's signature. Bounded: the least recently used
// origin's session goes when a new origin would exceed the capacity.
// Ownership: HTTP thread only; owns a reference to each session it holds.

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

typedef struct ssl_session_st SSL_SESSION;

namespace sluice {

class TlsSessionCache {
 public:
  /// `capacity` 0 turns the cache off: find() finds nothing and store() keeps nothing.
  explicit TlsSessionCache(std::size_t capacity) : capacity_(capacity) {}
  ~TlsSessionCache();
  TlsSessionCache(const TlsSessionCache&) = delete;
  TlsSessionCache& operator=(const TlsSessionCache&) = delete;

  bool enabled() const noexcept { return capacity_ > 0; }
  /// The session to offer to `key` ("host:port"), borrowed (SSL_set_session takes
  /// its own reference), or nullptr. Sessions past their lifetime are dropped here.
  SSL_SESSION* find(const std::string& key);
  /// Keeps `session` (this takes over the caller's reference) as `key`'s, replacing
  /// the one before: the newest ticket is the one the server will most likely take.
  void store(const std::string& key, SSL_SESSION* session);
  /// Drops `key`'s session (a resumption the server refused, or a failed handshake).
  void forget(const std::string& key);
  std::size_t size() const noexcept { return entries_.size(); }

  /// A session as a file keeps it (ClientOptions::state.tls_session_file).
  struct Saved {
    std::string key;
    std::string der;           ///< i2d_SSL_SESSION's bytes
    std::int64_t expires = 0;  ///< seconds since 1970: the session's time plus timeout
  };
  /// Every session that can still be resumed.
  std::vector<Saved> saved() const;
  /// A session read back from a file: kept as `key`'s when it decodes, can be
  /// resumed and has not expired; otherwise dropped.
  void restore(const std::string& key, std::string_view der);

 private:
  struct Entry {
    SSL_SESSION* session = nullptr;
    std::uint64_t last_used = 0;
  };
  void evict_oldest();

  std::size_t capacity_;
  std::uint64_t clock_ = 0;  // a use counter, for least-recently-used eviction
  std::map<std::string, Entry> entries_;
};

}  // namespace sluice

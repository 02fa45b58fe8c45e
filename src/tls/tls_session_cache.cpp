// TlsSessionCache (see tls_session_cache.hpp). Ownership: HTTP thread only.

#include "tls/tls_session_cache.hpp"

#include <openssl/ssl.h>

#include <ctime>

namespace sluice {

TlsSessionCache::~TlsSessionCache() {
  for (auto& [key, entry] : entries_) SSL_SESSION_free(entry.session);
}

SSL_SESSION* TlsSessionCache::find(const std::string& key) {
  auto found = entries_.find(key);
  if (found == entries_.end()) return nullptr;
  SSL_SESSION* session = found->second.session;
  // An expired ticket would only cost the server a look and us a full handshake
  // anyway; dropping it keeps the cache to what can still be used.
  const long expires = SSL_SESSION_get_time(session) + SSL_SESSION_get_timeout(session);
  if (SSL_SESSION_is_resumable(session) != 1 || expires <= static_cast<long>(std::time(nullptr))) {
    forget(key);
    return nullptr;
  }
  found->second.last_used = ++clock_;
  return session;
}

void TlsSessionCache::store(const std::string& key, SSL_SESSION* session) {
  if (!enabled()) {
    SSL_SESSION_free(session);
    return;
  }
  auto found = entries_.find(key);
  if (found != entries_.end()) {
    SSL_SESSION_free(found->second.session);
    found->second = Entry{session, ++clock_};
    return;
  }
  if (entries_.size() >= capacity_) evict_oldest();
  entries_.emplace(key, Entry{session, ++clock_});
}

void TlsSessionCache::forget(const std::string& key) {
  auto found = entries_.find(key);
  if (found == entries_.end()) return;
  SSL_SESSION_free(found->second.session);
  entries_.erase(found);
}

void TlsSessionCache::evict_oldest() {
  auto oldest = entries_.begin();
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->second.last_used < oldest->second.last_used) oldest = it;
  }
  if (oldest == entries_.end()) return;
  SSL_SESSION_free(oldest->second.session);
  entries_.erase(oldest);
}

}  // namespace sluice

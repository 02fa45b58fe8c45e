// TlsSessionCache (see tls_session_cache.hpp). Ownership: HTTP thread only.

#include "tls/tls_session_cache.hpp"

#include <openssl/ssl.h>

#include <ctime>

#include "tls/tls.hpp"
#include "tls/tls_shared.hpp"

namespace sluice {

TlsSessionCache& TlsContext::sessions() noexcept { return shared_->sessions; }

namespace {

std::int64_t expiry_of(const SSL_SESSION* session) {
  return static_cast<std::int64_t>(SSL_SESSION_get_time(session)) +
         static_cast<std::int64_t>(SSL_SESSION_get_timeout(session));
}

}  // namespace

std::vector<TlsSessionCache::Saved> TlsSessionCache::saved() const {
  std::vector<Saved> out;
  const auto now = static_cast<std::int64_t>(std::time(nullptr));
  for (const auto& [key, entry] : entries_) {
    if (SSL_SESSION_is_resumable(entry.session) != 1 || expiry_of(entry.session) <= now) continue;
    const int length = i2d_SSL_SESSION(entry.session, nullptr);
    if (length <= 0) continue;
    std::string der(static_cast<std::size_t>(length), '\0');
    auto* cursor = reinterpret_cast<unsigned char*>(der.data());
    if (i2d_SSL_SESSION(entry.session, &cursor) != length) continue;
    out.push_back({key, std::move(der), expiry_of(entry.session)});
  }
  return out;
}

void TlsSessionCache::restore(const std::string& key, std::string_view der) {
  if (!enabled() || der.empty()) return;
  const auto* cursor = reinterpret_cast<const unsigned char*>(der.data());
  SSL_SESSION* session = d2i_SSL_SESSION(nullptr, &cursor, static_cast<long>(der.size()));
  if (session == nullptr) return;
  if (SSL_SESSION_is_resumable(session) != 1 ||
      expiry_of(session) <= static_cast<std::int64_t>(std::time(nullptr))) {
    SSL_SESSION_free(session);
    return;
  }
  store(key, session);
}

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

// TlsSessionCache: one session per origin, the newest kept, the least recently used
// origin evicted past the capacity, expired and unresumable sessions never offered.
#include "tls/tls_session_cache.hpp"

#include <gtest/gtest.h>
#include <openssl/ssl.h>

#include <ctime>
#include <string>

namespace sluice {
namespace {

// A session OpenSSL would offer: an id, TLS 1.2, issued `age` seconds ago, valid 300 s.
SSL_SESSION* resumable_session(unsigned char id, long age = 0) {
  SSL_SESSION* session = SSL_SESSION_new();
  const unsigned char bytes[8] = {id, 1, 2, 3, 4, 5, 6, 7};
  SSL_SESSION_set1_id(session, bytes, sizeof bytes);
  SSL_SESSION_set_protocol_version(session, TLS1_2_VERSION);
  SSL_SESSION_set_time(session, static_cast<long>(std::time(nullptr)) - age);
  SSL_SESSION_set_timeout(session, 300);
  return session;
}

unsigned char id_of(SSL_SESSION* session) {
  unsigned int length = 0;
  const unsigned char* id = SSL_SESSION_get_id(session, &length);
  return length > 0 ? id[0] : 0;
}

TEST(TlsSessionCache, KeepsTheNewestSessionPerOrigin) {
  TlsSessionCache cache(4);
  cache.store("a:443", resumable_session(1));
  cache.store("a:443", resumable_session(2));
  cache.store("b:443", resumable_session(3));
  ASSERT_NE(cache.find("a:443"), nullptr);
  EXPECT_EQ(id_of(cache.find("a:443")), 2);
  EXPECT_EQ(id_of(cache.find("b:443")), 3);
  EXPECT_EQ(cache.find("a:8443"), nullptr);  // another port is another origin
  EXPECT_EQ(cache.size(), 2u);
}

TEST(TlsSessionCache, EvictsTheLeastRecentlyUsedOriginPastItsCapacity) {
  TlsSessionCache cache(2);
  cache.store("a:443", resumable_session(1));
  cache.store("b:443", resumable_session(2));
  ASSERT_NE(cache.find("a:443"), nullptr);  // a is now the more recent
  cache.store("c:443", resumable_session(3));
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_NE(cache.find("a:443"), nullptr);
  EXPECT_EQ(cache.find("b:443"), nullptr);
  EXPECT_NE(cache.find("c:443"), nullptr);
}

TEST(TlsSessionCache, ExpiredOrUnresumableSessionsAreDropped) {
  TlsSessionCache cache(4);
  cache.store("old:443", resumable_session(1, 1000));
  EXPECT_EQ(cache.find("old:443"), nullptr);
  EXPECT_EQ(cache.size(), 0u);
  cache.store("empty:443", SSL_SESSION_new());  // no id, no ticket: nothing to resume
  EXPECT_EQ(cache.find("empty:443"), nullptr);
  EXPECT_EQ(cache.size(), 0u);
}

TEST(TlsSessionCache, ForgetDropsAnOrigin) {
  TlsSessionCache cache(4);
  cache.store("a:443", resumable_session(1));
  cache.forget("a:443");
  cache.forget("never:443");
  EXPECT_EQ(cache.find("a:443"), nullptr);
}

TEST(TlsSessionCache, CapacityZeroKeepsNothing) {
  TlsSessionCache cache(0);
  EXPECT_FALSE(cache.enabled());
  cache.store("a:443", resumable_session(1));  // freed at once, not leaked
  EXPECT_EQ(cache.find("a:443"), nullptr);
  EXPECT_EQ(cache.size(), 0u);
}

}  // namespace
}  // namespace sluice

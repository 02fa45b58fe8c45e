#pragma once
// TestEnv: where the real servers of the integration tests are. The ctest fixture
// servers.start (tests/support/servers/start.sh) starts nginx, nghttpd, caddy,
// gtlsserver and the proxies squid and microsocks on free loopback ports and writes
// $SLUICE_TEST_ENV/env, one KEY=VALUE per line:
//   SLUICE_NGINX_HTTP_URL   http://127.0.0.1:PORT   nginx, HTTP/1.1
//   SLUICE_NGINX_HTTPS_URL  https://localhost:PORT  nginx, HTTP/1.1 only over TLS 1.2/1.3
//                           (ALPN offers http/1.1 alone)
//   SLUICE_NGINX_UNIX_SOCKET     PATH  nginx, HTTP/1.1 on a Unix socket (--unix-socket)
//   SLUICE_NGINX_H2C_UNIX_SOCKET PATH  nginx, h2c by prior knowledge on a Unix socket
//   SLUICE_IPV6_LOOPBACK    yes or no: whether ::1 works here (nginx then listens on it too)
//   SLUICE_NGINX_H2_URL     https://localhost:PORT  nginx, TLS with ALPN h2 and
//                           http/1.1: HTTP/2 when the client offers it. Same server
//                           block as the two above: same files and paths.
//   SLUICE_NGHTTPD_URL      https://localhost:PORT  nghttpd, HTTP/2 only (ALPN h2; a
//                           client without h2 gets no answer)
//   SLUICE_NGHTTPD_H2C_URL  http://127.0.0.1:PORT   nghttpd, HTTP/2 over plain TCP with
//                           prior knowledge only (HTTP/1.1 and Upgrade: h2c get none)
//   SLUICE_CADDY_URL        https://localhost:PORT  caddy: HTTP/1.1 and HTTP/2 over TLS
//                           on TCP PORT, HTTP/3 on UDP PORT (over TCP it sends
//                           Alt-Svc: h3=":PORT"; ma=2592000,h3=":PORT"; ma=2592000).
//                           Only the host localhost is routed: https://127.0.0.1:PORT
//                           gets an empty 200
//   SLUICE_CADDY_MTLS_URL   https://localhost:PORT  the same caddy, a site that requires
//                           a client certificate signed by the test client CA over
//                           h1, h2 and h3 (without one the TLS handshake fails: alert
//                           42 over QUIC); serves the files
//   SLUICE_GTLSSERVER_URL   https://localhost:PORT  gtlsserver (ngtcp2's example
//                           server): HTTP/3 only on UDP PORT of 127.0.0.1 (and ::1
//                           where it exists); nothing listens on TCP PORT, and no
//                           Alt-Svc is sent. Serves the files; a missing path gets a
//                           404 with an HTML body
//   SLUICE_GTLSSERVER_V4_URL https://127.0.0.1:PORT the same gtlsserver's 127.0.0.1
//                           instance alone. Each instance has its own session-ticket
//                           key, and "localhost" may reach either (Happy Eyeballs), so
//                           a test that counts resumed handshakes talks to this one
//   SLUICE_TEST_CA          the CA that signed every server's certificate (PEM; the
//                           certificate is for localhost, 127.0.0.1 and ::1)
//   SLUICE_NGINX_MTLS_URL   https://localhost:PORT  nginx with ssl_verify_client on (h2
//                           and http/1.1, the same files): a client certificate signed
//                           by the test client CA is required; without one every
//                           request gets 400 "No required SSL certificate was sent".
//                           /whoami answers the client certificate's subject
//                           ("CN=sluice test client")
//   SLUICE_NGINX_ONESHOT_URL https://localhost:PORT nginx, h2 and http/1.1 over TLS,
//                           one request per connection (keepalive_requests 1: h1
//                           closes, h2 sends GOAWAY), so every request after the
//                           first opens a new connection: for TLS session resumption
//   SLUICE_CLIENT_CERT      the client certificate (PEM) nginx's mTLS server accepts
//   SLUICE_CLIENT_KEY       its private key (PEM, unencrypted)
//   SLUICE_CLIENT_COMBINED  certificate and key in one PEM file
//   SLUICE_CLIENT_KEY_ENCRYPTED   the key, encrypted (PKCS#8, AES-256) under
//   SLUICE_CLIENT_KEY_PASSPHRASE  this passphrase
//   SLUICE_TEST_CAPATH      a directory holding SLUICE_TEST_CA under its subject hash
//                           (openssl rehash), for --capath
//   SLUICE_SERVER_PUBKEY    the public key (PEM) of every server's certificate
//   SLUICE_SERVER_PUBKEY_PIN  its pin, sha256//BASE64, for --pinnedpubkey
//   SLUICE_FILES_DIR        what every server serves at "/": empty.bin, 1m.bin, 64m.bin,
//                           256m.bin (random bytes), small.txt, large.txt and 64m.txt
//                           (text, gzip-encoded on request by nginx only), and
//                           sha256sums of those seven
//   SLUICE_SQUID_PROXY      http://127.0.0.1:PORT   squid 5.7, an HTTP/1.1 forward proxy
//                           without authentication: absolute-form requests for http://
//                           and CONNECT tunnels to any port, to loopback destinations
//                           only (others get 403). Caches nothing; what it forwards
//                           itself (not a tunnel) gets "Via: 1.1 sluice-test (squid/5.7)"
//                           both ways and X-Forwarded-For on the request
//   SLUICE_SQUID_AUTH_PROXY http://127.0.0.1:PORT   the same squid on a second port that
//                           requires Basic proxy authentication: no or wrong
//                           credentials get 407 with Proxy-Authenticate: Basic
//                           realm="sluice-test", for a CONNECT too
//   SLUICE_SQUID_AUTH_USER      sluice         the credentials SLUICE_SQUID_AUTH_PROXY
//   SLUICE_SQUID_AUTH_PASSWORD  proxy-secret   accepts
//   SLUICE_SOCKS5_PROXY     socks5://127.0.0.1:PORT microsocks: SOCKS5 CONNECT with the
//   SLUICE_HTTPS_PROXY      https://localhost:PORT  stunnel in front of squid's open port:
//                           an HTTPS proxy (TLS to the proxy, the servers' certificate)
//                           no-authentication method only; takes IPv4, IPv6 and domain
//                           name addresses (so socks5h:// works too), to any address
//   SLUICE_LIGHTTPD_URL     http://127.0.0.1:PORT   lighttpd 1.4.69, HTTP/1.1: Digest
//                           authentication (RFC 7616, qop=auth) in front of the files:
//                           /digest-md5/FILE (algorithm MD5, realm "sluice md5"),
//                           /digest-sha256/FILE (SHA-256, "sluice sha256") and
//                           /digest-both/FILE (two WWW-Authenticate headers, SHA-256
//                           then MD5, realm "sluice both"); 401 without the right ones
//   SLUICE_DIGEST_USER      sluice-digest  the user lighttpd's htdigest file holds,
//   SLUICE_DIGEST_PASSWORD  digest-pass.7  with this password, for all three realms
// Paths nginx also answers (on all three of its URLs): /redirect (302 to /small.txt),
// /moved (301), /redirect-relative (302 with "Location: /small.txt"),
// /redirect-chain/3 (three 302s, then /small.txt), /redirect-loop (302 to itself),
// /upload/NAME (PUT stores the body, GET returns it, DELETE removes it).
// nghttpd runs with --echo-upload: a POST or PUT to any path is answered, once the
// whole request body has arrived (nghttpd keeps it in an unlinked temporary file),
// with 200, "nghttpd-response: echo", a content-length and the request body itself;
// other methods get the file at the path (404 when there is none). caddy also
// answers nginx's redirect paths and hands /upload/* to nginx's plain port, so
// uploads work over HTTP/3 too; gtlsserver serves the files only.
// bomb.bin (256 MiB of zeros, a sparse file) is served by nginx and caddy from its
// precompressed bomb.bin.gz (about 250 KiB) with "Content-Encoding: gzip": a
// decompression bomb of about 1000:1.
// Ownership: a TestEnv is a value owned by the test that made it; test thread only.

#include <map>
#include <string>
#include <string_view>

namespace sluice::test {

class TestEnv {
 public:
  /// Reads $SLUICE_TEST_ENV/env. Never fails here: a missing file is reported by
  /// the first get(), so a test that needs no server is not affected.
  TestEnv();

  /// The value of `key`. When the file or the key is missing the current test
  /// fails (ADD_FAILURE) with how to start the servers, and "" is returned.
  std::string get(std::string_view key) const;

  /// SLUICE_FILES_DIR + "/" + name.
  std::string file_path(std::string_view name) const;
  /// The lowercase hex SHA-256 of a served file, from SLUICE_FILES_DIR/sha256sums.
  /// Fails the test (and returns "") when the file is not listed.
  std::string sha256_of(std::string_view name) const;

 private:
  std::map<std::string, std::string, std::less<>> values_;
  std::string problem_;  ///< why values_ is empty, when it is
};

}  // namespace sluice::test

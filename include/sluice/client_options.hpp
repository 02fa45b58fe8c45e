#pragma once
/// @file
/// sluice::ClientOptions: what a Client is made with, in groups (TLS, proxies, names
/// and routes, the pool, memory). The library's layers read the groups they concern
/// (the TLS layer TlsOptions) without the Client.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sluice {

class CookieJar;

/// Which way the bytes of a WireChunk went.
enum class WireDirection { sent, received };
/// A slice of one connection's cleartext (ClientOptions::wire_tap): the HTTP/1.1 or
/// HTTP/2 bytes as written before TLS encrypts them, or as read after TLS decrypted
/// them (plain TCP: as sent and received); over HTTP/3, one QUIC stream's bytes
/// (HTTP/3 frames) as they went into packets or arrived in order. Valid during the
/// call only.
struct WireChunk {
  std::uint64_t connection = 0;  ///< the id trace lines name ("c3")
  WireDirection direction = WireDirection::sent;
  bool tls = false;  ///< whether the bytes travel inside TLS (always over HTTP/3)
  std::span<const std::byte> bytes;
  std::int64_t stream = -1;  ///< HTTP/3: the QUIC stream of the bytes; -1 over TCP
};

/// Which address families a Client connects over (curl's -4 and -6).
enum class IpVersion { any, v4_only, v6_only };
/// Whether requests take credentials from a netrc file (ClientOptions::netrc).
enum class NetrcMode {
  off,       ///< never (the default)
  optional,  ///< curl's --netrc-optional: credentials in the URL are preferred
  required,  ///< curl's --netrc / --netrc-file: the URL's password is ignored
};
/// TLS protocol versions for TlsOptions::min_version / max_version.
enum class TlsVersion { v1_2, v1_3 };

/// TLS to origins (curl's --cacert, -k, --cert, --tlsv1.3 ...).
struct TlsOptions {
  /// PEM bundle to trust instead of the system store (--cacert).
  std::string ca_file;
  /// A directory of PEM CA certificates named by subject hash (`openssl rehash`), to
  /// trust besides tls.ca_file (--capath); either replaces the system store.
  std::string ca_path;
  /// Skip certificate and host verification (-k). Never the default.
  bool insecure = false;
  /// A client certificate for mutual TLS (--cert): a PEM file with the certificate,
  /// then any intermediates, and the private key too unless tls.client_key names it.
  /// Read when the Client is made: an unreadable file, a wrong passphrase or a key
  /// that does not match fails Client::create with a message naming the file. Used
  /// over HTTP/3 as well.
  std::string client_cert;
  /// The PEM private key of client_cert, when it is in a file of its own (--key).
  std::string client_key;
  /// The passphrase of an encrypted client key (--pass). Never prompted for.
  std::string key_password;
  /// The lowest TLS version offered (--tlsv1.2, --tlsv1.3). Never below 1.2.
  TlsVersion min_version = TlsVersion::v1_2;
  /// The highest TLS version offered (--tls-max). v1_2 means no HTTP/3 (QUIC is TLS
  /// 1.3 only): automatic and http3 policies use TCP, http3_only fails saying so.
  TlsVersion max_version = TlsVersion::v1_3;
  /// OpenSSL cipher list for TLS 1.2 over TCP (--ciphers), e.g.
  /// "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256". Empty: OpenSSL's
  /// defaults. Not used by HTTP/3, which is TLS 1.3 only.
  std::string tls12_ciphers;
  /// TLS 1.3 cipher suites (--tls13-ciphers), colon-separated IANA names such as
  /// "TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256"; HTTP/3 honours them too.
  std::string tls13_ciphers;
  /// Public key pinning (--pinnedpubkey): "sha256//BASE64" entries separated by ';',
  /// or the path of a PEM or DER public key file. The server's certificate must carry
  /// one of these keys (SHA-256 of its SubjectPublicKeyInfo), even with tls.insecure; a
  /// mismatch fails with ErrorCode::tls_certificate naming both pins. Over HTTP/3 too.
  std::string pinned_public_key;
  /// Resume TLS sessions: each origin's latest session ticket is kept (at most 256
  /// origins), so the next connection to it (TCP, and QUIC with its own store) skips
  /// the certificate exchange. Off is curl's --no-sessionid. ClientStats counts full
  /// and resumed handshakes.
  bool session_cache = true;
  /// 0-RTT (curl's --tls-earlydata): a resumed HTTP/3 connection sends requests
  /// that are safe to replay (GET, HEAD and OPTIONS without a body) with its first
  /// packet, a round trip sooner. Others wait for the handshake as usual. When the
  /// server refuses the early data, the requests go again after the handshake.
  /// Off by default, as in curl: a server that does not guard against replay could
  /// see such a request twice. Needs tls.session_cache. TCP TLS sends nothing early.
  bool early_data = false;
  /// Append TLS secrets to this file in the NSS key log format, for Wireshark. Empty:
  /// the SSLKEYLOGFILE environment variable's file, if set, as curl and browsers do
  /// (HTTP/3's GnuTLS reads SSLKEYLOGFILE itself).
  std::string key_log_file;
};

/// Proxies (curl's -x, -U, --noproxy, -p ...).
struct ProxyOptions {
  /// A proxy for every request: "http://[user:password@]host:port" ("host:port" alone
  /// means http://; no port means 1080, as curl), "https://..." (TLS to the proxy;
  /// port 443 by default), or SOCKS5: "socks5://..." (the
  /// target's name resolved here) or "socks5h://..." (by the proxy), with optional
  /// username/password. An HTTP proxy gets http:// requests in absolute form and
  /// https:// ones through a CONNECT tunnel; SOCKS5 tunnels everything. TLS and ALPN
  /// are end to end, so HTTP/2 works inside; HTTP/3 is never proxied (it falls back to
  /// TCP). Empty: none, unless proxy.from_environment. A refused tunnel fails with
  /// ErrorCode::proxy_refused naming the proxy and its answer.
  std::string url;
  /// Hosts reached directly, as curl's --noproxy and NO_PROXY: names separated by
  /// commas (each names itself and its subdomains; a leading dot is ignored), IP
  /// addresses, CIDR ranges ("10.0.0.0/8", "fd00::/8"), or "*" for every host. Unset:
  /// the environment's, when proxy.from_environment, else none; set (even to ""):
  /// exactly this list.
  std::optional<std::string> no_proxy;
  /// Read what the two above leave unset from the environment, as curl does
  /// (http_proxy; https_proxy or HTTPS_PROXY; all_proxy or ALL_PROXY; no_proxy or
  /// NO_PROXY), once, when the Client is made. Off by default: a library should not
  /// change where a program's requests go behind its back. HTTP_PROXY in capitals is
  /// never read (under CGI it comes from a request's "Proxy:" header).
  bool from_environment = false;
  /// Tunnel http:// requests through the proxy with CONNECT too (curl's -p).
  bool tunnel = false;
  /// "user:password" for the proxy, as given (not %-encoded): Basic credentials for
  /// whichever proxy is used, over any in its URL (curl's --proxy-user).
  std::string user;
  /// An https:// proxy ("https://proxy.example:443") is spoken to over TLS, its
  /// certificate checked against the system store, or this PEM bundle (curl's
  /// --proxy-cacert); proxy.insecure skips the check (--proxy-insecure). The target's
  /// TLS runs inside, end to end, with tls.ca_file and tls.insecure.
  std::string ca_file;
  bool insecure = false;
};

/// Names and routes: where connections go and how they are made (DNS, --resolve, --connect-to, Happy Eyeballs, the local end).
struct RoutingOptions {
  /// Which address families to use: names resolve to only these, and an IP literal of
  /// the other family fails (curl's -4, -6).
  IpVersion ip_version = IpVersion::any;
  /// Fixed addresses for names, as curl's --resolve: each entry
  /// "host:port:address[,address...]" ("*" as port: every port), used instead of DNS.
  /// Client::create refuses a malformed entry.
  std::vector<std::string> resolve;
  /// Connect somewhere else, as curl's --connect-to: each entry
  /// "host:port:connect_host:connect_port" (an empty host or port matches any; an
  /// empty connect_host or connect_port keeps the URL's). The URL's name still goes
  /// in TLS (SNI and certificate checks) and the Host header. The first match wins.
  std::vector<std::string> connect_to;
  /// Every connection goes to this Unix domain socket instead of the network (curl's
  /// --unix-socket): http:// as HTTP/1.1 or h2c, https:// with TLS over it. No DNS,
  /// no proxy, no HTTP/3. Empty: the network.
  std::string unix_socket;
  /// Name servers to ask instead of /etc/resolv.conf's (curl's --dns-servers):
  /// "192.0.2.1,[2001:db8::1]:5353". /etc/hosts is read first either way.
  std::string dns_servers;
  /// A name the servers have not answered within this fails with
  /// ErrorCode::dns_timeout (0: only the request's connect timeout bounds it).
  std::chrono::milliseconds dns_timeout{15'000};
  /// DNS answers are reused for their TTL, but at most this long (curl's default DNS
  /// cache time). 0: every new connection asks again.
  std::chrono::seconds dns_cache_ttl{60};
  /// Happy Eyeballs (RFC 8305): while an address has not connected within this, the
  /// next one (of the other family first) is tried beside it; the first to connect
  /// wins. curl's --happy-eyeballs-timeout-ms; the RFC recommends 250 ms.
  std::chrono::milliseconds happy_eyeballs_delay{250};
  /// One address that has not connected within this is given up, so that a
  /// black-holed address costs this, not the request's whole connect timeout
  /// (0: no limit of its own).
  std::chrono::milliseconds connect_attempt_timeout{10'000};
  /// Where connections leave from (curl's --interface): an interface name ("eth0")
  /// or a local IP address. A name binds each socket to that interface's address of
  /// the family it connects with (and to the device itself when the process may).
  /// Empty: the kernel's routing decides. TCP and QUIC; not a Unix socket.
  std::string interface;
  /// The local port connections use (curl's --local-port): the first free one of
  /// local_port .. local_port + routing.local_port_range - 1. 0: any.
  std::uint16_t local_port = 0;
  std::uint16_t local_port_range = 1;
};

/// The connection pool: how many connections per origin, how long idle ones stay, and when HTTP/3 gives way to TCP.
struct PoolOptions {
  /// Connections per origin (HTTP/1.1 runs one request per connection at a time).
  /// An HTTP/2 or HTTP/3 connection draining after the server's GOAWAY does not
  /// count, so new requests need not wait for it to end; at most this many draining
  /// ones stay open besides (a hard ceiling of twice the limit).
  std::size_t max_connections_per_origin = 6;
  /// A pooled idle connection is closed after this long.
  std::chrono::milliseconds idle_timeout{60'000};
  /// HTTP/3 attempts that may fall back (VersionPolicy::http3, or automatic mode for
  /// an origin that announced h3 by Alt-Svc) give up on QUIC when its handshake has not
  /// completed within this, and use TCP; the origin's h3 is then not tried again for
  /// pool.http3_broken_for.
  std::chrono::milliseconds http3_fallback_after{1'000};
  std::chrono::milliseconds http3_broken_for{300'000};
};

/// What the Client holds in memory: the release rule, the sweep, and the bounds on staged response bytes and owned request bodies.
struct MemoryOptions {
  /// The release rule's threshold (bytes): copies larger than this are freed by the
  /// thread that finished with them. 0 releases every copy; SIZE_MAX none.
  std::size_t release_threshold = 512 * 1024;
  /// A bound on body bytes staged for readers across every response of this Client
  /// (0: none, the default). Above it the HTTP thread stops receiving for every
  /// response whose reader still has bytes waiting, until readers bring the total
  /// under it; a reader that has nothing keeps receiving, so reading always makes
  /// progress. Over HTTP/1.1 the total stays within the budget plus one receive per
  /// connection; over HTTP/2 and HTTP/3 no credit is given back while above it, but
  /// a stream may still receive what it was granted already (at most its
  /// allowance). Allowances grow only within it: their sum stays under it too.
  std::size_t staged_bytes_budget = 0;
  /// A bound on owned request bodies (BytesBody, and the BytesBody parts of a
  /// PartsBody) that no transport has taken whole yet (0: none). send() waits while
  /// the bodies not yet taken would pass it, so a program that makes bodies faster
  /// than the sockets take them is held back instead of piling them up; a body
  /// larger than the whole bound goes alone, and a wait ends when the sockets took
  /// nothing of the held bodies for a second (a server that stops reading until its
  /// answer is read must not hang a caller that reads answers after sending). send()
  /// never waits on the HTTP thread (from a callback) or with host_dispatch (the
  /// host's loop must not block); the bodies still count. Files and streamed bodies
  /// hold no copy and do not count.
  std::size_t owned_upload_budget = 32 * 1024 * 1024;
  /// The sweep (memory rule 3): this often, the HTTP thread frees the empty scratch
  /// buffers of responses whose readers have held them paused for at least
  /// min(1 s, memory.sweep_interval); a reader paused only for a moment keeps its buffers.
  std::chrono::milliseconds sweep_interval{4'000};
};

/// curl's --speed-limit and --speed-time (CURLOPT_LOW_SPEED_LIMIT and _TIME), for
/// every request of the Client: a transfer that moves fewer than `bytes_per_second`
/// bytes a second for `time` in a row fails with ErrorCode::low_speed. What moves is
/// the response body as received (before decoding) and the request body as sent; the
/// rate is checked each second, averaged over the last five seconds as curl does,
/// from when the request is on a connection. Seconds in which the reader holds the
/// body paused (a slow reader, a rate limit applied by reading slower) do not count:
/// that slowness is the reader's, as curl exempts a paused transfer.
/// bytes_per_second 0 (the default): no limit.
struct LowSpeedLimit {
  std::uint64_t bytes_per_second = 0;
  std::chrono::seconds time{30};
};

/// State that outlives a Client, in files later runs of a program read again (curl's
/// --alt-svc, --hsts and --ssl-sessions). Nothing is read or written unless a file is
/// named. Each file is read by Client::create (a missing file is an empty start; a
/// line that does not parse, or whose time has passed, is skipped) and written by
/// Client::save_state() and when the Client is destroyed. A file is always written
/// whole, to a temporary file beside it that is then renamed over it, so a reader
/// (another run) never sees half of one. Runs that end at once each write what they
/// know and the last one wins: these files are caches, and what another run learned
/// costs only one more round trip the next time.
struct StateFileOptions {
  /// The Alt-Svc cache in curl's file format: the HTTP/3 alternatives origins
  /// announced, so the next run's first request to such an origin goes over HTTP/3
  /// (VersionPolicy::automatic and http3). Only "h3" entries of https origins are
  /// read and written; an entry serves only the origin it was learned from.
  std::string alt_svc_file;
  /// HSTS (RFC 6797, curl's --hsts): a Strict-Transport-Security field in an https
  /// response whose certificate was verified (never with tls.insecure, never for an
  /// IP address) makes every later http:// URL to that host, and to its subdomains
  /// with includeSubDomains, go to https:// before any connection is made (port 80
  /// becomes 443, another port is kept), redirects included; max-age=0 ends it. Off by
  /// default, as in curl.
  bool hsts = false;
  /// Where the HSTS hosts are kept between runs, in curl's file format. Naming a file
  /// turns state.hsts on.
  std::string hsts_file;
  /// TLS sessions (curl's --ssl-sessions): each origin's latest session ticket, for
  /// TCP TLS and QUIC, so a later run's first connection resumes (and with
  /// tls.early_data may send 0-RTT over HTTP/3). A ticket is offered only to the
  /// origin that issued it, and only by a Client whose TLS settings (trust, client
  /// certificate, versions, ciphers, -k) are those it was made under. The file holds
  /// secrets: it is written with mode 0600. Needs tls.session_cache.
  std::string tls_session_file;
};

/// What a Client is made with. Each group has its own struct; a field of a group is
/// set as options.tls.ca_file, options.proxy.url, options.routing.resolve,
/// options.pool.idle_timeout, options.memory.staged_bytes_budget,
/// options.state.alt_svc_file. The C API sets
/// the same options one setter each (sluice.h).
struct ClientOptions {
  TlsOptions tls;
  ProxyOptions proxy;
  RoutingOptions routing;
  PoolOptions pool;
  MemoryOptions memory;
  StateFileOptions state;
  /// Transfers slower than this for its time fail (see LowSpeedLimit).
  LowSpeedLimit low_speed;
  /// Sent unless a request sets its own User-Agent.
  std::string user_agent = "sluice/0.1";
  /// Credentials from a netrc file (curl's -n, --netrc-optional, --netrc-file), read
  /// once by Client::create. A request that has none of its own (Request::auth with no
  /// user name, no Authorization header) gets the login and password of the first
  /// `machine` entry naming its host (or `default`), sent as Basic, or as Digest with
  /// Authentication::digest / any. When the URL names a user, only an entry with that
  /// login matches. optional: a URL with a password keeps it; required: the URL's
  /// password is ignored. Like -u, they go to the request's origin only.
  NetrcMode netrc = NetrcMode::off;
  /// The netrc file; empty: $HOME/.netrc, as curl. A missing file is an error when
  /// named here with netrc required, else ignored; a malformed one fails
  /// Client::create with the file's name and line.
  std::string netrc_file;
  /// The cookie engine (curl's -b/-c): with a jar, every request and every redirect
  /// hop carries the jar's cookies for its URL in one Cookie header (followed by
  /// the request's own Cookie value, if it has one, in curl's order), and the
  /// Set-Cookie fields of every response, redirects included, go into the jar.
  /// Several Clients may share one jar. Null (the default, as in curl): no cookies
  /// are stored or sent but those a request sets itself.
  std::shared_ptr<CookieJar> cookie_jar;
  /// Threads that run file jobs (reads of upload files, writes of downloads).
  int file_threads = 2;
  /// Host dispatch, for embedding in another event loop (a language runtime, a GUI):
  /// the Client never runs user code on its HTTP thread. Every callback (then(),
  /// on_data/on_end, when_writable, trace) waits in a queue instead; Client::
  /// dispatch_fd() turns readable while it is not empty, and the host's loop calls
  /// Client::dispatch() to run the callbacks on its own thread. Backpressure holds
  /// through it: a body's bytes stay staged (and its stream paused at its allowance)
  /// until dispatch() hands them to on_data.
  bool host_dispatch = false;
  /// Tracing: when set, called on the HTTP thread (with host_dispatch, in dispatch()) with one line per notable event
  /// (connects, TLS, requests, pauses, redirects, closes), each naming its connection
  /// ("c3 h1: ..."). It must return quickly and must not call into the Client.
  std::function<void(std::string_view line)> trace;
  /// Wire tap (curl's --trace): when set, called on the HTTP thread (with host_dispatch,
  /// in dispatch(), with a copy) with every slice of cleartext an HTTP/1.1 or HTTP/2
  /// connection sends or receives, in order, decrypted when TLS carries it, and every
  /// HTTP/3 stream's bytes (WireChunk::stream). It must return quickly (it holds up every transfer), must not block
  /// and must not call into the Client. Unset: no tap exists and no byte is copied.
  std::function<void(const WireChunk& chunk)> wire_tap;
};

}  // namespace sluice

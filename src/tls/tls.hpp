#pragma once
// TLS over OpenSSL: a context per Client and a transport per connection.
// TlsContext: created on any thread, then used on the HTTP thread only.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "net/transport.hpp"
#include "sluice/client_options.hpp"
#include "sluice/error.hpp"

typedef struct ssl_ctx_st SSL_CTX;

namespace sluice {

struct TlsShared;
class TlsSessionCache;

/// Handshakes counted since the context was made (HTTP thread).
struct TlsHandshakeCounts {
  std::uint64_t full = 0;
  std::uint64_t resumed = 0;
  std::uint64_t cpu_ns = 0;  ///< HTTP-thread CPU inside SSL_do_handshake, all handshakes
};

class TlsContext {
 public:
  /// Everything of `options` is used; key_log_file names the file itself (the
  /// caller applies $SSLKEYLOGFILE). early_data is QUIC's alone.
  /// Errors name the file or setting: "TLS: cannot read CA file /x.pem: ...",
  /// "TLS: wrong passphrase for key /k.pem", "TLS: no usable cipher in ...".
  static Result<std::shared_ptr<TlsContext>> create(const TlsOptions& options);
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  /// A client TLS transport over a connected non-blocking socket. Takes the fd in
  /// every case: the transport closes it, or this call does when it fails. The first
  /// call of a context without a CA file (and not insecure) loads the system trust
  /// store.
  /// `host` is used for SNI (not for IP literals) and hostname/IP verification, and
  /// with `port` as the key of the session cache (0: the socket's peer port, which
  /// through a proxy's tunnel is the proxy's, so a tunnel passes the target's).
  /// `alpn` lists protocols to offer in order, e.g. {"h2", "http/1.1"}.
  Result<std::unique_ptr<Transport>> connect(int fd, const std::string& host,
                                             const std::vector<std::string>& alpn,
                                             std::uint16_t port = 0);
  /// The same inside `inner`, a transport already secured (TLS to an https://
  /// proxy, its tunnel open): TLS inside TLS. `port` is the target's, for the
  /// session cache. The new transport owns `inner`.
  Result<std::unique_ptr<Transport>> connect_over(std::unique_ptr<Transport> inner,
                                                  const std::string& host, std::uint16_t port,
                                                  const std::vector<std::string>& alpn);
  bool insecure() const noexcept { return insecure_; }
  /// The sessions this context's connections resume (HTTP thread; before the thread
  /// runs, to fill it from a file).
  TlsSessionCache& sessions() noexcept;
  /// Full and resumed handshakes completed so far (HTTP thread).
  TlsHandshakeCounts handshakes() const noexcept;

 private:
  TlsContext(SSL_CTX* ctx, bool insecure, std::shared_ptr<TlsShared> shared);
  /// Loads the system trust store once, if this context uses it and has not yet.
  Result<void> load_system_store();

  SSL_CTX* ctx_;
  bool insecure_;
  std::shared_ptr<TlsShared> shared_;  // also held by every transport it made
  bool system_store_pending_ = false;  // HTTP thread, after create()
};

}  // namespace sluice

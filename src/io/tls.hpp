#pragma once
// TLS over OpenSSL: a context per Client and a transport per connection.
// TlsContext: created on any thread, then used on the HTTP thread only.

#include <memory>
#include <string>
#include <vector>

#include "io/transport.hpp"
#include "sluice/error.hpp"

typedef struct ssl_ctx_st SSL_CTX;

namespace sluice {

struct TlsOptions {
  std::string ca_file;         ///< PEM bundle to trust instead of the system store
  bool insecure = false;       ///< skip certificate and host verification (-k)
};

class TlsContext {
 public:
  /// Errors name the file or setting: "TLS: cannot read CA file /x.pem: ...".
  static Result<std::shared_ptr<TlsContext>> create(const TlsOptions& options);
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  /// A client TLS transport over a connected non-blocking socket. Takes the fd in
  /// every case: the transport closes it, or this call does when it fails. The first
  /// call of a context without a CA file (and not insecure) loads the system trust
  /// store.
  /// `host` is used for SNI (not for IP literals) and hostname/IP verification.
  /// `alpn` lists protocols to offer in order, e.g. {"h2", "http/1.1"}.
  Result<std::unique_ptr<Transport>> connect(int fd, const std::string& host,
                                             const std::vector<std::string>& alpn);
  bool insecure() const noexcept { return insecure_; }

 private:
  TlsContext(SSL_CTX* ctx, bool insecure) : ctx_(ctx), insecure_(insecure) {}
  /// Loads the system trust store once, if this context uses it and has not yet.
  Result<void> load_system_store();

  SSL_CTX* ctx_;
  bool insecure_;
  bool system_store_pending_ = false;  // HTTP thread, after create()
};

}  // namespace sluice

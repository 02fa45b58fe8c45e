// TlsContext: the OpenSSL client context shared by every TLS connection of a Client.
// Ownership: created on any thread, then used on the HTTP thread only (which also
// loads the system trust store, on the first connect that needs it).

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "io/tls.hpp"
#include "io/tls_diagnostics.hpp"
#include "io/tls_transport.hpp"

namespace sluice {
namespace {

Error tls_error(std::string message) {
  Error error(ErrorCategory::tls, "TLS: " + std::move(message));
  ERR_clear_error();
  return error;
}

Result<void> load_ca_file(SSL_CTX* ctx, const std::string& path) {
  // Checked by hand first: OpenSSL's own failure for a missing file is a generic
  // "system lib" that does not say the file is absent or unreadable.
  std::FILE* file = std::fopen(path.c_str(), "r");
  if (file == nullptr) return tls_error("cannot read CA file " + path + ": " + std::strerror(errno));
  struct stat info {};
  const bool directory = fstat(fileno(file), &info) == 0 && S_ISDIR(info.st_mode);
  std::fclose(file);
  if (directory) return tls_error("cannot read CA file " + path + ": it is a directory");
  if (SSL_CTX_load_verify_locations(ctx, path.c_str(), nullptr) != 1) {
    return tls_error("cannot read CA file " + path + ": " +
                     openssl_error_text("no PEM certificates found") +
                     " (expected PEM certificates)");
  }
  return {};
}

}  // namespace

Result<std::shared_ptr<TlsContext>> TlsContext::create(const TlsOptions& options) {
  ERR_clear_error();
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  if (ctx == nullptr)
    return tls_error("cannot create an OpenSSL context: " + openssl_error_text("out of memory"));
  std::shared_ptr<TlsContext> context(new TlsContext(ctx, options.insecure));
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  // Partial writes let a large body go out as the socket takes it; a moving
  // buffer lets the caller's ByteQueue grow or compact between retries.
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  // No SSL_OP_IGNORE_UNEXPECTED_EOF: it makes a TCP close look like close_notify,
  // and a close-delimited HTTP/1.1 body needs to tell the two apart (truncation
  // attack). TlsTransport reads either as eof and remembers which it was.
  // Each connection sets its own verify mode and callback (tls_transport.cpp).
  SSL_CTX_set_verify(ctx, options.insecure ? SSL_VERIFY_NONE : SSL_VERIFY_PEER, nullptr);
  // A CA file the caller named is read now, so a wrong path fails Client::create.
  // The system store is read at the first connection that verifies against it: it
  // is some 140 certificates parsed one by one (about 25 ms of CPU and 200,000
  // allocations here), which a Client that only speaks plain HTTP, or -k, never needs.
  if (!options.ca_file.empty()) {
    if (auto loaded = load_ca_file(ctx, options.ca_file); !loaded) return std::move(loaded).error();
  } else {
    context->system_store_pending_ = !options.insecure;
  }
  ERR_clear_error();
  return context;
}

Result<void> TlsContext::load_system_store() {
  if (!system_store_pending_) return {};
  if (SSL_CTX_set_default_verify_paths(ctx_) != 1) {
    return tls_error("cannot load the system trust store: " +
                     openssl_error_text("unknown OpenSSL error") + "; use --cacert FILE");
  }
  ERR_clear_error();
  system_store_pending_ = false;
  return {};
}

TlsContext::~TlsContext() { SSL_CTX_free(ctx_); }

Result<std::unique_ptr<Transport>> TlsContext::connect(int fd, const std::string& host,
                                                       const std::vector<std::string>& alpn) {
  if (auto loaded = load_system_store(); !loaded) {
    ::close(fd);  // the fd is ours to close whatever happens
    return std::move(loaded).error();
  }
  return make_tls_transport(ctx_, fd, host, alpn, insecure_);
}

}  // namespace sluice

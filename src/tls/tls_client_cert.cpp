// Client certificates for OpenSSL (see tls_client_cert.hpp).
// Ownership: free functions; the thread that creates the Client.

#include "tls/tls_client_cert.hpp"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>

#include "tls/tls_diagnostics.hpp"

namespace sluice {
namespace {

Error cert_error(std::string message) {
  ERR_clear_error();
  return Error(ErrorCategory::usage, "TLS: " + std::move(message));
}

struct BioFree {
  void operator()(BIO* bio) const noexcept { BIO_free(bio); }
};
using BioPtr = std::unique_ptr<BIO, BioFree>;

Result<std::string> read_file(const std::string& path, const char* what) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return cert_error(std::string("cannot read ") + what + " " + path + ": " +
                      std::strerror(errno));
  std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (file.bad()) return cert_error(std::string("cannot read ") + what + " " + path);
  return bytes;
}

BioPtr memory_bio(const std::string& bytes) {
  return BioPtr(BIO_new_mem_buf(bytes.data(), static_cast<int>(bytes.size())));
}

// The leaf, then any intermediates after it in the same file.
Result<void> use_chain(SSL_CTX* ctx, const std::string& path) {
  auto bytes = read_file(path, "client certificate");
  if (!bytes) return std::move(bytes).error();
  BioPtr bio = memory_bio(*bytes);
  X509* leaf = bio ? PEM_read_bio_X509_AUX(bio.get(), nullptr, nullptr, nullptr) : nullptr;
  if (leaf == nullptr)
    return cert_error("client certificate " + path + " holds no PEM certificate");
  const int used = SSL_CTX_use_certificate(ctx, leaf);
  X509_free(leaf);
  if (used != 1)
    return cert_error("cannot use client certificate " + path + ": " +
                      openssl_error_text("rejected by OpenSSL"));
  while (X509* issuer = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    if (SSL_CTX_add0_chain_cert(ctx, issuer) != 1) {
      X509_free(issuer);
      return cert_error("cannot use the chain in client certificate " + path);
    }
  }
  ERR_clear_error();  // the loop ends on "no start line"
  return {};
}

struct PasswordState {
  const std::string* password;
  bool asked = false;
};

// OpenSSL's default would prompt on the terminal: a library must never do that.
int password_callback(char* buffer, int size, int, void* user) noexcept {
  auto* state = static_cast<PasswordState*>(user);
  state->asked = true;
  const std::string& password = *state->password;
  if (password.empty() || password.size() > static_cast<std::size_t>(size)) return -1;
  std::memcpy(buffer, password.data(), password.size());
  return static_cast<int>(password.size());
}

Result<EVP_PKEY*> read_key(const std::string& path, const std::string& password, bool in_cert) {
  auto bytes = read_file(path, "private key");
  if (!bytes) return std::move(bytes).error();
  BioPtr bio = memory_bio(*bytes);
  PasswordState state{&password};
  EVP_PKEY* key =
      bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, password_callback, &state) : nullptr;
  if (key != nullptr) return key;
  if (state.asked && password.empty())
    return cert_error("private key " + path + " is encrypted: give its passphrase (--pass)");
  if (state.asked) return cert_error("wrong passphrase for private key " + path);
  if (in_cert)
    return cert_error("client certificate " + path +
                      " holds no PEM private key: give the key with --key FILE");
  return cert_error("private key " + path + " holds no PEM private key");
}

}  // namespace

Result<void> use_client_certificate(SSL_CTX* ctx, const std::string& cert_file,
                                    const std::string& key_file, const std::string& password) {
  ERR_clear_error();
  if (auto chain = use_chain(ctx, cert_file); !chain) return chain;
  const std::string& key_path = key_file.empty() ? cert_file : key_file;
  auto key = read_key(key_path, password, key_file.empty());
  if (!key) return std::move(key).error();
  const int used = SSL_CTX_use_PrivateKey(ctx, *key);
  EVP_PKEY_free(*key);
  if (used != 1 || SSL_CTX_check_private_key(ctx) != 1)
    return cert_error("private key " + key_path + " does not match client certificate " +
                      cert_file);
  ERR_clear_error();
  return {};
}

}  // namespace sluice

// Test certificates, generated in-process with OpenSSL 3 (EC P-256: fast to make).
// Thread-safe: the function-local static is initialised once.

#include "support/test_certs.hpp"

#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

namespace sluice::test {
namespace {

constexpr long kDay = 24 * 60 * 60;

[[noreturn]] void die(const std::string& what) {
  // Test support: without certificates no TLS test can run; stop loudly.
  std::fprintf(stderr, "test_certs: %s\n", what.c_str());
  std::abort();
}

struct KeyFree {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
struct CertFree {
  void operator()(X509* cert) const { X509_free(cert); }
};
using Key = std::unique_ptr<EVP_PKEY, KeyFree>;
using Cert = std::unique_ptr<X509, CertFree>;

Key make_key() {
  Key key(EVP_EC_gen("P-256"));
  if (!key) die("cannot generate an EC key");
  return key;
}

// What one certificate says about itself.
struct CertSpec {
  std::string common_name;
  std::string subject_alt_names;  // "DNS:localhost,IP:127.0.0.1"; empty for none
  long valid_from = -kDay;        // seconds from now
  long valid_until = 30 * kDay;
  bool is_ca = false;
  long serial = 1;
};

void add_extension(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX context;
  X509V3_set_ctx_nodb(&context);
  X509V3_set_ctx(&context, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* extension = X509V3_EXT_conf_nid(nullptr, &context, nid, value.c_str());
  if (extension == nullptr || X509_add_ext(cert, extension, -1) != 1)
    die("cannot add extension " + value);
  X509_EXTENSION_free(extension);
}

// Signs with `issuer_key`; a null `issuer` means self-signed.
Cert make_cert(const CertSpec& spec, EVP_PKEY* key, X509* issuer, EVP_PKEY* issuer_key) {
  Cert cert(X509_new());
  if (!cert) die("X509_new failed");
  X509_set_version(cert.get(), X509_VERSION_3);
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), spec.serial);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), spec.valid_from);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), spec.valid_until);
  X509_set_pubkey(cert.get(), key);
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("sluice tests"), -1, -1, 0);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(spec.common_name.c_str()), -1,
                             -1, 0);
  X509* signer = issuer != nullptr ? issuer : cert.get();
  X509_set_issuer_name(cert.get(), X509_get_subject_name(signer));
  add_extension(cert.get(), signer, NID_subject_key_identifier, "hash");
  if (spec.is_ca) {
    add_extension(cert.get(), signer, NID_basic_constraints, "critical,CA:TRUE");
    add_extension(cert.get(), signer, NID_key_usage, "critical,keyCertSign,cRLSign");
  } else {
    add_extension(cert.get(), signer, NID_basic_constraints, "critical,CA:FALSE");
    add_extension(cert.get(), signer, NID_key_usage, "critical,digitalSignature");
    add_extension(cert.get(), signer, NID_ext_key_usage, "serverAuth");
  }
  if (issuer != nullptr) add_extension(cert.get(), signer, NID_authority_key_identifier, "keyid");
  if (!spec.subject_alt_names.empty())
    add_extension(cert.get(), signer, NID_subject_alt_name, spec.subject_alt_names);
  if (X509_sign(cert.get(), issuer_key, EVP_sha256()) <= 0) die("cannot sign " + spec.common_name);
  return cert;
}

void write_cert(const std::string& path, X509* cert) {
  std::FILE* file = std::fopen(path.c_str(), "w");
  if (file == nullptr || PEM_write_X509(file, cert) != 1) die("cannot write " + path);
  std::fclose(file);
}

void write_key(const std::string& path, EVP_PKEY* key) {
  std::FILE* file = std::fopen(path.c_str(), "w");
  if (file == nullptr ||
      PEM_write_PrivateKey(file, key, nullptr, nullptr, 0, nullptr, nullptr) != 1)
    die("cannot write " + path);
  std::fclose(file);
}

// A leaf signed by the CA, written as <stem>.pem and <stem>.key.
void write_leaf(const TestCerts& certs, const std::string& stem, CertSpec spec, X509* ca,
                EVP_PKEY* ca_key, std::string& cert_path, std::string& key_path) {
  Key key = make_key();
  Cert cert = make_cert(spec, key.get(), ca, ca_key != nullptr ? ca_key : key.get());
  cert_path = certs.dir + "/" + stem + ".pem";
  key_path = certs.dir + "/" + stem + ".key";
  write_cert(cert_path, cert.get());
  write_key(key_path, key.get());
}

// Owns the folder; removes it when the process exits normally.
struct CertFolder {
  TestCerts certs;
  ~CertFolder() {
    for (const std::string* path :
         {&certs.ca_file, &certs.server_cert, &certs.server_key, &certs.wrong_host_cert,
          &certs.wrong_host_key, &certs.expired_cert, &certs.expired_key, &certs.untrusted_cert,
          &certs.untrusted_key})
      unlink(path->c_str());
    rmdir(certs.dir.c_str());
  }
};

TestCerts generate() {
  char folder[] = "/tmp/sluice-certs-XXXXXX";
  if (mkdtemp(folder) == nullptr) die("mkdtemp failed");
  TestCerts certs;
  certs.dir = folder;
  const std::string local_names = "DNS:localhost,IP:127.0.0.1,IP:::1";

  Key ca_key = make_key();
  CertSpec ca_spec{"sluice test CA", "", -kDay, 3650 * kDay, true, 1};
  Cert ca = make_cert(ca_spec, ca_key.get(), nullptr, ca_key.get());
  certs.ca_file = certs.dir + "/ca.pem";
  write_cert(certs.ca_file, ca.get());

  write_leaf(certs, "server", {"localhost", local_names, -kDay, 30 * kDay, false, 2}, ca.get(),
             ca_key.get(), certs.server_cert, certs.server_key);
  write_leaf(certs, "wrong-host",
             {"wrong.example", "DNS:wrong.example", -kDay, 30 * kDay, false, 3}, ca.get(),
             ca_key.get(), certs.wrong_host_cert, certs.wrong_host_key);
  write_leaf(certs, "expired", {"localhost", local_names, -10 * kDay, -kDay, false, 4}, ca.get(),
             ca_key.get(), certs.expired_cert, certs.expired_key);
  write_leaf(certs, "untrusted", {"localhost", local_names, -kDay, 30 * kDay, false, 5}, nullptr,
             nullptr, certs.untrusted_cert, certs.untrusted_key);
  return certs;
}

}  // namespace

const TestCerts& test_certs() {
  static const CertFolder folder{generate()};
  return folder.certs;
}

}  // namespace sluice::test

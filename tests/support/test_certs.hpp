#pragma once
// Certificates for TLS tests, generated at test time (nothing is checked in).
// Thread-safe: generated once per process on first use.

#include <string>

namespace sluice::test {

struct TestCerts {
  std::string dir;          ///< the temporary folder holding every file below
  std::string ca_file;      ///< the test CA (PEM); trust it with --cacert
  std::string server_cert;  ///< signed by the CA for localhost, 127.0.0.1 and ::1
  std::string server_key;
  std::string wrong_host_cert;  ///< signed by the CA for wrong.example only
  std::string wrong_host_key;
  std::string expired_cert;  ///< signed by the CA for localhost, expired yesterday
  std::string expired_key;
  std::string untrusted_cert;  ///< self-signed for localhost (unknown CA)
  std::string untrusted_key;
};

/// Generates the certificates on first call (OpenSSL API, RSA 2048 or EC P-256).
const TestCerts& test_certs();

}  // namespace sluice::test

#pragma once
// TestEnv: where the real servers of the integration tests are. The ctest fixture
// servers.start (tests/support/servers/start.sh) starts nginx and writes
// $SLUICE_TEST_ENV/env, one KEY=VALUE per line:
//   SLUICE_NGINX_HTTP_URL   http://127.0.0.1:PORT   (HTTP/1.1)
//   SLUICE_NGINX_HTTPS_URL  https://localhost:PORT  (HTTP/1.1 over TLS 1.2/1.3)
//   SLUICE_TEST_CA          the CA that signed the server's certificate (PEM)
//   SLUICE_FILES_DIR        what nginx serves at "/": empty.bin, 1m.bin, 64m.bin
//                           (random bytes), small.txt, large.txt (gzip-encoded on
//                           request), and sha256sums of those five
// Paths nginx also answers: /redirect (302 to /small.txt), /moved (301),
// /redirect-relative (302 with "Location: /small.txt"), /redirect-chain/3 (three
// 302s, then /small.txt), /redirect-loop (302 to itself), /upload/NAME (PUT stores
// the body, GET returns it, DELETE removes it).
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

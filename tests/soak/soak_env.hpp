#pragma once
// SoakEnv: the real servers' addresses and the files they serve, read from the env
// file that tests/support/servers/start.sh writes. Unlike test::TestEnv it reports
// problems as values (this is a program, not a GoogleTest test). Built on the main
// thread, then read-only: any thread may read it.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "sluice/error.hpp"

namespace sluice::soak {

struct ServedFile {
  std::string name;  ///< "1m.bin"
  std::uint64_t size = 0;
  std::string sha256;  ///< lowercase hex
};

struct SoakEnv {
  std::string nginx_http;   ///< http://127.0.0.1:PORT (h1)
  std::string nginx_https;  ///< https://localhost:PORT (h1 over TLS)
  std::string nginx_h2;     ///< https://localhost:PORT (h2 by ALPN)
  std::string nghttpd;      ///< https://localhost:PORT (h2; POST echoes the body)
  std::string caddy;        ///< https://localhost:PORT (h3 on UDP PORT)
  std::string gtlsserver;   ///< https://localhost:PORT (h3 only)
  std::string ca_file;      ///< trusts every server above
  std::string certs_dir;    ///< the CA's folder: server.pem and server.key for localhost
  std::map<std::string, ServedFile, std::less<>> files;

  const ServedFile& file(std::string_view name) const;
};

/// Reads the env file and the served files' sizes and SHA-256 sums.
Result<SoakEnv> load_soak_env(const std::string& env_file);

/// The port of "scheme://host:PORT".
std::uint16_t port_of(std::string_view url);

}  // namespace sluice::soak

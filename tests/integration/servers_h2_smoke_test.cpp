// The HTTP/2 servers of the test harness answer sluice over real HTTP/2: nginx (TLS,
// ALPN h2), nghttpd (TLS and h2c with prior knowledge) and caddy (TLS, ALPN h2).
// They are started by the ctest fixture servers.start (tests/support/servers/start.sh);
// this suite proves each of them is up and speaks h2 before the h2 tests rely on it.
#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "sluice/sluice.hpp"
#include "support/make_client.hpp"
#include "support/test_env.hpp"
#include "support/test_server.hpp"

namespace sluice {
namespace {

struct H2Server {
  const char* name;     ///< the test's name suffix
  const char* env_key;  ///< the base URL's key in $SLUICE_TEST_ENV/env
  VersionPolicy version;
};

// Names the parameter in ctest's test names instead of gtest's byte dump.
void PrintTo(const H2Server& server, std::ostream* out) { *out << server.name; }

class RealServersOverHttp2 : public ::testing::TestWithParam<H2Server> {
 protected:
  Client make_client() const {
    ClientOptions options;
    options.tls.ca_file = env_.get("SLUICE_TEST_CA");
    return test::make_client(options);
  }
  test::TestEnv env_;
};

TEST_P(RealServersOverHttp2, ServesAFileOverHttp2WithItsDigest) {
  const H2Server& server = GetParam();
  auto client = make_client();
  Request request = Request::get(env_.get(server.env_key) + "/1m.bin");
  request.version = server.version;
  auto response = client.fetch(request);
  ASSERT_TRUE(response.ok()) << server.name << ": " << response.error().message();
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->version, HttpVersion::http2)
      << server.name << " answered over HTTP/" << to_string(response->version);
  auto body = response->body.read_all(8u << 20);
  ASSERT_TRUE(body.ok()) << server.name << ": " << body.error().message();
  EXPECT_EQ(body->size(), 1u << 20);
  EXPECT_EQ(test::sha256_hex(*body), env_.sha256_of("1m.bin"));
}

INSTANTIATE_TEST_SUITE_P(
    Servers, RealServersOverHttp2,
    ::testing::Values(H2Server{"nginx", "SLUICE_NGINX_H2_URL", VersionPolicy::http2},
                      H2Server{"nghttpd", "SLUICE_NGHTTPD_URL", VersionPolicy::http2},
                      H2Server{"nghttpd_h2c", "SLUICE_NGHTTPD_H2C_URL",
                               VersionPolicy::http2_prior_knowledge},
                      H2Server{"caddy", "SLUICE_CADDY_URL", VersionPolicy::http2}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

}  // namespace
}  // namespace sluice
